//! The HTTP test harness: the real application (routes, middleware, extractors, services,
//! storage) on a fresh database of the chosen backend, driven in-process. Two tenants, A and
//! B, each with a secret and a publishable key, so every test can check isolation.
#![expect(dead_code, reason = "helpers shared by test modules, each using a part")]

pub mod cli;
pub mod server;
pub mod sessions;
pub mod standard_webhooks;

use actix_service::boxed::{self, BoxService};
use actix_web::body::BoxBody;
use actix_web::dev::ServiceResponse;
use actix_web::http::header::HeaderMap;
use actix_web::test::{self, TestRequest};
use actix_web::web::Data;
use parley_adapters_diesel::testing::TestDb;
use parley_api::http::app;
use parley_api::runtime::state::AppState;
use parley_api::runtime::wiring::{self, Adapters};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use parley_adapters_system::{RandomIds, SystemClock};
use parley_api::runtime::config::ApiConfig;
use parley_domain::model::{ActivityStatus, AgentId, KeyKind, Timestamp};
use parley_domain::ports::Clock;
use parley_domain::services::NewContactInput;
use serde_json::Value;

/// Expands each named `async fn(TestApp)` into one test per storage backend.
#[macro_export]
macro_rules! http_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $( #[actix_web::test] async fn $name() { super::$name($crate::common::TestApp::new("sqlite").await).await; } )*
        }
        mod postgres {
            $( #[actix_web::test] async fn $name() { super::$name($crate::common::TestApp::new("postgres").await).await; } )*
        }
    };
}

/// Expands each named `async fn(backend: &str)` into one test per storage backend, for tests
/// that build their app themselves (against a fake Graph API, with other settings).
#[macro_export]
macro_rules! backend_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $( #[actix_web::test] async fn $name() { super::$name("sqlite").await } )*
        }
        mod postgres {
            $( #[actix_web::test] async fn $name() { super::$name("postgres").await } )*
        }
    };
}

pub struct Tenant {
    pub agent: AgentId,
    pub secret: String,
    pub publishable: String,
}

pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    /// The error code of an error reply.
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or_else(|| panic!("not an error body: {}", self.body))
    }

    pub fn data(&self) -> &Value {
        &self.body["data"]
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Asserts status and error code together, showing the body when they differ.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_eq!((self.status, self.body["error"]["code"].as_str()), (status, Some(code)), "body: {}", self.body);
        assert!(self.body["error"]["message"].is_string(), "errors carry a message: {}", self.body);
        assert_eq!(self.body["error"]["request_id"].as_str(), self.header("x-request-id"), "the body names the request id");
    }

    #[track_caller]
    pub fn assert_status(&self, status: u16) -> &Self {
        assert_eq!(self.status, status, "body: {}", self.body);
        self
    }
}

/// The fields a 400 validation error names, in order (the reply must be one).
#[track_caller]
pub fn fields(r: &Reply) -> Vec<String> {
    r.assert_error(400, "VALIDATION_ERROR");
    r.body["error"]["details"].as_array().unwrap().iter().map(|d| d["field"].as_str().unwrap().to_string()).collect()
}

/// The system clock plus an offset tests can move forward (cart expiry, ordering).
#[derive(Default)]
pub struct TestClock {
    offset_ms: AtomicI64,
}

impl TestClock {
    pub fn advance(&self, by: chrono::TimeDelta) {
        self.offset_ms.fetch_add(by.num_milliseconds(), Ordering::SeqCst);
    }
}

impl Clock for TestClock {
    fn now(&self) -> Timestamp {
        SystemClock.now() + chrono::TimeDelta::milliseconds(self.offset_ms.load(Ordering::SeqCst))
    }
}

pub struct TestApp {
    service: BoxService<actix_http::Request, ServiceResponse<BoxBody>, actix_web::Error>,
    pub state: Data<AppState>,
    pub clock: Arc<TestClock>,
    pub a: Tenant,
    pub b: Tenant,
    /// Webhook processing and sandbox deliveries, as `parley serve` runs them.
    _workers: parley_api::runtime::workers::Workers,
    pub db: TestDb,
}

