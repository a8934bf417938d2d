//! `ReportRepository`: the counts and durations message inserts, scheduled starts and closes
//! add ([`State::record_report`]), read by range.

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
    async fn range(&self, agent: &AgentId, from: Timestamp, to: Timestamp) -> StoreResult<ReportRange> {
        Ok(self.with(|s| {
            let counts = s
                .report_counts
                .iter()
                .filter(|((a, slot, _, _), _)| a == agent && *slot >= from && *slot < to)
                .map(|((_, slot, member, channel), tally)| SlotCount {
                    slot: *slot,
                    member: member.as_deref().map(|m| Assignee::new(m).expect("stored from an assignee")),
                    channel: channel.map(|c| ChannelType::parse(c).expect("stored from a channel type")),
                    tally: *tally,
                })
                .collect();
            let spans = s
                .report_spans
                .iter()
                .filter(|(a, span)| a == agent && span.ended_at >= from && span.ended_at < to)
                .map(|(_, span)| span.clone())
                .collect();
            ReportRange { counts, spans }
        }))
    }
}
