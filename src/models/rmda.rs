//! Robust mixture discriminant analysis (Bouveyron & Girard 2009): an
//! unsupervised Gaussian mixture (section 3.1) linked to the classes by a
//! matrix R, R[class, cluster] = P(class | cluster), estimated by maximum
//! likelihood on the given labels (eq. 8). The paper used a constrained
//! optimiser; here R is fitted by the EM update of a finite mixture, which
//! keeps each column a distribution and never lowers eq. 8. Classification
//! by eq. 7: P(class | x) = sum_j R[class, j] P(cluster j | x).

use std::sync::Arc;

use nalgebra::DMatrix;

use super::linalg::{Standardizer, relative_change};
use super::mixture::{EmSettings, Mixture, fit_mixture, stage_progress};
use super::{
    Classifier, Control, Fit, FitError, ModelOptions, NamedMatrix, NamedSeries, Progress,
    RobustModel, check_inputs,
};

#[derive(Clone, Debug)]
pub struct Rmda {
    options: ModelOptions,
}

impl Rmda {
    pub fn new(options: ModelOptions) -> Self {
        Self { options }
    }
}

/// Eq. 8 without its constant: sum_n log sum_j R[c_n, j] psi_nj.
pub fn r_log_likelihood(r: &DMatrix<f64>, psi: &DMatrix<f64>, given: &[usize]) -> f64 {
    given
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            (0..psi.ncols())
                .map(|j| r[(c, j)] * psi[(i, j)])
                .sum::<f64>()
                .max(1e-300)
                .ln()
        })
        .sum()
}

/// Fits R by EM from the label proportions of each cluster; returns R and
/// the eq. 8 value after every update.
pub fn fit_r(
    psi: &DMatrix<f64>,
    given: &[usize],
    n_classes: usize,
    max_iter: usize,
    tol: f64,
) -> (DMatrix<f64>, Vec<f64>) {
    let k = psi.ncols();
    let mut r = DMatrix::from_element(n_classes, k, 1.0 / n_classes as f64);
    let mut trace = vec![r_log_likelihood(&r, psi, given)];
    for _ in 0..max_iter {
        let mut num = DMatrix::zeros(n_classes, k);
        for (i, &c) in given.iter().enumerate() {
            let s: f64 = (0..k).map(|j| r[(c, j)] * psi[(i, j)]).sum();
            if s <= 0.0 {
                continue;
            }
            for j in 0..k {
                num[(c, j)] += r[(c, j)] * psi[(i, j)] / s;
            }
        }
        for j in 0..k {
            let total: f64 = num.column(j).sum();
            if total > 0.0 {
                for c in 0..n_classes {
                    r[(c, j)] = num[(c, j)] / total;
                }
            }
        }
        let ll = r_log_likelihood(&r, psi, given);
        let done = trace.last().is_some_and(|p| relative_change(*p, ll) < tol);
        trace.push(ll);
        if done {
            break;
        }
    }
    (r, trace)
}

#[derive(Clone, Debug)]
struct RmdaClassifier {
    standardizer: Standardizer,
    mixture: Mixture,
    r: DMatrix<f64>,
}

impl Classifier for RmdaClassifier {
    fn predict_proba(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        let psi = self
            .mixture
            .responsibilities_of(&self.standardizer.apply(x));
        &psi * self.r.transpose()
    }
}

