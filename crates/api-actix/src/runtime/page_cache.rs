//! List pages kept as rendered while the store has not changed.
//!
//! The inbox reloads its list whenever an event arrives, in every member's page at once, and
//! a list of 25 conversations costs a dozen `/healthz` requests to read and render. So a page
//! is kept, by everything that makes it what it is (the agent, the member asking, the path and
//! the query as sent), beside the store's version ([`ChangeProbe`]) read before the page was:
//! while the version reads the same, nothing was committed since (by this process or another
//! one), and the kept bytes are what reading again would give. Any commit (any agent's, any
//! table's) makes every kept page stale; staleness is only ever judged by that version, never
//! by time. A backend without a version (PostgreSQL, memory) keeps nothing.
//!
//! The HTTP side (`http::json::kept_page`) renders and answers; this side only keeps.
//!
//! Only what is rendered from stored data alone may be kept: a page that showed the current time
//! or anything outside the store would need its own key. See docs/performance.md ("Kept list
//! pages") for the checklist.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use actix_web::web::Bytes;
use parley_domain::ports::ChangeProbe;

/// Pages kept at most: past it, stale ones are dropped, then all (a few MB at most).
pub const MAX_PAGES: usize = 256;

/// Rendered pages by [`PageKey`], with the version they were read at.
pub struct PageCache {
    probe: Arc<dyn ChangeProbe>,
    pages: Mutex<HashMap<String, (u64, Bytes)>>,
}

/// What makes a page what it is: the caller's agent and member (a "mine" filter names the
/// member without saying so in the query) and the request's path and query, as sent.
#[derive(Debug, PartialEq, Eq)]
pub struct PageKey(String);

impl PageKey {
    pub fn new(agent: &str, member: Option<&str>, path: &str, query: &str) -> Self {
        Self(format!("{agent}\u{0}{}\u{0}{path}?{query}", member.unwrap_or_default()))
    }
}

impl PageCache {
    pub fn new(probe: Arc<dyn ChangeProbe>) -> Self {
        Self { probe, pages: Mutex::new(HashMap::new()) }
    }

    /// The store's version now: `None` when the backend has none or the probe failed, and
    /// then nothing may be kept.
    pub async fn version(&self) -> Option<u64> {
        self.probe.version().await.ok().flatten()
    }

    /// The page kept for `key` at `version`, if any.
    pub fn kept(&self, key: &PageKey, version: u64) -> Option<Bytes> {
        let pages = self.pages.lock().unwrap_or_else(PoisonError::into_inner);
        pages.get(&key.0).filter(|(kept_at, _)| *kept_at == version).map(|(_, body)| body.clone())
    }

    /// Pages kept now.
    pub fn len(&self) -> usize {
        self.pages.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Whether no page is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps `body` for `key`, read at `version`.
    pub fn keep(&self, key: PageKey, version: u64, body: Bytes) {
        let mut pages = self.pages.lock().unwrap_or_else(PoisonError::into_inner);
        if pages.len() >= MAX_PAGES && !pages.contains_key(&key.0) {
            pages.retain(|_, (kept_at, _)| *kept_at == version);
            if pages.len() >= MAX_PAGES {
                pages.clear();
            }
        }
        pages.insert(key.0, (version, body));
    }
}
