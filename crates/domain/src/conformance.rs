//! The storage port contract, written once. Every storage backend runs it through
//! [`storage_conformance!`](crate::storage_conformance), which expands to one test per check.
//!
//! Each check gets a fresh, empty store. Ids are made unique per check from a counter.

#![expect(clippy::unwrap_used, reason = "a test suite: a failed step is a failed check")]

use std::sync::atomic::{AtomicU64, Ordering};

use chrono::{TimeDelta, TimeZone, Utc};
use serde_json::json;

use crate::StoreError;
use crate::model::*;
use crate::ports::Repositories;

// The message checks (`MessageRepository`), in a file of their own.
mod canned_responses;
mod events;
mod identity;
mod inbound;
mod inbox;
mod messages;
pub use canned_responses::*;
pub use events::*;
pub use identity::*;
pub use inbound::*;
pub use inbox::*;
pub use messages::*;

/// Expands to one `#[tokio::test]` per contract check. `$fresh` is an async expression that
/// yields `(Repositories, guard)` for an empty store; the guard lives until the check ends.
#[macro_export]
macro_rules! storage_conformance {
    ($fresh:expr) => {
        $crate::storage_conformance!(@tests $fresh;
            agents_round_trip, keys_are_found_by_hash_and_revoked_once, tag_names_are_unique_per_agent_ignoring_case,
            tags_are_ordered_and_scoped, tag_delete_detaches_it_everywhere, tags_stop_at_the_agents_limit,
            activity_tags_stop_at_the_limit, contacts_are_unique_per_channel_and_scoped,
            contacts_page_newest_first_with_totals, contact_updates_replace_fields, activities_are_one_per_contact_and_scoped, conversations_are_found_by_channel_with_their_activity, conversations_are_inserted_whole_or_not_at_all,
            activity_filters_match_status_tag_name_and_digits, activities_page_by_update_time_with_tie_break,
            activity_update_renames_contact_atomically, activity_search_matches_its_definition_after_writes, activity_search_orders_many_matches_by_update_time, activity_views_follow_their_contact_and_tags, tag_pages_follow_update_order, tag_attach_is_idempotent_and_bumps_only_on_change,
            concurrent_writers_neither_lose_nor_duplicate, activity_totals_follow_inserts_and_status_changes, products_list_active_newest_first_with_filters_and_totals,
            product_reimport_updates_rows_and_facets, products_are_scoped_by_agent, product_export_pages_by_id_with_drafts,
            carts_store_snapshots_under_unique_codes, lines_are_unique_by_phone_number_and_scoped, email_lines_round_trip_their_mailbox,
            files_are_kept_once_and_stay_their_agents, mailboxes_are_read_by_one_holder_at_a_time,
            template_replace_for_line_upserts_and_removes_missing, templates_are_ordered_scoped_and_got_from_the_oldest_line,
            execution_updates_are_compare_and_set, executions_list_changes_since_in_order,
            idempotency_keys_are_claimed_once_until_they_expire, concurrent_idempotency_claims_let_exactly_one_through,
            webhook_events_are_due_until_processed, given_up_webhook_events_wait_for_an_operator, webhook_events_are_claimed_once,
            set_aside_parts_are_kept_listed_and_retried, values_a_backend_cannot_hold_are_refused_never_a_failure_that_may_pass, concurrent_claims_split_the_backlog, imports_store_vectors_and_raise_the_revision,
            changes_page_by_revision_then_id, changes_carry_what_search_filters_on, vectors_are_stored_for_missing_or_stale_products, vectors_and_revisions_are_scoped_by_agent,
            messages_round_trip_every_content_kind, message_platform_ids_are_unique_per_agent,
            message_pages_newest_first_with_totals_and_since, message_status_updates_are_compare_and_set, campaign_messages_are_counted_per_pricing,
            messages_are_found_by_platform_id_within_the_agent, last_inbound_is_the_newest_inbound_message,
            unread_outbound_messages_are_those_a_read_receipt_moves, deleted_messages_are_kept_and_marked_once,
            message_carts_are_distinct_newest_first_and_scoped, message_inserts_move_the_activity_and_its_kept_copies,
            last_message_follows_the_newest_message, messages_are_scoped_by_agent, unread_counts_follow_inbound_messages_until_a_read,
            inbound_messages_reopen_their_activity_and_raise_last_inbound_at,
            sending_replies_are_settled_or_removed_leaving_the_activity_as_it_was, idempotency_recovery_points_are_kept_with_their_claim,
            webhook_endpoints_round_trip_whole_and_stay_their_agents, events_list_newest_first_by_type_and_time_and_stay_their_agents,
            event_snapshots_of_every_kind_read_back_whole,
            emitted_events_are_due_for_each_subscribed_endpoint_and_claimed_once,
            attempts_are_recorded_under_their_claim_and_listed_newest_first, old_events_are_deleted_with_their_deliveries_in_batches,
            events_are_written_with_their_change_and_only_when_it_takes_effect, tag_writes_carry_their_events_only_when_they_take_effect, deliveries_are_claimed_endpoint_by_endpoint,
            due_endpoints_come_least_recently_served_first, an_open_breaker_holds_an_endpoints_deliveries_until_it_closes,
            an_agents_endpoints_stop_at_the_limit, activity_filters_equal_their_definition_for_random_combinations,
            contact_filters_equal_their_definition_for_random_combinations, unassigned_totals_follow_assignments_and_status_moves,
            notes_join_the_timeline_without_reopening_or_raising_unread, erasing_a_contact_removes_all_it_wrote_and_moves_the_counts_back,
            canned_responses_are_unique_by_short_code_and_stay_their_agents, canned_responses_stop_at_the_agents_limit,
            canned_response_search_equals_its_definition_for_random_texts, filters_keeping_hundreds_list_as_exactly_as_filters_keeping_a_few,
            contacts_are_found_by_user_id_first_then_address, a_user_id_belongs_to_one_contact_of_the_agent,
            a_channel_learns_a_phone_and_a_username_with_everything_that_shows_it,
            a_message_and_what_it_taught_of_its_contact_are_one_write);
    };
    (@tests $fresh:expr; $($check:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $check() {
                let (repos, _guard) = $fresh.await;
                $crate::conformance::$check(repos).await;
            }
        )*
    };
}

static SEQ: AtomicU64 = AtomicU64::new(1);

fn id(prefix: &str) -> String {
    format!("{prefix}_{:06}_{}", SEQ.fetch_add(1, Ordering::Relaxed), std::process::id())
}

fn t(secs: i64) -> Timestamp {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap() + TimeDelta::seconds(secs)
}

async fn agent(r: &Repositories, name: &str) -> AgentId {
    let a = Agent { id: AgentId::new(id("agt")), name: AgentName::new(name).unwrap(), created_at: t(0) };
    r.agents.insert(&a).await.unwrap();
    a.id
}

fn tag(agent: &AgentId, name: &str, at: Timestamp) -> Tag {
    Tag {
        id: TagId::new(id("tag")),
        agent_id: agent.clone(),
        name: TagName::new(name).unwrap(),
        color: TagColor::default_color(),
        description: None,
        created_at: at,
        updated_at: at,
    }
}

fn contact(agent: &AgentId, name: &str, channel: Channel, at: Timestamp) -> Contact {
    Contact {
        id: ContactId::new(id("con")),
        agent_id: agent.clone(),
        profile_name: ProfileName::new(name).unwrap(),
        email: None,
        notes: None,
        channels: vec![channel],
        custom_attributes: CustomAttributes::default(),
        created_at: at,
        updated_at: at,
    }
}

fn phone(digits: &str) -> Channel {
    Channel::new(ChannelType::Whatsapp, digits).unwrap()
}

fn activity(agent: &AgentId, contact: &ContactId, status: ActivityStatus, at: Timestamp) -> Activity {
    Activity {
        id: ActivityId::new(id("act")),
        agent_id: agent.clone(),
        contact_id: contact.clone(),
        status,
        assigned_to: None,
        last_inbound_at: None,
        created_at: at,
        updated_at: at,
    }
}

/// A contact with an activity; returns the activity.
async fn conversation(r: &Repositories, agent: &AgentId, name: &str, digits: &str, status: ActivityStatus, at: Timestamp) -> Activity {
    let c = contact(agent, name, phone(digits), at);
    r.contacts.insert(&c, &[]).await.unwrap();
    let a = activity(agent, &c.id, status, at);
    r.activities.insert(&a, &[]).await.unwrap();
    a
}

fn page(limit: u32, offset: u64) -> PageRequest {
    PageRequest::new(limit, offset)
}

async fn list_ids(r: &Repositories, agent: &AgentId, filter: ActivityFilter) -> Vec<ActivityId> {
    r.activities.list(agent, &filter, page(100, 0)).await.unwrap().items.into_iter().map(|v| v.activity.id).collect()
}

/// Agents read back as inserted; an unknown id is `None`; `list` is oldest first, then by id.
pub async fn agents_round_trip(r: Repositories) {
    let a = agent(&r, "Shop A").await;
    let b = agent(&r, "Shop B").await;
    assert_eq!(r.agents.get(&a).await.unwrap().unwrap().name.as_str(), "Shop A");
    assert!(r.agents.get(&AgentId::new("agt_nope")).await.unwrap().is_none());
    let all: Vec<_> = r.agents.list().await.unwrap().into_iter().map(|x| x.id).collect();
    assert_eq!(all, [a, b], "agents list oldest first, then by id");
}

/// Key hashes are unique across agents (`Conflict`); keys are found by hash, revoked ones too;
/// an agent's keys list oldest first; revoking twice keeps the first `revoked_at`.
pub async fn keys_are_found_by_hash_and_revoked_once(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let key = |agent: &AgentId, secret: &str, at| ApiKey {
        id: ApiKeyId::new(id("key")),
        agent_id: agent.clone(),
        kind: KeyKind::Secret,
        hash: KeyHash::of(secret),
        hint: "abcd".into(),
        created_at: at,
        revoked_at: None,
    };
    let k1 = key(&a, "sk_one", t(1));
    let k2 = key(&a, "sk_two", t(2));
    r.keys.insert(&k1).await.unwrap();
    r.keys.insert(&k2).await.unwrap();
    r.keys.insert(&key(&b, "sk_three", t(3))).await.unwrap();
    assert_eq!(r.keys.insert(&key(&b, "sk_one", t(4))).await.map_err(|e| matches!(e, StoreError::Conflict(_))), Err(true));

    assert_eq!(r.keys.find_by_hash(&KeyHash::of("sk_one")).await.unwrap().unwrap(), k1);
    assert!(r.keys.find_by_hash(&KeyHash::of("sk_unknown")).await.unwrap().is_none());
    let listed: Vec<_> = r.keys.list_for_agent(&a).await.unwrap().into_iter().map(|k| k.id).collect();
    assert_eq!(listed, [k1.id.clone(), k2.id.clone()]);

    let revoked = r.keys.revoke(&k1.id, t(10)).await.unwrap().unwrap();
    assert_eq!(revoked.revoked_at, Some(t(10)));
    let again = r.keys.revoke(&k1.id, t(20)).await.unwrap().unwrap();
    assert_eq!(again.revoked_at, Some(t(10)), "revoking twice keeps the first time");
    assert!(r.keys.revoke(&ApiKeyId::new("key_nope"), t(1)).await.unwrap().is_none());
}

