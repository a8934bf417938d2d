//! The storage port contract, written once. Every storage backend runs it through
//! [`storage_conformance!`](crate::storage_conformance), which expands to one test per check.
//!
//! Each check gets a fresh, empty store. Ids are made unique per check from a counter. Each
//! feature keeps its checks beside its ports (`conversations/conformance.rs`, …); what they
//! build their stores from is `conformance/fixtures.rs`, and the checks of the shared ports are here.

#![expect(clippy::unwrap_used, reason = "a test suite: a failed step is a failed check")]

use crate::model::*;
use crate::ports::Repositories;

use fixtures::*;

pub(crate) mod fixtures;

// Each feature's checks live beside it; the facade names them all, which the macro expands.
pub use crate::access::conformance::*;
pub use crate::automation::conformance::*;
pub use crate::catalog::conformance::*;
pub use crate::conversations::conformance::*;
pub use crate::events::conformance::*;
pub use crate::lines::conformance::*;
pub use crate::messaging::conformance::*;
pub use crate::reports::conformance::*;

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
            a_message_and_what_it_taught_of_its_contact_are_one_write, members_are_unique_by_email_per_agent_and_stay_their_agents,
            sessions_are_found_by_hash_and_end_with_a_password_change, sign_in_attempts_count_per_email_within_the_window,
            assignees_show_their_member_and_are_taken_once, events_are_read_after_a_cursor_oldest_first,
            business_hours_are_one_set_per_agent_replaced_whole, rules_round_trip_whole_stay_their_agents_and_stop_at_the_limit,
            a_rules_run_on_an_event_is_claimed_once_and_listed_newest_first, events_wait_for_rules_only_when_an_enabled_rule_runs_on_them,
            members_loads_count_their_open_conversations_and_their_turn, away_messages_queue_their_contacts_messages_and_are_claimed_once_a_turn,
            scheduled_messages_are_claimed_once_in_due_order_and_started_once, concurrent_claims_of_scheduled_messages_take_each_once,
            the_first_response_clock_starts_at_an_opening_and_stops_at_the_first_answer,
            missed_first_responses_are_found_in_due_order_and_marked_once, old_rule_runs_are_deleted_oldest_first_in_batches,
            reports_count_what_each_write_adds_and_stay_their_agents, concurrent_writes_to_one_slot_all_count);
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
