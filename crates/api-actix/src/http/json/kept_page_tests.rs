//! Kept list pages answered through `kept_page`: read once while the store stands still, read
//! again once it moves, never kept without a version.

use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use parley_domain::ports::StoreResult;

use std::sync::Arc;

use parley_domain::ports::ChangeProbe;

use crate::runtime::page_cache::{MAX_PAGES, PageCache, PageKey};

/// A store whose version the test moves, standing for commits.
struct Moving(AtomicU64, bool);

#[async_trait]
impl ChangeProbe for Moving {
    async fn version(&self) -> StoreResult<Option<u64>> {
        Ok(self.1.then(|| self.0.load(Ordering::SeqCst)))
    }
}

async fn body(cache: &PageCache, key: &str, text: &str) -> String {
    let response =
        super::kept_page(cache, PageKey::new("agt_1", None, "/v1/activities", key), || async { Ok(text.to_string()) }).await.unwrap();
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
    assert!(a != b && a != c && b != c);
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
    assert_eq!(cache.len(), 1, "the stale pages made room");
}
