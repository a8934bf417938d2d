//! The storage contract of business hours (`BusinessHoursRepository`).

#![expect(clippy::unwrap_used, reason = "a test suite: a failed step is a failed check")]

use std::collections::BTreeMap;

use crate::model::*;
use crate::ports::Repositories;

use crate::conformance::fixtures::*;

fn lisbon(away: Option<&str>) -> BusinessHours {
    let week = BTreeMap::from([
        ("mon".to_string(), vec![vec!["09:00".to_string(), "13:00".to_string()], vec!["14:00".to_string(), "24:00".to_string()]]),
        ("sat".to_string(), vec![vec!["00:00".to_string(), "00:30".to_string()]]),
    ]);
    BusinessHours::new(BusinessHoursInput {
        timezone: Some("Europe/Lisbon".into()),
        week: Some(week),
        closed_dates: Some(vec!["2026-12-25".into(), "2027-01-01".into()]),
        away_message: away.map(Into::into),
    })
    .unwrap()
}

/// An agent's hours read back equal to what was put (every period, date and the message, or
/// none), are replaced whole, removed by `None`, and never seen by another agent.
pub async fn business_hours_are_one_set_per_agent_replaced_whole(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    assert_eq!(r.business_hours.get(&a).await.unwrap(), None, "none until set");
    let first = lisbon(Some("Back at 9:00.\nThanks for waiting."));
    r.business_hours.put(&a, Some(&first), t(1)).await.unwrap();
    assert_eq!(r.business_hours.get(&a).await.unwrap(), Some(first));
    assert_eq!(r.business_hours.get(&b).await.unwrap(), None, "another agent's hours are not its own");
    let second = lisbon(None);
    r.business_hours.put(&a, Some(&second), t(2)).await.unwrap();
    assert_eq!(r.business_hours.get(&a).await.unwrap(), Some(second), "replaced whole: no away message left");
    r.business_hours.put(&b, Some(&BusinessHours::always_open()), t(3)).await.unwrap();
    r.business_hours.put(&a, None, t(4)).await.unwrap();
    assert_eq!(r.business_hours.get(&a).await.unwrap(), None, "removed");
    assert_eq!(r.business_hours.get(&b).await.unwrap(), Some(BusinessHours::always_open()));
    r.business_hours.put(&a, None, t(5)).await.unwrap();
}

fn a_rule(agent: &AgentId, id: &str, at: i64) -> Rule {
    Rule {
        id: RuleId::new(id),
        agent_id: agent.clone(),
        name: RuleName::new(&format!("Rule {id}")).unwrap(),
        enabled: true,
        on: RuleTrigger::MessageReceived,
        conditions: vec![
            Condition { field: ConditionField::Text, op: ConditionOp::Contains, value: ConditionValue::One("refund".into()) },
            Condition {
                field: ConditionField::Contact("plan".into()),
                op: ConditionOp::In,
                value: ConditionValue::Many(vec!["gold".into(), "silver".into()]),
            },
            Condition { field: ConditionField::AssignedTo, op: ConditionOp::Exists, value: ConditionValue::Flag(false) },
        ],
        actions: vec![
            RuleAction::Assign(AssignTarget::RoundRobin),
            RuleAction::AddTags(vec![TagId::new("tag_1")]),
            RuleAction::RemoveTags(vec![TagId::new("tag_2")]),
            RuleAction::SetStatus(ActivityStatus::Pending),
            RuleAction::Reply(ReplyText::Canned("thanks".into())),
            RuleAction::SendTemplate { template_id: TemplateId::new("tpl_1"), components: Some(serde_json::json!([{"type": "body"}])) },
            RuleAction::Note("Refund asked:\n check the order".into()),
        ],
        created_at: t(at),
        updated_at: t(at),
    }
}

