//! The catalog over HTTP (products, categories), key levels and CORS, on both backends.

use crate::common::{Reply, TestApp};
use actix_web::http::Method;
use actix_web::test::TestRequest;
use serde_json::{Value, json};

const ORIGIN: &str = "https://shop.example";

/// A minimal active product created at `created_at`.
fn product(id: &str, created_at: &str) -> Value {
    json!({"_id": id, "kind": "product", "title": format!("Title {id}"), "currency": "USD", "base_price": 10, "created_at": created_at})
}

fn with(mut record: Value, extra: Value) -> Value {
    for (k, v) in extra.as_object().unwrap() {
        record[k] = v.clone();
    }
    record
}

fn ids(r: &Reply) -> Vec<String> {
    r.data()
        .as_array()
        .unwrap_or_else(|| panic!("data is not an array: {}", r.body))
        .iter()
        .map(|p| p["_id"].as_str().unwrap().to_string())
        .collect()
}

fn detail_fields(r: &Reply) -> Vec<String> {
    r.body["error"]["details"].as_array().map(|d| d.iter().map(|x| x["field"].as_str().unwrap().to_string()).collect()).unwrap_or_default()
}

/// `n` active products, `p00`, `p01`, … each a minute newer than the one before.
fn numbered(n: usize) -> Vec<Value> {
    (0..n).map(|i| product(&format!("p{i:02}"), &format!("2026-01-01T{:02}:{:02}:00.000Z", i / 60, i % 60))).collect()
}

// ---- Product list ----

async fn list_shows_only_active_products_newest_first_with_ties_broken_by_id_desc(app: TestApp) {
    app.import_products(
        &app.a,
        vec![
            product("p1", "2026-01-01T10:00:00.000Z"),
            product("p2", "2026-01-03T10:00:00.000Z"),
            with(product("p3", "2026-01-04T10:00:00.000Z"), json!({"status": "draft"})),
            product("p4", "2026-01-02T10:00:00.000Z"),
            product("p5", "2026-01-03T10:00:00.000Z"),
            product("p0", "2026-01-03T10:00:00.000Z"),
        ],
    )
    .await;
    let r = app.get("/v1/products", &app.a.publishable).await;
    r.assert_status(200);
    assert_eq!(ids(&r), ["p5", "p2", "p0", "p4", "p1"], "created_at desc, then _id desc; the draft p3 is hidden");
    assert_eq!(r.body["pagination"], json!({"total": 5, "limit": 50, "offset": 0, "has_more": false}));
}

async fn list_pages_with_limit_and_offset_and_reports_has_more(app: TestApp) {
    app.import_products(&app.a, numbered(5)).await;
    let page = |q: &'static str| app.get(q, &app.a.publishable);

    let r = page("/v1/products?limit=2").await;
    assert_eq!(ids(&r), ["p04", "p03"]);
    assert_eq!(r.body["pagination"], json!({"total": 5, "limit": 2, "offset": 0, "has_more": true}));

    let r = page("/v1/products?limit=2&offset=2").await;
    assert_eq!(ids(&r), ["p02", "p01"]);
    assert_eq!(r.body["pagination"], json!({"total": 5, "limit": 2, "offset": 2, "has_more": true}));

    let r = page("/v1/products?limit=2&offset=4").await;
    assert_eq!(ids(&r), ["p00"]);
    assert_eq!(r.body["pagination"], json!({"total": 5, "limit": 2, "offset": 4, "has_more": false}));

    let r = page("/v1/products?offset=9").await;
    r.assert_status(200);
    assert_eq!(r.data(), &json!([]));
    assert_eq!(r.body["pagination"], json!({"total": 5, "limit": 50, "offset": 9, "has_more": false}));
}

async fn list_default_limit_is_50_and_limit_goes_up_to_100(app: TestApp) {
    app.import_products(&app.a, numbered(101)).await;
    let r = app.get("/v1/products", &app.a.publishable).await;
    assert_eq!(r.data().as_array().unwrap().len(), 50);
    assert_eq!(r.body["pagination"], json!({"total": 101, "limit": 50, "offset": 0, "has_more": true}));

    let r = app.get("/v1/products?limit=100", &app.a.publishable).await;
    assert_eq!(r.data().as_array().unwrap().len(), 100);
    assert_eq!(r.body["pagination"], json!({"total": 101, "limit": 100, "offset": 0, "has_more": true}));

    let r = app.get("/v1/products?limit=1", &app.a.publishable).await;
    assert_eq!(ids(&r), ["p100"]);
}

