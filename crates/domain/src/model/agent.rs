//! The tenant: a business agent that owns every other resource.

use super::{AgentId, Timestamp, text};
use crate::FieldError;

/// An agent's display name: trimmed, 1–128 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentName(String);

impl AgentName {
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        text::bounded("name", raw, 1, 128).map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    pub id: AgentId,
    pub name: AgentName,
    pub created_at: Timestamp,
}
