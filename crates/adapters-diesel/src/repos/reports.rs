//! `ReportRepository`: the quarter-hour counts (`report_counts`) and the first responses and
//! resolutions (`report_spans`) that message inserts, scheduled starts and closes add in their
//! own transactions ([`record_report!`]), read by range in one snapshot.

use std::collections::HashMap;

use async_trait::async_trait;
use diesel::prelude::*;
use parley_domain::model::*;
use parley_domain::ports::{ReportRepository, StoreResult};

use crate::Store;
use crate::error::DbError;
use crate::pool::{read_direct, run};
use crate::rows::from_millis;
use crate::schema::{report_counts, report_spans};

/// Adds what a write counted (`$facts`: `ReportFacts`) to agent `$agent`'s reports, in the
/// write's transaction; `$activity` (the activity's id) picks the count's shard
/// (`count_shards.rs`), so concurrent writes of one agent to one quarter hour spread over rows
/// on PostgreSQL. A span already recorded (the same end, activity and kind) is kept as it is.
macro_rules! record_report {
    ($conn:expr, $agent:expr, $activity:expr, $facts:expr) => {{
        use crate::prepared::Prepare as _;
        use crate::schema::{report_counts, report_spans};
        use diesel::upsert::excluded;
        let facts: parley_domain::model::ReportFacts = $facts;
        let agent: &str = $agent;
        if let Some(count) = &facts.count {
            let shard = crate::count_shards::shard(&*$conn, $activity);
            // A write adds 0 or 1 to each: never past an INTEGER.
            let small = |n: i64| i32::try_from(n).unwrap_or(i32::MAX);
            let tally = count.tally;
            diesel::insert_into(report_counts::table)
                .values((
                    report_counts::agent_id.eq(agent),
                    report_counts::slot.eq(crate::rows::millis(count.slot)),
                    report_counts::member.eq(count.member.as_ref().map_or("", |m| m.as_str())),
                    report_counts::channel_type.eq(count.channel.map_or("", |c| c.as_str())),
                    report_counts::shard.eq(shard),
                    report_counts::opened.eq(small(tally.opened)),
                    report_counts::closed.eq(small(tally.closed)),
                    report_counts::messages_in.eq(small(tally.messages_in)),
                    report_counts::messages_out.eq(small(tally.messages_out)),
                ))
                .on_conflict((
                    report_counts::agent_id,
                    report_counts::slot,
                    report_counts::member,
                    report_counts::channel_type,
                    report_counts::shard,
                ))
                .do_update()
                .set((
                    report_counts::opened.eq(report_counts::opened + excluded(report_counts::opened)),
                    report_counts::closed.eq(report_counts::closed + excluded(report_counts::closed)),
                    report_counts::messages_in.eq(report_counts::messages_in + excluded(report_counts::messages_in)),
                    report_counts::messages_out.eq(report_counts::messages_out + excluded(report_counts::messages_out)),
                ))
                .prepared()
                .execute($conn)
                .await?;
        }
        if let Some(span) = &facts.span {
            diesel::insert_into(report_spans::table)
                .values((
                    report_spans::agent_id.eq(agent),
                    report_spans::ended_at.eq(crate::rows::millis(span.ended_at)),
                    report_spans::activity_id.eq(span.activity_id.as_str()),
                    report_spans::kind.eq(span.kind.as_str()),
                    report_spans::started_at.eq(crate::rows::millis(span.started_at)),
                    report_spans::member.eq(span.member.as_ref().map(|m| m.as_str())),
                    report_spans::channel_type.eq(span.channel.map(|c| c.as_str())),
                ))
                .on_conflict_do_nothing()
                .execute($conn)
                .await?;
        }
    }};
}
pub(crate) use record_report;

/// A count row as read: the grouping's key (the slot, the member or the channel type, '' for
/// none), and the four counts added up.
type CountRow<K> = (K, Sums);
/// The four counts added up (`None`: no row, 0).
type Sums = (Option<i64>, Option<i64>, Option<i64>, Option<i64>);
/// A span row as read: whether it is a resolution, start, end, and the grouping's key if any.
type SpanRow = (bool, i64, i64, Option<String>);

/// The four counts added up, for a `select` after a `group_by`.
macro_rules! summed {
    () => {
        (
            diesel::dsl::sum(report_counts::opened),
            diesel::dsl::sum(report_counts::closed),
            diesel::dsl::sum(report_counts::messages_in),
            diesel::dsl::sum(report_counts::messages_out),
        )
    };
}