impl RobustModel for Rmda {
    fn name(&self) -> &'static str {
        "rmda"
    }

    fn fit(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        check_inputs(x, given, n_classes)?;
        let o = &self.options;
        let (n, d) = x.shape();
        // Per-feature scaling: curators' tables mix units. Full and diagonal
        // families do not depend on it; spherical clusters are then spheres
        // in standardised units.
        let standardizer = Standardizer::fit(x);
        let z = standardizer.apply(x);
        let range: Vec<usize> = match o.clusters {
            Some(k) => vec![k],
            None => {
                let lo = o.clusters_min.unwrap_or(n_classes);
                let hi = o.clusters_max.unwrap_or(4 * n_classes).max(lo);
                (lo..=hi).collect()
            }
        };
        let range: Vec<usize> = range.into_iter().filter(|&k| k < n).collect();
        if range.is_empty() {
            return Err(FitError::InvalidInput(format!(
                "{n} samples are too few for the requested number of clusters"
            )));
        }
        let mut best: Option<(f64, Mixture)> = None;
        let mut bics = Vec::new();
        let mut failures = Vec::new();
        for (step, &k) in range.iter().enumerate() {
            let fraction = step as f64 / range.len() as f64;
            let mut cb = stage_progress("mixture EM", o.max_iter, fraction, progress);
            let settings = EmSettings {
                family: o.covariance,
                shrinkage: o.shrinkage,
                max_iter: o.max_iter,
                tol: o.tol,
                restarts: o.restarts,
                seed: o.seed,
            };
            match fit_mixture(&z, k, &settings, &mut cb) {
                Ok(m) => {
                    let bic = m.bic(n, d);
                    bics.push((k as f64, bic));
                    if best.as_ref().is_none_or(|(b, _)| bic < *b) {
                        best = Some((bic, m));
                    }
                }
                Err(FitError::Cancelled) => return Err(FitError::Cancelled),
                Err(e) => failures.push(format!("{k} clusters: {e}")),
            }
        }
        let Some((_, mixture)) = best else {
            return Err(FitError::Numerical(format!(
                "no mixture could be fitted ({}); try --cov diag or fewer clusters",
                failures.join("; ")
            )));
        };
        let psi = mixture.responsibilities.clone();
        let (r, r_trace) = fit_r(&psi, given, n_classes, o.max_iter, o.tol);
        if progress(Progress {
            stage: "R matrix",
            iteration: r_trace.len(),
            max_iterations: o.max_iter,
            objective: r_trace.last().copied().unwrap_or(f64::NAN),
            fraction: 1.0,
        }) == Control::Stop
        {
            return Err(FitError::Cancelled);
        }
        let posterior = &psi * r.transpose();
        let mut fit = Fit::from_posterior(posterior, given);
        let k = psi.ncols();
        let sizes: Vec<f64> = (0..k).map(|j| psi.column(j).sum()).collect();
        fit.extra.matrices.push(NamedMatrix {
            name: "R".into(),
            orientation: "rows: class, cols: cluster, P(class | cluster)".into(),
            row_labels: (0..n_classes).map(|c| format!("class #{c}")).collect(),
            col_labels: (0..k).map(|j| format!("S{j}")).collect(),
            values: (0..n_classes)
                .map(|c| r.row(c).iter().copied().collect())
                .collect(),
        });
        fit.extra.series.push(NamedSeries {
            name: "BIC".into(),
            x_label: "clusters".into(),
            y_label: "BIC".into(),
            points: bics,
        });
        fit.extra.scalars.push(("clusters".into(), k as f64));
        fit.extra
            .scalars
            .push(("mixture_log_likelihood".into(), mixture.log_likelihood));
        fit.extra.lists.push((
            "cluster_sizes".into(),
            sizes.iter().map(|s| format!("{s:.1}")).collect(),
        ));
        fit.extra.notes.extend(failures);
        fit.converged = mixture.converged;
        fit.iterations = mixture.iterations;
        fit.trace = r_trace;
        fit.classifier = Some(Arc::new(RmdaClassifier {
            standardizer,
            mixture,
            r,
        }));
        Ok(fit)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::eval::metrics::auroc;
    use crate::models::{CovarianceFamily, no_progress};
    use crate::rng::Rng;

    /// Four spherical clusters in 5 dimensions, two per class, then labels
    /// flipped at `rate` (section 4 of the paper, in small).
    fn data(rate: f64, seed: u64) -> (DMatrix<f64>, Vec<usize>, Vec<bool>) {
        let mut rng = Rng::new(seed);
        let n = 800;
        let cluster: Vec<usize> = (0..n).map(|i| i % 4).collect();
        let x = DMatrix::from_fn(n, 5, |i, j| {
            let c = cluster[i];
            let centre = if j < 2 && (c >> j) & 1 == 1 { 5.0 } else { 0.0 };
            centre + rng.normal()
        });
        let mut flipped = vec![false; n];
        let given: Vec<usize> = (0..n)
            .map(|i| {
                let class = cluster[i] % 2;
                if rng.uniform() < rate {
                    flipped[i] = true;
                    1 - class
                } else {
                    class
                }
            })
            .collect();
        (x, given, flipped)
    }

    #[test]
    fn r_recovers_the_contamination_and_flags_the_flips() {
        let (x, given, flipped) = data(0.2, 1);
        let opts = ModelOptions {
            covariance: CovarianceFamily::Diag,
            ..ModelOptions::default()
        };
        let f = Rmda::new(opts)
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        assert_eq!(
            f.extra.scalar("clusters"),
            Some(4.0),
            "{:?}",
            f.extra.series
        );
        let r = f.extra.matrix("R").unwrap();
        for j in 0..4 {
            let col_max = r.values[0][j].max(r.values[1][j]);
            assert!((col_max - 0.8).abs() < 0.06, "{:?}", r.values);
        }
        let a = auroc(&f.p_mislabel, &flipped).unwrap();
        assert!(a > 0.95, "{a}");
    }

    #[test]
    fn the_r_likelihood_never_decreases() {
        let (x, given, _) = data(0.3, 2);
        let z = x.clone();
        let settings =
            crate::models::mixture::tests::settings(CovarianceFamily::Spherical, None, 2, 1);
        let m = fit_mixture(&z, 4, &settings, &mut |_, _| Control::Continue).unwrap();
        let (_, trace) = fit_r(&m.responsibilities, &given, 2, 200, 1e-12);
        for w in trace.windows(2) {
            assert!(w[1] >= w[0] - 1e-9, "{} then {}", w[0], w[1]);
        }
    }

    #[test]
    fn cancels_and_reproduces() {
        let (x, given, _) = data(0.1, 3);
        let opts = ModelOptions {
            clusters: Some(4),
            ..ModelOptions::default()
        };
        let e = Rmda::new(opts.clone())
            .fit(&x, &given, 2, &mut |_| Control::Stop)
            .unwrap_err();
        assert_eq!(e, FitError::Cancelled);
        let a = Rmda::new(opts.clone())
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        let b = Rmda::new(opts)
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        assert_eq!(a.p_mislabel, b.p_mislabel);
    }
}
