use crate::error::CHECKED;
use std::collections::BTreeSet;
use std::sync::Arc;

use crate::error::Violations;
use crate::model::*;
use crate::ports::{ActivityRepository, Clock, ContactRepository, IdSource, MemberRepository, MessageRepository, TagRepository};
use crate::services::EventMaker;
use crate::services::conversations::Conversations;
use crate::services::{Patch, not_null, required};
use crate::{DomainError, FieldError, StoreError};

/// Raw list query: every value as received, validated here.
#[derive(Debug, Clone, Default)]
pub struct ActivityListQuery {
    /// One status or several, comma-separated (`open,pending`); absent keeps every status.
    pub status: Option<String>,
    /// A tag id: only activities with that tag attached. An unknown tag keeps none.
    pub tag: Option<String>,
    /// A piece of the contact's name, or of a channel identifier's digits
    /// ([`ActivitySearch`]): 1–100 characters once trimmed.
    pub search: Option<String>,
    /// `none` for unassigned activities, `me` for the calling member's (in a member's session),
    /// else a user id (1–128 characters).
    pub assigned_to: Option<String>,
    /// A channel type ([`ChannelType`], lowercase): activities whose contact has a channel of it.
    pub channel_type: Option<String>,
    /// `true` or `false` exactly: activities with unread messages, or without.
    pub unread: Option<String>,
    /// An RFC 3339 time: activities updated after it (not at it).
    pub since: Option<String>,
    /// Page size, an integer from 1 to 100; 20 when absent.
    pub limit: Option<String>,
    /// Matching activities to skip, an integer of 0 or more; 0 when absent.
    pub offset: Option<String>,
    /// The member calling, in a member's session: what `me` means.
    pub me: Option<MemberId>,
}

/// Raw partial update of an activity: each field kept, cleared or set, validated by
/// [`ActivityService::update`].
#[derive(Debug, Clone, Default)]
pub struct ActivityPatchInput {
    /// `open`, `closed` or `pending`; may be changed, never cleared.
    pub status: Patch<String>,
    /// The assignee: one of the agent's member ids (`usr_…`), `me` (the calling member), or
    /// another user id (1–128 characters); cleared, the activity is unassigned.
    pub assigned_to: Patch<String>,
    /// A new name for the contact (1–256 characters), written with the activity; never cleared.
    pub profile_name: Patch<String>,
    /// Assign only if nobody has the activity (`Conflict` otherwise); needs `assigned_to`.
    pub if_unassigned: Option<bool>,
    /// The member calling, in a member's session: what `me` means.
    pub me: Option<MemberId>,
}

/// `assigned_to: "me"` as the calling member's id; a `FieldError` outside a member's session.
fn resolve_me(raw: String, me: Option<&MemberId>) -> Result<String, FieldError> {
    if raw.trim() != "me" {
        return Ok(raw);
    }
    me.map(|m| m.as_str().to_string())
        .ok_or_else(|| FieldError::new("assigned_to", "`me` names the signed-in member: use it in a member's session, or send a member id"))
}

/// A query flag: `true` or `false`, nothing else (`1`, `yes` and `True` are refused rather than guessed).
fn parse_flag(field: &str, raw: &str) -> Result<bool, FieldError> {
    match raw {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(FieldError::new(field, "must be true or false")),
    }
}

/// Tags attached in one call, at most.
pub const MAX_TAGS_PER_ATTACH: usize = 50;

/// One activity as its detail shows it: the view and the carts its contact brought in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActivityDetail {
    /// The activity with its contact's name and channels, its tags and its last message.
    pub view: ActivityView,
    /// Newest first.
    pub carts: Vec<CartMention>,
}

/// The inbox: lists, reads and changes the agent's activities (status, assignee, tags,
/// contact name), recording an `activity.updated` event with every change.
pub struct ActivityService {
    activities: Arc<dyn ActivityRepository>,
    messages: Arc<dyn MessageRepository>,
    contacts: Arc<dyn ContactRepository>,
    tags: Arc<dyn TagRepository>,
    members: Arc<dyn MemberRepository>,
    conversations: Conversations,
    clock: Arc<dyn Clock>,
    events: EventMaker,
}

