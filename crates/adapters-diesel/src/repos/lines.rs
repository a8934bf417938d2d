use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::{
    AccessToken, AgentId, ChannelType, InstagramAccountId, Line, LineAccess, LineAccount, LineId, PhoneNumberId, WabaId,
};
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
    /// The platform's id of the account: [`LineAccount::account_id`].
    account_id: String,
    /// `''` for a line with no business account (not WhatsApp).
    waba_id: String,
    /// `NULL` for a sandbox line.
    access_token: Option<String>,
    created_at: i64,
    channel_type: String,
}

impl LineRow {
    fn into_domain(self) -> Result<Line, DbError> {
        let access = match self.access_token {
            Some(token) => LineAccess::Cloud(valid(AccessToken::new(&token))?),
            None => LineAccess::Sandbox,
        };
        let account = match valid(ChannelType::parse(&self.channel_type))? {
            ChannelType::Whatsapp => LineAccount::Whatsapp {
                phone_number_id: valid(PhoneNumberId::new(&self.account_id))?,
                waba_id: valid(WabaId::new(&self.waba_id))?,
            },
            ChannelType::Instagram => LineAccount::Instagram { account_id: valid(InstagramAccountId::new(&self.account_id))? },
            other => return Err(DbError::Corrupt(format!("a line of channel type {}", other.as_str()))),
        };
        Ok(Line {
            id: LineId::new(self.id),
            agent_id: AgentId::new(self.agent_id),
            account,
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
            lines::account_id.eq(line.account_id()),
            lines::waba_id.eq(line.waba_id().map_or("", |w| w.as_str())),
            lines::channel_type.eq(line.channel_type().as_str()),
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

    async fn find_by_account(&self, channel_type: ChannelType, account_id: &str) -> StoreResult<Option<Line>> {
        let row = read_conn!(self, |conn| lines::table
            .filter(lines::account_id.eq(account_id))
            .filter(lines::channel_type.eq(channel_type.as_str()))
            .select(LineRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(LineRow::into_domain).transpose()?)
    }
}
