//! The storage contract of products, their vectors and catalog revisions, and carts
//! (`ProductRepository`, `ProductVectorRepository`, `CartRepository`).

#![expect(clippy::unwrap_used, reason = "a test suite: a failed step is a failed check")]

use crate::StoreError;
use crate::model::*;
use crate::ports::Repositories;

use crate::conformance::fixtures::*;

fn no_progress() -> crate::ports::ImportProgress {
    std::sync::Arc::new(|_| {})
}

async fn product_ids(r: &Repositories, agent: &AgentId, filter: ProductFilter, limit: u32, offset: u64) -> (Vec<String>, u64) {
    let p = r.products.list(agent, &filter, page(limit, offset)).await.unwrap();
    (p.items.into_iter().map(|doc| doc.to_product(agent).unwrap().id.as_str().to_string()).collect(), p.total)
}

/// Products list active only, newest first (ties by `_id` descending), filtered by exact
/// category tag and kind, with totals and facets that leave drafts out, as their documents.
pub async fn products_list_active_newest_first_with_filters_and_totals(r: Repositories) {
    let a = agent(&r, "A").await;
    let catalog = vec![
        product(&a, "p1", "product", &["Home", "Gifts"], "active", 1),
        product(&a, "p2", "service", &["Services"], "active", 2),
        product(&a, "p3", "product", &["Home"], "active", 2),
        product(&a, "p4", "product", &["Home"], "draft", 3),
        product(&a, "p5", "product", &["Gifts"], "active", 4),
    ];
    r.products.import(&a, &catalog, None, no_progress()).await.unwrap();

    assert_eq!(
        product_ids(&r, &a, ProductFilter::default(), 10, 0).await,
        (vec!["p5".into(), "p3".into(), "p2".into(), "p1".into()], 4),
        "drafts hidden; ties by _id desc"
    );
    assert_eq!(product_ids(&r, &a, ProductFilter::default(), 2, 2).await, (vec!["p2".into(), "p1".into()], 4));
    let home = ProductFilter { tag: Some("Home".into()), kind: None };
    assert_eq!(product_ids(&r, &a, home, 10, 0).await, (vec!["p3".into(), "p1".into()], 2));
    assert_eq!(product_ids(&r, &a, ProductFilter { tag: Some("home".into()), kind: None }, 10, 0).await.1, 0, "tags match exactly");
    let services = ProductFilter { tag: None, kind: Some(ProductKind::Service) };
    assert_eq!(product_ids(&r, &a, services, 10, 0).await, (vec!["p2".into()], 1));
    let gift_products = ProductFilter { tag: Some("Gifts".into()), kind: Some(ProductKind::Product) };
    assert_eq!(product_ids(&r, &a, gift_products, 1, 0).await, (vec!["p5".into()], 2));
    let home = ProductFilter { tag: Some("Home".into()), kind: None };
    for (filter, shown) in [(ProductFilter::default(), &catalog[4]), (home, &catalog[2])] {
        let first = r.products.list(&a, &filter, page(1, 0)).await.unwrap().items;
        assert_eq!(first, [ProductDocument::of(shown)], "pages hold the documents of the products imported");
    }

    let facets = r.products.facets(&a).await.unwrap();
    assert_eq!(facets.total_items, 4);
    let counts: Vec<(String, u64)> = facets.categories.into_iter().map(|c| (c.name, c.count)).collect();
    assert_eq!(counts, [("Gifts".into(), 2), ("Home".into(), 2), ("Services".into(), 1)], "count desc, then name; drafts not counted");

    assert_eq!(r.products.get(&a, &ProductId::lookup("p1")).await.unwrap().unwrap(), ProductDocument::of(&catalog[0]), "stored exactly");
    assert!(r.products.get(&a, &ProductId::lookup("p4")).await.unwrap().is_none(), "drafts are not found");
    let active = r.products.find_active(&a, &[ProductId::lookup("p1"), ProductId::lookup("p4"), ProductId::lookup("nope")]).await.unwrap();
    assert_eq!(active.into_iter().map(|p| p.id).collect::<Vec<_>>(), [ProductId::lookup("p1")]);
}

