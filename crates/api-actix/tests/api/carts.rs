//! Shareable carts over HTTP, on both backends: creation, validation, snapshots, expiry,
//! tenant isolation, the storefront link and CORS.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::{Reply, TestApp};
use actix_web::http::Method;
use actix_web::test::{self, TestRequest};
use actix_web::web::Data;
use chrono::{DateTime, TimeDelta, Utc};
use parley_adapters_diesel::testing::TestDb;
use parley_api::runtime::config::ApiConfig;
use parley_domain::model::{AgentId, Cart, CartCode, KeyKind, ProductRecord};
use parley_domain::ports::{CartRepository, StoreResult};
use serde_json::{Value, json};

const ORIGIN: &str = "https://shop.example";

fn product(id: &str, title: &str, price: f64) -> Value {
    json!({"_id": id, "kind": "product", "title": title, "currency": "USD", "base_price": price, "created_at": "2026-01-01T10:00:00.000Z"})
}

fn draft(id: &str) -> Value {
    let mut p = product(id, "Draft", 1.0);
    p["status"] = json!("draft");
    p
}

/// A: p1, p2 (active), p3 (draft). B: b1 (active).
async fn seed(app: &TestApp) {
    let mut thermos = product("p1", "Thermos", 79.0);
    thermos["description"] = json!("Keeps coffee hot.");
    thermos["category_tags"] = json!(["Kitchen"]);
    thermos["compare_at_price"] = json!(99.5);
    thermos["media"] = json!([{"url": "https://cdn.example.com/p1.jpg", "alt": "Front", "type": "image", "position": 1}]);
    thermos["variants"] = json!([{"id": "red", "title": "Red", "price": 79, "selected_options": [{"name": "Color", "value": "Red"}]}]);
    app.import_products(&app.a, vec![thermos, product("p2", "Mug", 12.5), draft("p3")]).await;
    app.import_products(&app.b, vec![product("b1", "B's thing", 5.0)]).await;
}

fn is_code(code: &str) -> bool {
    code.chars().count() == 7 && code.chars().all(|c| c.is_ascii_alphanumeric() && !"0OIl".contains(c))
}

fn time(raw: &Value) -> DateTime<Utc> {
    let s = raw.as_str().unwrap_or_else(|| panic!("not a timestamp: {raw}"));
    assert_eq!(s.len(), 24, "RFC 3339 with milliseconds and Z: {s}");
    assert!(s.ends_with('Z'), "{s}");
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn detail_fields(r: &Reply) -> Vec<String> {
    r.body["error"]["details"].as_array().map(|d| d.iter().map(|x| x["field"].as_str().unwrap().to_string()).collect()).unwrap_or_default()
}

/// Creates a cart for `key` and returns its code.
async fn cart(app: &TestApp, key: &str, items: Value) -> String {
    let r = app.post("/v1/carts", key, json!({"items": items})).await;
    r.assert_status(201);
    r.data()["code"].as_str().unwrap().to_string()
}

#[track_caller]
fn assert_invalid(r: &Reply, fields: &[&str]) {
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(detail_fields(r), fields, "body: {}", r.body);
}

// ---- Create ----

async fn create_with_a_publishable_key_returns_201_with_code_and_expires_at_only(app: TestApp) {
    seed(&app).await;
    let before = Utc::now();
    let r = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1", "qty": 2}]})).await;
    r.assert_status(201);
    let data = r.data().as_object().unwrap();
    let mut keys: Vec<_> = data.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["code", "expires_at"], "no url without a configured storefront: {}", r.body);
    let code = data["code"].as_str().unwrap();
    assert!(is_code(code), "{code}");
    let expires = time(&data["expires_at"]);
    let ninety = before + TimeDelta::days(90);
    assert!(expires >= ninety - TimeDelta::seconds(1) && expires <= Utc::now() + TimeDelta::days(90), "{expires} vs {ninety}");
}

async fn expires_at_is_exactly_90_days_after_created_at(app: TestApp) {
    seed(&app).await;
    let r = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1", "qty": 1}]})).await;
    let code = r.data()["code"].as_str().unwrap();
    let got = app.get(&format!("/v1/carts/{code}"), &app.a.publishable).await;
    got.assert_status(200);
    assert_eq!(got.data()["expires_at"], r.data()["expires_at"], "create and read agree");
    assert_eq!(time(&got.data()["expires_at"]) - time(&got.data()["created_at"]), TimeDelta::days(90));
    let age = Utc::now() - time(&got.data()["created_at"]);
    assert!(age >= TimeDelta::zero() && age < TimeDelta::minutes(1), "created now: {age}");
}

