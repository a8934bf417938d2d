//! Reading a Hugging Face-layout model folder, weights checked against a pinned hash.

use std::path::{Path, PathBuf};

use candle_transformers::models::bert::Config;
use sha2::{Digest, Sha256};

use super::ModelError;
use crate::tokenizer::BertTokenizer;

/// sha256 of the all-MiniLM-L6-v2 `model.safetensors` this code was checked against.
/// `cargo xtask fetch-model` pins the same hash.
pub const WEIGHTS_SHA256: &str = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";

pub const CONFIG_FILE: &str = "config.json";
pub const TOKENIZER_FILE: &str = "tokenizer.json";
pub const WEIGHTS_FILE: &str = "model.safetensors";

/// The contents of a model folder, checked.
pub(super) struct ModelFiles {
    pub config: Config,
    pub tokenizer: BertTokenizer,
    /// The bytes of `model.safetensors`, whose hash was verified: they are what gets loaded, so
    /// the file cannot change between the check and the load.
    pub weights: Vec<u8>,
}

impl ModelFiles {
    pub fn read(dir: &Path) -> Result<Self, ModelError> {
        if !dir.is_dir() {
            return Err(ModelError::Missing { path: dir.to_path_buf() });
        }
        let weights_path = dir.join(WEIGHTS_FILE);
        let weights = read(&weights_path)?;
        let actual = hex::encode(Sha256::digest(&weights));
        if actual != WEIGHTS_SHA256 {
            return Err(ModelError::WrongWeights { path: weights_path, expected: WEIGHTS_SHA256.into(), actual });
        }
        let config_path = dir.join(CONFIG_FILE);
        let config = serde_json::from_slice(&read(&config_path)?)
            .map_err(|e| ModelError::Config { path: config_path.clone(), reason: e.to_string() })?;
        let tokenizer = BertTokenizer::from_bytes(&read(&dir.join(TOKENIZER_FILE))?)?;
        Ok(Self { config, tokenizer, weights })
    }
}

fn read(path: &Path) -> Result<Vec<u8>, ModelError> {
    std::fs::read(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => ModelError::Missing { path: PathBuf::from(path) },
        _ => ModelError::Io { path: path.to_path_buf(), source },
    })
}
