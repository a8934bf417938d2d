//! `FirstResponseRepository`: each agent's target (`first_response_targets`), and the clock each
//! activity row carries (`first_response_*`), moved by its messages under the activity's lock
//! and marked missed by one compare-and-set.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::*;
use parley_domain::ports::{FirstResponseRepository, StoreResult};

use crate::Store;
use crate::error::DbError;
use crate::pool::{in_transaction, read_conn, write_conn};
use crate::repos::events::emit_all;
use crate::repos::messages::ActivityBefore;
use crate::rows::{millis, opt_from_millis};
use crate::schema::{activities, first_response_targets as targets};

/// An activity's clock columns as read: opened, due, responded, missed.
pub(crate) type ClockColumns = (Option<i64>, Option<i64>, Option<i64>, Option<i64>);

/// The clock the columns hold.
fn clock_of(columns: ClockColumns) -> Result<FirstResponse, DbError> {
    let (opened, due, responded, missed) = columns;
    Ok(FirstResponse {
        opened_at: opt_from_millis(opened)?,
        due_at: opt_from_millis(due)?,
        responded_at: opt_from_millis(responded)?,
        missed_at: opt_from_millis(missed)?,
    })
}

/// The four column assignments that set an activity's clock.
pub(crate) type SetClock = (
    diesel::dsl::Eq<activities::first_response_opened_at, Option<i64>>,
    diesel::dsl::Eq<activities::first_response_due_at, Option<i64>>,
    diesel::dsl::Eq<activities::first_responded_at, Option<i64>>,
    diesel::dsl::Eq<activities::first_response_missed_at, Option<i64>>,
);

/// How a message of `at` marked `mark` moves the clock of the activity its lock read
/// (`before`): the clock before and after ([`ResponseMark::apply`]).
pub(crate) struct ClockMove {
    pub(crate) before: FirstResponse,
    pub(crate) after: FirstResponse,
}

impl ClockMove {
    pub(crate) fn of(before: &ActivityBefore, mark: ResponseMark, at: Timestamp) -> Result<Self, DbError> {
        let clock_before = clock_of(before.6)?;
        let after = mark.apply(clock_before, before.0 == ActivityStatus::Open.as_str(), at);
        Ok(Self { before: clock_before, after })
    }

    /// What it writes: `None` when the clock stays as it is.
    pub(crate) fn write(&self) -> Option<SetClock> {
        (self.after != self.before).then(|| set_clock(&self.after))
    }
}

/// The write that sets the columns to `clock`.
fn set_clock(clock: &FirstResponse) -> SetClock {
    (
        activities::first_response_opened_at.eq(clock.opened_at.map(millis)),
        activities::first_response_due_at.eq(clock.due_at.map(millis)),
        activities::first_responded_at.eq(clock.responded_at.map(millis)),
        activities::first_response_missed_at.eq(clock.missed_at.map(millis)),
    )
}

#[async_trait]
impl FirstResponseRepository for Store {
    async fn target(&self, agent: &AgentId) -> StoreResult<Option<ResponseTarget>> {
        let minutes: Option<i32> = read_conn!(self, |conn| targets::table
            .filter(targets::agent_id.eq(agent.as_str()))
            .select(targets::minutes)
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        let target = minutes
            .map(|m| {
                ResponseTarget::new(i64::from(m)).map_err(|e| DbError::Corrupt(format!("first-response target of {agent}: {}", e.issue)))
            })
            .transpose()?;
        Ok(target)
    }

    async fn set_target(&self, agent: &AgentId, target: Option<ResponseTarget>, at: Timestamp) -> StoreResult<()> {
        let agent = agent.as_str();
        match target {
            Some(target) => {
                let minutes = i32::try_from(target.minutes()).map_err(|e| DbError::Corrupt(e.to_string()))?;
                let row = (targets::agent_id.eq(agent), targets::minutes.eq(minutes), targets::updated_at.eq(millis(at)));
                write_conn!(self, |conn| diesel::insert_into(targets::table)
                    .values(row)
                    .on_conflict(targets::agent_id)
                    .do_update()
                    .set((targets::minutes.eq(minutes), targets::updated_at.eq(millis(at))))
                    .execute(conn)
                    .await
                    .map_err(DbError::from))?;
            }
            None => {
                write_conn!(self, |conn| diesel::delete(targets::table.filter(targets::agent_id.eq(agent)))
                    .execute(conn)
                    .await
                    .map_err(DbError::from))?;
            }
        }
        Ok(())
    }

    async fn overdue(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<(AgentId, ActivityId)>> {
        // The partial index `activities_first_response_due` holds exactly the unanswered,
        // unannounced conversations with a due time: the read walks it in due order.
        let rows: Vec<(String, String)> = read_conn!(self, |conn| activities::table
            .filter(activities::first_response_due_at.is_not_null())
            .filter(activities::first_responded_at.is_null())
            .filter(activities::first_response_missed_at.is_null())
            .filter(activities::first_response_due_at.le(millis(now)))
            .filter(activities::status.eq(ActivityStatus::Open.as_str()))
            .order((activities::first_response_due_at.asc(), activities::id.asc()))
            .limit(i64::from(limit))
            .select((activities::agent_id, activities::id))
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(rows.into_iter().map(|(agent, id)| (AgentId::new(agent), ActivityId::new(id))).collect())
    }

    async fn mark_missed(&self, agent: &AgentId, activity: &ActivityId, at: Timestamp, events: &[Event]) -> StoreResult<bool> {
        let (agent, activity, at) = (agent.as_str(), activity.as_str(), millis(at));
        let marked = in_transaction!(self, |conn| {
            let marked = diesel::update(
                activities::table
                    .filter(activities::id.eq(activity))
                    .filter(activities::agent_id.eq(agent))
                    .filter(activities::status.eq(ActivityStatus::Open.as_str()))
                    .filter(activities::first_responded_at.is_null())
                    .filter(activities::first_response_missed_at.is_null())
                    .filter(activities::first_response_due_at.le(at)),
            )
            .set(activities::first_response_missed_at.eq(at))
            .execute(conn)
            .await?;
            if marked == 1 {
                emit_all!(conn, events);
            }
            Ok(marked == 1)
        })?;
        Ok(marked)
    }
}
