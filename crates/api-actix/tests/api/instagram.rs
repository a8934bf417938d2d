//! Instagram Direct end to end over HTTP, on both backends: webhook bodies in the shapes of
//! Meta's Instagram Platform documentation posted to `/webhooks/instagram` (signed as WhatsApp's
//! are), the profile look-up, replies and their exact wire bodies, the windows, media, and
//! tenant isolation, against the fake Graph API the WhatsApp tests use.

use crate::common::{Reply, TestApp};
use crate::messaging::{APP_SECRET, poll, start};
use actix_web::test::TestRequest;
use parley_domain::model::ChannelType;
use serde_json::{Value, json};
use wiremock::matchers::{body_json, header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

backend_tests!(
    messages_arrive_once_named_by_the_profile_with_their_media,
    replies_go_out_in_instagrams_shape_and_echoes_reads_reactions_postbacks_and_deletions_land,
    the_window_is_a_day_and_the_human_agent_tag_makes_it_a_week,
    deliveries_are_signed_and_tenants_never_see_each_others_instagram,
    a_sandbox_instagram_reply_is_read_by_the_sandbox_contact,
    an_echo_that_beats_its_sends_answer_is_that_reply,
    reading_an_instagram_conversation_marks_it_seen_and_shows_typing,
    prompts_and_cards_go_out_in_instagrams_shapes_and_what_it_cannot_show_is_refused,
);

const ACCOUNT: &str = "17841400000000001";
const IG_TOKEN: &str = "IGQ-test-token";
const INES: &str = "1144000000000001";

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// A delivery for `account` carrying `items`.
fn delivery(account: &str, items: Vec<Value>) -> String {
    json!({"object": "instagram", "entry": [{"id": account, "time": now_ms(), "messaging": items}]}).to_string()
}

/// An item from `contact` to the account at `at` (milliseconds) carrying `event`.
fn from(contact: &str, at: i64, event: Value) -> Value {
    let mut item = json!({"sender": {"id": contact}, "recipient": {"id": ACCOUNT}, "timestamp": at});
    item.as_object_mut().unwrap().extend(event.as_object().unwrap().clone());
    item
}

async fn post_instagram(app: &TestApp, body: &str, signature: Option<&str>) -> Reply {
    let mut req = TestRequest::post().uri("/webhooks/instagram").insert_header(("Content-Type", "application/json"));
    if let Some(sig) = signature {
        req = req.insert_header(("X-Hub-Signature-256", sig));
    }
    app.call(req.set_payload(body.to_string())).await
}

async fn signed(app: &TestApp, body: &str) {
    let sig = parley_adapters_whatsapp::webhook_auth::sign(APP_SECRET, body.as_bytes());
    post_instagram(app, body, Some(&sig)).await.assert_status(200);
}

/// Agent A's Instagram line, and the profile look-up answering Inês's name (once at most).
async fn instagram_line(app: &TestApp, server: &MockServer) {
    app.state.lines.add_instagram(&app.a.agent, ACCOUNT, Some(IG_TOKEN)).await.unwrap();
    Mock::given(method("GET"))
        .and(path(format!("/v23.0/{INES}")))
        .and(query_param("fields", "name,username"))
        .and(header("authorization", format!("Bearer {IG_TOKEN}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"name": "Inês Duarte", "username": "ines.d", "id": INES})))
        .expect(1)
        .mount(server)
        .await;
}

/// The contact's activity id, once their first message is processed.
async fn activity_of(app: &TestApp, name: &str) -> String {
    let found = poll(app, &format!("/v1/activities?search={name}"), |d| d.as_array().is_some_and(|a| !a.is_empty())).await;
    found[0]["id"].as_str().unwrap().to_string()
}

async fn timeline(app: &TestApp, activity: &str) -> Vec<Value> {
    let r = app.get(&format!("/v1/activities/{activity}/messages?limit=100"), &app.a.secret).await;
    r.assert_status(200);
    r.data().as_array().unwrap().clone()
}

fn by<'a>(messages: &'a [Value], platform_id: &str) -> &'a Value {
    messages.iter().find(|m| m["platform_message_id"] == platform_id).unwrap_or_else(|| panic!("{platform_id} in {messages:?}"))
}

fn messages_path() -> String {
    format!("/v23.0/{ACCOUNT}/messages")
}

async fn messages_arrive_once_named_by_the_profile_with_their_media(backend: &str) {
    let (server, app) = start(backend).await;
    instagram_line(&app, &server).await;
    let image_url = format!("{}/cdn/ig/photo.jpg?sig=abc", server.uri());
    Mock::given(method("GET"))
        .and(path("/cdn/ig/photo.jpg"))
        .respond_with(ResponseTemplate::new(200).insert_header("content-type", "image/jpeg").set_body_bytes(b"JPEGDATA".to_vec()))
        .expect(1)
        .mount(&server)
        .await;
    let at = now_ms();
    let body = delivery(
        ACCOUNT,
        vec![
            from(INES, at, json!({"message": {"mid": "m_hi", "text": "Olá! Is the blue mug back?"}})),
            from(INES, at + 1, json!({"message": {"mid": "m_pic", "attachments": [{"type": "image", "payload": {"url": image_url}}]}})),
            from(
                INES,
                at + 2,
                json!({"message": {"mid": "m_reel",
                "attachments": [{"type": "ig_reel", "payload": {"url": "https://www.instagram.com/reel/R1", "title": "Mugs", "reel_video_id": "9"}}]}}),
            ),
            from(
                INES,
                at + 3,
                json!({"message": {"mid": "m_story",
                "attachments": [{"type": "story_mention", "payload": {"url": "https://lookaside.fbsbx.com/story/1"}}]}}),
            ),
            from(INES, at + 4, json!({"message": {"mid": "m_qr", "text": "Blue", "quick_reply": {"payload": "COLOR_BLUE"}}})),
        ],
    );
    signed(&app, &body).await;
    signed(&app, &body).await; // the platform delivers again: nothing changes

    let activity = activity_of(&app, "Duarte").await;
    let detail = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await;
    assert_eq!(detail.data()["profile_name"], "Inês Duarte", "named by the platform's profile");
    assert_eq!(detail.data()["channels"], json!([{"channel_type": "instagram", "channel_id": INES}]));
    assert_eq!(detail.data()["status"], "open");
    let messages = timeline(&app, &activity).await;
    assert_eq!(messages.len(), 5, "each once: {messages:?}");
    let hi = by(&messages, "m_hi");
    assert_eq!((&hi["type"], &hi["text"], &hi["direction"]), (&json!("text"), &json!("Olá! Is the blue mug back?"), &json!("inbound")));
    assert_eq!(hi["channel"], json!({"channel_type": "instagram", "channel_id": INES}));
    assert_eq!(hi["created_at"], json!(chrono::DateTime::from_timestamp_millis(at).unwrap().format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()));
    let pic = by(&messages, "m_pic");
    assert_eq!((&pic["type"], &pic["media"]["link"]), (&json!("image"), &json!(image_url)));
    let reel = by(&messages, "m_reel");
    assert_eq!(
        (&reel["type"], &reel["media"]["link"], &reel["text"]),
        (&json!("share"), &json!("https://www.instagram.com/reel/R1"), &json!("Mugs"))
    );
    assert_eq!(by(&messages, "m_story")["type"], "story_mention");
    let qr = by(&messages, "m_qr");
    assert_eq!((&qr["type"], &qr["text"], &qr["content"]["button"]["payload"]), (&json!("button"), &json!("Blue"), &json!("COLOR_BLUE")));

    // The image streams through the media endpoint from the link its webhook carried.
    let req = TestRequest::get()
        .uri(&format!("/v1/activities/{activity}/messages/{}/media", pic["id"].as_str().unwrap()))
        .insert_header(("X-API-Key", app.a.secret.as_str()));
    let service = actix_web::test::init_service(parley_api::http::app::build(app.state.clone())).await;
    let response = actix_web::test::call_service(&service, req.to_request()).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers().get("content-type").unwrap(), "image/jpeg");
    assert_eq!(&actix_web::test::read_body(response).await[..], b"JPEGDATA");
    assert!(app.state.inbound.failed(10).await.unwrap().is_empty());
}

/// A reply's exact body as Instagram's API takes it.
fn reply_body(message: Value) -> Value {
    json!({"recipient": {"id": INES}, "messaging_type": "RESPONSE", "message": message})
}

async fn prompts_and_cards_go_out_in_instagrams_shapes_and_what_it_cannot_show_is_refused(backend: &str) {
    let (server, app) = start(backend).await;
    instagram_line(&app, &server).await;
    signed(&app, &delivery(ACCOUNT, vec![from(INES, now_ms(), json!({"message": {"mid": "m_hi", "text": "Hi"}}))])).await;
    let activity = activity_of(&app, "Duarte").await;
    let quick_replies = json!({"text": "Reserve them?", "quick_replies": [
        {"content_type": "text", "title": "Yes", "payload": "yes"}, {"content_type": "text", "title": "Not now", "payload": "later"}]});
    Mock::given(method("POST"))
        .and(path(messages_path()))
        .and(body_json(reply_body(quick_replies)))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"recipient_id": INES, "message_id": "m_prompt"})))
        .expect(1)
        .mount(&server)
        .await;
    let buttons = json!({"type": "interactive", "interactive": {"type": "button", "body": {"text": "Reserve them?"}, "action": {"buttons": [
        {"type": "reply", "reply": {"id": "yes", "title": "Yes"}}, {"type": "reply", "reply": {"id": "later", "title": "Not now"}}]}}});
    app.tick();
    let r = app.post(&format!("/v1/activities/{activity}/messages"), &app.a.secret, buttons).await;
    r.assert_status(201);
    assert_eq!((&r.data()["type"], &r.data()["platform_message_id"]), (&json!("interactive"), &json!("m_prompt")));

    let described = json!({"type": "interactive", "interactive": {"type": "list", "body": {"text": "Pick"}, "action": {"button": "Sizes",
        "sections": [{"rows": [{"id": "s", "title": "Small", "description": "36 to 38"}]}]}}});
    let r = app.post(&format!("/v1/activities/{activity}/messages"), &app.a.secret, described).await;
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["error"]["details"][0]["field"], "interactive.action.sections[0].rows[0].description", "{}", r.body);
    assert_eq!(timeline(&app, &activity).await.len(), 2, "the refused prompt left nothing: the greeting and the buttons");

    // A product goes out as a generic template's card (no storefront here: no button).
    app.import_products(
        &app.a,
        vec![json!({"_id": "bottle", "kind": "product", "title": "Steel bottle", "currency": "USD",
        "base_price": 29, "media": [{"url": "https://cdn.example.com/bottle.jpg", "type": "image"}]})],
    )
    .await;
    let card = json!({"attachment": {"type": "template", "payload": {"template_type": "generic", "elements": [
        {"title": "Steel bottle", "subtitle": "29 USD", "image_url": "https://cdn.example.com/bottle.jpg"}]}}});
    Mock::given(method("POST"))
        .and(path(messages_path()))
        .and(body_json(reply_body(card)))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"recipient_id": INES, "message_id": "m_card"})))
        .expect(1)
        .mount(&server)
        .await;
    app.tick();
    let r = app
        .post(&format!("/v1/activities/{activity}/messages"), &app.a.secret, json!({"type": "product", "product": {"id": "bottle"}}))
        .await;
    r.assert_status(201);
    assert_eq!((&r.data()["type"], &r.data()["platform_message_id"]), (&json!("product"), &json!("m_card")));
}

