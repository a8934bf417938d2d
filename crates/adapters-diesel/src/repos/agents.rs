use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::{Agent, AgentId, AgentName};
use parley_domain::ports::{AgentRepository, StoreResult};

use crate::Store;
use crate::error::DbError;
use crate::pool::{with_conn, write_conn};
use crate::rows::{from_millis, millis, valid};
use crate::schema::agents;

#[derive(Queryable, Selectable)]
#[diesel(table_name = agents)]
struct AgentRow {
    id: String,
    name: String,
    created_at: i64,
}

impl AgentRow {
    fn into_domain(self) -> Result<Agent, DbError> {
        Ok(Agent { id: AgentId::new(self.id), name: valid(AgentName::new(&self.name))?, created_at: from_millis(self.created_at)? })
    }
}

#[async_trait]
impl AgentRepository for Store {
    async fn insert(&self, agent: &Agent) -> StoreResult<()> {
        let values =
            (agents::id.eq(agent.id.as_str()), agents::name.eq(agent.name.as_str()), agents::created_at.eq(millis(agent.created_at)));
        write_conn!(self, |conn| diesel::insert_into(agents::table).values(values).execute(conn).await.map_err(DbError::from))?;
        Ok(())
    }

    async fn get(&self, id: &AgentId) -> StoreResult<Option<Agent>> {
        let row = with_conn!(self, |conn| agents::table
            .find(id.as_str())
            .select(AgentRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(AgentRow::into_domain).transpose()?)
    }

    async fn list(&self) -> StoreResult<Vec<Agent>> {
        let rows = with_conn!(self, |conn| agents::table
            .order((agents::created_at.asc(), agents::id.asc()))
            .select(AgentRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(rows.into_iter().map(AgentRow::into_domain).collect::<Result<_, _>>()?)
    }
}
