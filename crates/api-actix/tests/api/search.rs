//! `GET /v1/products/search` through the real app on both backends, with the built-in static
//! embedder: matching by meaning, ordering, bounds, drafts, tenants, freshness after imports.

use std::sync::Arc;

use crate::common::{Reply, TestApp};
use serde_json::{Value, json};

/// Percent-encodes a query value (spaces and every non-alphanumeric byte).
fn encode(q: &str) -> String {
    q.bytes().map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
}

async fn search(app: &TestApp, key: &str, q: &str, limit: Option<u32>) -> Reply {
    let limit = limit.map(|l| format!("&limit={l}")).unwrap_or_default();
    app.get(&format!("/v1/products/search?q={}{limit}", encode(q)), key).await
}

fn ids(r: &Reply) -> Vec<String> {
    r.data().as_array().unwrap_or_else(|| panic!("not a list: {}", r.body)).iter().map(|p| p["_id"].as_str().unwrap().to_string()).collect()
}

fn scores(r: &Reply) -> Vec<f64> {
    r.data().as_array().unwrap().iter().map(|p| p["score"].as_f64().unwrap()).collect()
}

const DRAFTS: [&str; 4] = ["prd_matcha_kit", "prd_solar_lantern", "prd_hand_balm", "prd_waxed_overshirt"];
const ACTIVE_DEMO_PRODUCTS: usize = 36;

async fn finds_products_by_meaning_not_by_shared_words(app: TestApp) {
    app.import_demo_catalog(&app.a).await;
    // The vacuum bottle's text never says "coffee": it keeps "drinks steaming hot". The static
    // table ranks it on the first page (10th, behind the coffee gear; the full model ranks it
    // 2nd): a bag of weighted tokens weighs "coffee" more than "keep … hot".
    let r = search(&app, &app.a.publishable, "something to keep my coffee hot", None).await;
    r.assert_status(200);
    assert!(ids(&r).contains(&"prd_thermos_500".to_string()), "first page: {}", r.body);
    let r = search(&app, &app.a.publishable, "my feet hurt after long walks in the mountains", Some(3)).await;
    assert!(ids(&r).contains(&"prd_merino_socks".to_string()), "top 3: {}", r.body);
    let r = search(&app, &app.a.publishable, "I can't sleep on planes", Some(3)).await;
    assert!(ids(&r).iter().any(|id| id == "prd_neck_pillow" || id == "prd_silk_sleep_mask"), "top 3: {}", r.body);
}

async fn results_carry_the_item_fields_ordered_by_score(app: TestApp) {
    app.import_demo_catalog(&app.a).await;
    let r = search(&app, &app.a.publishable, "a present for someone who loves tea", None).await;
    r.assert_status(200);
    assert_eq!(ids(&r).len(), 10, "limit defaults to 10");
    let s = scores(&r);
    assert!(s.windows(2).all(|w| w[0] >= w[1]), "best first: {s:?}");
    assert!(s.iter().all(|x| (-1.0..=1.0).contains(x)), "cosine similarities: {s:?}");
    let first = &r.data()[0];
    let mut keys: Vec<&str> = first.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["_id", "base_price", "currency", "kind", "score", "title"]);

    let all = search(&app, &app.a.secret, "a present for someone who loves tea", Some(50)).await;
    all.assert_status(200);
    assert_eq!(ids(&all).len(), ACTIVE_DEMO_PRODUCTS, "secret keys search too; every active product at most once");
    assert_eq!(ids(&all)[..10], ids(&r)[..], "a larger limit extends the same ranking");
    assert_eq!(ids(&search(&app, &app.a.publishable, "tea", Some(1)).await).len(), 1);
}

async fn drafts_are_never_returned(app: TestApp) {
    app.import_demo_catalog(&app.a).await;
    // Worded after the drafts themselves; every active product is returned, no draft.
    for q in ["ceremonial matcha whisk and bowl", "collapsible solar lantern", "waxed cotton overshirt"] {
        let found = ids(&search(&app, &app.a.publishable, q, Some(50)).await);
        assert_eq!(found.len(), ACTIVE_DEMO_PRODUCTS, "{q}");
        assert!(found.iter().all(|id| !DRAFTS.contains(&id.as_str())), "{q}: {found:?}");
    }
}

