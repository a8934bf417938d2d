//! What each `parley` command does. `main` only sets up logging and calls [`run`].

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use actix_web::HttpServer;
use actix_web::web::Data;
use parley_adapters_diesel::{PoolOptions, Store};
use parley_domain::model::{AgentId, ApiKeyId, KeyKind, ProductId};
use parley_domain::services::{ImportError, ImportSummary};
use serde_json::json;

use crate::cli::{AgentsCommand, CatalogCommand, Cli, Command, KeysCommand, ServeArgs, redact_url};
use crate::config::{ApiConfig, CorsOrigins, parse_storefront_url};
use crate::dto::timestamp;
use crate::state::AppState;
use crate::{app, catalog_file, openapi, seed};

pub type Failure = Box<dyn std::error::Error>;

pub async fn run(cli: Cli) -> Result<(), Failure> {
    let command = cli.command.unwrap_or(Command::Serve(ServeArgs::default()));
    if let Command::Openapi = command {
        print!("{}", openapi::document());
        return Ok(());
    }
    let store = open_store(&cli.database_url).await?;
    let state = AppState::with_system(store.repositories());
    match command {
        Command::Serve(args) => serve(store, state, args).await,
        Command::Migrate => Ok(()),
        Command::Agents(cmd) => agents(&state, cmd).await,
        Command::Keys(cmd) => keys(&state, cmd).await,
        Command::Catalog(CatalogCommand::Import { agent, file, dry_run }) => import(&state, &AgentId::new(agent), &file, dry_run).await,
        Command::Catalog(CatalogCommand::Export { agent, output }) => export(&state, &AgentId::new(agent), output).await,
        Command::Openapi => unreachable!("handled above"),
    }
}

async fn open_store(url: &str) -> Result<Store, Failure> {
    let store = Store::open(url, PoolOptions::default())?;
    let applied = store.migrate().await.map_err(|e| format!("cannot prepare the database at {}: {e}", redact_url(url)))?;
    for name in applied {
        tracing::info!(migration = %name, "applied migration");
    }
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

/// Progress of a long import: a bar on a terminal, a line every 10% otherwise (logs, CI).
fn progress_reporter(total: usize) -> Arc<dyn Fn(usize) + Send + Sync> {
    if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        let bar = indicatif::ProgressBar::new(total as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({per_sec}, eta {eta})")
                .expect("valid template")
                .progress_chars("=> "),
        );
        bar.set_message("importing");
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
                eprintln!("imported {done}/{total} products ({}%)", done * 100 / total.max(1));
            }
        })
    }
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
    state.catalog.import(agent, validated, progress_reporter(total)).await?;
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

fn api_config(args: &ServeArgs) -> Result<ApiConfig, Failure> {
    let storefront_url = args.storefront_url.as_deref().map(parse_storefront_url).transpose()?;
    let cors_origins = args.cors_origins.as_deref().map(CorsOrigins::parse).transpose()?.unwrap_or_default();
    Ok(ApiConfig { storefront_url, cors_origins })
}

async fn serve(store: Store, state: AppState, args: ServeArgs) -> Result<(), Failure> {
    let bind = args.bind.unwrap_or_else(|| "127.0.0.1:8080".parse().expect("valid default address"));
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

    let state = Data::new(state);
    let mut server = HttpServer::new(move || app::build(state.clone()));
    if let Some(workers) = args.workers {
        server = server.workers(workers);
    }
    let server = server.bind(bind).map_err(|e| format!("cannot listen on {bind}: {e}"))?.run();

    // The banner must never take the server down: stdout may be a closed pipe.
    let mut out = std::io::stdout().lock();
    macro_rules! banner {
        ($out:ident, $($arg:tt)*) => {
            let _ = writeln!($out, $($arg)*);
        };
    }
    banner!(out, "Parley is serving on http://{bind} ({} database)", store.backend());
    if let Some(demo) = demo {
        banner!(out, "");
        banner!(
            out,
            "Created demo agent \"{}\" ({}) with sample tags, contacts, activities and a catalog.",
            demo.agent.name.as_str(),
            demo.agent.id
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
    server.await?;
    Ok(())
}