async fn list_rejects_out_of_range_limit_and_offset_without_clamping(app: TestApp) {
    app.import_products(&app.a, numbered(3)).await;
    for (query, field) in
        [("limit=0", "limit"), ("limit=101", "limit"), ("limit=-1", "limit"), ("limit=1000", "limit"), ("offset=-1", "offset")]
    {
        let r = app.get(&format!("/v1/products?{query}"), &app.a.publishable).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(detail_fields(&r), [field], "for {query}: {}", r.body);
    }
}

async fn list_rejects_limit_and_offset_that_are_not_integers(app: TestApp) {
    app.import_products(&app.a, numbered(3)).await;
    for (query, field) in
        [("limit=abc", "limit"), ("limit=2.5", "limit"), ("limit=1e1", "limit"), ("offset=x", "offset"), ("offset=1.5", "offset")]
    {
        let r = app.get(&format!("/v1/products?{query}"), &app.a.publishable).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(detail_fields(&r), [field], "for {query}: {}", r.body);
    }
}

async fn list_tag_filter_matches_a_category_tag_exactly_and_case_sensitively(app: TestApp) {
    app.import_products(
        &app.a,
        vec![
            with(product("upper", "2026-01-01T10:00:00.000Z"), json!({"category_tags": ["Shoes"]})),
            with(product("lower", "2026-01-02T10:00:00.000Z"), json!({"category_tags": ["shoes", "Sale"]})),
            with(product("longer", "2026-01-03T10:00:00.000Z"), json!({"category_tags": ["Shoes Sale"]})),
            with(product("both", "2026-01-04T10:00:00.000Z"), json!({"category_tags": ["Sale", "Shoes"]})),
            with(product("hidden", "2026-01-05T10:00:00.000Z"), json!({"category_tags": ["Shoes"], "status": "draft"})),
        ],
    )
    .await;
    let cases: [(&str, &[&str]); 5] =
        [("Shoes", &["both", "upper"]), ("shoes", &["lower"]), ("Shoes%20Sale", &["longer"]), ("Shoe", &[]), ("SHOES", &[])];
    for (tag, expected) in cases {
        let r = app.get(&format!("/v1/products?tag={tag}"), &app.a.publishable).await;
        r.assert_status(200);
        assert_eq!(ids(&r), expected, "tag={tag}");
        assert_eq!(r.body["pagination"]["total"], expected.len(), "tag={tag}: the total counts active matches only");
    }
}

async fn list_kind_filter_takes_product_or_service(app: TestApp) {
    app.import_products(
        &app.a,
        vec![
            product("thing", "2026-01-01T10:00:00.000Z"),
            with(product("repair", "2026-01-02T10:00:00.000Z"), json!({"kind": "service"})),
            with(product("lesson", "2026-01-03T10:00:00.000Z"), json!({"kind": "service"})),
            with(product("draft-svc", "2026-01-04T10:00:00.000Z"), json!({"kind": "service", "status": "draft"})),
        ],
    )
    .await;
    let r = app.get("/v1/products?kind=service", &app.a.publishable).await;
    assert_eq!(ids(&r), ["lesson", "repair"]);
    assert_eq!(r.body["pagination"]["total"], 2);
    let r = app.get("/v1/products?kind=product", &app.a.publishable).await;
    assert_eq!(ids(&r), ["thing"]);
    assert_eq!(r.body["pagination"]["total"], 1);
}

async fn list_kind_other_than_product_or_service_is_400(app: TestApp) {
    for kind in ["gadget", "Product", "SERVICE", "products", ""] {
        let r = app.get(&format!("/v1/products?kind={kind}"), &app.a.publishable).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(detail_fields(&r), ["kind"], "kind={kind:?}");
    }
}

