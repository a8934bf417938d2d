//! [`OpenAiEmbedder`]: the [`Embedder`] port over any OpenAI-compatible `POST /embeddings`
//! endpoint (OpenAI itself, Ollama, vLLM, llama.cpp's server, text-embeddings-inference, LiteLLM…).
//!
//! One shared HTTP client with a whole-request timeout. Texts go out in batches of
//! `batch_size`, one batch after another; every answer is placed by its `index` (servers do not
//! all keep the order), checked for count and length, and L2-normalized (not every compatible
//! server normalizes). Embedding is a pure read, so failed attempts are retried with
//! exponential backoff and jitter on 429, 5xx, timeouts and connection failures, honouring
//! `Retry-After` in seconds (or OpenAI's `retry-after-ms`), capped at 60 s; other 4xx answers
//! are never retried.
//!
//! The API key only ever goes into the `Authorization` header: `Debug` shows `***`, logs carry
//! the attempt, the status and the delay (never the key nor the texts), and error messages are
//! scrubbed of the key in case a server echoes it back.
//!
//! Answers are read with `parley_adapters_http::read_capped`: a success at most
//! [`answer_cap`] bytes (from the batch's size and dimensions), an error body at most 64 KiB;
//! past the cap the connection is dropped unread, and a success that large is `Failed` (not
//! retried: the same request would get the same answer), like one that cannot be parsed.

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use parley_adapters_http::{RECORDED_CAP, ReadError, read_capped};
use parley_domain::ports::{EmbedError, Embedder};
use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::{StatusCode, Url};

mod wire;

/// OpenAI's public API.
const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// OpenAI's small third-generation embedding model (1536 dimensions, or fewer on request).
const DEFAULT_MODEL: &str = "text-embedding-3-small";

/// The text embedded once at [`OpenAiEmbedder::connect`] to learn the model's dimensions.
const PROBE_TEXT: &str = "dimensions probe";
/// The longest `Retry-After` honoured: a server asking for more is retried after this anyway
/// (and will answer again whether it is ready).
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// The longest exponential backoff between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// Server messages longer than this are cut (an HTML error page is no message).
const MAX_MESSAGE_CHARS: usize = 500;
/// The most bytes one number of a vector takes in an answer: `-1.2345678901234567e-300,` is
/// 25, and a pretty-printing server adds a line break and indentation (OpenAI's own answer
/// spends about 30): 64 is twice the longest seen.
const BYTES_PER_NUMBER: usize = 64;
/// Each vector's own fields (`"object": "embedding"`, `"index"`), and the answer's envelope
/// (`"model"`, `"usage"`): generous for both.
const BYTES_PER_VECTOR: usize = 1024;
const ENVELOPE_BYTES: usize = 64 * 1024;
/// The probe learns the dimensions, so its answer's cap assumes the most any model has: none
/// comes near 65,536 (OpenAI's largest is 3,072). That cap is 4.3 MB.
const PROBE_DIMENSIONS: usize = 65_536;

/// Where and how to reach the embeddings endpoint.
#[derive(Clone, PartialEq, Eq)]
pub struct OpenAiConfig {
    /// The API root that `/embeddings` is appended to, e.g. `https://api.openai.com/v1` or
    /// `http://localhost:11434/v1` (Ollama). A trailing slash is fine.
    pub base_url: String,
    /// The model name sent with every request, e.g. `text-embedding-3-small`.
    pub model: String,
    /// Sent as `Authorization: Bearer …` when set (local servers usually need none). Never shown
    /// by `Debug`.
    pub api_key: Option<String>,
    /// The vector length to ask for (the request's `dimensions` field, which OpenAI's
    /// text-embedding-3 models accept); every vector must then have it. `None`: the model's own
    /// length, learnt at connect with one probe request.
    pub dimensions: Option<usize>,
    /// Texts per request.
    pub batch_size: usize,
    /// The whole request, response body included.
    pub timeout: Duration,
    /// Attempts after the first one, for a failure that may pass (429, 5xx, timeout, connection).
    pub max_retries: u32,
    /// The pause before the first retry, doubled before each next one (with jitter, at most 30 s).
    pub retry_backoff: Duration,
}

