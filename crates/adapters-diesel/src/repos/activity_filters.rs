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
//!
//! Where they run: on SQLite a read handed to the blocking pool costs two thread wake-ups, which
//! with uncached statements held these lists to half the plain list's throughput. A filter that is one index range
//! ([`one_index_range`]) is read inline when its matches are few: a probe reads at most
//! [`INLINE_MATCHES`] ids of the range (every row read is a match, so the probe's cost is
//! bounded), and when it finds fewer, that is the total and the page is read inline too. When
//! it finds that many, or the filter combines conditions (a scan may read many rows to find few),
//! the list is counted on the blocking pool, as a search is.

use parley_domain::model::{ActivityFilter, AssigneeFilter};

/// The most matches a filter may have to be listed on the request's thread.
pub(crate) const INLINE_MATCHES: i64 = 200;

/// Whether `filter` has a condition beyond a search, one status and a tag: those the
/// fixed-shape pages of `activities.rs` do not serve.
pub(crate) fn has_inbox_filters(filter: &ActivityFilter) -> bool {
    (!filter.status.is_any() && filter.status.single().is_none())
        || filter.assigned_to.is_some()
        || filter.channel_type.is_some()
        || filter.unread.is_some()
        || filter.since.is_some()
}

/// Whether `filter` is exactly one range of one index in list order, so a read of its first
/// rows reads only matches: several statuses (`activities_agent_status_updated`), an assignee
/// (`activities_agent_assignee_updated`), `unread=true` (the partial `…_unread_updated`), or
/// `since` (`activities_agent_updated`), alone.
pub(crate) fn one_index_range(filter: &ActivityFilter) -> bool {
    let conditions = [!filter.status.is_any(), filter.assigned_to.is_some(), filter.unread == Some(true), filter.since.is_some()];
    let others = filter.tag.is_some() || filter.search.is_some() || filter.channel_type.is_some() || filter.unread == Some(false);
    !others && conditions.into_iter().filter(|c| *c).count() == 1
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
        use crate::fixed_condition::{Read, Unread, fixed_condition};
        use crate::schema::{activities, activity_tags, contact_channels};
        use parley_domain::model::{ActivityStatus, AssigneeFilter};
        let (agent, filter): (&str, &ActivityFilter) = ($agent, $filter);
        let mut q = activities::table.filter(activities::agent_id.eq(agent.to_string())).into_boxed();
        if !filter.status.is_any() {
            // One bound list, not `eq_any`'s placeholder per value, which diesel never caches.
            q = q.filter(crate::in_list::in_list(activities::status, filter.status.iter().map(ActivityStatus::as_str)));
        }
        match &filter.assigned_to {
            Some(AssigneeFilter::Unassigned) => q = q.filter(activities::assigned_to.is_null()),
            Some(AssigneeFilter::To(user)) => q = q.filter(activities::assigned_to.eq(user.as_str().to_string())),
            None => {}
        }
        match filter.unread {
            // Written out, not bound: PostgreSQL uses a partial index only for a query whose
            // condition it can see implies the index's.
            Some(true) => q = q.filter(fixed_condition::<Unread>()),
            Some(false) => q = q.filter(fixed_condition::<Read>()),
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

/// `Some((total, rows of the page))` of a list with inbox filters and no search, each query run
/// as `$mode` says (see [`run!`](crate::pool::run)). With `$probe` true (inline), `None` when
/// the matches are too many to count here (see the module docs). The views a team opens most
/// (unassigned, one person's, unread) are fixed-shape statements, found in the statement cache
/// by type; any other combination is one boxed query.
macro_rules! page_of_filtered {
    ($mode:ident, $conn:ident, $agent:ident, $filter:ident, $page:ident, $probe:ident) => {{
        use crate::fixed_condition::{Unread, fixed_condition};
        use crate::pool::run;
        use crate::repos::activity_filters::{filtered, one_index_range, page_of_range, unassigned_count_only};
        use crate::schema::{activities, activity_counts};
        use parley_domain::model::AssigneeFilter;
        let (agent, filter, page, probe): (&str, &ActivityFilter, PageRequest, bool) = ($agent.as_str(), &$filter, $page, $probe);
        let kept: Option<i64> = if unassigned_count_only(filter) {
            // Every shard of every status (a few rows), summed here for the statuses wanted:
            // one fixed statement, where a status list in the SQL was prepared on every call.
            let counts: Vec<(String, i64)> = run!(
                $mode,
                load,
                $conn,
                activity_counts::table
                    .filter(activity_counts::agent_id.eq(agent))
                    .select((activity_counts::status, activity_counts::unassigned))
            );
            Some(counts.into_iter().filter(|(status, _)| filter.status.iter().any(|s| s.as_str() == status)).map(|(_, n)| n).sum())
        } else {
            None
        };
        let mine = || activities::table.filter(activities::agent_id.eq(agent));
        match (&filter.assigned_to, filter.unread) {
            _ if !(one_index_range(filter) && filter.status.is_any() && filter.since.is_none()) => {
                page_of_range!($mode, $conn, filtered!(agent, filter), kept, page, probe, true)
            }
            (Some(AssigneeFilter::Unassigned), _) => {
                page_of_range!($mode, $conn, mine().filter(activities::assigned_to.is_null()), kept, page, probe, false)
            }
            (Some(AssigneeFilter::To(user)), _) => {
                page_of_range!($mode, $conn, mine().filter(activities::assigned_to.eq(user.as_str())), kept, page, probe, false)
            }
            _ => page_of_range!($mode, $conn, mine().filter(fixed_condition::<Unread>()), kept, page, probe, false),
        }
    }};
}

/// `Some((total, rows of the page))` of the activities query `$listed` selects: the total
/// `$kept` when given, else probed (`$probe`, `None` past [`INLINE_MATCHES`]) or counted. With
/// `$by_ids`, a probe's ids (the whole list) give the page, by primary key lookups and a sort
/// of at most that many rows: for a combined or several-status filter, whose selectivity SQLite
/// cannot estimate (a status list is a `json_each`), the planner chose to walk the agent's every
/// activity in list order to fill the page. The fixed shapes (one index range each, read in
/// list order) page by their own index: 25% faster for an inbox's handful of unread.
macro_rules! page_of_range {
    ($mode:ident, $conn:ident, $listed:expr, $kept:expr, $page:expr, $probe:expr, $by_ids:expr) => {{
        use crate::in_list::in_list;
        use crate::repos::activity_filters::INLINE_MATCHES;
        let page: PageRequest = $page;
        let newest_first = (activities::updated_at.desc(), activities::id.desc());
        let (limit, offset) = (i64::from(page.limit()), page.offset() as i64);
        let (total, probed): (Option<i64>, Option<Vec<String>>) = match $kept {
            Some(kept) => (Some(kept), None),
            None if $probe => {
                let ids: Vec<String> = run!($mode, load, $conn, $listed.select(activities::id).limit(INLINE_MATCHES));
                match ids.len() {
                    n if n >= INLINE_MATCHES as usize => (None, None),
                    n if $by_ids => (Some(n as i64), Some(ids)),
                    n => (Some(n as i64), None),
                }
            }
            None => (Some(run!($mode, one, $conn, $listed.count())), None),
        };
        match (total, probed) {
            (None, _) => None,
            (Some(total), _) if total <= offset => Some((total, Vec::new())),
            (Some(total), Some(ids)) => {
                let rows: Vec<ViewRow> = run!(
                    $mode,
                    load,
                    $conn,
                    activities::table
                        .filter(in_list(activities::id, &ids))
                        .order(newest_first)
                        .limit(limit)
                        .offset(offset)
                        .select(ViewRow::as_select())
                );
                Some((total, rows))
            }
            (Some(total), None) => {
                let rows: Vec<ViewRow> =
                    run!($mode, load, $conn, $listed.order(newest_first).limit(limit).offset(offset).select(ViewRow::as_select()));
                Some((total, rows))
            }
        }
    }};
}

pub(crate) use {filtered, page_of_filtered, page_of_range};

#[cfg(test)]
mod tests {
    use super::*;
    use parley_domain::model::{ActivityStatus, StatusSet};

    #[test]
    fn one_status_and_a_tag_keep_the_fixed_pages() {
        let mut filter = ActivityFilter { status: ActivityStatus::Open.into(), ..Default::default() };
        assert!(!has_inbox_filters(&filter));
        filter.status = StatusSet::parse("open,closed").unwrap();
        assert!(has_inbox_filters(&filter));
        let unassigned = ActivityFilter { assigned_to: Some(AssigneeFilter::Unassigned), ..Default::default() };
        assert!(unassigned_count_only(&unassigned));
        assert!(!unassigned_count_only(&ActivityFilter { unread: Some(true), ..unassigned.clone() }));
    }

    #[test]
    fn one_condition_with_an_index_of_its_own_is_one_range() {
        let unassigned = ActivityFilter { assigned_to: Some(AssigneeFilter::Unassigned), ..Default::default() };
        let unread = ActivityFilter { unread: Some(true), ..Default::default() };
        let statuses = ActivityFilter { status: StatusSet::parse("open,pending").unwrap(), ..Default::default() };
        for one in [&unassigned, &unread, &statuses] {
            assert!(one_index_range(one), "{one:?}");
        }
        let read = ActivityFilter { unread: Some(false), ..Default::default() };
        let both = ActivityFilter { unread: Some(true), ..unassigned.clone() };
        let with_status = ActivityFilter { status: StatusSet::parse("open").unwrap(), ..unassigned.clone() };
        let by_channel = ActivityFilter { channel_type: Some(parley_domain::model::ChannelType::Email), ..Default::default() };
        for scan in [&read, &both, &with_status, &by_channel, &ActivityFilter::default()] {
            assert!(!one_index_range(scan), "{scan:?}");
        }
    }
}
