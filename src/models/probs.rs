//! `probs`: a flip table under any classifier's out-of-fold class
//! probabilities (`--probs FILE`).
//!
//! The input matrix IS the probabilities, n x K, of a classifier trained on
//! the given (noisy) labels, so they are read as q_ij = P(given = j | x_i),
//! not as P(true | x_i): under the flip table gamma[k][j] = P(given = j |
//! true = k), q_i = sum_k P(true = k | x_i) gamma[k][.]. Reading them as
//! P(true | x) and putting the table on top would count the noise twice
//! (the classifier has already spread it) and flag far too few rows.
//!
//! Those probabilities alone do not identify gamma (any table explains them
//! once P(true | x) is chosen to fit), so gamma comes from the confident
//! joint of Northcutt, Jiang and Chuang (2021, "Confident learning", eq. 1-2,
//! cleanlab's `compute_confident_joint`): a row counts as truly class k when
//! q_ik reaches class k's mean self-confidence (the argmax of q when several
//! classes do), its counts per given label are calibrated to the label's
//! count, and gamma's row k is the column k of that joint under a Dirichlet
//! prior centred on the pooled table (every class flipping at the table's
//! overall rate, uniformly to the others), whose strength is chosen by the
//! Dirichlet-multinomial marginal likelihood of the joint's columns
//! (empirical Bayes: Minka 2000, "Estimating a Dirichlet distribution"),
//! then held diagonally dominant. A class with few confident rows keeps
//! little of its own column: measured, the confident joint's rows of small
//! classes were its largest error (a 9-row class of a 214-row table read
//! as flipping 45-70% of the time where 10-25% were drawn), and the count
//! overshot by half on such tables (docs/RESULTS.md). Then
//!
//! - P(true | x_i) = q_i gamma^+ (the deconvolution; gamma^+ its
//!   pseudo-inverse), clipped at zero and renormalised: where q_i is more
//!   confident than any mixture through gamma can be (a classifier that
//!   resisted the noise), that gives the nearest one-hot reading;
//! - post_ik = P(true = k | x_i, given_i) ∝ P(true = k | x_i) gamma[k][given_i];
//! - p_mislabel = 1 - post[i, given_i]; rows the deconvolution rules out of
//!   their own class (p_mislabel exactly 1) are ordered by confident
//!   learning's own score, the self-confidence q[i, given_i].
//!
//! A decided row's true class is known: it counts in the joint at (given,
//! decision) and its posterior is one-hot at the decision.

use nalgebra::DMatrix;

use super::numerics::{hold_diagonal, ln_gamma};
use super::prologue::{check_inputs, class_name, step};
use super::{
    Control, Fit, FitError, GammaTable, Guide, ModelOptions, Progress, RobustModel, rank_descending,
};

/// The Jeffreys (Beta(1/2, 1/2)) pseudo-count of the pooled flip rate, the
/// prior's centre: (off-diagonal + 1/2) / (total + 1), never exactly zero,
/// so every label stays possible under every true class (Krichevsky and
/// Trofimov's estimator).
const JEFFREYS: f64 = 0.5;

/// The prior strengths tried, in rows: log-spaced from a hundredth of a row
/// (each class's own column alone) to a million rows (the pooled table
/// alone), thirty a decade; the marginal likelihood picks one.
const STRENGTH_RANGE: (f64, f64, usize) = (1e-2, 1e6, 241);

/// A row of probabilities may miss summing to one by this much (rounded
/// output of another program); it is renormalised.
pub const ROW_SUM_TOLERANCE: f64 = 0.02;

/// cleanlab's slack on the self-confidence thresholds (`1e-6`), so a row
/// exactly at its class's mean counts as confident despite rounding.
const THRESHOLD_SLACK: f64 = 1e-6;

/// Singular values of the flip table below this are treated as zero in its
/// pseudo-inverse (a table whose rows coincide says nothing about which of
/// those classes is true).
const SINGULAR_TOLERANCE: f64 = 1e-10;

/// The `probs` model. It has no options: the flip table is estimated in
/// closed form (its prior's strength by a one-dimensional grid).
#[derive(Clone, Debug)]
pub struct Probs;

impl Probs {
    /// Takes the shared options for the registry's sake; none apply.
    pub fn new(_options: &ModelOptions) -> Result<Self, FitError> {
        Ok(Self)
    }
}

