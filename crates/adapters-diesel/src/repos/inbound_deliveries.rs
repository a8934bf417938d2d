use async_trait::async_trait;
use diesel::dsl::auto_type;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::{ChannelType, InboundDelivery, SetAside, SetAsideKind, Timestamp};
use parley_domain::ports::{InboundDeliveryRepository, StoreResult};
use serde_json::{Value, json};

use crate::Store;
use crate::error::DbError;
use crate::in_list::in_list;
use crate::pool::{in_transaction, with_conn, write_conn};
use crate::rows::{from_millis, millis, opt_from_millis};
use crate::schema::webhook_events;

#[derive(Queryable, Selectable)]
#[diesel(table_name = webhook_events)]
struct EventRow {
    id: String,
    body: String,
    received_at: i64,
    attempts: i32,
    last_error: Option<String>,
    next_attempt_at: Option<i64>,
    processed_at: Option<i64>,
    failed_at: Option<i64>,
    set_aside: Option<String>,
    platform: String,
}

impl EventRow {
    fn into_domain(self) -> Result<InboundDelivery, DbError> {
        Ok(InboundDelivery {
            platform: crate::rows::valid(ChannelType::parse(&self.platform))?,
            id: self.id,
            body: self.body,
            received_at: from_millis(self.received_at)?,
            attempts: u32::try_from(self.attempts).map_err(|_| DbError::Corrupt(format!("webhook attempts {}", self.attempts)))?,
            last_error: self.last_error,
            next_attempt_at: opt_from_millis(self.next_attempt_at)?,
            processed_at: opt_from_millis(self.processed_at)?,
            failed_at: opt_from_millis(self.failed_at)?,
            set_aside: self.set_aside.as_deref().map(set_aside_of).transpose()?.unwrap_or_default(),
        })
    }
}

/// The `set_aside` column: a JSON array of the parts, NULL when there are none.
fn set_aside_json(parts: &[SetAside]) -> Option<String> {
    if parts.is_empty() {
        return None;
    }
    let parts = parts.iter().map(
        |a| json!({"kind": a.kind.as_str(), "position": a.position, "platform_id": a.platform_id, "from": a.from, "reason": a.reason}),
    );
    Some(Value::Array(parts.collect()).to_string())
}

fn set_aside_of(raw: &str) -> Result<Vec<SetAside>, DbError> {
    let corrupt = || DbError::Corrupt(format!("webhook set_aside {raw:?}"));
    let parts: Vec<Value> = serde_json::from_str(raw).map_err(|_| corrupt())?;
    let text = |part: &Value, key: &str| part.get(key).and_then(Value::as_str).map(str::to_string);
    parts
        .iter()
        .map(|part| {
            Ok(SetAside {
                kind: part.get("kind").and_then(Value::as_str).and_then(SetAsideKind::parse).ok_or_else(corrupt)?,
                position: part.get("position").and_then(Value::as_u64).and_then(|p| u32::try_from(p).ok()).ok_or_else(corrupt)?,
                platform_id: text(part, "platform_id"),
                from: text(part, "from"),
                reason: text(part, "reason").ok_or_else(corrupt)?,
            })
        })
        .collect()
}

fn to_domain(rows: Vec<EventRow>) -> Result<Vec<InboundDelivery>, DbError> {
    rows.into_iter().map(EventRow::into_domain).collect()
}

/// The oldest unprocessed events due by `now`, at most `limit`: the ids a claim takes.
#[auto_type(dsl_path = "crate::dsl")]
fn due_ids(now: i64, limit: i64) -> _ {
    webhook_events::table
        .filter(webhook_events::processed_at.is_null())
        .filter(webhook_events::next_attempt_at.le(now))
        .order((webhook_events::received_at.asc(), webhook_events::id.asc()))
        .limit(limit)
        .select(webhook_events::id)
}

/// The ids a claim takes (see [`claim_due`](InboundDeliveryRepository::claim_due)), read in the
/// claiming transaction.
trait DueIds {
    async fn due_ids(&mut self, now: i64, limit: i64) -> Result<Vec<String>, DbError>;
}

#[cfg(feature = "postgres")]
impl DueIds for crate::pool::PgConn {
    async fn due_ids(&mut self, now: i64, limit: i64) -> Result<Vec<String>, DbError> {
        // `FOR UPDATE SKIP LOCKED`: rows another process is claiming right now are passed over
        // instead of waited for (and then found taken), so concurrent claims split the backlog.
        Ok(due_ids(now, limit).for_update().skip_locked().load(self).await?)
    }
}

