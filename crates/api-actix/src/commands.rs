//! What each `parley` command does. `main` only sets up logging and calls [`run`].

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::HttpServer;
use actix_web::web::Data;
use parley_adapters_diesel::{PoolOptions, Store};
use parley_domain::model::{AgentId, ApiKeyId, KeyKind, ProductId};
use parley_domain::services::{ImportError, ImportObserver, ImportStage, ImportSummary};
use serde_json::json;

use parley_adapters_system::{RandomIds, SystemClock};
use parley_adapters_whatsapp::{CloudApi, CloudApiConfig};
use parley_domain::model::LineAccess;
use parley_domain::ports::MessagingPlatform;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::cli::{
    AgentsCommand, CatalogCommand, ChannelsCommand, Cli, Command, KeysCommand, ServeArgs, TemplatesCommand, WebhooksCommand, redact_url,
};
use crate::config::{ApiConfig, CorsOrigins, parse_storefront_url};
use crate::dto::timestamp;
use crate::platform::{RoutingPlatform, SandboxDelivery, SandboxPlatform};
use crate::state::AppState;
use crate::workers::{WorkerConfig, Workers};
use crate::{app, catalog_file, embedding, openapi, seed, shutdown};

pub type Failure = Box<dyn std::error::Error>;

pub async fn run(cli: Cli) -> Result<(), Failure> {
    let Some(command) = cli.command else { return Err("no command given".into()) };
    if let Command::Openapi = command {
        print!("{}", openapi::document());
        return Ok(());
    }
    if let Some(path) = &cli.config {
        tracing::info!(file = %path.display(), "settings file read (the environment and flags override it)");
    }
    let store = open_store(&cli.database_url, cli.pool.options()).await?;
    let sandbox_step = match &command {
        Command::Serve(args) => Duration::from_millis(args.sandbox_step_ms),
        _ => Duration::from_secs(3),
    };
    let (platform, sandbox_deliveries) =
        platform(CloudApiConfig { base_url: cli.whatsapp_api_base.clone(), ..CloudApiConfig::default() }, sandbox_step)?;
    let embedder = embedding::build(&cli.embedding).await?;
    let state = AppState::new(store.repositories(), platform, embedder, Arc::new(SystemClock), Arc::new(RandomIds));
    let result = match command {
        Command::Serve(args) => return serve(store, state, args, sandbox_deliveries).await,
        Command::Channels(cmd) => channels(&state, cmd).await,
        Command::Templates(TemplatesCommand::Sync { agent }) => sync_templates(&state, agent).await,
        Command::Webhooks(WebhooksCommand::Failed { limit }) => failed_webhooks(&state, limit).await,
        Command::Webhooks(WebhooksCommand::Retry { id, all }) => retry_webhooks(&state, id, all).await,
        Command::Migrate => Ok(()),
        Command::Analyze => analyze(&store).await,
        Command::Agents(cmd) => agents(&state, cmd).await,
        Command::Keys(cmd) => keys(&state, cmd).await,
        Command::Catalog(CatalogCommand::Import { agent, file, dry_run }) => import(&state, &AgentId::new(agent), &file, dry_run).await,
        Command::Catalog(CatalogCommand::Export { agent, output }) => export(&state, &AgentId::new(agent), output).await,
        Command::Catalog(CatalogCommand::Reindex { agent, all }) => reindex(&state, agent.map(AgentId::new), all).await,
        Command::Openapi => unreachable!("handled above"),
    };
    // SQLite's advice: refresh stale statistics as a connection closes (an import may have
    // grown a table a thousandfold).
    keep_statistics(&store).await;
    result
}

async fn analyze(store: &Store) -> Result<(), Failure> {
    let started = std::time::Instant::now();
    store.analyze().await?;
    tracing::info!(elapsed_ms = started.elapsed().as_millis() as u64, "statistics refreshed");
    Ok(())
}

/// [`Store::keep_statistics`], logged; a failure costs only plan quality, so it never fails a command.
pub(crate) async fn keep_statistics(store: &Store) {
    if let Err(e) = store.keep_statistics().await {
        tracing::warn!(error = %e, "could not refresh the query planner's statistics");
    }
}

