//! The vector index alone, in-process: `cargo xtask bench index` (or `cargo bench -p
//! parley-adapters-embeddings --bench index_scan -- 100000 1000000`).
//!
//! Baseline: one f32 matrix-vector product over every row and a selection of the top k, the
//! plain exact scan (ndarray). Against it, in the same run and on the same vectors: the index's
//! two-pass exact search (int8 scan with error bounds, f32 rescoring). Vectors are synthetic but
//! shaped like sentence embeddings: a shared direction, clusters, and noise, 256 dimensions.
//!
//! For what would hold at larger sizes, also an approximate inverted-file index (IVF) built
//! here and nowhere else: √n lists around sampled centroids, a query scanning the 1/16 of the
//! lists nearest to it, with its recall against the exact answer.

use std::time::{Duration, Instant};

use ndarray::{Array2, ArrayView1};
use parley_adapters_embeddings::ExactIndex;
use parley_domain::model::{AgentId, ProductId};
use parley_domain::ports::VectorIndex;

const DIMENSIONS: usize = 256;
const K: usize = 20;
const QUERIES: usize = 200;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }

    fn vector(&mut self) -> Vec<f32> {
        (0..DIMENSIONS).map(|_| self.next()).collect()
    }
}

fn unit(v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / norm).collect()
}

fn mix(parts: &[(&[f32], f32)]) -> Vec<f32> {
    unit((0..DIMENSIONS).map(|j| parts.iter().map(|(v, w)| v[j] * w).sum()).collect())
}

fn percentile(times: &mut [Duration], p: usize) -> f64 {
    times.sort();
    times[(times.len() * p / 100).min(times.len() - 1)].as_secs_f64() * 1000.0
}

fn resident_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 =
        status.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap_or(0.0);
    kib / 1024.0
}

/// An inverted-file index over `plain`: each row filed under its nearest centroid.
struct Ivf {
    centroids: Array2<f32>,
    lists: Vec<Vec<usize>>,
}

impl Ivf {
    fn build(plain: &Array2<f32>) -> Self {
        let rows = plain.nrows();
        let count = (rows as f64).sqrt() as usize;
        let stride = rows / count;
        let mut centroids = Array2::<f32>::zeros((count, DIMENSIONS));
        for c in 0..count {
            centroids.row_mut(c).assign(&plain.row(c * stride));
        }
        let mut lists = vec![Vec::new(); count];
        for start in (0..rows).step_by(8192) {
            let end = (start + 8192).min(rows);
            let scores = plain.slice(ndarray::s![start..end, ..]).dot(&centroids.t());
            for (offset, row) in scores.outer_iter().enumerate() {
                let best = row.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map_or(0, |(c, _)| c);
                lists[best].push(start + offset);
            }
        }
        Self { centroids, lists }
    }

    fn top_k(&self, plain: &Array2<f32>, query: &[f32], k: usize) -> Vec<usize> {
        let query = ArrayView1::from(query);
        let probes = (self.lists.len() / 16).max(1);
        let mut nearest: Vec<(f32, usize)> = self.centroids.dot(&query).iter().copied().zip(0..).collect();
        nearest.select_nth_unstable_by(probes - 1, |a, b| b.0.total_cmp(&a.0));
        let mut scored: Vec<(f32, usize)> =
            nearest[..probes].iter().flat_map(|&(_, list)| self.lists[list].iter().map(|&row| (plain.row(row).dot(&query), row))).collect();
        let k = k.min(scored.len());
        if k == 0 {
            return Vec::new();
        }
        scored.select_nth_unstable_by(k - 1, |a, b| b.0.total_cmp(&a.0));
        scored[..k].iter().map(|&(_, row)| row).collect()
    }
}

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![100_000, 1_000_000] } else { sizes };
    println!(
        "| vectors | build | memory | f32 scan p50 / p99 (baseline) | two-pass p50 / p99 | p50 ÷ baseline | IVF (approximate) build | IVF p50 / p99 | IVF p50 ÷ baseline | IVF recall@{K} |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for size in sizes {
        let mut rng = Rng(42);
        let shared = rng.vector();
        let centers: Vec<Vec<f32>> = (0..1000).map(|_| rng.vector()).collect();
        let agent = AgentId::new("agt_bench");
        let index = ExactIndex::new(DIMENSIONS);
        let before = resident_mib();
        let mut plain = Array2::<f32>::zeros((size, DIMENSIONS));
        let mut build = Duration::ZERO;
        let mut batch = Vec::with_capacity(2000);
        for i in 0..size {
            let v = mix(&[(&shared, 0.7), (&centers[i % centers.len()], 0.6), (&rng.vector(), 0.5)]);
            plain.row_mut(i).assign(&ArrayView1::from(&v[..]));
            batch.push((ProductId::lookup(format!("p{i:07}")), v));
            if batch.len() == 2000 || i + 1 == size {
                let started = Instant::now();
                index.upsert(&agent, &batch);
                build += started.elapsed();
                batch.clear();
            }
        }
        let memory = resident_mib() - before - (size * DIMENSIONS * 4) as f64 / (1024.0 * 1024.0);
        let queries: Vec<Vec<f32>> =
            (0..QUERIES).map(|q| mix(&[(&shared, 0.7), (&centers[(q * 7) % centers.len()], 0.6), (&rng.vector(), 0.8)])).collect();
        let started = Instant::now();
        let ivf = Ivf::build(&plain);
        let ivf_build = started.elapsed();
        let (mut baseline, mut two_pass, mut approximate, mut recalled) = (Vec::new(), Vec::new(), Vec::new(), 0);
        for query in &queries {
            let started = Instant::now();
            let scores = plain.dot(&ArrayView1::from(&query[..]));
            let mut ranked: Vec<(f32, usize)> = scores.iter().copied().zip(0..size).collect();
            ranked.select_nth_unstable_by(K - 1, |a, b| b.0.total_cmp(&a.0));
            ranked.truncate(K);
            ranked.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
            baseline.push(started.elapsed());

            let started = Instant::now();
            let found = index.top_k(&agent, query, K);
            two_pass.push(started.elapsed());
            // Same answer: the two-pass search is exact.
            assert!((found[K - 1].1 - ranked[K - 1].0).abs() < 1e-4, "the k-th scores differ");

            let started = Instant::now();
            let near = ivf.top_k(&plain, query, K);
            approximate.push(started.elapsed());
            recalled += near.iter().filter(|row| ranked.iter().any(|(_, exact)| exact == *row)).count();
        }
        let (b50, b99) = (percentile(&mut baseline, 50), percentile(&mut baseline, 99));
        let (t50, t99) = (percentile(&mut two_pass, 50), percentile(&mut two_pass, 99));
        let (a50, a99) = (percentile(&mut approximate, 50), percentile(&mut approximate, 99));
        let recall = recalled as f64 / (QUERIES * K) as f64;
        println!(
            "| {size} | {:.2} s | {memory:.0} MiB | {b50:.2} / {b99:.2} ms | {t50:.2} / {t99:.2} ms | {:.2} | {:.1} s | {a50:.2} / {a99:.2} ms | {:.2} | {recall:.3} |",
            build.as_secs_f64(),
            t50 / b50,
            ivf_build.as_secs_f64(),
            a50 / b50
        );
    }
}
