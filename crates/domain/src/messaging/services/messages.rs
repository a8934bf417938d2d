use std::sync::Arc;

use crate::error::CHECKED;
use crate::model::*;
use crate::ports::*;
use crate::services::pacing::{Turn, paced};
use crate::services::timeline::{Outgoing, Timeline, TimelinePorts};
use crate::{DomainError, FieldError};

/// Raw list query of a timeline: every value as received, validated here.
#[derive(Debug, Clone, Default)]
pub struct MessageListQuery {
    /// An RFC 3339 time: only messages created or changed after it.
    pub since: Option<String>,
    /// Page size, an integer from 1 to 100; 50 when absent.
    pub limit: Option<String>,
    /// Matching messages to skip, an integer of 0 or more; 0 when absent.
    pub offset: Option<String>,
}

/// An activity's timeline: reading it, replying inside the messaging window, and the media
/// contacts sent.
pub struct MessageService {
    activities: Arc<dyn ActivityRepository>,
    messages: Arc<dyn MessageRepository>,
    scheduled: Arc<dyn ScheduledSendRepository>,
    lines: Arc<dyn LineRepository>,
    idempotency: Arc<dyn IdempotencyRepository>,
    files: Arc<dyn FileRepository>,
    products: Arc<dyn ProductRepository>,
    carts: Arc<dyn CartRepository>,
    /// Where product and cart messages link to (`{storefront_url}/p/<id>`, `/c/<code>`).
    storefront_url: Option<String>,
    platform: Arc<dyn MessagingPlatform>,
    /// Spaces sends to each line's pace.
    pacer: Arc<dyn SendPacer>,
    timeline: Timeline,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
}

/// The ports [`MessageService`] uses, and nothing more.
#[derive(Clone)]
pub struct MessagePorts {
    /// The activities replies are sent on and timelines belong to.
    pub activities: Arc<dyn ActivityRepository>,
    /// The timelines themselves.
    pub messages: Arc<dyn MessageRepository>,
    /// Replies waiting for their time.
    pub scheduled: Arc<dyn ScheduledSendRepository>,
    /// The lines replies go out through.
    pub lines: Arc<dyn LineRepository>,
    /// Recovery points of replies sent under an idempotency key.
    pub idempotency: Arc<dyn IdempotencyRepository>,
    /// Media contacts sent, kept once.
    pub files: Arc<dyn FileRepository>,
    /// The products product cards show.
    pub products: Arc<dyn ProductRepository>,
    /// The carts cart cards show.
    pub carts: Arc<dyn CartRepository>,
    /// When conversations contacts open must be answered.
    pub due: crate::services::ResponseDue,
}

impl From<&Repositories> for MessagePorts {
    fn from(r: &Repositories) -> Self {
        Self {
            activities: r.activities.clone(),
            messages: r.messages.clone(),
            scheduled: r.scheduled.clone(),
            lines: r.lines.clone(),
            idempotency: r.idempotency.clone(),
            files: r.files.clone(),
            products: r.products.clone(),
            carts: r.carts.clone(),
            due: crate::services::ResponseDue::new(r.first_response.clone(), r.business_hours.clone()),
        }
    }
}

impl MessageService {
    /// Reads timelines and sends replies through `platform`; `objects` shows the messages the
    /// events it records report.
    pub fn new(ports: MessagePorts, platform: Arc<dyn MessagingPlatform>, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>) -> Self {
        let events = crate::services::EventMaker::new(ids.clone());
        let MessagePorts { activities, messages, scheduled, lines, idempotency, files, products, carts, due } = ports;
        let timeline =
            TimelinePorts { messages: messages.clone(), carts: carts.clone(), activities: activities.clone(), files: files.clone(), due };
        Self {
            activities,
            messages,
            scheduled,
            lines,
            idempotency,
            files,
            products,
            carts,
            storefront_url: None,
            platform,
            pacer: Arc::new(crate::services::Unpaced),
            timeline: Timeline::new(timeline, clock.clone(), ids.clone(), events),
            clock,
            ids,
        }
    }

    /// The same service for a rule's actions: its changes are reported as a rule's, and run no
    /// rules.
    pub fn by_rules(self) -> Self {
        Self { timeline: self.timeline.by_rules(), ..self }
    }

    /// Replies go out at their line's pace, as `pacer` spaces them (default: unpaced).
    pub fn with_pacer(mut self, pacer: Arc<dyn SendPacer>) -> Self {
        self.pacer = pacer;
        self
    }

    /// Product and cart messages link to the storefront at `url` (no trailing slash).
    pub fn with_storefront_url(mut self, url: Option<String>) -> Self {
        self.storefront_url = url;
        self
    }

    /// The card of the agent's active product (and one of its variants) or of its cart.
    async fn card(&self, agent: &AgentId, subject: CatalogRef) -> Result<MessageContent, DomainError> {
        let storefront = self.storefront_url.as_deref();
        match subject {
            CatalogRef::Product { id, variant_id } => {
                let wanted = ProductId::lookup(id.clone());
                let found = self.products.find_active(agent, std::slice::from_ref(&wanted)).await?.into_iter().next();
                let product =
                    found.ok_or_else(|| FieldError::new("product.id", format!("product {id} does not exist or is not available")))?;
                let variant =
                    match variant_id {
                        Some(v) => Some(product.variants.iter().find(|known| known.id == v).ok_or_else(|| {
                            FieldError::new("product.variant_id", format!("{v:?} is not one of product {id}'s variants"))
                        })?),
                        None => None,
                    };
                Ok(MessageContent::Product(ProductCard::new(&product, variant, storefront)))
            }
            CatalogRef::Cart { code } => {
                let not_found = || FieldError::new("cart.code", "must be the code of one of your carts");
                let parsed = CartCode::parse(&code).ok_or_else(not_found)?;
                let cart = self.carts.get(agent, &parsed).await?.ok_or_else(not_found)?;
                if cart.is_expired(self.clock.now()) {
                    return Err(DomainError::CartExpired);
                }
                Ok(MessageContent::Cart(CartCard::new(&cart, storefront)))
            }
        }
    }

