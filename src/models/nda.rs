//! Normal discriminant analysis (QDA/LDA): Gaussian classes fitted to the
//! given labels as if they were all correct. The baseline rNDA improves on.

use std::sync::Arc;

use nalgebra::DMatrix;

use super::gaussian::{GaussianClassifier, GaussianComponents, one_hot};
use super::linalg::{Standardizer, normalise_log_rows};
use super::{Control, Fit, FitError, ModelOptions, Progress, RobustModel, check_inputs};

#[derive(Clone, Debug)]
pub struct Nda {
    options: ModelOptions,
}

impl Nda {
    pub fn new(options: ModelOptions) -> Self {
        Self { options }
    }
}

pub(crate) fn class_name(c: usize) -> String {
    format!("class #{c}")
}

/// Rejects classes without samples: a Gaussian needs at least one point.
pub(crate) fn require_every_class(counts: &[usize]) -> Result<(), FitError> {
    if let Some(c) = counts.iter().position(|&n| n == 0) {
        return Err(FitError::InvalidInput(format!(
            "{} has no samples; every class needs at least one",
            class_name(c)
        )));
    }
    Ok(())
}

impl RobustModel for Nda {
    fn name(&self) -> &'static str {
        "nda"
    }

    fn fit(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        let counts = check_inputs(x, given, n_classes)?;
        require_every_class(&counts)?;
        let standardizer = Standardizer::fit(x);
        let z = standardizer.apply(x);
        let components = GaussianComponents::estimate(
            &z,
            &one_hot(given, n_classes),
            self.options.covariance,
            self.options.shrinkage,
            &class_name,
        )?;
        let n = given.len() as f64;
        let log_prior: Vec<f64> = counts.iter().map(|&c| (c as f64 / n).ln()).collect();
        let mut log_joint = components.log_densities(&z);
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
        if progress(Progress {
            stage: "fit",
            iteration: 1,
            max_iterations: 1,
            objective,
            fraction: 1.0,
        }) == Control::Stop
        {
            return Err(FitError::Cancelled);
        }
        let mut fit = Fit::from_posterior(posterior, given);
        fit.trace = vec![objective];
        fit.converged = true;
        fit.iterations = 1;
        fit.extra.scalars.push(("log_likelihood".into(), objective));
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