/// The answer to an `if_unassigned` assignment that found the activity taken.
fn taken(holder: &Assignee) -> DomainError {
    DomainError::Conflict {
        message: format!("the activity is already assigned (to {}): nothing was changed", holder.as_str()),
        details: vec![FieldError::new("assigned_to", "someone already has this activity")],
    }
}

/// Tags as an activity shows them: by name ignoring case, then id.
fn sort_tags(tags: &mut [TagRef]) {
    tags.sort_by(|a, b| a.name.as_str().to_lowercase().cmp(&b.name.as_str().to_lowercase()).then_with(|| a.id.cmp(&b.id)));
}

impl ActivityService {
    /// A service over these ports; events get their ids from `ids` and their payloads from
    /// `objects`.
    pub fn new(
        activities: Arc<dyn ActivityRepository>,
        messages: Arc<dyn MessageRepository>,
        contacts: Arc<dyn ContactRepository>,
        tags: Arc<dyn TagRepository>,
        members: Arc<dyn MemberRepository>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdSource>,
    ) -> Self {
        let events = EventMaker::new(ids.clone());
        let conversations = Conversations::new(contacts.clone(), activities.clone(), clock.clone(), ids, events.clone());
        Self { activities, messages, contacts, tags, members, conversations, clock, events }
    }

    /// The same service for a rule's actions: its changes are reported as a rule's, and run no
    /// rules.
    pub fn by_rules(self) -> Self {
        Self { events: self.events.by_rules(), conversations: self.conversations.by_rules(), ..self }
    }

    /// `activity.updated` with the activity as `view` now shows it.
    fn updated(&self, view: &ActivityView) -> Event {
        self.events.make(&view.activity.agent_id, EventType::ActivityUpdated, view.activity.updated_at, view)
    }

    /// One page of the agent's activities that every given filter keeps, most recently updated
    /// first. Every bad filter or page value is reported at once in `Validation`, before
    /// anything is read.
    pub async fn list(&self, agent: &AgentId, query: ActivityListQuery) -> Result<Page<ActivityView>, DomainError> {
        let mut v = Violations::default();
        let status = query.status.map(|s| v.check(StatusSet::parse(&s)));
        let search = query.search.map(|s| v.check(ActivitySearch::new(&s)));
        let page = v.check_all(PageRequest::parse(query.limit.as_deref(), query.offset.as_deref(), PageBounds::CONVERSATIONS));
        let tag = query.tag.map(|t| v.check(TagId::field("tag", t)));
        let me = query.me.as_ref();
        let assigned_to = query.assigned_to.map(|a| v.check(resolve_me(a, me).and_then(|a| AssigneeFilter::parse(&a))));
        let channel_type = query.channel_type.map(|t| v.check(ChannelType::parse(&t)));
        let unread = query.unread.map(|u| v.check(parse_flag("unread", &u)));
        let since = query.since.map(|t| v.check(parse_timestamp("since", &t)));
        v.finish()?;
        let filter = ActivityFilter {
            status: status.flatten().unwrap_or_default(),
            tag: tag.flatten(),
            search: search.flatten(),
            assigned_to: assigned_to.flatten(),
            channel_type: channel_type.flatten(),
            unread: unread.flatten(),
            since: since.flatten(),
        };
        Ok(self.activities.list(agent, &filter, page.expect(CHECKED)).await?)
    }

    async fn view(&self, agent: &AgentId, id: &ActivityId) -> Result<ActivityView, DomainError> {
        self.activities.get(agent, id).await?.ok_or(DomainError::not_found("activity"))
    }

    /// The agent's activity with the carts its messages carry; `NotFound` (`activity`) when it
    /// is unknown or another agent's.
    pub async fn get(&self, agent: &AgentId, id: &ActivityId) -> Result<ActivityDetail, DomainError> {
        let view = self.view(agent, id).await?;
        let carts = self.messages.carts(agent, id).await?;
        Ok(ActivityDetail { view, carts })
    }

