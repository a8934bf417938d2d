//! Graceful shutdown of `parley serve` on SIGTERM or SIGINT: stop accepting connections, let
//! in-flight requests finish within the deadline, let webhook processing finish the delivery
//! in hand, and log each step.

use std::time::{Duration, Instant};

use actix_web::dev::Server;
use actix_web::web::Data;

use crate::runtime::state::AppState;
use crate::runtime::workers::Workers;

/// How long the last log lines wait for the webhook backlog count.
const BACKLOG_QUERY_TIMEOUT: Duration = Duration::from_secs(2);

/// Serves until a signal (or until the server stops by itself), then shuts down in order.
pub async fn run(
    state: Data<AppState>,
    server: Server,
    metrics_server: Option<Server>,
    workers: Workers,
    deadline: Duration,
) -> Result<(), Box<dyn std::error::Error>> {
    let handle = server.handle();
    let metrics_handle = metrics_server.as_ref().map(Server::handle);
    let mut running = actix_web::rt::spawn(server);
    let metrics_running = metrics_server.map(actix_web::rt::spawn);

    let signal = tokio::select! {
        result = &mut running => {
            // Stopped without a signal: nothing left to drain.
            workers.shutdown(Duration::ZERO).await;
            return Ok(result??);
        }
        signal = signal() => signal?,
    };
    let started = Instant::now();
    state.lifecycle.begin_shutdown();
    // Streams never end on their own: ended now, their clients reconnect (elsewhere) and resume.
    state.event_hub.close();
    tracing::info!(
        signal,
        in_flight = state.metrics.in_flight(),
        deadline_secs = deadline.as_secs_f64(),
        "shutting down: no longer accepting connections; letting in-flight requests finish"
    );

    // actix stops accepting at once, waits for open connections up to its shutdown timeout
    // (the same deadline), then drops what is left. Look at what is still running just before.
    let stop = handle.stop(true);
    tokio::pin!(stop);
    let mut cut = 0;
    tokio::select! {
        _ = &mut stop => {}
        _ = tokio::time::sleep(deadline.saturating_sub(Duration::from_millis(100))) => {
            cut = state.metrics.in_flight();
            stop.await;
        }
    }
    let _ = running.await;
    let http_ms = started.elapsed().as_millis() as u64;
    if cut > 0 {
        tracing::warn!(cut, ms = http_ms, "shutdown deadline reached: {cut} request(s) still running were cut");
    } else {
        tracing::info!(ms = http_ms, "HTTP server stopped: every in-flight request finished");
    }

    let left = deadline.saturating_sub(started.elapsed()).max(Duration::from_secs(1));
    if workers.shutdown(left).await {
        tracing::info!("background workers stopped: webhook processing stopped between deliveries, none was cut");
    } else {
        tracing::warn!(
            "background workers did not stop in time: the delivery in hand stays stored and is processed again at the next start"
        );
    }
    match tokio::time::timeout(BACKLOG_QUERY_TIMEOUT, state.inbound.backlog()).await {
        Ok(Ok(0)) => {}
        Ok(Ok(n)) => {
            tracing::info!(backlog = n, "{n} inbound deliveries stay stored, to be processed by another instance or at the next start")
        }
        _ => tracing::warn!("the inbound backlog could not be counted (database unavailable)"),
    }
    if let (Some(handle), Some(running)) = (metrics_handle, metrics_running) {
        handle.stop(true).await;
        let _ = running.await;
    }
    tracing::info!(ms = started.elapsed().as_millis() as u64, "shutdown complete");
    Ok(())
}

/// Waits for SIGTERM or SIGINT (Ctrl-C) and names it.
async fn signal() -> std::io::Result<&'static str> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        Ok(tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        })
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await?;
        Ok("Ctrl-C")
    }
}
