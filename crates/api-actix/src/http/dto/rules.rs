//! Automation rules' DTOs. A rule's conditions and actions are read as loose JSON so that every
//! fault (an unknown key, a text where a list belongs) is named by its path in one answer, as
//! the domain's checks name them, rather than the first one serde meets.

use std::collections::BTreeMap;

use parley_domain::model::{
    AssignTarget, Condition, ConditionValue, InputValue, ReplyText, Rule, RuleAction, RuleActionInput, RuleConditionInput, RuleInput,
    RuleRun,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::timestamp;

/// What a condition compares with: a text, a list of texts (`in`, `not_in`), or true or false
/// (`exists`). Only the document's description of `value`: it is read as loose JSON.
#[derive(ToSchema)]
#[serde(untagged)]
pub enum ConditionValueShape {
    Text(String),
    List(Vec<String>),
    Flag(bool),
}

/// One condition: `field` (`text`, `channel_type`, `status`, `assigned_to`, `tag`,
/// `business_hours` or `contact.<attribute>`), `op` (`equals`, `not_equals`, `contains`, `in`,
/// `not_in`, `exists`) and `value` (a text; a list of texts for `in` and `not_in`; true or
/// false, or nothing, for `exists`).
#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct ConditionBody {
    #[schema(value_type = String, example = "text")]
    pub field: Option<Value>,
    #[schema(value_type = String, example = "contains")]
    pub op: Option<Value>,
    #[schema(value_type = ConditionValueShape, example = "refund")]
    pub value: Option<Value>,
    #[serde(flatten)]
    #[schema(ignore)]
    pub unknown: BTreeMap<String, Value>,
}

/// One action, by `type`: `assign` (`to`: a member id or `round_robin`), `add_tags` and
/// `remove_tags` (`tag_ids`), `set_status` (`status`), `reply` (`text`, or `canned`: a short
/// code), `send_template` (`template_id`, `components` as a template send takes them), `note`
/// (`text`).
#[derive(Debug, Deserialize, Serialize, ToSchema)]
pub struct ActionBody {
    #[serde(rename = "type")]
    #[schema(value_type = String, example = "add_tags")]
    pub kind: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "round_robin")]
    pub to: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<String>>)]
    pub tag_ids: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "pending")]
    pub status: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub text: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "thanks")]
    pub canned: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub template_id: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Object>>)]
    pub components: Option<Value>,
    #[serde(flatten)]
    #[schema(ignore)]
    pub unknown: BTreeMap<String, Value>,
}

/// A rule to create (`name`, `on` and `actions` required) or the fields of one to change
/// (conditions and actions replaced whole).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleBody {
    /// 1–128 characters.
    #[schema(min_length = 1, max_length = 128, example = "Refund questions")]
    pub name: Option<String>,
    /// Whether the rule runs (a new rule: true unless false).
    pub enabled: Option<bool>,
    /// The event it runs on: `message.received`, `activity.created` or `activity.updated`.
    #[schema(example = "message.received")]
    pub on: Option<String>,
    /// All must hold; at most 20.
    #[schema(max_items = 20)]
    pub conditions: Option<Vec<ConditionBody>>,
    /// Done in order; 1–10.
    #[schema(min_items = 1, max_items = 10)]
    pub actions: Option<Vec<ActionBody>>,
}

