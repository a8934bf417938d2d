//! What every feature's contract checks build their stores from: unique ids, fixed times, and
//! the agents, contacts, activities, lines and products most checks start with.

use std::sync::atomic::{AtomicU64, Ordering};

use chrono::{TimeDelta, TimeZone, Utc};

use crate::model::*;
use crate::ports::Repositories;
use serde_json::json;

pub(crate) static SEQ: AtomicU64 = AtomicU64::new(1);

pub(crate) fn id(prefix: &str) -> String {
    format!("{prefix}_{:06}_{}", SEQ.fetch_add(1, Ordering::Relaxed), std::process::id())
}

pub(crate) fn t(secs: i64) -> Timestamp {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap() + TimeDelta::seconds(secs)
}

pub(crate) async fn agent(r: &Repositories, name: &str) -> AgentId {
    let a = Agent { id: AgentId::new(id("agt")), name: AgentName::new(name).unwrap(), created_at: t(0) };
    r.agents.insert(&a).await.unwrap();
    a.id
}

pub(crate) fn tag(agent: &AgentId, name: &str, at: Timestamp) -> Tag {
    Tag {
        id: TagId::new(id("tag")),
        agent_id: agent.clone(),
        name: TagName::new(name).unwrap(),
        color: TagColor::default_color(),
        description: None,
        created_at: at,
        updated_at: at,
    }
}

pub(crate) fn contact(agent: &AgentId, name: &str, channel: Channel, at: Timestamp) -> Contact {
    Contact {
        id: ContactId::new(id("con")),
        agent_id: agent.clone(),
        profile_name: ProfileName::new(name).unwrap(),
        email: None,
        notes: None,
        channels: vec![channel],
        custom_attributes: CustomAttributes::default(),
        created_at: at,
        updated_at: at,
    }
}

pub(crate) fn phone(digits: &str) -> Channel {
    Channel::new(ChannelType::Whatsapp, digits).unwrap()
}

pub(crate) fn activity(agent: &AgentId, contact: &ContactId, status: ActivityStatus, at: Timestamp) -> Activity {
    Activity {
        id: ActivityId::new(id("act")),
        agent_id: agent.clone(),
        contact_id: contact.clone(),
        status,
        assigned_to: None,
        last_inbound_at: None,
        first_response: FirstResponse::default(),
        created_at: at,
        updated_at: at,
    }
}

/// A contact with an activity; returns the activity.
pub(crate) async fn conversation(
    r: &Repositories,
    agent: &AgentId,
    name: &str,
    digits: &str,
    status: ActivityStatus,
    at: Timestamp,
) -> Activity {
    let c = contact(agent, name, phone(digits), at);
    r.contacts.insert(&c, &[]).await.unwrap();
    let a = activity(agent, &c.id, status, at);
    r.activities.insert(&a, &[]).await.unwrap();
    a
}

pub(crate) fn page(limit: u32, offset: u64) -> PageRequest {
    PageRequest::new(limit, offset)
}

pub(crate) async fn list_ids(r: &Repositories, agent: &AgentId, filter: ActivityFilter) -> Vec<ActivityId> {
    r.activities.list(agent, &filter, page(100, 0)).await.unwrap().items.into_iter().map(|v| v.activity.id).collect()
}

pub(crate) fn product(agent: &AgentId, id: &str, kind: &str, tags: &[&str], status: &str, created: i64) -> Product {
    let record: ProductRecord = serde_json::from_value(json!({
        "_id": id, "kind": kind, "title": format!("Title {id}"), "description": "d", "currency": "USD",
        "base_price": 10.5, "category_tags": tags, "status": status,
        "media": [{"url": "https://cdn.example.com/x.jpg", "type": "image", "alt": "x", "position": 0}],
        "variants": [{"id": "v1", "title": "V", "price": 11, "selected_options": [{"name": "Size", "value": "M"}]}]
    }))
    .unwrap();
    Product::from_record(agent, record, t(created), None).unwrap()
}

pub(crate) fn line(agent: &AgentId, phone_number_id: &str, access: LineAccess, at: Timestamp) -> Line {
    Line {
        id: LineId::new(id("chn")),
        agent_id: agent.clone(),
        account: LineAccount::Whatsapp {
            phone_number_id: PhoneNumberId::new(phone_number_id).unwrap(),
            waba_id: WabaId::new("900000000000001").unwrap(),
        },
        access,
        created_at: at,
        pace: Default::default(),
    }
}

pub(crate) fn cloud(token: &str) -> LineAccess {
    LineAccess::Cloud(AccessToken::new(token).unwrap())
}

pub(crate) fn definition(id: &str, name: &str, language: &str, body: &str) -> TemplateDefinition {
    TemplateDefinition {
        id: TemplateId::new(id),
        name: name.into(),
        language: language.into(),
        status: APPROVED.into(),
        category: "MARKETING".into(),
        parameter_format: ParameterFormat::Positional,
        components: vec![
            TemplateComponent { kind: "HEADER".into(), format: Some("TEXT".into()), text: Some("Hello".into()), buttons: vec![] },
            TemplateComponent { kind: "BODY".into(), format: None, text: Some(body.into()), buttons: vec![] },
            TemplateComponent {
                kind: "BUTTONS".into(),
                format: None,
                text: None,
                buttons: vec![
                    TemplateButton {
                        kind: "URL".into(),
                        text: "Open".into(),
                        url: Some("https://shop.example.com/{{1}}".into()),
                        ..Default::default()
                    },
                    TemplateButton { kind: "QUICK_REPLY".into(), text: "Stop".into(), ..Default::default() },
                    TemplateButton {
                        kind: "PHONE_NUMBER".into(),
                        text: "Call".into(),
                        phone_number: Some("+15550100".into()),
                        ..Default::default()
                    },
                    TemplateButton {
                        kind: "OTP".into(),
                        text: "Copy code".into(),
                        otp_type: Some("COPY_CODE".into()),
                        ..Default::default()
                    },
                ],
            },
        ],
    }
}

pub(crate) fn execution(agent: &AgentId, key: &str, message_id: Option<&str>, updated: Timestamp) -> Execution {
    Execution {
        id: id("exe"),
        agent_id: agent.clone(),
        campaign_key: CampaignKey::new(key).unwrap(),
        campaign_name: "Spring sale".into(),
        to: "5215550001".into(),
        template_id: TemplateId::new("1234567890"),
        message_id: message_id.map(str::to_string),
        status: ExecutionStatus::Sent,
        error_message: None,
        sent_at: Some(updated),
        delivered_at: None,
        read_at: None,
        updated_at: updated,
    }
}

pub(crate) fn webhook_event(body: &str, at: Timestamp) -> InboundDelivery {
    InboundDelivery {
        id: id("whk"),
        platform: ChannelType::Whatsapp,
        body: body.into(),
        received_at: at,
        attempts: 0,
        last_error: None,
        next_attempt_at: Some(at),
        processed_at: None,
        failed_at: None,
        set_aside: Vec::new(),
    }
}
