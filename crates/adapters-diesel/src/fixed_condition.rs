//! A condition written into the SQL text as it is, like `diesel::dsl::sql`, but which leaves the
//! statement cacheable: diesel marks every `sql` literal unsafe to cache, so a list filtered by
//! one was parsed and planned again on every request (a fifth of the `unread=true` page's time
//! on SQLite). Used where the text must be literal: PostgreSQL uses a partial index only for a
//! query whose condition it can see implies the index's, which a bound parameter hides.

use diesel::backend::Backend;
use diesel::expression::{AppearsOnTable, Expression, SelectableExpression, ValidGrouping, is_aggregate};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::result::QueryResult;
use diesel::sql_types::Bool;

/// See the module docs. The text must be a constant: it is the statement's cache key.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FixedCondition(&'static str);

/// `sql`, a boolean condition over the query's tables, written as it is.
pub(crate) fn fixed_condition(sql: &'static str) -> FixedCondition {
    FixedCondition(sql)
}

impl Expression for FixedCondition {
    type SqlType = Bool;
}

impl<QS> AppearsOnTable<QS> for FixedCondition {}

impl<QS> SelectableExpression<QS> for FixedCondition {}

impl<GB> ValidGrouping<GB> for FixedCondition {
    type IsAggregate = is_aggregate::Never;
}

// No static id: two conditions share this type, so statements are found by their text.
impl QueryId for FixedCondition {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<DB: Backend> QueryFragment<DB> for FixedCondition {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql(self.0);
        Ok(())
    }
}
