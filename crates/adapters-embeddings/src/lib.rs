//! Embedding adapters for Parley's ports.
//!
//! - [`ExactIndex`] implements `VectorIndex`: exact nearest-neighbour search in memory, one
//!   contiguous row-major matrix per agent, scored with one matrix-vector product per query.

mod index;
mod openai;

pub use index::ExactIndex;
pub use openai::{OpenAiConfig, OpenAiConnectError, OpenAiEmbedder};