impl Default for OpenAiConfig {
    fn default() -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.to_string(),
            model: DEFAULT_MODEL.to_string(),
            api_key: None,
            dimensions: None,
            batch_size: 64,
            timeout: Duration::from_secs(30),
            max_retries: 3,
            retry_backoff: Duration::from_millis(500),
        }
    }
}

impl fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &shown_url(&self.base_url))
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| Redacted))
            .field("dimensions", &self.dimensions)
            .field("batch_size", &self.batch_size)
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("retry_backoff", &self.retry_backoff)
            .finish()
    }
}

/// Why an [`OpenAiEmbedder`] could not be set up. No variant carries the API key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenAiConnectError {
    #[error("the embeddings base URL must be an absolute http(s) URL without credentials, query or fragment: {0}")]
    BaseUrl(String),
    #[error("the embeddings model must be named")]
    Model,
    #[error("the embeddings {0} must be at least 1")]
    Zero(&'static str),
    #[error("the embeddings API key cannot be sent in an HTTP header (it contains a control character)")]
    ApiKey,
    #[error("could not build the HTTP client: {0}")]
    Client(String),
    /// The probe request that learns the dimensions failed.
    #[error("could not learn the embedding model's dimensions: {0}")]
    Probe(EmbedError),
}

/// The embedder. Cheap to clone: clones share one connection pool.
#[derive(Clone)]
pub struct OpenAiEmbedder {
    client: reqwest::Client,
    /// `{base_url}/embeddings`.
    endpoint: Url,
    model: String,
    api_key: Option<String>,
    /// Sent as the request's `dimensions` field: the configured length, if any.
    requested_dimensions: Option<usize>,
    /// The length of every vector: configured or learnt at connect.
    dimensions: usize,
    batch_size: usize,
    timeout: Duration,
    max_retries: u32,
    retry_backoff: Duration,
}

impl fmt::Debug for OpenAiEmbedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiEmbedder")
            .field("endpoint", &self.endpoint.as_str())
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| Redacted))
            .field("dimensions", &self.dimensions)
            .field("batch_size", &self.batch_size)
            .field("max_retries", &self.max_retries)
            .finish()
    }
}

/// Stands in for the API key in `Debug` output.
struct Redacted;

impl fmt::Debug for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// A URL for messages: one with credentials in it is not shown.
fn shown_url(raw: &str) -> String {
    if raw.contains('@') { "(a URL with credentials, not shown)".to_string() } else { raw.trim().to_string() }
}

/// A failed attempt: what to report, whether another attempt may succeed, and for the logs.
#[derive(Debug)]
struct Failure {
    error: EmbedError,
    retryable: bool,
    status: Option<u16>,
    /// The server's `Retry-After`, when it sent one.
    retry_after: Option<Duration>,
}

impl OpenAiEmbedder {
    /// Validates the configuration and, when `dimensions` is not configured, learns it by
    /// embedding one short probe text (so [`Embedder::dimensions`] is known from then on).
    pub async fn connect(config: OpenAiConfig) -> Result<Self, OpenAiConnectError> {
        let mut embedder = Self::new(config)?;
        if embedder.dimensions == 0 {
            let vectors = embedder.post_batch(&[PROBE_TEXT.to_string()], None).await.map_err(OpenAiConnectError::Probe)?;
            embedder.dimensions = vectors[0].len();
        }
        tracing::info!(model = %embedder.model, dimensions = embedder.dimensions, "openai-compatible embedder ready");
        Ok(embedder)
    }

