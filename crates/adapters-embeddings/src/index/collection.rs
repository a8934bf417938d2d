//! One agent's vectors and the exact top-k search over them.
//!
//! A scan reads every row, so its cost is the bytes read. Rows are kept twice: as f32 (the
//! exact scores) and as int8 with a per-row scale (a quarter of the bytes). A query first scans
//! the int8 rows, where each approximate score comes with a proven error bound; only the rows
//! whose best possible score can still reach the k-th best worst-case score are scored again in
//! f32. The answer is therefore exactly the f32 scan's, at about a quarter of its memory traffic.
//!
//! A filtered query scans only the rows its filter keeps (listed by [`Facets`]), the same two
//! ways: its cost follows the filter's size, and its answer is the exact top k of those rows.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};
use std::sync::OnceLock;

use ndarray::{Array1, Array2, ArrayView1, s};
use parley_domain::model::{ProductFilter, ProductId, Searchable};

use super::facets::Facets;
use super::kernels::{dot_f32, dot_i8, l1, quantize};

/// Rows a collection reserves when it first grows.
const MIN_CAPACITY: usize = 16;
/// Below this many rows the f32 scan alone is cheap; the int8 pass would not pay for itself.
const TWO_PASS_FROM: usize = 1024;
/// Covers the f32 rounding of the dot products themselves (≈ 1e-5 for 256 unit components),
/// so that the bound holds against the scores the f32 pass computes, not only the real ones.
const ROUNDING_SLACK: f32 = 1e-4;
/// Rows one scan thread takes at least: below this, starting a thread costs more than it saves
/// (a thread start is ~20 µs; 131,072 int8 rows take ~1.5 ms on one core).
const PARALLEL_ROWS_PER_THREAD: usize = 131_072;

/// Rows `0..ids.len()` of both matrices are in use, row `i` belongs to `ids[i]`. The matrices
/// have spare rows (their capacity) so appends are amortized.
pub(super) struct Collection {
    pub(super) matrix: Array2<f32>,
    pub(super) quantized: Array2<i8>,
    /// Per row: the int8 scale (`row ≈ scale * quantized row`) and the f32 row's L1 norm.
    pub(super) scales: Vec<f32>,
    pub(super) l1_norms: Vec<f32>,
    pub(super) ids: Vec<ProductId>,
    pub(super) rows: HashMap<ProductId, usize>,
    facets: Facets,
}

/// The rows a query scans: all of them, or the ascending list a filter keeps.
#[derive(Clone, Copy)]
pub(super) enum Rows<'a> {
    All(usize),
    Listed(&'a [u32]),
}

impl Rows<'_> {
    fn len(self) -> usize {
        match self {
            Rows::All(n) => n,
            Rows::Listed(rows) => rows.len(),
        }
    }

    /// The row at `position` of the scan.
    fn get(self, position: usize) -> usize {
        match self {
            Rows::All(_) => position,
            Rows::Listed(rows) => rows[position] as usize,
        }
    }
}

