//! Migrations that rewrite data, held to what the code of their time wrote and reads, on both
//! backends: rows are written as the version before the migration wrote them, then migrated.

use chrono::{DateTime, Utc};
use parley_adapters_diesel::testing::TestDb;
use parley_domain::model::{AgentId, ContactFilter, Product, ProductDocument, ProductId, ProductRecord, StatusSet};

/// Times in milliseconds, and what the migration makes of them: the ends of the years RFC 3339
/// can write in UTC, PostgreSQL's "1 BC" (year 0000), times before 1970 that are not whole
/// seconds, and times past either end, which are clamped.
const TIMES: [(i64, &str); 9] = [
    (0, "1970-01-01T00:00:00.000Z"),
    (1_764_000_000_123, "2025-11-24T16:00:00.123Z"),
    (-1, "1969-12-31T23:59:59.999Z"),
    (-86_399_001, "1969-12-31T00:00:00.999Z"),
    (-62_167_219_200_000, "0000-01-01T00:00:00.000Z"),
    (-62_135_596_800_001, "0000-12-31T23:59:59.999Z"),
    (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    (253_402_300_800_000, "9999-12-31T23:59:59.999Z"),
    (-62_167_219_200_001, "0000-01-01T00:00:00.000Z"),
];

fn at(millis: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(millis).unwrap()
}

fn product(agent: &AgentId, i: usize, created: i64, updated: i64) -> Product {
    let record: ProductRecord = serde_json::from_value(serde_json::json!({
        "_id": format!("p{i}"), "kind": "product", "title": format!("It's \"{i}\" ☕"), "currency": "EUR", "base_price": 3.5,
        "category_tags": ["Mugs"], "variants": [{"id": "v", "title": "V", "price": 4, "selected_options": [{"name": "created_at", "value": "x"}]}]
    }))
    .unwrap();
    let mut p = Product::from_record(agent, record, at(0), None).unwrap();
    (p.created_at, p.updated_at) = (at(created), at(updated));
    p
}

/// What the version before `complete_documents` stored: the document without its timestamps.
fn legacy_body(p: &Product) -> String {
    let record = ProductRecord { status: None, created_at: None, updated_at: None, ..p.to_record() };
    serde_json::to_string(&record).unwrap()
}

fn sql_text(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

async fn stored_documents_gain_their_timestamps(backend: &str) {
    let db = TestDb::unmigrated(backend).await;
    db.store.migrate_before("complete_documents").await.unwrap();
    let agent = AgentId::new("agt_migrated");
    db.store.execute_sql("INSERT INTO agents (id, name, created_at) VALUES ('agt_migrated', 'A', 0)").await.unwrap();
    let products: Vec<Product> =
        TIMES.iter().enumerate().map(|(i, (millis, _))| product(&agent, i, *millis, TIMES[TIMES.len() - 1 - i].0)).collect();
    for p in &products {
        db.store
            .execute_sql(&format!(
                "INSERT INTO products (agent_id, id, status, kind, document, created_at, updated_at) \
                 VALUES ('agt_migrated', {}, 'active', 'product', {}, {}, {})",
                sql_text(p.id.as_str()),
                sql_text(&legacy_body(p)),
                p.created_at.timestamp_millis(),
                p.updated_at.timestamp_millis()
            ))
            .await
            .unwrap();
    }

    let applied = db.store.migrate().await.unwrap();
    assert_eq!(applied.first().map(String::as_str), Some("20261125000001"), "complete_documents comes next");

    let repos = db.store.repositories();
    for (i, p) in products.iter().enumerate() {
        let (created, updated) = (TIMES[i].1, TIMES[TIMES.len() - 1 - i].1);
        let stored = repos.products.get(&agent, &ProductId::lookup(p.id.as_str())).await.unwrap().unwrap();
        let mut expected = p.clone();
        (expected.created_at, expected.updated_at) = (created.parse().unwrap(), updated.parse().unwrap());
        assert_eq!(stored, ProductDocument::of(&expected), "{backend}: {created} / {updated}");
        assert!(stored.as_str().ends_with(&format!(r#""created_at":"{created}","updated_at":"{updated}"}}"#)));
    }
    // The columns listing orders on agree with the documents, clamped times included.
    let exported = repos.products.export_page(&agent, None, 100).await.unwrap();
    for p in exported {
        assert_eq!(ProductDocument::of(&p), repos.products.get(&agent, &p.id).await.unwrap().unwrap(), "{backend}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_stored_documents_gain_their_timestamps() {
    stored_documents_gain_their_timestamps("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_stored_documents_gain_their_timestamps() {
    stored_documents_gain_their_timestamps("postgres").await;
}

async fn category_rows_gain_their_products_keys(backend: &str) {
    let db = TestDb::unmigrated(backend).await;
    db.store.migrate_before("category_product_keys").await.unwrap();
    let agent = AgentId::new("agt_migrated");
    let mut sql = String::from("INSERT INTO agents (id, name, created_at) VALUES ('agt_migrated', 'A', 0);");
    let products: Vec<Product> = (0..5).map(|i| product(&agent, i, 1_000 * i as i64, 0)).collect();
    for p in &products {
        let (id, created) = (sql_text(p.id.as_str()), p.created_at.timestamp_millis());
        sql += &format!(
            "INSERT INTO products (agent_id, id, status, kind, document, created_at, updated_at) \
             VALUES ('agt_migrated', {id}, 'active', 'product', {}, {created}, 0);",
            sql_text(ProductDocument::of(p).as_str())
        );
        if p.id.as_str() != "p2" {
            sql += &format!(
                "INSERT INTO product_categories (agent_id, tag, product_id, kind, created_at) VALUES ('agt_migrated', 'Mugs', {id}, 'product', {created});"
            );
        }
    }
    // A category row whose product is gone cannot be keyed: the migration drops it.
    sql += "INSERT INTO product_categories (agent_id, tag, product_id, kind, created_at) VALUES ('agt_migrated', 'Mugs', 'gone', 'product', 9000);";
    sql += "INSERT INTO catalog_facets (agent_id, facet, name, count) VALUES ('agt_migrated', 'category', 'Mugs', 4);";
    db.store.execute_sql(&sql).await.unwrap();

    db.store.migrate().await.unwrap();

    let repos = db.store.repositories();
    let filter = parley_domain::model::ProductFilter { tag: Some("Mugs".into()), kind: None };
    let page = repos.products.list(&agent, &filter, parley_domain::model::PageRequest::new(10, 0)).await.unwrap();
    let expected: Vec<ProductDocument> = [4, 3, 1, 0].iter().map(|&i| ProductDocument::of(&products[i])).collect();
    assert_eq!(page.items, expected, "{backend}: the category's products, newest first, the gone one dropped");
    assert_eq!(page.total, 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_category_rows_gain_their_products_keys() {
    category_rows_gain_their_products_keys("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_category_rows_gain_their_products_keys() {
    category_rows_gain_their_products_keys("postgres").await;
}

async fn activities_become_searchable_through_terms(backend: &str) {
    use parley_domain::model::{ActivityFilter, ActivitySearch, PageRequest};
    let db = TestDb::unmigrated(backend).await;
    db.store.migrate_before("activity_search_terms").await.unwrap();
    let agent = AgentId::new("agt_migrated");
    let people = [
        ("Anna Bell", "5215550001"),
        ("ÉMILE Zola", "4470009999"),
        ("😀 Smile", "12"),
        ("Maximiliano Alejandro de la Santísima Trinidad Pérez", "15550004000"),
    ];
    let mut sql = String::from("INSERT INTO agents (id, name, created_at) VALUES ('agt_migrated', 'A', 0), ('agt_other', 'B', 0);");
    for (agent_id, offset) in [("agt_migrated", 0), ("agt_other", 10)] {
        for (i, (name, digits)) in people.iter().enumerate() {
            let n = i + offset;
            let (name, lower) = (sql_text(name), sql_text(&name.to_lowercase()));
            sql += &format!(
                "INSERT INTO contacts (id, agent_id, profile_name, name_search, custom_attributes, created_at, updated_at) \
                     VALUES ('con_{n}', '{agent_id}', {name}, {lower}, '{{}}', 0, 0);
                 INSERT INTO contact_channels (agent_id, channel_type, channel_id, contact_id, digits, position) \
                     VALUES ('{agent_id}', 'whatsapp', '{digits}', 'con_{n}', '{digits}', 0);
                 INSERT INTO activities (id, agent_id, contact_id, status, created_at, updated_at, contact_name) \
                     VALUES ('act_{n}', '{agent_id}', 'con_{n}', 'open', {n}, {n}, {name});"
            );
        }
    }
    db.store.execute_sql(&sql).await.unwrap();

    db.store.migrate().await.unwrap();

    let repos = db.store.repositories();
    let cases: [(&str, &[&str]); 9] = [
        ("a", &["act_3", "act_1", "act_0"]),
        ("NN", &["act_0"]),
        ("émile", &["act_1"]),
        ("😀", &["act_2"]),
        ("alejandro de la santísima trinidad pérez", &["act_3"]),
        ("Alejandro de la Santísima Trinidad PérezX", &[]),
        ("555", &["act_3", "act_0"]),
        ("0004000", &["act_3"]),
        ("12", &[]),
    ];
    for (fragment, expected) in cases {
        let filter = ActivityFilter { search: Some(ActivitySearch::new(fragment).unwrap()), ..Default::default() };
        let page = repos.activities.list(&agent, &filter, PageRequest::new(100, 0)).await.unwrap();
        let found: Vec<&str> = page.items.iter().map(|v| v.activity.id.as_str()).collect();
        assert_eq!(found, expected, "{backend}: {fragment:?}");
        assert_eq!(page.total, expected.len() as u64);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_activities_become_searchable_through_terms() {
    activities_become_searchable_through_terms("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_activities_become_searchable_through_terms() {
    activities_become_searchable_through_terms("postgres").await;
}

/// Terms written by `activity_search_terms` (every suffix of every name) become what this version
/// writes: a name that is its number keeps those digits once, searches find the same activities.
async fn number_names_keep_their_digits_once(backend: &str) {
    use parley_adapters_diesel::Store;
    use parley_domain::model::{ActivityFilter, ActivitySearch, PageRequest};
    let db = TestDb::unmigrated(backend).await;
    db.store.migrate_before("activity_search_terms").await.unwrap();
    let agent = AgentId::new("agt_migrated");
    // (name, channel digits): named by the number, by the number written otherwise, by a name,
    // by another number, and by a number longer than a term.
    let long = "1".repeat(40);
    let people = [
        ("15550004001", "15550004001"),
        ("+1 555 000 4002", "15550004002"),
        ("Anna 5550004003", "15550004003"),
        ("4470009999", "15550004004"),
        (long.as_str(), long.as_str()),
    ];
    let mut sql = String::from("INSERT INTO agents (id, name, created_at) VALUES ('agt_migrated', 'A', 0);");
    for (n, (name, digits)) in people.iter().enumerate() {
        let (name, lower) = (sql_text(name), sql_text(&name.to_lowercase()));
        sql += &format!(
            "INSERT INTO contacts (id, agent_id, profile_name, name_search, custom_attributes, created_at, updated_at) \
                 VALUES ('con_{n}', 'agt_migrated', {name}, {lower}, '{{}}', 0, 0);
             INSERT INTO contact_channels (agent_id, channel_type, channel_id, contact_id, digits, position) \
                 VALUES ('agt_migrated', 'whatsapp', '{digits}', 'con_{n}', '{digits}', 0);
             INSERT INTO activities (id, agent_id, contact_id, status, created_at, updated_at, contact_name) \
                 VALUES ('act_{n}', 'agt_migrated', 'con_{n}', 'open', {n}, {n}, {name});"
        );
    }
    db.store.execute_sql(&sql).await.unwrap();

    let applied = db.store.migrate().await.unwrap();
    assert!(applied.iter().any(|m| m == "20261125000004"), "{backend}: number_name_terms ran: {applied:?}");

    for (n, (name, digits)) in people.iter().enumerate() {
        let stored = db.store.search_terms(&format!("act_{n}")).await.unwrap();
        assert_eq!(stored, Store::expected_search_terms(&name.to_lowercase(), &[digits]), "{backend}: terms of {name:?}");
    }
    let repos = db.store.repositories();
    let cases: [(&str, &[&str]); 8] = [
        ("5", &["act_2", "act_1", "act_0"]),
        ("55", &["act_2", "act_1", "act_0"]),
        ("5550004", &["act_3", "act_2", "act_1", "act_0"]),
        ("0004001", &["act_0"]),
        ("447", &["act_3"]),
        ("44", &["act_3"]),
        ("anna", &["act_2"]),
        ("111111", &["act_4"]),
    ];
    for (fragment, expected) in cases {
        let filter = ActivityFilter { search: Some(ActivitySearch::new(fragment).unwrap()), ..Default::default() };
        let page = repos.activities.list(&agent, &filter, PageRequest::new(100, 0)).await.unwrap();
        let found: Vec<&str> = page.items.iter().map(|v| v.activity.id.as_str()).collect();
        assert_eq!(found, expected, "{backend}: {fragment:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_number_names_keep_their_digits_once() {
    number_names_keep_their_digits_once("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_number_names_keep_their_digits_once() {
    number_names_keep_their_digits_once("postgres").await;
}

async fn agents_gain_their_kept_contact_counts(backend: &str) {
    use parley_domain::model::PageRequest;
    let db = TestDb::unmigrated(backend).await;
    db.store.migrate_before("contact_counts").await.unwrap();
    let mut sql =
        String::from("INSERT INTO agents (id, name, created_at) VALUES ('agt_many', 'A', 0), ('agt_one', 'B', 0), ('agt_none', 'C', 0);");
    for (n, agent) in ["agt_many", "agt_many", "agt_many", "agt_one"].iter().enumerate() {
        sql += &format!(
            "INSERT INTO contacts (id, agent_id, profile_name, name_search, custom_attributes, created_at, updated_at) \
                 VALUES ('con_{n}', '{agent}', 'C{n}', 'c{n}', '{{}}', {n}, {n});"
        );
    }
    db.store.execute_sql(&sql).await.unwrap();

    db.store.migrate().await.unwrap();

    let repos = db.store.repositories();
    for (agent, expected) in [("agt_many", 3), ("agt_one", 1), ("agt_none", 0)] {
        let page = repos.contacts.list(&AgentId::new(agent), &ContactFilter::default(), PageRequest::new(2, 0)).await.unwrap();
        assert_eq!(page.total, expected, "{backend}: {agent}");
        assert_eq!(page.items.len() as u64, expected.min(2), "{backend}: {agent}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_agents_gain_their_kept_contact_counts() {
    agents_gain_their_kept_contact_counts("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_agents_gain_their_kept_contact_counts() {
    agents_gain_their_kept_contact_counts("postgres").await;
}

async fn contacts_gain_their_kept_channel_lists(backend: &str) {
    use parley_domain::model::{Channel, ChannelType, ContactId, PageRequest};
    let db = TestDb::unmigrated(backend).await;
    db.store.migrate_before("contact_channel_lists").await.unwrap();
    let mut sql = String::from("INSERT INTO agents (id, name, created_at) VALUES ('agt_a', 'A', 0);");
    for n in 0..3 {
        sql += &format!(
            "INSERT INTO contacts (id, agent_id, profile_name, name_search, custom_attributes, created_at, updated_at) \
                 VALUES ('con_{n}', 'agt_a', 'C{n}', 'c{n}', '{{}}', {n}, {n});"
        );
    }
    // Positions out of key order, and an id JSON must escape; con_2 has no channel at all.
    sql += "INSERT INTO contact_channels (agent_id, channel_type, channel_id, contact_id, digits, position) VALUES \
        ('agt_a', 'whatsapp', '14155550100', 'con_0', '14155550100', 1), ('agt_a', 'email', 'a\"b@x.test', 'con_0', '', 0), \
        ('agt_a', 'sms', '14155550101', 'con_1', '14155550101', 0);";
    db.store.execute_sql(&sql).await.unwrap();

    db.store.migrate().await.unwrap();

    let repos = db.store.repositories();
    let agent = AgentId::new("agt_a");
    let expected = [
        (
            "con_0",
            vec![
                Channel::from_stored(ChannelType::Email, "a\"b@x.test".into()),
                Channel::from_stored(ChannelType::Whatsapp, "14155550100".into()),
            ],
        ),
        ("con_1", vec![Channel::from_stored(ChannelType::Sms, "14155550101".into())]),
        ("con_2", vec![]),
    ];
    for (id, channels) in &expected {
        let contact = repos.contacts.get(&agent, &ContactId::new(*id)).await.unwrap().unwrap();
        assert_eq!(&contact.channels, channels, "{backend}: {id}");
    }
    let page = repos.contacts.list(&agent, &ContactFilter::default(), PageRequest::new(10, 0)).await.unwrap();
    let listed: Vec<_> = page.items.iter().rev().map(|c| (c.id.as_str(), c.channels.clone())).collect();
    let expected: Vec<_> = expected.iter().map(|(id, ch)| (*id, ch.clone())).collect();
    assert_eq!(listed, expected, "{backend}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_contacts_gain_their_kept_channel_lists() {
    contacts_gain_their_kept_channel_lists("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_contacts_gain_their_kept_channel_lists() {
    contacts_gain_their_kept_channel_lists("postgres").await;
}

async fn activities_gain_their_kept_message_counts(backend: &str) {
    use parley_domain::model::{ActivityId, MessageFilter, PageRequest};
    let db = TestDb::unmigrated(backend).await;
    db.store.migrate_before("message_counts").await.unwrap();
    let mut sql = String::from("INSERT INTO agents (id, name, created_at) VALUES ('agt_a', 'A', 0);");
    for n in 0..2 {
        sql += &format!(
            "INSERT INTO contacts (id, agent_id, profile_name, name_search, custom_attributes, created_at, updated_at) \
                 VALUES ('con_{n}', 'agt_a', 'C{n}', 'c{n}', '{{}}', 0, 0);\
             INSERT INTO activities (id, agent_id, contact_id, status, created_at, updated_at) \
                 VALUES ('act_{n}', 'agt_a', 'con_{n}', 'open', 0, 0);"
        );
    }
    for n in 0..3 {
        sql += &format!(
            "INSERT INTO messages (id, agent_id, activity_id, direction, type, content, text, channel_type, channel_id, status, created_at, updated_at) \
                 VALUES ('msg_{n}', 'agt_a', 'act_0', 'inbound', 'text', '{{\"type\":\"text\",\"text\":{{\"body\":\"hi\"}}}}', 'hi', 'whatsapp', '15550001', 'received', {n}, {n});"
        );
    }
    db.store.execute_sql(&sql).await.unwrap();

    db.store.migrate().await.unwrap();

    let repos = db.store.repositories();
    let agent = AgentId::new("agt_a");
    for (activity, expected) in [("act_0", 3), ("act_1", 0)] {
        let page = repos.messages.list(&agent, &ActivityId::new(activity), MessageFilter::default(), PageRequest::new(2, 0)).await.unwrap();
        assert_eq!(page.total, expected, "{backend}: {activity}");
        assert_eq!(page.items.len() as u64, expected.min(2), "{backend}: {activity}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_activities_gain_their_kept_message_counts() {
    activities_gain_their_kept_message_counts("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_activities_gain_their_kept_message_counts() {
    activities_gain_their_kept_message_counts("postgres").await;
}

/// Counts kept before they were split over shards carry over (as shard 0).
async fn kept_counts_carry_over_into_shards(backend: &str) {
    use parley_domain::model::{ActivityFilter, ActivityStatus, PageRequest};
    let db = TestDb::unmigrated(backend).await;
    db.store.migrate_before("count_shards").await.unwrap();
    let mut sql = String::from("INSERT INTO agents (id, name, created_at, contact_count) VALUES ('agt_a', 'A', 0, 3);");
    for (n, status) in ["open", "open", "closed"].iter().enumerate() {
        sql += &format!(
            "INSERT INTO contacts (id, agent_id, profile_name, name_search, custom_attributes, created_at, updated_at) \
                 VALUES ('con_{n}', 'agt_a', 'C{n}', 'c{n}', '{{}}', {n}, {n});\
             INSERT INTO activities (id, agent_id, contact_id, contact_name, status, created_at, updated_at) \
                 VALUES ('act_{n}', 'agt_a', 'con_{n}', 'C{n}', '{status}', {n}, {n});"
        );
    }
    sql += "INSERT INTO activity_counts (agent_id, status, count) VALUES ('agt_a', 'open', 2), ('agt_a', 'closed', 1);";
    db.store.execute_sql(&sql).await.unwrap();

    db.store.migrate().await.unwrap();

    let repos = db.store.repositories();
    let agent = AgentId::new("agt_a");
    let total = |status: Option<ActivityStatus>| {
        let repos = repos.clone();
        let agent = agent.clone();
        async move {
            let filter = ActivityFilter { status: status.map_or_else(StatusSet::default, StatusSet::from), ..ActivityFilter::default() };
            repos.activities.list(&agent, &filter, PageRequest::new(1, 0)).await.unwrap().total
        }
    };
    assert_eq!(
        (total(None).await, total(Some(ActivityStatus::Open)).await, total(Some(ActivityStatus::Closed)).await),
        (3, 2, 1),
        "{backend}"
    );
    assert_eq!(repos.contacts.list(&agent, &ContactFilter::default(), PageRequest::new(1, 0)).await.unwrap().total, 3, "{backend}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_kept_counts_carry_over_into_shards() {
    kept_counts_carry_over_into_shards("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_kept_counts_carry_over_into_shards() {
    kept_counts_carry_over_into_shards("postgres").await;
}

/// A cart row as written before carts had variants and one currency: lines without
/// `variant_id`, and (possible then) products in two currencies.
async fn carts_made_before_variants_read_with_their_totals(backend: &str) {
    let db = TestDb::of(backend).await;
    let agent = AgentId::new("agt_migrated");
    db.store.execute_sql("INSERT INTO agents (id, name, created_at) VALUES ('agt_migrated', 'A', 0)").await.unwrap();
    let euro = product(&agent, 1, 0, 0);
    let mut dollar = product(&agent, 2, 0, 0);
    dollar.currency = parley_domain::model::Currency::new("USD").unwrap();
    let line = |p: &Product, qty: u8| serde_json::json!({"product": p.to_record(), "qty": qty});
    for (code, items) in [("Ab3kP9z", vec![line(&euro, 3)]), ("Zz9kP9z", vec![line(&euro, 1), line(&dollar, 1)])] {
        db.store
            .execute_sql(&format!(
                "INSERT INTO carts (code, agent_id, items, created_at, expires_at) VALUES ('{code}', 'agt_migrated', {}, 0, 7776000000)",
                sql_text(&serde_json::Value::Array(items).to_string())
            ))
            .await
            .unwrap();
    }
    let repos = db.store.repositories();
    let code = |c: &str| parley_domain::model::CartCode::parse(c).unwrap();
    let one = repos.carts.get(&agent, &code("Ab3kP9z")).await.unwrap().unwrap();
    assert_eq!(one.items[0].variant, None, "{backend}");
    let total = one.total().unwrap();
    assert_eq!((total.currency.as_str(), total.total.to_string()), ("EUR", "10.5".to_string()), "{backend}: 3 × 3.5");
    let mixed = repos.carts.get(&agent, &code("Zz9kP9z")).await.unwrap().unwrap();
    assert_eq!(mixed.total(), None, "{backend}: two currencies cannot be summed");
    assert_eq!(mixed.items[1].line_total().to_string(), "3.5", "{backend}: each line still can");
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_carts_made_before_variants_read_with_their_totals() {
    carts_made_before_variants_read_with_their_totals("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_carts_made_before_variants_read_with_their_totals() {
    carts_made_before_variants_read_with_their_totals("postgres").await;
}

/// Conversations as written before the team inbox: the kept counts gain their unassigned
/// share (split over shards, as PostgreSQL's are), and contacts their search terms.
async fn inbox_filters_count_the_unassigned_and_search_every_contact(backend: &str) {
    use parley_domain::model::{ActivityFilter, ActivitySearch, ActivityStatus, AssigneeFilter, PageRequest};
    let db = TestDb::unmigrated(backend).await;
    db.store.migrate_before("inbox_filters").await.unwrap();
    let mut sql = String::from("INSERT INTO agents (id, name, created_at) VALUES ('agt_a', 'A', 0), ('agt_b', 'B', 0);");
    let people = [
        ("agt_a", "Ana María", Some("ana@mail.com"), ("whatsapp", "5215550001"), Some(("open", None))),
        ("agt_a", "Bo", None, ("email", "bo@shop.mx"), Some(("open", Some("user_1")))),
        ("agt_a", "Cy", None, ("instagram", "ig_cy"), Some(("closed", None))),
        ("agt_a", "Di", None, ("whatsapp", "5215550004"), None),
        ("agt_b", "Ana B", None, ("whatsapp", "5215550009"), Some(("open", None))),
    ];
    for (n, (agent, name, email, (channel_type, channel_id), activity)) in people.iter().enumerate() {
        let email = email.map_or("NULL".to_string(), sql_text);
        let digits: String = channel_id.chars().filter(char::is_ascii_digit).collect();
        let (shown, lower) = (sql_text(name), sql_text(&name.to_lowercase()));
        let list = sql_text(&format!(r#"[["{channel_type}","{channel_id}"]]"#));
        sql += &format!(
            "INSERT INTO contacts (id, agent_id, profile_name, name_search, email, custom_attributes, created_at, updated_at, channel_list) \
                 VALUES ('con_{n}', '{agent}', {shown}, {lower}, {email}, '{{}}', {n}, {n}, {list});
             INSERT INTO contact_channels (agent_id, channel_type, channel_id, contact_id, digits, position) \
                 VALUES ('{agent}', '{channel_type}', '{channel_id}', 'con_{n}', '{digits}', 0);"
        );
        if let Some((status, assignee)) = activity {
            let assignee = assignee.map_or("NULL".to_string(), sql_text);
            sql += &format!(
                "INSERT INTO activities (id, agent_id, contact_id, contact_name, status, assigned_to, created_at, updated_at, channel_list) \
                     VALUES ('act_{n}', '{agent}', 'con_{n}', {shown}, '{status}', {assignee}, {n}, {n}, {list});"
            );
        }
    }
    // Agent A's open count split over two shards.
    sql += "INSERT INTO activity_counts (agent_id, status, shard, count) VALUES \
        ('agt_a', 'open', 0, 1), ('agt_a', 'open', 5, 1), ('agt_a', 'closed', 0, 1), ('agt_b', 'open', 0, 1);";
    db.store.execute_sql(&sql).await.unwrap();

    db.store.migrate().await.unwrap();

    let repos = db.store.repositories();
    let agent = AgentId::new("agt_a");
    let unassigned = |status: StatusSet| ActivityFilter { status, assigned_to: Some(AssigneeFilter::Unassigned), ..Default::default() };
    for (filter, expected) in [
        (unassigned(StatusSet::ANY), vec!["act_2", "act_0"]),
        (unassigned(ActivityStatus::Open.into()), vec!["act_0"]),
        (unassigned(ActivityStatus::Closed.into()), vec!["act_2"]),
    ] {
        let page = repos.activities.list(&agent, &filter, PageRequest::new(10, 0)).await.unwrap();
        let found: Vec<&str> = page.items.iter().map(|v| v.activity.id.as_str()).collect();
        assert_eq!((found, page.total), (expected.clone(), expected.len() as u64), "{backend}: {filter:?}");
    }
    for (fragment, expected) in [
        ("ana", vec!["con_0"]),
        ("mail.com", vec!["con_0"]),
        ("shop.mx", vec!["con_1"]),
        ("0004", vec!["con_3"]),
        ("c", vec!["con_2", "con_0"]),
    ] {
        let filter = ContactFilter { search: Some(ActivitySearch::new(fragment).unwrap()), ..Default::default() };
        let page = repos.contacts.list(&agent, &filter, PageRequest::new(10, 0)).await.unwrap();
        let found: Vec<&str> = page.items.iter().map(|c| c.id.as_str()).collect();
        assert_eq!((found, page.total), (expected.clone(), expected.len() as u64), "{backend}: {fragment:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_inbox_filters_count_the_unassigned_and_search_every_contact() {
    inbox_filters_count_the_unassigned_and_search_every_contact("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_inbox_filters_count_the_unassigned_and_search_every_contact() {
    inbox_filters_count_the_unassigned_and_search_every_contact("postgres").await;
}

/// Messages stored before per-message pricing read back unpriced, and a status update prices
/// them; a campaign's sends from then count by their pricing.
async fn messages_from_before_pricing_read_unpriced_and_take_one(backend: &str) {
    use parley_domain::model::{ActivityId, CampaignKey, MessageId, MessageStatus, Pricing, PricingCategory};
    let db = TestDb::unmigrated(backend).await;
    db.store.migrate_before("message_pricing").await.unwrap();
    let sql = "INSERT INTO agents (id, name, created_at) VALUES ('agt_a', 'A', 0);\
        INSERT INTO contacts (id, agent_id, profile_name, name_search, custom_attributes, created_at, updated_at) \
            VALUES ('con_0', 'agt_a', 'C0', 'c0', '{}', 0, 0);\
        INSERT INTO activities (id, agent_id, contact_id, status, created_at, updated_at) VALUES ('act_0', 'agt_a', 'con_0', 'open', 0, 0);\
        INSERT INTO messages (id, agent_id, activity_id, direction, type, content, text, platform_message_id, channel_type, channel_id, \
            status, campaign_key, created_at, sent_at, updated_at) \
            VALUES ('msg_0', 'agt_a', 'act_0', 'outbound', 'text', '{\"type\":\"text\",\"text\":{\"body\":\"hi\"}}', 'hi', 'wamid.0', \
            'whatsapp', '15550001', 'sent', 'spring', 1, 1, 1);";
    db.store.execute_sql(sql).await.unwrap();

    db.store.migrate().await.unwrap();

    let repos = db.store.repositories();
    let (agent, activity, key) = (AgentId::new("agt_a"), ActivityId::new("act_0"), CampaignKey::new("spring").unwrap());
    let stored = repos.messages.get(&agent, &activity, &MessageId::new("msg_0")).await.unwrap().unwrap();
    assert_eq!(stored.pricing, None, "{backend}");
    assert_eq!(repos.messages.pricing_counts(&agent, &key).await.unwrap(), [], "{backend}");
    let marketing = Pricing::Reported { category: PricingCategory::parse("marketing").unwrap(), billable: true };
    let priced = parley_domain::model::Message { pricing: Some(marketing.clone()), ..stored };
    assert!(repos.messages.update_status(&priced, MessageStatus::Sent, &[]).await.unwrap());
    assert_eq!(repos.messages.pricing_counts(&agent, &key).await.unwrap(), [(marketing, 1)], "{backend}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_messages_from_before_pricing_read_unpriced_and_take_one() {
    messages_from_before_pricing_read_unpriced_and_take_one("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_messages_from_before_pricing_read_unpriced_and_take_one() {
    messages_from_before_pricing_read_unpriced_and_take_one("postgres").await;
}

/// Keys folded before searches ignored accents (lowercase only) are derived again when the store
/// migrates: contacts, their activities and canned responses are then found without the accents,
/// and with them.
async fn names_kept_with_accents_are_found_without_them(backend: &str) {
    use parley_domain::model::{ActivityFilter, ActivitySearch, CannedSearch, PageRequest};
    let db = TestDb::unmigrated(backend).await;
    db.store.migrate_before("accent_free_search").await.unwrap();
    let list = sql_text(r#"[["whatsapp","5215550001"]]"#);
    // As the version before wrote them: keys lowercased only, and the name's terms from them.
    let sql = format!(
        "INSERT INTO agents (id, name, created_at) VALUES ('agt_a', 'A', 0);
         INSERT INTO contacts (id, agent_id, profile_name, name_search, custom_attributes, created_at, updated_at, channel_list) \
             VALUES ('con_0', 'agt_a', 'Ana López', 'ana lópez', '{{}}', 0, 0, {list}), \
                    ('con_1', 'agt_a', 'Bo', 'bo', '{{}}', 1, 1, '[]');
         INSERT INTO contact_channels (agent_id, channel_type, channel_id, contact_id, digits, position) \
             VALUES ('agt_a', 'whatsapp', '5215550001', 'con_0', '5215550001', 0);
         INSERT INTO activities (id, agent_id, contact_id, contact_name, status, created_at, updated_at, channel_list) \
             VALUES ('act_0', 'agt_a', 'con_0', 'Ana López', 'open', 0, 0, {list});
         INSERT INTO contact_search_terms (agent_id, term, contact_id) VALUES ('agt_a', 'nlópez', 'con_0'), ('agt_a', 'nbo', 'con_1');
         INSERT INTO canned_responses (id, agent_id, short_code, text, text_key, created_at, updated_at) \
             VALUES ('can_0', 'agt_a', 'envio', 'Envío gratis desde 50 €', 'envío gratis desde 50 €', 0, 0);"
    );
    db.store.execute_sql(&sql).await.unwrap();

    db.store.migrate().await.unwrap();

    let repos = db.store.repositories();
    let agent = AgentId::new("agt_a");
    for fragment in ["lopez", "LÓPEZ", "ana lo"] {
        let search = Some(ActivitySearch::new(fragment).unwrap());
        let filter = ContactFilter { search: search.clone(), ..Default::default() };
        let contacts = repos.contacts.list(&agent, &filter, PageRequest::new(10, 0)).await.unwrap();
        let found: Vec<&str> = contacts.items.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(found, ["con_0"], "{backend}: contacts {fragment:?}");
        let filter = ActivityFilter { search, status: StatusSet::ANY, ..Default::default() };
        let activities = repos.activities.list(&agent, &filter, PageRequest::new(10, 0)).await.unwrap();
        let found: Vec<&str> = activities.items.iter().map(|v| v.activity.id.as_str()).collect();
        assert_eq!(found, ["act_0"], "{backend}: activities {fragment:?}");
    }
    let bo = ContactFilter { search: Some(ActivitySearch::new("bo").unwrap()), ..Default::default() };
    assert_eq!(repos.contacts.list(&agent, &bo, PageRequest::new(10, 0)).await.unwrap().total, 1, "{backend}: keys without accents kept");
    for fragment in ["envio", "ENVÍO gratis"] {
        let page = repos.canned_responses.list(&agent, Some(CannedSearch::new(fragment).unwrap()), PageRequest::new(10, 0)).await.unwrap();
        assert_eq!(page.total, 1, "{backend}: canned {fragment:?}");
    }
    // Done once: a later start finds nothing left to derive and changes nothing.
    db.store.migrate().await.unwrap();
    let again = ContactFilter { search: Some(ActivitySearch::new("lopez").unwrap()), ..Default::default() };
    assert_eq!(repos.contacts.list(&agent, &again, PageRequest::new(10, 0)).await.unwrap().total, 1, "{backend}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_names_kept_with_accents_are_found_without_them() {
    names_kept_with_accents_are_found_without_them("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_names_kept_with_accents_are_found_without_them() {
    names_kept_with_accents_are_found_without_them("postgres").await;
}
