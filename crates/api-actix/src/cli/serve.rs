//! `parley serve`: the API (and its metrics address) with the background workers, until a signal.

use std::io::Write;
use std::time::{Duration, Instant};

use actix_web::HttpServer;
use actix_web::web::Data;
use parley_adapters_diesel::Store;
use parley_adapters_whatsapp::SandboxDelivery;
use tokio::sync::mpsc::UnboundedReceiver;

use super::Failure;
use super::args::ServeArgs;
use super::demo_seed;
use crate::http::app;
use crate::runtime::config::{ApiConfig, CorsOrigins, parse_storefront_url};
use crate::runtime::shutdown;
use crate::runtime::state::AppState;
use crate::runtime::workers::{WorkerConfig, Workers};

/// Loads every stored vector into this process's search index, and warns about products that
/// search cannot find because they have no vector from the configured embedder.
async fn load_search_index(state: &AppState) -> Result<(), Failure> {
    let started = Instant::now();
    let report = state.search.refresh().await?;
    let embedder = state.search.embedder();
    tracing::info!(vectors = report.upserted, agents = report.agents, ms = started.elapsed().as_millis() as u64, embedder = %embedder, "search index loaded");
    let missing = state.search.missing_vectors().await?;
    if missing > 0 {
        tracing::warn!(
            missing,
            embedder = %embedder,
            "{missing} active products have no vector from the configured embedder, so search cannot find them: run `parley catalog reindex`"
        );
    }
    Ok(())
}

pub(super) fn api_config(args: &ServeArgs) -> Result<ApiConfig, Failure> {
    let storefront_url = args.storefront_url.as_deref().map(parse_storefront_url).transpose()?;
    let cors_origins = args.cors_origins.as_deref().map(CorsOrigins::parse).transpose()?.unwrap_or_default();
    let nonempty = |v: &Option<String>| v.clone().filter(|s| !s.is_empty());
    let whatsapp_app_secret = nonempty(&args.whatsapp_app_secret);
    if whatsapp_app_secret.is_none() {
        tracing::warn!("PARLEY_WHATSAPP_APP_SECRET is not set: WhatsApp webhook deliveries will be refused");
    }
    if args.webhook_allow_private {
        tracing::warn!("PARLEY_WEBHOOK_ALLOW_PRIVATE is on: webhook endpoints may use http and reach this network's private addresses");
    }
    let rate_limits = args.rate_limits.to_config()?;
    tracing::info!(
        per_key = rate_limits.per_minute,
        search_per_key = rate_limits.search_per_minute,
        bad_key_per_address = rate_limits.bad_key_per_minute,
        store = if rate_limits.redis.is_some() { "redis" } else { "this process" },
        trusted_proxies =
            args.rate_limits.trusted_proxies.as_deref().filter(|p| !p.trim().is_empty()).unwrap_or("none (the TCP peer is the client)"),
        "rate limits per minute (0 = off)"
    );
    Ok(ApiConfig {
        storefront_url,
        cors_origins,
        whatsapp_verify_token: nonempty(&args.whatsapp_verify_token),
        whatsapp_app_secret,
        separate_metrics_address: args.metrics_bind.is_some(),
        rate_limits,
        body_deadline: crate::runtime::config::BodyDeadline(Duration::from_secs(args.request_read_timeout_secs)),
        ingest_only: !args.webhook_processing,
        webhook_allow_private: args.webhook_allow_private,
        webhook_send_timeout: None,
        webhook_endpoints_max: Some(args.webhook_endpoints_max),
        stream_heartbeat: Some(Duration::from_secs(args.stream_heartbeat_secs.max(1))),
    })
}

