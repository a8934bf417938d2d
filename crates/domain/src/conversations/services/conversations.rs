use std::sync::Arc;

use crate::model::*;
use crate::ports::{ActivityRepository, Clock, ContactRepository, IdSource};
use crate::services::EventMaker;
use crate::{DomainError, StoreError};

/// How a new activity looks in the API: no tags, no message yet.
pub(crate) fn fresh_view(activity: &Activity, contact: &Contact) -> ActivityView {
    ActivityView {
        activity: activity.clone(),
        profile_name: contact.profile_name.clone(),
        channels: contact.channels.clone(),
        tags: Vec::new(),
        last_message: None,
        unread_count: 0,
        assignee: None,
    }
}

/// Contacts and their activity, as messaging creates them: a send to someone new (a pending
/// conversation) or a message from someone (an open one). Races resolve to the stored row.
pub(crate) struct Conversations {
    contacts: Arc<dyn ContactRepository>,
    activities: Arc<dyn ActivityRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    events: EventMaker,
}

impl Conversations {
    pub(crate) fn new(
        contacts: Arc<dyn ContactRepository>,
        activities: Arc<dyn ActivityRepository>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdSource>,
        events: EventMaker,
    ) -> Self {
        Self { contacts, activities, clock, ids, events }
    }

    /// The same, its changes reported as a rule's (they run no rules).
    pub(crate) fn by_rules(self) -> Self {
        Self { events: self.events.by_rules(), ..self }
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
                let activity = self.new_activity(self.new_activity_id(), agent, &contact.id, status, last_inbound_at);
                let events = [
                    self.events.make(agent, EventType::ContactCreated, now, &contact),
                    self.events.make(agent, EventType::ActivityCreated, now, &fresh_view(&activity, &contact)),
                ];
                // Both in one transaction: someone new's first message is otherwise two commits.
                match self.contacts.insert_conversation(&contact, &activity, &events).await {
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
        let activity = self.insert_activity(agent, &contact, status, last_inbound_at).await?;
        Ok((contact, activity))
    }

    /// The contact's activity, opened in `status` (with `last_inbound_at`) when it has none. One
    /// activity per contact: when another request opens it first, that one is returned.
    pub(crate) async fn open_activity(
        &self,
        agent: &AgentId,
        contact: &Contact,
        status: ActivityStatus,
        last_inbound_at: Option<Timestamp>,
    ) -> Result<Activity, DomainError> {
        Ok(self.open_or_find(agent, contact, status, last_inbound_at).await?.0)
    }

    /// [`open_activity`](Self::open_activity), saying whether this call opened it.
    pub(crate) async fn open_or_find(
        &self,
        agent: &AgentId,
        contact: &Contact,
        status: ActivityStatus,
        last_inbound_at: Option<Timestamp>,
    ) -> Result<(Activity, bool), DomainError> {
        if let Some(existing) = self.activities.find_by_contact(agent, &contact.id).await? {
            return Ok((existing, false));
        }
        let new_id = self.new_activity_id();
        let activity = self.insert_activity_as(new_id.clone(), agent, contact, status, last_inbound_at).await?;
        let opened = activity.id == new_id;
        Ok((activity, opened))
    }

    /// A new activity for a contact that had none when last looked at; the stored one when
    /// another request opened it since.
    async fn insert_activity(
        &self,
        agent: &AgentId,
        contact: &Contact,
        status: ActivityStatus,
        last_inbound_at: Option<Timestamp>,
    ) -> Result<Activity, DomainError> {
        self.insert_activity_as(self.new_activity_id(), agent, contact, status, last_inbound_at).await
    }

    fn new_activity_id(&self) -> ActivityId {
        ActivityId::new(self.ids.new_id(IdKind::Activity))
    }

    /// [`insert_activity`](Self::insert_activity) with the id the new activity gets.
    async fn insert_activity_as(
        &self,
        id: ActivityId,
        agent: &AgentId,
        contact: &Contact,
        status: ActivityStatus,
        last_inbound_at: Option<Timestamp>,
    ) -> Result<Activity, DomainError> {
        let activity = self.new_activity(id, agent, &contact.id, status, last_inbound_at);
        let created = self.events.make(agent, EventType::ActivityCreated, activity.created_at, &fresh_view(&activity, contact));
        match self.activities.insert(&activity, &[created]).await {
            Ok(()) => Ok(activity),
            Err(StoreError::Conflict(_)) => {
                self.activities.find_by_contact(agent, &contact.id).await?.ok_or(DomainError::not_found("activity"))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// An activity of `contact`, opened now in `status`, not stored yet.
    fn new_activity(
        &self,
        id: ActivityId,
        agent: &AgentId,
        contact: &ContactId,
        status: ActivityStatus,
        last_inbound_at: Option<Timestamp>,
    ) -> Activity {
        let now = self.clock.now();
        Activity {
            id,
            agent_id: agent.clone(),
            contact_id: contact.clone(),
            status,
            assigned_to: None,
            last_inbound_at,
            first_response: FirstResponse::default(),
            created_at: now,
            updated_at: now,
        }
    }

    /// What a message over `channel` teaches of `contact`'s channel of the same user: what it
    /// lacked or what changed ([`Channel::learned`]: a phone or user id it lacked, a parent id, a
    /// newer username; then `change`, the platform's word that the user's phone or user id is
    /// another now, [`Channel::changed`]). `None` when nothing. It is written with the message
    /// ([`MessageRepository::insert_learning`](crate::ports::MessageRepository::insert_learning)),
    /// with a `contact.updated` event; when another request changed the channel first, the next
    /// message tells again; when the phone or user id is another contact's, both contacts stay
    /// as they are (Parley never merges two contacts on its own).
    fn taught(&self, agent: &AgentId, contact: &Contact, channel: &Channel, change: Option<&IdentityChange>) -> Option<ChannelUpdate> {
        let position = contact.channels.iter().position(|c| c.is_same_user(channel) || c.address() == channel.address())?;
        let before = &contact.channels[position];
        let learned = before.learned(channel).unwrap_or_else(|| before.clone());
        let after = change.and_then(|c| learned.changed(c)).unwrap_or(learned);
        if after == *before {
            return None;
        }
        let mut next = contact.clone();
        next.channels[position] = after.clone();
        next.updated_at = self.clock.now();
        let updated = self.events.make(agent, EventType::ContactUpdated, next.updated_at, &next);
        Some(ChannelUpdate { contact: next, before: before.clone(), after, events: vec![updated] })
    }

    /// The platform's notice that the user of `channel` (as they were) is now who `change`
    /// says: their activity, and what the notice changes of their contact's channel, to write
    /// with the notice. A notice repeated finds them by who they are now. Someone Parley did not
    /// know gets a contact and a pending activity, as a send to someone new does: a notice is no
    /// message of theirs, so it opens no conversation and no messaging window.
    pub(crate) async fn identity_notice(
        &self,
        agent: &AgentId,
        channel: &Channel,
        change: Option<&IdentityChange>,
    ) -> Result<(Activity, Option<ChannelUpdate>), DomainError> {
        // Known by who they are now: the notice was applied already (a repeated delivery).
        let now_named = change.and_then(|c| channel.changed(c));
        if let Some(current) = &now_named
            && !self.knows(agent, channel).await?
            && let Some((_, Some(activity))) = self.contacts.find_conversation(agent, current).await?
        {
            return Ok((activity, None));
        }
        let (contact, activity) = self.ensure(agent, channel, None, ActivityStatus::Pending, None).await?;
        let update = change.and_then(|c| self.taught(agent, &contact, channel, Some(c)));
        Ok((activity, update))
    }

    /// The phone of the agent's contact on `channel` (a user id, say), when it is known.
    pub(crate) async fn phone_of(&self, agent: &AgentId, channel: &Channel) -> Result<Option<String>, DomainError> {
        let Some((contact, _)) = self.contacts.find_conversation(agent, channel).await? else { return Ok(None) };
        Ok(contact.channels.iter().filter(|c| c.is_same_user(channel)).find_map(|c| c.phone().map(str::to_string)))
    }

    /// Whether the agent has a contact on `channel`.
    pub(crate) async fn knows(&self, agent: &AgentId, channel: &Channel) -> Result<bool, DomainError> {
        Ok(self.contacts.find_conversation(agent, channel).await?.is_some())
    }

    /// The activity of the agent's contact on `channel`, if there is one.
    pub(crate) async fn activity_of(&self, agent: &AgentId, channel: &Channel) -> Result<Option<Activity>, DomainError> {
        Ok(self.contacts.find_conversation(agent, channel).await?.and_then(|(_, activity)| activity))
    }

    /// The activity a message the business sent outside Parley joins: created `pending` for
    /// someone new, as a send to someone new is; never reopened by it.
    pub(crate) async fn outbound(&self, agent: &AgentId, channel: &Channel) -> Result<Activity, DomainError> {
        Ok(self.ensure(agent, channel, None, ActivityStatus::Pending, None).await?.1)
    }

    /// A message from a contact: keeps their profile name current and returns their activity,
    /// opened (with `last_inbound_at`) when they have none, and what the message taught of their
    /// channel ([`taught`](Self::taught)), to write with it. Reopening an existing activity and
    /// raising its `last_inbound_at` (the start of the 24-hour messaging window) happen with the
    /// message's insert, in one transaction ([`MessageRepository::insert`](crate::ports::MessageRepository::insert)),
    /// so a repeated delivery changes nothing and concurrent ones never move it back.
    pub(crate) async fn inbound(
        &self,
        agent: &AgentId,
        channel: &Channel,
        name: Option<&str>,
        at: Timestamp,
        identity: Option<&IdentityChange>,
    ) -> Result<(Activity, Option<ChannelUpdate>), DomainError> {
        let (mut contact, activity) = self.ensure(agent, channel, name, ActivityStatus::Open, Some(at)).await?;
        if let Some(name) = name.and_then(|n| ProfileName::new(n).ok())
            && name != contact.profile_name
        {
            contact.profile_name = name;
            contact.updated_at = self.clock.now();
            let updated = self.events.make(agent, EventType::ContactUpdated, contact.updated_at, &contact);
            self.contacts.update(&contact, &[updated]).await?;
        }
        let update = self.taught(agent, &contact, channel, identity);
        Ok((activity, update))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockActivityRepository, MockClock, MockContactRepository, MockIdSource};
    use chrono::{TimeZone, Utc};

    fn now() -> Timestamp {
        Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap()
    }

    fn conversations(contacts: MockContactRepository, activities: MockActivityRepository) -> Conversations {
        let mut clock = MockClock::new();
        clock.expect_now().returning(now);
        let mut ids = MockIdSource::new();
        ids.expect_new_id().returning(|k| format!("{}_new", k.prefix()));
        let ids: Arc<dyn IdSource> = Arc::new(ids);
        Conversations::new(Arc::new(contacts), Arc::new(activities), Arc::new(clock), ids.clone(), EventMaker::new(ids))
    }

    fn channel() -> Channel {
        Channel::new(ChannelType::Whatsapp, "5215550001").unwrap()
    }

    fn stored(contact: &str) -> (Contact, Activity) {
        let contact = Contact {
            id: ContactId::new(contact),
            agent_id: AgentId::new("agt_1"),
            profile_name: ProfileName::new("Ana").unwrap(),
            email: None,
            notes: None,
            channels: vec![channel()],
            custom_attributes: CustomAttributes::default(),
            created_at: now(),
            updated_at: now(),
        };
        let activity = Activity {
            id: ActivityId::new("act_theirs"),
            agent_id: AgentId::new("agt_1"),
            contact_id: contact.id.clone(),
            status: ActivityStatus::Open,
            assigned_to: None,
            last_inbound_at: None,
            first_response: FirstResponse::default(),
            created_at: now(),
            updated_at: now(),
        };
        (contact, activity)
    }

    #[tokio::test]
    async fn someone_new_gets_a_contact_and_an_activity_in_one_write() {
        let mut contacts = MockContactRepository::new();
        contacts.expect_find_conversation().times(1).returning(|_, _| Ok(None));
        contacts
            .expect_insert_conversation()
            .withf(|c, a, _| c.id.as_str() == "con_new" && a.contact_id == c.id && a.last_inbound_at == Some(now()))
            .times(1)
            .returning(|_, _, _| Ok(()));
        let mut activities = MockActivityRepository::new();
        activities.expect_insert().never();
        activities.expect_find_by_contact().never();
        let (contact, activity) = conversations(contacts, activities)
            .ensure(&AgentId::new("agt_1"), &channel(), Some("Ana"), ActivityStatus::Open, Some(now()))
            .await
            .unwrap();
        assert_eq!((contact.profile_name.as_str(), activity.id.as_str()), ("Ana", "act_new"));
    }

    #[tokio::test]
    async fn when_another_request_made_the_contact_first_theirs_is_returned() {
        let mut contacts = MockContactRepository::new();
        let mut seq = mockall::Sequence::new();
        contacts.expect_find_conversation().times(1).in_sequence(&mut seq).returning(|_, _| Ok(None));
        contacts
            .expect_insert_conversation()
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _, _| Err(StoreError::Conflict("channel taken".into())));
        contacts.expect_find_conversation().times(1).in_sequence(&mut seq).returning(|_, _| {
            let (c, a) = stored("con_theirs");
            Ok(Some((c, Some(a))))
        });
        let mut activities = MockActivityRepository::new();
        activities.expect_insert().never();
        let (contact, activity) = conversations(contacts, activities)
            .ensure(&AgentId::new("agt_1"), &channel(), None, ActivityStatus::Pending, None)
            .await
            .unwrap();
        assert_eq!((contact.id.as_str(), activity.id.as_str()), ("con_theirs", "act_theirs"));
    }

    #[tokio::test]
    async fn a_known_contact_without_an_activity_gets_one_without_a_second_lookup() {
        let mut contacts = MockContactRepository::new();
        contacts.expect_find_conversation().times(1).returning(|_, _| Ok(Some((stored("con_known").0, None))));
        contacts.expect_insert_conversation().never();
        let mut activities = MockActivityRepository::new();
        activities.expect_find_by_contact().never();
        activities.expect_insert().withf(|a, _| a.contact_id.as_str() == "con_known").times(1).returning(|_, _| Ok(()));
        let (_, activity) = conversations(contacts, activities)
            .ensure(&AgentId::new("agt_1"), &channel(), None, ActivityStatus::Pending, None)
            .await
            .unwrap();
        assert_eq!((activity.id.as_str(), activity.status), ("act_new", ActivityStatus::Pending));
    }
}