async fn list_tag_and_kind_filters_apply_together(app: TestApp) {
    app.import_products(
        &app.a,
        vec![
            with(product("mug", "2026-01-01T10:00:00.000Z"), json!({"category_tags": ["Kitchen"]})),
            with(product("class", "2026-01-02T10:00:00.000Z"), json!({"kind": "service", "category_tags": ["Kitchen"]})),
            with(product("clean", "2026-01-03T10:00:00.000Z"), json!({"kind": "service", "category_tags": ["Home", "Kitchen"]})),
            with(product("garden", "2026-01-04T10:00:00.000Z"), json!({"kind": "service", "category_tags": ["Home"]})),
            with(product("gone", "2026-01-05T10:00:00.000Z"), json!({"kind": "service", "category_tags": ["Kitchen"], "status": "draft"})),
        ],
    )
    .await;
    let r = app.get("/v1/products?tag=Kitchen&kind=service", &app.a.publishable).await;
    assert_eq!(ids(&r), ["clean", "class"]);
    assert_eq!(r.body["pagination"], json!({"total": 2, "limit": 50, "offset": 0, "has_more": false}));
    let r = app.get("/v1/products?tag=Kitchen&kind=service&limit=1", &app.a.publishable).await;
    assert_eq!(ids(&r), ["clean"]);
    assert_eq!(r.body["pagination"], json!({"total": 2, "limit": 1, "offset": 0, "has_more": true}));
    let r = app.get("/v1/products?tag=Kitchen&kind=product", &app.a.publishable).await;
    assert_eq!(ids(&r), ["mug"]);
    assert_eq!(r.body["pagination"]["total"], 1);
}

// ---- Product serialization ----

fn full_record() -> Value {
    json!({
        "_id": "thermos-500",
        "kind": "product",
        "title": "Thermos 500 ml",
        "description": "Keeps coffee hot for 12 hours.",
        "media": [
            {"url": "https://cdn.example.com/thermos.jpg", "alt": "Front view", "type": "image", "position": 1},
            {"url": "https://cdn.example.com/thermos.mp4", "type": "video"}
        ],
        "category_tags": ["Kitchen", "Travel"],
        "currency": "USD",
        "base_price": 79.0,
        "compare_at_price": 99.5,
        "variants": [
            {"id": "red", "title": "Red", "price": 79, "compare_at_price": 89.99, "selected_options": [{"name": "Color", "value": "Red"}]},
            {"id": "blue-l", "title": "Blue / L", "price": 81.5,
             "selected_options": [{"name": "Color", "value": "Blue"}, {"name": "Size", "value": "L"}]}
        ],
        "status": "active",
        "created_at": "2026-11-21T12:00:00+02:00",
        "updated_at": "2026-11-22T08:30:15.123Z"
    })
}

fn full_product_json() -> Value {
    json!({
        "_id": "thermos-500",
        "kind": "product",
        "title": "Thermos 500 ml",
        "description": "Keeps coffee hot for 12 hours.",
        "media": [
            {"url": "https://cdn.example.com/thermos.jpg", "alt": "Front view", "type": "image", "position": 1},
            {"url": "https://cdn.example.com/thermos.mp4", "type": "video"}
        ],
        "category_tags": ["Kitchen", "Travel"],
        "currency": "USD",
        "base_price": 79,
        "compare_at_price": 99.5,
        "variants": [
            {"id": "red", "title": "Red", "price": 79, "compare_at_price": 89.99, "selected_options": [{"name": "Color", "value": "Red"}]},
            {"id": "blue-l", "title": "Blue / L", "price": 81.5,
             "selected_options": [{"name": "Color", "value": "Blue"}, {"name": "Size", "value": "L"}]}
        ],
        "created_at": "2026-11-21T10:00:00.000Z",
        "updated_at": "2026-11-22T08:30:15.123Z"
    })
}

async fn get_product_returns_200_with_the_exact_api_md_product(app: TestApp) {
    app.import_products(&app.a, vec![full_record()]).await;
    let r = app.get("/v1/products/thermos-500", &app.a.publishable).await;
    r.assert_status(200);
    assert_eq!(r.body, json!({"data": full_product_json()}));
}

async fn list_items_are_serialized_exactly_like_the_single_product(app: TestApp) {
    app.import_products(&app.a, vec![full_record()]).await;
    let r = app.get("/v1/products", &app.a.publishable).await;
    r.assert_status(200);
    assert_eq!(r.data(), &json!([full_product_json()]));
}

