//! `ActivityRepository`: one conversation per contact. What an activity shows of its contact
//! and tags is read from them at each read, so it always follows renames, recolors and deletes;
//! what the databases keep on its row (`unread_count`, `last_message`) is kept on
//! [`StoredActivity`]. Lists are the agent's activities that [`ActivityFilter::matches`] keeps,
//! most recently updated first, and their totals are counted, so they are exact by construction.

use async_trait::async_trait;
use parley_domain::StoreError;
use parley_domain::model::*;
use parley_domain::ports::{ActivityRepository, StoreResult};

use crate::store::{MemoryStore, State, StoredActivity, conflict, page_of};
use crate::tags::by_name;

impl StoredActivity {
    /// A new activity: no tags, nothing unread, no message yet.
    pub(crate) fn new(activity: &Activity) -> Self {
        Self { activity: activity.clone(), tags: Default::default(), unread_count: 0, last_message: None, away_sent_at: None }
    }
}

impl State {
    /// Whether `activity` may be stored: its id is free and its contact is the agent's (or is
    /// `new_contact`, written with it) and has no activity yet.
    pub(crate) fn check_new_activity(&self, activity: &Activity, new_contact: Option<&Contact>) -> StoreResult<()> {
        if self.activities.contains_key(&activity.id) {
            return Err(conflict(format!("activity {} already stored", activity.id)));
        }
        let is_new = new_contact.is_some_and(|c| c.id == activity.contact_id && c.agent_id == activity.agent_id);
        if !is_new && self.contact_of(&activity.agent_id, &activity.contact_id).is_none() {
            return Err(StoreError::NotFound("contact"));
        }
        if self.activity_of_contact(&activity.agent_id, &activity.contact_id).is_some() {
            return Err(conflict(format!("contact {} already has an activity", activity.contact_id)));
        }
        Ok(())
    }

    /// The agent's activity `id`.
    pub(crate) fn activity_of(&self, agent: &AgentId, id: &ActivityId) -> Option<&StoredActivity> {
        self.activities.get(id).filter(|a| &a.activity.agent_id == agent)
    }

    /// The agent's activity `id`, to change it.
    pub(crate) fn activity_of_mut(&mut self, agent: &AgentId, id: &ActivityId) -> Option<&mut StoredActivity> {
        self.activities.get_mut(id).filter(|a| &a.activity.agent_id == agent)
    }

    /// The activity of the agent's contact `contact`.
    pub(crate) fn activity_of_contact(&self, agent: &AgentId, contact: &ContactId) -> Option<&StoredActivity> {
        self.activities.values().find(|a| &a.activity.agent_id == agent && &a.activity.contact_id == contact)
    }

    /// The activity with what it shows now of its contact and its tags (by name ignoring case,
    /// then id). `None` only if its contact is gone, which erasure never leaves.
    pub(crate) fn view(&self, stored: &StoredActivity) -> Option<ActivityView> {
        let contact = self.contacts.get(&stored.activity.contact_id)?;
        let mut tags: Vec<Tag> = stored.tags.iter().filter_map(|id| self.tags.get(id)).cloned().collect();
        by_name(&mut tags);
        Some(ActivityView {
            activity: stored.activity.clone(),
            profile_name: contact.profile_name.clone(),
            channels: contact.channels.clone(),
            tags: tags.iter().map(TagRef::from).collect(),
            last_message: stored.last_message.clone(),
            unread_count: stored.unread_count,
            assignee: self.assignee_of(&stored.activity),
        })
    }

    /// The agent's member the activity is assigned to, while there is one.
    fn assignee_of(&self, activity: &Activity) -> Option<MemberRef> {
        let id = activity.assigned_to.as_ref()?.member()?;
        self.members.get(&id).filter(|m| m.agent_id == activity.agent_id).map(Member::to_ref)
    }
}

#[async_trait]
impl ActivityRepository for MemoryStore {
    async fn insert(&self, activity: &Activity, events: &[Event]) -> StoreResult<()> {
        self.with(|s| {
            s.check_new_activity(activity, None)?;
            s.check_events(events)?;
            s.activities.insert(activity.id.clone(), StoredActivity::new(activity));
            s.emit_all(events);
            Ok(())
        })
    }

    async fn get(&self, agent: &AgentId, id: &ActivityId) -> StoreResult<Option<ActivityView>> {
        Ok(self.with(|s| s.activity_of(agent, id).and_then(|a| s.view(a))))
    }

