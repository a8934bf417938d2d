//! [`ExactIndex`]: exact nearest-neighbour search in memory, one contiguous row-major matrix
//! per agent (see [`collection`] for how a query scans it, [`facets`] for how a filter finds its
//! rows).

mod collection;
mod facets;
// The one unsafe code of the workspace: calls into copies compiled for AVX2 and FMA, made only
// after the CPU reported both at run time.
#[expect(unsafe_code, reason = "AVX2/FMA kernels, called only after the CPU reported both")]
mod kernels;

use std::collections::HashMap;
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use parley_domain::model::{AgentId, ProductFilter, ProductId, Searchable};
use parley_domain::ports::VectorIndex;

use collection::Collection;

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

/// Lock helpers: a panic elsewhere must not make the index unusable, and no method here panics
/// while holding a lock, so a poisoned lock's data is still consistent.
fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

impl VectorIndex for ExactIndex {
    fn upsert(&self, agent: &AgentId, items: &[(ProductId, Searchable)]) {
        let valid: Vec<&(ProductId, Searchable)> = items.iter().filter(|(_, s)| self.check(&s.vector, "a vector")).collect();
        if valid.is_empty() {
            return;
        }
        {
            let agents = read(&self.agents);
            if let Some(collection) = agents.get(agent) {
                let mut collection = write(collection);
                for (id, searchable) in valid {
                    collection.upsert(id, searchable);
                }
                return;
            }
        }
        // A new agent: create and fill its collection under the outer write lock, so that a
        // concurrent `remove` (which drops empty collections) cannot drop it in between.
        let mut agents = write(&self.agents);
        let collection = agents.entry(agent.clone()).or_insert_with(|| RwLock::new(Collection::new(self.dimensions)));
        let collection = collection.get_mut().unwrap_or_else(PoisonError::into_inner);
        for (id, searchable) in valid {
            collection.upsert(id, searchable);
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

    fn top_k(&self, agent: &AgentId, query: &[f32], k: usize, filter: &ProductFilter) -> Vec<(ProductId, f32)> {
        if !self.check(query, "a query") {
            return Vec::new();
        }
        let agents = read(&self.agents);
        match agents.get(agent) {
            Some(collection) => read(collection).top_k(query, k, filter),
            None => Vec::new(),
        }
    }

    fn len(&self, agent: &AgentId) -> usize {
        read(&self.agents).get(agent).map_or(0, |c| read(c).len())
    }
}

#[cfg(test)]
mod tests;
