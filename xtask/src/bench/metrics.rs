//! Ranking-quality metrics over graded relevance labels (3 exact, 2 good, 1 acceptable, 0 not
//! relevant). Pure functions of the grades of what came back, in rank order.

use std::collections::HashMap;

/// The cut-off every metric uses: a shopper reads about one screen of results.
pub const K: usize = 10;

/// The grade of each returned id, in rank order; unlabeled ids are 0.
pub fn grades(ranked: &[String], labels: &HashMap<String, u8>) -> Vec<u8> {
    ranked.iter().map(|id| labels.get(id).copied().unwrap_or(0)).collect()
}

/// Discounted cumulative gain of the first `k` grades: gain `2^rel − 1`, discount `log2(rank + 1)`.
fn dcg(grades: &[u8], k: usize) -> f64 {
    grades.iter().take(k).enumerate().map(|(i, &g)| (2f64.powi(i32::from(g)) - 1.0) / (i as f64 + 2.0).log2()).sum()
}

/// nDCG@k: the DCG of the ranking over the DCG of the best possible ranking of all the query's
/// labels (`labels`, in any order). 0 when the query has no relevant label.
pub fn ndcg(ranked: &[u8], labels: &[u8], k: usize) -> f64 {
    let mut ideal = labels.to_vec();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let best = dcg(&ideal, k);
    if best == 0.0 { 0.0 } else { dcg(ranked, k) / best }
}

/// Recall@k, relevant meaning grade ≥ 1: the relevant results in the first `k` over the number of
/// relevant products, capped at `k` (BEIR's "capped recall"). Equal to plain recall whenever a query
/// has at most `k` relevant products; without the cap, a query with 120 relevant products could
/// never score above 10/120 however good the ranking.
pub fn recall(ranked: &[u8], relevant: usize, k: usize) -> f64 {
    if relevant == 0 {
        return 0.0;
    }
    ranked.iter().take(k).filter(|&&g| g >= 1).count() as f64 / relevant.min(k) as f64
}

/// Reciprocal rank of the first good answer (grade ≥ 2) within the first `k`; 0 if none.
pub fn reciprocal_rank(ranked: &[u8], k: usize) -> f64 {
    ranked.iter().take(k).position(|&g| g >= 2).map_or(0.0, |i| 1.0 / (i as f64 + 1.0))
}

/// One query's scores, or their mean over a set of queries.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Scores {
    pub ndcg: f64,
    pub recall: f64,
    pub mrr: f64,
}

impl Scores {
    /// All three metrics at [`K`] for one query: `ranked` are the grades of what came back,
    /// `labels` the query's labeled grades (unlabeled products are 0 and can be left out).
    pub fn of(ranked: &[u8], labels: &[u8]) -> Self {
        let relevant = labels.iter().filter(|&&g| g >= 1).count();
        Self { ndcg: ndcg(ranked, labels, K), recall: recall(ranked, relevant, K), mrr: reciprocal_rank(ranked, K) }
    }

    pub fn mean(all: &[Scores]) -> Self {
        let n = all.len().max(1) as f64;
        Self {
            ndcg: all.iter().map(|s| s.ndcg).sum::<f64>() / n,
            recall: all.iter().map(|s| s.recall).sum::<f64>() / n,
            mrr: all.iter().map(|s| s.mrr).sum::<f64>() / n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn ndcg_matches_a_hand_computed_case() {
        // Returned grades 2, 0, 3. DCG = 3/log2(2) + 0 + 7/log2(4) = 3 + 3.5 = 6.5.
        // Labels {3, 2, 1}, ideal order 3, 2, 1: IDCG = 7/1 + 3/log2(3) + 1/2 = 7.5 + 1.892789…
        let idcg = 7.5 + 3.0 / 3f64.log2();
        assert!(close(ndcg(&[2, 0, 3], &[1, 3, 2], 10), 6.5 / idcg));
        assert!(close(ndcg(&[3, 2, 1], &[1, 2, 3], 10), 1.0), "the ideal ranking scores 1");
        assert!(close(ndcg(&[0, 0], &[3], 10), 0.0));
        assert!(close(ndcg(&[1], &[], 10), 0.0), "no relevant label: 0, not NaN");
    }

    #[test]
    fn ndcg_only_counts_the_cut_off() {
        let mut ranked = vec![0; 10];
        ranked.push(3);
        assert!(close(ndcg(&ranked, &[3], 10), 0.0), "a hit at rank 11 earns nothing");
        // Two 3s labeled, one found at rank 1: DCG 7, IDCG 7 + 7/log2(3).
        assert!(close(ndcg(&[3], &[3, 3], 1), 1.0), "at k = 1 the ideal holds one result");
        assert!(close(ndcg(&[3], &[3, 3], 10), 7.0 / (7.0 + 7.0 / 3f64.log2())));
    }

    #[test]
    fn recall_counts_any_relevant_grade_and_caps_the_denominator() {
        assert!(close(recall(&[0, 1, 0, 3], 4, 10), 0.5));
        assert!(close(recall(&[0, 0], 3, 10), 0.0));
        assert!(close(recall(&[2; 10], 120, 10), 1.0), "ten relevant of 120: as good as ten results can be");
        assert!(close(recall(&[2, 2, 0], 20, 2), 1.0));
        assert!(close(recall(&[], 0, 10), 0.0));
    }

    #[test]
    fn reciprocal_rank_wants_a_good_answer() {
        assert!(close(reciprocal_rank(&[1, 0, 2, 3], 10), 1.0 / 3.0), "grade 1 is not a good answer");
        assert!(close(reciprocal_rank(&[3], 10), 1.0));
        assert!(close(reciprocal_rank(&[1, 1], 10), 0.0));
        let mut late = vec![0; 10];
        late.push(3);
        assert!(close(reciprocal_rank(&late, 10), 0.0), "rank 11 is outside the cut-off");
    }

    #[test]
    fn scores_are_averaged_per_metric() {
        let labels = HashMap::from([("a".to_string(), 3), ("b".to_string(), 1)]);
        let ranked = grades(&["x".into(), "b".into(), "a".into()], &labels);
        assert_eq!(ranked, [0, 1, 3]);
        let one = Scores::of(&ranked, &[3, 1]);
        assert!(close(one.recall, 1.0) && close(one.mrr, 1.0 / 3.0));
        let mean = Scores::mean(&[one, Scores::default()]);
        assert!(close(mean.recall, 0.5) && close(mean.mrr, 1.0 / 6.0) && close(mean.ndcg, one.ndcg / 2.0));
    }
}
