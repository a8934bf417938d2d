//! Mail a sandbox contact writes: what `parley sandbox receive --channel-type email` delivers.

use lettre::message::{Mailbox as LettreMailbox, SinglePart};

use crate::Mailbox;

/// A plain-text email from `from` to `to` under `message_id`, as a mail server would hand it
/// over (raw RFC 5322 bytes); `None` when an address cannot be written.
pub fn sandbox_mail(from: &Mailbox, to: &str, subject: &str, text: &str, message_id: &str) -> Option<Vec<u8>> {
    let from = LettreMailbox::new(from.name.clone(), from.address.parse().ok()?);
    let to = LettreMailbox::new(None, to.parse().ok()?);
    let message = lettre::Message::builder()
        .from(from)
        .to(to)
        .subject(subject)
        .message_id(Some(format!("<{message_id}>")))
        .date_now()
        .singlepart(SinglePart::plain(text.to_owned()))
        .ok()?;
    Some(message.formatted())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sandbox_mail_reads_back() {
        let raw =
            sandbox_mail(&Mailbox::named("Zoë", "zoe@example.com"), "shop@example.com", "Olá", "Hi there", "s1@parley.sandbox").unwrap();
        let email = crate::parse(&raw).unwrap();
        assert_eq!(email.from, Mailbox::named("Zoë", "zoe@example.com"));
        assert_eq!((email.subject.as_deref(), email.message_id.as_str()), (Some("Olá"), "s1@parley.sandbox"));
        assert_eq!(email.text.as_deref().map(str::trim), Some("Hi there"));
        assert!(sandbox_mail(&Mailbox::new("not an address"), "shop@example.com", "s", "t", "i@x").is_none());
    }
}
