//! `MessageRepository`: an activity's timeline. A message's insert moves its activity as the
//! databases' does in the same transaction (`updated_at`, `last_message`, `unread_count`, and
//! for an inbound message the status and `last_inbound_at`); a duplicate platform message id
//! (the platform delivering a webhook again) stores and moves nothing.

use std::cmp::Reverse;

use async_trait::async_trait;
use parley_domain::StoreError;
use parley_domain::model::*;
use parley_domain::ports::{MessageRepository, StoreResult};

use crate::store::{MemoryStore, State, conflict, page_of};

/// The order of a timeline, oldest first: `created_at`, then id.
fn age(m: &Message) -> (Timestamp, &MessageId) {
    (m.created_at, &m.id)
}

impl State {
    /// The agent's message with this platform message id, on any activity.
    fn message_by_platform_id(&self, agent: &AgentId, platform_id: &str) -> Option<&Message> {
        self.messages.values().find(|m| &m.agent_id == agent && m.platform_message_id.as_deref() == Some(platform_id))
    }

    /// The agent's message `id`, on any activity.
    pub(crate) fn message_of(&self, agent: &AgentId, id: &MessageId) -> Option<&Message> {
        self.messages.get(id).filter(|m| &m.agent_id == agent)
    }

    /// `insert`'s write, on the state.
    pub(crate) fn insert_message(&mut self, m: &Message, events: &[Event], mark: ResponseMark) -> StoreResult<bool> {
        let s = self;
        let Some(stored) = s.activity_of(&m.agent_id, &m.activity_id) else { return Err(StoreError::NotFound("activity")) };
        if let Some(platform_id) = &m.platform_message_id
            && s.message_by_platform_id(&m.agent_id, platform_id).is_some()
        {
            return Ok(false);
        }
        if s.messages.contains_key(&m.id) {
            return Err(conflict(format!("message {} already stored", m.id)));
        }
        s.check_events(events)?;
        // A scheduled message has not gone out: it becomes the last message when it does.
        let newest = m.status != MessageStatus::Scheduled
            && stored.last_message.as_ref().is_none_or(|last| (last.created_at, &last.id) < (m.created_at, &m.id));
        let Some(stored) = s.activity_of_mut(&m.agent_id, &m.activity_id) else { return Err(StoreError::NotFound("activity")) };
        let activity = &mut stored.activity;
        let open = activity.status == ActivityStatus::Open;
        let clock_before = activity.first_response;
        activity.first_response = mark.apply(clock_before, open, m.created_at);
        let facts = ReportFacts::of_message(m, &clock_before, &activity.first_response, activity.assigned_to.as_ref());
        activity.updated_at = m.updated_at;
        if newest {
            stored.last_message = Some(MessageSummary::of(m));
        }
        // The contact wrote: the conversation is open again and its window runs from the
        // latest of their messages (deliveries may come out of order). The business's
        // messages and its team's notes move neither.
        if m.direction == MessageDirection::Inbound {
            activity.status = ActivityStatus::Open;
            activity.last_inbound_at = Some(activity.last_inbound_at.map_or(m.created_at, |at| at.max(m.created_at)));
            stored.unread_count += 1;
        }
        s.messages.insert(m.id.clone(), m.clone());
        s.record_report(&m.agent_id, facts);
        s.emit_all(events);
        Ok(true)
    }

    /// Stores `m` with what it taught of its contact (`update`), both or nothing.
    pub(crate) fn insert_learning(
        &mut self,
        m: &Message,
        update: &ChannelUpdate,
        events: &[Event],
        mark: ResponseMark,
    ) -> StoreResult<bool> {
        let s = self;
        // Nothing at all when the message cannot be stored: both in one write.
        if s.activity_of(&m.agent_id, &m.activity_id).is_none() {
            return Err(StoreError::NotFound("activity"));
        }
        // A message id taken by another message (not a repeated platform id) fails the
        // databases' whole transaction: it must change nothing here either.
        let repeated = m.platform_message_id.as_ref().is_some_and(|p| s.message_by_platform_id(&m.agent_id, p).is_some());
        if !repeated && s.messages.contains_key(&m.id) {
            return Err(conflict(format!("message {} already stored", m.id)));
        }
        s.check_events(events)?;
        match s.write_channel_update(&update.contact, &update.before, &update.after, &update.events) {
            Ok(_) | Err(StoreError::Conflict(_)) => {}
            Err(e) => return Err(e),
        }
        s.insert_message(m, events, mark)
    }