    async fn activity(&self, agent: &AgentId, id: &ActivityId) -> Result<ActivityView, DomainError> {
        self.activities.get(agent, id).await?.ok_or(DomainError::not_found("activity"))
    }

    /// One page of the activity's timeline, newest first; `since` keeps what was created or
    /// changed after it. Bad `since`, `limit` or `offset` values are reported together in
    /// `Validation`; `NotFound` (`activity`) when the activity is unknown or another agent's.
    pub async fn list(&self, agent: &AgentId, activity: &ActivityId, query: MessageListQuery) -> Result<Page<Message>, DomainError> {
        let mut v = crate::error::Violations::default();
        let since = query.since.map(|s| v.check(parse_timestamp("since", &s)));
        let page = v.check_all(PageRequest::parse(query.limit.as_deref(), query.offset.as_deref(), PageBounds::MESSAGES));
        v.finish()?;
        // The repository answers NotFound for another agent's activity (or none).
        let filter = MessageFilter { since: since.flatten() };
        Ok(self.messages.list(agent, activity, filter, page.expect(CHECKED)).await?)
    }

    /// One message of the activity's timeline; `NotFound` (`message`) when the message is
    /// unknown, on another activity, or the activity is another agent's.
    pub async fn get(&self, agent: &AgentId, activity: &ActivityId, id: &MessageId) -> Result<Message, DomainError> {
        self.messages.get(agent, activity, id).await?.ok_or(DomainError::not_found("message"))
    }

    /// The agent's message with this platform id, on any activity.
    pub async fn by_platform_id(&self, agent: &AgentId, platform_message_id: &str) -> Result<Option<Message>, DomainError> {
        Ok(self.messages.find_by_platform_id(agent, platform_message_id).await?)
    }

    /// The carts the contact brought into the conversation, newest first.
    pub async fn carts(&self, agent: &AgentId, activity: &ActivityId) -> Result<Vec<CartMention>, DomainError> {
        Ok(self.messages.carts(agent, activity).await?)
    }

    /// Adds a private note of the team to the activity's timeline (`POST …/notes`): stored and
    /// announced (`note.created`), never sent to the contact.
    pub async fn add_note(
        &self,
        agent: &AgentId,
        activity_id: &ActivityId,
        text: Option<String>,
        author: Option<String>,
    ) -> Result<Message, DomainError> {
        let text = crate::services::required("text", text)?;
        let note = Note::new(&text, author.as_deref()).map_err(DomainError::Validation)?;
        let view = self.activity(agent, activity_id).await?;
        // Every activity's contact has a channel; the conversation is on the first.
        let channel = view.channels.first().cloned().ok_or(DomainError::not_found("activity"))?;
        self.timeline.record_note(agent, activity_id, channel, note).await
    }

    /// Sends a free-form reply to the activity's contact, through the line they last wrote to,
    /// while the 24-hour window is open. See [`reply_under_key`](Self::reply_under_key).
    pub async fn reply(&self, agent: &AgentId, activity_id: &ActivityId, input: ReplyInput) -> Result<Message, DomainError> {
        self.reply_under_key(agent, activity_id, input, None).await
    }

