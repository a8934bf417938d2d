use super::*;
use crate::ports::{EmbedError, MockEmbedder, MockProductRepository, MockProductVectorRepository, MockVectorIndex};
use mockall::predicate::*;

const DIMS: usize = 3;

fn agent() -> AgentId {
    AgentId::new("agt_a")
}

fn product(id: &str) -> Product {
    let record = serde_json::from_value(serde_json::json!({
        "_id": id, "kind": "product", "title": format!("Title {id}"), "description": "Words.",
        "category_tags": ["Home"], "currency": "USD", "base_price": 1
    }))
    .unwrap();
    Product::from_record(&agent(), record, chrono::Utc::now(), None).unwrap()
}

/// An embedder that maps every text to the same unit vector, counting calls.
fn embedder() -> MockEmbedder {
    let mut e = MockEmbedder::new();
    e.expect_identity().return_const("test-embedder@1".to_string());
    e.expect_dimensions().return_const(DIMS);
    e.expect_embed().returning(|texts| Ok(texts.iter().map(|_| vec![1.0, 0.0, 0.0]).collect()));
    e
}

struct Parts {
    products: MockProductRepository,
    vectors: MockProductVectorRepository,
    embedder: MockEmbedder,
    index: MockVectorIndex,
}

impl Parts {
    fn new() -> Self {
        Self {
            products: MockProductRepository::new(),
            vectors: MockProductVectorRepository::new(),
            embedder: embedder(),
            index: MockVectorIndex::new(),
        }
    }

    fn service(self) -> SearchService {
        SearchService::new(Arc::new(self.products), Arc::new(self.vectors), Arc::new(self.embedder), Arc::new(self.index))
    }
}

fn change(id: &str, revision: u64, searchable: bool) -> VectorChange {
    let facets = || Searchable { vector: vec![0.0, 1.0, 0.0], kind: ProductKind::Product, category_tags: vec!["Home".into()] };
    VectorChange { product: ProductId::lookup(id), revision, searchable: searchable.then(facets) }
}

fn request<'a>(q: Option<&'a str>, limit: Option<&'a str>) -> SearchRequest<'a> {
    SearchRequest { q, limit, ..SearchRequest::default() }
}

#[tokio::test]
async fn bad_queries_are_refused_before_anything_is_embedded() {
    let mut parts = Parts::new();
    parts.embedder = MockEmbedder::new();
    parts.embedder.expect_embed().never();
    let err = parts.service().search(&agent(), request(Some(" "), Some("51"))).await.unwrap_err();
    let DomainError::Validation(fields) = err else { panic!("{err:?}") };
    assert_eq!(fields.iter().map(|f| f.field.as_str()).collect::<Vec<_>>(), ["q", "limit"]);
}

#[tokio::test]
async fn results_follow_the_index_order_skip_inactive_products_and_stop_at_the_limit() {
    let mut parts = Parts::new();
    let unfiltered = |f: &ProductFilter| f == &ProductFilter::default();
    parts
        .index
        .expect_top_k()
        .withf(move |a, q, k, f| a == &agent() && q == [1.0, 0.0, 0.0] && *k == 2 + CANDIDATE_SLACK && unfiltered(f))
        .returning(|_, _, _, _| {
            vec![
                (ProductId::lookup("gone"), 0.9),
                (ProductId::lookup("b"), 0.8),
                (ProductId::lookup("a"), 0.7),
                (ProductId::lookup("c"), 0.6),
            ]
        });
    // "gone" was turned into a draft by another process and is not yet out of this index.
    parts.products.expect_find_active().returning(|_, _| Ok(vec![product("a"), product("c"), product("b")]));
    let hits = parts.service().search(&agent(), request(Some("warm socks"), Some("2"))).await.unwrap();
    let got: Vec<(&str, f32)> = hits.iter().map(|h| (h.product.id.as_str(), h.score)).collect();
    assert_eq!(got, [("b", 0.8), ("a", 0.7)]);
}

