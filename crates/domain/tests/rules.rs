//! Automation rules as sent: a rule is built only when every part passes, and each fault is
//! named by its path.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use parley_domain::DomainError;
use parley_domain::model::*;

fn condition(field: &str, op: &str, value: Option<InputValue>) -> RuleConditionInput {
    RuleConditionInput { field: Some(field.into()), op: Some(op.into()), value, unknown: vec![] }
}

fn text(s: &str) -> Option<InputValue> {
    Some(InputValue::Text(s.into()))
}

fn action(kind: &str) -> RuleActionInput {
    RuleActionInput { kind: Some(kind.into()), ..Default::default() }
}

fn rule(conditions: Vec<RuleConditionInput>, actions: Vec<RuleActionInput>) -> RuleInput {
    RuleInput {
        name: Some("Refunds".into()),
        enabled: None,
        on: Some("message.received".into()),
        conditions: Some(conditions),
        actions: Some(actions),
    }
}

fn faults(input: RuleInput) -> Vec<String> {
    match input.check(true) {
        Err(DomainError::Validation(errors)) => errors.into_iter().map(|e| e.field).collect(),
        other => panic!("expected a validation error, got {other:?}"),
    }
}

#[test]
fn a_rule_with_every_kind_of_condition_and_action_is_built() {
    let conditions = vec![
        condition("text", "contains", text("refund")),
        condition("channel_type", "in", Some(InputValue::List(vec!["whatsapp".into(), "email".into()]))),
        condition("status", "not_equals", text("closed")),
        condition("assigned_to", "exists", Some(InputValue::Flag(false))),
        condition("tag", "equals", text("tag_1")),
        condition("contact.plan", "equals", text("gold")),
        condition("business_hours", "equals", text("closed")),
    ];
    let actions = vec![
        RuleActionInput { to: text("round_robin"), ..action("assign") },
        RuleActionInput { tag_ids: Some(InputValue::List(vec!["tag_1".into()])), ..action("add_tags") },
        RuleActionInput { tag_ids: Some(InputValue::List(vec!["tag_2".into()])), ..action("remove_tags") },
        RuleActionInput { status: text("pending"), ..action("set_status") },
        RuleActionInput { canned: text("thanks"), ..action("reply") },
        RuleActionInput { text: text("We are on it"), ..action("reply") },
        RuleActionInput { template_id: text("tpl_1"), ..action("send_template") },
        RuleActionInput { text: text("refund asked"), ..action("note") },
    ];
    let checked = rule(conditions, actions).check(true).unwrap();
    assert_eq!(checked.on, Some(RuleTrigger::MessageReceived));
    let conditions = checked.conditions.unwrap();
    assert_eq!(conditions[5].field, ConditionField::Contact("plan".into()));
    assert_eq!(conditions[3].value, ConditionValue::Flag(false));
    let actions = checked.actions.unwrap();
    assert_eq!(actions[0], RuleAction::Assign(AssignTarget::RoundRobin));
    assert_eq!(actions[4], RuleAction::Reply(ReplyText::Canned("thanks".into())));
    let types: Vec<_> = actions.iter().map(RuleAction::type_name).collect();
    assert_eq!(types, ["assign", "add_tags", "remove_tags", "set_status", "reply", "reply", "send_template", "note"]);
}

#[test]
fn each_fault_is_named_by_its_path() {
    let conditions = vec![
        condition("text", "contains", text("ok")),
        condition("colour", "equals", text("red")),
        condition("status", "like", text("open")),
        condition("status", "equals", text("snoozed")),
        condition("channel_type", "contains", text("whats")),
        condition("tag", "in", text("tag_1")),
        RuleConditionInput { unknown: vec!["negate".into()], ..condition("text", "exists", None) },
    ];
    let actions = vec![
        action("teleport"),
        RuleActionInput { to: text("maria"), ..action("assign") },
        RuleActionInput { status: text("open"), ..action("add_tags") },
        RuleActionInput { text: text("hi"), canned: text("thanks"), ..action("reply") },
    ];
    let mut input = rule(conditions, actions);
    input.on = Some("message.deleted".into());
    let named = faults(input);
    for field in [
        "on",
        "conditions[1].field",
        "conditions[2].op",
        "conditions[3].value",
        "conditions[4].op",
        "conditions[5].value",
        "conditions[6].negate",
        "actions[0].type",
        "actions[1].to",
        "actions[2].status",
        "actions[2].tag_ids",
        "actions[3].text",
    ] {
        assert!(named.contains(&field.to_string()), "{field} not named in {named:?}");
    }
    assert!(!named.iter().any(|f| f.starts_with("conditions[0]")), "a good condition is not named: {named:?}");
}

#[test]
fn a_new_rule_needs_a_name_an_event_and_an_action_and_a_change_needs_none() {
    let named = faults(RuleInput::default());
    assert_eq!(named, ["name", "on", "actions"]);
    let change = RuleInput { enabled: Some(false), ..Default::default() }.check(false).unwrap();
    assert_eq!(change.enabled, Some(false));
    assert_eq!(faults(rule(vec![], vec![])), ["actions"], "an empty list of actions");
}