impl Collection {
    pub(super) fn new(dimensions: usize) -> Self {
        Self {
            matrix: Array2::zeros((0, dimensions)),
            quantized: Array2::zeros((0, dimensions)),
            scales: Vec::new(),
            l1_norms: Vec::new(),
            ids: Vec::new(),
            rows: HashMap::new(),
            facets: Facets::default(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    pub(super) fn capacity(&self) -> usize {
        self.matrix.nrows()
    }

    /// Moves the used rows into matrices of `capacity` rows (at least the used count).
    fn reallocate(&mut self, capacity: usize) {
        let used = self.len();
        let capacity = capacity.max(used);
        let mut matrix = Array2::zeros((capacity, self.matrix.ncols()));
        matrix.slice_mut(s![..used, ..]).assign(&self.matrix.slice(s![..used, ..]));
        self.matrix = matrix;
        let mut quantized = Array2::zeros((capacity, self.quantized.ncols()));
        quantized.slice_mut(s![..used, ..]).assign(&self.quantized.slice(s![..used, ..]));
        self.quantized = quantized;
    }

    fn write_row(&mut self, row: usize, vector: &[f32]) {
        self.matrix.row_mut(row).assign(&ArrayView1::from(vector));
        let mut quantized = self.quantized.row_mut(row);
        let scale = quantize(vector, quantized.as_slice_mut().expect("rows of a standard-layout matrix are contiguous"));
        self.scales[row] = scale;
        self.l1_norms[row] = l1(vector);
    }

    pub(super) fn upsert(&mut self, id: &ProductId, searchable: &Searchable) {
        if let Some(&row) = self.rows.get(id) {
            self.write_row(row, &searchable.vector);
            self.facets.set(row, searchable);
            return;
        }
        let row = self.len();
        if row == self.capacity() {
            self.reallocate((row * 2).max(MIN_CAPACITY));
        }
        self.scales.push(0.0);
        self.l1_norms.push(0.0);
        self.write_row(row, &searchable.vector);
        self.facets.set(row, searchable);
        self.ids.push(id.clone());
        self.rows.insert(id.clone(), row);
    }

    pub(super) fn remove(&mut self, id: &ProductId) {
        let Some(hole) = self.rows.remove(id) else { return };
        let last = self.len() - 1;
        self.facets.swap_remove(hole, last);
        if hole != last {
            let (mut to, from) = self.matrix.multi_slice_mut((s![hole, ..], s![last, ..]));
            to.assign(&from);
            let (mut to, from) = self.quantized.multi_slice_mut((s![hole, ..], s![last, ..]));
            to.assign(&from);
            self.scales.swap(hole, last);
            self.l1_norms.swap(hole, last);
            self.ids.swap(hole, last);
            self.rows.insert(self.ids[hole].clone(), hole);
        }
        self.ids.pop();
        self.scales.pop();
        self.l1_norms.pop();
        // Keep memory proportional to the catalog: halve the matrices once mostly empty.
        if self.capacity() > MIN_CAPACITY && self.len() * 4 <= self.capacity() {
            self.reallocate((self.capacity() / 2).max(MIN_CAPACITY));
        }
    }

    fn row(&self, row: usize) -> &[f32] {
        self.matrix.row(row).to_slice().expect("rows of a standard-layout matrix are contiguous")
    }

    /// The `k` rows matching `filter` of highest `query · row`, best first, ties by id: exactly
    /// the f32 scan's answer over those rows.
    pub(super) fn top_k(&self, query: &[f32], k: usize, filter: &ProductFilter) -> Vec<(ProductId, f32)> {
        let listed = self.facets.rows(filter);
        let rows = listed.as_deref().map_or(Rows::All(self.len()), Rows::Listed);
        let count = rows.len();
        if count == 0 || k == 0 {
            return Vec::new();
        }
        let scored: Vec<(f32, usize)> = if count < TWO_PASS_FROM || k >= count {
            (0..count).map(|position| rows.get(position)).map(|row| (dot_f32(self.row(row), query), row)).collect()
        } else {
            self.candidates(query, k, rows).into_iter().map(|row| (dot_f32(self.row(row), query), row)).collect()
        };
        self.best_first(scored, k)
    }

    /// Every row that can be among the `k` best, from the int8 pass and its error bounds.
    ///
    /// With `row = s·r + e` (|e| ≤ s/2 per component) and `query = t·q + f` (|f| ≤ t/2), the
    /// approximation `a = s·t·(q·r)` is off from `query · row` by `(t·q)·e + f·row`, at most
    /// `s/2·‖t·q‖₁ + t/2·‖row‖₁`. A row whose upper bound is below the k-th highest lower bound
    /// is beaten by k rows for sure.
    ///
    /// Large collections are scanned in slices on several threads (one per CPU): a single core
    /// cannot read a million int8 rows (256 MB) within 10 ms. Each slice keeps its own k highest
    /// lower bounds; the bar is the k-th highest of their union, the same bar as one scan's.
    pub(super) fn candidates(&self, query: &[f32], k: usize, rows: Rows<'_>) -> Vec<usize> {
        let slices = scan_threads().min(rows.len() / PARALLEL_ROWS_PER_THREAD).max(1);
        self.candidates_in_slices(query, k, rows, slices)
    }

    /// [`Self::candidates`] with the rows cut into `slices` scanned on as many threads.
    pub(super) fn candidates_in_slices(&self, query: &[f32], k: usize, rows: Rows<'_>, slices: usize) -> Vec<usize> {
        let used = rows.len();
        let slices = slices.clamp(1, used.max(1));
        let mut query_q = Array1::<i8>::zeros(query.len());
        let query_scale = quantize(query, query_q.as_slice_mut().expect("a new array is contiguous"));
        let query_q = query_q.as_slice().expect("a new array is contiguous");
        let query_q_l1 = query_scale * query_q.iter().map(|c| f32::from(c.unsigned_abs())).sum::<f32>();
        let probe = Probe { query: query_q, scale: query_scale, l1: query_q_l1 };

        let bounds: Vec<usize> = (0..=slices).map(|i| used * i / slices).collect();
        let scans: Vec<SliceScan> = if slices == 1 {
            vec![self.scan_positions(&probe, rows, 0..used, k)]
        } else {
            std::thread::scope(|scope| {
                let others: Vec<_> =
                    bounds.windows(2).skip(1).map(|w| scope.spawn(|| self.scan_positions(&probe, rows, w[0]..w[1], k))).collect();
                let mut scans = vec![self.scan_positions(&probe, rows, bounds[0]..bounds[1], k)];
                scans.extend(others.into_iter().map(|h| h.join().expect("an index scan thread does not panic")));
                scans
            })
        };
        let mut lowers: Vec<Score> = scans.iter().flat_map(|scan| scan.best_lowers.iter().copied()).collect();
        let bar = if lowers.len() < k {
            f32::NEG_INFINITY
        } else {
            lowers.select_nth_unstable_by(k - 1, |a, b| b.cmp(a));
            lowers[k - 1].0
        };
        scans
            .iter()
            .zip(&bounds)
            .flat_map(|(scan, start)| {
                scan.uppers.iter().enumerate().filter(|(_, upper)| **upper >= bar).map(move |(offset, _)| rows.get(start + offset))
            })
            .collect()
    }

    /// The int8 pass over the rows at `positions` of `rows`.
    fn scan_positions(&self, probe: &Probe<'_>, rows: Rows<'_>, positions: std::ops::Range<usize>, k: usize) -> SliceScan {
        match rows {
            Rows::All(_) => self.scan(probe, positions, k),
            Rows::Listed(listed) => self.scan(probe, listed[positions].iter().map(|&row| row as usize), k),
        }
    }

    /// The int8 pass over `rows`: every row's upper bound (in the order given), and the k highest
    /// lower bounds.
    fn scan(&self, probe: &Probe<'_>, rows: impl ExactSizeIterator<Item = usize>, k: usize) -> SliceScan {
        let mut uppers = Vec::with_capacity(rows.len());
        // The k highest lower bounds seen so far; its minimum is the bar every row must reach.
        let mut lowest_of_best: BinaryHeap<Reverse<Score>> = BinaryHeap::with_capacity(k + 1);
        for row in rows {
            let quantized = self.quantized.row(row);
            let quantized = quantized.to_slice().expect("rows of a standard-layout matrix are contiguous");
            let scale = self.scales[row];
            let approx = scale * probe.scale * dot_i8(quantized, probe.query) as f32;
            let bound = scale / 2.0 * probe.l1 + probe.scale / 2.0 * self.l1_norms[row] + ROUNDING_SLACK;
            uppers.push(approx + bound);
            let lower = Score(approx - bound);
            if lowest_of_best.len() < k {
                lowest_of_best.push(Reverse(lower));
            } else if lowest_of_best.peek().is_some_and(|Reverse(min)| lower > *min) {
                lowest_of_best.pop();
                lowest_of_best.push(Reverse(lower));
            }
        }
        SliceScan { uppers, best_lowers: lowest_of_best.into_iter().map(|Reverse(score)| score).collect() }
    }

    fn best_first(&self, mut scored: Vec<(f32, usize)>, k: usize) -> Vec<(ProductId, f32)> {
        let order = |a: &(f32, usize), b: &(f32, usize)| by_score_desc(a.0, b.0).then_with(|| self.ids[a.1].cmp(&self.ids[b.1]));
        if k < scored.len() {
            scored.select_nth_unstable_by(k - 1, order);
            scored.truncate(k);
        }
        scored.sort_unstable_by(order);
        scored.into_iter().map(|(score, row)| (self.ids[row].clone(), score)).collect()
    }
}

/// The query as the int8 pass needs it: quantized, its scale and its L1 norm.
struct Probe<'a> {
    query: &'a [i8],
    scale: f32,
    l1: f32,
}

/// What one slice of the int8 pass found.
struct SliceScan {
    uppers: Vec<f32>,
    best_lowers: Vec<Score>,
}

/// Threads a scan may use: the CPUs this process may run on.
fn scan_threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// An f32 with a total order (`total_cmp`), for the heap; equality agrees with the order.
#[derive(Clone, Copy)]
struct Score(f32);

impl PartialEq for Score {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Score {}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Higher scores first; NaN (never expected from unit vectors) last; `-0.0` equals `0.0`.
fn by_score_desc(a: f32, b: f32) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => b.partial_cmp(&a).unwrap_or(Ordering::Equal),
    }
}
