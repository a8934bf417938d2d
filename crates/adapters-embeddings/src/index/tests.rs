use super::collection::Rows;
use super::*;
use parley_domain::model::ProductKind;

/// The tests' shorthand for products of one kind without tags, and unfiltered queries.
trait Plain {
    fn put(&self, agent: &AgentId, items: &[(ProductId, Vec<f32>)]);
    fn top(&self, agent: &AgentId, query: &[f32], k: usize) -> Vec<(ProductId, f32)>;
}

impl Plain for ExactIndex {
    fn put(&self, agent: &AgentId, items: &[(ProductId, Vec<f32>)]) {
        let items: Vec<(ProductId, Searchable)> = items.iter().map(|(id, v)| (id.clone(), plain(v.clone()))).collect();
        self.upsert(agent, &items);
    }

    fn top(&self, agent: &AgentId, query: &[f32], k: usize) -> Vec<(ProductId, f32)> {
        self.top_k(agent, query, k, &ProductFilter::default())
    }
}

fn plain(vector: Vec<f32>) -> Searchable {
    Searchable { vector, kind: ProductKind::Product, category_tags: Vec::new() }
}

/// SplitMix64: a small deterministic generator, enough for test vectors.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    fn next_f32(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    fn unit(&mut self, dimensions: usize) -> Vec<f32> {
        loop {
            let v: Vec<f32> = (0..dimensions).map(|_| self.next_f32()).collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 1e-3 {
                return v.into_iter().map(|x| x / norm).collect();
            }
        }
    }
}

fn agent(name: &str) -> AgentId {
    AgentId::new(name)
}

fn pid(name: &str) -> ProductId {
    ProductId::lookup(name)
}

fn ids(results: &[(ProductId, f32)]) -> Vec<&str> {
    results.iter().map(|(id, _)| id.as_str()).collect()
}

/// Brute force in f64: every score, best first, ties by id.
fn reference(items: &HashMap<ProductId, Vec<f32>>, query: &[f32], k: usize) -> Vec<(ProductId, f64)> {
    let mut all: Vec<(ProductId, f64)> =
        items.iter().map(|(id, v)| (id.clone(), v.iter().zip(query).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum())).collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    all.truncate(k);
    all
}

/// The index's answer equals the reference up to float rounding: same length, the same score at
/// every rank, each returned id's own score right, no id twice.
fn assert_matches_reference(got: &[(ProductId, f32)], items: &HashMap<ProductId, Vec<f32>>, query: &[f32], k: usize) {
    let expected = reference(items, query, k);
    assert_eq!(got.len(), expected.len());
    for (rank, ((id, score), (_, expected_score))) in got.iter().zip(&expected).enumerate() {
        assert!((f64::from(*score) - expected_score).abs() < 1e-5, "rank {rank}: {score} vs {expected_score}");
        let own: f64 = items[id].iter().zip(query).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum();
        assert!((f64::from(*score) - own).abs() < 1e-5, "{id:?}: {score} vs {own}");
    }
    for pair in got.windows(2) {
        assert!(pair[0].1 >= pair[1].1, "not best first: {pair:?}");
    }
    let mut seen: Vec<&ProductId> = got.iter().map(|(id, _)| id).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), got.len());
}

#[test]
fn exact_results_match_brute_force() {
    let dims = 24;
    let index = ExactIndex::new(dims);
    let a = agent("agt_a");
    let mut rng = Rng(7);
    let mut items = HashMap::new();
    // Several batches, so the matrix grows a few times.
    for batch in 0..5 {
        let chunk: Vec<(ProductId, Vec<f32>)> = (0..97).map(|i| (pid(&format!("p{batch}-{i}")), rng.unit(dims))).collect();
        items.extend(chunk.iter().cloned());
        index.put(&a, &chunk);
    }
    assert_eq!(index.len(&a), items.len());
    for _ in 0..20 {
        let query = rng.unit(dims);
        for k in [1, 5, 10, 100, items.len(), items.len() + 10] {
            assert_matches_reference(&index.top(&a, &query, k), &items, &query, k);
        }
    }
    // The best match of a stored vector is itself, scoring ~1.
    let (id, v) = items.iter().next().unwrap();
    let top = index.top(&a, v, 1);
    assert_eq!(&top[0].0, id);
    assert!((top[0].1 - 1.0).abs() < 1e-5);
}

