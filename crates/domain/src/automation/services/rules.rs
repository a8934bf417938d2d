//! Automation rules as the team edits them: checked whole, including that every tag, member,
//! template and canned response a rule names is the agent's own.

use std::sync::Arc;

use crate::error::{CHECKED, Violations};
use crate::model::*;
use crate::ports::{
    CannedResponseRepository, Clock, IdSource, MemberRepository, RuleRepository, RuleRunRepository, TagRepository, TemplateRepository,
};
use crate::{DomainError, FieldError};

/// Pages of rules: 20 by default, at most 100 (an agent's whole set).
pub const RULE_PAGES: PageBounds = PageBounds::CANNED_RESPONSES;

const NOT_FOUND: &str = "rule";

/// What rules may name, to check that it is the agent's.
pub struct RuleReferences {
    /// Tags (`add_tags`, `remove_tags`, the `tag` condition).
    pub tags: Arc<dyn TagRepository>,
    /// Members (`assign`, the `assigned_to` condition).
    pub members: Arc<dyn MemberRepository>,
    /// Templates (`send_template`).
    pub templates: Arc<dyn TemplateRepository>,
    /// Canned responses (`reply` with `canned`).
    pub canned_responses: Arc<dyn CannedResponseRepository>,
}

/// How long a rule's runs are kept: as long as the events they ran on.
pub const RUN_RETENTION: chrono::TimeDelta = crate::services::EVENT_RETENTION;

/// `/v1/rules`.
pub struct RuleService {
    rules: Arc<dyn RuleRepository>,
    runs: Arc<dyn RuleRunRepository>,
    references: RuleReferences,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
}

impl RuleService {
    /// A service over these ports.
    pub fn new(
        rules: Arc<dyn RuleRepository>,
        runs: Arc<dyn RuleRunRepository>,
        references: RuleReferences,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdSource>,
    ) -> Self {
        Self { rules, runs, references, clock, ids }
    }

    /// One page of the agent's rules, oldest first.
    pub async fn list(&self, agent: &AgentId, limit: Option<&str>, offset: Option<&str>) -> Result<Page<Rule>, DomainError> {
        let page = PageRequest::parse(limit, offset, RULE_PAGES).map_err(DomainError::Validation)?;
        Ok(self.rules.list(agent, page).await?)
    }

    /// The agent's rule; `NotFound` (`rule`) when unknown or another agent's.
    pub async fn get(&self, agent: &AgentId, id: &RuleId) -> Result<Rule, DomainError> {
        self.rules.get(agent, id).await?.ok_or(DomainError::not_found(NOT_FOUND))
    }

    /// A new rule (enabled unless `enabled: false`). `Validation` names every fault, a
    /// reference to what is not the agent's among them; `Conflict` past
    /// [`MAX_RULES_PER_AGENT`].
    pub async fn create(&self, agent: &AgentId, input: RuleInput) -> Result<Rule, DomainError> {
        let checked = input.check(true)?;
        let now = self.clock.now();
        let rule = Rule {
            id: RuleId::new(self.ids.new_id(IdKind::Rule)),
            agent_id: agent.clone(),
            name: checked.name.expect(CHECKED),
            enabled: checked.enabled.unwrap_or(true),
            on: checked.on.expect(CHECKED),
            conditions: checked.conditions.unwrap_or_default(),
            actions: checked.actions.expect(CHECKED),
            created_at: now,
            updated_at: now,
        };
        self.check_references(&rule).await?;
        if self.rules.insert(&rule, MAX_RULES_PER_AGENT).await? {
            Ok(rule)
        } else {
            Err(DomainError::Conflict {
                message: format!("an agent may keep at most {MAX_RULES_PER_AGENT} rules: delete one before adding another"),
                details: vec![],
            })
        }
    }

    /// Changes the fields sent (conditions and actions replaced whole). `NotFound` when
    /// unknown; `Validation` as for a new rule.
    pub async fn update(&self, agent: &AgentId, id: &RuleId, input: RuleInput) -> Result<Rule, DomainError> {
        let checked = input.check(false)?;
        let mut rule = self.get(agent, id).await?;
        if let Some(name) = checked.name {
            rule.name = name;
        }
        if let Some(enabled) = checked.enabled {
            rule.enabled = enabled;
        }
        if let Some(on) = checked.on {
            rule.on = on;
        }
        if let Some(conditions) = checked.conditions {
            rule.conditions = conditions;
        }
        if let Some(actions) = checked.actions {
            rule.actions = actions;
        }
        self.check_references(&rule).await?;
        rule.updated_at = self.clock.now();
        if self.rules.update(&rule).await? { Ok(rule) } else { Err(DomainError::not_found(NOT_FOUND)) }
    }

