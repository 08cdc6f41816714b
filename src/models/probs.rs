//! `probs`: a flip table on top of any classifier's out-of-fold class
//! probabilities (`--probs FILE`).
//!
//! The input matrix IS the probabilities, n x K, read as P(true = k | x_i).
//! The given labels are modelled as drawn through the flip table
//! gamma[k][j] = P(given = j | true = k), so P(given = j | x_i) =
//! sum_k gamma[k][j] p_ik. EM over gamma:
//!
//! - E-step: post_ik = P(true = k | x_i, given_i) ∝ gamma[k][given_i] p_ik;
//! - M-step: gamma[k][j] = (sum_i post_ik [given_i = j] + a) / (sum_i post_ik + K a)
//!   with a Dirichlet pseudo-count `a`, then each row made diagonally dominant
//!   (a true class keeps its own label at least as often as it gives any
//!   other) by pooling the diagonal with the entries above it: the
//!   constrained maximiser of the row's multinomial likelihood, so EM stays
//!   monotone.
//!
//! p_mislabel = 1 - post[i, given_i]. The report says which rows the
//! constraint bound at the end.

use nalgebra::DMatrix;

use super::numerics::hold_diagonal;
use super::options::Iterations;
use super::prologue::{check_inputs, class_name, step};
use super::{Control, Fit, FitError, GammaTable, Guide, ModelOptions, Progress, RobustModel};

/// Dirichlet pseudo-count added to every cell of the flip table's counts:
/// keeps an unseen flip away from exactly zero without moving a table
/// estimated from more than a handful of samples.
pub const PSEUDO_COUNT: f64 = 0.5;

/// A row of probabilities may miss summing to one by this much (rounded
/// output of another program); it is renormalised.
pub const ROW_SUM_TOLERANCE: f64 = 0.02;

/// Probabilities below this count as this, so a class a classifier ruled
/// out can still be the true one when the flip table insists.
const FLOOR: f64 = 1e-12;

/// The `probs` model: options checked at construction.
#[derive(Clone, Debug)]
pub struct Probs {
    iterations: Iterations,
}

impl Probs {
    /// Reads `max_iter` and `tol`.
    pub fn new(options: &ModelOptions) -> Result<Self, FitError> {
        Ok(Self {
            iterations: options.checked_iterations()?,
        })
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

/// The E-step: posterior over true classes given the flip table, and the
/// log-likelihood of the given labels. A decided row's true class is known:
/// its posterior is one-hot at the decision and it adds its complete-data
/// term, so the decision counts in the next M-step as an observed (non-)flip.
fn e_step(
    p: &DMatrix<f64>,
    given: &[usize],
    gamma: &DMatrix<f64>,
    guide: &Guide,
) -> (DMatrix<f64>, f64) {
    let (n, k) = p.shape();
    let mut post = DMatrix::zeros(n, k);
    let mut loglik = 0.0;
    for (i, &g) in given.iter().enumerate() {
        let mut total = 0.0;
        for c in 0..k {
            if guide.trusted(i).is_some_and(|d| d != c) {
                continue;
            }
            let w = gamma[(c, g)] * p[(i, c)].max(FLOOR);
            post[(i, c)] = w;
            total += w;
        }
        post.row_mut(i).scale_mut(1.0 / total);
        loglik += total.ln();
    }
    (post, loglik)
}

/// The M-step: the flip table from the posterior, with the pseudo-count and
/// the dominance constraint; returns the rows the constraint bound.
fn m_step(post: &DMatrix<f64>, given: &[usize], gamma: &mut DMatrix<f64>) -> Vec<usize> {
    let k = post.ncols();
    let mut counts = DMatrix::from_element(k, k, PSEUDO_COUNT);
    for (i, &g) in given.iter().enumerate() {
        for c in 0..k {
            counts[(c, g)] += post[(i, c)];
        }
    }
    let mut bound = Vec::new();
    for c in 0..k {
        let total = counts.row(c).sum();
        let mut row: Vec<f64> = counts.row(c).iter().map(|v| v / total).collect();
        if hold_diagonal(&mut row, c) {
            bound.push(c);
        }
        for (j, v) in row.into_iter().enumerate() {
            gamma[(c, j)] = v;
        }
    }
    bound
}

/// The starting table: 90% kept, the rest spread evenly.
fn initial_gamma(k: usize) -> DMatrix<f64> {
    let off = 0.1 / (k - 1) as f64;
    DMatrix::from_fn(k, k, |a, b| if a == b { 0.9 } else { off })
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
        let p = checked_probabilities(x, n_classes)?;
        let Iterations { max_iter, tol } = self.iterations;
        let mut gamma = initial_gamma(n_classes);
        // A warm posterior stands in for the first E-step: the first M-step
        // then starts from the previous fit's table.
        let (mut post, mut loglik) = match guide.warm_posterior(given.len(), n_classes) {
            Some(warm) => {
                let mut w = warm.clone();
                guide.pin(&mut w);
                m_step(&w, given, &mut gamma);
                e_step(&p, given, &gamma, guide)
            }
            None => e_step(&p, given, &gamma, guide),
        };
        let mut trace = vec![loglik];
        let (mut converged, mut iterations, mut bound) = (false, 0, Vec::new());
        while iterations < max_iter {
            iterations += 1;
            bound = m_step(&post, given, &mut gamma);
            let (next_post, next) = e_step(&p, given, &gamma, guide);
            step(
                progress,
                Progress {
                    stage: "EM",
                    iteration: iterations,
                    max_iterations: max_iter,
                    objective: next,
                    fraction: iterations as f64 / max_iter as f64,
                },
            )?;
            let change = (next - loglik).abs() / loglik.abs().max(1.0);
            (post, loglik) = (next_post, next);
            trace.push(loglik);
            if change < tol {
                converged = true;
                break;
            }
        }
        let mut fit = Fit::from_posterior(post, given);
        fit.gamma = Some(GammaTable {
            p_given_true: gamma,
        });
        fit.trace = trace;
        fit.converged = converged;
        fit.iterations = iterations;
        fit.extra.scalars.push(("log_likelihood".into(), loglik));
        fit.extra
            .scalars
            .push(("pseudo_count".into(), PSEUDO_COUNT));
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
