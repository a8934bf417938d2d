//! `ContactRepository`: each agent's contacts, one per channel (a channel belongs to one contact
//! of the agent), listed newest first under [`ContactFilter::matches`] itself. A new contact
//! may come with its first activity ([`insert_conversation`](ContactRepository::insert_conversation)),
//! and a contact can be erased with all it wrote (`erasure.rs`).

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{ContactRepository, StoreResult};

use crate::store::{MemoryStore, State, StoredActivity, conflict, page_of};

impl State {
    /// Whether `contact` may be stored: its agent is known, its id is free, and none of its
    /// channels (nor one twice) belongs to a contact of the agent already.
    fn check_new_contact(&self, contact: &Contact) -> StoreResult<()> {
        self.require_agent(&contact.agent_id)?;
        if self.contacts.contains_key(&contact.id) {
            return Err(conflict(format!("contact {} already stored", contact.id)));
        }
        for (i, channel) in contact.channels.iter().enumerate() {
            let twice = contact.channels[..i].iter().any(|c| c.address() == channel.address());
            if twice || self.holder_of(&contact.agent_id, channel, None).is_some() {
                return Err(conflict(format!(
                    "channel {} {} already belongs to a contact",
                    channel.channel_type().as_str(),
                    channel.channel_id()
                )));
            }
        }
        Ok(())
    }

    /// The agent's contact on `channel`: the one with its user id first, then the one on its
    /// address.
    pub(crate) fn contact_on(&self, agent: &AgentId, channel: &Channel) -> Option<&Contact> {
        let agents = || self.contacts.values().filter(|c| &c.agent_id == agent);
        let by_user = channel
            .user()
            .user_id
            .as_ref()
            .and_then(|user_id| agents().find(|c| c.channels.iter().any(|ch| ch.user().user_id.as_ref() == Some(user_id))));
        by_user.or_else(|| agents().find(|c| c.channels.iter().any(|ch| ch.address() == channel.address())))
    }

    /// A contact of the agent other than `except` that holds `channel`'s address or user id:
    /// what makes a write of `channel` a conflict.
    fn holder_of(&self, agent: &AgentId, channel: &Channel, except: Option<&ContactId>) -> Option<&Contact> {
        let holds = |ch: &Channel| {
            ch.address() == channel.address() || (ch.user().user_id.is_some() && ch.user().user_id == channel.user().user_id)
        };
        self.contacts.values().find(|c| &c.agent_id == agent && Some(&c.id) != except && c.channels.iter().any(holds))
    }

    /// `update_channel`'s write (a message's insert makes it too, `insert_learning`): the
    /// channel replaced when it is still `before`; a conflict when `after` is another contact's.
    pub(crate) fn write_channel_update(
        &mut self,
        contact: &Contact,
        before: &Channel,
        after: &Channel,
        events: &[Event],
    ) -> StoreResult<bool> {
        let Some(stored) = self.contact_of(&contact.agent_id, &contact.id) else { return Ok(false) };
        let Some(position) = stored.channels.iter().position(|c| c.address() == before.address()) else { return Ok(false) };
        if self.holder_of(&contact.agent_id, after, Some(&contact.id)).is_some() {
            return Err(conflict(format!("channel {} {} belongs to another contact", after.channel_type().as_str(), after.channel_id())));
        }
        self.check_events(events)?;
        let Some(stored) = self.contacts.get_mut(&contact.id) else { return Ok(false) };
        stored.channels[position] = after.clone();
        stored.updated_at = contact.updated_at;
        self.emit_all(events);
        Ok(true)
    }

    /// The agent's contact `id`.
    pub(crate) fn contact_of(&self, agent: &AgentId, id: &ContactId) -> Option<&Contact> {
        self.contacts.get(id).filter(|c| &c.agent_id == agent)
    }
}

#[async_trait]
impl ContactRepository for MemoryStore {
    async fn insert(&self, contact: &Contact, events: &[Event]) -> StoreResult<()> {
        self.with(|s| {
            s.check_new_contact(contact)?;
            s.check_events(events)?;
            s.contacts.insert(contact.id.clone(), contact.clone());
            s.emit_all(events);
            Ok(())
        })
    }

    async fn insert_conversation(&self, contact: &Contact, activity: &Activity, events: &[Event]) -> StoreResult<()> {
        self.with(|s| {
            // Both checked before either is written: a refused conversation writes nothing.
            s.check_new_contact(contact)?;
            s.check_new_activity(activity, Some(contact))?;
            s.check_events(events)?;
            s.contacts.insert(contact.id.clone(), contact.clone());
            s.activities.insert(activity.id.clone(), StoredActivity::new(activity));
            s.emit_all(events);
            Ok(())
        })
    }

    async fn get(&self, agent: &AgentId, id: &ContactId) -> StoreResult<Option<Contact>> {
        Ok(self.with(|s| s.contact_of(agent, id).cloned()))
    }

    async fn find_by_channel(&self, agent: &AgentId, channel: &Channel) -> StoreResult<Option<Contact>> {
        Ok(self.with(|s| s.contact_on(agent, channel).cloned()))
    }

    async fn find_conversation(&self, agent: &AgentId, channel: &Channel) -> StoreResult<Option<(Contact, Option<Activity>)>> {
        Ok(self.with(|s| {
            let contact = s.contact_on(agent, channel)?;
            let activity = s.activity_of_contact(agent, &contact.id).map(|stored| stored.activity.clone());
            Some((contact.clone(), activity))
        }))
    }

    async fn update_channel(&self, contact: &Contact, before: &Channel, after: &Channel, events: &[Event]) -> StoreResult<bool> {
        self.with(|s| s.write_channel_update(contact, before, after, events))
    }

    async fn list(&self, agent: &AgentId, filter: &ContactFilter, page: PageRequest) -> StoreResult<Page<Contact>> {
        let mut matching: Vec<Contact> =
            self.with(|s| s.contacts.values().filter(|c| &c.agent_id == agent && filter.matches(c)).cloned().collect());
        matching.sort_by(|x, y| (y.created_at, &y.id).cmp(&(x.created_at, &x.id)));
        Ok(page_of(matching, page))
    }

    async fn update(&self, contact: &Contact, events: &[Event]) -> StoreResult<bool> {
        self.with(|s| {
            if s.contact_of(&contact.agent_id, &contact.id).is_none() {
                return Ok(false);
            }
            s.check_events(events)?;
            let Some(stored) = s.contacts.get_mut(&contact.id) else { return Ok(false) };
            // Channels change only through `update_channel`; creation time never.
            stored.profile_name = contact.profile_name.clone();
            stored.email = contact.email.clone();
            stored.notes = contact.notes.clone();
            stored.custom_attributes = contact.custom_attributes.clone();
            stored.updated_at = contact.updated_at;
            s.emit_all(events);
            Ok(true)
        })
    }

    async fn erase(&self, agent: &AgentId, id: &ContactId, events: &[Event]) -> StoreResult<bool> {
        self.with(|s| {
            if s.contact_of(agent, id).is_none() {
                return Ok(false);
            }
            s.check_events(events)?;
            s.erase_contact(agent, id);
            s.emit_all(events);
            Ok(true)
        })
    }
}
