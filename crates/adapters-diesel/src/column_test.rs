//! The diesel traits shared by this crate's boolean tests of one text column ([`InList`],
//! [`Contains`]), whose other fields are values bound at run time.
//!
//! [`InList`]: crate::in_list::InList
//! [`Contains`]: crate::contains::Contains

/// Implements, for `$name<C>` over a text column `C`: a boolean SQL type; appearing and being
/// selectable wherever the column is; the column's grouping; and a query id of the column's type
/// alone, since the SQL text depends only on the column (so a statement using it stays cached).
macro_rules! column_test {
    ($name:ident) => {
        impl<C: diesel::expression::Expression<SqlType = diesel::sql_types::Text>> diesel::expression::Expression for $name<C> {
            type SqlType = diesel::sql_types::Bool;
        }

        impl<C: diesel::expression::AppearsOnTable<QS>, QS> diesel::expression::AppearsOnTable<QS> for $name<C> where
            Self: diesel::expression::Expression
        {
        }

        impl<C: diesel::expression::SelectableExpression<QS>, QS> diesel::expression::SelectableExpression<QS> for $name<C> where
            Self: diesel::expression::AppearsOnTable<QS>
        {
        }

        impl<C: diesel::expression::ValidGrouping<GB>, GB> diesel::expression::ValidGrouping<GB> for $name<C> {
            type IsAggregate = C::IsAggregate;
        }

        impl<C: diesel::query_builder::QueryId> diesel::query_builder::QueryId for $name<C> {
            type QueryId = $name<C::QueryId>;
            const HAS_STATIC_QUERY_ID: bool = C::HAS_STATIC_QUERY_ID;
        }
    };
}

pub(crate) use column_test;
