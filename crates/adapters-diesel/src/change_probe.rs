//! [`ChangeProbe`] on SQLite: `PRAGMA data_version` read on one connection of its own.
//!
//! SQLite changes a connection's `data_version` whenever another connection commits, in this
//! process or any other (an operator's command on the same file). The probe's connection never
//! writes, so every commit is another's: the value it reads moves with each one, and two reads
//! compare only because they are made on the same connection. PostgreSQL has no such number
//! (a kept version would be one more write in every transaction of every instance): `None`.

use std::sync::{Mutex, PoisonError};

use diesel::prelude::*;
use diesel::sql_types::BigInt;
use parley_domain::ports::{ChangeProbe, StoreResult};

use crate::Store;
use crate::error::DbError;

/// The probe's connection, made at its first use and made again after an error.
pub(crate) struct SqliteProbe {
    path: String,
    conn: Mutex<Option<SqliteConnection>>,
}

#[derive(QueryableByName)]
struct DataVersion {
    #[diesel(sql_type = BigInt)]
    data_version: i64,
}

#[cfg_attr(not(feature = "sqlite"), expect(dead_code, reason = "made only for a SQLite pool"))]
impl SqliteProbe {
    pub(crate) fn new(path: &str) -> Self {
        Self { path: path.to_string(), conn: Mutex::new(None) }
    }

    /// The connection's `data_version` now. A statement of microseconds, run on the caller's
    /// thread (as the inline reads are); the lock serializes the probes of one process.
    fn read(&self) -> Result<u64, DbError> {
        let mut held = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        let conn = match &mut *held {
            Some(conn) => conn,
            empty => {
                let mut conn = SqliteConnection::establish(&self.path).map_err(|e| DbError::Pool(e.to_string()))?;
                diesel::connection::SimpleConnection::batch_execute(&mut conn, "PRAGMA busy_timeout = 5000;")?;
                empty.insert(conn)
            }
        };
        match diesel::sql_query("PRAGMA data_version").get_result::<DataVersion>(conn) {
            Ok(row) => Ok(row.data_version as u64),
            Err(e) => {
                *held = None;
                Err(e.into())
            }
        }
    }
}

#[async_trait::async_trait]
impl ChangeProbe for Store {
    async fn version(&self) -> StoreResult<Option<u64>> {
        match self.pools.change_probe() {
            Some(probe) => Ok(Some(probe.read()?)),
            None => Ok(None),
        }
    }
}