/// A re-import replaces products and their facets (a product turned draft disappears but keeps
/// its row), and reports progress batch by batch up to the total.
pub async fn product_reimport_updates_rows_and_facets(r: Repositories) {
    let a = agent(&r, "A").await;
    r.products
        .import(
            &a,
            &[product(&a, "p1", "product", &["Home"], "active", 1), product(&a, "p2", "product", &["Home"], "active", 2)],
            None,
            no_progress(),
        )
        .await
        .unwrap();
    let mut changed = product(&a, "p1", "service", &["Garden"], "active", 1);
    changed.title = "Renamed".into();
    let hidden = product(&a, "p2", "product", &["Home"], "draft", 2);
    r.products.import(&a, &[changed.clone(), hidden], None, no_progress()).await.unwrap();

    assert_eq!(r.products.get(&a, &ProductId::lookup("p1")).await.unwrap().unwrap(), ProductDocument::of(&changed));
    assert!(r.products.get(&a, &ProductId::lookup("p2")).await.unwrap().is_none());
    let facets = r.products.facets(&a).await.unwrap();
    assert_eq!((facets.total_items, facets.categories.len(), facets.categories[0].name.as_str()), (1, 1, "Garden"));
    assert_eq!(product_ids(&r, &a, ProductFilter { tag: Some("Home".into()), kind: None }, 10, 0).await.1, 0);
    let times = r.products.created_times(&a).await.unwrap();
    assert_eq!(times.len(), 2, "drafts keep their rows");

    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let many: Vec<Product> = (0..1203).map(|i| product(&a, &format!("bulk{i:04}"), "product", &["Bulk"], "active", i)).collect();
    r.products.import(&a, &many, None, std::sync::Arc::new(move |n| log.lock().unwrap().push(n))).await.unwrap();
    let reported = seen.lock().unwrap().clone();
    assert_eq!(reported.last(), Some(&1203), "progress reaches the total");
    assert!(reported.windows(2).all(|w| w[0] < w[1]) && reported.len() > 1, "progress is reported batch by batch: {reported:?}");
    assert_eq!(r.products.facets(&a).await.unwrap().total_items, 1204);
}

/// Two agents may hold the same product `_id`; products, filters and facets are each agent's
/// own, and an agent with no catalog has empty facets.
pub async fn products_are_scoped_by_agent(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    r.products.import(&a, &[product(&a, "same", "product", &["Home"], "active", 1)], None, no_progress()).await.unwrap();
    let theirs = product(&b, "same", "service", &["Other"], "active", 2);
    r.products.import(&b, std::slice::from_ref(&theirs), None, no_progress()).await.unwrap();

    assert_eq!(
        r.products.get(&b, &ProductId::lookup("same")).await.unwrap().unwrap(),
        ProductDocument::of(&theirs),
        "two agents may hold the same _id"
    );
    assert_eq!(r.products.get(&a, &ProductId::lookup("same")).await.unwrap().unwrap().to_product(&a).unwrap().kind, ProductKind::Product);
    assert_eq!(product_ids(&r, &b, ProductFilter { tag: Some("Home".into()), kind: None }, 10, 0).await.1, 0);
    assert_eq!(r.products.facets(&b).await.unwrap().categories.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["Other"]);
    let c = agent(&r, "C").await;
    assert_eq!(r.products.facets(&c).await.unwrap(), CatalogFacets::default());
    assert_eq!(product_ids(&r, &c, ProductFilter::default(), 10, 0).await, (vec![], 0));
}

