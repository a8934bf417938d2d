//! `parley sandbox receive`: plays the contact's side of a sandbox line, so a newcomer can try
//! a whole conversation (an inbound message, a reply inside the window) without a phone.

use parley_adapters_email::Mailbox;
use parley_adapters_email::ports::{envelope, sandbox_mail};
use parley_adapters_system::RandomIds;
use parley_adapters_whatsapp::{SandboxInbound, SandboxSender, instagram_inbound_webhook, user_inbound_webhook};
use parley_domain::model::MessageContent;
use parley_domain::model::interactive::Action;
use parley_domain::model::{AgentId, BusinessUserId, ChannelType, Line, LineAccess, LineId, Message};
use parley_domain::ports::IdSource;
use parley_domain::services::{ActivityListQuery, ActivityPatchInput, MessageListQuery, Patch};
use serde_json::json;

use super::Failure;
use super::args::{LineType, SandboxCommand};
use crate::runtime::config::parse_storefront_url;
use crate::runtime::state::AppState;

pub(super) async fn sandbox(state: &AppState, cmd: SandboxCommand) -> Result<(), Failure> {
    let SandboxCommand::Receive {
        agent,
        from,
        user_id,
        username,
        name,
        text,
        image,
        caption,
        location,
        tap,
        at,
        cart,
        storefront_url,
        subject,
        line,
        channel_type,
    } = cmd;
    let platform = match channel_type {
        LineType::Whatsapp => ChannelType::Whatsapp,
        LineType::Instagram => ChannelType::Instagram,
        LineType::Email => ChannelType::Email,
    };
    // The arguments first: a mistake in them is told before anything is looked up.
    if platform != ChannelType::Whatsapp && (user_id.is_some() || username.is_some()) {
        return Err("--user-id and --username are WhatsApp's: leave them out, or use --channel-type whatsapp".into());
    }
    if let Some(id) = &user_id {
        BusinessUserId::new("--user-id", id).map_err(|e| format!("{} {}", e.field, e.issue))?;
    }
    if tap.is_some() && platform != ChannelType::Whatsapp {
        return Err("--tap plays a WhatsApp reply button or list row: use --channel-type whatsapp".into());
    }
    let now = match at.as_deref() {
        Some(raw) => chrono::DateTime::parse_from_rfc3339(raw.trim())
            .map(|t| t.with_timezone(&chrono::Utc))
            .map_err(|_| format!("--at must be a time in RFC 3339 (2026-11-28T09:30:00Z), not {raw:?}"))?,
        None => chrono::Utc::now(),
    };
    let agent = AgentId::new(agent);
    state.keys.keys_of(&agent).await?; // fails clearly for an unknown agent
    let lines = state.lines.list(&agent).await?;
    let mut sandboxes = lines.into_iter().filter(|l| l.access == LineAccess::Sandbox && l.channel_type() == platform);
    let line = match line.map(LineId::new) {
        Some(id) => sandboxes
            .find(|l| l.id == id)
            .ok_or_else(|| format!("{} is not a sandbox {} line of this agent", id.as_str(), platform.as_str()))?,
        None => sandboxes.next().ok_or_else(|| {
            let flag = if platform == ChannelType::Whatsapp { String::new() } else { format!("--type {} ", platform.as_str()) };
            format!("the agent has no sandbox {} line: add one with `parley channels add {flag}--sandbox`", platform.as_str())
        })?,
    };
    // A cart the contact brings: its link after what they wrote, as the storefront's button writes it.
    let text = match cart {
        Some(code) => {
            let cart = state.carts.get(&agent, code.trim()).await.map_err(|e| format!("--cart {code:?}: {e}"))?;
            let base = parse_storefront_url(&storefront_url)?;
            let link = format!("{base}/c/{}", cart.code.as_str());
            Some(text.map_or_else(|| link.clone(), |t| format!("{t} {link}")))
        }
        None => text,
    };
    let from = match (from, platform) {
        (Some(from), _) => from,
        (None, ChannelType::Whatsapp) => String::new(),
        (None, _) => return Err("give --from: the sender's id or address".into()),
    };
    if platform == ChannelType::Email {
        return receive_email(state, &agent, &line, &from, (name, text, subject), now).await;
    }
    if subject.is_some() {
        return Err("--subject is for --channel-type email".into());
    }
    let from: String = from.chars().filter(|c| !matches!(c, '+' | ' ' | '-' | '(' | ')')).collect();
    if (!from.is_empty() || user_id.is_none()) && (from.is_empty() || !from.bytes().all(|b| b.is_ascii_digit())) {
        return Err("--from must be a phone number (digits, optionally with + and spaces)".into());
    }
    let message = match (text, location, tap) {
        (Some(text), ..) => SandboxInbound::Text(text),
        (None, Some(location), _) => parse_location(&location)?,
        (None, None, Some(option)) => tapped(state, &agent, &line, &from, user_id.as_deref(), &option).await?,
        (None, None, None) if image => SandboxInbound::Image(caption),
        (None, None, None) => return Err("give --text, --image, --location or --tap".into()),
    };
    let (message_id, body) = match platform {
        ChannelType::Instagram => {
            let message_id = format!("m_sandbox{}", RandomIds.secret(24));
            let body = instagram_inbound_webhook(&line, &from, &message_id, now.timestamp_millis(), &message)
                .ok_or("Instagram has no shared locations: give --text or --image")?;
            (message_id, body)
        }
        _ => {
            let message_id = format!("wamid.sandbox{}", RandomIds.secret(24));
            let sender = SandboxSender {
                phone: Some(from.as_str()).filter(|f| !f.is_empty()),
                user_id: user_id.as_deref(),
                name: name.as_deref(),
                username: username.as_deref(),
            };
            (message_id.clone(), user_inbound_webhook(&line, &sender, &message_id, now.timestamp(), &message))
        }
    };
    // Processed here and stored with its outcome, as `parley serve` does with the platform's.
    let (delivery, _) = state.inbound.receive_and_process(platform, body).await?;
    let stored = state.messages.by_platform_id(&agent, &message_id).await?;
    // Instagram's deliveries carry no name (the platform's profile does): the sandbox names the
    // contact as the API would rename them.
    if let (ChannelType::Instagram, Some(name), Some(m)) = (platform, name, &stored) {
        let patch = ActivityPatchInput { profile_name: Patch::Set(name), ..Default::default() };
        state.activities.update(&agent, &m.activity_id, patch).await?;
    }
    print_received(&delivery, &message_id, stored.as_ref());
    Ok(())
}

