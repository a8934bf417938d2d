//! Files Parley keeps for messages (email attachments): written once, read by their agent.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::AgentId;
use parley_domain::ports::{FileRepository, StoreResult, StoredFile};

use crate::Store;
use crate::error::DbError;
use crate::pool::{with_conn, write_conn};
use crate::rows::{from_millis, millis};
use crate::schema::files;

#[derive(Queryable, Selectable)]
#[diesel(table_name = files)]
struct FileRow {
    agent_id: String,
    id: String,
    filename: Option<String>,
    mime_type: String,
    bytes: Vec<u8>,
    created_at: i64,
}

#[async_trait]
impl FileRepository for Store {
    async fn put(&self, file: &StoredFile) -> StoreResult<()> {
        let values = (
            files::agent_id.eq(file.agent_id.as_str()),
            files::id.eq(file.id.as_str()),
            files::filename.eq(file.filename.as_deref()),
            files::mime_type.eq(file.mime_type.as_str()),
            files::bytes.eq(file.bytes.as_slice()),
            files::created_at.eq(millis(file.created_at)),
        );
        write_conn!(self, |conn| diesel::insert_into(files::table)
            .values(values)
            .on_conflict_do_nothing()
            .execute(conn)
            .await
            .map_err(DbError::from))?;
        Ok(())
    }

    async fn get(&self, agent: &AgentId, id: &str) -> StoreResult<Option<StoredFile>> {
        let row = with_conn!(self, |conn| files::table
            .filter(files::agent_id.eq(agent.as_str()))
            .filter(files::id.eq(id))
            .select(FileRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(StoredFile {
            id: row.id,
            agent_id: AgentId::new(row.agent_id),
            filename: row.filename,
            mime_type: row.mime_type,
            bytes: row.bytes,
            created_at: from_millis(row.created_at)?,
        }))
    }
}
