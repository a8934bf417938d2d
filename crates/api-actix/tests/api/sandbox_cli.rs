//! `parley sandbox receive` through the real binary: a newcomer plays the contact, and the
//! message lands on the timeline through the stored-webhook path, as a real one would.

use crate::common::cli::{parley, stdout_json};
use parley_adapters_diesel::testing::TestDb;
use parley_domain::model::{ActivityId, AgentId, InteractiveReply, MessageContent, MessageId, MessageType, ReplyInput};
use parley_domain::services::MessageListQuery;
use serde_json::json;

async fn the_contact_writes_text_a_picture_and_a_location_to_the_sandbox_line(backend: &str) {
    let db = TestDb::of(backend).await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Sandbox").await.unwrap().id;
    let a = agent.as_str();

    // No sandbox line yet: a clear error, nothing stored.
    let out = parley(&db, &["sandbox", "receive", "--agent", a, "--from", "+1 415 555 0100", "--text", "hi"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("channels add --sandbox"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(state.inbound.backlog().await.unwrap(), 0);

    state.lines.add(&agent, "200000000000055", "300000000000055", None).await.unwrap();
    let text = stdout_json(&parley(
        &db,
        &["sandbox", "receive", "--agent", a, "--from", "+1 415 555 0100", "--name", "Ann Lee", "--text", "Is the blue mug in stock?"],
    ));
    let activity = ActivityId::new(text["activity_id"].as_str().expect("processed at once: an activity"));
    assert!(text["message_id"].as_str().unwrap().starts_with("msg_"), "{text}");
    stdout_json(&parley(&db, &["sandbox", "receive", "--agent", a, "--from", "14155550100", "--image", "--caption", "This one"]));
    stdout_json(&parley(&db, &["sandbox", "receive", "--agent", a, "--from", "14155550100", "--location", "38.72,-9.14"]));

    let page = state.messages.list(&agent, &activity, MessageListQuery::default()).await.unwrap();
    // The platform's times have whole seconds: messages of one second are ordered by id.
    let of = |kind: MessageType| page.items.iter().find(|m| m.message_type() == kind).unwrap_or_else(|| panic!("no {kind:?}"));
    assert_eq!(page.items.len(), 3, "one conversation");
    assert_eq!(of(MessageType::Image).text(), Some("This one"));
    assert_eq!(of(MessageType::Text).content, MessageContent::Text { body: "Is the blue mug in stock?".into() });
    let location = of(MessageType::Location).location().unwrap();
    assert_eq!((location.latitude, location.longitude), (38.72, -9.14));
    let detail = state.activities.get(&agent, &activity).await.unwrap();
    assert_eq!(detail.view.profile_name.as_str(), "Ann Lee", "later messages without --name keep it");
    assert!(detail.view.activity.last_inbound_at.is_some(), "the window is open: a reply may go out");
    // The sandbox serves its picture.
    let file = state.messages.media(&agent, &activity, &of(MessageType::Image).id, None).await.unwrap();
    assert_eq!(file.mime_type.as_str(), "image/png");

    for (args, complaint) in [
        (vec!["--from", "14155550100"], "required"),
        (vec!["--from", "call me", "--text", "x"], "--from"),
        (vec!["--from", "14155550100", "--location", "north"], "--location"),
        (vec!["--from", "14155550100", "--location", "91,0"], "--location"),
    ] {
        let mut all = vec!["sandbox", "receive", "--agent", a];
        all.extend(args.iter().copied());
        let out = parley(&db, &all);
        assert!(!out.status.success(), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(complaint), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let other = AgentId::new("agt_unknown");
    let out = parley(&db, &["sandbox", "receive", "--agent", other.as_str(), "--from", "1415", "--text", "x"]);
    assert!(!out.status.success());
}

/// The contact may write on Instagram too, named as `--name` says.
async fn the_contact_writes_on_instagram_to_the_sandbox_line(backend: &str) {
    let db = TestDb::of(backend).await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Sandbox").await.unwrap().id;
    let a = agent.as_str();
    state.lines.add(&agent, "200000000000056", "300000000000056", None).await.unwrap();
    let instagram = ["sandbox", "receive", "--agent", a, "--channel-type", "instagram", "--from", "1144000000000001", "--text", "hi"];
    let out = parley(&db, &instagram);
    assert!(!out.status.success(), "a WhatsApp sandbox line is not an Instagram one");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("channels add --type instagram --sandbox"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    state.lines.add_instagram(&agent, "17841400000000056", None).await.unwrap();
    let mut named = instagram.to_vec();
    named.extend(["--name", "Inês Duarte"]);
    let text = stdout_json(&parley(&db, &named));
    let activity = ActivityId::new(text["activity_id"].as_str().expect("processed at once: an activity"));
    let detail = state.activities.get(&agent, &activity).await.unwrap();
    assert_eq!(detail.view.profile_name.as_str(), "Inês Duarte");
    assert_eq!(detail.view.channels[0].channel_type(), parley_domain::model::ChannelType::Instagram);
    let page = state.messages.list(&agent, &activity, MessageListQuery::default()).await.unwrap();
    assert_eq!(page.items[0].content, MessageContent::Text { body: "hi".into() });
    let out = parley(
        &db,
        &["sandbox", "receive", "--agent", a, "--channel-type", "instagram", "--from", "1144000000000001", "--location", "1,1"],
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("Instagram has no shared locations"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `--cart CODE` writes the storefront link of one of the agent's carts, so the cart
/// lands on the conversation as a storefront's chat button would bring it.
async fn the_contact_brings_a_cart_from_the_storefront(backend: &str) {
    let db = TestDb::of(backend).await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Sandbox").await.unwrap().id;
    let a = agent.as_str();
    state.lines.add(&agent, "200000000000057", "300000000000057", None).await.unwrap();
    let rows = parley_api::cli::catalog_file::parse(parley_api::cli::demo_seed::DEMO_CATALOG);
    let validated = state.catalog.validate_import(&agent, rows).await.unwrap();
    state.catalog.import(&agent, validated, std::sync::Arc::new(|_, _| {})).await.unwrap();
    let item =
        parley_domain::services::NewCartItem { id: Some("prd_thermos_500".into()), variant_id: None, qty: Some(serde_json::json!(2)) };
    let cart = state.carts.create(&agent, Some(vec![item])).await.unwrap();
    let code = cart.code.as_str();

    let with_text = ["sandbox", "receive", "--agent", a, "--from", "14155550100", "--text", "Here's my cart", "--cart", code];
    let out = stdout_json(&parley(&db, &with_text));
    let activity = ActivityId::new(out["activity_id"].as_str().unwrap());
    let page = state.messages.list(&agent, &activity, MessageListQuery::default()).await.unwrap();
    assert_eq!(page.items[0].text(), Some(format!("Here's my cart https://shop.example.com/c/{code}").as_str()));
    assert_eq!(page.items[0].cart_code.as_ref().map(|c| c.as_str()), Some(code), "the cart is on the message");
    assert_eq!(state.messages.carts(&agent, &activity).await.unwrap()[0].code.as_str(), code, "and on the conversation");

    let alone = ["sandbox", "receive", "--agent", a, "--from", "14155550100", "--cart", code, "--storefront-url", "https://store.test/"];
    stdout_json(&parley(&db, &alone));
    let page = state.messages.list(&agent, &activity, MessageListQuery::default()).await.unwrap();
    assert!(page.items.iter().any(|m| m.text() == Some(format!("https://store.test/c/{code}").as_str())), "the link alone");

    let theirs = parley(&db, &["sandbox", "receive", "--agent", a, "--from", "14155550100", "--cart", "zzzzzzz"]);
    assert!(
        !theirs.status.success() && String::from_utf8_lossy(&theirs.stderr).contains("--cart"),
        "{}",
        String::from_utf8_lossy(&theirs.stderr)
    );
}

/// A WhatsApp user who hides their phone writes with `--user-id` (and `--username`) alone; the
/// same user later sharing their phone stays one contact.
async fn a_user_without_a_phone_writes_with_a_user_id(backend: &str) {
    let db = TestDb::of(backend).await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Sandbox").await.unwrap().id;
    let a = agent.as_str();
    state.lines.add(&agent, "200000000000057", "300000000000057", None).await.unwrap();
    let by_id = ["sandbox", "receive", "--agent", a, "--user-id", "BR.77", "--username", "joao", "--name", "João", "--text", "Olá"];
    let first = stdout_json(&parley(&db, &by_id));
    let activity = ActivityId::new(first["activity_id"].as_str().expect("processed at once: an activity"));
    let both = ["sandbox", "receive", "--agent", a, "--from", "5511988887777", "--user-id", "BR.77", "--text", "my number"];
    let second = stdout_json(&parley(&db, &both));
    assert_eq!(second["activity_id"], first["activity_id"], "one conversation");
    let detail = state.activities.get(&agent, &activity).await.unwrap();
    let channel = &detail.view.channels[0];
    assert_eq!((channel.channel_id(), channel.user().username.as_ref().map(|u| u.as_str())), ("5511988887777", Some("joao")));

    for (args, complaint) in [
        (vec!["--user-id", "br.77", "--text", "x"], "--user-id"),
        (vec!["--text", "x"], "--from"),
        (vec!["--channel-type", "instagram", "--from", "1144", "--user-id", "BR.1", "--text", "x"], "WhatsApp"),
    ] {
        let mut all = vec!["sandbox", "receive", "--agent", a];
        all.extend(args.iter().copied());
        let out = parley(&db, &all);
        assert!(!out.status.success(), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(complaint), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

async fn the_contact_taps_a_button_picks_a_row_and_writes_late(backend: &str) {
    let db = TestDb::of(backend).await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Sandbox").await.unwrap().id;
    let a = agent.as_str();
    state.lines.add(&agent, "200000000000058", "300000000000058", None).await.unwrap();
    let first = stdout_json(&parley(&db, &["sandbox", "receive", "--agent", a, "--from", "14155550158", "--text", "Which size?"]));
    let activity = ActivityId::new(first["activity_id"].as_str().expect("processed at once: an activity"));

    let out = parley(&db, &["sandbox", "receive", "--agent", a, "--from", "14155550158", "--tap", "Yes"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to --tap"), "{}", String::from_utf8_lossy(&out.stderr));

    let prompt = |interactive: serde_json::Value| ReplyInput {
        kind: Some("interactive".into()),
        interactive: Some(serde_json::from_value(interactive).unwrap()),
        ..Default::default()
    };
    let buttons = json!({"type": "button", "body": {"text": "Confirm the order?"},
        "action": {"buttons": [{"type": "reply", "reply": {"id": "yes", "title": "Yes"}}, {"type": "reply", "reply": {"id": "no", "title": "No"}}]}});
    let asked = state.messages.reply(&agent, &activity, prompt(buttons)).await.unwrap();
    let tapped = stdout_json(&parley(&db, &["sandbox", "receive", "--agent", a, "--from", "14155550158", "--tap", "yes"]));
    let list = json!({"type": "list", "body": {"text": "Pick a size"},
        "action": {"button": "Sizes", "sections": [{"rows": [{"id": "s", "title": "Small", "description": "250 ml"}, {"id": "l", "title": "Large"}]}]}});
    state.messages.reply(&agent, &activity, prompt(list)).await.unwrap();
    let picked = stdout_json(&parley(&db, &["sandbox", "receive", "--agent", a, "--from", "14155550158", "--tap", "s"]));
    let late = ["sandbox", "receive", "--agent", a, "--from", "14155550158", "--text", "sent yesterday", "--at", "2026-01-01T09:30:00Z"];
    let late = stdout_json(&parley(&db, &late));

    let message = |out: &serde_json::Value| {
        let id = MessageId::new(out["message_id"].as_str().expect("stored"));
        let state = &state;
        let (agent, activity) = (&agent, &activity);
        async move { state.messages.get(agent, activity, &id).await.unwrap() }
    };
    let tap = message(&tapped).await;
    assert_eq!(tap.content, MessageContent::Interactive(InteractiveReply::Button { id: "yes".into(), title: "Yes".into() }));
    assert_eq!(tap.reply_to.as_ref(), Some(&asked.id), "it answers the buttons' message");
    let row = message(&picked).await;
    assert_eq!(
        row.content,
        MessageContent::Interactive(InteractiveReply::List { id: "s".into(), title: "Small".into(), description: Some("250 ml".into()) })
    );
    assert_eq!(message(&late).await.created_at.to_rfc3339(), "2026-01-01T09:30:00+00:00", "dated as given");

    for (args, complaint) in [
        (vec!["--tap", "Medium"], "no button or row"),
        (vec!["--tap", "Yes", "--text", "x"], "cannot be used with"),
        (vec!["--text", "x", "--at", "yesterday"], "--at"),
    ] {
        let mut all = vec!["sandbox", "receive", "--agent", a, "--from", "14155550158"];
        all.extend(args.iter().copied());
        let out = parley(&db, &all);
        assert!(!out.status.success(), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(complaint), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite { $( #[tokio::test(flavor = "multi_thread", worker_threads = 2)] async fn $name() { super::$name("sqlite").await } )* }
        mod postgres { $( #[tokio::test(flavor = "multi_thread", worker_threads = 2)] async fn $name() { super::$name("postgres").await } )* }
    };
}

on_both_backends!(
    the_contact_writes_text_a_picture_and_a_location_to_the_sandbox_line,
    the_contact_writes_on_instagram_to_the_sandbox_line,
    the_contact_brings_a_cart_from_the_storefront,
    a_user_without_a_phone_writes_with_a_user_id,
    the_contact_taps_a_button_picks_a_row_and_writes_late
);