/// Rules read back whole (every kind of condition and action), oldest first with the agent's
/// total, changed and removed only by their agent, and never past the agent's limit.
pub async fn rules_round_trip_whole_stay_their_agents_and_stop_at_the_limit(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let (first, second) = (a_rule(&a, "rul_1", 2), a_rule(&a, "rul_2", 1));
    assert!(r.rules.insert(&first, 2).await.unwrap());
    assert!(r.rules.insert(&second, 2).await.unwrap());
    assert!(!r.rules.insert(&a_rule(&a, "rul_3", 3), 2).await.unwrap(), "the agent's limit");
    assert!(r.rules.insert(&a_rule(&b, "rul_4", 3), 2).await.unwrap(), "another agent's rules count apart");
    assert_eq!(r.rules.get(&a, &first.id).await.unwrap(), Some(first.clone()));
    assert_eq!(r.rules.get(&b, &first.id).await.unwrap(), None, "another agent's rule");
    let page = r.rules.list(&a, page(10, 0)).await.unwrap();
    assert_eq!((page.total, page.items.iter().map(|x| x.id.as_str()).collect::<Vec<_>>()), (2, vec!["rul_2", "rul_1"]));

    let changed = Rule {
        enabled: false,
        on: RuleTrigger::ActivityCreated,
        conditions: vec![],
        actions: vec![RuleAction::Note("x".into())],
        updated_at: t(9),
        ..first.clone()
    };
    assert!(!r.rules.update(&Rule { agent_id: b.clone(), ..changed.clone() }).await.unwrap(), "not B's to change");
    assert!(r.rules.update(&changed).await.unwrap());
    assert_eq!(r.rules.get(&a, &first.id).await.unwrap(), Some(changed));
    assert!(!r.rules.delete(&b, &first.id).await.unwrap(), "not B's to delete");
    assert!(r.rules.delete(&a, &first.id).await.unwrap());
    assert_eq!(r.rules.get(&a, &first.id).await.unwrap(), None);
    assert!(r.rules.insert(&a_rule(&a, "rul_3", 3), 2).await.unwrap(), "room again");
}

fn run_of(rule: &Rule, event: &str, at: i64) -> RuleRun {
    RuleRun {
        rule_id: rule.id.clone(),
        agent_id: rule.agent_id.clone(),
        event_id: EventId::new(event),
        outcome: RunOutcome::Running,
        error: None,
        created_at: t(at),
    }
}

/// Of any number of claimants of one rule's run on one event, racing, exactly one wins; the run
/// is finished with its outcome, listed newest first for its agent only, and removed with its
/// rule.
pub async fn a_rules_run_on_an_event_is_claimed_once_and_listed_newest_first(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let rule = a_rule(&a, "rul_runs", 1);
    assert!(r.rules.insert(&rule, 10).await.unwrap());
    let runs = vec![run_of(&rule, "evt_1", 2); 8];
    let won: Vec<bool> =
        futures_util::future::join_all(runs.iter().map(|run| r.rule_runs.claim(run))).await.into_iter().map(Result::unwrap).collect();
    assert_eq!(won.iter().filter(|w| **w).count(), 1, "exactly one claimant wins: {won:?}");
    assert!(!r.rule_runs.claim(&run_of(&rule, "evt_1", 3)).await.unwrap(), "later, too");
    assert!(r.rule_runs.claim(&run_of(&rule, "evt_2", 4)).await.unwrap(), "another event is another run");

    assert!(r.rule_runs.finish(&rule.id, &EventId::new("evt_1"), RunOutcome::Failed, Some("the window has closed")).await.unwrap());
    assert!(!r.rule_runs.finish(&rule.id, &EventId::new("evt_9"), RunOutcome::Ok, None).await.unwrap(), "no such run");
    let listed = r.rule_runs.list(&a, &rule.id, page(10, 0)).await.unwrap();
    assert_eq!(listed.total, 2);
    let listed: Vec<_> = listed.items.iter().map(|run| (run.event_id.as_str(), run.outcome, run.error.as_deref())).collect();
    assert_eq!(listed, [("evt_2", RunOutcome::Running, None), ("evt_1", RunOutcome::Failed, Some("the window has closed"))]);
    assert_eq!(r.rule_runs.list(&b, &rule.id, page(10, 0)).await.unwrap().total, 0, "another agent sees none");

    assert!(r.rules.delete(&a, &rule.id).await.unwrap());
    assert_eq!(r.rule_runs.list(&a, &rule.id, page(10, 0)).await.unwrap().total, 0, "removed with the rule");
}

