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
use crate::models::squarem::Squarem;
use crate::models::{Control, CovarianceFamily, FitError, ModelOptions, Progress};
use crate::rng::position_keys;

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
        let p = self.components.means.first().map_or(0, |m| m.len());
        mixture_parameters(self.components.family, p, self.n_clusters())
    }

    /// Schwarz's criterion as `-2 log L + nu log n` (lower is better).
    pub fn bic(&self) -> f64 {
        -2.0 * self.log_likelihood + self.n_parameters() as f64 * (self.n_samples as f64).ln()
    }

    /// `log pi_j + log phi(x_i; mu_j, Sigma_j)` for every row and cluster.
    pub fn log_joint(&self, z: &DMatrix<f64>) -> DMatrix<f64> {
        let mut lw = self.components.log_densities(z);
        for (j, lp) in self.log_weights.iter().enumerate() {
            for v in lw.column_mut(j).as_mut_slice() {
                *v += lp;
            }
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

/// Free parameters of a `k`-cluster mixture of `family` in `p` features:
/// K - 1 proportions, K p means and the covariances.
pub fn mixture_parameters(family: CovarianceFamily, p: usize, k: usize) -> usize {
    let cov = match family {
        CovarianceFamily::Full => k * p * (p + 1) / 2,
        CovarianceFamily::Tied => p * (p + 1) / 2,
        CovarianceFamily::Diag => k * p,
        CovarianceFamily::Spherical => k,
    };
    k.saturating_sub(1) + k * p + cov
}

fn cluster_name(j: usize) -> String {
    format!("cluster {}", j + 1)
}

/// Why one EM run ended without a usable mixture.
enum RunFailure {
    Degenerate,
    Fatal(FitError),
}

/// EM iterations every start gets before the starts are compared: the
/// small-EM strategy (Biernacki, Celeux & Govaert 2003, as in mclust and
/// mixmod). Running every start to convergence cost 50-270 iterations
/// each on 2000 x 20 (K = 5..20) although only the best start is kept;
/// a short burst already ranks the starts, and only the winner goes on.
const SMALL_EM_ITER: usize = 10;

/// One start's EM, paused or finished: the mixture of the last evaluated
/// parameters, their responsibilities and log-likelihood.
struct EmState {
    mixture: GaussianMixture,
    resp: DMatrix<f64>,
    squarem: Squarem,
}

/// The data and settings every step of one EM run reads.
struct EmRun<'a> {
    z: &'a DMatrix<f64>,
    k: usize,
    settings: &'a MixtureSettings,
    gauge: Gauge,
    /// SQUAREM on; off only to compare with plain EM in tests.
    accelerate: bool,
}

impl EmRun<'_> {
    /// Proportions and the weighted Gaussian estimate of the chosen family.
    fn m_step(&self, resp: &DMatrix<f64>) -> Result<GaussianMixture, RunFailure> {
        let (n, k) = (self.z.nrows(), self.k);
        let totals: Vec<f64> = (0..k).map(|j| resp.column(j).sum()).collect();
        if totals.iter().any(|&t| t < min_weight(n, k)) {
            return Err(RunFailure::Degenerate);
        }
        let settings = self.settings;
        let components = match GaussianComponents::estimate(
            self.z,
            resp,
            settings.family,
            settings.shrinkage,
            &cluster_name,
        ) {
            Ok(c) => c,
            Err(FitError::Numerical(_)) => return Err(RunFailure::Degenerate),
            Err(e) => return Err(RunFailure::Fatal(e)),
        };
        let log_weights = totals.iter().map(|t| (t / n as f64).ln()).collect();
        Ok(GaussianMixture {
            components,
            log_weights,
            log_likelihood: f64::NAN,
            trace: Vec::new(),
            converged: false,
            iterations: 0,
            restarts_failed: 0,
            n_samples: n,
        })
    }

    /// The E-step: responsibilities and log-likelihood, `None` when the
    /// log-likelihood is not finite.
    fn e_step(&self, m: &GaussianMixture) -> Option<(DMatrix<f64>, f64)> {
        let (resp, ll) = m.responsibilities(self.z);
        ll.is_finite().then_some((resp, ll))
    }

    /// One map evaluation of EM: the M-step on `resp`, then its E-step,
    /// counted and reported as an iteration.
    fn step(
        &self,
        resp: &DMatrix<f64>,
        history: &mut History,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<(GaussianMixture, DMatrix<f64>, f64), RunFailure> {
        let m = self.m_step(resp)?;
        let (next, ll) = self.e_step(&m).ok_or(RunFailure::Degenerate)?;
        history.record(ll, self.settings.max_iter, self.gauge, progress)?;
        Ok((m, next, ll))
    }

    /// The first iteration, from a partition of the rows.
    fn start(
        &self,
        assign: &[usize],
        history: &mut History,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<EmState, RunFailure> {
        let (mixture, resp, ll) = self.step(&one_hot(assign, self.k), history, progress)?;
        Ok(EmState {
            mixture: GaussianMixture {
                log_likelihood: ll,
                ..mixture
            },
            resp,
            squarem: Squarem::default(),
        })
    }

    /// EM from `state` until a plain step changes the log-likelihood by
    /// less than `tol` (relative) or `limit` iterations are spent,
    /// accelerated by SQUAREM (Varadhan & Roland 2008): with overlapping
    /// clusters EM converges linearly and slowly, and the kept start still
    /// took 50-270 iterations. Two plain steps give the extrapolated
    /// parameters (proportions, means, covariances); they are kept only if
    /// they are valid (proportions positive, covariances positive
    /// definite) and do not lower the log-likelihood below the first
    /// step's, so the trace stays that of a monotone EM. Convergence is
    /// judged on a plain step, as without acceleration.
    fn advance(
        &self,
        mut state: EmState,
        limit: usize,
        history: &mut History,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<EmState, RunFailure> {
        let tol = self.settings.tol;
        loop {
            if state.mixture.converged || history.iteration >= limit {
                return Ok(state);
            }
            let l0 = state.mixture.log_likelihood;
            let (t1, r1, l1) = self.step(&state.resp, history, progress)?;
            let converged = relative_change(l0, l1) < tol;
            if converged || history.iteration >= limit {
                return Ok(EmState {
                    mixture: GaussianMixture {
                        log_likelihood: l1,
                        converged,
                        ..t1
                    },
                    resp: r1,
                    ..state
                });
            }
            let t2 = self.m_step(&r1)?;
            let jump = self
                .accelerate
                .then(|| self.extrapolate(&mut state.squarem, &state.mixture, &t1, &t2))
                .flatten();
            let (mixture, resp, ll) = match jump.filter(|(_, _, lj)| *lj >= l1) {
                Some(j) => {
                    history.record(j.2, self.settings.max_iter, self.gauge, progress)?;
                    j
                }
                None => {
                    let (r2, l2) = self.e_step(&t2).ok_or(RunFailure::Degenerate)?;
                    history.record(l2, self.settings.max_iter, self.gauge, progress)?;
                    (t2, r2, l2)
                }
            };
            state.mixture = GaussianMixture {
                log_likelihood: ll,
                ..mixture
            };
            state.resp = resp;
        }
    }

    /// SQUAREM's point from `t0`, `t1 = F(t0)` and `t2 = F(t1)` with its
    /// E-step, or `None` when there is no longer step than `t2` or the
    /// point is not a valid mixture (the step bound then shrinks).
    fn extrapolate(
        &self,
        squarem: &mut Squarem,
        t0: &GaussianMixture,
        t1: &GaussianMixture,
        t2: &GaussianMixture,
    ) -> Option<(GaussianMixture, DMatrix<f64>, f64)> {
        let (v, a) = squarem.extrapolate(&t0.to_flat(), &t1.to_flat(), &t2.to_flat())?;
        if a <= 1.0 {
            return None;
        }
        let jumped = t2
            .with_flat(&v, min_weight(self.z.nrows(), self.k))
            .and_then(|m| self.e_step(&m).map(|(r, l)| (m, r, l)));
        if jumped.is_none() {
            squarem.rejected(a);
        }
        jumped
    }
}

/// The log-likelihood trace of one start and its iteration count.
#[derive(Default)]
struct History {
    trace: Vec<f64>,
    iteration: usize,
}

impl History {
    fn record(
        &mut self,
        ll: f64,
        max_iter: usize,
        gauge: Gauge,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<(), RunFailure> {
        self.iteration += 1;
        self.trace.push(ll);
        step(
            progress,
            Progress {
                stage: "mixture EM",
                iteration: self.iteration,
                max_iterations: max_iter,
                objective: ll,
                fraction: gauge.at(self.iteration as f64 / max_iter as f64),
            },
        )
        .map_err(RunFailure::Fatal)
    }
}

/// A cluster with fewer samples than this is collapsing.
fn min_weight(n: usize, k: usize) -> f64 {
    MIN_COMPONENT_WEIGHT.min(n as f64 / k as f64)
}

impl GaussianMixture {
    /// Proportions, means and covariances as one flat vector (SQUAREM's
    /// parameter space).
    fn to_flat(&self) -> Vec<f64> {
        let mut out: Vec<f64> = self.log_weights.iter().map(|l| l.exp()).collect();
        out.extend(self.components.to_flat());
        out
    }

    /// This mixture moved to `flat`, with the proportions renormalised;
    /// `None` when a proportion would leave a cluster fewer than
    /// `min_weight` samples or a covariance is not positive definite.
    fn with_flat(&self, flat: &[f64], min_weight: f64) -> Option<Self> {
        let k = self.n_clusters();
        let n = self.n_samples as f64;
        let total: f64 = flat[..k].iter().sum();
        let pi: Vec<f64> = flat[..k].iter().map(|w| w / total).collect();
        if !pi.iter().all(|w| w.is_finite() && w * n >= min_weight) {
            return None;
        }
        let mut components = self.components.with_flat(&flat[k..])?;
        components.weights = pi.iter().map(|w| w * n).collect();
        Some(Self {
            components,
            log_weights: pi.iter().map(|w| w.ln()).collect(),
            ..self.clone()
        })
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
    /// A key per row that the k-means++ restarts draw their seeds by
    /// ([`crate::rng::row_keys`] of the raw values, so the restarts do not
    /// depend on the order of the rows); `None`: keys from the rows'
    /// places, seeded by the settings.
    pub keys: Option<&'a [u64]>,
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
    let placed;
    let keys = match starts.keys {
        Some(keys) => keys,
        None => {
            placed = position_keys(n, settings.seed);
            &placed
        }
    };
    let draws = settings.seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut candidates = Vec::with_capacity(total);
    let mut failed = 0;
    for r in 0..total {
        let assign = match (&extra, r) {
            (Some(p), 0) => p.clone(),
            _ => kmeans_plus_plus(z, k, keys, draws.wrapping_add(r as u64)),
        };
        let run = EmRun {
            z,
            k,
            settings,
            gauge: gauge.part(r, total + 1),
            accelerate: true,
        };
        let limit = SMALL_EM_ITER.min(settings.max_iter);
        let mut history = History::default();
        match run
            .start(&assign, &mut history, progress)
            .and_then(|s| run.advance(s, limit, &mut history, progress))
        {
            Ok(state) => {
                let ok = starts.admissible.is_none_or(|f| f(&state.mixture));
                candidates.push((state, history, ok));
            }
            Err(RunFailure::Degenerate) => failed += 1,
            Err(RunFailure::Fatal(e)) => return Err(e),
        }
    }
    let run = EmRun {
        z,
        k,
        settings,
        gauge: gauge.part(total, total + 1),
        accelerate: true,
    };
    let (best, admissible) = finish_best(&run, candidates, starts, &mut failed, progress)?;
    match best {
        Some(m) => Ok((
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

/// The second half of small EM: the best start after the burst (admissible
/// before inadmissible, then by log-likelihood) goes on to convergence. A
/// start admissible after the burst but not at convergence counts as
/// inadmissible and the next burst-admissible start is tried, so an
/// admissible fit still beats an inadmissible one. Returns the fit and the
/// number of starts judged admissible.
fn finish_best(
    run: &EmRun<'_>,
    mut candidates: Vec<(EmState, History, bool)>,
    starts: &Starts<'_>,
    failed: &mut usize,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<(Option<GaussianMixture>, usize), FitError> {
    candidates.sort_by(|a, b| {
        (b.2, b.0.mixture.log_likelihood)
            .partial_cmp(&(a.2, a.0.mixture.log_likelihood))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut admissible = candidates.iter().filter(|c| c.2).count();
    let mut fallback = None;
    for (state, mut history, was_ok) in candidates {
        if fallback.is_some() && !was_ok {
            break;
        }
        admissible -= usize::from(was_ok);
        let state = match run.advance(state, run.settings.max_iter, &mut history, progress) {
            Ok(s) => s,
            Err(RunFailure::Degenerate) => {
                *failed += 1;
                continue;
            }
            Err(RunFailure::Fatal(e)) => return Err(e),
        };
        let mixture = GaussianMixture {
            trace: history.trace,
            iterations: history.iteration,
            ..state.mixture
        };
        if starts.admissible.is_none_or(|f| f(&mixture)) {
            return Ok((Some(mixture), admissible + 1));
        }
        fallback.get_or_insert(mixture);
    }
    Ok((fallback, admissible))
}

/// EM on all of `z` from `mixture`, a fit on a subsample of its rows, until
/// a plain step changes the log-likelihood by less than `tol`: the answer
/// is then a fixed point of the full data's EM, as a fit on all rows from
/// the start would be. The trace and iteration count are those of this
/// run. A continuation that loses a cluster is an error (the caller falls
/// back to the fit on all rows).
pub fn continue_mixture(
    z: &DMatrix<f64>,
    mixture: GaussianMixture,
    settings: &MixtureSettings,
    gauge: Gauge,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<GaussianMixture, FitError> {
    let run = EmRun {
        z,
        k: mixture.n_clusters(),
        settings,
        gauge,
        accelerate: true,
    };
    let lost = || FitError::Numerical("a cluster was lost on all rows".into());
    let mixture = GaussianMixture {
        n_samples: z.nrows(),
        converged: false,
        ..mixture
    };
    let (resp, ll) = run.e_step(&mixture).ok_or_else(lost)?;
    let mut history = History::default();
    if let Err(RunFailure::Fatal(e)) = history.record(ll, settings.max_iter, gauge, progress) {
        return Err(e);
    }
    let state = EmState {
        mixture: GaussianMixture {
            log_likelihood: ll,
            ..mixture
        },
        resp,
        squarem: Squarem::default(),
    };
    let state = match run.advance(state, settings.max_iter, &mut history, progress) {
        Ok(state) => state,
        Err(RunFailure::Degenerate) => return Err(lost()),
        Err(RunFailure::Fatal(e)) => return Err(e),
    };
    Ok(GaussianMixture {
        trace: history.trace,
        iterations: history.iteration,
        ..state.mixture
    })
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

/// How far [`select_by_bic`] goes up its range of cluster numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BicScan {
    /// Every number of the range (the user named the range).
    Every,
    /// Up the range until this many numbers in a row have scored worse than
    /// the best admissible one so far.
    UntilRises(usize),
}

/// The default scan: stop after two numbers in a row above the best BIC.
/// BIC's penalty grows linearly in the number of clusters while the
/// log-likelihood's gains shrink, so past its minimum BIC rises; on every
/// table measured it rose monotonically past the minimum (iris, wine,
/// breast cancer, digits: K = number of classes was best and each further
/// cluster cost 50-15000). Two rises rather than one guard against one
/// number whose EM starts all found a poor local optimum. The clusters of a
/// full-covariance fit cost O(p^2) parameters each, so the scan's top end
/// (4K) was most of the time: digits fitted 22 cluster numbers in 48 s.
pub const BIC_SCAN: BicScan = BicScan::UntilRises(2);

/// Fits K up `range` (all of it, or until BIC has risen as `scan` says)
/// and keeps the lowest BIC (section 3.3).
pub fn select_by_bic(
    z: &DMatrix<f64>,
    range: std::ops::RangeInclusive<usize>,
    scan: BicScan,
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
    // Numbers in a row scored worse than an admissible best.
    let mut rises = 0;
    for (step, k) in range.enumerate() {
        if let BicScan::UntilRises(patience) = scan
            && rises >= patience
        {
            break;
        }
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
                    rises = 0;
                } else if best.as_ref().is_some_and(|(_, c_ok)| *c_ok) {
                    rises += 1;
                }
                admissible_starts.push((k, admissible));
            }
            Err(e @ (FitError::Numerical(_) | FitError::InvalidInput(_))) => {
                skipped.push(k);
                last_error = Some(e);
                if best.as_ref().is_some_and(|(_, c_ok)| *c_ok) {
                    rises += 1;
                }
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
