//! The storage contract of reports ([`ReportRepository`](crate::ports::ReportRepository)): what
//! message inserts, scheduled starts and closes add, read back by range, per agent.

#![expect(clippy::unwrap_used, reason = "a test suite: a failed step is a failed check")]

use std::collections::BTreeMap;

use crate::conformance::fixtures::*;
use crate::messaging::conformance::messages::message;
use crate::messaging::conformance::scheduled::scheduled;
use crate::model::*;
use crate::ports::Repositories;

/// The agent's counts in `[from, to)` as grouping `by` reads them, added up per their key.
async fn counts(
    r: &Repositories,
    agent: &AgentId,
    from: Timestamp,
    to: Timestamp,
    by: GroupBy,
) -> BTreeMap<(Timestamp, Option<String>, Option<&'static str>), Tally> {
    let mut summed = BTreeMap::new();
    for c in r.reports.range(agent, from, to, by).await.unwrap().counts {
        let key = (c.slot, c.member.map(|m| m.as_str().to_string()), c.channel.map(ChannelType::as_str));
        let tally: &mut Tally = summed.entry(key).or_default();
        *tally = tally.plus(c.tally);
    }
    summed
}

/// The agent's counts per slot (grouped by day).
async fn slots(r: &Repositories, agent: &AgentId, from: Timestamp, to: Timestamp) -> BTreeMap<Timestamp, Tally> {
    counts(r, agent, from, to, GroupBy::Day)
        .await
        .into_iter()
        .map(|((slot, member, channel), t)| {
            assert_eq!((member, channel), (None, None), "by day, counts carry neither member nor channel");
            (slot, t)
        })
        .collect()
}

