//! `MemberRepository`, `SessionRepository` and `SignInAttemptRepository`: an agent's team, its
//! members' sessions, and failed sign-ins by email.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{MemberRepository, RoutingRepository, SessionRepository, SignInAttemptRepository, StoreResult};

use crate::store::{MemoryStore, State, conflict};

#[async_trait]
impl MemberRepository for MemoryStore {
    async fn insert(&self, member: &Member) -> StoreResult<()> {
        self.with(|s| {
            s.require_agent(&member.agent_id)?;
            let taken = s.members.values().any(|m| m.agent_id == member.agent_id && m.email == member.email);
            if taken || s.members.contains_key(&member.id) {
                return Err(conflict("the agent already has a member with this email (or the id is taken)"));
            }
            s.members.insert(member.id.clone(), member.clone());
            Ok(())
        })
    }

    async fn get(&self, agent: &AgentId, id: &MemberId) -> StoreResult<Option<Member>> {
        Ok(self.with(|s| s.members.get(id).filter(|m| &m.agent_id == agent).cloned()))
    }

    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Member>> {
        let mut members: Vec<Member> = self.with(|s| s.members.values().filter(|m| &m.agent_id == agent).cloned().collect());
        members.sort_by(|x, y| (x.created_at, &x.id).cmp(&(y.created_at, &y.id)));
        Ok(members)
    }

    async fn find_by_email(&self, email: &Email) -> StoreResult<Vec<Member>> {
        let mut members: Vec<Member> = self.with(|s| s.members.values().filter(|m| &m.email == email).cloned().collect());
        members.sort_by(|x, y| (x.created_at, &x.id).cmp(&(y.created_at, &y.id)));
        Ok(members)
    }

    async fn set_password<'a>(&self, member: &Member, keep: Option<&'a SessionId>) -> StoreResult<bool> {
        Ok(self.with(|s| {
            let Some(stored) = s.members.get_mut(&member.id).filter(|m| m.agent_id == member.agent_id) else { return false };
            stored.password = member.password.clone();
            stored.must_change_password = member.must_change_password;
            stored.updated_at = member.updated_at;
            s.sessions.retain(|id, session| session.member_id != member.id || Some(id) == keep);
            true
        }))
    }

    async fn set_max_open(&self, agent: &AgentId, id: &MemberId, max_open: Option<MaxOpen>, at: Timestamp) -> StoreResult<bool> {
        Ok(self.with(|s| {
            let Some(stored) = s.members.get_mut(id).filter(|m| &m.agent_id == agent) else { return false };
            stored.max_open = max_open;
            stored.updated_at = at;
            true
        }))
    }

    async fn delete(&self, agent: &AgentId, id: &MemberId) -> StoreResult<bool> {
        Ok(self.with(|s| {
            if s.members.get(id).is_none_or(|m| &m.agent_id != agent) {
                return false;
            }
            s.members.remove(id);
            s.last_assigned.remove(id);
            s.sessions.retain(|_, session| &session.member_id != id);
            true
        }))
    }
}

#[async_trait]
impl SessionRepository for MemoryStore {
    async fn insert(&self, session: &Session) -> StoreResult<()> {
        self.with(|s| {
            if s.sessions.contains_key(&session.id) || s.sessions.values().any(|x| x.token_hash == session.token_hash) {
                return Err(conflict("session already stored (id or hash)"));
            }
            if s.members.get(&session.member_id).is_none_or(|m| m.agent_id != session.agent_id) {
                return Err(parley_domain::StoreError::NotFound("member"));
            }
            s.sessions.insert(session.id.clone(), session.clone());
            Ok(())
        })
    }

    async fn find_by_hash(&self, hash: &KeyHash) -> StoreResult<Option<(Session, Member)>> {
        Ok(self.with(|s| {
            let session = s.sessions.values().find(|x| &x.token_hash == hash)?;
            let member = s.members.get(&session.member_id)?;
            Some((session.clone(), member.clone()))
        }))
    }

    async fn touch(&self, id: &SessionId, at: Timestamp) -> StoreResult<()> {
        self.with(|s| {
            if let Some(session) = s.sessions.get_mut(id) {
                session.last_seen_at = at;
            }
        });
        Ok(())
    }

    async fn delete(&self, id: &SessionId) -> StoreResult<bool> {
        Ok(self.with(|s| s.sessions.remove(id).is_some()))
    }

    async fn delete_idle(&self, before: Timestamp) -> StoreResult<u64> {
        Ok(self.with(|s| {
            let count = s.sessions.len();
            s.sessions.retain(|_, session| session.last_seen_at >= before);
            (count - s.sessions.len()) as u64
        }))
    }
}

#[async_trait]
impl SignInAttemptRepository for MemoryStore {
    async fn record(&self, email: &Email, mark: SignInMark, at: Timestamp) -> StoreResult<()> {
        self.with(|s| s.sign_in_attempts.push((email.clone(), mark, at)));
        Ok(())
    }

    async fn since(&self, email: &Email, since: Timestamp) -> StoreResult<SignInHistory> {
        Ok(self.with(|s| {
            let recent = s.sign_in_attempts.iter().filter(|(e, _, at)| e == email && *at >= since);
            recent.fold(SignInHistory::default(), |mut history, (_, mark, at)| {
                match mark {
                    SignInMark::Failed => history.failures += 1,
                    SignInMark::Locked => history.locked_at = history.locked_at.max(Some(*at)),
                }
                history
            })
        }))
    }

    async fn clear_failures(&self, email: &Email) -> StoreResult<()> {
        self.with(|s| s.sign_in_attempts.retain(|(e, mark, _)| e != email || *mark == SignInMark::Locked));
        Ok(())
    }

    async fn prune(&self, before: Timestamp) -> StoreResult<u64> {
        Ok(self.with(|s| {
            let count = s.sign_in_attempts.len();
            s.sign_in_attempts.retain(|(_, _, at)| *at >= before);
            (count - s.sign_in_attempts.len()) as u64
        }))
    }
}

#[async_trait]
impl RoutingRepository for MemoryStore {
    async fn loads(&self, agent: &AgentId) -> StoreResult<Vec<MemberLoad>> {
        Ok(self.with(|s| {
            let mut loads: Vec<MemberLoad> = s
                .members
                .values()
                .filter(|m| &m.agent_id == agent)
                .map(|m| MemberLoad {
                    member: m.id.clone(),
                    max_open: m.max_open,
                    open: s.open_assigned_to(agent, &m.id),
                    last_assigned_at: s.last_assigned.get(&m.id).copied(),
                    created_at: m.created_at,
                })
                .collect();
            loads.sort_by(|a, b| (a.created_at, &a.member).cmp(&(b.created_at, &b.member)));
            loads
        }))
    }

    async fn mark_assigned(&self, agent: &AgentId, member: &MemberId, at: Timestamp) -> StoreResult<()> {
        self.with(|s| {
            if s.members.get(member).is_some_and(|m| &m.agent_id == agent) {
                s.last_assigned.insert(member.clone(), at);
            }
        });
        Ok(())
    }
}

impl State {
    /// The agent's open conversations assigned to `member`.
    fn open_assigned_to(&self, agent: &AgentId, member: &MemberId) -> u64 {
        let mine = |a: &Activity| {
            &a.agent_id == agent
                && a.status == ActivityStatus::Open
                && a.assigned_to.as_ref().is_some_and(|to| to.as_str() == member.as_str())
        };
        self.activities.values().filter(|stored| mine(&stored.activity)).count() as u64
    }
}
