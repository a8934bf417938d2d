//! Tuning the distilled table on a corpus (Model2Vec's trained variant): the rows are fitted so
//! that the normalized sum of a text's token rows points where the teacher's vector of the whole
//! text points. Token-by-token distillation only ever shows the teacher one token alone; here
//! tokens learn from the sentences they occur in, and words split into several pieces
//! ("raincoat" → `rain` `##coat`) learn what they mean together.
//!
//! Loss per text: `1 − cos(Σ rows, target)`, plus `anchor/2 · ‖row − initial row‖²` on every row a
//! batch touches, so tokens the corpus rarely shows stay near their distilled meaning. Optimizer:
//! Adam, updating only the rows a batch touched (as sparse embedding training does), its learning
//! rate falling linearly to zero over the run so the last epochs settle instead of wandering.

use ndarray::{Array2, ArrayView2, Axis};
use rand::SeedableRng;
use rand::seq::SliceRandom;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TuneOptions {
    pub epochs: usize,
    pub learning_rate: f32,
    /// Weight of the pull toward the distilled rows.
    pub anchor: f32,
    /// Texts per update; also the candidates of the relational term.
    pub batch: usize,
    /// Weight of the relational term (0: cosine alone).
    pub contrast: f32,
    /// Softmax temperature of the relational term.
    pub temperature: f32,
    /// Seeds the order texts are shuffled in each epoch.
    pub seed: u64,
}

impl Default for TuneOptions {
    fn default() -> Self {
        Self { epochs: 6, learning_rate: 2e-2, anchor: 0.0, batch: 256, contrast: 0.0, temperature: 0.05, seed: 0x5eed }
    }
}

/// What one epoch reached: its mean loss over the corpus.
#[derive(Debug, Clone, Copy)]
pub struct Epoch {
    pub number: usize,
    pub loss: f64,
}

/// Fits `rows` (tokens × dimensions, already initialized) so that each text's normalized row sum
/// matches its row of `targets`. Rows whose `trainable` flag is false are never changed.
/// `after_epoch` sees the rows after every epoch (to score or keep them).
pub fn tune(
    rows: &mut Array2<f32>,
    trainable: &[bool],
    texts: &[Vec<u32>],
    targets: ArrayView2<f32>,
    options: &TuneOptions,
    after_epoch: &mut dyn FnMut(Epoch, ArrayView2<f32>),
) {
    let (vocab, width) = rows.dim();
    assert_eq!(targets.ncols(), width, "targets live in the rows' space");
    assert_eq!(targets.nrows(), texts.len(), "one target per text");
    // The starting rows, kept only when something pulls toward them.
    let initial = (options.anchor > 0.0).then(|| rows.clone());
    let mut adam = Adam::new(vocab, width, options.learning_rate);
    let mut gradient = Array2::<f32>::zeros((vocab, width));
    let mut touched = vec![false; vocab];
    let mut order: Vec<usize> = (0..texts.len()).filter(|&i| !texts[i].is_empty()).collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(options.seed);
    let total_batches = (options.epochs * order.len().div_ceil(options.batch.max(1))).max(1);
    for number in 1..=options.epochs {
        order.shuffle(&mut rng);
        let mut loss = 0f64;
        for batch in order.chunks(options.batch) {
            let (batch_loss, steps) = text_gradients(rows.view(), texts, targets, batch, options);
            loss += batch_loss;
            let mut rows_touched = Vec::new();
            for (&i, step) in batch.iter().zip(steps.rows()) {
                for &id in &texts[i] {
                    let id = id as usize;
                    if !trainable[id] {
                        continue;
                    }
                    if !touched[id] {
                        touched[id] = true;
                        rows_touched.push(id);
                    }
                    gradient.row_mut(id).scaled_add(1.0 / batch.len() as f32, &step);
                }
            }
            adam.tick(options.learning_rate * (1.0 - adam.steps as f32 / total_batches as f32));
            for &id in &rows_touched {
                let mut g = gradient.row_mut(id);
                if let Some(initial) = &initial {
                    g.zip_mut_with(&(&rows.row(id) - &initial.row(id)), |g, d| *g += options.anchor * d);
                }
                adam.step(id, rows.row_mut(id).as_slice_mut().expect("rows are contiguous"), g.as_slice().expect("rows are contiguous"));
                g.fill(0.0);
                touched[id] = false;
            }
        }
        after_epoch(Epoch { number, loss: loss / order.len().max(1) as f64 }, rows.view());
    }
}

