use crate::error::CHECKED;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::error::Violations;
use crate::model::*;
use crate::ports::{Clock, ContactRepository, IdSource};
use crate::services::{Patch, not_null, required};
use crate::{DomainError, FieldError, StoreError};

/// A page of contacts as asked for: `limit` and `offset` as sent, parsed here as every list's.
#[derive(Debug, Clone, Default)]
pub struct ContactListQuery {
    /// A piece of the name or email address (any case), or 3+ digits of a phone number:
    /// 1–100 characters once trimmed.
    pub search: Option<String>,
    /// A channel type ([`ChannelType`], lowercase): contacts with a channel of it.
    pub channel_type: Option<String>,
    /// Page size, an integer from 1 to 100; 20 when absent.
    pub limit: Option<String>,
    /// Matching contacts to skip, an integer of 0 or more; 0 when absent.
    pub offset: Option<String>,
}

/// Raw fields of a new contact, validated by [`ContactService::create`].
#[derive(Debug, Clone, Default)]
pub struct NewContactInput {
    /// Required: the type of the contact's first channel ([`ChannelType`], lowercase).
    pub channel_type: Option<String>,
    /// Required: the contact's identifier on that channel, normalized for its type (a phone
    /// number's digits, a lowercased address); no other contact of the agent may have it.
    pub channel_id: Option<String>,
    /// The display name, 1–256 characters once trimmed; the normalized channel id when absent.
    pub profile_name: Option<String>,
    /// An email address, lowercased.
    pub email: Option<String>,
    /// Free text, at most 5,000 characters; blank means no notes.
    pub notes: Option<String>,
    /// A JSON object of at most 50 keys and 16 KiB; empty when absent.
    pub custom_attributes: Option<Map<String, Value>>,
}

/// Raw partial update of a contact: each field kept, cleared or set.
#[derive(Debug, Clone, Default)]
pub struct ContactPatchInput {
    /// A new display name (1–256 characters); never cleared.
    pub profile_name: Patch<String>,
    /// A new email address; cleared, the contact has none.
    pub email: Patch<String>,
    /// New notes (at most 5,000 characters); cleared or set blank, the contact has none.
    pub notes: Patch<String>,
    /// Merged into the stored attributes; keys set to null are removed.
    pub custom_attributes: Patch<Map<String, Value>>,
}

/// The agent's contacts: listed, searched, created, edited and erased, each change recorded as
/// a `contact.*` event.
pub struct ContactService {
    repo: Arc<dyn ContactRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    events: crate::services::EventMaker,
}

/// Empty notes mean "no notes".
fn notes(raw: &str) -> Result<Option<Notes>, FieldError> {
    let n = Notes::new(raw)?;
    Ok((!n.as_str().is_empty()).then_some(n))
}

impl ContactService {
    /// A service over `repo`; events get their ids from `ids` and their payloads from `objects`.
    pub fn new(repo: Arc<dyn ContactRepository>, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>) -> Self {
        let events = crate::services::EventMaker::new(ids.clone());
        Self { repo, clock, ids, events }
    }

    /// One page of the agent's contacts that every given filter keeps, newest first. Bad
    /// filter or page values are reported together in `Validation`.
    pub async fn list(&self, agent: &AgentId, query: ContactListQuery) -> Result<Page<Contact>, DomainError> {
        let mut v = Violations::default();
        let search = query.search.map(|s| v.check(ActivitySearch::new(&s)));
        let channel_type = query.channel_type.map(|t| v.check(ChannelType::parse(&t)));
        let page = v.check_all(PageRequest::parse(query.limit.as_deref(), query.offset.as_deref(), PageBounds::CONVERSATIONS));
        v.finish()?;
        let filter = ContactFilter { search: search.flatten(), channel_type: channel_type.flatten() };
        Ok(self.repo.list(agent, &filter, page.expect(CHECKED)).await?)
    }

    /// Erases the contact with its conversation (the right to erasure): see
    /// [`ContactRepository::erase`] for what goes and what stays. `contact.deleted` carries the
    /// id alone. `NotFound` (`contact`) when unknown or another agent's.
    pub async fn delete(&self, agent: &AgentId, id: &ContactId) -> Result<(), DomainError> {
        let deleted = self.events.make_deleted(agent, EventType::ContactDeleted, self.clock.now(), id.as_str());
        if !self.repo.erase(agent, id, &[deleted]).await? {
            return Err(DomainError::not_found("contact"));
        }
        Ok(())
    }

    /// The agent's contact; `NotFound` (`contact`) when unknown or another agent's.
    pub async fn get(&self, agent: &AgentId, id: &ContactId) -> Result<Contact, DomainError> {
        self.repo.get(agent, id).await?.ok_or(DomainError::not_found("contact"))
    }

