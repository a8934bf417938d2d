//! Distillation of the static table from all-MiniLM-L6-v2 (the `cargo xtask distill` task):
//!
//! 1. every vocabulary token alone (`[CLS] token [SEP]`) goes through the full model, mean-pooled
//!    as the sentence model pools: one 384-d vector per token;
//! 2. PCA (fitted on the real tokens, centered) reduces them to the table's dimensions;
//! 3. each row is weighted by informativeness (SIF over a Zipf estimate of the token's frequency,
//!    so rare tokens count more and function words little);
//! 4. rows are quantized to `i8` with a per-row scale.
//!
//! Special and unused tokens get zero rows: they never carry meaning in a query.

use nalgebra::{DMatrix, SymmetricEigen};
use ndarray::{Array1, Array2, ArrayView2, Axis};

use parley_domain::ports::Embedder;

use crate::minilm::{MiniLmEmbedder, ModelError};
use crate::static_table::StaticTable;

pub mod dev_sets;
pub mod teacher;
pub mod tune;
pub mod tuned;
pub mod wordnet;

/// Tokens per forward pass: each is 3 positions long, so batches can be large.
const BATCH: usize = 512;

#[derive(Debug, Clone, Copy)]
pub struct DistillOptions {
    /// Dimensions kept by PCA.
    pub dimensions: usize,
    /// The SIF coefficient `a` of `a / (a + p)`: smaller values silence frequent tokens harder.
    /// 1e-6 scored best on the demo development set (nDCG@10 0.65, against 0.53 at 1e-4 and
    /// 0.62 at 1e-7; see docs/search.md).
    pub sif: f64,
}

impl Default for DistillOptions {
    fn default() -> Self {
        Self { dimensions: 256, sif: 1e-6 }
    }
}

/// Names what was distilled and how, so vectors from another table are never mixed with these.
pub fn identity(model: &MiniLmEmbedder, options: &DistillOptions) -> String {
    format!("static:{}:pca{}-sif{:e}-int8:v1", model.identity(), options.dimensions, options.sif)
}

/// Runs the whole distillation; `progress` gets the number of tokens embedded so far.
pub fn distill(model: &MiniLmEmbedder, options: &DistillOptions, progress: &dyn Fn(usize, usize)) -> Result<StaticTable, ModelError> {
    let tokens = TokenVectors::embed(model, progress)?;
    let pca = Pca::fit(tokens.pooled.view(), &tokens.real, options.dimensions);
    let rows = tokens.weighted_rows(&pca.project(tokens.pooled.view()), model, options.sif);
    Ok(StaticTable::quantize(identity(model, options), &to_rows(&rows), Vec::new()))
}

/// The teacher's vector for every vocabulary token alone, and which tokens are real words.
pub struct TokenVectors {
    /// Mean-pooled, not normalized, one row per vocabulary id (zero for special tokens).
    pub pooled: Array2<f32>,
    /// False for special and unused tokens, which never carry meaning in a query.
    pub real: Vec<bool>,
}

impl TokenVectors {
    /// Every real token as `[CLS] token [SEP]` through the full model, mean-pooled as the sentence
    /// model pools; `progress` gets the number of tokens embedded so far.
    pub fn embed(model: &MiniLmEmbedder, progress: &dyn Fn(usize, usize)) -> Result<Self, ModelError> {
        let tokenizer = model.tokenizer();
        let vocab = tokenizer.vocab_size();
        let (cls, sep) = (tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]"));
        let (Some(cls), Some(sep)) = (cls, sep) else { return Err(ModelError::Input("the vocabulary lacks [CLS] or [SEP]".into())) };
        let real: Vec<bool> = (0..vocab as u32).map(|id| tokenizer.id_to_token(id).is_some_and(|t| !is_special(&t))).collect();
        let mut pooled = Array2::<f32>::zeros((vocab, model.dimensions()));
        let ids: Vec<u32> = (0..vocab as u32).filter(|&id| real[id as usize]).collect();
        for (done, chunk) in ids.chunks(BATCH).enumerate() {
            let batch: Vec<Vec<u32>> = chunk.iter().map(|&id| vec![cls, id, sep]).collect();
            for (&id, row) in chunk.iter().zip(model.pooled_for_ids(&batch)?) {
                pooled.row_mut(id as usize).assign(&ndarray::Array1::from(row));
            }
            progress((done * BATCH + chunk.len()).min(ids.len()), ids.len());
        }
        Ok(Self { pooled, real })
    }

