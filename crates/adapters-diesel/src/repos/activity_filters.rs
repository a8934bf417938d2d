//! The team inbox's filters of the activity list: several statuses, `assigned_to`,
//! `channel_type`, `unread`, `since` (with `tag` and `search`, which have paths of their own
//! when alone: `activities.rs`, `activity_search.rs`).
//!
//! Each filter is a range of an index in list order (`updated_at` descending, then id: see the
//! `inbox_filters` migration), so whichever keeps the fewest conversations is the one the
//! planner reads, and the page stops at its end. Queries here are boxed: one fixed shape per
//! combination would be dozens, and a boxed query's cost (its SQL text built per request to
//! find the cached statement) is measured against the endpoint's target in `docs/performance.md`.
//! Totals are counted, except `assigned_to=none` alone (with statuses or not): most of an
//! inbox can be unassigned, so its count is kept (`activity_counts.unassigned`).

use parley_domain::model::{ActivityFilter, AssigneeFilter};

/// Whether `filter` uses only what the fixed-shape pages of `activities.rs` serve: one status
/// or none, and a tag.
pub(crate) fn served_by_fixed_pages(filter: &ActivityFilter) -> bool {
    !has_inbox_filters(filter)
}

/// Whether `filter` has a condition beyond a search, one status and a tag.
pub(crate) fn has_inbox_filters(filter: &ActivityFilter) -> bool {
    (!filter.status.is_any() && filter.status.single().is_none())
        || filter.assigned_to.is_some()
        || filter.channel_type.is_some()
        || filter.unread.is_some()
        || filter.since.is_some()
}

/// Whether the kept counts answer the total: `assigned_to=none` and statuses, nothing else.
pub(crate) fn unassigned_count_only(filter: &ActivityFilter) -> bool {
    matches!(filter.assigned_to, Some(AssigneeFilter::Unassigned))
        && filter.tag.is_none()
        && filter.search.is_none()
        && filter.channel_type.is_none()
        && filter.unread.is_none()
        && filter.since.is_none()
}

/// The agent's activities that `$filter` keeps (its search aside), as a boxed query.
macro_rules! filtered {
    ($agent:expr, $filter:expr) => {{
        use crate::schema::{activities, activity_tags, contact_channels};
        use parley_domain::model::{ActivityStatus, AssigneeFilter};
        let (agent, filter): (&str, &ActivityFilter) = ($agent, $filter);
        let mut q = activities::table.filter(activities::agent_id.eq(agent.to_string())).into_boxed();
        if !filter.status.is_any() {
            q = q.filter(activities::status.eq_any(filter.status.iter().map(ActivityStatus::as_str).collect::<Vec<_>>()));
        }
        match &filter.assigned_to {
            Some(AssigneeFilter::Unassigned) => q = q.filter(activities::assigned_to.is_null()),
            Some(AssigneeFilter::To(user)) => q = q.filter(activities::assigned_to.eq(user.as_str().to_string())),
            None => {}
        }
        match filter.unread {
            // Written out, not bound: PostgreSQL uses a partial index only for a query whose
            // condition it can see implies the index's.
            Some(true) => q = q.filter(diesel::dsl::sql::<diesel::sql_types::Bool>("activities.unread_count > 0")),
            Some(false) => q = q.filter(diesel::dsl::sql::<diesel::sql_types::Bool>("activities.unread_count = 0")),
            None => {}
        }
        if let Some(since) = filter.since {
            q = q.filter(activities::updated_at.gt(crate::rows::millis(since)));
        }
        if let Some(channel_type) = filter.channel_type {
            q = q.filter(
                activities::contact_id.eq_any(
                    contact_channels::table
                        .filter(contact_channels::agent_id.eq(agent.to_string()))
                        .filter(contact_channels::channel_type.eq(channel_type.as_str()))
                        .select(contact_channels::contact_id),
                ),
            );
        }
        if let Some(tag) = &filter.tag {
            q = q.filter(activities::id.eq_any(
                activity_tags::table.filter(activity_tags::tag_id.eq(tag.as_str().to_string())).select(activity_tags::activity_id),
            ));
        }
        q
    }};
}

/// `(total, rows of the page)` of a list with inbox filters and no search, each query run as
/// `$mode` says (see [`run!`](crate::pool::run)).
macro_rules! page_of_filtered {
    ($mode:ident, $conn:ident, $agent:ident, $filter:ident, $page:ident) => {{
        use crate::pool::run;
        use crate::repos::activity_filters::{filtered, unassigned_count_only};
        use crate::schema::{activities, activity_counts};
        let (agent, filter, page): (&str, &ActivityFilter, PageRequest) = ($agent.as_str(), &$filter, $page);
        let total: i64 = if unassigned_count_only(filter) {
            let statuses: Vec<&str> = filter.status.iter().map(ActivityStatus::as_str).collect();
            let counts: Vec<i64> = run!(
                $mode,
                load,
                $conn,
                activity_counts::table
                    .filter(activity_counts::agent_id.eq(agent))
                    .filter(activity_counts::status.eq_any(statuses))
                    .select(activity_counts::unassigned)
            );
            counts.into_iter().sum()
        } else {
            run!($mode, one, $conn, filtered!(agent, filter).count())
        };
        let rows: Vec<ViewRow> = if total <= page.offset() as i64 {
            Vec::new()
        } else {
            run!(
                $mode,
                load,
                $conn,
                filtered!(agent, filter)
                    .order((activities::updated_at.desc(), activities::id.desc()))
                    .limit(i64::from(page.limit()))
                    .offset(page.offset() as i64)
                    .select(ViewRow::as_select())
            )
        };
        (total, rows)
    }};
}

/// The ids of `$ids` (a search's matches) that `$filter`'s other conditions keep.
macro_rules! kept_by_filters {
    ($mode:ident, $conn:ident, $agent:expr, $filter:expr, $ids:expr) => {{
        use crate::in_list::in_list;
        use crate::repos::activity_filters::filtered;
        use crate::schema::activities;
        let kept: Vec<String> =
            crate::pool::run!($mode, load, $conn, filtered!($agent, $filter).filter(in_list(activities::id, $ids)).select(activities::id));
        kept
    }};
}

pub(crate) use {filtered, kept_by_filters, page_of_filtered};

#[cfg(test)]
mod tests {
    use super::*;
    use parley_domain::model::{ActivityStatus, StatusSet};

    #[test]
    fn one_status_and_a_tag_keep_the_fixed_pages() {
        let mut filter = ActivityFilter { status: ActivityStatus::Open.into(), ..Default::default() };
        assert!(served_by_fixed_pages(&filter));
        filter.status = StatusSet::parse("open,closed").unwrap();
        assert!(!served_by_fixed_pages(&filter));
        let unassigned = ActivityFilter { assigned_to: Some(AssigneeFilter::Unassigned), ..Default::default() };
        assert!(unassigned_count_only(&unassigned));
        assert!(!unassigned_count_only(&ActivityFilter { unread: Some(true), ..unassigned }));
    }
}
