//! The WhatsApp webhook payload: `entry[].changes[].value` with `metadata.phone_number_id`,
//! `statuses[]`, `messages[]` and `contacts[]`, read into Parley's [`LineNews`]. Parsed
//! leniently: unknown fields and kinds are ignored, because the platform adds them over time.
//! Each message's content is read by `inbound_content`.

use chrono::DateTime;
use serde::Deserialize;

use parley_domain::model::{
    ExecutionStatus, IdentityChange, InboundMessage, LineNews, PlatformUser, SetAside, SetAsideKind, StatusUpdate, Timestamp, Username,
    from_storable_json, platform_message_id_issue,
};
use parley_domain::ports::InboundDecoder;

use crate::inbound_content::content_of;
use crate::pricing::pricing_of;
use crate::template_notice::{is_template_field, notice_of};

#[derive(Deserialize)]
struct Payload {
    #[serde(default)]
    entry: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    /// The business account (template notices are about its templates).
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    changes: Vec<Change>,
}

#[derive(Deserialize)]
struct Change {
    /// What the change is about: `messages` (or absent) for a line's messages and statuses,
    /// a template field for a template notice (`template_notice`).
    #[serde(default)]
    field: Option<String>,
    value: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Value {
    metadata: Option<Metadata>,
    /// Read one by one (as messages are): a status or contact of an unexpected shape is
    /// skipped and costs the delivery's others nothing.
    #[serde(default, deserialize_with = "each_that_reads")]
    statuses: Vec<RawStatus>,
    /// Raw objects: one message of an unexpected shape must not cost the others.
    #[serde(default)]
    messages: Vec<serde_json::Value>,
    #[serde(default, deserialize_with = "each_that_reads")]
    contacts: Vec<RawContact>,
}

/// The items of a JSON array that read as `T` (anything else reads as none).
fn each_that_reads<'de, D: serde::Deserializer<'de>, T: serde::de::DeserializeOwned>(d: D) -> Result<Vec<T>, D::Error> {
    let items = match serde_json::Value::deserialize(d)? {
        serde_json::Value::Array(items) => items,
        _ => Vec::new(),
    };
    Ok(items.into_iter().filter_map(|item| T::deserialize(item).ok()).collect())
}

#[derive(Deserialize)]
struct Metadata {
    phone_number_id: String,
}

#[derive(Deserialize)]
struct RawStatus {
    id: String,
    status: String,
    timestamp: String,
    #[serde(default)]
    errors: Vec<RawError>,
    /// What the send carried as `biz_opaque_callback_data` (a reply's Parley message id).
    #[serde(default)]
    biz_opaque_callback_data: Option<String>,
    /// What the platform charges for the message: read by `pricing`, any shape kept.
    #[serde(default)]
    pricing: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct RawError {
    code: Option<i64>,
    title: Option<String>,
    message: Option<String>,
    error_data: Option<RawErrorData>,
}

#[derive(Deserialize)]
struct RawErrorData {
    details: Option<String>,
}

/// A message's sender is named by `from` (their phone) or `from_user_id` (their business-scoped
/// user id), or both: a user who hides their phone behind a username has only the user id.
#[derive(Deserialize)]
struct RawMessage {
    from: Option<String>,
    from_user_id: Option<String>,
    from_parent_user_id: Option<String>,
    id: String,
    timestamp: String,
    context: Option<RawContext>,
    referral: Option<serde_json::Value>,
}

/// A `system` message's object: the platform's notice that the user's phone number or user id
/// changed. The message names the user as they were (`from`, or `previous_user_id`); the notice
/// names them as they are (`wa_id`, once `new_wa_id`, and `user_id`, `parent_user_id`).
#[derive(Deserialize)]
struct RawSystem {
    wa_id: Option<String>,
    new_wa_id: Option<String>,
    user_id: Option<String>,
    parent_user_id: Option<String>,
    previous_user_id: Option<String>,
    previous_parent_user_id: Option<String>,
}

/// A shared contact card: the user's own when it answers the business's request for it
/// (`origin: contact_request`), its first phone then being theirs.
#[derive(Deserialize)]
struct RawCard {
    origin: Option<String>,
    #[serde(default)]
    phones: Vec<RawCardPhone>,
}

#[derive(Deserialize)]
struct RawCardPhone {
    wa_id: Option<String>,
}

/// The system notice of `raw`, when it is one.
fn system_of(raw: &serde_json::Value) -> Option<RawSystem> {
    (raw.get("type")?.as_str()? == "system").then(|| RawSystem::deserialize(raw.get("system")?).ok()).flatten()
}

/// The phone a user shared as their own answering a contact request: the first card's first
/// phone, when that card says so. A phone Parley cannot read is no change (the card is still
/// kept as the message).
fn requested_phone(raw: &serde_json::Value) -> Option<IdentityChange> {
    if raw.get("type")?.as_str()? != "contacts" {
        return None;
    }
    let card = RawCard::deserialize(raw.get("contacts")?.get(0)?).ok()?;
    if card.origin.as_deref() != Some("contact_request") {
        return None;
    }
    let phone = card.phones.into_iter().find_map(|p| p.wa_id)?;
    IdentityChange::from_platform(Some(&phone), None, None).ok()
}

#[derive(Deserialize)]
struct RawContext {
    id: Option<String>,
}

/// Who wrote: `wa_id` (their phone) or `user_id`, or both, as for the message's sender.
#[derive(Deserialize)]
struct RawContact {
    wa_id: Option<String>,
    user_id: Option<String>,
    parent_user_id: Option<String>,
    profile: Option<RawProfile>,
}

#[derive(Deserialize)]
struct RawProfile {
    name: Option<String>,
    username: Option<String>,
}

impl RawContact {
    /// Whether this entry is the sender of `m`: the same phone or the same user id.
    fn is_sender_of(&self, m: &RawMessage) -> bool {
        let same = |a: &Option<String>, b: &Option<String>| a.is_some() && a == b;
        same(&self.wa_id, &m.from) || same(&self.user_id, &m.from_user_id)
    }
}

fn unix_time(raw: &str) -> Option<Timestamp> {
    DateTime::from_timestamp(raw.trim().parse().ok()?, 0)
}

/// `errors[0]` as one line: `code title: message (details)`.
fn describe(e: &RawError) -> String {
    let mut text = String::new();
    if let Some(code) = e.code {
        text.push_str(&code.to_string());
    }
    for part in [&e.title, &e.message].into_iter().flatten() {
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(part);
    }
    if let Some(details) = e.error_data.as_ref().and_then(|d| d.details.as_ref()) {
        text.push_str(&format!(" ({details})"));
    }
    if text.is_empty() { "the platform reported a failure".into() } else { text }
}

/// One object of `messages[]` at `position`, or why it cannot be stored.
fn inbound_message(raw: &serde_json::Value, contacts: &[RawContact], position: u32) -> Result<InboundMessage, SetAside> {
    let text_of = |key: &str| raw.get(key).and_then(serde_json::Value::as_str).map(str::to_string);
    let aside = |reason: &str| SetAside {
        kind: SetAsideKind::Message,
        position,
        platform_id: text_of("id"),
        from: text_of("from").or_else(|| text_of("from_user_id")),
        reason: reason.to_string(),
    };
    let incomplete = || aside("not a message object with an id, a sender and a time");
    let m = RawMessage::deserialize(raw).map_err(|_| incomplete())?;
    if let Some(issue) = platform_message_id_issue(&m.id) {
        return Err(aside(issue));
    }
    let at = unix_time(&m.timestamp).ok_or_else(|| aside("its time is not a time in unix seconds"))?;
    let sender = contacts.iter().find(|c| c.is_sender_of(&m));
    let profile = sender.and_then(|c| c.profile.as_ref());
    let system = system_of(raw);
    // A notice names the user by their previous ids when the message does not.
    let previous = |f: fn(&RawSystem) -> Option<&str>| system.as_ref().and_then(f);
    let user_id = m.from_user_id.as_deref().or(sender.and_then(|c| c.user_id.as_deref())).or(previous(|s| s.previous_user_id.as_deref()));
    let parent_user_id = m
        .from_parent_user_id
        .as_deref()
        .or(sender.and_then(|c| c.parent_user_id.as_deref()))
        .or(previous(|s| s.previous_parent_user_id.as_deref()));
    // A username Parley cannot keep (a control character in it) is left out: a display handle
    // is not worth the message. A malformed id sets the message aside: it names the person.
    let username = profile.and_then(|p| p.username.as_deref()).filter(|name| Username::new("username", name).is_ok());
    let user = PlatformUser::from_platform(user_id, parent_user_id, username)
        .map_err(|e| aside(&format!("its sender's {} {}", e.field, e.issue)))?;
    let identity = match &system {
        Some(s) => {
            let change = IdentityChange::from_platform(
                s.wa_id.as_deref().or(s.new_wa_id.as_deref()),
                s.user_id.as_deref(),
                s.parent_user_id.as_deref(),
            )
            .map_err(|e| aside(&format!("its notice's {} {}", e.field, e.issue)))?;
            (!change.is_empty()).then_some(change)
        }
        None => requested_phone(raw),
    };
    // The phone while the platform shares it, else the user id: the contact's address.
    let from = match (m.from, &user.user_id) {
        (Some(phone), _) => phone,
        (None, Some(user_id)) => user_id.as_str().to_string(),
        (None, None) => return Err(incomplete()),
    };
    Ok(InboundMessage {
        echo: false,
        profile_name: profile.and_then(|p| p.name.clone()),
        user,
        at,
        platform_message_id: m.id,
        content: content_of(raw),
        reply_to: m.context.and_then(|c| c.id),
        referral: m.referral,
        from,
        position,
        files: Vec::new(),
        identity,
    })
}

/// Reads the Cloud API's webhook bodies.
#[derive(Debug, Clone, Copy, Default)]
pub struct WhatsappDecoder;

impl InboundDecoder for WhatsappDecoder {
    fn decode(&self, body: &str) -> Result<Vec<LineNews>, String> {
        parse_webhook(body)
    }
}

/// Parses a webhook body. `Err` only when it is not JSON of the webhook's outer shape. Every
/// string is made storable first (a NUL becomes U+FFFD, see `storable`), so what is stored is
/// the same text on every backend.
pub fn parse_webhook(body: &str) -> Result<Vec<LineNews>, String> {
    let payload: Payload = from_storable_json(body).map_err(|e| format!("not a WhatsApp webhook payload: {e}"))?;
    let mut news = Vec::new();
    let mut position = 0u32;
    let mut changes = Vec::new();
    for entry in payload.entry {
        let account = match entry.id {
            Some(serde_json::Value::String(id)) => Some(id),
            Some(serde_json::Value::Number(id)) => Some(id.to_string()),
            _ => None,
        };
        for change in entry.changes {
            let Some(raw) = change.value else { continue };
            match change.field.as_deref() {
                Some(field) if is_template_field(field) => {
                    // A notice Parley does not read, or one for no account, is ignored.
                    if let (Some(account), Some(notice)) = (&account, notice_of(field, &raw)) {
                        news.push(LineNews { account_id: account.clone(), template_notices: vec![notice], ..LineNews::default() });
                    }
                }
                _ => changes.push(Value::deserialize(raw).map_err(|e| format!("not a WhatsApp webhook payload: {e}"))?),
            }
        }
    }
    for value in changes {
        let Some(metadata) = value.metadata else { continue };
        let statuses = value
            .statuses
            .iter()
            .filter_map(|s| {
                Some(StatusUpdate {
                    message_id: s.id.clone(),
                    status: ExecutionStatus::parse(&s.status)?,
                    at: unix_time(&s.timestamp)?,
                    error: s.errors.first().map(describe),
                    callback_data: s.biz_opaque_callback_data.clone(),
                    pricing: pricing_of(s.pricing.as_ref()),
                })
            })
            .collect();
        let (mut inbound, mut set_aside) = (Vec::new(), Vec::new());
        for raw in &value.messages {
            position = position.saturating_add(1);
            match inbound_message(raw, &value.contacts, position) {
                Ok(message) => inbound.push(message),
                Err(aside) => set_aside.push(aside),
            }
        }
        news.push(LineNews { account_id: metadata.phone_number_id, statuses, inbound, set_aside, ..LineNews::default() });
    }
    Ok(news)
}

#[cfg(test)]
mod tests {
    use super::*;
    use parley_domain::model::{MessageContent, Pricing};