async fn replies_go_out_in_instagrams_shape_and_echoes_reads_reactions_postbacks_and_deletions_land(backend: &str) {
    let (server, app) = start(backend).await;
    instagram_line(&app, &server).await;
    signed(&app, &delivery(ACCOUNT, vec![from(INES, now_ms(), json!({"message": {"mid": "m_hi", "text": "Hi"}}))])).await;
    let activity = activity_of(&app, "Duarte").await;
    let hi = by(&timeline(&app, &activity).await, "m_hi").clone();
    Mock::given(method("POST"))
        .and(path(messages_path()))
        .and(header("authorization", format!("Bearer {IG_TOKEN}").as_str()))
        .and(body_json(reply_body(json!({"text": "Yes, it's back!", "reply_to": {"mid": "m_hi"}}))))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"recipient_id": INES, "message_id": "m_reply1"})))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(messages_path()))
        .and(body_json(reply_body(json!({"attachment": {"type": "image", "payload": {"url": "https://cdn.example.com/blue.jpg"}}}))))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"recipient_id": INES, "message_id": "m_reply2"})))
        .expect(1)
        .mount(&server)
        .await;

    app.tick();
    let r = app
        .post(
            &format!("/v1/activities/{activity}/messages"),
            &app.a.secret,
            json!({"type": "text", "text": {"body": "Yes, it's back!"}, "reply_to": hi["id"]}),
        )
        .await;
    r.assert_status(201);
    assert_eq!((&r.data()["status"], &r.data()["platform_message_id"]), (&json!("sent"), &json!("m_reply1")));
    assert_eq!(r.data()["channel"], json!({"channel_type": "instagram", "channel_id": INES}));
    app.tick();
    let r = app
        .post(
            &format!("/v1/activities/{activity}/messages"),
            &app.a.secret,
            json!({"type": "image", "image": {"link": "https://cdn.example.com/blue.jpg"}}),
        )
        .await;
    r.assert_status(201);
    let reply2 = r.data().clone();

    // Echoes: of Parley's own reply (stored once already), and of one sent from Instagram's app.
    let sent_at = now_ms() + 1000;
    let echo = |mid: &str, text: &str| json!({"sender": {"id": ACCOUNT}, "recipient": {"id": INES}, "timestamp": sent_at, "message": {"mid": mid, "text": text, "is_echo": true}});
    signed(&app, &delivery(ACCOUNT, vec![echo("m_reply1", "Yes, it's back!"), echo("m_app1", "Sent from the app")])).await;
    let messages = timeline(&app, &activity).await;
    assert_eq!(messages.len(), 4, "the reply's echo is the reply: {messages:?}");
    let app_sent = by(&messages, "m_app1");
    assert_eq!(
        (&app_sent["direction"], &app_sent["status"], &app_sent["text"]),
        (&json!("outbound"), &json!("sent"), &json!("Sent from the app"))
    );

    // The contact reads, reacts, taps a button, and deletes their first message.
    let later = sent_at + 1000;
    signed(
        &app,
        &delivery(
            ACCOUNT,
            vec![
                from(INES, later, json!({"read": {"mid": "m_app1"}})),
                from(INES, later + 1, json!({"reaction": {"mid": "m_reply2", "action": "react", "reaction": "love", "emoji": "❤️"}})),
                from(INES, later + 2, json!({"postback": {"mid": "m_pb", "title": "Buy now", "payload": "BUY"}})),
                from(INES, later + 3, json!({"message": {"mid": "m_hi", "is_deleted": true}})),
            ],
        ),
    )
    .await;
    let messages = timeline(&app, &activity).await;
    let read_at = json!(chrono::DateTime::from_timestamp_millis(later).unwrap().format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string());
    for mid in ["m_reply1", "m_reply2", "m_app1"] {
        let m = by(&messages, mid);
        assert_eq!((&m["status"], &m["read_at"]), (&json!("read"), &read_at), "{mid} read by the receipt");
    }
    let reaction = messages.iter().find(|m| m["type"] == "reaction").unwrap();
    assert_eq!((&reaction["text"], &reaction["content"]["reaction"]["message_id"]), (&json!("❤️"), &json!("m_reply2")));
    let postback = by(&messages, "m_pb");
    assert_eq!(
        (&postback["type"], &postback["text"], &postback["content"]["button"]["payload"]),
        (&json!("button"), &json!("Buy now"), &json!("BUY"))
    );
    let deleted = by(&messages, "m_hi");
    assert_eq!(deleted["text"], "Hi", "kept, content and all");
    assert_eq!(
        deleted["deleted_at"],
        json!(chrono::DateTime::from_timestamp_millis(later + 3).unwrap().format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
    );
    assert_eq!(reply2["deleted_at"], Value::Null);
    assert!(app.state.inbound.failed(10).await.unwrap().is_empty());
}

