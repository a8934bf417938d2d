//! The contract of the first-response clock: [`FirstResponseRepository`](crate::ports::FirstResponseRepository)
//! and what [`MessageRepository::insert_marked`](crate::ports::MessageRepository::insert_marked)
//! and a scheduled message's start move on it.

use super::messages::message;
use super::scheduled::scheduled;
use crate::conformance::fixtures::*;
use crate::events::conformance::event;
use crate::model::*;
use crate::ports::Repositories;

async fn clock(r: &Repositories, agent: &AgentId, activity: &ActivityId) -> FirstResponse {
    r.activities.get(agent, activity).await.unwrap().unwrap().activity.first_response
}

fn answer(agent: &AgentId, activity: &ActivityId, body: &str, at: Timestamp) -> Message {
    Message { direction: MessageDirection::Outbound, status: MessageStatus::Sent, ..message(agent, activity, body, at) }
}

/// A target is one per agent, replaced, removed. The contact's message that opens a
/// conversation (its first, or one to a conversation not open) starts the clock; later ones
/// while it runs, a repeated delivery and unmarked messages leave it; the team's first answer
/// after the start stops it, once; a status change keeps it; reopening restarts it; a
/// scheduled message of no campaign answers as it starts. Lists show it as gets do.
pub async fn the_first_response_clock_starts_at_an_opening_and_stops_at_the_first_answer(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    assert_eq!(r.first_response.target(&a).await.unwrap(), None);
    r.first_response.set_target(&a, Some(ResponseTarget::new(30).unwrap()), t(1)).await.unwrap();
    r.first_response.set_target(&a, Some(ResponseTarget::new(45).unwrap()), t(2)).await.unwrap();
    assert_eq!(r.first_response.target(&a).await.unwrap(), Some(ResponseTarget::new(45).unwrap()), "replaced");
    assert_eq!(r.first_response.target(&b).await.unwrap(), None, "another agent's");
    r.first_response.set_target(&b, Some(ResponseTarget::new(5).unwrap()), t(2)).await.unwrap();
    r.first_response.set_target(&b, None, t(3)).await.unwrap();
    assert_eq!(r.first_response.target(&b).await.unwrap(), None, "removed");

    let ana = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    assert_eq!(clock(&r, &a, &ana.id).await, FirstResponse::default(), "nothing before the contact writes");
    let first = Message { platform_message_id: Some("pm.1".into()), ..message(&a, &ana.id, "hello", t(10)) };
    assert!(r.messages.insert_marked(&first, None, ResponseMark::Opens { due: Some(t(70)) }, &[]).await.unwrap());
    let started = FirstResponse::started(t(10), Some(t(70)));
    assert_eq!(clock(&r, &a, &ana.id).await, started, "the contact's first message opens it");
    let again = Message { id: MessageId::new(id("msg")), created_at: t(15), ..first.clone() };
    assert!(!r.messages.insert_marked(&again, None, ResponseMark::Opens { due: Some(t(99)) }, &[]).await.unwrap());
    let more = message(&a, &ana.id, "anyone?", t(20));
    assert!(r.messages.insert_marked(&more, None, ResponseMark::Opens { due: Some(t(80)) }, &[]).await.unwrap());
    assert_eq!(clock(&r, &a, &ana.id).await, started, "a repeated delivery and a second message restart nothing");

    let campaign = answer(&a, &ana.id, "sale!", t(25));
    assert!(r.messages.insert_marked(&campaign, None, ResponseMark::Nothing, &[]).await.unwrap());
    assert_eq!(clock(&r, &a, &ana.id).await, started, "an unmarked message answers nobody");
    assert!(r.messages.insert_marked(&answer(&a, &ana.id, "hi Ana", t(30)), None, ResponseMark::Answers, &[]).await.unwrap());
    let answered = FirstResponse { responded_at: Some(t(30)), ..started };
    assert_eq!(clock(&r, &a, &ana.id).await, answered);
    assert!(r.messages.insert_marked(&answer(&a, &ana.id, "and", t(40)), None, ResponseMark::Answers, &[]).await.unwrap());
    assert_eq!(clock(&r, &a, &ana.id).await, answered, "only the first answer");

    let mut closed = r.activities.get(&a, &ana.id).await.unwrap().unwrap().activity;
    closed.status = ActivityStatus::Closed;
    closed.updated_at = t(50);
    assert!(r.activities.update(ActivityWrite::of(&closed), &[]).await.unwrap());
    assert_eq!(clock(&r, &a, &ana.id).await, answered, "closing keeps the clock");
    let back = message(&a, &ana.id, "me again", t(100));
    assert!(r.messages.insert_marked(&back, None, ResponseMark::Opens { due: None }, &[]).await.unwrap());
    assert_eq!(clock(&r, &a, &ana.id).await, FirstResponse::started(t(100), None), "reopened: a new opening, no target then");

    let (later, send) = scheduled(&a, &ana.id, "see you", t(150), t(101));
    r.scheduled.schedule(&later, &send).await.unwrap();
    assert_eq!(clock(&r, &a, &ana.id).await, FirstResponse::started(t(100), None), "a waiting message answers nobody yet");
    assert!(r.scheduled.start(&a, &later.id, t(151)).await.unwrap().is_some());
    let went_out = FirstResponse { responded_at: Some(t(151)), ..FirstResponse::started(t(100), None) };
    assert_eq!(clock(&r, &a, &ana.id).await, went_out, "a scheduled message answers as it goes out");
    let listed = r.activities.list(&a, &ActivityFilter::default(), page(10, 0)).await.unwrap();
    assert_eq!(listed.items[0].activity.first_response, went_out, "lists show it as gets do");

    // A conversation the business opened (pending): the contact's answer opens it.
    let bo = conversation(&r, &a, "Bo", "5215550002", ActivityStatus::Pending, t(200)).await;
    assert!(r.messages.insert_marked(&answer(&a, &bo.id, "offer", t(201)), None, ResponseMark::Answers, &[]).await.unwrap());
    assert_eq!(clock(&r, &a, &bo.id).await, FirstResponse::default(), "no clock runs before the contact writes");
    assert!(
        r.messages
            .insert_marked(&message(&a, &bo.id, "tell me more", t(210)), None, ResponseMark::Opens { due: Some(t(300)) }, &[])
            .await
            .unwrap()
    );
    assert_eq!(clock(&r, &a, &bo.id).await, FirstResponse::started(t(210), Some(t(300))));
}

