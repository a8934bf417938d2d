//! Whether a rule's conditions hold for one event: the facts the event gives (its message's
//! text, the conversation, the contact's attributes, the business hours at the time) and each
//! condition's comparison with them.
//!
//! Ids and closed sets (`channel_type`, `status`, `assigned_to`, `tag`, `business_hours`)
//! compare exactly. Text (`text`, `contact.<attribute>`) compares ignoring case and the
//! whitespace around it, as a person reading the rule means it. A fact that is missing (no
//! text, no such attribute, nobody assigned) equals nothing, is in no list, contains nothing,
//! and so satisfies `not_equals`, `not_in` and `exists: false`.

use crate::model::{ActivityStatus, Assignee, ChannelType, CustomAttributes, TagId};

use super::rule::{Condition, ConditionField, ConditionOp, ConditionValue, Rule};

/// What the event tells by itself, known before anything is read: rules ruled out by these
/// alone cost no read of the conversation or the contact.
#[derive(Debug, Clone, Copy)]
pub struct EventFacts<'a> {
    /// The message's text (`message.received`); `None` for other events or a message without
    /// text.
    pub text: Option<&'a str>,
    /// Whether the agent's business hours are open at the event.
    pub business_hours_open: bool,
}

/// What a rule's conditions look at, gathered for one event.
#[derive(Debug, Clone, Copy)]
pub struct RuleFacts<'a> {
    /// The event's own facts.
    pub event: EventFacts<'a>,
    /// The channel the conversation is on.
    pub channel_type: ChannelType,
    /// The conversation's status.
    pub status: ActivityStatus,
    /// Whom the conversation is assigned to.
    pub assigned_to: Option<&'a Assignee>,
    /// The tags the conversation carries.
    pub tags: &'a [TagId],
    /// The contact's custom attributes.
    pub contact: &'a CustomAttributes,
}

/// A fact as the comparisons see it: absent, one value, or a set of values (tags).
enum Fact {
    Missing,
    One(String),
    Many(Vec<String>),
}

impl Fact {
    fn any(&self, test: impl Fn(&str) -> bool) -> bool {
        match self {
            Fact::Missing => false,
            Fact::One(value) => test(value),
            Fact::Many(values) => values.iter().any(|v| test(v)),
        }
    }
}

/// Text folded for comparison: trimmed and lowercased.
fn fold(text: &str) -> String {
    text.trim().to_lowercase()
}

impl Condition {
    /// The fact the event alone tells (the text, the hours); `None` for a fact of the
    /// conversation or the contact.
    fn event_fact(&self, event: EventFacts<'_>) -> Option<Fact> {
        match &self.field {
            ConditionField::Text => Some(event.text.filter(|t| !t.trim().is_empty()).map_or(Fact::Missing, |t| Fact::One(fold(t)))),
            ConditionField::BusinessHours => Some(Fact::One(if event.business_hours_open { "open" } else { "closed" }.to_string())),
            _ => None,
        }
    }

    fn fact(&self, facts: &RuleFacts<'_>) -> Fact {
        let one = |value: Option<String>| value.map_or(Fact::Missing, Fact::One);
        match &self.field {
            ConditionField::Text | ConditionField::BusinessHours => self.event_fact(facts.event).unwrap_or(Fact::Missing),
            ConditionField::ChannelType => Fact::One(facts.channel_type.as_str().to_string()),
            ConditionField::Status => Fact::One(facts.status.as_str().to_string()),
            ConditionField::AssignedTo => one(facts.assigned_to.map(|a| a.as_str().to_string())),
            ConditionField::Tag if facts.tags.is_empty() => Fact::Missing,
            ConditionField::Tag => Fact::Many(facts.tags.iter().map(|t| t.as_str().to_string()).collect()),
            ConditionField::Contact(key) => one(facts.contact.as_map().get(key).and_then(|value| match value {
                serde_json::Value::Null => None,
                serde_json::Value::String(s) => Some(fold(s)),
                other => Some(fold(&other.to_string())),
            })),
        }
    }

    /// Whether the condition holds for these facts.
    pub fn holds(&self, facts: &RuleFacts<'_>) -> bool {
        self.compare(&self.fact(facts))
    }

    /// Whether the condition holds for what the event tells; `None` when it looks at the
    /// conversation or the contact.
    fn holds_on_event(&self, event: EventFacts<'_>) -> Option<bool> {
        self.event_fact(event).map(|fact| self.compare(&fact))
    }

    fn compare(&self, fact: &Fact) -> bool {
        let text = matches!(self.field, ConditionField::Text | ConditionField::Contact(_));
        let norm = |value: &str| if text { fold(value) } else { value.to_string() };
        match (&self.op, &self.value) {
            (ConditionOp::Exists, ConditionValue::Flag(set)) => !matches!(fact, Fact::Missing) == *set,
            (ConditionOp::Equals, ConditionValue::One(value)) => fact.any(|f| f == norm(value)),
            (ConditionOp::NotEquals, ConditionValue::One(value)) => !fact.any(|f| f == norm(value)),
            (ConditionOp::Contains, ConditionValue::One(value)) => fact.any(|f| f.contains(&fold(value))),
            (ConditionOp::In, ConditionValue::Many(values)) => values.iter().any(|v| fact.any(|f| f == norm(v))),
            (ConditionOp::NotIn, ConditionValue::Many(values)) => !values.iter().any(|v| fact.any(|f| f == norm(v))),
            // A condition is built only with the value its operator takes (RuleInput::check).
            _ => false,
        }
    }
}

impl Rule {
    /// Whether the rule acts on an event with these facts: enabled, and every condition holds
    /// (none: always).
    pub fn matches(&self, facts: &RuleFacts<'_>) -> bool {
        self.enabled && self.conditions.iter().all(|c| c.holds(facts))
    }

    /// False when the rule cannot act on the event whatever the conversation and the contact
    /// hold: disabled, or a condition on the event's own facts fails. The engine reads the
    /// conversation only for the rules that may match (docs/performance.md, "Rules").
    pub fn may_match(&self, event: EventFacts<'_>) -> bool {
        self.enabled && self.conditions.iter().all(|c| c.holds_on_event(event) != Some(false))
    }
}
