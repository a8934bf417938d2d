//! The storage contract of messages, files, mailboxes and the platforms' stored deliveries
//! (`MessageRepository`, `FileRepository`, `MailboxRepository`, `InboundDeliveryRepository`).

#![expect(clippy::unwrap_used, reason = "a test suite: a failed step is a failed check")]

use crate::model::*;
use crate::ports::Repositories;

use crate::conformance::fixtures::*;

pub(crate) mod first_response;
pub(crate) mod messages;

pub(crate) mod inbound;
pub(crate) mod scheduled;
pub use first_response::*;
pub use inbound::*;
pub use messages::*;
pub use scheduled::*;

/// Files are written once (a delivery processed again keeps the first) and read only by their
/// agent.
pub async fn files_are_kept_once_and_stay_their_agents(r: Repositories) {
    use crate::ports::StoredFile;
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let bytes: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    let file = StoredFile {
        id: id("att"),
        agent_id: a.clone(),
        filename: Some("factura ñ.pdf".into()),
        mime_type: "application/pdf".into(),
        bytes,
        created_at: t(3),
    };
    r.files.put(&file).await.unwrap();
    assert_eq!(r.files.get(&a, &file.id).await.unwrap().as_ref(), Some(&file), "every byte reads back");
    let again = StoredFile { bytes: vec![1], filename: None, ..file.clone() };
    r.files.put(&again).await.unwrap();
    assert_eq!(r.files.get(&a, &file.id).await.unwrap().as_ref(), Some(&file), "the first write stays");
    assert!(r.files.get(&b, &file.id).await.unwrap().is_none(), "another agent's file is invisible");
    let theirs = StoredFile { agent_id: b.clone(), bytes: Vec::new(), filename: None, ..file.clone() };
    r.files.put(&theirs).await.unwrap();
    assert_eq!(r.files.get(&b, &file.id).await.unwrap().as_ref(), Some(&theirs), "ids are per agent, and a file may be empty");
    assert_eq!(r.files.get(&a, &file.id).await.unwrap().as_ref(), Some(&file));
    assert!(r.files.get(&a, "att_nope").await.unwrap().is_none());
}

/// A mailbox is claimed by one holder at a time until its lease runs out; only the holder moves
/// its position, which the next claim (by anyone) starts from.
pub async fn mailboxes_are_read_by_one_holder_at_a_time(r: Repositories) {
    let a = agent(&r, "A").await;
    let mailbox = Line {
        account: LineAccount::Email { address: Email::new("poll@example.com").unwrap(), inbound_token: InboundTokenDigest::of("x") },
        ..line(&a, "1", LineAccess::Sandbox, t(0))
    };
    r.lines.insert(&mailbox).await.unwrap();
    let m = &mailbox.id;
    let never = MailboxPosition::default();
    assert_eq!(r.mailboxes.claim(m, "one", t(10), t(40)).await.unwrap(), Some(never), "a mailbox never read");
    assert_eq!(r.mailboxes.claim(m, "two", t(20), t(50)).await.unwrap(), None, "held by one");
    assert_eq!(r.mailboxes.claim(m, "one", t(20), t(50)).await.unwrap(), Some(never), "its holder may claim again");
    let moved = MailboxPosition { epoch: 4_000_000_000, last: 4_294_967_295 };
    assert!(!r.mailboxes.advance(m, "two", moved, t(60)).await.unwrap(), "only the holder moves it");
    assert!(r.mailboxes.advance(m, "one", moved, t(60)).await.unwrap());
    assert_eq!(r.mailboxes.claim(m, "two", t(55), t(90)).await.unwrap(), None, "the advance renewed the lease");
    assert_eq!(r.mailboxes.claim(m, "two", t(61), t(90)).await.unwrap(), Some(moved), "a lease that ran out is taken over, where it was");
    assert!(!r.mailboxes.advance(m, "one", never, t(99)).await.unwrap(), "the old holder lost it");
    r.mailboxes.release(m, "one").await.unwrap();
    assert_eq!(r.mailboxes.claim(m, "three", t(62), t(90)).await.unwrap(), None, "a release by another changes nothing");
    r.mailboxes.release(m, "two").await.unwrap();
    assert_eq!(r.mailboxes.claim(m, "three", t(62), t(90)).await.unwrap(), Some(moved), "released: free at once");
}