#[tokio::test]
async fn the_filter_goes_to_the_index_which_answers_only_matching_products() {
    let mut parts = Parts::new();
    let wanted = ProductFilter { tag: Some("Home".into()), kind: Some(ProductKind::Service) };
    parts.index.expect_top_k().withf(move |_, _, _, f| f == &wanted).times(1).returning(|_, _, _, _| vec![(ProductId::lookup("a"), 0.5)]);
    parts.products.expect_find_active().returning(|_, _| Ok(vec![product("a")]));
    let filtered = SearchRequest { q: Some("sofa"), tag: Some("Home"), kind: Some("service"), ..SearchRequest::default() };
    let hits = parts.service().search(&agent(), filtered).await.unwrap();
    assert_eq!(hits.len(), 1);
}

#[tokio::test]
async fn a_bad_kind_is_refused_before_anything_is_embedded() {
    let mut parts = Parts::new();
    parts.embedder = MockEmbedder::new();
    parts.embedder.expect_embed().never();
    let err = parts.service().search(&agent(), SearchRequest { q: Some("sofa"), kind: Some("goods"), ..SearchRequest::default() }).await;
    let Err(DomainError::Validation(fields)) = err else { panic!("{err:?}") };
    assert_eq!(fields[0].field, "kind");
}

#[tokio::test]
async fn an_empty_index_answers_without_reading_storage() {
    let mut parts = Parts::new();
    parts.index.expect_top_k().returning(|_, _, _, _| Vec::new());
    parts.products.expect_find_active().never();
    assert!(parts.service().search(&agent(), request(Some("anything"), None)).await.unwrap().is_empty());
}

#[tokio::test]
async fn an_unavailable_embedder_is_an_upstream_failure() {
    let mut parts = Parts::new();
    parts.embedder = MockEmbedder::new();
    parts.embedder.expect_embed().returning(|_| Err(EmbedError::Unavailable("connection refused".into())));
    let err = parts.service().search(&agent(), request(Some("tea"), None)).await.unwrap_err();
    assert!(matches!(&err, DomainError::EmbedderFailed(m) if m.to_string().contains("connection refused")), "{err:?}");
}

#[tokio::test]
async fn vectors_of_the_wrong_size_are_refused() {
    let mut parts = Parts::new();
    parts.embedder = MockEmbedder::new();
    parts.embedder.expect_dimensions().return_const(DIMS);
    parts.embedder.expect_embed().returning(|texts| Ok(texts.iter().map(|_| vec![1.0]).collect()));
    assert!(matches!(parts.service().search(&agent(), request(Some("tea"), None)).await, Err(DomainError::Internal(_))));
}

#[tokio::test]
async fn products_are_embedded_in_batches_with_progress() {
    let mut parts = Parts::new();
    parts.embedder = MockEmbedder::new();
    parts.embedder.expect_identity().return_const("test-embedder@1".to_string());
    parts.embedder.expect_dimensions().return_const(DIMS);
    parts.embedder.expect_embed().times(2).returning(|texts| {
        assert!(texts.len() <= EMBED_BATCH);
        assert!(texts.iter().all(|t| t.starts_with("Title p") && t.contains("Home") && t.ends_with("Words.")), "{texts:?}");
        Ok(texts.iter().map(|_| vec![0.0, 0.0, 1.0]).collect())
    });
    let products: Vec<Product> = (0..EMBED_BATCH + 1).map(|i| product(&format!("p{i}"))).collect();
    let seen = std::sync::Mutex::new(Vec::new());
    let vectors = parts.service().embed_products(&products, &|n| seen.lock().unwrap().push(n)).await.unwrap();
    assert_eq!(vectors.embedder, "test-embedder@1");
    assert_eq!(vectors.vectors.len(), products.len());
    assert_eq!(*seen.lock().unwrap(), [EMBED_BATCH, EMBED_BATCH + 1]);
}