/// Both reads of a range as grouping `$by` needs them, in one snapshot on SQLite (see
/// `read_direct!`): counts added up per its key (a few thousand slots, or a few members or
/// channels, instead of every slot's every member and channel), and only the span columns it
/// reads. One fixed shape per grouping.
macro_rules! range_rows {
    ($mode:ident, $conn:ident, $agent:ident, $from:ident, $to:ident, $by:ident) => {{
        let counts = || {
            report_counts::table
                .filter(report_counts::agent_id.eq($agent.as_str()))
                .filter(report_counts::slot.ge($from))
                .filter(report_counts::slot.lt($to))
        };
        let spans = || {
            report_spans::table
                .filter(report_spans::agent_id.eq($agent.as_str()))
                .filter(report_spans::ended_at.ge($from))
                .filter(report_spans::ended_at.lt($to))
        };
        let resolution = report_spans::kind.eq(SpanKind::Resolution.as_str());
        let (starts, ends) = (report_spans::started_at, report_spans::ended_at);
        let rows: (Vec<CountRow<i64>>, Vec<CountRow<String>>, Vec<SpanRow>) = match $by {
            GroupBy::Day => {
                let counts = run!($mode, load, $conn, counts().group_by(report_counts::slot).select((report_counts::slot, summed!())));
                let spans: Vec<(bool, i64, i64)> = run!($mode, load, $conn, spans().select((resolution, starts, ends)));
                (counts, Vec::new(), spans.into_iter().map(|(r, s, e)| (r, s, e, None)).collect())
            }
            GroupBy::Member => {
                let counts = run!($mode, load, $conn, counts().group_by(report_counts::member).select((report_counts::member, summed!())));
                let spans = run!($mode, load, $conn, spans().select((resolution, starts, ends, report_spans::member)));
                (Vec::new(), counts, spans)
            }
            GroupBy::Channel => {
                let counts = run!(
                    $mode,
                    load,
                    $conn,
                    counts().group_by(report_counts::channel_type).select((report_counts::channel_type, summed!()))
                );
                let spans = run!($mode, load, $conn, spans().select((resolution, starts, ends, report_spans::channel_type)));
                (Vec::new(), counts, spans)
            }
        };
        rows
    }};
}

/// The assignee a column holds: `None` for none ('' or null).
fn member_of(raw: Option<&str>) -> Result<Option<Assignee>, DbError> {
    match raw {
        None | Some("") => Ok(None),
        Some(m) => Assignee::new(m).map(Some).map_err(|e| DbError::Corrupt(format!("report assignee {m:?}: {}", e.issue))),
    }
}

/// The channel type a column holds: `None` for none ('' or null).
fn channel_of(raw: Option<&str>) -> Result<Option<ChannelType>, DbError> {
    match raw {
        None | Some("") => Ok(None),
        Some(c) => ChannelType::parse(c).map(Some).map_err(|_| DbError::Corrupt(format!("report channel type {c:?}"))),
    }
}

/// Counts as added up: `None` (no row) is 0.
fn tally_of((opened, closed, messages_in, messages_out): Sums) -> Tally {
    let n = |v: Option<i64>| v.unwrap_or(0);
    Tally { opened: n(opened), closed: n(closed), messages_in: n(messages_in), messages_out: n(messages_out) }
}

#[async_trait]
impl ReportRepository for Store {
    async fn range(&self, agent: &AgentId, from: Timestamp, to: Timestamp, by: GroupBy) -> StoreResult<ReportRange> {
        let (agent, from_ms, to_ms) = (agent.as_str().to_string(), from.timestamp_millis(), to.timestamp_millis());
        // A range of months reads a few hundred thousand spans: off the request's thread.
        let (by_slot, by_key, spans) = read_direct!(self, blocking, range_rows!(agent, from_ms, to_ms, by))?;
        let mut counts = Vec::with_capacity(by_slot.len() + by_key.len());
        for (slot, sums) in by_slot {
            let tally = tally_of(sums);
            counts.push(SlotCount { slot: from_millis(slot)?, member: None, channel: None, tally });
        }
        for (key, sums) in by_key {
            let tally = tally_of(sums);
            let (member, channel) = match by {
                GroupBy::Member => (member_of(Some(&key))?, None),
                _ => (None, channel_of(Some(&key))?),
            };
            counts.push(SlotCount { slot: from, member, channel, tally });
        }
        // The same assignee or channel on thousands of rows: each checked once.
        let mut members: HashMap<String, Option<Assignee>> = HashMap::new();
        let mut ended = Vec::with_capacity(spans.len());
        for (resolution, started, ended_at, key) in spans {
            let (member, channel) = match (by, key) {
                (GroupBy::Member, Some(m)) => match members.get(&m) {
                    Some(known) => (known.clone(), None),
                    None => {
                        let checked = member_of(Some(&m))?;
                        members.insert(m, checked.clone());
                        (checked, None)
                    }
                },
                (GroupBy::Channel, key) => (None, channel_of(key.as_deref())?),
                _ => (None, None),
            };
            let kind = if resolution { SpanKind::Resolution } else { SpanKind::FirstResponse };
            ended.push(EndedSpan { kind, started_at: from_millis(started)?, ended_at: from_millis(ended_at)?, member, channel });
        }
        Ok(ReportRange { counts, spans: ended })
    }
}
