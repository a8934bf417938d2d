//! `ScheduledSendRepository`: scheduled messages' sends (`scheduled_sends`), written with their
//! timeline entry, claimed in due order with a lease, and dropped by the one worker that moves
//! the message on to `sending` (or by a cancel, with the message).

use async_trait::async_trait;
use diesel::dsl::auto_type;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::*;
use parley_domain::ports::{ScheduledSendRepository, StoreResult};

use super::activities::mirror_updated_at;
use super::first_response::ClockMove;
use super::messages::assignee_of;
use super::messages::{LockForMessage, MessageRow, Moved};
use super::reports::record_report;
use crate::Store;
use crate::error::DbError;
use crate::pool::{in_transaction, read_conn};
use crate::rows::{from_millis, millis};
use crate::schema::{activities, messages, scheduled_sends};

/// Stores `$send` (`&ScheduledSend`) in the transaction on `$conn` that stores its message.
macro_rules! insert_scheduled_send {
    ($conn:expr, $send:expr) => {{
        let send: &parley_domain::model::ScheduledSend = $send;
        let request = serde_json::to_string(&send.request).map_err(|e| crate::error::DbError::Corrupt(e.to_string()))?;
        diesel::insert_into(crate::schema::scheduled_sends::table)
            .values((
                crate::schema::scheduled_sends::message_id.eq(send.message_id.as_str()),
                crate::schema::scheduled_sends::agent_id.eq(send.agent_id.as_str()),
                crate::schema::scheduled_sends::activity_id.eq(send.activity_id.as_str()),
                crate::schema::scheduled_sends::line_id.eq(send.line_id.as_str()),
                crate::schema::scheduled_sends::send_at.eq(crate::rows::millis(send.send_at)),
                crate::schema::scheduled_sends::request.eq(&request),
            ))
            .execute($conn)
            .await?;
    }};
}

pub(crate) use insert_scheduled_send;

/// A stored send.
type SendRow = (String, String, String, String, i64, String);

fn send_of(row: SendRow) -> Result<ScheduledSend, DbError> {
    let (message_id, agent_id, activity_id, line_id, send_at, request) = row;
    let request =
        serde_json::from_str(&request).map_err(|e| DbError::Corrupt(format!("request of scheduled message {message_id}: {e}")))?;
    Ok(ScheduledSend {
        message_id: MessageId::new(message_id),
        agent_id: AgentId::new(agent_id),
        activity_id: ActivityId::new(activity_id),
        line_id: LineId::new(line_id),
        send_at: from_millis(send_at)?,
        request,
    })
}

/// The sends due by `now` that no lease holds, earliest first, at most `limit`.
#[auto_type(dsl_path = "crate::dsl")]
fn due_sends(now: i64, limit: i64) -> _ {
    scheduled_sends::table
        .filter(scheduled_sends::send_at.le(now))
        .filter(scheduled_sends::claimed_until.le(now))
        .order((scheduled_sends::send_at.asc(), scheduled_sends::message_id.asc()))
        .limit(limit)
        .select(scheduled_sends::message_id)
}

/// The due sends a claim takes, read in the claiming transaction.
trait DueSends {
    async fn due_sends(&mut self, now: i64, limit: i64) -> Result<Vec<String>, DbError>;
}

#[cfg(feature = "postgres")]
impl DueSends for crate::pool::PgConn {
    async fn due_sends(&mut self, now: i64, limit: i64) -> Result<Vec<String>, DbError> {
        // Rows another process is claiming right now are passed over, not waited for.
        Ok(due_sends(now, limit).for_update().skip_locked().load(self).await?)
    }
}

#[cfg(feature = "sqlite")]
impl DueSends for crate::pool::SqliteWriteConn {
    async fn due_sends(&mut self, now: i64, limit: i64) -> Result<Vec<String>, DbError> {
        // Write transactions run one at a time: nobody claims between this read and the update.
        Ok(due_sends(now, limit).load(self).await?)
    }
}

#[async_trait]
impl ScheduledSendRepository for Store {
    async fn schedule(&self, message: &Message, send: &ScheduledSend) -> StoreResult<()> {
        self.insert_message(message, None, &[], Some(send), ResponseMark::Nothing).await?;
        Ok(())
    }

    async fn claim_due(&self, now: Timestamp, lease_until: Timestamp, limit: u32) -> StoreResult<Vec<ScheduledSend>> {
        let (now, until, limit) = (millis(now), millis(lease_until), i64::from(limit));
        let rows: Vec<SendRow> = in_transaction!(self, |conn| {
            let ids = conn.due_sends(now, limit).await?;
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let claimed = || scheduled_sends::table.filter(scheduled_sends::message_id.eq_any(&ids));
            diesel::update(claimed()).set(scheduled_sends::claimed_until.eq(until)).execute(conn).await?;
            Ok(claimed()
                .select((
                    scheduled_sends::message_id,
                    scheduled_sends::agent_id,
                    scheduled_sends::activity_id,
                    scheduled_sends::line_id,
                    scheduled_sends::send_at,
                    scheduled_sends::request,
                ))
                .load(conn)
                .await?)
        })?;
        let mut sends = rows.into_iter().map(send_of).collect::<Result<Vec<_>, _>>()?;
        sends.sort_by(|a, b| (a.send_at, &a.message_id).cmp(&(b.send_at, &b.message_id)));
        Ok(sends)
    }

