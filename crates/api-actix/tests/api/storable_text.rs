//! A NUL (`\u0000`) in one message of a signed WhatsApp delivery, which
//! PostgreSQL's `text` cannot hold, costs no other message and leaves nothing retrying, on both
//! backends with the same stored text (U+FFFD where the NUL was); a message whose platform id
//! is unusable is set aside with its reason, listed for the operator, and tried again by a retry.

use crate::common::TestApp;
use crate::messaging::{CLOUD_PHONE, CLOUD_WABA, cloud_line, poll, signed_webhook, start};
use parley_domain::model::SetAsideKind;
use serde_json::{Value, json};

backend_tests!(a_nul_in_one_message_costs_no_other_message);

/// A delivery from `from` (profile `name`) of `messages` (objects without `from`).
fn delivery(from: &str, name: &str, messages: Vec<Value>, statuses: Vec<Value>) -> String {
    let messages: Vec<Value> = messages
        .into_iter()
        .map(|mut m| {
            m["from"] = json!(from);
            m
        })
        .collect();
    json!({"object": "whatsapp_business_account", "entry": [{"id": CLOUD_WABA, "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550001111", "phone_number_id": CLOUD_PHONE},
        "contacts": [{"profile": {"name": name}, "wa_id": from}],
        "messages": messages,
        "statuses": statuses
    }}]}]})
    .to_string()
}

fn text(wamid: &str, at: i64, body: &str) -> Value {
    json!({"id": wamid, "timestamp": at.to_string(), "type": "text", "text": {"body": body}})
}

/// The contact's timeline, newest first, once it holds `count` messages.
async fn timeline(app: &TestApp, digits: &str, count: usize) -> Vec<Value> {
    let found = poll(app, &format!("/v1/activities?search={digits}"), |d| d.as_array().is_some_and(|a| !a.is_empty())).await;
    let activity = found[0]["id"].as_str().unwrap().to_string();
    let uri = format!("/v1/activities/{activity}/messages?limit=100");
    poll(app, &uri, |d| d.as_array().is_some_and(|a| a.len() >= count)).await.as_array().unwrap().clone()
}

fn by<'a>(timeline: &'a [Value], wamid: &str) -> &'a Value {
    timeline.iter().find(|m| m["platform_message_id"] == wamid).unwrap_or_else(|| panic!("{wamid} not on {timeline:#?}"))
}

async fn a_nul_in_one_message_costs_no_other_message(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let t = chrono::Utc::now().timestamp() - 60;

    // The probe's case: the middle message's text holds a NUL; the sender's name too.
    let ann = "14155550101";
    signed_webhook(
        &app,
        &delivery(
            ann,
            "Ann\u{0}Lee",
            vec![text("wamid.t1", t, "one"), text("wamid.t2", t + 1, "bad\u{0}byte"), text("wamid.t3", t + 2, "three")],
            vec![],
        ),
    )
    .await;
    let messages = timeline(&app, ann, 3).await;
    assert_eq!(messages.len(), 3, "{messages:#?}");
    assert_eq!(by(&messages, "wamid.t1")["text"], "one");
    assert_eq!(by(&messages, "wamid.t2")["text"], "bad\u{FFFD}byte", "the NUL replaced, the same on both backends");
    assert_eq!(by(&messages, "wamid.t2")["content"]["text"]["body"], "bad\u{FFFD}byte");
    assert_eq!(by(&messages, "wamid.t3")["text"], "three");
    let activity = by(&messages, "wamid.t1")["activity_id"].as_str().unwrap().to_string();
    let contact = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await.data()["contact_id"].as_str().unwrap().to_string();
    let contact = app.get(&format!("/v1/contacts/{contact}"), &app.a.secret).await;
    assert_eq!(contact.data()["profile_name"], "Ann\u{FFFD}Lee", "names are made storable the same way");

    // A NUL in a caption, in a reaction's emoji and in the id it reacts to.
    let bo = "14155550102";
    let caption = json!({"id": "wamid.c2", "timestamp": (t + 1).to_string(), "type": "image",
        "image": {"caption": "this\u{0}one", "mime_type": "image/jpeg", "sha256": "aGFzaA==", "id": "1013"}});
    let reaction = json!({"id": "wamid.c3", "timestamp": (t + 2).to_string(), "type": "reaction",
        "reaction": {"message_id": "wamid.c\u{0}1", "emoji": "\u{0}"}});
    signed_webhook(
        &app,
        &delivery(bo, "Bo", vec![text("wamid.c1", t, "first"), caption, reaction, text("wamid.c4", t + 3, "last")], vec![]),
    )
    .await;
    let messages = timeline(&app, bo, 4).await;
    assert_eq!(messages.len(), 4, "{messages:#?}");
    assert_eq!(by(&messages, "wamid.c2")["text"], "this\u{FFFD}one");
    let reacted = by(&messages, "wamid.c3");
    assert_eq!(reacted["text"], "\u{FFFD}");
    assert_eq!(reacted["content"]["reaction"]["message_id"], "wamid.c\u{FFFD}1");
    assert_eq!(by(&messages, "wamid.c4")["text"], "last");

    // A NUL in a message id: not an id; that message is set aside, the others are stored, and a
    // status naming an id with a NUL changes nothing and fails nothing.
    let cy = "14155550103";
    let bad_id = delivery(
        cy,
        "Cy",
        vec![text("wamid.i1", t, "before"), text("wamid.i\u{0}2", t + 1, "lost id"), text("wamid.i3", t + 2, "after")],
        vec![json!({"id": "wamid.s\u{0}1", "status": "read", "timestamp": t.to_string(), "recipient_id": cy})],
    );
    signed_webhook(&app, &bad_id).await;
    let messages = timeline(&app, cy, 2).await;
    let wamids: Vec<&str> = messages.iter().map(|m| m["platform_message_id"].as_str().unwrap()).collect();
    assert_eq!(wamids, ["wamid.i3", "wamid.i1"]);

    // Nothing is left retrying or given up; the message without an id is listed, with why.
    assert_eq!(app.state.inbound.backlog().await.unwrap(), 0, "no delivery left to retry");
    assert_eq!(app.state.inbound.given_up().await.unwrap(), 0);
    let failed = app.state.inbound.failed(10).await.unwrap();
    assert_eq!(failed.len(), 1, "only the delivery with a part set aside: {failed:#?}");
    let delivery = &failed[0].event;
    assert!(delivery.processed_at.is_some() && delivery.failed_at.is_none() && delivery.next_attempt_at.is_none(), "{delivery:?}");
    let aside = &delivery.set_aside;
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(
        (aside[0].kind, aside[0].position, aside[0].platform_id.as_deref(), aside[0].from.as_deref()),
        (SetAsideKind::Message, 2, Some("wamid.i\u{FFFD}2"), Some(cy))
    );
    assert!(aside[0].reason.contains("NUL"), "{}", aside[0].reason);

    // A retry tries it again (and it is set aside again); what was stored is stored once.
    app.state.inbound.retry(&delivery.id).await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let again = app.state.inbound.failed(10).await.unwrap();
        if again[0].event.processed_at.is_some() {
            assert_eq!(again[0].event.set_aside, *aside);
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the retried delivery was not processed: {again:#?}");
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(timeline(&app, cy, 2).await.len(), 2, "stored once");
    assert_eq!(timeline(&app, ann, 3).await.len(), 3);
}
