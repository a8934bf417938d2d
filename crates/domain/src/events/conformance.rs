//! The contract of [`WebhookEndpointRepository`](crate::ports::WebhookEndpointRepository) and
//! [`EventRepository`](crate::ports::EventRepository): endpoints round trip whole and stay
//! their agent's; events list newest first with their filters and exact totals.

#![expect(clippy::unwrap_used, reason = "a test suite: a failed step is a failed check")]

use serde_json::json;

use crate::conformance::fixtures::{activity, agent, contact, definition, execution, id, page, phone, product, t, tag};
use crate::model::*;
use crate::ports::Repositories;

fn endpoint(agent: &AgentId, url: &str, at: Timestamp) -> WebhookEndpoint {
    WebhookEndpoint {
        id: EndpointId::new(id("we")),
        agent_id: agent.clone(),
        url: EndpointUrl::new(url, false).unwrap(),
        events: EventSelection::new(&["contact.created".into(), "message.received".into()]).unwrap(),
        description: None,
        secrets: EndpointSecrets { current: SigningKey::new(vec![1; KEY_BYTES]).unwrap(), previous: None },
        disabled: None,
        failing_since: None,
        paused_until: None,
        created_at: at,
        updated_at: at,
    }
}

pub(crate) fn event(agent: &AgentId, event_type: EventType, at: Timestamp) -> Event {
    Event {
        id: EventId::new(id("evt")),
        agent_id: agent.clone(),
        event_type,
        created_at: at,
        object: EventObject::from(&tag(agent, "VIP", at)),
        origin: EventOrigin::Outside,
    }
}

/// An event's object is kept as the domain's snapshot and reads back equal, whatever its kind
/// and content: the API renders it only when it lists or sends the event, so storage may lose
/// nothing of it (text as sent, exact prices, every message kind).
pub async fn event_snapshots_of_every_kind_read_back_whole(r: Repositories) {
    let a = agent(&r, "A").await;
    let attributes = json!({"tier": "gold", "visits": 3, "nested": {"ok": true, "list": [1, 2.5, null]}});
    let ana = Contact {
        email: Some(Email::new("ana@example.com").unwrap()),
        notes: Some(Notes::new("likes \"blue\"\nand <b>red</b> \u{1F600}").unwrap()),
        custom_attributes: CustomAttributes::new(attributes.as_object().unwrap().clone()).unwrap(),
        ..contact(&a, "Ana Lúcia", phone("5215550001"), t(1))
    };
    let conversation = activity(&a, &ana.id, ActivityStatus::Open, t(1));
    let view = ActivityView {
        activity: Activity { assigned_to: Some(Assignee::new("usr_1").unwrap()), last_inbound_at: Some(t(2)), ..conversation.clone() },
        profile_name: ana.profile_name.clone(),
        channels: ana.channels.clone(),
        tags: vec![TagRef::from(&tag(&a, "VIP", t(0)))],
        last_message: None,
        unread_count: 3,
        assignee: Some(MemberRef { id: MemberId::new("usr_1"), name: MemberName::new("Bea <b>").unwrap() }),
    };
    let cart = Cart {
        code: CartCode::parse("AbC2345").unwrap(),
        agent_id: a.clone(),
        items: vec![CartItem { product: product(&a, "p1", "product", &["shoes"], "active", 0), variant: None, qty: 2 }],
        created_at: t(3),
        expires_at: t(3 + 86_400),
    };
    let template = Template {
        definition: definition("9001", "welcome", "en_US", "Hi {{1}}"),
        agent_id: a.clone(),
        line_id: LineId::new("chn_1"),
        created_at: t(0),
    };
    let mut objects = vec![
        EventObject::from(&ana),
        EventObject::from(&view),
        EventObject::from(&cart),
        EventObject::from(&execution(&a, "spring", Some("msg-1"), t(4))),
        EventObject::from(&template),
        EventObject::from(&tag(&a, "Refunds", t(5))),
        EventObject::from(&endpoint(&a, "https://example.com/hook", t(6)).public()),
        EventObject::Deleted { id: "tag_gone".into() },
    ];
    for (i, content) in crate::messaging::conformance::messages::contents().into_iter().enumerate() {
        let message = crate::messaging::conformance::messages::full(&a, &conversation.id, content, t(10 + i as i64));
        objects.push(EventObject::from(&message));
    }
    for (i, object) in objects.into_iter().enumerate() {
        let event = Event {
            id: EventId::new(id("evt")),
            agent_id: a.clone(),
            event_type: EventType::ContactUpdated,
            created_at: t(100 + i as i64),
            object,
            // Every other one made by a rule: the origin reads back too.
            origin: if i % 2 == 0 { EventOrigin::Outside } else { EventOrigin::Rule },
        };
        r.events.emit(&event, None).await.unwrap();
        let read = r.events.get(&a, &event.id).await.unwrap_or_else(|e| panic!("{:?} does not read back: {e}", event.object));
        assert_eq!(read.as_ref(), Some(&event), "{:?}", event.object);
    }
}