async fn whole_prices_are_json_integers_and_fractional_prices_stay_exact(app: TestApp) {
    app.import_products(&app.a, vec![full_record()]).await;
    let r = app.get("/v1/products/thermos-500", &app.a.publishable).await;
    let p = r.data();
    assert!(p["base_price"].is_u64(), "79 prints as 79, not 79.0: {}", p["base_price"]);
    assert_eq!(p["base_price"].as_u64(), Some(79));
    assert!(p["variants"][0]["price"].is_u64(), "{}", p["variants"][0]["price"]);
    assert_eq!(p["compare_at_price"].as_f64(), Some(99.5));
    assert_eq!(p["variants"][0]["compare_at_price"].as_f64(), Some(89.99));
    assert_eq!(p["variants"][1]["price"].as_f64(), Some(81.5));
}

async fn compare_at_price_is_absent_when_the_product_is_not_on_sale(app: TestApp) {
    app.import_products(
        &app.a,
        vec![with(
            product("plain", "2026-01-01T10:00:00.000Z"),
            json!({"variants": [{"id": "v", "title": "V", "price": 10, "selected_options": []}]}),
        )],
    )
    .await;
    for r in [app.get("/v1/products/plain", &app.a.publishable).await, app.get("/v1/products", &app.a.publishable).await] {
        let p = if r.data().is_array() { &r.data()[0] } else { r.data() };
        let obj = p.as_object().unwrap();
        assert!(!obj.contains_key("compare_at_price"), "no compare_at_price key, not even null: {p}");
        assert!(!p["variants"][0].as_object().unwrap().contains_key("compare_at_price"), "{p}");
        assert_eq!(p["base_price"], json!(10));
    }
}

async fn timestamps_are_utc_with_milliseconds_and_z(app: TestApp) {
    app.import_products(
        &app.a,
        vec![with(product("t", "2026-03-04T05:06:07+01:00"), json!({"updated_at": "2026-03-05T00:00:00.987654Z"}))],
    )
    .await;
    let r = app.get("/v1/products/t", &app.a.publishable).await;
    assert_eq!(r.data()["created_at"], "2026-03-04T04:06:07.000Z");
    assert_eq!(r.data()["updated_at"], "2026-03-05T00:00:00.987Z");
}

async fn status_is_never_exposed(app: TestApp) {
    app.import_products(&app.a, vec![full_record(), product("p2", "2026-01-01T10:00:00.000Z")]).await;
    let one = app.get("/v1/products/thermos-500", &app.a.publishable).await;
    assert!(!one.data().as_object().unwrap().contains_key("status"), "{}", one.body);
    let list = app.get("/v1/products", &app.a.publishable).await;
    assert_eq!(list.data().as_array().unwrap().len(), 2);
    for p in list.data().as_array().unwrap() {
        assert!(!p.as_object().unwrap().contains_key("status"), "{p}");
    }
}

// ---- Single product: 404s and tenants ----

async fn get_product_of_a_draft_an_unknown_id_or_another_agent_is_404(app: TestApp) {
    app.import_products(
        &app.a,
        vec![product("live", "2026-01-01T10:00:00.000Z"), with(product("wip", "2026-01-02T10:00:00.000Z"), json!({"status": "draft"}))],
    )
    .await;
    app.import_products(&app.b, vec![product("b-only", "2026-01-01T10:00:00.000Z")]).await;

    app.get("/v1/products/live", &app.a.publishable).await.assert_status(200);
    app.get("/v1/products/wip", &app.a.publishable).await.assert_error(404, "NOT_FOUND");
    app.get("/v1/products/wip", &app.a.secret).await.assert_error(404, "NOT_FOUND");
    app.get("/v1/products/nope", &app.a.publishable).await.assert_error(404, "NOT_FOUND");
    app.get("/v1/products/b-only", &app.a.publishable).await.assert_error(404, "NOT_FOUND");
    app.get("/v1/products/b-only", &app.a.secret).await.assert_error(404, "NOT_FOUND");
    app.get("/v1/products/live", &app.b.publishable).await.assert_error(404, "NOT_FOUND");
}

