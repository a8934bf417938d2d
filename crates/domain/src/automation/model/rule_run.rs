//! A rule's runs: one per (rule, event) at most, claimed before the actions so that however
//! many workers see an event, each matching rule acts on it once.

use crate::model::{AgentId, EventId, Timestamp};

use crate::model::RuleId;

/// How a run ended, or that it has not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOutcome {
    /// Claimed, its actions under way (or its worker stopped before it could say).
    Running,
    /// Every action done.
    Ok,
    /// An action could not be done; the run says why.
    Failed,
}

impl RunOutcome {
    /// The outcome as the API names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Ok => "ok",
            Self::Failed => "failed",
        }
    }

    /// The outcome a stored name names.
    pub fn parse(raw: &str) -> Option<Self> {
        [Self::Running, Self::Ok, Self::Failed].into_iter().find(|o| o.as_str() == raw)
    }
}

/// One run of a rule on one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleRun {
    /// The rule.
    pub rule_id: RuleId,
    /// Whose rule.
    pub agent_id: AgentId,
    /// The event it ran on.
    pub event_id: EventId,
    /// How it ended.
    pub outcome: RunOutcome,
    /// Why it failed (`None` unless it did).
    pub error: Option<String>,
    /// When it was claimed.
    pub created_at: Timestamp,
}
