//! Mixture discriminant analysis (Hastie & Tibshirani 1996), the baseline
//! RMDA is compared with: each class is its own Gaussian mixture, fitted on
//! the samples that carry its label, labels trusted.

use std::sync::Arc;

use nalgebra::DMatrix;

use super::linalg::{Standardizer, normalise_log_rows};
use super::mixture::{EmSettings, Mixture, fit_mixture, stage_progress};
use super::nda::{class_name, require_every_class};
use super::{
    Classifier, Control, Fit, FitError, ModelOptions, Progress, RobustModel, check_inputs,
};

/// Components per class when `clusters` is not given.
const DEFAULT_PER_CLASS: usize = 2;

#[derive(Clone, Debug)]
pub struct Mda {
    options: ModelOptions,
}

impl Mda {
    pub fn new(options: ModelOptions) -> Self {
        Self { options }
    }
}

#[derive(Clone, Debug)]
struct MdaClassifier {
    standardizer: Standardizer,
    classes: Vec<Mixture>,
    log_prior: Vec<f64>,
}

impl MdaClassifier {
    fn posterior(&self, z: &DMatrix<f64>) -> DMatrix<f64> {
        let mut lw = DMatrix::zeros(z.nrows(), self.classes.len());
        for (c, m) in self.classes.iter().enumerate() {
            for (i, v) in m.log_density(z).into_iter().enumerate() {
                lw[(i, c)] = v + self.log_prior[c];
            }
        }
        normalise_log_rows(&mut lw);
        lw
    }
}

impl Classifier for MdaClassifier {
    fn predict_proba(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        self.posterior(&self.standardizer.apply(x))
    }
}

impl RobustModel for Mda {
    fn name(&self) -> &'static str {
        "mda"
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
        let o = &self.options;
        let standardizer = Standardizer::fit(x);
        let z = standardizer.apply(x);
        let per_class = o.clusters.unwrap_or(DEFAULT_PER_CLASS);
        let settings = EmSettings {
            family: o.covariance,
            shrinkage: o.shrinkage,
            max_iter: o.max_iter,
            tol: o.tol,
            restarts: o.restarts,
            seed: o.seed,
        };
        let mut mixtures = Vec::with_capacity(n_classes);
        for c in 0..n_classes {
            let rows: Vec<usize> = (0..given.len()).filter(|&i| given[i] == c).collect();
            let zc = z.select_rows(rows.iter());
            // A class with few samples gets fewer components.
            let k = per_class.min(rows.len().saturating_sub(1)).max(1);
            let fraction = c as f64 / n_classes as f64;
            let mut cb = stage_progress("class mixtures", o.max_iter, fraction, progress);
            let m = fit_mixture(&zc, k, &settings, &mut cb).map_err(|e| match e {
                FitError::Numerical(m) => FitError::Numerical(format!("{}: {m}", class_name(c))),
                other => other,
            })?;
            mixtures.push(m);
        }
        let n = given.len() as f64;
        let classifier = MdaClassifier {
            standardizer,
            classes: mixtures,
            log_prior: counts.iter().map(|&c| (c as f64 / n).ln()).collect(),
        };
        let posterior = classifier.posterior(&z);
        let mut fit = Fit::from_posterior(posterior, given);
        fit.converged = classifier.classes.iter().all(|m| m.converged);
        fit.iterations = classifier
            .classes
            .iter()
            .map(|m| m.iterations)
            .max()
            .unwrap_or(0);
        fit.trace = classifier
            .classes
            .iter()
            .map(|m| m.log_likelihood)
            .collect();
        fit.extra
            .scalars
            .push(("components_per_class".into(), per_class as f64));
        fit.classifier = Some(Arc::new(classifier));
        Ok(fit)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::models::no_progress;
    use crate::rng::Rng;

    #[test]
    fn a_class_made_of_two_blobs_is_modelled_by_two_components() {
        // Class 0 is two blobs either side of class 1: one Gaussian per class
        // cannot separate them, two components per class can.
        let mut rng = Rng::new(1);
        let given: Vec<usize> = (0..600).map(|i| usize::from(i % 3 == 2)).collect();
        let x = DMatrix::from_fn(600, 2, |i, j| {
            let centre = match (i % 3, j) {
                (0, 0) => -6.0,
                (1, 0) => 6.0,
                _ => 0.0,
            };
            centre + rng.normal()
        });
        let f = Mda::new(ModelOptions::default())
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        let right = (0..600).filter(|&i| f.suggested[i] == given[i]).count();
        assert!(right > 590, "{right}");
        let lda = crate::models::build_model("lda", &ModelOptions::default()).unwrap();
        let g = lda.fit(&x, &given, 2, &mut no_progress()).unwrap();
        let lda_right = (0..600).filter(|&i| g.suggested[i] == given[i]).count();
        assert!(lda_right < right, "lda {lda_right} vs mda {right}");
    }
}
