//! Whole words beside WordPiece: a word the tokenizer splits into several pieces ("raincoat" →
//! `rain` `##coat`) can have its own row in the static table, so its meaning no longer has to be
//! the sum of pieces it shares with unrelated words. Words without a row of their own fall back
//! to their pieces, so every text still embeds.

use std::collections::HashMap;

use crate::tokenizer::{BertTokenizer, TokenizerError};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WholeWords {
    /// The id of the first word: they come after the tokenizer's vocabulary.
    first_id: u32,
    words: Vec<String>,
    index: HashMap<String, u32>,
}

impl WholeWords {
    /// `words` get ids `first_id`, `first_id + 1`, … in order.
    pub fn new(first_id: u32, words: Vec<String>) -> Self {
        let index = words.iter().enumerate().map(|(i, w)| (w.clone(), first_id + i as u32)).collect();
        Self { first_id, words, index }
    }

    pub fn words(&self) -> &[String] {
        &self.words
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn first_id(&self) -> u32 {
        self.first_id
    }

    /// The text's ids: a split word's own id when it has one, its pieces' ids otherwise.
    pub fn encode(&self, tokenizer: &BertTokenizer, text: &str) -> Result<Vec<u32>, TokenizerError> {
        if self.is_empty() {
            return tokenizer.encode(text, false);
        }
        let mut ids = Vec::new();
        for (word, pieces) in tokenizer.encode_words(text)? {
            match self.index.get(&word).filter(|_| pieces.len() > 1) {
                Some(&id) => ids.push(id),
                None => ids.extend(pieces),
            }
        }
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::tests::bundled as tokenizer;

    #[test]
    fn a_split_word_with_a_row_becomes_one_id_and_others_keep_their_pieces() {
        let tokenizer = tokenizer();
        let first = tokenizer.vocab_size() as u32;
        let words = WholeWords::new(first, vec!["travelling".into(), "raincoat".into(), "coat".into()]);
        let plain = |t: &str| tokenizer.encode(t, false).unwrap();
        let ids = words.encode(&tokenizer, "A Raincoat for hiking").unwrap();
        let expected: Vec<u32> = plain("a").into_iter().chain([first + 1]).chain(plain("for hiking")).collect();
        assert_eq!(ids, expected, "hiking has no row of its own: its pieces stay");
        assert_eq!(words.encode(&tokenizer, "coat").unwrap(), plain("coat"), "a word the tokenizer keeps whole keeps its token");
    }

    #[test]
    fn without_words_a_text_encodes_as_the_tokenizer_does() {
        let tokenizer = tokenizer();
        let none = WholeWords::new(tokenizer.vocab_size() as u32, Vec::new());
        assert_eq!(none.encode(&tokenizer, "Raincoat, travelling").unwrap(), tokenizer.encode("Raincoat, travelling", false).unwrap());
    }
}
