//! Activities' messages end to end over HTTP, on both backends, against the fake Graph API:
//! every inbound kind from the webhook's real shapes, duplicates stored once, replies inside
//! and outside the 24-hour window with their exact wire bodies, statuses, media, the cart
//! handover and tenant isolation.

use std::time::{Duration, Instant};

use crate::common::{Reply, TestApp};
use crate::messaging::{
    B_PHONE, B_WABA, CLOUD_PHONE, CLOUD_WABA, TOKEN, accepted, cloud_line, issues, messages_path, order_send, poll, send_uri,
    sends_received, signed_webhook, standard_templates, start, start_with, statuses_webhook, ts,
};
use parley_api::runtime::config::ApiConfig;
use parley_domain::model::ActivityStatus;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

backend_tests!(
    every_inbound_kind_is_stored_once_with_its_details,
    a_flow_answer_is_stored_with_its_response_parsed_and_a_misshapen_one_kept_whole,
    a_reply_inside_the_window_goes_out_exactly_and_moves_with_its_statuses,
    outside_the_window_or_without_whatsapp_nothing_is_sent,
    a_reply_with_an_idempotency_key_is_sent_once,
    media_is_streamed_from_the_platform,
    an_unusable_media_type_from_the_platform_is_served_as_bytes,
    a_platform_time_years_ahead_is_the_time_the_delivery_was_received,
    a_cart_link_hands_the_shopper_over_with_their_cart,
    the_timeline_pages_newest_first_and_polls_by_since,
    messages_of_the_same_second_keep_the_order_they_were_stored_in,
    reading_marks_the_newest_message_read_and_clears_the_unread_count,
    a_note_joins_the_timeline_is_announced_and_never_sent,
    erasing_a_contact_leaves_nothing_of_them_in_any_table,
    rich_replies_go_out_in_the_cloud_apis_shapes_and_answers_link_back,
    product_and_cart_messages_are_built_from_the_agents_catalog_and_carts,
    template_sends_are_messages_and_move_with_their_execution,
    statuses_price_template_sends_and_a_campaign_sums_its_billed_messages,
    tenants_never_see_each_others_messages,
    a_delivery_is_processed_before_its_answer_unless_the_instance_only_ingests,
);

const ANN: &str = "14155550100";

/// Now, in the platform's unix seconds: inbound messages inside the window.
fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// A webhook carrying `messages` (objects without `from`, which is set to `from`) for `phone`.
fn inbound(phone: &str, from: &str, messages: Vec<Value>) -> String {
    let messages: Vec<Value> = messages
        .into_iter()
        .map(|mut m| {
            m["from"] = json!(from);
            m
        })
        .collect();
    json!({"object": "whatsapp_business_account", "entry": [{"id": CLOUD_WABA, "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550001111", "phone_number_id": phone},
        "contacts": [{"profile": {"name": "Ann Lee"}, "wa_id": from}],
        "messages": messages
    }}]}]})
    .to_string()
}

fn text(wamid: &str, at: i64, body: &str) -> Value {
    json!({"id": wamid, "timestamp": at.to_string(), "type": "text", "text": {"body": body}})
}

/// The contact's activity id, once their first message is processed.
async fn activity_of(app: &TestApp, digits: &str) -> String {
    let found = poll(app, &format!("/v1/activities?search={digits}"), |d| d.as_array().is_some_and(|a| !a.is_empty())).await;
    found[0]["id"].as_str().unwrap().to_string()
}

/// The activity's timeline once it holds `count` messages.
async fn timeline(app: &TestApp, activity: &str, count: usize) -> Vec<Value> {
    let uri = format!("/v1/activities/{activity}/messages?limit=100");
    poll(app, &uri, |d| d.as_array().is_some_and(|a| a.len() >= count)).await.as_array().unwrap().clone()
}

/// Ann wrote "hello" just now on the Cloud line: returns her activity id.
async fn ann_wrote(app: &TestApp, server: &MockServer) -> String {
    cloud_line(app, server, standard_templates()).await;
    signed_webhook(app, &inbound(CLOUD_PHONE, ANN, vec![text("wamid.hello", now(), "hello")])).await;
    let activity = activity_of(app, ANN).await;
    timeline(app, &activity, 1).await;
    activity
}

/// A reply's exact wire body: `expected` plus `biz_opaque_callback_data`, the reply's Parley
/// message id (which the test then checks against the answer, [`callback_data_sent`]).
fn reply_wire(expected: Value) -> impl wiremock::Match {
    move |request: &wiremock::Request| {
        let Ok(mut body) = serde_json::from_slice::<Value>(&request.body) else { return false };
        let data = body.as_object_mut().and_then(|o| o.remove("biz_opaque_callback_data"));
        data.as_ref().and_then(Value::as_str).is_some_and(|d| d.starts_with("msg_")) && body == expected
    }
}

/// The `biz_opaque_callback_data` of each send the fake Graph API received, in order.
async fn callback_data_sent(server: &MockServer) -> Vec<Value> {
    let received = server.received_requests().await.unwrap_or_default();
    let sends = received.iter().filter(|r| r.method.as_str() == "POST" && r.url.path().ends_with("/messages"));
    sends.map(|r| serde_json::from_slice::<Value>(&r.body).unwrap()["biz_opaque_callback_data"].clone()).collect()
}

fn replies(activity: &str) -> String {
    format!("/v1/activities/{activity}/messages")
}

