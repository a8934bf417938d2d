//! The query planner's statistics (row counts and index selectivity).
//!
//! PostgreSQL's autovacuum keeps them; SQLite keeps none until asked. Without them SQLite's
//! planner guesses, and guesses wrong where it matters: an activity search matching 1,000
//! contacts walked all 10,000 of the agent's activities by status instead of looking up the
//! 1,000 by their (agent, contact) key (4.8 ms against 0.7 ms for the count).

use std::time::Instant;

use diesel_async::SimpleAsyncConnection;

use crate::Store;
use crate::error::DbError;
use crate::pool::{Pools, with_conn};

impl Store {
    /// Refreshes the statistics where they went stale, cheaply: SQLite's `PRAGMA optimize`
    /// (each table whose size changed a lot since its last analysis, by a bounded sample); nothing
    /// on PostgreSQL, whose autovacuum does it. SQLite's advice is to run it when a connection
    /// closes and every few hours on long-lived ones: `parley` runs it after each command and
    /// while serving.
    pub async fn keep_statistics(&self) -> Result<(), DbError> {
        match &*self.pools {
            #[cfg(feature = "sqlite")]
            Pools::Sqlite { .. } => {
                let started = Instant::now();
                with_conn!(self, |conn| conn.batch_execute("PRAGMA optimize = 0x10002").await.map_err(DbError::from))?;
                self.reopen_sqlite_connections(started);
                Ok(())
            }
            #[cfg_attr(
                not(feature = "postgres"),
                expect(unreachable_patterns, reason = "with SQLite alone compiled in, the arm above covers every pool")
            )]
            _ => Ok(()),
        }
    }

    /// A SQLite connection reads the statistics when it opens, and an analysis refreshes only
    /// the copy of the connection that ran it: the idle connections opened before `since` are
    /// closed, so the pools open new ones that plan with the new statistics. (Those busy now
    /// keep the old ones until the next refresh.)
    fn reopen_sqlite_connections(&self, since: Instant) {
        #[cfg(feature = "sqlite")]
        if let Pools::Sqlite { blocking, inline, writes, .. } = &*self.pools {
            blocking.retain(|_, metrics| metrics.created > since);
            inline.retain(|_, metrics| metrics.created > since);
            writes.retain(|_, metrics| metrics.created > since);
        }
        #[cfg(not(feature = "sqlite"))]
        let _ = since;
    }

    /// Analyzes every table now (`ANALYZE`, on both backends): after a bulk load, or when
    /// an operator wants plans settled at once. On PostgreSQL only Parley's own tables (those
    /// of the connection's schema), not the whole database it may share.
    pub async fn analyze(&self) -> Result<(), DbError> {
        match &*self.pools {
            #[cfg(feature = "postgres")]
            Pools::Pg(_) => with_conn!(self, |conn| conn
                .batch_execute(
                    "DO $$ DECLARE t text; BEGIN \
                     FOR t IN SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = current_schema() LOOP \
                     EXECUTE 'ANALYZE ' || t; END LOOP; END $$"
                )
                .await
                .map_err(DbError::from)),
            #[cfg_attr(
                not(feature = "sqlite"),
                expect(unreachable_patterns, reason = "with PostgreSQL alone compiled in, the arm above covers every pool")
            )]
            _ => {
                let started = Instant::now();
                with_conn!(self, |conn| conn.batch_execute("ANALYZE").await.map_err(DbError::from))?;
                self.reopen_sqlite_connections(started);
                Ok(())
            }
        }
    }
}
