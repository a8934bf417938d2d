//! The tuned distillation: the distilled table as the starting point, then fitted to the
//! teacher's sentence vectors over a corpus ([`super::tune`]). The projection is fitted on the
//! teacher's sentence vectors (what queries and products look like to it), not on lone tokens.

use std::path::Path;

use ndarray::{Array2, ArrayView2, Axis};

use parley_domain::ports::Embedder;

use super::dev_sets::{DevSets, Quality, TokenizedCatalog};
use super::tune::{TuneOptions, tune};
use super::{DistillOptions, Pca, TokenVectors, teacher, to_rows};
use crate::minilm::{MiniLmEmbedder, ModelError};
use crate::static_table::StaticTable;
use crate::tokenizer::BertTokenizer;
use crate::whole_words::WholeWords;
use std::collections::HashMap;

pub struct Tuning<'a> {
    /// Names the corpus in the table's identity (e.g. `wordnet3.0`).
    pub corpus_name: &'a str,
    pub corpus: &'a [String],
    /// Where the teacher's vectors of the corpus are cached between runs.
    pub cache_dir: &'a Path,
    /// Scores each epoch; the epoch scoring best on the queries tuning may use is kept.
    pub dev_sets: Option<&'a DevSets>,
    /// How many of the corpus's most frequent split words get rows of their own.
    pub whole_words: usize,
    pub options: TuneOptions,
}

/// Which rows the tuning kept: one epoch's, or the mean of the epochs from one on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    Epoch(usize),
    MeanFrom(usize),
}

impl std::fmt::Display for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Kept::Epoch(n) => write!(f, "e{n}"),
            Kept::MeanFrom(n) => write!(f, "mean-e{n}+"),
        }
    }
}

/// Names the distillation and its tuning, so vectors from another table are never mixed in.
pub fn identity(model: &MiniLmEmbedder, options: &DistillOptions, tuning: &Tuning, kept: Kept, words: usize) -> String {
    let t = &tuning.options;
    format!(
        "static:{}:pca{}-sif{:e}-words{words}-{}-{kept}-of{}-lr{:e}-anchor{:e}-int8:v2",
        model.identity(),
        options.dimensions,
        options.sif,
        tuning.corpus_name,
        t.epochs,
        t.learning_rate,
        t.anchor
    )
}

pub fn distill_tuned(
    model: &MiniLmEmbedder,
    options: &DistillOptions,
    tuning: &Tuning,
    log: &dyn Fn(String),
) -> Result<StaticTable, ModelError> {
    let tokens = TokenVectors::embed(model, &|done, total| {
        if done == total {
            log(format!("embedded {total} vocabulary tokens"));
        }
    })?;
    let sentences = teacher::sentence_vectors(model, tuning.corpus, tuning.cache_dir, &|done, total| {
        if done.is_multiple_of(20 * 2048) || done == total {
            log(format!("teacher: {done}/{total} corpus texts"));
        }
    })?;
    // Fitted on sentence vectors and centered by their mean: a projection fitted on lone tokens
    // (as the untuned table is) leaves the targets sharing one large common direction, which the
    // cosine then fits at the expense of what tells texts apart (tuned-on nDCG@10 fell, not rose).
    let pca = Pca::fit(sentences.view(), &vec![true; sentences.nrows()], options.dimensions);
    let targets = unit_rows(pca.project(sentences.view()));
    // Lone tokens as unit vectors, like the sentence vectors the projection was fitted on.
    let mut rows = tokens.weighted_rows(&pca.project(unit_rows(tokens.pooled.clone()).view()), model, options.sif);
    rescale_to_unit_median(&mut rows, &tokens.real);
    let tokenizer = model.tokenizer();
    let words = frequent_split_words(tokenizer, tuning.corpus, tuning.whole_words);
    log(format!("{} whole words get rows of their own", words.len()));
    let (mut rows, trainable) = with_word_rows(rows, &tokens.real, &words, tokenizer);
    let encode = |text: &str| words.encode(tokenizer, text).map_err(|e| e.to_string());
    let texts: Vec<Vec<u32>> = tuning.corpus.iter().map(|t| encode(t).unwrap_or_default()).collect();
    let dev_sets = match tuning.dev_sets {
        Some(sets) => sets.tokenize(&encode).map_err(ModelError::Input)?,
        None => Vec::new(),
    };
    let dev_sets = dev_sets.as_slice();

    let start = score(dev_sets, rows.view());
    log(format!("distilled, before tuning: {}", describe(&start)));
    let (mut best, mut best_epoch) = (rows.clone(), Kept::Epoch(0));
    let mut best_score = mean_tuned_on(&start);
    // The mean of the later epochs' rows: SGD's iterates wander around a minimum, their mean sits
    // nearer to it (Polyak averaging).
    let (mut later_sum, mut later) = (Array2::<f32>::zeros(rows.dim()), 0usize);
    let averaged_from = tuning.options.epochs / 2 + 1;
    tune(&mut rows, &trainable, &texts, targets.view(), &tuning.options, &mut |epoch, rows| {
        let quality = score(dev_sets, rows);
        log(format!("epoch {}: loss {:.4}; {}", epoch.number, epoch.loss, describe(&quality)));
        if dev_sets.is_empty() || mean_tuned_on(&quality) > best_score {
            (best, best_epoch, best_score) = (rows.to_owned(), Kept::Epoch(epoch.number), mean_tuned_on(&quality));
        }
        if epoch.number >= averaged_from {
            later_sum += &rows;
            later += 1;
        }
    });
    if later > 1 {
        let averaged = later_sum / later as f32;
        let quality = score(dev_sets, averaged.view());
        log(format!("mean of epochs {averaged_from}–{}: {}", tuning.options.epochs, describe(&quality)));
        if mean_tuned_on(&quality) > best_score {
            (best, best_epoch) = (averaged, Kept::MeanFrom(averaged_from));
        }
    }
    log(format!("kept {best_epoch}"));
    Ok(StaticTable::quantize(identity(model, options, tuning, best_epoch, words.len()), &to_rows(&best), words.words().to_vec()))
}