    /// Everything but the probe: `dimensions` is 0 when it has yet to be learnt.
    fn new(config: OpenAiConfig) -> Result<Self, OpenAiConnectError> {
        let endpoint = endpoint(&config.base_url)?;
        let model = config.model.trim().to_string();
        if model.is_empty() {
            return Err(OpenAiConnectError::Model);
        }
        if config.batch_size == 0 {
            return Err(OpenAiConnectError::Zero("batch size"));
        }
        if config.dimensions == Some(0) {
            return Err(OpenAiConnectError::Zero("dimensions"));
        }
        // An empty key (an unset environment variable, say) means no key.
        let api_key = config.api_key.map(|k| k.trim().to_string()).filter(|k| !k.is_empty());
        if let Some(key) = &api_key
            && HeaderValue::from_str(&format!("Bearer {key}")).is_err()
        {
            return Err(OpenAiConnectError::ApiKey);
        }
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            // Never carry the bearer key anywhere else; a redirect means a wrong base URL.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| OpenAiConnectError::Client(e.without_url().to_string()))?;
        Ok(Self {
            client,
            endpoint,
            model,
            api_key,
            requested_dimensions: config.dimensions,
            dimensions: config.dimensions.unwrap_or(0),
            batch_size: config.batch_size,
            timeout: config.timeout,
            max_retries: config.max_retries,
            retry_backoff: config.retry_backoff,
        })
    }

    /// One request's vectors, in input order and normalized, retried while the failure may pass.
    /// `expected` is the length every vector must have; `None` (the probe) takes the first one's.
    async fn post_batch(&self, texts: &[String], expected: Option<usize>) -> Result<Vec<Vec<f32>>, EmbedError> {
        let body = wire::EmbeddingRequest { model: &self.model, input: texts, dimensions: self.requested_dimensions };
        let attempts = self.max_retries.saturating_add(1);
        let mut attempt = 1;
        loop {
            let cap = answer_cap(texts.len(), expected.unwrap_or(PROBE_DIMENSIONS));
            let failure = match self.attempt(&body, cap).await {
                Ok(bytes) => return place(&bytes, texts.len(), expected).map_err(|e| self.scrub(e)),
                Err(failure) => failure,
            };
            if !failure.retryable || attempt >= attempts {
                if attempt > 1 {
                    tracing::warn!(attempt, status = failure.status, "embedding request failed; giving up");
                }
                return Err(self.scrub(with_attempts(failure.error, attempt)));
            }
            let delay = match failure.retry_after {
                Some(after) => after.min(MAX_RETRY_AFTER),
                None => backoff(self.retry_backoff, attempt),
            };
            tracing::warn!(
                attempt,
                max_attempts = attempts,
                status = failure.status,
                delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                "embedding request failed; retrying"
            );
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    /// One request: its status checked and its body read, at most `cap` bytes of a success and
    /// 64 KiB of an error (classified by its status alone when longer).
    async fn attempt(&self, body: &wire::EmbeddingRequest<'_>, cap: usize) -> Result<Vec<u8>, Failure> {
        let mut request = self.client.post(self.endpoint.clone()).json(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|e| self.transport(&e))?;
        let status = response.status();
        let retry_after = retry_after(response.headers());
        tracing::debug!(status = status.as_u16(), texts = body.input.len(), "embeddings response");
        if !status.is_success() {
            return match read_capped(response, RECORDED_CAP).await {
                Ok(bytes) => Err(from_status(status, &bytes, retry_after)),
                Err(ReadError::TooLarge { .. }) => Err(from_status(status, b"", retry_after)),
                Err(ReadError::Transport(e)) => Err(self.transport(&e)),
            };
        }
        read_capped(response, cap).await.map_err(|e| match e {
            ReadError::TooLarge { cap } => {
                tracing::debug!(cap, "embeddings answer over the cap; connection dropped");
                let message = format!("the embeddings service answered with a body larger than {cap} bytes; not read");
                Failure { error: EmbedError::Failed(message), retryable: false, status: Some(status.as_u16()), retry_after: None }
            }
            ReadError::Transport(e) => self.transport(&e),
        })
    }

    /// A request that got no complete response: always worth another try. Names no URL.
    fn transport(&self, e: &reqwest::Error) -> Failure {
        let message = if e.is_timeout() {
            format!("the embeddings service did not answer within {:?}", self.timeout)
        } else if e.is_connect() {
            match root_cause(e) {
                Some(cause) => format!("could not connect to the embeddings service: {cause}"),
                None => "could not connect to the embeddings service".to_string(),
            }
        } else {
            "the request to the embeddings service failed before a complete response".to_string()
        };
        tracing::debug!(timeout = e.is_timeout(), connect = e.is_connect(), "embeddings request got no response");
        Failure { error: EmbedError::Unavailable(message), retryable: true, status: None, retry_after: None }
    }

    /// The error with every occurrence of the key masked, should a server echo it back.
    fn scrub(&self, error: EmbedError) -> EmbedError {
        let Some(key) = &self.api_key else { return error };
        match error {
            EmbedError::Unavailable(m) => EmbedError::Unavailable(m.replace(key.as_str(), "***")),
            EmbedError::Failed(m) => EmbedError::Failed(m.replace(key.as_str(), "***")),
        }
    }
}

/// The most bytes read of a successful answer to `texts` texts of `dimensions` numbers each: the
/// largest such answer can be (see [`BYTES_PER_NUMBER`]), so no answer Parley can use is refused,
/// and nothing near a server's 1 GiB is held. OpenAI's default (64 texts, 1,536 dimensions):
/// 6.4 MB; OpenAI's most (2,048 texts of 3,072): 405 MB, which is what such a batch takes.
fn answer_cap(texts: usize, dimensions: usize) -> usize {
    let per_vector = dimensions.saturating_mul(BYTES_PER_NUMBER).saturating_add(BYTES_PER_VECTOR);
    texts.saturating_mul(per_vector).saturating_add(ENVELOPE_BYTES)
}

/// `{base_url}/embeddings`, from an absolute http(s) URL without credentials, query or fragment.
fn endpoint(base_url: &str) -> Result<Url, OpenAiConnectError> {
    let refused = || OpenAiConnectError::BaseUrl(shown_url(base_url));
    let base = Url::parse(base_url.trim()).map_err(|_| refused())?;
    let acceptable = matches!(base.scheme(), "http" | "https")
        && !base.cannot_be_a_base()
        && base.username().is_empty()
        && base.password().is_none()
        && base.query().is_none()
        && base.fragment().is_none();
    if !acceptable {
        return Err(refused());
    }
    Url::parse(&format!("{}/embeddings", base.as_str().trim_end_matches('/'))).map_err(|_| refused())
}

/// The pause before retry number `attempt` (1-based): `base × 2^(attempt-1)`, at most
/// [`MAX_BACKOFF`], then scaled by a random factor in [0.5, 1] so that clients failing together
/// do not retry together.
fn backoff(base: Duration, attempt: u32) -> Duration {
    let exponential = base.saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1))).min(MAX_BACKOFF);
    exponential.mul_f64(rand::random_range(0.5..=1.0))
}

