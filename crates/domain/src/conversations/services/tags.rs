use crate::error::CHECKED;
use std::sync::Arc;

use crate::error::Violations;
use crate::model::*;
use crate::ports::{Clock, IdSource, TagRepository};
use crate::services::{Patch, not_null, required};
use crate::{DomainError, FieldError, StoreError};

/// Raw fields of a new tag, validated by [`TagService::create`].
#[derive(Debug, Clone, Default)]
pub struct NewTagInput {
    /// Required: 1–64 characters once trimmed, unique among the agent's tags ignoring case.
    pub name: Option<String>,
    /// `#` and six hex digits, stored lowercase; [`TagColor::DEFAULT`] when absent.
    pub color: Option<String>,
    /// At most 500 characters once trimmed; blank or absent means no description.
    pub description: Option<String>,
}

/// Raw partial update of a tag: each field kept, cleared or set.
#[derive(Debug, Clone, Default)]
pub struct TagPatchInput {
    /// A new name, under the same rules as on creation; never cleared.
    pub name: Patch<String>,
    /// A new color, under the same rule as on creation; never cleared.
    pub color: Patch<String>,
    /// A new description; cleared or set blank, the tag has none.
    pub description: Patch<String>,
}

/// The agent's tags: the labels attached to activities (see [`ActivityService`] for attaching
/// them). Records `tag.created`, `tag.updated` and `tag.deleted`: a rename or a deletion changes
/// how every activity carrying the tag shows it, and is reported once, as the tag's event, not
/// as an `activity.updated` per activity.
///
/// [`ActivityService`]: crate::services::ActivityService
pub struct TagService {
    repo: Arc<dyn TagRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    events: crate::services::EventMaker,
}

/// An empty description means "no description".
fn description(raw: &str) -> Result<Option<TagDescription>, FieldError> {
    let d = TagDescription::new(raw)?;
    Ok((!d.as_str().is_empty()).then_some(d))
}

fn duplicate_name(name: &TagName) -> DomainError {
    DomainError::Conflict {
        message: format!("a tag named \"{}\" already exists", name.as_str()),
        details: vec![FieldError::new("name", "already used by another tag (names ignore case)")],
    }
}

impl TagService {
    /// A service over `repo`; `clock` stamps changes, `ids` mints new ids (the events' too) and
    /// `objects` renders the tag for its events.
    pub fn new(repo: Arc<dyn TagRepository>, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>) -> Self {
        let events = crate::services::EventMaker::new(ids.clone());
        Self { repo, clock, ids, events }
    }

    /// Every tag of the agent (at most [`MAX_TAGS_PER_AGENT`], so no pages), by name ignoring
    /// case, then id.
    pub async fn list(&self, agent: &AgentId) -> Result<Vec<Tag>, DomainError> {
        Ok(self.repo.list(agent).await?)
    }

    /// Creates a tag, recording `tag.created`. `Validation` names every missing or bad field;
    /// `Conflict` (on `name`) when the agent has a tag of that name ignoring case, or already
    /// has [`MAX_TAGS_PER_AGENT`].
    pub async fn create(&self, agent: &AgentId, input: NewTagInput) -> Result<Tag, DomainError> {
        let mut v = Violations::default();
        let name = v.check(required("name", input.name).and_then(|n| TagName::new(&n)));
        let color = match input.color {
            None => Some(TagColor::default_color()),
            Some(c) => v.check(TagColor::new(&c)),
        };
        let desc = match input.description {
            None => Some(None),
            Some(d) => v.check(description(&d)),
        };
        v.finish()?;
        let (name, color, description) = (name.expect(CHECKED), color.expect(CHECKED), desc.expect(CHECKED));

        let now = self.clock.now();
        let tag = Tag {
            id: TagId::new(self.ids.new_id(IdKind::Tag)),
            agent_id: agent.clone(),
            name,
            color,
            description,
            created_at: now,
            updated_at: now,
        };
        let created = self.events.make(agent, EventType::TagCreated, now, &tag);
        match self.repo.insert(&tag, MAX_TAGS_PER_AGENT, &[created]).await {
            Ok(true) => Ok(tag),
            Ok(false) => Err(DomainError::Conflict {
                message: format!("an agent may have at most {MAX_TAGS_PER_AGENT} tags: delete one before adding another"),
                details: vec![FieldError::new("name", format!("the agent already has {MAX_TAGS_PER_AGENT} tags"))],
            }),
            Err(StoreError::Conflict(_)) => Err(duplicate_name(&tag.name)),
            Err(e) => Err(e.into()),
        }
    }