    /// Opens the conversation with a contact, or returns the one it already has.
    pub async fn start(&self, agent: &AgentId, contact: &ContactId, status: ActivityStatus) -> Result<Activity, DomainError> {
        let contact = self.contacts.get(agent, contact).await?.ok_or(DomainError::not_found("contact"))?;
        self.conversations.open_activity(agent, &contact, status, None).await
    }

    /// `POST /v1/activities`: the contact's activity, opened `pending` (nobody wrote yet) when
    /// it has none; with whether this call opened it.
    pub async fn open(&self, agent: &AgentId, contact_id: Option<String>) -> Result<(ActivityDetail, bool), DomainError> {
        let contact_id = ContactId::field("contact_id", required("contact_id", contact_id)?)?;
        let contact = self.contacts.get(agent, &contact_id).await?.ok_or(DomainError::not_found("contact"))?;
        let (activity, opened) = self.conversations.open_or_find(agent, &contact, ActivityStatus::Pending, None).await?;
        Ok((self.get(agent, &activity.id).await?, opened))
    }

    /// Changes status, assignee and the contact's name in one write, and returns the activity
    /// as [`get`](Self::get) shows it. `Validation` names every bad field (a `null` status or
    /// name included, a `usr_…` assignee that is not one of the agent's members) before
    /// anything is written; `NotFound` (`activity`) when the activity is unknown; `Conflict`
    /// when `if_unassigned` and someone has it. Records `activity.updated`, and
    /// `contact.updated` when the contact is renamed. A patch that changes nothing (every value
    /// as it is) writes nothing: the activity keeps its `updated_at` and no event is recorded.
    pub async fn update(&self, agent: &AgentId, id: &ActivityId, input: ActivityPatchInput) -> Result<ActivityDetail, DomainError> {
        let mut v = Violations::default();
        let status = v.check(not_null("status", input.status).and_then(|s| s.map(|s| ActivityStatus::parse(&s)).transpose()));
        let me = input.me.as_ref();
        let assignee = v.check(input.assigned_to.try_map(|a| resolve_me(a, me).and_then(|a| Assignee::new(&a))));
        let rename = v.check(not_null("profile_name", input.profile_name).and_then(|n| n.map(|n| ProfileName::new(&n)).transpose()));
        let if_unassigned = input.if_unassigned.unwrap_or(false);
        if if_unassigned && !matches!(assignee, Some(Patch::Set(_))) {
            v.push(FieldError::new("if_unassigned", "needs an assigned_to to assign"));
        }
        v.finish()?;
        let assignee = assignee.expect(CHECKED);
        let member = match &assignee {
            Patch::Set(a) => self.member_of(agent, a).await?,
            _ => None,
        };

        let mut view = self.view(agent, id).await?;
        if if_unassigned && let Some(holder) = &view.activity.assigned_to {
            return Err(taken(holder));
        }
        let before = view.activity.clone();
        let activity = &mut view.activity;
        if let Some(status) = status.flatten() {
            activity.status = status;
        }
        let reassigned = !matches!(assignee, Patch::Keep);
        assignee.apply_to(&mut activity.assigned_to);
        if reassigned {
            view.assignee = member;
        }
        let rename = rename.flatten().filter(|name| *name != view.profile_name);
        // A patch that changes nothing writes nothing: no new `updated_at`, no event.
        if view.activity == before && rename.is_none() {
            let carts = self.messages.carts(agent, id).await?;
            return Ok(ActivityDetail { view, carts });
        }
        view.activity.updated_at = self.clock.now();
        let mut events = Vec::with_capacity(2);
        if let Some(name) = &rename {
            view.profile_name = name.clone();
            // The contact is renamed too: reported as the contact after it.
            if let Some(mut contact) = self.contacts.get(agent, &view.activity.contact_id).await? {
                contact.profile_name = name.clone();
                contact.updated_at = view.activity.updated_at;
                events.push(self.events.make(agent, EventType::ContactUpdated, contact.updated_at, &contact));
            }
        }
        events.insert(0, self.updated(&view));
        let write = ActivityWrite { activity: &view.activity, rename: rename.as_ref(), if_unassigned };
        match self.activities.update(write, &events).await {
            Ok(true) => {}
            Ok(false) => return Err(DomainError::not_found("activity")),
            // Someone took it between the read and the write.
            Err(StoreError::Conflict(_)) => {
                let holder = self.view(agent, id).await?.activity.assigned_to;
                return Err(taken(holder.as_ref().unwrap_or(&Assignee::new("someone").expect("a valid assignee"))));
            }
            Err(e) => return Err(e.into()),
        }
        self.get(agent, id).await
    }

