//! The contract of [`MessageRepository`](crate::ports::MessageRepository): an activity's
//! timeline, its idempotent insert, and what the insert keeps on the activity (`updated_at`
//! with the lists that follow it, `last_message`).

use chrono::TimeDelta;
use serde_json::json;

use super::{activity, agent, contact, conversation, id, list_ids, page, phone, t, tag};
use crate::StoreError;
use crate::model::*;
use crate::ports::Repositories;

/// An inbound text of `activity` with every optional field unset.
pub(crate) fn message(agent: &AgentId, activity: &ActivityId, body: &str, created: Timestamp) -> Message {
    Message {
        id: MessageId::new(id("msg")),
        agent_id: agent.clone(),
        activity_id: activity.clone(),
        direction: MessageDirection::Inbound,
        content: MessageContent::Text { body: body.into() },
        reply_to: None,
        platform_message_id: None,
        channel: phone("5215550001"),
        line_id: None,
        status: MessageStatus::Received,
        error_message: None,
        template_id: None,
        campaign_key: None,
        cart_code: None,
        referral: None,
        pricing: None,
        created_at: created,
        sent_at: None,
        send_at: None,
        delivered_at: None,
        read_at: None,
        deleted_at: None,
        updated_at: created,
    }
}

/// An outbound message with every optional field set, times with milliseconds.
pub(crate) fn full(agent: &AgentId, activity: &ActivityId, content: MessageContent, created: Timestamp) -> Message {
    let ms = |n: i64| created + TimeDelta::milliseconds(n);
    Message {
        direction: MessageDirection::Outbound,
        content,
        reply_to: Some(MessageId::new("msg_replied")),
        platform_message_id: Some(format!("pm.{}", id("full"))),
        line_id: Some(LineId::new("chn_1")),
        status: MessageStatus::Failed,
        error_message: Some("131026: Message undeliverable (the \"number\" is unknown)".into()),
        template_id: Some(TemplateId::new("1234567890")),
        campaign_key: Some(CampaignKey::new("spring:2026-v1").unwrap()),
        cart_code: Some(CartCode::parse("Ab3kP9z").unwrap()),
        referral: Some(json!({"source_type": "ad", "source_url": "https://fb.me/x", "headline": "Sale ☕", "ctwa_clid": "ARAk"})),
        pricing: Some(priced("marketing", true)),
        sent_at: Some(ms(101)),
        send_at: Some(ms(99)),
        delivered_at: Some(ms(202)),
        read_at: Some(ms(303)),
        deleted_at: None,
        updated_at: ms(404),
        ..message(agent, activity, "", ms(7))
    }
}

/// A pricing the platform reported and Parley read.
pub(crate) fn priced(category: &str, billable: bool) -> Pricing {
    Pricing::Reported { category: PricingCategory::parse(category).unwrap(), billable }
}

/// An outbound message sent through the platform as `platform_id`.
fn sent(agent: &AgentId, activity: &ActivityId, platform_id: &str, created: Timestamp) -> Message {
    Message {
        direction: MessageDirection::Outbound,
        platform_message_id: Some(platform_id.into()),
        status: MessageStatus::Sent,
        sent_at: Some(created),
        send_at: None,
        ..message(agent, activity, "sent", created)
    }
}

/// One content of each shape the JSON column must carry: media with every field, coordinates,
/// order lines with prices, Parley's template sends, and raw JSON kept whole.
pub(crate) fn contents() -> Vec<MessageContent> {
    let media = Media {
        id: Some("1013".into()),
        link: None,
        mime_type: Some("image/jpeg".into()),
        sha256: Some("abc=".into()),
        caption: Some("our \"mug\"\nnew".into()),
        filename: None,
    };
    vec![
        MessageContent::Text { body: "hi\nthere ☕ \"quoted\"".into() },
        MessageContent::Image(media),
        MessageContent::Document(Media { link: Some("https://cdn.test/a.pdf".into()), filename: Some("a.pdf".into()), ..Media::default() }),
        MessageContent::Audio(Media::default()),
        MessageContent::Share(Media {
            link: Some("https://www.instagram.com/reel/R1".into()),
            caption: Some("Mugs".into()),
            ..Media::default()
        }),
        MessageContent::StoryMention(Media { link: Some("https://lookaside.fbsbx.com/s".into()), ..Media::default() }),
        MessageContent::Location(Location { latitude: 38.7223, longitude: -9.1393, name: Some("Shop".into()), address: None }),
        MessageContent::Order(Order {
            catalog_id: "cat_1".into(),
            text: Some("asap".into()),
            items: vec![
                OrderItem { product_retailer_id: "sku-1".into(), quantity: 2, item_price: 9.5, currency: "EUR".into() },
                OrderItem { product_retailer_id: "sku-2".into(), quantity: 1, item_price: 0.1, currency: "EUR".into() },
            ],
        }),
        MessageContent::Template { name: "hello".into(), language: "en_US".into(), parsed_message: "Hello Ann".into() },
        MessageContent::FlowReply(
            FlowReply::parse(
                r#"{"flow_token":"t-1","screen_0_Size_0":"0_Large","n":[1,2.5,null]}"#,
                Some("Sent".into()),
                Some("flow".into()),
            )
            .unwrap(),
        ),
        MessageContent::Email(EmailContent {
            subject: Some("Pedido 42 — ¿stock?".into()),
            from: "ana@example.com".into(),
            to: vec!["shop@example.com".into(), "sales@example.com".into()],
            cc: vec!["bo@example.com".into()],
            message_id: "CAF=1@mail.example.com".into(),
            in_reply_to: Some("msg_1@example.com".into()),
            references: vec!["msg_0@example.com".into(), "msg_1@example.com".into()],
            text: "Hola,\n\n¿Tenéis la taza?".into(),
            attachments: vec![EmailAttachment {
                id: "att_1".into(),
                filename: Some("foto.jpg".into()),
                mime_type: "image/jpeg".into(),
                size: 48213,
            }],
            rich: None,
        }),
        // A cart sent by email keeps its card beside the plain text.
        MessageContent::Email(EmailContent {
            subject: Some("Re: Pedido 42".into()),
            from: "shop@example.com".into(),
            to: vec!["ana@example.com".into()],
            message_id: "msg_2@example.com".into(),
            text: "2 × Taza: 19.8 EUR\nTotal: 19.8 EUR".into(),
            rich: Some(Box::new(crate::model::EmailRich::Cart(crate::model::CartCard {
                code: "Ab3kP9z".into(),
                lines: vec![crate::model::CartCardLine { title: "Taza".into(), qty: 2, line_total: crate::model::Decimal::new(1980, 2) }],
                currency: Some("EUR".into()),
                total: Some(crate::model::Decimal::new(1980, 2)),
                url: Some("https://shop.example.com/c/Ab3kP9z".into()),
                text: "2 × Taza: 19.8 EUR\nTotal: 19.8 EUR".into(),
            }))),
            ..EmailContent::default()
        }),
        MessageContent::Interactive(InteractiveReply::List { id: "r".into(), title: "Red".into(), description: None }),
        MessageContent::Reaction { message_id: "pm.1".into(), emoji: None },
        MessageContent::Contacts { cards: json!([{"name": {"formatted_name": "Ann"}, "phones": [{"phone": "+1 555"}]}]) },
        MessageContent::Unsupported { raw: json!({"type": "poll", "poll": {"q": [1, 2.5, null, "x"]}, "errors": [{"code": 131051}]}) },
    ]
}

