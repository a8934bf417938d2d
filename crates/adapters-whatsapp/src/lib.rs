//! Meta's two messaging platforms behind the [`MessagingPlatform`] port: the WhatsApp Business
//! Cloud API ([`CloudApi`]) and Instagram's messaging API ([`InstagramApi`]), their webhook
//! readers ([`WhatsappDecoder`], [`InstagramDecoder`]: each platform's wire format stays here),
//! Meta's webhook authentication ([`webhook_auth`]: the body's signature and the subscription
//! handshake), and the in-process sandbox platform. Both platforms share the Graph API's
//! conventions, signatures and errors.
//!
//! One shared HTTP client with request and connect timeouts. Template lists are reads and are
//! retried (at most twice, on 5xx, timeouts and connection failures); a send is never retried,
//! because a duplicate message is worse than a reported failure. The line's token only ever goes
//! into the `Authorization` header: logs carry the method, the path and the status, and error
//! messages never include a URL (a paging link may carry query parameters).
//!
//! Every answer is read with `parley_adapters_http::read_capped`: a Graph API answer Parley
//! parses at most [`ANSWER_CAP`] (a template page [`TEMPLATE_PAGE_CAP`]), an error body at most
//! 64 KiB; past a cap the connection is dropped unread. A media file is streamed through to the
//! caller, never buffered.

use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use parley_adapters_http::{RECORDED_CAP, ReadError, read_capped};
use parley_domain::model::{FreeFormMessage, Line, LineAccess, MediaType, ReadMark, TemplateDefinition, TemplateMessage};
use parley_domain::ports::{MediaFile, MessagingPlatform, PlatformError, SentMessage};
use reqwest::{Method, StatusCode, Url};

mod inbound;
mod inbound_content;
mod instagram;
mod instagram_inbound;
mod instagram_interactive;
mod interactive_wire;
mod pricing;
mod sandbox;
mod template_notice;
mod template_wire;
pub mod webhook_auth;
mod wire;

pub use inbound::{WhatsappDecoder, parse_webhook};
pub use instagram::{DEFAULT_INSTAGRAM_BASE_URL, InstagramApi};
pub use instagram_inbound::{InstagramDecoder, parse_instagram_webhook};
pub use sandbox::{
    SandboxDelivery, SandboxInbound, SandboxPlatform, SandboxSender, inbound_webhook, instagram_inbound_webhook, status_webhook,
    user_inbound_webhook,
};
pub use webhook_auth::MetaSignature;

/// The public Graph API.
pub const DEFAULT_BASE_URL: &str = "https://graph.facebook.com";
/// The Graph API version this adapter is written against.
pub const DEFAULT_VERSION: &str = "v23.0";

/// Retries of a read after the first attempt.
const READ_RETRIES: u32 = 2;
/// A guard against a paging loop: 1,000 pages of 100 templates is far beyond any account.
const MAX_PAGES: usize = 1000;
/// A media download's whole time: the platform's files reach 100 MB.
const MEDIA_TIMEOUT: Duration = Duration::from_secs(300);
/// The largest Graph API answer read for parsing, but for a template page: a send's ids and a
/// media record are a few hundred bytes, so 1 MiB is a thousandfold margin, and a larger answer
/// is no answer of the API this adapter is written against.
pub const ANSWER_CAP: usize = 1024 * 1024;
/// The largest page of the template list read (`limit=100` templates). A template is 1–3 KB of
/// JSON; the platform's own limits (a 1,024-character body, escaped as `\uXXXX` when not ASCII,
/// ten buttons with 2,000-character URLs, carousels of ten cards, examples) keep even the
/// largest under about 60 KB, so 100 of them fit in 6 MB: 8 MiB.
pub const TEMPLATE_PAGE_CAP: usize = 8 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloudApiConfig {
    /// Scheme, host and port (and an optional path prefix) of the Graph API.
    pub base_url: String,
    /// The pinned API version, e.g. `v23.0`.
    pub version: String,
    /// The whole request, response body included.
    pub timeout: Duration,
    pub connect_timeout: Duration,
    /// The pause before the first retry of a read; doubled before the second.
    pub retry_backoff: Duration,
}

impl Default for CloudApiConfig {
    fn default() -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.to_string(),
            version: DEFAULT_VERSION.to_string(),
            timeout: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(3),
            retry_backoff: Duration::from_millis(250),
        }
    }
}

/// Why a [`CloudApi`] could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("the WhatsApp API base URL must be an absolute http(s) URL: {0}")]
    BaseUrl(String),
    #[error("the WhatsApp API version must be a single path segment such as v23.0: {0:?}")]
    Version(String),
    #[error("could not build the HTTP client: {0}")]
    Client(String),
}

