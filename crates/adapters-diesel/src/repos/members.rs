//! `MemberRepository`, `SessionRepository` and `SignInAttemptRepository`: an agent's team
//! (`members`), its members' sessions (`member_sessions`, by token hash) and failed sign-ins
//! (`sign_in_attempts`, by email).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::*;
use parley_domain::ports::{MemberRepository, SessionRepository, SignInAttemptRepository, StoreResult};

use crate::Store;
use crate::error::DbError;
use crate::pool::{in_transaction, read_conn, with_conn, write_conn};
use crate::rows::{from_millis, millis, valid};
use crate::schema::{activities, member_sessions, members, sign_in_attempts};

#[derive(Queryable, Selectable)]
#[diesel(table_name = members)]
struct MemberRow {
    id: String,
    agent_id: String,
    email: String,
    name: String,
    role: String,
    password_hash: String,
    must_change_password: i32,
    created_at: i64,
    updated_at: i64,
    max_open: Option<i32>,
}

impl MemberRow {
    fn into_domain(self) -> Result<Member, DbError> {
        Ok(Member {
            id: MemberId::new(self.id),
            agent_id: AgentId::new(self.agent_id),
            email: valid(Email::new(&self.email))?,
            name: valid(MemberName::new(&self.name))?,
            role: valid(MemberRole::parse(&self.role))?,
            password: PasswordDigest::from_stored(self.password_hash),
            must_change_password: self.must_change_password != 0,
            max_open: self.max_open.map(|n| valid(MaxOpen::new(i64::from(n)))).transpose()?,
            created_at: from_millis(self.created_at)?,
            updated_at: from_millis(self.updated_at)?,
        })
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = member_sessions)]
struct SessionRow {
    id: String,
    agent_id: String,
    member_id: String,
    token_hash: String,
    created_at: i64,
    last_seen_at: i64,
}

impl SessionRow {
    fn into_domain(self) -> Result<Session, DbError> {
        Ok(Session {
            id: SessionId::new(self.id),
            agent_id: AgentId::new(self.agent_id),
            member_id: MemberId::new(self.member_id),
            token_hash: KeyHash::from_stored(self.token_hash),
            created_at: from_millis(self.created_at)?,
            last_seen_at: from_millis(self.last_seen_at)?,
        })
    }
}

fn rows_into_members(rows: Vec<MemberRow>) -> StoreResult<Vec<Member>> {
    Ok(rows.into_iter().map(MemberRow::into_domain).collect::<Result<_, _>>()?)
}

#[async_trait]
impl MemberRepository for Store {
    async fn insert(&self, m: &Member) -> StoreResult<()> {
        let values = (
            members::id.eq(m.id.as_str()),
            members::agent_id.eq(m.agent_id.as_str()),
            members::email.eq(m.email.as_str()),
            members::name.eq(m.name.as_str()),
            members::role.eq(m.role.as_str()),
            members::password_hash.eq(m.password.as_str()),
            members::must_change_password.eq(i32::from(m.must_change_password)),
            members::created_at.eq(millis(m.created_at)),
            members::updated_at.eq(millis(m.updated_at)),
            members::max_open.eq(m.max_open.map(|n| n.get() as i32)),
        );
        write_conn!(self, |conn| diesel::insert_into(members::table).values(values).execute(conn).await.map_err(DbError::from))?;
        Ok(())
    }