async fn codes_are_7_characters_without_look_alikes_and_unique(app: TestApp) {
    seed(&app).await;
    let mut codes = std::collections::HashSet::new();
    for _ in 0..25 {
        let code = cart(&app, &app.a.publishable, json!([{"id": "p1", "qty": 1}])).await;
        assert!(is_code(&code), "{code}");
        assert!(codes.insert(code.clone()), "{code} issued twice");
    }
}

async fn a_secret_key_may_also_create_and_read_carts(app: TestApp) {
    seed(&app).await;
    let code = cart(&app, &app.a.secret, json!([{"id": "p2", "qty": 3}])).await;
    app.get(&format!("/v1/carts/{code}"), &app.a.secret).await.assert_status(200);
    app.get(&format!("/v1/carts/{code}"), &app.a.publishable).await.assert_status(200);
}

async fn a_missing_key_is_401_on_carts(app: TestApp) {
    seed(&app).await;
    let r = app.call(TestRequest::post().uri("/v1/carts").set_json(json!({"items": [{"id": "p1", "qty": 1}]}))).await;
    r.assert_error(401, "UNAUTHORIZED");
    let code = cart(&app, &app.a.publishable, json!([{"id": "p1", "qty": 1}])).await;
    app.call(TestRequest::get().uri(&format!("/v1/carts/{code}"))).await.assert_error(401, "UNAUTHORIZED");
}

// ---- Read ----

async fn get_returns_code_created_at_expires_at_and_items_of_full_products_plus_qty(app: TestApp) {
    seed(&app).await;
    let code = cart(&app, &app.a.publishable, json!([{"id": "p2", "qty": 3}, {"id": "p1", "qty": 99}])).await;
    let r = app.get(&format!("/v1/carts/{code}"), &app.a.publishable).await;
    r.assert_status(200);
    let data = r.data();
    let mut keys: Vec<_> = data.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["code", "created_at", "currency", "expires_at", "items", "total"]);
    assert_eq!(data["code"], code.as_str());

    let line = |mut product: Value, qty: u8, unit: Value, total: Value| {
        for (k, v) in [("qty", json!(qty)), ("variant", Value::Null), ("unit_price", unit), ("line_total", total)] {
            product[k] = v;
        }
        product
    };
    let p2 = app.get("/v1/products/p2", &app.a.publishable).await.data().clone();
    let p1 = app.get("/v1/products/p1", &app.a.publishable).await.data().clone();
    let want = json!([line(p2, 3, json!(12.5), json!(37.5)), line(p1, 99, json!(79), json!(7821))]);
    assert_eq!(data["items"], want, "items in the order sent, each the full product plus the line");
    assert_eq!((&data["currency"], &data["total"]), (&json!("USD"), &json!(7858.5)));
    assert_eq!(data["items"][1]["base_price"], json!(79), "whole prices print as integers");
    assert_eq!(data["items"][1]["compare_at_price"], json!(99.5));
    assert!(!data["items"][0].as_object().unwrap().contains_key("compare_at_price"), "absent when not on sale");
    assert!(!data["items"][0].as_object().unwrap().contains_key("status"), "status is never exposed");
}

/// A cart's amounts as JSON text, each line's `(unit_price, line_total)` and the cart's
/// `(currency, total)`: a binary-float artifact (`59.970000000000006`) would show in the text.
async fn amounts(app: &TestApp, code: &str) -> (Vec<(String, String)>, (String, String)) {
    let r = app.get(&format!("/v1/carts/{code}"), &app.a.publishable).await;
    r.assert_status(200);
    let data = r.data();
    let lines = data["items"].as_array().unwrap().iter().map(|i| (i["unit_price"].to_string(), i["line_total"].to_string())).collect();
    (lines, (data["currency"].to_string(), data["total"].to_string()))
}

