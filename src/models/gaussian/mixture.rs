//! Unsupervised Gaussian mixtures fitted by EM, shared by RMDA (the
//! clustering step of Bouveyron & Girard 2009, section 3.1) and MDA (one
//! mixture per class). The M-step is `GaussianComponents::estimate` with the
//! responsibilities as weights, so every covariance family, the shrinkage
//! and the guards of the Gaussian engine apply unchanged.
//!
//! Starts are k-means++ (`kmeans`, then hard responsibilities);
//! several restarts with the seed keep the best log-likelihood. The number
//! of clusters can be chosen by BIC (section 3.3).

use nalgebra::DMatrix;

use crate::models::gaussian::components::GaussianComponents;
use crate::models::gaussian::kmeans::kmeans_plus_plus;
use crate::models::numerics::one_hot;
use crate::models::numerics::{log_sum_exp, normalise_log_rows, relative_change};
use crate::models::prologue::step;
use crate::models::{Control, CovarianceFamily, FitError, ModelOptions, Progress};
use crate::rng::Rng;

/// A component whose effective size falls below this many samples is
/// collapsing onto a point (the likelihood then grows without bound); the
/// restart is abandoned instead of reporting a degenerate maximum.
pub const MIN_COMPONENT_WEIGHT: f64 = 2.0;

/// How to fit a mixture (the subset of `ModelOptions` the EM reads).
#[derive(Clone, Debug, PartialEq)]
pub struct MixtureSettings {
    pub family: CovarianceFamily,
    pub shrinkage: Option<f64>,
    /// Independent k-means++ starts; the best log-likelihood is kept.
    pub restarts: usize,
    pub max_iter: usize,
    pub tol: f64,
    pub seed: u64,
}

impl MixtureSettings {
    /// Reads `covariance`, `shrinkage`, `restarts`, `max_iter`, `tol` and
    /// `seed`.
    pub fn checked(o: &ModelOptions) -> Result<Self, FitError> {
        let iterations = o.checked_iterations()?;
        Ok(Self {
            family: o.covariance,
            shrinkage: o.checked_shrinkage()?,
            restarts: o.checked_restarts()?,
            max_iter: iterations.max_iter,
            tol: iterations.tol,
            seed: o.seed,
        })
    }
}

/// Maps the progress of one sub-fit into the overall gauge `[start, start + span]`.
#[derive(Clone, Copy, Debug)]
pub struct Gauge {
    pub start: f64,
    pub span: f64,
}

impl Gauge {
    pub const WHOLE: Gauge = Gauge {
        start: 0.0,
        span: 1.0,
    };

    /// The `i`-th of `n` equal parts of this gauge.
    pub fn part(self, i: usize, n: usize) -> Gauge {
        let w = self.span / n.max(1) as f64;
        Gauge {
            start: self.start + w * i as f64,
            span: w,
        }
    }

    fn at(self, fraction: f64) -> f64 {
        (self.start + self.span * fraction.clamp(0.0, 1.0)).clamp(0.0, 1.0)
    }
}

/// A fitted Gaussian mixture `p(x) = sum_j pi_j phi(x; mu_j, Sigma_j)` (eq. 1).
#[derive(Clone, Debug)]
pub struct GaussianMixture {
    pub components: GaussianComponents,
    /// `log pi_j`.
    pub log_weights: Vec<f64>,
    /// Log-likelihood of the data the mixture was fitted on.
    pub log_likelihood: f64,
    /// Log-likelihood per EM iteration of the kept restart.
    pub trace: Vec<f64>,
    pub converged: bool,
    pub iterations: usize,
    /// Restarts abandoned because a component emptied or collapsed.
    pub restarts_failed: usize,
    /// Number of rows the mixture was fitted on (for BIC).
    pub n_samples: usize,
}

impl GaussianMixture {
    pub fn n_clusters(&self) -> usize {
        self.log_weights.len()
    }

    /// Free parameters: K - 1 proportions, K p means and the covariances of
    /// the family (shrinkage is not counted: it is a fixed rule, not fitted).
    pub fn n_parameters(&self) -> usize {
        let k = self.n_clusters();
        let p = self.components.means.first().map_or(0, |m| m.len());
        let cov = match self.components.family {
            CovarianceFamily::Full => k * p * (p + 1) / 2,
            CovarianceFamily::Tied => p * (p + 1) / 2,
            CovarianceFamily::Diag => k * p,
            CovarianceFamily::Spherical => k,
        };
        k - 1 + k * p + cov
    }

    /// Schwarz's criterion as `-2 log L + nu log n` (lower is better).
    pub fn bic(&self) -> f64 {
        -2.0 * self.log_likelihood + self.n_parameters() as f64 * (self.n_samples as f64).ln()
    }

    /// `log pi_j + log phi(x_i; mu_j, Sigma_j)` for every row and cluster.
    pub fn log_joint(&self, z: &DMatrix<f64>) -> DMatrix<f64> {
        let mut lw = self.components.log_densities(z);
        for (j, lp) in self.log_weights.iter().enumerate() {
            lw.column_mut(j).apply(|v| *v += lp);
        }
        lw
    }

