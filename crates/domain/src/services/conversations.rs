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
    /// channel id; the activity in `status`).
    pub(crate) async fn ensure(
        &self,
        agent: &AgentId,
        channel: &Channel,
        name: Option<&str>,
        status: ActivityStatus,
    ) -> Result<(Contact, Activity), DomainError> {
        let contact = match self.contacts.find_by_channel(agent, channel).await? {
            Some(c) => c,
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
                match self.contacts.insert(&contact).await {
                    Ok(()) => contact,
                    Err(StoreError::Conflict(_)) => {
                        self.contacts.find_by_channel(agent, channel).await?.ok_or(DomainError::not_found("contact"))?
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        };
        if let Some(activity) = self.activities.find_by_contact(agent, &contact.id).await? {
            return Ok((contact, activity));
        }
        let now = self.clock.now();
        let activity = Activity {
            id: ActivityId::new(self.ids.new_id(IdKind::Activity)),
            agent_id: agent.clone(),
            contact_id: contact.id.clone(),
            status,
            assigned_to: None,
            last_inbound_at: None,
            created_at: now,
            updated_at: now,
        };
        match self.activities.insert(&activity).await {
            Ok(()) => Ok((contact, activity)),
            Err(StoreError::Conflict(_)) => {
                let existing = self.activities.find_by_contact(agent, &contact.id).await?.ok_or(DomainError::not_found("activity"))?;
                Ok((contact, existing))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// A message from a contact: keeps their profile name current, (re)opens their activity and
    /// records when they last wrote (the start of the 24-hour messaging window).
    pub(crate) async fn inbound(&self, agent: &AgentId, channel: &Channel, name: Option<&str>, at: Timestamp) -> Result<(), DomainError> {
        let (mut contact, mut activity) = self.ensure(agent, channel, name, ActivityStatus::Open).await?;
        if let Some(name) = name.and_then(|n| ProfileName::new(n).ok())
            && name != contact.profile_name
        {
            contact.profile_name = name;
            contact.updated_at = self.clock.now();
            self.contacts.update(&contact).await?;
        }
        let last = activity.last_inbound_at.map_or(at, |t| t.max(at));
        if activity.status != ActivityStatus::Open || activity.last_inbound_at != Some(last) {
            activity.status = ActivityStatus::Open;
            activity.last_inbound_at = Some(last);
            activity.updated_at = self.clock.now();
            self.activities.update(&activity, None).await?;
        }
        Ok(())
    }
}
