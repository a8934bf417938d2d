//! `parley-distill`: builds the static embedding table from the full all-MiniLM-L6-v2 model, and
//! tunes it on a corpus when one is given. Run through `cargo xtask distill`, which fetches the
//! model and the corpus and passes their folders and the output paths.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use parley_adapters_embeddings::MiniLmEmbedder;
use parley_adapters_embeddings::distill::dev_sets::DevSets;
use parley_adapters_embeddings::distill::tune::TuneOptions;
use parley_adapters_embeddings::distill::tuned::{Tuning, distill_tuned};
use parley_adapters_embeddings::distill::{DistillOptions, distill, wordnet};

const USAGE: &str = "usage: parley-distill --model-dir DIR --out FILE [--dimensions 256] [--sif 1e-6]
       [--wordnet DIR --cache DIR [--dev-sets FILE] [--epochs N] [--learning-rate X] [--anchor X] [--batch N] [--contrast X] [--temperature X] [--whole-words 20000] [--seed N]]

Without --wordnet: the table is the teacher's tokens alone, projected and weighted.
With --wordnet (WordNet 3.0's data files): that table is then tuned so that sums of rows match the
teacher's vectors of WordNet's definitions, examples and words; --dev-sets (exported by
`cargo xtask distill`) scores every epoch and keeps the best one on the queries not held out.
--seed N shuffles the corpus from another seed, to tell a setting's gain from the spread between
seeds.";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("parley-distill: {e}");
            ExitCode::FAILURE
        }
    }
}

#[derive(Default)]
struct Args {
    model_dir: Option<PathBuf>,
    out: Option<PathBuf>,
    wordnet: Option<PathBuf>,
    cache: Option<PathBuf>,
    dev_sets: Option<PathBuf>,
    options: DistillOptions,
    tune: TuneOptions,
    whole_words: usize,
}

fn parse(args: Vec<String>) -> Result<Args, String> {
    let mut parsed = Args { whole_words: 20_000, ..Args::default() };
    let mut it = args.into_iter();
    while let Some(flag) = it.next() {
        if flag == "--help" || flag == "-h" {
            return Err(USAGE.into());
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let bad = |_| format!("bad {flag} {value:?}");
        match flag.as_str() {
            "--model-dir" => parsed.model_dir = Some(PathBuf::from(&value)),
            "--out" => parsed.out = Some(PathBuf::from(&value)),
            "--wordnet" => parsed.wordnet = Some(PathBuf::from(&value)),
            "--cache" => parsed.cache = Some(PathBuf::from(&value)),
            "--dev-sets" => parsed.dev_sets = Some(PathBuf::from(&value)),
            "--dimensions" => parsed.options.dimensions = value.parse().map_err(|_| bad(()))?,
            "--sif" => parsed.options.sif = value.parse().map_err(|_| bad(()))?,
            "--epochs" => parsed.tune.epochs = value.parse().map_err(|_| bad(()))?,
            "--learning-rate" => parsed.tune.learning_rate = value.parse().map_err(|_| bad(()))?,
            "--anchor" => parsed.tune.anchor = value.parse().map_err(|_| bad(()))?,
            "--batch" => parsed.tune.batch = value.parse().map_err(|_| bad(()))?,
            "--whole-words" => parsed.whole_words = value.parse().map_err(|_| bad(()))?,
            "--seed" => parsed.tune.seed = value.parse().map_err(|_| bad(()))?,
            "--contrast" => parsed.tune.contrast = value.parse().map_err(|_| bad(()))?,
            "--temperature" => parsed.tune.temperature = value.parse().map_err(|_| bad(()))?,
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    Ok(parsed)
}

fn run(args: Vec<String>) -> Result<(), String> {
    let args = parse(args)?;
    let (model_dir, out) = (args.model_dir.as_ref().ok_or(USAGE)?, args.out.as_ref().ok_or(USAGE)?);
    let started = Instant::now();
    let log = |line: String| eprintln!("[{:>5.0} s] {line}", started.elapsed().as_secs_f64());
    let model = MiniLmEmbedder::load(model_dir).map_err(|e| e.to_string())?;
    log(format!("loaded the model from {}", model_dir.display()));
    let table = match &args.wordnet {
        None => {
            let step = std::sync::atomic::AtomicUsize::new(0);
            distill(&model, &args.options, &|done, total| {
                if done * 10 / total > step.load(std::sync::atomic::Ordering::Relaxed) || done == total {
                    step.store(done * 10 / total, std::sync::atomic::Ordering::Relaxed);
                    log(format!("embedded {done}/{total} vocabulary tokens"));
                }
            })
        }
        Some(dir) => {
            let corpus = wordnet::read_corpus(dir)?;
            log(format!("read {} distinct texts from WordNet in {}", corpus.len(), dir.display()));
            let dev_sets = args.dev_sets.as_deref().map(DevSets::read).transpose()?;
            let cache = args.cache.as_ref().ok_or("--wordnet needs --cache DIR")?;
            let tuning = Tuning {
                corpus_name: "wordnet3.0",
                corpus: &corpus,
                cache_dir: cache,
                dev_sets: dev_sets.as_ref(),
                whole_words: args.whole_words,
                options: args.tune,
            };
            distill_tuned(&model, &args.options, &tuning, &log)
        }
    }
    .map_err(|e| e.to_string())?;
    let bytes = table.to_bytes();
    std::fs::write(out, &bytes).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    log(format!(
        "wrote {} ({} rows × {} dimensions, {} of the rows whole words, {:.1} MB, identity {})",
        out.display(),
        table.vocabulary(),
        table.dimensions(),
        table.words().len(),
        bytes.len() as f64 / 1e6,
        table.identity()
    ));
    Ok(())
}