    /// The agent's messages of one activity, in no particular order.
    pub(crate) fn timeline<'s>(&'s self, agent: &'s AgentId, activity: &'s ActivityId) -> impl Iterator<Item = &'s Message> + 's {
        self.messages.values().filter(move |m| &m.agent_id == agent && &m.activity_id == activity)
    }
}

#[async_trait]
impl MessageRepository for MemoryStore {
    async fn insert(&self, m: &Message, events: &[Event]) -> StoreResult<bool> {
        self.with(|s| s.insert_message(m, events, ResponseMark::Nothing))
    }

    async fn insert_marked<'a>(
        &self,
        m: &Message,
        update: Option<&'a ChannelUpdate>,
        mark: ResponseMark,
        events: &[Event],
    ) -> StoreResult<bool> {
        match update {
            Some(update) => self.with(|s| s.insert_learning(m, update, events, mark)),
            None => self.with(|s| s.insert_message(m, events, mark)),
        }
    }

    async fn insert_learning(&self, m: &Message, update: &ChannelUpdate, events: &[Event]) -> StoreResult<bool> {
        self.with(|s| s.insert_learning(m, update, events, ResponseMark::Nothing))
    }

    async fn get(&self, agent: &AgentId, activity: &ActivityId, id: &MessageId) -> StoreResult<Option<Message>> {
        Ok(self.with(|s| s.message_of(agent, id).filter(|m| &m.activity_id == activity).cloned()))
    }

    async fn list(&self, agent: &AgentId, activity: &ActivityId, filter: MessageFilter, page: PageRequest) -> StoreResult<Page<Message>> {
        let mut matching: Vec<Message> = self.with(|s| {
            s.activity_of(agent, activity).ok_or(StoreError::NotFound("activity"))?;
            let changed = |m: &&Message| filter.since.is_none_or(|since| m.updated_at > since);
            Ok::<_, StoreError>(s.timeline(agent, activity).filter(changed).cloned().collect())
        })?;
        matching.sort_by(|x, y| age(y).cmp(&age(x)));
        Ok(page_of(matching, page))
    }

    async fn find_by_platform_id(&self, agent: &AgentId, platform_message_id: &str) -> StoreResult<Option<Message>> {
        Ok(self.with(|s| s.message_by_platform_id(agent, platform_message_id).cloned()))
    }

    async fn update_status(&self, m: &Message, expected: MessageStatus, events: &[Event]) -> StoreResult<bool> {
        self.with(|s| {
            if !s.message_of(&m.agent_id, &m.id).is_some_and(|stored| stored.status == expected) {
                return Ok(false);
            }
            if let Some(platform_id) = &m.platform_message_id
                && s.message_by_platform_id(&m.agent_id, platform_id).is_some_and(|other| other.id != m.id)
            {
                return Err(conflict(format!("the agent has a message {platform_id}")));
            }
            s.check_events(events)?;
            let Some(stored) = s.messages.get_mut(&m.id) else { return Ok(false) };
            // What the platform reports about a message, nothing else: its content never changes.
            stored.platform_message_id = m.platform_message_id.clone();
            stored.status = m.status;
            stored.sent_at = m.sent_at;
            stored.delivered_at = m.delivered_at;
            stored.read_at = m.read_at;
            stored.error_message = m.error_message.clone();
            stored.pricing = m.pricing.clone();
            stored.updated_at = m.updated_at;
            s.emit_all(events);
            Ok(true)
        })
    }

    async fn find_by_id(&self, agent: &AgentId, id: &MessageId) -> StoreResult<Option<Message>> {
        Ok(self.with(|s| s.message_of(agent, id).cloned()))
    }

    async fn remove_sending(&self, m: &Message, activity_updated_at: Timestamp) -> StoreResult<bool> {
        Ok(self.with(|s| {
            let sending = |stored: &Message| stored.status == MessageStatus::Sending && stored.activity_id == m.activity_id;
            if s.activity_of(&m.agent_id, &m.activity_id).is_none() || !s.message_of(&m.agent_id, &m.id).is_some_and(sending) {
                return false;
            }
            s.messages.remove(&m.id);
            let newest = s.timeline(&m.agent_id, &m.activity_id).max_by(|x, y| age(x).cmp(&age(y))).map(MessageSummary::of);
            let Some(stored) = s.activity_of_mut(&m.agent_id, &m.activity_id) else { return false };
            if stored.last_message.as_ref().is_some_and(|last| last.id == m.id) {
                stored.last_message = newest;
            }
            // Back to before the insert, unless something moved it since.
            if stored.activity.updated_at == m.updated_at {
                stored.activity.updated_at = activity_updated_at;
            }
            true
        }))
    }

    async fn last_inbound(&self, agent: &AgentId, activity: &ActivityId) -> StoreResult<Option<Message>> {
        Ok(self.with(|s| {
            s.timeline(agent, activity).filter(|m| m.direction == MessageDirection::Inbound).max_by(|x, y| age(x).cmp(&age(y))).cloned()
        }))
    }

    async fn unread_outbound(
        &self,
        agent: &AgentId,
        activity: &ActivityId,
        line: &LineId,
        up_to: Timestamp,
        limit: u32,
    ) -> StoreResult<Vec<Message>> {
        let mut unread: Vec<Message> = self.with(|s| {
            s.timeline(agent, activity)
                .filter(|m| m.direction == MessageDirection::Outbound && m.line_id.as_ref() == Some(line))
                .filter(|m| matches!(m.status, MessageStatus::Sent | MessageStatus::Delivered) && m.created_at <= up_to)
                .cloned()
                .collect()
        });
        unread.sort_by(|x, y| age(x).cmp(&age(y)));
        unread.truncate(limit as usize);
        Ok(unread)
    }

    async fn mark_deleted(&self, m: &Message, events: &[Event]) -> StoreResult<bool> {
        self.with(|s| {
            if s.message_of(&m.agent_id, &m.id).filter(|stored| stored.deleted_at.is_none()).is_none() {
                return Ok(false);
            }
            s.check_events(events)?;
            let Some(stored) = s.messages.get_mut(&m.id) else { return Ok(false) };
            stored.deleted_at = m.deleted_at;
            stored.updated_at = m.updated_at;
            s.emit_all(events);
            Ok(true)
        })
    }

    async fn pricing_counts(&self, agent: &AgentId, key: &CampaignKey) -> StoreResult<Vec<(Pricing, u64)>> {
        Ok(self.with(|s| {
            let mut counts: Vec<(Pricing, u64)> = Vec::new();
            let priced = s.messages.values().filter(|m| &m.agent_id == agent && m.campaign_key.as_ref() == Some(key));
            for pricing in priced.filter_map(|m| m.pricing.as_ref()) {
                match counts.iter_mut().find(|(p, _)| p == pricing) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((pricing.clone(), 1)),
                }
            }
            counts
        }))
    }

    async fn carts(&self, agent: &AgentId, activity: &ActivityId) -> StoreResult<Vec<CartMention>> {
        let mut mentions: Vec<CartMention> = self.with(|s| {
            let mut codes: Vec<&str> = s.timeline(agent, activity).filter_map(|m| m.cart_code.as_ref()).map(CartCode::as_str).collect();
            codes.sort_unstable();
            codes.dedup();
            codes
                .into_iter()
                .filter_map(|code| s.carts.get(code))
                .filter(|cart| &cart.agent_id == agent)
                .map(|cart| CartMention { code: cart.code.clone(), created_at: cart.created_at })
                .collect()
        });
        mentions.sort_by(|x, y| Reverse((x.created_at, x.code.as_str())).cmp(&Reverse((y.created_at, y.code.as_str()))));
        Ok(mentions)
    }
}