/// The Graph API client. Cheap to clone: clones share one connection pool.
#[derive(Debug, Clone)]
pub struct CloudApi {
    client: reqwest::Client,
    /// `{base_url}/{version}/`, always ending in a slash.
    root: Url,
    retry_backoff: Duration,
}

/// A failed attempt, and whether a read may try again.
struct Failure {
    error: PlatformError,
    retryable: bool,
}

fn unavailable(message: impl Into<String>) -> PlatformError {
    PlatformError::Unavailable { message: message.into() }
}

impl CloudApi {
    pub fn new(config: CloudApiConfig) -> Result<Self, ConfigError> {
        let base = Url::parse(config.base_url.trim()).map_err(|_| ConfigError::BaseUrl(config.base_url.clone()))?;
        if !matches!(base.scheme(), "http" | "https") || base.cannot_be_a_base() || base.query().is_some() {
            return Err(ConfigError::BaseUrl(config.base_url));
        }
        let version = config.version.trim().trim_matches('/');
        if version.is_empty() || version.contains(['/', '?', '#']) || version.contains(char::is_whitespace) {
            return Err(ConfigError::Version(config.version));
        }
        let root = Url::parse(&format!("{}/{version}/", base.as_str().trim_end_matches('/')))
            .map_err(|_| ConfigError::BaseUrl(config.base_url.clone()))?;
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.connect_timeout)
            // The Graph API does not redirect; never carry a bearer token anywhere else.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ConfigError::Client(e.without_url().to_string()))?;
        Ok(Self { client, root, retry_backoff: config.retry_backoff })
    }

    /// `{base}/{version}/{segments…}`. The segments are platform ids (digits) and fixed names.
    fn endpoint(&self, segments: &[&str]) -> Result<Url, PlatformError> {
        self.root.join(&segments.join("/")).map_err(|_| unavailable("could not build the platform URL"))
    }

    /// One request, its status checked and its body read: at most `cap` bytes of a success,
    /// 64 KiB of an error (classified by its status alone when longer).
    async fn call<B: serde::Serialize>(
        &self,
        method: Method,
        url: &Url,
        token: &str,
        body: Option<&B>,
        cap: usize,
    ) -> Result<Vec<u8>, Failure> {
        let mut request = self.client.request(method.clone(), url.clone()).bearer_auth(token);
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(e) => {
                tracing::debug!(%method, path = url.path(), error = transport_kind(&e), "whatsapp api request failed");
                return Err(transport(&e));
            }
        };
        let status = response.status();
        tracing::debug!(%method, path = url.path(), status = status.as_u16(), "whatsapp api response");
        if !status.is_success() {
            return match read_capped(response, RECORDED_CAP).await {
                Ok(bytes) => Err(from_status(status, &bytes)),
                Err(ReadError::TooLarge { .. }) => Err(from_status(status, b"")),
                Err(ReadError::Transport(e)) => Err(transport(&e)),
            };
        }
        read_capped(response, cap).await.map_err(|e| match e {
            // Like a malformed answer: another attempt would get the same.
            ReadError::TooLarge { cap } => {
                tracing::debug!(%method, path = url.path(), cap, "whatsapp api answer over the cap; connection dropped");
                Failure { error: unavailable(format!("the platform's answer was larger than {cap} bytes; not read")), retryable: false }
            }
            ReadError::Transport(e) => transport(&e),
        })
    }

    /// A read, retried on 5xx, timeouts and connection failures with a short backoff.
    async fn get(&self, url: &Url, token: &str, cap: usize) -> Result<Vec<u8>, PlatformError> {
        let mut retries = 0;
        loop {
            match self.call::<()>(Method::GET, url, token, None, cap).await {
                Ok(body) => return Ok(body),
                Err(f) if f.retryable && retries < READ_RETRIES => {
                    tokio::time::sleep(self.retry_backoff * 2u32.pow(retries)).await;
                    retries += 1;
                }
                Err(f) => return Err(f.error),
            }
        }
    }

    /// The platform's `paging.next`, followed only on the configured API's origin so the token
    /// never travels to another host.
    fn next_page(&self, next: &str) -> Result<Url, PlatformError> {
        match Url::parse(next) {
            Ok(url) if url.origin() == self.root.origin() => Ok(url),
            _ => Err(unavailable("the platform's paging link does not point at the configured API; not followed")),
        }
    }
}

