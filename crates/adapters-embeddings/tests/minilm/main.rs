//! The all-MiniLM-L6-v2 embedder and its tokenizer against a reference implementation's output
//! (`tests/data/minilm-reference.json`), and the errors of a bad model folder.
//!
//! The model folder is fetched once when missing (see `common`), so these tests always run.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

mod common;
mod embedder;
mod model_folder;
mod tokenizer;
