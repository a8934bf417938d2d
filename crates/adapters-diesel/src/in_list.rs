//! `column IN (values)` with the values as one bound parameter.
//!
//! diesel's `eq_any` writes one placeholder per value on SQLite (`IN (?, ?, …)`), so the
//! statement text changes with the count and is prepared again on every call: parsing and
//! planning was a fifth of a list request's time. Here the text is fixed, so the connection's
//! statement cache keeps it: SQLite reads the values from a JSON array (`json_each`),
//! PostgreSQL from a text array (`= ANY`).

use diesel::query_builder::{AstPass, QueryFragment};
use diesel::result::QueryResult;
use diesel::sql_types::Text;

use crate::column_test::column_test;

/// See the module docs; build it with [`in_list`].
#[derive(Debug, Clone)]
pub(crate) struct InList<C> {
    column: C,
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    values: Vec<String>,
    #[cfg_attr(not(feature = "sqlite"), allow(dead_code))]
    json: String,
}

/// `column IN (values)`, one parameter whatever the number of values (none matches nothing).
pub(crate) fn in_list<C, S: AsRef<str>>(column: C, values: impl IntoIterator<Item = S>) -> InList<C> {
    let values: Vec<String> = values.into_iter().map(|v| v.as_ref().to_string()).collect();
    let json = serde_json::to_string(&values).expect("a list of strings is valid JSON");
    InList { column, values, json }
}

column_test!(InList);

#[cfg(feature = "sqlite")]
impl<C: QueryFragment<diesel::sqlite::Sqlite>> QueryFragment<diesel::sqlite::Sqlite> for InList<C> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, diesel::sqlite::Sqlite>) -> QueryResult<()> {
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(" IN (SELECT value FROM json_each(");
        out.push_bind_param::<Text, _>(&self.json)?;
        out.push_sql("))");
        Ok(())
    }
}

#[cfg(feature = "postgres")]
impl<C: QueryFragment<diesel::pg::Pg>> QueryFragment<diesel::pg::Pg> for InList<C> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, diesel::pg::Pg>) -> QueryResult<()> {
        self.column.walk_ast(out.reborrow())?;
        out.push_sql(" = ANY(");
        out.push_bind_param::<diesel::sql_types::Array<Text>, _>(&self.values)?;
        out.push_sql(")");
        Ok(())
    }
}

#[cfg(all(test, feature = "testing", feature = "sqlite", feature = "postgres"))]
mod tests {
    use diesel::prelude::*;
    use diesel_async::RunQueryDsl;

    use super::in_list;
    use crate::error::DbError;
    use crate::pool::with_conn;
    use crate::schema::agents;
    use crate::testing::TestDb;

    /// Ids with JSON's special characters, a duplicate, one absent, and the empty list.
    async fn matches_exactly_the_listed_values(backend: &str) {
        let db = TestDb::of(backend).await;
        let ids = ["plain", "quote\"d", "back\\slash", "uni\u{e9}code", "new\nline"];
        let found = load(&db.store, &ids).await.expect("queries run");
        let mut all: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        all.sort();
        assert_eq!(found[0], all, "{backend}");
        assert_eq!(found[1], vec!["quote\"d".to_string()], "{backend}");
        assert!(found[2].is_empty(), "{backend}");
        assert_eq!(found[3], vec!["back\\slash".to_string(), "new\nline".to_string()], "{backend}");
    }

    async fn load(store: &crate::Store, ids: &[&str; 5]) -> Result<Vec<Vec<String>>, DbError> {
        with_conn!(store, |conn| async {
            for id in ids {
                diesel::insert_into(agents::table)
                    .values((agents::id.eq(id), agents::name.eq(id), agents::created_at.eq(0_i64)))
                    .execute(conn)
                    .await?;
            }
            let lists: [&[&str]; 4] = [ids, &["quote\"d", "quote\"d", "absent"], &[], &["back\\slash", "new\nline"]];
            let mut found = Vec::new();
            for list in lists {
                let mut got: Vec<String> = agents::table.filter(in_list(agents::id, list)).select(agents::id).load(conn).await?;
                got.sort();
                found.push(got);
            }
            Ok::<_, DbError>(found)
        }
        .await)
    }

    #[tokio::test]
    async fn sqlite_matches_exactly_the_listed_values() {
        matches_exactly_the_listed_values("sqlite").await;
    }

    #[tokio::test]
    async fn postgres_matches_exactly_the_listed_values() {
        matches_exactly_the_listed_values("postgres").await;
    }
}
