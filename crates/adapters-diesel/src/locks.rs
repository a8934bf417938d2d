//! Row locks taken in the one global order every write transaction follows (see
//! `docs/storage.md`, "Lock order"): the agent (only writes that count its rows), contact, then
//! tags by id, then activities by id, then the
//! rows that hang off them (links, terms, kept counts by key).
//!
//! Only PostgreSQL needs them: there writers lock rows, and two transactions that lock the same
//! two rows in opposite orders deadlock. On SQLite every write transaction is `BEGIN IMMEDIATE`,
//! so writers run one at a time and no row lock exists; the SQLite methods only read.

use diesel::dsl::auto_type;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;

use crate::error::DbResult;
use crate::in_list::{InList, in_list};
use crate::schema::{activities, agents, tags};

/// The agent's tags among `ids`, in id order: the query both backends' `lock_tags` run.
#[auto_type(dsl_path = "crate::dsl")]
fn agent_tags<'a>(agent: &'a str, ids: &'a [&'a str]) -> _ {
    let listed: InList<tags::id> = in_list(tags::id, ids);
    tags::table.filter(tags::agent_id.eq(agent)).filter(listed).order(tags::id.asc()).select(tags::id)
}

/// What a write transaction's connection offers to take its locks in order.
pub(crate) trait OrderedLocks {
    /// The agent's tags among `ids`, sorted by id, each locked (PostgreSQL) in that order.
    /// Ids of other agents' tags or of no tag are left out.
    async fn lock_tags(&mut self, agent: &str, ids: &[&str]) -> DbResult<Vec<String>>;

    /// Locks the activities `ids` (PostgreSQL) in id order. Ids that match no row are skipped.
    async fn lock_activities(&mut self, ids: &[String]) -> DbResult<()>;

    /// Locks the agent's row (PostgreSQL), first of all, for a write whose rule counts the
    /// agent's rows (the tag and endpoint limits): two such writes then run one after the other.
    /// `FOR NO KEY UPDATE`, so rows that reference the agent go on being written meanwhile.
    async fn lock_agent(&mut self, agent: &str) -> DbResult<()>;
}

#[cfg(feature = "postgres")]
impl OrderedLocks for crate::pool::PgConn {
    async fn lock_tags(&mut self, agent: &str, ids: &[&str]) -> DbResult<Vec<String>> {
        // `ORDER BY … FOR UPDATE`: PostgreSQL locks the rows as the sorted plan emits them.
        Ok(agent_tags(agent, ids).for_update().load(self).await?)
    }

    async fn lock_activities(&mut self, ids: &[String]) -> DbResult<()> {
        if !ids.is_empty() {
            activities::table
                .filter(in_list(activities::id, ids))
                .order(activities::id.asc())
                .select(activities::id)
                .for_update()
                .load::<String>(self)
                .await?;
        }
        Ok(())
    }

    async fn lock_agent(&mut self, agent: &str) -> DbResult<()> {
        agents::table.filter(agents::id.eq(agent)).select(agents::id).for_no_key_update().load::<String>(self).await?;
        Ok(())
    }
}

#[cfg(feature = "sqlite")]
impl OrderedLocks for crate::pool::SqliteWriteConn {
    async fn lock_tags(&mut self, agent: &str, ids: &[&str]) -> DbResult<Vec<String>> {
        Ok(agent_tags(agent, ids).load(self).await?)
    }

    async fn lock_activities(&mut self, _ids: &[String]) -> DbResult<()> {
        Ok(())
    }

    async fn lock_agent(&mut self, _agent: &str) -> DbResult<()> {
        Ok(())
    }
}

/// The two `(agent, status)` count rows a status move changes, in key order: `(status, delta)`.
/// Two activities moving in opposite directions (open → closed, closed → open) then lock the
/// two rows in the same order instead of deadlocking on each other.
pub(crate) fn status_move<'a>(from: &'a str, to: &'a str) -> [(&'a str, i64); 2] {
    if from < to { [(from, -1), (to, 1)] } else { [(to, 1), (from, -1)] }
}

/// [`status_move`] of an activity whose assignment may change too: `(status, unassigned)`
/// before and after, as `(status, delta, unassigned)` count changes in key order. A change of
/// assignment alone takes the activity out of its status's counts and puts it back, so the
/// count stays and the unassigned count moves.
pub(crate) fn count_move<'a>(from: (&'a str, bool), to: (&'a str, bool)) -> [(&'a str, i64, bool); 2] {
    let (out, into) = ((from.0, -1, from.1), (to.0, 1, to.1));
    if from.0 <= to.0 { [out, into] } else { [into, out] }
}

#[cfg(test)]
mod tests {
    use super::{count_move, status_move};

    #[test]
    fn a_status_move_touches_its_counts_in_key_order_whatever_the_direction() {
        assert_eq!(status_move("open", "closed"), [("closed", 1), ("open", -1)]);
        assert_eq!(status_move("closed", "open"), [("closed", -1), ("open", 1)]);
    }

    #[test]
    fn an_assignment_moves_the_unassigned_count_alone() {
        assert_eq!(count_move(("open", true), ("open", false)), [("open", -1, true), ("open", 1, false)]);
        assert_eq!(count_move(("pending", false), ("closed", true)), [("closed", 1, true), ("pending", -1, false)]);
    }
}