/// A span as a check compares it: kind, start, end, member, channel.
type SpanView = (SpanKind, Timestamp, Timestamp, Option<String>, Option<&'static str>);

/// The agent's spans in `[from, to)` as grouping `by` reads them, in order of their end.
async fn spans(r: &Repositories, agent: &AgentId, from: Timestamp, to: Timestamp, by: GroupBy) -> Vec<SpanView> {
    let mut spans: Vec<_> = r
        .reports
        .range(agent, from, to, by)
        .await
        .unwrap()
        .spans
        .into_iter()
        .map(|s| (s.kind, s.started_at, s.ended_at, s.member.map(|m| m.as_str().to_string()), s.channel.map(ChannelType::as_str)))
        .collect();
    spans.sort_by_key(|s| (s.2, s.0.as_str()));
    spans
}

fn tally(opened: i64, closed: i64, messages_in: i64, messages_out: i64) -> Tally {
    Tally { opened, closed, messages_in, messages_out }
}

fn outbound(agent: &AgentId, activity: &ActivityId, body: &str, at: Timestamp) -> Message {
    Message { direction: MessageDirection::Outbound, status: MessageStatus::Sent, ..message(agent, activity, body, at) }
}

async fn set(r: &Repositories, agent: &AgentId, activity: &ActivityId, status: ActivityStatus, to: Option<&str>, at: Timestamp) {
    let mut a = r.activities.get(agent, activity).await.unwrap().unwrap().activity;
    a.status = status;
    a.assigned_to = to.map(|m| Assignee::new(m).unwrap());
    a.updated_at = at;
    assert!(r.activities.update(ActivityWrite::of(&a), &[]).await.unwrap());
}

/// Each message counts in or out in its quarter hour under the assignee and channel of then
/// (notes, waiting scheduled messages, failed sends and repeated deliveries count nothing); the
/// contact's opening counts opened; the first answer ends a first response; a scheduled
/// message counts out when it goes out; a close counts closed and ends a resolution from the
/// opening; a status set again adds nothing. Read by range, never another agent's.
pub async fn reports_count_what_each_write_adds_and_stay_their_agents(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let ana = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let first = Message { platform_message_id: Some("pm.1".into()), ..message(&a, &ana.id, "hello", t(10)) };
    assert!(r.messages.insert_marked(&first, None, ResponseMark::Opens { due: None }, &[]).await.unwrap());
    let again = Message { id: MessageId::new(id("msg")), ..first.clone() };
    assert!(!r.messages.insert_marked(&again, None, ResponseMark::Opens { due: None }, &[]).await.unwrap());
    assert!(r.messages.insert_marked(&message(&a, &ana.id, "anyone?", t(20)), None, ResponseMark::Opens { due: None }, &[]).await.unwrap());
    set(&r, &a, &ana.id, ActivityStatus::Open, Some("usr_ana"), t(25)).await;
    assert!(r.messages.insert_marked(&outbound(&a, &ana.id, "hi", t(30)), None, ResponseMark::Answers, &[]).await.unwrap());
    let note = Message { direction: MessageDirection::Internal, ..message(&a, &ana.id, "VIP", t(40)) };
    assert!(r.messages.insert(&note, &[]).await.unwrap());
    let failed = Message { status: MessageStatus::Failed, ..outbound(&a, &ana.id, "lost", t(45)) };
    assert!(r.messages.insert(&failed, &[]).await.unwrap());
    let (later, send) = scheduled(&a, &ana.id, "see you", t(1_000), t(50));
    r.scheduled.schedule(&later, &send).await.unwrap();
    let quarter = |n: i64| t(n * 900);
    assert_eq!(
        slots(&r, &a, t(0), t(7_200)).await,
        BTreeMap::from([(quarter(0), tally(1, 0, 2, 1))]),
        "the opening and two in, one out; a note, a failed send, a waiting message: nothing"
    );
    assert!(r.scheduled.start(&a, &later.id, t(1_001)).await.unwrap().is_some());
    set(&r, &a, &ana.id, ActivityStatus::Closed, Some("usr_ana"), t(2_000)).await;
    set(&r, &a, &ana.id, ActivityStatus::Closed, Some("usr_ana"), t(2_100)).await;
    let back = message(&a, &ana.id, "me again", t(3_000));
    assert!(r.messages.insert_marked(&back, None, ResponseMark::Opens { due: None }, &[]).await.unwrap());

    let by_slot = BTreeMap::from([
        (quarter(0), tally(1, 0, 2, 1)),
        (quarter(1), tally(0, 0, 0, 1)),
        (quarter(2), tally(0, 1, 0, 0)),
        (quarter(3), tally(1, 0, 1, 0)),
    ]);
    assert_eq!(slots(&r, &a, t(0), t(7_200)).await, by_slot, "the start, the close (once), the reopening");
    let ana_id = Some("usr_ana".to_string());
    let by_member = BTreeMap::from([((t(0), None, None), tally(1, 0, 2, 0)), ((t(0), ana_id.clone(), None), tally(1, 1, 1, 2))]);
    assert_eq!(counts(&r, &a, t(0), t(7_200), GroupBy::Member).await, by_member, "under the assignee of each write's moment");
    let by_channel = BTreeMap::from([((t(0), None, Some("whatsapp")), tally(2, 1, 3, 2))]);
    assert_eq!(counts(&r, &a, t(0), t(7_200), GroupBy::Channel).await, by_channel);
    assert_eq!(
        spans(&r, &a, t(0), t(7_200), GroupBy::Member).await,
        [(SpanKind::FirstResponse, t(10), t(30), ana_id.clone(), None), (SpanKind::Resolution, t(10), t(2_000), ana_id.clone(), None),]
    );
    let channels: Vec<_> = spans(&r, &a, t(0), t(7_200), GroupBy::Channel).await.into_iter().map(|s| (s.3, s.4)).collect();
    assert_eq!(channels, [(None, Some("whatsapp")), (None, Some("whatsapp"))], "by channel, spans carry the channel alone");
    let within: BTreeMap<_, _> =
        by_slot.iter().filter(|(slot, _)| **slot >= quarter(1) && **slot < quarter(3)).map(|(k, v)| (*k, *v)).collect();
    assert_eq!(slots(&r, &a, quarter(1), quarter(3)).await, within, "slots starting in the range");
    assert_eq!(
        spans(&r, &a, t(30), t(2_000), GroupBy::Day).await,
        [(SpanKind::FirstResponse, t(10), t(30), None, None)],
        "ended in the range; by day, neither member nor channel"
    );

    // A conversation the business started and closed with no opening: resolved from its start.
    let bo = conversation(&r, &a, "Bo", "5215550002", ActivityStatus::Pending, t(4_000)).await;
    assert!(r.messages.insert_marked(&outbound(&a, &bo.id, "offer", t(4_010)), None, ResponseMark::Answers, &[]).await.unwrap());
    set(&r, &a, &bo.id, ActivityStatus::Closed, None, t(4_100)).await;
    assert_eq!(spans(&r, &a, t(4_000), t(5_000), GroupBy::Member).await, [(SpanKind::Resolution, t(4_000), t(4_100), None, None)]);
    assert_eq!(slots(&r, &a, quarter(4), quarter(6)).await.values().copied().fold(Tally::default(), Tally::plus), tally(0, 1, 0, 1));

    for by in [GroupBy::Day, GroupBy::Member, GroupBy::Channel] {
        assert!(counts(&r, &b, t(0), t(7_200), by).await.is_empty(), "another agent's");
        assert!(spans(&r, &b, t(0), t(7_200), by).await.is_empty());
    }
}

/// Concurrent writes of one agent to one quarter hour all count: none lost to another.
pub async fn concurrent_writes_to_one_slot_all_count(r: Repositories) {
    let a = agent(&r, "A").await;
    let mut convs = Vec::new();
    for n in 0..8 {
        convs.push(conversation(&r, &a, &format!("C{n}"), &format!("52155500{n:02}"), ActivityStatus::Open, t(0)).await);
    }
    let messages: Vec<Message> = convs.iter().map(|c| message(&a, &c.id, "hi", t(5))).collect();
    let writes = messages.iter().map(|m| r.messages.insert_marked(m, None, ResponseMark::Opens { due: None }, &[]));
    assert!(futures_util::future::join_all(writes).await.into_iter().all(|w| w.unwrap()));
    let total = slots(&r, &a, t(0), t(900)).await.values().copied().fold(Tally::default(), Tally::plus);
    assert_eq!(total, tally(8, 0, 8, 0));
}