#[test]
fn agents_never_mix() {
    let index = ExactIndex::new(3);
    let (a, b, c) = (agent("agt_a"), agent("agt_b"), agent("agt_c"));
    index.put(&a, &[(pid("shared"), vec![1.0, 0.0, 0.0]), (pid("a-only"), vec![0.0, 1.0, 0.0])]);
    index.put(&b, &[(pid("shared"), vec![0.0, 0.0, 1.0])]);

    assert_eq!(index.len(&a), 2);
    assert_eq!(index.len(&b), 1);
    assert_eq!(index.len(&c), 0);

    let got = index.top(&a, &[0.0, 0.0, 1.0], 10);
    assert_eq!(ids(&got), vec!["a-only", "shared"]);
    assert!(got.iter().all(|(_, s)| *s == 0.0));
    let got = index.top(&b, &[1.0, 0.0, 0.0], 10);
    assert_eq!(got, vec![(pid("shared"), 0.0)]);
    assert!(index.top(&c, &[1.0, 0.0, 0.0], 10).is_empty());

    // Removing from one agent leaves the other alone, even for the same product id.
    index.remove(&b, &[pid("shared"), pid("a-only")]);
    assert_eq!(index.len(&b), 0);
    assert_eq!(index.len(&a), 2);
    assert_eq!(index.top(&a, &[1.0, 0.0, 0.0], 1), vec![(pid("shared"), 1.0)]);
    // An agent emptied and refilled works again.
    index.put(&b, &[(pid("again"), vec![0.0, 1.0, 0.0])]);
    assert_eq!(index.top(&b, &[0.0, 1.0, 0.0], 5), vec![(pid("again"), 1.0)]);
}

#[test]
fn upsert_replaces_in_place() {
    let index = ExactIndex::new(2);
    let a = agent("agt_a");
    index.put(&a, &[(pid("x"), vec![1.0, 0.0]), (pid("y"), vec![0.0, 1.0])]);
    index.put(&a, &[(pid("x"), vec![0.0, 1.0]), (pid("y"), vec![1.0, 0.0])]);
    assert_eq!(index.len(&a), 2);
    assert_eq!(index.top(&a, &[1.0, 0.0], 2), vec![(pid("y"), 1.0), (pid("x"), 0.0)]);
    {
        let agents = read(&index.agents);
        let collection = read(&agents[&a]);
        assert_eq!(collection.ids, vec![pid("x"), pid("y")], "rows keep their place");
        assert_eq!(collection.rows.len(), 2);
    }
    // The same id twice in one batch: the last vector wins.
    index.put(&a, &[(pid("z"), vec![1.0, 0.0]), (pid("z"), vec![0.0, 1.0])]);
    assert_eq!(index.len(&a), 3);
    assert_eq!(index.top(&a, &[0.0, 1.0], 1), vec![(pid("x"), 1.0)]);
    assert_eq!(index.top(&a, &[0.0, 1.0], 3)[1], (pid("z"), 1.0));
}

