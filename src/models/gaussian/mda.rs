//! Mixture discriminant analysis (Hastie & Tibshirani 1996, as described in
//! Bouveyron & Girard 2009 section 2.3): each class is its own Gaussian
//! mixture (eq. 5), fitted on the samples carrying its given label, which
//! are trusted. The baseline RMDA is compared against.
//!
//! Unlike Hastie & Tibshirani, the `tied` family shares one covariance
//! within a class, not across all classes: every class mixture is an
//! independent fit through the same EM as RMDA's clustering step.

use crate::models::Guide;
use std::sync::Arc;

use nalgebra::DMatrix;

use crate::models::gaussian::mixture::{
    BIC_SCAN, Gauge, GaussianMixture, MixtureSettings, Starts, fit_mixture,
    require_more_samples_than_features, select_by_bic,
};
use crate::models::numerics::normalise_log_rows;
use crate::models::prologue::{Prologue, Scaling, class_name};
use crate::models::standardize::Standardizer;
use crate::models::{
    Classifier, Control, Fit, FitError, ModelOptions, NamedSeries, Progress, RobustModel,
};

/// Largest number of clusters per class BIC tries when
/// `clusters_per_class` is unset.
pub const MAX_CLUSTERS_PER_CLASS: usize = 4;

#[derive(Clone, Debug)]
pub struct Mda {
    settings: MixtureSettings,
    scaling: Scaling,
    /// `None`: chosen per class by BIC over 1..=[`MAX_CLUSTERS_PER_CLASS`].
    clusters_per_class: Option<usize>,
}

impl Mda {
    /// Reads the mixture settings, `standardize` and `clusters_per_class`.
    pub fn new(options: &ModelOptions) -> Result<Self, FitError> {
        Ok(Self {
            settings: MixtureSettings::checked(options)?,
            scaling: Scaling::from_standardize(options.standardize),
            clusters_per_class: ModelOptions::checked_at_least(
                "clusters_per_class",
                options.clusters_per_class,
                1,
            )?,
        })
    }
}

/// `P(c | x) ∝ P(c) sum_j pi_cj phi(x; mu_cj, Sigma_cj)` on standardised rows.
#[derive(Clone, Debug)]
pub struct MdaClassifier {
    pub standardizer: Standardizer,
    pub mixtures: Vec<GaussianMixture>,
    pub log_prior: Vec<f64>,
}

impl MdaClassifier {
    fn log_joint(&self, z: &DMatrix<f64>) -> DMatrix<f64> {
        let mut lj = DMatrix::zeros(z.nrows(), self.mixtures.len());
        for (c, m) in self.mixtures.iter().enumerate() {
            for (i, v) in m.log_density(z).into_iter().enumerate() {
                lj[(i, c)] = v + self.log_prior[c];
            }
        }
        lj
    }
}

impl Classifier for MdaClassifier {
    fn predict_proba(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        let mut lj = self.log_joint(&self.standardizer.apply(x));
        normalise_log_rows(&mut lj);
        lj
    }
}

