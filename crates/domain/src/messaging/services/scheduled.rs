//! Scheduled messages at their time: claimed in due order, started by exactly one worker, sent
//! as they were asked.

use std::sync::Arc;

use chrono::TimeDelta;

use crate::DomainError;
use crate::model::{Message, ScheduledRequest, ScheduledSend};
use crate::ports::{Clock, LineRepository, ScheduledSendRepository, SendPacer};
use crate::services::{MessageService, SendService};

/// How long a claimed send is another worker's to leave alone: long enough for a paced burst
/// of a claim to go out. A worker that stops leaves its claims to the next one after it; the
/// start's compare-and-set keeps a send from going out twice whatever the lease.
pub const SCHEDULE_LEASE: TimeDelta = TimeDelta::seconds(60);

/// Sends scheduled replies and template sends when they are due.
pub struct ScheduledSender {
    scheduled: Arc<dyn ScheduledSendRepository>,
    lines: Arc<dyn LineRepository>,
    pacer: Arc<dyn SendPacer>,
    replies: Arc<MessageService>,
    templates: Arc<SendService>,
    clock: Arc<dyn Clock>,
}

impl ScheduledSender {
    /// Replies go out through `replies`, template sends through `templates`, each once its
    /// line's turn (`lines`, `pacer`) has come.
    pub fn new(
        scheduled: Arc<dyn ScheduledSendRepository>,
        lines: Arc<dyn LineRepository>,
        pacer: Arc<dyn SendPacer>,
        replies: Arc<MessageService>,
        templates: Arc<SendService>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self { scheduled, lines, pacer, replies, templates, clock }
    }

    /// Claims up to `limit` due sends, the earliest first, for [`SCHEDULE_LEASE`].
    pub async fn claim(&self, limit: u32) -> Result<Vec<ScheduledSend>, DomainError> {
        let now = self.clock.now();
        Ok(self.scheduled.claim_due(now, now + SCHEDULE_LEASE, limit).await?)
    }

    /// Waits for its line's turn, then starts a claimed send and sends it: `None` when it is
    /// not scheduled any more (cancelled, or another worker started it), else the message as
    /// sending left it (`sent`, `failed` with why, or `sending` when the platform did not
    /// answer a reply). The turn comes first so that a process stopped while waiting leaves
    /// the message scheduled, for the next one.
    pub async fn send(&self, send: ScheduledSend) -> Result<Option<Message>, DomainError> {
        // A line that is gone takes no turn: the send fails at once, saying so.
        if let Some(line) = self.lines.get(&send.agent_id, &send.line_id).await? {
            self.pacer.wait_turn(&line.id, line.pace).await;
        }
        let Some(message) = self.scheduled.start(&send.agent_id, &send.message_id, self.clock.now()).await? else {
            return Ok(None);
        };
        let sent = match send.request {
            ScheduledRequest::Reply { preview_url, human_agent } => self.replies.send_scheduled(message, preview_url, human_agent).await?,
            ScheduledRequest::Template { template_id, to, components, campaign } => {
                self.templates.send_scheduled(message, &template_id, &to, components, campaign).await?
            }
        };
        Ok(Some(sent))
    }

    /// How many scheduled messages wait, due or not.
    pub async fn pending(&self) -> Result<u64, DomainError> {
        Ok(self.scheduled.pending().await?)
    }
}