    /// The agent's member an assignee names, when it names one; `Validation` on `assigned_to`
    /// for a member id that is not one of the agent's (another agent's, or removed).
    async fn member_of(&self, agent: &AgentId, assignee: &Assignee) -> Result<Option<MemberRef>, DomainError> {
        let Some(id) = assignee.member() else { return Ok(None) };
        match self.members.get(agent, &id).await? {
            Some(member) => Ok(Some(member.to_ref())),
            None => Err(FieldError::new("assigned_to", "is not a member of this agent").into()),
        }
    }

    /// Attaches 1–50 of the agent's tags; attaching a tag twice changes nothing.
    pub async fn attach_tags(&self, agent: &AgentId, id: &ActivityId, tag_ids: Option<Vec<String>>) -> Result<ActivityDetail, DomainError> {
        let raw = required("tag_ids", tag_ids)?;
        if raw.is_empty() || raw.len() > MAX_TAGS_PER_ATTACH {
            return Err(FieldError::new("tag_ids", format!("must hold 1 to {MAX_TAGS_PER_ATTACH} tag ids")).into());
        }
        let mut v = Violations::default();
        let wanted: BTreeSet<TagId> =
            raw.into_iter().enumerate().filter_map(|(i, t)| v.check(TagId::field(&format!("tag_ids[{i}]"), t))).collect();
        v.finish()?;
        let wanted: Vec<TagId> = wanted.into_iter().collect();

        let mut view = self.view(agent, id).await?;
        let found = self.tags.find_many(agent, &wanted).await?;
        let missing: Vec<String> = wanted.iter().filter(|w| !found.iter().any(|t| &t.id == *w)).map(|t| t.as_str().to_string()).collect();
        if !missing.is_empty() {
            return Err(DomainError::NotFound { resource: "tag", ids: missing });
        }
        let now = self.clock.now();
        // Written only when a tag was attached (the repository knows): nothing else changes.
        for tag in &found {
            if !view.tags.iter().any(|t| t.id == tag.id) {
                view.tags.push(TagRef::from(tag));
            }
        }
        sort_tags(&mut view.tags);
        view.activity.updated_at = now;
        match self.activities.attach_tags(agent, id, &wanted, now, &[self.updated(&view)]).await {
            Ok(true) => {}
            Ok(false) => return Err(DomainError::not_found("activity")),
            // The only conflict an attach has: the activity would pass its limit.
            Err(StoreError::Conflict(_)) => {
                return Err(DomainError::Conflict {
                    message: format!("an activity holds at most {MAX_TAGS_PER_ACTIVITY} tags: detach one before attaching another"),
                    details: vec![FieldError::new("tag_ids", format!("would give the activity more than {MAX_TAGS_PER_ACTIVITY} tags"))],
                });
            }
            Err(e) => return Err(e.into()),
        }
        self.get(agent, id).await
    }