async fn a_product_turned_draft_by_a_reimport_disappears(app: TestApp) {
    app.import_products(&app.a, vec![product("p1", "2026-01-01T10:00:00.000Z"), product("p2", "2026-01-02T10:00:00.000Z")]).await;
    app.get("/v1/products/p1", &app.a.publishable).await.assert_status(200);
    app.import_products(&app.a, vec![with(product("p1", "2026-01-01T10:00:00.000Z"), json!({"status": "draft"}))]).await;
    app.get("/v1/products/p1", &app.a.publishable).await.assert_error(404, "NOT_FOUND");
    let r = app.get("/v1/products", &app.a.publishable).await;
    assert_eq!(ids(&r), ["p2"]);
    assert_eq!(r.body["pagination"]["total"], 1);
}

async fn two_agents_may_hold_the_same_id_and_each_sees_only_its_own(app: TestApp) {
    app.import_products(&app.a, vec![with(product("same", "2026-01-01T10:00:00.000Z"), json!({"title": "A's", "base_price": 5}))]).await;
    app.import_products(
        &app.b,
        vec![with(product("same", "2026-02-01T10:00:00.000Z"), json!({"title": "B's", "base_price": 7, "kind": "service"}))],
    )
    .await;

    let a = app.get("/v1/products/same", &app.a.publishable).await;
    assert_eq!(
        (a.data()["title"].as_str(), a.data()["base_price"].as_u64(), a.data()["kind"].as_str()),
        (Some("A's"), Some(5), Some("product"))
    );
    let b = app.get("/v1/products/same", &app.b.publishable).await;
    assert_eq!(
        (b.data()["title"].as_str(), b.data()["base_price"].as_u64(), b.data()["kind"].as_str()),
        (Some("B's"), Some(7), Some("service"))
    );

    let list_a = app.get("/v1/products", &app.a.publishable).await;
    assert_eq!(list_a.data().as_array().unwrap().len(), 1);
    assert_eq!(list_a.data()[0]["title"], "A's");
    assert_eq!(list_a.body["pagination"]["total"], 1);

    // B re-importing its `same` as a draft leaves A's product alone.
    app.import_products(&app.b, vec![with(product("same", "2026-02-01T10:00:00.000Z"), json!({"status": "draft"}))]).await;
    app.get("/v1/products/same", &app.b.publishable).await.assert_error(404, "NOT_FOUND");
    assert_eq!(app.get("/v1/products/same", &app.a.publishable).await.data()["title"], "A's");
}

async fn another_agents_products_never_appear_in_the_list(app: TestApp) {
    app.import_products(&app.a, vec![product("a1", "2026-01-01T10:00:00.000Z")]).await;
    app.import_products(&app.b, vec![product("b1", "2026-01-02T10:00:00.000Z"), product("b2", "2026-01-03T10:00:00.000Z")]).await;
    let r = app.get("/v1/products", &app.a.publishable).await;
    assert_eq!(ids(&r), ["a1"]);
    assert_eq!(r.body["pagination"]["total"], 1);
    let r = app.get("/v1/products", &app.b.secret).await;
    assert_eq!(ids(&r), ["b2", "b1"]);
}

// ---- Categories ----

async fn categories_are_counted_over_active_products_sorted_by_count_desc_then_name(app: TestApp) {
    app.import_products(
        &app.a,
        vec![
            with(product("p1", "2026-01-01T10:00:00.000Z"), json!({"category_tags": ["mugs", "kitchen"]})),
            with(product("p2", "2026-01-02T10:00:00.000Z"), json!({"category_tags": ["kitchen", "bottles"]})),
            with(product("p3", "2026-01-03T10:00:00.000Z"), json!({"category_tags": ["kitchen", "travel"]})),
            with(product("p4", "2026-01-04T10:00:00.000Z"), json!({"category_tags": ["travel", "bottles"]})),
            with(product("p5", "2026-01-05T10:00:00.000Z"), json!({"category_tags": ["aprons"]})),
            with(product("p6", "2026-01-06T10:00:00.000Z"), json!({"category_tags": []})),
            with(product("d1", "2026-01-07T10:00:00.000Z"), json!({"category_tags": ["aprons", "drafts-only"], "status": "draft"})),
            with(product("d2", "2026-01-08T10:00:00.000Z"), json!({"category_tags": ["mugs"], "status": "draft"})),
        ],
    )
    .await;
    let r = app.get("/v1/categories", &app.a.publishable).await;
    r.assert_status(200);
    assert_eq!(
        r.body,
        json!({"data": {
            "categories": [
                {"name": "kitchen", "count": 3},
                {"name": "bottles", "count": 2},
                {"name": "travel", "count": 2},
                {"name": "aprons", "count": 1},
                {"name": "mugs", "count": 1}
            ],
            "total_items": 6
        }})
    );
}

