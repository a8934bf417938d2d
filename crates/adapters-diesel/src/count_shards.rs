//! Which row of an agent's kept counts a write adds to (`activity_counts`, `contact_counts`;
//! the `count_shards` migration). Every new conversation adds to its agent's counts, so with
//! one row per count concurrent ones queued on it, each holding it until its commit was
//! flushed: on PostgreSQL a count is split over [`CountShards::SHARDS`] rows, picked by the
//! counted row's id, and read as their sum. SQLite's writers run one at a time, so it keeps
//! one row (shard 0) and its reads stay one row.

/// How many rows a connection's backend splits each kept count over.
pub(crate) trait CountShards {
    const SHARDS: u32;
}

#[cfg(feature = "postgres")]
impl CountShards for crate::pool::PgConn {
    const SHARDS: u32 = 16;
}

#[cfg(feature = "sqlite")]
impl CountShards for crate::pool::SqliteWriteConn {
    const SHARDS: u32 = 1;
}

/// The shard `key` (the id of the row being counted) adds to on `conn`'s backend: always the
/// same one for a key, so an activity's status moves take back what its insert added there.
pub(crate) fn shard<C: CountShards>(_conn: &C, key: &str) -> i32 {
    shard_of(key, C::SHARDS)
}

fn shard_of(key: &str, shards: u32) -> i32 {
    // FNV-1a: every byte moves the low bits too, so ids that differ in one character spread.
    let hash = key.bytes().fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    // Below `shards`, which is small: the cast cannot truncate.
    (hash % shards) as i32
}

#[cfg(test)]
mod tests {
    use super::shard_of;

    #[test]
    fn one_shard_is_always_shard_zero() {
        assert!(["act_a", "act_b", "con_xyz", ""].iter().all(|k| shard_of(k, 1) == 0));
    }

    #[test]
    fn ids_spread_over_every_shard_and_keep_theirs() {
        let ids: Vec<String> = (0..400).map(|n| format!("act_{n:012x}")).collect();
        let mut seen = [0u32; 16];
        for id in &ids {
            let s = shard_of(id, 16);
            assert_eq!(s, shard_of(id, 16), "the same id, the same shard");
            seen[s as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n >= 10), "400 ids over 16 shards: {seen:?}");
    }
}