async fn every_inbound_kind_is_stored_once_with_its_details(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let t = now() - 60;
    let kinds = vec![
        text("wamid.k01", t, "Do you have the blue mug?"),
        json!({"id": "wamid.k02", "timestamp": (t + 1).to_string(), "type": "image",
            "image": {"caption": "This one", "mime_type": "image/jpeg", "sha256": "aGFzaA==", "id": "1013"},
            "context": {"from": "15550001111", "id": "wamid.k01"}}),
        json!({"id": "wamid.k03", "timestamp": (t + 2).to_string(), "type": "video", "video": {"mime_type": "video/mp4", "sha256": "dg==", "id": "1014"}}),
        json!({"id": "wamid.k04", "timestamp": (t + 3).to_string(), "type": "audio", "audio": {"mime_type": "audio/ogg; codecs=opus", "sha256": "YQ==", "id": "1015", "voice": true}}),
        json!({"id": "wamid.k05", "timestamp": (t + 4).to_string(), "type": "document",
            "document": {"caption": "My order", "filename": "order.pdf", "mime_type": "application/pdf", "sha256": "ZA==", "id": "1016"}}),
        json!({"id": "wamid.k06", "timestamp": (t + 5).to_string(), "type": "sticker", "sticker": {"mime_type": "image/webp", "sha256": "cw==", "id": "1017", "animated": false}}),
        json!({"id": "wamid.k07", "timestamp": (t + 6).to_string(), "type": "location",
            "location": {"latitude": 38.7223, "longitude": -9.1393, "name": "Shop", "address": "Rua Augusta 1, Lisboa"}}),
        json!({"id": "wamid.k08", "timestamp": (t + 7).to_string(), "type": "contacts",
            "contacts": [{"name": {"formatted_name": "Bo Lee", "first_name": "Bo"}, "phones": [{"phone": "+1 415 555 0199", "type": "CELL", "wa_id": "14155550199"}]}]}),
        json!({"id": "wamid.k09", "timestamp": (t + 8).to_string(), "type": "interactive",
            "interactive": {"type": "button_reply", "button_reply": {"id": "yes-reserve", "title": "Yes, reserve it"}}}),
        json!({"id": "wamid.k10", "timestamp": (t + 9).to_string(), "type": "interactive",
            "interactive": {"type": "list_reply", "list_reply": {"id": "blue", "title": "Blue", "description": "Blue mug, 350 ml"}}}),
        json!({"id": "wamid.k11", "timestamp": (t + 10).to_string(), "type": "button", "button": {"payload": "STOP", "text": "Stop promotions"}}),
        json!({"id": "wamid.k12", "timestamp": (t + 11).to_string(), "type": "reaction", "reaction": {"message_id": "wamid.k01", "emoji": "👍"}}),
        json!({"id": "wamid.k13", "timestamp": (t + 12).to_string(), "type": "order", "order": {"catalog_id": "cat-1", "text": "Quickly please",
            "product_items": [{"product_retailer_id": "mug-blue", "quantity": "2", "item_price": "12.5", "currency": "EUR"}]}}),
        json!({"id": "wamid.k14", "timestamp": (t + 13).to_string(), "type": "unsupported",
            "errors": [{"code": 131051, "title": "Message type unknown", "message": "Message type unknown"}]}),
        json!({"id": "wamid.k15", "timestamp": (t + 14).to_string(), "type": "poll", "poll": {"question": "Which colour?"},
            "referral": {"source_url": "https://fb.me/ad", "source_id": "120", "source_type": "ad", "headline": "Mugs", "ctwa_clid": "Afd"}}),
    ];
    let body = inbound(CLOUD_PHONE, ANN, kinds);
    signed_webhook(&app, &body).await;
    let activity = activity_of(&app, ANN).await;
    let messages = timeline(&app, &activity, 15).await;
    // The platform repeats a delivery: nothing is stored twice.
    signed_webhook(&app, &body).await;
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, vec![text("wamid.marker", t + 20, "marker")])).await;
    let messages_after = timeline(&app, &activity, 16).await;
    assert_eq!(messages_after.len(), 16, "each message once: {messages_after:#?}");
    assert_eq!(messages_after[0]["text"], "marker");

    // Newest first: the platform's times, one second apart.
    let wamids: Vec<&str> = messages.iter().map(|m| m["platform_message_id"].as_str().unwrap()).collect();
    assert_eq!(wamids, (1..=15).rev().map(|n| format!("wamid.k{n:02}")).collect::<Vec<_>>());
    let by = |wamid: &str| messages.iter().find(|m| m["platform_message_id"] == wamid).unwrap().clone();
    let first = by("wamid.k01");
    assert_eq!(first["type"], "text");
    assert_eq!(first["text"], "Do you have the blue mug?");
    assert_eq!((&first["direction"], &first["status"]), (&json!("inbound"), &json!("received")));
    assert_eq!(
        first["channel"],
        json!({"channel_id": ANN, "channel_type": "whatsapp", "user_id": null, "parent_user_id": null, "username": null})
    );
    assert_eq!(first["created_at"], ts(t), "the platform's time");
    assert!(first["id"].as_str().unwrap().starts_with("msg_"));
    assert_eq!(first["activity_id"], activity);
    assert!(first["line_id"].as_str().unwrap().starts_with("chn_"));
    for absent in ["media", "location", "reply_to", "error_message", "template_id", "campaign_key", "cart_code", "referral", "sent_at"] {
        assert_eq!(first[absent], Value::Null, "{absent}");
    }

    let image = by("wamid.k02");
    assert_eq!(image["text"], "This one", "a caption is what a person reads");
    assert_eq!(
        image["media"],
        json!({"id": "1013", "link": null, "mime_type": "image/jpeg", "sha256": "aGFzaA==", "caption": "This one", "filename": null})
    );
    assert_eq!(image["reply_to"], first["id"], "context.id becomes our id of the quoted message");
    assert_eq!(by("wamid.k05")["media"]["filename"], "order.pdf");
    assert_eq!(by("wamid.k04")["text"], Value::Null);
    assert_eq!(by("wamid.k06")["type"], "sticker");
    assert_eq!(
        by("wamid.k07")["location"],
        json!({"latitude": 38.7223, "longitude": -9.1393, "name": "Shop", "address": "Rua Augusta 1, Lisboa"})
    );
    assert_eq!(by("wamid.k08")["content"]["contacts"][0]["name"]["formatted_name"], "Bo Lee");
    assert_eq!(by("wamid.k09")["text"], "Yes, reserve it");
    assert_eq!(by("wamid.k09")["content"]["interactive"]["button_reply"]["id"], "yes-reserve");
    assert_eq!(
        by("wamid.k10")["content"]["interactive"]["list_reply"],
        json!({"id": "blue", "title": "Blue", "description": "Blue mug, 350 ml"})
    );
    assert_eq!((&by("wamid.k11")["text"], &by("wamid.k11")["content"]["button"]["payload"]), (&json!("Stop promotions"), &json!("STOP")));
    assert_eq!(by("wamid.k12")["text"], "👍");
    assert_eq!(by("wamid.k12")["content"]["reaction"]["message_id"], "wamid.k01");
    let order = by("wamid.k13");
    assert_eq!(order["text"], "Quickly please");
    assert_eq!(
        order["content"]["order"]["product_items"],
        json!([{"product_retailer_id": "mug-blue", "quantity": 2, "item_price": 12.5, "currency": "EUR"}])
    );
    for (wamid, kind) in [("wamid.k14", "unsupported"), ("wamid.k15", "poll")] {
        let m = by(wamid);
        assert_eq!(m["type"], "unsupported", "{m}");
        assert_eq!(m["content"]["raw"]["type"], kind, "kept whole: {m}");
    }
    assert_eq!(by("wamid.k14")["content"]["raw"]["errors"][0]["code"], 131051);
    assert_eq!(by("wamid.k15")["referral"]["ctwa_clid"], "Afd", "the ad referral is kept");

    // Each message is also one by itself, and the activity shows the newest.
    let one = app.get(&format!("/v1/activities/{activity}/messages/{}", image["id"].as_str().unwrap()), &app.a.secret).await;
    one.assert_status(200);
    assert_eq!(one.data(), &image);
    let detail = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await;
    assert_eq!(detail.data()["last_message"]["text"], "marker");
    assert!(app.state.inbound.failed(10).await.unwrap().is_empty());
}

async fn a_flow_answer_is_stored_with_its_response_parsed_and_a_misshapen_one_kept_whole(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let t = now() - 60;
    let nfm = |wamid: &str, at: i64, reply: Value| {
        json!({"id": wamid, "timestamp": at.to_string(), "type": "interactive", "context": {"from": "15550001111", "id": "wamid.sent-flow"},
            "interactive": {"type": "nfm_reply", "nfm_reply": reply}})
    };
    let answer =
        r#"{"flow_token":"AQAAAAACS5FpgQ_cAAAAAD0QI3s.","screen_0_Size_0":"0_Large","screen_0_Quantity_1":2,"screen_1_Notes":"gift wrap"}"#;
    let body = inbound(
        CLOUD_PHONE,
        ANN,
        vec![
            nfm("wamid.f1", t, json!({"name": "flow", "body": "Sent", "response_json": answer})),
            nfm("wamid.f2", t + 1, json!({"name": "flow", "body": "Sent", "response_json": "[\"not\", \"an object\"]"})),
            nfm("wamid.f3", t + 2, json!({"name": "flow", "body": "Sent"})),
            nfm("wamid.f4", t + 3, json!({"response_json": "{\"screen_0_Ok\":true}"})),
        ],
    );
    signed_webhook(&app, &body).await;
    let activity = activity_of(&app, ANN).await;
    let messages = timeline(&app, &activity, 4).await;
    let by = |wamid: &str| messages.iter().find(|m| m["platform_message_id"] == wamid).unwrap().clone();

    let flow = by("wamid.f1");
    assert_eq!((&flow["type"], &flow["text"]), (&json!("flow_reply"), &json!("Sent")), "{flow}");
    let expected = json!({
        "response": {"flow_token": "AQAAAAACS5FpgQ_cAAAAAD0QI3s.", "screen_0_Size_0": "0_Large", "screen_0_Quantity_1": 2, "screen_1_Notes": "gift wrap"},
        "flow_token": "AQAAAAACS5FpgQ_cAAAAAD0QI3s.",
        "body": "Sent",
        "name": "flow",
    });
    assert_eq!(flow["flow_reply"], expected);
    assert_eq!(flow["content"], json!({"type": "flow_reply", "flow_reply": expected}));
    assert_eq!(flow["media"], Value::Null);
    let one = app.get(&format!("/v1/activities/{activity}/messages/{}", flow["id"].as_str().unwrap()), &app.a.secret).await;
    one.assert_status(200);
    assert_eq!(one.data(), &flow, "the message alone reads the same");

    let tokenless = by("wamid.f4");
    assert_eq!(tokenless["type"], "flow_reply");
    assert_eq!(tokenless["flow_reply"], json!({"response": {"screen_0_Ok": true}, "flow_token": null, "body": null, "name": null}));
    assert_eq!(tokenless["text"], Value::Null);

    for wamid in ["wamid.f2", "wamid.f3"] {
        let m = by(wamid);
        assert_eq!((&m["type"], &m["flow_reply"]), (&json!("unsupported"), &Value::Null), "{m}");
        assert_eq!(m["content"]["raw"]["interactive"]["type"], "nfm_reply", "kept whole: {m}");
        assert_eq!(m["content"]["raw"]["id"], wamid);
    }
    assert!(app.state.inbound.failed(10).await.unwrap().is_empty());
}

