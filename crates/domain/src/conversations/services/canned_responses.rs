//! Canned responses: a team's saved answers, listed, searched and edited through the API.

use std::sync::Arc;

use crate::error::{CHECKED, Violations};
use crate::model::*;
use crate::ports::{CannedResponseRepository, Clock, IdSource};
use crate::services::{Patch, not_null, required};
use crate::{DomainError, FieldError, StoreError};

/// Raw list query, validated here.
#[derive(Debug, Clone, Default)]
pub struct CannedResponseListQuery {
    /// A case-insensitive piece of the short code or the text: 1–100 characters once trimmed,
    /// no control character.
    pub search: Option<String>,
    /// Page size, an integer from 1 to 100; 20 when absent.
    pub limit: Option<String>,
    /// Matching responses to skip, an integer of 0 or more; 0 when absent.
    pub offset: Option<String>,
}

/// Raw fields of a new canned response, validated by [`CannedResponseService::create`].
#[derive(Debug, Clone, Default)]
pub struct NewCannedResponseInput {
    /// Required: 1–32 of `a-z`, `0-9`, `_` and `-`, unique among the agent's responses.
    pub short_code: Option<String>,
    /// Required: the answer, 1–4096 characters once trimmed.
    pub text: Option<String>,
}

/// Raw partial update of a canned response; either field may be changed, neither cleared.
#[derive(Debug, Clone, Default)]
pub struct CannedResponsePatchInput {
    /// A new short code, under the same rules as on creation.
    pub short_code: Patch<String>,
    /// A new text, under the same rules as on creation.
    pub text: Patch<String>,
}

/// The agent's canned responses: listed, searched, created, edited and deleted. Records no
/// events.
pub struct CannedResponseService {
    repo: Arc<dyn CannedResponseRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
}

fn duplicate_short_code(code: &ShortCode) -> DomainError {
    DomainError::Conflict {
        message: format!("a canned response with short code \"{}\" already exists", code.as_str()),
        details: vec![FieldError::new("short_code", "already used by another canned response")],
    }
}

const NOT_FOUND: &str = "canned response";

impl CannedResponseService {
    /// A service over `repo`; `clock` stamps changes and `ids` mints new ids.
    pub fn new(repo: Arc<dyn CannedResponseRepository>, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>) -> Self {
        Self { repo, clock, ids }
    }

    /// One page of the agent's canned responses by short code, those `search` matches when
    /// given. Bad `search`, `limit` or `offset` values are reported together in `Validation`.
    pub async fn list(&self, agent: &AgentId, query: CannedResponseListQuery) -> Result<Page<CannedResponse>, DomainError> {
        let mut v = Violations::default();
        let search = query.search.map(|s| v.check(CannedSearch::new(&s)));
        let page = v.check_all(PageRequest::parse(query.limit.as_deref(), query.offset.as_deref(), PageBounds::CANNED_RESPONSES));
        v.finish()?;
        Ok(self.repo.list(agent, search.flatten(), page.expect(CHECKED)).await?)
    }

    /// The agent's canned response; `NotFound` (`canned response`) when unknown or another
    /// agent's.
    pub async fn get(&self, agent: &AgentId, id: &CannedResponseId) -> Result<CannedResponse, DomainError> {
        self.repo.get(agent, id).await?.ok_or(DomainError::not_found(NOT_FOUND))
    }