    /// Each real token's projected row weighted by informativeness (SIF); special rows are zero.
    pub fn weighted_rows(&self, projected: &Array2<f32>, model: &MiniLmEmbedder, sif: f64) -> Array2<f32> {
        let vocab = self.real.len();
        let first_word = model.tokenizer().token_to_id("the").unwrap_or(0) as usize;
        let weights = sif_weights(vocab, first_word, sif);
        let mut rows = projected.clone();
        for (id, mut row) in rows.rows_mut().into_iter().enumerate() {
            let weight = if self.real[id] { weights[id] as f32 } else { 0.0 };
            row.mapv_inplace(|x| x * weight);
        }
        rows
    }
}

pub fn to_rows(rows: &Array2<f32>) -> Vec<Vec<f32>> {
    rows.rows().into_iter().map(|r| r.to_vec()).collect()
}

/// `[PAD]`, `[CLS]`, `[SEP]`, `[MASK]`, `[UNK]` and the `[unusedN]` placeholders.
fn is_special(token: &str) -> bool {
    token.starts_with('[') && token.ends_with(']')
}

/// A principal-component projection: the mean of the rows it was fitted on, and the top axes.
pub struct Pca {
    mean: Array1<f64>,
    basis: Array2<f64>,
}

impl Pca {
    /// Fits on the rows flagged `kept`, centered: the top `dimensions` axes of their covariance.
    pub fn fit(rows: ArrayView2<f32>, kept: &[bool], dimensions: usize) -> Self {
        let width = rows.ncols();
        let kept: Vec<usize> = (0..rows.nrows()).filter(|&i| kept[i]).collect();
        let sample = rows.select(Axis(0), &kept).mapv(f64::from);
        let mean = sample.mean_axis(Axis(0)).expect("at least one row");
        let centered = &sample - &mean;
        let covariance = centered.t().dot(&centered) / (kept.len().max(2) - 1) as f64;
        let eigen = SymmetricEigen::new(DMatrix::from_fn(width, width, |i, j| covariance[[i, j]]));
        let mut order: Vec<usize> = (0..width).collect();
        order.sort_by(|&a, &b| eigen.eigenvalues[b].total_cmp(&eigen.eigenvalues[a]));
        let basis = Array2::from_shape_fn((width, dimensions), |(i, k)| eigen.eigenvectors[(i, order[k])]);
        Self { mean, basis }
    }

    /// Every row centered by the fitted mean and projected onto the axes.
    pub fn project(&self, rows: ArrayView2<f32>) -> Array2<f32> {
        ((&rows.mapv(f64::from) - &self.mean).dot(&self.basis)).mapv(|x| x as f32)
    }
}

/// Smooth inverse frequency, `a / (a + p(token))`, with `p` estimated by Zipf's law from the
/// token's rank. BERT's vocabulary lists whole words roughly by corpus frequency starting at
/// `first_word` ("the"); the single characters before it are treated as the most frequent.
fn sif_weights(vocab: usize, first_word: usize, a: f64) -> Vec<f64> {
    let rank = |id: usize| if id < first_word { 1.0 } else { (id - first_word + 1) as f64 };
    let harmonic: f64 = (0..vocab).map(|id| 1.0 / rank(id)).sum();
    (0..vocab).map(|id| a / (a + 1.0 / (rank(id) * harmonic))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frequent_tokens_weigh_less_than_rare_ones() {
        let w = sif_weights(30_000, 2_000, 1e-6);
        assert_eq!(w[10], w[2_000], "characters count as little as the most frequent word");
        assert!(w[10] < w[2_001]);
        assert!(w[2_000] < w[2_100] && w[2_100] < w[20_000], "then words by rank");
        assert!(w.iter().all(|&x| x > 0.0 && x < 1.0));
    }

    #[test]
    fn pca_keeps_the_axis_of_largest_variance() {
        // Points spread along (1, 1, 0) with a little noise on z: one axis holds almost everything.
        let rows = Array2::from_shape_fn((50, 3), |(i, j)| match j {
            0 | 1 => i as f32,
            _ => (i % 2) as f32 * 0.01,
        });
        let real = vec![true; 50];
        let projected = Pca::fit(rows.view(), &real, 1).project(rows.view());
        let spread = projected.column(0).iter().fold(0f32, |m, x| m.max(x.abs()));
        assert!(spread > 30.0, "the first axis carries the spread: {spread}");
        let two = Pca::fit(rows.view(), &real, 2).project(rows.view());
        assert!(two.column(1).iter().all(|x| x.abs() < 0.1), "the second axis carries only the noise");
    }
}
