//! The vector index alone, in-process: `cargo xtask bench index` (or `cargo bench -p
//! parley-adapters-embeddings --bench index_scan -- 100000 1000000`).
//!
//! Baseline: one f32 matrix-vector product over every row and a selection of the top k, the
//! plain exact scan (ndarray). Against it, in the same run and on the same vectors: the index's
//! two-pass exact search (int8 scan with error bounds, f32 rescoring). Vectors are synthetic but
//! shaped like sentence embeddings: a shared direction, clusters, and noise, 256 dimensions.
//!
//! For what would hold at larger sizes, also an approximate search built here and nowhere else:
//! binary codes (one bit per dimension) ranked by Hamming distance, the closest 1,000 rescored
//! in f32, with its recall against the exact answer.

#![expect(unsafe_code, reason = "the popcount kernel is called only after the CPU reported it")]

use std::time::{Duration, Instant};

use ndarray::{Array2, ArrayView1};
use parley_adapters_embeddings::ExactIndex;
use parley_domain::model::{AgentId, ProductFilter, ProductId, ProductKind, Searchable};
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

/// Binary codes: one bit per dimension (the sign of the vector minus the mean vector), 32 bytes
/// a row. A query ranks every row by Hamming distance between codes, keeps the closest
/// `CANDIDATES`, and scores those exactly in f32.
struct BinaryCodes {
    mean: Vec<f32>,
    codes: Vec<[u64; DIMENSIONS / 64]>,
}

/// Rows the Hamming pass keeps for exact rescoring.
const CANDIDATES: usize = 1000;

impl BinaryCodes {
    fn build(plain: &Array2<f32>) -> Self {
        let mean: Vec<f32> = plain.mean_axis(ndarray::Axis(0)).expect("rows").to_vec();
        let codes = plain.outer_iter().map(|row| Self::code(row.as_slice().expect("contiguous"), &mean)).collect();
        Self { mean, codes }
    }

    fn code(vector: &[f32], mean: &[f32]) -> [u64; DIMENSIONS / 64] {
        let mut code = [0u64; DIMENSIONS / 64];
        for (j, (x, m)) in vector.iter().zip(mean).enumerate() {
            if x > m {
                code[j / 64] |= 1 << (j % 64);
            }
        }
        code
    }

    fn top_k(&self, plain: &Array2<f32>, query: &[f32], k: usize) -> Vec<usize> {
        let probe = Self::code(query, &self.mean);
        // Distances fit a byte (256 only if every bit differs; counted as 255). A histogram gives
        // the distance the closest CANDIDATES stay within, without sorting a million entries.
        // On every CPU, like the index's exact scan of large collections.
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let chunk = self.codes.len().div_ceil(threads);
        let distances: Vec<u8> = std::thread::scope(|scope| {
            let parts: Vec<_> = self.codes.chunks(chunk).map(|codes| scope.spawn(move || hamming_all(codes, &probe))).collect();
            parts.into_iter().flat_map(|part| part.join().expect("no panic")).collect()
        });
        let mut histogram = [0usize; 256];
        for &d in &distances {
            histogram[usize::from(d)] += 1;
        }
        let keep = CANDIDATES.min(distances.len());
        let (mut within, mut seen) = (0u8, 0);
        for (d, count) in histogram.iter().enumerate() {
            seen += count;
            within = d as u8;
            if seen >= keep {
                break;
            }
        }
        let mut near: Vec<usize> = distances.iter().enumerate().filter(|(_, d)| **d < within).map(|(row, _)| row).collect();
        let ties = keep - near.len();
        near.extend(distances.iter().enumerate().filter(|(_, d)| **d == within).map(|(row, _)| row).take(ties));
        let query = ArrayView1::from(query);
        let mut scored: Vec<(f32, usize)> = near.iter().map(|&row| (plain.row(row).dot(&query), row)).collect();
        let k = k.min(scored.len());
        scored.select_nth_unstable_by(k - 1, |a, b| b.0.total_cmp(&a.0));
        scored[..k].iter().map(|&(_, row)| row).collect()
    }
}

/// Hamming distance from `probe` to every code, capped at 255. With the CPU's popcount
/// instruction when it has one (baseline x86-64 counts bits in software, ten times slower).
fn hamming_all(codes: &[[u64; DIMENSIONS / 64]], probe: &[u64; DIMENSIONS / 64]) -> Vec<u8> {
    #[inline(always)]
    fn portable(codes: &[[u64; DIMENSIONS / 64]], probe: &[u64; DIMENSIONS / 64]) -> Vec<u8> {
        codes.iter().map(|code| code.iter().zip(probe).map(|(a, b)| (a ^ b).count_ones()).sum::<u32>().min(255) as u8).collect()
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "popcnt")]
        fn with_popcnt(codes: &[[u64; DIMENSIONS / 64]], probe: &[u64; DIMENSIONS / 64]) -> Vec<u8> {
            portable(codes, probe)
        }
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has the instruction, checked just above.
            return unsafe { with_popcnt(codes, probe) };
        }
    }
    portable(codes, probe)
}