async fn the_window_is_a_day_and_the_human_agent_tag_makes_it_a_week(backend: &str) {
    let (server, app) = start(backend).await;
    instagram_line(&app, &server).await;
    let day_and_more = now_ms() - 25 * 3600 * 1000;
    signed(&app, &delivery(ACCOUNT, vec![from(INES, day_and_more, json!({"message": {"mid": "m_old", "text": "Hello?"}}))])).await;
    let activity = activity_of(&app, "Duarte").await;
    let replies = format!("/v1/activities/{activity}/messages");
    Mock::given(method("POST"))
        .and(path(messages_path()))
        .and(body_json(json!({"recipient": {"id": INES}, "messaging_type": "MESSAGE_TAG", "tag": "HUMAN_AGENT",
            "message": {"text": "Sorry for the wait!"}})))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"recipient_id": INES, "message_id": "m_late"})))
        .expect(1)
        .mount(&server)
        .await;

    let plain = app.post(&replies, &app.a.secret, json!({"type": "text", "text": {"body": "Sorry for the wait!"}})).await;
    plain.assert_error(422, "WINDOW_CLOSED");
    let tagged = json!({"type": "text", "text": {"body": "Sorry for the wait!"}, "tag": "human_agent"});
    app.post(&replies, &app.a.secret, tagged.clone()).await.assert_status(201);

    let long = json!({"type": "text", "text": {"body": "x".repeat(1001)}, "tag": "human_agent"});
    let r = app.post(&replies, &app.a.secret, long).await;
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["error"]["details"][0]["field"], "text.body");
    let sticker = json!({"type": "sticker", "sticker": {"link": "https://cdn.example.com/s.webp"}, "tag": "human_agent"});
    let r = app.post(&replies, &app.a.secret, sticker).await;
    assert_eq!((r.status, r.body["error"]["details"][0]["field"].clone()), (400, json!("type")));
    let bad_tag = json!({"type": "text", "text": {"body": "x"}, "tag": "urgent"});
    assert_eq!(app.post(&replies, &app.a.secret, bad_tag).await.body["error"]["details"][0]["field"], "tag");
    let elsewhere = json!({"type": "text", "text": {"body": "x"}, "channel": {"channel_type": "instagram", "channel_id": "999"}});
    let r = app.post(&replies, &app.a.secret, elsewhere).await;
    assert_eq!((r.status, r.body["error"]["details"][0]["field"].clone()), (400, json!("channel")), "not one of the contact's channels");

    // Past a week not even the tag opens it.
    let week_ago = now_ms() - 8 * 24 * 3600 * 1000;
    app.state.lines.add_instagram(&app.a.agent, "17841400000000002", None).await.unwrap();
    let old = delivery("17841400000000002", vec![from("1144000000000002", week_ago, json!({"message": {"mid": "m_week", "text": "hi"}}))]);
    signed(&app, &old).await;
    let other = activity_of(&app, "1144000000000002").await;
    app.post(&format!("/v1/activities/{other}/messages"), &app.a.secret, tagged).await.assert_error(422, "WINDOW_CLOSED");
    assert_eq!(server.received_requests().await.unwrap().iter().filter(|r| r.method.as_str() == "POST").count(), 1, "one send in all");
}

