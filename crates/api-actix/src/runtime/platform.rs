//! The messaging platform the app sends through: sandbox lines served in-process, the others by
//! the WhatsApp Cloud API.

use std::sync::Arc;
use std::time::Duration;

use parley_adapters_system::RandomIds;
use parley_adapters_whatsapp::{
    CloudApi, CloudApiConfig, InstagramDecoder, RoutingPlatform, SandboxDelivery, SandboxPlatform, WhatsappDecoder,
};
use parley_domain::model::ChannelType;
use parley_domain::ports::MessagingPlatform;
use parley_domain::services::Decoders;
use tokio::sync::mpsc::UnboundedReceiver;

/// The sandbox's status webhooks, for the worker that delivers them.
pub type SandboxDeliveries = UnboundedReceiver<SandboxDelivery>;

/// The messaging platform: sandbox lines served in-process, the others by the Cloud API.
pub fn platform(cloud: CloudApiConfig, sandbox_step: Duration) -> Result<(Arc<dyn MessagingPlatform>, SandboxDeliveries), String> {
    let cloud = CloudApi::new(cloud).map_err(|e| format!("PARLEY_WHATSAPP_API_BASE: {e}"))?;
    let (sandbox, deliveries) = SandboxPlatform::new(sandbox_step, Arc::new(RandomIds));
    Ok((Arc::new(RoutingPlatform { cloud: Arc::new(cloud), sandbox: Arc::new(sandbox) }), deliveries))
}

/// The reader of each platform's webhook bodies.
pub fn decoders() -> Decoders {
    Decoders::default().with(ChannelType::Whatsapp, Arc::new(WhatsappDecoder)).with(ChannelType::Instagram, Arc::new(InstagramDecoder))
}