    /// [`reply`](Self::reply) for a request holding the `Idempotency-Key` `key`.
    ///
    /// The reply is recorded (`sending`) before the platform is called, so a crash at any point
    /// leaves either nothing sent or the message on the timeline. With a key, the message's id is
    /// attached to it as the recovery point before the message is recorded: a retry after a cut
    /// request answers the message ([`IdempotencyBegin::Interrupted`](crate::services::IdempotencyBegin)),
    /// and a recovery point naming no message means nothing was recorded, so nothing was sent.
    /// The platform's answer then decides: accepted, `sent` with its platform id; refused
    /// outright, the message is removed (nothing is left of the attempt); an outage or timeout
    /// (it may have been sent), it stays `sending` until a status report names it
    /// (`biz_opaque_callback_data`) and the caller gets 502.
    pub async fn reply_under_key(
        &self,
        agent: &AgentId,
        activity_id: &ActivityId,
        input: ReplyInput,
        key: Option<&str>,
    ) -> Result<Message, DomainError> {
        // The activity first, as a template send looks its template up first: an unknown one is
        // 404 whatever the body.
        let view = self.activity(agent, activity_id).await?;
        let mut input = input;
        let send_at = input.send_at.take().map(|raw| SendAt::parse(&raw, self.clock.now())).transpose();
        let (mut reply, send_at) = match (ReplyContent::new(input), send_at) {
            (Ok(reply), Ok(send_at)) => (reply, send_at),
            (reply, send_at) => {
                let mut errors = reply.err().unwrap_or_default();
                errors.extend(send_at.err());
                return Err(DomainError::Validation(errors));
            }
        };
        let last_inbound = self.messages.last_inbound(agent, activity_id).await?;
        let channel = reply_channel(&reply, &view.channels, last_inbound.as_ref())?;
        reply.check_for(channel.channel_type()).map_err(DomainError::from)?;
        if let Some(subject) = reply.catalog().cloned() {
            reply.show(self.card(agent, subject).await?);
        }
        let last_inbound_at = view.activity.last_inbound_at;
        let email = channel.channel_type() == ChannelType::Email;
        let window = if reply.human_agent() { HUMAN_AGENT_WINDOW } else { MESSAGING_WINDOW };
        // Email has no window: a reply may go out whenever. A scheduled one is judged at its time.
        if send_at.is_none() && !email && last_inbound_at.is_none_or(|last| self.clock.now() - last >= window) {
            return Err(DomainError::WindowClosed { last_inbound_at });
        }
        let context =
            match reply.reply_to() {
                Some(id) => {
                    let quoted = self.messages.get(agent, activity_id, id).await?;
                    let platform_id = quoted.and_then(|m| m.platform_message_id);
                    Some(platform_id.ok_or_else(|| {
                        FieldError::new("reply_to", "must be the id of a message of this activity that reached the platform")
                    })?)
                }
                None => None,
            };
        // A reaction names its message by Parley's id; the platform knows it by its own.
        let reacted = match reply.reacts_to().cloned() {
            Some(id) => {
                let target = self.messages.get(agent, activity_id, &id).await?.and_then(|m| m.platform_message_id);
                let platform_id = target.ok_or_else(|| {
                    FieldError::new("reaction.message_id", "must be the id of a message of this activity that reached the platform")
                })?;
                reply.react_on(platform_id);
                Some(id)
            }
            None => None,
        };
        // An email answers the contact's last email: its line, its thread.
        let last_email = if email { self.last_email(agent, activity_id, last_inbound.as_ref()).await? } else { None };
        let last_on_channel = if email { last_email.as_ref() } else { last_inbound.as_ref() };
        let line = self.reply_line(agent, last_on_channel, channel.channel_type()).await?;
        let id = MessageId::new(self.ids.new_id(IdKind::Message));
        let content = if email {
            email_reply(&reply, &line, &channel, &id, last_email.as_ref().and_then(|m| m.content.email()), context.as_deref())?
        } else {
            reply.content().clone()
        };
        if let Some(key) = key {
            self.idempotency.set_recovery_point(agent, key, id.as_str()).await?;
        }
        let (preview_url, human_agent) = (reply.preview_url(), reply.human_agent());
        // A reaction is linked to the message it reacts to.
        let reply_to = reply.reply_to().cloned().or(reacted);
        let outgoing = Outgoing { activity: activity_id, channel, line: &line.id, content, reply_to };
        if let Some(send_at) = send_at {
            let request = ScheduledRequest::Reply { preview_url, human_agent };
            return self.timeline.record_scheduled(&*self.scheduled, agent, id, outgoing, send_at, request).await;
        }
        let recorded = self.timeline.record_sending(agent, id, outgoing).await?;
        let message = sent_form(&recorded, preview_url, context, human_agent);
        match paced(&*self.pacer, &line, Turn::Wait, || self.platform.send_message(&line, &message)).await {
            Ok(sent) => self.timeline.confirm_sent(recorded, sent.message_id).await,
            // It may or may not have gone out: it stays `sending`, for a status report to settle.
            // Email has no status reports: an unsent email is forgotten whatever went wrong.
            Err(e @ PlatformError::Unavailable { .. }) if !email => {
                tracing::warn!(message = %recorded.id, "a reply's send failed or timed out: kept as sending");
                Err(platform_failure(e))
            }
            Err(e) => {
                self.timeline.forget_sending(&recorded, view.activity.updated_at).await?;
                Err(match e {
                    PlatformError::WindowClosed { .. } => DomainError::WindowClosed { last_inbound_at },
                    e => platform_failure(e),
                })
            }
        }
    }

    /// Cancels a scheduled message of the activity: it leaves the timeline. `NotFound`
    /// (`message`) when the activity has no such message (or is another agent's); `Conflict`
    /// when it is not scheduled (any more): it has gone out, or is going.
    pub async fn cancel_scheduled(&self, agent: &AgentId, activity: &ActivityId, id: &MessageId) -> Result<(), DomainError> {
        let message = self.get(agent, activity, id).await?;
        if message.status == MessageStatus::Scheduled && self.scheduled.cancel(agent, activity, id).await? {
            return Ok(());
        }
        // Not scheduled, or its worker started it between the read and the cancel.
        let status = self.get(agent, activity, id).await.map(|m| m.status).unwrap_or(message.status);
        Err(DomainError::Conflict {
            message: format!("only a scheduled message can be cancelled; this one is {}", status.as_str()),
            details: vec![],
        })
    }

    /// Sends a scheduled reply its worker started (`sending`): it goes out as it was asked,
    /// through the line it was recorded on. `failed` with why when the messaging window has
    /// closed by now, its line is gone, or the platform refuses it; left `sending` when the
    /// platform did not answer (a status report naming it settles it, as for a reply).
    pub async fn send_scheduled(&self, message: Message, preview_url: bool, human_agent: bool) -> Result<Message, DomainError> {
        let agent = message.agent_id.clone();
        let view = self.activity(&agent, &message.activity_id).await?;
        let email = message.channel.channel_type() == ChannelType::Email;
        let window = if human_agent { HUMAN_AGENT_WINDOW } else { MESSAGING_WINDOW };
        let last_inbound_at = view.activity.last_inbound_at;
        if !email && last_inbound_at.is_none_or(|last| self.clock.now() - last >= window) {
            let last = last_inbound_at.map_or("never wrote".to_string(), |t| format!("last wrote at {}", t.to_rfc3339()));
            let reason = format!("the messaging window had closed by its send time (the contact {last})");
            return self.timeline.fail_sending(message, reason).await;
        }
        let line = match &message.line_id {
            Some(id) => self.lines.get(&agent, id).await?,
            None => None,
        };
        let Some(line) = line else {
            return self.timeline.fail_sending(message, "its channel was removed before its send time".into()).await;
        };
        // A reaction's target is in its content; any other reply quotes `reply_to`.
        let context = match (&message.reply_to, message.message_type()) {
            (Some(id), kind) if kind != MessageType::Reaction => {
                self.messages.get(&agent, &message.activity_id, id).await?.and_then(|m| m.platform_message_id)
            }
            _ => None,
        };
        let free = sent_form(&message, preview_url, context, human_agent);
        // Its line's turn was taken before it was started.
        match paced(&*self.pacer, &line, Turn::Taken, || self.platform.send_message(&line, &free)).await {
            Ok(sent) => self.timeline.confirm_sent(message, sent.message_id).await,
            Err(PlatformError::Unavailable { message: why }) if !email => {
                tracing::warn!(message = %message.id, %why, "a scheduled reply's send failed or timed out: kept as sending");
                Ok(message)
            }
            Err(e) => self.timeline.fail_sending(message, e.reason()).await,
        }
    }