/// The messaging platform: sandbox lines served in-process, the others by the Cloud API.
pub fn platform(
    cloud: CloudApiConfig,
    sandbox_step: Duration,
) -> Result<(Arc<dyn MessagingPlatform>, UnboundedReceiver<SandboxDelivery>), Failure> {
    let cloud = CloudApi::new(cloud).map_err(|e| format!("PARLEY_WHATSAPP_API_BASE: {e}"))?;
    let (sandbox, deliveries) = SandboxPlatform::new(sandbox_step, Arc::new(RandomIds));
    Ok((Arc::new(RoutingPlatform { cloud: Arc::new(cloud), sandbox: Arc::new(sandbox) }), deliveries))
}

async fn channels(state: &AppState, cmd: ChannelsCommand) -> Result<(), Failure> {
    match cmd {
        ChannelsCommand::Add { agent, phone_number_id, waba_id, access_token_env, sandbox } => {
            let token = match (&access_token_env, sandbox) {
                (Some(var), false) => Some(std::env::var(var).map_err(|_| format!("the environment variable {var} is not set"))?),
                _ => None,
            };
            let agent = AgentId::new(agent);
            state.keys.keys_of(&agent).await?; // fails clearly for an unknown agent
            let line = state.lines.add(&agent, &phone_number_id, &waba_id, token.as_deref()).await?;
            let synced = match state.lines.sync_line(&line).await {
                Ok(n) => json!(n),
                Err(e) => {
                    eprintln!("warning: the line was added but its templates could not be fetched yet: {e}");
                    json!(null)
                }
            };
            println!(
                "{}",
                json!({"id": line.id.as_str(), "phone_number_id": line.phone_number_id.as_str(), "waba_id": line.waba_id.as_str(),
                "sandbox": line.access == LineAccess::Sandbox, "templates": synced})
            );
        }
        ChannelsCommand::List { agent } => {
            let lines = state.lines.list(&AgentId::new(agent)).await?;
            let rows: Vec<_> = lines
                .iter()
                .map(|l| {
                    json!({"id": l.id.as_str(), "phone_number_id": l.phone_number_id.as_str(), "waba_id": l.waba_id.as_str(),
                    "sandbox": l.access == LineAccess::Sandbox, "created_at": timestamp(l.created_at)})
                })
                .collect();
            println!("{}", serde_json::to_string_pretty(&rows)?);
        }
    }
    Ok(())
}

async fn sync_templates(state: &AppState, agent: Option<String>) -> Result<(), Failure> {
    let agent = agent.map(AgentId::new);
    let reports = state.lines.sync(agent.as_ref()).await?;
    let mut failed = 0;
    for r in &reports {
        match &r.result {
            Ok(n) => println!("{}", json!({"channel_id": r.line.as_str(), "templates": n})),
            Err(e) => {
                failed += 1;
                println!("{}", json!({"channel_id": r.line.as_str(), "error": e}));
            }
        }
    }
    if failed > 0 { Err(format!("{failed} of {} line(s) could not be synced", reports.len()).into()) } else { Ok(()) }
}

async fn failed_webhooks(state: &AppState, limit: u32) -> Result<(), Failure> {
    let failed = state.webhooks.failed(limit).await?;
    let rows: Vec<_> = failed
        .iter()
        .map(|f| {
            let e = &f.event;
            let lines: Vec<_> = f
                .lines
                .iter()
                .map(|l| {
                    json!({"phone_number_id": l.phone_number_id, "channel_id": l.line.as_ref().map(|l| l.id.as_str()),
                    "agent": l.line.as_ref().map(|l| l.agent_id.as_str())})
                })
                .collect();
            json!({"id": e.id, "state": if e.failed_at.is_some() { "failed" } else { "retrying" },
            "received_at": timestamp(e.received_at), "attempts": e.attempts, "last_error": e.last_error,
            "failed_at": e.failed_at.map(timestamp), "next_attempt_at": e.next_attempt_at.map(timestamp), "lines": lines})
        })
        .collect();
    println!("{}", serde_json::to_string_pretty(&rows)?);
    Ok(())
}

async fn retry_webhooks(state: &AppState, id: Option<String>, all: bool) -> Result<(), Failure> {
    let retried = match id {
        Some(id) if !all => {
            state.webhooks.retry(&id).await.map_err(|e| format!("{e}: {id} (see `parley webhooks failed`)"))?;
            1
        }
        _ => state.webhooks.retry_all().await?,
    };
    println!("{}", json!({"retried": retried}));
    Ok(())
}

async fn open_store(url: &str, options: PoolOptions) -> Result<Store, Failure> {
    let store = Store::open(url, options)?;
    let applied = store.migrate().await.map_err(|e| format!("cannot prepare the database at {}: {e}", redact_url(url)))?;
    for name in applied {
        tracing::info!(migration = %name, "applied migration");
    }
    keep_statistics(&store).await;
    Ok(store)
}