#[test]
fn remove_swaps_and_keeps_every_id_findable() {
    let dims = 8;
    let index = ExactIndex::new(dims);
    let a = agent("agt_a");
    let mut rng = Rng(42);
    let mut items: HashMap<ProductId, Vec<f32>> = (0..300).map(|i| (pid(&format!("p{i:03}")), rng.unit(dims))).collect();
    let batch: Vec<(ProductId, Vec<f32>)> = items.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    index.put(&a, &batch);
    let capacity_full = read(&read(&index.agents)[&a]).capacity();

    // Remove the first, the last, some in between, unknown ids, and one twice.
    let mut doomed: Vec<ProductId> = (0..300).step_by(3).map(|i| pid(&format!("p{i:03}"))).collect();
    doomed.extend([pid("p299"), pid("p001"), pid("p001"), pid("missing")]);
    index.remove(&a, &doomed);
    for id in &doomed {
        items.remove(id);
    }
    assert_eq!(index.len(&a), items.len());

    // Every remaining vector finds itself first, and the bookkeeping is consistent.
    for (id, v) in &items {
        let top = index.top(&a, v, 1);
        assert_eq!(&top[0].0, id);
        assert!((top[0].1 - 1.0).abs() < 1e-5);
    }
    {
        let agents = read(&index.agents);
        let collection = read(&agents[&a]);
        assert_eq!(collection.rows.len(), collection.ids.len());
        assert_eq!(collection.scales.len(), collection.ids.len());
        assert_eq!(collection.l1_norms.len(), collection.ids.len());
        for (row, id) in collection.ids.iter().enumerate() {
            assert_eq!(collection.rows[id], row);
            let stored: Vec<f32> = collection.matrix.row(row).to_vec();
            assert_eq!(stored, items[id]);
        }
    }
    let query = rng.unit(dims);
    assert_matches_reference(&index.top(&a, &query, 50), &items, &query, 50);

    // Removing nearly everything shrinks the matrix; removing all drops the agent.
    let rest: Vec<ProductId> = items.keys().skip(5).cloned().collect();
    index.remove(&a, &rest);
    assert_eq!(index.len(&a), 5);
    assert!(read(&read(&index.agents)[&a]).capacity() < capacity_full);
    let all: Vec<ProductId> = items.keys().cloned().collect();
    index.remove(&a, &all);
    assert_eq!(index.len(&a), 0);
    assert!(!read(&index.agents).contains_key(&a));
    assert!(index.top(&a, &query, 3).is_empty());
    index.remove(&a, &all); // an unknown agent is fine too
}

#[test]
fn ordering_best_first_ties_by_id() {
    let index = ExactIndex::new(2);
    let a = agent("agt_a");
    index.put(
        &a,
        &[
            (pid("c"), vec![0.6, 0.8]),
            (pid("low"), vec![0.0, 1.0]),
            (pid("a"), vec![0.6, 0.8]),
            (pid("best"), vec![1.0, 0.0]),
            (pid("b"), vec![0.6, 0.8]),
            (pid("neg"), vec![-1.0, 0.0]),
        ],
    );
    let got = index.top(&a, &[1.0, 0.0], 10);
    assert_eq!(ids(&got), vec!["best", "a", "b", "c", "low", "neg"]);
    assert_eq!(got[0].1, 1.0);
    assert_eq!(got[5].1, -1.0);
    // A cut inside the tie keeps the smallest ids.
    assert_eq!(ids(&index.top(&a, &[1.0, 0.0], 2)), vec!["best", "a"]);
    assert_eq!(ids(&index.top(&a, &[1.0, 0.0], 3)), vec!["best", "a", "b"]);
    // All equal: purely by id.
    assert_eq!(ids(&index.top(&a, &[0.0, 0.0], 4)), vec!["a", "b", "best", "c"]);
}

#[test]
fn k_bounds() {
    let index = ExactIndex::new(2);
    let a = agent("agt_a");
    assert!(index.top(&a, &[1.0, 0.0], 5).is_empty(), "unknown agent");
    index.put(&a, &[(pid("x"), vec![1.0, 0.0]), (pid("y"), vec![0.0, 1.0]), (pid("z"), vec![0.6, 0.8])]);
    assert!(index.top(&a, &[1.0, 0.0], 0).is_empty());
    assert_eq!(ids(&index.top(&a, &[1.0, 0.0], 1)), vec!["x"]);
    assert_eq!(ids(&index.top(&a, &[1.0, 0.0], 3)), vec!["x", "z", "y"]);
    assert_eq!(ids(&index.top(&a, &[1.0, 0.0], 4)), vec!["x", "z", "y"]);
    assert_eq!(index.top(&a, &[1.0, 0.0], usize::MAX).len(), 3);
}

#[test]
fn wrong_dimensions_are_ignored() {
    let index = ExactIndex::new(3);
    let a = agent("agt_a");
    index.put(&a, &[(pid("short"), vec![1.0, 0.0])]);
    assert_eq!(index.len(&a), 0);
    assert!(!read(&index.agents).contains_key(&a), "nothing valid, no collection");
    index.put(&a, &[(pid("long"), vec![1.0, 0.0, 0.0, 0.0]), (pid("ok"), vec![1.0, 0.0, 0.0]), (pid("empty"), vec![])]);
    assert_eq!(index.len(&a), 1);
    // A bad vector for a known id leaves the stored one alone.
    index.put(&a, &[(pid("ok"), vec![0.0, 1.0])]);
    assert_eq!(index.top(&a, &[1.0, 0.0, 0.0], 5), vec![(pid("ok"), 1.0)]);
    // A query of the wrong length finds nothing.
    assert!(index.top(&a, &[1.0, 0.0], 5).is_empty());
    assert!(index.top(&a, &[1.0, 0.0, 0.0, 0.0], 5).is_empty());
    assert!(index.top(&a, &[], 5).is_empty());
}

