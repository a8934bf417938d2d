//! The Instagram webhook reader on bodies in the shapes of Meta's Instagram Platform webhook
//! documentation: every `messaging[]` kind Parley reads, echoes, reads and deletions, and what
//! it sets aside.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use chrono::DateTime;
use parley_adapters_whatsapp::parse_instagram_webhook;
use parley_domain::model::{LineNews, Media, MessageContent, SetAsideKind};
use serde_json::{Value, json};

const ACCOUNT: &str = "17841400000000001";
const CONTACT: &str = "1144000000000001";
const AT_MS: i64 = 1_767_225_600_123;

/// A delivery for the account with these messaging items.
fn delivery(items: Vec<Value>) -> String {
    json!({"object": "instagram", "entry": [{"id": ACCOUNT, "time": AT_MS + 500, "messaging": items}]}).to_string()
}

/// An item from the contact to the account carrying `event` (`{"message": …}`, …).
fn from_contact(event: Value) -> Value {
    let mut item = json!({"sender": {"id": CONTACT}, "recipient": {"id": ACCOUNT}, "timestamp": AT_MS});
    item.as_object_mut().unwrap().extend(event.as_object().unwrap().clone());
    item
}

fn one(items: Vec<Value>) -> LineNews {
    let mut news = parse_instagram_webhook(&delivery(items)).unwrap();
    assert_eq!(news.len(), 1);
    news.remove(0)
}

fn link(url: &str) -> Media {
    Media { link: Some(url.into()), ..Media::default() }
}

#[test]
fn a_text_message_is_read_with_its_millisecond_time_and_the_account_names_the_line() {
    let news = one(vec![from_contact(json!({"message": {"mid": "aWdfZAG1", "text": "Is the mug in stock?"}}))]);
    assert_eq!(news.account_id, ACCOUNT);
    let m = &news.inbound[0];
    assert_eq!((m.from.as_str(), m.echo, m.platform_message_id.as_str()), (CONTACT, false, "aWdfZAG1"));
    assert_eq!(m.at, DateTime::from_timestamp_millis(AT_MS).unwrap());
    assert_eq!(m.content, MessageContent::Text { body: "Is the mug in stock?".into() });
    assert_eq!((m.profile_name.as_deref(), m.position), (None, 1), "the name comes from the profile look-up");
}

#[test]
fn attachments_become_one_message_each_by_link() {
    let attachments = json!([
        {"type": "image", "payload": {"url": "https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=1"}},
        {"type": "video", "payload": {"url": "https://lookaside.fbsbx.com/v"}},
        {"type": "audio", "payload": {"url": "https://lookaside.fbsbx.com/a"}},
        {"type": "file", "payload": {"url": "https://lookaside.fbsbx.com/f"}},
        {"type": "share", "payload": {"url": "https://www.instagram.com/p/C1"}},
        {"type": "ig_reel", "payload": {"url": "https://www.instagram.com/reel/R1", "title": "Our new mugs", "reel_video_id": "9"}},
        {"type": "story_mention", "payload": {"url": "https://lookaside.fbsbx.com/story"}},
        {"type": "fallback", "payload": {"url": "https://example.com", "title": "A link"}}
    ]);
    let news = one(vec![from_contact(json!({"message": {"mid": "m1", "attachments": attachments}}))]);
    let ids: Vec<&str> = news.inbound.iter().map(|m| m.platform_message_id.as_str()).collect();
    assert_eq!(ids, ["m1", "m1#2", "m1#3", "m1#4", "m1#5", "m1#6", "m1#7", "m1#8"], "the first under the platform's id");
    let contents: Vec<&MessageContent> = news.inbound.iter().map(|m| &m.content).collect();
    assert_eq!(contents[0], &MessageContent::Image(link("https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=1")));
    assert_eq!(contents[1], &MessageContent::Video(link("https://lookaside.fbsbx.com/v")));
    assert_eq!(contents[2], &MessageContent::Audio(link("https://lookaside.fbsbx.com/a")));
    assert_eq!(contents[3], &MessageContent::Document(link("https://lookaside.fbsbx.com/f")));
    assert_eq!(contents[4], &MessageContent::Share(link("https://www.instagram.com/p/C1")));
    assert_eq!(
        contents[5],
        &MessageContent::Share(Media { caption: Some("Our new mugs".into()), ..link("https://www.instagram.com/reel/R1") })
    );
    assert_eq!(contents[6], &MessageContent::StoryMention(link("https://lookaside.fbsbx.com/story")));
    assert!(matches!(contents[7], MessageContent::Unsupported { raw } if raw["type"] == "fallback"), "kept whole");
}

#[test]
fn quick_replies_replies_and_referrals_are_kept() {
    let news = one(vec![from_contact(json!({"message": {
        "mid": "m2", "text": "Red", "quick_reply": {"payload": "COLOR_RED"}, "reply_to": {"mid": "m_out_1"},
        "referral": {"product": {"id": "P1"}}
    }}))]);
    let m = &news.inbound[0];
    assert_eq!(m.content, MessageContent::Button { payload: Some("COLOR_RED".into()), text: "Red".into() });
    assert_eq!(m.reply_to.as_deref(), Some("m_out_1"));
    assert_eq!(m.referral.as_ref().unwrap()["product"]["id"], "P1");
}

