//! A BERT WordPiece tokenizer read from a Hugging Face `tokenizer.json`.
//!
//! Independent of any inference engine on purpose: the MiniLM embedder runs candle over its ids,
//! and a table-lookup embedder can use it with a `tokenizer.json` compiled into the binary.

use std::path::Path;

use tokenizers::{PostProcessor, Tokenizer, TruncationParams};

/// How many tokens an encoding keeps by default, special tokens included: all-MiniLM-L6-v2 was
/// trained on sequences of at most 256 tokens.
pub const DEFAULT_MAX_TOKENS: usize = 256;

/// Why a tokenizer could not be loaded, configured or run.
#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    #[error("cannot read the tokenizer: {0}")]
    Load(String),
    /// `max_tokens` must leave room for at least one token of text beside the special tokens.
    #[error("a limit of {max_tokens} tokens leaves no room for text beside {special} special tokens")]
    LimitTooSmall { max_tokens: usize, special: usize },
    #[error("cannot tokenize: {0}")]
    Encode(String),
}

/// Turns text into token ids, truncated to [`max_tokens`](Self::max_tokens), never padded.
#[derive(Debug, Clone)]
pub struct BertTokenizer {
    inner: Tokenizer,
    max_tokens: usize,
}

impl BertTokenizer {
    /// Parses the contents of a `tokenizer.json`, with the limit set to [`DEFAULT_MAX_TOKENS`].
    pub fn from_bytes(json: &[u8]) -> Result<Self, TokenizerError> {
        let inner = Tokenizer::from_bytes(json).map_err(|e| TokenizerError::Load(e.to_string()))?;
        Self::new(inner, DEFAULT_MAX_TOKENS)
    }

    /// Reads a `tokenizer.json` file, with the limit set to [`DEFAULT_MAX_TOKENS`].
    pub fn from_file(path: &Path) -> Result<Self, TokenizerError> {
        let json = std::fs::read(path).map_err(|e| TokenizerError::Load(format!("{}: {e}", path.display())))?;
        Self::from_bytes(&json)
    }

    /// The same tokenizer with another limit (special tokens included when they are added).
    pub fn with_max_tokens(self, max_tokens: usize) -> Result<Self, TokenizerError> {
        Self::new(self.inner, max_tokens)
    }

    // The file's own truncation and padding are replaced: all-MiniLM-L6-v2's `tokenizer.json`
    // truncates at 128 and pads every encoding to 128, which would change the embeddings.
    fn new(mut inner: Tokenizer, max_tokens: usize) -> Result<Self, TokenizerError> {
        let special = inner.get_post_processor().map_or(0, |p| p.added_tokens(false));
        if max_tokens <= special {
            return Err(TokenizerError::LimitTooSmall { max_tokens, special });
        }
        inner
            .with_truncation(Some(TruncationParams { max_length: max_tokens, ..TruncationParams::default() }))
            .map_err(|e| TokenizerError::Load(e.to_string()))?;
        inner.with_padding(None);
        Ok(Self { inner, max_tokens })
    }

    /// The ids of `text`, at most [`max_tokens`](Self::max_tokens) of them. With special tokens,
    /// a BERT encoding is `[CLS] … [SEP]`, and truncation keeps both ends' markers.
    pub fn encode(&self, text: &str, with_special_tokens: bool) -> Result<Vec<u32>, TokenizerError> {
        let encoding = self.inner.encode_fast(text, with_special_tokens).map_err(|e| TokenizerError::Encode(e.to_string()))?;
        Ok(encoding.get_ids().to_vec())
    }

    /// The text's words (as the tokenizer normalized and split them: lowercased, punctuation
    /// apart) with each word's ids, no special tokens, at most [`max_tokens`](Self::max_tokens)
    /// ids in all.
    pub fn encode_words(&self, text: &str) -> Result<Vec<(String, Vec<u32>)>, TokenizerError> {
        // `encode_fast` leaves the tokens' text and word numbers out.
        let encoding = self.inner.encode(text, false).map_err(|e| TokenizerError::Encode(e.to_string()))?;
        let mut words: Vec<(Option<u32>, String, Vec<u32>)> = Vec::new();
        for ((&id, token), word) in encoding.get_ids().iter().zip(encoding.get_tokens()).zip(encoding.get_word_ids()) {
            let piece = token.strip_prefix("##").unwrap_or(token);
            match words.last_mut() {
                Some((last, text, ids)) if word.is_some() && *last == *word => {
                    text.push_str(piece);
                    ids.push(id);
                }
                _ => words.push((*word, piece.to_string(), vec![id])),
            }
        }
        Ok(words.into_iter().map(|(_, text, ids)| (text, ids)).collect())
    }

    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// Number of ids the tokenizer can produce, added tokens included.
    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }

    /// The WordPiece token of an id (`##` marks a word continuation), or `None` when unknown.
    pub fn id_to_token(&self, id: u32) -> Option<String> {
        self.inner.id_to_token(id)
    }

    pub fn token_to_id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The tokenizer compiled into the static embedder.
    pub(crate) fn bundled() -> BertTokenizer {
        BertTokenizer::from_bytes(include_bytes!("../assets/minilm-tokenizer.json")).unwrap()
    }

    #[test]
    fn words_keep_their_pieces_together() {
        let words = bundled().encode_words("Raincoat, for TRAVELLING").unwrap();
        let texts: Vec<&str> = words.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(texts, ["raincoat", ",", "for", "travelling"]);
        assert!(words[0].1.len() > 1, "raincoat is split: {:?}", words[0].1);
        let flat: Vec<u32> = words.into_iter().flat_map(|(_, ids)| ids).collect();
        assert_eq!(flat, bundled().encode("Raincoat, for TRAVELLING", false).unwrap(), "the same ids as a plain encoding");
    }
}