impl TestApp {
    /// Moves the app's clock a few milliseconds on, so the next write gets a later timestamp
    /// (the test clock instead of a wall-clock sleep).
    pub fn tick(&self) {
        self.clock.advance(chrono::TimeDelta::milliseconds(5));
    }

    pub async fn new(backend: &str) -> Self {
        Self::with_config(backend, ApiConfig::default()).await
    }

    pub async fn with_config(backend: &str, config: ApiConfig) -> Self {
        Self::build(backend, config, parley_adapters_whatsapp::DEFAULT_BASE_URL).await
    }

    /// The app with its Cloud API and Instagram adapters pointed at `graph_base` (a fake Graph API in tests),
    /// with an 800 ms upstream timeout and 50 ms sandbox delivery steps.
    pub async fn build(backend: &str, config: ApiConfig, graph_base: &str) -> Self {
        Self::build_with(backend, config, graph_base, Arc::new(parley_adapters_embeddings::StaticEmbedder::bundled())).await
    }

    /// The app with another embedder than the built-in static one.
    pub async fn with_embedder(backend: &str, embedder: Arc<dyn parley_domain::ports::Embedder>) -> Self {
        Self::build_with(backend, ApiConfig::default(), parley_adapters_whatsapp::DEFAULT_BASE_URL, embedder).await
    }

    async fn build_with(backend: &str, config: ApiConfig, graph_base: &str, embedder: Arc<dyn parley_domain::ports::Embedder>) -> Self {
        let db = TestDb::of(backend).await;
        let clock = Arc::new(TestClock::default());
        let cloud = parley_adapters_whatsapp::CloudApiConfig {
            base_url: graph_base.to_string(),
            timeout: std::time::Duration::from_millis(800),
            retry_backoff: std::time::Duration::from_millis(10),
            ..Default::default()
        };
        // One fake Graph API serves both of Meta's platforms (their paths do not overlap).
        let instagram = cloud.clone();
        let (platforms, deliveries) = parley_api::runtime::platform::Platforms::build(parley_api::runtime::platform::PlatformSettings {
            cloud,
            instagram,
            sandbox_step: std::time::Duration::from_millis(50),
            meta: config.meta_signature(),
        })
        .unwrap();
        let adapters = Adapters {
            repos: db.store.repositories(),
            platforms,
            embedder,
            clock: clock.clone(),
            ids: Arc::new(RandomIds),
            passwords: Arc::new(parley_adapters_system::Argon2Passwords::new()),
            representations: parley_api::http::dto::REPRESENTATIONS,
        };
        let state = Data::new(wiring::wire(adapters, config));
        let workers = parley_api::runtime::workers::Workers::start(
            state.clone().into_inner(),
            deliveries,
            parley_api::runtime::workers::WorkerConfig {
                process_webhooks: true,
                template_sync_every: None,
                sync_at_start: false,
                index_refresh_every: std::time::Duration::from_secs(1),
                // Mailboxes with an IMAP URL (the email tests') are read promptly.
                mail_poll_every: Some(std::time::Duration::from_millis(200)),
                store: db.store.clone(),
            },
        )
        .unwrap();
        let a = Self::tenant(&state, "Shop A").await;
        let b = Self::tenant(&state, "Shop B").await;
        let service = boxed::service(test::init_service(app::build(state.clone())).await);
        Self { service, state, clock, a, b, _workers: workers, db }
    }

    /// Imports catalog records (a product as the API shows it, plus `status`) for a tenant, as the CLI does.
    pub async fn import_products(&self, tenant: &Tenant, records: Vec<Value>) {
        let rows = records.into_iter().enumerate().map(|(i, r)| (i + 1, serde_json::from_value(r).map_err(|e| e.to_string()))).collect();
        let validated =
            self.state.catalog.validate_import(&tenant.agent, rows).await.unwrap_or_else(|e| panic!("invalid test catalog: {e:?}"));
        self.state.catalog.import(&tenant.agent, validated, Arc::new(|_, _| {})).await.unwrap();
    }

