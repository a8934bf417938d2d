//! SQLite's write-ahead log, copied into the database file off the writers' path.
//!
//! By default the connection whose commit grows the log past 1,000 pages copies it back into
//! the database and flushes both files, inside that commit: with a message's write dirtying
//! about 35 pages, every 30th delivery paid for it. Measured on the bench's database (2,000
//! message transactions in a row): 1.8–2.9 ms each with the default, 1.3–1.45 ms with the
//! threshold at 10,000 pages, 1.26–1.32 ms with a background checkpoint besides. At 700
//! deliveries a second a 10,000-page bound was crossed three times a second, and the webhook
//! thread's most common wait was that fsync. So writers checkpoint only past 40,000 pages
//! (`SQLITE_PRAGMAS`; a safety net, about 160 MB), and `parley serve` runs a passive checkpoint
//! every 250 ms on a blocking thread, which waits for no reader or writer.

use diesel_async::SimpleAsyncConnection;

use crate::Store;
use crate::error::DbError;
use crate::pool::{Pools, with_conn};

impl Store {
    /// Copies the committed pages of SQLite's write-ahead log into the database file as far as
    /// readers allow (`PRAGMA wal_checkpoint(PASSIVE)`), without waiting for readers or
    /// writers; nothing on PostgreSQL.
    pub async fn checkpoint(&self) -> Result<(), DbError> {
        match &*self.pools {
            #[cfg(feature = "sqlite")]
            Pools::Sqlite { .. } => {
                with_conn!(self, |conn| conn.batch_execute("PRAGMA wal_checkpoint(PASSIVE)").await.map_err(DbError::from))
            }
            #[cfg_attr(
                not(feature = "postgres"),
                expect(unreachable_patterns, reason = "with SQLite alone compiled in, the arm above covers every pool")
            )]
            _ => Ok(()),
        }
    }
}
