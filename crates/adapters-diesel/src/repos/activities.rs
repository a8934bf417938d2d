use async_trait::async_trait;
use diesel::dsl::auto_type;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::*;
use parley_domain::ports::{ActivityRepository, StoreResult};

use super::activity_filters::{has_inbox_filters, one_index_range, page_of_filtered};
use super::activity_row::ActivityRow;
use super::activity_search::{mirror_to_terms, page_of_search};
use super::activity_views::{ViewRow, refresh_tag_list};
use crate::Store;
use crate::dsl;
use crate::error::DbError;
use crate::locks::{OrderedLocks, count_move};
use crate::pool::{in_transaction, read_conn, read_direct, run, write_conn};
use crate::prepared::Prepare as _;
use crate::repos::events::emit_all;
use crate::repos::reports::record_report;
use crate::rows::millis;
use crate::schema::{activities, activity_counts, activity_tags, contacts, members, messages, tags};

/// Adds `$delta` to the agent's count of activities in `$status`, and to its count of those
/// unassigned when `$unassigned` (the activity counted has no assignee), in activity
/// `$activity`'s shard (see the `activity_counts`, `count_shards` and `unassigned_counts`
/// migrations); run in the transaction that makes the change. Self-contained: a message's insert
/// reopens its activity too.
macro_rules! count_status {
    ($conn:expr, $agent:expr, $activity:expr, $status:expr, $delta:expr, $unassigned:expr) => {{
        use crate::prepared::Prepare as _;
        use crate::schema::activity_counts;
        let delta: i64 = $delta;
        let unassigned: i64 = if $unassigned { delta } else { 0 };
        let shard = crate::count_shards::shard(&*$conn, $activity);
        diesel::insert_into(activity_counts::table)
            .values((
                activity_counts::agent_id.eq($agent),
                activity_counts::status.eq($status),
                activity_counts::shard.eq(shard),
                activity_counts::count.eq(delta),
                activity_counts::unassigned.eq(unassigned),
            ))
            .on_conflict((activity_counts::agent_id, activity_counts::status, activity_counts::shard))
            .do_update()
            .set((
                activity_counts::count.eq(activity_counts::count + delta),
                activity_counts::unassigned.eq(activity_counts::unassigned + unassigned),
            ))
            .prepared()
            .execute($conn)
            .await?
    }};
}

/// The channel type of the activity's latest message to or from its contact (not a note, nor
/// one waiting for its time): what a close counts under. Walks the timeline index from its end.
#[auto_type(dsl_path = "crate::dsl")]
fn contact_channel<'a>(agent: &'a str, activity: &'a str) -> _ {
    let note: &'static str = MessageDirection::Internal.as_str();
    let waiting: &'static str = MessageStatus::Scheduled.as_str();
    messages::table
        .filter(messages::agent_id.eq(agent))
        .filter(messages::activity_id.eq(activity))
        .filter(messages::direction.ne(note))
        .filter(messages::status.ne(waiting))
        .order((messages::created_at.desc(), messages::id.desc()))
        .select(messages::channel_type)
}

/// Adds `delta` to the tag's count of activities (`tags.activity_count`); run in the
/// transaction that attaches or detaches it, after the link row was written or removed.
#[auto_type(dsl_path = "crate::dsl")]
fn count_tag<'a>(tag: &'a str, delta: i64) -> _ {
    dsl::update(tags::table.filter(tags::id.eq(tag))).set(tags::activity_count.eq(tags::activity_count + delta)).prepared()
}

/// Moves `updated_at` of one activity (attach and detach); run [`mirror_updated_at`] with it.
#[auto_type(dsl_path = "crate::dsl")]
fn touch<'a>(id: &'a str, at: Timestamp) -> _ {
    let at: i64 = millis(at);
    dsl::update(activities::table.filter(activities::id.eq(id))).set(activities::updated_at.eq(at))
}

/// Copies an activity's new `updated_at` onto its tag rows, which tag-filtered pages walk in
/// that order (see the `activity_tag_order` migration); run by every write that moves it.
#[auto_type(dsl_path = "crate::dsl")]
pub(crate) fn mirror_updated_at<'a>(id: &'a str, at: Timestamp) -> _ {
    let at: i64 = millis(at);
    dsl::update(activity_tags::table.filter(activity_tags::activity_id.eq(id))).set(activity_tags::activity_updated_at.eq(at)).prepared()
}