/// Export pages every product, drafts included, by `_id`, starting after the given one.
pub async fn product_export_pages_by_id_with_drafts(r: Repositories) {
    let a = agent(&r, "A").await;
    let catalog: Vec<Product> = ["c", "a", "d", "b"]
        .iter()
        .enumerate()
        .map(|(i, id)| product(&a, id, "product", &[], if i == 0 { "draft" } else { "active" }, i as i64))
        .collect();
    r.products.import(&a, &catalog, None, no_progress()).await.unwrap();
    let first = r.products.export_page(&a, None, 3).await.unwrap();
    let rest = r.products.export_page(&a, Some(first.last().unwrap().id.clone()), 3).await.unwrap();
    let ids: Vec<_> = first.iter().chain(&rest).map(|p| p.id.as_str().to_string()).collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    assert_eq!(first[2].status, ProductStatus::Draft);
    assert!(r.products.export_page(&a, Some(ProductId::lookup("d")), 3).await.unwrap().is_empty());
}

/// Carts read back exactly (lines, variants, prices), stay their agent's, have codes unique
/// across agents (`Conflict`), and never change when the catalog does.
pub async fn carts_store_snapshots_under_unique_codes(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let p = product(&a, "p1", "product", &["Home"], "active", 1);
    let cart = Cart {
        code: CartCode::parse("Ab3kP9z").unwrap(),
        agent_id: a.clone(),
        items: vec![
            CartItem { product: p.clone(), variant: None, qty: 3 },
            CartItem { product: p.clone(), variant: Some(p.variants[0].clone()), qty: 1 },
        ],
        created_at: t(10),
        expires_at: t(10) + CART_VALIDITY,
    };
    r.carts.insert(&cart, &[]).await.unwrap();
    let read = r.carts.get(&a, &cart.code).await.unwrap().unwrap();
    assert_eq!(read, cart, "lines, the chosen variant and the prices come back exactly");
    assert_eq!(read.total().unwrap().total.to_string(), "42.5", "3 × 10.5 + 11");
    assert!(r.carts.get(&b, &cart.code).await.unwrap().is_none(), "other agents' carts are invisible");
    let clash = Cart { agent_id: b.clone(), ..cart.clone() };
    assert!(matches!(r.carts.insert(&clash, &[]).await, Err(StoreError::Conflict(_))), "codes are unique across agents");

    let mut changed = p.clone();
    changed.title = "Changed".into();
    r.products.import(&a, &[changed], None, no_progress()).await.unwrap();
    assert_eq!(r.carts.get(&a, &cart.code).await.unwrap().unwrap().items[0].product, p, "a cart never changes");
}

const EMBEDDER: &str = "test-embedder@1";

fn vectors_for(products: &[Product], embedder: &str) -> ImportVectors {
    ImportVectors { embedder: embedder.into(), vectors: (0..products.len()).map(|i| vec![i as f32, 0.5, -1.25e-3]).collect() }
}

async fn all_changes(r: &Repositories, agent: &AgentId, embedder: &str, after: ChangeCursor) -> Vec<(String, u64, Option<Vec<f32>>)> {
    let changes = r.vectors.changes(agent, embedder, &after, 1000).await.unwrap();
    changes.into_iter().map(|c| (c.product.as_str().to_string(), c.revision, c.searchable.map(|s| s.vector))).collect()
}

