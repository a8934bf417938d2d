//! Automation rules: on an event, when every condition holds, Parley does the actions.
//!
//! A rule is built only from a [`RuleInput`] that passed every check here (shapes, operators,
//! values), each fault named by its path (`conditions[2].op`, `actions[0].tag_ids[1]`). Whether
//! the tags, members, templates and canned responses it names are the agent's own is the
//! service's check, as it needs storage.

use serde::{Deserialize, Serialize};

use crate::FieldError;
use crate::error::Violations;
use crate::model::{ActivityStatus, AgentId, MemberId, RuleId, TagId, TemplateId, Timestamp, ids, text};

/// Rules an agent may have.
pub const MAX_RULES_PER_AGENT: u32 = 100;
/// Conditions a rule may have.
pub const MAX_CONDITIONS: usize = 20;
/// Actions a rule may have.
pub const MAX_ACTIONS: usize = 10;
/// Values an `in` or `not_in` condition may list, and tags an action may name.
pub const MAX_VALUES: usize = 50;
/// Longest value a condition compares with, in characters.
pub const MAX_VALUE_LEN: usize = 1024;
/// Longest text a `reply` or `note` action writes, in characters.
pub const MAX_ACTION_TEXT_LEN: usize = 4096;

/// The event a rule runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleTrigger {
    /// `message.received`: a contact's message was stored.
    MessageReceived,
    /// `activity.created`: a new conversation.
    ActivityCreated,
    /// `activity.updated`: a conversation changed.
    ActivityUpdated,
}

impl RuleTrigger {
    /// Every trigger, as the API names them.
    pub const ALL: [RuleTrigger; 3] = [Self::MessageReceived, Self::ActivityCreated, Self::ActivityUpdated];

    /// The event type's name (`message.received`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::MessageReceived => "message.received",
            Self::ActivityCreated => "activity.created",
            Self::ActivityUpdated => "activity.updated",
        }
    }

    /// The trigger an event type names; `None` for any other text.
    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == raw)
    }

    /// The trigger of events of this type; `None` for the types rules do not run on.
    pub fn of_type(event_type: crate::model::EventType) -> Option<Self> {
        Self::parse(event_type.as_str())
    }

    /// The rules `event` runs: those of its type's trigger, unless a rule made the change.
    pub fn of_event(event: &crate::model::Event) -> Option<Self> {
        event.origin.runs_rules().then(|| Self::of_type(event.event_type)).flatten()
    }
}

/// What a condition looks at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConditionField {
    /// The message's text (a `message.received` rule's; empty for other events).
    Text,
    /// The channel the conversation is on: `whatsapp`, `instagram`, `email`.
    ChannelType,
    /// The conversation's status.
    Status,
    /// The member the conversation is assigned to (a member id).
    AssignedTo,
    /// A tag the conversation carries (a tag id).
    Tag,
    /// One of the contact's custom attributes, by key (`contact.plan`).
    Contact(String),
    /// Whether the agent's business hours are `open` or `closed` at the event.
    BusinessHours,
}

impl ConditionField {
    /// The field as the API names it.
    pub fn name(&self) -> String {
        match self {
            Self::Text => "text".into(),
            Self::ChannelType => "channel_type".into(),
            Self::Status => "status".into(),
            Self::AssignedTo => "assigned_to".into(),
            Self::Tag => "tag".into(),
            Self::Contact(key) => format!("contact.{key}"),
            Self::BusinessHours => "business_hours".into(),
        }
    }

    fn parse(raw: &str) -> Option<Self> {
        Some(match raw {
            "text" => Self::Text,
            "channel_type" => Self::ChannelType,
            "status" => Self::Status,
            "assigned_to" => Self::AssignedTo,
            "tag" => Self::Tag,
            "business_hours" => Self::BusinessHours,
            _ => {
                let key = raw.strip_prefix("contact.")?;
                let valid = !key.trim().is_empty() && key.chars().count() <= 128 && !ids::has_control_characters(key);
                return valid.then(|| Self::Contact(key.to_string()));
            }
        })
    }