pub(super) async fn serve(
    store: Store,
    state: AppState,
    args: ServeArgs,
    sandbox_deliveries: UnboundedReceiver<SandboxDelivery>,
) -> Result<(), Failure> {
    let bind = args.bind.unwrap_or_else(|| "127.0.0.1:8080".parse().expect("valid default address"));
    if args.metrics_bind == Some(bind) {
        return Err(format!(
            "PARLEY_METRICS_BIND ({bind}) must differ from PARLEY_BIND: leave it unset to serve /metrics on the API's address"
        )
        .into());
    }
    let empty = state.keys.agents().await?.is_empty();
    let demo = if empty && (store.backend() == "sqlite" || args.demo) {
        Some(demo_seed::seed_demo(&state).await?)
    } else {
        if args.demo {
            tracing::info!("the database already has agents: no demo data seeded");
        }
        None
    };

    load_search_index(&state).await?;

    let state = Data::new(state);
    // Bound before any worker starts: a taken address fails at once, with nothing to stop.
    // Signals are ours (see `shutdown`), so the shutdown is logged and the workers flushed.
    let app_state = state.clone();
    let mut server = HttpServer::new(move || app::build(app_state.clone()))
        .disable_signals()
        .shutdown_timeout(args.shutdown_timeout_secs)
        // Each connection holds a file descriptor: a cap per worker keeps a flood of idle or
        // dripping connections from exhausting them (actix's own default is 25,000 per worker).
        .max_connections(args.max_connections as usize);
    if let Some(workers) = args.workers {
        server = server.workers(workers);
    }
    let server = server.bind(bind).map_err(|e| format!("cannot listen on {bind}: {e}"))?;
    let metrics_server = match args.metrics_bind {
        Some(addr) => {
            let metrics_state = state.clone();
            let s = HttpServer::new(move || app::build_metrics(metrics_state.clone()))
                .workers(1)
                .disable_signals()
                .shutdown_timeout(1)
                .bind(addr)
                .map_err(|e| format!("cannot listen on {addr} (PARLEY_METRICS_BIND): {e}"))?;
            Some(s)
        }
        None => None,
    };

    let every = (args.template_sync_secs > 0).then(|| Duration::from_secs(args.template_sync_secs));
    let workers = Workers::start(
        state.clone().into_inner(),
        sandbox_deliveries,
        WorkerConfig {
            process_webhooks: args.webhook_processing,
            template_sync_every: every,
            sync_at_start: true,
            index_refresh_every: Duration::from_millis(args.index_refresh_ms.max(1)),
            mail_poll_every: (args.mail_poll_secs > 0).then(|| Duration::from_secs(args.mail_poll_secs)),
            store: store.clone(),
        },
    )?;
    let (server, metrics_server) = (server.run(), metrics_server.map(HttpServer::run));

    // The banner must never take the server down: stdout may be a closed pipe.
    let mut out = std::io::stdout().lock();
    macro_rules! banner {
        ($out:ident, $($arg:tt)*) => {
            let _ = writeln!($out, $($arg)*);
        };
    }
    banner!(out, "Parley is serving on http://{bind} ({} database)", store.backend());
    if let Some(addr) = args.metrics_bind {
        banner!(out, "Metrics are served on http://{addr}/metrics");
    }
    if let Some(demo) = demo {
        banner!(out, "");
        banner!(
            out,
            "Created demo agent \"{}\" ({}) with sample tags, contacts, activities and a catalog.",
            demo.agent.name.as_str(),
            demo.agent.id
        );
        banner!(
            out,
            "It has a sandbox WhatsApp line {} (no network): its templates order_update and welcome can be sent, spring_sale is pending.",
            demo.line.id.as_str()
        );
        banner!(out, "Its keys are shown only this once:");
        banner!(out, "  secret key:      {}", demo.secret_key.plaintext);
        banner!(out, "  publishable key: {}", demo.publishable_key.plaintext);
        banner!(out, "");
        banner!(out, "Try it (README.md has a longer session):");
        banner!(
            out,
            "  export PARLEY_URL=http://{bind} PARLEY_KEY={} PARLEY_PUBLISHABLE_KEY={}",
            demo.secret_key.plaintext,
            demo.publishable_key.plaintext
        );
        banner!(out, "  curl -s -H \"X-API-Key: $PARLEY_KEY\" $PARLEY_URL/v1/activities");
        banner!(out, "");
        banner!(out, "The team's inbox: http://{bind}/inbox");
        banner!(out, "  sign in as:         {}", demo.member.member.email.as_str());
        banner!(out, "  one-time password:  {}   (the inbox asks for a password of your own at once)", demo.member.one_time_password);
    } else if empty {
        banner!(out, "The database has no agents yet: `parley agents create --name NAME`, then `parley keys create --agent ID`.");
    }
    drop(out);
    shutdown::run(state, server, metrics_server, workers, Duration::from_secs(args.shutdown_timeout_secs)).await
}