#[tokio::test]
async fn refresh_applies_changes_once_and_then_only_newer_ones() {
    let mut parts = Parts::new();
    let mut calls = 0;
    parts.vectors.expect_revisions().times(3).returning(move || {
        calls += 1;
        Ok(vec![(agent(), if calls < 3 { 3 } else { 4 })])
    });
    let mut seq = mockall::Sequence::new();
    parts
        .vectors
        .expect_changes()
        .with(eq(agent()), eq("test-embedder@1"), eq(ChangeCursor::default()), eq(REFRESH_PAGE))
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _, _, _| Ok(vec![change("a", 2, true), change("b", 3, false)]));
    parts
        .vectors
        .expect_changes()
        .with(eq(agent()), always(), eq(ChangeCursor { revision: 3, product: None }), always())
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _, _, _| Ok(vec![change("c", 4, true)]));
    parts.index.expect_upsert().withf(|_, items| items.len() == 1 && items[0].0.as_str() == "a").times(1).return_const(());
    parts.index.expect_upsert().withf(|_, items| items.len() == 1 && items[0].0.as_str() == "c").times(1).return_const(());
    parts.index.expect_remove().withf(|_, ids| ids == [ProductId::lookup("b")]).times(1).return_const(());
    parts.index.expect_remove().withf(|_, ids| ids.is_empty()).return_const(());
    let service = parts.service();

    assert_eq!(service.refresh().await.unwrap(), RefreshReport { agents: 1, upserted: 1, removed: 1 });
    assert_eq!(service.refresh().await.unwrap(), RefreshReport::default(), "the revision did not move: no reads");
    assert_eq!(service.refresh().await.unwrap(), RefreshReport { agents: 1, upserted: 1, removed: 0 });
}

#[tokio::test]
async fn refresh_pages_through_large_changes_by_revision_then_id() {
    let mut parts = Parts::new();
    parts.vectors.expect_revisions().returning(|| Ok(vec![(agent(), 7)]));
    let full: Vec<VectorChange> = (0..REFRESH_PAGE).map(|i| change(&format!("p{i:05}"), 7, true)).collect();
    let last = full.last().unwrap().product.clone();
    parts.vectors.expect_changes().withf(|_, _, c, _| c == &ChangeCursor::default()).times(1).return_once(move |_, _, _, _| Ok(full));
    parts
        .vectors
        .expect_changes()
        .withf(move |_, _, c, _| c == &ChangeCursor { revision: 7, product: Some(last.clone()) })
        .times(1)
        .returning(|_, _, _, _| Ok(vec![change("z", 7, true)]));
    parts.index.expect_upsert().return_const(());
    parts.index.expect_remove().return_const(());
    let report = parts.service().refresh().await.unwrap();
    assert_eq!(report.upserted, REFRESH_PAGE as usize + 1);
}

#[tokio::test]
async fn reindex_embeds_page_by_page_and_stores_each_page() {
    let mut parts = Parts::new();
    parts.vectors.expect_revisions().returning(|| Ok(vec![(agent(), 1)]));
    let mut seq = mockall::Sequence::new();
    parts
        .vectors
        .expect_needing_vectors()
        .withf(|_, e, after, limit, all| e == "test-embedder@1" && after.is_none() && *limit == REINDEX_PAGE && !*all)
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _, _, _, _| Ok(vec![product("a"), product("b")]));
    parts
        .vectors
        .expect_needing_vectors()
        .withf(|_, _, after, _, _| after.map(ProductId::as_str) == Some("b"))
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _, _, _, _| Ok(Vec::new()));
    parts
        .vectors
        .expect_store_vectors()
        .withf(|a, e, items| a == &agent() && e == "test-embedder@1" && items.iter().map(|(id, _)| id.as_str()).eq(["a", "b"]))
        .times(1)
        .returning(|_, _, _| Ok(()));
    let seen = std::sync::Mutex::new(Vec::new());
    assert_eq!(parts.service().reindex(None, false, &|n| seen.lock().unwrap().push(n)).await.unwrap(), 2);
    assert_eq!(*seen.lock().unwrap(), [2]);
}
