//! Idempotency keys: a request repeated with the same key within 24 hours gets the first one's
//! answer instead of running again. Shared by every write that takes an `Idempotency-Key`.

use std::sync::Arc;

use chrono::TimeDelta;

use crate::model::*;
use crate::ports::*;
use crate::{DomainError, FieldError};

/// What to do with a request that carries an `Idempotency-Key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyBegin {
    /// First use: run the request, then [`IdempotencyService::finish`] with its answer.
    Proceed,
    /// A retry of a finished request: answer this again, do nothing else.
    Replay(IdempotentResponse),
    /// The first request held the key past [`IdempotencyService::LEASE`] without answering: it
    /// was cut (the process crashed, or shut down past its deadline). Without a recovery point it
    /// may or may not have had its effect: do not run it again, answer that. With one (what the
    /// request recorded before acting, e.g. a reply's message id), answer what it names as it is
    /// now, or run the request when it names nothing stored (it was cut before recording it).
    /// Either way, [`IdempotencyService::finish`] with the answer so later retries replay it.
    Interrupted {
        /// What the first request recorded before acting (e.g. a reply's message id); `None`
        /// when it recorded nothing.
        recovery_point: Option<String>,
    },
}

/// Makes retries safe: the same key and request within 24 hours answer the first response again.
pub struct IdempotencyService {
    repo: Arc<dyn IdempotencyRepository>,
    clock: Arc<dyn Clock>,
}

impl IdempotencyService {
    /// How long a key is remembered: once its first use is older, the key is free again, for
    /// any request.
    pub const WINDOW: TimeDelta = TimeDelta::hours(24);
    /// How long a request may hold its key without answering. Far above the longest a send
    /// runs (its platform call, database waits, a shutdown's grace period), so a claim older than
    /// this is one whose request was cut, not one still running.
    pub const LEASE: TimeDelta = TimeDelta::minutes(5);

    /// A service over `repo`, timing keys by `clock`.
    pub fn new(repo: Arc<dyn IdempotencyRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { repo, clock }
    }

    /// Claims `key` for a request, or says what the earlier request with it left.
    /// `fingerprint` identifies the request (e.g. a hash of its target and body). `Validation`
    /// (on `Idempotency-Key`) unless the key is 1–255 visible ASCII characters;
    /// `IdempotencyConflict` when the key was used with another fingerprint, or its first
    /// request is still running (unanswered, within [`LEASE`](Self::LEASE)).
    pub async fn begin(&self, agent: &AgentId, key: &str, fingerprint: &str) -> Result<IdempotencyBegin, DomainError> {
        if key.is_empty() || key.len() > 255 || !key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(FieldError::new("Idempotency-Key", "must be 1 to 255 visible ASCII characters").into());
        }
        let now = self.clock.now();
        match self.repo.claim(agent, key, fingerprint, now, now - Self::WINDOW).await? {
            IdempotencyClaim::Claimed => Ok(IdempotencyBegin::Proceed),
            IdempotencyClaim::Existing { fingerprint: first, response, claimed_at } if first == fingerprint => match response {
                Some(r) => Ok(IdempotencyBegin::Replay(r)),
                None if now - claimed_at > Self::LEASE => {
                    Ok(IdempotencyBegin::Interrupted { recovery_point: self.repo.recovery_point(agent, key).await? })
                }
                None => Err(DomainError::IdempotencyConflict("a request with this Idempotency-Key is still being processed".into())),
            },
            IdempotencyClaim::Existing { .. } => {
                Err(DomainError::IdempotencyConflict("this Idempotency-Key was used with a different request".into()))
            }
        }
    }

    /// Stores the answer of the request that claimed `key`: retries within the
    /// [`WINDOW`](Self::WINDOW) replay it.
    pub async fn finish(&self, agent: &AgentId, key: &str, response: &IdempotentResponse) -> Result<(), DomainError> {
        Ok(self.repo.complete(agent, key, response).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockClock, MockIdempotencyRepository};

    const NOW_MS: i64 = 1_764_000_000_000;

    fn service(existing: IdempotencyClaim) -> IdempotencyService {
        service_recovering(existing, None)
    }

    fn service_recovering(existing: IdempotencyClaim, recovery_point: Option<&'static str>) -> IdempotencyService {
        let mut repo = MockIdempotencyRepository::new();
        repo.expect_claim().returning(move |_, _, _, _, _| Ok(existing.clone()));
        repo.expect_recovery_point().returning(move |_, _| Ok(recovery_point.map(String::from)));
        let mut clock = MockClock::new();
        clock.expect_now().returning(|| Timestamp::from_timestamp_millis(NOW_MS).unwrap());
        IdempotencyService::new(Arc::new(repo), Arc::new(clock))
    }

    fn unanswered(age: TimeDelta) -> IdempotencyClaim {
        let claimed_at = Timestamp::from_timestamp_millis(NOW_MS).unwrap() - age;
        IdempotencyClaim::Existing { fingerprint: "fp".into(), response: None, claimed_at }
    }

    #[tokio::test]
    async fn an_unanswered_claim_is_running_within_its_lease_and_cut_after_it() {
        let agent = AgentId::new("agt_1");
        let running = service(unanswered(IdempotencyService::LEASE)).begin(&agent, "k", "fp").await;
        assert!(matches!(running, Err(DomainError::IdempotencyConflict(m)) if m.contains("still being processed")));
        let cut = service(unanswered(IdempotencyService::LEASE + TimeDelta::milliseconds(1))).begin(&agent, "k", "fp").await;
        assert_eq!(cut.unwrap(), IdempotencyBegin::Interrupted { recovery_point: None });
        let other = service(unanswered(TimeDelta::hours(1))).begin(&agent, "k", "another body").await;
        assert!(matches!(other, Err(DomainError::IdempotencyConflict(m)) if m.contains("different request")), "a cut claim keeps its body");
    }

    #[tokio::test]
    async fn a_cut_claim_carries_its_recovery_point() {
        let cut = unanswered(IdempotencyService::LEASE + TimeDelta::seconds(1));
        let begun = service_recovering(cut, Some("msg_1")).begin(&AgentId::new("agt_1"), "k", "fp").await.unwrap();
        assert_eq!(begun, IdempotencyBegin::Interrupted { recovery_point: Some("msg_1".into()) });
        let running = service_recovering(unanswered(TimeDelta::seconds(1)), Some("msg_1")).begin(&AgentId::new("agt_1"), "k", "fp").await;
        assert!(matches!(running, Err(DomainError::IdempotencyConflict(_))), "within its lease a claim is running, recovery point or not");
    }

    #[tokio::test]
    async fn an_answered_claim_replays_however_old() {
        let answer = IdempotentResponse { status: 200, body: "{}".into() };
        let claimed_at = Timestamp::from_timestamp_millis(NOW_MS).unwrap() - TimeDelta::hours(23);
        let done = IdempotencyClaim::Existing { fingerprint: "fp".into(), response: Some(answer.clone()), claimed_at };
        assert_eq!(service(done).begin(&AgentId::new("agt_1"), "k", "fp").await.unwrap(), IdempotencyBegin::Replay(answer));
    }
}
