use std::sync::Arc;

use crate::model::*;
use crate::ports::{Clock, IdSource, MemberRepository, PasswordHashing, SessionRepository, SignInAttemptRepository};
use crate::services::required;
use crate::{DomainError, FieldError, StoreError};

/// Members signing in to the inbox: sign-in with lock-out, sessions with idle expiry, sign-out,
/// and the password change a member makes at its first sign-in.
pub struct SessionService {
    members: Arc<dyn MemberRepository>,
    sessions: Arc<dyn SessionRepository>,
    attempts: Arc<dyn SignInAttemptRepository>,
    hashing: Arc<dyn PasswordHashing>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
}

/// A request's session, once its cookie is checked.
#[derive(Debug, Clone)]
pub struct SignedIn {
    /// What the request may do, as whom.
    pub principal: Principal,
    /// The member as it now is.
    pub member: Member,
    /// The session.
    pub session: Session,
    /// Its anti-forgery token.
    pub csrf_token: String,
}

impl SessionService {
    /// A service over these ports.
    pub fn new(
        members: Arc<dyn MemberRepository>,
        sessions: Arc<dyn SessionRepository>,
        attempts: Arc<dyn SignInAttemptRepository>,
        hashing: Arc<dyn PasswordHashing>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdSource>,
    ) -> Self {
        Self { members, sessions, attempts, hashing, clock, ids }
    }

    /// Signs a member in by email and password and opens a session. An unknown email and a wrong
    /// password get the same answer (`SignInFailed`) after the same work (a password is always
    /// checked against a hash); the fifth failure within 15 minutes locks the email for 15
    /// minutes (`SignInLocked`), whether or not a member has it. `Validation` when either field
    /// is missing.
    pub async fn sign_in(&self, email: Option<String>, password: Option<String>) -> Result<(OpenedSession, Member), DomainError> {
        let (email, password) = match (required("email", email), required("password", password)) {
            (Ok(e), Ok(p)) => (e, p),
            (e, p) => return Err(DomainError::Validation([e.err(), p.err()].into_iter().flatten().collect())),
        };
        // An address that cannot be a member's is refused like any other wrong pair.
        let Ok(email) = Email::new(&email) else {
            self.hashing.verify(&password, None).await;
            return Err(DomainError::SignInFailed);
        };
        let now = self.clock.now();
        let history = self.attempts.since(&email, SignInGuard::since(now)).await?;
        if let Some(retry_after) = SignInGuard::locked_for(&history, now) {
            return Err(DomainError::SignInLocked { retry_after });
        }
        let candidates = self.members.find_by_email(&email).await?;
        let mut found = None;
        if candidates.is_empty() {
            self.hashing.verify(&password, None).await;
        }
        for member in candidates {
            if self.hashing.verify(&password, Some(&member.password)).await {
                found = Some(member);
                break;
            }
        }
        let Some(member) = found else {
            let mark = if SignInGuard::locks_after_failure(&history) { SignInMark::Locked } else { SignInMark::Failed };
            self.attempts.record(&email, mark, now).await?;
            return Err(DomainError::SignInFailed);
        };
        self.attempts.clear_failures(&email).await?;
        // Housekeeping where it costs nothing extra: idle sessions and old marks go at sign-in.
        self.sessions.delete_idle(now - SESSION_IDLE).await?;
        self.attempts.prune(SignInGuard::since(now)).await?;
        let opened = self.open(&member).await?;
        Ok((opened, member))
    }

