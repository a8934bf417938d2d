use std::process::ExitCode;

use actix_web::HttpServer;
use actix_web::web::Data;
use clap::Parser;
use parley_adapters_diesel::{PoolOptions, Store};
use parley_api::cli::{AgentsCommand, Cli, Command, KeysCommand, ServeArgs, redact_url};
use parley_api::dto::timestamp;
use parley_api::state::AppState;
use parley_api::{app, openapi, seed};
use parley_domain::model::{AgentId, ApiKeyId, KeyKind};
use serde_json::json;
use tracing_subscriber::EnvFilter;

type Failure = Box<dyn std::error::Error>;

#[actix_web::main]
async fn main() -> ExitCode {
    let filter =
        EnvFilter::try_from_env("PARLEY_LOG").or_else(|_| EnvFilter::try_from_default_env()).unwrap_or_else(|_| EnvFilter::new("info"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(ansi).with_writer(std::io::stderr).init();

    let cli = Cli::parse();
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<(), Failure> {
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
        Command::Agents(AgentsCommand::Create { name }) => {
            let agent = state.keys.create_agent(&name).await?;
            println!("{}", json!({"id": agent.id.as_str(), "name": agent.name.as_str()}));
            Ok(())
        }
        Command::Agents(AgentsCommand::List) => {
            let agents = state.keys.agents().await?;
            let rows: Vec<_> = agents
                .iter()
                .map(|a| json!({"id": a.id.as_str(), "name": a.name.as_str(), "created_at": timestamp(a.created_at)}))
                .collect();
            println!("{}", serde_json::to_string_pretty(&rows)?);
            Ok(())
        }
        Command::Keys(KeysCommand::Create { agent, publishable }) => {
            let kind = if publishable { KeyKind::Publishable } else { KeyKind::Secret };
            let issued = state.keys.issue_key(&AgentId::new(agent), kind).await?;
            println!("{}", json!({"id": issued.key.id.as_str(), "key": issued.plaintext}));
            Ok(())
        }
        Command::Keys(KeysCommand::Revoke { key_id }) => {
            let key = state.keys.revoke(&ApiKeyId::new(key_id)).await?;
            println!("{}", json!({"id": key.id.as_str(), "revoked_at": key.revoked_at.map(timestamp)}));
            Ok(())
        }
        Command::Keys(KeysCommand::List { agent }) => {
            let keys = state.keys.keys_of(&AgentId::new(agent)).await?;
            let rows: Vec<_> = keys
                .iter()
                .map(|k| {
                    json!({"id": k.id.as_str(), "kind": k.kind.as_str(), "ends_with": k.hint, "created_at": timestamp(k.created_at),
                        "revoked_at": k.revoked_at.map(timestamp)})
                })
                .collect();
            println!("{}", serde_json::to_string_pretty(&rows)?);
            Ok(())
        }
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

async fn serve(store: Store, state: AppState, args: ServeArgs) -> Result<(), Failure> {
    let bind = args.bind.unwrap_or_else(|| "127.0.0.1:8080".parse().expect("valid default address"));
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

    println!("Parley is serving on http://{bind} ({} database)", store.backend());
    if let Some(demo) = demo {
        println!();
        println!("Created demo agent \"{}\" ({}) with sample tags, contacts and activities.", demo.agent.name.as_str(), demo.agent.id);
        println!("Its keys are shown only this once:");
        println!("  secret key:      {}", demo.secret_key.plaintext);
        println!("  publishable key: {}", demo.publishable_key.plaintext);
        println!();
        println!("Try it (README.md has a longer session):");
        println!("  export PARLEY_URL=http://{bind} PARLEY_KEY={}", demo.secret_key.plaintext);
        println!("  curl -s -H \"X-API-Key: $PARLEY_KEY\" $PARLEY_URL/v1/activities");
    } else if empty {
        println!("The database has no agents yet: `parley agents create --name NAME`, then `parley keys create --agent ID`.");
    }
    server.await?;
    Ok(())
}
