//! Robust normal discriminant analysis (Bootkrajang & Kaban 2011): Gaussian
//! classes plus a learned label-flip table, fitted by the EM of eqs. (4)-(7).
//!
//! The paper's table is `gamma_jk = P(true = k | given = j)` (eq. 7), with
//! `P(given = j)` the empirical `N_j / N`. The EM here carries the joint
//! `P(given = j, true = k) = P(given = j) gamma_jk` instead: unconstrained, its
//! M-step is eq. (7) exactly (the empirical marginal is the maximum-likelihood
//! one), and it separates by true class, so the identifiability constraint
//! below is a constraint on one true class at a time. relabel reports every
//! flip table as `P(given | true)`, the joint normalised by true class.
//!
//! Identifiability: a table in which a true class is given another label more
//! often than its own describes the same data as the classes with their names
//! swapped (on breast cancer the unconstrained EM reached P(given = benign |
//! true = malignant) = 0.54). The M-step therefore keeps every true class's
//! own label at least as likely as any other (the diagonal dominance of the
//! label-noise literature; Natarajan et al. 2013 need rho_0 + rho_1 < 1),
//! and the report says when that bound.

use nalgebra::DMatrix;

use crate::models::gaussian::components::{
    CovarianceParams, GaussianClassifier, GaussianComponents,
};
use crate::models::numerics::one_hot;
use crate::models::numerics::{normalise_log_rows, relative_change};
use crate::models::options::Iterations;
use crate::models::prologue::{Prologue, Scaling, class_name, step};
use crate::models::{
    Control, Fit, FitError, GammaTable, MatrixDisplay, ModelOptions, NamedMatrix, Progress,
    RobustModel,
};

/// Off-diagonal mass of the starting flip table: the EM update keeps an
/// exact zero at zero, so every flip must start possible.
const INITIAL_FLIP_MASS: f64 = 0.1;

#[derive(Clone, Debug)]
pub struct Rnda {
    covariance: CovarianceParams,
    iterations: Iterations,
}

impl Rnda {
    /// Reads `covariance`, `shrinkage`, `max_iter` and `tol`.
    pub fn new(options: &ModelOptions) -> Result<Self, FitError> {
        Ok(Self {
            covariance: CovarianceParams::checked(options)?,
            iterations: options.checked_iterations()?,
        })
    }
}

/// The E-step (eq. 4): posterior of the true class given x and the given
/// label, in log space, from the joint `joint[(j, k)] = P(given = j, true =
/// k)`. Returns the posterior (n x K) and the observed-data log-likelihood of
/// eq. (2).
fn e_step(log_dens: &DMatrix<f64>, given: &[usize], joint: &DMatrix<f64>) -> (DMatrix<f64>, f64) {
    let mut w = log_dens.clone();
    let k = w.ncols();
    let log_joint = joint.map(f64::ln);
    for c in 0..k {
        for (v, &g) in w.column_mut(c).iter_mut().zip(given) {
            *v += log_joint[(g, c)];
        }
    }
    let ll = normalise_log_rows(&mut w);
    (w, ll)
}

/// The flip-table M-step: expected counts of (given j, true k) over N, each
/// true class's column held diagonally dominant. Unconstrained, row j over
/// N_j / N is eq. (7). Returns whether the constraint bound.
fn update_joint(posterior: &DMatrix<f64>, given: &[usize]) -> (DMatrix<f64>, bool) {
    let k = posterior.ncols();
    let mut joint = DMatrix::zeros(k, k);
    for (i, &g) in given.iter().enumerate() {
        for c in 0..k {
            joint[(g, c)] += posterior[(i, c)];
        }
    }
    joint.unscale_mut(given.len() as f64);
    let mut bound = false;
    for c in 0..k {
        let mut column: Vec<f64> = joint.column(c).iter().copied().collect();
        if hold_diagonal(&mut column, c) {
            bound = true;
            joint.column_mut(c).copy_from_slice(&column);
        }
    }
    (joint, bound)
}

/// The maximum-likelihood multinomial `counts` under the constraint that
/// entry `d` is at least every other (order-restricted inference: the
/// maximum of a tree order): `d` is pooled with the largest entries for as
/// long as they exceed the pooled mean. Keeps the total; returns whether
/// anything was pooled.
fn hold_diagonal(counts: &mut [f64], d: usize) -> bool {
    let mut others: Vec<usize> = (0..counts.len()).filter(|&j| j != d).collect();
    others.sort_by(|a, b| counts[*b].total_cmp(&counts[*a]));
    let (mut sum, mut pooled) = (counts[d], 1usize);
    for &j in &others {
        if counts[j] > sum / pooled as f64 {
            sum += counts[j];
            pooled += 1;
        } else {
            break;
        }
    }
    if pooled == 1 {
        return false;
    }
    let mean = sum / pooled as f64;
    counts[d] = mean;
    for &j in &others[..pooled - 1] {
        counts[j] = mean;
    }
    true
}

