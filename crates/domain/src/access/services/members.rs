use std::sync::Arc;

use crate::error::{CHECKED, Violations};
use crate::model::*;
use crate::ports::{AgentRepository, Clock, IdSource, MemberRepository, PasswordHashing};
use crate::services::{Patch, required};
use crate::{DomainError, FieldError, StoreError};

/// Random base-62 characters of a one-time password (~119 bits): typed once, then replaced.
pub const ONE_TIME_PASSWORD_LEN: usize = 20;

/// An agent's team: adding members (each with a one-time password), listing and removing them.
pub struct MemberService {
    agents: Arc<dyn AgentRepository>,
    members: Arc<dyn MemberRepository>,
    hashing: Arc<dyn PasswordHashing>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
}

/// A member to add, as received.
#[derive(Debug, Clone, Default)]
pub struct NewMemberInput {
    /// Required: what it signs in with.
    pub email: Option<String>,
    /// Required: how the inbox names it.
    pub name: Option<String>,
    /// `admin` or `member` (the default).
    pub role: Option<String>,
}

impl MemberService {
    /// A service over these ports.
    pub fn new(
        agents: Arc<dyn AgentRepository>,
        members: Arc<dyn MemberRepository>,
        hashing: Arc<dyn PasswordHashing>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdSource>,
    ) -> Self {
        Self { agents, members, hashing, clock, ids }
    }

    /// Adds a member to an existing agent with a one-time password, returned once: the member
    /// must choose its own at its first sign-in. `Validation` names every bad field; `NotFound`
    /// (`agent`) for an unknown agent; `Conflict` (on `email`) when the agent has a member with
    /// that email.
    pub async fn add(&self, agent: &AgentId, input: NewMemberInput) -> Result<AddedMember, DomainError> {
        let mut v = Violations::default();
        let email = v.check(required("email", input.email).and_then(|e| Email::new(&e)));
        let name = v.check(required("name", input.name).and_then(|n| MemberName::new(&n)));
        let role = v.check(input.role.map_or(Ok(MemberRole::Member), |r| MemberRole::parse(&r)));
        v.finish()?;
        self.agents.get(agent).await?.ok_or(DomainError::not_found("agent"))?;
        let one_time_password = self.ids.secret(ONE_TIME_PASSWORD_LEN);
        let password = self.hashing.hash(&NewPassword::new("password", &one_time_password)?).await?;
        let now = self.clock.now();
        let member = Member {
            id: MemberId::new(self.ids.new_id(IdKind::Member)),
            agent_id: agent.clone(),
            email: email.expect(CHECKED),
            name: name.expect(CHECKED),
            role: role.expect(CHECKED),
            password,
            must_change_password: true,
            max_open: None,
            created_at: now,
            updated_at: now,
        };
        match self.members.insert(&member).await {
            Ok(()) => Ok(AddedMember { member, one_time_password }),
            Err(StoreError::Conflict(_)) => Err(DomainError::Conflict {
                message: "the agent already has a member with this email".into(),
                details: vec![FieldError::new("email", "is taken by another member of this agent")],
            }),
            Err(e) => Err(e.into()),
        }
    }

    /// The agent's members, oldest first; `NotFound` (`agent`) for an unknown agent.
    pub async fn list(&self, agent: &AgentId) -> Result<Vec<Member>, DomainError> {
        self.agents.get(agent).await?.ok_or(DomainError::not_found("agent"))?;
        Ok(self.members.list(agent).await?)
    }

    /// The agent's member `id`; `NotFound` (`member`) when unknown or another agent's.
    pub async fn get(&self, agent: &AgentId, id: &MemberId) -> Result<Member, DomainError> {
        self.members.get(agent, id).await?.ok_or(DomainError::not_found("member"))
    }

