//! Embedding adapters for Parley's ports.
//!
//! - [`ExactIndex`] implements `VectorIndex`: exact nearest-neighbour search in memory, one
//!   contiguous row-major matrix per agent, scored with one matrix-vector product per query.
//! - [`OpenAiEmbedder`] implements `Embedder` over any OpenAI-compatible `/embeddings` endpoint.
//! - [`StaticTable`] is the static embedder's table: quantized token rows, summed per text.

mod index;
mod openai;
mod static_table;

pub use index::ExactIndex;
pub use openai::{OpenAiConfig, OpenAiConnectError, OpenAiEmbedder};
pub use static_table::{StaticTable, TableError};
