use std::sync::Arc;

use crate::DomainError;
use crate::model::*;
use crate::ports::{BusinessHoursRepository, Clock};

/// An agent's business hours: read, replaced whole, removed (then always open).
pub struct BusinessHoursService {
    hours: Arc<dyn BusinessHoursRepository>,
    clock: Arc<dyn Clock>,
}

impl BusinessHoursService {
    /// A service over these ports.
    pub fn new(hours: Arc<dyn BusinessHoursRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { hours, clock }
    }

    /// The agent's hours, `None` when it has set none (always open).
    pub async fn get(&self, agent: &AgentId) -> Result<Option<BusinessHours>, DomainError> {
        Ok(self.hours.get(agent).await?)
    }

    /// Replaces the agent's hours with `input`, checked whole first: nothing is written when
    /// any field is refused.
    pub async fn set(&self, agent: &AgentId, input: BusinessHoursInput) -> Result<BusinessHours, DomainError> {
        let hours = BusinessHours::new(input).map_err(DomainError::Validation)?;
        self.hours.put(agent, Some(&hours), self.clock.now()).await?;
        Ok(hours)
    }

    /// Removes the agent's hours: it is always open again.
    pub async fn clear(&self, agent: &AgentId) -> Result<(), DomainError> {
        Ok(self.hours.put(agent, None, self.clock.now()).await?)
    }
}
