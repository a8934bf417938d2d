//! A condition written into the SQL text as it is, like `diesel::dsl::sql`, but which leaves the
//! statement cacheable: diesel marks every `sql` literal unsafe to cache, so a list filtered by
//! one was parsed and planned again on every request (a fifth of the `unread=true` page's time
//! on SQLite). Used where the text must be literal: PostgreSQL uses a partial index only for a
//! query whose condition it can see implies the index's, which a bound parameter hides.

use std::marker::PhantomData;

use diesel::backend::Backend;
use diesel::expression::{AppearsOnTable, Expression, SelectableExpression, ValidGrouping, is_aggregate};
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::result::QueryResult;
use diesel::sql_types::Bool;

/// One condition's text, as a type: the type is the statement's cache key, so a query of fixed
/// shape holding it is found in the cache without its SQL being built.
pub(crate) trait ConditionText: 'static {
    const SQL: &'static str;
}

/// See the module docs; build it with [`fixed_condition`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct FixedCondition<C>(PhantomData<C>);

/// The condition `C::SQL`, a boolean over the query's tables, written as it is.
pub(crate) fn fixed_condition<C: ConditionText>() -> FixedCondition<C> {
    FixedCondition(PhantomData)
}

/// `activities.unread_count > 0`: the partial index `activities_agent_unread_updated`'s own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Unread;

impl ConditionText for Unread {
    const SQL: &'static str = "activities.unread_count > 0";
}

/// `activities.unread_count = 0`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Read;

impl ConditionText for Read {
    const SQL: &'static str = "activities.unread_count = 0";
}

impl<C> Expression for FixedCondition<C> {
    type SqlType = Bool;
}

impl<C, QS> AppearsOnTable<QS> for FixedCondition<C> {}

impl<C, QS> SelectableExpression<QS> for FixedCondition<C> {}

impl<C, GB> ValidGrouping<GB> for FixedCondition<C> {
    type IsAggregate = is_aggregate::Never;
}

impl<C: ConditionText> QueryId for FixedCondition<C> {
    type QueryId = Self;
    const HAS_STATIC_QUERY_ID: bool = true;
}

impl<C: ConditionText, DB: Backend> QueryFragment<DB> for FixedCondition<C> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        out.push_sql(C::SQL);
        Ok(())
    }
}