/// Endpoints read back whole, list newest first with the agent's total, are replaced whole by
/// an update, and are read, updated and deleted only through their own agent.
pub async fn webhook_endpoints_round_trip_whole_and_stay_their_agents(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let first = endpoint(&a, "https://example.com/one", t(0));
    let second = WebhookEndpoint {
        events: EventSelection::All,
        description: Some("Orders".into()),
        ..endpoint(&a, "https://example.com/two", t(1))
    };
    let theirs = endpoint(&b, "https://example.com/b", t(2));
    for e in [&first, &second, &theirs] {
        assert!(r.webhook_endpoints.insert(e, 16).await.unwrap());
    }
    assert_eq!(r.webhook_endpoints.get(&a, &first.id).await.unwrap(), Some(first.clone()));
    assert_eq!(r.webhook_endpoints.get(&a, &second.id).await.unwrap(), Some(second.clone()));
    assert_eq!(r.webhook_endpoints.get(&a, &theirs.id).await.unwrap(), None, "another agent's");
    let listed = r.webhook_endpoints.list(&a, page(10, 0)).await.unwrap();
    assert_eq!((listed.total, listed.items), (2, vec![second.clone(), first.clone()]), "newest first");
    assert_eq!(r.webhook_endpoints.list(&a, page(1, 1)).await.unwrap().items, vec![first.clone()]);

    // An update replaces every field but the keys and the creation time.
    let mut changed = first.clone();
    changed.url = EndpointUrl::new("https://example.org/new?x=1", false).unwrap();
    changed.events = EventSelection::new(&["template.updated".into()]).unwrap();
    changed.description = Some("New".into());
    changed.secrets.rotate(SigningKey::new(vec![2; KEY_BYTES]).unwrap(), t(5));
    changed.disabled = Some(Disabled { at: t(6), reason: DisabledReason::Failing });
    changed.failing_since = Some(t(3));
    changed.paused_until = Some(t(7));
    changed.updated_at = t(6);
    assert!(r.webhook_endpoints.update(&changed).await.unwrap());
    assert_eq!(r.webhook_endpoints.get(&a, &first.id).await.unwrap(), Some(changed.clone()));
    assert!(!r.webhook_endpoints.update(&WebhookEndpoint { agent_id: b.clone(), ..changed.clone() }).await.unwrap());
    assert_eq!(r.webhook_endpoints.get(&a, &first.id).await.unwrap(), Some(changed), "not through another agent");

    assert!(!r.webhook_endpoints.delete(&b, &first.id).await.unwrap());
    assert!(r.webhook_endpoints.delete(&a, &first.id).await.unwrap());
    assert!(!r.webhook_endpoints.delete(&a, &first.id).await.unwrap());
    assert_eq!(r.webhook_endpoints.list(&a, page(10, 0)).await.unwrap().total, 1);
    assert!(r.webhook_endpoints.get(&b, &theirs.id).await.unwrap().is_some());
}

/// Events read back whole and list newest first (ties by id descending), filtered by type and
/// strictly after `since`, with exact totals, and stay their agent's.
pub async fn events_list_newest_first_by_type_and_time_and_stay_their_agents(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let endpoint = endpoint(&a, "https://example.com/hook", t(0));
    assert!(r.webhook_endpoints.insert(&endpoint, 16).await.unwrap());
    let mut made = Vec::new();
    for (i, kind) in [EventType::ContactCreated, EventType::MessageReceived, EventType::ContactCreated, EventType::ActivityUpdated]
        .into_iter()
        .enumerate()
    {
        let e = event(&a, kind, t(10 * i as i64));
        r.events.emit(&e, None).await.unwrap();
        made.push(e);
    }
    // Two at the same millisecond: the id breaks the tie, descending.
    let tied = event(&a, EventType::ContactUpdated, t(30));
    r.events.emit(&tied, None).await.unwrap();
    let ping = event(&a, EventType::Ping, t(40));
    r.events.emit(&ping, Some(&endpoint.id)).await.unwrap();
    r.events.emit(&event(&b, EventType::ContactCreated, t(50)), None).await.unwrap();

    let ids = |events: &[Event]| events.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
    let all = r.events.list(&a, &EventFilter::default(), page(100, 0)).await.unwrap();
    let mut at_30 = vec![made[3].id.clone(), tied.id.clone()];
    at_30.sort_by(|x, y| y.cmp(x));
    let expected: Vec<EventId> = [vec![ping.id.clone()], at_30, vec![made[2].id.clone(), made[1].id.clone(), made[0].id.clone()]].concat();
    assert_eq!((all.total, ids(&all.items)), (6, expected.clone()));
    assert_eq!(all.items[4], made[1], "each event reads back whole");

    let filter = |event_type, since| EventFilter { event_type, since };
    let created = r.events.list(&a, &filter(Some(EventType::ContactCreated), None), page(100, 0)).await.unwrap();
    assert_eq!((created.total, ids(&created.items)), (2, vec![made[2].id.clone(), made[0].id.clone()]));
    let recent = r.events.list(&a, &filter(None, Some(t(20))), page(100, 0)).await.unwrap();
    assert_eq!(recent.total, 3, "strictly after `since`");
    let both = r.events.list(&a, &filter(Some(EventType::ContactCreated), Some(t(0))), page(100, 0)).await.unwrap();
    assert_eq!(ids(&both.items), vec![made[2].id.clone()]);
    let second_page = r.events.list(&a, &EventFilter::default(), page(2, 2)).await.unwrap();
    assert_eq!((second_page.total, ids(&second_page.items)), (6, expected[2..4].to_vec()));

    assert_eq!(r.events.get(&a, &made[1].id).await.unwrap(), Some(made[1].clone()));
    assert_eq!(r.events.get(&b, &made[1].id).await.unwrap(), None, "another agent's");
    assert_eq!(r.events.list(&b, &EventFilter::default(), page(100, 0)).await.unwrap().total, 1);
}

