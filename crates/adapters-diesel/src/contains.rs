//! `text` holds `fragment` as a plain substring, case-sensitively.
//!
//! `LIKE '%…%'` needs the fragment's `%`, `_` and escape character escaped, and on SQLite runs
//! the pattern matcher over every row: twice the time of `instr` scanning an agent's 10,000
//! contact names. SQLite writes it `instr(text, ?) > 0`, PostgreSQL `strpos(text, $1) > 0`.

use diesel::query_builder::{AstPass, QueryFragment};
use diesel::result::QueryResult;
use diesel::sql_types::Text;

use crate::column_test::column_test;

/// See the module docs; build it with [`contains`].
#[derive(Debug, Clone)]
pub(crate) struct Contains<C> {
    column: C,
    fragment: String,
}

/// Whether `column` holds `fragment` (an empty fragment is in every text).
pub(crate) fn contains<C>(column: C, fragment: &str) -> Contains<C> {
    Contains { column, fragment: fragment.to_string() }
}

column_test!(Contains);

#[cfg(feature = "sqlite")]
impl<C: QueryFragment<diesel::sqlite::Sqlite>> QueryFragment<diesel::sqlite::Sqlite> for Contains<C> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, diesel::sqlite::Sqlite>) -> QueryResult<()> {
        out.push_sql("instr(");
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&self.fragment)?;
        out.push_sql(") > 0");
        Ok(())
    }
}

#[cfg(feature = "postgres")]
impl<C: QueryFragment<diesel::pg::Pg>> QueryFragment<diesel::pg::Pg> for Contains<C> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, diesel::pg::Pg>) -> QueryResult<()> {
        out.push_sql("strpos(");
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(", ");
        out.push_bind_param::<Text, _>(&self.fragment)?;
        out.push_sql(") > 0");
        Ok(())
    }
}

#[cfg(all(test, feature = "testing", feature = "sqlite", feature = "postgres"))]
mod tests {
    use diesel::prelude::*;
    use diesel_async::RunQueryDsl;

    use super::contains;
    use crate::error::DbError;
    use crate::pool::with_conn;
    use crate::schema::agents;
    use crate::testing::TestDb;

    /// LIKE's and regular expressions' special characters are plain text here, case counts,
    /// and the empty fragment matches every row.
    async fn matches_plain_substrings(backend: &str) {
        let db = TestDb::of(backend).await;
        let found = load(&db.store).await.expect("queries run");
        let expected: [&[&str]; 8] = [
            &["50% off"],
            &["a_b"],
            &["back\\slash"],
            &["Caf\u{e9} Ana"],
            &[],
            &["dot.star*"],
            &["50% off"],
            &["50% off", "Caf\u{e9} Ana", "a_b", "back\\slash", "dot.star*"],
        ];
        for (got, want) in found.iter().zip(expected) {
            assert_eq!(got, &want.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "{backend}");
        }
    }

    async fn load(store: &crate::Store) -> Result<Vec<Vec<String>>, DbError> {
        let names = ["50% off", "a_b", "back\\slash", "Caf\u{e9} Ana", "dot.star*"];
        with_conn!(store, |conn| async {
            for (i, name) in names.iter().enumerate() {
                diesel::insert_into(agents::table)
                    .values((agents::id.eq(format!("agt_{i}")), agents::name.eq(name), agents::created_at.eq(0_i64)))
                    .execute(conn)
                    .await?;
            }
            let mut found = Vec::new();
            for fragment in ["%", "_", "\\", "\u{e9} A", "caf", "r*", "0% o", ""] {
                let mut got: Vec<String> = agents::table.filter(contains(agents::name, fragment)).select(agents::name).load(conn).await?;
                got.sort();
                found.push(got);
            }
            Ok::<_, DbError>(found)
        }
        .await)
    }

    #[tokio::test]
    async fn sqlite_matches_plain_substrings() {
        matches_plain_substrings("sqlite").await;
    }

    #[tokio::test]
    async fn postgres_matches_plain_substrings() {
        matches_plain_substrings("postgres").await;
    }
}
