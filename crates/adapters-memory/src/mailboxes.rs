//! `MailboxCursorRepository`: where each polled mailbox's reader is, and which holder reads it
//! now, by a lease its holder renews as it advances.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{MailboxCursorRepository, StoreResult};

use crate::store::{MemoryStore, conflict};

#[async_trait]
impl MailboxCursorRepository for MemoryStore {
    async fn claim(&self, line: &LineId, holder: &str, now: Timestamp, until: Timestamp) -> StoreResult<Option<MailboxPosition>> {
        self.with(|s| {
            // The cursor's row hangs off the line's.
            if !s.lines.contains_key(line) {
                return Err(conflict(format!("no line {}", line.as_str())));
            }
            let cursor = s.mailboxes.entry(line.clone()).or_default();
            let free = match &cursor.holder {
                None => true,
                Some((current, lease_until)) => *lease_until < now || current == holder,
            };
            if !free {
                return Ok(None);
            }
            cursor.holder = Some((holder.to_string(), until));
            Ok(Some(cursor.position))
        })
    }

    async fn advance(&self, line: &LineId, holder: &str, to: MailboxPosition, until: Timestamp) -> StoreResult<bool> {
        Ok(self.with(|s| {
            let Some(cursor) = s.mailboxes.get_mut(line) else { return false };
            let held = cursor.holder.as_ref().is_some_and(|(current, _)| current == holder);
            if !held {
                return false;
            }
            cursor.position = to;
            cursor.holder = Some((holder.to_string(), until));
            true
        }))
    }

    async fn release(&self, line: &LineId, holder: &str) -> StoreResult<()> {
        self.with(|s| {
            if let Some(cursor) = s.mailboxes.get_mut(line)
                && cursor.holder.as_ref().is_some_and(|(current, _)| current == holder)
            {
                cursor.holder = None;
            }
        });
        Ok(())
    }
}
