//! The `parley` command line: [`args`] declares it; [`run`] opens the store, wires the app's
//! services (`runtime`) and runs one command, each command group in its own file.

mod agents;
pub mod args;
mod catalog;
pub mod catalog_file;
mod database;
pub mod demo_seed;
mod history;
mod inbound;
mod lines;
mod members;
mod sandbox;
mod serve;
pub mod settings_file;
mod templates;

use std::time::Duration;

use parley_adapters_whatsapp::CloudApiConfig;
use parley_domain::model::AgentId;

pub use args::Cli;
use args::{CatalogCommand, Command, DemoCommand, InboundCommand, TemplatesCommand};

use crate::http::openapi;
use crate::runtime::config::ApiConfig;
use crate::runtime::platform::{self, PlatformSettings, Platforms};
use crate::runtime::store::{keep_statistics, open_store};
use crate::runtime::{embedding, wiring};

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
    // Commands that call no platform or embed nothing take neither's flags: they get the
    // defaults, which they never use.
    let apis = command.platform_args().cloned().unwrap_or_default();
    let config = match &command {
        Command::Serve(args) => serve::api_config(args)?,
        _ => ApiConfig::default(),
    };
    let (platforms, sandbox_deliveries) = Platforms::build(PlatformSettings {
        cloud: CloudApiConfig { base_url: apis.whatsapp_api_base.clone(), ..CloudApiConfig::default() },
        instagram: platform::instagram_config(&apis.instagram_api_base),
        sandbox_step,
        meta: config.meta_signature(),
    })?;
    let embedder = embedding::build(&command.embedder_args().cloned().unwrap_or_default()).await?;
    let state =
        wiring::wire(wiring::Adapters::system(store.repositories(), platforms, embedder, crate::http::dto::REPRESENTATIONS), config);
    let result = match command {
        Command::Serve(args) => return serve::serve(store, state, args, sandbox_deliveries).await,
        Command::Lines(cmd) => lines::lines(&state, cmd).await,
        Command::Sandbox(cmd) => sandbox::sandbox(&state, cmd).await,
        Command::Templates(TemplatesCommand::Sync { agent, .. }) => templates::sync_templates(&state, agent).await,
        Command::Inbound(InboundCommand::Failed { limit }) => inbound::failed(&state, limit).await,
        Command::Inbound(InboundCommand::Retry { id, all }) => inbound::retry(&state, id, all).await,
        Command::Migrate => Ok(()),
        Command::Analyze => database::analyze(&store).await,
        Command::Agents(cmd) => agents::agents(&state, cmd).await,
        Command::Keys(cmd) => agents::keys(&state, cmd).await,
        Command::Members(cmd) => members::members(&state, cmd).await,
        Command::Demo(DemoCommand::History { agent, conversations, days, seed }) => {
            let plan = history::HistoryPlan { agent: AgentId::new(agent), conversations, days, seed };
            history::history(&store.repositories(), &plan).await
        }
        Command::Catalog(CatalogCommand::Import { agent, file, dry_run, .. }) => {
            catalog::import(&state, &AgentId::new(agent), &file, dry_run).await
        }
        Command::Catalog(CatalogCommand::Export { agent, output }) => catalog::export(&state, &AgentId::new(agent), output).await,
        Command::Catalog(CatalogCommand::Reindex { agent, all, .. }) => catalog::reindex(&state, agent.map(AgentId::new), all).await,
        Command::Openapi => unreachable!("handled above"),
    };
    // SQLite's advice: refresh stale statistics as a connection closes (an import may have
    // grown a table a thousandfold).
    keep_statistics(&store).await;
    result
}