    /// The values this field can hold, when it is a closed set.
    fn allowed(&self) -> Option<&'static [&'static str]> {
        match self {
            Self::ChannelType => Some(&["whatsapp", "instagram", "email"]),
            Self::Status => Some(&["open", "pending", "closed"]),
            Self::BusinessHours => Some(&["open", "closed"]),
            _ => None,
        }
    }
}

/// How a condition compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConditionOp {
    /// The field is the value.
    Equals,
    /// The field is not the value.
    NotEquals,
    /// The field holds the value, ignoring case (text fields only).
    Contains,
    /// The field is one of the values.
    In,
    /// The field is none of the values.
    NotIn,
    /// The field is set (`true`) or not (`false`).
    Exists,
}

impl ConditionOp {
    const ALL: [ConditionOp; 6] = [Self::Equals, Self::NotEquals, Self::Contains, Self::In, Self::NotIn, Self::Exists];

    /// The operator as the API names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Equals => "equals",
            Self::NotEquals => "not_equals",
            Self::Contains => "contains",
            Self::In => "in",
            Self::NotIn => "not_in",
            Self::Exists => "exists",
        }
    }

    fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|op| op.as_str() == raw)
    }
}

/// What a condition compares with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConditionValue {
    /// `equals`, `not_equals`, `contains`.
    One(String),
    /// `in`, `not_in`.
    Many(Vec<String>),
    /// `exists`.
    Flag(bool),
}

/// One condition: all of a rule's must hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    /// What it looks at.
    pub field: ConditionField,
    /// How it compares.
    pub op: ConditionOp,
    /// With what.
    pub value: ConditionValue,
}

/// Whom an `assign` action gives the conversation to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AssignTarget {
    /// This member.
    Member(MemberId),
    /// The enabled member with the fewest open conversations.
    RoundRobin,
}

/// What a `reply` action sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyText {
    /// This text.
    Text(String),
    /// The agent's canned response with this short code, as it reads when the rule runs.
    Canned(String),
}

/// One action, done in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleAction {
    /// Assigns the conversation.
    Assign(AssignTarget),
    /// Attaches these tags.
    AddTags(Vec<TagId>),
    /// Detaches these tags.
    RemoveTags(Vec<TagId>),
    /// Sets the conversation's status.
    SetStatus(ActivityStatus),
    /// Replies to the contact (inside the platform's window).
    Reply(ReplyText),
    /// Sends a template (outside the window too): its id and the components of the send.
    SendTemplate {
        /// The agent's template.
        template_id: TemplateId,
        /// The send's components, as `POST /v1/template_sends` takes them.
        components: Option<serde_json::Value>,
    },
    /// Leaves a note for the team.
    Note(String),
}

impl RuleAction {
    /// The action's `type` as the API names it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Assign(_) => "assign",
            Self::AddTags(_) => "add_tags",
            Self::RemoveTags(_) => "remove_tags",
            Self::SetStatus(_) => "set_status",
            Self::Reply(_) => "reply",
            Self::SendTemplate { .. } => "send_template",
            Self::Note(_) => "note",
        }
    }
}

/// A rule's name: trimmed, 1–128 characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RuleName(String);

impl RuleName {
    /// `raw` trimmed; a `FieldError` on `name` when empty, longer than 128 characters or
    /// holding a control character.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        if ids::has_control_characters(raw) {
            return Err(FieldError::new("name", "must not contain control characters"));
        }
        text::bounded("name", raw, 1, 128).map(Self)
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An automation rule of an agent.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// `rul_…`.
    pub id: RuleId,
    /// Whose rule it is.
    pub agent_id: AgentId,
    /// What the team calls it.
    pub name: RuleName,
    /// Whether it runs.
    pub enabled: bool,
    /// The event it runs on.
    pub on: RuleTrigger,
    /// All must hold (none: always).
    pub conditions: Vec<Condition>,
    /// Done in order; at least one.
    pub actions: Vec<RuleAction>,
    /// When it was made.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// A value as a caller sent it: text, a list of texts, a flag, or anything else (refused).
