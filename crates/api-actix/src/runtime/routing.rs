//! Lines sent from by the platform that serves them: a sandbox line of a platform served
//! in-process by the sandbox (no network), any other line by its platform's sender, as
//! registered in `runtime::platform`.

use std::sync::Arc;

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{MediaFile, MessagingPlatform, PlatformError, SentMessage};

/// Sends each line to the platform that serves it.
pub struct RoutingPlatform {
    /// Each platform's sender, and whether its sandbox lines are the sandbox's.
    senders: Vec<(ChannelType, Arc<dyn MessagingPlatform>, bool)>,
    sandbox: Arc<dyn MessagingPlatform>,
}

impl RoutingPlatform {
    /// Routes by `senders` (a platform, its sender, and whether its sandbox lines go to
    /// `sandbox`).
    pub fn new(senders: Vec<(ChannelType, Arc<dyn MessagingPlatform>, bool)>, sandbox: Arc<dyn MessagingPlatform>) -> Self {
        Self { senders, sandbox }
    }

    fn pick(&self, line: &Line) -> Result<&dyn MessagingPlatform, PlatformError> {
        let channel = line.channel_type();
        let (_, sender, sandbox_in_process) =
            self.senders.iter().find(|(c, ..)| *c == channel).ok_or_else(|| PlatformError::Unavailable {
                message: format!("no platform is registered for {} lines", channel.as_str()),
            })?;
        Ok(if *sandbox_in_process && matches!(line.access, LineAccess::Sandbox) { self.sandbox.as_ref() } else { sender.as_ref() })
    }
}

#[async_trait]
impl MessagingPlatform for RoutingPlatform {
    async fn templates(&self, line: &Line) -> Result<Vec<TemplateDefinition>, PlatformError> {
        self.pick(line)?.templates(line).await
    }

    async fn send_template<'a>(
        &self,
        line: &Line,
        message: &TemplateMessage,
        callback_data: Option<&'a str>,
    ) -> Result<SentMessage, PlatformError> {
        self.pick(line)?.send_template(line, message, callback_data).await
    }

    async fn send_message(&self, line: &Line, message: &FreeFormMessage) -> Result<SentMessage, PlatformError> {
        self.pick(line)?.send_message(line, message).await
    }

    async fn media(&self, line: &Line, media_id: &str) -> Result<MediaFile, PlatformError> {
        self.pick(line)?.media(line, media_id).await
    }

    async fn profile_name(&self, line: &Line, contact: &str) -> Result<Option<String>, PlatformError> {
        self.pick(line)?.profile_name(line, contact).await
    }

    async fn mark_read(&self, line: &Line, mark: &ReadMark) -> Result<(), PlatformError> {
        self.pick(line)?.mark_read(line, mark).await
    }
}