async fn a_reply_inside_the_window_goes_out_exactly_and_moves_with_its_statuses(backend: &str) {
    let (server, app) = start(backend).await;
    let activity = ann_wrote(&app, &server).await;
    let hello = timeline(&app, &activity, 1).await[0].clone();
    Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .and(reply_wire(json!({"messaging_product": "whatsapp", "recipient_type": "individual", "to": ANN,
            "context": {"message_id": "wamid.hello"}, "type": "text", "text": {"preview_url": false, "body": "Yes, it is in stock."}})))
        .respond_with(accepted(ANN, "wamid.reply1"))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .and(reply_wire(json!({"messaging_product": "whatsapp", "recipient_type": "individual", "to": ANN,
            "type": "document", "document": {"link": "https://cdn.example.com/invoice.pdf", "caption": "Your invoice", "filename": "invoice.pdf"}})))
        .respond_with(accepted(ANN, "wamid.reply2"))
        .expect(1)
        .mount(&server)
        .await;

    app.tick();
    let body = json!({"type": "text", "text": {"body": "Yes, it is in stock."}, "reply_to": hello["id"]});
    let r = app.post(&replies(&activity), &app.a.secret, body).await;
    r.assert_status(201);
    let sent = r.data().clone();
    assert_eq!((&sent["direction"], &sent["status"], &sent["type"]), (&json!("outbound"), &json!("sent"), &json!("text")));
    assert_eq!((&sent["platform_message_id"], &sent["reply_to"]), (&json!("wamid.reply1"), &hello["id"]));
    assert_eq!(sent["text"], "Yes, it is in stock.");
    assert_eq!(sent["sent_at"], sent["created_at"]);
    assert_eq!(sent["channel"]["channel_id"], ANN);
    assert_eq!(callback_data_sent(&server).await, [sent["id"].clone()], "the send named the reply by its id");

    app.tick();
    let doc = json!({"type": "document", "document": {"link": "https://cdn.example.com/invoice.pdf", "caption": "Your invoice", "filename": "invoice.pdf"}});
    let r = app.post(&replies(&activity), &app.a.secret, doc).await;
    r.assert_status(201);
    assert_eq!(r.data()["media"]["link"], "https://cdn.example.com/invoice.pdf");
    assert_eq!(callback_data_sent(&server).await, [sent["id"].clone(), r.data()["id"].clone()]);

    // The conversation leads the list, showing its newest message.
    let (_, other) = app.conversation(&app.a, "Someone", ("whatsapp", "14155550177"), ActivityStatus::Open).await;
    let list = app.get("/v1/activities", &app.a.secret).await;
    assert_eq!(list.data()[0]["id"], other, "a new activity is newer still");
    app.tick();
    // The platform's times have whole seconds: one second on from the app's clock (which the
    // ticks above moved past the wall clock), surely after the replies.
    let after_replies = parley_domain::ports::Clock::now(&*app.clock).timestamp() + 1;
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, vec![text("wamid.thanks", after_replies, "Thanks!")])).await;
    let list = poll(&app, "/v1/activities", |d| d[0]["id"] == activity).await;
    assert_eq!(list[0]["last_message"]["text"], "Thanks!");
    assert_eq!(list[0]["last_message"]["direction"], "inbound");

    // The platform reports delivery and reading: the reply moves, never backwards; the delivered
    // report processed after the read keeps the status read and gives the earlier real time.
    let read_at = now();
    signed_webhook(
        &app,
        &statuses_webhook(CLOUD_PHONE, CLOUD_WABA, "", &[("wamid.reply1", "read", read_at), ("wamid.reply1", "delivered", read_at - 1)]),
    )
    .await;
    let uri = format!("/v1/activities/{activity}/messages/{}", sent["id"].as_str().unwrap());
    let moved = poll(&app, &uri, |d| d["status"] == "read").await;
    assert_eq!((&moved["read_at"], &moved["delivered_at"]), (&json!(ts(read_at)), &json!(ts(read_at - 1))), "{moved}");
    let r = app.get(&format!("{}?since={}", replies(&activity), sent["created_at"].as_str().unwrap()), &app.a.secret).await;
    let changed: Vec<&str> = r.data().as_array().unwrap().iter().map(|m| m["platform_message_id"].as_str().unwrap()).collect();
    assert!(changed.contains(&"wamid.reply1"), "a status change is a change since: {changed:?}");
    server.verify().await;
}

async fn outside_the_window_or_without_whatsapp_nothing_is_sent(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let hi = json!({"type": "text", "text": {"body": "hi"}});

    // Never wrote.
    let (_, silent) = app.conversation(&app.a, "Silent", ("whatsapp", "14155550111"), ActivityStatus::Open).await;
    let r = app.post(&replies(&silent), &app.a.secret, hi.clone()).await;
    r.assert_error(422, "WINDOW_CLOSED");
    assert!(r.body["error"]["message"].as_str().unwrap().contains("template"), "{}", r.body);

    // No WhatsApp channel at all.
    let (_, email) = app.conversation(&app.a, "Mailer", ("email", "ann@example.com"), ActivityStatus::Open).await;
    app.post(&replies(&email), &app.a.secret, hi.clone()).await.assert_error(422, "CHANNEL_UNSUPPORTED");

    // Wrote, and 24 hours pass.
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, vec![text("wamid.old", now(), "hello")])).await;
    let activity = activity_of(&app, ANN).await;
    timeline(&app, &activity, 1).await;
    app.clock.advance(chrono::TimeDelta::hours(24));
    let r = app.post(&replies(&activity), &app.a.secret, hi.clone()).await;
    r.assert_error(422, "WINDOW_CLOSED");
    assert!(r.body["error"]["message"].as_str().unwrap().contains("last wrote at"), "{}", r.body);
    assert_eq!(sends_received(&server).await, 0, "nothing reached the platform");

    // Inside our window, the platform's own refusal (131047) is the same answer.
    app.clock.advance(chrono::TimeDelta::hours(-24));
    Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .respond_with(
            ResponseTemplate::new(400)
                .set_body_json(json!({"error": {"message": "(#131047) Re-engagement message", "type": "OAuthException",
            "code": 131047, "error_data": {"messaging_product": "whatsapp", "details": "More than 24 hours have passed"}}})),
        )
        .mount(&server)
        .await;
    app.post(&replies(&activity), &app.a.secret, hi.clone()).await.assert_error(422, "WINDOW_CLOSED");
    assert_eq!(timeline(&app, &activity, 1).await.len(), 1, "a refused reply is not on the timeline");

    // Bad bodies are 400 naming the field, and nothing is sent.
    for (body, field) in [
        (json!({"type": "text", "text": {"body": ""}}), "text.body"),
        (json!({"type": "image", "image": {"link": "http://insecure.example.com/a.jpg"}}), "image.link"),
        (json!({"type": "audio", "audio": {"link": "https://x.example.com/a.ogg", "caption": "no"}}), "audio.caption"),
        (json!({"type": "image", "video": {"link": "https://x.example.com/a.mp4"}}), "image.link"),
        (json!({"type": "order"}), "type"),
        (json!({"type": "location"}), "location.latitude"),
        (json!({"text": {"body": "no type"}}), "type"),
        (json!({"type": "text", "text": {"body": "x".repeat(4097)}}), "text.body"),
        (json!({"type": "text", "text": {"body": "hi"}, "reply_to": ""}), "reply_to"),
        (json!({"type": "text", "text": {"body": "hi"}, "reply_to": "msg_unknown"}), "reply_to"),
    ] {
        let r = app.post(&replies(&activity), &app.a.secret, body.clone()).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert!(issues(&r).iter().any(|(f, _)| f == field), "{body} → {:?}", issues(&r));
    }
    let r = app.post(&replies(&activity), &app.a.secret, json!({"type": "text", "text": {"body": "hi"}, "colour": "red"})).await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(sends_received(&server).await, 1, "only the refused one reached the platform");
}

async fn a_reply_with_an_idempotency_key_is_sent_once(backend: &str) {
    let (server, app) = start(backend).await;
    let activity = ann_wrote(&app, &server).await;
    Mock::given(method("POST")).and(path(messages_path(CLOUD_PHONE))).respond_with(accepted(ANN, "wamid.once")).mount(&server).await;
    let send = |body: Value| {
        let req = actix_web::test::TestRequest::post()
            .uri(&replies(&activity))
            .insert_header(("X-API-Key", app.a.secret.as_str()))
            .insert_header(("Idempotency-Key", "reply-1"))
            .set_json(body);
        app.call(req)
    };
    let body = json!({"type": "text", "text": {"body": "On its way!"}});
    let first = send(body.clone()).await;
    first.assert_status(201);
    let again = send(body).await;
    again.assert_status(201);
    assert_eq!(again.body, first.body, "the first answer, replayed");
    send(json!({"type": "text", "text": {"body": "Something else"}})).await.assert_error(409, "CONFLICT");
    assert_eq!(sends_received(&server).await, 1);
    assert_eq!(timeline(&app, &activity, 2).await.len(), 2, "hello and one reply");
}