#[derive(Debug, Clone, PartialEq)]
pub enum InputValue {
    /// A string.
    Text(String),
    /// An array of strings.
    List(Vec<String>),
    /// A boolean.
    Flag(bool),
    /// A number, an object, an array holding anything but strings.
    Other,
}

/// A condition as sent: each part optional, so each fault can be named.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuleConditionInput {
    /// `field`.
    pub field: Option<String>,
    /// `op`.
    pub op: Option<String>,
    /// `value`.
    pub value: Option<InputValue>,
    /// Keys the caller sent that a condition does not have.
    pub unknown: Vec<String>,
}

/// An action as sent: its `type` and every parameter any action takes, each optional, so a
/// parameter that does not belong to the type can be named.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuleActionInput {
    /// `type`.
    pub kind: Option<String>,
    /// `to` (assign): a member id or `round_robin`.
    pub to: Option<InputValue>,
    /// `tag_ids` (add_tags, remove_tags).
    pub tag_ids: Option<InputValue>,
    /// `status` (set_status).
    pub status: Option<InputValue>,
    /// `text` (reply, note).
    pub text: Option<InputValue>,
    /// `canned` (reply): a canned response's short code.
    pub canned: Option<InputValue>,
    /// `template_id` (send_template).
    pub template_id: Option<InputValue>,
    /// `components` (send_template), passed on to the send as is.
    pub components: Option<serde_json::Value>,
    /// Keys the caller sent that no action has.
    pub unknown: Vec<String>,
}

/// A rule as sent to create it (every field) or to change it (any field; conditions and actions
/// are replaced whole).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuleInput {
    /// `name`.
    pub name: Option<String>,
    /// `enabled` (true when a new rule leaves it out).
    pub enabled: Option<bool>,
    /// `on`: the event.
    pub on: Option<String>,
    /// `conditions` (none when a new rule leaves them out).
    pub conditions: Option<Vec<RuleConditionInput>>,
    /// `actions`.
    pub actions: Option<Vec<RuleActionInput>>,
}

/// The parts of a rule an input sets, each checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckedRule {
    /// The name, when sent.
    pub name: Option<RuleName>,
    /// `enabled`, when sent.
    pub enabled: Option<bool>,
    /// The event, when sent.
    pub on: Option<RuleTrigger>,
    /// The conditions, when sent.
    pub conditions: Option<Vec<Condition>>,
    /// The actions, when sent.
    pub actions: Option<Vec<RuleAction>>,
}

impl RuleInput {
    /// Checks every part sent, naming every fault; `required` asks for `name`, `on` and
    /// `actions` (a new rule).
    pub fn check(self, required: bool) -> Result<CheckedRule, crate::DomainError> {
        let mut v = Violations::default();
        let mut missing = |field: &str| v.push(FieldError::new(field, "is required"));
        if required {
            if self.name.is_none() {
                missing("name");
            }
            if self.on.is_none() {
                missing("on");
            }
            if self.actions.is_none() {
                missing("actions");
            }
        }
        let name = self.name.and_then(|n| v.check(RuleName::new(&n)));
        let on = self.on.and_then(|on| {
            let events = RuleTrigger::ALL.map(RuleTrigger::as_str).join(", ");
            v.check(RuleTrigger::parse(&on).ok_or_else(|| FieldError::new("on", format!("must be one of {events}"))))
        });
        let conditions = self.conditions.and_then(|list| {
            if list.len() > MAX_CONDITIONS {
                v.push(FieldError::new("conditions", format!("must hold at most {MAX_CONDITIONS} conditions")));
                return None;
            }
            let checked: Vec<_> = list.into_iter().enumerate().map(|(i, c)| v.check_all(c.check(&format!("conditions[{i}]")))).collect();
            checked.into_iter().collect::<Option<Vec<_>>>()
        });
        let actions = self.actions.and_then(|list| {
            if list.is_empty() || list.len() > MAX_ACTIONS {
                v.push(FieldError::new("actions", format!("must hold 1 to {MAX_ACTIONS} actions")));
                return None;
            }
            let checked: Vec<_> = list.into_iter().enumerate().map(|(i, a)| v.check_all(a.check(&format!("actions[{i}]")))).collect();
            checked.into_iter().collect::<Option<Vec<_>>>()
        });
        v.finish()?;
        Ok(CheckedRule { name, enabled: self.enabled, on, conditions, actions })
    }
}