    /// Stores a new contact with one channel (no activity is opened) and records
    /// `contact.created`. `Validation` names every missing or bad field; `Conflict` (on
    /// `channel_id`, naming the contact that has it) when another contact of the agent already
    /// has the channel.
    pub async fn create(&self, agent: &AgentId, input: NewContactInput) -> Result<Contact, DomainError> {
        let mut v = Violations::default();
        let channel_type = v.check(required("channel_type", input.channel_type).and_then(|t| ChannelType::parse(&t)));
        let channel_id = v.check(required("channel_id", input.channel_id));
        let channel = match (channel_type, channel_id) {
            (Some(t), Some(id)) => v.check(Channel::new(t, &id)),
            _ => None,
        };
        let profile_name = input.profile_name.map(|n| v.check(ProfileName::new(&n)));
        let email = input.email.map(|e| v.check(Email::new(&e)));
        let notes = input.notes.map(|n| v.check(notes(&n)));
        let attributes = v.check(CustomAttributes::received(input.custom_attributes.unwrap_or_default()));
        v.finish()?;

        let channel = channel.expect(CHECKED);
        let profile_name = match profile_name.flatten() {
            Some(name) => name,
            None => ProfileName::new(channel.channel_id()).map_err(DomainError::from)?,
        };
        let now = self.clock.now();
        let contact = Contact {
            id: ContactId::new(self.ids.new_id(IdKind::Contact)),
            agent_id: agent.clone(),
            profile_name,
            email: email.flatten(),
            notes: notes.flatten().flatten(),
            channels: vec![channel],
            custom_attributes: attributes.expect(CHECKED),
            created_at: now,
            updated_at: now,
        };
        let created = self.events.make(agent, EventType::ContactCreated, now, &contact);
        match self.repo.insert(&contact, &[created]).await {
            Ok(()) => Ok(contact),
            Err(StoreError::Conflict(_)) => Err(self.duplicate_channel(agent, &contact.channels[0]).await),
            Err(e) => Err(e.into()),
        }
    }

    /// The 409 for a channel another contact of this agent already has, naming that contact.
    async fn duplicate_channel(&self, agent: &AgentId, channel: &Channel) -> DomainError {
        let existing = match self.repo.find_by_channel(agent, channel).await {
            Ok(Some(c)) => c.id.into_string(),
            Ok(None) => "unknown".to_string(),
            Err(e) => return e.into(),
        };
        DomainError::Conflict {
            message: format!("a contact with this {} channel already exists", channel.channel_type().as_str()),
            details: vec![FieldError::new("channel_id", format!("already belongs to contact {existing}"))],
        }
    }

    /// Changes the fields sent and records `contact.updated`. `Validation` names every bad field
    /// (a `null` name or `custom_attributes` included) before anything is read, and also comes
    /// when the merged attributes would pass their bounds; `NotFound` (`contact`) when unknown.
    /// A patch that changes nothing writes nothing: the contact keeps its `updated_at` and no
    /// event is recorded.
    pub async fn update(&self, agent: &AgentId, id: &ContactId, input: ContactPatchInput) -> Result<Contact, DomainError> {
        let mut v = Violations::default();
        let name = v.check(not_null("profile_name", input.profile_name).and_then(|n| n.map(|n| ProfileName::new(&n)).transpose()));
        let email = v.check(input.email.try_map(|e| Email::new(&e)));
        let notes = v.check(input.notes.try_map(|n| notes(&n)).map(Patch::flatten));
        let attributes = v.check(not_null("custom_attributes", input.custom_attributes));
        v.finish()?;

        let mut contact = self.get(agent, id).await?;
        let before = contact.clone();
        if let Some(name) = name.flatten() {
            contact.profile_name = name;
        }
        email.expect("validated").apply_to(&mut contact.email);
        notes.expect("validated").apply_to(&mut contact.notes);
        if let Some(patch) = attributes.flatten() {
            contact.custom_attributes = contact.custom_attributes.merged(patch)?;
        }
        // A patch that changes nothing writes nothing: no new `updated_at`, no event.
        if contact == before {
            return Ok(contact);
        }
        contact.updated_at = self.clock.now();
        let updated = self.events.make(agent, EventType::ContactUpdated, contact.updated_at, &contact);
        if self.repo.update(&contact, &[updated]).await? { Ok(contact) } else { Err(DomainError::not_found("contact")) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockClock, MockContactRepository, MockIdSource};
    use chrono::TimeZone;
    use serde_json::json;

    fn service(repo: MockContactRepository) -> ContactService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(|| chrono::Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap());
        let mut ids = MockIdSource::new();
        ids.expect_new_id().returning(|k| format!("{}_new", k.prefix()));
        ContactService::new(Arc::new(repo), Arc::new(clock), Arc::new(ids))
    }

