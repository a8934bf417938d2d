//! One property test for every [`JsonText`] writer: a value's JSON, a page of them and a
//! `{"data": …}` of one are the bytes serde_json writes for their DTOs.

use std::fmt::Debug;

use actix_web::HttpResponse;
use chrono::DateTime;
use parley_domain::model::*;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::{Map, Value};

use super::*;
use crate::http::dto::{ActivityDto, ContactDto, DataBody, MessageDto, PageBody, ProductDto};

/// Holds writer `T` to its DTO over `cases`: pairs of a value and the DTO the API maps it to.
fn writes_its_dto<T: JsonText + Debug>(cases: impl Strategy<Value = (T, T::Dto)>)
where
    T::Dto: Debug,
{
    let pages = (prop::collection::vec(cases, 0..4), 0u64..10, 0u64..5);
    TestRunner::default()
        .run(&pages, |(pairs, total, offset)| {
            let (items, dtos): (Vec<T>, Vec<T::Dto>) = pairs.into_iter().unzip();
            for (item, dto) in items.iter().zip(&dtos) {
                let mut written = String::new();
                item.push_json(&mut written);
                prop_assert_eq!(written, serde_json::to_string(dto).unwrap());
                prop_assert_eq!(body(one(item)), serde_json::to_string(&DataBody { data: dto }).unwrap());
            }
            let page = Page { items, total: total + dtos.len() as u64, request: PageRequest::new(20, offset) };
            let expected = PageBody { pagination: Pagination::of(&page), data: dtos };
            prop_assert_eq!(body(super::page(&page)), serde_json::to_string(&expected).unwrap());
            Ok(())
        })
        .unwrap();
}

#[test]
fn activity_views_are_written_as_their_dto() {
    writes_its_dto(activity_view().prop_map(|v| {
        let dto = ActivityDto::from(&v);
        (v, dto)
    }));
}

#[test]
fn contacts_are_written_as_their_dto() {
    writes_its_dto(contact().prop_map(|c| {
        let dto = ContactDto::from(c.clone());
        (c, dto)
    }));
}

#[test]
fn product_documents_are_written_as_their_dto() {
    writes_its_dto(proptest::sample::select(products()).prop_map(|p| (ProductDocument::of(&p), ProductDto::from(&p))));
}

#[test]
fn messages_are_written_as_their_dto() {
    writes_its_dto(message().prop_map(|m| {
        let dto = MessageDto::from(&m);
        (m, dto)
    }));
}