    /// Changes the fields sent, recording `tag.updated`; a patch that changes nothing writes
    /// nothing (no new `updated_at`, no event). `Validation` names every bad field (a `null`
    /// name or color included) before anything is read; `NotFound` (`tag`) when unknown;
    /// `Conflict` when the new name is another tag's, ignoring case.
    pub async fn update(&self, agent: &AgentId, id: &TagId, input: TagPatchInput) -> Result<Tag, DomainError> {
        let mut v = Violations::default();
        let name = v.check(not_null("name", input.name).and_then(|n| n.map(|n| TagName::new(&n)).transpose()));
        let color = v.check(not_null("color", input.color).and_then(|c| c.map(|c| TagColor::new(&c)).transpose()));
        let desc = v.check(input.description.try_map(|d| description(&d)).map(Patch::flatten));
        v.finish()?;

        let mut tag = self.repo.get(agent, id).await?.ok_or(DomainError::not_found("tag"))?;
        let before = tag.clone();
        if let Some(name) = name.flatten() {
            tag.name = name;
        }
        if let Some(color) = color.flatten() {
            tag.color = color;
        }
        desc.expect("validated").apply_to(&mut tag.description);
        if tag == before {
            return Ok(tag);
        }
        tag.updated_at = self.clock.now();
        let updated = self.events.make(agent, EventType::TagUpdated, tag.updated_at, &tag);
        match self.repo.update(&tag, &[updated]).await {
            Ok(true) => Ok(tag),
            Ok(false) => Err(DomainError::not_found("tag")),
            Err(StoreError::Conflict(_)) => Err(duplicate_name(&tag.name)),
            Err(e) => Err(e.into()),
        }
    }

    /// Deletes the tag and detaches it from every activity, recording `tag.deleted` (the id
    /// alone); `NotFound` (`tag`) when unknown.
    pub async fn delete(&self, agent: &AgentId, id: &TagId) -> Result<(), DomainError> {
        let deleted = self.events.make_deleted(agent, EventType::TagDeleted, self.clock.now(), id.as_str());
        if self.repo.delete(agent, id, &[deleted]).await? { Ok(()) } else { Err(DomainError::not_found("tag")) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockClock, MockIdSource, MockTagRepository};
    use chrono::TimeZone;

    fn service(repo: MockTagRepository) -> TagService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(|| chrono::Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap());
        let mut ids = MockIdSource::new();
        ids.expect_new_id().returning(|k| format!("{}_test", k.prefix()));
        TagService::new(Arc::new(repo), Arc::new(clock), Arc::new(ids))
    }

    fn agent() -> AgentId {
        AgentId::new("agt_a")
    }

    #[tokio::test]
    async fn create_defaults_the_color_and_stores_the_tag() {
        let mut repo = MockTagRepository::new();
        repo.expect_insert()
            .withf(|t, _, events| {
                t.name.as_str() == "VIP"
                    && t.color.as_str() == TagColor::DEFAULT
                    && t.description.is_none()
                    && events.len() == 1
                    && events[0].event_type == EventType::TagCreated
            })
            .times(1)
            .returning(|_, _, _| Ok(true));
        let tag = service(repo).create(&agent(), NewTagInput { name: Some(" VIP ".into()), ..Default::default() }).await.unwrap();
        assert_eq!(tag.id.as_str(), "tag_test");
        assert_eq!(tag.created_at, tag.updated_at);
    }

