//! Embedding adapters for Parley's ports.
//!
//! - [`ExactIndex`] implements `VectorIndex`: exact nearest-neighbour search in memory, one
//!   contiguous row-major matrix per agent, scored with one matrix-vector product per query.
//! - [`OpenAiEmbedder`] implements `Embedder` over any OpenAI-compatible `/embeddings` endpoint.
//! - [`StaticEmbedder`] (the default) implements `Embedder` with a static token table distilled
//!   from all-MiniLM-L6-v2 ([`StaticTable`]) and compiled in.
//! - [`MiniLmEmbedder`] implements `Embedder` with the full all-MiniLM-L6-v2 model on the CPU.

#[cfg(feature = "distill")]
pub mod distill;
mod index;
pub mod minilm;
mod openai;
mod static_embedder;
mod static_table;
mod tokenizer;

pub use index::ExactIndex;
pub use minilm::{MiniLmEmbedder, ModelError};
pub use openai::{OpenAiConfig, OpenAiConnectError, OpenAiEmbedder};
pub use static_embedder::{StaticEmbedder, StaticEmbedderError};
pub use static_table::{StaticTable, TableError};
pub use tokenizer::{BertTokenizer, TokenizerError};