/// `Retry-After` in whole seconds (the HTTP-date form is ignored), or OpenAI's `retry-after-ms`.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = value("retry-after-ms").and_then(|v| v.parse::<f64>().ok()).filter(|ms| ms.is_finite() && *ms >= 0.0) {
        return Some(Duration::from_secs_f64(ms / 1000.0).min(MAX_RETRY_AFTER));
    }
    value("retry-after").and_then(|v| v.parse::<u64>().ok()).map(|s| Duration::from_secs(s).min(MAX_RETRY_AFTER))
}

/// The innermost error of a chain (a socket error, say), which carries no URL.
fn root_cause(e: &reqwest::Error) -> Option<String> {
    let mut source = std::error::Error::source(e)?;
    while let Some(next) = source.source() {
        source = next;
    }
    Some(source.to_string())
}

/// A non-2xx answer: 429 and 5xx may pass (`Unavailable`, retried); anything else is this
/// request's fault or a wrong configuration (`Failed`, never retried).
fn from_status(status: StatusCode, body: &[u8], retry_after: Option<Duration>) -> Failure {
    let mut message = format!("HTTP {}", status.as_u16());
    if let Some(server) = wire::ErrorEnvelope::message(body) {
        message = format!("{message}: {}", truncated(&server));
    } else if status.is_redirection() {
        message.push_str(" (redirects are not followed; check the base URL)");
    }
    let retryable = status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error();
    let error = if retryable { EmbedError::Unavailable(message) } else { EmbedError::Failed(message) };
    Failure { error, retryable, status: Some(status.as_u16()), retry_after }
}

