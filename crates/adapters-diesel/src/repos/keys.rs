use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::{AgentId, ApiKey, ApiKeyId, KeyHash, KeyKind, Timestamp};
use parley_domain::ports::{ApiKeyRepository, StoreResult};

use crate::Store;
use crate::error::DbError;
use crate::pool::{in_transaction, read_conn, with_conn, write_conn};
use crate::rows::{from_millis, millis, opt_from_millis};
use crate::schema::api_keys;

#[derive(Queryable, Selectable)]
#[diesel(table_name = api_keys)]
struct KeyRow {
    id: String,
    agent_id: String,
    kind: String,
    key_hash: String,
    hint: String,
    created_at: i64,
    revoked_at: Option<i64>,
}

impl KeyRow {
    fn into_domain(self) -> Result<ApiKey, DbError> {
        Ok(ApiKey {
            id: ApiKeyId::new(self.id),
            agent_id: AgentId::new(self.agent_id),
            kind: KeyKind::parse(&self.kind).ok_or_else(|| DbError::Corrupt(format!("key kind {:?}", self.kind)))?,
            hash: KeyHash::from_stored(self.key_hash),
            hint: self.hint,
            created_at: from_millis(self.created_at)?,
            revoked_at: opt_from_millis(self.revoked_at)?,
        })
    }
}

#[async_trait]
impl ApiKeyRepository for Store {
    async fn insert(&self, key: &ApiKey) -> StoreResult<()> {
        let values = (
            api_keys::id.eq(key.id.as_str()),
            api_keys::agent_id.eq(key.agent_id.as_str()),
            api_keys::kind.eq(key.kind.as_str()),
            api_keys::key_hash.eq(key.hash.as_str()),
            api_keys::hint.eq(key.hint.as_str()),
            api_keys::created_at.eq(millis(key.created_at)),
            api_keys::revoked_at.eq(key.revoked_at.map(millis)),
        );
        write_conn!(self, |conn| diesel::insert_into(api_keys::table).values(values).execute(conn).await.map_err(DbError::from))?;
        Ok(())
    }

    async fn find_by_hash(&self, hash: &KeyHash) -> StoreResult<Option<ApiKey>> {
        let row = read_conn!(self, |conn| api_keys::table
            .filter(api_keys::key_hash.eq(hash.as_str()))
            .select(KeyRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(KeyRow::into_domain).transpose()?)
    }

    async fn list_for_agent(&self, agent: &AgentId) -> StoreResult<Vec<ApiKey>> {
        let rows = with_conn!(self, |conn| api_keys::table
            .filter(api_keys::agent_id.eq(agent.as_str()))
            .order((api_keys::created_at.asc(), api_keys::id.asc()))
            .select(KeyRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(rows.into_iter().map(KeyRow::into_domain).collect::<Result<_, _>>()?)
    }

    async fn revoke(&self, id: &ApiKeyId, at: Timestamp) -> StoreResult<Option<ApiKey>> {
        let row = in_transaction!(self, |conn| {
            diesel::update(api_keys::table.find(id.as_str()).filter(api_keys::revoked_at.is_null()))
                .set(api_keys::revoked_at.eq(millis(at)))
                .execute(conn)
                .await?;
            Ok(api_keys::table.find(id.as_str()).select(KeyRow::as_select()).first(conn).await.optional()?)
        })?;
        Ok(row.map(KeyRow::into_domain).transpose()?)
    }
}
