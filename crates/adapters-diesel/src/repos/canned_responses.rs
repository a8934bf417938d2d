//! Canned responses: one table, listed by its unique `(agent_id, short_code)` key. `search`
//! scans the agent's rows (at most `MAX_CANNED_RESPONSES_PER_AGENT`) for the fragment in the
//! short code or the kept lowercased text, `text_key`.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::{AgentId, CannedResponse, CannedResponseId, CannedSearch, CannedText, Page, PageRequest, ShortCode};
use parley_domain::ports::{CannedResponseRepository, StoreResult};

use crate::Store;
use crate::contains::contains;
use crate::error::DbError;
use crate::locks::OrderedLocks;
use crate::pool::{in_transaction, read_conn, write_conn};
use crate::rows::{from_millis, millis, valid};
use crate::schema::canned_responses;

#[derive(Queryable, Selectable)]
#[diesel(table_name = canned_responses)]
struct CannedRow {
    id: String,
    agent_id: String,
    short_code: String,
    text: String,
    created_at: i64,
    updated_at: i64,
}

impl CannedRow {
    fn into_domain(self) -> Result<CannedResponse, DbError> {
        Ok(CannedResponse {
            id: CannedResponseId::new(self.id),
            agent_id: AgentId::new(self.agent_id),
            short_code: valid(ShortCode::new(&self.short_code))?,
            text: valid(CannedText::new(&self.text))?,
            created_at: from_millis(self.created_at)?,
            updated_at: from_millis(self.updated_at)?,
        })
    }
}

#[async_trait]
impl CannedResponseRepository for Store {
    async fn list(&self, agent: &AgentId, search: Option<CannedSearch>, page: PageRequest) -> StoreResult<Page<CannedResponse>> {
        let fragment = search.as_ref().map(CannedSearch::fragment);
        let (total, rows) = read_conn!(self, |conn| {
            // Boxed: two shapes (with and without `search`) of a list that is not hot.
            let mine = || {
                let mut q = canned_responses::table.filter(canned_responses::agent_id.eq(agent.as_str())).into_boxed();
                if let Some(fragment) = fragment {
                    q = q.filter(contains(canned_responses::short_code, fragment).or(contains(canned_responses::text_key, fragment)));
                }
                q
            };
            let total: i64 = mine().count().get_result(conn).await.map_err(DbError::from)?;
            let rows: Vec<CannedRow> = mine()
                .order(canned_responses::short_code.asc())
                .limit(i64::from(page.limit()))
                .offset(page.offset() as i64)
                .select(CannedRow::as_select())
                .load(conn)
                .await
                .map_err(DbError::from)?;
            Ok::<_, DbError>((total, rows))
        })?;
        let items = rows.into_iter().map(CannedRow::into_domain).collect::<Result<_, _>>()?;
        Ok(Page { items, total: total as u64, request: page })
    }

    async fn get(&self, agent: &AgentId, id: &CannedResponseId) -> StoreResult<Option<CannedResponse>> {
        let row = read_conn!(self, |conn| canned_responses::table
            .filter(canned_responses::agent_id.eq(agent.as_str()))
            .filter(canned_responses::id.eq(id.as_str()))
            .select(CannedRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(CannedRow::into_domain).transpose()?)
    }

    async fn insert(&self, response: &CannedResponse, max_per_agent: u32) -> StoreResult<bool> {
        let agent = response.agent_id.as_str();
        let inserted = in_transaction!(self, |conn| {
            conn.lock_agent(agent).await?;
            let count: i64 = canned_responses::table.filter(canned_responses::agent_id.eq(agent)).count().get_result(conn).await?;
            if count >= i64::from(max_per_agent) {
                return Ok(false);
            }
            let values = (
                canned_responses::id.eq(response.id.as_str()),
                canned_responses::agent_id.eq(agent),
                canned_responses::short_code.eq(response.short_code.as_str()),
                canned_responses::text.eq(response.text.as_str()),
                canned_responses::text_key.eq(response.text.search_key()),
                canned_responses::created_at.eq(millis(response.created_at)),
                canned_responses::updated_at.eq(millis(response.updated_at)),
            );
            diesel::insert_into(canned_responses::table).values(values).execute(conn).await?;
            Ok(true)
        })?;
        Ok(inserted)
    }

    async fn update(&self, response: &CannedResponse) -> StoreResult<bool> {
        let target = canned_responses::table
            .filter(canned_responses::agent_id.eq(response.agent_id.as_str()))
            .filter(canned_responses::id.eq(response.id.as_str()));
        let changes = (
            canned_responses::short_code.eq(response.short_code.as_str()),
            canned_responses::text.eq(response.text.as_str()),
            canned_responses::text_key.eq(response.text.search_key()),
            canned_responses::updated_at.eq(millis(response.updated_at)),
        );
        let n = write_conn!(self, |conn| diesel::update(target).set(changes).execute(conn).await.map_err(DbError::from))?;
        Ok(n > 0)
    }

    async fn delete(&self, agent: &AgentId, id: &CannedResponseId) -> StoreResult<bool> {
        let target =
            canned_responses::table.filter(canned_responses::agent_id.eq(agent.as_str())).filter(canned_responses::id.eq(id.as_str()));
        let n = write_conn!(self, |conn| diesel::delete(target).execute(conn).await.map_err(DbError::from))?;
        Ok(n > 0)
    }
}
