//! The contract of [`ScheduledSendRepository`](crate::ports::ScheduledSendRepository):
//! scheduled messages on the timeline with what sending each needs, claimed once in due order,
//! started by one caller, cancelled whole.

use super::messages::{last_message, message, timeline, updated_at};
use crate::conformance::fixtures::*;
use crate::model::*;
use crate::ports::Repositories;

/// A reply of `activity` scheduled for `send_at`, as the timeline records one.
pub(crate) fn scheduled(
    agent: &AgentId,
    activity: &ActivityId,
    body: &str,
    send_at: Timestamp,
    made: Timestamp,
) -> (Message, ScheduledSend) {
    let message = Message {
        direction: MessageDirection::Outbound,
        status: MessageStatus::Scheduled,
        line_id: Some(LineId::new("chn_1")),
        send_at: Some(send_at),
        updated_at: made,
        ..message(agent, activity, body, send_at)
    };
    let send = ScheduledSend {
        message_id: message.id.clone(),
        agent_id: agent.clone(),
        activity_id: activity.clone(),
        line_id: LineId::new("chn_1"),
        send_at,
        request: ScheduledRequest::Reply { preview_url: true, human_agent: false },
    };
    (message, send)
}

/// Scheduled messages join the timeline (counted, never the last message while they wait),
/// are claimed due-first under a lease (claimed again once it runs out), started by exactly
/// one of racing callers (then the activity's last message, when newest), and cancelled with
/// their send; each stays its agent's.
pub async fn scheduled_messages_are_claimed_once_in_due_order_and_started_once(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let ana = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let hello = message(&a, &ana.id, "hello", t(10));
    r.messages.insert(&hello, &[]).await.unwrap();
    let before = updated_at(&r, &a, &ana.id).await;

    let (late, late_send) = scheduled(&a, &ana.id, "late", t(300), t(11));
    let (first, first_send) = scheduled(&a, &ana.id, "first", t(100), t(12));
    let (second, second_send) = scheduled(&a, &ana.id, "second", t(200), t(13));
    let (never, never_send) = scheduled(&a, &ana.id, "never", t(9_000), t(14));
    for (m, s) in [(&late, &late_send), (&first, &first_send), (&second, &second_send), (&never, &never_send)] {
        r.scheduled.schedule(m, s).await.unwrap();
    }
    let theirs = scheduled(&b, &ana.id, "theirs", t(100), t(15));
    assert!(r.scheduled.schedule(&theirs.0, &theirs.1).await.is_err(), "not on another agent's activity");
    assert_eq!(r.scheduled.pending().await.unwrap(), 4);
    let (ids, total) = timeline(&r, &a, &ana.id, None, 10, 0).await;
    assert_eq!((ids, total), (vec![never.id.clone(), late.id.clone(), second.id.clone(), first.id.clone(), hello.id.clone()], 5));
    assert_eq!(r.messages.get(&a, &ana.id, &first.id).await.unwrap(), Some(first.clone()), "read back whole");
    assert_eq!(last_message(&r, &a, &ana.id).await, Some(MessageSummary::of(&hello)), "waiting messages are not the last");
    assert!(updated_at(&r, &a, &ana.id).await >= before);

    assert!(r.scheduled.claim_due(t(99), t(160), 10).await.unwrap().is_empty(), "nothing is due before its time");
    let claimed = r.scheduled.claim_due(t(350), t(410), 2).await.unwrap();
    assert_eq!(claimed, vec![first_send.clone(), second_send.clone()], "the earliest first, read back whole");
    assert_eq!(r.scheduled.claim_due(t(350), t(410), 10).await.unwrap(), vec![late_send.clone()], "claimed ones wait out their lease");
    assert!(r.scheduled.claim_due(t(400), t(460), 10).await.unwrap().is_empty());
    let again = r.scheduled.claim_due(t(410), t(470), 10).await.unwrap();
    assert_eq!(again, vec![first_send.clone(), second_send.clone(), late_send.clone()], "a run-out lease frees them");

    let starts = futures_util::future::join_all((0..8).map(|_| r.scheduled.start(&a, &first.id, t(420)))).await;
    let started: Vec<Message> = starts.into_iter().filter_map(Result::unwrap).collect();
    assert_eq!(started.len(), 1, "one of racing callers starts it");
    let expected = Message { status: MessageStatus::Sending, updated_at: t(420), ..first.clone() };
    assert_eq!(started[0], expected);
    assert_eq!(r.messages.find_by_id(&a, &first.id).await.unwrap(), Some(expected.clone()));
    assert_eq!(last_message(&r, &a, &ana.id).await, Some(MessageSummary::of(&expected)), "started, it is the newest message");
    assert_eq!(updated_at(&r, &a, &ana.id).await, t(420));
    assert!(r.scheduled.start(&b, &second.id, t(421)).await.unwrap().is_none(), "not another agent's");
    assert_eq!(r.scheduled.pending().await.unwrap(), 3, "a started send is gone");
    assert!(!r.scheduled.cancel(&a, &ana.id, &first.id).await.unwrap(), "a started message is not cancelled");

    assert!(!r.scheduled.cancel(&b, &ana.id, &second.id).await.unwrap(), "not another agent's");
    assert!(!r.scheduled.cancel(&a, &ActivityId::new("act_other"), &second.id).await.unwrap(), "not on another activity");
    assert!(r.scheduled.cancel(&a, &ana.id, &second.id).await.unwrap());
    assert!(!r.scheduled.cancel(&a, &ana.id, &second.id).await.unwrap(), "once");
    assert_eq!(r.messages.find_by_id(&a, &second.id).await.unwrap(), None, "it leaves the timeline");
    assert!(r.scheduled.start(&a, &second.id, t(430)).await.unwrap().is_none(), "a cancelled message is never started");
    let (ids, total) = timeline(&r, &a, &ana.id, None, 10, 0).await;
    assert_eq!((ids, total), (vec![never.id.clone(), late.id.clone(), first.id.clone(), hello.id.clone()], 4));
    assert_eq!(r.scheduled.pending().await.unwrap(), 2);
    let due = r.scheduled.claim_due(t(10_000), t(10_060), 10).await.unwrap();
    assert_eq!(due.into_iter().map(|s| s.message_id).collect::<Vec<_>>(), vec![late.id.clone(), never.id.clone()]);
}

/// Claimants racing for a burst of due messages share it: each message is claimed by one.
pub async fn concurrent_claims_of_scheduled_messages_take_each_once(r: Repositories) {
    let a = agent(&r, "A").await;
    let ana = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let mut all = Vec::new();
    for n in 0..40 {
        let (m, s) = scheduled(&a, &ana.id, &format!("m{n}"), t(100), t(1));
        r.scheduled.schedule(&m, &s).await.unwrap();
        all.push(m.id);
    }
    let claims = futures_util::future::join_all((0..8).map(|_| r.scheduled.claim_due(t(200), t(260), 10))).await;
    let mut claimed: Vec<MessageId> = claims.into_iter().flat_map(Result::unwrap).map(|s| s.message_id).collect();
    claimed.sort();
    all.sort();
    assert_eq!(claimed, all, "every message once among the claimants");
}