/// The outbox's fan-out: an event is due once for each of its agent's enabled endpoints
/// subscribed to its type (a ping to the one endpoint named), and a claim holds it until its
/// lease ends.
pub async fn emitted_events_are_due_for_each_subscribed_endpoint_and_claimed_once(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let subscribed = endpoint(&a, "https://example.com/contacts", t(0));
    let everything = WebhookEndpoint { events: EventSelection::All, ..endpoint(&a, "https://example.com/all", t(0)) };
    let elsewhere = WebhookEndpoint {
        events: EventSelection::new(&["template.updated".into()]).unwrap(),
        ..endpoint(&a, "https://example.com/t", t(0))
    };
    let off = WebhookEndpoint {
        events: EventSelection::All,
        disabled: Some(Disabled { at: t(0), reason: DisabledReason::ByOwner }),
        ..endpoint(&a, "https://example.com/off", t(0))
    };
    let theirs = WebhookEndpoint { events: EventSelection::All, ..endpoint(&b, "https://example.com/b", t(0)) };
    for e in [&subscribed, &everything, &elsewhere, &off, &theirs] {
        assert!(r.webhook_endpoints.insert(e, 16).await.unwrap());
    }
    let created = event(&a, EventType::ContactCreated, t(10));
    r.events.emit(&created, None).await.unwrap();
    let ping = event(&a, EventType::Ping, t(11));
    r.events.emit(&ping, Some(&elsewhere.id)).await.unwrap();

    let key = |d: &DueDelivery| (d.event.id.clone(), d.endpoint.id.clone());
    let mut expected = vec![(created.id.clone(), subscribed.id.clone()), (created.id.clone(), everything.id.clone())];
    expected.sort();
    assert!(r.events.claim_due(t(9), t(100), 10).await.unwrap().is_empty(), "not due before the event");
    let claimed = r.events.claim_due(t(10), t(100), 10).await.unwrap();
    let mut keys: Vec<_> = claimed.iter().map(key).collect();
    keys.sort();
    assert_eq!(keys, expected, "the subscribed and enabled endpoints of the event's agent");
    let first = claimed.iter().find(|d| d.endpoint.id == subscribed.id).unwrap();
    assert_eq!((&first.event, &first.endpoint, first.attempts), (&created, &subscribed, 0), "each read back whole");

    let ping_claim = r.events.claim_due(t(11), t(100), 10).await.unwrap();
    assert_eq!(
        ping_claim.iter().map(key).collect::<Vec<_>>(),
        vec![(ping.id.clone(), elsewhere.id.clone())],
        "a ping goes where it is sent, subscribed or not"
    );
    assert!(r.events.claim_due(t(99), t(200), 10).await.unwrap().is_empty(), "claimed until the lease ends");
    let again = r.events.claim_due(t(100), t(200), 1).await.unwrap();
    assert_eq!((again.len(), &again[0].event), (1, &created), "due again after the lease, oldest first, within the limit");
    assert!(
        r.events.claim_due(t(1000), t(2000), 10).await.unwrap().iter().all(|d| d.endpoint.agent_id == a),
        "never another agent's endpoint"
    );
}

