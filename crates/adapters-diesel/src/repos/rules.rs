//! Each agent's automation rules: one row each, the event and `enabled` as columns, the
//! conditions and actions as one document in the domain's form (`Rule::body_document`).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::{
    ActivityId, AgentId, Event, EventId, Page, PageRequest, Rule, RuleId, RuleName, RuleRun, RuleTrigger, RunOutcome, Timestamp,
};
use parley_domain::ports::{RuleRepository, RuleRunRepository, StoreResult};

use crate::Store;
use crate::error::DbError;
use crate::locks::OrderedLocks;
use crate::pool::{in_transaction, read_conn, write_conn};
use crate::rows::{from_millis, millis, valid};
use crate::schema::{rule_runs, rules};

#[derive(Queryable, Selectable)]
#[diesel(table_name = rules)]
struct RuleRow {
    id: String,
    agent_id: String,
    name: String,
    enabled: bool,
    on_event: String,
    document: String,
    created_at: i64,
    updated_at: i64,
}

impl RuleRow {
    fn into_domain(self) -> Result<Rule, DbError> {
        let on =
            RuleTrigger::parse(&self.on_event).ok_or_else(|| DbError::Corrupt(format!("rule {}: event {:?}", self.id, self.on_event)))?;
        let (conditions, actions) =
            Rule::body_from_document(&self.document).map_err(|e| DbError::Corrupt(format!("rule {}: {}", self.id, e.issue)))?;
        Ok(Rule {
            id: RuleId::new(self.id),
            agent_id: AgentId::new(self.agent_id),
            name: valid(RuleName::new(&self.name))?,
            enabled: self.enabled,
            on,
            conditions,
            actions,
            created_at: from_millis(self.created_at)?,
            updated_at: from_millis(self.updated_at)?,
        })
    }
}

#[async_trait]
impl RuleRepository for Store {
    async fn insert(&self, rule: &Rule, max_per_agent: u32) -> StoreResult<bool> {
        let agent = rule.agent_id.as_str();
        let document = rule.body_document();
        let inserted = in_transaction!(self, |conn| {
            conn.lock_agent(agent).await?;
            let count: i64 = rules::table.filter(rules::agent_id.eq(agent)).count().get_result(conn).await?;
            if count >= i64::from(max_per_agent) {
                return Ok(false);
            }
            let values = (
                rules::id.eq(rule.id.as_str()),
                rules::agent_id.eq(agent),
                rules::name.eq(rule.name.as_str()),
                rules::enabled.eq(rule.enabled),
                rules::on_event.eq(rule.on.as_str()),
                rules::document.eq(&document),
                rules::created_at.eq(millis(rule.created_at)),
                rules::updated_at.eq(millis(rule.updated_at)),
            );
            diesel::insert_into(rules::table).values(values).execute(conn).await?;
            Ok(true)
        })?;
        Ok(inserted)
    }

