//! Unsupervised Gaussian mixtures by EM (k-means++ starts, seeded restarts,
//! BIC over the number of components): the first step of RMDA (Bouveyron &
//! Girard 2009, section 3.1), where the labels are set aside.

use nalgebra::DMatrix;

use super::gaussian::{GaussianComponents, one_hot};
use super::linalg::{normalise_log_rows, relative_change};
use super::{Control, CovarianceFamily, FitError, Progress};
use crate::rng::Rng;

/// A fitted mixture on (standardised) data.
#[derive(Clone, Debug)]
pub struct Mixture {
    pub components: GaussianComponents,
    pub log_weights: Vec<f64>,
    /// n x k responsibilities P(S = j | x_i).
    pub responsibilities: DMatrix<f64>,
    pub log_likelihood: f64,
    pub iterations: usize,
    pub converged: bool,
}

impl Mixture {
    /// Free parameters, for BIC.
    pub fn n_parameters(&self, d: usize) -> usize {
        let k = self.log_weights.len();
        let cov = match self.components.family {
            CovarianceFamily::Full => k * d * (d + 1) / 2,
            CovarianceFamily::Tied => d * (d + 1) / 2,
            CovarianceFamily::Diag => k * d,
            CovarianceFamily::Spherical => k,
        };
        k * d + cov + (k - 1)
    }

    /// BIC as -2 log L + parameters log n (lower is better).
    pub fn bic(&self, n: usize, d: usize) -> f64 {
        -2.0 * self.log_likelihood + self.n_parameters(d) as f64 * (n as f64).ln()
    }

    /// log p(x) under the mixture for every (standardised) row.
    pub fn log_density(&self, z: &DMatrix<f64>) -> Vec<f64> {
        let mut lw = self.components.log_densities(z);
        for (j, w) in self.log_weights.iter().enumerate() {
            lw.column_mut(j).add_scalar_mut(*w);
        }
        (0..lw.nrows())
            .map(|i| super::linalg::log_sum_exp(&lw.row(i).iter().copied().collect::<Vec<_>>()))
            .collect()
    }

    /// P(S = j | x) for new (standardised) rows.
    pub fn responsibilities_of(&self, z: &DMatrix<f64>) -> DMatrix<f64> {
        let mut lw = self.components.log_densities(z);
        for (j, w) in self.log_weights.iter().enumerate() {
            lw.column_mut(j).add_scalar_mut(*w);
        }
        normalise_log_rows(&mut lw);
        lw
    }
}

/// k-means++ seeding: the first centre uniformly, each next one with
/// probability proportional to the squared distance to the nearest centre.
fn kmeans_pp(z: &DMatrix<f64>, k: usize, rng: &mut Rng) -> Vec<usize> {
    let n = z.nrows();
    let mut centres = vec![rng.below(n)];
    let dist = |a: usize, b: usize| (z.row(a) - z.row(b)).norm_squared();
    let mut d2: Vec<f64> = (0..n).map(|i| dist(i, centres[0])).collect();
    while centres.len() < k {
        let next = if d2.iter().sum::<f64>() > 0.0 {
            rng.categorical(&d2)
        } else {
            rng.below(n)
        };
        centres.push(next);
        for (i, d) in d2.iter_mut().enumerate() {
            *d = d.min(dist(i, next));
        }
    }
    centres
}

/// How the mixture EM runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmSettings {
    pub family: CovarianceFamily,
    pub shrinkage: Option<f64>,
    pub max_iter: usize,
    pub tol: f64,
    /// Runs from different k-means++ starts; the best likelihood wins.
    pub restarts: usize,
    pub seed: u64,
}

/// One EM run from a k-means++ start.
fn run_em(
    z: &DMatrix<f64>,
    k: usize,
    s: &EmSettings,
    rng: &mut Rng,
    progress: &mut dyn FnMut(usize, f64) -> Control,
) -> Result<Mixture, FitError> {
    let (family, shrinkage, max_iter, tol) = (s.family, s.shrinkage, s.max_iter, s.tol);
    let n = z.nrows();
    let centres = kmeans_pp(z, k, rng);
    let nearest: Vec<usize> = (0..n)
        .map(|i| {
            super::argmax(
                centres
                    .iter()
                    .map(|&c| -(z.row(i) - z.row(c)).norm_squared()),
            )
        })
        .collect();
    let mut resp = one_hot(&nearest, k);
    let name = |j: usize| format!("cluster {j}");
    let mut trace: Vec<f64> = Vec::new();
    let mut converged = false;
    let mut iterations = 0;
    let mut mixture;
    loop {
        iterations += 1;
        let components = GaussianComponents::estimate(z, &resp, family, shrinkage, &name)?;
        let log_weights: Vec<f64> = components
            .weights
            .iter()
            .map(|w| (w / n as f64).ln())
            .collect();
        let mut lw = components.log_densities(z);
        for (j, w) in log_weights.iter().enumerate() {
            lw.column_mut(j).add_scalar_mut(*w);
        }
        let ll = normalise_log_rows(&mut lw);
        resp = lw;
        mixture = Mixture {
            components,
            log_weights,
            responsibilities: resp.clone(),
            log_likelihood: ll,
            iterations,
            converged: false,
        };
        if progress(iterations, ll) == Control::Stop {
            return Err(FitError::Cancelled);
        }
        if trace.last().is_some_and(|p| relative_change(*p, ll) < tol) {
            converged = true;
            break;
        }
        trace.push(ll);
        if iterations >= max_iter {
            break;
        }
    }
    mixture.converged = converged;
    Ok(mixture)
}

