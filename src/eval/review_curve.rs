//! The review curve: how many samples a curator must inspect to find the
//! flipped labels, when the list is ranked once, and when the model learns
//! from every k decisions (issue 14).
//!
//! The simulated curator walks the list from the top and always decides
//! correctly (the truth is the oracle): a flipped label is relabelled to
//! its true class, any other is kept. With learning, every `every`
//! decisions the model is refitted with the decided samples as evidence
//! (`Guide`: their true class is known, the fit starts from the previous
//! posterior) and the undecided samples are re-ranked.

use std::collections::VecDeque;

use super::noise::Injected;
use crate::app::{FitInputs, FitPlan};
use crate::models::{Fit, FitError, Guide, no_progress};

/// Inspections needed to find a share of the flipped labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// Number of samples inspected when the i-th flipped label was found.
    pub found_at: Vec<usize>,
    pub refits: usize,
}

impl Curve {
    /// Inspections to find `share` (0..=1) of the flipped labels; `None`
    /// when none were flipped.
    pub fn inspections_for(&self, share: f64) -> Option<usize> {
        if self.found_at.is_empty() {
            return None;
        }
        let needed = ((share * self.found_at.len() as f64).ceil() as usize).max(1);
        self.found_at.get(needed - 1).copied()
    }
}

/// The one-shot curve: walk `fit`'s ranking.
pub fn static_curve(fit: &Fit, injected: &Injected) -> Curve {
    let mut found_at = Vec::new();
    for (pos, i) in fit.ranking().into_iter().enumerate() {
        if injected.flipped[i] {
            found_at.push(pos + 1);
        }
    }
    Curve {
        found_at,
        refits: 0,
    }
}

/// The learning curve: start from `first` (the fit on the noisy labels),
/// decide the top undecided sample, refit every `every` decisions.
pub fn learning_curve(
    plan: &FitPlan,
    inputs: &FitInputs<'_>,
    injected: &Injected,
    truth: &[usize],
    first: Fit,
    every: usize,
) -> Result<Curve, FitError> {
    let n = truth.len();
    let n_flipped = injected.n_flipped();
    let mut guide = Guide {
        trusted: vec![None; n],
        warm: None,
    };
    let mut fit = first;
    let mut queue: VecDeque<usize> = undecided_ranking(&fit, &guide);
    let mut found_at = Vec::new();
    let mut inspected = 0;
    let mut refits = 0;
    let mut since_refit = 0;
    while found_at.len() < n_flipped {
        let Some(i) = queue.pop_front() else {
            break;
        };
        inspected += 1;
        guide.trusted[i] = Some(truth[i]);
        if injected.flipped[i] {
            found_at.push(inspected);
        }
        since_refit += 1;
        if since_refit == every && found_at.len() < n_flipped {
            guide.warm = Some(fit.posterior.clone());
            fit = plan.fit_guided(inputs, &injected.labels, &guide, &mut no_progress())?;
            queue = undecided_ranking(&fit, &guide);
            refits += 1;
            since_refit = 0;
        }
    }
    Ok(Curve { found_at, refits })
}

/// The fit's ranking without the decided samples.
fn undecided_ranking(fit: &Fit, guide: &Guide) -> VecDeque<usize> {
    fit.ranking()
        .into_iter()
        .filter(|&i| guide.trusted(i).is_none())
        .collect()
}

/// Decisions between refits by default: at most 50 refits per walk of the
/// whole list, and never fewer than 5 decisions per refit, so the cost of
/// learning is bounded by a small multiple of one fit whatever the size.
pub fn default_every(n: usize) -> usize {
    n.div_ceil(50).max(5)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use nalgebra::DMatrix;

    use super::*;
    use crate::eval::noise::{NoiseKind, inject};
    use crate::models::ModelOptions;
    use crate::rng::Rng;

    #[test]
    fn inspections_for_a_share_count_from_the_top() {
        let c = Curve {
            found_at: vec![1, 2, 5, 9],
            refits: 0,
        };
        assert_eq!(c.inspections_for(0.5), Some(2));
        assert_eq!(c.inspections_for(0.9), Some(9));
        assert_eq!(c.inspections_for(1.0), Some(9));
        assert_eq!(c.inspections_for(0.1), Some(1));
        let empty = Curve {
            found_at: vec![],
            refits: 0,
        };
        assert_eq!(empty.inspections_for(0.5), None);
        assert_eq!(default_every(100), 5);
        assert_eq!(default_every(1797), 36);
    }

    /// Overlapping classes: a one-shot ranking must dig deep for the last
    /// flips. Learning from correct decisions finds every flip, never
    /// later than needing all samples, and the walk is deterministic.
    #[test]
    fn the_learning_walk_finds_every_flip() {
        let mut rng = Rng::new(4);
        let n = 200;
        let truth: Vec<usize> = (0..n).map(|i| i % 2).collect();
        let x = DMatrix::from_fn(n, 2, |i, _| 2.0 * truth[i] as f64 + rng.normal());
        let injected = inject(&truth, 2, NoiseKind::Symmetric, 0.2, 9);
        let plan = FitPlan::new("rnda", &ModelOptions::default()).unwrap();
        let inputs = FitInputs::of_matrix(&x, 2);
        let first = plan
            .fit(&inputs, &injected.labels, &mut no_progress())
            .unwrap();
        let one_shot = static_curve(&first, &injected);
        assert_eq!(one_shot.found_at.len(), 40);
        assert!(one_shot.found_at.windows(2).all(|w| w[0] < w[1]));
        let learned = learning_curve(&plan, &inputs, &injected, &truth, first.clone(), 10).unwrap();
        assert_eq!(learned.found_at.len(), 40);
        assert!(learned.refits > 0);
        assert!(*learned.found_at.last().unwrap() <= n);
        let again = learning_curve(&plan, &inputs, &injected, &truth, first, 10).unwrap();
        assert_eq!(learned, again);
    }
}