    /// Saves a new canned response. `Validation` names every missing or bad field; `Conflict`
    /// (on `short_code`) when the agent already has one with that short code, or already keeps
    /// [`MAX_CANNED_RESPONSES_PER_AGENT`].
    pub async fn create(&self, agent: &AgentId, input: NewCannedResponseInput) -> Result<CannedResponse, DomainError> {
        let mut v = Violations::default();
        let short_code = v.check(required("short_code", input.short_code).and_then(|c| ShortCode::new(&c)));
        let text = v.check(required("text", input.text).and_then(|t| CannedText::new(&t)));
        v.finish()?;
        let now = self.clock.now();
        let response = CannedResponse {
            id: CannedResponseId::new(self.ids.new_id(IdKind::CannedResponse)),
            agent_id: agent.clone(),
            short_code: short_code.expect(CHECKED),
            text: text.expect(CHECKED),
            created_at: now,
            updated_at: now,
        };
        match self.repo.insert(&response, MAX_CANNED_RESPONSES_PER_AGENT).await {
            Ok(true) => Ok(response),
            Ok(false) => Err(DomainError::Conflict {
                message: format!(
                    "an agent may keep at most {MAX_CANNED_RESPONSES_PER_AGENT} canned responses: delete one before adding another"
                ),
                details: vec![FieldError::new(
                    "short_code",
                    format!("the agent already has {MAX_CANNED_RESPONSES_PER_AGENT} canned responses"),
                )],
            }),
            Err(StoreError::Conflict(_)) => Err(duplicate_short_code(&response.short_code)),
            Err(e) => Err(e.into()),
        }
    }

    /// Changes the fields sent; neither can be cleared (`Validation` on a `null`). `NotFound`
    /// when the response is unknown; `Conflict` when the new short code is another response's.
    pub async fn update(
        &self,
        agent: &AgentId,
        id: &CannedResponseId,
        input: CannedResponsePatchInput,
    ) -> Result<CannedResponse, DomainError> {
        let mut v = Violations::default();
        let short_code = v.check(not_null("short_code", input.short_code).and_then(|c| c.map(|c| ShortCode::new(&c)).transpose()));
        let text = v.check(not_null("text", input.text).and_then(|t| t.map(|t| CannedText::new(&t)).transpose()));
        v.finish()?;

        let mut response = self.get(agent, id).await?;
        if let Some(code) = short_code.flatten() {
            response.short_code = code;
        }
        if let Some(text) = text.flatten() {
            response.text = text;
        }
        response.updated_at = self.clock.now();
        match self.repo.update(&response).await {
            Ok(true) => Ok(response),
            Ok(false) => Err(DomainError::not_found(NOT_FOUND)),
            Err(StoreError::Conflict(_)) => Err(duplicate_short_code(&response.short_code)),
            Err(e) => Err(e.into()),
        }
    }

    /// Deletes the agent's canned response; `NotFound` when unknown or another agent's.
    pub async fn delete(&self, agent: &AgentId, id: &CannedResponseId) -> Result<(), DomainError> {
        if self.repo.delete(agent, id).await? { Ok(()) } else { Err(DomainError::not_found(NOT_FOUND)) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockCannedResponseRepository, MockClock, MockIdSource};
    use chrono::TimeZone;

    fn at(second: u32) -> Timestamp {
        chrono::Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, second).unwrap()
    }