fn texts<const N: usize>(pairs: [(&str, &str); N]) -> Vec<(String, String)> {
    pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

async fn variant_lines_carry_the_variant_as_it_was_and_its_price(app: TestApp) {
    let mut shirt = product("shirt", "Shirt", 19.99);
    shirt["variants"] = json!([
        {"id": "s", "title": "Small", "price": 19.99, "selected_options": [{"name": "Size", "value": "S"}]},
        {"id": "l", "title": "Large", "price": 24.5, "compare_at_price": 30, "selected_options": [{"name": "Size", "value": "L"}]}
    ]);
    app.import_products(&app.a, vec![shirt]).await;
    let items =
        json!([{"id": "shirt", "variant_id": "l", "qty": 2}, {"id": "shirt", "qty": 3}, {"id": "shirt", "variant_id": "s", "qty": 1}]);
    let code = cart(&app, &app.a.publishable, items).await;
    let data = app.get(&format!("/v1/carts/{code}"), &app.a.publishable).await.data().clone();
    let large =
        json!({"id": "l", "title": "Large", "price": 24.5, "compare_at_price": 30, "selected_options": [{"name": "Size", "value": "L"}]});
    assert_eq!(data["items"][0]["variant"], large, "the chosen variant as it was");
    assert_eq!(data["items"][1]["variant"], Value::Null);
    assert_eq!(data["items"][2]["variant"]["id"], "s");
    let (lines, total) = amounts(&app, &code).await;
    assert_eq!(lines, texts([("24.5", "49"), ("19.99", "59.97"), ("19.99", "19.99")]));
    assert_eq!(total, ("\"USD\"".to_string(), "128.96".to_string()), "3 × 19.99 is 59.97, exactly");

    // Changing the catalog afterwards changes nothing in the cart, variants included.
    let mut cheaper = product("shirt", "Shirt", 9.0);
    cheaper["variants"] = json!([{"id": "l", "title": "Large", "price": 10}]);
    app.import_products(&app.a, vec![cheaper]).await;
    assert_eq!(amounts(&app, &code).await.1.1, "128.96");
}

async fn amounts_are_rounded_to_the_currencys_minor_unit(app: TestApp) {
    let priced = |id: &str, currency: &str, price: &str| -> Value {
        serde_json::from_str(&format!(r#"{{"_id":"{id}","kind":"product","title":"T","currency":"{currency}","base_price":{price}}}"#))
            .unwrap()
    };
    app.import_products(&app.a, vec![priced("yen", "JPY", "99.5"), priced("dinar", "KWD", "1.2345"), priced("cent", "USD", "0.125")]).await;
    for (id, qty, line, currency, catalog) in [
        ("yen", 3, ("100", "300"), "JPY", "99.5"),
        ("dinar", 2, ("1.235", "2.47"), "KWD", "1.2345"),
        ("cent", 7, ("0.13", "0.91"), "USD", "0.125"),
    ] {
        let code = cart(&app, &app.a.publishable, json!([{"id": id, "qty": qty}])).await;
        let (lines, total) = amounts(&app, &code).await;
        assert_eq!(lines, texts([line]), "{id}");
        assert_eq!(total, (format!("\"{currency}\""), line.1.to_string()), "{id}");
        let base = app.get(&format!("/v1/carts/{code}"), &app.a.publishable).await.data()["items"][0]["base_price"].to_string();
        assert_eq!(base, catalog, "the catalog's own digits");
    }
}

async fn unknown_and_repeated_variants_are_400_naming_the_entry(app: TestApp) {
    seed(&app).await;
    let r = app
        .post(
            "/v1/carts",
            &app.a.publishable,
            json!({"items": [
                {"id": "p1", "variant_id": "red", "qty": 1},
                {"id": "p1", "variant_id": "blue", "qty": 1},
                {"id": "p1", "variant_id": "red", "qty": 2},
                {"id": "p2", "variant_id": "red", "qty": 1},
                {"id": "p1", "qty": 1}
            ]}),
        )
        .await;
    assert_invalid(&r, &["items[1].variant_id", "items[2].variant_id", "items[3].variant_id"]);
    let r = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1", "variant_id": 7, "qty": 1}]})).await;
    r.assert_error(400, "INVALID_JSON");
}

async fn a_cart_holds_one_currency(app: TestApp) {
    seed(&app).await;
    let mut euro = product("e1", "Euro thing", 3.0);
    euro["currency"] = json!("EUR");
    app.import_products(&app.a, vec![euro]).await;
    let r = app
        .post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1", "qty": 1}, {"id": "p2", "qty": 1}, {"id": "e1", "qty": 1}]}))
        .await;
    assert_invalid(&r, &["items[2].id"]);
    assert!(r.body["error"]["details"][0]["issue"].as_str().unwrap().contains("EUR"), "{}", r.body);
}

async fn unknown_codes_are_404(app: TestApp) {
    seed(&app).await;
    let code = cart(&app, &app.a.publishable, json!([{"id": "p1", "qty": 1}])).await;
    // Same shape as a real code, but another one.
    let other: String = code.chars().rev().collect::<String>();
    let other = if other == code { "Zz9Zz9Z".to_string() } else { other };
    app.get(&format!("/v1/carts/{other}"), &app.a.publishable).await.assert_error(404, "NOT_FOUND");
    app.get("/v1/carts/Ab3kP9z", &app.a.publishable).await.assert_error(404, "NOT_FOUND");
}

async fn malformed_codes_are_404(app: TestApp) {
    seed(&app).await;
    let code = cart(&app, &app.a.publishable, json!([{"id": "p1", "qty": 1}])).await;
    let longer = format!("{code}x");
    let shorter = &code[..6];
    for bad in [longer.as_str(), shorter, "Ab3kP90", "IIIIIII", "lllllll", "OOOOOOO", "ab-cd_e", "%20%20%20%20%20%20%20"] {
        app.get(&format!("/v1/carts/{bad}"), &app.a.publishable).await.assert_error(404, "NOT_FOUND");
    }
}

async fn another_agents_cart_is_404(app: TestApp) {
    seed(&app).await;
    let code = cart(&app, &app.a.publishable, json!([{"id": "p1", "qty": 1}])).await;
    app.get(&format!("/v1/carts/{code}"), &app.b.publishable).await.assert_error(404, "NOT_FOUND");
    app.get(&format!("/v1/carts/{code}"), &app.b.secret).await.assert_error(404, "NOT_FOUND");
    app.get(&format!("/v1/carts/{code}"), &app.a.publishable).await.assert_status(200);
}

async fn a_cart_holds_the_callers_own_product_when_two_agents_share_an_id(app: TestApp) {
    app.import_products(&app.a, vec![product("same", "A's", 10.0)]).await;
    app.import_products(&app.b, vec![product("same", "B's", 20.0)]).await;
    let a = cart(&app, &app.a.publishable, json!([{"id": "same", "qty": 1}])).await;
    let b = cart(&app, &app.b.publishable, json!([{"id": "same", "qty": 2}])).await;
    let ra = app.get(&format!("/v1/carts/{a}"), &app.a.publishable).await;
    assert_eq!((ra.data()["items"][0]["title"].as_str(), ra.data()["items"][0]["base_price"].as_u64()), (Some("A's"), Some(10)));
    let rb = app.get(&format!("/v1/carts/{b}"), &app.b.publishable).await;
    assert_eq!((rb.data()["items"][0]["title"].as_str(), rb.data()["items"][0]["base_price"].as_u64()), (Some("B's"), Some(20)));
}

// ---- Expiry ----

async fn a_cart_is_readable_until_90_days_then_410_for_its_owner_and_404_for_others(app: TestApp) {
    seed(&app).await;
    let code = cart(&app, &app.a.publishable, json!([{"id": "p1", "qty": 1}])).await;
    let path = format!("/v1/carts/{code}");

    app.clock.advance(TimeDelta::days(89));
    app.get(&path, &app.a.publishable).await.assert_status(200);

    app.clock.advance(TimeDelta::days(2));
    app.get(&path, &app.a.publishable).await.assert_error(410, "CART_EXPIRED");
    app.get(&path, &app.a.secret).await.assert_error(410, "CART_EXPIRED");
    app.get(&path, &app.b.publishable).await.assert_error(404, "NOT_FOUND");
    app.get(&path, &app.b.secret).await.assert_error(404, "NOT_FOUND");
}

async fn a_cart_made_later_is_still_readable_when_an_older_one_expired(app: TestApp) {
    seed(&app).await;
    let old = cart(&app, &app.a.publishable, json!([{"id": "p1", "qty": 1}])).await;
    app.clock.advance(TimeDelta::days(60));
    let newer = cart(&app, &app.a.publishable, json!([{"id": "p1", "qty": 1}])).await;
    app.clock.advance(TimeDelta::days(31));
    app.get(&format!("/v1/carts/{old}"), &app.a.publishable).await.assert_error(410, "CART_EXPIRED");
    app.get(&format!("/v1/carts/{newer}"), &app.a.publishable).await.assert_status(200);
}

// ---- Snapshots ----

async fn a_cart_never_changes_when_its_products_change(app: TestApp) {
    seed(&app).await;
    let code = cart(&app, &app.a.publishable, json!([{"id": "p1", "qty": 2}, {"id": "p2", "qty": 1}])).await;
    let path = format!("/v1/carts/{code}");
    let before = app.get(&path, &app.a.publishable).await;
    before.assert_status(200);

    let mut changed = product("p1", "Thermos v2", 65.0);
    changed["category_tags"] = json!(["Sale"]);
    changed["created_at"] = json!("2026-05-01T10:00:00.000Z");
    app.import_products(&app.a, vec![changed, product("p2", "Mug XL", 14.0)]).await;
    let now_p1 = app.get("/v1/products/p1", &app.a.publishable).await;
    assert_eq!(now_p1.data()["title"], "Thermos v2", "the catalog did change");
    assert!(!now_p1.data().as_object().unwrap().contains_key("compare_at_price"));

    let after = app.get(&path, &app.a.publishable).await;
    after.assert_status(200);
    assert_eq!(after.body, before.body);
    assert_eq!(after.data()["items"][0]["title"], "Thermos");
    assert_eq!(after.data()["items"][0]["compare_at_price"], json!(99.5));
}

async fn a_cart_never_changes_when_its_products_become_drafts(app: TestApp) {
    seed(&app).await;
    let code = cart(&app, &app.a.publishable, json!([{"id": "p1", "qty": 2}, {"id": "p2", "qty": 1}])).await;
    let path = format!("/v1/carts/{code}");
    let before = app.get(&path, &app.a.publishable).await;

    // No product delete API exists: a draft is how a product leaves the catalog.
    app.import_products(&app.a, vec![draft("p1"), draft("p2")]).await;
    app.get("/v1/products/p1", &app.a.publishable).await.assert_error(404, "NOT_FOUND");
    app.get("/v1/products/p2", &app.a.publishable).await.assert_error(404, "NOT_FOUND");

    let after = app.get(&path, &app.a.publishable).await;
    after.assert_status(200);
    assert_eq!(after.body, before.body);
    assert_eq!(after.data()["items"].as_array().unwrap().len(), 2);
}

// ---- Validation ----

async fn missing_items_is_400(app: TestApp) {
    seed(&app).await;
    assert_invalid(&app.post("/v1/carts", &app.a.publishable, json!({})).await, &["items"]);
    assert_invalid(&app.post("/v1/carts", &app.a.publishable, json!({"items": null})).await, &["items"]);
}

async fn empty_items_is_400(app: TestApp) {
    seed(&app).await;
    assert_invalid(&app.post("/v1/carts", &app.a.publishable, json!({"items": []})).await, &["items"]);
}

async fn at_most_50_items(app: TestApp) {
    let records: Vec<Value> = (0..51).map(|i| product(&format!("x{i:02}"), "X", 1.0)).collect();
    app.import_products(&app.a, records).await;
    let items = |n: usize| (0..n).map(|i| json!({"id": format!("x{i:02}"), "qty": 1})).collect::<Vec<_>>();
    assert_invalid(&app.post("/v1/carts", &app.a.publishable, json!({"items": items(51)})).await, &["items"]);
    let code = cart(&app, &app.a.publishable, json!(items(50))).await;
    let r = app.get(&format!("/v1/carts/{code}"), &app.a.publishable).await;
    assert_eq!(r.data()["items"].as_array().unwrap().len(), 50);
}

async fn qty_below_1_or_above_99_is_400_naming_the_entry(app: TestApp) {
    seed(&app).await;
    for qty in [json!(0), json!(100), json!(-1)] {
        let r = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1", "qty": 1}, {"id": "p2", "qty": qty}]})).await;
        assert_invalid(&r, &["items[1].qty"]);
    }
    let code = cart(&app, &app.a.publishable, json!([{"id": "p1", "qty": 1}, {"id": "p2", "qty": 99}])).await;
    let r = app.get(&format!("/v1/carts/{code}"), &app.a.publishable).await;
    assert_eq!((r.data()["items"][0]["qty"].as_u64(), r.data()["items"][1]["qty"].as_u64()), (Some(1), Some(99)));
}

async fn qty_that_is_not_an_integer_is_400_naming_the_entry(app: TestApp) {
    seed(&app).await;
    for qty in [json!(2.5), json!("3"), json!(null), json!(true)] {
        let r = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1", "qty": qty}]})).await;
        assert_invalid(&r, &["items[0].qty"]);
    }
    let r = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1"}]})).await;
    assert_invalid(&r, &["items[0].qty"]);
    // An integral float is that integer (JSON Schema's integers; Python's `json.dumps` writes them).
    let code = cart(&app, &app.a.publishable, json!([{"id": "p1", "qty": 2.0}])).await;
    let r = app.get(&format!("/v1/carts/{code}"), &app.a.publishable).await;
    assert_eq!(r.data()["items"][0]["qty"], json!(2));
}

async fn a_missing_product_id_is_400_naming_the_entry(app: TestApp) {
    seed(&app).await;
    let r = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1", "qty": 1}, {"qty": 2}]})).await;
    assert_invalid(&r, &["items[1].id"]);
    let r = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "", "qty": 2}]})).await;
    assert_invalid(&r, &["items[0].id"]);
}