/// The contact's answer to the newest interactive message the line sent them: the reply button
/// or list row whose title (in any case) or id is `option`.
async fn tapped(
    state: &AppState,
    agent: &AgentId,
    line: &Line,
    phone: &str,
    user_id: Option<&str>,
    option: &str,
) -> Result<SandboxInbound, Failure> {
    let address = if phone.is_empty() { user_id.unwrap_or_default() } else { phone };
    let query = ActivityListQuery { search: Some(address.to_string()), channel_type: Some("whatsapp".into()), ..Default::default() };
    let activity = state
        .activities
        .list(agent, query)
        .await?
        .items
        .into_iter()
        .find(|a| a.channels.iter().any(|c| c.channel_type() == ChannelType::Whatsapp && c.identifiers().any(|id| id == address)))
        .ok_or_else(|| format!("{address} has no conversation on this agent: nothing to answer with --tap"))?;
    // The newest first, a page at a time, until one the business sent with options.
    let mut offset = 0;
    let prompt = loop {
        let query = MessageListQuery { limit: Some("100".into()), offset: Some(offset.to_string()), ..Default::default() };
        let page = state.messages.list(agent, &activity.activity.id, query).await?;
        let found = page.items.iter().find_map(|m| match (&m.content, &m.platform_message_id) {
            (MessageContent::Prompt(prompt), Some(platform_id)) if m.line_id.as_ref() == Some(&line.id) => {
                Some((prompt.clone(), platform_id.clone()))
            }
            _ => None,
        });
        offset += page.items.len() as u64;
        match found {
            Some(found) => break found,
            None if page.items.is_empty() || offset >= page.total => {
                return Err("the business sent this contact no buttons or list on this line: nothing to --tap".into());
            }
            None => {}
        }
    };
    let (prompt, answers) = prompt;
    let matches = |id: &str, title: &str| id == option || title.eq_ignore_ascii_case(option.trim());
    match &prompt.action {
        Action::Buttons { buttons } => buttons.iter().find(|b| matches(&b.reply.id, &b.reply.title)).map(|b| SandboxInbound::ButtonReply {
            id: b.reply.id.clone(),
            title: b.reply.title.clone(),
            answers: answers.clone(),
        }),
        Action::List { sections, .. } => {
            sections.iter().flat_map(|s| &s.rows).find(|r| matches(&r.id, &r.title)).map(|r| SandboxInbound::ListReply {
                id: r.id.clone(),
                title: r.title.clone(),
                description: r.description.clone(),
                answers: answers.clone(),
            })
        }
        Action::CtaUrl { .. } => return Err("the newest interactive message opens a URL: it has nothing to tap".into()),
    }
    .ok_or_else(|| format!("the newest interactive message has no button or row {option:?}").into())
}

/// An email from `from` to the sandbox mailbox, through the stored-delivery path mail takes.
async fn receive_email(
    state: &AppState,
    agent: &AgentId,
    line: &Line,
    from: &str,
    (name, text, subject): (Option<String>, Option<String>, Option<String>),
    at: chrono::DateTime<chrono::Utc>,
) -> Result<(), Failure> {
    let text = text.ok_or("an email carries text: give --text")?;
    let sender = Mailbox { name, address: from.trim().to_lowercase() };
    let message_id = format!("sandbox{}@parley.invalid", RandomIds.secret(24));
    let subject = subject.unwrap_or_else(|| "Hello".into());
    let raw = sandbox_mail(&sender, line.account_id(), &subject, &text, &message_id)
        .ok_or_else(|| format!("--from must be an email address, not {from:?}"))?;
    let body = envelope(line.account_id(), at, &raw);
    let (delivery, _) = state.inbound.receive_and_process(ChannelType::Email, body).await?;
    let stored = state.messages.by_platform_id(agent, &message_id).await?;
    print_received(&delivery, &message_id, stored.as_ref());
    Ok(())
}

/// What `receive` prints: the stored delivery, and where its message landed.
fn print_received(delivery: &str, platform_message_id: &str, stored: Option<&Message>) {
    println!(
        "{}",
        json!({"delivery": delivery, "platform_message_id": platform_message_id,
            "activity_id": stored.map(|m| m.activity_id.as_str()), "message_id": stored.map(|m| m.id.as_str())})
    );
}

fn parse_location(raw: &str) -> Result<SandboxInbound, Failure> {
    let bad = || format!("--location must be LAT,LONG in degrees (e.g. 38.72,-9.14), not {raw:?}");
    let (lat, long) = raw.split_once(',').ok_or_else(bad)?;
    let latitude: f64 = lat.trim().parse().map_err(|_| bad())?;
    let longitude: f64 = long.trim().parse().map_err(|_| bad())?;
    if !(-90.0..=90.0).contains(&latitude) || !(-180.0..=180.0).contains(&longitude) {
        return Err(bad().into());
    }
    Ok(SandboxInbound::Location { latitude, longitude })
}