/// Whether the activity exists for this agent (one row updated), its row locked by a no-op
/// write so the changes that follow in the transaction see it as they leave it.
#[auto_type(dsl_path = "crate::dsl")]
fn owned<'a>(agent: &'a str, id: &'a str) -> _ {
    dsl::update(activities::table.filter(activities::agent_id.eq(agent)).filter(activities::id.eq(id)))
        .set(activities::updated_at.eq(activities::updated_at))
        .prepared()
}

pub(crate) use count_status;

/// Loads the rows of page query `$q` over activities, only those in `$status` when given: two
/// queries of fixed shape rather than one boxed (see [`page_of_activities!`]).
macro_rules! load_in_status {
    ($mode:ident, $conn:ident, $q:expr, $status:expr) => {{
        let status: Option<ActivityStatus> = $status;
        match status {
            Some(status) => run!($mode, load, $conn, $q.filter(activities::status.eq(status.as_str()))),
            None => run!($mode, load, $conn, $q),
        }
    }};
}

/// One page of activities without a search, with its total and details, each query run as
/// `$mode` says (see [`run!`]). The queries have fixed shapes (one per filter combination),
/// never boxed: diesel finds those in the statement cache by type, where a boxed query has its
/// SQL text built again on every request to look it up (8% of a page's instructions).
macro_rules! page_of_activities {
    ($mode:ident, $conn:ident, $agent:ident, $filter:ident, $page:ident) => {{
        let (agent, filter, page): (&str, &ActivityFilter, PageRequest) = ($agent.as_str(), &$filter, $page);
        // Totals without counting the agent's activities where possible: from the kept counts
        // (per status, per tag), or from the tag's own rows.
        let total: i64 = match &filter.tag {
            None => {
                let counts = activity_counts::table.filter(activity_counts::agent_id.eq(agent)).select(activity_counts::count);
                let counts: Vec<i64> = match filter.status.single() {
                    Some(status) => run!($mode, load, $conn, counts.filter(activity_counts::status.eq(status.as_str()))),
                    None => run!($mode, load, $conn, counts),
                };
                counts.into_iter().sum()
            }
            // The tag's kept count (`tags.activity_count`), read from the agent's own tag.
            Some(tag) => match filter.status.single() {
                None => {
                    let count: Option<i64> = run!(
                        $mode,
                        optional,
                        $conn,
                        tags::table.filter(tags::agent_id.eq(agent)).filter(tags::id.eq(tag.as_str())).select(tags::activity_count)
                    );
                    count.unwrap_or(0)
                }
                // With a status too: counted from the tag's rows, the tag checked to be the
                // agent's (attaching only ever links an agent's tags to its own activities).
                // Starting from the tag keeps SQLite's planner on the tag index instead of
                // probing every activity of the agent.
                Some(status) => run!(
                    $mode,
                    one,
                    $conn,
                    activity_tags::table
                        .inner_join(tags::table)
                        .inner_join(activities::table)
                        .filter(activity_tags::tag_id.eq(tag.as_str()))
                        .filter(tags::agent_id.eq(agent))
                        .filter(activities::status.eq(status.as_str()))
                        .count()
                ),
            },
        };
        let rows: Vec<ViewRow> = match &filter.tag {
            // By tag: the tag's rows in their activities' update order (kept on them),
            // joined to the activities of the page only.
            Some(tag) => {
                let q = activity_tags::table
                    .inner_join(activities::table)
                    .filter(activity_tags::tag_id.eq(tag.as_str()))
                    .filter(activities::agent_id.eq(agent))
                    .order((activity_tags::activity_updated_at.desc(), activity_tags::activity_id.desc()))
                    .limit(i64::from(page.limit()))
                    .offset(page.offset() as i64)
                    .select(ViewRow::as_select());
                load_in_status!($mode, $conn, q, filter.status.single())
            }
            // The agent's activities in update order, by status if asked.
            None => {
                let q = activities::table
                    .filter(activities::agent_id.eq(agent))
                    .order((activities::updated_at.desc(), activities::id.desc()))
                    .limit(i64::from(page.limit()))
                    .offset(page.offset() as i64)
                    .select(ViewRow::as_select());
                load_in_status!($mode, $conn, q, filter.status.single())
            }
        };
        (total, rows)
    }};
}