/// `(ids, total)` of one page of the activity's timeline.
pub(crate) async fn timeline(
    r: &Repositories,
    agent: &AgentId,
    activity: &ActivityId,
    since: Option<Timestamp>,
    limit: u32,
    offset: u64,
) -> (Vec<MessageId>, u64) {
    let p = r.messages.list(agent, activity, MessageFilter { since }, page(limit, offset)).await.unwrap();
    (p.items.into_iter().map(|m| m.id).collect(), p.total)
}

/// `ids` of `messages` newest first: `created_at` desc, then id desc.
fn newest_first(messages: &[&Message]) -> Vec<MessageId> {
    let mut sorted = messages.to_vec();
    sorted.sort_by(|x, y| (y.created_at, y.id.as_str()).cmp(&(x.created_at, x.id.as_str())));
    sorted.into_iter().map(|m| m.id.clone()).collect()
}

/// The activity's `last_message` as its detail and its list entry show it, which must agree.
pub(crate) async fn last_message(r: &Repositories, agent: &AgentId, activity: &ActivityId) -> Option<MessageSummary> {
    let detail = r.activities.get(agent, activity).await.unwrap().unwrap();
    let listed = r.activities.list(agent, &ActivityFilter::default(), page(100, 0)).await.unwrap().items;
    let entry = listed.into_iter().find(|v| &v.activity.id == activity).unwrap();
    assert_eq!(detail.last_message, entry.last_message, "detail and list entry agree");
    detail.last_message
}

pub(crate) async fn updated_at(r: &Repositories, agent: &AgentId, activity: &ActivityId) -> Timestamp {
    r.activities.get(agent, activity).await.unwrap().unwrap().activity.updated_at
}

/// Messages of every content kind, bare and with every field set, read back exactly through
/// `get` and `list`.
pub async fn messages_round_trip_every_content_kind(r: Repositories) {
    let a = agent(&r, "A").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let mut stored = Vec::new();
    for (i, content) in contents().into_iter().enumerate() {
        let bare = Message { content: content.clone(), ..message(&a, &act.id, "", t(10 + i as i64)) };
        let full = full(&a, &act.id, content, t(10 + i as i64));
        for m in [bare, full] {
            assert!(r.messages.insert(&m, &[]).await.unwrap(), "{m:?}");
            assert_eq!(r.messages.get(&a, &act.id, &m.id).await.unwrap().as_ref(), Some(&m), "get reads back what was stored");
            stored.push(m);
        }
    }
    let listed = r.messages.list(&a, &act.id, MessageFilter::default(), page(100, 0)).await.unwrap();
    assert_eq!(listed.total, stored.len() as u64);
    for m in &stored {
        assert_eq!(listed.items.iter().find(|x| x.id == m.id), Some(m), "a page reads back what was stored");
    }
    assert!(r.messages.get(&a, &act.id, &MessageId::new("msg_nope")).await.unwrap().is_none());
}