async fn a_product_listed_twice_is_400_naming_the_repeat(app: TestApp) {
    seed(&app).await;
    let r = app
        .post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1", "qty": 1}, {"id": "p2", "qty": 1}, {"id": "p1", "qty": 3}]}))
        .await;
    assert_invalid(&r, &["items[2].id"]);
}

async fn an_unknown_product_is_400_naming_the_entry(app: TestApp) {
    seed(&app).await;
    let r = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1", "qty": 1}, {"id": "nope", "qty": 1}]})).await;
    assert_invalid(&r, &["items[1].id"]);
}

async fn a_draft_product_is_400_naming_the_entry(app: TestApp) {
    seed(&app).await;
    let r = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1", "qty": 1}, {"id": "p3", "qty": 1}]})).await;
    assert_invalid(&r, &["items[1].id"]);
}

async fn another_agents_product_is_400_naming_the_entry(app: TestApp) {
    seed(&app).await;
    let r = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1", "qty": 1}, {"id": "b1", "qty": 1}]})).await;
    assert_invalid(&r, &["items[1].id"]);
}

async fn every_unavailable_product_is_named(app: TestApp) {
    seed(&app).await;
    let items = json!([{"id": "nope", "qty": 1}, {"id": "p1", "qty": 1}, {"id": "p3", "qty": 1}, {"id": "b1", "qty": 1}]);
    let r = app.post("/v1/carts", &app.a.publishable, json!({"items": items})).await;
    assert_invalid(&r, &["items[0].id", "items[2].id", "items[3].id"]);
}

