//! Round robin as a rule's `assign` action uses it: reads the members' loads, picks the next
//! in turn ([`next_in_turn`]) and moves that member's turn to the back.

use std::sync::Arc;

use crate::DomainError;
use crate::model::{AgentId, MemberId, next_in_turn};
use crate::ports::{Clock, RoutingRepository};

/// Who takes the next conversation of an agent.
pub struct RoundRobin {
    routing: Arc<dyn RoutingRepository>,
    clock: Arc<dyn Clock>,
}

impl RoundRobin {
    /// Round robin over the members' loads in `routing`.
    pub fn new(routing: Arc<dyn RoutingRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { routing, clock }
    }

    /// The member next in turn, whose turn then moves to the back; `None` when every member is
    /// at their `max_open` or the agent has none. Two engines choosing at the same moment may
    /// both choose the same member: a load off by one, never a lost conversation.
    pub async fn next(&self, agent: &AgentId) -> Result<Option<MemberId>, DomainError> {
        let loads = self.routing.loads(agent).await?;
        let Some(member) = next_in_turn(&loads).cloned() else { return Ok(None) };
        self.routing.mark_assigned(agent, &member, self.clock.now()).await?;
        Ok(Some(member))
    }
}