    /// Imports the demo shop's catalog (40 products, 4 of them drafts) for a tenant.
    pub async fn import_demo_catalog(&self, tenant: &Tenant) {
        let rows = parley_api::cli::catalog_file::parse(parley_api::cli::demo_seed::DEMO_CATALOG);
        let validated = self.state.catalog.validate_import(&tenant.agent, rows).await.unwrap_or_else(|e| panic!("demo catalog: {e:?}"));
        self.state.catalog.import(&tenant.agent, validated, Arc::new(|_, _| {})).await.unwrap();
    }

    async fn tenant(state: &AppState, name: &str) -> Tenant {
        let agent = state.keys.create_agent(name).await.unwrap();
        let secret = state.keys.issue_key(&agent.id, KeyKind::Secret).await.unwrap().plaintext;
        let publishable = state.keys.issue_key(&agent.id, KeyKind::Publishable).await.unwrap().plaintext;
        Tenant { agent: agent.id, secret, publishable }
    }

    pub async fn call(&self, req: TestRequest) -> Reply {
        self.call_request(req.to_request()).await
    }

    /// [`call`](Self::call) with a request built by hand (headers a `TestRequest` would add removed).
    pub async fn call_request(&self, req: actix_http::Request) -> Reply {
        let resp = test::call_service(&self.service, req).await;
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let bytes = test::read_body(resp).await;
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()))
        };
        Reply { status, headers, body }
    }

    pub async fn get(&self, path: &str, key: &str) -> Reply {
        self.call(TestRequest::get().uri(path).insert_header(("X-API-Key", key))).await
    }

    pub async fn post(&self, path: &str, key: &str, body: Value) -> Reply {
        self.call(TestRequest::post().uri(path).insert_header(("X-API-Key", key)).set_json(body)).await
    }

    pub async fn patch(&self, path: &str, key: &str, body: Value) -> Reply {
        self.call(TestRequest::patch().uri(path).insert_header(("X-API-Key", key)).set_json(body)).await
    }

    pub async fn put(&self, path: &str, key: &str, body: Value) -> Reply {
        self.call(TestRequest::put().uri(path).insert_header(("X-API-Key", key)).set_json(body)).await
    }

    pub async fn delete(&self, path: &str, key: &str) -> Reply {
        self.call(TestRequest::delete().uri(path).insert_header(("X-API-Key", key))).await
    }

    /// A contact with an activity in `status`, made through the domain services (activities
    /// are opened by inbound messages and sends, not by the public API). Returns (contact, activity) ids.
    pub async fn conversation(&self, tenant: &Tenant, name: &str, channel: (&str, &str), status: ActivityStatus) -> (String, String) {
        let contact = self
            .state
            .contacts
            .create(
                &tenant.agent,
                NewContactInput {
                    channel_type: Some(channel.0.into()),
                    channel_id: Some(channel.1.into()),
                    profile_name: Some(name.into()),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        let activity = self.state.activities.start(&tenant.agent, &contact.id, status).await.unwrap();
        (contact.id.into_string(), activity.id.into_string())
    }

    /// Creates a tag over HTTP; returns its id.
    pub async fn tag(&self, tenant: &Tenant, name: &str) -> String {
        let r = self.post("/v1/tags", &tenant.secret, serde_json::json!({"name": name})).await;
        r.assert_status(201);
        r.data()["id"].as_str().unwrap().to_string()
    }
}

/// The production adapters without workers, as one-shot commands run.
pub fn system_state(repos: parley_domain::ports::Repositories) -> AppState {
    system_state_with(repos, ApiConfig::default())
}

/// [`system_state`] with `config`.
pub fn system_state_with(repos: parley_domain::ports::Repositories, config: ApiConfig) -> AppState {
    wiring::wire(Adapters::one_shot(repos, parley_api::http::dto::REPRESENTATIONS), config)
}