/// An inverted file: k-means centroids (√n of them, trained on a sample), every row copied
/// into its nearest centroid's list, the lists stored one after another so that a probed list
/// is one contiguous read.
struct Ivf {
    centroids: Array2<f32>,
    /// `rows[starts[c]..starts[c + 1]]` of `lists` belong to centroid `c`; `ids` maps them back.
    lists: Array2<f32>,
    starts: Vec<usize>,
    ids: Vec<usize>,
}

/// The share of lists a query scans.
const PROBE_SHARE: usize = 64;

impl Ivf {
    fn build(plain: &Array2<f32>) -> Self {
        let rows = plain.nrows();
        let count = (rows as f64).sqrt() as usize;
        let sample_stride = (rows / (count * 32)).max(1);
        let sample = plain.slice(ndarray::s![..;sample_stride, ..]).to_owned();
        let mut centroids = sample.slice(ndarray::s![..;(sample.nrows() / count).max(1), ..]).slice(ndarray::s![..count, ..]).to_owned();
        for _ in 0..8 {
            let nearest = Self::nearest(&sample, &centroids);
            let mut sums = Array2::<f32>::zeros(centroids.dim());
            for (row, &c) in nearest.iter().enumerate() {
                let mut sum = sums.row_mut(c);
                sum += &sample.row(row);
            }
            for (c, sum) in sums.outer_iter().enumerate() {
                let norm = sum.dot(&sum).sqrt();
                if norm > 0.0 {
                    centroids.row_mut(c).assign(&(&sum / norm));
                }
            }
        }
        let nearest = Self::nearest(plain, &centroids);
        let mut counts = vec![0usize; count + 1];
        for &c in &nearest {
            counts[c + 1] += 1;
        }
        let starts: Vec<usize> = counts
            .iter()
            .scan(0, |total, n| {
                *total += n;
                Some(*total)
            })
            .collect();
        let mut next = starts.clone();
        let mut lists = Array2::<f32>::zeros(plain.dim());
        let mut ids = vec![0; rows];
        for (row, &c) in nearest.iter().enumerate() {
            lists.row_mut(next[c]).assign(&plain.row(row));
            ids[next[c]] = row;
            next[c] += 1;
        }
        Self { centroids, lists, starts, ids }
    }

    /// Each row's nearest centroid, in blocks (one matrix product each).
    fn nearest(rows: &Array2<f32>, centroids: &Array2<f32>) -> Vec<usize> {
        let mut nearest = Vec::with_capacity(rows.nrows());
        for start in (0..rows.nrows()).step_by(4096) {
            let end = (start + 4096).min(rows.nrows());
            let scores = rows.slice(ndarray::s![start..end, ..]).dot(&centroids.t());
            nearest.extend(scores.outer_iter().map(|row| row.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map_or(0, |(c, _)| c)));
        }
        nearest
    }

    fn top_k(&self, query: &[f32], k: usize) -> Vec<usize> {
        let query = ArrayView1::from(query);
        let probes = (self.centroids.nrows() / PROBE_SHARE).max(1);
        let mut lists: Vec<(f32, usize)> = self.centroids.dot(&query).iter().copied().zip(0..).collect();
        lists.select_nth_unstable_by(probes - 1, |a, b| b.0.total_cmp(&a.0));
        let mut scored: Vec<(f32, usize)> = Vec::new();
        for &(_, list) in &lists[..probes] {
            let (start, end) = (self.starts[list], self.starts[list + 1]);
            let scores = self.lists.slice(ndarray::s![start..end, ..]).dot(&query);
            scored.extend(scores.iter().copied().zip(start..end));
        }
        let k = k.min(scored.len());
        if k == 0 {
            return Vec::new();
        }
        scored.select_nth_unstable_by(k - 1, |a, b| b.0.total_cmp(&a.0));
        scored[..k].iter().map(|&(_, at)| self.ids[at]).collect()
    }
}

/// Query times of one method and how many of the exact top k it found.
#[derive(Default)]
struct Measured {
    times: Vec<Duration>,
    recalled: usize,
}

impl Measured {
    fn time<T>(&mut self, run: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let out = run();
        self.times.push(started.elapsed());
        out
    }