async fn media_is_streamed_from_the_platform(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let image = json!({"id": "wamid.img", "timestamp": now().to_string(), "type": "image",
        "image": {"mime_type": "image/jpeg", "sha256": "aGFzaA==", "id": "55501"}});
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, vec![image, text("wamid.txt", now() - 5, "look")])).await;
    let activity = activity_of(&app, ANN).await;
    let messages = timeline(&app, &activity, 2).await;
    let file_url = format!("{}/whatsapp_business/attachments/?mid=55501", server.uri());
    Mock::given(method("GET"))
        .and(path("/v23.0/55501"))
        .and(query_param("phone_number_id", CLOUD_PHONE))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"url": file_url, "mime_type": "image/jpeg", "id": "55501"})))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/whatsapp_business/attachments/"))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_raw(b"\xff\xd8\xff\xe0jpeg-bytes".to_vec(), "image/jpeg"))
        .mount(&server)
        .await;

    let media = |id: &str| format!("/v1/activities/{activity}/messages/{id}/media");
    let req = actix_web::test::TestRequest::get()
        .uri(&media(messages[0]["id"].as_str().unwrap()))
        .insert_header(("X-API-Key", app.a.secret.as_str()));
    let response = actix_web::test::call_service(&app_service(&app).await, req.to_request()).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers().get("content-type").unwrap(), "image/jpeg");
    assert_eq!(response.headers().get("x-content-type-options").unwrap(), "nosniff");
    let bytes = actix_web::test::read_body(response).await;
    assert_eq!(&bytes[..], b"\xff\xd8\xff\xe0jpeg-bytes");
    assert_eq!((app.state.metrics.media_downloads("complete"), app.state.metrics.media_downloads("cut")), (1, 0));

    // A text has no file; an unknown message none either.
    app.get(&media(messages[1]["id"].as_str().unwrap()), &app.a.secret).await.assert_error(404, "NOT_FOUND");
    app.get(&media("msg_unknown"), &app.a.secret).await.assert_error(404, "NOT_FOUND");
    // The platform no longer has it: 404.
    server.reset().await;
    Mock::given(method("GET"))
        .and(path("/v23.0/55501"))
        .respond_with(ResponseTemplate::new(404).set_body_json(json!({"error": {"message": "Unsupported get request", "code": 100}})))
        .mount(&server)
        .await;
    app.get(&media(messages[0]["id"].as_str().unwrap()), &app.a.secret).await.assert_error(404, "NOT_FOUND");
}

/// The platform's media record is someone else's text: a `mime_type` with a line break in it
/// would be a second header (the endpoint answered 500 text/plain). It is served as bytes.
async fn an_unusable_media_type_from_the_platform_is_served_as_bytes(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let image = json!({"id": "wamid.evil", "timestamp": now().to_string(), "type": "image",
        "image": {"mime_type": "image/jpeg", "sha256": "aGFzaA==", "id": "55502"}});
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, vec![image])).await;
    let activity = activity_of(&app, ANN).await;
    let messages = timeline(&app, &activity, 1).await;
    let file_url = format!("{}/whatsapp_business/attachments/?mid=55502", server.uri());
    Mock::given(method("GET"))
        .and(path("/v23.0/55502"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"url": file_url, "mime_type": "image/jpeg\r\nX-Evil: 1", "id": "55502"})),
        )
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/whatsapp_business/attachments/"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(b"\xff\xd8jpeg".to_vec(), "image/jpeg"))
        .mount(&server)
        .await;
    let req = actix_web::test::TestRequest::get()
        .uri(&format!("/v1/activities/{activity}/messages/{}/media", messages[0]["id"].as_str().unwrap()))
        .insert_header(("X-API-Key", app.a.secret.as_str()));
    let response = actix_web::test::call_service(&app_service(&app).await, req.to_request()).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers().get("content-type").unwrap(), "application/octet-stream");
    assert!(response.headers().get("x-evil").is_none());
    assert_eq!(response.headers().get("x-content-type-options").unwrap(), "nosniff");
    assert_eq!(&actix_web::test::read_body(response).await[..], b"\xff\xd8jpeg");
}

/// A message stamped 10 years ahead neither holds the 24-hour window open nor pins its
/// activity to the top: its time is the delivery's receipt (docs/messages.md).
async fn a_platform_time_years_ahead_is_the_time_the_delivery_was_received(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let received = parley_domain::ports::Clock::now(&*app.clock);
    let ten_years = received.timestamp() + 3653 * 24 * 3600;
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, vec![text("wamid.future", ten_years, "from the future")])).await;
    let activity = activity_of(&app, ANN).await;
    let messages = timeline(&app, &activity, 1).await;
    let created = chrono::DateTime::parse_from_rfc3339(messages[0]["created_at"].as_str().unwrap()).unwrap();
    assert!((created.timestamp() - received.timestamp()).abs() <= 1, "the receipt's time, not the platform's: {}", messages[0]);
    let detail = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await;
    let last = detail.data()["last_message"]["created_at"].as_str().unwrap().to_string();
    assert_eq!(last, messages[0]["created_at"].as_str().unwrap(), "{}", detail.body);

    // A day and an hour later the window is closed as usual.
    app.clock.advance(chrono::TimeDelta::hours(25));
    let r = app.post(&replies(&activity), &app.a.secret, json!({"type": "text", "text": {"body": "hi"}})).await;
    r.assert_error(422, "WINDOW_CLOSED");
    assert_eq!(sends_received(&server).await, 0, "nothing reached the platform");
}

/// The app as a service, for responses whose body is not JSON.
async fn app_service(
    app: &TestApp,
) -> impl actix_web::dev::Service<actix_http::Request, Response = actix_web::dev::ServiceResponse, Error = actix_web::Error> {
    actix_web::test::init_service(parley_api::http::app::build(app.state.clone())).await
}

async fn a_cart_link_hands_the_shopper_over_with_their_cart(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let product = |id: &str| {
        json!({"_id": id, "kind": "product", "title": "Blue mug", "currency": "EUR", "base_price": 12.5,
            "created_at": "2026-01-01T10:00:00.000Z"})
    };
    app.import_products(&app.a, vec![product("mug")]).await;
    app.import_products(&app.b, vec![product("b-mug")]).await;
    let cart = |key: &str, id: &str| {
        let (key, id) = (key.to_string(), id.to_string());
        let app = &app;
        async move {
            let r = app.post("/v1/carts", &key, json!({"items": [{"id": id, "qty": 2}]})).await;
            r.assert_status(201);
            r.data()["code"].as_str().unwrap().to_string()
        }
    };
    let older = cart(&app.a.publishable, "mug").await;
    app.tick();
    let newer = cart(&app.a.publishable, "mug").await;
    let theirs = cart(&app.b.publishable, "b-mug").await;

    let t = now() - 30;
    signed_webhook(
        &app,
        &inbound(
            CLOUD_PHONE,
            ANN,
            vec![
                text("wamid.c1", t, &format!("Hi! I'd like this cart: https://shop.example.com/c/{older}")),
                text("wamid.c2", t + 1, &format!("Or rather https://shop.example.com/c/{newer}?ref=ig.")),
                text("wamid.c3", t + 2, &format!("And my friend's https://shop.example.com/c/{theirs}")),
                text("wamid.c4", t + 3, "https://shop.example.com/c/ZZZZZZZ is not a cart"),
                text("wamid.c5", t + 4, &format!("Same again: https://shop.example.com/c/{older}")),
            ],
        ),
    )
    .await;
    let activity = activity_of(&app, ANN).await;
    let messages = timeline(&app, &activity, 5).await;
    let codes: Vec<&Value> = messages.iter().map(|m| &m["cart_code"]).collect();
    assert_eq!(codes, [&json!(older), &Value::Null, &Value::Null, &json!(newer), &json!(older)], "newest first");

    let detail = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await;
    let carts = detail.data()["carts"].as_array().unwrap();
    let listed: Vec<&str> = carts.iter().map(|c| c["code"].as_str().unwrap()).collect();
    assert_eq!(listed, [newer.as_str(), older.as_str()], "each cart once, newest cart first");
    let created = app.get(&format!("/v1/carts/{newer}"), &app.a.publishable).await;
    assert_eq!(carts[0]["created_at"], created.data()["created_at"]);
}

