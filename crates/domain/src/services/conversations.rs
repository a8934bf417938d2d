use std::sync::Arc;

use crate::model::*;
use crate::ports::{ActivityRepository, Clock, ContactRepository, IdSource};
use crate::{DomainError, StoreError};

/// Contacts and their activity, as messaging creates them: a send to someone new (a pending
/// conversation) or a message from someone (an open one). Races resolve to the stored row.
pub(crate) struct Conversations {
    contacts: Arc<dyn ContactRepository>,
    activities: Arc<dyn ActivityRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
}

impl Conversations {
    pub(crate) fn new(
        contacts: Arc<dyn ContactRepository>,
        activities: Arc<dyn ActivityRepository>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdSource>,
    ) -> Self {
        Self { contacts, activities, clock, ids }
    }

    /// The contact on `channel` and its activity, created when missing (named `name`, or the
    /// channel id; the activity in `status`, with `last_inbound_at`).
    pub(crate) async fn ensure(
        &self,
        agent: &AgentId,
        channel: &Channel,
        name: Option<&str>,
        status: ActivityStatus,
        last_inbound_at: Option<Timestamp>,
    ) -> Result<(Contact, Activity), DomainError> {
        let contact = match self.contacts.find_conversation(agent, channel).await? {
            Some((contact, Some(activity))) => return Ok((contact, activity)),
            Some((contact, None)) => contact,
            None => {
                let now = self.clock.now();
                let profile_name =
                    name.and_then(|n| ProfileName::new(n).ok()).map_or_else(|| ProfileName::new(channel.channel_id()), Ok)?;
                let contact = Contact {
                    id: ContactId::new(self.ids.new_id(IdKind::Contact)),
                    agent_id: agent.clone(),
                    profile_name,
                    email: None,
                    notes: None,
                    channels: vec![channel.clone()],
                    custom_attributes: CustomAttributes::default(),
                    created_at: now,
                    updated_at: now,
                };
                let activity = self.new_activity(agent, &contact.id, status, last_inbound_at);
                // Both in one transaction: someone new's first message is otherwise two commits.
                match self.contacts.insert_conversation(&contact, &activity).await {
                    Ok(()) => return Ok((contact, activity)),
                    // Another request made the contact first: theirs, with its activity if any.
                    Err(StoreError::Conflict(_)) => match self.contacts.find_conversation(agent, channel).await? {
                        Some((contact, Some(activity))) => return Ok((contact, activity)),
                        Some((contact, None)) => contact,
                        None => return Err(DomainError::not_found("contact")),
                    },
                    Err(e) => return Err(e.into()),
                }
            }
        };
        // The lookup above found no activity for this contact: insert one straight away.
        let activity = self.insert_activity(agent, &contact.id, status, last_inbound_at).await?;
        Ok((contact, activity))
    }

    /// The contact's activity, opened in `status` (with `last_inbound_at`) when it has none. One
    /// activity per contact: when another request opens it first, that one is returned.
    pub(crate) async fn open_activity(
        &self,
        agent: &AgentId,
        contact: &ContactId,
        status: ActivityStatus,
        last_inbound_at: Option<Timestamp>,
    ) -> Result<Activity, DomainError> {
        if let Some(existing) = self.activities.find_by_contact(agent, contact).await? {
            return Ok(existing);
        }
        self.insert_activity(agent, contact, status, last_inbound_at).await
    }

    /// A new activity for a contact that had none when last looked at; the stored one when
    /// another request opened it since.
    async fn insert_activity(
        &self,
        agent: &AgentId,
        contact: &ContactId,
        status: ActivityStatus,
        last_inbound_at: Option<Timestamp>,
    ) -> Result<Activity, DomainError> {
        let activity = self.new_activity(agent, contact, status, last_inbound_at);
        match self.activities.insert(&activity).await {
            Ok(()) => Ok(activity),
            Err(StoreError::Conflict(_)) => {
                self.activities.find_by_contact(agent, contact).await?.ok_or(DomainError::not_found("activity"))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// An activity of `contact`, opened now in `status`, not stored yet.
    fn new_activity(&self, agent: &AgentId, contact: &ContactId, status: ActivityStatus, last_inbound_at: Option<Timestamp>) -> Activity {
        let now = self.clock.now();
        Activity {
            id: ActivityId::new(self.ids.new_id(IdKind::Activity)),
            agent_id: agent.clone(),
            contact_id: contact.clone(),
            status,
            assigned_to: None,
            last_inbound_at,
            created_at: now,
            updated_at: now,
        }
    }

    /// A message from a contact: keeps their profile name current and returns their activity,
    /// opened (with `last_inbound_at`) when they have none. Reopening an existing activity and
    /// raising its `last_inbound_at` (the start of the 24-hour messaging window) happen with the
    /// message's insert, in one transaction ([`MessageRepository::insert`](crate::ports::MessageRepository::insert)),
    /// so a repeated delivery changes nothing and concurrent ones never move it back.
    pub(crate) async fn inbound(
        &self,
        agent: &AgentId,
        channel: &Channel,
        name: Option<&str>,
        at: Timestamp,
    ) -> Result<Activity, DomainError> {
        let (mut contact, activity) = self.ensure(agent, channel, name, ActivityStatus::Open, Some(at)).await?;
        if let Some(name) = name.and_then(|n| ProfileName::new(n).ok())
            && name != contact.profile_name
        {
            contact.profile_name = name;
            contact.updated_at = self.clock.now();
            self.contacts.update(&contact).await?;
        }
        Ok(activity)
    }
}