/// Runs made before the cutoff are deleted oldest first, about a batch at a time (every run of
/// the batch's last instant with it), of every agent; newer runs stay.
pub async fn old_rule_runs_are_deleted_oldest_first_in_batches(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let mine = a_rule(&a, "rul_old_a", 1);
    let theirs = a_rule(&b, "rul_old_b", 1);
    assert!(r.rules.insert(&mine, 10).await.unwrap());
    assert!(r.rules.insert(&theirs, 10).await.unwrap());
    for (rule, event, at) in
        [(&mine, "evt_1", 10), (&theirs, "evt_2", 20), (&mine, "evt_3", 20), (&mine, "evt_4", 30), (&mine, "evt_5", 100)]
    {
        assert!(r.rule_runs.claim(&run_of(rule, event, at)).await.unwrap());
    }
    let left = |rule: &Rule| {
        let (r, rule) = (r.clone(), rule.clone());
        async move {
            let page = r.rule_runs.list(&rule.agent_id, &rule.id, page(10, 0)).await.unwrap();
            page.items.into_iter().map(|run| run.event_id.as_str().to_string()).collect::<Vec<_>>()
        }
    };
    assert_eq!(r.rule_runs.delete_before(t(50), 1).await.unwrap(), 1, "the oldest");
    assert_eq!(left(&mine).await, ["evt_5", "evt_4", "evt_3"]);
    assert_eq!(r.rule_runs.delete_before(t(50), 1).await.unwrap(), 2, "both runs of the batch's last instant");
    assert_eq!(left(&theirs).await, Vec::<String>::new(), "every agent's");
    assert_eq!(r.rule_runs.delete_before(t(50), 10).await.unwrap(), 1);
    assert_eq!(r.rule_runs.delete_before(t(50), 10).await.unwrap(), 0, "nothing older left");
    assert_eq!(left(&mine).await, ["evt_5"], "a newer run stays");
}