async fn category_names_work_as_the_tag_filter_of_the_product_list(app: TestApp) {
    app.import_products(
        &app.a,
        vec![
            with(product("p1", "2026-01-01T10:00:00.000Z"), json!({"category_tags": ["Home & Garden"]})),
            with(product("p2", "2026-01-02T10:00:00.000Z"), json!({"category_tags": ["Home & Garden", "Tools"]})),
        ],
    )
    .await;
    let cats = app.get("/v1/categories", &app.a.publishable).await;
    let first = &cats.data()["categories"][0];
    assert_eq!(first, &json!({"name": "Home & Garden", "count": 2}));
    let r = app.get("/v1/products?tag=Home%20%26%20Garden", &app.a.publishable).await;
    assert_eq!(ids(&r), ["p2", "p1"]);
    assert_eq!(r.body["pagination"]["total"], first["count"]);
}

async fn categories_follow_a_reimport_that_drafts_a_product_or_changes_its_tags(app: TestApp) {
    app.import_products(
        &app.a,
        vec![
            with(product("p1", "2026-01-01T10:00:00.000Z"), json!({"category_tags": ["mugs", "kitchen"]})),
            with(product("p2", "2026-01-02T10:00:00.000Z"), json!({"category_tags": ["kitchen"]})),
            with(product("p3", "2026-01-03T10:00:00.000Z"), json!({"category_tags": ["travel"]})),
        ],
    )
    .await;
    let before = app.get("/v1/categories", &app.a.publishable).await;
    assert_eq!(
        before.data(),
        &json!({"categories": [{"name": "kitchen", "count": 2}, {"name": "mugs", "count": 1}, {"name": "travel", "count": 1}], "total_items": 3})
    );

    // p1 becomes a draft; p3 moves from travel to kitchen and outdoors.
    app.import_products(
        &app.a,
        vec![
            with(product("p1", "2026-01-01T10:00:00.000Z"), json!({"category_tags": ["mugs", "kitchen"], "status": "draft"})),
            with(product("p3", "2026-01-03T10:00:00.000Z"), json!({"category_tags": ["kitchen", "outdoors"]})),
        ],
    )
    .await;
    let after = app.get("/v1/categories", &app.a.publishable).await;
    assert_eq!(after.data(), &json!({"categories": [{"name": "kitchen", "count": 2}, {"name": "outdoors", "count": 1}], "total_items": 2}));

    // p1 is published again.
    app.import_products(&app.a, vec![with(product("p1", "2026-01-01T10:00:00.000Z"), json!({"category_tags": ["mugs", "kitchen"]}))]).await;
    let again = app.get("/v1/categories", &app.a.publishable).await;
    assert_eq!(
        again.data(),
        &json!({"categories": [{"name": "kitchen", "count": 3}, {"name": "mugs", "count": 1}, {"name": "outdoors", "count": 1}], "total_items": 3})
    );
}

async fn an_agent_without_a_catalog_gets_no_categories_and_zero_items(app: TestApp) {
    let r = app.get("/v1/categories", &app.a.publishable).await;
    r.assert_status(200);
    assert_eq!(r.body, json!({"data": {"categories": [], "total_items": 0}}));
}

async fn an_agent_with_only_drafts_gets_no_categories_and_zero_items(app: TestApp) {
    app.import_products(&app.a, vec![with(product("d", "2026-01-01T10:00:00.000Z"), json!({"category_tags": ["x"], "status": "draft"}))])
        .await;
    let r = app.get("/v1/categories", &app.a.publishable).await;
    assert_eq!(r.body, json!({"data": {"categories": [], "total_items": 0}}));
    let list = app.get("/v1/products", &app.a.publishable).await;
    assert_eq!(list.body, json!({"data": [], "pagination": {"total": 0, "limit": 50, "offset": 0, "has_more": false}}));
}

