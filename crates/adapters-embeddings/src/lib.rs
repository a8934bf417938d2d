//! Embedding adapters for Parley's ports.
//!
//! - [`MiniLmEmbedder`] implements `Embedder`: the all-MiniLM-L6-v2 sentence-transformer on CPU
//!   (candle), loaded from a model folder that `cargo xtask fetch-model` puts in place.
//! - [`BertTokenizer`] turns text into BERT WordPiece ids from a `tokenizer.json`; it does not
//!   depend on the inference engine.
//! - [`ExactIndex`] implements `VectorIndex`: exact nearest-neighbour search in memory, one
//!   contiguous row-major matrix per agent, scored with one matrix-vector product per query.

mod index;
pub mod minilm;
mod tokenizer;

pub use index::ExactIndex;
pub use minilm::{MiniLmEmbedder, ModelError};
pub use tokenizer::{BertTokenizer, DEFAULT_MAX_TOKENS, TokenizerError};