async fn agents(state: &AppState, cmd: AgentsCommand) -> Result<(), Failure> {
    match cmd {
        AgentsCommand::Create { name } => {
            let agent = state.keys.create_agent(&name).await?;
            println!("{}", json!({"id": agent.id.as_str(), "name": agent.name.as_str()}));
        }
        AgentsCommand::List => {
            let agents = state.keys.agents().await?;
            let rows: Vec<_> = agents
                .iter()
                .map(|a| json!({"id": a.id.as_str(), "name": a.name.as_str(), "created_at": timestamp(a.created_at)}))
                .collect();
            println!("{}", serde_json::to_string_pretty(&rows)?);
        }
    }
    Ok(())
}

async fn keys(state: &AppState, cmd: KeysCommand) -> Result<(), Failure> {
    match cmd {
        KeysCommand::Create { agent, publishable } => {
            let kind = if publishable { KeyKind::Publishable } else { KeyKind::Secret };
            let issued = state.keys.issue_key(&AgentId::new(agent), kind).await?;
            println!("{}", json!({"id": issued.key.id.as_str(), "key": issued.plaintext}));
        }
        KeysCommand::Revoke { key_id } => {
            let key = state.keys.revoke(&ApiKeyId::new(key_id)).await?;
            println!("{}", json!({"id": key.id.as_str(), "revoked_at": key.revoked_at.map(timestamp)}));
        }
        KeysCommand::List { agent } => {
            let keys = state.keys.keys_of(&AgentId::new(agent)).await?;
            let rows: Vec<_> = keys
                .iter()
                .map(|k| {
                    json!({"id": k.id.as_str(), "kind": k.kind.as_str(), "ends_with": k.hint, "created_at": timestamp(k.created_at),
                        "revoked_at": k.revoked_at.map(timestamp)})
                })
                .collect();
            println!("{}", serde_json::to_string_pretty(&rows)?);
        }
    }
    Ok(())
}

/// Progress of a long job over `total` items: a bar on a terminal, a line every 10% otherwise
/// (logs, CI). `what` names the work, e.g. "embedding".
fn progress_reporter(what: &'static str, total: usize) -> Arc<dyn Fn(usize) + Send + Sync> {
    if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        let bar = indicatif::ProgressBar::new(total as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{msg:>9} [{bar:40}] {pos}/{len} ({per_sec}, eta {eta})")
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_message(what);
        Arc::new(move |done| {
            bar.set_position(done as u64);
            if done >= total {
                bar.finish_and_clear();
            }
        })
    } else {
        let step = (total / 10).max(1);
        let next = std::sync::atomic::AtomicUsize::new(step);
        Arc::new(move |done| {
            if done >= next.load(std::sync::atomic::Ordering::Relaxed) || done == total {
                next.store(done + step, std::sync::atomic::Ordering::Relaxed);
                eprintln!("{what}: {done}/{total} products ({}%)", done * 100 / total.max(1));
            }
        })
    }
}

/// An import's two stages, each with its own progress.
fn import_observer(total: usize) -> ImportObserver {
    let (embedding, writing) = (progress_reporter("embedding", total), progress_reporter("writing", total));
    Arc::new(move |stage, done| match stage {
        ImportStage::Embedding => embedding(done),
        ImportStage::Writing => writing(done),
    })
}

async fn import(state: &AppState, agent: &AgentId, file: &std::path::Path, dry_run: bool) -> Result<(), Failure> {
    let started = Instant::now();
    let content = std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let rows = catalog_file::parse(&content);
    eprintln!("read {} rows from {}; validating", rows.len(), file.display());
    let validated = match state.catalog.validate_import(agent, rows).await {
        Ok(v) => v,
        Err(ImportError::Rows(errors)) => {
            for e in &errors {
                eprintln!("line {}: {}", e.line, e.reason);
            }
            return Err(format!("{} bad row(s) in {}; nothing was imported", errors.len(), file.display()).into());
        }
        Err(ImportError::Domain(e)) => return Err(e.into()),
    };
    let ImportSummary { inserted, updated } = validated.summary();
    if dry_run {
        println!("{}", json!({"dry_run": true, "valid_rows": validated.len(), "would_insert": inserted, "would_update": updated}));
        return Ok(());
    }
    let total = validated.len();
    state.catalog.import(agent, validated, import_observer(total)).await?;
    let seconds = started.elapsed().as_secs_f64();
    tracing::info!(agent = %agent, total, inserted, updated, seconds, "catalog imported");
    println!("{}", json!({"imported": total, "inserted": inserted, "updated": updated, "seconds": (seconds * 1000.0).round() / 1000.0}));
    Ok(())
}

