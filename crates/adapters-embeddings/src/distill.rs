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
use ndarray::{Array2, Axis};

use parley_domain::ports::Embedder;

use crate::minilm::{MiniLmEmbedder, ModelError};
use crate::static_table::StaticTable;

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

    let projected = pca(&pooled, &real, options.dimensions);
    let first_word = tokenizer.token_to_id("the").unwrap_or(0) as usize;
    let weights = sif_weights(vocab, first_word, options.sif);
    let rows: Vec<Vec<f32>> = (0..vocab)
        .map(|id| if real[id] { projected.row(id).iter().map(|x| x * weights[id] as f32).collect() } else { vec![0.0; options.dimensions] })
        .collect();
    Ok(StaticTable::quantize(identity(model, options), &rows))
}

/// `[PAD]`, `[CLS]`, `[SEP]`, `[MASK]`, `[UNK]` and the `[unusedN]` placeholders.
fn is_special(token: &str) -> bool {
    token.starts_with('[') && token.ends_with(']')
}

/// Centers the real rows and projects every row onto the top `dimensions` principal axes.
fn pca(rows: &Array2<f32>, real: &[bool], dimensions: usize) -> Array2<f32> {
    let width = rows.ncols();
    let kept: Vec<usize> = (0..rows.nrows()).filter(|&i| real[i]).collect();
    let sample = rows.select(Axis(0), &kept).mapv(f64::from);
    let mean = sample.mean_axis(Axis(0)).expect("at least one real token");
    let centered = &sample - &mean;
    let covariance = centered.t().dot(&centered) / (kept.len().max(2) - 1) as f64;
    let eigen = SymmetricEigen::new(DMatrix::from_fn(width, width, |i, j| covariance[[i, j]]));
    let mut order: Vec<usize> = (0..width).collect();
    order.sort_by(|&a, &b| eigen.eigenvalues[b].total_cmp(&eigen.eigenvalues[a]));
    let basis = Array2::from_shape_fn((width, dimensions), |(i, k)| eigen.eigenvectors[(i, order[k])]);
    ((&rows.mapv(f64::from) - &mean).dot(&basis)).mapv(|x| x as f32)
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
        assert!(w[10] < w[2_000], "characters count least");
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
        let projected = pca(&rows, &real, 1);
        let spread = projected.column(0).iter().fold(0f32, |m, x| m.max(x.abs()));
        assert!(spread > 30.0, "the first axis carries the spread: {spread}");
        let two = pca(&rows, &real, 2);
        assert!(two.column(1).iter().all(|x| x.abs() < 0.1), "the second axis carries only the noise");
    }
}