#[test]
fn echoes_are_the_accounts_own_messages_to_the_contact() {
    let echo = json!({"sender": {"id": ACCOUNT}, "recipient": {"id": CONTACT}, "timestamp": AT_MS,
        "message": {"mid": "m_echo", "text": "Sent from the Instagram app", "is_echo": true}});
    let news = one(vec![echo]);
    let m = &news.inbound[0];
    assert!(m.echo);
    assert_eq!(m.from, CONTACT, "the contact is the echo's recipient");
}

#[test]
fn reactions_postbacks_reads_and_deletions_are_read() {
    let news = one(vec![
        from_contact(json!({"reaction": {"mid": "m_out_1", "action": "react", "reaction": "love", "emoji": "\u{2764}\u{fe0f}"}})),
        from_contact(json!({"reaction": {"mid": "m_out_1", "action": "unreact"}})),
        from_contact(json!({"postback": {"mid": "m_pb", "title": "Talk to a person", "payload": "HUMAN"}})),
        from_contact(json!({"read": {"mid": "m_out_1"}})),
        from_contact(json!({"message": {"mid": "m_gone", "is_deleted": true}})),
        from_contact(json!({"message": {"mid": "m_odd", "is_unsupported": true}})),
    ]);
    let reactions: Vec<&MessageContent> = news.inbound.iter().take(2).map(|m| &m.content).collect();
    assert_eq!(reactions[0], &MessageContent::Reaction { message_id: "m_out_1".into(), emoji: Some("\u{2764}\u{fe0f}".into()) });
    assert_eq!(reactions[1], &MessageContent::Reaction { message_id: "m_out_1".into(), emoji: None }, "unreact removes it");
    assert_ne!(news.inbound[0].platform_message_id, "m_out_1", "a reaction has an id of its own");
    assert_eq!(news.inbound[2].content, MessageContent::Button { payload: Some("HUMAN".into()), text: "Talk to a person".into() });
    assert_eq!(news.inbound[2].platform_message_id, "m_pb");
    assert!(matches!(&news.inbound[3].content, MessageContent::Unsupported { raw } if raw["is_unsupported"] == true));
    let at = DateTime::from_timestamp_millis(AT_MS).unwrap();
    assert_eq!(news.reads.len(), 1);
    assert_eq!((news.reads[0].contact.as_str(), news.reads[0].up_to, news.reads[0].at), (CONTACT, at, at));
    assert_eq!(news.deletions.len(), 1);
    assert_eq!((news.deletions[0].platform_message_id.as_str(), news.deletions[0].at), ("m_gone", at));
}

#[test]
fn items_of_another_shape_are_set_aside_by_position_and_cost_the_rest_nothing() {
    let news = one(vec![
        json!({"recipient": {"id": ACCOUNT}, "timestamp": AT_MS, "message": {"mid": "no_sender", "text": "x"}}),
        from_contact(json!({"message": {"mid": "", "text": "no id"}})),
        json!({"sender": {"id": CONTACT}, "recipient": {"id": ACCOUNT}, "timestamp": "soon", "message": {"mid": "m_t", "text": "x"}}),
        from_contact(json!({"message": {"mid": "m_ok", "text": "fine"}})),
        json!("not an object"),
        from_contact(json!({"message": {"mid": "m_empty"}})),
    ]);
    assert_eq!(news.inbound.iter().map(|m| m.platform_message_id.as_str()).collect::<Vec<_>>(), ["m_ok"]);
    assert_eq!(news.inbound[0].position, 4);
    let aside: Vec<(u32, Option<&str>)> = news.set_aside.iter().map(|a| (a.position, a.platform_id.as_deref())).collect();
    assert_eq!(aside, [(1, Some("no_sender")), (2, Some("")), (3, Some("m_t")), (5, None), (6, Some("m_empty"))]);
    assert!(news.set_aside.iter().all(|a| a.kind == SetAsideKind::Message));
}

#[test]
fn only_the_outer_shape_is_required_and_nuls_become_replacement_characters() {
    assert!(parse_instagram_webhook("not json").is_err());
    assert_eq!(parse_instagram_webhook("{}").unwrap(), vec![]);
    let comments = json!({"object": "instagram", "entry": [{"id": ACCOUNT, "time": 1, "changes": [{"field": "comments"}]}]});
    assert!(parse_instagram_webhook(&comments.to_string()).unwrap()[0].inbound.is_empty(), "comments are not messages");
    let news = one(vec![from_contact(json!({"message": {"mid": "m_nul", "text": "a\u{0}b"}}))]);
    assert_eq!(news.inbound[0].content, MessageContent::Text { body: "a\u{FFFD}b".into() });
}