/// The probability matrix checked and renormalised: one column per class,
/// values in [0, 1], rows summing to one within [`ROW_SUM_TOLERANCE`].
pub fn checked_probabilities(x: &DMatrix<f64>, n_classes: usize) -> Result<DMatrix<f64>, FitError> {
    if x.ncols() != n_classes {
        return Err(FitError::InvalidInput(format!(
            "the probs model reads one probability column per class ({n_classes}), but the input has {} columns; pass a classifier's probabilities with --probs FILE",
            x.ncols()
        )));
    }
    let mut p = x.clone();
    for i in 0..p.nrows() {
        let row_ok = p.row(i).iter().all(|v| (0.0..=1.0).contains(v));
        let sum = p.row(i).sum();
        if !row_ok || (sum - 1.0).abs() > ROW_SUM_TOLERANCE {
            return Err(FitError::InvalidInput(format!(
                "row {i} is not a probability distribution over the classes (values in [0, 1] summing to 1, got sum {sum:.4}); the probs model reads class probabilities: pass them with --probs FILE"
            )));
        }
        p.row_mut(i).scale_mut(1.0 / sum);
    }
    Ok(p)
}

/// Each class's threshold: the mean of q[i, j] over the rows labelled j
/// (never reached when no row has label j).
fn thresholds(q: &DMatrix<f64>, given: &[usize]) -> Vec<f64> {
    let k = q.ncols();
    let (mut sum, mut count) = (vec![0.0; k], vec![0usize; k]);
    for (i, &g) in given.iter().enumerate() {
        sum[g] += q[(i, g)];
        count[g] += 1;
    }
    (0..k)
        .map(|j| match count[j] {
            0 => f64::INFINITY,
            c => sum[j] / c as f64 - THRESHOLD_SLACK,
        })
        .collect()
}

/// The confident guess of row i's true class: the one class whose
/// probability reaches its threshold, the argmax among several, none when
/// no class does.
fn confident_guess(q: &DMatrix<f64>, i: usize, threshold: &[f64]) -> Option<usize> {
    let mut guess: Option<usize> = None;
    for (c, &t) in threshold.iter().enumerate() {
        if q[(i, c)] >= t && guess.is_none_or(|b| q[(i, c)] > q[(i, b)]) {
            guess = Some(c);
        }
    }
    guess
}

/// The calibrated confident joint, K x K, rows the given label and columns
/// the true class: confident guesses (decisions for decided rows), every
/// diagonal at least one, each row scaled to its label's count.
fn confident_joint(q: &DMatrix<f64>, given: &[usize], guide: &Guide) -> DMatrix<f64> {
    let k = q.ncols();
    let threshold = thresholds(q, given);
    let mut joint = DMatrix::zeros(k, k);
    let mut label_count = vec![0.0; k];
    for (i, &g) in given.iter().enumerate() {
        label_count[g] += 1.0;
        if let Some(t) = guide
            .trusted(i)
            .or_else(|| confident_guess(q, i, &threshold))
        {
            joint[(g, t)] += 1.0;
        }
    }
    for j in 0..k {
        joint[(j, j)] = f64::max(joint[(j, j)], 1.0);
        let total = joint.row(j).sum();
        joint.row_mut(j).scale_mut(label_count[j] / total);
    }
    joint
}

/// The flip table's prior: its centre, the pooled table (the joint's
/// off-diagonal share as every class's flip rate, spread evenly over the
/// other classes), and its strength in rows.
#[derive(Clone, Debug, PartialEq)]
struct Prior {
    flip_rate: f64,
    strength: f64,
}

impl Prior {
    /// The prior's mean of P(given = j | true = c).
    fn mean(&self, c: usize, j: usize, k: usize) -> f64 {
        if c == j {
            1.0 - self.flip_rate
        } else {
            self.flip_rate / (k - 1) as f64
        }
    }

    /// The centre from the whole joint and the strength that maximises the
    /// Dirichlet-multinomial likelihood of the columns (the true classes'
    /// counts of given labels): the rows of a table that does not vary
    /// between classes get a strong prior, those of one that does a weak
    /// one. A grid in log strength, so the same joint gives the same table.
    fn fitted(joint: &DMatrix<f64>) -> Prior {
        let k = joint.nrows();
        let total = joint.sum();
        let flip_rate = (total - joint.trace() + JEFFREYS) / (total + 2.0 * JEFFREYS);
        let mut best = Prior {
            flip_rate,
            strength: STRENGTH_RANGE.0,
        };
        if k < 2 {
            return best;
        }
        let (low, high, steps) = STRENGTH_RANGE;
        let mut best_score = f64::NEG_INFINITY;
        for s in 0..steps {
            let strength = low * (high / low).powf(s as f64 / (steps - 1) as f64);
            let prior = Prior {
                flip_rate,
                strength,
            };
            let score = prior.log_marginal(joint);
            if score > best_score {
                best_score = score;
                best = prior;
            }
        }
        best
    }

