//! Embedding adapters for Parley's ports.
//!
//! - [`StaticEmbedder`] (the default) implements `Embedder` with a static token table distilled
//!   from all-MiniLM-L6-v2 ([`StaticTable`]) and compiled in: offline, no download, microseconds.
//! - [`MiniLmEmbedder`] implements `Embedder`: the all-MiniLM-L6-v2 sentence-transformer on CPU
//!   (candle), loaded from a model folder that `cargo xtask fetch-model` puts in place.
//! - [`OpenAiEmbedder`] implements `Embedder` over any OpenAI-compatible `/embeddings` endpoint.
//! - [`BertTokenizer`] turns text into BERT WordPiece ids from a `tokenizer.json`; it does not
//!   depend on the inference engine.
//! - [`ExactIndex`] implements `VectorIndex`: exact nearest-neighbour search in memory, one
//!   contiguous row-major matrix per agent, scored with one matrix-vector product per query.

#[cfg(feature = "distill")]
pub mod distill;
mod index;
pub mod minilm;
mod openai;
mod static_embedder;
mod static_table;
mod tokenizer;
mod whole_words;

pub use index::ExactIndex;
pub use minilm::{MiniLmEmbedder, ModelError};
pub use openai::{OpenAiConfig, OpenAiConnectError, OpenAiEmbedder};
pub use static_embedder::{StaticEmbedder, StaticEmbedderError};
pub use static_table::{StaticTable, TableError};
pub use tokenizer::{BertTokenizer, DEFAULT_MAX_TOKENS, TokenizerError};
pub use whole_words::WholeWords;
