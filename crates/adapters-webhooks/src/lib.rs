//! [`HttpWebhookSender`]: each delivery one `POST` with the Standard Webhooks headers, at most
//! [`SEND_TIMEOUT`] from connect to the last byte of the answer, redirects never followed, at most
//! 64 KiB of the answer's body read (the status is what counts).
//!
//! A host name is resolved at each new connection by [`PublicOnly`], which refuses it when any
//! of its addresses is not public: the check and the connection use the same answer, so a name
//! that changes to a private address between the two (DNS rebinding) cannot slip through.

mod public_only;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use parley_adapters_http::{RECORDED_CAP, ReadError, read_capped};
use parley_domain::model::{Host, is_public};
use parley_domain::ports::{OutgoingDelivery, ReceiverAnswer, WebhookSender};

pub use public_only::PublicOnly;

/// How long a receiver has to answer, connection included.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// Sends deliveries with one shared connection pool.
#[derive(Clone)]
pub struct HttpWebhookSender {
    client: reqwest::Client,
    allow_private: bool,
    timeout: Duration,
}

impl HttpWebhookSender {
    /// `allow_private`: the operator's `PARLEY_WEBHOOK_ALLOW_PRIVATE` (tests, on-premise
    /// receivers), which lifts the address rules. `timeout` is [`SEND_TIMEOUT`] but in tests.
    pub fn new(allow_private: bool, timeout: Duration) -> Result<Self, String> {
        let mut builder = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("Parley-Webhooks/", env!("CARGO_PKG_VERSION")))
            .pool_idle_timeout(Duration::from_secs(30));
        if !allow_private {
            builder = builder.dns_resolver(Arc::new(PublicOnly));
        }
        let client = builder.build().map_err(|e| format!("the webhook HTTP client cannot be built: {e}"))?;
        Ok(Self { client, allow_private, timeout })
    }
}

/// An error with its causes, for the attempt's record: reqwest's own text ("error sending
/// request") says nothing about why.
fn describe(e: &reqwest::Error, timeout: Duration) -> String {
    if e.is_timeout() {
        return format!("no answer within {} ms", timeout.as_millis());
    }
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[async_trait]
impl WebhookSender for HttpWebhookSender {
    async fn send<'a>(&self, delivery: &OutgoingDelivery<'a>) -> ReceiverAnswer {
        // An address written in the URL never reaches the resolver: checked here instead.
        if let Host::Address(ip) = delivery.url.host()
            && !self.allow_private
            && !is_public(ip)
        {
            return ReceiverAnswer::NoAnswer(format!("refused: {ip} is not a public address"));
        }
        let request = self
            .client
            .post(delivery.url.as_str())
            .header("content-type", "application/json")
            .header("webhook-id", delivery.id)
            .header("webhook-timestamp", delivery.timestamp.to_string())
            .header("webhook-signature", &delivery.signature)
            .body(delivery.body.to_string());
        match request.send().await {
            // The status is the answer. The body is read (and dropped) so the connection can be
            // reused, within the same time limit, but only up to `RECORDED_CAP`: past it the
            // connection is dropped unread and the delivery still counts (a receiver answering
            // 1 GiB must not make Parley hold it, nor spend the time limit draining it).
            Ok(response) => {
                let status = response.status().as_u16();
                match read_capped(response, RECORDED_CAP).await {
                    Ok(_) | Err(ReadError::TooLarge { .. }) => ReceiverAnswer::Status(status),
                    Err(ReadError::Transport(e)) => {
                        ReceiverAnswer::NoAnswer(format!("answered {status}, then {}", describe(&e, self.timeout)))
                    }
                }
            }
            Err(e) => ReceiverAnswer::NoAnswer(describe(&e, self.timeout)),
        }
    }
}