#[test]
fn concurrent_readers_and_writers() {
    let dims = 16;
    let index = ExactIndex::new(dims);
    let (a, b) = (agent("agt_a"), agent("agt_b"));
    let mut rng = Rng(99);
    let seed: Vec<(ProductId, Vec<f32>)> = (0..64).map(|i| (pid(&format!("seed{i}")), rng.unit(dims))).collect();
    index.put(&a, &seed);
    let queries: Vec<Vec<f32>> = (0..8).map(|_| rng.unit(dims)).collect();

    std::thread::scope(|scope| {
        for reader in 0..4 {
            let (index, queries, a, b) = (&index, &queries, &a, &b);
            scope.spawn(move || {
                for round in 0..300 {
                    let query = &queries[(reader + round) % queries.len()];
                    for agent in [a, b] {
                        let got = index.top(agent, query, 10);
                        assert!(got.len() <= 10);
                        assert!(got.windows(2).all(|p| p[0].1 >= p[1].1));
                        let _ = index.len(agent);
                    }
                }
            });
        }
        let (index, a, b) = (&index, &a, &b);
        scope.spawn(move || {
            let mut rng = Rng(1234);
            for round in 0..200 {
                let batch: Vec<(ProductId, Vec<f32>)> = (0..8).map(|i| (pid(&format!("w{round}-{i}")), rng.unit(dims))).collect();
                index.put(a, &batch);
                index.put(b, &batch);
                if round % 2 == 1 {
                    let old: Vec<ProductId> = (0..8).map(|i| pid(&format!("w{}-{i}", round - 1))).collect();
                    index.remove(a, &old);
                    index.remove(b, &old);
                }
            }
        });
    });
    // 64 seeds + 100 surviving batches of 8 for `a`; only the surviving batches for `b`.
    assert_eq!(index.len(&a), 64 + 100 * 8);
    assert_eq!(index.len(&b), 100 * 8);
}

/// Catalogs large enough for the int8 first pass, with tight clusters of near-duplicates (the
/// hard case for its error bounds): the answer is still exactly the brute-force one.
#[test]
fn two_pass_scan_matches_brute_force_on_clustered_catalogs() {
    let dims = 256;
    let index = ExactIndex::new(dims);
    let a = agent("agt_a");
    let mut rng = Rng(11);
    let centers: Vec<Vec<f32>> = (0..8).map(|_| rng.unit(dims)).collect();
    let mut items = HashMap::new();
    for i in 0..3000 {
        let center = &centers[i % centers.len()];
        let noise = rng.unit(dims);
        let spread = if i % 3 == 0 { 0.01 } else { 0.3 };
        let v: Vec<f32> = center.iter().zip(&noise).map(|(c, n)| c + spread * n).collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        items.insert(pid(&format!("p{i}")), v.into_iter().map(|x| x / norm).collect::<Vec<f32>>());
    }
    let batch: Vec<(ProductId, Vec<f32>)> = items.iter().map(|(id, v)| (id.clone(), v.clone())).collect();
    index.put(&a, &batch);
    for q in 0..30 {
        // Queries near a center, far from all, and equal to a stored vector.
        let query = match q % 3 {
            0 => centers[q % centers.len()].clone(),
            1 => rng.unit(dims),
            _ => batch[q].1.clone(),
        };
        for k in [1, 10, 60] {
            assert_matches_reference(&index.top(&a, &query, k), &items, &query, k);
            // Cut into slices scanned on several threads, the first pass keeps the same rows.
            let agents = read(&index.agents);
            let collection = read(&agents[&a]);
            let whole = collection.candidates_in_slices(&query, k, Rows::All(collection.len()), 1);
            for slices in [2, 3, 7] {
                assert_eq!(
                    collection.candidates_in_slices(&query, k, Rows::All(collection.len()), slices),
                    whole,
                    "{slices} slices, k = {k}"
                );
            }
        }
        if q % 3 == 1 {
            // The first pass is worth having: far from every cluster, it leaves few rows to rescore.
            let agents = read(&index.agents);
            let collection = read(&agents[&a]);
            let rescored = collection.candidates(&query, 10, Rows::All(collection.len())).len();
            assert!(rescored < items.len() / 4, "{rescored} of {} rows rescored", items.len());
        }
    }
}

