//! Recently verified keys, so that authenticating a busy key does not cost a database query on
//! every request.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use chrono::TimeDelta;

use crate::model::{ApiKeyId, Caller, KeyHash, Principal, Timestamp};

/// How long a verified key is trusted without asking the database again: a key revoked from
/// another process (the command line, another instance) is refused at most this long after.
/// Revocations through this process take effect at once.
pub const KEY_CACHE_TTL: TimeDelta = TimeDelta::seconds(5);
/// Entries kept at most; past that the cache starts over (a flood of distinct valid keys is not
/// a workload to optimize, and memory stays bounded).
const CAPACITY: usize = 10_000;

#[derive(Default)]
pub(super) struct KeyCache {
    entries: Mutex<HashMap<KeyHash, (Principal, Timestamp)>>,
}

impl KeyCache {
    /// The principal of `hash` if it was verified less than [`KEY_CACHE_TTL`] before `now`.
    pub(super) fn get(&self, hash: &KeyHash, now: Timestamp) -> Option<Principal> {
        let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.get(hash).filter(|(_, verified)| now - *verified < KEY_CACHE_TTL).map(|(principal, _)| principal.clone())
    }

    pub(super) fn put(&self, hash: KeyHash, principal: Principal, now: Timestamp) {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= CAPACITY {
            entries.retain(|_, (_, verified)| now - *verified < KEY_CACHE_TTL);
            if entries.len() >= CAPACITY {
                entries.clear();
            }
        }
        entries.insert(hash, (principal, now));
    }

    pub(super) fn forget(&self, key: &ApiKeyId) {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|_, (principal, _)| principal.caller != Caller::Key(key.clone()));
    }
}
