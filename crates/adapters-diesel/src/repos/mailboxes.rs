//! Where each polled mailbox's reader is, and the lease of the instance reading it.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::{LineId, MailboxPosition, Timestamp};
use parley_domain::ports::{MailboxCursorRepository, StoreResult};

use crate::Store;
use crate::error::DbError;
use crate::pool::write_conn;
use crate::rows::millis;
use crate::schema::mailbox_cursors as mc;

/// A stored UID or UIDVALIDITY (32-bit unsigned in IMAP) back to its type.
fn number(stored: i64) -> Result<u32, DbError> {
    u32::try_from(stored).map_err(|_| DbError::Corrupt(format!("a mailbox position of {stored}")))
}

#[async_trait]
impl MailboxCursorRepository for Store {
    async fn claim(&self, line: &LineId, holder: &str, now: Timestamp, until: Timestamp) -> StoreResult<Option<MailboxPosition>> {
        let (now, until) = (millis(now), millis(until));
        let row: Option<(i64, i64)> = write_conn!(self, |conn| {
            // The row first (a mailbox never read), then the claim: one statement each, and the
            // update's condition decides between instances racing for it.
            diesel::insert_into(mc::table)
                .values((mc::line_id.eq(line.as_str()), mc::updated_at.eq(now)))
                .on_conflict_do_nothing()
                .execute(conn)
                .await
                .map_err(DbError::from)?;
            let free = mc::claimed_by.is_null().or(mc::lease_until.lt(now)).or(mc::claimed_by.eq(holder));
            diesel::update(mc::table.filter(mc::line_id.eq(line.as_str())).filter(free))
                .set((mc::claimed_by.eq(holder), mc::lease_until.eq(until)))
                .returning((mc::uid_validity, mc::last_uid))
                .get_result(conn)
                .await
                .optional()
                .map_err(DbError::from)
        })?;
        Ok(row.map(|(epoch, last)| Ok::<_, DbError>(MailboxPosition { epoch: number(epoch)?, last: number(last)? })).transpose()?)
    }

    async fn advance(&self, line: &LineId, holder: &str, to: MailboxPosition, until: Timestamp) -> StoreResult<bool> {
        let until = millis(until);
        let changed =
            write_conn!(self, |conn| diesel::update(mc::table.filter(mc::line_id.eq(line.as_str())).filter(mc::claimed_by.eq(holder)))
                .set((
                    mc::uid_validity.eq(i64::from(to.epoch)),
                    mc::last_uid.eq(i64::from(to.last)),
                    mc::lease_until.eq(until),
                    mc::updated_at.eq(until),
                ))
                .execute(conn)
                .await
                .map_err(DbError::from))?;
        Ok(changed == 1)
    }

    async fn release(&self, line: &LineId, holder: &str) -> StoreResult<()> {
        write_conn!(self, |conn| diesel::update(mc::table.filter(mc::line_id.eq(line.as_str())).filter(mc::claimed_by.eq(holder)))
            .set((mc::claimed_by.eq(None::<String>), mc::lease_until.eq(0i64)))
            .execute(conn)
            .await
            .map_err(DbError::from))?;
        Ok(())
    }
}