    const BODY: &str = r#"{"object":"whatsapp_business_account","entry":[{"id":"WABA","changes":[{"field":"messages","value":{
        "messaging_product":"whatsapp","metadata":{"display_phone_number":"15550001111","phone_number_id":"106540352242922"},
        "contacts":[{"profile":{"name":"Kerry Fisher"},"wa_id":"16315551234"}],
        "messages":[{"from":"16315551234","id":"wamid.in1","timestamp":"1767225600","type":"text","text":{"body":"hi"}}],
        "statuses":[
          {"id":"wamid.1","status":"read","timestamp":"1767225660","recipient_id":"16315551234","biz_opaque_callback_data":"spring"},
          {"id":"wamid.2","status":"failed","timestamp":"1767225670","recipient_id":"1","errors":[{"code":131026,"title":"Message undeliverable","error_data":{"details":"Receiver is incapable"}}]},
          {"id":"wamid.3","status":"deleted","timestamp":"1767225680"}
        ]}}]}]}"#;

    #[test]
    fn statuses_and_inbound_messages_are_read_with_their_platform_times() {
        let news = parse_webhook(BODY).unwrap();
        assert_eq!(news.len(), 1);
        let n = &news[0];
        assert_eq!(n.account_id, "106540352242922");
        assert_eq!(n.statuses.len(), 2, "unknown statuses are ignored");
        assert_eq!(n.statuses[0].status, ExecutionStatus::Read);
        assert_eq!(n.statuses[0].at, DateTime::from_timestamp(1_767_225_660, 0).unwrap());
        assert_eq!(n.statuses[1].error.as_deref(), Some("131026: Message undeliverable (Receiver is incapable)"));
        assert_eq!(
            n.inbound,
            [InboundMessage {
                from: "16315551234".into(),
                user: PlatformUser::default(),
                echo: false,
                profile_name: Some("Kerry Fisher".into()),
                at: DateTime::from_timestamp(1_767_225_600, 0).unwrap(),
                platform_message_id: "wamid.in1".into(),
                content: MessageContent::Text { body: "hi".into() },
                reply_to: None,
                referral: None,
                position: 1,
                files: vec![],
                identity: None,
            }]
        );
    }

    #[test]
    fn each_status_carries_its_pricing_and_one_of_another_shape_is_kept_with_its_status() {
        let body = r#"{"entry":[{"changes":[{"field":"messages","value":{"metadata":{"phone_number_id":"1"},"statuses":[
            {"id":"wamid.a","status":"sent","timestamp":"1","pricing":{"billable":true,"pricing_model":"PMP","category":"marketing","type":"regular"}},
            {"id":"wamid.b","status":"delivered","timestamp":"2","pricing":{"pricing_model":"PMP","category":"utility","type":"free_customer_service"}},
            {"id":"wamid.c","status":"read","timestamp":"3","pricing":{"pricing_model":"PMP","category":"marketing","type":"free_tomorrow"}},
            {"id":"wamid.d","status":"read","timestamp":"4","pricing":"cheap"},
            {"id":"wamid.e","status":"read","timestamp":"5"}
        ]}}]}]}"#;
        let news = parse_webhook(body).unwrap();
        let statuses = &news[0].statuses;
        assert_eq!(
            statuses.iter().map(|s| s.message_id.as_str()).collect::<Vec<_>>(),
            ["wamid.a", "wamid.b", "wamid.c", "wamid.d", "wamid.e"]
        );
        let category = |c: &str| parley_domain::model::PricingCategory::parse(c).unwrap();
        assert_eq!(statuses[0].pricing, Some(Pricing::Reported { category: category("marketing"), billable: true }));
        assert_eq!(statuses[1].pricing, Some(Pricing::Reported { category: category("utility"), billable: false }));
        assert_eq!(
            statuses[2].pricing,
            Some(Pricing::Unread { raw: serde_json::json!({"pricing_model": "PMP", "category": "marketing", "type": "free_tomorrow"}) })
        );
        assert_eq!(statuses[3].pricing, Some(Pricing::Unread { raw: serde_json::json!("cheap") }));
        assert_eq!(statuses[4].pricing, None);
    }

    #[test]
    fn template_notices_name_their_business_account_and_unread_ones_are_ignored() {
        let body = r#"{"object":"whatsapp_business_account","entry":[{"id":"102290129340398","time":1767225600,"changes":[
            {"field":"message_template_status_update","value":{"event":"APPROVED","message_template_id":9001,"message_template_name":"order_update","message_template_language":"en_US","reason":"NONE"}},
            {"field":"message_template_quality_update","value":{"previous_quality_score":"GREEN","new_quality_score":"RED","message_template_id":9001}},
            {"field":"template_category_update","value":{"message_template_id":"9002","new_category":"MARKETING","previous_category":"UTILITY"}},
            {"field":"template_category_update","value":"odd"},
            {"field":"messages","value":{"metadata":{"phone_number_id":"1"},"statuses":[{"id":"wamid.s","status":"read","timestamp":"1"}]}}
        ]}]}"#;
        let news = parse_webhook(body).unwrap();
        let notices: Vec<(&str, &parley_domain::model::TemplateNotice)> =
            news.iter().flat_map(|n| n.template_notices.iter().map(move |t| (n.account_id.as_str(), t))).collect();
        assert_eq!(notices.len(), 2);
        assert_eq!(notices[0].0, "102290129340398");
        assert_eq!(notices[0].1.change, parley_domain::model::TemplateChange::Status("APPROVED".into()));
        assert_eq!(
            (notices[1].1.template_id.as_str(), &notices[1].1.change),
            ("9002", &parley_domain::model::TemplateChange::Category("MARKETING".into()))
        );
        let lines: Vec<&LineNews> = news.iter().filter(|n| n.template_notices.is_empty()).collect();
        assert_eq!((lines.len(), lines[0].account_id.as_str(), lines[0].statuses.len()), (1, "1", 1), "the line's news as before");
    }

    #[test]
    fn only_the_outer_shape_is_required() {
        assert!(parse_webhook("not json").is_err());
        assert_eq!(
            parse_webhook(r#"{"entry":[{"changes":[{"value":{"statuses":[]}}]}]}"#).unwrap(),
            vec![],
            "no metadata, nothing to route"
        );
        assert_eq!(parse_webhook("{}").unwrap(), vec![]);
    }

    #[test]
    fn context_and_referral_are_kept_and_incomplete_messages_skipped() {
        let body = r#"{"entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"106540352242922"},
            "contacts":[{"profile":{"name":"Ann"},"wa_id":"14155550100"}],
            "messages":[
              {"from":"14155550100","id":"wamid.r1","timestamp":"1767225600","type":"text","text":{"body":"this one?"},
               "context":{"from":"15550001111","id":"wamid.out7"}},
              {"from":"14155550100","id":"wamid.ad1","timestamp":"1767225601","type":"text","text":{"body":"Saw your ad"},
               "referral":{"source_url":"https://fb.me/x","source_id":"120","source_type":"ad","headline":"Mugs","body":"20% off",
                 "media_type":"image","image_url":"https://x.test/a.jpg","ctwa_clid":"Afd"}},
              {"from":"14155550100","id":"wamid.u1","timestamp":"1767225602","type":"unsupported",
               "errors":[{"code":131051,"title":"Message type unknown"}]},
              {"id":"wamid.nofrom","timestamp":"1767225603","type":"text","text":{"body":"x"}},
              {"from":"14155550100","timestamp":"1767225604","type":"text","text":{"body":"no id"}},
              {"from":"14155550100","id":"wamid.notime","timestamp":"soon","type":"text","text":{"body":"x"}},
              "not an object"
            ]}}]}]}"#;
        let news = parse_webhook(body).unwrap();
        let inbound = &news[0].inbound;
        assert_eq!(inbound.iter().map(|m| m.platform_message_id.as_str()).collect::<Vec<_>>(), ["wamid.r1", "wamid.ad1", "wamid.u1"]);
        assert_eq!(inbound[0].reply_to.as_deref(), Some("wamid.out7"));
        assert_eq!(inbound[0].profile_name.as_deref(), Some("Ann"));
        let referral = inbound[1].referral.as_ref().unwrap();
        assert_eq!((referral["source_type"].as_str(), referral["ctwa_clid"].as_str()), (Some("ad"), Some("Afd")));
        assert_eq!(inbound[1].reply_to, None);
        let MessageContent::Unsupported { raw } = &inbound[2].content else { panic!("{:?}", inbound[2].content) };
        assert_eq!(raw["errors"][0]["code"], 131051);
        let aside: Vec<(u32, Option<&str>, &str)> =
            news[0].set_aside.iter().map(|a| (a.position, a.platform_id.as_deref(), a.reason.as_str())).collect();
        assert_eq!(
            aside,
            [
                (4, Some("wamid.nofrom"), "not a message object with an id, a sender and a time"),
                (5, None, "not a message object with an id, a sender and a time"),
                (6, Some("wamid.notime"), "its time is not a time in unix seconds"),
                (7, None, "not a message object with an id, a sender and a time"),
            ],
            "the incomplete ones are set aside with why, by their place in the delivery"
        );
    }

    #[test]
    fn a_status_or_contact_of_another_shape_costs_the_delivery_nothing() {
        let body = r#"{"entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"1"},
            "contacts":[{"profile":{"name":"No id"}},{"profile":{"name":"Ann"},"wa_id":"14155550100"}],
            "statuses":[{"status":"read"},{"id":"wamid.s","status":"read","timestamp":"1"}],
            "messages":[{"from":"14155550100","id":"wamid.1","timestamp":"1","type":"text","text":{"body":"hi"}}]}}]}]}"#;
        let news = parse_webhook(body).unwrap();
        assert_eq!(news[0].statuses.iter().map(|s| s.message_id.as_str()).collect::<Vec<_>>(), ["wamid.s"]);
        assert_eq!(news[0].inbound[0].profile_name.as_deref(), Some("Ann"));
        let not_lists = r#"{"entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"1"},"statuses":{},"contacts":7}}]}]}"#;
        assert_eq!(parse_webhook(not_lists).unwrap()[0].statuses, vec![]);
    }

    /// Hostile input: a NUL (escaped in the JSON) in any string is made storable at parse time, the
    /// same for every backend; in a message id it makes no id, and that message is set aside.
    #[test]
    fn a_nul_anywhere_becomes_the_replacement_character_and_a_nul_in_an_id_sets_its_message_aside() {
        let body = r#"{"entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"106540352242922"},
            "contacts":[{"profile":{"name":"Ann\u0000Lee"},"wa_id":"14155550100"}],
            "messages":[
              {"from":"14155550100","id":"wamid.1","timestamp":"1767225600","type":"text","text":{"body":"a\u0000b"},
               "context":{"id":"wamid.q\u0000"}},
              {"from":"14155550100","id":"wamid.\u00002","timestamp":"1767225601","type":"text","text":{"body":"x"}},
              {"from":"14155550100","id":"wamid.3","timestamp":"1767225602","type":"image","image":{"id":"9","caption":"c\u0000","filename":"f\u0000.jpg"}},
              {"from":"14155550100","id":"wamid.4","timestamp":"1767225603","type":"reaction","reaction":{"message_id":"wamid.\u00001","emoji":"\u0000"}},
              {"from":"14155550100","id":"wamid.5","timestamp":"1767225604","type":"poll","poll":{"q\u0000":"\u0000"}}
            ],
            "statuses":[{"id":"wamid.s\u0000","status":"failed","timestamp":"1767225605","errors":[{"code":1,"title":"t\u0000"}]}]
            }}]}]}"#;
        let news = parse_webhook(body).unwrap();
        let n = &news[0];
        let ids: Vec<&str> = n.inbound.iter().map(|m| m.platform_message_id.as_str()).collect();
        assert_eq!(ids, ["wamid.1", "wamid.3", "wamid.4", "wamid.5"]);
        assert_eq!(n.inbound.iter().map(|m| m.position).collect::<Vec<_>>(), [1, 3, 4, 5]);
        assert_eq!(n.inbound[0].content, MessageContent::Text { body: "a\u{FFFD}b".into() });
        assert_eq!(n.inbound[0].profile_name.as_deref(), Some("Ann\u{FFFD}Lee"));
        assert_eq!(n.inbound[0].reply_to.as_deref(), Some("wamid.q\u{FFFD}"));
        let media = n.inbound[1].content.media().unwrap();
        assert_eq!((media.caption.as_deref(), media.filename.as_deref()), (Some("c\u{FFFD}"), Some("f\u{FFFD}.jpg")));
        assert_eq!(n.inbound[2].content, MessageContent::Reaction { message_id: "wamid.\u{FFFD}1".into(), emoji: Some("\u{FFFD}".into()) });
        let MessageContent::Unsupported { raw } = &n.inbound[3].content else { panic!("{:?}", n.inbound[3].content) };
        assert_eq!(raw["poll"]["q\u{FFFD}"], "\u{FFFD}", "objects kept whole are made storable too, keys included");
        assert_eq!((n.statuses[0].message_id.as_str(), n.statuses[0].error.as_deref()), ("wamid.s\u{FFFD}", Some("1: t\u{FFFD}")));
        assert_eq!(n.set_aside.len(), 1);
        let aside = &n.set_aside[0];
        assert_eq!(
            (aside.kind, aside.position, aside.platform_id.as_deref(), aside.from.as_deref()),
            (SetAsideKind::Message, 2, Some("wamid.\u{FFFD}2"), Some("14155550100"))
        );
        assert!(aside.reason.contains("NUL"), "{}", aside.reason);
        let everything = format!("{news:?}");
        assert!(!everything.contains('\0') && !everything.contains("\\0"), "no NUL left anywhere: {everything}");
    }

    /// Meta's current payloads: a user who hides their phone behind a username arrives with
    /// `from_user_id` and `contacts[].user_id` and `profile.username`, no `from` and no `wa_id`;
    /// one who shares it with both. A malformed id sets that message aside, no other.
    #[test]
    fn users_are_read_by_their_user_id_with_or_without_a_phone() {
        let body = r#"{"entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"1"},
            "contacts":[
              {"profile":{"name":"Ana López","username":"ana.lopez"},"user_id":"MX.1502576394655843","parent_user_id":"MX.ENT.77"},
              {"profile":{"name":"Bea"},"wa_id":"5215550002","user_id":"MX.2"}],
            "messages":[
              {"from_user_id":"MX.1502576394655843","id":"wamid.1","timestamp":"1767225600","type":"text","text":{"body":"hola"}},
              {"from":"5215550002","from_user_id":"MX.2","id":"wamid.2","timestamp":"1767225601","type":"text","text":{"body":"hi"}},
              {"from_user_id":"mx.3","id":"wamid.3","timestamp":"1767225602","type":"text","text":{"body":"x"}},
              {"from_user_id":"MX.4\u0007","id":"wamid.4","timestamp":"1767225603","type":"text","text":{"body":"x"}},
              {"from_user_id":"MX.5","from_parent_user_id":"MX.5","id":"wamid.5","timestamp":"1767225604","type":"text","text":{"body":"x"}},
              {"id":"wamid.6","timestamp":"1767225605","type":"text","text":{"body":"nobody"}}
            ],
            "statuses":[{"id":"wamid.out","status":"delivered","timestamp":"1767225606","recipient_user_id":"MX.1502576394655843"}]
            }}]}]}"#;
        let news = parse_webhook(body).unwrap();
        let n = &news[0];
        let [ana, bea] = [&n.inbound[0], &n.inbound[1]];
        assert_eq!(n.inbound.len(), 2);
        assert_eq!((ana.from.as_str(), ana.profile_name.as_deref()), ("MX.1502576394655843", Some("Ana López")), "no phone: the user id");
        assert_eq!(ana.user.user_id.as_ref().map(|u| u.as_str()), Some("MX.1502576394655843"));
        assert_eq!(ana.user.parent_user_id.as_ref().map(|u| u.as_str()), Some("MX.ENT.77"));
        assert_eq!(ana.user.username.as_ref().map(|u| u.as_str()), Some("ana.lopez"));
        assert_eq!((bea.from.as_str(), bea.user.user_id.as_ref().map(|u| u.as_str())), ("5215550002", Some("MX.2")));
        let aside: Vec<(u32, Option<&str>, &str)> =
            n.set_aside.iter().map(|a| (a.position, a.from.as_deref(), a.reason.as_str())).collect();
        assert_eq!(aside.len(), 4, "{aside:?}");
        assert!(aside[0].2.starts_with("its sender's user_id must be a business-scoped user id"), "{aside:?}");
        assert_eq!((aside[0].0, aside[0].1), (3, Some("mx.3")));
        assert!(aside[1].2.starts_with("its sender's user_id"), "a control character: {aside:?}");
        assert!(aside[2].2.starts_with("its sender's parent_user_id"), "{aside:?}");
        assert_eq!(aside[3], (6, None, "not a message object with an id, a sender and a time"));
        assert_eq!(n.statuses[0].message_id, "wamid.out", "a status naming only the user id moves its message");
    }

    #[test]
    fn a_username_parley_cannot_keep_is_left_out_and_the_message_kept() {
        let body = r#"{"entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"1"},
            "contacts":[{"profile":{"name":"Ana","username":"an\u0007a"},"user_id":"MX.1"}],
            "messages":[{"from_user_id":"MX.1","id":"wamid.1","timestamp":"1767225600","type":"text","text":{"body":"hola"}}]}}]}]}"#;
        let news = parse_webhook(body).unwrap();
        assert_eq!(news[0].inbound[0].user.username, None);
        assert!(news[0].set_aside.is_empty());
    }

    #[test]
    fn identity_notices_name_the_user_as_they_were_and_as_they_are() {
        let body = r#"{"entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"1"},
            "messages":[
              {"from":"5215550001","id":"wamid.n1","timestamp":"1767225600","type":"system","system":{
                "body":"User Ana changed from 5215550001 to 5215550009","wa_id":"5215550009","type":"user_changed_number",
                "user_id":"MX.9","parent_user_id":"MX.ENT.9","previous_user_id":"MX.1","previous_parent_user_id":"MX.ENT.1"}},
              {"id":"wamid.n2","timestamp":"1767225601","type":"system","system":{
                "body":"User Bo changed","type":"user_changed_user_id","user_id":"MX.22","previous_user_id":"MX.2"}},
              {"from":"5215550003","id":"wamid.n3","timestamp":"1767225602","type":"system","system":{
                "body":"old shape","new_wa_id":"5215550033","type":"user_changed_number"}},
              {"id":"wamid.n4","timestamp":"1767225603","type":"system","system":{
                "type":"user_changed_user_id","user_id":"mx.bad","previous_user_id":"MX.4"}}
            ]}}]}]}"#;
        let news = parse_webhook(body).unwrap();
        let n = &news[0];
        assert_eq!(n.inbound.len(), 3, "{:?}", n.set_aside);
        let [changed_number, changed_id, old_shape] = [&n.inbound[0], &n.inbound[1], &n.inbound[2]];
        let id = |u: &Option<parley_domain::model::BusinessUserId>| u.as_ref().map(|u| u.as_str().to_string());
        assert_eq!((changed_number.from.as_str(), id(&changed_number.user.user_id)), ("5215550001", Some("MX.1".into())));
        let change = changed_number.identity.as_ref().unwrap();
        assert_eq!(
            (change.phone.as_deref(), id(&change.user_id), id(&change.parent_user_id)),
            (Some("5215550009"), Some("MX.9".into()), Some("MX.ENT.9".into()))
        );
        assert_eq!(
            changed_number.content,
            MessageContent::System(parley_domain::model::SystemNotice {
                kind: "user_changed_number".into(),
                body: Some("User Ana changed from 5215550001 to 5215550009".into()),
            })
        );
        assert_eq!(changed_number.content.text(), Some("User Ana changed from 5215550001 to 5215550009"));
        assert_eq!(changed_id.from, "MX.2", "no phone: named by the previous user id");
        assert_eq!(changed_id.identity.as_ref().map(|c| (c.phone.clone(), id(&c.user_id))), Some((None, Some("MX.22".into()))));
        assert_eq!(old_shape.identity.as_ref().and_then(|c| c.phone.as_deref()), Some("5215550033"), "new_wa_id, as older payloads say");
        assert_eq!(n.set_aside.len(), 1);
        assert!(n.set_aside[0].reason.starts_with("its notice's user_id must be"), "{:?}", n.set_aside);
    }

    #[test]
    fn a_card_shared_on_request_gives_its_phone_and_others_give_nothing() {
        let card = |origin: &str, wa_id: &str| {
            format!(
                r#"{{"from_user_id":"MX.1","id":"wamid.{origin}{wa_id}","timestamp":"1767225600","type":"contacts","contacts":[
                {{"name":{{"formatted_name":"Ana"}},"phones":[{{"phone":"+52 1 555 000 1","wa_id":"{wa_id}","type":"MAIN"}}],"origin":"{origin}"}}]}}"#
            )
        };
        let body = format!(
            r#"{{"entry":[{{"changes":[{{"value":{{"metadata":{{"phone_number_id":"1"}},"messages":[{},{},{}]}}}}]}}]}}"#,
            card("contact_request", "5215550001"),
            card("forwarded", "5215550002"),
            card("contact_request", "not a phone"),
        );
        let news = parse_webhook(&body).unwrap();
        let phones: Vec<Option<&str>> = news[0].inbound.iter().map(|m| m.identity.as_ref().and_then(|c| c.phone.as_deref())).collect();
        assert_eq!(phones, [Some("5215550001"), None, None]);
        assert!(news[0].inbound.iter().all(|m| m.content.message_type().as_str() == "contacts"), "each card is kept as the message");
    }
}