/// The bearer token of a Cloud API line.
fn token(line: &Line) -> Result<&str, PlatformError> {
    match &line.access {
        LineAccess::Cloud(token) => Ok(token.expose()),
        LineAccess::Sandbox => {
            Err(PlatformError::Unauthorized { message: "a sandbox line has no Cloud API credentials; it cannot reach the platform".into() })
        }
        LineAccess::Mail(_) => Err(PlatformError::Unauthorized { message: "a mailbox line has no Cloud API credentials".into() }),
    }
}

fn transport_kind(e: &reqwest::Error) -> &'static str {
    if e.is_timeout() {
        "timeout"
    } else if e.is_connect() {
        "connect"
    } else if e.is_builder() {
        "builder"
    } else {
        "request"
    }
}

/// A request that got no complete response. The message names no URL.
fn transport(e: &reqwest::Error) -> Failure {
    if e.is_builder() {
        // Our URLs are parsed beforehand, so the header is what failed: the token itself.
        return Failure {
            error: PlatformError::Unauthorized { message: "the line's access token cannot be sent as a header".into() },
            retryable: false,
        };
    }
    let message = if e.is_timeout() {
        "the platform did not answer in time".to_string()
    } else if e.is_connect() {
        match root_cause(e) {
            Some(cause) => format!("could not connect to the platform: {cause}"),
            None => "could not connect to the platform".to_string(),
        }
    } else {
        "the request to the platform failed before a complete response".to_string()
    };
    Failure { error: unavailable(message), retryable: true }
}

/// The innermost error of a chain (a socket error, say), which carries no URL.
fn root_cause(e: &reqwest::Error) -> Option<String> {
    let mut source = std::error::Error::source(e)?;
    while let Some(next) = source.source() {
        source = next;
    }
    Some(source.to_string())
}

/// The Graph error code for a free-form message outside the customer service window
/// ("Re-engagement message").
const WINDOW_CLOSED: i64 = 131_047;
/// The Graph error code for a message a business-scoped user id cannot receive (an
/// authentication template).
const RECIPIENT_UNSUPPORTED: i64 = 131_062;

/// A non-2xx answer, classified by status and the platform's error object: the refusals the
/// domain has a word for by their Graph code, any other as the platform gave it.
fn from_status(status: StatusCode, body: &[u8]) -> Failure {
    let error = serde_json::from_slice::<wire::ErrorEnvelope>(body).ok().and_then(|e| e.error).unwrap_or_default();
    let message = error.message.filter(|m| !m.is_empty());
    let code = error.code;
    if status == StatusCode::UNAUTHORIZED || code == Some(190) {
        let message = message.unwrap_or_else(|| format!("HTTP {}", status.as_u16()));
        return Failure { error: PlatformError::Unauthorized { message }, retryable: false };
    }
    if status.is_client_error() {
        let message = message.unwrap_or_else(|| format!("HTTP {}", status.as_u16()));
        let details = error.error_data.and_then(|d| d.details);
        let error = match code {
            Some(WINDOW_CLOSED) => PlatformError::WindowClosed { code, message, details },
            Some(RECIPIENT_UNSUPPORTED) => PlatformError::RecipientUnsupported { code, message, details },
            _ => PlatformError::Rejected { code, message, details },
        };
        return Failure { error, retryable: false };
    }
    let message = match message {
        Some(m) => format!("HTTP {}: {m}", status.as_u16()),
        None => format!("HTTP {}", status.as_u16()),
    };
    Failure { error: unavailable(message), retryable: status.is_server_error() }
}

#[async_trait]
impl MessagingPlatform for CloudApi {
    async fn templates(&self, line: &Line) -> Result<Vec<TemplateDefinition>, PlatformError> {
        let token = token(line)?;
        let waba_id = line.waba_id().ok_or_else(|| PlatformError::Rejected {
            code: None,
            message: "only a WhatsApp line has templates".into(),
            details: None,
        })?;
        let mut url = self.endpoint(&[waba_id.as_str(), "message_templates"])?;
        url.query_pairs_mut().append_pair("limit", "100");
        let mut templates = Vec::new();
        for _ in 0..MAX_PAGES {
            let body = self.get(&url, token, TEMPLATE_PAGE_CAP).await?;
            let page: wire::TemplatePage =
                serde_json::from_slice(&body).map_err(|_| unavailable("the platform's template list could not be read"))?;
            templates.extend(page.data.unwrap_or_default().into_iter().map(TemplateDefinition::from));
            match page.paging.and_then(|p| p.next).filter(|n| !n.is_empty()) {
                Some(next) => url = self.next_page(&next)?,
                None => return Ok(templates),
            }
        }
        Err(unavailable(format!("the platform's template list did not end after {MAX_PAGES} pages")))
    }

