use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::*;
use parley_domain::ports::{ExecutionRepository, StoreResult};

use crate::Store;
use crate::error::DbError;
use crate::pool::{in_transaction, with_conn, write_conn};
use crate::repos::events::emit_all;
use crate::rows::{from_millis, millis, opt_from_millis, valid};
use crate::schema::executions;

#[derive(Queryable, Selectable)]
#[diesel(table_name = executions)]
struct ExecutionRow {
    id: String,
    agent_id: String,
    campaign_key: String,
    campaign_name: String,
    recipient: String,
    template_id: String,
    message_id: Option<String>,
    status: String,
    error_message: Option<String>,
    sent_at: Option<i64>,
    delivered_at: Option<i64>,
    read_at: Option<i64>,
    updated_at: i64,
}

impl ExecutionRow {
    fn into_domain(self) -> Result<Execution, DbError> {
        Ok(Execution {
            id: self.id,
            agent_id: AgentId::new(self.agent_id),
            campaign_key: valid(CampaignKey::new(&self.campaign_key))?,
            campaign_name: self.campaign_name,
            to: self.recipient,
            template_id: TemplateId::new(self.template_id),
            message_id: self.message_id,
            status: ExecutionStatus::parse(&self.status).ok_or_else(|| DbError::Corrupt(format!("execution status {:?}", self.status)))?,
            error_message: self.error_message,
            sent_at: opt_from_millis(self.sent_at)?,
            delivered_at: opt_from_millis(self.delivered_at)?,
            read_at: opt_from_millis(self.read_at)?,
            updated_at: from_millis(self.updated_at)?,
        })
    }
}

#[async_trait]
impl ExecutionRepository for Store {
    async fn insert(&self, e: &Execution) -> StoreResult<()> {
        let values = (
            executions::id.eq(e.id.as_str()),
            executions::agent_id.eq(e.agent_id.as_str()),
            executions::campaign_key.eq(e.campaign_key.as_str()),
            executions::campaign_name.eq(e.campaign_name.as_str()),
            executions::recipient.eq(e.to.as_str()),
            executions::template_id.eq(e.template_id.as_str()),
            executions::message_id.eq(e.message_id.as_deref()),
            executions::status.eq(e.status.as_str()),
            executions::error_message.eq(e.error_message.as_deref()),
            executions::sent_at.eq(e.sent_at.map(millis)),
            executions::delivered_at.eq(e.delivered_at.map(millis)),
            executions::read_at.eq(e.read_at.map(millis)),
            executions::updated_at.eq(millis(e.updated_at)),
        );
        write_conn!(self, |conn| diesel::insert_into(executions::table).values(values).execute(conn).await.map_err(DbError::from))?;
        Ok(())
    }

    async fn find_by_message(&self, agent: &AgentId, message_id: &str) -> StoreResult<Option<Execution>> {
        let row = with_conn!(self, |conn| executions::table
            .filter(executions::agent_id.eq(agent.as_str()))
            .filter(executions::message_id.eq(message_id))
            .select(ExecutionRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(ExecutionRow::into_domain).transpose()?)
    }

    async fn update(&self, e: &Execution, expected: ExecutionStatus, events: &[Event]) -> StoreResult<bool> {
        // The identity of a record (agent, key, recipient, template, message) never changes:
        // only what the platform reports about it does.
        let changes = (
            executions::status.eq(e.status.as_str()),
            executions::error_message.eq(e.error_message.as_deref()),
            executions::sent_at.eq(e.sent_at.map(millis)),
            executions::delivered_at.eq(e.delivered_at.map(millis)),
            executions::read_at.eq(e.read_at.map(millis)),
            executions::updated_at.eq(millis(e.updated_at)),
        );
        let moved = in_transaction!(self, |conn| {
            let n = diesel::update(
                executions::table
                    .filter(executions::id.eq(e.id.as_str()))
                    .filter(executions::agent_id.eq(e.agent_id.as_str()))
                    .filter(executions::status.eq(expected.as_str())),
            )
            .set(changes)
            .execute(conn)
            .await?;
            if n > 0 {
                emit_all!(conn, events);
            }
            Ok(n > 0)
        })?;
        Ok(moved)
    }

    async fn list(&self, agent: &AgentId, key: &CampaignKey, since: Option<Timestamp>, limit: u32) -> StoreResult<Vec<Execution>> {
        let rows = with_conn!(self, |conn| {
            let mut q = executions::table
                .filter(executions::agent_id.eq(agent.as_str()))
                .filter(executions::campaign_key.eq(key.as_str()))
                .into_boxed();
            if let Some(since) = since {
                q = q.filter(executions::updated_at.gt(millis(since)));
            }
            q.order((executions::updated_at.asc(), executions::id.asc()))
                .limit(i64::from(limit))
                .select(ExecutionRow::as_select())
                .load(conn)
                .await
                .map_err(DbError::from)
        })?;
        Ok(rows.into_iter().map(ExecutionRow::into_domain).collect::<Result<Vec<_>, _>>()?)
    }

    async fn key_exists(&self, agent: &AgentId, key: &CampaignKey) -> StoreResult<bool> {
        let found: Option<String> = with_conn!(self, |conn| executions::table
            .filter(executions::agent_id.eq(agent.as_str()))
            .filter(executions::campaign_key.eq(key.as_str()))
            .select(executions::id)
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(found.is_some())
    }
}
