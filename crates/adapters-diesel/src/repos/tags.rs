use async_trait::async_trait;
use diesel::dsl::auto_type;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::{AgentId, Event, Tag, TagColor, TagDescription, TagId, TagName};
use parley_domain::ports::{StoreResult, TagRepository};

use super::activity_views::refresh_tag_list;
use crate::Store;
use crate::error::DbError;
use crate::in_list::in_list;
use crate::locks::OrderedLocks;
use crate::pool::{in_transaction, read_conn};
use crate::repos::events::emit_all;
use crate::rows::{from_millis, millis, valid};
use crate::schema::{activity_tags, tags};

/// The ids of the activities carrying `tag`, in id order; read after the tag is locked.
#[auto_type(dsl_path = "crate::dsl")]
fn carriers<'a>(tag: &'a str) -> _ {
    activity_tags::table.filter(activity_tags::tag_id.eq(tag)).order(activity_tags::activity_id.asc()).select(activity_tags::activity_id)
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = tags)]
pub(crate) struct TagRow {
    id: String,
    agent_id: String,
    name: String,
    color: String,
    description: Option<String>,
    created_at: i64,
    updated_at: i64,
}

impl TagRow {
    fn into_domain(self) -> Result<Tag, DbError> {
        Ok(Tag {
            id: TagId::new(self.id),
            agent_id: AgentId::new(self.agent_id),
            name: valid(TagName::new(&self.name))?,
            color: valid(TagColor::new(&self.color))?,
            description: self.description.map(|d| valid(TagDescription::new(&d))).transpose()?,
            created_at: from_millis(self.created_at)?,
            updated_at: from_millis(self.updated_at)?,
        })
    }
}

fn to_domain(rows: Vec<TagRow>) -> Result<Vec<Tag>, DbError> {
    rows.into_iter().map(TagRow::into_domain).collect()
}

#[async_trait]
impl TagRepository for Store {
    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Tag>> {
        let rows = read_conn!(self, |conn| tags::table
            .filter(tags::agent_id.eq(agent.as_str()))
            .order((tags::name_key.asc(), tags::id.asc()))
            .select(TagRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(to_domain(rows)?)
    }

    async fn get(&self, agent: &AgentId, id: &TagId) -> StoreResult<Option<Tag>> {
        let row = read_conn!(self, |conn| tags::table
            .filter(tags::agent_id.eq(agent.as_str()))
            .filter(tags::id.eq(id.as_str()))
            .select(TagRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(TagRow::into_domain).transpose()?)
    }

    async fn find_many(&self, agent: &AgentId, ids: &[TagId]) -> StoreResult<Vec<Tag>> {
        let ids: Vec<&str> = ids.iter().map(TagId::as_str).collect();
        let rows = read_conn!(self, |conn| tags::table
            .filter(tags::agent_id.eq(agent.as_str()))
            .filter(in_list(tags::id, &ids))
            .select(TagRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(to_domain(rows)?)
    }

    async fn insert(&self, tag: &Tag, max_per_agent: u32, events: &[Event]) -> StoreResult<bool> {
        let agent = tag.agent_id.as_str();
        let inserted = in_transaction!(self, |conn| {
            conn.lock_agent(agent).await?;
            let count: i64 = tags::table.filter(tags::agent_id.eq(agent)).count().get_result(conn).await?;
            if count >= i64::from(max_per_agent) {
                return Ok(false);
            }
            let values = (
                tags::id.eq(tag.id.as_str()),
                tags::agent_id.eq(tag.agent_id.as_str()),
                tags::name.eq(tag.name.as_str()),
                tags::name_key.eq(tag.name.key()),
                tags::color.eq(tag.color.as_str()),
                tags::description.eq(tag.description.as_ref().map(TagDescription::as_str)),
                tags::created_at.eq(millis(tag.created_at)),
                tags::updated_at.eq(millis(tag.updated_at)),
            );
            diesel::insert_into(tags::table).values(values).execute(conn).await?;
            emit_all!(conn, events);
            Ok(true)
        })?;
        Ok(inserted)
    }

    async fn update(&self, tag: &Tag, events: &[Event]) -> StoreResult<bool> {
        let changes = (
            tags::name.eq(tag.name.as_str()),
            tags::name_key.eq(tag.name.key()),
            tags::color.eq(tag.color.as_str()),
            tags::description.eq(tag.description.as_ref().map(TagDescription::as_str)),
            tags::updated_at.eq(millis(tag.updated_at)),
        );
        let target = || tags::table.filter(tags::agent_id.eq(tag.agent_id.as_str())).filter(tags::id.eq(tag.id.as_str()));
        let updated = in_transaction!(self, |conn| {
            // Locked before it is read, so `before` is what this update replaces.
            conn.lock_tags(tag.agent_id.as_str(), &[tag.id.as_str()]).await?;
            let before: Option<(String, String)> = target().select((tags::name, tags::color)).first(conn).await.optional()?;
            let Some(before) = before else { return Ok(false) };
            diesel::update(target()).set(changes.clone()).execute(conn).await?;
            // The activities carrying it show its name and color (`tag_list`). The carriers
            // follow their tag, in id order (`locks.rs`), all locked before any list is read:
            // a list read while another transaction (a delete of another tag they carry) still
            // held the activity would be written back stale once it commits.
            if before != (tag.name.as_str().to_string(), tag.color.as_str().to_string()) {
                let carriers: Vec<String> = carriers(tag.id.as_str()).load(conn).await?;
                conn.lock_activities(&carriers).await?;
                for activity in &carriers {
                    refresh_tag_list!(conn, activity.as_str());
                }
            }
            emit_all!(conn, events);
            Ok(true)
        })?;
        Ok(updated)
    }

    async fn delete(&self, agent: &AgentId, id: &TagId, events: &[Event]) -> StoreResult<bool> {
        let deleted = in_transaction!(self, |conn| {
            let target = || tags::table.filter(tags::agent_id.eq(agent.as_str())).filter(tags::id.eq(id.as_str()));
            // The tag, then its carriers, then (by the cascade) their links: the order of every
            // writer of them (`locks.rs`). Deleting first would lock the links before the
            // activities, against an activity update that mirrors onto its links.
            if conn.lock_tags(agent.as_str(), &[id.as_str()]).await?.is_empty() {
                return Ok(false);
            }
            let carriers: Vec<String> = carriers(id.as_str()).load(conn).await?;
            conn.lock_activities(&carriers).await?;
            // activity_tags rows go with it (ON DELETE CASCADE); then the carriers' `tag_list`.
            if diesel::delete(target()).execute(conn).await? == 0 {
                return Ok(false);
            }
            for activity in &carriers {
                refresh_tag_list!(conn, activity.as_str());
            }
            emit_all!(conn, events);
            Ok(true)
        })?;
        Ok(deleted)
    }
}
