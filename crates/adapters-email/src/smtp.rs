//! Replies out by SMTP, classified the way the API answers: a refusal by the server (5xx,
//! permanent: 422) apart from everything that may work later (4xx, unreachable, timeouts: 502).

use std::error::Error as _;

use lettre::message::{MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::limits::NETWORK_TIMEOUT;
use crate::mailbox::Mailbox;
use crate::reply::{new_message_id, one_line};
use crate::text::clean;
use crate::url::ServerUrl;

/// One email to send, usually a reply: plain text, or plain text beside HTML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingEmail {
    /// The line's own address (its domain names the fresh Message-ID).
    pub from: Mailbox,
    pub to: Mailbox,
    /// As given (a reply's `Re: <last subject>` is the caller's).
    pub subject: String,
    pub text: String,
    /// An HTML part saying what `text` says (a rich reply); the email is then
    /// `multipart/alternative`, its plain-text part first.
    pub html: Option<String>,
    /// The contact's last Message-ID (without angle brackets), for threading.
    pub in_reply_to: Option<String>,
    /// The thread's ids, oldest first, without angle brackets.
    pub references: Vec<String>,
    /// Its own Message-ID (without angle brackets), when the caller chose one; else a fresh one
    /// on the From address's domain.
    pub message_id: Option<String>,
}

/// What the caller keeps of a sent email.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentEmail {
    /// The Message-ID given to it, without angle brackets.
    pub message_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SmtpError {
    /// The server refused for good (5xx): the recipient, the sender, the content or the
    /// credentials. Sending the same again will fail again.
    #[error("the SMTP server refused ({code}): {text}")]
    Rejected { code: u16, text: String },
    /// Unreachable, timed out, TLS failed, or refused for now (4xx): may work later.
    #[error("the SMTP server is unavailable: {0}")]
    Unavailable(String),
    /// The email itself cannot be written (an address that is not one, a From without domain).
    #[error("the email is invalid: {0}")]
    Invalid(String),
}

/// Sends by SMTP to one server with one login. Each send opens its own connection.
#[derive(Clone)]
pub struct SmtpSender {
    transport: AsyncSmtpTransport<Tokio1Executor>,
}

impl std::fmt::Debug for SmtpSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpSender").finish_non_exhaustive()
    }
}

impl SmtpSender {
    /// A sender to `url` (`smtp://`: plain, `smtps://`: implicit TLS, checked against the webpki
    /// roots) logging in as `username` with `password`. The EHLO name is the username's domain
    /// when it is an address (it defaults to the line's address), else `localhost`.
    pub fn new(url: &ServerUrl, username: &str, password: &str) -> Result<Self, SmtpError> {
        let tls = if url.tls {
            let parameters = TlsParameters::new(url.host.clone()).map_err(|e| SmtpError::Unavailable(format!("TLS configuration: {e}")))?;
            Tls::Wrapper(parameters)
        } else {
            Tls::None
        };
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&url.host)
            .port(url.port)
            .tls(tls)
            .timeout(Some(NETWORK_TIMEOUT))
            .credentials(Credentials::new(username.to_owned(), password.to_owned()));
        if let Some((_, domain)) = username.rsplit_once('@').filter(|(_, d)| !d.is_empty()) {
            builder = builder.hello_name(ClientId::Domain(domain.to_owned()));
        }
        Ok(Self { transport: builder.build() })
    }

    /// Sends `mail` under its Message-ID, or a fresh one on the From address's domain, and
    /// returns that id.
    pub async fn send(&self, mail: &OutgoingEmail) -> Result<SentEmail, SmtpError> {
        let domain = mail.from.domain().ok_or_else(|| SmtpError::Invalid(format!("{:?} has no domain", mail.from.address)))?;
        let message_id = match &mail.message_id {
            Some(id) => msg_id(id)
                .map(|bracketed| bracketed[1..bracketed.len() - 1].to_owned())
                .ok_or_else(|| SmtpError::Invalid(format!("{id:?} is not a Message-ID")))?,
            None => new_message_id(domain),
        };
        let message = build(mail, &message_id)?;
        self.transport.send(message).await.map_err(classify).map(|_| SentEmail { message_id })
    }
}

fn build(mail: &OutgoingEmail, message_id: &str) -> Result<Message, SmtpError> {
    let mut builder = Message::builder()
        .from(mailbox(&mail.from)?)
        .to(mailbox(&mail.to)?)
        .subject(one_line(&mail.subject))
        .message_id(Some(format!("<{message_id}>")))
        .date_now();
    if let Some(parent) = mail.in_reply_to.as_deref().and_then(msg_id) {
        builder = builder.in_reply_to(parent);
    }
    let references: Vec<String> = mail.references.iter().filter_map(|id| msg_id(id)).collect();
    if !references.is_empty() {
        builder = builder.references(references.join(" "));
    }
    let built = match &mail.html {
        Some(html) => builder.multipart(MultiPart::alternative_plain_html(clean(&mail.text), html.clone())),
        None => builder.singlepart(SinglePart::plain(clean(&mail.text))),
    };
    built.map_err(|e| SmtpError::Invalid(e.to_string()))
}

fn mailbox(mailbox: &Mailbox) -> Result<lettre::message::Mailbox, SmtpError> {
    let address = mailbox.address.parse().map_err(|e| SmtpError::Invalid(format!("{:?}: {e}", mailbox.address)))?;
    let name = mailbox.name.as_deref().map(one_line);
    Ok(lettre::message::Mailbox::new(name, address))
}

/// `<id>`, from an id given with or without brackets; `None` for one that cannot be a header
/// token (blank, or with spaces or brackets inside).
fn msg_id(id: &str) -> Option<String> {
    let id = id.trim().trim_start_matches('<').trim_end_matches('>');
    let valid = !id.is_empty() && id.chars().all(|c| c.is_ascii_graphic() && c != '<' && c != '>');
    valid.then(|| format!("<{id}>"))
}

fn classify(error: lettre::transport::smtp::Error) -> SmtpError {
    match error.status() {
        Some(code) if error.is_permanent() => SmtpError::Rejected {
            code: code.to_string().parse().unwrap_or(500),
            text: error.source().map(ToString::to_string).unwrap_or_else(|| error.to_string()),
        },
        _ => SmtpError::Unavailable(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_ids_are_bracketed_once_and_bad_ones_dropped() {
        assert_eq!(msg_id("a@b").as_deref(), Some("<a@b>"));
        assert_eq!(msg_id("<a@b>").as_deref(), Some("<a@b>"));
        assert_eq!(msg_id(" "), None);
        assert_eq!(msg_id("a b@c"), None);
        assert_eq!(msg_id("a\r\nBcc: x@y"), None);
    }

    #[test]
    fn a_from_without_domain_is_invalid() {
        let mail = OutgoingEmail {
            from: Mailbox::new("nodomain"),
            to: Mailbox::new("a@example.com"),
            subject: "s".into(),
            text: "t".into(),
            html: None,
            in_reply_to: None,
            references: vec![],
            message_id: None,
        };
        let sender = SmtpSender::new(&ServerUrl::smtp("smtp://127.0.0.1:1").unwrap(), "u", "p").unwrap();
        let err = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(sender.send(&mail)).unwrap_err();
        assert!(matches!(err, SmtpError::Invalid(_)), "{err}");
    }
}