async fn the_timeline_pages_newest_first_and_polls_by_since(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let t = now() - 100;
    // Two messages in the same second: the id breaks the tie.
    let batch: Vec<Value> = (0..7).map(|n| text(&format!("wamid.p{n}"), t + n.min(5), &format!("message {n}"))).collect();
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, batch)).await;
    let activity = activity_of(&app, ANN).await;
    let all = timeline(&app, &activity, 7).await;
    for pair in all.windows(2) {
        let key = |m: &Value| (m["created_at"].as_str().unwrap().to_string(), m["id"].as_str().unwrap().to_string());
        assert!(key(&pair[0]) > key(&pair[1]), "newest first, then id: {pair:?}");
    }
    let r = app.get(&format!("{}?limit=3&offset=2", replies(&activity)), &app.a.secret).await;
    r.assert_status(200);
    assert_eq!(r.body["pagination"], json!({"total": 7, "limit": 3, "offset": 2, "has_more": true}));
    assert_eq!(r.data().as_array().unwrap(), &all[2..5]);
    let r = app.get(&replies(&activity), &app.a.secret).await;
    assert_eq!(r.body["pagination"]["limit"], 50, "the default page");

    // Polling: only what came or changed after `since`.
    // The latest change: messages of one delivery are stored one after another.
    let since = all.iter().map(|m| m["updated_at"].as_str().unwrap().to_string()).max().unwrap();
    app.tick();
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, vec![text("wamid.late", t - 50, "late but new")])).await;
    timeline(&app, &activity, 8).await;
    let r = app.get(&format!("{}?since={since}", replies(&activity)), &app.a.secret).await;
    let texts: Vec<&str> = r.data().as_array().unwrap().iter().map(|m| m["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["late but new"], "created long ago on the platform, stored after since");
    assert_eq!(r.body["pagination"]["total"], 1);

    for query in ["limit=0", "limit=101", "offset=-1", "since=yesterday"] {
        let r = app.get(&format!("{}?{query}", replies(&activity)), &app.a.secret).await;
        r.assert_error(400, "VALIDATION_ERROR");
    }
    app.get(&replies("act_unknown"), &app.a.secret).await.assert_error(404, "NOT_FOUND");
}

async fn messages_of_the_same_second_keep_the_order_they_were_stored_in(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    // WhatsApp's timestamps are whole seconds: a burst of messages shares one.
    let at = now() - 30;
    let sent: Vec<String> = (0..12).map(|n| format!("part {n}")).collect();
    let batch: Vec<Value> = sent.iter().enumerate().map(|(n, body)| text(&format!("wamid.same{n}"), at, body)).collect();
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, batch)).await;
    let activity = activity_of(&app, ANN).await;
    let shown: Vec<String> = timeline(&app, &activity, 12).await.iter().rev().map(|m| m["text"].as_str().unwrap().to_string()).collect();
    assert_eq!(shown, sent, "oldest first when reversed: the order they were stored in, not a random id's");
    let newest = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await;
    assert_eq!(newest.data()["last_message"]["text"], "part 11", "the last one stored is the last message");
}

/// The activity's `unread_count` on its get and on the list (which must agree).
async fn unread(app: &TestApp, activity: &str) -> Value {
    let got = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await.data()["unread_count"].clone();
    let listed = app.get("/v1/activities?limit=100", &app.a.secret).await;
    let item = listed.data().as_array().unwrap().iter().find(|a| a["id"] == activity).unwrap().clone();
    assert_eq!(item["unread_count"], got, "the list and the get agree");
    got
}

async fn reading_marks_the_newest_message_read_and_clears_the_unread_count(backend: &str) {
    let (server, app) = start(backend).await;
    let activity = ann_wrote(&app, &server).await;
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, vec![text("wamid.second", now(), "are you there?")])).await;
    timeline(&app, &activity, 2).await;
    assert_eq!(unread(&app, &activity).await, 2);
    let unread_list = |filter: &'static str| {
        let app = &app;
        async move {
            let r = app.get(&format!("/v1/activities?unread={filter}"), &app.a.secret).await;
            r.assert_status(200);
            let ids: Vec<String> = r.data().as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap().to_string()).collect();
            assert_eq!(r.body["pagination"]["total"], json!(ids.len()));
            ids
        }
    };
    assert_eq!(unread_list("true").await, [activity.as_str()], "the inbox's unread view");
    assert!(unread_list("false").await.is_empty());
    let read = |typing: bool, times: u64| {
        let mut wire = json!({"messaging_product": "whatsapp", "status": "read", "message_id": "wamid.second"});
        if typing {
            wire["typing_indicator"] = json!({"type": "text"});
        }
        Mock::given(method("POST"))
            .and(path(messages_path(CLOUD_PHONE)))
            .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
            .and(wiremock::matchers::body_json(wire))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"success": true})))
            .expect(times)
    };
    read(true, 1).mount(&server).await;
    read(false, 2).mount(&server).await;

    let before = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await.data().clone();
    app.tick();
    let r = app.post(&format!("/v1/activities/{activity}/read"), &app.a.secret, json!({"typing": true})).await;
    r.assert_status(200);
    assert_eq!(r.data()["unread_count"], 0);
    assert_eq!((&r.data()["id"], &r.data()["updated_at"]), (&before["id"], &before["updated_at"]), "the activity, not moved");
    assert_eq!(r.data()["contact_id"], before["contact_id"], "the detail, as a get answers it");
    assert_eq!(unread(&app, &activity).await, 0);
    assert!(unread_list("true").await.is_empty(), "read: out of the unread view");
    assert_eq!(unread_list("false").await, [activity.as_str()]);

    let null = app.call(
        actix_web::test::TestRequest::post()
            .uri(&format!("/v1/activities/{activity}/read"))
            .insert_header(("X-API-Key", app.a.secret.as_str()))
            .insert_header(("Content-Type", "application/json"))
            .set_payload("null"),
    );
    null.await.assert_status(200);
    // No body at all: a plain read receipt.
    let plain = app
        .call(
            actix_web::test::TestRequest::post()
                .uri(&format!("/v1/activities/{activity}/read"))
                .insert_header(("X-API-Key", app.a.secret.as_str())),
        )
        .await;
    plain.assert_status(200);

    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, vec![text("wamid.third", now(), "hello?")])).await;
    timeline(&app, &activity, 3).await;
    assert_eq!(unread(&app, &activity).await, 1, "counted again from the read");

    for (body, code) in [(json!({"typing": "yes"}), "INVALID_JSON"), (json!({"tpying": true}), "VALIDATION_ERROR")] {
        app.post(&format!("/v1/activities/{activity}/read"), &app.a.secret, body).await.assert_error(400, code);
    }
    app.post("/v1/activities/act_unknown/read", &app.a.secret, json!({})).await.assert_error(404, "NOT_FOUND");
    app.post(&format!("/v1/activities/{activity}/read"), &app.b.secret, json!({})).await.assert_error(404, "NOT_FOUND");

    // The platform down: 502, and the count stays until a read gets through.
    server.reset().await;
    Mock::given(method("POST")).and(path(messages_path(CLOUD_PHONE))).respond_with(ResponseTemplate::new(503)).mount(&server).await;
    app.post(&format!("/v1/activities/{activity}/read"), &app.a.secret, json!({})).await.assert_error(502, "UPSTREAM_ERROR");
    assert_eq!(unread(&app, &activity).await, 1);
}

