//! `ReportRepository`: the quarter-hour counts (`report_counts`) and the first responses and
//! resolutions (`report_spans`) that message inserts, scheduled starts and closes add in their
//! own transactions ([`record_report!`]), read by range in one snapshot.

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
            let tally = count.tally;
            diesel::insert_into(report_counts::table)
                .values((
                    report_counts::agent_id.eq(agent),
                    report_counts::slot.eq(crate::rows::millis(count.slot)),
                    report_counts::member.eq(count.member.as_ref().map_or("", |m| m.as_str())),
                    report_counts::channel_type.eq(count.channel.map_or("", |c| c.as_str())),
                    report_counts::shard.eq(shard),
                    report_counts::opened.eq(tally.opened),
                    report_counts::closed.eq(tally.closed),
                    report_counts::messages_in.eq(tally.messages_in),
                    report_counts::messages_out.eq(tally.messages_out),
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

/// A count row as read: slot, member ('' unassigned), channel type ('' none), the four counts.
type CountRow = (i64, String, String, i64, i64, i64, i64);
/// A span row as read: kind, activity, start, end, member, channel type.
type SpanRow = (String, String, i64, i64, Option<String>, Option<String>);

/// Both reads of a range, in one snapshot on SQLite (see `read_direct!`).
macro_rules! range_rows {
    ($mode:ident, $conn:ident, $agent:ident, $from:ident, $to:ident) => {{
        let counts: Vec<CountRow> = run!(
            $mode,
            load,
            $conn,
            report_counts::table
                .filter(report_counts::agent_id.eq($agent.as_str()))
                .filter(report_counts::slot.ge($from))
                .filter(report_counts::slot.lt($to))
                .select((
                    report_counts::slot,
                    report_counts::member,
                    report_counts::channel_type,
                    report_counts::opened,
                    report_counts::closed,
                    report_counts::messages_in,
                    report_counts::messages_out,
                ))
        );
        let spans: Vec<SpanRow> = run!(
            $mode,
            load,
            $conn,
            report_spans::table
                .filter(report_spans::agent_id.eq($agent.as_str()))
                .filter(report_spans::ended_at.ge($from))
                .filter(report_spans::ended_at.lt($to))
                .select((
                    report_spans::kind,
                    report_spans::activity_id,
                    report_spans::started_at,
                    report_spans::ended_at,
                    report_spans::member,
                    report_spans::channel_type,
                ))
        );
        (counts, spans)
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

fn count_of((slot, member, channel, opened, closed, messages_in, messages_out): CountRow) -> Result<SlotCount, DbError> {
    Ok(SlotCount {
        slot: from_millis(slot)?,
        member: member_of(Some(&member))?,
        channel: channel_of(Some(&channel))?,
        tally: Tally { opened, closed, messages_in, messages_out },
    })
}

fn span_of((kind, activity, started, ended, member, channel): SpanRow) -> Result<ReportSpan, DbError> {
    Ok(ReportSpan {
        kind: SpanKind::parse(&kind).ok_or_else(|| DbError::Corrupt(format!("report span kind {kind:?}")))?,
        activity_id: ActivityId::new(activity),
        started_at: from_millis(started)?,
        ended_at: from_millis(ended)?,
        member: member_of(member.as_deref())?,
        channel: channel_of(channel.as_deref())?,
    })
}

#[async_trait]
impl ReportRepository for Store {
    async fn range(&self, agent: &AgentId, from: Timestamp, to: Timestamp) -> StoreResult<ReportRange> {
        let (agent, from, to) = (agent.as_str().to_string(), from.timestamp_millis(), to.timestamp_millis());
        // A range of months reads a few hundred thousand spans: off the request's thread.
        let (counts, spans) = read_direct!(self, blocking, range_rows!(agent, from, to))?;
        let counts = counts.into_iter().map(count_of).collect::<Result<_, _>>()?;
        let spans = spans.into_iter().map(span_of).collect::<Result<_, _>>()?;
        Ok(ReportRange { counts, spans })
    }
}