async fn bad_quantities_and_unavailable_products_are_named_together(app: TestApp) {
    seed(&app).await;
    let items = json!([{"id": "p1", "qty": 0}, {"id": "nope", "qty": 1}]);
    let r = app.post("/v1/carts", &app.a.publishable, json!({"items": items})).await;
    assert_invalid(&r, &["items[0].qty", "items[1].id"]);
}

async fn an_unknown_body_field_is_400(app: TestApp) {
    seed(&app).await;
    let r = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1", "qty": 1}], "coupon": "FREE"})).await;
    assert_invalid(&r, &["coupon"]);
    let r = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1", "qty": 1, "price": 0}]})).await;
    r.assert_error(400, "VALIDATION_ERROR");
}

// ---- Nothing is written on failure ----

/// Counts the carts the application writes, in front of the real storage.
struct CountingCarts {
    inner: Arc<dyn CartRepository>,
    inserts: AtomicUsize,
}

#[async_trait::async_trait]
impl CartRepository for CountingCarts {
    async fn insert(&self, cart: &Cart, events: &[parley_domain::model::Event]) -> StoreResult<()> {
        self.inserts.fetch_add(1, Ordering::SeqCst);
        self.inner.insert(cart, events).await
    }

    async fn get(&self, agent: &AgentId, code: &CartCode) -> StoreResult<Option<Cart>> {
        self.inner.get(agent, code).await
    }
}