    /// One page of the rule's runs, newest first; `NotFound` (`rule`) when the agent has no
    /// such rule.
    pub async fn runs(
        &self,
        agent: &AgentId,
        id: &RuleId,
        limit: Option<&str>,
        offset: Option<&str>,
    ) -> Result<Page<RuleRun>, DomainError> {
        let page = PageRequest::parse(limit, offset, RULE_PAGES).map_err(DomainError::Validation)?;
        self.get(agent, id).await?;
        Ok(self.runs.list(agent, id, page).await?)
    }

    /// Deletes runs older than [`RUN_RETENTION`], a batch at a time; returns how many.
    pub async fn expire_runs(&self, batch: u32) -> Result<u64, DomainError> {
        let before = self.clock.now() - RUN_RETENTION;
        let mut deleted = 0;
        loop {
            let n = self.runs.delete_before(before, batch).await?;
            deleted += n;
            if n < u64::from(batch) {
                return Ok(deleted);
            }
        }
    }

    /// Removes the rule and its runs; `NotFound` when unknown.
    pub async fn delete(&self, agent: &AgentId, id: &RuleId) -> Result<(), DomainError> {
        if self.rules.delete(agent, id).await? { Ok(()) } else { Err(DomainError::not_found(NOT_FOUND)) }
    }

    /// `Validation` naming each tag, member, template or canned response the rule names that
    /// is not the agent's (another agent's reads as unknown).
    async fn check_references(&self, rule: &Rule) -> Result<(), DomainError> {
        let agent = &rule.agent_id;
        let r = &self.references;
        let mut v = Violations::default();
        for (i, condition) in rule.conditions.iter().enumerate() {
            let values: Vec<(String, &str)> = match &condition.value {
                ConditionValue::One(value) => vec![(format!("conditions[{i}].value"), value.as_str())],
                ConditionValue::Many(values) => {
                    values.iter().enumerate().map(|(j, value)| (format!("conditions[{i}].value[{j}]"), value.as_str())).collect()
                }
                ConditionValue::Flag(_) => vec![],
            };
            for (field, value) in values {
                match condition.field {
                    ConditionField::Tag if r.tags.get(agent, &TagId::new(value)).await?.is_none() => {
                        v.push(FieldError::new(field, "is not a tag of this agent"));
                    }
                    ConditionField::AssignedTo if r.members.get(agent, &MemberId::new(value)).await?.is_none() => {
                        v.push(FieldError::new(field, "is not a member of this agent"));
                    }
                    _ => {}
                }
            }
        }
        for (i, action) in rule.actions.iter().enumerate() {
            match action {
                RuleAction::Assign(AssignTarget::Member(member)) if r.members.get(agent, member).await?.is_none() => {
                    v.push(FieldError::new(format!("actions[{i}].to"), "is not a member of this agent"));
                }
                RuleAction::AddTags(tags) | RuleAction::RemoveTags(tags) => {
                    let found = r.tags.find_many(agent, tags).await?;
                    for (j, tag) in tags.iter().enumerate() {
                        if !found.iter().any(|t| &t.id == tag) {
                            v.push(FieldError::new(format!("actions[{i}].tag_ids[{j}]"), "is not a tag of this agent"));
                        }
                    }
                }
                RuleAction::SendTemplate { template_id, .. } if r.templates.get(agent, template_id).await?.is_none() => {
                    v.push(FieldError::new(format!("actions[{i}].template_id"), "is not a template of this agent"));
                }
                RuleAction::Reply(ReplyText::Canned(code))
                    if find_canned(self.references.canned_responses.as_ref(), agent, code).await?.is_none() =>
                {
                    v.push(FieldError::new(format!("actions[{i}].canned"), "is not a canned response of this agent"));
                }
                _ => {}
            }
        }
        v.finish()
    }
}

/// The agent's canned response with short code `code`: searched by it, page by page, since
/// other short codes and texts that hold it match too.
pub(crate) async fn find_canned(
    canned: &dyn CannedResponseRepository,
    agent: &AgentId,
    code: &str,
) -> Result<Option<CannedResponse>, DomainError> {
    let Ok(search) = CannedSearch::new(code) else { return Ok(None) };
    let mut offset = 0;
    loop {
        let page = canned.list(agent, Some(search.clone()), PageRequest::new(100, offset)).await?;
        let read = page.items.len() as u64;
        if let Some(found) = page.items.into_iter().find(|c| c.short_code.as_str() == code) {
            return Ok(Some(found));
        }
        offset += read;
        if read == 0 || offset >= page.total {
            return Ok(None);
        }
    }
}
