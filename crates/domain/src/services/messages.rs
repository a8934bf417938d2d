use std::sync::Arc;

use super::timeline::{Accepted, Timeline};
use crate::error::CHECKED;
use crate::model::*;
use crate::ports::*;
use crate::{DomainError, FieldError};

/// The platform's error code for a free-form message outside the customer service window
/// ("Re-engagement message"): the same refusal as Parley's own check.
pub const PLATFORM_WINDOW_CLOSED: i64 = 131_047;

/// Raw list query of a timeline: every value as received, validated here.
#[derive(Debug, Clone, Default)]
pub struct MessageListQuery {
    pub since: Option<String>,
    pub limit: Option<String>,
    pub offset: Option<String>,
}

/// An activity's timeline: reading it, replying inside the messaging window, and the media
/// contacts sent.
pub struct MessageService {
    activities: Arc<dyn ActivityRepository>,
    messages: Arc<dyn MessageRepository>,
    lines: Arc<dyn LineRepository>,
    platform: Arc<dyn MessagingPlatform>,
    timeline: Timeline,
    clock: Arc<dyn Clock>,
}

impl MessageService {
    pub fn new(repos: &Repositories, platform: Arc<dyn MessagingPlatform>, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>) -> Self {
        Self {
            activities: repos.activities.clone(),
            messages: repos.messages.clone(),
            lines: repos.lines.clone(),
            platform,
            timeline: Timeline::new(repos.messages.clone(), repos.carts.clone(), clock.clone(), ids),
            clock,
        }
    }

    async fn activity(&self, agent: &AgentId, id: &ActivityId) -> Result<ActivityView, DomainError> {
        self.activities.get(agent, id).await?.ok_or(DomainError::not_found("activity"))
    }

    /// Newest first; `since` keeps what was created or changed after it.
    pub async fn list(&self, agent: &AgentId, activity: &ActivityId, query: MessageListQuery) -> Result<Page<Message>, DomainError> {
        let mut v = crate::error::Violations::default();
        let since = query.since.map(|s| v.check(parse_timestamp("since", &s)));
        let page = v.check_all(PageRequest::parse(query.limit.as_deref(), query.offset.as_deref(), PageBounds::MESSAGES));
        v.finish()?;
        self.activity(agent, activity).await?;
        let filter = MessageFilter { since: since.flatten() };
        Ok(self.messages.list(agent, activity, filter, page.expect(CHECKED)).await?)
    }

    pub async fn get(&self, agent: &AgentId, activity: &ActivityId, id: &MessageId) -> Result<Message, DomainError> {
        self.messages.get(agent, activity, id).await?.ok_or(DomainError::not_found("message"))
    }

    /// The carts the contact brought into the conversation, newest first.
    pub async fn carts(&self, agent: &AgentId, activity: &ActivityId) -> Result<Vec<CartMention>, DomainError> {
        Ok(self.messages.carts(agent, activity).await?)
    }

    /// Sends a free-form reply to the activity's contact, through the line they last wrote to,
    /// while the 24-hour window is open; records it as `sent` once the platform accepts it.
    pub async fn reply(&self, agent: &AgentId, activity_id: &ActivityId, input: ReplyInput) -> Result<Message, DomainError> {
        let reply = ReplyContent::new(input).map_err(DomainError::Validation)?;
        let view = self.activity(agent, activity_id).await?;
        let last_inbound = self.messages.last_inbound(agent, activity_id).await?;
        // Where the contact last wrote, else their first WhatsApp channel.
        let channel = match &last_inbound {
            Some(m) if m.channel.channel_type() == ChannelType::Whatsapp => m.channel.clone(),
            _ => {
                view.channels.iter().find(|c| c.channel_type() == ChannelType::Whatsapp).cloned().ok_or(DomainError::ChannelUnsupported)?
            }
        };
        let last_inbound_at = view.activity.last_inbound_at;
        if !window_open(last_inbound_at, self.clock.now()) {
            return Err(DomainError::WindowClosed { last_inbound_at });
        }
        let context =
            match reply.reply_to() {
                Some(id) => {
                    let quoted = self.messages.get(agent, activity_id, id).await?;
                    let wamid = quoted.and_then(|m| m.platform_message_id);
                    Some(wamid.ok_or_else(|| {
                        FieldError::new("reply_to", "must be the id of a message of this activity that reached the platform")
                    })?)
                }
                None => None,
            };
        let line = self.reply_line(agent, last_inbound.as_ref()).await?;
        let message = FreeFormMessage {
            to: channel.channel_id().to_string(),
            content: reply.content().clone(),
            preview_url: reply.preview_url(),
            context,
        };
        let sent = match self.platform.send_message(&line, &message).await {
            Ok(sent) => sent,
            Err(PlatformError::Rejected { code: Some(PLATFORM_WINDOW_CLOSED), .. }) => {
                return Err(DomainError::WindowClosed { last_inbound_at });
            }
            Err(e) => return Err(platform_failure(e)),
        };
        let reply_to = reply.reply_to().cloned();
        self.timeline
            .record_outbound(
                agent,
                Accepted {
                    activity: activity_id,
                    channel,
                    line: &line.id,
                    content: reply.into_content(),
                    platform_message_id: sent.message_id,
                    reply_to,
                    template_id: None,
                    campaign_key: None,
                },
            )
            .await
    }

    /// The line of the contact's last message; when it is gone (or they wrote before Parley
    /// kept messages), the agent's oldest line.
    async fn reply_line(&self, agent: &AgentId, last_inbound: Option<&Message>) -> Result<Line, DomainError> {
        if let Some(id) = last_inbound.and_then(|m| m.line_id.as_ref())
            && let Some(line) = self.lines.get(agent, id).await?
        {
            return Ok(line);
        }
        self.lines.list(agent).await?.into_iter().next().ok_or(DomainError::ChannelUnsupported)
    }

    /// The file of an inbound media message, from the platform through the line it came on.
    pub async fn media(&self, agent: &AgentId, activity: &ActivityId, id: &MessageId) -> Result<MediaFile, DomainError> {
        let message = self.get(agent, activity, id).await?;
        let media_id = message.media().and_then(|m| m.id.clone()).ok_or(DomainError::not_found("media"))?;
        let line = match &message.line_id {
            Some(line) => self.lines.get(agent, line).await?,
            None => None,
        };
        let line = line.ok_or(DomainError::not_found("media"))?;
        match self.platform.media(&line, &media_id).await {
            Ok(file) => Ok(file),
            // The platform keeps media for a limited time; what it no longer has is gone.
            Err(PlatformError::Rejected { code, message, .. }) => {
                tracing::info!(media = %media_id, ?code, %message, "the platform refused a media download");
                Err(DomainError::not_found("media"))
            }
            Err(e) => Err(platform_failure(e)),
        }
    }
}

/// What a caller learns when the platform did not take a message.
pub(crate) fn platform_failure(e: PlatformError) -> DomainError {
    match e {
        PlatformError::Rejected { code, message, details } => DomainError::MessageRejected { code, message, details },
        PlatformError::Unauthorized { message } => DomainError::MessageRejected { code: Some(190), message, details: None },
        PlatformError::Unavailable { message } => DomainError::Upstream(message),
    }
}
