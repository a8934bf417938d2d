//! The domain's services against the in-memory adapters: what a reuser's own tests look like,
//! with a store that keeps every port's contract (it passes the conformance suite) and no
//! database. Each test wires only the ports its services take.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parley_domain::model::*;
use parley_domain::ports::{Clock, IdSource, Repositories};
use parley_domain::services::*;

struct StepClock(AtomicU64);

impl Clock for StepClock {
    /// One second later at every call, so orderings by time are strict.
    fn now(&self) -> Timestamp {
        let step = self.0.fetch_add(1, Ordering::Relaxed) as i64;
        chrono::DateTime::from_timestamp(1_800_000_000 + step, 0).unwrap()
    }
}

#[derive(Default)]
struct CountingIds(AtomicU64);

impl IdSource for CountingIds {
    fn new_id(&self, kind: IdKind) -> String {
        format!("{}_{:06}", kind.prefix(), self.0.fetch_add(1, Ordering::Relaxed))
    }
    fn secret(&self, len: usize) -> String {
        "k".repeat(len)
    }
    fn code(&self, alphabet: &'static [u8], len: usize) -> String {
        let n = self.0.fetch_add(1, Ordering::Relaxed) as usize;
        (0..len).map(|i| alphabet[(n + i) % alphabet.len()] as char).collect()
    }
    fn bytes(&self, len: usize) -> Vec<u8> {
        vec![1; len]
    }
    fn unit(&self) -> f64 {
        0.5
    }
}

struct World {
    repos: Repositories,
    clock: Arc<StepClock>,
    ids: Arc<CountingIds>,
    agent: AgentId,
}

async fn world() -> World {
    let repos = parley_adapters_memory::repositories();
    let clock = Arc::new(StepClock(AtomicU64::new(0)));
    let ids = Arc::new(CountingIds::default());
    let keys = KeyService::new(repos.agents.clone(), repos.keys.clone(), clock.clone(), ids.clone());
    let agent = keys.create_agent("Loja da Esquina").await.unwrap().id;
    World { repos, clock, ids, agent }
}

impl World {
    fn contacts(&self) -> ContactService {
        ContactService::new(self.repos.contacts.clone(), self.clock.clone(), self.ids.clone())
    }

    fn activities(&self) -> ActivityService {
        let r = &self.repos;
        ActivityService::new(
            r.activities.clone(),
            r.messages.clone(),
            r.contacts.clone(),
            r.tags.clone(),
            r.members.clone(),
            self.clock.clone(),
            self.ids.clone(),
        )
    }

    fn tags(&self) -> TagService {
        TagService::new(self.repos.tags.clone(), self.clock.clone(), self.ids.clone())
    }

    async fn events(&self) -> Vec<EventType> {
        let page = self.repos.events.list(&self.agent, &EventFilter::default(), PageRequest::new(100, 0)).await.unwrap();
        page.items.into_iter().rev().map(|e| e.event_type).collect()
    }
}

fn whatsapp(number: &str, name: &str) -> NewContactInput {
    NewContactInput {
        channel_type: Some("whatsapp".into()),
        channel_id: Some(number.into()),
        profile_name: Some(name.into()),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_contact_opens_one_conversation_and_every_change_is_an_event() {
    let w = world().await;
    let ana = w.contacts().create(&w.agent, whatsapp("+351 912 345 678", "Ana")).await.unwrap();
    assert_eq!(ana.channels[0].channel_id(), "351912345678", "the number is kept as digits");

    let (first, opened) = w.activities().open(&w.agent, Some(ana.id.as_str().to_string())).await.unwrap();
    let (again, opened_again) = w.activities().open(&w.agent, Some(ana.id.as_str().to_string())).await.unwrap();
    assert!(opened && !opened_again, "a contact has one activity");
    assert_eq!(first.view.activity.id, again.view.activity.id);
    assert_eq!(first.view.activity.status, ActivityStatus::Pending);

    let patch = ActivityPatchInput { status: Patch::Set("open".into()), ..Default::default() };
    let open = w.activities().update(&w.agent, &first.view.activity.id, patch).await.unwrap();
    assert_eq!(open.view.activity.status, ActivityStatus::Open);

    assert_eq!(w.events().await, vec![EventType::ContactCreated, EventType::ActivityCreated, EventType::ActivityUpdated]);
}

#[tokio::test]
async fn the_inbox_filters_by_tag_and_refuses_what_the_rules_refuse() {
    let w = world().await;
    let vip = w.tags().create(&w.agent, NewTagInput { name: Some("VIP".into()), ..Default::default() }).await.unwrap();
    let mut activities = Vec::new();
    for (number, name) in [("351900000001", "Ana"), ("351900000002", "Rui")] {
        let contact = w.contacts().create(&w.agent, whatsapp(number, name)).await.unwrap();
        let (detail, _) = w.activities().open(&w.agent, Some(contact.id.as_str().to_string())).await.unwrap();
        activities.push(detail.view.activity.id);
    }
    w.activities().attach_tags(&w.agent, &activities[1], Some(vec![vip.id.as_str().to_string()])).await.unwrap();

    let tagged = ActivityListQuery { tag: Some(vip.id.as_str().to_string()), ..Default::default() };
    let page = w.activities().list(&w.agent, tagged).await.unwrap();
    assert_eq!(page.items.iter().map(|v| v.activity.id.clone()).collect::<Vec<_>>(), vec![activities[1].clone()]);
    assert_eq!(page.total, 1);

    // The same number is the same contact; another agent's ids are unknown here.
    let twice = w.contacts().create(&w.agent, whatsapp("+351 900 000 001", "Ana again")).await.unwrap_err();
    assert_eq!(twice.code(), "CONFLICT");
    let elsewhere = world().await;
    let unknown = elsewhere.activities().get(&elsewhere.agent, &activities[0]).await.unwrap_err();
    assert_eq!(unknown.code(), "NOT_FOUND");
}
