//! Members' sessions: what a signed-in browser presents instead of an API key, and the rules of
//! signing in (idle expiry, lock-out after repeated failures).

use std::time::Duration;

use chrono::TimeDelta;
use sha2::{Digest, Sha256};

use crate::model::{AgentId, KeyHash, MemberId, SessionId, Timestamp};

/// Random base-62 characters of a session token (~238 bits, as an API key's).
pub const SESSION_TOKEN_LEN: usize = 40;
/// A session unused this long has ended: the member signs in again.
pub const SESSION_IDLE: TimeDelta = TimeDelta::hours(12);
/// How stale `last_seen_at` may get before a request writes it again: a busy session costs one
/// write a minute, not one per request, and expires at most this much early.
pub const SESSION_TOUCH_EVERY: TimeDelta = TimeDelta::minutes(1);

/// A signed-in member's session. The token exists only in the member's cookie; storage keeps its
/// hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Its id (`ses_…`).
    pub id: SessionId,
    /// The member's agent.
    pub agent_id: AgentId,
    /// Who signed in.
    pub member_id: MemberId,
    /// The hash of its token.
    pub token_hash: KeyHash,
    /// When the member signed in.
    pub created_at: Timestamp,
    /// When a request last used it (to within [`SESSION_TOUCH_EVERY`]).
    pub last_seen_at: Timestamp,
}

impl Session {
    /// Whether the session has been idle too long at `now`.
    pub fn expired(&self, now: Timestamp) -> bool {
        now - self.last_seen_at >= SESSION_IDLE
    }

    /// Whether a request at `now` should write `last_seen_at` again.
    pub fn needs_touch(&self, now: Timestamp) -> bool {
        now - self.last_seen_at >= SESSION_TOUCH_EVERY
    }
}

/// A session token as a browser presents it (its cookie), checked for shape before any lookup.
#[derive(Debug, Clone)]
pub struct PresentedSession {
    hash: KeyHash,
    csrf: String,
}

impl PresentedSession {
    /// `None` for anything that cannot be a token Parley issued.
    pub fn parse(raw: &str) -> Option<Self> {
        let valid = raw.len() == SESSION_TOKEN_LEN && raw.bytes().all(|b| b.is_ascii_alphanumeric());
        valid.then(|| Self { hash: KeyHash::of(raw), csrf: csrf_token_of(raw) })
    }

    /// What finds the stored session.
    pub fn hash(&self) -> &KeyHash {
        &self.hash
    }

    /// The session's anti-forgery token, for the page to send back with its writes.
    pub fn csrf_token(&self) -> &str {
        &self.csrf
    }

    /// Whether `presented` is this session's anti-forgery token.
    pub fn csrf_matches(&self, presented: &str) -> bool {
        // Both are hex digests of the same length: compared whole, in constant time.
        presented.len() == self.csrf.len() && presented.bytes().zip(self.csrf.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }
}

/// The anti-forgery token of a session: derived from its token, so nothing more is stored, and
/// unknowable to a page of another site (the cookie is `HttpOnly` and never leaves this origin).
/// The page reads it from the sign-in answer and sends it with every write.
pub fn csrf_token_of(token: &str) -> String {
    hex::encode(Sha256::digest(format!("parley-csrf:{token}").as_bytes()))
}

/// A session just opened: the record, and the token for the cookie, once.
#[derive(Debug, Clone)]
pub struct OpenedSession {
    /// The stored session.
    pub session: Session,
    /// The cookie's value, never stored.
    pub token: String,
    /// What writes must carry in `X-CSRF-Token`.
    pub csrf_token: String,
}

/// What a sign-in attempt leaves behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignInMark {
    /// A wrong email or password.
    Failed,
    /// The failure that locked the email.
    Locked,
}

impl SignInMark {
    /// `failed` or `locked`, as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            SignInMark::Failed => "failed",
            SignInMark::Locked => "locked",
        }
    }

    /// The mark stored as `raw`, if it is one.
    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "failed" => Some(SignInMark::Failed),
            "locked" => Some(SignInMark::Locked),
            _ => None,
        }
    }
}

/// An email's recent sign-in marks, as [`SignInGuard`] reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SignInHistory {
    /// Failures in the window.
    pub failures: u32,
    /// The newest lock in the window.
    pub locked_at: Option<Timestamp>,
}

/// The lock-out rule: [`MAX_FAILURES`](Self::MAX_FAILURES) failed sign-ins within
/// [`WINDOW`](Self::WINDOW) lock the email for [`LOCK`](Self::LOCK); attempts while locked are
/// refused without checking the password, and not counted.
pub struct SignInGuard;

impl SignInGuard {
    /// Failures that lock an email.
    pub const MAX_FAILURES: u32 = 5;
    /// The window failures are counted in.
    pub const WINDOW: TimeDelta = TimeDelta::minutes(15);
    /// How long a lock lasts.
    pub const LOCK: TimeDelta = TimeDelta::minutes(15);

    /// How far back [`SignInHistory`] must reach at `now`.
    pub fn since(now: Timestamp) -> Timestamp {
        now - Self::WINDOW.max(Self::LOCK)
    }

    /// How long the email stays locked at `now`, or `None` when it is not.
    pub fn locked_for(history: &SignInHistory, now: Timestamp) -> Option<Duration> {
        let until = history.locked_at? + Self::LOCK;
        (until > now).then(|| (until - now).to_std().unwrap_or_default())
    }

    /// Whether one more failure, after `history`'s, locks the email.
    pub fn locks_after_failure(history: &SignInHistory) -> bool {
        history.failures + 1 >= Self::MAX_FAILURES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(minutes: i64) -> Timestamp {
        chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap() + TimeDelta::minutes(minutes)
    }

    #[test]
    fn sessions_end_after_twelve_idle_hours() {
        let s = Session {
            id: SessionId::new("ses_1"),
            agent_id: AgentId::new("agt_1"),
            member_id: MemberId::new("usr_1"),
            token_hash: KeyHash::of("x"),
            created_at: at(0),
            last_seen_at: at(0),
        };
        assert!(!s.expired(at(12 * 60 - 1)));
        assert!(s.expired(at(12 * 60)));
        assert!(!s.needs_touch(at(0)));
        assert!(s.needs_touch(at(1)));
    }

    #[test]
    fn tokens_are_checked_for_shape_and_their_csrf_token_is_derived() {
        assert!(PresentedSession::parse("short").is_none());
        assert!(PresentedSession::parse(&"a!".repeat(20)).is_none());
        let token = "A".repeat(SESSION_TOKEN_LEN);
        let presented = PresentedSession::parse(&token).unwrap();
        assert!(presented.csrf_matches(&csrf_token_of(&token)));
        assert!(!presented.csrf_matches(&csrf_token_of(&"B".repeat(SESSION_TOKEN_LEN))));
        assert!(!presented.csrf_matches(""));
    }

    #[test]
    fn the_fifth_failure_locks_for_fifteen_minutes() {
        let history = SignInHistory { failures: 4, locked_at: None };
        assert!(SignInGuard::locks_after_failure(&history));
        assert!(!SignInGuard::locks_after_failure(&SignInHistory { failures: 3, locked_at: None }));
        let locked = SignInHistory { failures: 0, locked_at: Some(at(0)) };
        assert_eq!(SignInGuard::locked_for(&locked, at(5)), Some(Duration::from_secs(600)));
        assert_eq!(SignInGuard::locked_for(&locked, at(15)), None);
        assert_eq!(SignInGuard::locked_for(&SignInHistory::default(), at(0)), None);
    }
}