/// The real application on `backend`, with every cart write counted: refused carts write nothing.
async fn refused_carts_write_nothing(backend: &str) {
    let db = TestDb::of(backend).await;
    let mut repos = db.store.repositories();
    let counter = Arc::new(CountingCarts { inner: repos.carts.clone(), inserts: AtomicUsize::new(0) });
    repos.carts = counter.clone();
    let state = Data::new(crate::common::system_state(repos));
    let agent = state.keys.create_agent("Shop").await.unwrap().id;
    let key = state.keys.issue_key(&agent, KeyKind::Publishable).await.unwrap().plaintext;
    let other = state.keys.create_agent("Other").await.unwrap().id;
    let records = |v: Vec<Value>| -> Vec<(usize, Result<ProductRecord, String>)> {
        v.into_iter().enumerate().map(|(i, r)| (i + 1, serde_json::from_value(r).map_err(|e| e.to_string()))).collect()
    };
    for (who, rows) in [(&agent, vec![product("p1", "T", 1.0), draft("p3")]), (&other, vec![product("b1", "B", 1.0)])] {
        let validated = state.catalog.validate_import(who, records(rows)).await.unwrap_or_else(|e| panic!("{e:?}"));
        state.catalog.import(who, validated, Arc::new(|_, _| {})).await.unwrap();
    }
    let service = test::init_service(parley_api::http::app::build(state.clone())).await;
    let post = |body: Value| TestRequest::post().uri("/v1/carts").insert_header(("X-API-Key", key.as_str())).set_json(body).to_request();

    let refused = [
        json!({}),
        json!({"items": []}),
        json!({"items": [{"id": "p1", "qty": 0}]}),
        json!({"items": [{"id": "p1", "qty": 1}, {"id": "p1", "qty": 1}]}),
        json!({"items": [{"id": "p1", "qty": 1}, {"id": "nope", "qty": 1}]}),
        json!({"items": [{"id": "p1", "qty": 1}, {"id": "p3", "qty": 1}]}),
        json!({"items": [{"id": "p1", "qty": 1}, {"id": "b1", "qty": 1}]}),
        json!({"items": [{"id": "p1", "qty": 1}], "extra": 1}),
    ];
    for body in refused {
        let resp = test::call_service(&service, post(body.clone())).await;
        assert_eq!(resp.status().as_u16(), 400, "for {body}");
    }
    assert_eq!(counter.inserts.load(Ordering::SeqCst), 0, "no refused cart was written");

    let resp = test::call_service(&service, post(json!({"items": [{"id": "p1", "qty": 1}]}))).await;
    assert_eq!(resp.status().as_u16(), 201);
    assert_eq!(counter.inserts.load(Ordering::SeqCst), 1, "the counter sees real writes");
}

