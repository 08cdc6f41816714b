//! Detection and classification metrics. Scores rank samples by suspicion
//! (higher = more likely mislabelled); `truth[i]` says whether sample i was
//! really flipped.

/// Area under the ROC curve: the probability that a random flipped sample
/// scores above a random clean one, ties counting one half (Mann-Whitney U
/// with mid-ranks). `None` when either group is empty.
pub fn auroc(scores: &[f64], truth: &[bool]) -> Option<f64> {
    let n_pos = truth.iter().filter(|t| **t).count();
    let n_neg = truth.len() - n_pos;
    if n_pos == 0 || n_neg == 0 {
        return None;
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let mut rank_sum_pos = 0.0;
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && scores[order[j + 1]] == scores[order[i]] {
            j += 1;
        }
        let mid_rank = (i + j) as f64 / 2.0 + 1.0;
        for &idx in &order[i..=j] {
            if truth[idx] {
                rank_sum_pos += mid_rank;
            }
        }
        i = j + 1;
    }
    let u = rank_sum_pos - (n_pos * (n_pos + 1)) as f64 / 2.0;
    Some(u / (n_pos as f64 * n_neg as f64))
}

/// Average precision: the mean, over the flipped samples, of the precision
/// among all samples scoring at least as high (ties resolved pessimistically,
/// so a constant score earns only the base rate). `None` without positives.
pub fn average_precision(scores: &[f64], truth: &[bool]) -> Option<f64> {
    let n_pos = truth.iter().filter(|t| **t).count();
    if n_pos == 0 {
        return None;
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let mut ap = 0.0;
    let mut tp = 0usize;
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && scores[order[j + 1]] == scores[order[i]] {
            j += 1;
        }
        let group_pos = order[i..=j].iter().filter(|&&idx| truth[idx]).count();
        tp += group_pos;
        let precision = tp as f64 / (j + 1) as f64;
        ap += group_pos as f64 * precision;
        i = j + 1;
    }
    Some(ap / n_pos as f64)
}

/// Precision and recall among the `k` highest-scoring samples (ties broken
/// by index, as in scan's output order).
pub fn precision_recall_at(scores: &[f64], truth: &[bool], k: usize) -> (f64, f64) {
    let n_pos = truth.iter().filter(|t| **t).count();
    if k == 0 {
        return (0.0, 0.0);
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let hits = order.iter().take(k).filter(|&&i| truth[i]).count();
    let k_eff = k.min(scores.len()).max(1);
    let recall = if n_pos == 0 {
        0.0
    } else {
        hits as f64 / n_pos as f64
    };
    (hits as f64 / k_eff as f64, recall)
}

/// Fraction of predictions equal to the truth.
pub fn accuracy(predicted: &[usize], truth: &[usize]) -> f64 {
    if truth.is_empty() {
        return f64::NAN;
    }
    let right = predicted.iter().zip(truth).filter(|(p, t)| p == t).count();
    right as f64 / truth.len() as f64
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn perfect_and_reversed_rankings() {
        let truth = [true, true, false, false];
        assert_eq!(auroc(&[0.9, 0.8, 0.2, 0.1], &truth), Some(1.0));
        assert_eq!(auroc(&[0.1, 0.2, 0.8, 0.9], &truth), Some(0.0));
        assert_eq!(average_precision(&[0.9, 0.8, 0.2, 0.1], &truth), Some(1.0));
    }

    #[test]
    fn ties_count_half_and_constant_scores_get_the_base_rate() {
        let truth = [true, false, false, false];
        assert_eq!(auroc(&[0.5; 4], &truth), Some(0.5));
        assert_eq!(average_precision(&[0.5; 4], &truth), Some(0.25));
    }

    #[test]
    fn auroc_matches_pairwise_count() {
        let scores = [0.3, 0.7, 0.7, 0.1, 0.9, 0.4];
        let truth = [false, true, false, false, true, true];
        let mut wins = 0.0;
        let mut pairs = 0.0;
        for i in 0..6 {
            for j in 0..6 {
                if truth[i] && !truth[j] {
                    pairs += 1.0;
                    if scores[i] > scores[j] {
                        wins += 1.0;
                    } else if scores[i] == scores[j] {
                        wins += 0.5;
                    }
                }
            }
        }
        assert!((auroc(&scores, &truth).unwrap() - wins / pairs).abs() < 1e-12);
    }

    #[test]
    fn average_precision_of_a_known_ranking() {
        // Ranked: pos, neg, pos -> AP = (1/1 + 2/3) / 2.
        let ap = average_precision(&[0.9, 0.5, 0.4], &[true, false, true]).unwrap();
        assert!((ap - (1.0 + 2.0 / 3.0) / 2.0).abs() < 1e-12);
    }

    #[test]
    fn precision_and_recall_at_k() {
        let (p, r) = precision_recall_at(&[0.9, 0.5, 0.4, 0.1], &[true, false, true, false], 2);
        assert_eq!((p, r), (0.5, 0.5));
        assert_eq!(accuracy(&[0, 1, 1], &[0, 1, 0]), 2.0 / 3.0);
    }

    #[test]
    fn empty_groups_have_no_auroc() {
        assert_eq!(auroc(&[0.1, 0.2], &[false, false]), None);
        assert_eq!(average_precision(&[0.1], &[false]), None);
    }
}
