//! Email lines' mailboxes read by IMAP, behind the domain's reader port.

use async_trait::async_trait;
use parley_domain::model::{Line, LineAccess, MailBatch, MailboxPosition};
use parley_domain::ports::{MailboxReader, PlatformError};

use super::envelope::envelope;
use crate::{Cursor, ImapError, ImapMailbox, ServerUrl};

/// Reads INBOX by UID (its UIDVALIDITY is the position's epoch), read-only, one connection per
/// batch; each message becomes a delivery body ([`envelope`]) received now.
#[derive(Debug, Clone, Copy, Default)]
pub struct ImapReader;

#[async_trait]
impl MailboxReader for ImapReader {
    async fn read_after(&self, line: &Line, after: Option<MailboxPosition>, limit: u32) -> Result<MailBatch, PlatformError> {
        let refused = |message: String| PlatformError::Rejected { code: None, message, details: None };
        let LineAccess::Mail(access) = &line.access else {
            return Err(refused("the line has no mailbox to read".into()));
        };
        let url = access.receive_url.as_ref().ok_or_else(|| refused("the line has no IMAP URL".into()))?;
        let url = ServerUrl::imap(url.as_str()).map_err(|e| refused(format!("the line's IMAP URL: {e}")))?;
        let mut mailbox = ImapMailbox::connect(&url, &access.username, access.password.expose()).await.map_err(platform_error)?;
        let known = after.map(|p| Cursor { uid_validity: p.epoch, last_uid: p.last });
        let batch = mailbox.fetch_after(known, limit.clamp(1, crate::limits::MAX_BATCH_MESSAGES)).await.map_err(platform_error)?;
        // The batch is in hand: a failed goodbye changes nothing.
        let _ = mailbox.logout().await;
        let now = chrono::Utc::now();
        Ok(MailBatch {
            deliveries: batch.messages.iter().map(|m| envelope(line.account_id(), now, &m.raw)).collect(),
            skipped: batch
                .oversized
                .iter()
                .map(|o| {
                    format!("UID {} is {} bytes, over the {}-byte limit: not fetched", o.uid, o.size, crate::limits::MAX_MESSAGE_BYTES)
                })
                .collect(),
            position: MailboxPosition { epoch: batch.cursor.uid_validity, last: batch.cursor.last_uid },
            more: batch.more,
        })
    }
}

fn platform_error(e: ImapError) -> PlatformError {
    match e {
        ImapError::LoginRefused(message) => PlatformError::Unauthorized { message },
        other => PlatformError::Unavailable { message: other.to_string() },
    }
}