async fn rich_replies_go_out_in_the_cloud_apis_shapes_and_answers_link_back(backend: &str) {
    let (server, app) = start(backend).await;
    let activity = ann_wrote(&app, &server).await;
    let hello = timeline(&app, &activity, 1).await[0]["id"].clone();
    let envelope = |kind: &str, object: Value| {
        let mut wire = json!({"messaging_product": "whatsapp", "recipient_type": "individual", "to": ANN, "type": kind});
        wire[kind] = object;
        wire
    };
    let buttons = json!({"type": "button", "header": {"type": "text", "text": "Your order"}, "body": {"text": "Shall I place it?"},
        "footer": {"text": "Summit bottle, 750 ml"},
        "action": {"buttons": [{"type": "reply", "reply": {"id": "confirm", "title": "Confirm order"}},
            {"type": "reply", "reply": {"id": "size", "title": "Change size"}}]}});
    let list = json!({"type": "list", "body": {"text": "Which size?"}, "action": {"button": "Sizes", "sections": [
        {"title": "Bottles", "rows": [{"id": "500", "title": "500 ml", "description": "Fits a cup holder"}, {"id": "750", "title": "750 ml"}]},
        {"title": "Tumblers", "rows": [{"id": "350", "title": "350 ml"}]}]}});
    let cta = json!({"type": "cta_url", "header": {"type": "image", "image": {"link": "https://cdn.example.com/p.jpg"}},
        "body": {"text": "Your cart is ready"}, "action": {"name": "cta_url",
        "parameters": {"display_text": "View cart", "url": "https://shop.example.com/c/Ab3kP9z"}}});
    let location = json!({"latitude": 19.4326, "longitude": -99.1332, "name": "Parley Shop", "address": "Av. Reforma 1, CDMX"});
    let sends = [
        ("interactive", buttons.clone(), "wamid.btn"),
        ("interactive", list.clone(), "wamid.list"),
        ("interactive", cta.clone(), "wamid.cta"),
        ("location", location.clone(), "wamid.loc"),
        ("reaction", json!({"message_id": "wamid.hello", "emoji": "👍"}), "wamid.react"),
        ("reaction", json!({"message_id": "wamid.hello", "emoji": ""}), "wamid.unreact"),
    ];
    for (kind, object, answer) in &sends {
        Mock::given(method("POST"))
            .and(path(messages_path(CLOUD_PHONE)))
            .and(reply_wire(envelope(kind, object.clone())))
            .respond_with(accepted(ANN, answer))
            .expect(1)
            .mount(&server)
            .await;
    }
    let mut stored = Vec::new();
    for (kind, object, answer) in &sends {
        let mut body = json!({"type": kind});
        body[*kind] = if *kind == "reaction" { json!({"message_id": hello, "emoji": object["emoji"]}) } else { object.clone() };
        app.tick();
        let r = app.post(&replies(&activity), &app.a.secret, body).await;
        r.assert_status(201);
        assert_eq!((&r.data()["type"], &r.data()["platform_message_id"]), (&json!(kind), &json!(answer)), "{}", r.body);
        stored.push(r.data().clone());
    }
    assert_eq!(stored[0]["content"]["interactive"], buttons, "what was sent is what the timeline keeps");
    assert_eq!(stored[0]["text"], "Shall I place it?");
    assert_eq!(stored[2]["content"]["interactive"], cta);
    assert_eq!(stored[3]["location"]["name"], "Parley Shop");
    assert_eq!((&stored[4]["reply_to"], &stored[4]["text"]), (&hello, &json!("👍")), "a reaction is linked to its message");

    // Ann taps "Confirm order": her answer is linked to the buttons it answers.
    let tap = json!({"id": "wamid.tap", "timestamp": now().to_string(), "type": "interactive",
        "context": {"from": "15550001111", "id": "wamid.btn"},
        "interactive": {"type": "button_reply", "button_reply": {"id": "confirm", "title": "Confirm order"}}});
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, vec![tap])).await;
    let answer = timeline(&app, &activity, 8).await.into_iter().find(|m| m["platform_message_id"] == "wamid.tap").unwrap();
    assert_eq!((&answer["reply_to"], &answer["text"]), (&stored[0]["id"], &json!("Confirm order")));

    // Every limit is checked before anything is sent.
    let four = json!({"type": "interactive", "interactive": {"type": "button", "body": {"text": "?"}, "action": {"buttons":
        (0..4).map(|i| json!({"type": "reply", "reply": {"id": format!("b{i}"), "title": format!("B{i}")}})).collect::<Vec<_>>()}}});
    let r = app.post(&replies(&activity), &app.a.secret, four).await;
    r.assert_error(400, "VALIDATION_ERROR");
    let fields: Vec<&str> = r.body["error"]["details"].as_array().unwrap().iter().map(|d| d["field"].as_str().unwrap()).collect();
    assert_eq!(fields, ["interactive.action.buttons", "interactive.action.buttons[3]"]);
    let unknown = json!({"type": "reaction", "reaction": {"message_id": "msg_unknown", "emoji": "👍"}});
    app.post(&replies(&activity), &app.a.secret, unknown).await.assert_error(400, "VALIDATION_ERROR");
    let mixed = json!({"type": "location", "location": location, "text": {"body": "hi"}});
    app.post(&replies(&activity), &app.a.secret, mixed).await.assert_error(400, "VALIDATION_ERROR");
    let extra = json!({"type": "interactive", "interactive": {"type": "button", "body": {"text": "?"}, "colour": "red"}});
    app.post(&replies(&activity), &app.a.secret, extra).await.assert_status(400);
    assert_eq!(sends_received(&server).await, sends.len(), "nothing else reached the platform");
}

async fn product_and_cart_messages_are_built_from_the_agents_catalog_and_carts(backend: &str) {
    let config = ApiConfig { storefront_url: Some("https://shop.example.com".into()), ..Default::default() };
    let (server, app) = start_with(backend, config).await;
    let activity = ann_wrote(&app, &server).await;
    let bottle = json!({"_id": "bottle", "kind": "product", "title": "Steel bottle", "currency": "USD", "base_price": 29,
        "media": [{"url": "https://cdn.example.com/bottle.jpg", "type": "image", "position": 0}],
        "variants": [{"id": "750", "title": "750 ml", "price": 34.5}]});
    let draft = json!({"_id": "soon", "kind": "product", "title": "Soon", "currency": "USD", "base_price": 1, "status": "draft"});
    app.import_products(&app.a, vec![bottle, draft]).await;
    let made = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": "bottle", "variant_id": "750", "qty": 2}]})).await;
    let code = made.data()["code"].as_str().unwrap().to_string();
    let envelope = |interactive: Value| json!({"messaging_product": "whatsapp", "recipient_type": "individual", "to": ANN, "type": "interactive", "interactive": interactive});
    let product_wire = json!({"type": "cta_url", "header": {"type": "image", "image": {"link": "https://cdn.example.com/bottle.jpg"}},
        "body": {"text": "Steel bottle – 750 ml\n34.5 USD"},
        "action": {"name": "cta_url", "parameters": {"display_text": "View product", "url": "https://shop.example.com/p/bottle"}}});
    let cart_wire = json!({"type": "cta_url", "body": {"text": "Your cart:\n2 × Steel bottle – 750 ml: 69 USD\nTotal: 69 USD"},
        "action": {"name": "cta_url", "parameters": {"display_text": "View cart", "url": format!("https://shop.example.com/c/{code}")}}});
    for (wire, answer) in [(product_wire, "wamid.product"), (cart_wire, "wamid.cart")] {
        Mock::given(method("POST"))
            .and(path(messages_path(CLOUD_PHONE)))
            .and(reply_wire(envelope(wire)))
            .respond_with(accepted(ANN, answer))
            .expect(1)
            .mount(&server)
            .await;
    }

    app.tick();
    let r =
        app.post(&replies(&activity), &app.a.secret, json!({"type": "product", "product": {"id": "bottle", "variant_id": "750"}})).await;
    r.assert_status(201);
    assert_eq!((&r.data()["type"], &r.data()["text"]), (&json!("product"), &json!("Steel bottle – 750 ml\n34.5 USD")));
    assert_eq!(
        r.data()["content"]["product"],
        json!({"id": "bottle", "variant_id": "750", "title": "Steel bottle – 750 ml", "price": 34.5, "currency": "USD",
            "image": "https://cdn.example.com/bottle.jpg", "url": "https://shop.example.com/p/bottle", "text": "Steel bottle – 750 ml\n34.5 USD"}),
        "the product as it was sent"
    );
    app.tick();
    let r = app.post(&replies(&activity), &app.a.secret, json!({"type": "cart", "cart": {"code": code}})).await;
    r.assert_status(201);
    let card = &r.data()["content"]["cart"];
    assert_eq!((&card["total"], &card["currency"], &card["lines"][0]["line_total"]), (&json!(69), &json!("USD"), &json!(69)));

    for (body, field) in [
        (json!({"type": "product", "product": {"id": "nope"}}), "product.id"),
        (json!({"type": "product", "product": {"id": "soon"}}), "product.id"),
        (json!({"type": "product", "product": {"id": "bottle", "variant_id": "1l"}}), "product.variant_id"),
        (json!({"type": "product", "product": {}}), "product.id"),
        (json!({"type": "cart", "cart": {"code": "Zz9kP9z"}}), "cart.code"),
    ] {
        let r = app.post(&replies(&activity), &app.a.secret, body.clone()).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(r.body["error"]["details"][0]["field"], field, "{body}");
    }
    // Another agent's cart is no cart of this agent's.
    app.import_products(&app.b, vec![json!({"_id": "b1", "kind": "product", "title": "B's", "currency": "USD", "base_price": 5})]).await;
    let theirs = app.post("/v1/carts", &app.b.publishable, json!({"items": [{"id": "b1", "qty": 1}]})).await;
    let body = json!({"type": "cart", "cart": {"code": theirs.data()["code"]}});
    let r = app.post(&replies(&activity), &app.a.secret, body).await;
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["error"]["details"][0]["field"], "cart.code");
    assert_eq!(sends_received(&server).await, 2, "nothing else reached the platform");
}

