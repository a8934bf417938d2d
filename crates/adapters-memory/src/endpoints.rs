//! `WebhookEndpointRepository`: each agent's webhook endpoints, up to a limit per agent.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{StoreResult, WebhookEndpointRepository};

use crate::store::{MemoryStore, State, StoredEndpoint, conflict, page_of};

impl State {
    /// The agent's webhook endpoint `id`.
    pub(crate) fn endpoint_of(&self, agent: &AgentId, id: &EndpointId) -> Option<&WebhookEndpoint> {
        self.endpoints.get(id).map(|e| &e.endpoint).filter(|e| &e.agent_id == agent)
    }
}

#[async_trait]
impl WebhookEndpointRepository for MemoryStore {
    async fn insert(&self, endpoint: &WebhookEndpoint, max_per_agent: u32) -> StoreResult<bool> {
        self.with(|s| {
            s.require_agent(&endpoint.agent_id)?;
            let held = s.endpoints.values().filter(|e| e.endpoint.agent_id == endpoint.agent_id).count();
            if held >= max_per_agent as usize {
                return Ok(false);
            }
            if s.endpoints.contains_key(&endpoint.id) {
                return Err(conflict(format!("webhook endpoint {} already stored", endpoint.id)));
            }
            s.endpoints.insert(endpoint.id.clone(), StoredEndpoint { endpoint: endpoint.clone(), served_at: None });
            Ok(true)
        })
    }

    async fn get(&self, agent: &AgentId, id: &EndpointId) -> StoreResult<Option<WebhookEndpoint>> {
        Ok(self.with(|s| s.endpoint_of(agent, id).cloned()))
    }

    async fn list(&self, agent: &AgentId, page: PageRequest) -> StoreResult<Page<WebhookEndpoint>> {
        let mut endpoints: Vec<WebhookEndpoint> =
            self.with(|s| s.endpoints.values().map(|e| &e.endpoint).filter(|e| &e.agent_id == agent).cloned().collect());
        endpoints.sort_by(|x, y| (y.created_at, &y.id).cmp(&(x.created_at, &x.id)));
        Ok(page_of(endpoints, page))
    }

    async fn update(&self, endpoint: &WebhookEndpoint) -> StoreResult<bool> {
        Ok(self.with(|s| {
            let Some(stored) = s.endpoints.get_mut(&endpoint.id).filter(|e| e.endpoint.agent_id == endpoint.agent_id) else {
                return false;
            };
            // Everything but the keys and the creation time.
            stored.endpoint = WebhookEndpoint { created_at: stored.endpoint.created_at, ..endpoint.clone() };
            true
        }))
    }

    async fn delete(&self, agent: &AgentId, id: &EndpointId) -> StoreResult<bool> {
        Ok(self.with(|s| {
            if s.endpoint_of(agent, id).is_none() {
                return false;
            }
            s.endpoints.remove(id);
            // With its deliveries and their attempts.
            s.deliveries.retain(|(_, endpoint), _| endpoint != id);
            s.attempts.retain(|a| &a.endpoint_id != id);
            true
        }))
    }
}