#[actix_web::test]
async fn refused_carts_write_nothing_sqlite() {
    refused_carts_write_nothing("sqlite").await
}

#[actix_web::test]
async fn refused_carts_write_nothing_postgres() {
    refused_carts_write_nothing("postgres").await
}

// ---- Storefront link ----

async fn with_a_storefront_url_a_created_cart_answers_its_link(app: TestApp) {
    seed(&app).await;
    let r = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "p1", "qty": 1}]})).await;
    r.assert_status(201);
    let code = r.data()["code"].as_str().unwrap();
    assert!(is_code(code), "{code}");
    assert_eq!(r.data()["url"], format!("https://shop.example.com/c/{code}"));
    let mut keys: Vec<_> = r.data().as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["code", "expires_at", "url"]);
    app.get(&format!("/v1/carts/{code}"), &app.a.publishable).await.assert_status(200);
}

async fn storefront_app(backend: &str) -> TestApp {
    TestApp::with_config(backend, ApiConfig { storefront_url: Some("https://shop.example.com".into()), ..Default::default() }).await
}

#[actix_web::test]
async fn with_a_storefront_url_a_created_cart_answers_its_link_sqlite() {
    with_a_storefront_url_a_created_cart_answers_its_link(storefront_app("sqlite").await).await
}

