//! `ReportRepository`: the counts and durations message inserts, scheduled starts and closes
//! add ([`State::record_report`]), read by range.

use std::collections::BTreeMap;

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{ReportRepository, StoreResult};

use crate::store::{MemoryStore, ReportKey, State};

impl State {
    /// Adds what a write counted to its agent's reports, as the databases do in its transaction.
    pub(crate) fn record_report(&mut self, agent: &AgentId, facts: ReportFacts) {
        if let Some(count) = facts.count {
            let key: ReportKey =
                (agent.clone(), count.slot, count.member.map(|m| m.as_str().to_string()), count.channel.map(ChannelType::as_str));
            let tally = self.report_counts.entry(key).or_default();
            *tally = tally.plus(count.tally);
        }
        if let Some(span) = facts.span {
            self.report_spans.push((agent.clone(), span));
        }
    }

    /// The channel of the activity's latest message to or from its contact (notes are
    /// neither), which a close counts under.
    pub(crate) fn contact_channel(&self, activity: &ActivityId) -> Option<ChannelType> {
        self.messages
            .values()
            .filter(|m| &m.activity_id == activity && m.direction != MessageDirection::Internal && m.status != MessageStatus::Scheduled)
            .max_by_key(|m| (m.created_at, m.id.clone()))
            .map(|m| m.channel.channel_type())
    }
}

#[async_trait]
impl ReportRepository for MemoryStore {
    async fn range(&self, agent: &AgentId, from: Timestamp, to: Timestamp, by: GroupBy) -> StoreResult<ReportRange> {
        Ok(self.with(|s| {
            let mut counts: BTreeMap<(Timestamp, Option<String>, Option<&'static str>), Tally> = BTreeMap::new();
            for ((a, slot, member, channel), tally) in &s.report_counts {
                if a != agent || *slot < from || *slot >= to {
                    continue;
                }
                // The grouping's key alone, as the databases add them up.
                let key = match by {
                    GroupBy::Day => (*slot, None, None),
                    GroupBy::Member => (from, member.clone(), None),
                    GroupBy::Channel => (from, None, *channel),
                };
                let sum = counts.entry(key).or_default();
                *sum = sum.plus(*tally);
            }
            let counts = counts
                .into_iter()
                .map(|((slot, member, channel), tally)| SlotCount {
                    slot,
                    member: member.as_deref().map(|m| Assignee::new(m).expect("stored from an assignee")),
                    channel: channel.map(|c| ChannelType::parse(c).expect("stored from a channel type")),
                    tally,
                })
                .collect();
            let spans = s
                .report_spans
                .iter()
                .filter(|(a, span)| a == agent && span.ended_at >= from && span.ended_at < to)
                .map(|(_, span)| EndedSpan {
                    kind: span.kind,
                    started_at: span.started_at,
                    ended_at: span.ended_at,
                    member: span.member.clone().filter(|_| by == GroupBy::Member),
                    channel: span.channel.filter(|_| by == GroupBy::Channel),
                })
                .collect();
            ReportRange { counts, spans }
        }))
    }
}