    fn agent() -> AgentId {
        AgentId::new("agt_a")
    }

    #[tokio::test]
    async fn profile_name_defaults_to_the_channel_id() {
        let mut repo = MockContactRepository::new();
        repo.expect_insert().times(1).returning(|_, _| Ok(()));
        let c = service(repo)
            .create(
                &agent(),
                NewContactInput {
                    channel_type: Some("whatsapp".into()),
                    channel_id: Some("+52 55-1234-5678".into()),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(c.profile_name.as_str(), "525512345678");
        assert_eq!(c.channels[0].channel_id(), "525512345678");
    }

    #[tokio::test]
    async fn required_fields_and_channel_rules_are_all_reported() {
        let err = service(MockContactRepository::new())
            .create(&agent(), NewContactInput { channel_type: Some("fax".into()), email: Some("nope".into()), ..Default::default() })
            .await
            .unwrap_err();
        let DomainError::Validation(errors) = err else { panic!() };
        let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["channel_type", "channel_id", "email"]);
    }

    #[tokio::test]
    async fn duplicate_channel_names_the_existing_contact() {
        let mut repo = MockContactRepository::new();
        repo.expect_insert().returning(|_, _| Err(StoreError::Conflict("channel".into())));
        repo.expect_find_by_channel().returning(|agent, ch| {
            Ok(Some(Contact {
                id: ContactId::new("con_old"),
                agent_id: agent.clone(),
                profile_name: ProfileName::new("Ana").unwrap(),
                email: None,
                notes: None,
                channels: vec![ch.clone()],
                custom_attributes: CustomAttributes::default(),
                created_at: chrono::Utc::now(),
                updated_at: chrono::Utc::now(),
            }))
        });
        let err = service(repo)
            .create(
                &agent(),
                NewContactInput { channel_type: Some("email".into()), channel_id: Some("a@b.co".into()), ..Default::default() },
            )
            .await
            .unwrap_err();
        let DomainError::Conflict { details, .. } = err else { panic!() };
        assert!(details[0].issue.contains("con_old"));
    }

    #[tokio::test]
    async fn patch_merges_attributes_and_clears_nulls() {
        let mut repo = MockContactRepository::new();
        repo.expect_get().returning(|agent, id| {
            Ok(Some(Contact {
                id: id.clone(),
                agent_id: agent.clone(),
                profile_name: ProfileName::new("Ana").unwrap(),
                email: Some(Email::new("ana@x.io").unwrap()),
                notes: Some(Notes::new("n").unwrap()),
                channels: vec![Channel::new(ChannelType::Sms, "5551234567").unwrap()],
                custom_attributes: CustomAttributes::new(json!({"tier": "gold", "city": "Lima"}).as_object().unwrap().clone()).unwrap(),
                created_at: chrono::Utc::now(),
                updated_at: chrono::Utc::now(),
            }))
        });
        repo.expect_update().returning(|_, _| Ok(true));
        let c = service(repo)
            .update(
                &agent(),
                &ContactId::new("con_1"),
                ContactPatchInput {
                    email: Patch::Clear,
                    custom_attributes: Patch::Set(json!({"city": null, "vip": true}).as_object().unwrap().clone()),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(c.email, None);
        assert_eq!(c.notes.unwrap().as_str(), "n");
        assert_eq!(Value::Object(c.custom_attributes.as_map().clone()), json!({"tier": "gold", "vip": true}));
    }

    #[tokio::test]
    async fn a_patch_that_changes_nothing_writes_nothing() {
        let at = chrono::Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
        let stored = move |agent: &AgentId, id: &ContactId| Contact {
            id: id.clone(),
            agent_id: agent.clone(),
            profile_name: ProfileName::new("Ana").unwrap(),
            email: Some(Email::new("ana@x.io").unwrap()),
            notes: None,
            channels: vec![Channel::new(ChannelType::Sms, "5551234567").unwrap()],
            custom_attributes: CustomAttributes::new(json!({"tier": "gold"}).as_object().unwrap().clone()).unwrap(),
            created_at: at,
            updated_at: at,
        };
        let mut repo = MockContactRepository::new();
        repo.expect_get().returning(move |agent, id| Ok(Some(stored(agent, id))));
        repo.expect_update().times(0);
        let c = service(repo)
            .update(
                &agent(),
                &ContactId::new("con_1"),
                ContactPatchInput {
                    profile_name: Patch::Set("Ana".into()),
                    email: Patch::Set("ana@x.io".into()),
                    notes: Patch::Clear,
                    custom_attributes: Patch::Set(json!({"tier": "gold"}).as_object().unwrap().clone()),
                },
            )
            .await
            .unwrap();
        assert_eq!(c, stored(&agent(), &ContactId::new("con_1")), "answered as it is, updated_at included");
    }
}