    /// The contact's newest email on the activity: `last_inbound` when it is one, else the newest
    /// among the activity's latest [`EMAIL_THREAD_LOOKBACK`] messages.
    async fn last_email(
        &self,
        agent: &AgentId,
        activity: &ActivityId,
        last_inbound: Option<&Message>,
    ) -> Result<Option<Message>, DomainError> {
        let is_email = |m: &&Message| m.direction == MessageDirection::Inbound && m.content.email().is_some();
        if let Some(m) = last_inbound.filter(is_email) {
            return Ok(Some(m.clone()));
        }
        let page = PageRequest::new(EMAIL_THREAD_LOOKBACK, 0);
        let recent = self.messages.list(agent, activity, MessageFilter::default(), page).await?;
        Ok(recent.items.iter().find(is_email).cloned())
    }

    /// The line of the contact's last message on a channel of `channel_type`; when it is gone
    /// (or they wrote before Parley kept messages), the agent's oldest line of that type.
    async fn reply_line(&self, agent: &AgentId, last_inbound: Option<&Message>, channel_type: ChannelType) -> Result<Line, DomainError> {
        if let Some(id) = last_inbound.filter(|m| m.channel.channel_type() == channel_type).and_then(|m| m.line_id.as_ref())
            && let Some(line) = self.lines.get(agent, id).await?
        {
            return Ok(line);
        }
        let lines = self.lines.list(agent).await?;
        lines.into_iter().find(|line| line.channel_type() == channel_type).ok_or(DomainError::ChannelUnsupported)
    }

    /// The file of an inbound media message, from the platform through the line it came on;
    /// of an email, its attachment `attachment` (default: its first), which Parley kept.
    pub async fn media(
        &self,
        agent: &AgentId,
        activity: &ActivityId,
        id: &MessageId,
        attachment: Option<&str>,
    ) -> Result<MediaFile, DomainError> {
        let message = self.get(agent, activity, id).await?;
        if let Some(email) = message.content.email() {
            let listed = match attachment {
                Some(wanted) => email.attachments.iter().find(|a| a.id == wanted),
                None => email.attachments.first(),
            };
            let listed = listed.ok_or(DomainError::not_found("attachment"))?;
            let file = self.files.get(agent, &listed.id).await?.ok_or(DomainError::not_found("attachment"))?;
            let length = file.bytes.len() as u64;
            let body = futures_util::stream::once(std::future::ready(Ok(file.bytes)));
            return Ok(MediaFile {
                mime_type: MediaType::or_octet_stream(Some(&file.mime_type)),
                length: Some(length),
                body: Box::pin(body),
            });
        }
        if attachment.is_some() {
            return Err(DomainError::not_found("attachment"));
        }
        // An inbound file: by the platform's media id (WhatsApp) or the link its webhook carried
        // (Instagram). An outbound one is the caller's own link.
        let inbound = message.media().filter(|_| message.direction == MessageDirection::Inbound);
        let media_id = inbound.and_then(|m| m.id.clone().or_else(|| m.link.clone())).ok_or(DomainError::not_found("media"))?;
        let line = match &message.line_id {
            Some(line) => self.lines.get(agent, line).await?,
            None => None,
        };
        let line = line.ok_or(DomainError::not_found("media"))?;
        match self.platform.media(&line, &media_id).await {
            Ok(file) => Ok(file),
            // The platform keeps media for a limited time; what it no longer has is gone.
            Err(refused) if refused.is_refusal() => {
                tracing::info!(media = %media_id, reason = %refused.reason(), "the platform refused a media download");
                Err(DomainError::not_found("media"))
            }
            Err(e) => Err(platform_failure(e)),
        }
    }
}

/// The channel a reply goes out on: the contact's channel the caller named (one the contact
/// does not have is 400 naming `channel`), else the one they last wrote on, else their first
/// channel Parley can send on. A channel of a kind Parley cannot send on is `ChannelUnsupported`.
fn reply_channel(reply: &ReplyContent, channels: &[Channel], last_inbound: Option<&Message>) -> Result<Channel, DomainError> {
    let channel = match (reply.channel(), last_inbound) {
        (Some(asked), _) => channels
            .iter()
            .find(|c| *c == asked)
            .cloned()
            .ok_or_else(|| FieldError::new("channel", "must be one of the contact's channels"))?,
        (None, Some(m)) if sendable(m.channel.channel_type()) => m.channel.clone(),
        (None, _) => channels.iter().find(|c| sendable(c.channel_type())).cloned().ok_or(DomainError::ChannelUnsupported)?,
    };
    if sendable(channel.channel_type()) { Ok(channel) } else { Err(DomainError::ChannelUnsupported) }
}

/// The channels Parley sends replies on.
fn sendable(channel: ChannelType) -> bool {
    matches!(channel, ChannelType::Whatsapp | ChannelType::Instagram | ChannelType::Email)
}

/// How many of an activity's latest messages are searched for the contact's last email when
/// their latest message came on another channel.
const EMAIL_THREAD_LOOKBACK: u32 = 100;