    async fn send_template<'a>(
        &self,
        line: &Line,
        message: &TemplateMessage,
        callback_data: Option<&'a str>,
    ) -> Result<SentMessage, PlatformError> {
        // Marketing templates through the Marketing Messages API (same body, its own path).
        let path = if message.marketing { "marketing_messages" } else { "messages" };
        self.send_to(line, path, &template_wire::SendRequest::new(message, callback_data)).await
    }

    async fn send_message(&self, line: &Line, message: &FreeFormMessage) -> Result<SentMessage, PlatformError> {
        let body = wire::FreeFormRequest::new(message).ok_or_else(|| PlatformError::Rejected {
            code: None,
            message: "only text, media by link, interactive messages, locations and reactions can be sent as a free-form message".into(),
            details: None,
        })?;
        self.send(line, &body).await
    }

    async fn media(&self, line: &Line, media_id: &str) -> Result<MediaFile, PlatformError> {
        let token = token(line)?;
        // A path segment: the platform's media ids are digits, never a path of their own.
        if media_id.is_empty() || !media_id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
            return Err(PlatformError::Rejected { code: None, message: "not a platform media id".into(), details: None });
        }
        let mut url = self.endpoint(&[media_id])?;
        url.query_pairs_mut().append_pair("phone_number_id", line.account_id());
        let body = self.get(&url, token, ANSWER_CAP).await?;
        let info: wire::MediaInfo =
            serde_json::from_slice(&body).map_err(|_| unavailable("the platform's media record could not be read"))?;
        let file_url = self.media_url(&info.url)?;
        let response =
            self.client.get(file_url.clone()).bearer_auth(token).timeout(MEDIA_TIMEOUT).send().await.map_err(|e| transport(&e).error)?;
        let status = response.status();
        tracing::debug!(path = file_url.path(), status = status.as_u16(), "whatsapp media download");
        if !status.is_success() {
            // Only the platform's error object is kept: past 64 KiB the status alone classifies.
            let bytes = read_capped(response, RECORDED_CAP).await.unwrap_or_default();
            return Err(from_status(status, &bytes).error);
        }
        // The metadata's type, else the download's; either is the platform's text, so one that
        // is not a media type (a line break in it, say) is served as bytes.
        let header = response.headers().get(reqwest::header::CONTENT_TYPE).and_then(|v| v.to_str().ok());
        let mime_type = MediaType::or_octet_stream(info.mime_type.as_deref().or(header));
        let length = response.content_length();
        let body = response.bytes_stream().map(|chunk| chunk.map(|b| b.to_vec()).map_err(|e| transport(&e).error)).boxed();
        Ok(MediaFile { mime_type, length, body })
    }

    /// One attempt: the caller learns of a failure and may ask again (marking read twice is
    /// harmless).
    async fn mark_read(&self, line: &Line, mark: &ReadMark) -> Result<(), PlatformError> {
        let token = token(line)?;
        let url = self.endpoint(&[line.account_id(), "messages"])?;
        self.call(Method::POST, &url, token, Some(&wire::MarkReadRequest::new(mark)), ANSWER_CAP).await.map_err(|f| f.error)?;
        Ok(())
    }
}

impl CloudApi {
    /// One send of a message body. Exactly one attempt: whatever failed, the message may have
    /// gone out.
    async fn send<B: serde::Serialize>(&self, line: &Line, body: &B) -> Result<SentMessage, PlatformError> {
        self.send_to(line, "messages", body).await
    }

    /// [`send`](Self::send) to the line's `path` (`messages`, `marketing_messages`).
    async fn send_to<B: serde::Serialize>(&self, line: &Line, path: &str, body: &B) -> Result<SentMessage, PlatformError> {
        let token = token(line)?;
        let url = self.endpoint(&[line.account_id(), path])?;
        let response = self.call(Method::POST, &url, token, Some(body), ANSWER_CAP).await.map_err(|f| f.error)?;
        let accepted = || unavailable("the platform answered the send with a body that could not be read; the message may have gone out");
        let parsed: wire::SendResponse = serde_json::from_slice(&response).map_err(|_| accepted())?;
        let message_id =
            parsed.messages.unwrap_or_default().into_iter().next().map(|m| m.id).filter(|id| !id.is_empty()).ok_or_else(accepted)?;
        let wa_id = parsed.contacts.unwrap_or_default().into_iter().next().and_then(|c| c.wa_id);
        Ok(SentMessage { message_id, wa_id })
    }