    async fn get(&self, agent: &AgentId, id: &MemberId) -> StoreResult<Option<Member>> {
        let row = read_conn!(self, |conn| members::table
            .filter(members::agent_id.eq(agent.as_str()))
            .filter(members::id.eq(id.as_str()))
            .select(MemberRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(MemberRow::into_domain).transpose()?)
    }

    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Member>> {
        let rows = with_conn!(self, |conn| members::table
            .filter(members::agent_id.eq(agent.as_str()))
            .order((members::created_at.asc(), members::id.asc()))
            .select(MemberRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        rows_into_members(rows)
    }

    async fn find_by_email(&self, email: &Email) -> StoreResult<Vec<Member>> {
        let rows = read_conn!(self, |conn| members::table
            .filter(members::email.eq(email.as_str()))
            .order((members::created_at.asc(), members::id.asc()))
            .select(MemberRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        rows_into_members(rows)
    }

    async fn set_password<'a>(&self, m: &Member, keep: Option<&'a SessionId>) -> StoreResult<bool> {
        let keep = keep.map(|k| k.as_str().to_string()).unwrap_or_default();
        let changed = in_transaction!(self, |conn| {
            let n = diesel::update(members::table.filter(members::agent_id.eq(m.agent_id.as_str())).filter(members::id.eq(m.id.as_str())))
                .set((
                    members::password_hash.eq(m.password.as_str()),
                    members::must_change_password.eq(i32::from(m.must_change_password)),
                    members::updated_at.eq(millis(m.updated_at)),
                ))
                .execute(conn)
                .await?;
            if n == 0 {
                return Ok(false);
            }
            diesel::delete(
                member_sessions::table.filter(member_sessions::member_id.eq(m.id.as_str())).filter(member_sessions::id.ne(&keep)),
            )
            .execute(conn)
            .await?;
            Ok(true)
        })?;
        Ok(changed)
    }

    async fn set_max_open(&self, agent: &AgentId, id: &MemberId, max_open: Option<MaxOpen>, at: Timestamp) -> StoreResult<bool> {
        let target = members::table.filter(members::agent_id.eq(agent.as_str())).filter(members::id.eq(id.as_str()));
        let changes = (members::max_open.eq(max_open.map(|n| n.get() as i32)), members::updated_at.eq(millis(at)));
        let n = write_conn!(self, |conn| diesel::update(target).set(changes).execute(conn).await.map_err(DbError::from))?;
        Ok(n > 0)
    }

    async fn delete(&self, agent: &AgentId, id: &MemberId) -> StoreResult<bool> {
        let deleted = in_transaction!(self, |conn| {
            let n = diesel::delete(members::table.filter(members::agent_id.eq(agent.as_str())).filter(members::id.eq(id.as_str())))
                .execute(conn)
                .await?;
            if n == 0 {
                return Ok(false);
            }
            // Its sessions go with it (`ON DELETE CASCADE`, foreign keys on in both backends); its
            // activities stop showing it as their assignee.
            diesel::update(
                activities::table.filter(activities::agent_id.eq(agent.as_str())).filter(activities::assigned_to.eq(id.as_str())),
            )
            .set(activities::assignee_name.eq(None::<String>))
            .execute(conn)
            .await?;
            Ok(true)
        })?;
        Ok(deleted)
    }
}

#[async_trait]
impl SessionRepository for Store {
    async fn insert(&self, s: &Session) -> StoreResult<()> {
        let values = (
            member_sessions::id.eq(s.id.as_str()),
            member_sessions::agent_id.eq(s.agent_id.as_str()),
            member_sessions::member_id.eq(s.member_id.as_str()),
            member_sessions::token_hash.eq(s.token_hash.as_str()),
            member_sessions::created_at.eq(millis(s.created_at)),
            member_sessions::last_seen_at.eq(millis(s.last_seen_at)),
        );
        write_conn!(self, |conn| diesel::insert_into(member_sessions::table).values(values).execute(conn).await.map_err(DbError::from))?;
        Ok(())
    }

    async fn find_by_hash(&self, hash: &KeyHash) -> StoreResult<Option<(Session, Member)>> {
        let row = read_conn!(self, |conn| member_sessions::table
            .inner_join(members::table)
            .filter(member_sessions::token_hash.eq(hash.as_str()))
            .select((SessionRow::as_select(), MemberRow::as_select()))
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(|(s, m)| Ok::<_, DbError>((s.into_domain()?, m.into_domain()?))).transpose()?)
    }

    async fn touch(&self, id: &SessionId, at: Timestamp) -> StoreResult<()> {
        write_conn!(self, |conn| diesel::update(member_sessions::table.find(id.as_str()))
            .set(member_sessions::last_seen_at.eq(millis(at)))
            .execute(conn)
            .await
            .map_err(DbError::from))?;
        Ok(())
    }

    async fn delete(&self, id: &SessionId) -> StoreResult<bool> {
        let n =
            write_conn!(self, |conn| diesel::delete(member_sessions::table.find(id.as_str())).execute(conn).await.map_err(DbError::from))?;
        Ok(n > 0)
    }

    async fn delete_idle(&self, before: Timestamp) -> StoreResult<u64> {
        let n = write_conn!(self, |conn| diesel::delete(member_sessions::table.filter(member_sessions::last_seen_at.lt(millis(before))))
            .execute(conn)
            .await
            .map_err(DbError::from))?;
        Ok(n as u64)
    }
}

#[async_trait]
impl SignInAttemptRepository for Store {
    async fn record(&self, email: &Email, mark: SignInMark, at: Timestamp) -> StoreResult<()> {
        let values =
            (sign_in_attempts::email.eq(email.as_str()), sign_in_attempts::mark.eq(mark.as_str()), sign_in_attempts::at.eq(millis(at)));
        write_conn!(self, |conn| diesel::insert_into(sign_in_attempts::table).values(values).execute(conn).await.map_err(DbError::from))?;
        Ok(())
    }

    async fn since(&self, email: &Email, since: Timestamp) -> StoreResult<SignInHistory> {
        let rows: Vec<(String, i64)> = read_conn!(self, |conn| sign_in_attempts::table
            .filter(sign_in_attempts::email.eq(email.as_str()))
            .filter(sign_in_attempts::at.ge(millis(since)))
            .select((sign_in_attempts::mark, sign_in_attempts::at))
            .load(conn)
            .await
            .map_err(DbError::from))?;
        let mut history = SignInHistory::default();
        for (mark, at) in rows {
            match SignInMark::parse(&mark).ok_or_else(|| DbError::Corrupt(format!("sign-in mark {mark:?}")))? {
                SignInMark::Failed => history.failures += 1,
                SignInMark::Locked => history.locked_at = history.locked_at.max(Some(from_millis(at)?)),
            }
        }
        Ok(history)
    }

    async fn clear_failures(&self, email: &Email) -> StoreResult<()> {
        write_conn!(self, |conn| diesel::delete(
            sign_in_attempts::table
                .filter(sign_in_attempts::email.eq(email.as_str()))
                .filter(sign_in_attempts::mark.eq(SignInMark::Failed.as_str()))
        )
        .execute(conn)
        .await
        .map_err(DbError::from))?;
        Ok(())
    }

    async fn prune(&self, before: Timestamp) -> StoreResult<u64> {
        let n = write_conn!(self, |conn| diesel::delete(sign_in_attempts::table.filter(sign_in_attempts::at.lt(millis(before))))
            .execute(conn)
            .await
            .map_err(DbError::from))?;
        Ok(n as u64)
    }
}
