//! Robust normal discriminant analysis (Bootkrajang & Kaban 2011): Gaussian
//! classes plus a learned label-flip table, fitted by the EM of eqs. (4)-(7).
//!
//! The paper's table is `gamma_jk = P(true = k | given = j)` (eq. 7). relabel
//! reports every flip table as `P(given | true)`, so the fitted table is
//! converted by Bayes' rule with the empirical `P(given = j) = N_j / N` before
//! it leaves this file.

use std::sync::Arc;

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
/// label, in log space. Returns the posterior (n x K) and the observed-data
/// log-likelihood of eq. (2), including the constant `log P(given)`.
fn e_step(
    log_dens: &DMatrix<f64>,
    given: &[usize],
    p_true_given: &DMatrix<f64>,
    log_p_given: &[f64],
) -> (DMatrix<f64>, f64) {
    let mut w = log_dens.clone();
    let k = w.ncols();
    let log_gamma = p_true_given.map(f64::ln);
    for c in 0..k {
        for (v, &g) in w.column_mut(c).iter_mut().zip(given) {
            *v += log_gamma[(g, c)];
        }
    }
    let ll = normalise_log_rows(&mut w);
    let constant: f64 = given.iter().map(|&g| log_p_given[g]).sum();
    (w, ll + constant)
}

/// The flip-table M-step (eq. 7): for every given label j, the average
/// posterior over the samples labelled j.
fn update_gamma(posterior: &DMatrix<f64>, given: &[usize], counts: &[usize]) -> DMatrix<f64> {
    let k = posterior.ncols();
    let mut gamma = DMatrix::zeros(k, k);
    for (i, &g) in given.iter().enumerate() {
        for c in 0..k {
            gamma[(g, c)] += posterior[(i, c)];
        }
    }
    for (j, &n) in counts.iter().enumerate() {
        gamma.row_mut(j).unscale_mut(n as f64);
    }
    gamma
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
        let Prologue {
            counts,
            standardizer,
        } = prologue;
        let log_p_given: Vec<f64> = p_given.iter().map(|p| p.ln()).collect();

        // Start from NDA on the given labels and a mostly-diagonal table.
        let estimate = |weights: &DMatrix<f64>| {
            GaussianComponents::estimate(&z, weights, cov.family, cov.shrinkage, &class_name)
        };
        let mut components = estimate(&one_hot(given, k))?;
        let off = INITIAL_FLIP_MASS / (k - 1) as f64;
        let mut gamma = DMatrix::from_fn(
            k,
            k,
            |j, c| {
                if j == c { 1.0 - INITIAL_FLIP_MASS } else { off }
            },
        );

        let mut trace = Vec::new();
        let mut converged = false;
        let mut posterior;
        let mut iteration = 0;
        loop {
            iteration += 1;
            let log_dens = components.log_densities(&z);
            let (post, ll) = e_step(&log_dens, given, &gamma, &log_p_given);
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
            gamma = update_gamma(&posterior, given, &counts);
        }

        let table = GammaTable::from_p_true_given(&gamma, &p_given);
        // Prediction prior of eq. (8): P(true = k) = sum_j gamma_jk P(given = j).
        let log_prior: Vec<f64> = (0..k)
            .map(|c| (0..k).map(|j| gamma[(j, c)] * p_given[j]).sum::<f64>().ln())
            .collect();
        let mut fit = Fit::from_posterior(posterior, given);
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
        for (c, s) in components.shrinkage.iter().enumerate() {
            fit.extra.scalars.push((format!("shrinkage[{c}]"), *s));
        }
        fit.classifier = Some(Arc::new(GaussianClassifier {
            standardizer,
            components,
            log_prior,
        }));
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