    fn service(repo: MockCannedResponseRepository) -> CannedResponseService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(|| at(5));
        let mut ids = MockIdSource::new();
        ids.expect_new_id().returning(|k| format!("{}_test", k.prefix()));
        CannedResponseService::new(Arc::new(repo), Arc::new(clock), Arc::new(ids))
    }

    fn agent() -> AgentId {
        AgentId::new("agt_a")
    }

    fn stored() -> CannedResponse {
        CannedResponse {
            id: CannedResponseId::new("cnr_1"),
            agent_id: agent(),
            short_code: ShortCode::new("thanks").unwrap(),
            text: CannedText::new("Thank you!").unwrap(),
            created_at: at(1),
            updated_at: at(1),
        }
    }

    fn input(code: &str, text: &str) -> NewCannedResponseInput {
        NewCannedResponseInput { short_code: Some(code.into()), text: Some(text.into()) }
    }

    #[tokio::test]
    async fn create_stores_the_trimmed_text_under_its_short_code_and_the_cap() {
        let mut repo = MockCannedResponseRepository::new();
        repo.expect_insert()
            .withf(|r, max| r.short_code.as_str() == "thanks" && r.text.as_str() == "Thank you!" && *max == 1_000)
            .times(1)
            .returning(|_, _| Ok(true));
        let made = service(repo).create(&agent(), input("thanks", "  Thank you! \n")).await.unwrap();
        assert_eq!(made.id.as_str(), "cnr_test");
        assert_eq!((made.created_at, made.updated_at), (at(5), at(5)));
    }

    #[tokio::test]
    async fn create_reports_every_invalid_field_and_writes_nothing() {
        let err = service(MockCannedResponseRepository::new())
            .create(&agent(), NewCannedResponseInput { short_code: Some("Thanks!".into()), text: None })
            .await
            .unwrap_err();
        let DomainError::Validation(errors) = err else { panic!("{err:?}") };
        let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["short_code", "text"]);
    }

    #[tokio::test]
    async fn a_taken_short_code_and_a_full_agent_are_conflicts() {
        let mut repo = MockCannedResponseRepository::new();
        repo.expect_insert().times(1).returning(|_, _| Err(StoreError::Conflict("canned_responses.short_code".into())));
        let err = service(repo).create(&agent(), input("thanks", "Hi")).await.unwrap_err();
        assert!(matches!(&err, DomainError::Conflict { message, .. } if message.contains("\"thanks\" already exists")), "{err:?}");

        let mut repo = MockCannedResponseRepository::new();
        repo.expect_insert().times(1).returning(|_, _| Ok(false));
        let err = service(repo).create(&agent(), input("thanks", "Hi")).await.unwrap_err();
        assert!(matches!(&err, DomainError::Conflict { message, .. } if message.contains("at most 1000")), "{err:?}");
    }

    #[tokio::test]
    async fn update_changes_only_the_fields_sent_and_neither_can_be_cleared() {
        let mut repo = MockCannedResponseRepository::new();
        repo.expect_get().returning(|_, _| Ok(Some(stored())));
        repo.expect_update().withf(|r| r.short_code.as_str() == "thanks" && r.text.as_str() == "Cheers").returning(|_| Ok(true));
        let patch = CannedResponsePatchInput { text: Patch::Set("Cheers".into()), ..Default::default() };
        let updated = service(repo).update(&agent(), &CannedResponseId::new("cnr_1"), patch).await.unwrap();
        assert_eq!((updated.created_at, updated.updated_at), (at(1), at(5)));

        let patch = CannedResponsePatchInput { short_code: Patch::Clear, text: Patch::Clear };
        let err = service(MockCannedResponseRepository::new()).update(&agent(), &CannedResponseId::new("cnr_1"), patch).await.unwrap_err();
        assert!(matches!(err, DomainError::Validation(v) if v.len() == 2));
    }

    #[tokio::test]
    async fn list_validates_search_and_page_before_reading() {
        let query = CannedResponseListQuery { search: Some(String::new()), limit: Some("101".into()), offset: None };
        let err = service(MockCannedResponseRepository::new()).list(&agent(), query).await.unwrap_err();
        assert!(matches!(err, DomainError::Validation(v) if v.len() == 2));

        let mut repo = MockCannedResponseRepository::new();
        repo.expect_list()
            .withf(|_, search, page| search.as_ref().map(CannedSearch::fragment) == Some("thank") && page.limit() == 20)
            .returning(|_, _, page| Ok(Page { items: vec![stored()], total: 1, request: page }));
        let query = CannedResponseListQuery { search: Some(" THANK ".into()), ..Default::default() };
        assert_eq!(service(repo).list(&agent(), query).await.unwrap().total, 1);
    }

    #[tokio::test]
    async fn unknown_ones_are_not_found() {
        let mut repo = MockCannedResponseRepository::new();
        repo.expect_delete().returning(|_, _| Ok(false));
        repo.expect_get().returning(|_, _| Ok(None));
        let service = service(repo);
        let id = CannedResponseId::new("cnr_x");
        assert!(matches!(service.delete(&agent(), &id).await, Err(DomainError::NotFound { resource: "canned response", .. })));
        assert!(matches!(service.get(&agent(), &id).await, Err(DomainError::NotFound { resource: "canned response", .. })));
    }
}