/// The platform delivers webhooks more than once: a platform message id the agent already has
/// stores nothing and changes nothing, whichever activity it names; another agent's is its own;
/// messages without one (refused sends) are never duplicates of each other.
pub async fn message_platform_ids_are_unique_per_agent(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let ana = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let bo = conversation(&r, &a, "Bo", "5215550002", ActivityStatus::Open, t(0)).await;
    let theirs = conversation(&r, &b, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let first = Message { platform_message_id: Some("pm.X".into()), ..message(&a, &ana.id, "first", t(5)) };
    assert!(r.messages.insert(&first, &[]).await.unwrap());
    let summary = last_message(&r, &a, &ana.id).await;

    let again = Message { platform_message_id: Some("pm.X".into()), ..message(&a, &ana.id, "again", t(9)) };
    assert!(!r.messages.insert(&again, &[]).await.unwrap(), "a duplicate is not stored");
    let elsewhere = Message { platform_message_id: Some("pm.X".into()), ..message(&a, &bo.id, "elsewhere", t(9)) };
    assert!(!r.messages.insert(&elsewhere, &[]).await.unwrap(), "unique per agent, not per activity");
    assert!(r.messages.get(&a, &ana.id, &again.id).await.unwrap().is_none());
    assert!(r.messages.get(&a, &bo.id, &elsewhere.id).await.unwrap().is_none());
    assert_eq!(timeline(&r, &a, &ana.id, None, 10, 0).await, (vec![first.id.clone()], 1));
    assert_eq!(timeline(&r, &a, &bo.id, None, 10, 0).await, (vec![], 0));
    assert_eq!(r.messages.find_by_platform_id(&a, "pm.X").await.unwrap(), Some(first.clone()));
    assert_eq!((updated_at(&r, &a, &ana.id).await, updated_at(&r, &a, &bo.id).await), (t(5), t(0)), "nothing moved");
    assert_eq!(last_message(&r, &a, &ana.id).await, summary);
    assert_eq!(last_message(&r, &a, &bo.id).await, None);

    let other_agent = Message { platform_message_id: Some("pm.X".into()), ..message(&b, &theirs.id, "theirs", t(9)) };
    assert!(r.messages.insert(&other_agent, &[]).await.unwrap(), "another agent's platform ids are its own");
    assert_eq!(r.messages.find_by_platform_id(&b, "pm.X").await.unwrap(), Some(other_agent));

    let refused: Vec<Message> = (0..3).map(|i| Message { platform_message_id: None, ..sent(&a, &bo.id, "", t(10 + i)) }).collect();
    for m in &refused {
        assert!(r.messages.insert(m, &[]).await.unwrap(), "no platform id is no duplicate");
    }
    assert_eq!(timeline(&r, &a, &bo.id, None, 10, 0).await.1, 3);
}

/// Newest first by `created_at`, ties by id (desc), whatever the insert order; pages and
/// totals; `since` keeps what was created or changed after it, a status change included.
pub async fn message_pages_newest_first_with_totals_and_since(r: Repositories) {
    let a = agent(&r, "A").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let other = conversation(&r, &a, "Bo", "5215550002", ActivityStatus::Open, t(0)).await;
    let made: Vec<Message> =
        (0..6).map(|i| Message { updated_at: t(100 + i), ..sent(&a, &act.id, &format!("pm.{i}"), t(10 + i / 3)) }).collect();
    for i in [3, 0, 5, 1, 4, 2] {
        assert!(r.messages.insert(&made[i], &[]).await.unwrap());
    }
    r.messages.insert(&sent(&a, &other.id, "pm.other", t(50)), &[]).await.unwrap();
    let expected = newest_first(&made.iter().collect::<Vec<_>>());

    let mut seen = Vec::new();
    for offset in [0, 4] {
        let (ids, total) = timeline(&r, &a, &act.id, None, 4, offset).await;
        assert_eq!(total, 6, "the total counts the activity's messages, not the page");
        seen.extend(ids);
    }
    assert_eq!(seen, expected);
    assert_eq!(timeline(&r, &a, &act.id, None, 4, 8).await, (vec![], 6), "past the end");

    let since = Some(t(102));
    let changed = newest_first(&made[3..].iter().collect::<Vec<_>>());
    assert_eq!(timeline(&r, &a, &act.id, since, 10, 0).await, (changed.clone(), 3), "updated_at > since, strictly");
    assert_eq!(timeline(&r, &a, &act.id, since, 1, 1).await, (vec![changed[1].clone()], 3));

    let read = Message { status: MessageStatus::Read, read_at: Some(t(150)), updated_at: t(150), ..made[0].clone() };
    assert!(r.messages.update_status(&read, MessageStatus::Sent, &[]).await.unwrap());
    assert_eq!(timeline(&r, &a, &act.id, Some(t(105)), 10, 0).await, (vec![read.id.clone()], 1), "a status change is a change");
    assert_eq!(timeline(&r, &a, &act.id, Some(t(150)), 10, 0).await, (vec![], 0));
    // An unknown activity is NotFound, not an empty page: `messages_are_scoped_by_agent`.
}

/// A status update is a compare-and-set on the stored status, scoped by agent, that writes
/// status, times, error, pricing and `updated_at` and never the message's content or cart.
pub async fn message_status_updates_are_compare_and_set(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let m = sent(&a, &act.id, "pm.1", t(1));
    r.messages.insert(&m, &[]).await.unwrap();

    let delivered = Message { status: MessageStatus::Delivered, delivered_at: Some(t(2)), updated_at: t(2), ..m.clone() };
    assert!(r.messages.update_status(&delivered, MessageStatus::Sent, &[]).await.unwrap());
    assert_eq!(r.messages.get(&a, &act.id, &m.id).await.unwrap(), Some(delivered.clone()));
    let stale = Message { status: MessageStatus::Read, read_at: Some(t(3)), updated_at: t(3), ..m.clone() };
    assert!(!r.messages.update_status(&stale, MessageStatus::Sent, &[]).await.unwrap(), "the stored status is no longer sent");
    assert_eq!(r.messages.get(&a, &act.id, &m.id).await.unwrap(), Some(delivered.clone()));

    let foreign = Message { agent_id: b.clone(), ..stale.clone() };
    assert!(!r.messages.update_status(&foreign, MessageStatus::Delivered, &[]).await.unwrap(), "another agent's message is unknown");
    assert!(
        !r.messages
            .update_status(&Message { id: MessageId::new("msg_nope"), ..stale.clone() }, MessageStatus::Delivered, &[])
            .await
            .unwrap()
    );
    assert_eq!(r.messages.get(&a, &act.id, &m.id).await.unwrap(), Some(delivered.clone()));

    // Status, times, error, pricing and updated_at are written; what the message is, never.
    let failed = Message {
        status: MessageStatus::Failed,
        pricing: Some(Pricing::Unread { raw: json!({"category": "marketing", "type": "free_tomorrow", "n": [1, null]}) }),
        error_message: Some("131026: Message undeliverable".into()),
        read_at: Some(t(4)),
        deleted_at: None,
        updated_at: t(4),
        content: MessageContent::Text { body: "rewritten".into() },
        cart_code: CartCode::parse("Ab3kP9z"),
        ..delivered.clone()
    };
    assert!(r.messages.update_status(&failed, MessageStatus::Delivered, &[]).await.unwrap());
    let expected = Message { content: delivered.content.clone(), cart_code: None, ..failed };
    assert_eq!(r.messages.get(&a, &act.id, &m.id).await.unwrap(), Some(expected));
}

/// A campaign's messages are counted per pricing, each pricing once: unpriced messages, other
/// campaigns' and other agents' are left out; a pricing written by a status update counts.
pub async fn campaign_messages_are_counted_per_pricing(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let act_b = conversation(&r, &b, "Bo", "5215550002", ActivityStatus::Open, t(0)).await;
    let (spring, autumn) = (CampaignKey::new("spring:2026").unwrap(), CampaignKey::new("autumn").unwrap());
    let unread = Pricing::Unread { raw: json!({"category": "marketing", "type": "later"}) };
    let sends = [
        (&a, &act.id, &spring, Some(priced("marketing", true))),
        (&a, &act.id, &spring, Some(priced("marketing", true))),
        (&a, &act.id, &spring, Some(priced("marketing", false))),
        (&a, &act.id, &spring, Some(priced("utility", true))),
        (&a, &act.id, &spring, Some(unread.clone())),
        (&a, &act.id, &spring, None),
        (&a, &act.id, &autumn, Some(priced("marketing", true))),
        (&b, &act_b.id, &spring, Some(priced("marketing", true))),
    ];
    let mut last = None;
    for (i, (agent, activity, key, pricing)) in sends.into_iter().enumerate() {
        let m = Message { campaign_key: Some(key.clone()), pricing, ..sent(agent, activity, &format!("pm.c{i}"), t(1 + i as i64)) };
        assert!(r.messages.insert(&m, &[]).await.unwrap());
        last = Some(m);
    }
    let sorted = |mut counts: Vec<(Pricing, u64)>| {
        counts.sort_by_key(|(p, _)| p.to_json().to_string());
        counts
    };
    let expected = sorted(vec![(priced("marketing", true), 2), (priced("marketing", false), 1), (priced("utility", true), 1), (unread, 1)]);
    assert_eq!(sorted(r.messages.pricing_counts(&a, &spring).await.unwrap()), expected);
    assert_eq!(r.messages.pricing_counts(&a, &autumn).await.unwrap(), [(priced("marketing", true), 1)]);
    assert_eq!(r.messages.pricing_counts(&b, &autumn).await.unwrap(), []);
    assert_eq!(r.messages.pricing_counts(&a, &CampaignKey::new("none").unwrap()).await.unwrap(), []);

    // Agent B's message is priced again by a status report: it counts as now reported.
    let last = last.unwrap();
    let repriced = Message { status: MessageStatus::Delivered, pricing: Some(priced("utility", true)), updated_at: t(50), ..last };
    assert!(r.messages.update_status(&repriced, MessageStatus::Sent, &[]).await.unwrap());
    assert_eq!(r.messages.pricing_counts(&b, &spring).await.unwrap(), [(priced("utility", true), 1)]);
}

/// A platform message id finds the agent's message on any of its activities, never another
/// agent's.
pub async fn messages_are_found_by_platform_id_within_the_agent(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let ana = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let bo = conversation(&r, &a, "Bo", "5215550002", ActivityStatus::Open, t(0)).await;
    let theirs = conversation(&r, &b, "Cy", "5215550003", ActivityStatus::Open, t(0)).await;
    let on_ana = sent(&a, &ana.id, "pm.A1", t(1));
    let on_bo = sent(&a, &bo.id, "pm.A2", t(2));
    let their = sent(&b, &theirs.id, "pm.B1", t(3));
    for m in [&on_ana, &on_bo, &their] {
        r.messages.insert(m, &[]).await.unwrap();
    }
    assert_eq!(r.messages.find_by_platform_id(&a, "pm.A1").await.unwrap(), Some(on_ana.clone()));
    assert_eq!(r.messages.find_by_platform_id(&a, "pm.A2").await.unwrap(), Some(on_bo), "on any activity of the agent");
    assert!(r.messages.find_by_platform_id(&a, "pm.B1").await.unwrap().is_none(), "another agent's message is unknown");
    assert!(r.messages.find_by_platform_id(&b, "pm.A1").await.unwrap().is_none());
    assert!(r.messages.find_by_platform_id(&a, "pm.nope").await.unwrap().is_none());
    assert_eq!(r.messages.find_by_platform_id(&b, "pm.B1").await.unwrap(), Some(their));
}

/// `last_inbound` is the activity's newest inbound message (by `created_at`, then id),
/// ignoring outbound ones and other agents.
pub async fn last_inbound_is_the_newest_inbound_message(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let other = conversation(&r, &a, "Bo", "5215550002", ActivityStatus::Open, t(0)).await;
    assert!(r.messages.last_inbound(&a, &act.id).await.unwrap().is_none());

    let older = message(&a, &act.id, "older", t(1));
    let (tie_low, tie_high) = (message(&a, &act.id, "low", t(3)), message(&a, &act.id, "high", t(3)));
    let outbound = sent(&a, &act.id, "pm.out", t(5));
    let elsewhere = message(&a, &other.id, "elsewhere", t(9));
    for m in [&tie_high, &older, &outbound, &tie_low, &elsewhere] {
        r.messages.insert(m, &[]).await.unwrap();
    }
    assert_eq!(r.messages.last_inbound(&a, &act.id).await.unwrap(), Some(tie_high), "by created_at, then id; outbound ignored");
    assert_eq!(r.messages.last_inbound(&a, &other.id).await.unwrap(), Some(elsewhere));
    assert!(r.messages.last_inbound(&b, &act.id).await.unwrap().is_none(), "another agent sees nothing");
}

/// `unread_outbound` lists the activity's `sent` or `delivered` outbound messages on the line,
/// created up to the given time, oldest first then by id, at most `limit`.
pub async fn unread_outbound_messages_are_those_a_read_receipt_moves(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let other = conversation(&r, &a, "Bo", "5215550002", ActivityStatus::Open, t(0)).await;
    let line = LineId::new("chn_ig");
    let on_line = |m: Message| Message { line_id: Some(line.clone()), ..m };
    let first = on_line(sent(&a, &act.id, "pm.1", t(1)));
    let (tie_low, tie_high) = (on_line(sent(&a, &act.id, "pm.2", t(2))), on_line(sent(&a, &act.id, "pm.3", t(2))));
    let delivered = Message { status: MessageStatus::Delivered, ..on_line(sent(&a, &act.id, "pm.4", t(3))) };
    let read = Message { status: MessageStatus::Read, ..on_line(sent(&a, &act.id, "pm.5", t(3))) };
    let later = on_line(sent(&a, &act.id, "pm.6", t(9)));
    let other_line = Message { line_id: Some(LineId::new("chn_wa")), ..sent(&a, &act.id, "pm.7", t(1)) };
    let inbound = on_line(message(&a, &act.id, "hi", t(1)));
    let elsewhere = on_line(sent(&a, &other.id, "pm.8", t(1)));
    for m in [&later, &tie_high, &read, &first, &delivered, &tie_low, &other_line, &inbound, &elsewhere] {
        r.messages.insert(m, &[]).await.unwrap();
    }
    let ids = |v: Vec<Message>| v.into_iter().map(|m| m.id).collect::<Vec<_>>();
    let mut ties = [tie_low.id.clone(), tie_high.id.clone()];
    ties.sort_by(|x, y| x.as_str().cmp(y.as_str()));
    let want = [vec![first.id.clone()], ties.to_vec(), vec![delivered.id.clone()]].concat();
    assert_eq!(ids(r.messages.unread_outbound(&a, &act.id, &line, t(3), 10).await.unwrap()), want, "oldest first, then id");
    assert_eq!(ids(r.messages.unread_outbound(&a, &act.id, &line, t(3), 2).await.unwrap()), want[..2], "at most limit");
    assert_eq!(ids(r.messages.unread_outbound(&a, &act.id, &line, t(0), 10).await.unwrap()), Vec::<MessageId>::new());
    assert!(r.messages.unread_outbound(&b, &act.id, &line, t(10), 10).await.unwrap().is_empty(), "another agent sees nothing");
}

/// Deleting a message marks it once, keeping its content; another agent cannot mark it.
pub async fn deleted_messages_are_kept_and_marked_once(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let m = Message { platform_message_id: Some("pm.gone".into()), ..message(&a, &act.id, "oops", t(1)) };
    r.messages.insert(&m, &[]).await.unwrap();
    let deleted = Message { deleted_at: Some(t(5)), updated_at: t(6), ..m.clone() };
    assert!(!r.messages.mark_deleted(&Message { agent_id: b.clone(), ..deleted.clone() }, &[]).await.unwrap(), "not another agent's");
    assert!(r.messages.mark_deleted(&deleted, &[]).await.unwrap());
    assert_eq!(r.messages.get(&a, &act.id, &m.id).await.unwrap().unwrap(), deleted, "kept, content and all, with when");
    let again = Message { deleted_at: Some(t(8)), updated_at: t(9), ..m.clone() };
    assert!(!r.messages.mark_deleted(&again, &[]).await.unwrap(), "once");
    assert_eq!(r.messages.get(&a, &act.id, &m.id).await.unwrap().unwrap().deleted_at, Some(t(5)));
}

/// The carts an activity's messages carry list once each, newest cart first, leaving out codes
/// of no cart of the agent.
pub async fn message_carts_are_distinct_newest_first_and_scoped(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let other = conversation(&r, &a, "Bo", "5215550002", ActivityStatus::Open, t(0)).await;
    let cart = |agent: &AgentId, code: &str, at: Timestamp| Cart {
        code: CartCode::parse(code).unwrap(),
        agent_id: agent.clone(),
        items: vec![],
        created_at: at,
        expires_at: at + CART_VALIDITY,
    };
    let (older, newer, unmentioned) = (cart(&a, "Ab3kP91", t(10)), cart(&a, "Ab3kP92", t(20)), cart(&a, "Ab3kP93", t(30)));
    let foreign = cart(&b, "Ab3kP94", t(40));
    for c in [&older, &newer, &unmentioned, &foreign] {
        r.carts.insert(c, &[]).await.unwrap();
    }
    assert!(r.messages.carts(&a, &act.id).await.unwrap().is_empty());
    let carrying =
        |activity: &ActivityId, code: &str, at| Message { cart_code: CartCode::parse(code), ..message(&a, activity, code, t(at)) };
    for m in [
        carrying(&act.id, "Ab3kP91", 50),
        carrying(&act.id, "Ab3kP92", 51),
        carrying(&act.id, "Ab3kP91", 52),
        // Another agent's cart, and a code of no cart at all: neither is the agent's cart.
        carrying(&act.id, "Ab3kP94", 53),
        carrying(&act.id, "Ab3kP95", 54),
        carrying(&other.id, "Ab3kP93", 55),
        message(&a, &act.id, "no cart", t(56)),
    ] {
        r.messages.insert(&m, &[]).await.unwrap();
    }
    let mention = |c: &Cart| CartMention { code: c.code.clone(), created_at: c.created_at };
    assert_eq!(r.messages.carts(&a, &act.id).await.unwrap(), [mention(&newer), mention(&older)], "each once, newest cart first");
    assert_eq!(r.messages.carts(&a, &other.id).await.unwrap(), [mention(&unmentioned)]);
    assert!(r.messages.carts(&b, &act.id).await.unwrap().is_empty(), "another agent sees nothing");
}

/// Every insert moves the activity's `updated_at` to the message's: the plain list, the
/// tag-filtered list and the search (which walk kept copies of it) follow; a duplicate moves
/// nothing.
pub async fn message_inserts_move_the_activity_and_its_kept_copies(r: Repositories) {
    let a = agent(&r, "A").await;
    let vip = tag(&a, "vip", t(0));
    r.tags.insert(&vip, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    let ana = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let bo = conversation(&r, &a, "Bo", "5215550002", ActivityStatus::Open, t(0)).await;
    r.activities.attach_tags(&a, &ana.id, std::slice::from_ref(&vip.id), t(2), &[]).await.unwrap();
    r.activities.attach_tags(&a, &bo.id, std::slice::from_ref(&vip.id), t(3), &[]).await.unwrap();
    let lists = || {
        let search = Some(ActivitySearch::new("555000").unwrap());
        [
            ActivityFilter::default(),
            ActivityFilter { tag: Some(vip.id.clone()), ..Default::default() },
            ActivityFilter { tag: Some(vip.id.clone()), status: ActivityStatus::Open.into(), ..Default::default() },
            ActivityFilter { search: search.clone(), ..Default::default() },
            ActivityFilter { search, status: ActivityStatus::Open.into(), ..Default::default() },
        ]
    };
    for filter in lists() {
        assert_eq!(list_ids(&r, &a, filter.clone()).await, [bo.id.clone(), ana.id.clone()], "{filter:?}");
    }

    let to_ana = Message { updated_at: t(10), ..message(&a, &ana.id, "hi", t(8)) };
    assert!(r.messages.insert(&to_ana, &[]).await.unwrap());
    assert_eq!(updated_at(&r, &a, &ana.id).await, t(10), "to the message's updated_at");
    for filter in lists() {
        assert_eq!(list_ids(&r, &a, filter.clone()).await, [ana.id.clone(), bo.id.clone()], "{filter:?}");
    }

    let to_bo = Message { platform_message_id: Some("pm.bo".into()), ..message(&a, &bo.id, "hello", t(11)) };
    assert!(r.messages.insert(&to_bo, &[]).await.unwrap());
    let again = Message { platform_message_id: Some("pm.bo".into()), ..message(&a, &ana.id, "again", t(20)) };
    assert!(!r.messages.insert(&again, &[]).await.unwrap());
    assert_eq!((updated_at(&r, &a, &ana.id).await, updated_at(&r, &a, &bo.id).await), (t(10), t(11)));
    for filter in lists() {
        assert_eq!(list_ids(&r, &a, filter.clone()).await, [bo.id.clone(), ana.id.clone()], "{filter:?}");
    }
}

/// `unread_count` counts inbound messages stored since the last read, on the list and the get;
/// a read sets it to 0 without moving `updated_at`, and only for the agent's own activity.
pub async fn unread_counts_follow_inbound_messages_until_a_read(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let ana = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let unread = |r: Repositories, a: AgentId, id: ActivityId| async move {
        let got = r.activities.get(&a, &id).await.unwrap().unwrap().unread_count;
        let page = r.activities.list(&a, &ActivityFilter::default(), page(10, 0)).await.unwrap();
        let listed = page.items.iter().find(|v| v.activity.id == id).unwrap().unread_count;
        assert_eq!(got, listed, "the list and the get agree");
        got
    };
    assert_eq!(unread(r.clone(), a.clone(), ana.id.clone()).await, 0);
    for n in 0..3 {
        assert!(r.messages.insert(&message(&a, &ana.id, "hi", t(10 + n)), &[]).await.unwrap());
    }
    assert!(r.messages.insert(&sent(&a, &ana.id, "pm.reply", t(20)), &[]).await.unwrap());
    let duplicate = Message { platform_message_id: Some("pm.reply".into()), ..message(&a, &ana.id, "dup", t(21)) };
    assert!(!r.messages.insert(&duplicate, &[]).await.unwrap());
    assert_eq!(unread(r.clone(), a.clone(), ana.id.clone()).await, 3, "inbound only, a duplicate not counted");

    let before = updated_at(&r, &a, &ana.id).await;
    assert!(!r.activities.mark_read(&b, &ana.id).await.unwrap(), "another agent's activity");
    assert_eq!(unread(r.clone(), a.clone(), ana.id.clone()).await, 3);
    assert!(r.activities.mark_read(&a, &ana.id).await.unwrap());
    assert_eq!(unread(r.clone(), a.clone(), ana.id.clone()).await, 0);
    assert_eq!(updated_at(&r, &a, &ana.id).await, before, "reading is not a change");
    assert!(r.messages.insert(&message(&a, &ana.id, "one more", t(30)), &[]).await.unwrap());
    assert_eq!(unread(r.clone(), a.clone(), ana.id.clone()).await, 1);
    assert!(!r.activities.mark_read(&a, &ActivityId::new("act_unknown")).await.unwrap());
}

/// `last_message` is the newest message by `created_at`, then id, whatever the insert order (a
/// late webhook may bring an older one), its text cut to [`MessageSummary::TEXT_CHARS`].
pub async fn last_message_follows_the_newest_message(r: Repositories) {
    let a = agent(&r, "A").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    assert_eq!(last_message(&r, &a, &act.id).await, None, "no message yet");

    let first = message(&a, &act.id, "first", t(10));
    r.messages.insert(&first, &[]).await.unwrap();
    assert_eq!(last_message(&r, &a, &act.id).await, Some(MessageSummary::of(&first)));
    let late = Message { updated_at: t(30), ..message(&a, &act.id, "late", t(5)) };
    r.messages.insert(&late, &[]).await.unwrap();
    assert_eq!(last_message(&r, &a, &act.id).await, Some(MessageSummary::of(&first)), "an older message is not the last");
    assert_eq!(updated_at(&r, &a, &act.id).await, t(30), "though it moves the activity");

    // Two messages created at the same instant: the greater id is the newer, whichever came in first.
    let (low, high) = (message(&a, &act.id, "low", t(10)), message(&a, &act.id, "high", t(10)));
    r.messages.insert(&high, &[]).await.unwrap();
    r.messages.insert(&low, &[]).await.unwrap();
    assert_eq!(last_message(&r, &a, &act.id).await, Some(MessageSummary::of(&high)));

    let long = Message { content: MessageContent::Text { body: "é".repeat(250) }, ..sent(&a, &act.id, "pm.long", t(20)) };
    r.messages.insert(&long, &[]).await.unwrap();
    let summary = last_message(&r, &a, &act.id).await.unwrap();
    assert_eq!(summary, MessageSummary::of(&long));
    assert_eq!(summary.text.map(|text| text.chars().count()), Some(MessageSummary::TEXT_CHARS));
    assert_eq!(summary.direction, MessageDirection::Outbound);
    assert_eq!(
        r.messages.get(&a, &act.id, &long.id).await.unwrap().unwrap().text().map(|x| x.chars().count()),
        Some(250),
        "the message keeps it whole"
    );

    let audio = Message { content: MessageContent::Audio(Media::default()), ..message(&a, &act.id, "", t(21)) };
    r.messages.insert(&audio, &[]).await.unwrap();
    let summary = last_message(&r, &a, &act.id).await.unwrap();
    assert_eq!((summary.message_type, summary.text), (MessageType::Audio, None));
}

/// Another agent's activity is an unknown one: inserting on it or listing its timeline is
/// `NotFound` (inserting stores nothing), and no read of another agent shows the agent's messages.
pub async fn messages_are_scoped_by_agent(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let act = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;

    let intruder = Message { platform_message_id: Some("pm.I".into()), ..message(&b, &act.id, "hi", t(5)) };
    assert!(matches!(r.messages.insert(&intruder, &[]).await, Err(StoreError::NotFound(_))));
    let nowhere = message(&a, &ActivityId::new("act_nope"), "hi", t(5));
    assert!(matches!(r.messages.insert(&nowhere, &[]).await, Err(StoreError::NotFound(_))));
    assert_eq!(timeline(&r, &a, &act.id, None, 10, 0).await, (vec![], 0));
    for agent in [&a, &b] {
        assert!(r.messages.get(agent, &act.id, &intruder.id).await.unwrap().is_none());
        assert!(r.messages.find_by_platform_id(agent, "pm.I").await.unwrap().is_none());
    }
    assert_eq!((updated_at(&r, &a, &act.id).await, last_message(&r, &a, &act.id).await), (t(0), None), "nothing moved");

    let cart = Cart {
        code: CartCode::parse("Ab3kP9z").unwrap(),
        agent_id: a.clone(),
        items: vec![],
        created_at: t(1),
        expires_at: t(1) + CART_VALIDITY,
    };
    r.carts.insert(&cart, &[]).await.unwrap();
    let own = Message { platform_message_id: Some("pm.A".into()), cart_code: Some(cart.code.clone()), ..message(&a, &act.id, "hi", t(6)) };
    assert!(r.messages.insert(&own, &[]).await.unwrap());
    let second = contact(&a, "Bo", phone("5215550002"), t(0));
    r.contacts.insert(&second, &[]).await.unwrap();
    let sibling = activity(&a, &second.id, ActivityStatus::Open, t(0));
    r.activities.insert(&sibling, &[]).await.unwrap();
    assert!(r.messages.get(&a, &sibling.id, &own.id).await.unwrap().is_none(), "a message is got through its own activity");
    assert!(r.messages.get(&b, &act.id, &own.id).await.unwrap().is_none());
    for since in [None, Some(t(0))] {
        let theirs = r.messages.list(&b, &act.id, MessageFilter { since }, page(10, 0)).await;
        assert!(matches!(theirs, Err(StoreError::NotFound("activity"))), "another agent's timeline is unknown: {theirs:?}");
        let nowhere = r.messages.list(&a, &ActivityId::new("act_nope"), MessageFilter { since }, page(10, 0)).await;
        assert!(matches!(nowhere, Err(StoreError::NotFound("activity"))), "{nowhere:?}");
    }
    assert!(r.messages.find_by_platform_id(&b, "pm.A").await.unwrap().is_none());
    assert!(r.messages.last_inbound(&b, &act.id).await.unwrap().is_none());
    assert!(r.messages.carts(&b, &act.id).await.unwrap().is_empty());
    assert_eq!(r.messages.get(&a, &act.id, &own.id).await.unwrap(), Some(own));
}

/// The activity's status, `last_inbound_at`, and its total and search listing under `open`.
async fn reopened(r: &Repositories, agent: &AgentId, activity: &Activity) -> (ActivityStatus, Option<Timestamp>, u64, bool) {
    let view = r.activities.get(agent, &activity.id).await.unwrap().unwrap().activity;
    let open = ActivityFilter { status: ActivityStatus::Open.into(), ..Default::default() };
    let total = r.activities.list(agent, &open, page(1, 0)).await.unwrap().total;
    let search = ActivityFilter { search: Some(ActivitySearch::new("Reopened").unwrap()), ..open };
    let found = list_ids(r, agent, search).await.contains(&activity.id);
    (view.status, view.last_inbound_at, total, found)
}

/// An inbound message reopens its activity and raises `last_inbound_at`, never lowering it;
/// an outbound message or a repeated delivery changes neither.
pub async fn inbound_messages_reopen_their_activity_and_raise_last_inbound_at(r: Repositories) {
    let a = agent(&r, "A").await;
    let act = conversation(&r, &a, "Reopened Ann", "5215550101", ActivityStatus::Closed, t(0)).await;
    assert_eq!(reopened(&r, &a, &act).await, (ActivityStatus::Closed, None, 0, false));

    // An outbound message leaves status and window alone.
    assert!(r.messages.insert(&sent(&a, &act.id, "pm.out1", t(5)), &[]).await.unwrap());
    assert_eq!(reopened(&r, &a, &act).await, (ActivityStatus::Closed, None, 0, false));

    // The contact writes: open (counted, searchable as open), the window from their message.
    let first = Message { platform_message_id: Some("pm.in1".into()), updated_at: t(20), ..message(&a, &act.id, "hi", t(10)) };
    assert!(r.messages.insert(&first, &[]).await.unwrap());
    assert_eq!(reopened(&r, &a, &act).await, (ActivityStatus::Open, Some(t(10)), 1, true));

    // An older message processed later never moves the window back; a newer one moves it on.
    let late = Message { platform_message_id: Some("pm.in0".into()), updated_at: t(30), ..message(&a, &act.id, "earlier", t(8)) };
    assert!(r.messages.insert(&late, &[]).await.unwrap());
    assert_eq!(reopened(&r, &a, &act).await.1, Some(t(10)));
    let newer = Message { platform_message_id: Some("pm.in2".into()), updated_at: t(40), ..message(&a, &act.id, "again", t(35)) };
    assert!(r.messages.insert(&newer, &[]).await.unwrap());
    assert_eq!(reopened(&r, &a, &act).await, (ActivityStatus::Open, Some(t(35)), 1, true));

    // Closed again by the agent, then the platform repeats an old delivery: nothing changes.
    let mut closed = r.activities.get(&a, &act.id).await.unwrap().unwrap().activity;
    closed.status = ActivityStatus::Closed;
    closed.updated_at = t(50);
    assert!(r.activities.update(ActivityWrite::of(&closed), &[]).await.unwrap());
    let repeated = Message { id: MessageId::new(id("msg")), updated_at: t(60), ..first };
    assert!(!r.messages.insert(&repeated, &[]).await.unwrap());
    assert_eq!(reopened(&r, &a, &act).await, (ActivityStatus::Closed, Some(t(35)), 0, false));
    assert_eq!(updated_at(&r, &a, &act.id).await, t(50), "a repeated delivery does not bump the activity");
}

/// A reply recorded before the platform is called: `sending`, without a platform id (several at
/// once), found by id within its agent, settled with its platform id by a compare-and-set from
/// `sending`, or removed with everything its insert changed on the activity undone.
pub async fn sending_replies_are_settled_or_removed_leaving_the_activity_as_it_was(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let vip = tag(&a, "vip", t(0));
    r.tags.insert(&vip, MAX_TAGS_PER_AGENT, &[]).await.unwrap();
    let ana = conversation(&r, &a, "Ana", "5215550001", ActivityStatus::Open, t(0)).await;
    let bo = conversation(&r, &a, "Bo", "5215550002", ActivityStatus::Open, t(0)).await;
    r.activities.attach_tags(&a, &ana.id, std::slice::from_ref(&vip.id), t(1), &[]).await.unwrap();
    r.activities.attach_tags(&a, &bo.id, std::slice::from_ref(&vip.id), t(2), &[]).await.unwrap();
    let hello = Message { platform_message_id: Some("pm.hello".into()), ..message(&a, &ana.id, "hello", t(10)) };
    assert!(r.messages.insert(&hello, &[]).await.unwrap());
    r.messages.insert(&message(&a, &bo.id, "hi", t(11)), &[]).await.unwrap();
    let before = updated_at(&r, &a, &ana.id).await;
    let lists = [ActivityFilter::default(), ActivityFilter { tag: Some(vip.id.clone()), ..Default::default() }];
    for filter in &lists {
        assert_eq!(list_ids(&r, &a, filter.clone()).await, [bo.id.clone(), ana.id.clone()], "{filter:?}");
    }

    let sending = |body: &str, at: Timestamp| Message {
        direction: MessageDirection::Outbound,
        status: MessageStatus::Sending,
        line_id: Some(LineId::new("chn_1")),
        ..message(&a, &ana.id, body, at)
    };
    let (first, second) = (sending("first", t(20)), sending("second", t(21)));
    assert!(r.messages.insert(&first, &[]).await.unwrap());
    assert!(r.messages.insert(&second, &[]).await.unwrap(), "replies without a platform id yet do not collide");
    assert_eq!(timeline(&r, &a, &ana.id, None, 10, 0).await, (vec![second.id.clone(), first.id.clone(), hello.id.clone()], 3));
    assert_eq!(last_message(&r, &a, &ana.id).await, Some(MessageSummary::of(&second)), "on the timeline like any message");
    assert_eq!(updated_at(&r, &a, &ana.id).await, t(21));
    assert_eq!(r.messages.find_by_id(&a, &first.id).await.unwrap(), Some(first.clone()));
    assert_eq!(r.messages.find_by_id(&b, &first.id).await.unwrap(), None, "another agent's message is unknown");
    assert_eq!(r.messages.find_by_id(&a, &MessageId::new("msg_nope")).await.unwrap(), None);

    // The platform accepted the first: its platform id and `sent`, from `sending` only.
    let accepted = Message {
        platform_message_id: Some("pm.first".into()),
        status: MessageStatus::Sent,
        sent_at: Some(t(20)),
        send_at: None,
        updated_at: t(22),
        ..first.clone()
    };
    assert!(!r.messages.update_status(&accepted, MessageStatus::Sent, &[]).await.unwrap(), "still sending");
    assert!(r.messages.update_status(&accepted, MessageStatus::Sending, &[]).await.unwrap());
    assert!(!r.messages.update_status(&accepted, MessageStatus::Sending, &[]).await.unwrap(), "once");
    assert_eq!(r.messages.find_by_platform_id(&a, "pm.first").await.unwrap(), Some(accepted.clone()));
    assert!(!r.messages.remove_sending(&accepted, before).await.unwrap(), "a sent message is never removed");

    // The platform refused the second: gone, and the activity as it was before it.
    assert!(!r.messages.remove_sending(&Message { agent_id: b.clone(), ..second.clone() }, before).await.unwrap(), "not B's");
    assert!(r.messages.remove_sending(&second, t(20)).await.unwrap());
    assert!(!r.messages.remove_sending(&second, t(20)).await.unwrap(), "once");
    assert_eq!(r.messages.find_by_id(&a, &second.id).await.unwrap(), None);
    assert_eq!(timeline(&r, &a, &ana.id, None, 10, 0).await, (vec![first.id.clone(), hello.id.clone()], 2));
    assert_eq!(last_message(&r, &a, &ana.id).await, Some(MessageSummary::of(&accepted)), "the newest remaining one");
    assert_eq!(updated_at(&r, &a, &ana.id).await, t(20), "back to what it was before the insert");

    // Removing the only newer message brings back the older last message, and the order of
    // the lists (the tag's kept copy of `updated_at` included).
    let refused = sending("refused", t(30));
    r.messages.insert(&refused, &[]).await.unwrap();
    for filter in &lists {
        assert_eq!(list_ids(&r, &a, filter.clone()).await, [ana.id.clone(), bo.id.clone()], "{filter:?}");
    }
    assert!(r.messages.remove_sending(&refused, before).await.unwrap());
    assert_eq!(last_message(&r, &a, &ana.id).await, Some(MessageSummary::of(&accepted)));
    assert_eq!(updated_at(&r, &a, &ana.id).await, before);
    for filter in &lists {
        assert_eq!(list_ids(&r, &a, filter.clone()).await, [bo.id.clone(), ana.id.clone()], "{filter:?}");
    }

    // Something else moved the activity after the insert: its `updated_at` stays.
    let overtaken = sending("overtaken", t(40));
    r.messages.insert(&overtaken, &[]).await.unwrap();
    r.messages.insert(&Message { updated_at: t(45), ..message(&a, &ana.id, "news", t(5)) }, &[]).await.unwrap();
    assert!(r.messages.remove_sending(&overtaken, before).await.unwrap());
    assert_eq!(updated_at(&r, &a, &ana.id).await, t(45));

    // The only message of an activity: no last message any more.
    let cy = conversation(&r, &a, "Cy", "5215550003", ActivityStatus::Open, t(0)).await;
    let alone = Message { activity_id: cy.id.clone(), ..sending("alone", t(50)) };
    r.messages.insert(&alone, &[]).await.unwrap();
    assert!(r.messages.remove_sending(&alone, t(0)).await.unwrap());
    assert_eq!(last_message(&r, &a, &cy.id).await, None);
    assert_eq!(timeline(&r, &a, &cy.id, None, 10, 0).await, (vec![], 0));
}

/// An idempotency key's recovery point: attached by the request that claimed it, read back per
/// agent and key, replaced by a later attach, and gone with the record when the key expires.
pub async fn idempotency_recovery_points_are_kept_with_their_claim(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    assert_eq!(r.idempotency.claim(&a, "k1", "fp-1", t(10), t(0)).await.unwrap(), IdempotencyClaim::Claimed);
    assert_eq!(r.idempotency.claim(&b, "k1", "fp-1", t(10), t(0)).await.unwrap(), IdempotencyClaim::Claimed);
    assert_eq!(r.idempotency.recovery_point(&a, "k1").await.unwrap(), None, "none until the request records something");
    r.idempotency.set_recovery_point(&a, "k1", "msg_1").await.unwrap();
    assert_eq!(r.idempotency.recovery_point(&a, "k1").await.unwrap().as_deref(), Some("msg_1"));
    assert_eq!(r.idempotency.recovery_point(&b, "k1").await.unwrap(), None, "per agent");
    r.idempotency.set_recovery_point(&a, "k1", "msg_2").await.unwrap();
    assert_eq!(r.idempotency.recovery_point(&a, "k1").await.unwrap().as_deref(), Some("msg_2"), "replaced");
    r.idempotency.set_recovery_point(&a, "unclaimed", "msg_3").await.unwrap();
    assert_eq!(r.idempotency.recovery_point(&a, "unclaimed").await.unwrap(), None, "an unknown key changes nothing");

    // Completing keeps it; a claim after the record expired starts without one.
    r.idempotency.complete(&a, "k1", &IdempotentResponse { status: 201, body: "{}".into() }).await.unwrap();
    assert_eq!(r.idempotency.recovery_point(&a, "k1").await.unwrap().as_deref(), Some("msg_2"));
    assert_eq!(r.idempotency.claim(&a, "k1", "fp-2", t(30), t(20)).await.unwrap(), IdempotencyClaim::Claimed);
    assert_eq!(r.idempotency.recovery_point(&a, "k1").await.unwrap(), None);
}