/// Tag names are unique per agent ignoring case, on insert and update (`Conflict`); another
/// agent may use the same name.
pub async fn tag_names_are_unique_per_agent_ignoring_case(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    r.tags.insert(&tag(&a, "VIP", t(0)), MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    let dup = r.tags.insert(&tag(&a, "vip", t(1)), MAX_TAGS_PER_AGENT, &[]).await;
    assert!(matches!(dup, Err(StoreError::Conflict(_))), "{dup:?}");
    r.tags.insert(&tag(&b, "vip", t(1)), MAX_TAGS_PER_AGENT, &[]).await.expect("another agent may use the same name");

    let mut other = tag(&a, "Other", t(2));
    r.tags.insert(&other, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    other.name = TagName::new("Vip").unwrap();
    assert!(matches!(r.tags.update(&other, &[]).await, Err(StoreError::Conflict(_))));
}

/// Tags list by name ignoring case; another agent's tag is invisible to `get` and `find_many`
/// and untouched by `update` and `delete`.
pub async fn tags_are_ordered_and_scoped(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    for name in ["beta", "Alpha", "gamma"] {
        r.tags.insert(&tag(&a, name, t(0)), MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    }
    let foreign = tag(&b, "zeta", t(0));
    r.tags.insert(&foreign, MAX_TAGS_PER_AGENT, &[]).await.unwrap();

    let names: Vec<_> = r.tags.list(&a).await.unwrap().into_iter().map(|t| t.name.as_str().to_string()).collect();
    assert_eq!(names, ["Alpha", "beta", "gamma"], "name order ignores case");
    assert!(r.tags.get(&a, &foreign.id).await.unwrap().is_none(), "another agent's tag is invisible");
    assert!(r.tags.find_many(&a, std::slice::from_ref(&foreign.id)).await.unwrap().is_empty());

    let mut changed = foreign.clone();
    changed.agent_id = a.clone();
    changed.name = TagName::new("stolen").unwrap();
    assert!(!r.tags.update(&changed, &[]).await.unwrap(), "update is scoped by agent");
    assert!(!r.tags.delete(&a, &foreign.id, &[]).await.unwrap(), "delete is scoped by agent");
    assert_eq!(r.tags.get(&b, &foreign.id).await.unwrap().unwrap().name.as_str(), "zeta");
}

/// Deleting a tag detaches it from every activity: views no longer show it and a filter by it
/// finds nothing.
pub async fn tag_delete_detaches_it_everywhere(r: Repositories) {
    let a = agent(&r, "A").await;
    let keep = tag(&a, "keep", t(0));
    let gone = tag(&a, "gone", t(0));
    r.tags.insert(&keep, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    r.tags.insert(&gone, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    r.activities.attach_tags(&a, &act.id, &[keep.id.clone(), gone.id.clone()], t(1), &[]).await.unwrap();

    assert!(r.tags.delete(&a, &gone.id, &[]).await.unwrap());
    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!(view.tags.iter().map(|t| t.id.clone()).collect::<Vec<_>>(), [keep.id]);
    assert!(list_ids(&r, &a, ActivityFilter { tag: Some(gone.id), ..Default::default() }).await.is_empty());
}

/// A channel belongs to one contact per agent (`Conflict`, nothing written); another agent or
/// another channel type may hold the same value; `get` and `find_by_channel` stay the agent's.
pub async fn contacts_are_unique_per_channel_and_scoped(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let ana = contact(&a, "Ana", phone("5215550001"), t(0));
    r.contacts.insert(&ana, &[]).await.unwrap();
    let dup = r.contacts.insert(&contact(&a, "Other", phone("5215550001"), t(1)), &[]).await;
    assert!(matches!(dup, Err(StoreError::Conflict(_))), "{dup:?}");
    assert!(r.contacts.list(&a, &ContactFilter::default(), page(10, 0)).await.unwrap().total == 1, "a refused insert writes nothing");
    let same_number_b = contact(&b, "Ana B", phone("5215550001"), t(1));
    r.contacts.insert(&same_number_b, &[]).await.expect("another agent may hold the same number");
    let email = contact(&a, "Ana", Channel::new(ChannelType::Email, "ana@example.com").unwrap(), t(2));
    r.contacts.insert(&email, &[]).await.expect("same person on another channel type is another row");

    assert_eq!(r.contacts.get(&a, &ana.id).await.unwrap().unwrap(), ana);
    assert!(r.contacts.get(&a, &same_number_b.id).await.unwrap().is_none());
    assert_eq!(r.contacts.find_by_channel(&a, &phone("5215550001")).await.unwrap().unwrap().id, ana.id);
    assert_eq!(r.contacts.find_by_channel(&b, &phone("5215550001")).await.unwrap().unwrap().id, same_number_b.id);
    assert!(r.contacts.find_by_channel(&a, &phone("5215559999")).await.unwrap().is_none());
}

/// Contacts page newest first (`created_at`, then id, descending) without repeats or gaps, with
/// the agent's total on every page.
pub async fn contacts_page_newest_first_with_totals(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let mut made = Vec::new();
    for i in 0..7 {
        // Pairs share a creation time, so the id tie-break decides their order.
        let c = contact(&a, &format!("C{i}"), phone(&format!("52155500{i:02}")), t(i / 2));
        r.contacts.insert(&c, &[]).await.unwrap();
        made.push(c);
    }
    r.contacts.insert(&contact(&b, "B", phone("5215550099"), t(100)), &[]).await.unwrap();
    made.sort_by(|x, y| (y.created_at, y.id.as_str()).cmp(&(x.created_at, x.id.as_str())));
    let expected: Vec<_> = made.iter().map(|c| c.id.clone()).collect();

    let mut seen = Vec::new();
    for offset in [0, 3, 6] {
        let p = r.contacts.list(&a, &ContactFilter::default(), page(3, offset)).await.unwrap();
        assert_eq!(p.total, 7);
        assert_eq!(p.has_more(), offset + 3 < 7);
        seen.extend(p.items.into_iter().map(|c| c.id));
    }
    assert_eq!(seen, expected, "pages neither repeat nor skip");
    assert!(r.contacts.list(&a, &ContactFilter::default(), page(3, 50)).await.unwrap().items.is_empty());
}

/// An update replaces profile name, email, notes, custom attributes and `updated_at`, and is
/// scoped by agent.
pub async fn contact_updates_replace_fields(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let mut c = contact(&a, "Ana", phone("5215550001"), t(0));
    r.contacts.insert(&c, &[]).await.unwrap();
    c.profile_name = ProfileName::new("Ana María").unwrap();
    c.email = Some(Email::new("ana@example.com").unwrap());
    c.notes = Some(Notes::new("prefers mornings").unwrap());
    c.custom_attributes = CustomAttributes::new(json!({"tier": "gold", "n": 3}).as_object().unwrap().clone()).unwrap();
    c.updated_at = t(5);
    assert!(r.contacts.update(&c, &[]).await.unwrap());
    assert_eq!(r.contacts.get(&a, &c.id).await.unwrap().unwrap(), c);

    let mut foreign = c.clone();
    foreign.agent_id = b;
    assert!(!r.contacts.update(&foreign, &[]).await.unwrap(), "update is scoped by agent");
}

/// `find_conversation`: the contact on a channel with its activity, or without one, and never
/// another agent's.
pub async fn conversations_are_found_by_channel_with_their_activity(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let (found, activity) = r.contacts.find_conversation(&a, &phone("5215550001")).await.unwrap().unwrap();
    assert_eq!(found, r.contacts.get(&a, &act.contact_id).await.unwrap().unwrap());
    assert_eq!(activity, Some(act.clone()));
    let alone = contact(&a, "Bea", phone("5215550002"), t(1));
    r.contacts.insert(&alone, &[]).await.unwrap();
    assert_eq!(r.contacts.find_conversation(&a, &phone("5215550002")).await.unwrap(), Some((alone, None)), "no activity yet");
    // Agent B has a contact on the same number, with its own activity.
    let theirs = conversation(&r, &b, "Ana B", "5215550001", ActivityStatus::Pending, t(2)).await;
    let (found, activity) = r.contacts.find_conversation(&b, &phone("5215550001")).await.unwrap().unwrap();
    assert_eq!((found.id, activity), (theirs.contact_id.clone(), Some(theirs)));
    assert_eq!(r.contacts.find_conversation(&a, &phone("5215550001")).await.unwrap().unwrap().1, Some(act), "each agent's own");
    assert!(r.contacts.find_conversation(&b, &phone("5215550002")).await.unwrap().is_none());
    assert!(r.contacts.find_conversation(&a, &phone("5215559999")).await.unwrap().is_none());
}

/// `insert_conversation`: the contact and its activity as the two inserts make them (kept
/// counts, the activity's kept copies, its search terms), or, when the channel is taken,
/// neither.
pub async fn conversations_are_inserted_whole_or_not_at_all(r: Repositories) {
    let a = agent(&r, "A").await;
    let ana = contact(&a, "Ana Lima", phone("5215550001"), t(0));
    let opened = Activity { last_inbound_at: Some(t(0)), ..activity(&a, &ana.id, ActivityStatus::Open, t(0)) };
    r.contacts.insert_conversation(&ana, &opened, &[]).await.unwrap();
    assert_eq!(r.contacts.find_conversation(&a, &phone("5215550001")).await.unwrap(), Some((ana.clone(), Some(opened.clone()))));
    let view = r.activities.get(&a, &opened.id).await.unwrap().unwrap();
    assert_eq!((view.profile_name.as_str(), view.channels.clone()), ("Ana Lima", vec![phone("5215550001")]));
    let search = |s: &str| ActivityFilter { search: Some(ActivitySearch::new(s).unwrap()), ..Default::default() };
    assert_eq!(list_ids(&r, &a, search("lima")).await, vec![opened.id.clone()]);
    assert_eq!(list_ids(&r, &a, search("550001")).await, vec![opened.id.clone()]);
    assert_eq!((total(&r, &a, None, None).await, total(&r, &a, Some(ActivityStatus::Open), None).await), (1, 1));
    assert_eq!(r.contacts.list(&a, &ContactFilter::default(), page(10, 0)).await.unwrap().total, 1);

    // Someone else on the same channel: refused, and neither row written nor counted.
    let other = contact(&a, "Other", phone("5215550001"), t(1));
    let theirs = activity(&a, &other.id, ActivityStatus::Pending, t(1));
    assert!(matches!(r.contacts.insert_conversation(&other, &theirs, &[]).await, Err(StoreError::Conflict(_))));
    assert!(r.contacts.get(&a, &other.id).await.unwrap().is_none());
    assert!(r.activities.get(&a, &theirs.id).await.unwrap().is_none());
    assert_eq!((total(&r, &a, None, None).await, total(&r, &a, Some(ActivityStatus::Pending), None).await), (1, 0));
    assert_eq!(r.contacts.list(&a, &ContactFilter::default(), page(10, 0)).await.unwrap().total, 1);
    assert!(list_ids(&r, &a, search("other")).await.is_empty());
}

/// A contact has at most one activity (`Conflict`); its view carries the contact's name and
/// channels; another agent can neither read, list, tag nor update it, nor attach its own tags.
pub async fn activities_are_one_per_contact_and_scoped(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Pending, t(0)).await;
    let second = activity(&a, &act.contact_id, ActivityStatus::Open, t(1));
    assert!(matches!(r.activities.insert(&second, &[]).await, Err(StoreError::Conflict(_))));
    assert_eq!(r.activities.find_by_contact(&a, &act.contact_id).await.unwrap().unwrap(), act);

    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!(view.activity, act);
    assert_eq!(view.profile_name.as_str(), "Ana");
    assert_eq!(view.channels, [phone("5215550001")]);

    assert!(r.activities.get(&b, &act.id).await.unwrap().is_none());
    assert!(r.activities.find_by_contact(&b, &act.contact_id).await.unwrap().is_none());
    assert!(r.activities.list(&b, &ActivityFilter::default(), page(10, 0)).await.unwrap().items.is_empty());
    assert!(!r.activities.attach_tags(&b, &act.id, &[], t(2), &[]).await.unwrap());
    let foreign_tag = tag(&b, "theirs", t(0));
    r.tags.insert(&foreign_tag, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    assert!(r.activities.attach_tags(&a, &act.id, std::slice::from_ref(&foreign_tag.id), t(3), &[]).await.unwrap());
    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert!(view.tags.is_empty(), "another agent's tag is never attached");
    assert_eq!(view.activity.updated_at, act.updated_at, "and nothing changed");
    let mut foreign = act.clone();
    foreign.agent_id = b;
    assert!(!r.activities.update(&foreign, None, &[]).await.unwrap());
}

/// Activity filters match status, tag, name (ignoring case) and phone digits, with LIKE
/// wildcards taken literally, combine, and count every match in the total.
pub async fn activity_filters_match_status_tag_name_and_digits(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let ana = conversation(&r, &a, "Ana López", "5215550001", ActivityStatus::Open, t(0)).await;
    let bob = conversation(&r, &a, "Bob 100%", "4470009999", ActivityStatus::Closed, t(1)).await;
    let cy = conversation(&r, &a, "Cy", "5215550777", ActivityStatus::Pending, t(2)).await;
    conversation(&r, &b, "Ana López", "5215550001", ActivityStatus::Open, t(3)).await;
    let vip = tag(&a, "vip", t(0));
    r.tags.insert(&vip, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    r.activities.attach_tags(&a, &bob.id, std::slice::from_ref(&vip.id), t(0), &[]).await.unwrap();

    let search = |s: &str| ActivityFilter { search: Some(ActivitySearch::new(s).unwrap()), ..Default::default() };
    assert_eq!(
        list_ids(&r, &a, ActivityFilter { status: ActivityStatus::Pending.into(), ..Default::default() }).await,
        vec![cy.id.clone()]
    );
    assert_eq!(list_ids(&r, &a, ActivityFilter { tag: Some(vip.id.clone()), ..Default::default() }).await, vec![bob.id.clone()]);
    assert_eq!(list_ids(&r, &a, search("ANA LÓ")).await, vec![ana.id.clone()], "name match ignores case");
    assert_eq!(list_ids(&r, &a, search("555-0")).await, [cy.id.clone(), ana.id.clone()], "digits match phone numbers");
    assert_eq!(list_ids(&r, &a, search("100%")).await, vec![bob.id.clone()], "LIKE wildcards are literal");
    assert!(list_ids(&r, &a, search("zzz")).await.is_empty());
    let combined = ActivityFilter { status: ActivityStatus::Open.into(), ..search("555") };
    assert_eq!(list_ids(&r, &a, combined).await, [ana.id]);
    let page = r.activities.list(&a, &search("5215550"), PageRequest::new(1, 0)).await.unwrap();
    assert_eq!((page.total, page.items.len()), (2, 1), "the total counts every match, not the page");
}

/// One searchable conversation as a test knows it: the activity, its contact's name and the
/// digits of each of its channels.
struct Searchable {
    activity: Activity,
    name: String,
    digits: Vec<String>,
}

/// What a search should find, by its definition: a piece of the name folded as searches fold it
/// (case and accents, [`text::search_key`](crate::model::text::search_key)), or (3+ digits)
/// of a channel's digits; in list order.
fn expected_search(all: &[Searchable], fragment: &str, status: Option<ActivityStatus>) -> Vec<ActivityId> {
    let search = ActivitySearch::new(fragment).unwrap();
    let mut found: Vec<&Activity> = all
        .iter()
        .filter(|s| status.is_none_or(|st| s.activity.status == st))
        .filter(|s| {
            crate::model::text::search_key(&s.name).contains(search.name_fragment())
                || search.digit_fragment().is_some_and(|d| s.digits.iter().any(|own| own.contains(d)))
        })
        .map(|s| &s.activity)
        .collect();
    found.sort_by(|x, y| (y.updated_at, y.id.as_str()).cmp(&(x.updated_at, x.id.as_str())));
    found.into_iter().map(|a| a.id.clone()).collect()
}

/// Searches `fragment` as one page and in pages of two, and holds both to [`expected_search`].
async fn assert_search(r: &Repositories, agent: &AgentId, all: &[Searchable], fragment: &str, status: Option<ActivityStatus>) {
    let expected = expected_search(all, fragment, status);
    let filter = ActivityFilter {
        status: status.map_or_else(StatusSet::default, StatusSet::from),
        search: Some(ActivitySearch::new(fragment).unwrap()),
        ..Default::default()
    };
    let first = &expected[..expected.len().min(100)];
    assert_eq!(list_ids(r, agent, filter.clone()).await, first, "search {fragment:?} ({status:?}), its first page of 100");
    let mut paged = Vec::new();
    for offset in (0..=expected.len() as u64).step_by(2) {
        let p = r.activities.list(agent, &filter, page(2, offset)).await.unwrap();
        assert_eq!(p.total, expected.len() as u64, "total of {fragment:?} at offset {offset}");
        paged.extend(p.items.into_iter().map(|v| v.activity.id));
    }
    assert_eq!(paged, expected, "pages of {fragment:?}");
}

/// Search by its definition over names that a kept index could get wrong (repeated letters,
/// accents and emoji, a name longer than an index term, `%` and `_`, a contact with two
/// channels), fragments longer than a term, and after every write that changes what it matches
/// or the order: a status change, a tag attached, a rename through either port.
pub async fn activity_search_matches_its_definition_after_writes(r: Repositories) {
    use ActivityStatus::*;
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let long = "Maximiliano Alejandro de la Santísima Trinidad Pérez";
    let people = [
        ("Anna Bell", "5215550001"),
        ("ÉMILE Zola", "4470009999"),
        ("😀 Smile", "5215550777"),
        (long, "15550004000"),
        ("Bob 100%_", "15550004001"),
        // Named by their numbers, as a template send to someone new names them.
        ("15550004002", "15550004002"),
        ("+52 1555 0002", "5215550002"),
    ];
    let mut all = Vec::new();
    for (i, (name, digits)) in people.iter().enumerate() {
        let activity = conversation(&r, &a, name, digits, if i % 2 == 0 { Open } else { Pending }, t(i as i64)).await;
        all.push(Searchable { activity, name: name.to_string(), digits: vec![digits.to_string()] });
    }
    let mut two = contact(&a, "Two Ways", phone("4470001234"), t(10));
    two.channels.push(Channel::new(ChannelType::Email, "anna.99887@x.test").unwrap());
    r.contacts.insert(&two, &[]).await.unwrap();
    let activity = activity(&a, &two.id, Closed, t(10));
    r.activities.insert(&activity, &[]).await.unwrap();
    all.push(Searchable { activity, name: "Two Ways".into(), digits: vec!["4470001234".into(), "99887".into()] });
    for (name, digits) in people {
        conversation(&r, &b, name, digits, Open, t(20)).await;
    }

    let fragments = [
        "a",
        "N",
        "nn",
        "ANNA",
        "émile",
        "😀",
        "smile",
        "100%_",
        "%",
        "_",
        "1",
        "555",
        "+44 700",
        "55500040",
        "0004000",
        "99887",
        "5",
        "55",
        "02",
        "+5",
        "4002",
        "0004002",
        "155500040",
        "1555 0",
        "alejandro de la santísima trinidad pérez",
        long,
        "Alejandro de la Santísima Trinidad PérezX",
        "zzz",
    ];
    for fragment in fragments {
        assert_search(&r, &a, &all, fragment, None).await;
    }
    for status in [Open, Pending, Closed] {
        assert_search(&r, &a, &all, "a", Some(status)).await;
    }

    // A status change; a tag attached (moves the activity to the top); renames through both ports.
    all[1].activity.status = Closed;
    all[1].activity.updated_at = t(30);
    assert!(r.activities.update(&all[1].activity, None, &[]).await.unwrap());
    let vip = tag(&a, "vip", t(0));
    r.tags.insert(&vip, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    r.activities.attach_tags(&a, &all[0].activity.id, std::slice::from_ref(&vip.id), t(40), &[]).await.unwrap();
    all[0].activity.updated_at = t(40);
    let mut renamed = r.contacts.get(&a, &all[2].activity.contact_id).await.unwrap().unwrap();
    renamed.profile_name = ProfileName::new("Zed Renamed").unwrap();
    renamed.updated_at = t(50);
    assert!(r.contacts.update(&renamed, &[]).await.unwrap());
    all[2].name = "Zed Renamed".into();
    all[3].activity.updated_at = t(60);
    assert!(r.activities.update(&all[3].activity, Some(&ProfileName::new("Ana Long").unwrap()), &[]).await.unwrap());
    all[3].name = "Ana Long".into();
    // A contact named by its number renamed, and one renamed to its number.
    all[5].activity.updated_at = t(70);
    assert!(r.activities.update(&all[5].activity, Some(&ProfileName::new("Numbered Nine").unwrap()), &[]).await.unwrap());
    all[5].name = "Numbered Nine".into();
    let mut to_number = r.contacts.get(&a, &all[1].activity.contact_id).await.unwrap().unwrap();
    to_number.profile_name = ProfileName::new("4470009999").unwrap();
    to_number.updated_at = t(80);
    assert!(r.contacts.update(&to_number, &[]).await.unwrap());
    all[1].name = "4470009999".into();
    // An update that keeps the name keeps every term.
    let mut noted = r.contacts.get(&a, &all[0].activity.contact_id).await.unwrap().unwrap();
    noted.notes = Some(Notes::new("called back").unwrap());
    noted.updated_at = t(90);
    assert!(r.contacts.update(&noted, &[]).await.unwrap());
    let after = [
        "a",
        "smile",
        "zed",
        "renamed",
        "alejandro de la santísima trinidad pérez",
        "ana",
        "long",
        "555",
        "1",
        "4002",
        "44",
        "9",
        "447000",
        "zola",
        "nine",
    ];
    for fragment in after {
        assert_search(&r, &a, &all, fragment, None).await;
    }
    for status in [Open, Pending, Closed] {
        assert_search(&r, &a, &all, "a", Some(status)).await;
    }
    let tagged = ActivityFilter { tag: Some(vip.id.clone()), search: Some(ActivitySearch::new("a").unwrap()), ..Default::default() };
    assert_eq!(list_ids(&r, &a, tagged).await, [all[0].activity.id.clone()], "a search within a tag");
}

/// Searches with many matches, which a backend may order by walking the agent's activities
/// rather than looking each match up: matches spread among other activities, times shared by
/// several (across any read boundary), a status filter, another agent's matches interleaved,
/// and matches that all come after hundreds of other activities.
pub async fn activity_search_orders_many_matches_by_update_time(r: Repositories) {
    use ActivityStatus::*;
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let mut all = Vec::new();
    let add = async |agent: &AgentId, i: i64, digits: String, status: ActivityStatus, at: Timestamp| {
        let activity = conversation(&r, agent, &format!("Person {i}"), &digits, status, at).await;
        Searchable { activity, name: format!("Person {i}"), digits: vec![digits] }
    };
    // The oldest: 65 matches of "666", behind every other activity of the agent.
    for i in 0..65 {
        all.push(add(&a, i, format!("666{i:04}"), Open, t(i / 3)).await);
    }
    // 300 alternating "777" (matches) and "888", five to a time, statuses alternating by three.
    for i in 100..400 {
        let digits = if i % 2 == 0 { format!("777{i:04}") } else { format!("888{i:04}") };
        all.push(add(&a, i, digits, if i % 3 == 0 { Pending } else { Open }, t(100 + i / 5)).await);
    }
    // 150 more, newer, that match neither.
    for i in 400..550 {
        all.push(add(&a, i, format!("999{i:04}"), Open, t(200 + i)).await);
    }
    for i in 0..40 {
        add(&b, 1_000 + i, format!("777{:04}", 2 * i), Open, t(150 + i)).await;
    }
    for fragment in ["777", "666", "7770", "person 1"] {
        assert_search(&r, &a, &all, fragment, None).await;
    }
    for status in [Open, Pending] {
        assert_search(&r, &a, &all, "777", Some(status)).await;
        assert_search(&r, &a, &all, "666", Some(status)).await;
    }
    // A status change moves one match to the top.
    all[70].activity.status = Closed;
    all[70].activity.updated_at = t(5_000);
    assert!(r.activities.update(&all[70].activity, None, &[]).await.unwrap());
    assert_search(&r, &a, &all, "777", None).await;
    assert_search(&r, &a, &all, "777", Some(Closed)).await;
}

/// Activities page by `updated_at` descending, ties by id descending, with the total on every
/// page.
pub async fn activities_page_by_update_time_with_tie_break(r: Repositories) {
    let a = agent(&r, "A").await;
    let mut made = Vec::new();
    for i in 0..6 {
        made.push(conversation(&r, &a, &format!("P{i}"), &format!("52155501{i:02}"), ActivityStatus::Open, t(i / 3)).await);
    }
    made.sort_by(|x, y| (y.updated_at, y.id.as_str()).cmp(&(x.updated_at, x.id.as_str())));
    let mut seen = Vec::new();
    for offset in [0, 4] {
        let p = r.activities.list(&a, &ActivityFilter::default(), page(4, offset)).await.unwrap();
        assert_eq!(p.total, 6);
        seen.extend(p.items.into_iter().map(|v| v.activity.id));
    }
    assert_eq!(seen, made.into_iter().map(|a| a.id).collect::<Vec<_>>());
}

/// An activity update writes status, assignee, `last_inbound_at` and `updated_at` and renames
/// its contact in the same write, which the search then finds by the new name.
pub async fn activity_update_renames_contact_atomically(r: Repositories) {
    let a = agent(&r, "A").await;
    let mut act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    act.status = ActivityStatus::Closed;
    act.assigned_to = Some(Assignee::new("user_7").unwrap());
    act.last_inbound_at = Some(t(3));
    act.updated_at = t(4);
    let new_name = ProfileName::new("Ana María").unwrap();
    assert!(r.activities.update(&act, Some(&new_name), &[]).await.unwrap());
    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!(view.activity, act);
    assert_eq!(view.profile_name, new_name);
    assert_eq!(r.contacts.get(&a, &act.contact_id).await.unwrap().unwrap().profile_name, new_name);
    let search = ActivityFilter { search: Some(ActivitySearch::new("maría").unwrap()), ..Default::default() };
    assert_eq!(list_ids(&r, &a, search).await, [act.id]);
}

/// `(profile name, channels, [(tag name, color)])` as an activity's detail and its list entry
/// show them, which must agree.
async fn shown(r: &Repositories, agent: &AgentId, id: &ActivityId) -> (String, Vec<Channel>, Vec<(String, String)>) {
    let of = |v: ActivityView| {
        let tags = v.tags.iter().map(|t| (t.name.as_str().to_string(), t.color.as_str().to_string())).collect();
        (v.profile_name.as_str().to_string(), v.channels, tags)
    };
    let detail = of(r.activities.get(agent, id).await.unwrap().unwrap());
    let listed = r.activities.list(agent, &ActivityFilter::default(), page(100, 0)).await.unwrap().items;
    let entry = of(listed.into_iter().find(|v| &v.activity.id == id).unwrap());
    assert_eq!(detail, entry, "detail and list entry agree");
    detail
}

/// What an activity shows of its contact and tags follows every write that changes them: a
/// contact rename through the contacts port, a tag's rename and recolor (re-sorting the tags),
/// detaching, and deleting a tag.
pub async fn activity_views_follow_their_contact_and_tags(r: Repositories) {
    let a = agent(&r, "A").await;
    let zeta = tag(&a, "zeta", t(0));
    let alpha = tag(&a, "Alpha", t(0));
    r.tags.insert(&zeta, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    r.tags.insert(&alpha, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    let mut c = contact(&a, "Ana", phone("5215550001"), t(0));
    c.channels.push(Channel::new(ChannelType::Email, "ana@example.com").unwrap());
    r.contacts.insert(&c, &[]).await.unwrap();
    let act = activity(&a, &c.id, ActivityStatus::Open, t(0));
    r.activities.insert(&act, &[]).await.unwrap();
    let grey = TagColor::default_color().as_str().to_string();
    assert_eq!(shown(&r, &a, &act.id).await, ("Ana".to_string(), c.channels.clone(), vec![]));

    r.activities.attach_tags(&a, &act.id, &[zeta.id.clone(), alpha.id.clone()], t(1), &[]).await.unwrap();
    let tags = vec![("Alpha".to_string(), grey.clone()), ("zeta".to_string(), grey.clone())];
    assert_eq!(shown(&r, &a, &act.id).await, ("Ana".to_string(), c.channels.clone(), tags));

    c.profile_name = ProfileName::new("Ana María").unwrap();
    c.updated_at = t(2);
    assert!(r.contacts.update(&c, &[]).await.unwrap());
    let mut renamed = alpha.clone();
    renamed.name = TagName::new("Zulu").unwrap();
    renamed.color = TagColor::new("#ff0000").unwrap();
    renamed.updated_at = t(3);
    assert!(r.tags.update(&renamed, &[]).await.unwrap());
    let tags = vec![("zeta".to_string(), grey.clone()), ("Zulu".to_string(), "#ff0000".to_string())];
    assert_eq!(shown(&r, &a, &act.id).await, ("Ana María".to_string(), c.channels.clone(), tags));

    assert!(r.activities.detach_tag(&a, &act.id, &zeta.id, t(4), &[]).await.unwrap());
    let tags = vec![("Zulu".to_string(), "#ff0000".to_string())];
    assert_eq!(shown(&r, &a, &act.id).await, ("Ana María".to_string(), c.channels.clone(), tags));
    assert!(r.tags.delete(&a, &renamed.id, &[]).await.unwrap());
    assert_eq!(shown(&r, &a, &act.id).await, ("Ana María".to_string(), c.channels.clone(), vec![]));
}

/// A page filtered by tag is in update order, newest first, like the unfiltered list: attaching
/// and every later update move an activity, with or without a status filter too, and it pages.
pub async fn tag_pages_follow_update_order(r: Repositories) {
    let a = agent(&r, "A").await;
    let vip = tag(&a, "vip", t(0));
    r.tags.insert(&vip, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    let mut first = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let second = conversation(&r, &a, "Bo", "5215550002", ActivityStatus::Open, t(0)).await;
    let untagged = conversation(&r, &a, "Cy", "5215550003", ActivityStatus::Open, t(9)).await;
    r.activities.attach_tags(&a, &first.id, std::slice::from_ref(&vip.id), t(1), &[]).await.unwrap();
    r.activities.attach_tags(&a, &second.id, std::slice::from_ref(&vip.id), t(2), &[]).await.unwrap();
    let by_tag = |status: Option<ActivityStatus>| ActivityFilter {
        tag: Some(vip.id.clone()),
        status: status.map_or_else(StatusSet::default, StatusSet::from),
        ..Default::default()
    };
    assert_eq!(list_ids(&r, &a, by_tag(None)).await, [second.id.clone(), first.id.clone()]);

    first.status = ActivityStatus::Closed;
    first.updated_at = t(3);
    assert!(r.activities.update(&first, None, &[]).await.unwrap());
    assert_eq!(list_ids(&r, &a, by_tag(None)).await, [first.id.clone(), second.id.clone()]);
    assert_eq!(list_ids(&r, &a, by_tag(Some(ActivityStatus::Open))).await, std::slice::from_ref(&second.id));
    assert_eq!(list_ids(&r, &a, by_tag(Some(ActivityStatus::Closed))).await, [first.id.clone()]);
    let second_page = r.activities.list(&a, &by_tag(None), page(1, 1)).await.unwrap();
    assert_eq!(second_page.items.iter().map(|v| v.activity.id.clone()).collect::<Vec<_>>(), std::slice::from_ref(&second.id));
    assert_eq!(second_page.total, 2);
    assert!(!list_ids(&r, &a, by_tag(None)).await.contains(&untagged.id));

    let other = agent(&r, "B").await;
    assert!(list_ids(&r, &other, by_tag(None)).await.is_empty(), "another agent sees none of it");
}

/// Attaching a tag twice or detaching it twice is a no-op that leaves `updated_at` alone;
/// views list tags by name; an unknown activity is `false`.
pub async fn tag_attach_is_idempotent_and_bumps_only_on_change(r: Repositories) {
    let a = agent(&r, "A").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let (x, y) = (tag(&a, "b-tag", t(0)), tag(&a, "A-tag", t(0)));
    r.tags.insert(&x, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    r.tags.insert(&y, MAX_TAGS_PER_AGENT, &[]).await.unwrap();

    assert!(r.activities.attach_tags(&a, &act.id, &[x.id.clone(), y.id.clone()], t(5), &[]).await.unwrap());
    assert!(r.activities.attach_tags(&a, &act.id, std::slice::from_ref(&x.id), t(9), &[]).await.unwrap());
    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!(view.tags.iter().map(|t| t.id.clone()).collect::<Vec<_>>(), [y.id.clone(), x.id.clone()], "tags by name");
    assert_eq!(view.activity.updated_at, t(5), "a no-op attach does not bump updated_at");

    assert!(r.activities.detach_tag(&a, &act.id, &x.id, t(12), &[]).await.unwrap());
    assert!(r.activities.detach_tag(&a, &act.id, &x.id, t(15), &[]).await.unwrap());
    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!(view.tags.len(), 1);
    assert_eq!(view.activity.updated_at, t(12));
    assert!(!r.activities.detach_tag(&a, &ActivityId::new("act_nope"), &x.id, t(1), &[]).await.unwrap());
}

/// An agent's tags stop at the limit the insert is given, counted in its transaction.
pub async fn tags_stop_at_the_agents_limit(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    for n in 0..3 {
        assert!(r.tags.insert(&tag(&a, &format!("t{n}"), t(n)), 3, &[]).await.unwrap());
    }
    let fourth = tag(&a, "t3", t(5));
    assert!(!r.tags.insert(&fourth, 3, &[]).await.unwrap(), "over the limit");
    assert_eq!(r.tags.list(&a).await.unwrap().len(), 3, "nothing written");
    assert!(r.tags.insert(&tag(&b, "t0", t(0)), 3, &[]).await.unwrap(), "another agent's own count");
    assert!(matches!(r.tags.insert(&tag(&a, "T0", t(6)), 4, &[]).await, Err(StoreError::Conflict(_))), "names stay unique");

    // Concurrent inserts never pass the limit together.
    let c = agent(&r, "C").await;
    let tries = (0..6).map(|n| {
        let (r, tag) = (r.clone(), tag(&c, &format!("c{n}"), t(n)));
        async move { r.tags.insert(&tag, 4, &[]).await.unwrap() }
    });
    let made = futures_util::future::join_all(tries).await.into_iter().filter(|&made| made).count();
    assert_eq!((made, r.tags.list(&c).await.unwrap().len()), (4, 4));
}

/// An activity holds at most `MAX_TAGS_PER_ACTIVITY` tags: an attach that would pass it is a
/// `Conflict` and attaches nothing; attaching what it holds stays a no-op.
pub async fn activity_tags_stop_at_the_limit(r: Repositories) {
    let a = agent(&r, "A").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let mut ids = Vec::new();
    for n in 0..=MAX_TAGS_PER_ACTIVITY {
        let made = tag(&a, &format!("t{n:02}"), t(0));
        assert!(r.tags.insert(&made, MAX_TAGS_PER_AGENT, &[]).await.unwrap());
        ids.push(made.id);
    }
    let (first, last) = ids.split_at(MAX_TAGS_PER_ACTIVITY as usize);
    assert!(r.activities.attach_tags(&a, &act.id, first, t(1), &[]).await.unwrap(), "exactly the limit");
    let over = r.activities.attach_tags(&a, &act.id, &[first[0].clone(), last[0].clone()], t(2), &[]).await;
    assert!(matches!(over, Err(StoreError::Conflict(_))), "{over:?}");
    let view = r.activities.get(&a, &act.id).await.unwrap().unwrap();
    assert_eq!((view.tags.len(), view.activity.updated_at), (MAX_TAGS_PER_ACTIVITY as usize, t(1)), "nothing of it written");
    assert!(r.activities.attach_tags(&a, &act.id, &first[..2], t(3), &[]).await.unwrap(), "what it holds: a no-op");
    assert!(r.activities.detach_tag(&a, &act.id, &first[0], t(4), &[]).await.unwrap());
    assert!(r.activities.attach_tags(&a, &act.id, last, t(5), &[]).await.unwrap(), "room again");
}

/// Concurrent tag inserts all land, concurrent inserts of one name let exactly one through
/// (the rest `Conflict`), and concurrent attaches to one activity lose none.
pub async fn concurrent_writers_neither_lose_nor_duplicate(r: Repositories) {
    let a = agent(&r, "A").await;
    let distinct = (0..16).map(|i| {
        let r = r.clone();
        let tag = tag(&a, &format!("t{i}"), t(i));
        async move { r.tags.insert(&tag, MAX_TAGS_PER_AGENT, &[]).await }
    });
    let results = futures_util::future::join_all(distinct).await;
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(r.tags.list(&a).await.unwrap().len(), 16);

    let same = (0..8).map(|i| {
        let r = r.clone();
        let tag = tag(&a, "SAME", t(i));
        async move { r.tags.insert(&tag, MAX_TAGS_PER_AGENT, &[]).await }
    });
    let results = futures_util::future::join_all(same).await;
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1, "{results:?}");
    assert!(results.iter().all(|r| matches!(r, Ok(true) | Err(StoreError::Conflict(_)))), "{results:?}");

    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let ids: Vec<TagId> = r.tags.list(&a).await.unwrap().into_iter().map(|t| t.id).collect();
    let attaches = ids.chunks(4).map(|chunk| {
        let r = r.clone();
        let (a, act, chunk) = (a.clone(), act.id.clone(), chunk.to_vec());
        async move { r.activities.attach_tags(&a, &act, &chunk, t(30), &[]).await }
    });
    let results = futures_util::future::join_all(attaches).await;
    assert!(results.iter().all(|r| matches!(r, Ok(true))), "{results:?}");
    assert_eq!(r.activities.get(&a, &act.id).await.unwrap().unwrap().tags.len(), ids.len());
}

async fn total(r: &Repositories, agent: &AgentId, status: Option<ActivityStatus>, tag: Option<&TagId>) -> u64 {
    let filter =
        ActivityFilter { status: status.map_or_else(StatusSet::default, StatusSet::from), tag: tag.cloned(), ..Default::default() };
    r.activities.list(agent, &filter, page(1, 0)).await.unwrap().total
}

/// List totals are kept, not counted (a backend may store them): they must follow every insert
/// and status change exactly once, under concurrency too, and per agent.
pub async fn activity_totals_follow_inserts_and_status_changes(r: Repositories) {
    use ActivityStatus::*;
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let mut made = Vec::new();
    for (i, status) in [Open, Open, Open, Pending, Pending].into_iter().enumerate() {
        made.push(conversation(&r, &a, &format!("P{i}"), &format!("52155502{i:02}"), status, t(i as i64)).await);
    }
    conversation(&r, &b, "Other", "5215550299", Open, t(0)).await;
    let totals = async |r: &Repositories| {
        (
            total(r, &a, None, None).await,
            total(r, &a, Some(Open), None).await,
            total(r, &a, Some(Pending), None).await,
            total(r, &a, Some(Closed), None).await,
        )
    };
    assert_eq!(totals(&r).await, (5, 3, 2, 0));
    assert_eq!(total(&r, &b, None, None).await, 1);

    // A refused insert (second activity of a contact) changes nothing.
    let again = activity(&a, &made[0].contact_id, Open, t(9));
    assert!(r.activities.insert(&again, &[]).await.is_err());
    // Updates that keep the status, and another agent's update, change nothing.
    let mut same = made[0].clone();
    same.updated_at = t(10);
    assert!(r.activities.update(&same, None, &[]).await.unwrap());
    let mut foreign = made[1].clone();
    foreign.agent_id = b.clone();
    foreign.status = Closed;
    assert!(!r.activities.update(&foreign, None, &[]).await.unwrap());
    assert_eq!(totals(&r).await, (5, 3, 2, 0));

    // Eight writers close the same open activity at once: it moves once.
    let closing = (0..8).map(|i| {
        let r = r.clone();
        let mut act = made[1].clone();
        act.status = Closed;
        act.updated_at = t(20 + i);
        async move { r.activities.update(&act, None, &[]).await }
    });
    let results = futures_util::future::join_all(closing).await;
    assert!(results.iter().all(|r| matches!(r, Ok(true))), "{results:?}");
    let mut reopened = made[3].clone();
    reopened.status = Open;
    assert!(r.activities.update(&reopened, None, &[]).await.unwrap());
    assert_eq!(totals(&r).await, (5, 3, 1, 1));
    assert_eq!(total(&r, &b, Some(Closed), None).await, 0);

    // By tag, with and without a status.
    let vip = tag(&a, "vip", t(0));
    r.tags.insert(&vip, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    for act in [&made[1], &made[2]] {
        r.activities.attach_tags(&a, &act.id, std::slice::from_ref(&vip.id), t(30), &[]).await.unwrap();
    }
    assert_eq!(total(&r, &a, None, Some(&vip.id)).await, 2);
    assert_eq!(total(&r, &a, Some(Closed), Some(&vip.id)).await, 1);
    assert_eq!(total(&r, &b, None, Some(&vip.id)).await, 0);

    // Tag totals move only when a link is made or removed: attaching again or detaching twice
    // changes nothing, and eight writers attaching the same tag at once count once.
    r.activities.attach_tags(&a, &made[1].id, std::slice::from_ref(&vip.id), t(31), &[]).await.unwrap();
    assert!(r.activities.detach_tag(&a, &made[2].id, &vip.id, t(32), &[]).await.unwrap());
    assert!(r.activities.detach_tag(&a, &made[2].id, &vip.id, t(33), &[]).await.unwrap());
    assert_eq!(total(&r, &a, None, Some(&vip.id)).await, 1);
    let attaching = (0..8).map(|i| {
        let (r, a, act, tag) = (r.clone(), a.clone(), made[3].id.clone(), vip.id.clone());
        async move { r.activities.attach_tags(&a, &act, &[tag], t(40 + i), &[]).await }
    });
    let results = futures_util::future::join_all(attaching).await;
    assert!(results.iter().all(|r| matches!(r, Ok(true))), "{results:?}");
    assert_eq!(total(&r, &a, None, Some(&vip.id)).await, 2);
    assert_eq!(list_ids(&r, &a, ActivityFilter { tag: Some(vip.id.clone()), ..Default::default() }).await.len(), 2);
}

fn product(agent: &AgentId, id: &str, kind: &str, tags: &[&str], status: &str, created: i64) -> Product {
    let record: ProductRecord = serde_json::from_value(json!({
        "_id": id, "kind": kind, "title": format!("Title {id}"), "description": "d", "currency": "USD",
        "base_price": 10.5, "category_tags": tags, "status": status,
        "media": [{"url": "https://cdn.example.com/x.jpg", "type": "image", "alt": "x", "position": 0}],
        "variants": [{"id": "v1", "title": "V", "price": 11, "selected_options": [{"name": "Size", "value": "M"}]}]
    }))
    .unwrap();
    Product::from_record(agent, record, t(created), None).unwrap()
}

fn no_progress() -> crate::ports::ImportProgress {
    std::sync::Arc::new(|_| {})
}

async fn product_ids(r: &Repositories, agent: &AgentId, filter: ProductFilter, limit: u32, offset: u64) -> (Vec<String>, u64) {
    let p = r.products.list(agent, &filter, page(limit, offset)).await.unwrap();
    (p.items.into_iter().map(|doc| doc.to_product(agent).unwrap().id.as_str().to_string()).collect(), p.total)
}

/// Products list active only, newest first (ties by `_id` descending), filtered by exact
/// category tag and kind, with totals and facets that leave drafts out, as their documents.
pub async fn products_list_active_newest_first_with_filters_and_totals(r: Repositories) {
    let a = agent(&r, "A").await;
    let catalog = vec![
        product(&a, "p1", "product", &["Home", "Gifts"], "active", 1),
        product(&a, "p2", "service", &["Services"], "active", 2),
        product(&a, "p3", "product", &["Home"], "active", 2),
        product(&a, "p4", "product", &["Home"], "draft", 3),
        product(&a, "p5", "product", &["Gifts"], "active", 4),
    ];
    r.products.import(&a, &catalog, None, no_progress()).await.unwrap();

    assert_eq!(
        product_ids(&r, &a, ProductFilter::default(), 10, 0).await,
        (vec!["p5".into(), "p3".into(), "p2".into(), "p1".into()], 4),
        "drafts hidden; ties by _id desc"
    );
    assert_eq!(product_ids(&r, &a, ProductFilter::default(), 2, 2).await, (vec!["p2".into(), "p1".into()], 4));
    let home = ProductFilter { tag: Some("Home".into()), kind: None };
    assert_eq!(product_ids(&r, &a, home, 10, 0).await, (vec!["p3".into(), "p1".into()], 2));
    assert_eq!(product_ids(&r, &a, ProductFilter { tag: Some("home".into()), kind: None }, 10, 0).await.1, 0, "tags match exactly");
    let services = ProductFilter { tag: None, kind: Some(ProductKind::Service) };
    assert_eq!(product_ids(&r, &a, services, 10, 0).await, (vec!["p2".into()], 1));
    let gift_products = ProductFilter { tag: Some("Gifts".into()), kind: Some(ProductKind::Product) };
    assert_eq!(product_ids(&r, &a, gift_products, 1, 0).await, (vec!["p5".into()], 2));
    let home = ProductFilter { tag: Some("Home".into()), kind: None };
    for (filter, shown) in [(ProductFilter::default(), &catalog[4]), (home, &catalog[2])] {
        let first = r.products.list(&a, &filter, page(1, 0)).await.unwrap().items;
        assert_eq!(first, [ProductDocument::of(shown)], "pages hold the documents of the products imported");
    }

    let facets = r.products.facets(&a).await.unwrap();
    assert_eq!(facets.total_items, 4);
    let counts: Vec<(String, u64)> = facets.categories.into_iter().map(|c| (c.name, c.count)).collect();
    assert_eq!(counts, [("Gifts".into(), 2), ("Home".into(), 2), ("Services".into(), 1)], "count desc, then name; drafts not counted");

    assert_eq!(r.products.get(&a, &ProductId::lookup("p1")).await.unwrap().unwrap(), ProductDocument::of(&catalog[0]), "stored exactly");
    assert!(r.products.get(&a, &ProductId::lookup("p4")).await.unwrap().is_none(), "drafts are not found");
    let active = r.products.find_active(&a, &[ProductId::lookup("p1"), ProductId::lookup("p4"), ProductId::lookup("nope")]).await.unwrap();
    assert_eq!(active.into_iter().map(|p| p.id).collect::<Vec<_>>(), [ProductId::lookup("p1")]);
}

/// A re-import replaces products and their facets (a product turned draft disappears but keeps
/// its row), and reports progress batch by batch up to the total.
pub async fn product_reimport_updates_rows_and_facets(r: Repositories) {
    let a = agent(&r, "A").await;
    r.products
        .import(
            &a,
            &[product(&a, "p1", "product", &["Home"], "active", 1), product(&a, "p2", "product", &["Home"], "active", 2)],
            None,
            no_progress(),
        )
        .await
        .unwrap();
    let mut changed = product(&a, "p1", "service", &["Garden"], "active", 1);
    changed.title = "Renamed".into();
    let hidden = product(&a, "p2", "product", &["Home"], "draft", 2);
    r.products.import(&a, &[changed.clone(), hidden], None, no_progress()).await.unwrap();

    assert_eq!(r.products.get(&a, &ProductId::lookup("p1")).await.unwrap().unwrap(), ProductDocument::of(&changed));
    assert!(r.products.get(&a, &ProductId::lookup("p2")).await.unwrap().is_none());
    let facets = r.products.facets(&a).await.unwrap();
    assert_eq!((facets.total_items, facets.categories.len(), facets.categories[0].name.as_str()), (1, 1, "Garden"));
    assert_eq!(product_ids(&r, &a, ProductFilter { tag: Some("Home".into()), kind: None }, 10, 0).await.1, 0);
    let times = r.products.created_times(&a).await.unwrap();
    assert_eq!(times.len(), 2, "drafts keep their rows");

    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let many: Vec<Product> = (0..1203).map(|i| product(&a, &format!("bulk{i:04}"), "product", &["Bulk"], "active", i)).collect();
    r.products.import(&a, &many, None, std::sync::Arc::new(move |n| log.lock().unwrap().push(n))).await.unwrap();
    let reported = seen.lock().unwrap().clone();
    assert_eq!(reported.last(), Some(&1203), "progress reaches the total");
    assert!(reported.windows(2).all(|w| w[0] < w[1]) && reported.len() > 1, "progress is reported batch by batch: {reported:?}");
    assert_eq!(r.products.facets(&a).await.unwrap().total_items, 1204);
}

/// Two agents may hold the same product `_id`; products, filters and facets are each agent's
/// own, and an agent with no catalog has empty facets.
pub async fn products_are_scoped_by_agent(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    r.products.import(&a, &[product(&a, "same", "product", &["Home"], "active", 1)], None, no_progress()).await.unwrap();
    let theirs = product(&b, "same", "service", &["Other"], "active", 2);
    r.products.import(&b, std::slice::from_ref(&theirs), None, no_progress()).await.unwrap();

    assert_eq!(
        r.products.get(&b, &ProductId::lookup("same")).await.unwrap().unwrap(),
        ProductDocument::of(&theirs),
        "two agents may hold the same _id"
    );
    assert_eq!(r.products.get(&a, &ProductId::lookup("same")).await.unwrap().unwrap().to_product(&a).unwrap().kind, ProductKind::Product);
    assert_eq!(product_ids(&r, &b, ProductFilter { tag: Some("Home".into()), kind: None }, 10, 0).await.1, 0);
    assert_eq!(r.products.facets(&b).await.unwrap().categories.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["Other"]);
    let c = agent(&r, "C").await;
    assert_eq!(r.products.facets(&c).await.unwrap(), CatalogFacets::default());
    assert_eq!(product_ids(&r, &c, ProductFilter::default(), 10, 0).await, (vec![], 0));
}

/// Export pages every product, drafts included, by `_id`, starting after the given one.
pub async fn product_export_pages_by_id_with_drafts(r: Repositories) {
    let a = agent(&r, "A").await;
    let catalog: Vec<Product> = ["c", "a", "d", "b"]
        .iter()
        .enumerate()
        .map(|(i, id)| product(&a, id, "product", &[], if i == 0 { "draft" } else { "active" }, i as i64))
        .collect();
    r.products.import(&a, &catalog, None, no_progress()).await.unwrap();
    let first = r.products.export_page(&a, None, 3).await.unwrap();
    let rest = r.products.export_page(&a, Some(first.last().unwrap().id.clone()), 3).await.unwrap();
    let ids: Vec<_> = first.iter().chain(&rest).map(|p| p.id.as_str().to_string()).collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    assert_eq!(first[2].status, ProductStatus::Draft);
    assert!(r.products.export_page(&a, Some(ProductId::lookup("d")), 3).await.unwrap().is_empty());
}

/// Carts read back exactly (lines, variants, prices), stay their agent's, have codes unique
/// across agents (`Conflict`), and never change when the catalog does.
pub async fn carts_store_snapshots_under_unique_codes(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let p = product(&a, "p1", "product", &["Home"], "active", 1);
    let cart = Cart {
        code: CartCode::parse("Ab3kP9z").unwrap(),
        agent_id: a.clone(),
        items: vec![
            CartItem { product: p.clone(), variant: None, qty: 3 },
            CartItem { product: p.clone(), variant: Some(p.variants[0].clone()), qty: 1 },
        ],
        created_at: t(10),
        expires_at: t(10) + CART_VALIDITY,
    };
    r.carts.insert(&cart, &[]).await.unwrap();
    let read = r.carts.get(&a, &cart.code).await.unwrap().unwrap();
    assert_eq!(read, cart, "lines, the chosen variant and the prices come back exactly");
    assert_eq!(read.total().unwrap().total.to_string(), "42.5", "3 × 10.5 + 11");
    assert!(r.carts.get(&b, &cart.code).await.unwrap().is_none(), "other agents' carts are invisible");
    let clash = Cart { agent_id: b.clone(), ..cart.clone() };
    assert!(matches!(r.carts.insert(&clash, &[]).await, Err(StoreError::Conflict(_))), "codes are unique across agents");

    let mut changed = p.clone();
    changed.title = "Changed".into();
    r.products.import(&a, &[changed], None, no_progress()).await.unwrap();
    assert_eq!(r.carts.get(&a, &cart.code).await.unwrap().unwrap().items[0].product, p, "a cart never changes");
}

fn line(agent: &AgentId, phone_number_id: &str, access: LineAccess, at: Timestamp) -> Line {
    Line {
        id: LineId::new(id("chn")),
        agent_id: agent.clone(),
        account: LineAccount::Whatsapp {
            phone_number_id: PhoneNumberId::new(phone_number_id).unwrap(),
            waba_id: WabaId::new("900000000000001").unwrap(),
        },
        access,
        created_at: at,
    }
}

fn cloud(token: &str) -> LineAccess {
    LineAccess::Cloud(AccessToken::new(token).unwrap())
}

fn definition(id: &str, name: &str, language: &str, body: &str) -> TemplateDefinition {
    TemplateDefinition {
        id: TemplateId::new(id),
        name: name.into(),
        language: language.into(),
        status: APPROVED.into(),
        category: "MARKETING".into(),
        parameter_format: ParameterFormat::Positional,
        components: vec![
            TemplateComponent { kind: "HEADER".into(), format: Some("TEXT".into()), text: Some("Hello".into()), buttons: vec![] },
            TemplateComponent { kind: "BODY".into(), format: None, text: Some(body.into()), buttons: vec![] },
            TemplateComponent {
                kind: "BUTTONS".into(),
                format: None,
                text: None,
                buttons: vec![
                    TemplateButton {
                        kind: "URL".into(),
                        text: "Open".into(),
                        url: Some("https://shop.example.com/{{1}}".into()),
                        ..Default::default()
                    },
                    TemplateButton { kind: "QUICK_REPLY".into(), text: "Stop".into(), ..Default::default() },
                    TemplateButton {
                        kind: "PHONE_NUMBER".into(),
                        text: "Call".into(),
                        phone_number: Some("+15550100".into()),
                        ..Default::default()
                    },
                    TemplateButton {
                        kind: "OTP".into(),
                        text: "Copy code".into(),
                        otp_type: Some("COPY_CODE".into()),
                        ..Default::default()
                    },
                ],
            },
        ],
    }
}

async fn template_keys(r: &Repositories, agent: &AgentId) -> Vec<(String, String, LineId)> {
    r.templates.list(agent).await.unwrap().into_iter().map(|t| (t.definition.name, t.definition.language, t.line_id)).collect()
}

fn execution(agent: &AgentId, key: &str, message_id: Option<&str>, updated: Timestamp) -> Execution {
    Execution {
        id: id("exe"),
        agent_id: agent.clone(),
        campaign_key: CampaignKey::new(key).unwrap(),
        campaign_name: "Spring sale".into(),
        to: "5215550001".into(),
        template_id: TemplateId::new("1234567890"),
        message_id: message_id.map(str::to_string),
        status: ExecutionStatus::Sent,
        error_message: None,
        sent_at: Some(updated),
        delivered_at: None,
        read_at: None,
        updated_at: updated,
    }
}

fn webhook_event(body: &str, at: Timestamp) -> InboundDelivery {
    InboundDelivery {
        id: id("whk"),
        platform: ChannelType::Whatsapp,
        body: body.into(),
        received_at: at,
        attempts: 0,
        last_error: None,
        next_attempt_at: Some(at),
        processed_at: None,
        failed_at: None,
        set_aside: Vec::new(),
    }
}

/// A platform account is one line across agents (`Conflict`); lines and their tokens read back
/// exactly, stay their agent's, list oldest first, and are found by channel type and account.
pub async fn lines_are_unique_by_phone_number_and_scoped(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let second = line(&a, "106540352242922", LineAccess::Sandbox, t(5));
    let first = line(&a, "106540352242921", cloud("EAAGsecret-token-1"), t(1));
    let theirs = line(&b, "106540352242923", cloud("EAAGsecret-token-2"), t(3));
    for l in [&second, &first, &theirs] {
        r.lines.insert(l).await.unwrap();
    }
    let clash = line(&b, "106540352242921", LineAccess::Sandbox, t(9));
    assert!(matches!(r.lines.insert(&clash).await, Err(StoreError::Conflict(_))), "phone number ids are unique across agents");

    assert_eq!(r.lines.get(&a, &first.id).await.unwrap().unwrap(), first, "the token round-trips");
    assert_eq!(r.lines.get(&a, &second.id).await.unwrap().unwrap().access, LineAccess::Sandbox);
    assert!(r.lines.get(&a, &theirs.id).await.unwrap().is_none(), "another agent's line is invisible");
    assert!(r.lines.get(&a, &LineId::new("chn_nope")).await.unwrap().is_none());
    let listed: Vec<_> = r.lines.list(&a).await.unwrap().into_iter().map(|l| l.id).collect();
    assert_eq!(listed, [first.id.clone(), second.id.clone()], "oldest first");
    let all: Vec<_> = r.lines.all().await.unwrap().into_iter().map(|l| l.id).collect();
    assert_eq!(all, [first.id.clone(), theirs.id.clone(), second.id.clone()], "every agent's lines, oldest first");
    assert_eq!(r.lines.find_by_account(ChannelType::Whatsapp, "106540352242923").await.unwrap().unwrap(), theirs);
    assert!(r.lines.find_by_account(ChannelType::Whatsapp, "999").await.unwrap().is_none());
    assert!(r.lines.find_by_account(ChannelType::Instagram, "106540352242923").await.unwrap().is_none(), "found by its platform too");

    let instagram = Line {
        account: LineAccount::Instagram { account_id: InstagramAccountId::new("17841400000000001").unwrap() },
        ..line(&a, "1", cloud("IGQsecret-token-3"), t(4))
    };
    r.lines.insert(&instagram).await.unwrap();
    assert_eq!(r.lines.get(&a, &instagram.id).await.unwrap().unwrap(), instagram, "an Instagram line round-trips");
    assert_eq!(r.lines.find_by_account(ChannelType::Instagram, "17841400000000001").await.unwrap().unwrap(), instagram);
    assert!(r.lines.find_by_account(ChannelType::Whatsapp, "17841400000000001").await.unwrap().is_none());
    let twice = Line { id: LineId::new(id("chn")), ..instagram.clone() };
    assert!(matches!(r.lines.insert(&twice).await, Err(StoreError::Conflict(_))), "an account is one line");
}

/// A mailbox line keeps its address, servers, login, password and token digest; a sandbox one
/// has none of the servers. Webhooks find it by its address.
pub async fn email_lines_round_trip_their_mailbox(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let email = |agent: &AgentId, address: &str, access: LineAccess| Line {
        account: LineAccount::Email { address: Email::new(address).unwrap(), inbound_token: InboundTokenDigest::of(address) },
        ..line(agent, "1", access, t(1))
    };
    let access = MailAccess {
        send_url: ServerAddress::new("smtp_url", "smtps://mail.example.com:465").unwrap(),
        receive_url: Some(ServerAddress::new("imap_url", "imaps://mail.example.com").unwrap()),
        username: "shop@example.com".into(),
        password: Password::new("pass word ñ").unwrap(),
    };
    let full = email(&a, "shop@example.com", LineAccess::Mail(access.clone()));
    let send_only = email(&a, "sales@example.com", LineAccess::Mail(MailAccess { receive_url: None, ..access }));
    let sandbox = email(&b, "hello@example.com", LineAccess::Sandbox);
    for l in [&full, &send_only, &sandbox] {
        r.lines.insert(l).await.unwrap();
        assert_eq!(r.lines.get(&l.agent_id, &l.id).await.unwrap().as_ref(), Some(l), "an email line round-trips");
    }
    assert_eq!(r.lines.find_by_account(ChannelType::Email, "hello@example.com").await.unwrap().as_ref(), Some(&sandbox));
    assert!(r.lines.find_by_account(ChannelType::Whatsapp, "hello@example.com").await.unwrap().is_none());
    assert_eq!(r.lines.find(&sandbox.id).await.unwrap().as_ref(), Some(&sandbox), "found by id alone, whoever's it is");
    assert!(r.lines.find(&LineId::new("chn_nope")).await.unwrap().is_none());
    let clash = email(&a, "hello@example.com", LineAccess::Sandbox);
    assert!(matches!(r.lines.insert(&clash).await, Err(StoreError::Conflict(_))), "a mailbox is one line");
}

/// Files are written once (a delivery processed again keeps the first) and read only by their
/// agent.
pub async fn files_are_kept_once_and_stay_their_agents(r: Repositories) {
    use crate::ports::StoredFile;
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let bytes: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    let file = StoredFile {
        id: id("att"),
        agent_id: a.clone(),
        filename: Some("factura ñ.pdf".into()),
        mime_type: "application/pdf".into(),
        bytes,
        created_at: t(3),
    };
    r.files.put(&file).await.unwrap();
    assert_eq!(r.files.get(&a, &file.id).await.unwrap().as_ref(), Some(&file), "every byte reads back");
    let again = StoredFile { bytes: vec![1], filename: None, ..file.clone() };
    r.files.put(&again).await.unwrap();
    assert_eq!(r.files.get(&a, &file.id).await.unwrap().as_ref(), Some(&file), "the first write stays");
    assert!(r.files.get(&b, &file.id).await.unwrap().is_none(), "another agent's file is invisible");
    let theirs = StoredFile { agent_id: b.clone(), bytes: Vec::new(), filename: None, ..file.clone() };
    r.files.put(&theirs).await.unwrap();
    assert_eq!(r.files.get(&b, &file.id).await.unwrap().as_ref(), Some(&theirs), "ids are per agent, and a file may be empty");
    assert_eq!(r.files.get(&a, &file.id).await.unwrap().as_ref(), Some(&file));
    assert!(r.files.get(&a, "att_nope").await.unwrap().is_none());
}

/// A mailbox is claimed by one holder at a time until its lease runs out; only the holder moves
/// its position, which the next claim (by anyone) starts from.
pub async fn mailboxes_are_read_by_one_holder_at_a_time(r: Repositories) {
    let a = agent(&r, "A").await;
    let mailbox = Line {
        account: LineAccount::Email { address: Email::new("poll@example.com").unwrap(), inbound_token: InboundTokenDigest::of("x") },
        ..line(&a, "1", LineAccess::Sandbox, t(0))
    };
    r.lines.insert(&mailbox).await.unwrap();
    let m = &mailbox.id;
    let never = MailboxPosition::default();
    assert_eq!(r.mailboxes.claim(m, "one", t(10), t(40)).await.unwrap(), Some(never), "a mailbox never read");
    assert_eq!(r.mailboxes.claim(m, "two", t(20), t(50)).await.unwrap(), None, "held by one");
    assert_eq!(r.mailboxes.claim(m, "one", t(20), t(50)).await.unwrap(), Some(never), "its holder may claim again");
    let moved = MailboxPosition { epoch: 4_000_000_000, last: 4_294_967_295 };
    assert!(!r.mailboxes.advance(m, "two", moved, t(60)).await.unwrap(), "only the holder moves it");
    assert!(r.mailboxes.advance(m, "one", moved, t(60)).await.unwrap());
    assert_eq!(r.mailboxes.claim(m, "two", t(55), t(90)).await.unwrap(), None, "the advance renewed the lease");
    assert_eq!(r.mailboxes.claim(m, "two", t(61), t(90)).await.unwrap(), Some(moved), "a lease that ran out is taken over, where it was");
    assert!(!r.mailboxes.advance(m, "one", never, t(99)).await.unwrap(), "the old holder lost it");
    r.mailboxes.release(m, "one").await.unwrap();
    assert_eq!(r.mailboxes.claim(m, "three", t(62), t(90)).await.unwrap(), None, "a release by another changes nothing");
    r.mailboxes.release(m, "two").await.unwrap();
    assert_eq!(r.mailboxes.claim(m, "three", t(62), t(90)).await.unwrap(), Some(moved), "released: free at once");
}

/// Replacing a line's templates adds new ones, updates known ones (keeping `created_at`) and
/// removes missing ones, leaving other lines' templates alone.
pub async fn template_replace_for_line_upserts_and_removes_missing(r: Repositories) {
    let a = agent(&r, "A").await;
    let one = line(&a, "106540352242931", LineAccess::Sandbox, t(0));
    let two = line(&a, "106540352242932", LineAccess::Sandbox, t(1));
    r.lines.insert(&one).await.unwrap();
    r.lines.insert(&two).await.unwrap();

    let welcome = definition("111", "welcome", "en_US", "Hi {{1}}");
    let promo = TemplateDefinition { parameter_format: ParameterFormat::Named, ..definition("222", "promo", "es_MX", "Oferta {{oferta}}") };
    let gone = definition("333", "gone", "en_US", "Bye");
    r.templates.replace_for_line(&one, &[welcome.clone(), promo.clone(), gone.clone()], t(10), &[]).await.unwrap();
    r.templates.replace_for_line(&two, std::slice::from_ref(&gone), t(10), &[]).await.unwrap();
    let stored = r.templates.get(&a, &TemplateId::new("111")).await.unwrap().unwrap();
    assert_eq!(stored, Template { definition: welcome.clone(), agent_id: a.clone(), line_id: one.id.clone(), created_at: t(10) });
    let named = r.templates.get(&a, &TemplateId::new("222")).await.unwrap().unwrap();
    assert_eq!(named.definition, promo, "the parameter format and every button field round-trip");

    let mut renewed = welcome.clone();
    renewed.status = "PAUSED".into();
    renewed.components.truncate(1);
    let added = definition("444", "added", "en_US", "New");
    r.templates.replace_for_line(&one, &[renewed.clone(), added.clone(), promo.clone()], t(20), &[]).await.unwrap();

    let on_one = r.templates.list_for_line(&a, &one.id).await.unwrap();
    let summary: Vec<_> = on_one.iter().map(|t| (t.definition.id.as_str(), t.created_at)).collect();
    assert_eq!(summary, [("444", t(20)), ("222", t(10)), ("111", t(10))], "by name; known ones keep created_at; missing ones go");
    assert_eq!(on_one[2].definition, renewed, "known ones take the platform's current definition");
    let on_two: Vec<_> = r.templates.list_for_line(&a, &two.id).await.unwrap().into_iter().map(|t| t.definition.id).collect();
    assert_eq!(on_two, [TemplateId::new("333")], "other lines are untouched");

    r.templates.replace_for_line(&one, &[], t(30), &[]).await.unwrap();
    assert!(r.templates.list_for_line(&a, &one.id).await.unwrap().is_empty(), "an empty list clears the line");
    assert_eq!(r.templates.list(&a).await.unwrap().len(), 1);
}

/// Templates list by name, language, then the line's age; a template shared by lines is got
/// from the agent's oldest line; another agent's templates are invisible.
pub async fn templates_are_ordered_scoped_and_got_from_the_oldest_line(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    // Created out of order: `old` is the agent's oldest line though inserted last.
    let young = line(&a, "106540352242941", LineAccess::Sandbox, t(5));
    let old = line(&a, "106540352242942", LineAccess::Sandbox, t(1));
    let theirs = line(&b, "106540352242943", LineAccess::Sandbox, t(0));
    for l in [&young, &old, &theirs] {
        r.lines.insert(l).await.unwrap();
    }
    let shared =
        [definition("500", "order", "es_MX", "x"), definition("501", "order", "en_US", "x"), definition("502", "alert", "en_US", "x")];
    r.templates.replace_for_line(&young, &shared, t(2), &[]).await.unwrap();
    r.templates.replace_for_line(&old, &shared[..2], t(3), &[]).await.unwrap();
    r.templates
        .replace_for_line(&theirs, &[definition("999", "aaa", "en_US", "x"), definition("500", "order", "es_MX", "x")], t(4), &[])
        .await
        .unwrap();

    let keys = template_keys(&r, &a).await;
    let expected = [
        ("alert", "en_US", &young.id),
        ("order", "en_US", &old.id),
        ("order", "en_US", &young.id),
        ("order", "es_MX", &old.id),
        ("order", "es_MX", &young.id),
    ];
    assert_eq!(keys, expected.map(|(n, l, id)| (n.to_string(), l.to_string(), id.clone())), "name, language, then the line's age");
    let names: Vec<_> = r.templates.list_for_line(&a, &young.id).await.unwrap().into_iter().map(|t| t.definition.id).collect();
    assert_eq!(names, ["502", "501", "500"].map(TemplateId::new), "one line's: by name, then language");

    assert_eq!(r.templates.get(&a, &TemplateId::new("500")).await.unwrap().unwrap().line_id, old.id, "the copy on the oldest line");
    assert_eq!(r.templates.get(&a, &TemplateId::new("502")).await.unwrap().unwrap().line_id, young.id);
    assert_eq!(r.templates.get(&b, &TemplateId::new("500")).await.unwrap().unwrap().line_id, theirs.id);
    assert!(r.templates.get(&a, &TemplateId::new("999")).await.unwrap().is_none(), "another agent's template is invisible");
    assert!(r.templates.list_for_line(&a, &theirs.id).await.unwrap().is_empty(), "and so are its lines' templates");
    assert_eq!(template_keys(&r, &b).await.len(), 2);
}

/// Execution platform message ids are unique per agent (absent ones never clash), and updates
/// are a compare-and-set on the stored status, scoped by agent.
pub async fn execution_updates_are_compare_and_set(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let sent = execution(&a, "spring:2026", Some("pm.A1"), t(1));
    r.executions.insert(&sent).await.unwrap();
    let dup = execution(&a, "other", Some("pm.A1"), t(1));
    assert!(matches!(r.executions.insert(&dup).await, Err(StoreError::Conflict(_))), "message ids are unique per agent");
    r.executions.insert(&execution(&b, "spring:2026", Some("pm.A1"), t(1))).await.expect("another agent may report the same id");
    let refused =
        Execution { status: ExecutionStatus::Failed, error_message: Some("131026".into()), ..execution(&a, "spring:2026", None, t(1)) };
    let refused_too = execution(&a, "spring:2026", None, t(1));
    r.executions.insert(&refused).await.unwrap();
    r.executions.insert(&refused_too).await.expect("refused sends have no message id, and never clash");

    assert_eq!(r.executions.find_by_message(&a, "pm.A1").await.unwrap().unwrap(), sent);
    assert!(r.executions.find_by_message(&a, "pm.nope").await.unwrap().is_none());

    let mut delivered = sent.clone();
    delivered.status = ExecutionStatus::Delivered;
    delivered.delivered_at = Some(t(2));
    delivered.updated_at = t(3);
    assert!(r.executions.update(&delivered, ExecutionStatus::Sent, &[]).await.unwrap());
    assert_eq!(r.executions.find_by_message(&a, "pm.A1").await.unwrap().unwrap(), delivered);

    let mut stale = sent.clone();
    stale.status = ExecutionStatus::Failed;
    stale.error_message = Some("late".into());
    stale.updated_at = t(9);
    assert!(!r.executions.update(&stale, ExecutionStatus::Sent, &[]).await.unwrap(), "the stored status is no longer the expected one");
    assert_eq!(r.executions.find_by_message(&a, "pm.A1").await.unwrap().unwrap(), delivered, "and nothing changed");

    let foreign = Execution { agent_id: b.clone(), ..delivered.clone() };
    let mut read = foreign.clone();
    read.status = ExecutionStatus::Read;
    assert!(!r.executions.update(&read, ExecutionStatus::Delivered, &[]).await.unwrap(), "update is scoped by agent");
    assert_eq!(r.executions.find_by_message(&a, "pm.A1").await.unwrap().unwrap(), delivered);
    assert_eq!(r.executions.find_by_message(&b, "pm.A1").await.unwrap().unwrap().status, ExecutionStatus::Sent);
}

/// A campaign key's executions list by `updated_at` then id, strictly after `since`, at most
/// `limit`, per agent; `key_exists` is scoped by agent too.
pub async fn executions_list_changes_since_in_order(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let key = CampaignKey::new("spring:2026").unwrap();
    let mut made = Vec::new();
    for i in 0..6 {
        // Pairs share an update time, so the id tie-break decides their order.
        let e = execution(&a, key.as_str(), Some(&format!("pm.L{i}")), t(i / 2));
        r.executions.insert(&e).await.unwrap();
        made.push(e);
    }
    r.executions.insert(&execution(&a, "other-key", Some("pm.O"), t(1))).await.unwrap();
    r.executions.insert(&execution(&b, key.as_str(), Some("pm.B"), t(1))).await.unwrap();
    made.sort_by(|x, y| (x.updated_at, x.id.as_str()).cmp(&(y.updated_at, y.id.as_str())));
    let ids = |v: Vec<Execution>| v.into_iter().map(|e| e.id).collect::<Vec<_>>();
    let expected: Vec<_> = made.iter().map(|e| e.id.clone()).collect();

    assert_eq!(ids(r.executions.list(&a, &key, None, 100).await.unwrap()), expected, "by updated_at, then id; one key, one agent");
    assert_eq!(ids(r.executions.list(&a, &key, None, 3).await.unwrap()), expected[..3]);
    assert_eq!(ids(r.executions.list(&a, &key, Some(t(1)), 100).await.unwrap()), expected[4..], "since is strict");
    assert!(r.executions.list(&a, &key, Some(t(2)), 100).await.unwrap().is_empty());

    let mut moved = made[0].clone();
    moved.status = ExecutionStatus::Read;
    moved.read_at = Some(t(7));
    moved.updated_at = t(7);
    assert!(r.executions.update(&moved, ExecutionStatus::Sent, &[]).await.unwrap());
    assert_eq!(ids(r.executions.list(&a, &key, Some(t(2)), 100).await.unwrap()), [moved.id.clone()], "an update makes it new again");

    assert!(r.executions.key_exists(&a, &key).await.unwrap());
    assert!(r.executions.key_exists(&a, &CampaignKey::new("other-key").unwrap()).await.unwrap());
    assert!(!r.executions.key_exists(&b, &CampaignKey::new("other-key").unwrap()).await.unwrap(), "keys are scoped by agent");
    assert!(!r.executions.key_exists(&a, &CampaignKey::new("never").unwrap()).await.unwrap());
}

/// An idempotency key is claimed once per agent, answers the stored fingerprint and response
/// while it lives, and is free again once its record is older than `expired_before`.
pub async fn idempotency_keys_are_claimed_once_until_they_expire(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    assert_eq!(r.idempotency.claim(&a, "k1", "fp-1", t(10), t(0)).await.unwrap(), IdempotencyClaim::Claimed);
    let running = IdempotencyClaim::Existing { fingerprint: "fp-1".into(), response: None, claimed_at: t(10) };
    assert_eq!(r.idempotency.claim(&a, "k1", "fp-2", t(11), t(0)).await.unwrap(), running, "while the first request runs");
    assert_eq!(r.idempotency.claim(&b, "k1", "fp-9", t(11), t(0)).await.unwrap(), IdempotencyClaim::Claimed, "keys are per agent");

    let answer = IdempotentResponse { status: 202, body: r#"{"ok":true}"#.into() };
    r.idempotency.complete(&a, "k1", &answer).await.unwrap();
    let done = IdempotencyClaim::Existing { fingerprint: "fp-1".into(), response: Some(answer.clone()), claimed_at: t(10) };
    assert_eq!(r.idempotency.claim(&a, "k1", "fp-1", t(12), t(10)).await.unwrap(), done, "not expired: created_at is not before");
    assert_eq!(
        r.idempotency.claim(&b, "k1", "fp-9", t(12), t(0)).await.unwrap(),
        IdempotencyClaim::Existing { fingerprint: "fp-9".into(), response: None, claimed_at: t(11) },
        "completing one agent's key leaves the other's alone"
    );

    assert_eq!(
        r.idempotency.claim(&a, "k1", "fp-3", t(20), t(11)).await.unwrap(),
        IdempotencyClaim::Claimed,
        "an expired record frees the key"
    );
    assert_eq!(
        r.idempotency.claim(&a, "k1", "fp-4", t(21), t(11)).await.unwrap(),
        IdempotencyClaim::Existing { fingerprint: "fp-3".into(), response: None, claimed_at: t(20) },
        "the new claim replaced the old record entirely"
    );
}

/// Concurrent claims of one idempotency key, fresh or expired, let exactly one through.
pub async fn concurrent_idempotency_claims_let_exactly_one_through(r: Repositories) {
    let a = agent(&r, "A").await;
    // The second round finds the first round's record expired: still exactly one claim wins.
    for (round, at, expired_before) in [(0, t(50), t(0)), (1, t(100), t(60))] {
        let claims = (0..8).map(|i| {
            let (r, a) = (r.clone(), a.clone());
            async move { r.idempotency.claim(&a, "same-key", &format!("fp-{round}-{i}"), at, expired_before).await }
        });
        let results = futures_util::future::join_all(claims).await;
        let claimed = results.iter().filter(|c| matches!(c, Ok(IdempotencyClaim::Claimed))).count();
        assert_eq!(claimed, 1, "round {round}: {results:?}");
        assert!(results.iter().all(|c| matches!(c, Ok(IdempotencyClaim::Claimed | IdempotencyClaim::Existing { .. }))), "{results:?}");
    }
}

/// Stored webhook events are due by `next_attempt_at`, oldest first, until processed; failures
/// count attempts and wait for their next try; the backlog counts every unprocessed event.
pub async fn webhook_events_are_due_until_processed(r: Repositories) {
    let first = webhook_event(r#"{"n":1}"#, t(1));
    // Each delivery keeps the platform it came from: its decoder reads it.
    let second = InboundDelivery { platform: ChannelType::Instagram, ..webhook_event(r#"{"n":2}"#, t(2)) };
    let later = webhook_event(r#"{"n":3}"#, t(50));
    for e in [&later, &second, &first] {
        r.inbound.insert(e).await.unwrap();
    }
    let ids = |v: Vec<InboundDelivery>| v.into_iter().map(|e| e.id).collect::<Vec<_>>();
    let due = r.inbound.due(t(10), 10).await.unwrap();
    assert_eq!(due, [first.clone(), second.clone()], "due by now, oldest first, stored exactly");
    assert_eq!(ids(r.inbound.due(t(10), 1).await.unwrap()), vec![first.id.clone()], "at most limit");
    assert_eq!(ids(r.inbound.due(t(50), 10).await.unwrap()).len(), 3, "due at exactly next_attempt_at");
    assert!(r.inbound.failed(10).await.unwrap().is_empty());
    assert_eq!(r.inbound.backlog().await.unwrap(), 3, "the backlog counts every unprocessed event, due or not");

    r.inbound.mark_failed(&first.id, "boom", t(30)).await.unwrap();
    r.inbound.mark_processed(std::slice::from_ref(&second.id), t(11)).await.unwrap();
    assert_eq!(r.inbound.backlog().await.unwrap(), 2, "a failed event waiting for a retry is still in the backlog");
    assert!(r.inbound.due(t(29), 10).await.unwrap().is_empty(), "a failed event waits for its next attempt; a processed one is done");
    let failed = r.inbound.failed(10).await.unwrap();
    assert_eq!(failed.len(), 1);
    assert_eq!((failed[0].attempts, failed[0].last_error.as_deref(), failed[0].next_attempt_at), (1, Some("boom"), Some(t(30))));

    r.inbound.mark_failed(&first.id, "boom again", t(40)).await.unwrap();
    let retried = r.inbound.due(t(40), 10).await.unwrap();
    assert_eq!(ids(retried.clone()), vec![first.id.clone()]);
    assert_eq!((retried[0].attempts, retried[0].last_error.as_deref()), (2, Some("boom again")), "attempts add up");

    r.inbound.mark_failed(&later.id, "once", t(60)).await.unwrap();
    assert_eq!(ids(r.inbound.failed(10).await.unwrap()), [first.id.clone(), later.id.clone()], "failed: oldest first");
    assert_eq!(ids(r.inbound.failed(1).await.unwrap()), vec![first.id.clone()]);
    r.inbound.mark_processed(std::slice::from_ref(&first.id), t(41)).await.unwrap();
    assert_eq!(ids(r.inbound.failed(10).await.unwrap()), vec![later.id.clone()], "processed events are no longer failed");
    assert_eq!(r.inbound.backlog().await.unwrap(), 1);
    assert!(r.inbound.due(t(1000), 10).await.unwrap().iter().all(|e| e.id == later.id));
}

/// A given-up event is never due and leaves the backlog until an operator's `retry` or
/// `retry_all` puts it back with a fresh attempt count; processed events are never given up.
pub async fn given_up_webhook_events_wait_for_an_operator(r: Repositories) {
    let bad = webhook_event("garbage", t(1));
    let flaky = webhook_event(r#"{"n":2}"#, t(2));
    let fine = webhook_event(r#"{"n":3}"#, t(3));
    for e in [&bad, &flaky, &fine] {
        r.inbound.insert(e).await.unwrap();
    }
    let ids = |v: Vec<InboundDelivery>| v.into_iter().map(|e| e.id).collect::<Vec<_>>();
    r.inbound.mark_failed(&flaky.id, "unavailable", t(20)).await.unwrap();
    r.inbound.give_up(&bad.id, "not a WhatsApp webhook payload", t(10)).await.unwrap();
    assert_eq!(r.inbound.given_up().await.unwrap(), 1);
    assert_eq!(r.inbound.backlog().await.unwrap(), 2, "a given-up event is not backlog: only the retried and the untried are");
    assert!(r.inbound.due(t(1000), 10).await.unwrap().iter().all(|e| e.id != bad.id), "a given-up event is never due again");
    let failed = r.inbound.failed(10).await.unwrap();
    assert_eq!(ids(failed.clone()), [bad.id.clone(), flaky.id.clone()], "given up and being retried, oldest first");
    assert_eq!(
        (failed[0].attempts, failed[0].last_error.as_deref(), failed[0].next_attempt_at, failed[0].failed_at),
        (1, Some("not a WhatsApp webhook payload"), None, Some(t(10))),
        "the give-up counts as an attempt and keeps its error"
    );
    assert_eq!((failed[1].failed_at, failed[1].next_attempt_at), (None, Some(t(20))));

    assert!(!r.inbound.retry(&flaky.id, t(11)).await.unwrap(), "only given-up events are retried by an operator");
    assert!(!r.inbound.retry(&fine.id, t(11)).await.unwrap());
    assert!(!r.inbound.retry("whk_unknown", t(11)).await.unwrap());
    assert_eq!(
        ids(r.inbound.due(t(20), 10).await.unwrap()),
        [flaky.id.clone(), fine.id.clone()],
        "the retried one keeps its own next attempt"
    );

    assert!(r.inbound.retry(&bad.id, t(12)).await.unwrap());
    assert!(!r.inbound.retry(&bad.id, t(12)).await.unwrap(), "once back, it is no longer given up");
    assert_eq!(r.inbound.given_up().await.unwrap(), 0);
    assert_eq!(r.inbound.backlog().await.unwrap(), 3);
    let due = r.inbound.due(t(12), 10).await.unwrap();
    assert_eq!(ids(due.clone()), [bad.id.clone(), fine.id.clone()], "due again at the retry, oldest first");
    assert_eq!(
        (due[0].attempts, due[0].failed_at, due[0].next_attempt_at, due[0].last_error.as_deref()),
        (0, None, Some(t(12)), Some("not a WhatsApp webhook payload")),
        "a fresh count of attempts; the last error stays until it succeeds"
    );

    // Every given-up event at once; processed ones are never touched.
    r.inbound.give_up(&bad.id, "still not", t(13)).await.unwrap();
    r.inbound.give_up(&flaky.id, "unavailable for too long", t(14)).await.unwrap();
    r.inbound.mark_processed(std::slice::from_ref(&fine.id), t(15)).await.unwrap();
    r.inbound.give_up(&fine.id, "too late", t(16)).await.unwrap();
    assert_eq!(r.inbound.given_up().await.unwrap(), 2, "a processed event cannot be given up");
    assert_eq!(r.inbound.retry_all(t(17)).await.unwrap(), 2);
    assert_eq!(r.inbound.retry_all(t(17)).await.unwrap(), 0);
    assert_eq!(ids(r.inbound.due(t(17), 10).await.unwrap()), [bad.id.clone(), flaky.id.clone()]);
    assert_eq!(r.inbound.backlog().await.unwrap(), 2);
}

const EMBEDDER: &str = "test-embedder@1";

fn vectors_for(products: &[Product], embedder: &str) -> ImportVectors {
    ImportVectors { embedder: embedder.into(), vectors: (0..products.len()).map(|i| vec![i as f32, 0.5, -1.25e-3]).collect() }
}

async fn all_changes(r: &Repositories, agent: &AgentId, embedder: &str, after: ChangeCursor) -> Vec<(String, u64, Option<Vec<f32>>)> {
    let changes = r.vectors.changes(agent, embedder, &after, 1000).await.unwrap();
    changes.into_iter().map(|c| (c.product.as_str().to_string(), c.revision, c.searchable.map(|s| s.vector))).collect()
}

/// Each import raises the agent's catalog revision and stamps its products; changes carry a
/// vector only for an active product embedded by the asked embedder.
pub async fn imports_store_vectors_and_raise_the_revision(r: Repositories) {
    let a = agent(&r, "A").await;
    assert!(r.vectors.revisions().await.unwrap().is_empty(), "no catalog, no revision");
    let catalog = vec![product(&a, "p2", "product", &[], "active", 1), product(&a, "p1", "product", &[], "draft", 2)];
    let vectors = vectors_for(&catalog, EMBEDDER);
    r.products.import(&a, &catalog, Some(&vectors), no_progress()).await.unwrap();
    assert_eq!(r.vectors.revisions().await.unwrap(), [(a.clone(), 1)]);
    assert_eq!(
        all_changes(&r, &a, EMBEDDER, ChangeCursor::default()).await,
        [("p1".into(), 1, None), ("p2".into(), 1, Some(vec![0.0, 0.5, -1.25e-3]))],
        "by revision then _id; a draft is never searchable; vectors round-trip exactly"
    );
    assert!(
        all_changes(&r, &a, "another-embedder@2", ChangeCursor::default()).await.iter().all(|c| c.2.is_none()),
        "a vector from another embedder is no vector"
    );
    assert_eq!(r.vectors.count_missing(EMBEDDER).await.unwrap(), 0);
    assert_eq!(r.vectors.count_missing("another-embedder@2").await.unwrap(), 1, "active products only");

    let published = product(&a, "p1", "product", &[], "active", 2);
    r.products
        .import(&a, std::slice::from_ref(&published), Some(&vectors_for(std::slice::from_ref(&published), EMBEDDER)), no_progress())
        .await
        .unwrap();
    assert_eq!(r.vectors.revisions().await.unwrap(), [(a.clone(), 2)]);
    let seen = ChangeCursor { revision: 1, product: None };
    assert_eq!(all_changes(&r, &a, EMBEDDER, seen).await, [("p1".into(), 2, Some(vec![0.0, 0.5, -1.25e-3]))], "only what changed since");

    r.products.import(&a, &[product(&a, "p2", "product", &[], "active", 1)], None, no_progress()).await.unwrap();
    let seen = ChangeCursor { revision: 2, product: None };
    assert_eq!(all_changes(&r, &a, EMBEDDER, seen).await, [("p2".into(), 3, None)], "imported without a vector: not searchable");
}

/// Catalog changes carry the product's kind and category tags, in the product's order.
pub async fn changes_carry_what_search_filters_on(r: Repositories) {
    let a = agent(&r, "A").await;
    let catalog =
        vec![product(&a, "p1", "service", &["Outdoor Gear", "Sale"], "active", 1), product(&a, "p2", "product", &[], "active", 1)];
    r.products.import(&a, &catalog, Some(&vectors_for(&catalog, EMBEDDER)), no_progress()).await.unwrap();
    let changes = r.vectors.changes(&a, EMBEDDER, &ChangeCursor::default(), 10).await.unwrap();
    let facets: Vec<(ProductKind, Vec<String>)> =
        changes.into_iter().map(|c| c.searchable.map(|s| (s.kind, s.category_tags)).unwrap()).collect();
    assert_eq!(
        facets,
        [(ProductKind::Service, vec!["Outdoor Gear".to_string(), "Sale".to_string()]), (ProductKind::Product, Vec::new())],
        "the kind and the category tags, in the product's order"
    );
}

/// Catalog changes page by revision, then `_id`, each product once at its latest revision.
pub async fn changes_page_by_revision_then_id(r: Repositories) {
    let a = agent(&r, "A").await;
    let first: Vec<Product> = ["c", "a", "b"].iter().map(|id| product(&a, id, "product", &[], "active", 1)).collect();
    r.products.import(&a, &first, Some(&vectors_for(&first, EMBEDDER)), no_progress()).await.unwrap();
    let second = vec![product(&a, "a", "product", &[], "active", 1)];
    r.products.import(&a, &second, Some(&vectors_for(&second, EMBEDDER)), no_progress()).await.unwrap();

    let mut cursor = ChangeCursor::default();
    let mut pages = Vec::new();
    loop {
        let page = r.vectors.changes(&a, EMBEDDER, &cursor, 2).await.unwrap();
        let Some(last) = page.last() else { break };
        cursor = ChangeCursor { revision: last.revision, product: Some(last.product.clone()) };
        pages.push(page.iter().map(|c| format!("{}@{}", c.product.as_str(), c.revision)).collect::<Vec<_>>());
    }
    assert_eq!(pages, [vec!["b@1", "c@1"], vec!["a@2"]], "a product appears once, at its latest revision");
}

/// Products needing vectors (none, or another embedder's) list by `_id`, drafts included;
/// storing vectors raises the revision once, ignores unknown ids and leaves products untouched.
pub async fn vectors_are_stored_for_missing_or_stale_products(r: Repositories) {
    let a = agent(&r, "A").await;
    let catalog: Vec<Product> = ["d", "b", "a", "c"]
        .iter()
        .enumerate()
        .map(|(i, id)| product(&a, id, "product", &[], if i == 0 { "draft" } else { "active" }, 1))
        .collect();
    let old = vectors_for(&catalog[..2], "old-embedder@0");
    r.products.import(&a, &catalog[..2], Some(&old), no_progress()).await.unwrap();
    r.products.import(&a, &catalog[2..], None, no_progress()).await.unwrap();
    assert_eq!(r.vectors.count_missing(EMBEDDER).await.unwrap(), 3, "active products without a current vector");

    let ids = |v: Vec<Product>| v.into_iter().map(|p| p.id.as_str().to_string()).collect::<Vec<_>>();
    let first = r.vectors.needing_vectors(&a, EMBEDDER, None, 3, false).await.unwrap();
    assert_eq!(ids(first), ["a", "b", "c"], "by _id, drafts included, at most limit");
    let after = ProductId::lookup("c");
    assert_eq!(ids(r.vectors.needing_vectors(&a, EMBEDDER, Some(&after), 3, false).await.unwrap()), ["d"]);

    let stored =
        vec![(ProductId::lookup("a"), vec![1.0, 0.0]), (ProductId::lookup("b"), vec![0.0, 1.0]), (ProductId::lookup("zz"), vec![1.0, 1.0])];
    r.vectors.store_vectors(&a, EMBEDDER, &stored).await.unwrap();
    assert_eq!(r.vectors.revisions().await.unwrap(), [(a.clone(), 3)], "one more revision for the write");
    assert_eq!(ids(r.vectors.needing_vectors(&a, EMBEDDER, None, 10, false).await.unwrap()), ["c", "d"]);
    assert_eq!(ids(r.vectors.needing_vectors(&a, EMBEDDER, None, 10, true).await.unwrap()), ["a", "b", "c", "d"], "all");
    assert_eq!(r.vectors.count_missing(EMBEDDER).await.unwrap(), 1);
    let changed = all_changes(&r, &a, EMBEDDER, ChangeCursor { revision: 2, product: None }).await;
    assert_eq!(changed, [("a".into(), 3, Some(vec![1.0, 0.0])), ("b".into(), 3, Some(vec![0.0, 1.0]))], "unknown ids are ignored");
    assert_eq!(
        r.products.get(&a, &ProductId::lookup("a")).await.unwrap().unwrap(),
        ProductDocument::of(&catalog[2]),
        "the product itself is untouched"
    );
}

/// Revisions, changes, missing vectors and vector writes are each agent's own.
pub async fn vectors_and_revisions_are_scoped_by_agent(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let mine = vec![product(&a, "same", "product", &[], "active", 1)];
    r.products.import(&a, &mine, Some(&vectors_for(&mine, EMBEDDER)), no_progress()).await.unwrap();
    let theirs = vec![product(&b, "same", "product", &[], "active", 1), product(&b, "other", "product", &[], "active", 1)];
    r.products.import(&b, &theirs, Some(&vectors_for(&theirs, EMBEDDER)), no_progress()).await.unwrap();
    r.products.import(&b, &theirs, None, no_progress()).await.unwrap();

    let mut revisions = r.vectors.revisions().await.unwrap();
    revisions.sort();
    let mut expected = vec![(a.clone(), 1), (b.clone(), 2)];
    expected.sort();
    assert_eq!(revisions, expected, "each agent has its own revision");
    assert_eq!(all_changes(&r, &a, EMBEDDER, ChangeCursor::default()).await, [("same".into(), 1, Some(vec![0.0, 0.5, -1.25e-3]))]);
    assert!(r.vectors.needing_vectors(&a, EMBEDDER, None, 10, false).await.unwrap().is_empty(), "B's missing vectors are not A's");

    r.vectors.store_vectors(&a, EMBEDDER, &[(ProductId::lookup("other"), vec![9.0])]).await.unwrap();
    assert!(all_changes(&r, &b, EMBEDDER, ChangeCursor::default()).await.iter().all(|c| c.2.is_none()), "A cannot write B's vectors");
}

/// A claimed webhook event is no one else's until its lease ends; a release hands back only
/// what that claim still holds; a processed event is never claimed again.
pub async fn webhook_events_are_claimed_once(r: Repositories) {
    let events: Vec<InboundDelivery> = (1..=3).map(|n| webhook_event(&format!(r#"{{"n":{n}}}"#), t(n))).collect();
    for e in events.iter().rev() {
        r.inbound.insert(e).await.unwrap();
    }
    let ids = |v: &[InboundDelivery]| v.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
    let first = r.inbound.claim_due(t(5), t(100), 2).await.unwrap();
    assert_eq!(ids(&first), ids(&events[..2]), "the oldest due, at most limit");
    assert!(first.iter().all(|e| e.next_attempt_at == Some(t(100))), "returned as claimed: held until the lease ends");
    let second = r.inbound.claim_due(t(5), t(150), 10).await.unwrap();
    assert_eq!(ids(&second), ids(&events[2..]), "a claimed event is nobody else's until its lease ends");
    assert!(r.inbound.claim_due(t(99), t(200), 10).await.unwrap().is_empty());
    assert_eq!(r.inbound.backlog().await.unwrap(), 3, "claimed events are still in the backlog");

    // The second processor stops before starting its event: handed back, due at once.
    r.inbound.release(&ids(&second), t(150), t(6)).await.unwrap();
    r.inbound.mark_processed(&ids(&first[..1]), t(7)).await.unwrap();
    // A release hands back only what its own claim holds: not the released or processed ones,
    // nor the first processor's.
    r.inbound.release(&ids(&events), t(150), t(8)).await.unwrap();
    let again = r.inbound.claim_due(t(9), t(300), 10).await.unwrap();
    assert_eq!(ids(&again), ids(&events[2..]), "the released one, due again; the processed one never");
    assert_eq!(again[0].next_attempt_at, Some(t(300)));

    // The first processor died holding its other event: due again when the lease ends.
    assert_eq!(ids(&r.inbound.claim_due(t(100), t(400), 10).await.unwrap()), ids(&events[1..2]));
    r.inbound.mark_processed(&ids(&events), t(101)).await.unwrap();
    assert_eq!(r.inbound.backlog().await.unwrap(), 0, "marked in one write");
    assert!(r.inbound.claim_due(t(1000), t(2000), 10).await.unwrap().is_empty(), "a processed event is never claimed");
}

/// Processors claiming one backlog at the same moment share it: each event is claimed once.
pub async fn concurrent_claims_split_the_backlog(r: Repositories) {
    let events: Vec<InboundDelivery> = (0..60).map(|n| webhook_event(&format!(r#"{{"n":{n}}}"#), t(n))).collect();
    for e in &events {
        r.inbound.insert(e).await.unwrap();
    }
    let claims = (0..6).map(|_| {
        let r = r.clone();
        async move { r.inbound.claim_due(t(100), t(1000), 15).await }
    });
    let mut claimed: Vec<String> =
        futures_util::future::join_all(claims).await.into_iter().flat_map(|c| c.unwrap()).map(|e| e.id).collect();
    claimed.sort();
    let mut expected: Vec<String> = events.iter().map(|e| e.id.clone()).collect();
    expected.sort();
    assert_eq!(claimed, expected, "every event claimed, none twice");
}