#[cfg(feature = "sqlite")]
impl DueIds for crate::pool::SqliteWriteConn {
    async fn due_ids(&mut self, now: i64, limit: i64) -> Result<Vec<String>, DbError> {
        // Write transactions run one at a time: nobody claims between this read and the update.
        Ok(due_ids(now, limit).load(self).await?)
    }
}

#[async_trait]
impl InboundDeliveryRepository for Store {
    async fn insert(&self, event: &InboundDelivery) -> StoreResult<()> {
        // An unprocessed event without a next attempt would never be due: it is due on receipt
        // (unless it was given up on).
        let next_attempt_at = match (event.processed_at, event.failed_at) {
            (None, None) => Some(event.next_attempt_at.unwrap_or(event.received_at)),
            _ => None,
        };
        let attempts = i32::try_from(event.attempts).map_err(|_| DbError::Corrupt(format!("webhook attempts {}", event.attempts)))?;
        let values = (
            webhook_events::id.eq(event.id.as_str()),
            webhook_events::body.eq(event.body.as_str()),
            webhook_events::received_at.eq(millis(event.received_at)),
            webhook_events::attempts.eq(attempts),
            webhook_events::last_error.eq(event.last_error.as_deref()),
            webhook_events::next_attempt_at.eq(next_attempt_at.map(millis)),
            webhook_events::processed_at.eq(event.processed_at.map(millis)),
            webhook_events::failed_at.eq(event.failed_at.map(millis)),
            webhook_events::set_aside.eq(set_aside_json(&event.set_aside)),
            webhook_events::platform.eq(event.platform.as_str()),
        );
        write_conn!(self, |conn| diesel::insert_into(webhook_events::table).values(values).execute(conn).await.map_err(DbError::from))?;
        Ok(())
    }