async fn categories_are_scoped_to_the_agent(app: TestApp) {
    app.import_products(
        &app.a,
        vec![
            with(product("a1", "2026-01-01T10:00:00.000Z"), json!({"category_tags": ["shared", "a-only"]})),
            with(product("a2", "2026-01-02T10:00:00.000Z"), json!({"category_tags": ["shared"]})),
        ],
    )
    .await;
    app.import_products(&app.b, vec![with(product("a1", "2026-01-01T10:00:00.000Z"), json!({"category_tags": ["shared", "b-only"]}))])
        .await;
    let a = app.get("/v1/categories", &app.a.publishable).await;
    assert_eq!(a.data(), &json!({"categories": [{"name": "shared", "count": 2}, {"name": "a-only", "count": 1}], "total_items": 2}));
    let b = app.get("/v1/categories", &app.b.publishable).await;
    assert_eq!(b.data(), &json!({"categories": [{"name": "b-only", "count": 1}, {"name": "shared", "count": 1}], "total_items": 1}));
}

// ---- Keys ----

async fn publishable_and_secret_keys_both_read_products_and_categories(app: TestApp) {
    app.import_products(&app.a, vec![with(product("p1", "2026-01-01T10:00:00.000Z"), json!({"category_tags": ["c"]}))]).await;
    for key in [&app.a.publishable, &app.a.secret] {
        let list = app.get("/v1/products", key).await;
        list.assert_status(200);
        assert_eq!(ids(&list), ["p1"]);
        let one = app.get("/v1/products/p1", key).await;
        one.assert_status(200);
        assert_eq!(one.data()["_id"], "p1");
        let cats = app.get("/v1/categories", key).await;
        cats.assert_status(200);
        assert_eq!(cats.data(), &json!({"categories": [{"name": "c", "count": 1}], "total_items": 1}));
    }
}

async fn a_missing_or_unknown_key_on_the_catalog_is_401(app: TestApp) {
    app.import_products(&app.a, vec![product("p1", "2026-01-01T10:00:00.000Z")]).await;
    for path in ["/v1/products", "/v1/products/p1", "/v1/categories"] {
        app.call(TestRequest::get().uri(path)).await.assert_error(401, "UNAUTHORIZED");
        app.get(path, "pk_thisisnotakeythisisnotakeythisisnotakey").await.assert_error(401, "UNAUTHORIZED");
        app.get(path, "").await.assert_error(401, "UNAUTHORIZED");
    }
}

async fn a_publishable_key_is_forbidden_on_tags_activities_and_contacts(app: TestApp) {
    for path in ["/v1/tags", "/v1/activities", "/v1/contacts"] {
        app.get(path, &app.a.publishable).await.assert_error(403, "FORBIDDEN");
        app.get(path, &app.a.secret).await.assert_status(200);
    }
}

// ---- CORS ----

fn preflight(path: &str, method: &str) -> TestRequest {
    TestRequest::default()
        .method(Method::OPTIONS)
        .uri(path)
        .insert_header(("Origin", ORIGIN))
        .insert_header(("Access-Control-Request-Method", method))
        .insert_header(("Access-Control-Request-Headers", "x-api-key,content-type"))
}

#[track_caller]
fn assert_preflight_allowed(r: &Reply, method: &str) {
    assert!(r.status == 200 || r.status == 204, "preflight answered {}: {:?}", r.status, r.headers);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"), "the default allows any origin: {:?}", r.headers);
    let headers =
        r.header("access-control-allow-headers").unwrap_or_else(|| panic!("no allow-headers: {:?}", r.headers)).to_ascii_lowercase();
    assert!(headers.split(',').any(|h| h.trim() == "x-api-key"), "X-API-Key is allowed: {headers}");
    assert!(headers.split(',').any(|h| h.trim() == "content-type"), "Content-Type is allowed: {headers}");
    let methods = r.header("access-control-allow-methods").unwrap_or_else(|| panic!("no allow-methods: {:?}", r.headers));
    assert!(methods.split(',').any(|m| m.trim() == method), "{method} is allowed: {methods}");
}

async fn catalog_routes_answer_cors_preflight_and_allow_the_api_key_header(app: TestApp) {
    for path in ["/v1/products", "/v1/products/p1", "/v1/categories"] {
        let r = app.call(preflight(path, "GET")).await;
        assert_preflight_allowed(&r, "GET");
    }
}

