//! Prepared once per connection: writes diesel would otherwise send as new SQL every time.
//!
//! diesel keeps a statement in its per-connection cache only when it can prove the query's SQL
//! never varies, and it never can for an `UPDATE` or an `ON CONFLICT … DO UPDATE` (their
//! changesets may skip `None` fields). So each of those was parsed, analysed and planned again
//! on every execution: on PostgreSQL, the two activity updates of an inbound message spent
//! 164 µs a message planning alone (`pg_stat_statements`, plans = calls), of about 1 ms of
//! server time a message. [`Prepared`] lets the cache keep such a statement keyed by its SQL
//! text and bind types (never by its Rust type), so a query whose text does vary is simply
//! kept once per text. Use it only on statements with a bounded number of texts: fixed
//! changesets, not `IN` lists or batch inserts of varying length.

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::result::QueryResult;

/// `Q`, kept in the connection's statement cache under its SQL text (see the module).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prepared<Q>(Q);

/// `.prepared()` on any query.
pub(crate) trait Prepare: Sized {
    fn prepared(self) -> Prepared<Self> {
        Prepared(self)
    }
}

impl<Q> Prepare for Q {}

impl<Q> QueryId for Prepared<Q> {
    // No static id: the cache key is the SQL text, built for each execution.
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q: Query> Query for Prepared<Q> {
    type SqlType = Q::SqlType;
}

impl<Q: QueryFragment<DB>, DB: Backend> QueryFragment<DB> for Prepared<Q> {
    fn walk_ast<'b>(&'b self, pass: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        self.0.walk_ast(pass)
    }

    fn is_safe_to_cache_prepared(&self, _backend: &DB) -> QueryResult<bool> {
        Ok(true)
    }
}

#[cfg(all(test, feature = "postgres"))]
mod tests {
    #![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

    use diesel::prelude::*;
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};

    use super::Prepare;

    diesel::table! {
        prepared_probe (id) {
            id -> Integer,
            n -> BigInt,
        }
    }

    #[derive(QueryableByName)]
    struct Executions {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        most: i64,
    }

    /// The most executions any one server-side statement of this connection's has had of the
    /// probe's `UPDATE` (diesel sends every statement prepared; an uncached one is closed
    /// after its one execution).
    async fn most_executions(conn: &mut AsyncPgConnection) -> i64 {
        let row: Executions = diesel::sql_query(
            "SELECT COALESCE(MAX(generic_plans + custom_plans), 0) AS most FROM pg_prepared_statements \
             WHERE statement LIKE 'UPDATE \"prepared_probe\"%'",
        )
        .get_result(conn)
        .await
        .unwrap();
        row.most
    }

    fn bump() -> impl diesel::query_builder::QueryFragment<diesel::pg::Pg> + diesel::query_builder::QueryId + Send {
        diesel::update(prepared_probe::table.filter(prepared_probe::id.eq(1))).set(prepared_probe::n.eq(prepared_probe::n + 1))
    }

    #[tokio::test]
    async fn an_update_is_prepared_once_and_reused_only_when_asked() {
        let mut conn = AsyncPgConnection::establish(&crate::testing::postgres_admin_url()).await.unwrap();
        conn.batch_execute(
            "CREATE TEMP TABLE prepared_probe (id INTEGER PRIMARY KEY, n BIGINT NOT NULL); INSERT INTO prepared_probe VALUES (1, 0)",
        )
        .await
        .unwrap();

        // diesel alone prepares an UPDATE anew for each execution.
        for _ in 0..3 {
            bump().execute(&mut conn).await.unwrap();
        }
        assert!(most_executions(&mut conn).await <= 1);

        for _ in 0..3 {
            assert_eq!(bump().prepared().execute(&mut conn).await.unwrap(), 1);
        }
        assert_eq!(most_executions(&mut conn).await, 3, "three executions of one prepared statement");
        let n: i64 = prepared_probe::table.select(prepared_probe::n).first(&mut conn).await.unwrap();
        assert_eq!(n, 6, "every execution ran");
    }
}
