//! Raw email, kept as a delivery, read into the domain's inbound terms.

use parley_domain::model::{EmailAttachment, EmailContent, InboundFile, InboundMessage, LineNews, MessageContent, SetAside, SetAsideKind};
use parley_domain::ports::InboundDecoder;
use sha2::{Digest, Sha256};

use super::envelope::Envelope;
use crate::{InboundEmail, parse};

/// Reads deliveries written by [`envelope`](super::envelope()): one email each.
#[derive(Debug, Clone, Copy, Default)]
pub struct EmailDecoder;

impl InboundDecoder for EmailDecoder {
    fn decode(&self, body: &str) -> Result<Vec<LineNews>, String> {
        let envelope: Envelope = serde_json::from_str(body).map_err(|e| format!("not an email delivery: {e}"))?;
        let raw = envelope.bytes().ok_or("not an email delivery: raw is not base64")?;
        let mut news = LineNews { account_id: envelope.account.clone(), ..LineNews::default() };
        match parse(&raw) {
            Ok(email) => news.inbound.push(inbound_message(&envelope, email)),
            Err(refusal) => news.set_aside.push(SetAside {
                kind: SetAsideKind::Message,
                position: 1,
                platform_id: None,
                from: None,
                reason: refusal.to_string(),
            }),
        }
        Ok(vec![news])
    }
}

/// The id of the `index`th attachment of the email `message_id` at mailbox `account`: the same
/// for the same mail however often it is processed, so its file is kept once.
pub fn attachment_id(account: &str, message_id: &str, index: usize) -> String {
    let mut hash = Sha256::new();
    for part in [account.as_bytes(), message_id.as_bytes(), index.to_string().as_bytes()] {
        hash.update(part);
        hash.update([0]);
    }
    format!("att_{}", &hex::encode(hash.finalize())[..24])
}

fn inbound_message(envelope: &Envelope, email: InboundEmail) -> InboundMessage {
    let mut files = Vec::with_capacity(email.attachments.len());
    let mut listed = Vec::with_capacity(email.attachments.len());
    for (index, attachment) in email.attachments.into_iter().enumerate() {
        let id = attachment_id(&envelope.account, &email.message_id, index);
        listed.push(EmailAttachment {
            id: id.clone(),
            filename: attachment.filename.clone(),
            mime_type: attachment.mime_type.clone(),
            size: attachment.bytes.len() as u64,
        });
        files.push(InboundFile { id, filename: attachment.filename, mime_type: attachment.mime_type, bytes: attachment.bytes });
    }
    let content = EmailContent {
        subject: email.subject,
        from: email.from.address.clone(),
        to: email.to.into_iter().map(|m| m.address).collect(),
        cc: email.cc.into_iter().map(|m| m.address).collect(),
        message_id: email.message_id.clone(),
        in_reply_to: email.in_reply_to.clone(),
        references: email.references,
        text: email.text.unwrap_or_default(),
        attachments: listed,
        rich: None,
    };
    InboundMessage {
        from: email.from.address,
        user: Default::default(),
        echo: false,
        profile_name: email.from.name,
        at: email.date.unwrap_or(envelope.received_at),
        platform_message_id: email.message_id,
        content: MessageContent::Email(content),
        reply_to: email.in_reply_to,
        referral: None,
        position: 1,
        files,
        identity: None,
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;
    use crate::ports::envelope;

    const MAIL: &str = "From: \"Ana Souza\" <Ana@Example.com>\r\nTo: shop@example.com\r\nCc: Bo <bo@example.com>\r\n\
Subject: Order 42\r\nMessage-ID: <a1@example.com>\r\nIn-Reply-To: <msg_1@example.com>\r\nReferences: <msg_0@example.com> <msg_1@example.com>\r\n\
Date: Tue, 1 Dec 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n\
--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nIs the mug in stock?\r\n--b\r\nContent-Type: image/png\r\n\
Content-Disposition: attachment; filename=mug.png\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw==\r\n--b--\r\n";

    #[test]
    fn an_email_becomes_one_inbound_message_with_its_files() {
        let at = Utc.with_ymd_and_hms(2026, 12, 1, 11, 0, 0).unwrap();
        let news = EmailDecoder.decode(&envelope("shop@example.com", at, MAIL.as_bytes())).unwrap();
        assert_eq!(news.len(), 1);
        assert_eq!(news[0].account_id, "shop@example.com");
        let m = &news[0].inbound[0];
        assert_eq!((m.from.as_str(), m.profile_name.as_deref()), ("ana@example.com", Some("Ana Souza")));
        assert_eq!(m.platform_message_id, "a1@example.com");
        assert_eq!(m.reply_to.as_deref(), Some("msg_1@example.com"));
        assert_eq!(m.at, Utc.with_ymd_and_hms(2026, 12, 1, 10, 0, 0).unwrap(), "the Date header's time");
        let MessageContent::Email(email) = &m.content else { panic!("{:?}", m.content) };
        assert_eq!(email.subject.as_deref(), Some("Order 42"));
        assert_eq!(email.to, ["shop@example.com"]);
        assert_eq!(email.cc, ["bo@example.com"]);
        assert_eq!(email.references, ["msg_0@example.com", "msg_1@example.com"]);
        assert_eq!(email.text.trim(), "Is the mug in stock?");
        assert_eq!(email.attachments.len(), 1);
        let (listed, file) = (&email.attachments[0], &m.files[0]);
        assert_eq!((listed.filename.as_deref(), listed.mime_type.as_str(), listed.size), (Some("mug.png"), "image/png", 4));
        assert_eq!(file.id, listed.id);
        assert_eq!(file.bytes, b"\x89PNG");
        assert_eq!(listed.id, attachment_id("shop@example.com", "a1@example.com", 0), "derived, so kept once");
        assert_ne!(listed.id, attachment_id("other@example.com", "a1@example.com", 0));
    }

    #[test]
    fn mail_without_a_sender_is_set_aside_and_a_foreign_body_refused() {
        let at = Utc.with_ymd_and_hms(2026, 12, 1, 11, 0, 0).unwrap();
        let news = EmailDecoder.decode(&envelope("shop@example.com", at, b"Subject: hi\r\n\r\nbody")).unwrap();
        assert!(news[0].inbound.is_empty());
        assert_eq!(news[0].set_aside[0].reason, "the message has no From address");
        let undated = EmailDecoder.decode(&envelope("shop@example.com", at, b"From: a@b.co\r\n\r\nx")).unwrap();
        assert_eq!(undated[0].inbound[0].at, at, "no Date: the time it was received");
        assert!(EmailDecoder.decode("{\"entry\":[]}").is_err());
    }
}