/// Writes new activity `$a` (`&Activity`) of a contact named `$contact_name` with channels
/// `$channel_list` (its kept copies), and its search terms; run in the transaction that inserts
/// it, which has the contact's row (locked, or written by itself), and counts it last there
/// (`count_status!`).
macro_rules! write_activity {
    ($conn:expr, $a:expr, $contact_name:expr, $channel_list:expr) => {{
        let a: &Activity = $a;
        let (contact_name, channel_list): (&str, &str) = ($contact_name, $channel_list);
        let channels = crate::repos::channel_lists::parse_channel_list(channel_list, ("contact", a.contact_id.as_str()))?;
        let terms = crate::repos::activity_search::terms_of_channels(contact_name, &channels);
        diesel::insert_into(activities::table)
            .values((
                activities::id.eq(a.id.as_str()),
                activities::agent_id.eq(a.agent_id.as_str()),
                activities::contact_id.eq(a.contact_id.as_str()),
                activities::status.eq(a.status.as_str()),
                activities::assigned_to.eq(a.assigned_to.as_ref().map(Assignee::as_str)),
                activities::last_inbound_at.eq(a.last_inbound_at.map(crate::rows::millis)),
                activities::created_at.eq(crate::rows::millis(a.created_at)),
                activities::updated_at.eq(crate::rows::millis(a.updated_at)),
                activities::contact_name.eq(contact_name),
                activities::channel_list.eq(channel_list),
            ))
            .execute($conn)
            .await?;
        crate::repos::activity_search::insert_terms!($conn, a.agent_id.as_str(), a.id.as_str(), a.status.as_str(), &terms);
    }};
}
pub(crate) use write_activity;

/// The agent's activity `$id` with what it shows, if any, run as `$mode` says (see [`run!`]).
macro_rules! one_activity {
    ($mode:ident, $conn:ident, $agent:ident, $id:ident) => {{
        let row: Option<ViewRow> = run!(
            $mode,
            optional,
            $conn,
            activities::table
                .filter(activities::agent_id.eq($agent.as_str()))
                .filter(activities::id.eq($id.as_str()))
                .select(ViewRow::as_select())
        );
        row
    }};
}

#[async_trait]
impl ActivityRepository for Store {
    async fn insert(&self, a: &Activity, events: &[Event]) -> StoreResult<()> {
        in_transaction!(self, |conn| {
            let contact =
                || contacts::table.filter(contacts::agent_id.eq(a.agent_id.as_str())).filter(contacts::id.eq(a.contact_id.as_str()));
            // The contact's row locked first (a no-op write): a rename committing between this
            // read and the insert would update no activity yet and leave this one with the old
            // name. On SQLite the write transaction already excludes it.
            diesel::update(contact()).set(contacts::updated_at.eq(contacts::updated_at)).execute(conn).await?;
            let (contact_name, channel_list): (String, String) =
                contact().select((contacts::profile_name, contacts::channel_list)).first(conn).await?;
            write_activity!(conn, a, &contact_name, &channel_list);
            emit_all!(conn, events);
            // Last: the agent's count rows are every new activity's, so their locks are held
            // the least.
            count_status!(conn, a.agent_id.as_str(), a.id.as_str(), a.status.as_str(), 1, a.assigned_to.is_none());
            Ok(())
        })?;
        Ok(())
    }

    async fn get(&self, agent: &AgentId, id: &ActivityId) -> StoreResult<Option<ActivityView>> {
        let (agent, id) = (agent.as_str().to_string(), id.as_str().to_string());
        let row = read_direct!(self, single, one_activity!(agent, id))?;
        Ok(row.map(ViewRow::into_view).transpose()?)
    }

    async fn find_by_contact(&self, agent: &AgentId, contact: &ContactId) -> StoreResult<Option<Activity>> {
        let row = read_conn!(self, |conn| activities::table
            .filter(activities::agent_id.eq(agent.as_str()))
            .filter(activities::contact_id.eq(contact.as_str()))
            .select(ActivityRow::as_select())
            .first(conn)
            .await
            .optional()
            .map_err(DbError::from))?;
        Ok(row.map(ActivityRow::into_domain).transpose()?)
    }