async fn template_sends_are_messages_and_move_with_their_execution(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;
    Mock::given(method("POST")).and(path(messages_path(CLOUD_PHONE))).respond_with(accepted(ANN, "wamid.tpl1")).mount(&server).await;
    let r = app.post(&send_uri("9001"), &app.a.secret, order_send(ANN, Some("spring"))).await;
    r.assert_status(200);
    let activity = activity_of(&app, ANN).await;
    let message = timeline(&app, &activity, 1).await[0].clone();
    assert_eq!((&message["type"], &message["direction"], &message["status"]), (&json!("template"), &json!("outbound"), &json!("sent")));
    assert_eq!(message["text"], r.data()["parsed_message"]);
    assert_eq!((&message["template_id"], &message["campaign_key"]), (&json!("9001"), &json!("spring")));
    assert_eq!(message["platform_message_id"], "wamid.tpl1");
    assert_eq!(message["content"]["template"]["name"], "order_update");

    // One report moves both the execution and the message.
    let at = now();
    signed_webhook(&app, &statuses_webhook(CLOUD_PHONE, CLOUD_WABA, "spring", &[("wamid.tpl1", "delivered", at)])).await;
    let uri = format!("/v1/activities/{activity}/messages/{}", message["id"].as_str().unwrap());
    let moved = poll(&app, &uri, |d| d["status"] == "delivered").await;
    assert_eq!(moved["delivered_at"], ts(at));
    let executions = app.get("/v1/campaigns/spring/executions", &app.a.secret).await;
    assert_eq!(executions.data()[0]["status"], "delivered");
    assert_eq!(executions.data()[0]["delivered_at"], ts(at));

    // A sandbox reply moves to delivered and read by itself.
    let sandbox = app.state.lines.add(&app.a.agent, "200000000000009", "300000000000009", None).await.unwrap();
    signed_webhook(&app, &inbound(sandbox.account_id(), "14155550142", vec![text("wamid.sb", now(), "hi sandbox")])).await;
    let sandbox_activity = activity_of(&app, "14155550142").await;
    timeline(&app, &sandbox_activity, 1).await;
    let r = app.post(&replies(&sandbox_activity), &app.a.secret, json!({"type": "text", "text": {"body": "Hello from the sandbox"}})).await;
    r.assert_status(201);
    assert_eq!(r.data()["line_id"], sandbox.id.as_str(), "the line the contact wrote to");
    let uri = format!("/v1/activities/{sandbox_activity}/messages/{}", r.data()["id"].as_str().unwrap());
    poll(&app, &uri, |d| d["status"] == "read").await;
}

async fn statuses_price_template_sends_and_a_campaign_sums_its_billed_messages(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;
    for n in 1..=5 {
        Mock::given(method("POST"))
            .and(path(messages_path(CLOUD_PHONE)))
            .respond_with(accepted(ANN, &format!("wamid.p{n}")))
            .up_to_n_times(1)
            .mount(&server)
            .await;
    }
    for _ in 1..=5 {
        app.post(&send_uri("9001"), &app.a.secret, order_send(ANN, Some("spring"))).await.assert_status(200);
    }
    let activity = activity_of(&app, ANN).await;
    let sent = timeline(&app, &activity, 5).await;
    assert!(sent.iter().all(|m| m["pricing"].is_null()), "null until a status prices it");
    let summary = app.get("/v1/campaigns/spring", &app.a.secret).await;
    summary.assert_status(200);
    assert_eq!(summary.data(), &json!({"campaign_key": "spring", "billable": {}}));

    let at = now();
    let status = |wamid: &str, status: &str, pricing: Value| {
        json!({"id": wamid, "status": status, "timestamp": at.to_string(), "recipient_id": ANN, "biz_opaque_callback_data": "spring",
            "pricing": pricing})
    };
    let body = json!({"object": "whatsapp_business_account", "entry": [{"id": CLOUD_WABA, "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550001111", "phone_number_id": CLOUD_PHONE},
        "statuses": [
            status("wamid.p1", "delivered", json!({"billable": true, "pricing_model": "PMP", "category": "marketing", "type": "regular"})),
            status("wamid.p2", "read", json!({"pricing_model": "PMP", "category": "marketing", "type": "regular"})),
            status("wamid.p3", "delivered", json!({"pricing_model": "PMP", "category": "utility", "type": "free_customer_service"})),
            status("wamid.p4", "delivered", json!({"pricing_model": "PMP", "category": "marketing", "type": "free_someday"})),
            status("wamid.p5", "delivered", json!({"billable": true, "pricing_model": "CBP", "category": "utility"})),
        ]
    }}]}]})
    .to_string();
    signed_webhook(&app, &body).await;
    let messages = poll(&app, &format!("/v1/activities/{activity}/messages?limit=100"), |d| {
        d.as_array().is_some_and(|a| a.iter().all(|m| m["status"] != "sent"))
    })
    .await;
    let by = |wamid: &str| messages.as_array().unwrap().iter().find(|m| m["platform_message_id"] == wamid).unwrap().clone();
    assert_eq!(by("wamid.p1")["pricing"], json!({"category": "marketing", "billable": true, "raw": null}));
    assert_eq!(
        (&by("wamid.p2")["pricing"], &by("wamid.p2")["status"]),
        (&json!({"category": "marketing", "billable": true, "raw": null}), &json!("read"))
    );
    assert_eq!(by("wamid.p3")["pricing"], json!({"category": "utility", "billable": false, "raw": null}));
    assert_eq!(
        by("wamid.p4")["pricing"],
        json!({"category": null, "billable": null, "raw": {"pricing_model": "PMP", "category": "marketing", "type": "free_someday"}}),
        "kept as the platform sent it, and its status applied all the same"
    );
    assert_eq!(by("wamid.p4")["status"], "delivered");
    assert_eq!(by("wamid.p5")["pricing"], json!({"category": "utility", "billable": true, "raw": null}));
    let one = app.get(&format!("/v1/activities/{activity}/messages/{}", by("wamid.p4")["id"].as_str().unwrap()), &app.a.secret).await;
    assert_eq!(one.data(), &by("wamid.p4"), "the message alone reads the same");

    let summary = app.get("/v1/campaigns/spring", &app.a.secret).await;
    assert_eq!(summary.data(), &json!({"campaign_key": "spring", "billable": {"marketing": 2, "utility": 1}}));

    // A later report of the same message with no pricing, or one of a shape not read, keeps
    // what was read.
    let later = json!({"object": "whatsapp_business_account", "entry": [{"id": CLOUD_WABA, "changes": [{"field": "messages", "value": {
        "metadata": {"phone_number_id": CLOUD_PHONE},
        "statuses": [{"id": "wamid.p1", "status": "read", "timestamp": (at + 5).to_string()},
                     {"id": "wamid.p3", "status": "read", "timestamp": (at + 5).to_string(), "pricing": 7}]
    }}]}]})
    .to_string();
    signed_webhook(&app, &later).await;
    let uri = format!("/v1/activities/{activity}/messages/{}", by("wamid.p3")["id"].as_str().unwrap());
    let p3 = poll(&app, &uri, |d| d["status"] == "read").await;
    assert_eq!(p3["pricing"], json!({"category": "utility", "billable": false, "raw": null}));
    let summary = app.get("/v1/campaigns/spring", &app.a.secret).await;
    assert_eq!(summary.data()["billable"], json!({"marketing": 2, "utility": 1}));

    app.get("/v1/campaigns/autumn", &app.a.secret).await.assert_error(404, "NOT_FOUND");
    app.get("/v1/campaigns/spring", &app.b.secret).await.assert_error(404, "NOT_FOUND");
    app.get("/v1/campaigns/no%20spaces", &app.a.secret).await.assert_status(400);
    assert!(app.state.inbound.failed(10).await.unwrap().is_empty());
}

async fn tenants_never_see_each_others_messages(backend: &str) {
    let (server, app) = start(backend).await;
    let activity = ann_wrote(&app, &server).await;
    let hello = timeline(&app, &activity, 1).await[0]["id"].as_str().unwrap().to_string();
    // B has a line and a conversation of its own, with a message under the same platform id.
    app.state.lines.add(&app.b.agent, B_PHONE, B_WABA, Some(TOKEN)).await.unwrap();
    signed_webhook(&app, &inbound(B_PHONE, ANN, vec![text("wamid.hello", now(), "hello B")])).await;
    let b_list = poll_as(&app, &app.b.secret, "/v1/activities").await;
    let b_activity = b_list[0]["id"].as_str().unwrap().to_string();
    let b_messages = poll_as(&app, &app.b.secret, &replies(&b_activity)).await;
    assert_eq!(b_messages[0]["text"], "hello B", "the same platform id is another message for another agent");

    for uri in [
        replies(&activity),
        format!("/v1/activities/{activity}/messages/{hello}"),
        format!("/v1/activities/{activity}/messages/{hello}/media"),
        format!("/v1/activities/{b_activity}/messages/{hello}"),
    ] {
        app.get(&uri, &app.b.secret).await.assert_error(404, "NOT_FOUND");
    }
    app.post(&replies(&activity), &app.b.secret, json!({"type": "text", "text": {"body": "hi"}})).await.assert_error(404, "NOT_FOUND");
    app.get(&replies(&activity), &app.a.publishable).await.assert_error(403, "FORBIDDEN");
    app.post(&replies(&activity), &app.a.publishable, json!({"type": "text", "text": {"body": "hi"}})).await.assert_error(403, "FORBIDDEN");
    let r: Reply = app.get(&replies(&activity), &app.a.secret).await;
    assert_eq!(r.data().as_array().unwrap().len(), 1, "A still sees only its own");
}

