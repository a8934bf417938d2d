//! Which embedder turns products and queries into vectors, chosen by configuration.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, ValueEnum};
use parley_adapters_embeddings::{MiniLmEmbedder, OpenAiConfig, OpenAiEmbedder, StaticEmbedder};
use parley_domain::ports::Embedder;

/// The environment variable holding the key of an OpenAI-compatible service. Read from the
/// environment only: a command line is visible to every user of the machine.
pub const OPENAI_API_KEY_VAR: &str = "PARLEY_OPENAI_API_KEY";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EmbedderKind {
    /// A static token table distilled from all-MiniLM-L6-v2, built into the binary: offline, no download, fast.
    Static,
    /// The full all-MiniLM-L6-v2 transformer on the CPU, loaded from `--model-dir`.
    Minilm,
    /// Any OpenAI-compatible `/embeddings` service.
    Openai,
}

#[derive(Debug, Clone, Args)]
pub struct EmbedderArgs {
    /// The embedder for search. Stored vectors remember theirs: after a change, run `parley catalog reindex`.
    #[arg(long, env = "PARLEY_EMBEDDER", value_enum, default_value_t = EmbedderKind::Static)]
    pub embedder: EmbedderKind,
    /// The all-MiniLM-L6-v2 folder (config.json, tokenizer.json, model.safetensors) for `--embedder minilm`;
    /// `cargo xtask fetch-model` places it at the default.
    #[arg(long, env = "PARLEY_MODEL_DIR", default_value = "models/all-MiniLM-L6-v2")]
    pub model_dir: PathBuf,
    /// Base URL of the OpenAI-compatible service for `--embedder openai` (its key: PARLEY_OPENAI_API_KEY).
    #[arg(long, env = "PARLEY_OPENAI_BASE_URL", default_value = "https://api.openai.com/v1")]
    pub openai_base_url: String,
    /// The embedding model to ask the service for.
    #[arg(long, env = "PARLEY_OPENAI_MODEL", default_value = "text-embedding-3-small")]
    pub openai_model: String,
    /// Vector size to ask for (models that can shorten theirs); default: the model's own.
    #[arg(long, env = "PARLEY_OPENAI_DIMENSIONS")]
    pub openai_dimensions: Option<usize>,
    /// Seconds one request to the service may take before it is retried.
    #[arg(long, env = "PARLEY_OPENAI_TIMEOUT_SECS", default_value_t = 30)]
    pub openai_timeout_secs: u64,
}

impl Default for EmbedderArgs {
    fn default() -> Self {
        Self {
            embedder: EmbedderKind::Static,
            model_dir: "models/all-MiniLM-L6-v2".into(),
            openai_base_url: "https://api.openai.com/v1".into(),
            openai_model: "text-embedding-3-small".into(),
            openai_dimensions: None,
            openai_timeout_secs: 30,
        }
    }
}

/// Builds the configured embedder; a model folder or service that cannot be used is a clear error.
pub async fn build(args: &EmbedderArgs) -> Result<Arc<dyn Embedder>, String> {
    let embedder: Arc<dyn Embedder> = match args.embedder {
        EmbedderKind::Static => Arc::new(StaticEmbedder::bundled()),
        EmbedderKind::Minilm => {
            let dir = args.model_dir.clone();
            let model = tokio::task::spawn_blocking(move || MiniLmEmbedder::load(&dir)).await.map_err(|e| e.to_string())?;
            Arc::new(model.map_err(|e| format!("PARLEY_EMBEDDER=minilm: {e}"))?)
        }
        EmbedderKind::Openai => {
            let config = OpenAiConfig {
                base_url: args.openai_base_url.clone(),
                model: args.openai_model.clone(),
                api_key: std::env::var(OPENAI_API_KEY_VAR).ok().filter(|k| !k.is_empty()),
                dimensions: args.openai_dimensions,
                timeout: Duration::from_secs(args.openai_timeout_secs),
                ..OpenAiConfig::default()
            };
            Arc::new(OpenAiEmbedder::connect(config).await.map_err(|e| format!("PARLEY_EMBEDDER=openai: {e}"))?)
        }
    };
    tracing::info!(embedder = %embedder.identity(), dimensions = embedder.dimensions(), "embedder ready");
    Ok(embedder)
}