/// Attempts are recorded under the claim that made them, with what they change about the
/// delivery and the endpoint; an endpoint's attempts list newest first and stay its agent's.
pub async fn attempts_are_recorded_under_their_claim_and_listed_newest_first(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let target = WebhookEndpoint { events: EventSelection::All, ..endpoint(&a, "https://example.com/all", t(0)) };
    assert!(r.webhook_endpoints.insert(&target, 16).await.unwrap());
    let created = event(&a, EventType::ContactCreated, t(10));
    r.events.emit(&created, None).await.unwrap();
    assert_eq!(r.events.backlog().await.unwrap(), 1);

    let failed = DeliveryAttempt {
        event_id: created.id.clone(),
        endpoint_id: target.id.clone(),
        attempt: 1,
        attempted_at: t(20),
        response_status: Some(500),
        duration_ms: 12,
        error: Some("the endpoint answered 500".into()),
        next_attempt_at: Some(t(80)),
    };
    assert!(!r.events.record_attempt(&failed, t(100), EndpointAfterAttempt::Failing).await.unwrap(), "not claimed: not recorded");
    assert_eq!(r.events.claim_due(t(20), t(100), 10).await.unwrap().len(), 1);
    assert!(r.events.record_attempt(&failed, t(100), EndpointAfterAttempt::Failing).await.unwrap());
    assert_eq!(r.webhook_endpoints.get(&a, &target.id).await.unwrap().unwrap().failing_since, Some(t(20)));
    assert!(r.events.claim_due(t(79), t(200), 10).await.unwrap().is_empty(), "waits for its retry");

    let retry = r.events.claim_due(t(80), t(200), 10).await.unwrap();
    assert_eq!(retry[0].attempts, 1, "the count carries to the next claim");
    // A claim whose lease ran out (its worker died, or took too long) is taken over.
    assert!(r.events.claim_due(t(199), t(300), 10).await.unwrap().is_empty(), "held until the lease ends");
    assert_eq!(r.events.claim_due(t(200), t(300), 10).await.unwrap().len(), 1);
    let delivered = DeliveryAttempt {
        attempt: 2,
        attempted_at: t(90),
        response_status: Some(204),
        duration_ms: 3,
        error: None,
        next_attempt_at: None,
        ..failed.clone()
    };
    assert!(!r.events.record_attempt(&delivered, t(200), EndpointAfterAttempt::Healthy).await.unwrap(), "that claim was taken over");
    assert!(r.events.record_attempt(&delivered, t(300), EndpointAfterAttempt::Healthy).await.unwrap());
    assert_eq!(r.webhook_endpoints.get(&a, &target.id).await.unwrap().unwrap().failing_since, None, "healthy again");
    assert_eq!(r.events.backlog().await.unwrap(), 0);
    assert!(r.events.claim_due(t(10_000), t(20_000), 10).await.unwrap().is_empty(), "delivered: never due again");

    let listed = r.events.attempts(&a, &target.id, page(10, 0)).await.unwrap();
    assert_eq!((listed.total, listed.items), (2, vec![delivered.clone(), failed.clone()]), "newest first, whole");
    assert_eq!(r.events.attempts(&a, &target.id, page(1, 1)).await.unwrap().items, vec![failed.clone()]);
    assert!(matches!(r.events.attempts(&b, &target.id, page(10, 0)).await, Err(crate::StoreError::NotFound(_))), "another agent's");

    // Redelivery makes it due now, counting on; never across agents.
    assert!(!r.events.redeliver(&b, &created.id, &target.id, t(500)).await.unwrap());
    assert!(r.events.redeliver(&a, &created.id, &target.id, t(500)).await.unwrap());
    let again = r.events.claim_due(t(500), t(600), 10).await.unwrap();
    assert_eq!((again.len(), again[0].attempts), (1, 2));

    // A failure after 3 days of them disables the endpoint, whose deliveries then wait.
    let last = DeliveryAttempt { attempt: 3, attempted_at: t(510), next_attempt_at: None, ..failed.clone() };
    assert!(r.events.record_attempt(&last, t(600), EndpointAfterAttempt::Disable).await.unwrap());
    let off = r.webhook_endpoints.get(&a, &target.id).await.unwrap().unwrap();
    assert_eq!(off.disabled.map(|d| (d.at, d.reason)), Some((t(510), DisabledReason::Failing)));
    assert!(r.events.redeliver(&a, &created.id, &target.id, t(700)).await.unwrap());
    assert!(r.events.claim_due(t(700), t(800), 10).await.unwrap().is_empty(), "a disabled endpoint's deliveries wait");
    let on = WebhookEndpoint { disabled: None, failing_since: None, ..off };
    assert!(r.webhook_endpoints.update(&on).await.unwrap());
    assert_eq!(r.events.claim_due(t(700), t(800), 10).await.unwrap().len(), 1, "and go once it is enabled");

    // A ping to an endpoint that never subscribed can be redelivered too.
    let other = WebhookEndpoint {
        events: EventSelection::new(&["template.updated".into()]).unwrap(),
        ..endpoint(&a, "https://example.com/t", t(0))
    };
    assert!(r.webhook_endpoints.insert(&other, 16).await.unwrap());
    assert!(r.events.redeliver(&a, &created.id, &other.id, t(900)).await.unwrap());
    let first_time = r.events.claim_due(t(900), t(1000), 10).await.unwrap();
    let to_other: Vec<_> = first_time.iter().filter(|d| d.endpoint.id == other.id).map(|d| (&d.event.id, d.attempts)).collect();
    assert_eq!(to_other, vec![(&created.id, 0)]);
}