async fn export(state: &AppState, agent: &AgentId, output: Option<std::path::PathBuf>) -> Result<(), Failure> {
    let mut out: Box<dyn Write> = match &output {
        Some(path) => {
            Box::new(std::io::BufWriter::new(std::fs::File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?))
        }
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    state.keys.keys_of(agent).await?; // fails clearly for an unknown agent
    let mut after: Option<ProductId> = None;
    let mut count = 0;
    loop {
        let page = state.catalog.export_page(agent, after.clone(), 1000).await?;
        let Some(last) = page.last() else { break };
        after = Some(last.id.clone());
        for product in &page {
            serde_json::to_writer(&mut out, &product.to_record())?;
            out.write_all(b"\n")?;
        }
        count += page.len();
    }
    out.flush()?;
    eprintln!("exported {count} products");
    Ok(())
}

async fn reindex(state: &AppState, agent: Option<AgentId>, all: bool) -> Result<(), Failure> {
    if let Some(agent) = &agent {
        state.keys.keys_of(agent).await?; // fails clearly for an unknown agent
    }
    let started = Instant::now();
    let embedder = state.search.embedder();
    eprintln!("embedding with {embedder}");
    let embedded = state
        .search
        .reindex(agent.as_ref(), all, &|done| {
            if done % 5000 < 500 {
                eprintln!("embedded {done} products");
            }
        })
        .await?;
    let seconds = started.elapsed().as_secs_f64();
    tracing::info!(embedded, seconds, embedder = %embedder, "catalog reindexed");
    println!("{}", json!({"embedded": embedded, "embedder": embedder, "seconds": (seconds * 1000.0).round() / 1000.0}));
    Ok(())
}

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

fn api_config(args: &ServeArgs) -> Result<ApiConfig, Failure> {
    let storefront_url = args.storefront_url.as_deref().map(parse_storefront_url).transpose()?;
    let cors_origins = args.cors_origins.as_deref().map(CorsOrigins::parse).transpose()?.unwrap_or_default();
    let nonempty = |v: &Option<String>| v.clone().filter(|s| !s.is_empty());
    let whatsapp_app_secret = nonempty(&args.whatsapp_app_secret);
    if whatsapp_app_secret.is_none() {
        tracing::warn!("PARLEY_WHATSAPP_APP_SECRET is not set: WhatsApp webhook deliveries will be refused");
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
        body_deadline: crate::body_deadline::BodyDeadline(Duration::from_secs(args.request_read_timeout_secs)),
    })
}

async fn serve(
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
    let state = state.with_config(api_config(&args)?);
    let empty = state.keys.agents().await?.is_empty();
    let demo = if empty && (store.backend() == "sqlite" || args.demo) {
        Some(seed::seed_demo(&state).await?)
    } else {
        if args.demo {
            tracing::info!("the database already has agents: no demo data seeded");
        }
        None
    };

    load_search_index(&state).await?;

    let state = Data::new(state);
    let every = (args.template_sync_secs > 0).then(|| Duration::from_secs(args.template_sync_secs));
    let workers = Workers::start(
        state.clone().into_inner(),
        sandbox_deliveries,
        WorkerConfig {
            process_webhooks: args.webhook_processing,
            template_sync_every: every,
            sync_at_start: true,
            index_refresh_every: Duration::from_millis(args.index_refresh_ms.max(1)),
            statistics: store.clone(),
        },
    )?;
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
    let server = server.bind(bind).map_err(|e| format!("cannot listen on {bind}: {e}"))?.run();
    let metrics_server = match args.metrics_bind {
        Some(addr) => {
            let metrics_state = state.clone();
            let s = HttpServer::new(move || app::build_metrics(metrics_state.clone()))
                .workers(1)
                .disable_signals()
                .shutdown_timeout(1)
                .bind(addr)
                .map_err(|e| format!("cannot listen on {addr} (PARLEY_METRICS_BIND): {e}"))?
                .run();
            Some(s)
        }
        None => None,
    };

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
    } else if empty {
        banner!(out, "The database has no agents yet: `parley agents create --name NAME`, then `parley keys create --agent ID`.");
    }
    drop(out);
    shutdown::run(state, server, metrics_server, workers, Duration::from_secs(args.shutdown_timeout_secs)).await
}
