//! Lines served by the platform that serves them: WhatsApp and Instagram sandbox lines by the
//! in-process sandbox (no network), email lines (sandbox or not) by the email adapter, the others
//! by their platform's client (WhatsApp's Cloud API, Instagram's API).

use std::sync::Arc;

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{MediaFile, MessagingPlatform, PlatformError, SentMessage};

/// Sends each line to the platform that serves it.
pub struct RoutingPlatform {
    pub cloud: Arc<dyn MessagingPlatform>,
    pub instagram: Arc<dyn MessagingPlatform>,
    pub email: Arc<dyn MessagingPlatform>,
    pub sandbox: Arc<dyn MessagingPlatform>,
}

impl RoutingPlatform {
    fn pick(&self, line: &Line) -> &dyn MessagingPlatform {
        match (&line.access, &line.account) {
            (_, LineAccount::Email { .. }) => self.email.as_ref(),
            (LineAccess::Sandbox, _) => self.sandbox.as_ref(),
            (_, LineAccount::Whatsapp { .. }) => self.cloud.as_ref(),
            (_, LineAccount::Instagram { .. }) => self.instagram.as_ref(),
        }
    }
}

#[async_trait]
impl MessagingPlatform for RoutingPlatform {
    async fn templates(&self, line: &Line) -> Result<Vec<TemplateDefinition>, PlatformError> {
        self.pick(line).templates(line).await
    }

    async fn send_template<'a>(
        &self,
        line: &Line,
        message: &TemplateMessage,
        callback_data: Option<&'a str>,
    ) -> Result<SentMessage, PlatformError> {
        self.pick(line).send_template(line, message, callback_data).await
    }

    async fn send_message(&self, line: &Line, message: &FreeFormMessage) -> Result<SentMessage, PlatformError> {
        self.pick(line).send_message(line, message).await
    }

    async fn media(&self, line: &Line, media_id: &str) -> Result<MediaFile, PlatformError> {
        self.pick(line).media(line, media_id).await
    }

    async fn profile_name(&self, line: &Line, contact: &str) -> Result<Option<String>, PlatformError> {
        self.pick(line).profile_name(line, contact).await
    }

    async fn mark_read(&self, line: &Line, mark: &ReadMark) -> Result<(), PlatformError> {
        self.pick(line).mark_read(line, mark).await
    }
}
