//! `TagRepository`: each agent's tags, unique by name ignoring case, up to a limit per agent.
//! Activities link tags by id and show them by looking them up, so a rename, a recolor or a
//! delete shows on every activity at once.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{StoreResult, TagRepository};

use crate::store::{MemoryStore, State, conflict};

impl State {
    /// The agent's tag `id`.
    fn tag_of(&self, agent: &AgentId, id: &TagId) -> Option<&Tag> {
        self.tags.get(id).filter(|t| &t.agent_id == agent)
    }

    /// `Conflict` when another of the agent's tags (not `except`) has `name` ignoring case.
    fn check_tag_name(&self, agent: &AgentId, name: &TagName, except: &TagId) -> StoreResult<()> {
        let key = name.key();
        let taken = self.tags.values().any(|t| &t.agent_id == agent && &t.id != except && t.name.key() == key);
        if taken { Err(conflict(format!("the agent has a tag named {:?}", name.as_str()))) } else { Ok(()) }
    }
}

/// The tag list's order: by name ignoring case, then id.
pub(crate) fn by_name(tags: &mut [Tag]) {
    tags.sort_by_cached_key(|t| (t.name.key(), t.id.clone()));
}

#[async_trait]
impl TagRepository for MemoryStore {
    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Tag>> {
        let mut tags: Vec<Tag> = self.with(|s| s.tags.values().filter(|t| &t.agent_id == agent).cloned().collect());
        by_name(&mut tags);
        Ok(tags)
    }

    async fn get(&self, agent: &AgentId, id: &TagId) -> StoreResult<Option<Tag>> {
        Ok(self.with(|s| s.tag_of(agent, id).cloned()))
    }

    async fn find_many(&self, agent: &AgentId, ids: &[TagId]) -> StoreResult<Vec<Tag>> {
        Ok(self.with(|s| s.tags.values().filter(|t| &t.agent_id == agent && ids.contains(&t.id)).cloned().collect()))
    }

    async fn insert(&self, tag: &Tag, max_per_agent: u32, events: &[Event]) -> StoreResult<bool> {
        self.with(|s| {
            s.require_agent(&tag.agent_id)?;
            // Counted first, as the databases count before they insert: a full agent is `false`.
            let held = s.tags.values().filter(|t| t.agent_id == tag.agent_id).count();
            if held >= max_per_agent as usize {
                return Ok(false);
            }
            if s.tags.contains_key(&tag.id) {
                return Err(conflict(format!("tag {} already stored", tag.id)));
            }
            s.check_tag_name(&tag.agent_id, &tag.name, &tag.id)?;
            s.check_events(events)?;
            s.tags.insert(tag.id.clone(), tag.clone());
            s.emit_all(events);
            Ok(true)
        })
    }

    async fn update(&self, tag: &Tag, events: &[Event]) -> StoreResult<bool> {
        self.with(|s| {
            if s.tag_of(&tag.agent_id, &tag.id).is_none() {
                return Ok(false);
            }
            s.check_tag_name(&tag.agent_id, &tag.name, &tag.id)?;
            s.check_events(events)?;
            let Some(stored) = s.tags.get_mut(&tag.id) else { return Ok(false) };
            stored.name = tag.name.clone();
            stored.color = tag.color.clone();
            stored.description = tag.description.clone();
            stored.updated_at = tag.updated_at;
            s.emit_all(events);
            Ok(true)
        })
    }

    async fn delete(&self, agent: &AgentId, id: &TagId, events: &[Event]) -> StoreResult<bool> {
        self.with(|s| {
            if s.tag_of(agent, id).is_none() {
                return Ok(false);
            }
            s.check_events(events)?;
            s.tags.remove(id);
            // Detached everywhere; the activities' `updated_at` stays (as on the databases).
            for stored in s.activities.values_mut() {
                stored.tags.remove(id);
            }
            s.emit_all(events);
            Ok(true)
        })
    }
}