    async fn due(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<InboundDelivery>> {
        let rows = with_conn!(self, |conn| webhook_events::table
            .filter(webhook_events::processed_at.is_null())
            .filter(webhook_events::next_attempt_at.le(millis(now)))
            .order((webhook_events::received_at.asc(), webhook_events::id.asc()))
            .limit(i64::from(limit))
            .select(EventRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(to_domain(rows)?)
    }

    async fn claim_due(&self, now: Timestamp, until: Timestamp, limit: u32) -> StoreResult<Vec<InboundDelivery>> {
        let (now, until, limit) = (millis(now), millis(until), i64::from(limit));
        let mut rows: Vec<EventRow> = in_transaction!(self, |conn| {
            let ids = conn.due_ids(now, limit).await?;
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            // Moved to the lease's end, and returned.
            Ok(diesel::update(webhook_events::table.filter(in_list(webhook_events::id, &ids)))
                .set(webhook_events::next_attempt_at.eq(Some(until)))
                .returning(EventRow::as_returning())
                .get_results(conn)
                .await?)
        })?;
        // RETURNING gives rows in no promised order.
        rows.sort_by(|a, b| (a.received_at, &a.id).cmp(&(b.received_at, &b.id)));
        Ok(to_domain(rows)?)
    }

    async fn release(&self, ids: &[String], until: Timestamp, at: Timestamp) -> StoreResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        write_conn!(self, |conn| diesel::update(
            webhook_events::table
                .filter(in_list(webhook_events::id, ids))
                .filter(webhook_events::processed_at.is_null())
                .filter(webhook_events::next_attempt_at.eq(millis(until)))
        )
        .set(webhook_events::next_attempt_at.eq(Some(millis(at))))
        .execute(conn)
        .await
        .map_err(DbError::from))?;
        Ok(())
    }

    async fn mark_processed(&self, ids: &[String], at: Timestamp) -> StoreResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        write_conn!(self, |conn| diesel::update(webhook_events::table.filter(in_list(webhook_events::id, ids)))
            .set((
                webhook_events::processed_at.eq(Some(millis(at))),
                webhook_events::next_attempt_at.eq(None::<i64>),
                webhook_events::set_aside.eq(None::<String>),
            ))
            .execute(conn)
            .await
            .map_err(DbError::from))?;
        Ok(())
    }

    async fn mark_set_aside(&self, id: &str, set_aside: &[SetAside], at: Timestamp) -> StoreResult<()> {
        let list = set_aside_json(set_aside);
        write_conn!(self, |conn| diesel::update(webhook_events::table.find(id))
            .set((
                webhook_events::processed_at.eq(Some(millis(at))),
                webhook_events::next_attempt_at.eq(None::<i64>),
                webhook_events::set_aside.eq(list.as_deref()),
            ))
            .execute(conn)
            .await
            .map_err(DbError::from))?;
        Ok(())
    }

    async fn mark_failed(&self, id: &str, error: &str, next_attempt_at: Timestamp) -> StoreResult<()> {
        write_conn!(self, |conn| diesel::update(webhook_events::table.find(id))
            .set((
                webhook_events::attempts.eq(webhook_events::attempts + 1),
                webhook_events::last_error.eq(Some(error)),
                webhook_events::next_attempt_at.eq(Some(millis(next_attempt_at))),
            ))
            .execute(conn)
            .await
            .map_err(DbError::from))?;
        Ok(())
    }

    async fn give_up(&self, id: &str, error: &str, at: Timestamp) -> StoreResult<()> {
        // No next attempt: never due again, and out of the backlog (which counts next attempts).
        write_conn!(self, |conn| diesel::update(webhook_events::table.find(id).filter(webhook_events::processed_at.is_null()))
            .set((
                webhook_events::attempts.eq(webhook_events::attempts + 1),
                webhook_events::last_error.eq(Some(error)),
                webhook_events::next_attempt_at.eq(None::<i64>),
                webhook_events::failed_at.eq(Some(millis(at))),
            ))
            .execute(conn)
            .await
            .map_err(DbError::from))?;
        Ok(())
    }

    async fn failed(&self, limit: u32) -> StoreResult<Vec<InboundDelivery>> {
        // Being retried (a next attempt and an error), given up, or with parts set aside: each
        // side of the ORs is a range of its own index, so the processed history is never read.
        let rows = with_conn!(self, |conn| webhook_events::table
            .filter(
                webhook_events::processed_at
                    .is_null()
                    .and(
                        webhook_events::failed_at
                            .is_not_null()
                            .or(webhook_events::next_attempt_at.is_not_null().and(webhook_events::last_error.is_not_null())),
                    )
                    .or(webhook_events::set_aside.is_not_null()),
            )
            .order((webhook_events::received_at.asc(), webhook_events::id.asc()))
            .limit(i64::from(limit))
            .select(EventRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(to_domain(rows)?)
    }

    async fn retry(&self, id: &str, now: Timestamp) -> StoreResult<bool> {
        let changed = write_conn!(self, |conn| diesel::update(
            webhook_events::table
                .find(id)
                .filter(given_up().or(webhook_events::set_aside.is_not_null().and(webhook_events::processed_at.is_not_null())))
        )
        .set(back_to_processing(now))
        .execute(conn)
        .await
        .map_err(DbError::from))?;
        Ok(changed > 0)
    }

    async fn retry_all(&self, now: Timestamp) -> StoreResult<u64> {
        let changed = write_conn!(self, |conn| diesel::update(webhook_events::table.filter(given_up()))
            .set(back_to_processing(now))
            .execute(conn)
            .await
            .map_err(DbError::from))?;
        Ok(changed as u64)
    }

    async fn backlog(&self) -> StoreResult<u64> {
        // Unprocessed events always have a next attempt (processed ones never do), so the
        // `webhook_events_due` index answers this without reading the processed history.
        let count: i64 = with_conn!(self, |conn| webhook_events::table
            .filter(webhook_events::next_attempt_at.is_not_null())
            .filter(webhook_events::processed_at.is_null())
            .count()
            .get_result(conn)
            .await
            .map_err(DbError::from))?;
        Ok(u64::try_from(count).unwrap_or(0))
    }

    async fn given_up(&self) -> StoreResult<u64> {
        let count: i64 =
            with_conn!(self, |conn| webhook_events::table.filter(given_up()).count().get_result(conn).await.map_err(DbError::from))?;
        Ok(u64::try_from(count).unwrap_or(0))
    }
}

/// Events given up on: failed for good, not processed (a range of `webhook_events_failed`).
fn given_up() -> diesel::dsl::And<diesel::dsl::IsNotNull<webhook_events::failed_at>, diesel::dsl::IsNull<webhook_events::processed_at>> {
    webhook_events::failed_at.is_not_null().and(webhook_events::processed_at.is_null())
}

/// The columns [`back_to_processing`] sets.
type BackToProcessing = (
    diesel::dsl::Eq<webhook_events::failed_at, Option<i64>>,
    diesel::dsl::Eq<webhook_events::next_attempt_at, Option<i64>>,
    diesel::dsl::Eq<webhook_events::attempts, i32>,
    diesel::dsl::Eq<webhook_events::processed_at, Option<i64>>,
);

/// Due now with a fresh count of attempts, unprocessed (a delivery with parts set aside was
/// processed); the last error and what was set aside stay until the next processing.
fn back_to_processing(now: Timestamp) -> BackToProcessing {
    (
        webhook_events::failed_at.eq(None::<i64>),
        webhook_events::next_attempt_at.eq(Some(millis(now))),
        webhook_events::attempts.eq(0),
        webhook_events::processed_at.eq(None::<i64>),
    )
}