    /// Detaches one tag. A tag of the agent that is not attached is a no-op; an unknown tag is 404.
    pub async fn detach_tag(&self, agent: &AgentId, id: &ActivityId, tag_id: Option<String>) -> Result<ActivityDetail, DomainError> {
        let tag_id = TagId::field("tag_id", required("tag_id", tag_id.filter(|t| !t.trim().is_empty()))?)?;
        let mut view = self.view(agent, id).await?;
        if self.tags.get(agent, &tag_id).await?.is_none() {
            return Err(DomainError::NotFound { resource: "tag", ids: vec![tag_id.into_string()] });
        }
        let now = self.clock.now();
        view.tags.retain(|t| t.id != tag_id);
        view.activity.updated_at = now;
        if !self.activities.detach_tag(agent, id, &tag_id, now, &[self.updated(&view)]).await? {
            return Err(DomainError::not_found("activity"));
        }
        self.get(agent, id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockActivityRepository, MockClock, MockContactRepository, MockIdSource, MockTagRepository};
    use chrono::TimeZone;

    fn agent() -> AgentId {
        AgentId::new("agt_a")
    }

    fn view(id: &ActivityId) -> ActivityView {
        let t = chrono::Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
        ActivityView {
            activity: Activity {
                id: id.clone(),
                agent_id: agent(),
                contact_id: ContactId::new("con_1"),
                status: ActivityStatus::Open,
                assigned_to: None,
                last_inbound_at: None,
                first_response: FirstResponse::default(),
                created_at: t,
                updated_at: t,
            },
            profile_name: ProfileName::new("Ana").unwrap(),
            channels: vec![],
            tags: vec![],
            last_message: None,
            unread_count: 0,
            assignee: None,
        }
    }

    fn tag(id: &str) -> Tag {
        let t = chrono::Utc::now();
        Tag {
            id: TagId::new(id),
            agent_id: agent(),
            name: TagName::new(id).unwrap(),
            color: TagColor::default_color(),
            description: None,
            created_at: t,
            updated_at: t,
        }
    }

    fn service(activities: MockActivityRepository, tags: MockTagRepository) -> ActivityService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(|| chrono::Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap());
        let mut messages = crate::ports::MockMessageRepository::new();
        messages.expect_carts().returning(|_, _| Ok(vec![]));
        let mut ids = MockIdSource::new();
        ids.expect_new_id().returning(|k| format!("{}_1", k.prefix()));
        let mut contacts = MockContactRepository::new();
        contacts.expect_get().returning(|_, _| Ok(None));
        ActivityService::new(
            Arc::new(activities),
            Arc::new(messages),
            Arc::new(contacts),
            Arc::new(tags),
            Arc::new(crate::ports::MockMemberRepository::new()),
            Arc::new(clock),
            Arc::new(ids),
        )
    }

    #[tokio::test]
    async fn list_rejects_bad_filters_without_querying() {
        let err = service(MockActivityRepository::new(), MockTagRepository::new())
            .list(&agent(), ActivityListQuery { status: Some("archived".into()), limit: Some("500".into()), ..Default::default() })
            .await
            .unwrap_err();
        assert!(matches!(err, DomainError::Validation(v) if v.len() == 2));
    }

