//! The demo agent a newcomer gets on an empty embedded database: tags, contacts on several
//! channels, activities in every status, a catalog, a sandbox line and messages both ways, so
//! every endpoint has something to show.

use parley_domain::DomainError;
use std::sync::Arc;

use parley_adapters_email::Mailbox;
use parley_adapters_email::ports::{envelope, sandbox_mail};
use parley_adapters_whatsapp::{SandboxInbound, SandboxSender, inbound_webhook, instagram_inbound_webhook, user_inbound_webhook};
use parley_domain::model::{ActivityId, ActivityStatus, AddedMember, Agent, AgentId, ChannelType, IssuedKey, KeyKind, Line, ReplyInput};
use parley_domain::services::{ActivityPatchInput, ImportError, NewCartItem, NewContactInput, NewMemberInput, NewTagInput, Patch};
use serde_json::json;

use crate::cli::catalog_file;
use crate::runtime::state::AppState;

pub struct DemoAgent {
    pub agent: Agent,
    /// The inbox's demo member (an admin), with its one-time password.
    pub member: AddedMember,
    pub secret_key: IssuedKey,
    pub publishable_key: IssuedKey,
    /// A sandbox WhatsApp line with its templates synced.
    pub line: Line,
}

const TAGS: [(&str, &str, &str); 4] = [
    ("VIP", "#f59e0b", "Repeat buyers and big baskets"),
    ("Wholesale", "#3b82f6", "Buys for a store of their own"),
    ("Follow-up", "#ef4444", "Owes us an answer"),
    ("New lead", "#10b981", "First contact in the last week"),
];