fn body(response: HttpResponse) -> String {
    let bytes = futures_util::FutureExt::now_or_never(actix_web::body::to_bytes(response.into_body())).unwrap().unwrap();
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// Any text `valid` accepts: arbitrary strings, and ones rich in what JSON escapes.
fn text(pattern: &'static str, valid: fn(&str) -> bool) -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), pattern.prop_map(String::from)].prop_filter("valid", move |s| valid(s))
}

fn time() -> impl Strategy<Value = Timestamp> {
    (0i64..253_402_300_799_999).prop_map(|ms| DateTime::from_timestamp_millis(ms).unwrap())
}

fn channels() -> impl Strategy<Value = Vec<Channel>> {
    let channel = (prop::sample::select(ChannelType::ALL.to_vec()), "[0-9]{7,15}|[a-z\"\\\\]{1,10}@x\\.test|[A-Z]{2}\\.[0-9a-zA-Z]{1,20}");
    // What a WhatsApp channel knows of its user: any of the three, names with quotes and
    // non-ASCII included.
    let user = (
        prop::option::of("[A-Z]{2}\\.[0-9a-zA-Z]{1,20}"),
        prop::option::of("[A-Z]{2}\\.ENT\\.[0-9]{1,20}"),
        prop::option::of("[a-zé\"\\\\.]{1,12}"),
    );
    let known = (channel, user).prop_map(|((kind, id), (user_id, parent, username))| {
        let user = PlatformUser::from_platform(user_id.as_deref(), parent.as_deref(), username.as_deref()).unwrap();
        Channel::from_stored(kind, id).with_user(user)
    });
    prop::collection::vec(known, 0..3)
}

fn profile_name() -> impl Strategy<Value = ProfileName> {
    text("[ -~\\x00-\\x1f\"\\\\é☕]{1,40}", |s| ProfileName::new(s).is_ok()).prop_map(|s| ProfileName::new(&s).unwrap())
}

prop_compose! {
    fn activity_view()(
        id in "[A-Za-z0-9_]{1,30}",
        status in prop_oneof![Just(ActivityStatus::Open), Just(ActivityStatus::Closed), Just(ActivityStatus::Pending)],
        profile_name in profile_name(),
        channels in channels(),
        tags in prop::collection::vec((text("[ -~\"\\\\\\x01é]{1,20}", |s| TagName::new(s).is_ok()), "#[0-9a-f]{6}"), 0..3),
        assigned in prop::option::of(text("[ -~\"\\x02]{1,20}", |s| Assignee::new(s).is_ok())),
        assignee_name in prop::option::of(text("[ -~\"<>\\\\é]{1,20}", |s| MemberName::new(s).is_ok())),
        created_at in time(),
        updated_at in time(),
        unread_count in any::<u64>(),
        clock in (prop::option::of(time()), prop::option::of(time())),
        last_message in prop::option::of((
            prop::sample::select(MessageDirection::ALL.to_vec()),
            prop::sample::select(MessageType::ALL.to_vec()),
            prop::option::of(any::<String>()),
            time(),
        )),
    ) -> ActivityView {
        let activity = Activity {
            id: ActivityId::new(id),
            agent_id: AgentId::new("agt_a"),
            contact_id: ContactId::new("con_a"),
            status,
            assigned_to: assigned.map(|a| Assignee::new(&a).unwrap()),
            last_inbound_at: None,
            first_response: FirstResponse { due_at: clock.0, responded_at: clock.1, ..FirstResponse::default() },
            created_at,
            updated_at,
        };
        let tags = tags
            .into_iter()
            .enumerate()
            .map(|(i, (name, color))| TagRef {
                id: TagId::new(format!("tag_{i}")),
                name: TagName::new(&name).unwrap(),
                color: TagColor::new(&color).unwrap(),
            })
            .collect();
        let last_message = last_message.map(|(direction, message_type, text, created_at)| MessageSummary {
            id: MessageId::new("msg_a"),
            direction,
            message_type,
            text,
            created_at,
        });
        let assignee = assignee_name.map(|name| MemberRef { id: MemberId::new("usr_a"), name: MemberName::new(&name).unwrap() });
        ActivityView { activity, profile_name, channels, tags, last_message, unread_count, assignee }
    }
}

/// JSON values of every kind, nested a little.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("[a-z\"é]{1,5}", inner, 0..3).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

prop_compose! {
    fn contact()(
        id in "con_[A-Za-z0-9]{1,24}",
        profile_name in profile_name(),
        email in prop::option::of("[a-z\"]{1,10}@[a-z]{1,5}\\.test".prop_filter("valid", |s| Email::new(s).is_ok())),
        notes in prop::option::of(text("[ -~\\n\\t\"\\\\é]{0,40}", |s| Notes::new(s).is_ok())),
        channels in channels(),
        attributes in prop::collection::btree_map("[ -~é\"\\\\]{1,10}", json_value(), 0..4),
        created_at in time(),
        updated_at in time(),
    ) -> Contact {
        let attributes: Map<String, Value> = attributes.into_iter().collect();
        Contact {
            id: ContactId::new(id),
            agent_id: AgentId::new("agt_a"),
            profile_name,
            email: email.map(|e| Email::new(&e).unwrap()),
            notes: notes.map(|n| Notes::new(&n).unwrap()),
            channels,
            custom_attributes: CustomAttributes::new(attributes).unwrap_or_default(),
            created_at,
            updated_at,
        }
    }
}

/// The demo catalog's products and one with every unusual field.
fn products() -> Vec<Product> {
    let agent = AgentId::new("agt_a");
    let now = parse_timestamp("now", "2026-11-01T00:00:00Z").unwrap();
    let edge = r#"{"_id":"p\"é","kind":"service","title":"Tab\there ☕","description":"","currency":"JPY","base_price":0.1,
        "compare_at_price":1e3,"media":[{"url":"http://x.test/v","type":"video"}],"variants":[{"id":"v","title":"V","price":3}]}"#;
    include_str!("../../cli/demo_catalog.jsonl")
        .lines()
        .chain([edge])
        .map(|line| Product::from_record(&agent, serde_json::from_str::<ProductRecord>(line).unwrap(), now, None).unwrap())
        .collect()
}