/// The best of `restarts` EM runs with k components (highest likelihood).
pub fn fit_mixture(
    z: &DMatrix<f64>,
    k: usize,
    settings: &EmSettings,
    progress: &mut dyn FnMut(usize, f64) -> Control,
) -> Result<Mixture, FitError> {
    let mut rng = Rng::new(settings.seed);
    let mut best: Option<Mixture> = None;
    let mut last_error = None;
    for _ in 0..settings.restarts.max(1) {
        match run_em(z, k, settings, &mut rng, progress) {
            Ok(m) => {
                if best
                    .as_ref()
                    .is_none_or(|b| m.log_likelihood > b.log_likelihood)
                {
                    best = Some(m);
                }
            }
            Err(FitError::Cancelled) => return Err(FitError::Cancelled),
            Err(e) => last_error = Some(e),
        }
    }
    best.ok_or_else(|| {
        last_error.unwrap_or_else(|| FitError::Numerical(format!("no mixture with {k} components")))
    })
}

/// Progress adapter for the mixture loops.
pub fn stage_progress<'a>(
    stage: &'static str,
    max_iterations: usize,
    fraction: f64,
    progress: &'a mut dyn FnMut(Progress) -> Control,
) -> impl FnMut(usize, f64) -> Control + 'a {
    move |iteration, objective| {
        progress(Progress {
            stage,
            iteration,
            max_iterations,
            objective,
            fraction,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod tests {
    use super::*;

    pub fn settings(
        family: CovarianceFamily,
        shrinkage: Option<f64>,
        restarts: usize,
        seed: u64,
    ) -> EmSettings {
        EmSettings {
            family,
            shrinkage,
            max_iter: 200,
            tol: 1e-8,
            restarts,
            seed,
        }
    }

    fn blobs(n: usize, centres: &[(f64, f64)], seed: u64) -> DMatrix<f64> {
        let mut rng = Rng::new(seed);
        DMatrix::from_fn(n, 2, |i, j| {
            let c = centres[i % centres.len()];
            (if j == 0 { c.0 } else { c.1 }) + 0.5 * rng.normal()
        })
    }

    #[test]
    fn recovers_well_separated_components_and_bic_picks_their_number() {
        let centres = [(0.0, 0.0), (6.0, 0.0), (0.0, 6.0)];
        let z = blobs(600, &centres, 1);
        let mut bics = Vec::new();
        for k in 1..=5 {
            let m = fit_mixture(
                &z,
                k,
                &settings(CovarianceFamily::Full, Some(0.0), 3, 7),
                &mut |_, _| Control::Continue,
            )
            .unwrap();
            bics.push(m.bic(600, 2));
            if k == 3 {
                for w in &m.log_weights {
                    assert!((w.exp() - 1.0 / 3.0).abs() < 0.03);
                }
                for c in centres {
                    assert!(
                        m.components
                            .means
                            .iter()
                            .any(|mu| ((mu[0] - c.0).powi(2) + (mu[1] - c.1).powi(2)).sqrt() < 0.2)
                    );
                }
            }
        }
        let best = bics
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .unwrap()
            .0
            + 1;
        assert_eq!(best, 3, "{bics:?}");
    }

    #[test]
    fn every_family_runs_and_the_seed_reproduces() {
        let z = blobs(200, &[(0.0, 0.0), (4.0, 4.0)], 2);
        for family in CovarianceFamily::ALL {
            let a = fit_mixture(&z, 2, &settings(family, None, 2, 3), &mut |_, _| {
                Control::Continue
            })
            .unwrap();
            let b = fit_mixture(&z, 2, &settings(family, None, 2, 3), &mut |_, _| {
                Control::Continue
            })
            .unwrap();
            assert_eq!(a.log_likelihood, b.log_likelihood, "{family}");
        }
    }
}
