use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::{AgentId, IdempotencyClaim, IdempotentResponse, Timestamp};
use parley_domain::ports::{IdempotencyRepository, StoreResult};

use crate::Store;
use crate::error::DbError;
use crate::pool::{in_transaction, read_conn, write_conn};
use crate::rows::{from_millis, millis};
use crate::schema::idempotency_keys;

#[derive(Queryable, Selectable)]
#[diesel(table_name = idempotency_keys)]
struct KeyRow {
    fingerprint: String,
    response_status: Option<i32>,
    response_body: Option<String>,
    created_at: i64,
}

impl KeyRow {
    fn into_claim(self) -> Result<IdempotencyClaim, DbError> {
        let response = match self.response_status {
            Some(status) => Some(IdempotentResponse {
                status: u16::try_from(status).map_err(|_| DbError::Corrupt(format!("response status {status}")))?,
                body: self.response_body.unwrap_or_default(),
            }),
            None => None,
        };
        Ok(IdempotencyClaim::Existing { fingerprint: self.fingerprint, response, claimed_at: from_millis(self.created_at)? })
    }
}

#[async_trait]
impl IdempotencyRepository for Store {
    async fn claim(
        &self,
        agent: &AgentId,
        key: &str,
        fingerprint: &str,
        at: Timestamp,
        expired_before: Timestamp,
    ) -> StoreResult<IdempotencyClaim> {
        let agent = agent.as_str();
        // One transaction, and an insert that never fails on a taken key: of concurrent claims
        // exactly one inserts, the others read its row (PostgreSQL makes them wait for it to
        // commit; SQLite's write transactions are serialized).
        let existing = in_transaction!(self, |conn| {
            diesel::delete(
                idempotency_keys::table
                    .filter(idempotency_keys::agent_id.eq(agent))
                    .filter(idempotency_keys::key.eq(key))
                    .filter(idempotency_keys::created_at.lt(millis(expired_before))),
            )
            .execute(conn)
            .await?;
            let inserted = diesel::insert_into(idempotency_keys::table)
                .values((
                    idempotency_keys::agent_id.eq(agent),
                    idempotency_keys::key.eq(key),
                    idempotency_keys::fingerprint.eq(fingerprint),
                    idempotency_keys::response_status.eq(None::<i32>),
                    idempotency_keys::response_body.eq(None::<String>),
                    idempotency_keys::created_at.eq(millis(at)),
                ))
                .on_conflict_do_nothing()
                .execute(conn)
                .await?;
            if inserted > 0 {
                return Ok(None);
            }
            let row = idempotency_keys::table
                .filter(idempotency_keys::agent_id.eq(agent))
                .filter(idempotency_keys::key.eq(key))
                .select(KeyRow::as_select())
                .first(conn)
                .await?;
            Ok(Some(row))
        })?;
        match existing {
            None => Ok(IdempotencyClaim::Claimed),
            Some(row) => Ok(row.into_claim()?),
        }
    }

    async fn complete(&self, agent: &AgentId, key: &str, response: &IdempotentResponse) -> StoreResult<()> {
        write_conn!(self, |conn| diesel::update(
            idempotency_keys::table.filter(idempotency_keys::agent_id.eq(agent.as_str())).filter(idempotency_keys::key.eq(key))
        )
        .set((
            idempotency_keys::response_status.eq(Some(i32::from(response.status))),
            idempotency_keys::response_body.eq(Some(response.body.as_str()))
        ))
        .execute(conn)
        .await
        .map_err(DbError::from))?;
        Ok(())
    }

    async fn set_recovery_point(&self, agent: &AgentId, key: &str, resource: &str) -> StoreResult<()> {
        write_conn!(self, |conn| diesel::update(
            idempotency_keys::table.filter(idempotency_keys::agent_id.eq(agent.as_str())).filter(idempotency_keys::key.eq(key))
        )
        .set(idempotency_keys::recovery_point.eq(Some(resource)))
        .execute(conn)
        .await
        .map_err(DbError::from))?;
        Ok(())
    }

    async fn recovery_point(&self, agent: &AgentId, key: &str) -> StoreResult<Option<String>> {
        let point: Option<Option<String>> = read_conn!(self, |conn| idempotency_keys::table
            .filter(idempotency_keys::agent_id.eq(agent.as_str()))
            .filter(idempotency_keys::key.eq(key))
            .select(idempotency_keys::recovery_point)
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(point.flatten())
    }
}
