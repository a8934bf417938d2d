use std::process::ExitCode;

use parley_api::cli::Cli;
use tracing_subscriber::EnvFilter;

// glibc's allocator took a fifth of a list request's profile under load; with mimalloc's
// per-thread free lists an A/B on one database gave list products +20% and list activities +8%
// (the latter within run-to-run noise; docs/performance.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[actix_web::main]
async fn main() -> ExitCode {
    let filter =
        EnvFilter::try_from_env("PARLEY_LOG").or_else(|_| EnvFilter::try_from_default_env()).unwrap_or_else(|_| EnvFilter::new("info"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(ansi).with_writer(std::io::stderr).init();

    let cli = match Cli::load() {
        Ok(cli) => cli,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match parley_api::cli::run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
