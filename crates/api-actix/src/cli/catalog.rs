//! `parley catalog`: import, export and reindex a tenant's products, with progress.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use parley_domain::model::{AgentId, ProductId};
use parley_domain::services::{ImportError, ImportObserver, ImportStage, ImportSummary};
use serde_json::json;

use super::{Failure, catalog_file};
use crate::runtime::state::AppState;

/// Progress of a long job over `total` items: a bar on a terminal, a line every 10% otherwise
/// (logs, CI). `what` names the work, e.g. "embedding", and `items` what it counts ("products").
pub(super) fn progress_reporter(what: &'static str, items: &'static str, total: usize) -> Arc<dyn Fn(usize) + Send + Sync> {
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
                eprintln!("{what}: {done}/{total} {items} ({}%)", done * 100 / total.max(1));
            }
        })
    }
}

/// An import's two stages, each with its own progress.
fn import_observer(total: usize) -> ImportObserver {
    let (embedding, writing) = (progress_reporter("embedding", "products", total), progress_reporter("writing", "products", total));
    Arc::new(move |stage, done| match stage {
        ImportStage::Embedding => embedding(done),
        ImportStage::Writing => writing(done),
    })
}

pub(super) async fn import(state: &AppState, agent: &AgentId, file: &std::path::Path, dry_run: bool) -> Result<(), Failure> {
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

pub(super) async fn export(state: &AppState, agent: &AgentId, output: Option<std::path::PathBuf>) -> Result<(), Failure> {
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

pub(super) async fn reindex(state: &AppState, agent: Option<AgentId>, all: bool) -> Result<(), Failure> {
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
