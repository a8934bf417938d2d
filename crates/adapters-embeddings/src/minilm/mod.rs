//! The all-MiniLM-L6-v2 sentence embedder, run on CPU with candle.
//!
//! A sentence's vector is the mean of the model's last hidden states over its tokens (`[CLS]`
//! and `[SEP]` included, at most 256 tokens), scaled to unit length: what sentence-transformers
//! computes for this model, so vectors match the reference implementation's.

mod error;
mod files;
mod pooling;

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use candle_core::{DType, Device};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::BertModel;
use parley_domain::ports::{EmbedError, Embedder};

pub use error::ModelError;
pub use files::{CONFIG_FILE, TOKENIZER_FILE, WEIGHTS_FILE, WEIGHTS_SHA256};
pub use pooling::l2_normalize;

use crate::tokenizer::BertTokenizer;
use files::ModelFiles;

/// The model's name, as its authors publish it.
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";

/// How many texts one forward pass takes: large enough to amortize the per-call overhead,
/// small enough that one blocking task stays short and padding waste stays low.
pub const BATCH_SIZE: usize = 32;

/// all-MiniLM-L6-v2 behind the [`Embedder`] port. Cheap to clone (the model is shared).
#[derive(Clone)]
pub struct MiniLmEmbedder {
    model: Arc<Model>,
}

struct Model {
    bert: BertModel,
    tokenizer: BertTokenizer,
    device: Device,
    dimensions: usize,
    vocab_size: usize,
    max_positions: usize,
    pad_id: u32,
}

impl std::fmt::Debug for MiniLmEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLmEmbedder").field("identity", &self.identity()).finish_non_exhaustive()
    }
}

impl MiniLmEmbedder {
    /// Loads a Hugging Face-layout folder holding `config.json`, `tokenizer.json` and
    /// `model.safetensors`, after checking the weights against [`WEIGHTS_SHA256`].
    /// `cargo xtask fetch-model` puts such a folder in place.
    pub fn load(dir: &Path) -> Result<Self, ModelError> {
        let files = ModelFiles::read(dir)?;
        let device = Device::Cpu;
        let pad_id = u32::try_from(files.config.pad_token_id).map_err(|_| ModelError::Config {
            path: dir.join(CONFIG_FILE),
            reason: format!("pad_token_id {} is out of range", files.config.pad_token_id),
        })?;
        let weights = VarBuilder::from_buffered_safetensors(files.weights, DType::F32, &device)?;
        let bert = BertModel::load(weights, &files.config)?;
        let model = Model {
            bert,
            tokenizer: files.tokenizer,
            device,
            dimensions: files.config.hidden_size,
            vocab_size: files.config.vocab_size,
            max_positions: files.config.max_position_embeddings,
            pad_id,
        };
        Ok(Self { model: Arc::new(model) })
    }

    /// The tokenizer the model was trained with, limited to 256 tokens.
    pub fn tokenizer(&self) -> &BertTokenizer {
        &self.model.tokenizer
    }