async fn deliveries_are_signed_and_tenants_never_see_each_others_instagram(backend: &str) {
    let (server, app) = start(backend).await;
    instagram_line(&app, &server).await;
    let body = delivery(ACCOUNT, vec![from(INES, now_ms(), json!({"message": {"mid": "m_1", "text": "Hi"}}))]);
    post_instagram(&app, &body, None).await.assert_error(401, "UNAUTHORIZED");
    post_instagram(&app, &body, Some("sha256=00")).await.assert_error(401, "UNAUTHORIZED");
    assert_eq!(app.state.inbound.backlog().await.unwrap(), 0, "nothing stored");
    let challenge =
        app.call(TestRequest::get().uri("/webhooks/instagram?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=42")).await;
    challenge.assert_status(200);
    assert_eq!(challenge.body, json!(42), "the challenge echoed");

    signed(&app, &body).await;
    let activity = activity_of(&app, "Duarte").await;
    let theirs = app.get(&format!("/v1/activities/{activity}"), &app.b.secret).await;
    theirs.assert_error(404, "NOT_FOUND");
    let listed = app.get("/v1/activities", &app.b.secret).await;
    assert_eq!(listed.data(), &json!([]), "B sees nothing of A's Instagram");
    // A delivery for an account no tenant has is ignored.
    signed(&app, &delivery("17841499999999999", vec![from("1144000000000009", now_ms(), json!({"message": {"mid": "m_x", "text": "?"}}))]))
        .await;
    assert_eq!(app.get("/v1/activities", &app.a.secret).await.data().as_array().unwrap().len(), 1);
    // The WhatsApp route never reads an Instagram body as its own.
    let lines = app.state.lines.list(&app.a.agent).await.unwrap();
    assert_eq!(lines.iter().map(|l| l.channel_type()).collect::<Vec<_>>(), [ChannelType::Instagram]);
}