/// Any string, or one rich in what JSON escapes.
fn string() -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), "[ -~\\x00-\\x1f\"\\\\é☕𝄞]{0,12}"]
}

fn optional_string() -> impl Strategy<Value = Option<String>> {
    prop::option::of(string())
}

/// Any float, the non-finite ones included (serde_json writes them as null).
fn float() -> impl Strategy<Value = f64> {
    prop_oneof![any::<f64>(), (-180.0..180.0f64), Just(1.0), Just(1e21), Just(-0.0), Just(f64::NAN), Just(f64::INFINITY)]
}

fn media() -> BoxedStrategy<Media> {
    (optional_string(), optional_string(), optional_string(), optional_string(), optional_string(), optional_string())
        .prop_map(|(id, link, mime_type, sha256, caption, filename)| Media { id, link, mime_type, sha256, caption, filename })
        .boxed()
}

/// Every kind of content, each field present or not. Boxed: the unboxed union's value trees
/// overflowed a debug build's test thread stack.
fn content() -> BoxedStrategy<MessageContent> {
    let order_item = (string(), any::<u32>(), float(), string()).prop_map(|(product_retailer_id, quantity, item_price, currency)| {
        OrderItem { product_retailer_id, quantity, item_price, currency }
    });
    let location = (float(), float(), optional_string(), optional_string()).prop_map(|(latitude, longitude, name, address)| Location {
        latitude,
        longitude,
        name,
        address,
    });
    let list =
        (string(), string(), optional_string()).prop_map(|(id, title, description)| InteractiveReply::List { id, title, description });
    let order = (string(), optional_string(), prop::collection::vec(order_item, 0..3)).prop_map(|(catalog_id, text, items)| Order {
        catalog_id,
        text,
        items,
    });
    let template = (string(), string(), string()).prop_map(|(name, language, parsed_message)| MessageContent::Template {
        name,
        language,
        parsed_message,
    });
    let kinds = vec![
        string().prop_map(|body| MessageContent::Text { body }).boxed(),
        media().prop_map(MessageContent::Image).boxed(),
        media().prop_map(MessageContent::Video).boxed(),
        media().prop_map(MessageContent::Audio).boxed(),
        media().prop_map(MessageContent::Document).boxed(),
        media().prop_map(MessageContent::Sticker).boxed(),
        media().prop_map(MessageContent::Share).boxed(),
        media().prop_map(MessageContent::StoryMention).boxed(),
        location.prop_map(MessageContent::Location).boxed(),
        json_value().prop_map(|cards| MessageContent::Contacts { cards }).boxed(),
        (string(), string()).prop_map(|(id, title)| MessageContent::Interactive(InteractiveReply::Button { id, title })).boxed(),
        list.prop_map(MessageContent::Interactive).boxed(),
        (string(), string(), string())
            .prop_map(|(body, id, title)| {
                let prompt = serde_json::json!({"type": "button", "body": {"text": body},
                "action": {"buttons": [{"type": "reply", "reply": {"id": id, "title": title}}]}});
                MessageContent::Prompt(serde_json::from_value(prompt).unwrap())
            })
            .boxed(),
        (optional_string(), string()).prop_map(|(payload, text)| MessageContent::Button { payload, text }).boxed(),
        (string(), optional_string()).prop_map(|(message_id, emoji)| MessageContent::Reaction { message_id, emoji }).boxed(),
        order.prop_map(MessageContent::Order).boxed(),
        template.boxed(),
        (prop::collection::btree_map("[a-z_0-9]{1,8}", json_value(), 0..3), optional_string(), optional_string(), optional_string())
            .prop_map(|(fields, token, body, name)| {
                let mut response: serde_json::Map<String, serde_json::Value> = fields.into_iter().collect();
                if let Some(token) = token {
                    response.insert("flow_token".into(), serde_json::Value::String(token));
                }
                MessageContent::FlowReply(parley_domain::model::FlowReply::new(response, body, name))
            })
            .boxed(),
        ("[a-z0-9 ]{0,20}x", prop::option::of("[a-z_]{0,10}u"))
            .prop_map(|(text, author)| MessageContent::Note(parley_domain::model::Note::new(&text, author.as_deref()).unwrap()))
            .boxed(),
        json_value().prop_map(|raw| MessageContent::Unsupported { raw }).boxed(),
    ];
    proptest::strategy::Union::new(kinds).boxed()
}

