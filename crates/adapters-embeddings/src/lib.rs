//! Embedding adapters for Parley's ports.
//!
//! - [`BertTokenizer`] turns text into BERT WordPiece ids from a `tokenizer.json`; it does not
//!   depend on the inference engine.
//! - [`ExactIndex`] implements `VectorIndex`: exact nearest-neighbour search in memory, one
//!   contiguous row-major matrix per agent, scored with one matrix-vector product per query.

mod index;
mod tokenizer;

pub use index::ExactIndex;
pub use tokenizer::{BertTokenizer, DEFAULT_MAX_TOKENS, TokenizerError};