/// A catalog with kinds and tags: filtered answers are exactly brute force over the matching
/// products, for filters small enough to score directly and large enough for the two passes,
/// and they stay so as products change facets, move rows and leave.
#[test]
fn filtered_results_match_brute_force_over_the_matching_products() {
    let dims = 64;
    let index = ExactIndex::new(dims);
    let a = agent("agt_a");
    let mut rng = Rng(23);
    // "common" on 2 of 3 products (two-pass sized), "rare" on 1 in 50, kinds alternate.
    let make = |rng: &mut Rng, i: usize| {
        let mut tags = Vec::new();
        if !i.is_multiple_of(3) {
            tags.push("common".to_string());
        }
        if i % 50 == 7 {
            tags.push("rare".to_string());
        }
        let kind = if i.is_multiple_of(2) { ProductKind::Product } else { ProductKind::Service };
        Searchable { vector: rng.unit(dims), kind, category_tags: tags }
    };
    let mut catalog: HashMap<ProductId, Searchable> = (0..2400).map(|i| (pid(&format!("p{i}")), make(&mut rng, i))).collect();
    let batch: Vec<(ProductId, Searchable)> = catalog.iter().map(|(id, s)| (id.clone(), s.clone())).collect();
    index.upsert(&a, &batch);

    let filters = [
        ProductFilter { tag: Some("common".into()), kind: None },
        ProductFilter { tag: Some("rare".into()), kind: None },
        ProductFilter { tag: None, kind: Some(ProductKind::Service) },
        ProductFilter { tag: Some("common".into()), kind: Some(ProductKind::Product) },
        ProductFilter { tag: Some("rare".into()), kind: Some(ProductKind::Service) },
        ProductFilter { tag: Some("unknown".into()), kind: None },
    ];
    let check = |catalog: &HashMap<ProductId, Searchable>, rng: &mut Rng| {
        for filter in &filters {
            let matching: HashMap<ProductId, Vec<f32>> =
                catalog.iter().filter(|(_, s)| s.matches(filter)).map(|(id, s)| (id.clone(), s.vector.clone())).collect();
            let query = rng.unit(dims);
            for k in [1, 10, 50, matching.len() + 5] {
                let got = index.top_k(&a, &query, k, filter);
                assert_matches_reference(&got, &matching, &query, k);
            }
        }
    };
    check(&catalog, &mut rng);

    // A third of the products change facets, a fifth leave (rows move into their holes).
    let changed: Vec<(ProductId, Searchable)> = (0..2400).step_by(3).map(|i| (pid(&format!("p{i}")), make(&mut rng, i + 1))).collect();
    index.upsert(&a, &changed);
    catalog.extend(changed);
    let gone: Vec<ProductId> = (0..2400).step_by(5).map(|i| pid(&format!("p{i}"))).collect();
    index.remove(&a, &gone);
    for id in &gone {
        catalog.remove(id);
    }
    check(&catalog, &mut rng);
}

#[test]
fn a_filter_that_keeps_nothing_finds_nothing() {
    let index = ExactIndex::new(2);
    let a = agent("agt_a");
    index.put(&a, &[(pid("x"), vec![1.0, 0.0])]);
    let services = ProductFilter { tag: None, kind: Some(ProductKind::Service) };
    assert!(index.top_k(&a, &[1.0, 0.0], 5, &services).is_empty());
    let untagged = ProductFilter { tag: Some("Outdoor".into()), kind: None };
    assert!(index.top_k(&a, &[1.0, 0.0], 5, &untagged).is_empty());
    assert_eq!(index.top(&a, &[1.0, 0.0], 5).len(), 1);
}