    /// The mean-pooled, NOT normalized, last hidden states of already-tokenized sequences (one
    /// `dimensions()`-long vector each, in order). Sequences are taken as given: no special tokens
    /// are added and nothing is truncated. Synchronous and CPU-heavy: call it off the async runtime.
    pub fn pooled_for_ids(&self, batch: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, ModelError> {
        self.model.pooled(batch)
    }

    /// Unit-length sentence vectors for `texts`, in order, computed on the calling thread (what
    /// `embed` does on tokio's blocking pool).
    pub fn embed_blocking(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, ModelError> {
        let mut vectors = vec![Vec::new(); texts.len()];
        for (positions, batch) in batches_by_length(self.tokenize(texts)?) {
            scatter(&mut vectors, positions, self.model.unit_vectors(&batch)?);
        }
        Ok(vectors)
    }

    fn tokenize(&self, texts: &[String]) -> Result<Vec<Vec<u32>>, ModelError> {
        Ok(texts.iter().map(|t| self.model.tokenizer.encode(t, true)).collect::<Result<_, _>>()?)
    }
}

/// Groups sequences into batches of at most [`BATCH_SIZE`] of similar length, each with the
/// positions its sequences had: a batch is padded to its longest member, so mixing a long text
/// with short ones would make the short ones cost as much. Vectors do not depend on the grouping.
fn batches_by_length(ids: Vec<Vec<u32>>) -> Vec<(Vec<usize>, Vec<Vec<u32>>)> {
    let mut numbered: Vec<(usize, Vec<u32>)> = ids.into_iter().enumerate().collect();
    numbered.sort_by_key(|(_, sequence)| sequence.len());
    let mut batches = Vec::new();
    let mut rest = numbered.into_iter().peekable();
    while rest.peek().is_some() {
        batches.push(rest.by_ref().take(BATCH_SIZE).unzip());
    }
    batches
}

/// Puts each vector of a batch back at its text's position.
fn scatter(vectors: &mut [Vec<f32>], positions: Vec<usize>, batch: Vec<Vec<f32>>) {
    for (i, vector) in positions.into_iter().zip(batch) {
        vectors[i] = vector;
    }
}

impl Model {
    fn unit_vectors(&self, batch: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, ModelError> {
        let mut vectors = self.pooled(batch)?;
        vectors.iter_mut().for_each(|v| l2_normalize(v));
        Ok(vectors)
    }

    fn pooled(&self, batch: &[Vec<u32>]) -> Result<Vec<Vec<f32>>, ModelError> {
        if batch.is_empty() {
            return Ok(Vec::new());
        }
        self.check(batch)?;
        let (ids, mask) = pooling::padded_batch(batch, self.pad_id, &self.device)?;
        let token_types = ids.zeros_like()?;
        let states = self.bert.forward(&ids, &token_types, Some(&mask))?;
        Ok(pooling::masked_mean(&states, &mask)?.to_vec2::<f32>()?)
    }

    /// Rejects what the model would turn into NaNs or an opaque engine error.
    fn check(&self, batch: &[Vec<u32>]) -> Result<(), ModelError> {
        let vocab = self.vocab_size;
        for (i, sequence) in batch.iter().enumerate() {
            if sequence.is_empty() {
                return Err(ModelError::Input(format!("sequence {i} is empty")));
            }
            if sequence.len() > self.max_positions {
                return Err(ModelError::Input(format!("sequence {i} has {} ids, the model takes {}", sequence.len(), self.max_positions)));
            }
            if let Some(id) = sequence.iter().find(|&&id| id as usize >= vocab) {
                return Err(ModelError::Input(format!("sequence {i} has id {id}, outside the vocabulary of {vocab}")));
            }
        }
        Ok(())
    }
}

#[async_trait]
impl Embedder for MiniLmEmbedder {
    /// Model and weights: vectors stored under another identity must be recomputed.
    fn identity(&self) -> String {
        format!("minilm:{MODEL_NAME}@{}", &WEIGHTS_SHA256[..8])
    }

    fn dimensions(&self) -> usize {
        self.model.dimensions
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        // Everything CPU-heavy runs on the blocking pool so that it never stalls the runtime's
        // workers; one task per batch, so a dropped request stops after the batch in flight.
        let (embedder, owned) = (self.clone(), texts.to_vec());
        let ids = blocking(move || embedder.tokenize(&owned)).await?;
        let mut vectors = vec![Vec::new(); texts.len()];
        for (positions, batch) in batches_by_length(ids) {
            let model = self.model.clone();
            scatter(&mut vectors, positions, blocking(move || model.unit_vectors(&batch)).await?);
        }
        Ok(vectors)
    }
}

async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Result<T, ModelError> + Send + 'static) -> Result<T, EmbedError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| EmbedError::Failed(format!("the embedding task failed: {e}")))?
        .map_err(|e| EmbedError::Failed(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_group_similar_lengths_and_remember_positions() {
        let ids: Vec<Vec<u32>> = (0..70u32).map(|i| vec![7; 1 + (i as usize * 37) % 70]).collect();
        let batches = batches_by_length(ids.clone());
        assert_eq!(batches.iter().map(|(p, _)| p.len()).collect::<Vec<_>>(), [32, 32, 6]);
        let mut seen = vec![false; ids.len()];
        let mut longest_so_far = 0;
        for (positions, batch) in &batches {
            for (&i, sequence) in positions.iter().zip(batch) {
                assert_eq!(sequence, &ids[i]);
                assert!(sequence.len() >= longest_so_far, "sorted by length");
                longest_so_far = sequence.len();
                seen[i] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
        assert!(batches_by_length(Vec::new()).is_empty());
    }
}
