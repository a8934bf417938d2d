//! The messaging platforms the app sends through: sandbox lines served in-process, the others by
//! the WhatsApp Cloud API, Instagram's API or SMTP, and the reader of each platform's deliveries.

use std::sync::Arc;
use std::time::Duration;

use parley_adapters_email::ports::{EmailDecoder, EmailPlatform};
use parley_adapters_system::RandomIds;
use parley_adapters_whatsapp::{
    CloudApi, CloudApiConfig, InstagramApi, InstagramDecoder, SandboxDelivery, SandboxPlatform, WhatsappDecoder,
};

use super::routing::RoutingPlatform;
use parley_domain::model::ChannelType;
use parley_domain::ports::MessagingPlatform;
use parley_domain::services::Decoders;
use tokio::sync::mpsc::UnboundedReceiver;

/// The sandbox's status webhooks, for the worker that delivers them.
pub type SandboxDeliveries = UnboundedReceiver<SandboxDelivery>;

/// The messaging platform: sandbox lines served in-process, the others by the Cloud API.
pub fn platform(
    cloud: CloudApiConfig,
    instagram: CloudApiConfig,
    sandbox_step: Duration,
) -> Result<(Arc<dyn MessagingPlatform>, SandboxDeliveries), String> {
    let cloud = CloudApi::new(cloud).map_err(|e| format!("PARLEY_WHATSAPP_API_BASE: {e}"))?;
    let instagram = InstagramApi::new(instagram).map_err(|e| format!("PARLEY_INSTAGRAM_API_BASE: {e}"))?;
    let (sandbox, deliveries) = SandboxPlatform::new(sandbox_step, Arc::new(RandomIds));
    let routing = RoutingPlatform {
        cloud: Arc::new(cloud),
        instagram: Arc::new(instagram),
        email: Arc::new(EmailPlatform),
        sandbox: Arc::new(sandbox),
    };
    Ok((Arc::new(routing), deliveries))
}

/// Instagram's API at `base_url`, pinned to the same Graph version as WhatsApp's.
pub fn instagram_config(base_url: &str) -> CloudApiConfig {
    CloudApiConfig { base_url: base_url.to_string(), ..CloudApiConfig::default() }
}

/// The reader of each platform's webhook bodies.
pub fn decoders() -> Decoders {
    Decoders::default()
        .with(ChannelType::Whatsapp, Arc::new(WhatsappDecoder))
        .with(ChannelType::Instagram, Arc::new(InstagramDecoder))
        .with(ChannelType::Email, Arc::new(EmailDecoder))
}
