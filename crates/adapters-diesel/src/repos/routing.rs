//! `RoutingRepository`: each member's load for round robin, read from `members` (`max_open`,
//! `last_assigned_at`) and the open conversations assigned to it (`activities_assignee_status`).

use std::collections::HashMap;

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::{AgentId, MaxOpen, MemberId, MemberLoad, Timestamp};
use parley_domain::ports::{RoutingRepository, StoreResult};

use crate::Store;
use crate::error::DbError;
use crate::pool::{read_conn, write_conn};
use crate::rows::{from_millis, millis, opt_from_millis, valid};
use crate::schema::{activities, members};

#[async_trait]
impl RoutingRepository for Store {
    async fn loads(&self, agent: &AgentId) -> StoreResult<Vec<MemberLoad>> {
        type Row = (String, Option<i32>, Option<i64>, i64);
        let (rows, counts): (Vec<Row>, Vec<(Option<String>, i64)>) = read_conn!(self, |conn| {
            let rows: Vec<Row> = members::table
                .filter(members::agent_id.eq(agent.as_str()))
                .order((members::created_at.asc(), members::id.asc()))
                .select((members::id, members::max_open, members::last_assigned_at, members::created_at))
                .load(conn)
                .await
                .map_err(DbError::from)?;
            let counts: Vec<(Option<String>, i64)> = activities::table
                .filter(activities::agent_id.eq(agent.as_str()))
                .filter(activities::status.eq(parley_domain::model::ActivityStatus::Open.as_str()))
                .filter(activities::assigned_to.is_not_null())
                .group_by(activities::assigned_to)
                .select((activities::assigned_to, diesel::dsl::count_star()))
                .load(conn)
                .await
                .map_err(DbError::from)?;
            Ok::<_, DbError>((rows, counts))
        })?;
        let open: HashMap<String, i64> = counts.into_iter().filter_map(|(to, n)| Some((to?, n))).collect();
        let mut loads = Vec::with_capacity(rows.len());
        for (id, max_open, last, created) in rows {
            loads.push(MemberLoad {
                open: open.get(&id).copied().unwrap_or(0) as u64,
                member: MemberId::new(id),
                max_open: max_open.map(|n| valid(MaxOpen::new(i64::from(n)))).transpose()?,
                last_assigned_at: opt_from_millis(last)?,
                created_at: from_millis(created)?,
            });
        }
        Ok(loads)
    }

    async fn mark_assigned(&self, agent: &AgentId, member: &MemberId, at: Timestamp) -> StoreResult<()> {
        let target = members::table.filter(members::agent_id.eq(agent.as_str())).filter(members::id.eq(member.as_str()));
        write_conn!(self, |conn| diesel::update(target)
            .set(members::last_assigned_at.eq(Some(millis(at))))
            .execute(conn)
            .await
            .map_err(DbError::from))?;
        Ok(())
    }
}
