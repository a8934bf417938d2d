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
//! Only what is rendered from stored data alone may be kept: a page that showed the current time
//! or anything outside the store would need its own key. See docs/performance.md ("Kept list
//! pages") for the checklist.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use actix_web::HttpResponse;
use actix_web::http::header::ContentType;
use actix_web::web::Bytes;
use parley_domain::ports::ChangeProbe;

use crate::http::error::ApiResult;

/// Pages kept at most: past it, stale ones are dropped, then all (a few MB at most).
const MAX_PAGES: usize = 256;

/// Rendered pages by [`PageKey`], with the version they were read at.
pub struct PageCache {
    probe: Arc<dyn ChangeProbe>,
    pages: Mutex<HashMap<String, (u64, Bytes)>>,
}

/// What makes a page what it is: the caller's agent and member (a "mine" filter names the
/// member without saying so in the query) and the request's path and query, as sent.
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

    /// The page `key` names: kept bytes while the store has not changed since they were read,
    /// else `render`ed, and kept when the store has a version. A probe that fails keeps
    /// nothing and reads as if there were no cache.
    pub async fn page<F, Fut>(&self, key: PageKey, render: F) -> ApiResult<HttpResponse>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = ApiResult<String>>,
    {
        // Read before the page is: a commit in between leaves the kept page newer than its
        // version says, which only costs a read, never shows an old page.
        let version = self.probe.version().await.ok().flatten();
        if let Some(version) = version
            && let Some(body) = self.kept(&key, version)
        {
            return Ok(json(body));
        }
        let body = Bytes::from(render().await?);
        if let Some(version) = version {
            self.keep(key, version, body.clone());
        }
        Ok(json(body))
    }

    fn kept(&self, key: &PageKey, version: u64) -> Option<Bytes> {
        let pages = self.pages.lock().unwrap_or_else(PoisonError::into_inner);
        pages.get(&key.0).filter(|(kept_at, _)| *kept_at == version).map(|(_, body)| body.clone())
    }

    fn keep(&self, key: PageKey, version: u64, body: Bytes) {
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

fn json(body: Bytes) -> HttpResponse {
    HttpResponse::Ok().content_type(ContentType::json()).body(body)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use async_trait::async_trait;
    use parley_domain::ports::StoreResult;

    use super::*;

    /// A store whose version the test moves, standing for commits.
    struct Moving(AtomicU64, bool);

    #[async_trait]
    impl ChangeProbe for Moving {
        async fn version(&self) -> StoreResult<Option<u64>> {
            Ok(self.1.then(|| self.0.load(Ordering::SeqCst)))
        }
    }

    async fn body(cache: &PageCache, key: &str, text: &str) -> String {
        let response = cache.page(PageKey::new("agt_1", None, "/v1/activities", key), || async { Ok(text.to_string()) }).await.unwrap();
        String::from_utf8(actix_web::body::to_bytes(response.into_body()).await.unwrap().to_vec()).unwrap()
    }

    #[actix_web::test]
    async fn a_page_is_read_again_once_the_store_moves_and_never_kept_without_a_version() {
        let probe = Arc::new(Moving(AtomicU64::new(1), true));
        let cache = PageCache::new(probe.clone());
        assert_eq!(body(&cache, "limit=1", "first").await, "first");
        assert_eq!(body(&cache, "limit=1", "second").await, "first", "nothing committed: the kept page");
        assert_eq!(body(&cache, "limit=2", "other").await, "other", "another query is another page");
        probe.0.store(2, Ordering::SeqCst);
        assert_eq!(body(&cache, "limit=1", "third").await, "third", "a commit: read again");

        let cache = PageCache::new(Arc::new(Moving(AtomicU64::new(1), false)));
        assert_eq!(body(&cache, "limit=1", "first").await, "first");
        assert_eq!(body(&cache, "limit=1", "second").await, "second", "no version: nothing kept");
    }

    #[test]
    fn keys_tell_agents_and_members_apart() {
        let [a, b, c] = [
            PageKey::new("agt_1", None, "/v1/activities", "x=1"),
            PageKey::new("agt_2", None, "/v1/activities", "x=1"),
            PageKey::new("agt_1", Some("usr_1"), "/v1/activities", "x=1"),
        ];
        assert!(a.0 != b.0 && a.0 != c.0 && b.0 != c.0);
    }

    #[actix_web::test]
    async fn a_full_cache_drops_stale_pages_first() {
        let probe = Arc::new(Moving(AtomicU64::new(1), true));
        let cache = PageCache::new(probe.clone());
        for i in 0..MAX_PAGES {
            body(&cache, &format!("offset={i}"), "old").await;
        }
        probe.0.store(2, Ordering::SeqCst);
        body(&cache, "offset=new", "new").await;
        assert_eq!(cache.pages.lock().unwrap().len(), 1, "the stale pages made room");
    }
}