/// Each import raises the agent's catalog revision and stamps its products; changes carry a
/// vector only for an active product embedded by the asked embedder.
pub async fn imports_store_vectors_and_raise_the_revision(r: Repositories) {
    let a = agent(&r, "A").await;
    assert!(r.vectors.revisions().await.unwrap().is_empty(), "no catalog, no revision");
    let catalog = vec![product(&a, "p2", "product", &[], "active", 1), product(&a, "p1", "product", &[], "draft", 2)];
    let vectors = vectors_for(&catalog, EMBEDDER);
    r.products.import(&a, &catalog, Some(&vectors), no_progress()).await.unwrap();
    assert_eq!(r.vectors.revisions().await.unwrap(), [(a.clone(), 1)]);
    assert_eq!(
        all_changes(&r, &a, EMBEDDER, ChangeCursor::default()).await,
        [("p1".into(), 1, None), ("p2".into(), 1, Some(vec![0.0, 0.5, -1.25e-3]))],
        "by revision then _id; a draft is never searchable; vectors round-trip exactly"
    );
    assert!(
        all_changes(&r, &a, "another-embedder@2", ChangeCursor::default()).await.iter().all(|c| c.2.is_none()),
        "a vector from another embedder is no vector"
    );
    assert_eq!(r.vectors.count_missing(EMBEDDER).await.unwrap(), 0);
    assert_eq!(r.vectors.count_missing("another-embedder@2").await.unwrap(), 1, "active products only");

    let published = product(&a, "p1", "product", &[], "active", 2);
    r.products
        .import(&a, std::slice::from_ref(&published), Some(&vectors_for(std::slice::from_ref(&published), EMBEDDER)), no_progress())
        .await
        .unwrap();
    assert_eq!(r.vectors.revisions().await.unwrap(), [(a.clone(), 2)]);
    let seen = ChangeCursor { revision: 1, product: None };
    assert_eq!(all_changes(&r, &a, EMBEDDER, seen).await, [("p1".into(), 2, Some(vec![0.0, 0.5, -1.25e-3]))], "only what changed since");

    r.products.import(&a, &[product(&a, "p2", "product", &[], "active", 1)], None, no_progress()).await.unwrap();
    let seen = ChangeCursor { revision: 2, product: None };
    assert_eq!(all_changes(&r, &a, EMBEDDER, seen).await, [("p2".into(), 3, None)], "imported without a vector: not searchable");
}

/// Catalog changes carry the product's kind and category tags, in the product's order.
pub async fn changes_carry_what_search_filters_on(r: Repositories) {
    let a = agent(&r, "A").await;
    let catalog =
        vec![product(&a, "p1", "service", &["Outdoor Gear", "Sale"], "active", 1), product(&a, "p2", "product", &[], "active", 1)];
    r.products.import(&a, &catalog, Some(&vectors_for(&catalog, EMBEDDER)), no_progress()).await.unwrap();
    let changes = r.vectors.changes(&a, EMBEDDER, &ChangeCursor::default(), 10).await.unwrap();
    let facets: Vec<(ProductKind, Vec<String>)> =
        changes.into_iter().map(|c| c.searchable.map(|s| (s.kind, s.category_tags)).unwrap()).collect();
    assert_eq!(
        facets,
        [(ProductKind::Service, vec!["Outdoor Gear".to_string(), "Sale".to_string()]), (ProductKind::Product, Vec::new())],
        "the kind and the category tags, in the product's order"
    );
}

/// Catalog changes page by revision, then `_id`, each product once at its latest revision.
pub async fn changes_page_by_revision_then_id(r: Repositories) {
    let a = agent(&r, "A").await;
    let first: Vec<Product> = ["c", "a", "b"].iter().map(|id| product(&a, id, "product", &[], "active", 1)).collect();
    r.products.import(&a, &first, Some(&vectors_for(&first, EMBEDDER)), no_progress()).await.unwrap();
    let second = vec![product(&a, "a", "product", &[], "active", 1)];
    r.products.import(&a, &second, Some(&vectors_for(&second, EMBEDDER)), no_progress()).await.unwrap();

    let mut cursor = ChangeCursor::default();
    let mut pages = Vec::new();
    loop {
        let page = r.vectors.changes(&a, EMBEDDER, &cursor, 2).await.unwrap();
        let Some(last) = page.last() else { break };
        cursor = ChangeCursor { revision: last.revision, product: Some(last.product.clone()) };
        pages.push(page.iter().map(|c| format!("{}@{}", c.product.as_str(), c.revision)).collect::<Vec<_>>());
    }
    assert_eq!(pages, [vec!["b@1", "c@1"], vec!["a@2"]], "a product appears once, at its latest revision");
}

