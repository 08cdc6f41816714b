//! Normal discriminant analysis (QDA/LDA): Gaussian classes fitted to the
//! given labels as if they were all correct. The baseline rNDA improves on.

use crate::models::Guide;
use nalgebra::DMatrix;

use crate::models::gaussian::components::{
    CovarianceParams, GaussianClassifier, GaussianComponents, Scaled,
};
use crate::models::numerics::normalise_log_rows;
use crate::models::numerics::one_hot;
use crate::models::prologue::{Prologue, Scaling, class_name, step};
use crate::models::{Control, Fit, FitError, ModelOptions, Progress, RobustModel};

#[derive(Clone, Debug)]
pub struct Nda {
    covariance: CovarianceParams,
}

impl Nda {
    /// Reads `covariance` and `shrinkage`.
    pub fn new(options: &ModelOptions) -> Result<Self, FitError> {
        Ok(Self::with(CovarianceParams::checked(options)?))
    }

    /// From checked covariance options (LDA fixes the family).
    pub fn with(covariance: CovarianceParams) -> Self {
        Self { covariance }
    }
}

impl RobustModel for Nda {
    fn name(&self) -> &'static str {
        "nda"
    }

    fn fit_guided(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        if guide.n_trusted() > 0 {
            // Labels are trusted: a decided label is simply the right one.
            return guide.fallback(given, |labels| self.fit(x, labels, n_classes, progress));
        }
        let Prologue {
            counts,
            standardizer,
        } = Prologue::new(x, given, n_classes, true, Scaling::PerFeature)?;
        self.covariance
            .require_estimable(self.name(), "--cov diag", x)?;
        // Read through the scaling: a standardised copy is as large as x.
        let z = Scaled {
            x,
            by: Some(&standardizer),
        };
        let components = GaussianComponents::estimate_scaled(
            z,
            &one_hot(given, n_classes),
            self.covariance.family,
            self.covariance.shrinkage,
            &class_name,
        )?;
        let n = given.len() as f64;
        let log_prior: Vec<f64> = counts.iter().map(|&c| (c as f64 / n).ln()).collect();
        let mut log_joint = components.log_densities_scaled(z);
        // The objective is the joint log-likelihood of features and labels.
        let objective: f64 = given
            .iter()
            .enumerate()
            .map(|(i, &g)| log_joint[(i, g)] + log_prior[g])
            .sum();
        for (c, lp) in log_prior.iter().enumerate() {
            log_joint.column_mut(c).apply(|v| *v += lp);
        }
        normalise_log_rows(&mut log_joint);
        let posterior = log_joint;
        step(
            progress,
            Progress {
                stage: "fit",
                iteration: 1,
                max_iterations: 1,
                objective,
                fraction: 1.0,
            },
        )?;
        let mut fit = Fit::from_posterior(posterior, given);
        fit.trace = vec![objective];
        fit.converged = true;
        fit.iterations = 1;
        fit.extra.scalars.push(("log_likelihood".into(), objective));
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
mod option_tests {
    use super::*;

    crate::models::rejects_option! {
        shrinkage_above_1: Nda::new, "shrinkage" = "1.5";
        negative_shrinkage: Nda::new, "shrinkage" = "-0.1";
    }

    #[test]
    fn a_diagonal_covariance_of_very_many_features_fits_in_o_p_memory() {
        // Issue 48: --cov diag on 54,675 probes asked for a features x
        // (classes x features) matrix, 47.8 GB; at 60,000 features that
        // stack would be 57.6 GB. Where memory is overcommitted the
        // untouched allocation passes unnoticed, so this checks that such a
        // fit runs, not its peak.
        let (n, p) = (12, 60_000);
        let mut rng = crate::rng::Rng::new(1);
        let given: Vec<usize> = (0..n).map(|i| i % 2).collect();
        let x = DMatrix::from_fn(n, p, |i, j| {
            rng.normal() + (j < 10 && given[i] == 1) as usize as f64 * 3.0
        });
        let options = ModelOptions {
            covariance: crate::models::CovarianceFamily::Diag,
            ..ModelOptions::default()
        };
        let fit = Nda::new(&options)
            .unwrap()
            .fit(&x, &given, 2, &mut crate::models::no_progress())
            .unwrap();
        assert!(fit.posterior.iter().all(|v| v.is_finite()));
    }
}