prop_compose! {
    fn message()(
        id in "msg_[A-Za-z0-9]{1,24}",
        direction in prop::sample::select(MessageDirection::ALL.to_vec()),
        content in content(),
        reply_to in prop::option::of("msg_[A-Za-z0-9]{1,24}"),
        platform_message_id in optional_string(),
        channel in channels().prop_filter("one", |c| !c.is_empty()),
        line_id in prop::option::of("chn_[A-Za-z0-9]{1,24}"),
        status in prop::sample::select(MessageStatus::ALL.to_vec()),
        error_message in optional_string(),
        pricing in prop::option::of(prop_oneof![
            ("[a-z_]{1,12}", any::<bool>()).prop_map(|(c, billable)| parley_domain::model::Pricing::Reported {
                category: parley_domain::model::PricingCategory::parse(&c).unwrap(),
                billable,
            }),
            json_value().prop_map(|raw| parley_domain::model::Pricing::Unread { raw }),
        ]),
        links in (
            prop::option::of("tpl_[A-Za-z0-9]{1,24}"),
            prop::option::of("[A-Za-z0-9_.:-]{1,64}"),
            prop::option::of("[1-9A-HJ-NP-Za-km-z]{7}"),
            prop::option::of(json_value()),
        ),
        times in (time(), prop::option::of(time()), prop::option::of(time()), prop::option::of(time()), prop::option::of(time()), time()),
    ) -> Message {
        let (template_id, campaign_key, cart_code, referral) = links;
        let (created_at, sent_at, delivered_at, read_at, deleted_at, updated_at) = times;
        Message {
            id: MessageId::new(id),
            agent_id: AgentId::new("agt_a"),
            activity_id: ActivityId::new("act_a"),
            direction,
            content,
            reply_to: reply_to.map(MessageId::new),
            platform_message_id,
            channel: channel.into_iter().next().unwrap(),
            line_id: line_id.map(LineId::new),
            status,
            error_message,
            template_id: template_id.map(TemplateId::new),
            campaign_key: campaign_key.map(|k| CampaignKey::new(&k).unwrap()),
            cart_code: cart_code.map(|c| CartCode::parse(&c).unwrap()),
            referral,
            pricing,
            created_at,
            sent_at,
            send_at: sent_at.map(|t| t + chrono::TimeDelta::seconds(1)),
            delivered_at,
            read_at,
            deleted_at,
            updated_at,
        }
    }
}