/// Who a demo conversation is assigned to: the demo member (so "Mine" lists something in the
/// inbox), or a user id of the shop's own system (as an integration assigns).
#[derive(Clone, Copy)]
enum DemoAssignee {
    Member,
    External(&'static str),
}

/// The demo member who signs in to the inbox.
pub const DEMO_MEMBER_EMAIL: &str = "maria@demo.parley.test";

/// (name, channel type, channel id, status, indexes into TAGS, assignee)
type DemoConversation = (&'static str, &'static str, &'static str, ActivityStatus, &'static [usize], Option<DemoAssignee>);

const CONVERSATIONS: [DemoConversation; 8] = [
    ("Ana López", "whatsapp", "+52 55 1234 5678", ActivityStatus::Open, &[0, 2], Some(DemoAssignee::Member)),
    ("Bruno Costa", "whatsapp", "+55 11 98765 4321", ActivityStatus::Pending, &[3], None),
    ("Chloé Martin", "instagram", "chloe.makes", ActivityStatus::Open, &[3], None),
    ("Dev Patel", "email", "dev.patel@example.com", ActivityStatus::Closed, &[1], Some(DemoAssignee::External("user_sam"))),
    ("Emma Schmidt", "whatsapp", "+49 151 2345 6789", ActivityStatus::Open, &[0], Some(DemoAssignee::Member)),
    ("Farah Haddad", "sms", "+971 50 123 4567", ActivityStatus::Pending, &[2], None),
    ("Gabriel Silva", "messenger", "gabriel.silva.77", ActivityStatus::Closed, &[], None),
    ("Hana Suzuki", "webchat", "visitor-4821", ActivityStatus::Open, &[1, 2], None),
];

pub async fn seed_demo(state: &AppState) -> Result<DemoAgent, DomainError> {
    let agent = state.keys.create_agent("Demo Shop").await?;
    let secret_key = state.keys.issue_key(&agent.id, KeyKind::Secret).await?;
    let publishable_key = state.keys.issue_key(&agent.id, KeyKind::Publishable).await?;

    let member = state
        .members
        .add(
            &agent.id,
            NewMemberInput { email: Some(DEMO_MEMBER_EMAIL.into()), name: Some("Maria Demo".into()), role: Some("admin".into()) },
        )
        .await?;

    let mut tag_ids = Vec::new();
    for (name, color, description) in TAGS {
        let tag = state
            .tags
            .create(&agent.id, NewTagInput { name: Some(name.into()), color: Some(color.into()), description: Some(description.into()) })
            .await?;
        tag_ids.push(tag.id.into_string());
    }

    let mut activities = Vec::new();
    for (i, (name, channel_type, channel_id, status, tags, assignee)) in CONVERSATIONS.into_iter().enumerate() {
        let contact = state
            .contacts
            .create(
                &agent.id,
                NewContactInput {
                    channel_type: Some(channel_type.into()),
                    channel_id: Some(channel_id.into()),
                    profile_name: Some(name.into()),
                    custom_attributes: json!({"source": "demo", "orders": i}).as_object().cloned(),
                    ..Default::default()
                },
            )
            .await?;
        let activity = state.activities.start(&agent.id, &contact.id, status).await?;
        activities.push(activity.id.clone());
        if !tags.is_empty() {
            let ids = tags.iter().map(|&t| tag_ids[t].clone()).collect();
            state.activities.attach_tags(&agent.id, &activity.id, Some(ids)).await?;
        }
        if let Some(assignee) = assignee {
            let user = match assignee {
                DemoAssignee::Member => member.member.id.as_str().to_string(),
                DemoAssignee::External(user) => user.to_string(),
            };
            let patch = ActivityPatchInput { assigned_to: Patch::Set(user), ..Default::default() };
            state.activities.update(&agent.id, &activity.id, patch).await?;
        }
    }
    seed_catalog(state, &agent.id).await?;
    let line = seed_sandbox_line(state, &agent.id).await?;
    seed_messages(state, &line, &activities[0]).await?;
    seed_instagram(state, &agent.id).await?;
    seed_email(state, &agent.id).await?;
    Ok(DemoAgent { agent, member, secret_key, publishable_key, line })
}

/// Messages on the WhatsApp conversations (`ana`: Ana López's), through the sandbox line's webhook path: Ana asks,
/// brings a cart from the storefront and gets an answer (her 24-hour window stays open for a
/// while, so a newcomer can reply); Emma sent a picture hours ago.
async fn seed_messages(state: &AppState, line: &Line, ana: &ActivityId) -> Result<(), DomainError> {
    let agent = &line.agent_id;
    // The catalog's steel bottle, two of the 750 ml in slate.
    let bottle =
        NewCartItem { id: Some("prd_thermos_500".into()), variant_id: Some("prd_thermos_500_750_slate".into()), qty: Some(json!(2)) };
    let cart = state.carts.create(agent, Some(vec![bottle])).await?;
    let now = chrono::Utc::now().timestamp();
    let inbound = [
        ("525512345678", "Ana López", now - 180, SandboxInbound::Text("Hi! Is this still in stock? I'd need two.".into())),
        (
            "525512345678",
            "Ana López",
            now - 120,
            SandboxInbound::Text(format!("Here's my cart from your shop: https://shop.example.com/c/{}", cart.code.as_str())),
        ),
        ("4915123456789", "Emma Schmidt", now - 3 * 3600, SandboxInbound::Image(Some("Does this come in blue?".into()))),
    ];
    for (n, (from, name, at, message)) in inbound.iter().enumerate() {
        let body = inbound_webhook(line, from, Some(name), &format!("wamid.demo{n}{at}"), *at, message);
        state.inbound.receive_and_process(ChannelType::Whatsapp, body).await?;
    }
    // A customer who hides their phone behind a username: known by their user id alone.
    let joao = SandboxSender {
        user_id: Some("BR.1502576394655843"),
        username: Some("joao.silva"),
        name: Some("João Silva"),
        ..SandboxSender::default()
    };
    let at = now - 40 * 60;
    let question = SandboxInbound::Text("Olá! Do you ship to Brazil?".into());
    let body = user_inbound_webhook(line, &joao, &format!("wamid.demojoao{at}"), at, &question);
    state.inbound.receive_and_process(ChannelType::Whatsapp, body).await?;
    let reply = ReplyInput {
        kind: Some("text".into()),
        body: Some("Yes, both are in stock! Shall I reserve them for you until tomorrow?".into()),
        ..Default::default()
    };
    state.messages.reply(agent, ana, reply).await?;
    // Her cart back to her, lines and total, then the question as buttons, and Ana's tap on one
    // (the answer links back to the buttons).
    let summary = ReplyInput { kind: Some("cart".into()), cart: Some(Some(cart.code.as_str().to_string())), ..Default::default() };
    state.messages.reply(agent, ana, summary).await?;
    let buttons = serde_json::from_value(json!({"type": "button", "body": {"text": "Reserve the two 750 ml bottles until tomorrow?"},
        "action": {"buttons": [{"type": "reply", "reply": {"id": "reserve", "title": "Yes, reserve them"}},
            {"type": "reply", "reply": {"id": "later", "title": "Not now"}}]}}))
    .map_err(|e| DomainError::Internal(format!("the demo's buttons: {e}").into()))?;
    let ask = ReplyInput { kind: Some("interactive".into()), interactive: Some(buttons), ..Default::default() };
    let asked = state.messages.reply(agent, ana, ask).await?;
    let answers = asked.platform_message_id.ok_or_else(|| DomainError::Internal("the sandbox answers every send".into()))?;
    let tap = SandboxInbound::ButtonReply { id: "reserve".into(), title: "Yes, reserve them".into(), answers };
    // The platform's times are whole seconds: the next one, so the tap follows the buttons.
    let at = asked.created_at.timestamp() + 1;
    let body = inbound_webhook(line, "525512345678", Some("Ana López"), &format!("wamid.demotap{at}"), at, &tap);
    state.inbound.receive_and_process(ChannelType::Whatsapp, body).await?;
    Ok(())
}

/// A sandbox Instagram line and a conversation on it: Inês asks about a mug in a DM, inside
/// her window, so a newcomer can answer her on Instagram too.
async fn seed_instagram(state: &AppState, agent: &AgentId) -> Result<(), DomainError> {
    // Account ids are unique across agents: derive one from the agent's random id.
    let digits: String = agent.as_str().bytes().map(|b| char::from(b'0' + b % 10)).take(15).collect();
    let line = state.lines.add_instagram(agent, &format!("7{digits}"), None).await?;
    let at = chrono::Utc::now().timestamp_millis() - 60_000;
    let ask = SandboxInbound::Text("Hi! Saw your reel: is the blue mug back in stock?".into());
    let mid = format!("m_demo{at}");
    let body = instagram_inbound_webhook(&line, INES, &mid, at, &ask)
        .ok_or_else(|| DomainError::Internal("a text is an Instagram message".into()))?;
    state.inbound.receive_and_process(ChannelType::Instagram, body).await?;
    // Instagram's deliveries carry no name and the sandbox has no profiles: named as the API would.
    if let Some(message) = state.messages.by_platform_id(agent, &mid).await? {
        let patch = ActivityPatchInput { profile_name: Patch::Set("Inês Duarte".into()), ..Default::default() };
        state.activities.update(agent, &message.activity_id, patch).await?;
    }
    Ok(())
}

/// A sandbox mailbox and an email in it: Noah asks about gift wrapping, so a newcomer can answer
/// by email too (no window; the reply is threaded as `Re:` his subject).
async fn seed_email(state: &AppState, agent: &AgentId) -> Result<(), DomainError> {
    // Addresses are unique across agents: derive one from the agent's random id.
    let digits: String = agent.as_str().bytes().map(|b| char::from(b'0' + b % 10)).take(15).collect();
    let (line, _token) = state.lines.add_email(agent, &format!("shop-{digits}@demo.parley.test"), None).await?;
    let noah = Mailbox::named("Noah Williams", NOAH);
    let message_id = format!("demo{digits}@mail.example.com");
    let raw = sandbox_mail(
        &noah,
        line.account_id(),
        "Gift wrapping for my order?",
        "Hello! Could you gift-wrap the bottles I ordered? Thanks, Noah",
        &message_id,
    )
    .ok_or_else(|| DomainError::Internal("the demo email's addresses are valid".into()))?;
    let body = envelope(line.account_id(), chrono::Utc::now() - chrono::TimeDelta::minutes(30), &raw);
    state.inbound.receive_and_process(ChannelType::Email, body).await?;
    Ok(())
}

/// The demo's email contact.
pub const NOAH: &str = "noah.williams@example.com";

/// The demo's Instagram contact (an Instagram-scoped id).
pub const INES: &str = "1144000000000001";

/// A lifestyle shop's catalog: products in several categories, some on sale, services, drafts.
pub const DEMO_CATALOG: &str = include_str!("demo_catalog.jsonl");

async fn seed_catalog(state: &AppState, agent: &AgentId) -> Result<(), DomainError> {
    let validated = state.catalog.validate_import(agent, catalog_file::parse(DEMO_CATALOG)).await.map_err(|e| match e {
        ImportError::Domain(e) => e,
        ImportError::Rows(rows) => DomainError::Internal(format!("the demo catalog is invalid: {rows:?}").into()),
    })?;
    state.catalog.import(agent, validated, Arc::new(|_, _| {})).await?;
    Ok(())
}

/// A sandbox WhatsApp line (no credentials, no network) with its templates, so a newcomer can
/// send a template and watch its delivery status change.
async fn seed_sandbox_line(state: &AppState, agent: &AgentId) -> Result<Line, DomainError> {
    // Phone number ids are unique across agents: derive one from the agent's random id.
    let digits: String = agent.as_str().bytes().map(|b| char::from(b'0' + b % 10)).take(15).collect();
    let line = state.lines.add(agent, &format!("9{digits}"), &format!("8{digits}"), None).await?;
    state.lines.sync_line(&line).await?;
    Ok(line)
}