impl RobustModel for Rnda {
    fn name(&self) -> &'static str {
        "rnda"
    }

    fn fit(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        let prologue = Prologue::new(x, given, n_classes, true, Scaling::PerFeature)?;
        self.covariance.require_estimable("rnda", "--cov diag", x)?;
        let k = n_classes;
        let (cov, opts) = (self.covariance, self.iterations);
        let z = prologue.scaled(x);
        let p_given = prologue.label_frequencies();
        let Prologue { standardizer, .. } = prologue;

        // Start from NDA on the given labels and a mostly-diagonal table.
        let estimate = |weights: &DMatrix<f64>| {
            GaussianComponents::estimate(&z, weights, cov.family, cov.shrinkage, &class_name)
        };
        let mut components = estimate(&one_hot(given, k))?;
        let off = INITIAL_FLIP_MASS / (k - 1) as f64;
        let mut joint = DMatrix::from_fn(k, k, |j, c| {
            p_given[j] * if j == c { 1.0 - INITIAL_FLIP_MASS } else { off }
        });
        let mut constrained = false;

        let mut trace = Vec::new();
        let mut converged = false;
        let mut posterior;
        let mut iteration = 0;
        loop {
            iteration += 1;
            let log_dens = components.log_densities(&z);
            let (post, ll) = e_step(&log_dens, given, &joint);
            posterior = post;
            if !ll.is_finite() {
                return Err(FitError::Numerical(format!(
                    "the log-likelihood became {ll} at iteration {iteration}; \
                     try --cov diag or a larger --shrinkage"
                )));
            }
            let previous = trace.last().copied();
            trace.push(ll);
            step(
                progress,
                Progress {
                    stage: "EM",
                    iteration,
                    max_iterations: opts.max_iter,
                    objective: ll,
                    fraction: iteration as f64 / opts.max_iter as f64,
                },
            )?;
            if previous.is_some_and(|prev| relative_change(prev, ll) < opts.tol) {
                converged = true;
                break;
            }
            if iteration >= opts.max_iter {
                break;
            }
            // M-step: eqs. (5)-(6) through weighted estimation, then eq. (7).
            components = estimate(&posterior)?;
            (joint, constrained) = update_joint(&posterior, given);
        }

        // P(given | true): the joint normalised by true class; the paper's
        // gamma: the joint normalised by given label.
        let p_true: Vec<f64> = (0..k).map(|c| joint.column(c).sum()).collect();
        let table = GammaTable {
            p_given_true: DMatrix::from_fn(k, k, |c, j| joint[(j, c)] / p_true[c]),
        };
        let gamma = DMatrix::from_fn(k, k, |j, c| joint[(j, c)] / joint.row(j).sum());
        // Prediction prior of eq. (8): P(true = k) = sum_j gamma_jk P(given = j).
        let log_prior: Vec<f64> = p_true.iter().map(|p| p.ln()).collect();
        let mut fit = Fit::from_posterior(posterior, given);
        if constrained {
            fit.extra.notes.push(
                "the flip table was held diagonally dominant: without the constraint a true \
                 class would be given another label more often than its own (the same data \
                 as swapped class names)"
                    .into(),
            );
        }
        fit.gamma = Some(table);
        fit.trace = trace;
        fit.converged = converged;
        fit.iterations = iteration;
        let labels: Vec<String> = (0..k).map(class_name).collect();
        fit.extra.matrices.push(NamedMatrix {
            name: "gamma (paper orientation)".into(),
            orientation:
                "rows = given label, columns = true class, entry = P(true | given) (eq. 7)".into(),
            row_labels: labels.clone(),
            col_labels: labels,
            values: (0..k)
                .map(|j| gamma.row(j).iter().copied().collect())
                .collect(),
            // The flip table above, turned round: a screen would repeat it.
            display: MatrixDisplay { hidden: true },
        });
        fit.extra.scalars.push((
            "log_likelihood".into(),
            fit.trace.last().copied().unwrap_or(f64::NAN),
        ));
        GaussianClassifier {
            standardizer,
            components,
            log_prior,
        }
        .attach_to(&mut fit);
        Ok(fit)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod option_tests {
    use super::*;

    crate::models::rejects_option! {
        shrinkage_above_1: Rnda::new, "shrinkage" = "1.5";
        zero_max_iter: Rnda::new, "max_iter" = "0";
        zero_tol: Rnda::new, "tol" = "0";
        negative_tol: Rnda::new, "tol" = "-1e-3";
    }
}