    async fn start(&self, agent: &AgentId, message: &MessageId, at: Timestamp) -> StoreResult<Option<Message>> {
        let (agent, id, at_ms) = (agent.as_str(), message.as_str(), millis(at));
        let activity: Option<String> = read_conn!(self, |conn| messages::table
            .filter(messages::id.eq(id))
            .filter(messages::agent_id.eq(agent))
            .select(messages::activity_id)
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        let Some(activity) = activity else {
            return Ok(None);
        };
        let started: Option<MessageRow> = in_transaction!(self, |conn| {
            // The activity first, locked, as for an insert (lock order step 3, then its message).
            let Some(before) = conn.lock_for_message(agent, &activity).await? else { return Ok(None) };
            let scheduled = || messages::table.filter(messages::id.eq(id)).filter(messages::agent_id.eq(agent));
            let moved = diesel::update(scheduled().filter(messages::status.eq(MessageStatus::Scheduled.as_str())))
                .set((messages::status.eq(MessageStatus::Sending.as_str()), messages::updated_at.eq(at_ms)))
                .execute(conn)
                .await?;
            diesel::delete(scheduled_sends::table.filter(scheduled_sends::message_id.eq(id))).execute(conn).await?;
            if moved == 0 {
                return Ok(None);
            }
            let row: MessageRow = scheduled().select(MessageRow::as_select()).first(conn).await?;
            let message = row.into_domain()?;
            let this_activity = || activities::table.filter(activities::id.eq(activity.as_str()));
            if Moved::by(&before, &message).newest {
                let summary = MessageSummary::of(&message);
                diesel::update(this_activity())
                    .set((
                        activities::last_message_id.eq(summary.id.as_str()),
                        activities::last_message_direction.eq(summary.direction.as_str()),
                        activities::last_message_type.eq(summary.message_type.as_str()),
                        activities::last_message_text.eq(summary.text.as_deref()),
                        activities::last_message_at.eq(millis(summary.created_at)),
                    ))
                    .execute(conn)
                    .await?;
            }
            // The team's message, going out now.
            let clock = ClockMove::of(&before, ResponseMark::team_message(message.campaign_key.as_ref()), at)?;
            diesel::update(this_activity()).set((activities::updated_at.eq(at_ms), clock.write())).execute(conn).await?;
            let member = assignee_of(&before)?;
            record_report!(conn, agent, &activity, ReportFacts::of_send(&message, at, &clock.before, &clock.after, member.as_ref()));
            if before.4 {
                mirror_updated_at(&activity, at).execute(conn).await?;
            }
            Ok(Some(scheduled().select(MessageRow::as_select()).first(conn).await?))
        })?;
        Ok(started.map(MessageRow::into_domain).transpose()?)
    }

    async fn cancel(&self, agent: &AgentId, activity: &ActivityId, message: &MessageId) -> StoreResult<bool> {
        let (agent, activity, id) = (agent.as_str(), activity.as_str(), message.as_str());
        let cancelled = in_transaction!(self, |conn| {
            let Some(_) = conn.lock_for_message(agent, activity).await? else { return Ok(false) };
            diesel::delete(scheduled_sends::table.filter(scheduled_sends::message_id.eq(id)).filter(scheduled_sends::agent_id.eq(agent)))
                .execute(conn)
                .await?;
            let deleted = diesel::delete(
                messages::table
                    .filter(messages::id.eq(id))
                    .filter(messages::agent_id.eq(agent))
                    .filter(messages::activity_id.eq(activity))
                    .filter(messages::status.eq(MessageStatus::Scheduled.as_str())),
            )
            .execute(conn)
            .await?;
            if deleted == 0 {
                return Err(DbError::Query(diesel::result::Error::RollbackTransaction));
            }
            diesel::update(activities::table.filter(activities::id.eq(activity)))
                .set(activities::message_count.eq(activities::message_count - 1))
                .execute(conn)
                .await?;
            Ok(true)
        });
        match cancelled {
            Err(DbError::Query(diesel::result::Error::RollbackTransaction)) => Ok(false),
            other => Ok(other?),
        }
    }

    async fn pending(&self) -> StoreResult<u64> {
        let n: i64 = read_conn!(self, |conn| scheduled_sends::table.count().get_result(conn).await.map_err(DbError::from))?;
        Ok(n as u64)
    }
}