/// An email reply `id` from `line` to `channel`'s address: `Re: <last subject>` unless the reply
/// names its subject, answering `quoted` (the message the caller named) or else the contact's
/// last email, whose thread it joins. Its Message-ID is Parley's id at the line's domain.
fn email_reply(
    reply: &ReplyContent,
    line: &Line,
    channel: &Channel,
    id: &MessageId,
    last: Option<&EmailContent>,
    quoted: Option<&str>,
) -> Result<MessageContent, DomainError> {
    let (text, rich) = match reply.content() {
        MessageContent::Text { body } => (body.clone(), None),
        content => {
            let rich = EmailRich::of(content).ok_or_else(|| FieldError::new("type", crate::model::reply::NOT_ON_EMAIL))?;
            (rich.text(), Some(Box::new(rich)))
        }
    };
    let subject = match (reply.subject(), last) {
        (Some(subject), _) => subject.to_string(),
        (None, Some(last)) => EmailContent::reply_subject(last.subject.as_deref()),
        (None, None) => return Err(FieldError::new("subject", "is required: the contact has written no email to answer").into()),
    };
    let from = line.account_id().to_string();
    let domain = from.rsplit_once('@').map_or("parley.invalid", |(_, d)| d).to_string();
    let in_reply_to = quoted.map(str::to_string).or_else(|| last.map(|l| l.message_id.clone()));
    let mut references = last.map(|l| l.references.clone()).unwrap_or_default();
    references.extend(last.map(|l| l.message_id.clone()));
    if let Some(parent) = &in_reply_to
        && !references.contains(parent)
    {
        references.push(parent.clone());
    }
    Ok(MessageContent::Email(EmailContent {
        subject: Some(subject),
        from,
        to: vec![channel.channel_id().to_string()],
        cc: Vec::new(),
        message_id: format!("{}@{domain}", id.as_str()),
        in_reply_to,
        references,
        text,
        attachments: Vec::new(),
        rich,
    }))
}

impl MessageService {
    /// The business read the conversation: the contact's newest message is marked read on the
    /// platform it came from (with a typing indicator when `typing`), then the activity's
    /// `unread_count` is set to 0. A platform that refuses leaves the count as it was.
    pub async fn mark_read(
        &self,
        agent: &AgentId,
        activity_id: &ActivityId,
        typing: bool,
    ) -> Result<crate::services::ActivityDetail, DomainError> {
        let view = self.activity(agent, activity_id).await?;
        let newest = self.messages.last_inbound(agent, activity_id).await?;
        // A message that reached Parley through a line the agent still has; email lines and
        // contacts who never wrote have nothing to mark.
        if let Some(newest) = newest
            && let (Some(platform_message_id), Some(line_id)) = (newest.platform_message_id, newest.line_id.as_ref())
            && let Some(line) = self.lines.get(agent, line_id).await?
        {
            let mark = ReadMark { to: newest.channel.channel_id().to_string(), platform_message_id, typing };
            self.platform.mark_read(&line, &mark).await.map_err(platform_failure)?;
        }
        if !self.activities.mark_read(agent, activity_id).await? {
            return Err(DomainError::not_found("activity"));
        }
        let carts = self.messages.carts(agent, activity_id).await?;
        Ok(crate::services::ActivityDetail { view: ActivityView { unread_count: 0, ..view }, carts })
    }
}

/// What a caller learns when the platform did not take a message.
pub(crate) fn platform_failure(e: PlatformError) -> DomainError {
    match e {
        PlatformError::RecipientUnsupported { message, .. } => DomainError::RecipientUnsupported(message),
        // Outside a reply (which answers its own `WindowClosed`), the platform's words as given.
        PlatformError::Rejected { code, message, details } | PlatformError::WindowClosed { code, message, details } => {
            DomainError::MessageRejected { code, message, details }
        }
        PlatformError::Unauthorized { message } => DomainError::MessageRejected { code: Some(190), message, details: None },
        e @ PlatformError::Unavailable { .. } => DomainError::Upstream(crate::Cause::new(e)),
    }
}