    fn row(&mut self, size: usize, method: &str, build: Option<Duration>, baseline_p50: f64) -> String {
        let (p50, p99) = (percentile(&mut self.times, 50), percentile(&mut self.times, 99));
        let build = build.map_or("–".to_string(), |b| format!("{:.1} s", b.as_secs_f64()));
        let recall = self.recalled as f64 / (QUERIES * K) as f64;
        format!("| {size} | {method} | {build} | {p50:.2} / {p99:.2} ms | {:.2} | {recall:.3} |", p50 / baseline_p50)
    }
}

fn main() {
    let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![100_000, 1_000_000] } else { sizes };
    println!("| vectors | method | build | p50 / p99 | p50 ÷ baseline | recall@{K} |");
    println!("|---:|---|---:|---:|---:|---:|");
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
            // Tags that keep 1% and 50% of the rows, for the filtered rows of the table.
            let tags: &[&str] = match (i.is_multiple_of(100), i.is_multiple_of(2)) {
                (true, _) => &["rare", "half"],
                (false, true) => &["half"],
                (false, false) => &[],
            };
            let category_tags = tags.iter().map(|t| t.to_string()).collect();
            batch.push((ProductId::lookup(format!("p{i:07}")), Searchable { vector: v, kind: ProductKind::Product, category_tags }));
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
        let binary = BinaryCodes::build(&plain);
        let binary_build = started.elapsed();
        let started = Instant::now();
        let ivf = Ivf::build(&plain);
        let ivf_build = started.elapsed();
        let (mut baseline, mut two_pass, mut by_codes, mut by_lists) =
            (Measured::default(), Measured::default(), Measured::default(), Measured::default());
        let (mut rare, mut half) = (Measured::default(), Measured::default());
        let tagged = |tag: &str| ProductFilter { tag: Some(tag.to_string()), kind: None };
        let (rare_filter, half_filter) = (tagged("rare"), tagged("half"));
        for query in &queries {
            let ranked = baseline.time(|| {
                let scores = plain.dot(&ArrayView1::from(&query[..]));
                let mut ranked: Vec<(f32, usize)> = scores.iter().copied().zip(0..size).collect();
                ranked.select_nth_unstable_by(K - 1, |a, b| b.0.total_cmp(&a.0));
                ranked.truncate(K);
                ranked.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
                ranked
            });
            let exact = |rows: &[usize]| rows.iter().filter(|row| ranked.iter().any(|(_, at)| at == *row)).count();
            baseline.recalled += K;
            let found = two_pass.time(|| index.top_k(&agent, query, K, &ProductFilter::default()));
            // Same answer: the two-pass search is exact.
            assert!((found[K - 1].1 - ranked[K - 1].0).abs() < 1e-4, "the k-th scores differ");
            two_pass.recalled += K;
            by_codes.recalled += exact(&by_codes.time(|| binary.top_k(&plain, query, K)));
            by_lists.recalled += exact(&by_lists.time(|| ivf.top_k(query, K)));
            // Filtered recall against brute force over the rows each filter keeps (untimed).
            let scores = plain.dot(&ArrayView1::from(&query[..]));
            let best_of = |keep: fn(usize) -> bool| {
                let mut rows: Vec<(f32, usize)> = scores.iter().copied().zip(0..size).filter(|(_, row)| keep(*row)).collect();
                rows.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
                rows.into_iter().take(K).map(|(_, row)| format!("p{row:07}")).collect::<Vec<_>>()
            };
            let recalled = |found: Vec<(ProductId, f32)>, expected: Vec<String>| {
                found.iter().filter(|(id, _)| expected.iter().any(|e| e == id.as_str())).count()
            };
            rare.recalled += recalled(rare.time(|| index.top_k(&agent, query, K, &rare_filter)), best_of(|row| row % 100 == 0));
            half.recalled += recalled(half.time(|| index.top_k(&agent, query, K, &half_filter)), best_of(|row| row % 2 == 0));
        }
        let base = percentile(&mut baseline.times, 50);
        println!("{}", baseline.row(size, "f32 scan (baseline, exact)", None, base));
        println!("{}", two_pass.row(size, &format!("two-pass int8 + f32 (the index, exact; {memory:.0} MiB)"), Some(build), base));
        println!("{}", rare.row(size, "two-pass, filter keeping 1% (the index, exact)", None, base));
        println!("{}", half.row(size, "two-pass, filter keeping 50% (the index, exact)", None, base));
        println!("{}", by_codes.row(size, "binary codes + f32 rescoring (approximate)", Some(binary_build), base));
        println!("{}", by_lists.row(size, "IVF, k-means lists, 1/64 probed (approximate)", Some(ivf_build), base));
    }
}