/// An event waits for rules only when it runs them (its type has a trigger, no rule made it)
/// and its agent has an enabled rule for that trigger; the queued ones are claimed oldest
/// first, held for their lease, taken again once it ends, and leave once their rules have run.
pub async fn events_wait_for_rules_only_when_an_enabled_rule_runs_on_them(r: Repositories) {
    use crate::events::conformance::event;
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let quiet = Rule { enabled: false, on: RuleTrigger::ActivityCreated, ..a_rule(&a, "rul_off", 0) };
    let on_messages = Rule { on: RuleTrigger::MessageReceived, ..a_rule(&a, "rul_msg", 0) };
    assert!(r.rules.insert(&quiet, 10).await.unwrap());
    assert!(r.rules.insert(&on_messages, 10).await.unwrap());
    assert_eq!(
        r.rules.enabled_for(&a, RuleTrigger::MessageReceived).await.unwrap().iter().map(|x| x.id.as_str()).collect::<Vec<_>>(),
        ["rul_msg"]
    );
    assert!(r.rules.enabled_for(&a, RuleTrigger::ActivityCreated).await.unwrap().is_empty(), "a disabled rule runs on nothing");

    let received = event(&a, EventType::MessageReceived, t(10));
    let older = event(&a, EventType::MessageReceived, t(5));
    let by_rule = Event { origin: EventOrigin::Rule, ..event(&a, EventType::MessageReceived, t(6)) };
    let created = event(&a, EventType::ActivityCreated, t(7));
    let other_type = event(&a, EventType::ContactCreated, t(8));
    let theirs = event(&b, EventType::MessageReceived, t(9));
    for e in [&received, &older, &by_rule, &created, &other_type, &theirs] {
        r.events.emit(e, None).await.unwrap();
    }
    assert_eq!(r.rule_runs.backlog().await.unwrap(), 2, "only the events an enabled rule runs on, not a rule's own");
    assert!(r.rule_runs.claim_events(t(4), t(100), 10).await.unwrap().is_empty(), "not due before they happened");
    let claimed = r.rule_runs.claim_events(t(10), t(100), 10).await.unwrap();
    assert_eq!(claimed, vec![older.clone(), received.clone()], "oldest first, read back whole");
    assert!(r.rule_runs.claim_events(t(99), t(200), 10).await.unwrap().is_empty(), "held for the lease");
    let again = r.rule_runs.claim_events(t(100), t(200), 1).await.unwrap();
    assert_eq!(again, vec![older.clone()], "taken again once the lease ends, within the limit");
    r.rule_runs.rules_done(std::slice::from_ref(&older.id)).await.unwrap();
    r.rule_runs.rules_done(&[older.id.clone(), EventId::new("evt_never_queued")]).await.unwrap();
    assert_eq!(r.rule_runs.backlog().await.unwrap(), 1, "done leaves the queue, twice is harmless");
    assert_eq!(r.rule_runs.claim_events(t(300), t(400), 10).await.unwrap(), vec![received.clone()]);

    // Events deleted by retention leave the queue with them.
    assert_eq!(r.events.delete_before(t(11), 100).await.unwrap(), 6);
    assert_eq!(r.rule_runs.backlog().await.unwrap(), 0);
}

/// Round robin's loads: every member of the agent, oldest first, with its `max_open`, its open
/// conversations (closed ones and others' not counted) and when round robin last served it.
pub async fn members_loads_count_their_open_conversations_and_their_turn(r: Repositories) {
    use crate::access::conformance::member;
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let (ana, bea, cid) =
        (member(&a, "ana@a.example", "Ana", t(1)), member(&a, "bea@a.example", "Bea", t(2)), member(&a, "cid@a.example", "Cid", t(3)));
    let dan = member(&b, "dan@b.example", "Dan", t(1));
    for m in [&ana, &bea, &cid, &dan] {
        r.members.insert(m).await.unwrap();
    }
    assert!(r.members.set_max_open(&a, &bea.id, Some(MaxOpen::new(1).unwrap()), t(5)).await.unwrap());
    assert!(!r.members.set_max_open(&b, &bea.id, None, t(5)).await.unwrap(), "not B's member");
    assert_eq!(r.members.get(&a, &bea.id).await.unwrap().unwrap().max_open, Some(MaxOpen::new(1).unwrap()));

    let assigned = |to: &str, status, contact: &ContactId| Activity {
        assigned_to: Some(Assignee::new(to).unwrap()),
        ..activity(&a, contact, status, t(4))
    };
    let placed = [
        (ana.id.as_str(), ActivityStatus::Open),
        (ana.id.as_str(), ActivityStatus::Open),
        (ana.id.as_str(), ActivityStatus::Closed),
        (bea.id.as_str(), ActivityStatus::Pending),
        (bea.id.as_str(), ActivityStatus::Open),
        ("crm-user-7", ActivityStatus::Open),
    ];
    // One conversation per contact.
    for (i, (to, status)) in placed.into_iter().enumerate() {
        let someone = contact(&a, "Someone", phone(&format!("52155500{i:02}")), t(0));
        r.contacts.insert(&someone, &[]).await.unwrap();
        r.activities.insert(&assigned(to, status, &someone.id), &[]).await.unwrap();
    }
    let theirs = contact(&b, "Theirs", phone("5215550002"), t(0));
    r.contacts.insert(&theirs, &[]).await.unwrap();
    let elsewhere =
        Activity { assigned_to: Some(Assignee::new(cid.id.as_str()).unwrap()), ..activity(&b, &theirs.id, ActivityStatus::Open, t(4)) };
    r.activities.insert(&elsewhere, &[]).await.unwrap();

    let loads = r.routing.loads(&a).await.unwrap();
    let seen: Vec<_> = loads.iter().map(|l| (l.member.clone(), l.max_open.map(MaxOpen::get), l.open, l.last_assigned_at)).collect();
    assert_eq!(seen, [(ana.id.clone(), None, 2, None), (bea.id.clone(), Some(1), 1, None), (cid.id.clone(), None, 0, None)]);
    assert_eq!(loads.iter().map(|l| l.created_at).collect::<Vec<_>>(), [t(1), t(2), t(3)]);
    assert_eq!(next_in_turn(&loads), Some(&cid.id));

    r.routing.mark_assigned(&a, &cid.id, t(10)).await.unwrap();
    r.routing.mark_assigned(&b, &ana.id, t(11)).await.unwrap();
    let loads = r.routing.loads(&a).await.unwrap();
    assert_eq!(loads.iter().map(|l| l.last_assigned_at).collect::<Vec<_>>(), [None, None, Some(t(10))], "not through another agent");
    assert_eq!(r.routing.loads(&b).await.unwrap().len(), 1);
}