    async fn list(&self, agent: &AgentId, filter: &ActivityFilter, page: PageRequest) -> StoreResult<Page<ActivityView>> {
        let (agent, filter) = (agent.as_str().to_string(), filter.clone());
        // A search reads every match (a fragment as short as one letter can match most of the
        // agent's contacts): off the request's thread. Otherwise every query is an index range
        // bounded by the page: inline (see `read_direct!`).
        let loaded = if filter.search.is_some() {
            read_direct!(self, blocking, page_of_search!(agent, filter, page))?
        } else if !has_inbox_filters(&filter) {
            read_direct!(self, page_of_activities!(agent, filter, page))?
        } else {
            // Inline when one index range holds few matches, else counted off the request's
            // thread, as a search is (`activity_filters.rs`).
            let (probe, again) = (true, (agent.clone(), filter.clone()));
            let inline = if one_index_range(&filter) { read_direct!(self, page_of_filtered!(agent, filter, page, probe))? } else { None };
            match inline {
                Some(found) => found,
                None => {
                    let ((agent, filter), probe) = (again, false);
                    let counted = read_direct!(self, blocking, page_of_filtered!(agent, filter, page, probe))?;
                    counted.expect("without a probe the list is always counted")
                }
            }
        };
        let (total, rows) = loaded;
        let items = rows.into_iter().map(ViewRow::into_view).collect::<Result<_, _>>()?;
        Ok(Page { items, total: total as u64, request: page })
    }