fn built(conditions: Vec<RuleConditionInput>) -> Rule {
    let checked = rule(conditions, vec![RuleActionInput { text: text("n"), ..action("note") }]).check(true).unwrap();
    Rule {
        id: RuleId::new("rul_1"),
        agent_id: AgentId::new("agt_1"),
        name: checked.name.unwrap(),
        enabled: true,
        on: checked.on.unwrap(),
        conditions: checked.conditions.unwrap(),
        actions: checked.actions.unwrap(),
        created_at: chrono::Utc::now(),
        updated_at: chrono::Utc::now(),
    }
}

fn list(values: &[&str]) -> Option<InputValue> {
    Some(InputValue::List(values.iter().map(|v| v.to_string()).collect()))
}

#[test]
fn conditions_compare_text_ignoring_case_and_ids_exactly_and_missing_facts_match_nothing() {
    let tags = [TagId::new("tag_vip")];
    let attributes =
        CustomAttributes::new(serde_json::json!({"plan": " Gold ", "orders": 3, "gone": null}).as_object().unwrap().clone()).unwrap();
    let maria = Assignee::new("usr_maria").unwrap();
    let facts = RuleFacts {
        event: EventFacts { text: Some("I want a REFUND please"), business_hours_open: false },
        channel_type: ChannelType::Whatsapp,
        status: ActivityStatus::Open,
        assigned_to: Some(&maria),
        tags: &tags,
        contact: &attributes,
    };
    let holds = |c: RuleConditionInput| built(vec![c]).matches(&facts);
    assert!(holds(condition("text", "contains", text("refund"))), "contains ignores case");
    assert!(!holds(condition("text", "contains", text("cancel"))));
    assert!(holds(condition("text", "equals", text(" i want a refund please "))), "equals folds text too");
    assert!(holds(condition("channel_type", "in", list(&["email", "whatsapp"]))));
    assert!(holds(condition("channel_type", "not_in", list(&["email", "instagram"]))));
    assert!(holds(condition("status", "not_equals", text("closed"))));
    assert!(holds(condition("assigned_to", "equals", text("usr_maria"))));
    assert!(!holds(condition("assigned_to", "exists", Some(InputValue::Flag(false)))));
    assert!(holds(condition("tag", "equals", text("tag_vip"))), "a tag the conversation carries");
    assert!(holds(condition("tag", "not_in", list(&["tag_spam"]))));
    assert!(holds(condition("contact.plan", "equals", text("gold"))), "an attribute, trimmed and folded");
    assert!(holds(condition("contact.orders", "equals", text("3"))), "a number reads as its digits");
    assert!(!holds(condition("contact.gone", "exists", None)), "null is no value");
    assert!(holds(condition("contact.missing", "not_equals", text("x"))), "a missing attribute equals nothing");
    assert!(!holds(condition("contact.missing", "in", list(&["x"]))));
    assert!(holds(condition("business_hours", "equals", text("closed"))));

    let quiet = RuleFacts { event: EventFacts { text: None, ..facts.event }, assigned_to: None, tags: &[], ..facts };
    assert!(!built(vec![condition("text", "contains", text("a"))]).matches(&quiet), "no text contains nothing");
    assert!(built(vec![condition("tag", "exists", Some(InputValue::Flag(false)))]).matches(&quiet), "no tag at all");
    assert!(built(vec![condition("assigned_to", "exists", Some(InputValue::Flag(false)))]).matches(&quiet));

    let both = built(vec![condition("text", "contains", text("refund")), condition("status", "equals", text("closed"))]);
    assert!(!both.matches(&facts), "every condition must hold");
    assert!(built(vec![]).matches(&facts), "no condition: always");
    let disabled = Rule { enabled: false, ..built(vec![]) };
    assert!(!disabled.matches(&facts), "a disabled rule acts on nothing");
}

#[test]
fn a_rule_is_ruled_out_by_the_event_alone_only_when_a_condition_on_the_text_or_hours_fails() {
    let event = EventFacts { text: Some("Where is my order?"), business_hours_open: true };
    let may = |conditions: Vec<RuleConditionInput>| built(conditions).may_match(event);
    assert!(!may(vec![condition("text", "contains", text("refund"))]), "the text decides: no need to read the conversation");
    assert!(!may(vec![condition("business_hours", "equals", text("closed"))]), "the hours decide too");
    assert!(may(vec![condition("text", "contains", text("order"))]));
    assert!(may(vec![condition("status", "equals", text("closed"))]), "a fact of the conversation is not known yet");
    assert!(may(vec![condition("contact.plan", "equals", text("gold"))]), "nor one of the contact");
    assert!(
        !may(vec![condition("status", "equals", text("closed")), condition("text", "contains", text("refund"))]),
        "any failing one rules it out"
    );
    assert!(may(vec![]), "no condition: always");
    assert!(!Rule { enabled: false, ..built(vec![]) }.may_match(event), "a disabled rule never");
}
