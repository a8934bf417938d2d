//! The tenant: a business agent that owns every other resource.

use crate::FieldError;
use crate::model::{AgentId, Timestamp, text};

/// An agent's display name: trimmed, 1–128 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentName(String);

impl AgentName {
    /// `raw` trimmed; a `FieldError` on `name` when empty, longer than 128 characters, or holding
    /// a control character other than newline and tab.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        text::bounded("name", raw, 1, 128).map(Self)
    }

    /// The name, trimmed.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A tenant: the business that owns its keys, contacts, lines, catalog and everything else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    /// Its id (`agt_…`).
    pub id: AgentId,
    /// Its display name.
    pub name: AgentName,
    /// When it was created.
    pub created_at: Timestamp,
}