async fn bad_queries_get_400_naming_the_parameter(app: TestApp) {
    app.import_demo_catalog(&app.a).await;
    let key = &app.a.publishable;
    let cases = [
        ("/v1/products/search".to_string(), vec!["q"]),
        ("/v1/products/search?q=".to_string(), vec!["q"]),
        ("/v1/products/search?q=%20%20".to_string(), vec!["q"]),
        (format!("/v1/products/search?q={}", "a".repeat(501)), vec!["q"]),
        ("/v1/products/search?q=tea&limit=0".to_string(), vec!["limit"]),
        ("/v1/products/search?q=tea&limit=51".to_string(), vec!["limit"]),
        ("/v1/products/search?q=tea&limit=ten".to_string(), vec!["limit"]),
        ("/v1/products/search?limit=-1".to_string(), vec!["q", "limit"]),
    ];
    for (path, fields) in cases {
        let r = app.get(&path, key).await;
        r.assert_error(400, "VALIDATION_ERROR");
        let named: Vec<&str> = r.body["error"]["details"].as_array().unwrap().iter().map(|d| d["field"].as_str().unwrap()).collect();
        assert_eq!(named, fields, "{path}");
    }
    // 500 characters is the bound, counted in characters, not bytes.
    search(&app, key, &"é".repeat(500), None).await.assert_status(200);
    search(&app, key, &"kettle ".repeat(71), Some(50)).await.assert_status(200);
    app.get("/v1/products/search?q=tea", "pk_not_a_key").await.assert_error(401, "UNAUTHORIZED");
}

async fn tenants_never_find_each_others_products(app: TestApp) {
    app.import_demo_catalog(&app.a).await;
    assert!(ids(&search(&app, &app.b.publishable, "something to keep my coffee hot", Some(50)).await).is_empty(), "B has no catalog");
    // B holds a product with one of A's ids, and a bottle of its own.
    app.import_products(
        &app.b,
        vec![
            json!({"_id": "prd_thermos_500", "kind": "product", "title": "Garden hose reel", "currency": "EUR", "base_price": 30}),
            json!({"_id": "b_flask", "kind": "product", "title": "Insulated flask for hot drinks", "currency": "EUR", "base_price": 20}),
        ],
    )
    .await;
    let theirs = search(&app, &app.b.publishable, "something to keep my coffee hot", Some(50)).await;
    assert_eq!(ids(&theirs).len(), 2);
    assert!(theirs.data().as_array().unwrap().iter().all(|p| p["currency"] == "EUR"), "only B's products: {}", theirs.body);
    assert_eq!(theirs.data()[0]["_id"], "b_flask");
    let mine = search(&app, &app.a.publishable, "garden hose reel", Some(50)).await;
    assert!(mine.data().as_array().unwrap().iter().all(|p| p["currency"] == "USD"), "only A's products: {}", mine.body);
}

async fn an_import_is_searchable_at_once(app: TestApp) {
    app.import_demo_catalog(&app.a).await;
    let q = "something to help my dog sleep through thunderstorms";
    let product = |status: &str| {
        json!({"_id": "prd_dog_bed", "kind": "product", "title": "Calming Donut Dog Bed", "currency": "USD", "base_price": 59,
            "description": "A deep, plush bolster bed that helps anxious pets feel safe and settle down.", "category_tags": ["Pets"], "status": status})
    };
    app.import_products(&app.a, vec![product("active")]).await;
    assert_eq!(ids(&search(&app, &app.a.publishable, q, Some(1)).await), ["prd_dog_bed"], "found right after the import");
    app.import_products(&app.a, vec![product("draft")]).await;
    assert!(!ids(&search(&app, &app.a.publishable, q, Some(50)).await).contains(&"prd_dog_bed".to_string()), "a draft is gone at once");
}

/// The ids of every active product the product list returns for `filter` (a query string).
async fn listed(app: &TestApp, filter: &str) -> Vec<String> {
    let r = app.get(&format!("/v1/products?limit=100&{filter}"), &app.a.secret).await;
    r.assert_status(200);
    ids(&r)
}