    async fn get(&self, agent: &AgentId, id: &RuleId) -> StoreResult<Option<Rule>> {
        let row = read_conn!(self, |conn| rules::table
            .filter(rules::agent_id.eq(agent.as_str()))
            .filter(rules::id.eq(id.as_str()))
            .select(RuleRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(RuleRow::into_domain).transpose()?)
    }

    async fn list(&self, agent: &AgentId, page: PageRequest) -> StoreResult<Page<Rule>> {
        let (total, rows) = read_conn!(self, |conn| {
            let total: i64 =
                rules::table.filter(rules::agent_id.eq(agent.as_str())).count().get_result(conn).await.map_err(DbError::from)?;
            let rows: Vec<RuleRow> = rules::table
                .filter(rules::agent_id.eq(agent.as_str()))
                .order((rules::created_at.asc(), rules::id.asc()))
                .limit(i64::from(page.limit()))
                .offset(page.offset() as i64)
                .select(RuleRow::as_select())
                .load(conn)
                .await
                .map_err(DbError::from)?;
            Ok::<_, DbError>((total, rows))
        })?;
        let items = rows.into_iter().map(RuleRow::into_domain).collect::<Result<_, _>>()?;
        Ok(Page { items, total: total as u64, request: page })
    }

    async fn update(&self, rule: &Rule) -> StoreResult<bool> {
        let target = rules::table.filter(rules::agent_id.eq(rule.agent_id.as_str())).filter(rules::id.eq(rule.id.as_str()));
        let changes = (
            rules::name.eq(rule.name.as_str()),
            rules::enabled.eq(rule.enabled),
            rules::on_event.eq(rule.on.as_str()),
            rules::document.eq(rule.body_document()),
            rules::updated_at.eq(millis(rule.updated_at)),
        );
        let n = write_conn!(self, |conn| diesel::update(target).set(changes).execute(conn).await.map_err(DbError::from))?;
        Ok(n > 0)
    }

    async fn delete(&self, agent: &AgentId, id: &RuleId) -> StoreResult<bool> {
        let target = rules::table.filter(rules::agent_id.eq(agent.as_str())).filter(rules::id.eq(id.as_str()));
        let n = write_conn!(self, |conn| diesel::delete(target).execute(conn).await.map_err(DbError::from))?;
        Ok(n > 0)
    }

    async fn enabled_for(&self, agent: &AgentId, on: RuleTrigger) -> StoreResult<Vec<Rule>> {
        let rows: Vec<RuleRow> = read_conn!(self, |conn| rules::table
            .filter(rules::agent_id.eq(agent.as_str()))
            .filter(rules::on_event.eq(on.as_str()))
            .filter(rules::enabled.eq(true))
            .order((rules::created_at.asc(), rules::id.asc()))
            .select(RuleRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(rows.into_iter().map(RuleRow::into_domain).collect::<Result<_, _>>()?)
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = rule_runs)]
struct RunRow {
    rule_id: String,
    event_id: String,
    agent_id: String,
    outcome: String,
    error: Option<String>,
    created_at: i64,
}

impl RunRow {
    fn into_domain(self) -> Result<RuleRun, DbError> {
        let outcome = RunOutcome::parse(&self.outcome)
            .ok_or_else(|| DbError::Corrupt(format!("run of rule {}: outcome {:?}", self.rule_id, self.outcome)))?;
        Ok(RuleRun {
            rule_id: RuleId::new(self.rule_id),
            agent_id: AgentId::new(self.agent_id),
            event_id: EventId::new(self.event_id),
            outcome,
            error: self.error,
            created_at: from_millis(self.created_at)?,
        })
    }
}

#[async_trait]
impl RuleRunRepository for Store {
    async fn claim(&self, run: &RuleRun) -> StoreResult<bool> {
        let values = (
            rule_runs::rule_id.eq(run.rule_id.as_str()),
            rule_runs::event_id.eq(run.event_id.as_str()),
            rule_runs::agent_id.eq(run.agent_id.as_str()),
            rule_runs::outcome.eq(run.outcome.as_str()),
            rule_runs::error.eq(run.error.as_deref()),
            rule_runs::created_at.eq(millis(run.created_at)),
        );
        let n = write_conn!(self, |conn| diesel::insert_into(rule_runs::table)
            .values(values)
            .on_conflict_do_nothing()
            .execute(conn)
            .await
            .map_err(DbError::from))?;
        Ok(n == 1)
    }

    async fn finish<'a>(&self, rule: &RuleId, event: &EventId, outcome: RunOutcome, error: Option<&'a str>) -> StoreResult<bool> {
        let target = rule_runs::table.filter(rule_runs::rule_id.eq(rule.as_str())).filter(rule_runs::event_id.eq(event.as_str()));
        let changes = (rule_runs::outcome.eq(outcome.as_str()), rule_runs::error.eq(error));
        let n = write_conn!(self, |conn| diesel::update(target).set(changes).execute(conn).await.map_err(DbError::from))?;
        Ok(n > 0)
    }

    async fn list(&self, agent: &AgentId, rule: &RuleId, page: PageRequest) -> StoreResult<Page<RuleRun>> {
        let (total, rows) = read_conn!(self, |conn| {
            let mine = || rule_runs::table.filter(rule_runs::rule_id.eq(rule.as_str())).filter(rule_runs::agent_id.eq(agent.as_str()));
            let total: i64 = mine().count().get_result(conn).await.map_err(DbError::from)?;
            let rows: Vec<RunRow> = mine()
                .order((rule_runs::created_at.desc(), rule_runs::event_id.desc()))
                .limit(i64::from(page.limit()))
                .offset(page.offset() as i64)
                .select(RunRow::as_select())
                .load(conn)
                .await
                .map_err(DbError::from)?;
            Ok::<_, DbError>((total, rows))
        })?;
        let items = rows.into_iter().map(RunRow::into_domain).collect::<Result<_, _>>()?;
        Ok(Page { items, total: total as u64, request: page })
    }

    async fn claim_events(&self, now: Timestamp, lease_until: Timestamp, limit: u32) -> StoreResult<Vec<Event>> {
        self.claim_rule_events(now, lease_until, limit).await
    }

    async fn rules_done(&self, events: &[EventId]) -> StoreResult<()> {
        self.rule_events_done(events).await
    }

    async fn backlog(&self) -> StoreResult<u64> {
        self.rule_backlog().await
    }

    async fn delete_before(&self, before: Timestamp, limit: u32) -> StoreResult<u64> {
        let before = millis(before);
        let n = in_transaction!(self, |conn| {
            // The batch ends at the `limit`-th oldest run's instant (`rule_runs_created`); every
            // run of that instant goes with it, so no run is left between two batches.
            let last: Option<i64> = rule_runs::table
                .filter(rule_runs::created_at.lt(before))
                .order(rule_runs::created_at.asc())
                .offset(i64::from(limit.max(1)) - 1)
                .select(rule_runs::created_at)
                .first(conn)
                .await
                .optional()?;
            let until = last.map_or(before, |at| (at + 1).min(before));
            Ok(diesel::delete(rule_runs::table.filter(rule_runs::created_at.lt(until))).execute(conn).await?)
        })?;
        Ok(n as u64)
    }

    async fn claim_away_message(&self, agent: &AgentId, activity: &ActivityId, at: Timestamp, not_since: Timestamp) -> StoreResult<bool> {
        self.claim_away(agent, activity, at, not_since).await
    }
}