/// What the platform is asked to send for a reply recorded as `recorded` (sending): to its
/// channel, in that platform's form, named by its id so a later status report can settle it.
fn sent_form(recorded: &Message, preview_url: bool, context: Option<String>, human_agent: bool) -> FreeFormMessage {
    FreeFormMessage {
        to: recorded.channel.channel_id().to_string(),
        content: recorded.content.sent_form(recorded.channel.channel_type()),
        preview_url,
        context,
        callback_data: Some(recorded.id.as_str().to_string()),
        human_agent,
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeDelta, TimeZone, Utc};

    use super::*;

    fn t(s: i64) -> Timestamp {
        Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap() + TimeDelta::seconds(s)
    }

    fn whatsapp(id: &str) -> Channel {
        Channel::new(ChannelType::Whatsapp, id).unwrap()
    }

    fn view(last_inbound_at: Option<Timestamp>, channels: Vec<Channel>) -> ActivityView {
        ActivityView {
            activity: Activity {
                id: ActivityId::new("act_1"),
                agent_id: AgentId::new("agt_1"),
                contact_id: ContactId::new("con_1"),
                status: ActivityStatus::Open,
                assigned_to: None,
                last_inbound_at,
                first_response: FirstResponse::default(),
                created_at: t(0),
                updated_at: t(0),
            },
            profile_name: ProfileName::new("Ann").unwrap(),
            channels,
            tags: vec![],
            last_message: None,
            unread_count: 3,
            assignee: None,
        }
    }

    fn line() -> Line {
        Line {
            id: LineId::new("chn_1"),
            agent_id: AgentId::new("agt_1"),
            account: LineAccount::Whatsapp {
                phone_number_id: PhoneNumberId::new("106540352242922").unwrap(),
                waba_id: WabaId::new("2").unwrap(),
            },
            access: LineAccess::Sandbox,
            created_at: t(0),
            pace: Default::default(),
        }
    }

    fn inbound(platform_id: &str, channel: &str) -> Message {
        Message {
            id: MessageId::new(format!("msg_{platform_id}")),
            agent_id: AgentId::new("agt_1"),
            activity_id: ActivityId::new("act_1"),
            direction: MessageDirection::Inbound,
            content: MessageContent::Text { body: "is it in stock?".into() },
            reply_to: None,
            platform_message_id: Some(platform_id.into()),
            channel: whatsapp(channel),
            line_id: Some(LineId::new("chn_1")),
            status: MessageStatus::Received,
            error_message: None,
            template_id: None,
            campaign_key: None,
            cart_code: None,
            referral: None,
            pricing: None,
            created_at: t(0),
            sent_at: None,
            send_at: None,
            delivered_at: None,
            read_at: None,
            deleted_at: None,
            updated_at: t(0),
        }
    }

    /// A service at `now` over an activity as `view` says, whose contact last wrote `last`.
    struct World {
        activities: MockActivityRepository,
        messages: MockMessageRepository,
        lines: MockLineRepository,
        platform: MockMessagingPlatform,
        idempotency: MockIdempotencyRepository,
        now: Timestamp,
    }

    impl World {
        fn new(view: ActivityView, last: Option<Message>, now: Timestamp) -> Self {
            let mut activities = MockActivityRepository::new();
            activities.expect_get().returning(move |_, _| Ok(Some(view.clone())));
            let mut messages = MockMessageRepository::new();
            let quoted = last.clone();
            messages.expect_last_inbound().returning(move |_, _| Ok(last.clone()));
            messages.expect_get().returning(move |_, _, id| Ok(quoted.clone().filter(|m| &m.id == id)));
            let mut lines = MockLineRepository::new();
            lines.expect_get().returning(|_, _| Ok(Some(line())));
            Self { activities, messages, lines, platform: MockMessagingPlatform::new(), idempotency: MockIdempotencyRepository::new(), now }
        }

        fn service(self) -> MessageService {
            let mut clock = MockClock::new();
            let now = self.now;
            clock.expect_now().returning(move || now);
            let mut ids = MockIdSource::new();
            ids.expect_new_id().returning(|k| format!("{}_new", k.prefix()));
            let ports = MessagePorts {
                activities: Arc::new(self.activities),
                messages: Arc::new(self.messages),
                scheduled: Arc::new(MockScheduledSendRepository::new()),
                lines: Arc::new(self.lines),
                idempotency: Arc::new(self.idempotency),
                files: Arc::new(MockFileRepository::new()),
                products: Arc::new(MockProductRepository::new()),
                carts: Arc::new(MockCartRepository::new()),
                due: crate::services::ResponseDue::no_targets(),
            };
            MessageService::new(ports, Arc::new(self.platform), Arc::new(clock), Arc::new(ids))
        }
    }

    fn text(body: &str) -> ReplyInput {
        ReplyInput { kind: Some("text".into()), body: Some(body.into()), ..ReplyInput::default() }
    }

    async fn reply(world: World, input: ReplyInput) -> Result<Message, DomainError> {
        world.service().reply(&AgentId::new("agt_1"), &ActivityId::new("act_1"), input).await
    }

    #[tokio::test]
    async fn a_reply_goes_to_where_the_contact_last_wrote_quoting_the_platform_id() {
        let channels = vec![whatsapp("14155550199"), whatsapp("14155550100")];
        let mut world = World::new(view(Some(t(0)), channels), Some(inbound("pm.in1", "14155550100")), t(3600));
        world
            .platform
            .expect_send_message()
            .withf(|line, m| {
                line.id.as_str() == "chn_1"
                    && m.to == "14155550100"
                    && m.context.as_deref() == Some("pm.in1")
                    && m.content == MessageContent::Text { body: "Yes!".into() }
            })
            .times(1)
            .returning(|_, _| Ok(SentMessage { message_id: "pm.out1".into(), wa_id: None }));
        recorded_then_sent(&mut world);
        let sent = reply(world, ReplyInput { reply_to: Some("msg_pm.in1".into()), ..text("Yes!") }).await.unwrap();
        assert_eq!((sent.status, sent.direction), (MessageStatus::Sent, MessageDirection::Outbound));
        assert_eq!((sent.platform_message_id.as_deref(), sent.sent_at), (Some("pm.out1"), Some(t(3600))));
        assert_eq!(sent.reply_to.as_ref().map(MessageId::as_str), Some("msg_pm.in1"));
        assert_eq!(sent.channel.channel_id(), "14155550100");
    }

    #[tokio::test]
    async fn outside_the_window_nothing_is_sent() {
        for (last, now) in [(None, t(0)), (Some(t(0)), t(24 * 3600)), (Some(t(0)), t(30 * 24 * 3600))] {
            let mut world = World::new(view(last, vec![whatsapp("14155550100")]), None, now);
            world.platform.expect_send_message().never();
            world.messages.expect_insert_marked().never();
            let e = reply(world, text("hi")).await.unwrap_err();
            assert!(matches!(e, DomainError::WindowClosed { last_inbound_at } if last_inbound_at == last), "{e:?}");
        }
    }

    /// The reply is inserted `sending` (no platform id yet), then moved to `sent` from `sending`.
    fn recorded_then_sent(world: &mut World) {
        let mut seq = mockall::Sequence::new();
        world
            .messages
            .expect_insert_marked()
            .withf(|m, update, mark, events| {
                m.id.as_str() == "msg_new"
                    && m.status == MessageStatus::Sending
                    && m.platform_message_id.is_none()
                    && m.sent_at.is_none()
                    && events.is_empty()
                    && update.is_none()
                    && *mark == ResponseMark::Answers
            })
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _, _, _| Ok(true));
        world
            .messages
            .expect_update_status()
            .withf(|m, expected, events| {
                *expected == MessageStatus::Sending
                    && m.status == MessageStatus::Sent
                    && m.platform_message_id.is_some()
                    && m.sent_at == Some(m.created_at)
                    && events.len() == 1
                    && events[0].event_type == EventType::MessageSent
            })
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _, _| Ok(true));
    }

    /// A world whose platform refuses or fails with `error`, after the reply was recorded.
    fn refused_with(error: PlatformError) -> World {
        let mut world = World::new(view(Some(t(0)), vec![whatsapp("14155550100")]), None, t(60));
        world.lines.expect_list().returning(|_| Ok(vec![line()]));
        world.platform.expect_send_message().times(1).returning(move |_, _| Err(error.clone()));
        world
            .messages
            .expect_insert_marked()
            .withf(|m, _, _, _| m.status == MessageStatus::Sending)
            .times(1)
            .returning(|_, _, _, _| Ok(true));
        world.messages.expect_update_status().never();
        world
    }

    #[tokio::test]
    async fn the_platforms_own_window_refusal_is_window_closed_and_nothing_is_left_recorded() {
        let mut world =
            refused_with(PlatformError::WindowClosed { code: Some(131_047), message: "Re-engagement message".into(), details: None });
        // Removed again, the activity's `updated_at` back to what it was before the reply.
        world
            .messages
            .expect_remove_sending()
            .withf(|m, before| m.id.as_str() == "msg_new" && *before == t(0))
            .times(1)
            .returning(|_, _| Ok(true));
        assert!(matches!(reply(world, text("hi")).await, Err(DomainError::WindowClosed { .. })));
    }

    #[tokio::test]
    async fn a_refusal_removes_the_recorded_reply_and_an_outage_keeps_it_sending() {
        for refusal in [
            PlatformError::Rejected { code: Some(131_026), message: "Message undeliverable".into(), details: None },
            PlatformError::Unauthorized { message: "bad token".into() },
        ] {
            let mut world = refused_with(refusal);
            world.messages.expect_remove_sending().times(1).returning(|_, _| Ok(true));
            assert!(matches!(reply(world, text("hi")).await, Err(DomainError::MessageRejected { .. })));
        }
        // It may have gone out: kept `sending` for a status report to settle, 502 for the caller.
        let mut world = refused_with(PlatformError::Unavailable { message: "timed out".into() });
        world.messages.expect_remove_sending().never();
        assert!(matches!(reply(world, text("hi")).await, Err(DomainError::Upstream(_))));
    }

    #[tokio::test]
    async fn the_reply_is_recorded_and_named_by_the_key_before_the_platform_is_called() {
        let mut world = World::new(view(Some(t(0)), vec![whatsapp("14155550100")]), None, t(60));
        world.lines.expect_list().returning(|_| Ok(vec![line()]));
        let mut seq = mockall::Sequence::new();
        world
            .idempotency
            .expect_set_recovery_point()
            .withf(|agent, key, resource| agent.as_str() == "agt_1" && key == "key-1" && resource == "msg_new")
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _, _| Ok(()));
        world.messages.expect_insert_marked().times(1).in_sequence(&mut seq).returning(|_, _, _, _| Ok(true));
        world
            .platform
            .expect_send_message()
            .withf(|_, m| m.callback_data.as_deref() == Some("msg_new"))
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _| Ok(SentMessage { message_id: "pm.out1".into(), wa_id: None }));
        world.messages.expect_update_status().times(1).in_sequence(&mut seq).returning(|_, _, _| Ok(true));
        let sent =
            world.service().reply_under_key(&AgentId::new("agt_1"), &ActivityId::new("act_1"), text("hi"), Some("key-1")).await.unwrap();
        assert_eq!((sent.id.as_str(), sent.status, sent.platform_message_id.as_deref()), ("msg_new", MessageStatus::Sent, Some("pm.out1")));
    }

    #[tokio::test]
    async fn a_status_report_that_got_there_first_is_what_the_reply_answers() {
        let mut world = World::new(view(Some(t(0)), vec![whatsapp("14155550100")]), None, t(60));
        world.lines.expect_list().returning(|_| Ok(vec![line()]));
        world.platform.expect_send_message().returning(|_, _| Ok(SentMessage { message_id: "pm.out1".into(), wa_id: None }));
        world.messages.expect_insert_marked().returning(|_, _, _, _| Ok(true));
        world.messages.expect_update_status().times(1).returning(|_, _, _| Ok(false));
        world.messages.expect_find_by_id().withf(|_, id| id.as_str() == "msg_new").times(1).returning(|_, _| {
            let delivered = Message {
                id: MessageId::new("msg_new"),
                direction: MessageDirection::Outbound,
                status: MessageStatus::Delivered,
                platform_message_id: Some("pm.out1".into()),
                ..inbound("x", "14155550100")
            };
            Ok(Some(delivered))
        });
        let sent = reply(world, text("hi")).await.unwrap();
        assert_eq!(sent.status, MessageStatus::Delivered);
    }

    #[tokio::test]
    async fn a_contact_only_on_a_channel_parley_cannot_send_on_cannot_be_answered() {
        let sms = Channel::new(ChannelType::Sms, "+1 415 555 0100").unwrap();
        let mut world = World::new(view(Some(t(0)), vec![sms]), None, t(60));
        world.platform.expect_send_message().never();
        assert!(matches!(reply(world, text("hi")).await, Err(DomainError::ChannelUnsupported)));
    }

    #[test]
    fn an_email_reply_joins_the_contacts_thread_from_the_mailbox() {
        let mailbox = Line {
            account: LineAccount::Email { address: Email::new("shop@example.com").unwrap(), inbound_token: InboundTokenDigest::of("t") },
            ..line()
        };
        let ana = Channel::new(ChannelType::Email, "ana@example.com").unwrap();
        let last = EmailContent {
            subject: Some("Order 42".into()),
            from: "ana@example.com".into(),
            message_id: "a2@example.com".into(),
            references: vec!["a0@example.com".into(), "msg_1@example.com".into()],
            ..EmailContent::default()
        };
        let reply = |input: ReplyInput| ReplyContent::new(input).unwrap();
        let id = MessageId::new("msg_9");
        let MessageContent::Email(e) = email_reply(&reply(text("Shipped")), &mailbox, &ana, &id, Some(&last), None).unwrap() else {
            panic!("an email")
        };
        assert_eq!(
            (e.subject.as_deref(), e.from.as_str(), e.to.as_slice()),
            (Some("Re: Order 42"), "shop@example.com", &["ana@example.com".to_string()][..])
        );
        assert_eq!((e.message_id.as_str(), e.in_reply_to.as_deref()), ("msg_9@example.com", Some("a2@example.com")));
        assert_eq!(e.references, ["a0@example.com", "msg_1@example.com", "a2@example.com"]);
        assert_eq!(e.text, "Shipped");

        let named = ReplyInput { subject: Some("Your order".into()), ..text("x") };
        let quoted = email_reply(&reply(named), &mailbox, &ana, &id, Some(&last), Some("msg_1@example.com")).unwrap();
        let e = quoted.email().unwrap();
        assert_eq!((e.subject.as_deref(), e.in_reply_to.as_deref()), (Some("Your order"), Some("msg_1@example.com")));
        assert_eq!(e.references, ["a0@example.com", "msg_1@example.com", "a2@example.com"], "the quoted id is in the thread already");

        let first = email_reply(&reply(text("Hello")), &mailbox, &ana, &id, None, None).unwrap_err();
        assert!(matches!(first, DomainError::Validation(ref errors) if errors[0].field == "subject"), "{first:?}");
    }

    #[test]
    fn email_replies_are_text_or_rich_and_only_email_takes_a_subject() {
        let subject = ReplyContent::new(ReplyInput { subject: Some("Hi".into()), ..text("x") }).unwrap();
        assert_eq!(subject.check_for(ChannelType::Whatsapp).unwrap_err().field, "subject");
        assert!(subject.check_for(ChannelType::Email).is_ok());
        let image = ReplyInput { kind: Some("image".into()), link: Some("https://cdn.example.com/a.jpg".into()), ..ReplyInput::default() };
        assert_eq!(ReplyContent::new(image).unwrap().check_for(ChannelType::Email).unwrap_err().field, "type");
        let tagged = ReplyContent::new(ReplyInput { tag: Some("human_agent".into()), ..text("x") }).unwrap();
        assert_eq!(tagged.check_for(ChannelType::Email).unwrap_err().field, "tag");
    }

    #[tokio::test]
    async fn a_bad_reply_is_refused_before_anything_is_sent() {
        let mut world = World::new(view(Some(t(0)), vec![whatsapp("14155550100")]), None, t(60));
        world.platform.expect_send_message().never();
        world.messages.expect_insert_marked().never();
        let e = reply(world, text("")).await.unwrap_err();
        assert!(matches!(e, DomainError::Validation(ref errors) if errors[0].field == "text.body"), "{e:?}");
    }

    #[tokio::test]
    async fn reply_to_must_be_a_message_of_this_activity() {
        let mut world = World::new(view(Some(t(0)), vec![whatsapp("14155550100")]), Some(inbound("pm.in1", "14155550100")), t(60));
        world.platform.expect_send_message().never();
        let e = reply(world, ReplyInput { reply_to: Some("msg_elsewhere".into()), ..text("hi") }).await.unwrap_err();
        assert!(matches!(e, DomainError::Validation(ref errors) if errors[0].field == "reply_to"), "{e:?}");
    }

    async fn mark_read(mut world: World, typing: bool) -> Result<ActivityView, DomainError> {
        world.messages.expect_carts().returning(|_, _| Ok(vec![]));
        world.service().mark_read(&AgentId::new("agt_1"), &ActivityId::new("act_1"), typing).await.map(|detail| detail.view)
    }

    #[tokio::test]
    async fn reading_marks_the_newest_inbound_message_then_clears_the_count() {
        let mut world = World::new(view(Some(t(0)), vec![whatsapp("14155550100")]), Some(inbound("pm.9", "14155550100")), t(60));
        let mut seq = mockall::Sequence::new();
        world
            .platform
            .expect_mark_read()
            .withf(|line, mark| {
                line.id.as_str() == "chn_1"
                    && mark == &ReadMark { to: "14155550100".into(), platform_message_id: "pm.9".into(), typing: true }
            })
            .times(1)
            .in_sequence(&mut seq)
            .returning(|_, _| Ok(()));
        world.activities.expect_mark_read().times(1).in_sequence(&mut seq).returning(|_, _| Ok(true));
        let read = mark_read(world, true).await.unwrap();
        assert_eq!(read.unread_count, 0);
    }

    #[tokio::test]
    async fn a_refused_read_receipt_leaves_the_count() {
        let mut world = World::new(view(Some(t(0)), vec![whatsapp("14155550100")]), Some(inbound("pm.9", "14155550100")), t(60));
        world.platform.expect_mark_read().returning(|_, _| Err(PlatformError::Unavailable { message: "timed out".into() }));
        world.activities.expect_mark_read().never();
        assert!(matches!(mark_read(world, false).await, Err(DomainError::Upstream(_))));
    }

    #[tokio::test]
    async fn a_conversation_without_inbound_messages_is_read_without_the_platform() {
        let mut world = World::new(view(None, vec![whatsapp("14155550100")]), None, t(60));
        world.platform.expect_mark_read().never();
        world.activities.expect_mark_read().times(1).returning(|_, _| Ok(true));
        assert_eq!(mark_read(world, true).await.unwrap().unread_count, 0);
    }
}