/// Products needing vectors (none, or another embedder's) list by `_id`, drafts included;
/// storing vectors raises the revision once, ignores unknown ids and leaves products untouched.
pub async fn vectors_are_stored_for_missing_or_stale_products(r: Repositories) {
    let a = agent(&r, "A").await;
    let catalog: Vec<Product> = ["d", "b", "a", "c"]
        .iter()
        .enumerate()
        .map(|(i, id)| product(&a, id, "product", &[], if i == 0 { "draft" } else { "active" }, 1))
        .collect();
    let old = vectors_for(&catalog[..2], "old-embedder@0");
    r.products.import(&a, &catalog[..2], Some(&old), no_progress()).await.unwrap();
    r.products.import(&a, &catalog[2..], None, no_progress()).await.unwrap();
    assert_eq!(r.vectors.count_missing(EMBEDDER).await.unwrap(), 3, "active products without a current vector");

    let ids = |v: Vec<Product>| v.into_iter().map(|p| p.id.as_str().to_string()).collect::<Vec<_>>();
    let first = r.vectors.needing_vectors(&a, EMBEDDER, None, 3, false).await.unwrap();
    assert_eq!(ids(first), ["a", "b", "c"], "by _id, drafts included, at most limit");
    let after = ProductId::lookup("c");
    assert_eq!(ids(r.vectors.needing_vectors(&a, EMBEDDER, Some(&after), 3, false).await.unwrap()), ["d"]);

    let stored =
        vec![(ProductId::lookup("a"), vec![1.0, 0.0]), (ProductId::lookup("b"), vec![0.0, 1.0]), (ProductId::lookup("zz"), vec![1.0, 1.0])];
    r.vectors.store_vectors(&a, EMBEDDER, &stored).await.unwrap();
    assert_eq!(r.vectors.revisions().await.unwrap(), [(a.clone(), 3)], "one more revision for the write");
    assert_eq!(ids(r.vectors.needing_vectors(&a, EMBEDDER, None, 10, false).await.unwrap()), ["c", "d"]);
    assert_eq!(ids(r.vectors.needing_vectors(&a, EMBEDDER, None, 10, true).await.unwrap()), ["a", "b", "c", "d"], "all");
    assert_eq!(r.vectors.count_missing(EMBEDDER).await.unwrap(), 1);
    let changed = all_changes(&r, &a, EMBEDDER, ChangeCursor { revision: 2, product: None }).await;
    assert_eq!(changed, [("a".into(), 3, Some(vec![1.0, 0.0])), ("b".into(), 3, Some(vec![0.0, 1.0]))], "unknown ids are ignored");
    assert_eq!(
        r.products.get(&a, &ProductId::lookup("a")).await.unwrap().unwrap(),
        ProductDocument::of(&catalog[2]),
        "the product itself is untouched"
    );
}

/// Revisions, changes, missing vectors and vector writes are each agent's own.
pub async fn vectors_and_revisions_are_scoped_by_agent(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let mine = vec![product(&a, "same", "product", &[], "active", 1)];
    r.products.import(&a, &mine, Some(&vectors_for(&mine, EMBEDDER)), no_progress()).await.unwrap();
    let theirs = vec![product(&b, "same", "product", &[], "active", 1), product(&b, "other", "product", &[], "active", 1)];
    r.products.import(&b, &theirs, Some(&vectors_for(&theirs, EMBEDDER)), no_progress()).await.unwrap();
    r.products.import(&b, &theirs, None, no_progress()).await.unwrap();

    let mut revisions = r.vectors.revisions().await.unwrap();
    revisions.sort();
    let mut expected = vec![(a.clone(), 1), (b.clone(), 2)];
    expected.sort();
    assert_eq!(revisions, expected, "each agent has its own revision");
    assert_eq!(all_changes(&r, &a, EMBEDDER, ChangeCursor::default()).await, [("same".into(), 1, Some(vec![0.0, 0.5, -1.25e-3]))]);
    assert!(r.vectors.needing_vectors(&a, EMBEDDER, None, 10, false).await.unwrap().is_empty(), "B's missing vectors are not A's");

    r.vectors.store_vectors(&a, EMBEDDER, &[(ProductId::lookup("other"), vec![9.0])]).await.unwrap();
    assert!(all_changes(&r, &b, EMBEDDER, ChangeCursor::default()).await.iter().all(|c| c.2.is_none()), "A cannot write B's vectors");
}