async fn filters_answer_the_exact_top_among_matching_products(app: TestApp) {
    app.import_demo_catalog(&app.a).await;
    let q = "a warm gift for a cold weekend outside";
    let everything = ids(&search(&app, &app.a.publishable, q, Some(50)).await);
    for filter in ["tag=Outdoor", "kind=service", "tag=Outdoor&kind=service", "tag=Coffee%20%26%20Tea&kind=product"] {
        let matching = listed(&app, filter).await;
        assert!(!matching.is_empty(), "{filter}: the demo catalog has such products");
        // The unfiltered ranking, restricted to the matching products: the filter's exact answer.
        let expected: Vec<String> = everything.iter().filter(|id| matching.contains(id)).cloned().collect();
        assert_eq!(expected.len(), matching.len(), "{filter}: every matching product is searchable");
        let all = app.get(&format!("/v1/products/search?q={}&limit=50&{filter}", encode(q)), &app.a.publishable).await;
        all.assert_status(200);
        assert_eq!(ids(&all), expected, "{filter}");
        // A small limit is the head of the same answer, never fewer than exist.
        let head = app.get(&format!("/v1/products/search?q={}&limit=2&{filter}", encode(q)), &app.a.publishable).await;
        assert_eq!(ids(&head), expected[..expected.len().min(2)], "{filter}");
    }
    let unknown = app.get(&format!("/v1/products/search?q={}&tag=outdoor", encode(q)), &app.a.publishable).await;
    unknown.assert_status(200);
    assert!(ids(&unknown).is_empty(), "tags match exactly: {}", unknown.body);
    let theirs = app.get(&format!("/v1/products/search?q={}&tag=Outdoor", encode(q)), &app.b.publishable).await;
    assert!(ids(&theirs).is_empty(), "another tenant's tag finds nothing: {}", theirs.body);
    let bad = app.get("/v1/products/search?q=tea&kind=Service&limit=0", &app.a.publishable).await;
    bad.assert_error(400, "VALIDATION_ERROR");
    let named: Vec<&str> = bad.body["error"]["details"].as_array().unwrap().iter().map(|d| d["field"].as_str().unwrap()).collect();
    assert_eq!(named, ["limit", "kind"]);
}

async fn filters_follow_the_catalog_as_tags_change(app: TestApp) {
    let lantern = |tags: Value| {
        json!({"_id": "prd_lantern", "kind": "product", "title": "Rechargeable camping lantern", "currency": "USD", "base_price": 35,
            "category_tags": tags})
    };
    app.import_products(&app.a, vec![lantern(json!(["Outdoor"]))]).await;
    let find = |tag: &'static str| {
        let app = &app;
        async move { ids(&app.get(&format!("/v1/products/search?q=lantern&tag={tag}"), &app.a.publishable).await) }
    };
    assert_eq!(find("Outdoor").await, ["prd_lantern"]);
    app.import_products(&app.a, vec![lantern(json!(["Home", "Sale"]))]).await;
    assert!(find("Outdoor").await.is_empty(), "the old tag no longer finds it");
    assert_eq!(find("Sale").await, ["prd_lantern"]);
}

async fn browsers_may_search_with_a_publishable_key(app: TestApp) {
    app.import_demo_catalog(&app.a).await;
    let req = actix_web::test::TestRequest::get()
        .uri("/v1/products/search?q=tea")
        .insert_header(("X-API-Key", app.a.publishable.as_str()))
        .insert_header(("Origin", "https://shop.example.com"));
    let r = app.call(req).await;
    r.assert_status(200);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
}

http_tests!(
    finds_products_by_meaning_not_by_shared_words,
    results_carry_the_item_fields_ordered_by_score,
    drafts_are_never_returned,
    bad_queries_get_400_naming_the_parameter,
    tenants_never_find_each_others_products,
    an_import_is_searchable_at_once,
    browsers_may_search_with_a_publishable_key,
    filters_answer_the_exact_top_among_matching_products,
    filters_follow_the_catalog_as_tags_change,
);

/// A remote embedding service that fails: search answers 502 in the API's error shape, and an
/// import that cannot be embedded writes nothing.
#[actix_web::test]
async fn a_failing_embedding_service_is_a_502_and_blocks_imports() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let upstream = MockServer::start().await;
    Mock::given(method("POST")).and(path("/v1/embeddings")).respond_with(ResponseTemplate::new(503)).mount(&upstream).await;
    let config = parley_adapters_embeddings::OpenAiConfig {
        base_url: format!("{}/v1", upstream.uri()),
        model: "test-model".into(),
        dimensions: Some(8),
        max_retries: 0,
        ..Default::default()
    };
    let embedder = parley_adapters_embeddings::OpenAiEmbedder::connect(config).await.unwrap();
    let app = TestApp::with_embedder("sqlite", Arc::new(embedder)).await;

    let r = search(&app, &app.a.publishable, "tea", None).await;
    r.assert_error(502, "UPSTREAM_ERROR");
    assert!(!r.body.to_string().contains("503"), "no internals leak: {}", r.body);

    let rows = vec![(
        1,
        serde_json::from_value(json!({"_id": "x", "kind": "product", "title": "T", "currency": "USD", "base_price": 1}))
            .map_err(|e: serde_json::Error| e.to_string()),
    )];
    let validated = app.state.catalog.validate_import(&app.a.agent, rows).await.ok().unwrap();
    assert!(app.state.catalog.import(&app.a.agent, validated, Arc::new(|_, _| {})).await.is_err());
    let listed = app.get("/v1/products", &app.a.publishable).await;
    assert_eq!(listed.body["pagination"]["total"], Value::from(0), "nothing half-written");
}