    async fn find_by_contact(&self, agent: &AgentId, contact: &ContactId) -> StoreResult<Option<Activity>> {
        Ok(self.with(|s| s.activity_of_contact(agent, contact).map(|a| a.activity.clone())))
    }

    async fn list(&self, agent: &AgentId, filter: &ActivityFilter, page: PageRequest) -> StoreResult<Page<ActivityView>> {
        let mut matching: Vec<ActivityView> = self.with(|s| {
            s.activities
                .values()
                .filter(|a| &a.activity.agent_id == agent)
                .filter_map(|a| s.view(a))
                .filter(|view| filter.matches(view))
                .collect()
        });
        matching.sort_by(|x, y| (y.activity.updated_at, &y.activity.id).cmp(&(x.activity.updated_at, &x.activity.id)));
        Ok(page_of(matching, page))
    }

    async fn update<'a>(&self, write: ActivityWrite<'a>, events: &[Event]) -> StoreResult<bool> {
        let (activity, rename) = (write.activity, write.rename);
        self.with(|s| {
            let Some(stored) = s.activity_of(&activity.agent_id, &activity.id) else { return Ok(false) };
            if write.if_unassigned && stored.activity.assigned_to.is_some() {
                return Err(conflict("the activity is already assigned"));
            }
            s.check_events(events)?;
            let closes = stored.activity.status != ActivityStatus::Closed && activity.status == ActivityStatus::Closed;
            let channel = if closes { s.contact_channel(&activity.id) } else { None };
            let Some(stored) = s.activity_of_mut(&activity.agent_id, &activity.id) else { return Ok(false) };
            let (opened_at, created_at) = (stored.activity.first_response.opened_at, stored.activity.created_at);
            stored.activity.status = activity.status;
            stored.activity.assigned_to = activity.assigned_to.clone();
            stored.activity.last_inbound_at = activity.last_inbound_at;
            stored.activity.updated_at = activity.updated_at;
            let contact_id = stored.activity.contact_id.clone();
            if let Some(name) = rename
                && let Some(contact) = s.contacts.get_mut(&contact_id)
            {
                // The contact changes with its activity, at the activity's update time.
                contact.profile_name = name.clone();
                contact.updated_at = activity.updated_at;
            }
            if closes {
                let facts =
                    ReportFacts::of_close(&activity.id, activity.updated_at, opened_at, created_at, activity.assigned_to.as_ref(), channel);
                s.record_report(&activity.agent_id, facts);
            }
            s.emit_all(events);
            Ok(true)
        })
    }

    async fn attach_tags(&self, agent: &AgentId, id: &ActivityId, tags: &[TagId], at: Timestamp, events: &[Event]) -> StoreResult<bool> {
        self.with(|s| {
            let Some(stored) = s.activity_of(agent, id) else { return Ok(false) };
            // Only the agent's own tags, each once, and only those not attached yet.
            let mut new: Vec<TagId> = Vec::new();
            for tag in tags {
                let owned = s.tags.get(tag).is_some_and(|t| &t.agent_id == agent);
                if owned && !stored.tags.contains(tag) && !new.contains(tag) {
                    new.push(tag.clone());
                }
            }
            if new.is_empty() {
                return Ok(true);
            }
            if stored.tags.len() + new.len() > MAX_TAGS_PER_ACTIVITY as usize {
                return Err(conflict(format!("an activity holds at most {MAX_TAGS_PER_ACTIVITY} tags")));
            }
            s.check_events(events)?;
            let Some(stored) = s.activity_of_mut(agent, id) else { return Ok(false) };
            stored.tags.extend(new);
            stored.activity.updated_at = at;
            s.emit_all(events);
            Ok(true)
        })
    }

    async fn detach_tag(&self, agent: &AgentId, id: &ActivityId, tag: &TagId, at: Timestamp, events: &[Event]) -> StoreResult<bool> {
        self.with(|s| {
            let Some(stored) = s.activity_of(agent, id) else { return Ok(false) };
            if !stored.tags.contains(tag) {
                return Ok(true);
            }
            s.check_events(events)?;
            let Some(stored) = s.activity_of_mut(agent, id) else { return Ok(false) };
            stored.tags.remove(tag);
            stored.activity.updated_at = at;
            s.emit_all(events);
            Ok(true)
        })
    }

    async fn mark_read(&self, agent: &AgentId, id: &ActivityId) -> StoreResult<bool> {
        Ok(self.with(|s| s.activity_of_mut(agent, id).map(|stored| stored.unread_count = 0).is_some()))
    }
}
