//! The search development sets as `cargo xtask distill` exports them (the same catalogs and
//! labeled queries `cargo xtask bench search` measures), scored in-process so tuning can compare
//! candidate tables in seconds. Only the queries not held out may steer a choice; the held-out
//! score is reported beside it and never read by the tuning.

use std::collections::HashMap;
use std::path::Path;

use ndarray::{Array1, Array2, ArrayView2};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub struct DevSets {
    pub catalogs: Vec<Catalog>,
}

#[derive(Debug, Deserialize)]
pub struct Catalog {
    pub name: String,
    pub products: Vec<Product>,
    pub queries: Vec<Query>,
}

#[derive(Debug, Deserialize)]
pub struct Product {
    pub id: String,
    pub text: String,
}

#[derive(Debug, Deserialize)]
pub struct Query {
    pub text: String,
    pub labels: HashMap<String, u8>,
    pub held_out: bool,
}

/// nDCG@10 of one catalog: over the queries tuning may use, and over the held-out ones.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quality {
    pub tuned_on: f64,
    pub held_out: f64,
}

const K: usize = 10;

impl DevSets {
    pub fn read(path: &Path) -> Result<Self, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        serde_json::from_slice(&bytes).map_err(|e| format!("{} is not an exported dev set: {e}", path.display()))
    }

    /// Tokenized once: scoring a candidate table is then sums and dot products only.
    pub fn tokenize(&self, encode: &dyn Fn(&str) -> Result<Vec<u32>, String>) -> Result<Vec<TokenizedCatalog>, String> {
        self.catalogs
            .iter()
            .map(|c| {
                Ok(TokenizedCatalog {
                    name: c.name.clone(),
                    products: c.products.iter().map(|p| encode(&p.text)).collect::<Result<_, String>>()?,
                    queries: c
                        .queries
                        .iter()
                        .map(|q| {
                            let grades = c.products.iter().map(|p| q.labels.get(&p.id).copied().unwrap_or(0)).collect();
                            Ok((encode(&q.text)?, grades, q.held_out))
                        })
                        .collect::<Result<_, String>>()?,
                })
            })
            .collect()
    }
}

pub struct TokenizedCatalog {
    pub name: String,
    products: Vec<Vec<u32>>,
    /// Token ids, the grade of each product (in product order), held out or not.
    queries: Vec<(Vec<u32>, Vec<u8>, bool)>,
}

impl TokenizedCatalog {
    /// Ranks every product for every query by cosine similarity under `rows` (one row per token).
    pub fn quality(&self, rows: ArrayView2<f32>) -> Quality {
        let mut products = Array2::<f32>::zeros((self.products.len(), rows.ncols()));
        for (i, ids) in self.products.iter().enumerate() {
            products.row_mut(i).assign(&embed(rows, ids));
        }
        let (mut tuned, mut held) = (Vec::new(), Vec::new());
        for (ids, grades, held_out) in &self.queries {
            let scores = products.dot(&embed(rows, ids));
            let mut order: Vec<usize> = (0..scores.len()).collect();
            order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
            let ranked: Vec<u8> = order.iter().take(K).map(|&i| grades[i]).collect();
            let value = ndcg(&ranked, grades);
            if *held_out { held.push(value) } else { tuned.push(value) }
        }
        let mean = |v: &[f64]| if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 };
        Quality { tuned_on: mean(&tuned), held_out: mean(&held) }
    }
}

/// The normalized sum of the tokens' rows, as the static embedder computes it.
fn embed(rows: ArrayView2<f32>, ids: &[u32]) -> Array1<f32> {
    let mut sum = Array1::<f32>::zeros(rows.ncols());
    for &id in ids {
        sum += &rows.row(id as usize);
    }
    let norm = sum.dot(&sum).sqrt();
    if norm > 0.0 { sum / norm } else { sum }
}

/// Gain `2^grade − 1`, discount `log2(rank + 1)`, over the best order of all the grades.
fn ndcg(ranked: &[u8], grades: &[u8]) -> f64 {
    let dcg = |g: &mut dyn Iterator<Item = u8>| {
        g.take(K).enumerate().map(|(i, g)| (2f64.powi(i32::from(g)) - 1.0) / (i as f64 + 2.0).log2()).sum::<f64>()
    };
    let mut ideal = grades.to_vec();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let best = dcg(&mut ideal.into_iter());
    if best == 0.0 { 0.0 } else { dcg(&mut ranked.iter().copied()) / best }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndcg_is_one_for_the_best_order_and_less_otherwise() {
        assert_eq!(ndcg(&[3, 2, 0], &[0, 2, 3]), 1.0);
        let swapped = ndcg(&[2, 3, 0], &[0, 2, 3]);
        assert!(swapped < 1.0 && swapped > 0.5, "{swapped}");
        assert_eq!(ndcg(&[0, 0], &[0, 0]), 0.0);
    }

    #[test]
    fn products_are_ranked_by_cosine_to_the_query() {
        // Token 0 and 1 point apart; the query (token 0) must find product 1 (tokens 0, 0) first.
        let rows = Array2::from_shape_vec((2, 2), vec![1.0, 0.0, 0.0, 1.0]).unwrap();
        let catalog = TokenizedCatalog {
            name: "t".into(),
            products: vec![vec![1], vec![0, 0]],
            queries: vec![(vec![0], vec![0, 3], false), (vec![0], vec![3, 0], true)],
        };
        let quality = catalog.quality(rows.view());
        assert_eq!(quality.tuned_on, 1.0);
        assert!(quality.held_out < 1.0);
    }
}
