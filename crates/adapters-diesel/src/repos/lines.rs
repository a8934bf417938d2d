use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::{
    AccessToken, AgentId, ChannelType, Email, InboundTokenDigest, InstagramAccountId, Line, LineAccess, LineAccount, LineId, MailAccess,
    Pace, Password, PhoneNumberId, ServerAddress, WabaId,
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
    /// `NULL` for a sandbox line; an email line's password.
    access_token: Option<String>,
    created_at: i64,
    channel_type: String,
    /// Email lines with servers (not sandbox): where replies go, where mail is read, the login.
    send_url: Option<String>,
    receive_url: Option<String>,
    username: Option<String>,
    /// Email lines: the digest of the inbound token.
    inbound_token: Option<String>,
    /// Messages a second.
    messages_per_second: i32,
}

impl LineRow {
    fn into_domain(self) -> Result<Line, DbError> {
        let channel_type = valid(ChannelType::parse(&self.channel_type))?;
        let access = match (self.access_token, self.send_url) {
            (Some(password), Some(send_url)) => LineAccess::Mail(MailAccess {
                send_url: valid(ServerAddress::new("send_url", &send_url))?,
                receive_url: self.receive_url.map(|url| valid(ServerAddress::new("receive_url", &url))).transpose()?,
                username: self.username.ok_or_else(|| DbError::Corrupt("an email line without a username".into()))?,
                password: valid(Password::new(&password))?,
            }),
            (Some(token), None) => LineAccess::Cloud(valid(AccessToken::new(&token))?),
            (None, _) => LineAccess::Sandbox,
        };
        let account = match channel_type {
            ChannelType::Email => LineAccount::Email {
                address: valid(Email::new(&self.account_id))?,
                inbound_token: InboundTokenDigest::from_stored(
                    self.inbound_token.ok_or_else(|| DbError::Corrupt("an email line without an inbound token".into()))?,
                ),
            },
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
            pace: valid(Pace::new("messages_per_second", i64::from(self.messages_per_second)))?,
        })
    }
}

fn to_domain(rows: Vec<LineRow>) -> Result<Vec<Line>, DbError> {
    rows.into_iter().map(LineRow::into_domain).collect()
}

#[async_trait]
impl LineRepository for Store {
    async fn insert(&self, line: &Line) -> StoreResult<()> {
        let (token, mail) = match &line.access {
            LineAccess::Cloud(token) => (Some(token.expose()), None),
            LineAccess::Mail(mail) => (Some(mail.password.expose()), Some(mail)),
            LineAccess::Sandbox => (None, None),
        };
        let inbound_token = match &line.account {
            LineAccount::Email { inbound_token, .. } => Some(inbound_token.as_str()),
            _ => None,
        };
        let values = (
            lines::id.eq(line.id.as_str()),
            lines::agent_id.eq(line.agent_id.as_str()),
            lines::account_id.eq(line.account_id()),
            lines::waba_id.eq(line.waba_id().map_or("", |w| w.as_str())),
            lines::channel_type.eq(line.channel_type().as_str()),
            lines::access_token.eq(token),
            lines::created_at.eq(millis(line.created_at)),
            (
                lines::send_url.eq(mail.map(|m| m.send_url.as_str())),
                lines::receive_url.eq(mail.and_then(|m| m.receive_url.as_ref()).map(|u| u.as_str())),
                lines::username.eq(mail.map(|m| m.username.as_str())),
                lines::inbound_token.eq(inbound_token),
                lines::messages_per_second.eq(line.pace.per_second() as i32),
            ),
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

    async fn find(&self, id: &LineId) -> StoreResult<Option<Line>> {
        let row = read_conn!(self, |conn| lines::table
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

    async fn set_pace(&self, agent: &AgentId, id: &LineId, pace: Pace) -> StoreResult<bool> {
        let target = lines::table.filter(lines::agent_id.eq(agent.as_str())).filter(lines::id.eq(id.as_str()));
        let n = write_conn!(self, |conn| diesel::update(target)
            .set(lines::messages_per_second.eq(pace.per_second() as i32))
            .execute(conn)
            .await
            .map_err(DbError::from))?;
        Ok(n == 1)
    }
}