async fn a_product_list_with_an_origin_carries_access_control_allow_origin(app: TestApp) {
    app.import_products(&app.a, vec![product("p1", "2026-01-01T10:00:00.000Z")]).await;
    for path in ["/v1/products", "/v1/products/p1", "/v1/categories"] {
        let r = app
            .call(TestRequest::get().uri(path).insert_header(("X-API-Key", app.a.publishable.as_str())).insert_header(("Origin", ORIGIN)))
            .await;
        r.assert_status(200);
        assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{path}: {:?}", r.headers);
    }
}

async fn a_401_on_the_product_list_still_carries_the_cors_header(app: TestApp) {
    let r = app.call(TestRequest::get().uri("/v1/products").insert_header(("Origin", ORIGIN))).await;
    r.assert_error(401, "UNAUTHORIZED");
    assert_eq!(r.header("access-control-allow-origin"), Some("*"), "a browser can read the 401: {:?}", r.headers);
    let r =
        app.call(TestRequest::get().uri("/v1/products").insert_header(("X-API-Key", "pk_bogus")).insert_header(("Origin", ORIGIN))).await;
    r.assert_error(401, "UNAUTHORIZED");
    assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{:?}", r.headers);
}

async fn secret_key_endpoints_send_no_cors_headers(app: TestApp) {
    for path in ["/v1/tags", "/v1/activities", "/v1/contacts"] {
        let r = app
            .call(TestRequest::get().uri(path).insert_header(("X-API-Key", app.a.secret.as_str())).insert_header(("Origin", ORIGIN)))
            .await;
        r.assert_status(200);
        assert_eq!(r.header("access-control-allow-origin"), None, "{path}: {:?}", r.headers);

        let r = app.call(preflight(path, "GET")).await;
        assert_eq!(r.header("access-control-allow-origin"), None, "{path} preflight: {} {:?}", r.status, r.headers);
        assert_eq!(r.header("access-control-allow-headers"), None, "{path} preflight: {:?}", r.headers);
        assert_eq!(r.header("access-control-allow-methods"), None, "{path} preflight: {:?}", r.headers);
    }
    let r = app.call(preflight("/v1/tags", "POST")).await;
    assert_eq!(r.header("access-control-allow-origin"), None, "{:?}", r.headers);
}

http_tests!(
    list_shows_only_active_products_newest_first_with_ties_broken_by_id_desc,
    list_pages_with_limit_and_offset_and_reports_has_more,
    list_default_limit_is_50_and_limit_goes_up_to_100,
    list_rejects_out_of_range_limit_and_offset_without_clamping,
    list_rejects_limit_and_offset_that_are_not_integers,
    list_tag_filter_matches_a_category_tag_exactly_and_case_sensitively,
    list_kind_filter_takes_product_or_service,
    list_kind_other_than_product_or_service_is_400,
    list_tag_and_kind_filters_apply_together,
    get_product_returns_200_with_the_exact_api_md_product,
    list_items_are_serialized_exactly_like_the_single_product,
    whole_prices_are_json_integers_and_fractional_prices_stay_exact,
    compare_at_price_is_absent_when_the_product_is_not_on_sale,
    timestamps_are_utc_with_milliseconds_and_z,
    status_is_never_exposed,
    get_product_of_a_draft_an_unknown_id_or_another_agent_is_404,
    a_product_turned_draft_by_a_reimport_disappears,
    two_agents_may_hold_the_same_id_and_each_sees_only_its_own,
    another_agents_products_never_appear_in_the_list,
    categories_are_counted_over_active_products_sorted_by_count_desc_then_name,
    category_names_work_as_the_tag_filter_of_the_product_list,
    categories_follow_a_reimport_that_drafts_a_product_or_changes_its_tags,
    an_agent_without_a_catalog_gets_no_categories_and_zero_items,
    an_agent_with_only_drafts_gets_no_categories_and_zero_items,
    categories_are_scoped_to_the_agent,
    publishable_and_secret_keys_both_read_products_and_categories,
    a_missing_or_unknown_key_on_the_catalog_is_401,
    a_publishable_key_is_forbidden_on_tags_activities_and_contacts,
    catalog_routes_answer_cors_preflight_and_allow_the_api_key_header,
    a_product_list_with_an_origin_carries_access_control_allow_origin,
    a_401_on_the_product_list_still_carries_the_cors_header,
    secret_key_endpoints_send_no_cors_headers,
);