    async fn update<'a>(&self, write: ActivityWrite<'a>, events: &[Event]) -> StoreResult<bool> {
        let (a, rename) = (write.activity, write.rename);
        let member = a.assigned_to.as_ref().and_then(Assignee::member).map(MemberId::into_string);
        let changes = (
            activities::status.eq(a.status.as_str()),
            activities::assigned_to.eq(a.assigned_to.as_ref().map(Assignee::as_str)),
            activities::last_inbound_at.eq(a.last_inbound_at.map(millis)),
            activities::updated_at.eq(millis(a.updated_at)),
        );
        let rename = rename.map(|name| {
            let contact = (
                contacts::profile_name.eq(name.as_str()),
                contacts::name_search.eq(name.search_key()),
                contacts::updated_at.eq(millis(a.updated_at)),
            );
            (contact, activities::contact_name.eq(name.as_str()))
        });
        let updated = in_transaction!(self, |conn| {
            let target = || activities::table.filter(activities::agent_id.eq(a.agent_id.as_str())).filter(activities::id.eq(a.id.as_str()));
            // A rename locks the contact before the activity, in the order every writer of both
            // takes them (an activity's insert, a contact's update): never a deadlock between them.
            if rename.is_some() {
                diesel::update(
                    contacts::table.filter(contacts::agent_id.eq(a.agent_id.as_str())).filter(contacts::id.eq(a.contact_id.as_str())),
                )
                .set(contacts::updated_at.eq(contacts::updated_at))
                .execute(conn)
                .await?;
            }
            // Lock the row first (a no-op write), so the status read next cannot change before
            // this transaction ends and the counts move exactly once per change.
            if diesel::update(target()).set(activities::updated_at.eq(activities::updated_at)).execute(conn).await? == 0 {
                return Ok(false);
            }
            let (before, was_unassigned, opened_at, created_at): (String, bool, Option<i64>, i64) = target()
                .select((
                    activities::status,
                    activities::assigned_to.is_null(),
                    activities::first_response_opened_at,
                    activities::created_at,
                ))
                .first(conn)
                .await?;
            if write.if_unassigned && !was_unassigned {
                return Err(DbError::Limit("the activity is already assigned".into()));
            }
            let n = diesel::update(target()).set(changes).execute(conn).await?;
            // The assignee's name as its member row has it, or none (not a member, or unassigned).
            let assignee_name = members::table
                .filter(members::agent_id.eq(a.agent_id.as_str()))
                .filter(members::id.eq(member.clone().unwrap_or_default()))
                .select(members::name)
                .single_value();
            diesel::update(target()).set(activities::assignee_name.eq(assignee_name)).execute(conn).await?;
            mirror_updated_at(a.id.as_str(), a.updated_at).execute(conn).await?;
            if before != a.status.as_str() {
                mirror_to_terms(a.id.as_str(), a.status.as_str()).execute(conn).await?;
            }
            if a.status == ActivityStatus::Closed && before != a.status.as_str() {
                let channel: Option<String> = contact_channel(a.agent_id.as_str(), a.id.as_str()).first(conn).await.optional()?;
                let channel = channel
                    .map(|c| ChannelType::parse(c.as_str()))
                    .transpose()
                    .map_err(|_| DbError::Corrupt("message channel type".into()))?;
                let facts = ReportFacts::of_close(
                    &a.id,
                    a.updated_at,
                    crate::rows::opt_from_millis(opened_at)?,
                    crate::rows::from_millis(created_at)?,
                    a.assigned_to.as_ref(),
                    channel,
                );
                record_report!(conn, a.agent_id.as_str(), a.id.as_str(), facts);
            }
            let unassigned = a.assigned_to.is_none();
            if before != a.status.as_str() || was_unassigned != unassigned {
                for (status, delta, counted_unassigned) in count_move((before.as_str(), was_unassigned), (a.status.as_str(), unassigned)) {
                    count_status!(conn, a.agent_id.as_str(), a.id.as_str(), status, delta, counted_unassigned);
                }
            }
            if n > 0
                && let Some((contact, shown)) = &rename
            {
                diesel::update(
                    contacts::table.filter(contacts::agent_id.eq(a.agent_id.as_str())).filter(contacts::id.eq(a.contact_id.as_str())),
                )
                .set(contact.clone())
                .execute(conn)
                .await?;
                diesel::update(target()).set(*shown).execute(conn).await?;
                crate::repos::contact_search::replace_contact_terms!(conn, a.agent_id.as_str(), a.contact_id.as_str());
            }
            if n > 0 {
                emit_all!(conn, events);
            }
            Ok(n > 0)
        })?;
        Ok(updated)
    }

    async fn attach_tags(&self, agent: &AgentId, id: &ActivityId, tag_ids: &[TagId], at: Timestamp, events: &[Event]) -> StoreResult<bool> {
        let ids: Vec<&str> = tag_ids.iter().map(TagId::as_str).collect();
        let found = in_transaction!(self, |conn| {
            // Tags before their activity, as every writer of both (`locks.rs`). Only the agent's
            // own tags, whatever the caller checked: tenants never mix.
            let owned_tags = conn.lock_tags(agent.as_str(), &ids).await?;
            if owned(agent.as_str(), id.as_str()).execute(conn).await? == 0 {
                return Ok(false);
            }
            let mut attached = 0;
            for tag in &owned_tags {
                let inserted = diesel::insert_into(activity_tags::table)
                    .values((
                        activity_tags::activity_id.eq(id.as_str()),
                        activity_tags::tag_id.eq(tag.as_str()),
                        activity_tags::created_at.eq(millis(at)),
                        activity_tags::activity_updated_at.eq(millis(at)),
                    ))
                    .on_conflict_do_nothing()
                    .execute(conn)
                    .await?;
                if inserted > 0 {
                    count_tag(tag.as_str(), 1).execute(conn).await?;
                }
                attached += inserted;
            }
            if attached > 0 {
                let held: i64 = activity_tags::table.filter(activity_tags::activity_id.eq(id.as_str())).count().get_result(conn).await?;
                if held > i64::from(MAX_TAGS_PER_ACTIVITY) {
                    // Rolls the attach back whole.
                    return Err(DbError::Limit(format!("an activity holds at most {MAX_TAGS_PER_ACTIVITY} tags")));
                }
                touch(id.as_str(), at).execute(conn).await?;
                mirror_updated_at(id.as_str(), at).execute(conn).await?;
                refresh_tag_list!(conn, id.as_str());
                emit_all!(conn, events);
            }
            Ok(true)
        })?;
        Ok(found)
    }

    async fn detach_tag(&self, agent: &AgentId, id: &ActivityId, tag: &TagId, at: Timestamp, events: &[Event]) -> StoreResult<bool> {
        let found = in_transaction!(self, |conn| {
            // The tag before its activity, as every writer of both (`locks.rs`).
            conn.lock_tags(agent.as_str(), &[tag.as_str()]).await?;
            if owned(agent.as_str(), id.as_str()).execute(conn).await? == 0 {
                return Ok(false);
            }
            let removed = diesel::delete(
                activity_tags::table.filter(activity_tags::activity_id.eq(id.as_str())).filter(activity_tags::tag_id.eq(tag.as_str())),
            )
            .execute(conn)
            .await?;
            if removed > 0 {
                count_tag(tag.as_str(), -1).execute(conn).await?;
                touch(id.as_str(), at).execute(conn).await?;
                mirror_updated_at(id.as_str(), at).execute(conn).await?;
                refresh_tag_list!(conn, id.as_str());
                emit_all!(conn, events);
            }
            Ok(true)
        })?;
        Ok(found)
    }

    async fn mark_read(&self, agent: &AgentId, id: &ActivityId) -> StoreResult<bool> {
        let updated = write_conn!(self, |conn| diesel::update(
            activities::table.filter(activities::agent_id.eq(agent.as_str())).filter(activities::id.eq(id.as_str()))
        )
        .set(activities::unread_count.eq(0_i64))
        .execute(conn)
        .await
        .map_err(DbError::from))?;
        Ok(updated > 0)
    }
}
