//! The diesel schema, limited to types both backends share (TEXT, BIGINT, INTEGER).
//! Kept by hand in step with both migration folders.

diesel::table! {
    agents (id) {
        id -> Text,
        name -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    api_keys (id) {
        id -> Text,
        agent_id -> Text,
        kind -> Text,
        key_hash -> Text,
        hint -> Text,
        created_at -> BigInt,
        revoked_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    members (id) {
        id -> Text,
        agent_id -> Text,
        email -> Text,
        name -> Text,
        role -> Text,
        password_hash -> Text,
        must_change_password -> Integer,
        created_at -> BigInt,
        updated_at -> BigInt,
        max_open -> Nullable<Integer>,
        last_assigned_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    member_sessions (id) {
        id -> Text,
        agent_id -> Text,
        member_id -> Text,
        token_hash -> Text,
        created_at -> BigInt,
        last_seen_at -> BigInt,
    }
}

diesel::table! {
    // No primary key: marks are appended and counted, never addressed one by one.
    sign_in_attempts (email, mark, at) {
        email -> Text,
        mark -> Text,
        at -> BigInt,
    }
}

diesel::table! {
    rules (id) {
        id -> Text,
        agent_id -> Text,
        name -> Text,
        enabled -> Bool,
        on_event -> Text,
        document -> Text,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    rule_runs (rule_id, event_id) {
        rule_id -> Text,
        event_id -> Text,
        agent_id -> Text,
        outcome -> Text,
        error -> Nullable<Text>,
        created_at -> BigInt,
    }
}

diesel::table! {
    rule_queue (event_id) {
        event_id -> Text,
        event_created_at -> BigInt,
        due_at -> BigInt,
    }
}

diesel::table! {
    first_response_targets (agent_id) {
        agent_id -> Text,
        minutes -> Integer,
        updated_at -> BigInt,
    }
}

diesel::table! {
    report_counts (agent_id, slot, member, channel_type, shard) {
        agent_id -> Text,
        slot -> BigInt,
        member -> Text,
        channel_type -> Text,
        shard -> Integer,
        opened -> Integer,
        closed -> Integer,
        messages_in -> Integer,
        messages_out -> Integer,
    }
}

diesel::table! {
    report_spans (agent_id, ended_at, activity_id, kind) {
        agent_id -> Text,
        ended_at -> BigInt,
        activity_id -> Text,
        kind -> Text,
        started_at -> BigInt,
        member -> Nullable<Text>,
        channel_type -> Nullable<Text>,
    }
}

diesel::table! {
    business_hours (agent_id) {
        agent_id -> Text,
        document -> Text,
        updated_at -> BigInt,
        away -> Bool,
    }
}

diesel::table! {
    tags (id) {
        id -> Text,
        agent_id -> Text,
        name -> Text,
        name_key -> Text,
        color -> Text,
        description -> Nullable<Text>,
        created_at -> BigInt,
        updated_at -> BigInt,
        activity_count -> BigInt,
    }
}

diesel::table! {
    canned_responses (id) {
        id -> Text,
        agent_id -> Text,
        short_code -> Text,
        text -> Text,
        text_key -> Text,
        created_at -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    pending_refreshes (name) {
        name -> Text,
    }
}

diesel::table! {
    contacts (id) {
        id -> Text,
        agent_id -> Text,
        profile_name -> Text,
        name_search -> Text,
        email -> Nullable<Text>,
        notes -> Nullable<Text>,
        custom_attributes -> Text,
        created_at -> BigInt,
        updated_at -> BigInt,
        channel_list -> Text,
    }
}

diesel::table! {
    contact_channels (agent_id, channel_type, channel_id) {
        agent_id -> Text,
        channel_type -> Text,
        channel_id -> Text,
        contact_id -> Text,
        digits -> Text,
        position -> Integer,
        user_id -> Nullable<Text>,
        parent_user_id -> Nullable<Text>,
        username -> Nullable<Text>,
    }
}

diesel::table! {
    activities (id) {
        id -> Text,
        agent_id -> Text,
        contact_id -> Text,
        status -> Text,
        assigned_to -> Nullable<Text>,
        last_inbound_at -> Nullable<BigInt>,
        created_at -> BigInt,
        updated_at -> BigInt,
        contact_name -> Text,
        channel_list -> Text,
        tag_list -> Text,
        last_message_id -> Nullable<Text>,
        last_message_direction -> Nullable<Text>,
        last_message_type -> Nullable<Text>,
        last_message_text -> Nullable<Text>,
        last_message_at -> Nullable<BigInt>,
        message_count -> BigInt,
        unread_count -> BigInt,
        assignee_name -> Nullable<Text>,
        away_sent_at -> Nullable<BigInt>,
        first_response_opened_at -> Nullable<BigInt>,
        first_response_due_at -> Nullable<BigInt>,
        first_responded_at -> Nullable<BigInt>,
        first_response_missed_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    activity_search_terms (agent_id, term, activity_id) {
        agent_id -> Text,
        term -> Text,
        activity_id -> Text,
        status -> Text,
    }
}

diesel::table! {
    contact_search_terms (agent_id, term, contact_id) {
        agent_id -> Text,
        term -> Text,
        contact_id -> Text,
    }
}

diesel::table! {
    activity_tags (activity_id, tag_id) {
        activity_id -> Text,
        tag_id -> Text,
        created_at -> BigInt,
        activity_updated_at -> BigInt,
    }
}

diesel::table! {
    messages (id) {
        id -> Text,
        agent_id -> Text,
        activity_id -> Text,
        direction -> Text,
        #[sql_name = "type"]
        message_type -> Text,
        content -> Text,
        text -> Nullable<Text>,
        reply_to -> Nullable<Text>,
        platform_message_id -> Nullable<Text>,
        channel_type -> Text,
        channel_id -> Text,
        line_id -> Nullable<Text>,
        status -> Text,
        error_message -> Nullable<Text>,
        template_id -> Nullable<Text>,
        campaign_key -> Nullable<Text>,
        cart_code -> Nullable<Text>,
        referral -> Nullable<Text>,
        created_at -> BigInt,
        sent_at -> Nullable<BigInt>,
        delivered_at -> Nullable<BigInt>,
        read_at -> Nullable<BigInt>,
        updated_at -> BigInt,
        deleted_at -> Nullable<BigInt>,
        pricing -> Nullable<Text>,
        send_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    scheduled_sends (message_id) {
        message_id -> Text,
        agent_id -> Text,
        activity_id -> Text,
        line_id -> Text,
        send_at -> BigInt,
        claimed_until -> BigInt,
        request -> Text,
    }
}

diesel::table! {
    products (agent_id, id) {
        agent_id -> Text,
        id -> Text,
        status -> Text,
        kind -> Text,
        document -> Text,
        created_at -> BigInt,
        updated_at -> BigInt,
        revision -> BigInt,
        embedder -> Nullable<Text>,
        embedding -> Nullable<Binary>,
        pk -> BigInt,
    }
}

diesel::table! {
    activity_counts (agent_id, status, shard) {
        agent_id -> Text,
        status -> Text,
        shard -> Integer,
        count -> BigInt,
        unassigned -> BigInt,
    }
}

diesel::table! {
    contact_counts (agent_id, shard) {
        agent_id -> Text,
        shard -> Integer,
        count -> BigInt,
    }
}

diesel::table! {
    catalog_revisions (agent_id) {
        agent_id -> Text,
        revision -> BigInt,
    }
}

diesel::table! {
    product_categories (agent_id, tag, product_id) {
        agent_id -> Text,
        tag -> Text,
        product_id -> Text,
        kind -> Text,
        created_at -> BigInt,
        product_pk -> BigInt,
    }
}

diesel::table! {
    catalog_facets (agent_id, facet, name) {
        agent_id -> Text,
        facet -> Text,
        name -> Text,
        count -> BigInt,
    }
}

diesel::table! {
    carts (code) {
        code -> Text,
        agent_id -> Text,
        items -> Text,
        created_at -> BigInt,
        expires_at -> BigInt,
    }
}

diesel::table! {
    lines (id) {
        id -> Text,
        agent_id -> Text,
        account_id -> Text,
        waba_id -> Text,
        access_token -> Nullable<Text>,
        created_at -> BigInt,
        channel_type -> Text,
        send_url -> Nullable<Text>,
        receive_url -> Nullable<Text>,
        username -> Nullable<Text>,
        inbound_token -> Nullable<Text>,
        messages_per_second -> Integer,
    }
}

diesel::table! {
    files (agent_id, id) {
        agent_id -> Text,
        id -> Text,
        filename -> Nullable<Text>,
        mime_type -> Text,
        bytes -> Binary,
        created_at -> BigInt,
    }
}

diesel::table! {
    mailbox_cursors (line_id) {
        line_id -> Text,
        uid_validity -> BigInt,
        last_uid -> BigInt,
        claimed_by -> Nullable<Text>,
        lease_until -> BigInt,
        updated_at -> BigInt,
    }
}

diesel::table! {
    templates (agent_id, line_id, id) {
        agent_id -> Text,
        line_id -> Text,
        id -> Text,
        name -> Text,
        language -> Text,
        status -> Text,
        category -> Text,
        components -> Text,
        created_at -> BigInt,
        updated_at -> BigInt,
        parameter_format -> Text,
    }
}

diesel::table! {
    executions (id) {
        id -> Text,
        agent_id -> Text,
        campaign_key -> Text,
        campaign_name -> Text,
        recipient -> Text,
        template_id -> Text,
        message_id -> Nullable<Text>,
        status -> Text,
        error_message -> Nullable<Text>,
        sent_at -> Nullable<BigInt>,
        delivered_at -> Nullable<BigInt>,
        read_at -> Nullable<BigInt>,
        updated_at -> BigInt,
    }
}

diesel::table! {
    idempotency_keys (agent_id, key) {
        agent_id -> Text,
        key -> Text,
        fingerprint -> Text,
        response_status -> Nullable<Integer>,
        response_body -> Nullable<Text>,
        created_at -> BigInt,
        recovery_point -> Nullable<Text>,
    }
}

diesel::table! {
    webhook_events (id) {
        id -> Text,
        body -> Text,
        received_at -> BigInt,
        attempts -> Integer,
        last_error -> Nullable<Text>,
        next_attempt_at -> Nullable<BigInt>,
        processed_at -> Nullable<BigInt>,
        failed_at -> Nullable<BigInt>,
        set_aside -> Nullable<Text>,
        platform -> Text,
    }
}

diesel::table! {
    webhook_endpoints (id) {
        id -> Text,
        agent_id -> Text,
        url -> Text,
        description -> Nullable<Text>,
        events -> Text,
        disabled_at -> Nullable<BigInt>,
        disabled_reason -> Nullable<Text>,
        secret -> Text,
        previous_secret -> Nullable<Text>,
        previous_expires_at -> Nullable<BigInt>,
        failing_since -> Nullable<BigInt>,
        created_at -> BigInt,
        updated_at -> BigInt,
        served_at -> BigInt,
        paused_until -> Nullable<BigInt>,
    }
}

diesel::table! {
    events (id) {
        id -> Text,
        agent_id -> Text,
        #[sql_name = "type"]
        event_type -> Text,
        body -> Text,
        created_at -> BigInt,
    }
}

diesel::table! {
    event_deliveries (event_id, endpoint_id) {
        event_id -> Text,
        endpoint_id -> Text,
        agent_id -> Text,
        event_created_at -> BigInt,
        attempts -> Integer,
        next_attempt_at -> Nullable<BigInt>,
        delivered_at -> Nullable<BigInt>,
        given_up_at -> Nullable<BigInt>,
    }
}

diesel::table! {
    delivery_attempts (event_id, endpoint_id, attempt) {
        event_id -> Text,
        endpoint_id -> Text,
        attempt -> Integer,
        attempted_at -> BigInt,
        response_status -> Nullable<Integer>,
        duration_ms -> BigInt,
        error -> Nullable<Text>,
        next_attempt_at -> Nullable<BigInt>,
    }
}

diesel::joinable!(api_keys -> agents (agent_id));
diesel::joinable!(tags -> agents (agent_id));
diesel::joinable!(canned_responses -> agents (agent_id));
diesel::joinable!(members -> agents (agent_id));
diesel::joinable!(business_hours -> agents (agent_id));
diesel::joinable!(first_response_targets -> agents (agent_id));
diesel::joinable!(report_counts -> agents (agent_id));
diesel::joinable!(report_spans -> agents (agent_id));
diesel::joinable!(rules -> agents (agent_id));
diesel::joinable!(rule_runs -> rules (rule_id));
diesel::joinable!(member_sessions -> members (member_id));
diesel::joinable!(contacts -> agents (agent_id));
diesel::joinable!(contact_channels -> contacts (contact_id));
diesel::joinable!(activities -> contacts (contact_id));
diesel::joinable!(activity_tags -> activities (activity_id));
diesel::joinable!(activity_search_terms -> activities (activity_id));
diesel::joinable!(contact_search_terms -> contacts (contact_id));
diesel::joinable!(activity_tags -> tags (tag_id));
diesel::joinable!(lines -> agents (agent_id));
diesel::joinable!(templates -> lines (line_id));
diesel::joinable!(messages -> activities (activity_id));
diesel::joinable!(event_deliveries -> events (event_id));
diesel::joinable!(rule_queue -> events (event_id));
diesel::joinable!(scheduled_sends -> messages (message_id));
diesel::joinable!(event_deliveries -> webhook_endpoints (endpoint_id));

diesel::allow_tables_to_appear_in_same_query!(
    agents,
    api_keys,
    members,
    member_sessions,
    sign_in_attempts,
    business_hours,
    first_response_targets,
    report_counts,
    report_spans,
    rules,
    rule_runs,
    rule_queue,
    scheduled_sends,
    tags,
    canned_responses,
    pending_refreshes,
    contacts,
    contact_channels,
    activities,
    activity_search_terms,
    contact_search_terms,
    activity_tags,
    messages,
    products,
    product_categories,
    catalog_facets,
    catalog_revisions,
    activity_counts,
    contact_counts,
    carts,
    lines,
    templates,
    executions,
    idempotency_keys,
    webhook_events,
    webhook_endpoints,
    events,
    event_deliveries,
    delivery_attempts,
    files,
    mailbox_cursors
);