#[actix_web::test]
async fn with_a_storefront_url_a_created_cart_answers_its_link_postgres() {
    with_a_storefront_url_a_created_cart_answers_its_link(storefront_app("postgres").await).await
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

async fn cart_routes_answer_cors_preflight_and_allow_the_api_key_header(app: TestApp) {
    for (path, method) in [("/v1/carts", "POST"), ("/v1/carts/Ab3kP9z", "GET")] {
        let r = app.call(preflight(path, method)).await;
        assert!(r.status == 200 || r.status == 204, "{path} preflight answered {}: {:?}", r.status, r.headers);
        assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{path}: {:?}", r.headers);
        let headers = r.header("access-control-allow-headers").unwrap_or_default().to_ascii_lowercase();
        assert!(headers.split(',').any(|h| h.trim() == "x-api-key"), "{path}: X-API-Key is allowed: {headers}");
        assert!(headers.split(',').any(|h| h.trim() == "content-type"), "{path}: Content-Type is allowed: {headers}");
        let methods = r.header("access-control-allow-methods").unwrap_or_default();
        assert!(methods.split(',').any(|m| m.trim() == method), "{path}: {method} is allowed: {methods}");
    }
}

async fn cart_requests_with_an_origin_carry_access_control_allow_origin(app: TestApp) {
    seed(&app).await;
    let r = app
        .call(
            TestRequest::post()
                .uri("/v1/carts")
                .insert_header(("X-API-Key", app.a.publishable.as_str()))
                .insert_header(("Origin", ORIGIN))
                .set_json(json!({"items": [{"id": "p1", "qty": 1}]})),
        )
        .await;
    r.assert_status(201);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{:?}", r.headers);
    let code = r.data()["code"].as_str().unwrap();
    let r = app
        .call(
            TestRequest::get()
                .uri(&format!("/v1/carts/{code}"))
                .insert_header(("X-API-Key", app.a.publishable.as_str()))
                .insert_header(("Origin", ORIGIN)),
        )
        .await;
    r.assert_status(200);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{:?}", r.headers);

    // Errors stay readable by the browser too.
    let r = app
        .call(
            TestRequest::post()
                .uri("/v1/carts")
                .insert_header(("X-API-Key", app.a.publishable.as_str()))
                .insert_header(("Origin", ORIGIN))
                .set_json(json!({"items": []})),
        )
        .await;
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{:?}", r.headers);
}

http_tests!(
    create_with_a_publishable_key_returns_201_with_code_and_expires_at_only,
    expires_at_is_exactly_90_days_after_created_at,
    codes_are_7_characters_without_look_alikes_and_unique,
    a_secret_key_may_also_create_and_read_carts,
    a_missing_key_is_401_on_carts,
    get_returns_code_created_at_expires_at_and_items_of_full_products_plus_qty,
    variant_lines_carry_the_variant_as_it_was_and_its_price,
    amounts_are_rounded_to_the_currencys_minor_unit,
    unknown_and_repeated_variants_are_400_naming_the_entry,
    a_cart_holds_one_currency,
    unknown_codes_are_404,
    malformed_codes_are_404,
    another_agents_cart_is_404,
    a_cart_holds_the_callers_own_product_when_two_agents_share_an_id,
    a_cart_is_readable_until_90_days_then_410_for_its_owner_and_404_for_others,
    a_cart_made_later_is_still_readable_when_an_older_one_expired,
    a_cart_never_changes_when_its_products_change,
    a_cart_never_changes_when_its_products_become_drafts,
    missing_items_is_400,
    empty_items_is_400,
    at_most_50_items,
    qty_below_1_or_above_99_is_400_naming_the_entry,
    qty_that_is_not_an_integer_is_400_naming_the_entry,
    a_missing_product_id_is_400_naming_the_entry,
    a_product_listed_twice_is_400_naming_the_repeat,
    an_unknown_product_is_400_naming_the_entry,
    a_draft_product_is_400_naming_the_entry,
    another_agents_product_is_400_naming_the_entry,
    every_unavailable_product_is_named,
    bad_quantities_and_unavailable_products_are_named_together,
    an_unknown_body_field_is_400,
    cart_routes_answer_cors_preflight_and_allow_the_api_key_header,
    cart_requests_with_an_origin_carry_access_control_allow_origin,
);