/// The batch's summed loss, and for each of its texts the loss's gradient with respect to the
/// text's row sum (the same for every token of the text).
///
/// Cosine term: `1 − u·t` with `u` the normalized sum and `t` the target. Relational term (weight
/// `options.contrast`): the student's similarities of each text to the batch's targets, as a
/// softmax at `options.temperature`, should match the teacher's own (`KL(q ‖ p)`), which teaches
/// ranking — what is nearer than what — rather than direction alone.
fn text_gradients(
    rows: ArrayView2<f32>,
    texts: &[Vec<u32>],
    targets: ArrayView2<f32>,
    batch: &[usize],
    options: &TuneOptions,
) -> (f64, Array2<f32>) {
    let width = rows.ncols();
    let mut units = Array2::<f32>::zeros((batch.len(), width));
    let mut norms = vec![0f32; batch.len()];
    for (k, &i) in batch.iter().enumerate() {
        let mut sum = units.row_mut(k);
        texts[i].iter().for_each(|&id| sum += &rows.row(id as usize));
        norms[k] = sum.dot(&sum).sqrt();
        if norms[k] > 0.0 {
            sum /= norms[k];
        }
    }
    let chosen = targets.select(Axis(0), batch);
    let mut loss: f64 = (&units * &chosen).sum_axis(Axis(1)).iter().map(|c| f64::from(1.0 - c)).sum();
    let mut by_unit = -&chosen;
    if options.contrast > 0.0 {
        let student = softmax_rows(units.dot(&chosen.t()) / options.temperature);
        let teacher = softmax_rows(chosen.dot(&chosen.t()) / options.temperature);
        loss += f64::from(options.contrast)
            * teacher
                .iter()
                .zip(&student)
                .filter(|(q, _)| **q > 0.0)
                .map(|(q, p)| f64::from(q * (q.ln() - p.max(1e-30).ln())))
                .sum::<f64>();
        by_unit.scaled_add(options.contrast / options.temperature, &(&student - &teacher).dot(&chosen));
    }
    // Through the normalization: d/d sum = (g − (g·u) u) / |sum|; an empty sum learns nothing.
    for ((mut g, u), norm) in by_unit.rows_mut().into_iter().zip(units.rows()).zip(norms) {
        if norm == 0.0 {
            g.fill(0.0);
            continue;
        }
        let along = g.dot(&u);
        g.scaled_add(-along, &u);
        g /= norm;
    }
    (loss, by_unit)
}

fn softmax_rows(mut logits: Array2<f32>) -> Array2<f32> {
    for mut row in logits.rows_mut() {
        let max = row.fold(f32::NEG_INFINITY, |m, &x| m.max(x));
        row.mapv_inplace(|x| (x - max).exp());
        let total = row.sum();
        row /= total;
    }
    logits
}

/// Adam's moment estimates for every row, applied lazily to the rows a batch touched.
struct Adam {
    first: Array2<f32>,
    second: Array2<f32>,
    learning_rate: f32,
    steps: i32,
}

impl Adam {
    const BETA1: f32 = 0.9;
    const BETA2: f32 = 0.999;
    const EPSILON: f32 = 1e-8;

    fn new(rows: usize, width: usize, learning_rate: f32) -> Self {
        Self { first: Array2::zeros((rows, width)), second: Array2::zeros((rows, width)), learning_rate, steps: 0 }
    }

    /// Starts the next step, at `learning_rate`.
    fn tick(&mut self, learning_rate: f32) {
        self.steps += 1;
        self.learning_rate = learning_rate;
    }

    fn step(&mut self, id: usize, row: &mut [f32], gradient: &[f32]) {
        let correct1 = 1.0 - Self::BETA1.powi(self.steps);
        let correct2 = 1.0 - Self::BETA2.powi(self.steps);
        let mut first = self.first.row_mut(id);
        let mut second = self.second.row_mut(id);
        for (((x, &g), m), v) in row.iter_mut().zip(gradient).zip(first.iter_mut()).zip(second.iter_mut()) {
            *m = Self::BETA1 * *m + (1.0 - Self::BETA1) * g;
            *v = Self::BETA2 * *v + (1.0 - Self::BETA2) * g * g;
            *x -= self.learning_rate * (*m / correct1) / ((*v / correct2).sqrt() + Self::EPSILON);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cosine(a: &[f32], b: &[f32]) -> f32 {
        let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        dot / (a.iter().map(|x| x * x).sum::<f32>().sqrt() * b.iter().map(|x| x * x).sum::<f32>().sqrt())
    }

    #[test]
    fn a_compound_learns_what_its_pieces_mean_together() {
        // Tokens 0 and 1 start pointing along x and y; the corpus says 0+1 together mean z.
        let mut rows = Array2::from_shape_vec((3, 3), vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]).unwrap();
        let texts = vec![vec![0, 1]; 8];
        let targets = Array2::from_shape_fn((8, 3), |(_, j)| if j == 2 { 1.0 } else { 0.0 });
        let options = TuneOptions { epochs: 300, learning_rate: 0.05, anchor: 0.0, batch: 4, ..TuneOptions::default() };
        let mut losses = Vec::new();
        tune(&mut rows, &[true, true, false], &texts, targets.view(), &options, &mut |epoch, _| losses.push(epoch.loss));
        let together = (&rows.row(0) + &rows.row(1)).to_vec();
        assert!(cosine(&together, &[0.0, 0.0, 1.0]) > 0.99, "{together:?}");
        assert!(losses.last().unwrap() < &losses[0], "the loss falls: {losses:?}");
        assert_eq!(rows.row(2).to_vec(), [0.0, 0.0, 0.0], "an untrainable row never moves");
    }

    #[test]
    fn the_anchor_keeps_rows_near_where_they_started() {
        let start = Array2::from_shape_vec((2, 2), vec![1.0, 0.0, 0.0, 1.0]).unwrap();
        let texts = vec![vec![0]; 4];
        let targets = Array2::from_shape_fn((4, 2), |(_, j)| if j == 1 { 1.0 } else { 0.0 });
        let run = |anchor: f32| {
            let mut rows = start.clone();
            let options = TuneOptions { epochs: 200, learning_rate: 0.02, anchor, batch: 4, ..TuneOptions::default() };
            tune(&mut rows, &[true, true], &texts, targets.view(), &options, &mut |_, _| {});
            cosine(&rows.row(0).to_vec(), &[1.0, 0.0])
        };
        assert!(run(10.0) > run(0.0) + 0.1, "a strong anchor holds the row closer to its start");
    }
}