/// The `limit` words of the corpus the tokenizer splits into several pieces, most frequent first
/// (ties in alphabetical order, so the choice is reproducible).
fn frequent_split_words(tokenizer: &BertTokenizer, corpus: &[String], limit: usize) -> WholeWords {
    let first_id = tokenizer.vocab_size() as u32;
    if limit == 0 {
        return WholeWords::new(first_id, Vec::new());
    }
    let mut counts: HashMap<String, usize> = HashMap::new();
    for text in corpus {
        for (word, pieces) in tokenizer.encode_words(text).unwrap_or_default() {
            if pieces.len() > 1 && word.chars().all(char::is_alphabetic) {
                *counts.entry(word).or_default() += 1;
            }
        }
    }
    let mut ranked: Vec<(String, usize)> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    WholeWords::new(first_id, ranked.into_iter().take(limit).map(|(w, _)| w).collect())
}

/// The token rows followed by one row per whole word, each starting as the sum of its pieces'
/// rows (so nothing changes until tuning moves it); and which rows tuning may change.
fn with_word_rows(rows: Array2<f32>, real: &[bool], words: &WholeWords, tokenizer: &BertTokenizer) -> (Array2<f32>, Vec<bool>) {
    let mut extended = Array2::<f32>::zeros((rows.nrows() + words.len(), rows.ncols()));
    extended.slice_mut(ndarray::s![..rows.nrows(), ..]).assign(&rows);
    for (i, word) in words.words().iter().enumerate() {
        let mut row = extended.row_mut(rows.nrows() + i);
        for id in tokenizer.encode(word, false).unwrap_or_default() {
            row += &rows.row(id as usize);
        }
    }
    let trainable = real.iter().copied().chain(std::iter::repeat_n(true, words.len())).collect();
    (extended, trainable)
}

fn unit_rows(mut rows: Array2<f32>) -> Array2<f32> {
    for mut row in rows.axis_iter_mut(Axis(0)) {
        let norm = row.dot(&row).sqrt();
        if norm > 0.0 {
            row /= norm;
        }
    }
    rows
}

/// The optimizer's step sizes are absolute: give it rows of a known scale.
fn rescale_to_unit_median(rows: &mut Array2<f32>, real: &[bool]) {
    let mut norms: Vec<f32> = rows.axis_iter(Axis(0)).zip(real).filter(|(_, r)| **r).map(|(row, _)| row.dot(&row).sqrt()).collect();
    norms.sort_by(f32::total_cmp);
    if let Some(&median) = norms.get(norms.len() / 2).filter(|m| **m > 0.0) {
        *rows /= median;
    }
}

fn score(dev_sets: &[TokenizedCatalog], rows: ArrayView2<f32>) -> Vec<(String, Quality)> {
    dev_sets.iter().map(|c| (c.name.clone(), c.quality(rows))).collect()
}

fn mean_tuned_on(scores: &[(String, Quality)]) -> f64 {
    scores.iter().map(|(_, q)| q.tuned_on).sum::<f64>() / scores.len().max(1) as f64
}

fn describe(scores: &[(String, Quality)]) -> String {
    scores
        .iter()
        .map(|(name, q)| format!("{name} nDCG@10 tuned on {:.3}, held out {:.3}", q.tuned_on, q.held_out))
        .collect::<Vec<_>>()
        .join("; ")
}
