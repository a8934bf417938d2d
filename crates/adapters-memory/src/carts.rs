//! `CartRepository`: carts, snapshots of products under a code unique across agents.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{CartRepository, StoreResult};

use crate::store::{MemoryStore, conflict};

#[async_trait]
impl CartRepository for MemoryStore {
    async fn insert(&self, cart: &Cart, events: &[Event]) -> StoreResult<()> {
        self.with(|s| {
            s.require_agent(&cart.agent_id)?;
            if s.carts.contains_key(cart.code.as_str()) {
                return Err(conflict(format!("cart code {} is taken", cart.code.as_str())));
            }
            s.check_events(events)?;
            s.carts.insert(cart.code.as_str().to_string(), cart.clone());
            s.emit_all(events);
            Ok(())
        })
    }

    async fn get(&self, agent: &AgentId, code: &CartCode) -> StoreResult<Option<Cart>> {
        Ok(self.with(|s| s.carts.get(code.as_str()).filter(|c| &c.agent_id == agent).cloned()))
    }
}
