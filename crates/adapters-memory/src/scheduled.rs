//! `ScheduledSendRepository`: scheduled messages' sends beside their timeline entries, written
//! and claimed under the store's one lock, as the databases do in one transaction.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{ScheduledSendRepository, StoreResult};

use crate::store::MemoryStore;

#[async_trait]
impl ScheduledSendRepository for MemoryStore {
    async fn schedule(&self, message: &Message, send: &ScheduledSend) -> StoreResult<()> {
        self.with(|s| {
            s.insert_message(message, &[], ResponseMark::Nothing)?;
            s.scheduled.insert(send.message_id.clone(), (send.clone(), None));
            Ok(())
        })
    }

    async fn claim_due(&self, now: Timestamp, lease_until: Timestamp, limit: u32) -> StoreResult<Vec<ScheduledSend>> {
        Ok(self.with(|s| {
            let mut due: Vec<&mut (ScheduledSend, Option<Timestamp>)> =
                s.scheduled.values_mut().filter(|(send, lease)| send.send_at <= now && lease.is_none_or(|until| until <= now)).collect();
            due.sort_by(|(a, _), (b, _)| (a.send_at, &a.message_id).cmp(&(b.send_at, &b.message_id)));
            due.into_iter()
                .take(limit as usize)
                .map(|(send, lease)| {
                    *lease = Some(lease_until);
                    send.clone()
                })
                .collect()
        }))
    }

    async fn start(&self, agent: &AgentId, message: &MessageId, at: Timestamp) -> StoreResult<Option<Message>> {
        Ok(self.with(|s| {
            let mine = s.message_of(agent, message).cloned()?;
            // Whoever started it (or none, after a cancel), its send is done with.
            s.scheduled.remove(message);
            let mut m = Some(mine).filter(|m| m.status == MessageStatus::Scheduled)?;
            m.status = MessageStatus::Sending;
            m.updated_at = at;
            s.messages.insert(m.id.clone(), m.clone());
            let stored = s.activity_of_mut(agent, &m.activity_id)?;
            stored.activity.updated_at = at;
            let a = &mut stored.activity;
            let mark = ResponseMark::team_message(m.campaign_key.as_ref());
            let clock_before = a.first_response;
            a.first_response = mark.apply(clock_before, a.status == ActivityStatus::Open, at);
            let facts = ReportFacts::of_send(&m, at, &clock_before, &a.first_response, a.assigned_to.as_ref());
            if stored.last_message.as_ref().is_none_or(|last| (last.created_at, &last.id) < (m.created_at, &m.id)) {
                stored.last_message = Some(MessageSummary::of(&m));
            }
            s.record_report(agent, facts);
            Some(m)
        }))
    }

    async fn cancel(&self, agent: &AgentId, activity: &ActivityId, message: &MessageId) -> StoreResult<bool> {
        Ok(self.with(|s| {
            let scheduled = |m: &&Message| m.status == MessageStatus::Scheduled && &m.activity_id == activity;
            if s.message_of(agent, message).filter(scheduled).is_none() {
                return false;
            }
            s.messages.remove(message);
            s.scheduled.remove(message);
            true
        }))
    }

    async fn pending(&self) -> StoreResult<u64> {
        Ok(self.with(|s| s.scheduled.len() as u64))
    }
}