fn unknown_keys(path: &str, unknown: &[String]) -> Vec<FieldError> {
    unknown.iter().map(|key| FieldError::new(format!("{path}.{key}"), "is not a known field")).collect()
}

/// A text value of 1–[`MAX_VALUE_LEN`] characters without control characters.
fn value_text(field: &str, raw: &str) -> Result<String, FieldError> {
    if ids::has_control_characters(raw) {
        return Err(FieldError::new(field, "must not contain control characters"));
    }
    if raw.is_empty() || raw.chars().count() > MAX_VALUE_LEN {
        return Err(FieldError::new(field, format!("must be 1 to {MAX_VALUE_LEN} characters")));
    }
    Ok(raw.to_string())
}

impl RuleConditionInput {
    fn check(self, path: &str) -> Result<Condition, Vec<FieldError>> {
        let mut errors = unknown_keys(path, &self.unknown);
        let field = match self.field.as_deref().map(|f| (f, ConditionField::parse(f))) {
            None => {
                errors.push(FieldError::new(format!("{path}.field"), "is required"));
                None
            }
            Some((_, Some(field))) => Some(field),
            Some((raw, None)) => {
                let issue =
                    format!("{raw:?} is not a field: text, channel_type, status, assigned_to, tag, business_hours or contact.<attribute>");
                errors.push(FieldError::new(format!("{path}.field"), issue));
                None
            }
        };
        let op = match self.op.as_deref().map(|o| (o, ConditionOp::parse(o))) {
            None => {
                errors.push(FieldError::new(format!("{path}.op"), "is required"));
                None
            }
            Some((_, Some(op))) => Some(op),
            Some((raw, None)) => {
                let ops = ConditionOp::ALL.map(ConditionOp::as_str).join(", ");
                errors.push(FieldError::new(format!("{path}.op"), format!("{raw:?} is not an operator: {ops}")));
                None
            }
        };
        let (Some(field), Some(op)) = (field, op) else {
            return Err(errors);
        };
        let value_path = format!("{path}.value");
        let text_only = matches!(field, ConditionField::Text | ConditionField::Contact(_));
        if op == ConditionOp::Contains && !text_only {
            errors.push(FieldError::new(
                format!("{path}.op"),
                format!("contains compares text: {} takes equals, in or exists", field.name()),
            ));
        }
        if op == ConditionOp::Exists && field.allowed().is_some() {
            errors.push(FieldError::new(format!("{path}.op"), format!("{} is always set", field.name())));
        }
        let in_set = |raw: &str, at: &str| -> Result<String, FieldError> {
            let value = value_text(at, raw)?;
            match field.allowed() {
                Some(allowed) if !allowed.contains(&value.as_str()) => {
                    Err(FieldError::new(at, format!("{} is one of {}", field.name(), allowed.join(", "))))
                }
                _ => Ok(value),
            }
        };
        let value = match (op, self.value) {
            (ConditionOp::Exists, None) => Ok(ConditionValue::Flag(true)),
            (ConditionOp::Exists, Some(InputValue::Flag(set))) => Ok(ConditionValue::Flag(set)),
            (ConditionOp::Exists, Some(_)) => Err(FieldError::new(&value_path, "exists takes true, false or no value")),
            (ConditionOp::In | ConditionOp::NotIn, Some(InputValue::List(values))) => {
                if values.is_empty() || values.len() > MAX_VALUES {
                    Err(FieldError::new(&value_path, format!("must list 1 to {MAX_VALUES} values")))
                } else {
                    let checked: Vec<_> = values.iter().enumerate().map(|(i, raw)| in_set(raw, &format!("{value_path}[{i}]"))).collect();
                    let faults: Vec<_> = checked.iter().filter_map(|c| c.as_ref().err().cloned()).collect();
                    errors.extend(faults);
                    Ok(ConditionValue::Many(checked.into_iter().filter_map(Result::ok).collect()))
                }
            }
            (ConditionOp::In | ConditionOp::NotIn, _) => Err(FieldError::new(&value_path, "must be a list of texts")),
            (_, Some(InputValue::Text(raw))) => in_set(&raw, &value_path).map(ConditionValue::One),
            (_, None) => Err(FieldError::new(&value_path, "is required")),
            (_, Some(_)) => Err(FieldError::new(&value_path, "must be a text")),
        };
        match value {
            Ok(value) if errors.is_empty() => Ok(Condition { field, op, value }),
            Ok(_) => Err(errors),
            Err(e) => {
                errors.push(e);
                Err(errors)
            }
        }
    }
}