fn truncated(message: &str) -> String {
    match message.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &message[..cut]),
        None => message.to_string(),
    }
}

/// The final error says how many attempts were made, when there was more than one.
fn with_attempts(error: EmbedError, attempts: u32) -> EmbedError {
    if attempts < 2 {
        return error;
    }
    match error {
        EmbedError::Unavailable(m) => EmbedError::Unavailable(format!("{m} (after {attempts} attempts)")),
        EmbedError::Failed(m) => EmbedError::Failed(format!("{m} (after {attempts} attempts)")),
    }
}

/// A successful body's vectors placed by their `index`, every one checked and normalized.
fn place(body: &[u8], count: usize, expected: Option<usize>) -> Result<Vec<Vec<f32>>, EmbedError> {
    let response: wire::EmbeddingResponse = serde_json::from_slice(body)
        .map_err(|e| EmbedError::Failed(format!("the embeddings service answered with a body that could not be read: {e}")))?;
    if response.data.len() != count {
        return Err(EmbedError::Failed(format!("the embeddings service returned {} vectors for {count} texts", response.data.len())));
    }
    let mut width = expected;
    let mut slots: Vec<Option<Vec<f32>>> = vec![None; count];
    for item in response.data {
        let index = item.index;
        let Some(slot) = slots.get_mut(index) else {
            return Err(EmbedError::Failed(format!("the embeddings service returned index {index} for a batch of {count} texts")));
        };
        if slot.is_some() {
            return Err(EmbedError::Failed(format!("the embeddings service returned index {index} twice")));
        }
        // narrowing is the point: beyond f32 is infinite, refused below
        let mut embedding: Vec<f32> = item.embedding.iter().map(|&x| x as f32).collect();
        let len = embedding.len();
        match width {
            Some(w) if len != w => {
                return Err(EmbedError::Failed(format!(
                    "the embeddings service returned a vector of {len} dimensions at index {index}; expected {w}"
                )));
            }
            None if len == 0 => return Err(EmbedError::Failed("the embeddings service returned an empty vector".into())),
            None => width = Some(len),
            Some(_) => {}
        }
        if !embedding.iter().all(|x| x.is_finite()) {
            return Err(EmbedError::Failed(format!("the embeddings service returned a non-finite number at index {index}")));
        }
        normalize(&mut embedding);
        *slot = Some(embedding);
    }
    // The count matched and no index repeated, so every slot is filled.
    slots.into_iter().collect::<Option<Vec<_>>>().ok_or_else(|| EmbedError::Failed("the embeddings service skipped an index".into()))
}

/// Scales to unit length (in f64, so large components do not overflow); a zero vector stays zero.
fn normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>().sqrt();
    if norm > 0.0 {
        for x in vector.iter_mut() {
            *x = (f64::from(*x) / norm) as f32;
        }
    }
}