/// Retention deletes the oldest events with their deliveries and attempts, a batch at a time.
pub async fn old_events_are_deleted_with_their_deliveries_in_batches(r: Repositories) {
    let a = agent(&r, "A").await;
    let target = WebhookEndpoint { events: EventSelection::All, ..endpoint(&a, "https://example.com/all", t(0)) };
    assert!(r.webhook_endpoints.insert(&target, 16).await.unwrap());
    let made: Vec<Event> = (0..5).map(|i| event(&a, EventType::ContactUpdated, t(10 + i))).collect();
    for e in &made {
        r.events.emit(e, None).await.unwrap();
    }
    assert_eq!(r.events.delete_before(t(13), 2).await.unwrap(), 2, "at most the batch");
    assert_eq!(r.events.delete_before(t(13), 2).await.unwrap(), 1);
    assert_eq!(r.events.delete_before(t(13), 2).await.unwrap(), 0);
    let left = r.events.list(&a, &EventFilter::default(), page(10, 0)).await.unwrap();
    assert_eq!(left.items.iter().map(|e| e.id.clone()).collect::<Vec<_>>(), vec![made[4].id.clone(), made[3].id.clone()]);
    assert_eq!(r.events.backlog().await.unwrap(), 2, "the deleted events' deliveries went with them");
}

/// The types of the agent's stored events, oldest first (each test's events have distinct times).
pub(crate) async fn listed_types(r: &Repositories, agent: &AgentId) -> Vec<&'static str> {
    let listed = r.events.list(agent, &EventFilter::default(), page(100, 0)).await.unwrap();
    listed.items.iter().rev().map(|e| e.event_type.as_str()).collect()
}

