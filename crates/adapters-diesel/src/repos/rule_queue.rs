//! Events waiting for their agent's rules (`rule_queue`): [`queue_for_rules!`] adds one in the
//! transaction that stores the event, the engine claims them with a lease and removes each once
//! its rules have run.

use diesel::dsl::auto_type;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::{ActivityId, AgentId, Event, EventId, Timestamp};
use parley_domain::ports::StoreResult;

use crate::Store;
use crate::error::DbError;
use crate::pool::{in_transaction, read_conn, write_conn};
use crate::rows::millis;
use crate::schema::{activities, events, rule_queue};

/// Queues `$event` (`&Event`, stored at `$at` milliseconds) for the rule engine when it runs
/// rules and the agent has an enabled rule for its type, or, for a contact's message, an away
/// message: an insert whose select finds that rule (`rules_enabled_on`), then, when it found
/// none, one whose select finds the away message (`business_hours.away`), so an agent with
/// neither pays an index probe or two. Run in the transaction that stores the event.
macro_rules! queue_for_rules {
    ($conn:expr, $event:expr, $at:expr) => {{
        use diesel::IntoSql as _;
        let event: &parley_domain::model::Event = $event;
        let fields = (
            event.id.as_str().into_sql::<diesel::sql_types::Text>(),
            $at.into_sql::<diesel::sql_types::BigInt>(),
            $at.into_sql::<diesel::sql_types::BigInt>(),
        );
        let columns = (crate::schema::rule_queue::event_id, crate::schema::rule_queue::event_created_at, crate::schema::rule_queue::due_at);
        if let Some(on) = parley_domain::model::RuleTrigger::of_event(event) {
            let queued = crate::schema::rules::table
                .filter(crate::schema::rules::agent_id.eq(event.agent_id.as_str()))
                .filter(crate::schema::rules::on_event.eq(on.as_str()))
                .filter(crate::schema::rules::enabled.eq(true))
                .select(fields)
                .limit(1)
                .insert_into(crate::schema::rule_queue::table)
                .into_columns(columns)
                .execute($conn)
                .await?;
            if queued == 0 && on == parley_domain::model::RuleTrigger::MessageReceived {
                crate::schema::business_hours::table
                    .filter(crate::schema::business_hours::agent_id.eq(event.agent_id.as_str()))
                    .filter(crate::schema::business_hours::away.eq(true))
                    .select(fields)
                    .insert_into(crate::schema::rule_queue::table)
                    .into_columns(columns)
                    .execute($conn)
                    .await?;
            }
        }
    }};
}

pub(crate) use queue_for_rules;

/// The oldest queued events due by `now`, at most `limit`.
#[auto_type(dsl_path = "crate::dsl")]
fn due_rule_events(now: i64, limit: i64) -> _ {
    rule_queue::table
        .filter(rule_queue::due_at.le(now))
        .order((rule_queue::event_created_at.asc(), rule_queue::event_id.asc()))
        .limit(limit)
        .select(rule_queue::event_id)
}

/// The queued events a claim takes, read in the claiming transaction.
trait DueEvents {
    async fn due_events(&mut self, now: i64, limit: i64) -> Result<Vec<String>, DbError>;
}

#[cfg(feature = "postgres")]
impl DueEvents for crate::pool::PgConn {
    async fn due_events(&mut self, now: i64, limit: i64) -> Result<Vec<String>, DbError> {
        // Rows another process is claiming right now are passed over, not waited for.
        Ok(due_rule_events(now, limit).for_update().skip_locked().load(self).await?)
    }
}

#[cfg(feature = "sqlite")]
impl DueEvents for crate::pool::SqliteWriteConn {
    async fn due_events(&mut self, now: i64, limit: i64) -> Result<Vec<String>, DbError> {
        // Write transactions run one at a time: nobody claims between this read and the update.
        Ok(due_rule_events(now, limit).load(self).await?)
    }
}

impl Store {
    /// [`RuleRunRepository::claim_events`](parley_domain::ports::RuleRunRepository::claim_events).
    pub(crate) async fn claim_rule_events(&self, now: Timestamp, lease_until: Timestamp, limit: u32) -> StoreResult<Vec<Event>> {
        let (now, until, limit) = (millis(now), millis(lease_until), i64::from(limit));
        let rows: Vec<(i64, String, String, String)> = in_transaction!(self, |conn| {
            let ids = conn.due_events(now, limit).await?;
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            diesel::update(rule_queue::table.filter(rule_queue::event_id.eq_any(&ids)))
                .set(rule_queue::due_at.eq(until))
                .execute(conn)
                .await?;
            Ok(rule_queue::table
                .filter(rule_queue::event_id.eq_any(&ids))
                .inner_join(events::table)
                .select((rule_queue::event_created_at, events::id, events::agent_id, events::body))
                .load(conn)
                .await?)
        })?;
        let mut rows = rows;
        rows.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let events = rows
            .into_iter()
            .map(|(_, _, agent, body)| Event::from_stored(AgentId::new(agent), &body).map_err(DbError::Corrupt))
            .collect::<Result<_, _>>()?;
        Ok(events)
    }

    /// [`RuleRunRepository::rules_done`](parley_domain::ports::RuleRunRepository::rules_done).
    pub(crate) async fn rule_events_done(&self, events: &[EventId]) -> StoreResult<()> {
        if events.is_empty() {
            return Ok(());
        }
        let ids: Vec<&str> = events.iter().map(EventId::as_str).collect();
        let target = rule_queue::table.filter(rule_queue::event_id.eq_any(ids));
        write_conn!(self, |conn| diesel::delete(target).execute(conn).await.map_err(DbError::from))?;
        Ok(())
    }

    /// [`RuleRunRepository::backlog`](parley_domain::ports::RuleRunRepository::backlog).
    pub(crate) async fn rule_backlog(&self) -> StoreResult<u64> {
        let n: i64 = read_conn!(self, |conn| rule_queue::table.count().get_result(conn).await.map_err(DbError::from))?;
        Ok(n as u64)
    }

    /// [`RuleRunRepository::claim_away_message`](parley_domain::ports::RuleRunRepository::claim_away_message).
    pub(crate) async fn claim_away(
        &self,
        agent: &AgentId,
        activity: &ActivityId,
        at: Timestamp,
        not_since: Timestamp,
    ) -> StoreResult<bool> {
        let target = activities::table
            .filter(activities::agent_id.eq(agent.as_str()))
            .filter(activities::id.eq(activity.as_str()))
            .filter(activities::away_sent_at.is_null().or(activities::away_sent_at.le(millis(not_since))));
        let n = write_conn!(self, |conn| diesel::update(target)
            .set(activities::away_sent_at.eq(Some(millis(at))))
            .execute(conn)
            .await
            .map_err(DbError::from))?;
        Ok(n == 1)
    }
}