#[async_trait]
impl Embedder for OpenAiEmbedder {
    /// `openai:{model}:{dimensions}`. Vectors of another model, or of the same model cut to
    /// another length, live in another space: comparing them with these would rank nonsense, so
    /// either change must re-embed the catalog. The base URL is left out on purpose: the same
    /// model behind another host or proxy gives the same vectors.
    fn identity(&self) -> String {
        format!("openai:{}:{}", self.model, self.dimensions)
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut vectors = Vec::with_capacity(texts.len());
        for batch in texts.chunks(self.batch_size) {
            vectors.extend(self.post_batch(batch, Some(self.dimensions)).await?);
        }
        Ok(vectors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn embedder(config: OpenAiConfig) -> Result<OpenAiEmbedder, OpenAiConnectError> {
        OpenAiEmbedder::new(config)
    }

    #[test]
    fn defaults_are_openai_s_small_model() {
        let c = OpenAiConfig::default();
        assert_eq!(
            (c.base_url.as_str(), c.model.as_str(), c.api_key.as_deref(), c.dimensions),
            (DEFAULT_BASE_URL, DEFAULT_MODEL, None, None)
        );
        assert_eq!((c.batch_size, c.timeout, c.max_retries, c.retry_backoff), (64, Duration::from_secs(30), 3, Duration::from_millis(500)));
        assert_eq!(embedder(c).unwrap().endpoint.as_str(), "https://api.openai.com/v1/embeddings");
    }

    #[test]
    fn the_endpoint_is_appended_to_the_base_url_with_or_without_a_slash() {
        for base in ["http://localhost:11434/v1", "http://localhost:11434/v1/", " http://localhost:11434/v1// "] {
            assert_eq!(endpoint(base).unwrap().as_str(), "http://localhost:11434/v1/embeddings", "{base}");
        }
        assert_eq!(endpoint("http://127.0.0.1:8080").unwrap().as_str(), "http://127.0.0.1:8080/embeddings");
    }

    #[test]
    fn bad_configuration_is_refused() {
        for base in ["api.openai.com/v1", "ftp://x/v1", "http://x/v1?key=1", "http://x/v1#f", "mailto:a@b", ""] {
            assert!(matches!(endpoint(base), Err(OpenAiConnectError::BaseUrl(_))), "{base}");
        }
        let e = endpoint("https://user:s3cret@proxy.example/v1").unwrap_err();
        assert!(!e.to_string().contains("s3cret"), "{e}");
        let config = |f: fn(&mut OpenAiConfig)| {
            let mut c = OpenAiConfig::default();
            f(&mut c);
            c
        };
        assert_eq!(embedder(config(|c| c.model = " ".into())).unwrap_err(), OpenAiConnectError::Model);
        assert_eq!(embedder(config(|c| c.batch_size = 0)).unwrap_err(), OpenAiConnectError::Zero("batch size"));
        assert_eq!(embedder(config(|c| c.dimensions = Some(0))).unwrap_err(), OpenAiConnectError::Zero("dimensions"));
        assert_eq!(embedder(config(|c| c.api_key = Some("sk-a\nb".into()))).unwrap_err(), OpenAiConnectError::ApiKey);
        assert_eq!(embedder(config(|c| c.api_key = Some("  ".into()))).unwrap().api_key, None);
    }

    #[test]
    fn the_answer_cap_follows_the_batch_and_saturates() {
        assert_eq!(answer_cap(64, 1536), 64 * (1536 * 64 + 1024) + 64 * 1024);
        assert_eq!(answer_cap(1, PROBE_DIMENSIONS), 65_536 * 64 + 1024 + 64 * 1024);
        assert_eq!(answer_cap(usize::MAX, 3), usize::MAX);
        // OpenAI's own answer for 2 texts of 1,536 dimensions is about 100 KB: well inside.
        let one = format!("{:>30},\n", "-0.006929283495992422");
        assert!(2 * 1536 * one.len() + 1024 < answer_cap(2, 1536));
    }

    #[test]
    fn normalizing_gives_unit_length_and_keeps_zero() {
        let mut v = vec![3.0, 4.0];
        normalize(&mut v);
        assert_eq!(v, vec![0.6, 0.8]);
        let mut v = vec![0.0; 4];
        normalize(&mut v);
        assert_eq!(v, vec![0.0; 4]);
        let mut v = vec![3e30_f32, 4e30];
        normalize(&mut v);
        assert!((v[0] - 0.6).abs() < 1e-6 && (v[1] - 0.8).abs() < 1e-6, "{v:?}");
    }

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let base = Duration::from_millis(100);
        for attempt in 1..=4 {
            let full = base * 2u32.pow(attempt - 1);
            for _ in 0..50 {
                let d = backoff(base, attempt);
                assert!(d >= full / 2 && d <= full, "attempt {attempt}: {d:?}");
            }
        }
        assert!(backoff(Duration::from_secs(10), 30) <= MAX_BACKOFF);
        assert!(backoff(Duration::from_secs(1), u32::MAX) <= MAX_BACKOFF);
        assert_eq!(backoff(Duration::ZERO, 3), Duration::ZERO);
    }

    #[test]
    fn retry_after_is_read_in_seconds_or_milliseconds_and_capped() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut h = HeaderMap::new();
            for (k, v) in pairs {
                h.insert(*k, HeaderValue::from_static(v));
            }
            h
        };
        assert_eq!(retry_after(&headers(&[("retry-after", "2")])), Some(Duration::from_secs(2)));
        assert_eq!(retry_after(&headers(&[("retry-after", "86400")])), Some(MAX_RETRY_AFTER));
        assert_eq!(retry_after(&headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")])), None);
        assert_eq!(retry_after(&headers(&[("retry-after", "2"), ("retry-after-ms", "250")])), Some(Duration::from_millis(250)));
        assert_eq!(retry_after(&headers(&[("retry-after-ms", "-1"), ("retry-after", "1")])), Some(Duration::from_secs(1)));
        assert_eq!(retry_after(&headers(&[])), None);
    }

    #[test]
    fn statuses_are_classified() {
        let body = br#"{"error":{"message":"Rate limit reached","type":"requests"}}"#;
        let f = from_status(StatusCode::TOO_MANY_REQUESTS, body, Some(Duration::from_secs(1)));
        assert!(f.retryable);
        assert_eq!(f.error, EmbedError::Unavailable("HTTP 429: Rate limit reached".into()));
        let f = from_status(StatusCode::BAD_GATEWAY, b"<html>bad gateway</html>", None);
        assert!(f.retryable);
        assert_eq!(f.error, EmbedError::Unavailable("HTTP 502".into()));
        let f = from_status(StatusCode::NOT_FOUND, br#"{"error":"model not found"}"#, None);
        assert!(!f.retryable);
        assert_eq!(f.error, EmbedError::Failed("HTTP 404: model not found".into()));
        let f = from_status(StatusCode::MOVED_PERMANENTLY, b"", None);
        assert!(!f.retryable && matches!(f.error, EmbedError::Failed(ref m) if m.contains("base URL")));
        let long = format!(r#"{{"error":{{"message":"{}"}}}}"#, "é".repeat(2000));
        let f = from_status(StatusCode::BAD_REQUEST, long.as_bytes(), None);
        assert!(matches!(f.error, EmbedError::Failed(ref m) if m.chars().count() == "HTTP 400: ".len() + MAX_MESSAGE_CHARS + 1));
    }

    #[test]
    fn answers_are_placed_by_index_and_checked() {
        let body = |data: &str| format!(r#"{{"object":"list","data":{data},"model":"m"}}"#);
        let ok = body(r#"[{"index":1,"embedding":[0,2]},{"index":0,"embedding":[3,4]}]"#);
        assert_eq!(place(ok.as_bytes(), 2, Some(2)).unwrap(), vec![vec![0.6, 0.8], vec![0.0, 1.0]]);
        assert_eq!(place(ok.as_bytes(), 2, None).unwrap().len(), 2);
        let failed = |data: &str, count: usize, expected: Option<usize>| match place(body(data).as_bytes(), count, expected) {
            Err(EmbedError::Failed(m)) => m,
            other => panic!("expected Failed, got {other:?}"),
        };
        assert!(failed(r#"[{"index":0,"embedding":[1,0]}]"#, 2, Some(2)).contains("1 vectors for 2 texts"));
        assert!(failed(r#"[{"index":0,"embedding":[1,0]},{"index":0,"embedding":[1,0]}]"#, 2, Some(2)).contains("index 0 twice"));
        assert!(
            failed(r#"[{"index":0,"embedding":[1,0]},{"index":2,"embedding":[1,0]}]"#, 2, Some(2)).contains("index 2 for a batch of 2")
        );
        assert!(failed(r#"[{"index":0,"embedding":[1,0,0]}]"#, 1, Some(2)).contains("3 dimensions at index 0; expected 2"));
        assert!(failed(r#"[{"index":0,"embedding":[1,0]},{"index":1,"embedding":[1]}]"#, 2, None).contains("expected 2"));
        assert!(failed(r#"[{"index":0,"embedding":[]}]"#, 1, None).contains("empty vector"));
        assert!(failed(r#"[{"index":0,"embedding":[1e300]}]"#, 1, None).contains("non-finite"));
        assert!(matches!(place(b"{}", 1, None), Err(EmbedError::Failed(m)) if m.contains("could not be read")));
    }
}
