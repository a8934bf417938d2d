//! The messaging platforms, each registered once with everything the app needs of it: how its
//! webhook deliveries are proven and read, and how its lines' messages go out. A new platform is
//! an adapter crate implementing those ports and one entry in [`Platforms::build`].

use std::sync::Arc;
use std::time::Duration;

use parley_adapters_email::ports::{EmailDecoder, EmailPlatform};
use parley_adapters_system::RandomIds;
use parley_adapters_whatsapp::{
    CloudApi, CloudApiConfig, InstagramApi, InstagramDecoder, MetaSignature, SandboxDelivery, SandboxPlatform, WhatsappDecoder,
};
use parley_domain::model::ChannelType;
use parley_domain::ports::{InboundDecoder, InboundVerifier, MessagingPlatform};
use parley_domain::services::Decoders;
use tokio::sync::mpsc::UnboundedReceiver;

use super::routing::RoutingPlatform;

/// The sandbox's status webhooks, for the worker that delivers them.
pub type SandboxDeliveries = UnboundedReceiver<SandboxDelivery>;

/// What the platforms' clients and webhooks are configured with.
#[derive(Debug, Clone)]
pub struct PlatformSettings {
    /// WhatsApp's Cloud API.
    pub cloud: CloudApiConfig,
    /// Instagram's API (pinned to the same Graph version as WhatsApp's).
    pub instagram: CloudApiConfig,
    /// How long the in-process sandbox waits between a sent message's statuses.
    pub sandbox_step: Duration,
    /// Meta's app secret and verify token, which prove WhatsApp's and Instagram's webhooks.
    pub meta: MetaSignature,
}

impl Default for PlatformSettings {
    /// The platforms' public APIs, a three-second sandbox and no Meta secrets (every webhook
    /// refused): what a command that sends nothing runs with.
    fn default() -> Self {
        Self {
            cloud: CloudApiConfig::default(),
            instagram: instagram_config(parley_adapters_whatsapp::DEFAULT_INSTAGRAM_BASE_URL),
            sandbox_step: Duration::from_secs(3),
            meta: MetaSignature::default(),
        }
    }
}

/// One platform as the app serves it.
pub struct PlatformSeam {
    /// Which platform.
    pub channel: ChannelType,
    /// What proves its webhook's deliveries, served at `/webhooks/{channel}`; `None` where
    /// each line's own token proves them instead (email, at `/webhooks/email/{line_id}`).
    pub verifier: Option<Arc<dyn InboundVerifier>>,
    /// Reads its deliveries into messages, statuses and changes.
    pub decoder: Arc<dyn InboundDecoder>,
    /// Sends from its lines and fetches their media.
    pub sender: Arc<dyn MessagingPlatform>,
    /// Whether its sandbox lines are served by the in-process sandbox (no network) rather
    /// than by `sender`.
    pub sandbox_in_process: bool,
}

/// Every platform, registered once.
pub struct Platforms {
    seams: Vec<PlatformSeam>,
    sandbox: Arc<dyn MessagingPlatform>,
}

impl Platforms {
    /// The platforms Parley serves, configured by `settings`, with the in-process sandbox's
    /// status webhooks for the worker that delivers them.
    pub fn build(settings: PlatformSettings) -> Result<(Self, SandboxDeliveries), String> {
        let cloud = CloudApi::new(settings.cloud).map_err(|e| format!("PARLEY_WHATSAPP_API_BASE: {e}"))?;
        let instagram = InstagramApi::new(settings.instagram).map_err(|e| format!("PARLEY_INSTAGRAM_API_BASE: {e}"))?;
        let (sandbox, deliveries) = SandboxPlatform::new(settings.sandbox_step, Arc::new(RandomIds));
        // One Meta app signs WhatsApp's and Instagram's deliveries alike.
        let meta: Arc<dyn InboundVerifier> = Arc::new(settings.meta);
        let seams = vec![
            PlatformSeam {
                channel: ChannelType::Whatsapp,
                verifier: Some(meta.clone()),
                decoder: Arc::new(WhatsappDecoder),
                sender: Arc::new(cloud),
                sandbox_in_process: true,
            },
            PlatformSeam {
                channel: ChannelType::Instagram,
                verifier: Some(meta),
                decoder: Arc::new(InstagramDecoder),
                sender: Arc::new(instagram),
                sandbox_in_process: true,
            },
            // Email sandbox lines still go through SMTP: a sandbox mailbox is a test server's.
            PlatformSeam {
                channel: ChannelType::Email,
                verifier: None,
                decoder: Arc::new(EmailDecoder),
                sender: Arc::new(EmailPlatform),
                sandbox_in_process: false,
            },
        ];
        Ok((Self { seams, sandbox: Arc::new(sandbox) }, deliveries))
    }

    /// The platforms that sign their deliveries, each served at `/webhooks/{platform}`.
    pub fn signing_platforms(&self) -> impl Iterator<Item = ChannelType> + '_ {
        self.seams.iter().filter(|s| s.verifier.is_some()).map(|s| s.channel)
    }

    /// What proves `platform`'s deliveries, when it signs them.
    pub fn verifier(&self, platform: ChannelType) -> Option<&dyn InboundVerifier> {
        self.seams.iter().find(|s| s.channel == platform).and_then(|s| s.verifier.as_deref())
    }

    /// Each platform's reader of deliveries.
    pub fn decoders(&self) -> Decoders {
        self.seams.iter().fold(Decoders::default(), |decoders, s| decoders.with(s.channel, s.decoder.clone()))
    }

    /// What sends from any line: its platform's sender, or the sandbox for a sandbox line of a
    /// platform served in-process.
    pub fn sender(&self) -> Arc<dyn MessagingPlatform> {
        Arc::new(RoutingPlatform::new(
            self.seams.iter().map(|s| (s.channel, s.sender.clone(), s.sandbox_in_process)).collect(),
            self.sandbox.clone(),
        ))
    }
}

/// Instagram's API at `base_url`, pinned to the same Graph version as WhatsApp's.
pub fn instagram_config(base_url: &str) -> CloudApiConfig {
    CloudApiConfig { base_url: base_url.to_string(), ..CloudApiConfig::default() }
}
