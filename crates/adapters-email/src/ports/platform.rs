//! Replies out of email lines, behind the domain's messaging port.

use async_trait::async_trait;
use parley_domain::model::{FreeFormMessage, Line, LineAccess, MessageContent, TemplateDefinition, TemplateMessage};
use parley_domain::ports::{MediaFile, MessagingPlatform, PlatformError, SentMessage};

use crate::html::{AnswerTo, rich_html};
use crate::{Mailbox, OutgoingEmail, ServerUrl, SmtpError, SmtpSender};

/// Sends an email line's replies by SMTP from the line's address; a sandbox email line's are
/// accepted without a network (the demo's).
#[derive(Debug, Clone, Copy, Default)]
pub struct EmailPlatform;

fn refused(message: &str) -> PlatformError {
    PlatformError::Rejected { code: None, message: message.to_owned(), details: None }
}

#[async_trait]
impl MessagingPlatform for EmailPlatform {
    /// Email has no templates.
    async fn templates(&self, _line: &Line) -> Result<Vec<TemplateDefinition>, PlatformError> {
        Ok(Vec::new())
    }

    async fn send_template<'a>(
        &self,
        _line: &Line,
        _message: &TemplateMessage,
        _callback_data: Option<&'a str>,
    ) -> Result<SentMessage, PlatformError> {
        Err(refused("email lines send no templates"))
    }

    async fn send_message(&self, line: &Line, message: &FreeFormMessage) -> Result<SentMessage, PlatformError> {
        let MessageContent::Email(email) = &message.content else {
            return Err(refused("an email line sends emails only"));
        };
        let sent = SentMessage { message_id: email.message_id.clone(), wa_id: None };
        let access = match &line.access {
            LineAccess::Mail(access) => access,
            LineAccess::Sandbox => return Ok(sent),
            LineAccess::Cloud(_) => return Err(refused("an email line without a mailbox login")),
        };
        let url = ServerUrl::smtp(access.send_url.as_str()).map_err(|e| refused(&format!("the line's SMTP URL: {e}")))?;
        let sender = SmtpSender::new(&url, &access.username, access.password.expose()).map_err(platform_error)?;
        let subject = email.subject.clone().unwrap_or_default();
        let outgoing = OutgoingEmail {
            from: Mailbox::new(line.account_id()),
            to: Mailbox::new(message.to.as_str()),
            subject: subject.clone(),
            text: email.text.clone(),
            html: email.rich.as_ref().map(|rich| rich_html(rich, &AnswerTo { address: line.account_id(), subject: &subject })),
            in_reply_to: email.in_reply_to.clone(),
            references: email.references.clone(),
            message_id: Some(email.message_id.clone()),
        };
        sender.send(&outgoing).await.map_err(platform_error)?;
        Ok(sent)
    }

    /// An email's files are Parley's own (kept when it arrived): nothing to fetch.
    async fn media(&self, _line: &Line, _media_id: &str) -> Result<MediaFile, PlatformError> {
        Err(refused("email attachments are served from Parley's storage"))
    }
}

/// A refusal (5xx) or an email that cannot be written is the platform refusing; anything that
/// may work later is the platform being unavailable.
fn platform_error(e: SmtpError) -> PlatformError {
    match e {
        SmtpError::Rejected { code, text } => PlatformError::Rejected { code: Some(i64::from(code)), message: text, details: None },
        SmtpError::Invalid(message) => refused(&message),
        SmtpError::Unavailable(message) => PlatformError::Unavailable { message },
    }
}