    /// Where the platform serves a media file: its CDN, over https, or the configured API's own
    /// origin (a local fake Graph API). The token goes with the request, as the platform
    /// requires, so never over plain http to another host.
    fn media_url(&self, raw: &str) -> Result<Url, PlatformError> {
        match Url::parse(raw) {
            Ok(url) if url.scheme() == "https" || url.origin() == self.root.origin() => Ok(url),
            _ => Err(unavailable("the platform's media URL is neither https nor on the configured API; not followed")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_public_api_pinned() {
        let c = CloudApiConfig::default();
        assert_eq!((c.base_url.as_str(), c.version.as_str()), ("https://graph.facebook.com", "v23.0"));
        assert_eq!((c.timeout, c.connect_timeout), (Duration::from_secs(10), Duration::from_secs(3)));
        let api = CloudApi::new(c).unwrap();
        assert_eq!(api.endpoint(&["123", "messages"]).unwrap().as_str(), "https://graph.facebook.com/v23.0/123/messages");
    }

    #[test]
    fn a_base_url_with_a_prefix_and_trailing_slash_is_kept() {
        let api = CloudApi::new(CloudApiConfig { base_url: "http://localhost:8080/graph/".into(), ..Default::default() }).unwrap();
        assert_eq!(api.endpoint(&["9", "message_templates"]).unwrap().as_str(), "http://localhost:8080/graph/v23.0/9/message_templates");
    }

    #[test]
    fn bad_configuration_is_refused() {
        assert!(matches!(
            CloudApi::new(CloudApiConfig { base_url: "graph.facebook.com".into(), ..Default::default() }),
            Err(ConfigError::BaseUrl(_))
        ));
        assert!(matches!(CloudApi::new(CloudApiConfig { base_url: "ftp://x".into(), ..Default::default() }), Err(ConfigError::BaseUrl(_))));
        assert!(matches!(CloudApi::new(CloudApiConfig { version: "v1/../x".into(), ..Default::default() }), Err(ConfigError::Version(_))));
    }

    #[test]
    fn paging_links_are_followed_on_the_same_origin_only() {
        let api = CloudApi::new(CloudApiConfig::default()).unwrap();
        assert!(api.next_page("https://graph.facebook.com/v23.0/1/message_templates?after=abc").is_ok());
        assert!(api.next_page("https://evil.example/v23.0/1/message_templates").is_err());
        assert!(api.next_page("http://graph.facebook.com/v23.0/1/message_templates").is_err());
        assert!(api.next_page("/relative").is_err());
    }

    #[test]
    fn statuses_and_error_codes_are_classified() {
        let body = |code: i64| format!(r#"{{"error":{{"message":"m","type":"OAuthException","code":{code},"fbtrace_id":"x"}}}}"#);
        let f = from_status(StatusCode::BAD_REQUEST, body(190).as_bytes());
        assert!(matches!(f.error, PlatformError::Unauthorized { .. }) && !f.retryable);
        let f = from_status(StatusCode::UNAUTHORIZED, b"not json");
        assert_eq!(f.error, PlatformError::Unauthorized { message: "HTTP 401".into() });
        let f = from_status(StatusCode::TOO_MANY_REQUESTS, body(130429).as_bytes());
        assert_eq!(f.error, PlatformError::Rejected { code: Some(130429), message: "m".into(), details: None });
        let f = from_status(StatusCode::NOT_FOUND, b"");
        assert_eq!(f.error, PlatformError::Rejected { code: None, message: "HTTP 404".into(), details: None });
        // The refusals the domain has a word for, with the platform's own words kept for records.
        let f = from_status(StatusCode::BAD_REQUEST, body(131047).as_bytes());
        assert_eq!(f.error, PlatformError::WindowClosed { code: Some(131047), message: "m".into(), details: None });
        assert_eq!(f.error.reason(), "131047: m");
        let f = from_status(StatusCode::BAD_REQUEST, body(131062).as_bytes());
        assert_eq!(f.error, PlatformError::RecipientUnsupported { code: Some(131062), message: "m".into(), details: None });
        let f = from_status(StatusCode::BAD_GATEWAY, body(2).as_bytes());
        assert!(f.retryable);
        assert_eq!(f.error, PlatformError::Unavailable { message: "HTTP 502: m".into() });
        let f = from_status(StatusCode::FOUND, b"");
        assert!(matches!(f.error, PlatformError::Unavailable { .. }) && !f.retryable);
    }
}