/// A loose JSON value as the domain's checks take it.
fn input(value: Value) -> InputValue {
    match value {
        Value::String(s) => InputValue::Text(s),
        Value::Bool(b) => InputValue::Flag(b),
        Value::Array(items) if items.iter().all(Value::is_string) => {
            InputValue::List(items.into_iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        }
        _ => InputValue::Other,
    }
}

/// A name the caller sent, as text: a string as is, anything else as its JSON (so the answer
/// says what was sent).
fn name(value: Option<Value>) -> Option<String> {
    value.map(|v| match v {
        Value::String(s) => s,
        other => other.to_string(),
    })
}

impl From<RuleBody> for RuleInput {
    fn from(b: RuleBody) -> Self {
        let conditions = b.conditions.map(|list| {
            list.into_iter()
                .map(|c| RuleConditionInput {
                    field: name(c.field),
                    op: name(c.op),
                    value: c.value.map(input),
                    unknown: c.unknown.into_keys().collect(),
                })
                .collect()
        });
        let actions = b.actions.map(|list| {
            list.into_iter()
                .map(|a| RuleActionInput {
                    kind: name(a.kind),
                    to: a.to.map(input),
                    tag_ids: a.tag_ids.map(input),
                    status: a.status.map(input),
                    text: a.text.map(input),
                    canned: a.canned.map(input),
                    template_id: a.template_id.map(input),
                    components: a.components,
                    unknown: a.unknown.into_keys().collect(),
                })
                .collect()
        });
        Self { name: b.name, enabled: b.enabled, on: b.on, conditions, actions }
    }
}

/// An automation rule.
#[derive(Debug, Serialize, ToSchema)]
pub struct RuleDto {
    #[schema(example = "rul_3fQk8ZpW1xYc0LmN5tRv2BsD")]
    pub id: String,
    pub name: String,
    pub enabled: bool,
    #[schema(example = "message.received")]
    pub on: String,
    pub conditions: Vec<ConditionBody>,
    pub actions: Vec<ActionBody>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

fn condition(c: Condition) -> ConditionBody {
    let value = match c.value {
        ConditionValue::One(v) => Value::String(v),
        ConditionValue::Many(values) => Value::from(values),
        ConditionValue::Flag(set) => Value::Bool(set),
    };
    let field = Value::String(c.field.name());
    ConditionBody { field: Some(field), op: Some(c.op.as_str().into()), value: Some(value), unknown: BTreeMap::new() }
}

fn action(a: RuleAction) -> ActionBody {
    let mut body = ActionBody {
        kind: Some(a.type_name().into()),
        to: None,
        tag_ids: None,
        status: None,
        text: None,
        canned: None,
        template_id: None,
        components: None,
        unknown: BTreeMap::new(),
    };
    match a {
        RuleAction::Assign(AssignTarget::RoundRobin) => body.to = Some("round_robin".into()),
        RuleAction::Assign(AssignTarget::Member(member)) => body.to = Some(member.into_string().into()),
        RuleAction::AddTags(tags) | RuleAction::RemoveTags(tags) => {
            body.tag_ids = Some(Value::from(tags.into_iter().map(|t| t.into_string()).collect::<Vec<_>>()));
        }
        RuleAction::SetStatus(status) => body.status = Some(status.as_str().into()),
        RuleAction::Reply(ReplyText::Text(text)) | RuleAction::Note(text) => body.text = Some(text.into()),
        RuleAction::Reply(ReplyText::Canned(code)) => body.canned = Some(code.into()),
        RuleAction::SendTemplate { template_id, components } => {
            body.template_id = Some(template_id.as_str().into());
            body.components = components;
        }
    }
    body
}

impl From<Rule> for RuleDto {
    fn from(r: Rule) -> Self {
        Self {
            id: r.id.as_str().to_string(),
            name: r.name.as_str().to_string(),
            enabled: r.enabled,
            on: r.on.as_str().to_string(),
            conditions: r.conditions.into_iter().map(condition).collect(),
            actions: r.actions.into_iter().map(action).collect(),
            created_at: timestamp(r.created_at),
            updated_at: timestamp(r.updated_at),
        }
    }
}

/// One run of a rule on one event.
#[derive(Debug, Serialize, ToSchema)]
pub struct RuleRunDto {
    /// The event it ran on (`GET /v1/events/{id}`).
    #[schema(example = "evt_3fQk8ZpW1xYc0LmN5tRv2BsD")]
    pub event_id: String,
    /// `ok`, `failed`, or `running` while its actions are under way (a run whose process
    /// stopped before it ended stays `running`: it is never run again).
    #[schema(example = "ok")]
    pub outcome: String,
    /// Why it failed; null otherwise.
    pub error: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

impl From<RuleRun> for RuleRunDto {
    fn from(r: RuleRun) -> Self {
        Self {
            event_id: r.event_id.into_string(),
            outcome: r.outcome.as_str().to_string(),
            error: r.error,
            created_at: timestamp(r.created_at),
        }
    }
}