    /// log P(the joint's columns | prior), each column a Dirichlet-
    /// multinomial draw (fractional counts, as calibrated; the
    /// multinomial coefficient does not depend on the prior and is left
    /// out).
    fn log_marginal(&self, joint: &DMatrix<f64>) -> f64 {
        let k = joint.nrows();
        let a = self.strength;
        (0..k)
            .map(|c| {
                let n_c: f64 = joint.column(c).sum();
                let cells: f64 = (0..k)
                    .map(|j| {
                        let m = a * self.mean(c, j, k);
                        ln_gamma(m + joint[(j, c)]) - ln_gamma(m)
                    })
                    .sum();
                ln_gamma(a) - ln_gamma(a + n_c) + cells
            })
            .sum()
    }
}

/// gamma[k][j] = P(given = j | true = k): the joint's column k under the
/// prior (its posterior mean), held diagonally dominant; returns the rows
/// the constraint bound.
fn flip_table(joint: &DMatrix<f64>, prior: &Prior) -> (DMatrix<f64>, Vec<usize>) {
    let k = joint.nrows();
    let mut gamma = DMatrix::zeros(k, k);
    let mut bound = Vec::new();
    for c in 0..k {
        let mut row: Vec<f64> = (0..k)
            .map(|j| joint[(j, c)] + prior.strength * prior.mean(c, j, k))
            .collect();
        let total: f64 = row.iter().sum();
        row.iter_mut().for_each(|v| *v /= total);
        if hold_diagonal(&mut row, c) {
            bound.push(c);
        }
        for (j, v) in row.into_iter().enumerate() {
            gamma[(c, j)] = v;
        }
    }
    (gamma, bound)
}

/// P(true | x) = q gamma^+, clipped at zero and renormalised. The rows of
/// q and gamma sum to one, so the rows of q gamma^+ do too (gamma 1 = 1):
/// after clipping, each row still holds mass at least one.
fn deconvolve(q: &DMatrix<f64>, gamma: &DMatrix<f64>) -> Result<DMatrix<f64>, FitError> {
    let inverse = gamma
        .clone()
        .pseudo_inverse(SINGULAR_TOLERANCE)
        .map_err(|e| FitError::Numerical(format!("the flip table's pseudo-inverse: {e}")))?;
    let mut p = q * inverse;
    for mut row in p.row_iter_mut() {
        row.iter_mut().for_each(|v| *v = v.max(0.0));
        let total = row.sum();
        row /= total;
    }
    Ok(p)
}

/// post_ik ∝ P(true = k | x_i) gamma[k][given_i]; one-hot at a decision.
fn posterior(
    p: &DMatrix<f64>,
    given: &[usize],
    gamma: &DMatrix<f64>,
    guide: &Guide,
) -> DMatrix<f64> {
    let (n, k) = p.shape();
    let mut post = DMatrix::zeros(n, k);
    for (i, &g) in given.iter().enumerate() {
        if let Some(d) = guide.trusted(i) {
            post[(i, d)] = 1.0;
            continue;
        }
        let mut total = 0.0;
        for c in 0..k {
            let w = p[(i, c)] * gamma[(c, g)];
            post[(i, c)] = w;
            total += w;
        }
        post.row_mut(i).scale_mut(1.0 / total);
    }
    post
}

impl RobustModel for Probs {
    fn name(&self) -> &'static str {
        "probs"
    }

    fn fit_guided(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        check_inputs(x, given, n_classes)?;
        guide.check(given.len(), n_classes)?;
        let q = checked_probabilities(x, n_classes)?;
        let joint = confident_joint(&q, given, guide);
        let prior = Prior::fitted(&joint);
        let (gamma, bound) = flip_table(&joint, &prior);
        let p = deconvolve(&q, &gamma)?;
        let post = posterior(&p, given, &gamma, guide);
        step(
            progress,
            Progress {
                stage: "flip table",
                iteration: 1,
                max_iterations: 1,
                objective: f64::NAN,
                fraction: 1.0,
            },
        )?;
        let confidence: Vec<f64> = given.iter().enumerate().map(|(i, &g)| -q[(i, g)]).collect();
        let mut fit = Fit::from_posterior(post, given);
        fit.suspicion_rank = Some(rank_descending(&confidence));
        fit.gamma = Some(GammaTable {
            p_given_true: gamma,
        });
        fit.converged = true;
        fit.iterations = 1;
        fit.iteration_unit = "closed-form estimate";
        let confident_flips = joint.sum() - joint.trace();
        fit.extra
            .scalars
            .push(("confident_joint_flips".into(), confident_flips));
        fit.extra
            .scalars
            .push(("prior_flip_rate".into(), prior.flip_rate));
        fit.extra
            .scalars
            .push(("prior_strength_rows".into(), prior.strength));
        if !bound.is_empty() {
            let names: Vec<String> = bound.iter().map(|&c| class_name(c)).collect();
            fit.extra.notes.push(format!(
                "the flip table was held diagonally dominant for {} true class(es) (list held_dominant): left free, they would give another label more often than their own",
                names.len()
            ));
            fit.extra.lists.push(("held_dominant".into(), names));
        }
        Ok(fit)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
