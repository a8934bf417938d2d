//! `parley-distill`: builds the static embedding table from the full all-MiniLM-L6-v2 model.
//! Run through `cargo xtask distill`, which passes the model folder and the output paths.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use parley_adapters_embeddings::MiniLmEmbedder;
use parley_adapters_embeddings::distill::{DistillOptions, distill};

const USAGE: &str = "usage: parley-distill --model-dir DIR --out FILE [--dimensions 256] [--sif 1e-6]";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("parley-distill: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let (mut model_dir, mut out, mut options) = (None, None, DistillOptions::default());
    let mut it = args.into_iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        match flag.as_str() {
            "--model-dir" => model_dir = Some(PathBuf::from(value)),
            "--out" => out = Some(PathBuf::from(value)),
            "--dimensions" => options.dimensions = value.parse().map_err(|_| format!("bad --dimensions {value:?}"))?,
            "--sif" => options.sif = value.parse().map_err(|_| format!("bad --sif {value:?}"))?,
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    let (model_dir, out) = (model_dir.ok_or(USAGE)?, out.ok_or(USAGE)?);
    let started = Instant::now();
    let model = MiniLmEmbedder::load(&model_dir).map_err(|e| e.to_string())?;
    eprintln!("loaded the model from {} ({:.1} s)", model_dir.display(), started.elapsed().as_secs_f64());
    let step = std::sync::atomic::AtomicUsize::new(0);
    let table = distill(&model, &options, &|done, total| {
        if done * 10 / total > step.load(std::sync::atomic::Ordering::Relaxed) || done == total {
            step.store(done * 10 / total, std::sync::atomic::Ordering::Relaxed);
            eprintln!("embedded {done}/{total} vocabulary tokens ({:.0} s)", started.elapsed().as_secs_f64());
        }
    })
    .map_err(|e| e.to_string())?;
    let bytes = table.to_bytes();
    std::fs::write(&out, &bytes).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    eprintln!(
        "wrote {} ({} tokens × {} dimensions, {:.1} MB, identity {}) in {:.0} s",
        out.display(),
        table.vocabulary(),
        table.dimensions(),
        bytes.len() as f64 / 1e6,
        table.identity(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
