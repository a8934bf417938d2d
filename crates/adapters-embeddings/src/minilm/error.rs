use std::path::PathBuf;

use crate::tokenizer::TokenizerError;

/// Why the MiniLM model could not be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The model folder or one of its files is not there.
    #[error(
        "{} is missing: the MiniLM model folder holds config.json, tokenizer.json and model.safetensors; \
         run `cargo xtask fetch-model` (or set PARLEY_MODEL_DIR to a folder that has them)",
        path.display()
    )]
    Missing { path: PathBuf },
    #[error("cannot read {}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    /// The weights are not the ones this code was checked against: another model, a newer
    /// revision or a damaged download, any of which would silently change every vector.
    #[error("{} has sha256 {actual}, expected {expected}: remove the folder and run `cargo xtask fetch-model`", path.display())]
    WrongWeights { path: PathBuf, expected: String, actual: String },
    #[error("{} is not a usable BERT config: {reason}", path.display())]
    Config { path: PathBuf, reason: String },
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
    /// Ids that the model cannot take (empty sequence, unknown id, too long).
    #[error("invalid input: {0}")]
    Input(String),
    /// The inference engine failed (shape or weight problems).
    #[error("model error: {0}")]
    Candle(#[from] candle_core::Error),
}
