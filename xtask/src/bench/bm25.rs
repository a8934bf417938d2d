//! The keyword baseline: Okapi BM25 over the same product texts the server embeds, so the
//! figures show what semantic search adds over plain word matching.
//!
//! Tokens are lowercase runs of alphanumeric characters; no stemming and no stop-word list
//! ("hikes" does not match "hiking"; common words are damped by their low idf). The idf is
//! Lucene's `ln(1 + (N − n + 0.5) / (n + 0.5))`, which stays positive for words in most documents.

use std::collections::HashMap;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Lowercase alphanumeric tokens of `text`.
pub fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_lowercase).collect()
}

pub struct Bm25 {
    ids: Vec<String>,
    lengths: Vec<f64>,
    average_length: f64,
    /// For each term, the documents holding it and how often.
    postings: HashMap<String, Vec<(usize, u32)>>,
}

impl Bm25 {
    /// Indexes `(id, text)` documents; the caller leaves out what search must never return.
    pub fn new<'a>(documents: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let (mut ids, mut lengths, mut postings) = (Vec::new(), Vec::new(), HashMap::<String, Vec<(usize, u32)>>::new());
        for (doc, (id, text)) in documents.into_iter().enumerate() {
            let words = tokens(text);
            lengths.push(words.len() as f64);
            let mut counts = HashMap::<String, u32>::new();
            for word in words {
                *counts.entry(word).or_default() += 1;
            }
            for (word, count) in counts {
                postings.entry(word).or_default().push((doc, count));
            }
            ids.push(id.to_string());
        }
        let average_length = lengths.iter().sum::<f64>() / lengths.len().max(1) as f64;
        Self { ids, lengths, average_length, postings }
    }

    fn idf(&self, documents_with_term: usize) -> f64 {
        let (n, df) = (self.ids.len() as f64, documents_with_term as f64);
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The `k` best documents for `query`, best first; only documents sharing a word with it
    /// (a keyword engine returns nothing else). Ties keep indexing order, so runs repeat.
    pub fn search(&self, query: &str, k: usize) -> Vec<(&str, f64)> {
        let mut scores = vec![0.0; self.ids.len()];
        for term in tokens(query) {
            let Some(postings) = self.postings.get(&term) else { continue };
            let idf = self.idf(postings.len());
            for &(doc, tf) in postings {
                let tf = f64::from(tf);
                let norm = K1 * (1.0 - B + B * self.lengths[doc] / self.average_length);
                scores[doc] += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let mut ranked: Vec<(usize, f64)> = scores.into_iter().enumerate().filter(|&(_, s)| s > 0.0).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.into_iter().take(k).map(|(doc, score)| (self.ids[doc].as_str(), score)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(results: &[(&str, f64)]) -> Vec<String> {
        results.iter().map(|(id, _)| id.to_string()).collect()
    }

    #[test]
    fn tokens_are_lowercase_alphanumeric_runs() {
        assert_eq!(tokens("Double-wall 18/8 STEEL, café's"), ["double", "wall", "18", "8", "steel", "café", "s"]);
        assert!(tokens(" -- ").is_empty());
    }

    #[test]
    fn rarer_terms_weigh_more() {
        let index = Bm25::new([("a", "steel bottle"), ("b", "steel flask"), ("c", "steel cup"), ("d", "glass cup")]);
        // "steel" is in three documents, "flask" in one: the flask wins a query naming both.
        let results = index.search("steel flask", 10);
        assert_eq!(results[0].0, "b");
        assert!(index.idf(1) > index.idf(3));
        assert_eq!(ids(&results), ["b", "a", "c"], "ties keep indexing order, non-matching documents are left out");
    }

    #[test]
    fn longer_documents_are_normalized() {
        let index = Bm25::new([("long", "kettle with a long list of other words in it here"), ("short", "kettle"), ("other", "cup")]);
        let results = index.search("kettle", 10);
        assert_eq!(ids(&results), ["short", "long"]);
        assert!(results[0].1 > results[1].1);
    }

    #[test]
    fn term_frequency_saturates() {
        let index = Bm25::new([("one", "tea cup"), ("three", "tea tea tea"), ("none", "cup mug")]);
        let results = index.search("tea", 10);
        let (three, one) = (results[0].1, results[1].1);
        assert_eq!(results[0].0, "three");
        assert!(three < 3.0 * one, "three occurrences score less than three times one");
    }

    #[test]
    fn hand_computed_score() {
        // N = 2, "tea" in one document: idf = ln(1 + 1.5/1.5) = ln 2. Both documents have two
        // tokens, so the length norm is K1: score = ln 2 · 1 · 2.2 / (1 + 1.2) = ln 2.
        let index = Bm25::new([("a", "tea cup"), ("b", "mug cup")]);
        let results = index.search("TEA", 10);
        assert_eq!(results.len(), 1);
        assert!((results[0].1 - 2f64.ln()).abs() < 1e-12);
        assert!(index.search("nothing matches", 10).is_empty());
    }
}