/// Stored webhook events are due by `next_attempt_at`, oldest first, until processed; failures
/// count attempts and wait for their next try; the backlog counts every unprocessed event.
pub async fn webhook_events_are_due_until_processed(r: Repositories) {
    let first = webhook_event(r#"{"n":1}"#, t(1));
    // Each delivery keeps the platform it came from: its decoder reads it.
    let second = InboundDelivery { platform: ChannelType::Instagram, ..webhook_event(r#"{"n":2}"#, t(2)) };
    let later = webhook_event(r#"{"n":3}"#, t(50));
    for e in [&later, &second, &first] {
        r.inbound.insert(e).await.unwrap();
    }
    let ids = |v: Vec<InboundDelivery>| v.into_iter().map(|e| e.id).collect::<Vec<_>>();
    let due = r.inbound.due(t(10), 10).await.unwrap();
    assert_eq!(due, [first.clone(), second.clone()], "due by now, oldest first, stored exactly");
    assert_eq!(ids(r.inbound.due(t(10), 1).await.unwrap()), vec![first.id.clone()], "at most limit");
    assert_eq!(ids(r.inbound.due(t(50), 10).await.unwrap()).len(), 3, "due at exactly next_attempt_at");
    assert!(r.inbound.failed(10).await.unwrap().is_empty());
    assert_eq!(r.inbound.backlog().await.unwrap(), 3, "the backlog counts every unprocessed event, due or not");

    r.inbound.mark_failed(&first.id, "boom", t(30)).await.unwrap();
    r.inbound.mark_processed(std::slice::from_ref(&second.id), t(11)).await.unwrap();
    assert_eq!(r.inbound.backlog().await.unwrap(), 2, "a failed event waiting for a retry is still in the backlog");
    assert!(r.inbound.due(t(29), 10).await.unwrap().is_empty(), "a failed event waits for its next attempt; a processed one is done");
    let failed = r.inbound.failed(10).await.unwrap();
    assert_eq!(failed.len(), 1);
    assert_eq!((failed[0].attempts, failed[0].last_error.as_deref(), failed[0].next_attempt_at), (1, Some("boom"), Some(t(30))));

    r.inbound.mark_failed(&first.id, "boom again", t(40)).await.unwrap();
    let retried = r.inbound.due(t(40), 10).await.unwrap();
    assert_eq!(ids(retried.clone()), vec![first.id.clone()]);
    assert_eq!((retried[0].attempts, retried[0].last_error.as_deref()), (2, Some("boom again")), "attempts add up");

    r.inbound.mark_failed(&later.id, "once", t(60)).await.unwrap();
    assert_eq!(ids(r.inbound.failed(10).await.unwrap()), [first.id.clone(), later.id.clone()], "failed: oldest first");
    assert_eq!(ids(r.inbound.failed(1).await.unwrap()), vec![first.id.clone()]);
    r.inbound.mark_processed(std::slice::from_ref(&first.id), t(41)).await.unwrap();
    assert_eq!(ids(r.inbound.failed(10).await.unwrap()), vec![later.id.clone()], "processed events are no longer failed");
    assert_eq!(r.inbound.backlog().await.unwrap(), 1);
    assert!(r.inbound.due(t(1000), 10).await.unwrap().iter().all(|e| e.id == later.id));
}

/// A given-up event is never due and leaves the backlog until an operator's `retry` or
/// `retry_all` puts it back with a fresh attempt count; processed events are never given up.
pub async fn given_up_webhook_events_wait_for_an_operator(r: Repositories) {
    let bad = webhook_event("garbage", t(1));
    let flaky = webhook_event(r#"{"n":2}"#, t(2));
    let fine = webhook_event(r#"{"n":3}"#, t(3));
    for e in [&bad, &flaky, &fine] {
        r.inbound.insert(e).await.unwrap();
    }
    let ids = |v: Vec<InboundDelivery>| v.into_iter().map(|e| e.id).collect::<Vec<_>>();
    r.inbound.mark_failed(&flaky.id, "unavailable", t(20)).await.unwrap();
    r.inbound.give_up(&bad.id, "not a WhatsApp webhook payload", t(10)).await.unwrap();
    assert_eq!(r.inbound.given_up().await.unwrap(), 1);
    assert_eq!(r.inbound.backlog().await.unwrap(), 2, "a given-up event is not backlog: only the retried and the untried are");
    assert!(r.inbound.due(t(1000), 10).await.unwrap().iter().all(|e| e.id != bad.id), "a given-up event is never due again");
    let failed = r.inbound.failed(10).await.unwrap();
    assert_eq!(ids(failed.clone()), [bad.id.clone(), flaky.id.clone()], "given up and being retried, oldest first");
    assert_eq!(
        (failed[0].attempts, failed[0].last_error.as_deref(), failed[0].next_attempt_at, failed[0].failed_at),
        (1, Some("not a WhatsApp webhook payload"), None, Some(t(10))),
        "the give-up counts as an attempt and keeps its error"
    );
    assert_eq!((failed[1].failed_at, failed[1].next_attempt_at), (None, Some(t(20))));

    assert!(!r.inbound.retry(&flaky.id, t(11)).await.unwrap(), "only given-up events are retried by an operator");
    assert!(!r.inbound.retry(&fine.id, t(11)).await.unwrap());
    assert!(!r.inbound.retry("whk_unknown", t(11)).await.unwrap());
    assert_eq!(
        ids(r.inbound.due(t(20), 10).await.unwrap()),
        [flaky.id.clone(), fine.id.clone()],
        "the retried one keeps its own next attempt"
    );

    assert!(r.inbound.retry(&bad.id, t(12)).await.unwrap());
    assert!(!r.inbound.retry(&bad.id, t(12)).await.unwrap(), "once back, it is no longer given up");
    assert_eq!(r.inbound.given_up().await.unwrap(), 0);
    assert_eq!(r.inbound.backlog().await.unwrap(), 3);
    let due = r.inbound.due(t(12), 10).await.unwrap();
    assert_eq!(ids(due.clone()), [bad.id.clone(), fine.id.clone()], "due again at the retry, oldest first");
    assert_eq!(
        (due[0].attempts, due[0].failed_at, due[0].next_attempt_at, due[0].last_error.as_deref()),
        (0, None, Some(t(12)), Some("not a WhatsApp webhook payload")),
        "a fresh count of attempts; the last error stays until it succeeds"
    );

    // Every given-up event at once; processed ones are never touched.
    r.inbound.give_up(&bad.id, "still not", t(13)).await.unwrap();
    r.inbound.give_up(&flaky.id, "unavailable for too long", t(14)).await.unwrap();
    r.inbound.mark_processed(std::slice::from_ref(&fine.id), t(15)).await.unwrap();
    r.inbound.give_up(&fine.id, "too late", t(16)).await.unwrap();
    assert_eq!(r.inbound.given_up().await.unwrap(), 2, "a processed event cannot be given up");
    assert_eq!(r.inbound.retry_all(t(17)).await.unwrap(), 2);
    assert_eq!(r.inbound.retry_all(t(17)).await.unwrap(), 0);
    assert_eq!(ids(r.inbound.due(t(17), 10).await.unwrap()), [bad.id.clone(), flaky.id.clone()]);
    assert_eq!(r.inbound.backlog().await.unwrap(), 2);
}

/// A claimed webhook event is no one else's until its lease ends; a release hands back only
/// what that claim still holds; a processed event is never claimed again.
pub async fn webhook_events_are_claimed_once(r: Repositories) {
    let events: Vec<InboundDelivery> = (1..=3).map(|n| webhook_event(&format!(r#"{{"n":{n}}}"#), t(n))).collect();
    for e in events.iter().rev() {
        r.inbound.insert(e).await.unwrap();
    }
    let ids = |v: &[InboundDelivery]| v.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
    let first = r.inbound.claim_due(t(5), t(100), 2).await.unwrap();
    assert_eq!(ids(&first), ids(&events[..2]), "the oldest due, at most limit");
    assert!(first.iter().all(|e| e.next_attempt_at == Some(t(100))), "returned as claimed: held until the lease ends");
    let second = r.inbound.claim_due(t(5), t(150), 10).await.unwrap();
    assert_eq!(ids(&second), ids(&events[2..]), "a claimed event is nobody else's until its lease ends");
    assert!(r.inbound.claim_due(t(99), t(200), 10).await.unwrap().is_empty());
    assert_eq!(r.inbound.backlog().await.unwrap(), 3, "claimed events are still in the backlog");

    // The second processor stops before starting its event: handed back, due at once.
    r.inbound.release(&ids(&second), t(150), t(6)).await.unwrap();
    r.inbound.mark_processed(&ids(&first[..1]), t(7)).await.unwrap();
    // A release hands back only what its own claim holds: not the released or processed ones,
    // nor the first processor's.
    r.inbound.release(&ids(&events), t(150), t(8)).await.unwrap();
    let again = r.inbound.claim_due(t(9), t(300), 10).await.unwrap();
    assert_eq!(ids(&again), ids(&events[2..]), "the released one, due again; the processed one never");
    assert_eq!(again[0].next_attempt_at, Some(t(300)));

    // The first processor died holding its other event: due again when the lease ends.
    assert_eq!(ids(&r.inbound.claim_due(t(100), t(400), 10).await.unwrap()), ids(&events[1..2]));
    r.inbound.mark_processed(&ids(&events), t(101)).await.unwrap();
    assert_eq!(r.inbound.backlog().await.unwrap(), 0, "marked in one write");
    assert!(r.inbound.claim_due(t(1000), t(2000), 10).await.unwrap().is_empty(), "a processed event is never claimed");
}

/// Processors claiming one backlog at the same moment share it: each event is claimed once.
pub async fn concurrent_claims_split_the_backlog(r: Repositories) {
    let events: Vec<InboundDelivery> = (0..60).map(|n| webhook_event(&format!(r#"{{"n":{n}}}"#), t(n))).collect();
    for e in &events {
        r.inbound.insert(e).await.unwrap();
    }
    let claims = (0..6).map(|_| {
        let r = r.clone();
        async move { r.inbound.claim_due(t(100), t(1000), 15).await }
    });
    let mut claimed: Vec<String> =
        futures_util::future::join_all(claims).await.into_iter().flat_map(|c| c.unwrap()).map(|e| e.id).collect();
    claimed.sort();
    let mut expected: Vec<String> = events.iter().map(|e| e.id.clone()).collect();
    expected.sort();
    assert_eq!(claimed, expected, "every event claimed, none twice");
}