    async fn open(&self, member: &Member) -> Result<OpenedSession, DomainError> {
        let now = self.clock.now();
        loop {
            let token = self.ids.secret(SESSION_TOKEN_LEN);
            let session = Session {
                id: SessionId::new(self.ids.new_id(IdKind::Session)),
                agent_id: member.agent_id.clone(),
                member_id: member.id.clone(),
                token_hash: KeyHash::of(&token),
                created_at: now,
                last_seen_at: now,
            };
            match self.sessions.insert(&session).await {
                Ok(()) => return Ok(OpenedSession { csrf_token: csrf_token_of(&token), session, token }),
                // 238 random bits: never in practice, but never share a session either.
                Err(StoreError::Conflict(_)) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// The session a cookie presents, with its member, as a principal that reaches what a
    /// secret key of the member's agent reaches. `SessionEnded` for a cookie that is malformed,
    /// unknown, signed out, a removed member's, or idle for [`SESSION_IDLE`] (then ended).
    pub async fn authenticate(&self, presented: &PresentedSession) -> Result<SignedIn, DomainError> {
        let (mut session, member) = self.sessions.find_by_hash(presented.hash()).await?.ok_or(DomainError::SessionEnded)?;
        let now = self.clock.now();
        if session.expired(now) {
            self.sessions.delete(&session.id).await?;
            return Err(DomainError::SessionEnded);
        }
        if session.needs_touch(now) {
            self.sessions.touch(&session.id, now).await?;
            session.last_seen_at = now;
        }
        let principal = Principal {
            agent_id: member.agent_id.clone(),
            caller: Caller::Member { id: member.id.clone(), role: member.role, session: session.id.clone() },
            kind: KeyKind::Secret,
        };
        Ok(SignedIn { principal, member, session, csrf_token: presented.csrf_token().to_string() })
    }

    /// Ends the session.
    pub async fn sign_out(&self, session: &SessionId) -> Result<(), DomainError> {
        self.sessions.delete(session).await?;
        Ok(())
    }

    /// Replaces the member's password after checking its current one, ends its other sessions,
    /// and lifts `must_change_password`. `Validation` on `current_password` when it is wrong,
    /// on `new_password` when it breaks the length rule or equals the current one.
    pub async fn change_password(&self, signed_in: &SignedIn, current: Option<String>, new: Option<String>) -> Result<Member, DomainError> {
        let current = required("current_password", current)?;
        let new = NewPassword::new("new_password", &required("new_password", new)?)?;
        if new.expose() == current {
            return Err(FieldError::new("new_password", "must differ from the current password").into());
        }
        if !self.hashing.verify(&current, Some(&signed_in.member.password)).await {
            return Err(FieldError::new("current_password", "is not the member's password").into());
        }
        let member = Member {
            password: self.hashing.hash(&new).await?,
            must_change_password: false,
            max_open: None,
            updated_at: self.clock.now(),
            ..signed_in.member.clone()
        };
        if !self.members.set_password(&member, Some(&signed_in.session.id)).await? {
            return Err(DomainError::SessionEnded);
        }
        Ok(member)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{
        MockClock, MockIdSource, MockMemberRepository, MockPasswordHashing, MockSessionRepository, MockSignInAttemptRepository,
    };

    fn member(password: &str) -> Member {
        Member {
            id: MemberId::new("usr_1"),
            agent_id: AgentId::new("agt_1"),
            email: Email::new("ana@shop.example").unwrap(),
            name: MemberName::new("Ana").unwrap(),
            role: MemberRole::Member,
            password: PasswordDigest::from_stored(format!("hashed:{password}")),
            must_change_password: true,
            max_open: None,
            created_at: chrono::Utc::now(),
            updated_at: chrono::Utc::now(),
        }
    }

    /// Hashing that counts verifications, so a test sees the decoy spent.
    fn hashing(verified: Arc<std::sync::atomic::AtomicUsize>) -> MockPasswordHashing {
        let mut hashing = MockPasswordHashing::new();
        hashing.expect_verify().returning(move |password, digest| {
            verified.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            digest.is_some_and(|d| d.as_str() == format!("hashed:{password}"))
        });
        hashing.expect_hash().returning(|p| Ok(PasswordDigest::from_stored(format!("hashed:{}", p.expose()))));
        hashing
    }

    fn service(
        members: MockMemberRepository,
        sessions: MockSessionRepository,
        attempts: MockSignInAttemptRepository,
        verified: Arc<std::sync::atomic::AtomicUsize>,
    ) -> SessionService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(chrono::Utc::now);
        let mut ids = MockIdSource::new();
        ids.expect_new_id().returning(|k| format!("{}_1", k.prefix()));
        ids.expect_secret().returning(|n| "S".repeat(n));
        SessionService::new(
            Arc::new(members),
            Arc::new(sessions),
            Arc::new(attempts),
            Arc::new(hashing(verified)),
            Arc::new(clock),
            Arc::new(ids),
        )
    }

    fn quiet_attempts(failures: u32) -> MockSignInAttemptRepository {
        let mut attempts = MockSignInAttemptRepository::new();
        attempts.expect_since().returning(move |_, _| Ok(SignInHistory { failures, locked_at: None }));
        attempts
    }

    #[tokio::test]
    async fn an_unknown_email_costs_a_verification_and_answers_as_a_wrong_password() {
        let verified = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut members = MockMemberRepository::new();
        members.expect_find_by_email().returning(|_| Ok(vec![]));
        let mut attempts = quiet_attempts(0);
        attempts.expect_record().withf(|_, mark, _| *mark == SignInMark::Failed).times(1).returning(|_, _, _| Ok(()));
        let svc = service(members, MockSessionRepository::new(), attempts, verified.clone());
        let err = svc.sign_in(Some("nobody@shop.example".into()), Some("whatever-password".into())).await.unwrap_err();
        assert!(matches!(err, DomainError::SignInFailed));
        assert_eq!(verified.load(std::sync::atomic::Ordering::SeqCst), 1, "the decoy hash was checked");
    }

    #[tokio::test]
    async fn the_fifth_failure_locks_and_a_locked_email_is_not_checked() {
        let verified = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut members = MockMemberRepository::new();
        members.expect_find_by_email().returning(|_| Ok(vec![member("right-password")]));
        let mut attempts = quiet_attempts(4);
        attempts.expect_record().withf(|_, mark, _| *mark == SignInMark::Locked).times(1).returning(|_, _, _| Ok(()));
        let svc = service(members, MockSessionRepository::new(), attempts, verified.clone());
        let err = svc.sign_in(Some("ana@shop.example".into()), Some("wrong-password".into())).await.unwrap_err();
        assert!(matches!(err, DomainError::SignInFailed));

        let mut attempts = MockSignInAttemptRepository::new();
        attempts.expect_since().returning(|_, _| Ok(SignInHistory { failures: 0, locked_at: Some(chrono::Utc::now()) }));
        let before = verified.load(std::sync::atomic::Ordering::SeqCst);
        let svc = service(MockMemberRepository::new(), MockSessionRepository::new(), attempts, verified.clone());
        let err = svc.sign_in(Some("ana@shop.example".into()), Some("right-password".into())).await.unwrap_err();
        assert!(matches!(err, DomainError::SignInLocked { retry_after } if retry_after.as_secs() > 14 * 60));
        assert_eq!(verified.load(std::sync::atomic::Ordering::SeqCst), before, "no password is checked while locked");
    }

    #[tokio::test]
    async fn a_right_password_opens_a_session_stored_by_hash() {
        let verified = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut members = MockMemberRepository::new();
        members.expect_find_by_email().returning(|_| Ok(vec![member("right-password")]));
        let mut attempts = quiet_attempts(2);
        attempts.expect_clear_failures().times(1).returning(|_| Ok(()));
        attempts.expect_prune().returning(|_| Ok(0));
        let mut sessions = MockSessionRepository::new();
        sessions.expect_delete_idle().returning(|_| Ok(0));
        let token = "S".repeat(SESSION_TOKEN_LEN);
        let hash = KeyHash::of(&token);
        sessions.expect_insert().withf(move |s| s.token_hash == hash && s.member_id.as_str() == "usr_1").returning(|_| Ok(()));
        let svc = service(members, sessions, attempts, verified);
        let (opened, member) = svc.sign_in(Some("ANA@shop.example".into()), Some("right-password".into())).await.unwrap();
        assert_eq!(opened.token, token);
        assert_eq!(opened.csrf_token, csrf_token_of(&token));
        assert!(member.must_change_password);
    }
}