/// Writes carry their events: written with a change that takes effect, never with one that
/// does not (a conflict, a tag already attached, a lost compare-and-set).
pub async fn events_are_written_with_their_change_and_only_when_it_takes_effect(r: Repositories) {
    use crate::conformance::fixtures::{contact, phone, tag};
    let a = agent(&r, "A").await;
    let ana = contact(&a, "Ana", phone("5215550001"), t(1));
    r.contacts.insert(&ana, &[event(&a, EventType::ContactCreated, t(1))]).await.unwrap();
    let twin = contact(&a, "Twin", phone("5215550001"), t(2));
    assert!(r.contacts.insert(&twin, &[event(&a, EventType::ContactCreated, t(2))]).await.is_err(), "the channel is taken");
    assert_eq!(listed_types(&r, &a).await, vec!["contact.created"], "a refused insert emits nothing");

    let unknown = contact(&a, "Nobody", phone("5215550002"), t(3));
    assert!(!r.contacts.update(&unknown, &[event(&a, EventType::ContactUpdated, t(3))]).await.unwrap());
    assert_eq!(listed_types(&r, &a).await.len(), 1, "an update of nothing emits nothing");

    let act = crate::conformance::fixtures::activity(&a, &ana.id, ActivityStatus::Open, t(4));
    r.activities.insert(&act, &[event(&a, EventType::ActivityCreated, t(4))]).await.unwrap();
    let vip = tag(&a, "vip", t(5));
    r.tags.insert(&vip, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    let attach = |at: i64| event(&a, EventType::ActivityUpdated, t(at));
    assert!(r.activities.attach_tags(&a, &act.id, std::slice::from_ref(&vip.id), t(6), &[attach(6)]).await.unwrap());
    assert!(r.activities.attach_tags(&a, &act.id, std::slice::from_ref(&vip.id), t(7), &[attach(7)]).await.unwrap());
    assert!(r.activities.detach_tag(&a, &act.id, &vip.id, t(8), &[attach(8)]).await.unwrap());
    assert!(r.activities.detach_tag(&a, &act.id, &vip.id, t(9), &[attach(9)]).await.unwrap());
    assert_eq!(
        listed_types(&r, &a).await,
        vec!["contact.created", "activity.created", "activity.updated", "activity.updated"],
        "attaching what is attached, or detaching what is not, emits nothing"
    );
}

/// A tag's writes carry their events as every change does: a created, renamed or deleted tag
/// stores its event; a refused one (a taken name, the agent's limit, an unknown or another
/// agent's tag) stores none.
pub async fn tag_writes_carry_their_events_only_when_they_take_effect(r: Repositories) {
    use crate::conformance::fixtures::tag;
    let (a, b) = (agent(&r, "A").await, agent(&r, "B").await);
    let vip = tag(&a, "vip", t(1));
    assert!(r.tags.insert(&vip, 2, &[event(&a, EventType::TagCreated, t(1))]).await.unwrap());
    let twin = tag(&a, "VIP", t(2));
    assert!(r.tags.insert(&twin, 2, &[event(&a, EventType::TagCreated, t(2))]).await.is_err(), "the name is taken");
    let second = tag(&a, "second", t(3));
    assert!(r.tags.insert(&second, 2, &[event(&a, EventType::TagCreated, t(3))]).await.unwrap());
    let third = tag(&a, "third", t(4));
    assert!(!r.tags.insert(&third, 2, &[event(&a, EventType::TagCreated, t(4))]).await.unwrap(), "the agent's limit");
    assert_eq!(listed_types(&r, &a).await, ["tag.created", "tag.created"], "refused inserts emit nothing");

    let mut clash = second.clone();
    clash.name = TagName::new("Vip").unwrap();
    assert!(r.tags.update(&clash, &[event(&a, EventType::TagUpdated, t(5))]).await.is_err(), "the name is taken");
    assert!(!r.tags.update(&third, &[event(&a, EventType::TagUpdated, t(5))]).await.unwrap(), "an unknown tag");
    let mut renamed = second.clone();
    renamed.name = TagName::new("gold").unwrap();
    renamed.updated_at = t(6);
    assert!(r.tags.update(&renamed, &[event(&a, EventType::TagUpdated, t(6))]).await.unwrap());
    assert_eq!(r.tags.get(&a, &second.id).await.unwrap().unwrap().name.as_str(), "gold", "the rename was kept");

    assert!(!r.tags.delete(&b, &vip.id, &[event(&b, EventType::TagDeleted, t(7))]).await.unwrap(), "another agent's tag");
    assert!(!r.tags.delete(&a, &third.id, &[event(&a, EventType::TagDeleted, t(7))]).await.unwrap(), "an unknown tag");
    assert!(r.tags.delete(&a, &vip.id, &[event(&a, EventType::TagDeleted, t(8))]).await.unwrap());
    assert_eq!(listed_types(&r, &a).await, ["tag.created", "tag.created", "tag.updated", "tag.deleted"]);
    assert!(listed_types(&r, &b).await.is_empty(), "nothing written for the other agent");
}

/// A worker claims endpoint by endpoint: the endpoints with deliveries due (enabled ones), and
/// each one's own deliveries, so a slow endpoint's backlog never stands before another's.
pub async fn deliveries_are_claimed_endpoint_by_endpoint(r: Repositories) {
    let a = agent(&r, "A").await;
    let slow = WebhookEndpoint { events: EventSelection::All, ..endpoint(&a, "https://example.com/slow", t(0)) };
    let quick = WebhookEndpoint { events: EventSelection::All, ..endpoint(&a, "https://example.com/quick", t(0)) };
    let off = WebhookEndpoint {
        events: EventSelection::All,
        disabled: Some(Disabled { at: t(0), reason: DisabledReason::ByOwner }),
        ..endpoint(&a, "https://example.com/off", t(0))
    };
    for e in [&slow, &quick, &off] {
        assert!(r.webhook_endpoints.insert(e, 16).await.unwrap());
    }
    for i in 0..5 {
        r.events.emit(&event(&a, EventType::ContactCreated, t(10 + i)), None).await.unwrap();
    }
    let ids = |due: Vec<DueEndpoint>| due.into_iter().map(|d| d.id).collect::<Vec<_>>();
    let mut due = ids(r.events.due_endpoints(t(20), 10).await.unwrap());
    due.sort();
    let mut expected = vec![slow.id.clone(), quick.id.clone()];
    expected.sort();
    assert_eq!(due, expected, "enabled endpoints with deliveries due, each once");
    assert!(r.events.due_endpoints(t(9), 10).await.unwrap().is_empty(), "nothing due yet");

    let slow_share = r.events.claim_due_for(&slow.id, t(20), t(100), 3).await.unwrap();
    assert_eq!(slow_share.len(), 3);
    assert!(slow_share.iter().all(|d| d.endpoint.id == slow.id), "only that endpoint's");
    assert_eq!(slow_share[0].event.created_at, t(10), "oldest first");
    let quick_share = r.events.claim_due_for(&quick.id, t(20), t(100), 10).await.unwrap();
    assert_eq!(quick_share.len(), 5, "another endpoint's share is untouched by the first claim");
    assert_eq!(ids(r.events.due_endpoints(t(20), 10).await.unwrap()), vec![slow.id.clone()], "the quick one is all claimed");
    assert!(r.events.claim_due_for(&off.id, t(20), t(100), 10).await.unwrap().is_empty(), "a disabled endpoint's wait");
}

/// The worker looks at the least recently served endpoints first, whoever owns them, so a
/// tenant with many endpoints with work cannot keep another's out of every pass.
pub async fn due_endpoints_come_least_recently_served_first(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let mut busy: Vec<WebhookEndpoint> = Vec::new();
    for n in 0..4 {
        let e = WebhookEndpoint { events: EventSelection::All, ..endpoint(&a, &format!("https://example.com/{n}"), t(0)) };
        assert!(r.webhook_endpoints.insert(&e, 16).await.unwrap());
        busy.push(e);
    }
    let theirs = WebhookEndpoint { events: EventSelection::All, ..endpoint(&b, "https://example.com/b", t(0)) };
    assert!(r.webhook_endpoints.insert(&theirs, 16).await.unwrap());
    for i in 0..3 {
        r.events.emit(&event(&a, EventType::ContactCreated, t(10 + i)), None).await.unwrap();
    }
    r.events.emit(&event(&b, EventType::ContactCreated, t(10)), None).await.unwrap();

    // A's endpoints are served one claim each, B's never: B's comes first however its id sorts.
    for (i, e) in busy.iter().enumerate() {
        assert_eq!(r.events.claim_due_for(&e.id, t(20 + i as i64), t(21 + i as i64), 1).await.unwrap().len(), 1);
    }
    let due = r.events.due_endpoints(t(100), 10).await.unwrap();
    let order: Vec<&EndpointId> = due.iter().map(|d| &d.id).collect();
    let expected: Vec<&EndpointId> = std::iter::once(&theirs.id).chain(busy.iter().map(|e| &e.id)).collect();
    assert_eq!(order, expected, "never served first, then the longest ago");
    assert_eq!(due[0], DueEndpoint { id: theirs.id.clone(), agent_id: b.clone(), failing: false }, "with its owner");
    assert_eq!(r.events.due_endpoints(t(100), 1).await.unwrap()[0].id, theirs.id, "a short pass still reaches it");

    // Serving B's moves it to the back; an endpoint claimed with nothing to take counts too.
    assert_eq!(r.events.claim_due_for(&theirs.id, t(100), t(200), 10).await.unwrap().len(), 1);
    assert!(r.events.claim_due_for(&theirs.id, t(101), t(201), 10).await.unwrap().is_empty());
    r.events.emit(&event(&b, EventType::ContactCreated, t(102)), None).await.unwrap();
    let order: Vec<EndpointId> = r.events.due_endpoints(t(102), 10).await.unwrap().into_iter().map(|d| d.id).collect();
    assert_eq!(order.last(), Some(&theirs.id), "served last: looked at last");
}

/// An endpoint's breaker, open after a failure of an endpoint already failing, keeps its
/// deliveries unclaimed until it closes; a success closes it and clears the failing record.
pub async fn an_open_breaker_holds_an_endpoints_deliveries_until_it_closes(r: Repositories) {
    let a = agent(&r, "A").await;
    let target = WebhookEndpoint { events: EventSelection::All, ..endpoint(&a, "https://example.com/hangs", t(0)) };
    assert!(r.webhook_endpoints.insert(&target, 16).await.unwrap());
    for i in 0..3 {
        r.events.emit(&event(&a, EventType::ContactCreated, t(10 + i)), None).await.unwrap();
    }
    let first = r.events.claim_due_for(&target.id, t(20), t(80), 1).await.unwrap().remove(0);
    let failed = |d: &DueDelivery, at: i64, n: u32| DeliveryAttempt {
        event_id: d.event.id.clone(),
        endpoint_id: d.endpoint.id.clone(),
        attempt: n,
        attempted_at: t(at),
        response_status: None,
        duration_ms: 10_000,
        error: Some("no answer within 10000 ms".into()),
        next_attempt_at: Some(t(at + 60)),
    };
    assert!(r.events.record_attempt(&failed(&first, 30, 1), t(80), EndpointAfterAttempt::Failing).await.unwrap());
    let due = r.events.due_endpoints(t(31), 10).await.unwrap();
    assert_eq!(due.len(), 1);
    assert!(due[0].failing, "failing: the worker sends it one at a time");

    let second = r.events.claim_due_for(&target.id, t(31), t(90), 1).await.unwrap().remove(0);
    assert!(r.events.record_attempt(&failed(&second, 41, 1), t(90), EndpointAfterAttempt::Pause(t(60))).await.unwrap());
    assert_eq!(r.webhook_endpoints.get(&a, &target.id).await.unwrap().unwrap().paused_until, Some(t(60)));
    assert!(r.events.due_endpoints(t(59), 10).await.unwrap().is_empty(), "open: not due, though a delivery is");
    assert!(r.events.claim_due_for(&target.id, t(59), t(120), 10).await.unwrap().is_empty(), "and nothing of it is claimed");
    assert_eq!(r.events.due_endpoints(t(60), 10).await.unwrap().len(), 1, "due again once the pause is over");

    let probe = r.events.claim_due_for(&target.id, t(60), t(120), 1).await.unwrap().remove(0);
    let delivered = DeliveryAttempt { response_status: Some(200), error: None, next_attempt_at: None, ..failed(&probe, 61, 1) };
    assert!(r.events.record_attempt(&delivered, t(120), EndpointAfterAttempt::Healthy).await.unwrap());
    let healthy = r.webhook_endpoints.get(&a, &target.id).await.unwrap().unwrap();
    assert_eq!((healthy.failing_since, healthy.paused_until), (None, None), "closed and healthy");
    assert!(!r.events.due_endpoints(t(200), 10).await.unwrap()[0].failing);
}

/// An agent's endpoints stop at the limit it is given, the count and the insert one step;
/// other agents are not counted.
pub async fn an_agents_endpoints_stop_at_the_limit(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    for n in 0..2 {
        assert!(r.webhook_endpoints.insert(&endpoint(&a, &format!("https://example.com/{n}"), t(n)), 2).await.unwrap());
    }
    let third = endpoint(&a, "https://example.com/third", t(5));
    assert!(!r.webhook_endpoints.insert(&third, 2).await.unwrap(), "over the limit");
    assert_eq!(r.webhook_endpoints.get(&a, &third.id).await.unwrap(), None, "nothing written");
    assert_eq!(r.webhook_endpoints.list(&a, page(10, 0)).await.unwrap().total, 2);
    assert!(r.webhook_endpoints.insert(&endpoint(&b, "https://example.com/b", t(0)), 2).await.unwrap(), "another agent's own count");
    assert!(r.webhook_endpoints.insert(&third, 3).await.unwrap(), "a higher limit");

    // Concurrent creations never pass the limit together.
    let c = agent(&r, "C").await;
    let tries = (0..6).map(|n| {
        let (r, e) = (r.clone(), endpoint(&c, &format!("https://example.com/c{n}"), t(n)));
        async move { r.webhook_endpoints.insert(&e, 4).await.unwrap() }
    });
    let made = futures_util::future::join_all(tries).await.into_iter().filter(|&made| made).count();
    assert_eq!(made, 4);
    assert_eq!(r.webhook_endpoints.list(&c, page(10, 0)).await.unwrap().total, 4);
}

/// Streams read events after a cursor oldest first (`created_at`, then id), of one agent or of
/// all, at most `limit`; a cursor after an event excludes it and every event before it.
pub async fn events_are_read_after_a_cursor_oldest_first(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let first = event(&a, EventType::ContactCreated, t(10));
    let theirs = event(&b, EventType::ContactCreated, t(15));
    let mut tied = [event(&a, EventType::ContactUpdated, t(20)), event(&a, EventType::TagCreated, t(20))];
    tied.sort_by(|x, y| x.id.cmp(&y.id));
    let last = event(&a, EventType::ActivityUpdated, t(30));
    for e in [&last, &tied[1], &first, &theirs, &tied[0]] {
        r.events.emit(e, None).await.unwrap();
    }
    let ids = |events: Vec<Event>| events.into_iter().map(|e| e.id).collect::<Vec<_>>();
    let from_start = r.events.after(Some(&a), &EventCursor::from(t(0)), 100).await.unwrap();
    assert_eq!(ids(from_start), [&first, &tied[0], &tied[1], &last].map(|e| e.id.clone()));
    let everyone = r.events.after(None, &EventCursor::from(t(10)), 100).await.unwrap();
    assert_eq!(ids(everyone), [&first, &theirs, &tied[0], &tied[1], &last].map(|e| e.id.clone()), "every agent's, `at` included");
    let past_tie = r.events.after(Some(&a), &EventCursor::after(&tied[0]), 100).await.unwrap();
    assert_eq!(ids(past_tie), [&tied[1], &last].map(|e| e.id.clone()), "the tie is broken by id");
    let limited = r.events.after(None, &EventCursor::after(&first), 2).await.unwrap();
    assert_eq!(ids(limited), [&theirs, &tied[0]].map(|e| e.id.clone()));
    assert!(r.events.after(Some(&b), &EventCursor::after(&theirs), 100).await.unwrap().is_empty());
    assert_eq!(r.events.after(Some(&a), &EventCursor::from(t(30)), 1).await.unwrap(), vec![last.clone()], "read back whole");
}