    /// `Psi(x) = (P(S = j | x))_j` for every row (n x K) and the total
    /// log-likelihood `sum_i log p(x_i)`.
    pub fn responsibilities(&self, z: &DMatrix<f64>) -> (DMatrix<f64>, f64) {
        let mut lw = self.log_joint(z);
        let ll = normalise_log_rows(&mut lw);
        (lw, ll)
    }

    /// `log p(x_i)` for every row (eq. 1).
    pub fn log_density(&self, z: &DMatrix<f64>) -> Vec<f64> {
        let lw = self.log_joint(z);
        let mut row = vec![0.0; lw.ncols()];
        (0..lw.nrows())
            .map(|i| {
                for (j, r) in row.iter_mut().enumerate() {
                    *r = lw[(i, j)];
                }
                log_sum_exp(&row)
            })
            .collect()
    }
}

fn cluster_name(j: usize) -> String {
    format!("cluster {}", j + 1)
}

/// Why one EM run ended without a usable mixture.
enum RunFailure {
    Degenerate,
    Fatal(FitError),
}

/// One EM run from a partition of the rows into `k` clusters.
fn em_run(
    z: &DMatrix<f64>,
    k: usize,
    settings: &MixtureSettings,
    assign: &[usize],
    gauge: Gauge,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<GaussianMixture, RunFailure> {
    let n = z.nrows();
    let mut resp = one_hot(assign, k);
    let mut trace = Vec::new();
    let mut converged = false;
    let mut iteration = 0;
    loop {
        // M-step (on the k-means partition the first time): proportions and
        // the weighted Gaussian estimate of the chosen family.
        let totals: Vec<f64> = (0..k).map(|j| resp.column(j).sum()).collect();
        if totals
            .iter()
            .any(|&t| t < MIN_COMPONENT_WEIGHT.min(n as f64 / k as f64))
        {
            return Err(RunFailure::Degenerate);
        }
        let components = match GaussianComponents::estimate(
            z,
            &resp,
            settings.family,
            settings.shrinkage,
            &cluster_name,
        ) {
            Ok(c) => c,
            Err(FitError::Numerical(_)) => return Err(RunFailure::Degenerate),
            Err(e) => return Err(RunFailure::Fatal(e)),
        };
        let log_weights: Vec<f64> = totals.iter().map(|t| (t / n as f64).ln()).collect();
        let mixture = GaussianMixture {
            components,
            log_weights,
            log_likelihood: f64::NAN,
            trace: Vec::new(),
            converged: false,
            iterations: 0,
            restarts_failed: 0,
            n_samples: n,
        };
        // E-step.
        iteration += 1;
        let (next, ll) = mixture.responsibilities(z);
        if !ll.is_finite() {
            return Err(RunFailure::Degenerate);
        }
        let previous = trace.last().copied();
        trace.push(ll);
        step(
            progress,
            Progress {
                stage: "mixture EM",
                iteration,
                max_iterations: settings.max_iter,
                objective: ll,
                fraction: gauge.at(iteration as f64 / settings.max_iter as f64),
            },
        )
        .map_err(RunFailure::Fatal)?;
        if previous.is_some_and(|prev| relative_change(prev, ll) < settings.tol) {
            converged = true;
        }
        if converged || iteration >= settings.max_iter {
            return Ok(GaussianMixture {
                log_likelihood: ll,
                trace,
                converged,
                iterations: iteration,
                ..mixture
            });
        }
        resp = next;
    }
}

/// Fits a K-cluster mixture with `settings.restarts` k-means++ starts and
/// keeps the best log-likelihood. The restarts draw from one stream seeded
/// by `settings.seed` and K, so a seed reproduces the fit.
pub fn fit_mixture(
    z: &DMatrix<f64>,
    k: usize,
    settings: &MixtureSettings,
    gauge: Gauge,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<GaussianMixture, FitError> {
    fit_mixture_from(z, k, settings, &Starts::default(), gauge, progress).map(|(m, _)| m)
}

/// A partition to start from: the rows' clusters.
pub type Partition = Vec<usize>;

/// Besides the k-means++ restarts: starts of the caller's, and which fits
/// the caller can use. The default adds none and accepts all.
#[derive(Default)]
pub struct Starts<'a> {
    /// A partition into K clusters for K, or `None` when it has none.
    pub extra: Option<&'a dyn Fn(usize) -> Option<Partition>>,
    /// Whether a fitted mixture is admissible.
    pub admissible: Option<&'a dyn Fn(&GaussianMixture) -> bool>,
}

/// [`fit_mixture`] with the caller's starts: keeps the best log-likelihood
/// among the admissible fits, else among all. Returns the mixture and how
/// many starts gave an admissible one.
pub fn fit_mixture_from(
    z: &DMatrix<f64>,
    k: usize,
    settings: &MixtureSettings,
    starts: &Starts<'_>,
    gauge: Gauge,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<(GaussianMixture, usize), FitError> {
    let n = z.nrows();
    if k == 0 {
        return Err(FitError::InvalidOption(
            "the number of clusters must be at least 1".into(),
        ));
    }
    if k > n {
        return Err(FitError::InvalidInput(format!(
            "cannot fit {k} clusters to {n} samples; ask for at most {n} clusters"
        )));
    }
    let extra = starts.extra.and_then(|f| f(k));
    let restarts = settings.restarts.max(1);
    let total = restarts + usize::from(extra.is_some());
    let mut rng = Rng::new(settings.seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    // (mixture, admissible)
    let mut best: Option<(GaussianMixture, bool)> = None;
    let (mut failed, mut admissible) = (0, 0);
    for r in 0..total {
        let assign = match (&extra, r) {
            (Some(p), 0) => p.clone(),
            _ => kmeans_plus_plus(z, k, &mut rng),
        };
        match em_run(z, k, settings, &assign, gauge.part(r, total), progress) {
            Ok(m) => {
                let ok = starts.admissible.is_none_or(|f| f(&m));
                admissible += usize::from(ok);
                let better = best.as_ref().is_none_or(|(b, b_ok)| {
                    (ok && !b_ok) || (ok == *b_ok && m.log_likelihood > b.log_likelihood)
                });
                if better {
                    best = Some((m, ok));
                }
            }
            Err(RunFailure::Degenerate) => failed += 1,
            Err(RunFailure::Fatal(e)) => return Err(e),
        }
    }
    match best {
        Some((m, _)) => Ok((
            GaussianMixture {
                restarts_failed: failed,
                ..m
            },
            admissible,
        )),
        None => Err(FitError::Numerical(format!(
            "every one of {total} starts of a {k}-cluster mixture lost a cluster \
             (fewer than {MIN_COMPONENT_WEIGHT} samples) or collapsed; ask for fewer clusters, \
             a simpler covariance (--cov spherical) or more shrinkage"
        ))),
    }
}

/// The mixture chosen by BIC over a range of cluster numbers.
#[derive(Clone, Debug)]
pub struct BicChoice {
    pub best: GaussianMixture,
    /// `(number of clusters, BIC)` for every number that could be fitted.
    pub bic: Vec<(usize, f64)>,
    /// Numbers of clusters whose every start degenerated.
    pub skipped: Vec<usize>,
    /// `(number of clusters, starts that gave an admissible mixture)`.
    pub admissible_starts: Vec<(usize, usize)>,
}

/// Fits every K in `range` and keeps the lowest BIC (section 3.3).
pub fn select_by_bic(
    z: &DMatrix<f64>,
    range: std::ops::RangeInclusive<usize>,
    settings: &MixtureSettings,
    starts: &Starts<'_>,
    gauge: Gauge,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<BicChoice, FitError> {
    let (lo, hi) = (*range.start(), *range.end());
    if lo == 0 || lo > hi {
        return Err(FitError::InvalidOption(format!(
            "the range of clusters {lo}..={hi} is empty or starts at 0"
        )));
    }
    let count = hi - lo + 1;
    let mut best: Option<(GaussianMixture, bool)> = None;
    let mut bic = Vec::new();
    let mut skipped = Vec::new();
    let mut admissible_starts = Vec::new();
    let mut last_error = None;
    for (step, k) in range.enumerate() {
        match fit_mixture_from(z, k, settings, starts, gauge.part(step, count), progress) {
            Ok((m, admissible)) => {
                let b = m.bic();
                bic.push((k, b));
                let ok = admissible > 0;
                // An admissible number of clusters beats any inadmissible one.
                if best
                    .as_ref()
                    .is_none_or(|(c, c_ok)| (ok && !c_ok) || (ok == *c_ok && b < c.bic()))
                {
                    best = Some((m, ok));
                }
                admissible_starts.push((k, admissible));
            }
            Err(e @ (FitError::Numerical(_) | FitError::InvalidInput(_))) => {
                skipped.push(k);
                last_error = Some(e);
            }
            Err(e) => return Err(e),
        }
    }
    match best {
        Some((best, _)) => Ok(BicChoice {
            best,
            bic,
            skipped,
            admissible_starts,
        }),
        None => Err(last_error.unwrap_or_else(|| {
            FitError::Numerical("no number of clusters could be fitted".into())
        })),
    }
}

/// Gaussian clusters in p dimensions from n <= p samples are degenerate:
/// every covariance is singular and EM spends minutes on regularised noise
/// (rmda on colon, 62 x 2000, ran 3 minutes). Refuse with the way out.
pub fn require_more_samples_than_features(model: &str, x: &DMatrix<f64>) -> Result<(), FitError> {
    let (n, p) = x.shape();
    if p >= n {
        return Err(FitError::NotApplicable(format!(
            "{model}: Gaussian mixtures need more samples than features ({n} samples, {p} \
             features); use rlr or shift for wide data"
        )));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