impl RobustModel for Mda {
    fn name(&self) -> &'static str {
        "mda"
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
        } = Prologue::new(x, given, n_classes, true, self.scaling)?;
        require_more_samples_than_features(self.name(), x)?;
        let n = given.len();
        let z = standardizer.apply(x);
        let mut mixtures = Vec::with_capacity(n_classes);
        let mut extra = crate::models::ModelReport::default();
        for c in 0..n_classes {
            let rows: Vec<usize> = (0..n).filter(|&i| given[i] == c).collect();
            let zc = z.select_rows(&rows);
            let settings = MixtureSettings {
                seed: self.settings.seed.wrapping_add(c as u64),
                ..self.settings.clone()
            };
            let gauge = Gauge::WHOLE.part(c, n_classes);
            let cap = rows.len();
            let m = match self.clusters_per_class {
                Some(m) => {
                    if m > cap {
                        extra.notes.push(format!(
                            "{} has {cap} samples: fitted {cap} clusters instead of {m}",
                            class_name(c)
                        ));
                    }
                    fit_mixture(&zc, m.min(cap), &settings, gauge, progress)
                }
                None => {
                    let hi = MAX_CLUSTERS_PER_CLASS.min(cap);
                    select_by_bic(
                        &zc,
                        1..=hi,
                        BIC_SCAN,
                        &settings,
                        &Starts::default(),
                        gauge,
                        progress,
                    )
                    .map(|choice| {
                        extra.series.push(NamedSeries {
                            name: format!("BIC {}", class_name(c)),
                            x_label: "number of clusters".into(),
                            y_label: "BIC (lower is better)".into(),
                            points: choice.bic.iter().map(|&(k, b)| (k as f64, b)).collect(),
                        });
                        choice.best
                    })
                }
            }
            .map_err(|e| match e {
                FitError::Numerical(msg) | FitError::InvalidInput(msg) => {
                    FitError::Numerical(format!("{}: {msg}", class_name(c)))
                }
                other => other,
            })?;
            extra
                .scalars
                .push((format!("clusters[{c}]"), m.n_clusters() as f64));
            mixtures.push(m);
        }
        let log_prior: Vec<f64> = counts.iter().map(|&k| (k as f64 / n as f64).ln()).collect();
        let classifier = MdaClassifier {
            standardizer,
            mixtures,
            log_prior,
        };
        let mut lj = classifier.log_joint(&z);
        // Joint log-likelihood of features and given labels.
        let objective: f64 = given.iter().enumerate().map(|(i, &g)| lj[(i, g)]).sum();
        normalise_log_rows(&mut lj);
        let mut fit = Fit::from_posterior(lj, given);
        fit.trace = vec![objective];
        fit.converged = classifier.mixtures.iter().all(|m| m.converged);
        fit.iterations = classifier.mixtures.iter().map(|m| m.iterations).sum();
        extra.scalars.push(("log_likelihood".into(), objective));
        fit.extra = extra;
        fit.classifier = Some(Arc::new(classifier));
        Ok(fit)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use nalgebra::DVector;

    use super::*;
    use crate::eval::simulate::spherical_mixture;
    use crate::models::{CovarianceFamily, argmax, no_progress};
    use crate::rng::Rng;

    /// Two classes, each two spherical clusters (XOR-like, so one Gaussian
    /// per class cannot separate them).
    fn xor(n: usize, seed: u64) -> (DMatrix<f64>, Vec<usize>) {
        let means: Vec<DVector<f64>> = [[4.0, 4.0], [-4.0, -4.0], [4.0, -4.0], [-4.0, 4.0]]
            .iter()
            .map(|m| DVector::from_row_slice(m))
            .collect();
        let (x, cl) = spherical_mixture(n, &means, &[1.0; 4], &[0.25; 4], &mut Rng::new(seed));
        (x, cl.iter().map(|c| c / 2).collect())
    }

    fn accuracy(fit: &Fit, x: &DMatrix<f64>, y: &[usize]) -> f64 {
        let p = fit.classifier.as_ref().unwrap().predict_proba(x);
        (0..y.len())
            .filter(|&i| argmax(p.row(i).iter().copied()) == y[i])
            .count() as f64
            / y.len() as f64
    }

    #[test]
    fn two_clusters_per_class_learn_a_multimodal_boundary() {
        let (x, y) = xor(600, 1);
        let (xt, yt) = xor(600, 2);
        let opts = ModelOptions {
            covariance: CovarianceFamily::Spherical,
            ..ModelOptions::default()
        };
        let f = Mda::new(&opts)
            .unwrap()
            .fit(&x, &y, 2, &mut no_progress())
            .unwrap();
        assert_eq!(f.extra.scalar("clusters[0]"), Some(2.0), "{:?}", f.extra);
        assert_eq!(f.extra.scalar("clusters[1]"), Some(2.0));
        assert!(accuracy(&f, &xt, &yt) > 0.97);
        let fixed = ModelOptions {
            covariance: CovarianceFamily::Spherical,
            clusters_per_class: Some(3),
            ..ModelOptions::default()
        };
        let f = Mda::new(&fixed)
            .unwrap()
            .fit(&x, &y, 2, &mut no_progress())
            .unwrap();
        assert_eq!(f.extra.scalar("clusters[1]"), Some(3.0));
    }

    #[test]
    fn zero_clusters_per_class_is_rejected() {
        let opts = ModelOptions {
            clusters_per_class: Some(0),
            ..ModelOptions::default()
        };
        let e = Mda::new(&opts).unwrap_err().to_string();
        assert!(e.contains("clusters_per_class"), "{e}");
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod option_tests {
    use super::*;

    crate::models::rejects_option! {
        zero_clusters_per_class: Mda::new, "clusters_per_class" = "0";
        zero_restarts: Mda::new, "restarts" = "0";
        shrinkage_above_1: Mda::new, "shrinkage" = "2";
        zero_max_iter: Mda::new, "max_iter" = "0";
        zero_tol: Mda::new, "tol" = "0";
    }
}