    #[tokio::test]
    async fn list_names_each_bad_inbox_filter() {
        let query = ActivityListQuery {
            assigned_to: Some("".into()),
            channel_type: Some("fax".into()),
            unread: Some("yes".into()),
            since: Some("yesterday".into()),
            ..Default::default()
        };
        let err = service(MockActivityRepository::new(), MockTagRepository::new()).list(&agent(), query).await.unwrap_err();
        let DomainError::Validation(v) = err else { panic!("{err:?}") };
        let fields: Vec<&str> = v.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["assigned_to", "channel_type", "unread", "since"]);
    }

    #[tokio::test]
    async fn attach_names_every_unknown_tag_and_writes_nothing() {
        let mut activities = MockActivityRepository::new();
        activities.expect_get().returning(|_, id| Ok(Some(view(id))));
        activities.expect_attach_tags().never();
        let mut tags = MockTagRepository::new();
        tags.expect_find_many().returning(|_, _| Ok(vec![tag("tag_known")]));
        let err = service(activities, tags)
            .attach_tags(&agent(), &ActivityId::new("act_1"), Some(vec!["tag_known".into(), "tag_x".into(), "tag_y".into()]))
            .await
            .unwrap_err();
        let DomainError::NotFound { resource: "tag", ids } = err else { panic!() };
        assert_eq!(ids, ["tag_x", "tag_y"]);
    }

    #[tokio::test]
    async fn attach_deduplicates_ids_and_enforces_bounds() {
        let mut activities = MockActivityRepository::new();
        activities.expect_get().returning(|_, id| Ok(Some(view(id))));
        activities.expect_attach_tags().withf(|_, _, tags, _, _| tags.len() == 1).times(1).returning(|_, _, _, _, _| Ok(true));
        let mut tags = MockTagRepository::new();
        tags.expect_find_many().returning(|_, _| Ok(vec![tag("tag_1")]));
        let svc = service(activities, tags);
        svc.attach_tags(&agent(), &ActivityId::new("act_1"), Some(vec!["tag_1".into(), "tag_1".into()])).await.unwrap();

        assert!(matches!(svc.attach_tags(&agent(), &ActivityId::new("act_1"), Some(vec![])).await, Err(DomainError::Validation(_))));
        let too_many = (0..51).map(|i| format!("tag_{i}")).collect();
        assert!(matches!(svc.attach_tags(&agent(), &ActivityId::new("act_1"), Some(too_many)).await, Err(DomainError::Validation(_))));
    }

    #[tokio::test]
    async fn update_renames_the_contact_in_the_same_write() {
        let mut activities = MockActivityRepository::new();
        activities.expect_get().returning(|_, id| Ok(Some(view(id))));
        activities
            .expect_update()
            .withf(|w, _| {
                w.activity.status == ActivityStatus::Closed
                    && w.activity.assigned_to.is_none()
                    && w.rename.map(|r| r.as_str()) == Some("Ana María")
            })
            .times(1)
            .returning(|_, _| Ok(true));
        service(activities, MockTagRepository::new())
            .update(
                &agent(),
                &ActivityId::new("act_1"),
                ActivityPatchInput {
                    status: Patch::Set("closed".into()),
                    assigned_to: Patch::Clear,
                    profile_name: Patch::Set("Ana María".into()),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_patch_that_changes_nothing_writes_nothing() {
        let mut activities = MockActivityRepository::new();
        activities.expect_get().returning(|_, id| Ok(Some(view(id))));
        activities.expect_update().times(0);
        let detail = service(activities, MockTagRepository::new())
            .update(
                &agent(),
                &ActivityId::new("act_1"),
                ActivityPatchInput {
                    status: Patch::Set("open".into()),
                    assigned_to: Patch::Clear,
                    profile_name: Patch::Set("Ana".into()),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(detail.view, view(&ActivityId::new("act_1")), "answered as it is, updated_at included");
    }

    #[tokio::test]
    async fn a_patch_of_the_same_name_with_a_new_status_renames_nothing() {
        let mut activities = MockActivityRepository::new();
        activities.expect_get().returning(|_, id| Ok(Some(view(id))));
        activities
            .expect_update()
            .withf(|w, events| w.activity.status == ActivityStatus::Pending && w.rename.is_none() && events.len() == 1)
            .times(1)
            .returning(|_, _| Ok(true));
        service(activities, MockTagRepository::new())
            .update(
                &agent(),
                &ActivityId::new("act_1"),
                ActivityPatchInput { status: Patch::Set("pending".into()), profile_name: Patch::Set("Ana".into()), ..Default::default() },
            )
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn detaching_an_unknown_tag_is_not_found() {
        let mut activities = MockActivityRepository::new();
        activities.expect_get().returning(|_, id| Ok(Some(view(id))));
        let mut tags = MockTagRepository::new();
        tags.expect_get().returning(|_, _| Ok(None));
        let err = service(activities, tags).detach_tag(&agent(), &ActivityId::new("act_1"), Some("tag_x".into())).await.unwrap_err();
        assert!(matches!(err, DomainError::NotFound { resource: "tag", .. }));
    }
}