async fn a_sandbox_instagram_reply_is_read_by_the_sandbox_contact(backend: &str) {
    let (_server, app) = start(backend).await;
    app.state.lines.add_instagram(&app.a.agent, ACCOUNT, None).await.unwrap();
    signed(&app, &delivery(ACCOUNT, vec![from(INES, now_ms(), json!({"message": {"mid": "m_hi", "text": "Hi"}}))])).await;
    let activity = activity_of(&app, INES).await;
    let r =
        app.post(&format!("/v1/activities/{activity}/messages"), &app.a.secret, json!({"type": "text", "text": {"body": "Hello!"}})).await;
    r.assert_status(201);
    assert_eq!(r.data()["status"], "sent");
    let id = r.data()["id"].as_str().unwrap().to_string();
    let read = poll(&app, &format!("/v1/activities/{activity}/messages"), |d| {
        d.as_array().is_some_and(|a| a.iter().any(|m| m["id"] == id.as_str() && m["status"] == "read"))
    })
    .await;
    assert!(read.as_array().unwrap().iter().any(|m| m["id"] == id.as_str() && m["read_at"].is_string()), "read by the receipt");
}

/// Instagram may deliver a reply's echo before it answers the send: the echo names the reply
/// being sent (same line, same content), which takes its id; no second message appears.
async fn an_echo_that_beats_its_sends_answer_is_that_reply(backend: &str) {
    let (server, app) = start(backend).await;
    instagram_line(&app, &server).await;
    signed(&app, &delivery(ACCOUNT, vec![from(INES, now_ms(), json!({"message": {"mid": "m_hi", "text": "Hi"}}))])).await;
    let activity = activity_of(&app, "Duarte").await;
    Mock::given(method("POST"))
        .and(path(messages_path()))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"recipient_id": INES, "message_id": "m_race"}))
                .set_delay(std::time::Duration::from_millis(400)),
        )
        .expect(1)
        .mount(&server)
        .await;
    let replies = format!("/v1/activities/{activity}/messages");
    let reply = app.post(&replies, &app.a.secret, json!({"type": "text", "text": {"body": "On its way"}}));
    let echo = async {
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
        let item = json!({"sender": {"id": ACCOUNT}, "recipient": {"id": INES}, "timestamp": now_ms(),
            "message": {"mid": "m_race", "text": "On its way", "is_echo": true}});
        signed(&app, &delivery(ACCOUNT, vec![item])).await;
    };
    let (r, ()) = futures_util::join!(reply, echo);
    r.assert_status(201);
    assert_eq!((&r.data()["status"], &r.data()["platform_message_id"]), (&json!("sent"), &json!("m_race")));
    let messages = timeline(&app, &activity).await;
    assert_eq!(messages.len(), 2, "the echo is the reply: {messages:?}");
    assert_eq!(by(&messages, "m_race")["id"], r.data()["id"]);
}

async fn reading_an_instagram_conversation_marks_it_seen_and_shows_typing(backend: &str) {
    let (server, app) = start(backend).await;
    instagram_line(&app, &server).await;
    signed(&app, &delivery(ACCOUNT, vec![from(INES, now_ms(), json!({"message": {"mid": "m.1", "text": "olá"}}))])).await;
    let activity = activity_of(&app, "Duarte").await;
    for action in ["mark_seen", "typing_on"] {
        Mock::given(method("POST"))
            .and(path(messages_path()))
            .and(header("authorization", format!("Bearer {IG_TOKEN}").as_str()))
            .and(body_json(json!({"recipient": {"id": INES}, "sender_action": action})))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"recipient_id": INES})))
            .expect(1)
            .mount(&server)
            .await;
    }
    let r = app.post(&format!("/v1/activities/{activity}/read"), &app.a.secret, json!({"typing": true})).await;
    r.assert_status(200);
    assert_eq!(r.data()["unread_count"], 0);
}