/// The away message: a contact's message waits for the engine while its agent's hours hold an
/// away message, rules or not; the turn to send it is taken once per period, by one of any
/// number of racing claimants, and only for the agent's own conversation.
pub async fn away_messages_queue_their_contacts_messages_and_are_claimed_once_a_turn(r: Repositories) {
    use crate::events::conformance::event;
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let closed = |away: Option<&str>| {
        BusinessHours::new(BusinessHoursInput {
            timezone: Some("UTC".into()),
            week: Some(BTreeMap::new()),
            closed_dates: None,
            away_message: away.map(Into::into),
        })
        .unwrap()
    };
    r.business_hours.put(&a, Some(&closed(None)), t(0)).await.unwrap();
    r.events.emit(&event(&a, EventType::MessageReceived, t(1)), None).await.unwrap();
    assert_eq!(r.rule_runs.backlog().await.unwrap(), 0, "hours without an away message queue nothing");
    r.business_hours.put(&a, Some(&closed(Some("We are closed."))), t(2)).await.unwrap();
    let received = event(&a, EventType::MessageReceived, t(3));
    r.events.emit(&received, None).await.unwrap();
    r.events.emit(&event(&a, EventType::ActivityUpdated, t(4)), None).await.unwrap();
    r.events.emit(&Event { origin: EventOrigin::Rule, ..event(&a, EventType::MessageReceived, t(5)) }, None).await.unwrap();
    assert_eq!(r.rule_runs.claim_events(t(10), t(20), 10).await.unwrap(), vec![received], "a contact's message alone");

    let ana = contact(&a, "Ana", phone("5215550001"), t(0));
    r.contacts.insert(&ana, &[]).await.unwrap();
    let conversation = activity(&a, &ana.id, ActivityStatus::Open, t(0));
    r.activities.insert(&conversation, &[]).await.unwrap();
    let claims = futures_util::future::join_all((0..8).map(|_| r.rule_runs.claim_away_message(&a, &conversation.id, t(100), t(50)))).await;
    assert_eq!(claims.into_iter().map(Result::unwrap).filter(|won| *won).count(), 1, "one of racing claimants");
    assert!(!r.rule_runs.claim_away_message(&a, &conversation.id, t(120), t(99)).await.unwrap(), "sent after not_since");
    assert!(r.rule_runs.claim_away_message(&a, &conversation.id, t(200), t(100)).await.unwrap(), "the next turn");
    assert!(!r.rule_runs.claim_away_message(&b, &conversation.id, t(900), t(800)).await.unwrap(), "not another agent's");
}