    #[tokio::test]
    async fn create_reports_every_invalid_field_and_writes_nothing() {
        let repo = MockTagRepository::new(); // no expectations: any call fails the test
        let err = service(repo)
            .create(&agent(), NewTagInput { name: None, color: Some("blue".into()), description: Some("d".repeat(501)) })
            .await
            .unwrap_err();
        let DomainError::Validation(errors) = err else { panic!("expected validation error") };
        let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["name", "color", "description"]);
    }

    #[tokio::test]
    async fn an_agent_at_its_tag_limit_gets_a_conflict_naming_it() {
        let mut repo = MockTagRepository::new();
        repo.expect_insert().withf(|_, max, _| *max == MAX_TAGS_PER_AGENT).times(1).returning(|_, _, _| Ok(false));
        let err = service(repo).create(&agent(), NewTagInput { name: Some("one more".into()), ..Default::default() }).await.unwrap_err();
        let DomainError::Conflict { message, .. } = err else { panic!("{err:?}") };
        assert!(message.contains("at most 1000 tags"), "{message}");
    }

    #[tokio::test]
    async fn duplicate_names_become_conflicts() {
        let mut repo = MockTagRepository::new();
        repo.expect_insert().returning(|_, _, _| Err(StoreError::Conflict("tags.name".into())));
        let err = service(repo).create(&agent(), NewTagInput { name: Some("vip".into()), ..Default::default() }).await.unwrap_err();
        assert!(matches!(err, DomainError::Conflict { .. }));
    }

    #[tokio::test]
    async fn update_changes_only_sent_fields_and_null_description_clears() {
        let mut repo = MockTagRepository::new();
        let existing = Tag {
            id: TagId::new("tag_1"),
            agent_id: agent(),
            name: TagName::new("Old").unwrap(),
            color: TagColor::new("#112233").unwrap(),
            description: Some(TagDescription::new("desc").unwrap()),
            created_at: chrono::Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap(),
            updated_at: chrono::Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap(),
        };
        let found = existing.clone();
        repo.expect_get().returning(move |_, _| Ok(Some(found.clone())));
        repo.expect_update()
            .withf(|_, events| events.len() == 1 && events[0].event_type == EventType::TagUpdated)
            .times(1)
            .returning(|_, _| Ok(true));
        let tag = service(repo)
            .update(&agent(), &TagId::new("tag_1"), TagPatchInput { description: Patch::Clear, ..Default::default() })
            .await
            .unwrap();
        assert_eq!(tag.name, existing.name);
        assert_eq!(tag.color, existing.color);
        assert_eq!(tag.description, None);
        assert!(tag.updated_at > existing.updated_at);
    }

    #[tokio::test]
    async fn name_and_color_cannot_be_cleared() {
        let err = service(MockTagRepository::new())
            .update(&agent(), &TagId::new("tag_1"), TagPatchInput { name: Patch::Clear, color: Patch::Clear, ..Default::default() })
            .await
            .unwrap_err();
        assert!(matches!(err, DomainError::Validation(v) if v.len() == 2));
    }

    #[tokio::test]
    async fn unknown_tags_are_not_found() {
        let mut repo = MockTagRepository::new();
        repo.expect_delete().returning(|_, _, _| Ok(false));
        let err = service(repo).delete(&agent(), &TagId::new("tag_x")).await.unwrap_err();
        assert!(matches!(err, DomainError::NotFound { resource: "tag", .. }));
    }

    #[tokio::test]
    async fn a_patch_that_changes_nothing_writes_nothing() {
        let mut repo = MockTagRepository::new();
        let existing = Tag {
            id: TagId::new("tag_1"),
            agent_id: agent(),
            name: TagName::new("VIP").unwrap(),
            color: TagColor::new("#112233").unwrap(),
            description: None,
            created_at: chrono::Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap(),
            updated_at: chrono::Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap(),
        };
        let found = existing.clone();
        repo.expect_get().returning(move |_, _| Ok(Some(found.clone())));
        // No `expect_update`: a write (or an event with it) fails the test.
        let patch = TagPatchInput { name: Patch::Set("VIP".into()), color: Patch::Set("#112233".into()), description: Patch::Clear };
        let tag = service(repo).update(&agent(), &TagId::new("tag_1"), patch).await.unwrap();
        assert_eq!(tag, existing, "unchanged, updated_at included");
    }

    #[tokio::test]
    async fn a_deletion_records_the_id_alone() {
        let mut repo = MockTagRepository::new();
        repo.expect_delete()
            .withf(|_, id, events| {
                events.len() == 1
                    && events[0].event_type == EventType::TagDeleted
                    && events[0].object == EventObject::Deleted { id: id.as_str().to_string() }
            })
            .times(1)
            .returning(|_, _, _| Ok(true));
        service(repo).delete(&agent(), &TagId::new("tag_1")).await.unwrap();
    }
}
