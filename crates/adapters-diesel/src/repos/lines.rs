use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::{AccessToken, AgentId, Line, LineAccess, LineId, PhoneNumberId, WabaId};
use parley_domain::ports::{LineRepository, StoreResult};

use crate::Store;
use crate::error::DbError;
use crate::pool::{read_conn, with_conn, write_conn};
use crate::rows::{from_millis, millis, valid};
use crate::schema::lines;

#[derive(Queryable, Selectable)]
#[diesel(table_name = lines)]
pub(crate) struct LineRow {
    id: String,
    agent_id: String,
    phone_number_id: String,
    waba_id: String,
    /// `NULL` for a sandbox line.
    access_token: Option<String>,
    created_at: i64,
}

impl LineRow {
    fn into_domain(self) -> Result<Line, DbError> {
        let access = match self.access_token {
            Some(token) => LineAccess::Cloud(valid(AccessToken::new(&token))?),
            None => LineAccess::Sandbox,
        };
        Ok(Line {
            id: LineId::new(self.id),
            agent_id: AgentId::new(self.agent_id),
            phone_number_id: valid(PhoneNumberId::new(&self.phone_number_id))?,
            waba_id: valid(WabaId::new(&self.waba_id))?,
            access,
            created_at: from_millis(self.created_at)?,
        })
    }
}

fn to_domain(rows: Vec<LineRow>) -> Result<Vec<Line>, DbError> {
    rows.into_iter().map(LineRow::into_domain).collect()
}

#[async_trait]
impl LineRepository for Store {
    async fn insert(&self, line: &Line) -> StoreResult<()> {
        let token = match &line.access {
            LineAccess::Cloud(token) => Some(token.expose()),
            LineAccess::Sandbox => None,
        };
        let values = (
            lines::id.eq(line.id.as_str()),
            lines::agent_id.eq(line.agent_id.as_str()),
            lines::phone_number_id.eq(line.phone_number_id.as_str()),
            lines::waba_id.eq(line.waba_id.as_str()),
            lines::access_token.eq(token),
            lines::created_at.eq(millis(line.created_at)),
        );
        write_conn!(self, |conn| diesel::insert_into(lines::table).values(values).execute(conn).await.map_err(DbError::from))?;
        Ok(())
    }

    async fn get(&self, agent: &AgentId, id: &LineId) -> StoreResult<Option<Line>> {
        let row = with_conn!(self, |conn| lines::table
            .filter(lines::agent_id.eq(agent.as_str()))
            .filter(lines::id.eq(id.as_str()))
            .select(LineRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(LineRow::into_domain).transpose()?)
    }

    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Line>> {
        let rows = with_conn!(self, |conn| lines::table
            .filter(lines::agent_id.eq(agent.as_str()))
            .order((lines::created_at.asc(), lines::id.asc()))
            .select(LineRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(to_domain(rows)?)
    }

    async fn all(&self) -> StoreResult<Vec<Line>> {
        let rows = with_conn!(self, |conn| lines::table
            .order((lines::created_at.asc(), lines::id.asc()))
            .select(LineRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(to_domain(rows)?)
    }

    async fn find_by_phone_number_id(&self, phone_number_id: &str) -> StoreResult<Option<Line>> {
        let row = read_conn!(self, |conn| lines::table
            .filter(lines::phone_number_id.eq(phone_number_id))
            .select(LineRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(LineRow::into_domain).transpose()?)
    }
}