/// Overdue conversations are the open, unanswered, unannounced ones due by then, of every
/// agent, earliest due first; of racing markers one wins and only its events are stored; a
/// marked, answered or closed one is no miss.
pub async fn missed_first_responses_are_found_in_due_order_and_marked_once(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let opened = |agent: &AgentId, name: &'static str, digits: &'static str, due: i64| {
        let (r, agent) = (r.clone(), agent.clone());
        async move {
            let act = conversation(&r, &agent, name, digits, ActivityStatus::Open, t(0)).await;
            let m = message(&agent, &act.id, "hello", t(1));
            assert!(r.messages.insert_marked(&m, None, ResponseMark::Opens { due: Some(t(due)) }, &[]).await.unwrap());
            act
        }
    };
    let late = opened(&a, "Ana", "5215550001", 50).await;
    let later = opened(&b, "Bo", "5215550002", 40).await;
    let not_yet = opened(&a, "Cy", "5215550003", 1_000).await;
    let answered = opened(&a, "Di", "5215550004", 30).await;
    assert!(r.messages.insert_marked(&answer(&a, &answered.id, "hi", t(20)), None, ResponseMark::Answers, &[]).await.unwrap());
    let closed = opened(&a, "Ed", "5215550005", 30).await;
    let mut shut = r.activities.get(&a, &closed.id).await.unwrap().unwrap().activity;
    shut.status = ActivityStatus::Closed;
    assert!(r.activities.update(ActivityWrite::of(&shut), &[]).await.unwrap());

    let overdue = r.first_response.overdue(t(60), 10).await.unwrap();
    assert_eq!(overdue, vec![(b.clone(), later.id.clone()), (a.clone(), late.id.clone())], "earliest due first, every agent's");
    assert_eq!(r.first_response.overdue(t(60), 1).await.unwrap(), vec![(b.clone(), later.id.clone())], "at most the limit");
    assert!(!r.first_response.mark_missed(&b, &late.id, t(60), &[]).await.unwrap(), "another agent's");
    assert!(!r.first_response.mark_missed(&a, &answered.id, t(60), &[]).await.unwrap(), "answered");
    assert!(!r.first_response.mark_missed(&a, &closed.id, t(60), &[]).await.unwrap(), "closed");
    assert!(!r.first_response.mark_missed(&a, &not_yet.id, t(60), &[]).await.unwrap(), "not due yet");

    let missed = || [event(&a, EventType::ActivityFirstResponseMissed, t(61))];
    let events: Vec<_> = (0..8).map(|_| missed()).collect();
    let marks = futures_util::future::join_all(events.iter().map(|e| r.first_response.mark_missed(&a, &late.id, t(61), e))).await;
    let won = marks.into_iter().map(Result::unwrap).filter(|won| *won).count();
    assert_eq!(won, 1, "one marker wins");
    let filter = EventFilter { event_type: Some(EventType::ActivityFirstResponseMissed), since: None };
    assert_eq!(r.events.list(&a, &filter, page(10, 0)).await.unwrap().total, 1, "only the winner's event is stored");
    assert_eq!(clock(&r, &a, &late.id).await.missed_at, Some(t(61)));
    assert_eq!(r.first_response.overdue(t(60), 10).await.unwrap(), vec![(b.clone(), later.id.clone())], "announced once");
    assert_eq!(r.first_response.overdue(t(2_000), 10).await.unwrap().len(), 2, "the others once due");
}
