//! `CannedResponseRepository`: a team's saved answers, unique by short code per agent, up to a
//! limit per agent, listed by short code and searched by [`CannedSearch::matches`] itself.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{CannedResponseRepository, StoreResult};

use crate::store::{MemoryStore, State, conflict, page_of};

impl State {
    /// The agent's canned response `id`.
    fn canned_response_of(&self, agent: &AgentId, id: &CannedResponseId) -> Option<&CannedResponse> {
        self.canned_responses.get(id).filter(|c| &c.agent_id == agent)
    }

    /// `Conflict` when another of the agent's responses (not `except`) has `code`.
    fn check_short_code(&self, agent: &AgentId, code: &ShortCode, except: &CannedResponseId) -> StoreResult<()> {
        let taken = self.canned_responses.values().any(|c| &c.agent_id == agent && &c.id != except && &c.short_code == code);
        if taken { Err(conflict(format!("the agent has a canned response /{}", code.as_str()))) } else { Ok(()) }
    }
}

#[async_trait]
impl CannedResponseRepository for MemoryStore {
    async fn list(&self, agent: &AgentId, search: Option<CannedSearch>, page: PageRequest) -> StoreResult<Page<CannedResponse>> {
        let mut matching: Vec<CannedResponse> = self.with(|s| {
            let matches = |c: &&CannedResponse| search.as_ref().is_none_or(|search| search.matches(c));
            s.canned_responses.values().filter(|c| &c.agent_id == agent).filter(matches).cloned().collect()
        });
        matching.sort_by(|x, y| x.short_code.cmp(&y.short_code));
        Ok(page_of(matching, page))
    }

    async fn get(&self, agent: &AgentId, id: &CannedResponseId) -> StoreResult<Option<CannedResponse>> {
        Ok(self.with(|s| s.canned_response_of(agent, id).cloned()))
    }

    async fn insert(&self, response: &CannedResponse, max_per_agent: u32) -> StoreResult<bool> {
        self.with(|s| {
            s.require_agent(&response.agent_id)?;
            let held = s.canned_responses.values().filter(|c| c.agent_id == response.agent_id).count();
            if held >= max_per_agent as usize {
                return Ok(false);
            }
            if s.canned_responses.contains_key(&response.id) {
                return Err(conflict(format!("canned response {} already stored", response.id)));
            }
            s.check_short_code(&response.agent_id, &response.short_code, &response.id)?;
            s.canned_responses.insert(response.id.clone(), response.clone());
            Ok(true)
        })
    }

    async fn update(&self, response: &CannedResponse) -> StoreResult<bool> {
        self.with(|s| {
            if s.canned_response_of(&response.agent_id, &response.id).is_none() {
                return Ok(false);
            }
            s.check_short_code(&response.agent_id, &response.short_code, &response.id)?;
            let Some(stored) = s.canned_responses.get_mut(&response.id) else { return Ok(false) };
            stored.short_code = response.short_code.clone();
            stored.text = response.text.clone();
            stored.updated_at = response.updated_at;
            Ok(true)
        })
    }

    async fn delete(&self, agent: &AgentId, id: &CannedResponseId) -> StoreResult<bool> {
        Ok(self.with(|s| {
            let owned = s.canned_response_of(agent, id).is_some();
            owned && s.canned_responses.remove(id).is_some()
        }))
    }
}