/// The action types, as the API names them.
const ACTION_TYPES: [&str; 7] = ["assign", "add_tags", "remove_tags", "set_status", "reply", "send_template", "note"];

impl RuleActionInput {
    fn check(self, path: &str) -> Result<RuleAction, Vec<FieldError>> {
        let mut errors = unknown_keys(path, &self.unknown);
        let Some(kind) = self.kind.clone() else {
            errors.push(FieldError::new(format!("{path}.type"), "is required"));
            return Err(errors);
        };
        if !ACTION_TYPES.contains(&kind.as_str()) {
            errors.push(FieldError::new(format!("{path}.type"), format!("{kind:?} is not an action: {}", ACTION_TYPES.join(", "))));
            return Err(errors);
        }
        let takes: &[&str] = match kind.as_str() {
            "assign" => &["to"],
            "add_tags" | "remove_tags" => &["tag_ids"],
            "set_status" => &["status"],
            "reply" => &["text", "canned"],
            "send_template" => &["template_id", "components"],
            _ => &["text"],
        };
        let sent = [
            ("to", self.to.is_some()),
            ("tag_ids", self.tag_ids.is_some()),
            ("status", self.status.is_some()),
            ("text", self.text.is_some()),
            ("canned", self.canned.is_some()),
            ("template_id", self.template_id.is_some()),
            ("components", self.components.is_some()),
        ];
        for (param, _) in sent.iter().filter(|(param, present)| *present && !takes.contains(param)) {
            errors.push(FieldError::new(format!("{path}.{param}"), format!("is not a parameter of {kind}")));
        }
        let at = |param: &str| format!("{path}.{param}");
        let text_of = |value: Option<InputValue>, param: &str, max: usize| -> Result<String, FieldError> {
            match value {
                None => Err(FieldError::new(at(param), "is required")),
                Some(InputValue::Text(raw)) => text::bounded(&at(param), &raw, 1, max),
                Some(_) => Err(FieldError::new(at(param), "must be a text")),
            }
        };
        let action = match kind.as_str() {
            "assign" => text_of(self.to, "to", 64).and_then(|to| match to.as_str() {
                "round_robin" => Ok(RuleAction::Assign(AssignTarget::RoundRobin)),
                id if id.starts_with("usr_") && !ids::has_control_characters(id) => {
                    Ok(RuleAction::Assign(AssignTarget::Member(MemberId::new(id))))
                }
                _ => Err(FieldError::new(at("to"), "must be a member id (usr_…) or round_robin")),
            }),
            "add_tags" | "remove_tags" => match self.tag_ids {
                Some(InputValue::List(list)) if !list.is_empty() && list.len() <= MAX_VALUES => {
                    let mut tags = Vec::new();
                    for (i, raw) in list.into_iter().enumerate() {
                        match ids::ReceivedId::field(&format!("{path}.tag_ids[{i}]"), raw) {
                            Ok(tag) => tags.push(tag),
                            Err(e) => errors.push(e),
                        }
                    }
                    Ok(if kind == "add_tags" { RuleAction::AddTags(tags) } else { RuleAction::RemoveTags(tags) })
                }
                None => Err(FieldError::new(at("tag_ids"), "is required")),
                Some(_) => Err(FieldError::new(at("tag_ids"), format!("must list 1 to {MAX_VALUES} tag ids"))),
            },
            "set_status" => text_of(self.status, "status", 16).and_then(|s| {
                ActivityStatus::parse(&s)
                    .map(RuleAction::SetStatus)
                    .map_err(|_| FieldError::new(at("status"), "must be one of open, pending, closed"))
            }),
            "reply" => match (self.text.is_some(), self.canned.is_some()) {
                (true, true) | (false, false) => Err(FieldError::new(at("text"), "a reply takes either text or canned")),
                (true, false) => text_of(self.text, "text", MAX_ACTION_TEXT_LEN).map(|t| RuleAction::Reply(ReplyText::Text(t))),
                (false, true) => text_of(self.canned, "canned", 32)
                    .and_then(|code| crate::model::ShortCode::new(&code).map_err(|e| FieldError::new(at("canned"), e.issue)))
                    .map(|code| RuleAction::Reply(ReplyText::Canned(code.as_str().to_string()))),
            },
            "send_template" => {
                let components = match self.components {
                    None | Some(serde_json::Value::Array(_)) => Ok(self.components),
                    Some(_) => Err(FieldError::new(at("components"), "must be a list")),
                };
                text_of(self.template_id, "template_id", 128).and_then(|id| {
                    ids::ReceivedId::field(&at("template_id"), id)
                        .and_then(|template_id| components.map(|components| RuleAction::SendTemplate { template_id, components }))
                })
            }
            _ => text_of(self.text, "text", MAX_ACTION_TEXT_LEN).map(RuleAction::Note),
        };
        match action {
            Ok(action) if errors.is_empty() => Ok(action),
            Ok(_) => Err(errors),
            Err(e) => {
                errors.push(e);
                Err(errors)
            }
        }
    }
}

/// A rule's conditions and actions as storage keeps them: one JSON document in the domain's own
/// serde form, versioned so a later form can be read beside this one.
#[derive(Serialize, Deserialize)]
struct StoredBody {
    v: u32,
    conditions: Vec<Condition>,
    actions: Vec<RuleAction>,
}

impl Rule {
    /// The conditions and actions as one stored document (`{"v":1,…}`).
    pub fn body_document(&self) -> String {
        let body = StoredBody { v: 1, conditions: self.conditions.clone(), actions: self.actions.clone() };
        serde_json::to_string(&body).expect("a rule's body always serializes")
    }

    /// Conditions and actions read back from [`body_document`](Self::body_document); a
    /// `FieldError` naming `document` when it is not one.
    pub fn body_from_document(document: &str) -> Result<(Vec<Condition>, Vec<RuleAction>), FieldError> {
        let body: StoredBody = serde_json::from_str(document).map_err(|e| FieldError::new("document", e.to_string()))?;
        if body.v != 1 {
            return Err(FieldError::new("document", format!("version {} is unknown", body.v)));
        }
        Ok((body.conditions, body.actions))
    }
}