/// GETs `uri` with `key` until its data is a non-empty list.
async fn poll_as(app: &TestApp, key: &str, uri: &str) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = app.get(uri, key).await;
        if r.status == 200 && r.data().as_array().is_some_and(|a| !a.is_empty()) {
            return r.data().as_array().unwrap().clone();
        }
        assert!(Instant::now() < deadline, "gave up polling {uri}: {}", r.body);
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

async fn a_delivery_is_processed_before_its_answer_unless_the_instance_only_ingests(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, vec![text("wamid.now", now(), "hi")])).await;
    // Read once, no polling: the message was stored before the platform got its 200.
    let found = app.get(&format!("/v1/activities?search={ANN}"), &app.a.secret).await;
    let activity = found.data()[0]["id"].as_str().expect("the activity exists when the answer arrives").to_string();
    assert_eq!(app.get(&replies(&activity), &app.a.secret).await.data()[0]["text"], "hi");
    assert_eq!(app.state.inbound.backlog().await.unwrap(), 0, "stored processed: nothing left for the processors");

    // An ingest-only instance stores it for the processors (here, this app's own worker).
    let (server, app) = start_with(backend, ApiConfig { ingest_only: true, ..Default::default() }).await;
    cloud_line(&app, &server, vec![]).await;
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, vec![text("wamid.later", now(), "hello later")])).await;
    let activity = activity_of(&app, ANN).await;
    assert_eq!(timeline(&app, &activity, 1).await[0]["text"], "hello later");
}

async fn a_note_joins_the_timeline_is_announced_and_never_sent(backend: &str) {
    let (server, app) = start(backend).await;
    let activity = ann_wrote(&app, &server).await;
    let posts_before = sends_received(&server).await;
    let uri = format!("/v1/activities/{activity}");
    let before = app.get(&uri, &app.a.secret).await.data().clone();
    app.tick();
    let notes = format!("{uri}/notes");
    let r = app.post(&notes, &app.a.secret, json!({"text": "  VIP: offer free shipping\nif she asks  ", "author": "user_42"})).await;
    r.assert_status(201);
    let note = r.data().clone();
    let text = "VIP: offer free shipping\nif she asks";
    assert_eq!(
        (&note["type"], &note["direction"], &note["status"], &note["text"]),
        (&json!("note"), &json!("internal"), &json!("recorded"), &json!(text))
    );
    assert_eq!(note["content"], json!({"type": "note", "note": {"text": text, "author": "user_42"}}));
    assert_eq!((&note["platform_message_id"], &note["line_id"], &note["reply_to"]), (&Value::Null, &Value::Null, &Value::Null));
    assert_eq!(
        note["channel"],
        json!({"channel_type": "whatsapp", "channel_id": ANN, "user_id": null, "parent_user_id": null, "username": null}),
        "the conversation's channel"
    );

    let messages = timeline(&app, &activity, 2).await;
    assert_eq!(messages[0], note, "newest first, as it was answered");
    let after = app.get(&uri, &app.a.secret).await.data().clone();
    assert!(after["updated_at"].as_str() > before["updated_at"].as_str(), "a note moves the conversation: {after}");
    assert_eq!((&after["status"], &after["unread_count"]), (&before["status"], &before["unread_count"]), "and nothing else");
    let events = app.get("/v1/events?type=note.created", &app.a.secret).await;
    assert_eq!(events.data().as_array().unwrap().len(), 1);
    assert_eq!(events.data()[0]["data"]["object"], note, "note.created carries the note as the API shows it");
    assert_eq!(sends_received(&server).await, posts_before, "nothing went to the platform");

    // A note never reached the platform: no reply can quote it or react to it.
    let quoting =
        app.post(&replies(&activity), &app.a.secret, json!({"type": "text", "text": {"body": "hi"}, "reply_to": note["id"]})).await;
    quoting.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(sends_received(&server).await, posts_before);

    for (body, field) in [
        (json!({"text": "  "}), "text"),
        (json!({}), "text"),
        (json!({"text": "x".repeat(4097)}), "text"),
        (json!({"text": "ok", "author": ""}), "author"),
        (json!({"text": "ok", "private": true}), "private"),
    ] {
        let r = app.post(&notes, &app.a.secret, body.clone()).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(r.body["error"]["details"][0]["field"], field, "{body}: {}", r.body);
    }
    app.post("/v1/activities/act_unknown/notes", &app.a.secret, json!({"text": "x"})).await.assert_error(404, "NOT_FOUND");
    app.post(&notes, &app.b.secret, json!({"text": "x"})).await.assert_error(404, "NOT_FOUND");
    app.post(&notes, &app.a.publishable, json!({"text": "x"})).await.assert_error(403, "FORBIDDEN");
    assert_eq!(timeline(&app, &activity, 2).await.len(), 2, "refused notes leave nothing");
}

/// What is left of a person, anywhere in the store: the rows that hold any of `needles` as text
/// or as hex (files' bytes).
async fn rows_holding(app: &TestApp, needles: &[&str]) -> Vec<String> {
    let rows = app.db.store.every_row_as_text().await.unwrap();
    let hex = |s: &str| s.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    rows.into_iter()
        .filter(|row| {
            let lower = row.to_lowercase();
            needles.iter().any(|n| lower.contains(&n.to_lowercase()) || lower.contains(&hex(n)))
        })
        .collect()
}

async fn erasing_a_contact_leaves_nothing_of_them_in_any_table(backend: &str) {
    let (server, app) = start(backend).await;
    let activity = ann_wrote(&app, &server).await;
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, vec![text("wamid.secret", now(), "I live at 221B Baker Street")])).await;
    timeline(&app, &activity, 2).await;
    Mock::given(method("POST")).and(path(messages_path(CLOUD_PHONE))).respond_with(accepted(ANN, "wamid.reply1")).mount(&server).await;
    let reply = json!({"type": "text", "text": {"body": "We will ship to Baker Street"}});
    app.post(&replies(&activity), &app.a.secret, reply).await.assert_status(201);
    app.post(&format!("/v1/activities/{activity}/notes"), &app.a.secret, json!({"text": "Ann Lee pays late"})).await.assert_status(201);
    let vip = app.tag(&app.a, "VIP").await;
    app.post(&format!("/v1/activities/{activity}/tags"), &app.a.secret, json!({"tag_ids": [vip]})).await.assert_status(200);
    let contact = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await.data()["contact_id"].as_str().unwrap().to_string();
    let (_, bob) = app.conversation(&app.a, "Bob Stays", ("whatsapp", "14155550199"), ActivityStatus::Open).await;
    // Her phone, her name, what she wrote and what was written about her: all over the store now.
    // Needles long enough that a random hex key hash cannot hold one by chance ("221b" once did).
    let needles = [ANN, "Ann Lee", "221B Baker", "Baker Street", "pays late"];
    assert!(!rows_holding(&app, &needles).await.is_empty(), "the test finds what it looks for");

    let r = app.delete(&format!("/v1/contacts/{contact}"), &app.a.secret).await;
    r.assert_status(200);
    assert_eq!(r.body, json!({"data": {"id": contact, "deleted": true}}));
    let left = rows_holding(&app, &needles).await;
    assert!(left.is_empty(), "nothing of the contact survives: {left:#?}");

    app.get(&format!("/v1/contacts/{contact}"), &app.a.secret).await.assert_error(404, "NOT_FOUND");
    app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await.assert_error(404, "NOT_FOUND");
    app.get(&format!("/v1/activities/{activity}/messages"), &app.a.secret).await.assert_error(404, "NOT_FOUND");
    app.delete(&format!("/v1/contacts/{contact}"), &app.a.secret).await.assert_error(404, "NOT_FOUND");
    let listed = app.get("/v1/activities", &app.a.secret).await;
    assert_eq!((listed.data()[0]["id"].as_str(), &listed.body["pagination"]["total"]), (Some(bob.as_str()), &json!(1)));
    assert_eq!(app.get("/v1/contacts", &app.a.secret).await.body["pagination"]["total"], 1);
    let deleted = app.get("/v1/events?type=contact.deleted", &app.a.secret).await;
    assert_eq!(deleted.data()[0]["data"], json!({"object": {"id": contact, "deleted": true}}), "the id alone");
    let received = app.get("/v1/events?type=message.received", &app.a.secret).await;
    for event in received.data().as_array().unwrap() {
        assert_eq!(event["data"]["object"].as_object().unwrap().keys().collect::<Vec<_>>(), ["erased", "id"], "{event}");
    }
    // The number may write again: a new contact, a new conversation.
    signed_webhook(&app, &inbound(CLOUD_PHONE, ANN, vec![text("wamid.again", now(), "hi again")])).await;
    let again = activity_of(&app, ANN).await;
    assert_ne!(again, activity);
}