    /// Sets (or, cleared, removes) the most open conversations round robin gives the member,
    /// and answers it; `Validation` on `max_open` outside 0–10,000, `NotFound` (`member`) when
    /// unknown.
    pub async fn set_max_open(&self, agent: &AgentId, id: &MemberId, max_open: Patch<serde_json::Value>) -> Result<Member, DomainError> {
        let not_found = || DomainError::not_found("member");
        let max_open = match max_open {
            Patch::Keep => return self.members.get(agent, id).await?.ok_or_else(not_found),
            Patch::Clear => None,
            Patch::Set(n) => Some(MaxOpen::from_json(&n).map_err(DomainError::from)?),
        };
        if !self.members.set_max_open(agent, id, max_open, self.clock.now()).await? {
            return Err(not_found());
        }
        self.members.get(agent, id).await?.ok_or_else(not_found)
    }

    /// Removes the member and ends its sessions; `NotFound` (`member`) when unknown. Activities
    /// assigned to it keep `assigned_to` and show no `assignee`.
    pub async fn remove(&self, agent: &AgentId, id: &MemberId) -> Result<(), DomainError> {
        if !self.members.delete(agent, id).await? {
            return Err(DomainError::not_found("member"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockAgentRepository, MockClock, MockIdSource, MockMemberRepository, MockPasswordHashing};

    fn service(members: MockMemberRepository) -> MemberService {
        let mut agents = MockAgentRepository::new();
        agents
            .expect_get()
            .returning(|id| Ok(Some(Agent { id: id.clone(), name: AgentName::new("Shop").unwrap(), created_at: chrono::Utc::now() })));
        let mut hashing = MockPasswordHashing::new();
        hashing.expect_hash().returning(|p| Ok(PasswordDigest::from_stored(format!("hashed:{}", p.expose()))));
        let mut clock = MockClock::new();
        clock.expect_now().returning(chrono::Utc::now);
        let mut ids = MockIdSource::new();
        ids.expect_new_id().returning(|k| format!("{}_1", k.prefix()));
        ids.expect_secret().returning(|n| "P".repeat(n));
        MemberService::new(Arc::new(agents), Arc::new(members), Arc::new(hashing), Arc::new(clock), Arc::new(ids))
    }

    #[tokio::test]
    async fn a_new_member_keeps_only_the_hash_of_its_one_time_password() {
        let mut members = MockMemberRepository::new();
        members
            .expect_insert()
            .withf(|m| {
                m.password.as_str() == format!("hashed:{}", "P".repeat(20))
                    && m.must_change_password
                    && m.email.as_str() == "ana@shop.example"
            })
            .returning(|_| Ok(()));
        let input = NewMemberInput { email: Some(" Ana@Shop.example ".into()), name: Some("Ana".into()), role: None };
        let added = service(members).add(&AgentId::new("agt_1"), input).await.unwrap();
        assert_eq!(added.one_time_password, "P".repeat(20));
        assert_eq!(added.member.role, MemberRole::Member);
        assert_eq!(added.member.id.as_str(), "usr_1");
    }

    #[tokio::test]
    async fn every_bad_field_is_named_and_a_taken_email_conflicts() {
        let err = service(MockMemberRepository::new())
            .add(&AgentId::new("agt_1"), NewMemberInput { email: Some("nope".into()), name: None, role: Some("owner".into()) })
            .await
            .unwrap_err();
        let DomainError::Validation(fields) = err else { panic!("{err:?}") };
        let names: Vec<_> = fields.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(names, ["email", "name", "role"]);

        let mut members = MockMemberRepository::new();
        members.expect_insert().returning(|_| Err(StoreError::Conflict("taken".into())));
        let input = NewMemberInput { email: Some("ana@shop.example".into()), name: Some("Ana".into()), role: Some("admin".into()) };
        let err = service(members).add(&AgentId::new("agt_1"), input).await.unwrap_err();
        assert!(matches!(err, DomainError::Conflict { ref details, .. } if details[0].field == "email"), "{err:?}");
    }
}
