//! [`ExactIndex`]: exact nearest-neighbour search in memory, one contiguous row-major matrix
//! per agent, scored with one matrix-vector product per query.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use ndarray::{Array2, ArrayView1, s};
use parley_domain::model::{AgentId, ProductId};
use parley_domain::ports::VectorIndex;

/// Rows a collection reserves when it first grows.
const MIN_CAPACITY: usize = 16;

/// Exact nearest-neighbour search over unit vectors, one collection per agent, in memory.
///
/// Reads of any agents run concurrently; writes to one agent are exclusive for that agent only
/// (the outer map is write-locked just to add or drop an agent's collection).
pub struct ExactIndex {
    dimensions: usize,
    agents: RwLock<HashMap<AgentId, RwLock<Collection>>>,
}

impl ExactIndex {
    /// An empty index whose vectors all have `dimensions` components.
    pub fn new(dimensions: usize) -> Self {
        Self { dimensions, agents: RwLock::new(HashMap::new()) }
    }

    /// Length of every vector this index accepts.
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn check(&self, vector: &[f32], what: &str) -> bool {
        let ok = vector.len() == self.dimensions;
        if !ok {
            tracing::warn!(expected = self.dimensions, actual = vector.len(), "{what} has the wrong dimensions; ignored");
        }
        ok
    }
}

impl std::fmt::Debug for ExactIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let agents = read(&self.agents).len();
        f.debug_struct("ExactIndex").field("dimensions", &self.dimensions).field("agents", &agents).finish()
    }
}

/// One agent's vectors: rows `0..ids.len()` of `matrix` are in use, row `i` belongs to `ids[i]`.
/// The matrix has spare rows (its capacity) so appends are amortized.
struct Collection {
    matrix: Array2<f32>,
    ids: Vec<ProductId>,
    rows: HashMap<ProductId, usize>,
}

impl Collection {
    fn new(dimensions: usize) -> Self {
        Self { matrix: Array2::zeros((0, dimensions)), ids: Vec::new(), rows: HashMap::new() }
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    fn capacity(&self) -> usize {
        self.matrix.nrows()
    }

    /// Moves the used rows into a matrix of `capacity` rows (at least the used count).
    fn reallocate(&mut self, capacity: usize) {
        let used = self.len();
        let mut matrix = Array2::zeros((capacity.max(used), self.matrix.ncols()));
        matrix.slice_mut(s![..used, ..]).assign(&self.matrix.slice(s![..used, ..]));
        self.matrix = matrix;
    }

    fn upsert(&mut self, id: &ProductId, vector: &[f32]) {
        let vector = ArrayView1::from(vector);
        if let Some(&row) = self.rows.get(id) {
            self.matrix.row_mut(row).assign(&vector);
            return;
        }
        let row = self.len();
        if row == self.capacity() {
            self.reallocate((row * 2).max(MIN_CAPACITY));
        }
        self.matrix.row_mut(row).assign(&vector);
        self.ids.push(id.clone());
        self.rows.insert(id.clone(), row);
    }

    fn remove(&mut self, id: &ProductId) {
        let Some(hole) = self.rows.remove(id) else { return };
        let last = self.len() - 1;
        if hole != last {
            let (mut to, from) = self.matrix.multi_slice_mut((s![hole, ..], s![last, ..]));
            to.assign(&from);
            self.ids.swap(hole, last);
            self.rows.insert(self.ids[hole].clone(), hole);
        }
        self.ids.pop();
        // Keep memory proportional to the catalog: halve the matrix once it is mostly empty.
        if self.capacity() > MIN_CAPACITY && self.len() * 4 <= self.capacity() {
            self.reallocate((self.capacity() / 2).max(MIN_CAPACITY));
        }
    }

    fn top_k(&self, query: &[f32], k: usize) -> Vec<(ProductId, f32)> {
        let used = self.len();
        if used == 0 || k == 0 {
            return Vec::new();
        }
        let query = ArrayView1::from(query);
        let scores = self.matrix.slice(s![..used, ..]).dot(&query);
        let mut ranked: Vec<(f32, usize)> = scores.iter().copied().zip(0..used).collect();
        let best_first = |a: &(f32, usize), b: &(f32, usize)| by_score_desc(a.0, b.0).then_with(|| self.ids[a.1].cmp(&self.ids[b.1]));
        if k < used {
            ranked.select_nth_unstable_by(k - 1, best_first);
            ranked.truncate(k);
        }
        ranked.sort_unstable_by(best_first);
        ranked.into_iter().map(|(score, row)| (self.ids[row].clone(), score)).collect()
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

/// Lock helpers: a panic elsewhere must not make the index unusable, and no method here panics
/// while holding a lock, so a poisoned lock's data is still consistent.
fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

impl VectorIndex for ExactIndex {
    fn upsert(&self, agent: &AgentId, items: &[(ProductId, Vec<f32>)]) {
        let valid: Vec<&(ProductId, Vec<f32>)> = items.iter().filter(|(_, vector)| self.check(vector, "a vector")).collect();
        if valid.is_empty() {
            return;
        }
        {
            let agents = read(&self.agents);
            if let Some(collection) = agents.get(agent) {
                let mut collection = write(collection);
                for (id, vector) in valid {
                    collection.upsert(id, vector);
                }
                return;
            }
        }
        // A new agent: create and fill its collection under the outer write lock, so that a
        // concurrent `remove` (which drops empty collections) cannot drop it in between.
        let mut agents = write(&self.agents);
        let collection = agents.entry(agent.clone()).or_insert_with(|| RwLock::new(Collection::new(self.dimensions)));
        let collection = collection.get_mut().unwrap_or_else(PoisonError::into_inner);
        for (id, vector) in valid {
            collection.upsert(id, vector);
        }
    }

    fn remove(&self, agent: &AgentId, ids: &[ProductId]) {
        let emptied = {
            let agents = read(&self.agents);
            let Some(collection) = agents.get(agent) else { return };
            let mut collection = write(collection);
            for id in ids {
                collection.remove(id);
            }
            collection.len() == 0
        };
        if emptied {
            let mut agents = write(&self.agents);
            if agents.get(agent).is_some_and(|c| read(c).len() == 0) {
                agents.remove(agent);
            }
        }
    }

    fn top_k(&self, agent: &AgentId, query: &[f32], k: usize) -> Vec<(ProductId, f32)> {
        if !self.check(query, "a query") {
            return Vec::new();
        }
        let agents = read(&self.agents);
        match agents.get(agent) {
            Some(collection) => read(collection).top_k(query, k),
            None => Vec::new(),
        }
    }

    fn len(&self, agent: &AgentId) -> usize {
        read(&self.agents).get(agent).map_or(0, |c| read(c).len())
    }
}

#[cfg(test)]
mod tests;
