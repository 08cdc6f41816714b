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
//!
//! Starts (issue 10): the EM is a local search, and from the given labels
//! it can fall in the basin of the swapped-names fixed point, where the
//! constraint holds a class on the boundary (its own label no likelier than
//! another). A fit whose first start (the given labels) is *admissible*, its
//! table dominant without being held, is kept as it is; otherwise the fit
//! runs the other starts and keeps the best log-likelihood among the
//! admissible ones; only when none is does it keep a held one, and says so.

use nalgebra::DMatrix;

use crate::models::gaussian::components::{
    CovarianceParams, GaussianClassifier, GaussianComponents, Scaled,
};
use crate::models::gaussian::mixture::Gauge;
use crate::models::gaussian::subsample;
use crate::models::numerics::{hold_diagonal, one_hot};
use crate::models::numerics::{normalise_log_rows, relative_change};
use crate::models::options::Iterations;
use crate::models::prologue::{Prologue, Scaling, class_name, step};
use crate::models::squarem::Squarem;
use crate::models::{
    Control, Fit, FitError, GammaTable, Guide, MatrixDisplay, ModelOptions, NamedMatrix, Progress,
    RobustModel,
};
use crate::rng::{keyed_uniform, row_keys};

/// Off-diagonal mass of the starting flip table: the EM update keeps an
/// exact zero at zero, so every flip must start possible.
const INITIAL_FLIP_MASS: f64 = 0.1;

/// Seeded perturbations of the given labels tried besides the given labels
/// themselves and the label-free reading of the NDA fit. A start is cheap
/// next to what a wrong basin costs, but every one is a whole EM: with two
/// perturbed starts, a basin that catches even half of the starts near the
/// given labels is missed by all of them with probability 1/4, and the
/// deterministic starts cover the common case. More would multiply the cost
/// of every fit on the large tables of issue 11 for rarer basins.
const PERTURBED_STARTS: usize = 2;

/// Share of undecided rows a perturbed start relabels at random: half way to
/// the one half at which a two-class table stops being identifiable, so the
/// start is well away from the given labels yet still on their side.
const PERTURBED_SHARE: f64 = 0.25;

#[derive(Clone, Debug)]
pub struct Rnda {
    covariance: CovarianceParams,
    iterations: Iterations,
    seed: u64,
}

impl Rnda {
    /// Reads `covariance`, `shrinkage`, `max_iter`, `tol` and `seed`.
    pub fn new(options: &ModelOptions) -> Result<Self, FitError> {
        Ok(Self {
            covariance: CovarianceParams::checked(options)?,
            iterations: options.checked_iterations()?,
            seed: options.seed,
        })
    }
}

/// The E-step (eq. 4): posterior of the true class given x and the given
/// label, in log space, from the joint `joint[(j, k)] = P(given = j, true =
/// k)`; decided rows are pinned to their decision. Returns the posterior
/// (n x K) and the observed-data log-likelihood of eq. (2).
fn e_step(
    log_dens: DMatrix<f64>,
    given: &[usize],
    joint: &DMatrix<f64>,
    guide: &Guide,
) -> (DMatrix<f64>, f64) {
    // Worked in place: the densities are not needed after.
    let mut w = log_dens;
    let k = w.ncols();
    let log_joint = joint.map(f64::ln);
    for c in 0..k {
        for (v, &g) in w.column_mut(c).iter_mut().zip(given) {
            *v += log_joint[(g, c)];
        }
    }
    // A decided row's true class is known: its complete-data term alone,
    // so the objective stays the one this EM increases.
    for (i, t) in guide.trusted.iter().enumerate() {
        if let Some(d) = *t {
            (0..k)
                .filter(|&c| c != d)
                .for_each(|c| w[(i, c)] = f64::NEG_INFINITY);
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
    // Down the columns: the posterior is column-major, and each entry still
    // sums its rows in order.
    for c in 0..k {
        for (p, &g) in posterior.column(c).iter().zip(given) {
            joint[(g, c)] += p;
        }
    }
    joint.unscale_mut(given.len() as f64);
    let bound = hold_every_diagonal(&mut joint);
    (joint, bound)
}

/// [`hold_diagonal`](crate::models::numerics::hold_diagonal) on every column of the joint (true, given) table;
/// whether any column was pooled.
fn hold_every_diagonal(joint: &mut DMatrix<f64>) -> bool {
    let mut held = false;
    for c in 0..joint.ncols() {
        let mut column: Vec<f64> = joint.column(c).iter().copied().collect();
        if hold_diagonal(&mut column, c) {
            held = true;
            joint.column_mut(c).copy_from_slice(&column);
        }
    }
    held
}

/// What every EM run of one fit shares.
struct Problem<'a> {
    /// The features as the model reads them: standardised, block by block.
    z: Scaled<'a>,
    given: &'a [usize],
    guide: &'a Guide,
    covariance: CovarianceParams,
    iterations: Iterations,
    /// SQUAREM on; off only to compare with plain EM in tests.
    accelerate: bool,
}

/// One EM run to convergence.
struct Run {
    components: GaussianComponents,
    joint: DMatrix<f64>,
    posterior: DMatrix<f64>,
    trace: Vec<f64>,
    converged: bool,
    iterations: usize,
    /// Whether the last M-step had to hold the table diagonally dominant.
    held: bool,
}

/// The parameters of one EM point: class Gaussians and the joint table.
struct Params {
    components: GaussianComponents,
    joint: DMatrix<f64>,
    /// Whether the table had to be held diagonally dominant.
    held: bool,
}

/// A point of the EM path with its E-step.
struct Point {
    params: Params,
    posterior: DMatrix<f64>,
    ll: f64,
}

impl Point {
    fn into_run(self, history: History, converged: bool) -> Run {
        Run {
            components: self.params.components,
            joint: self.params.joint,
            posterior: self.posterior,
            iterations: history.trace.len(),
            trace: history.trace,
            converged,
            held: self.params.held,
        }
    }
}

/// The log-likelihoods of the points an EM run moved through; one per
/// iteration, so an extrapolation that was tried and refused leaves no
/// mark and the trace is that of the path, non-decreasing as EM's.
#[derive(Default)]
struct History {
    trace: Vec<f64>,
}

impl Params {
    /// Gaussians and table as one flat vector: the space in which SQUAREM
    /// extrapolates EM's map (table entries first, then per class its mean
    /// and covariance, as [`GaussianComponents::to_flat`] lays them out).
    fn to_flat(&self) -> Vec<f64> {
        let mut out: Vec<f64> = self.joint.iter().copied().collect();
        out.extend(self.components.to_flat());
        out
    }

    /// These parameters moved to `flat`, or `None` when the point is outside
    /// the model: a table entry that is not positive (EM never makes one
    /// zero, and the log-likelihood needs its log) or a covariance that is
    /// not positive definite. The extrapolation is an affine combination
    /// with weights summing to one, so the table still sums to one up to
    /// rounding, which the renormalisation removes; a true class whose own
    /// label fell below another's is pooled back as the M-step pools it
    /// (the constrained maximum likelihood of those counts), so every
    /// accepted point satisfies the identifiability constraint.
    fn with_flat(&self, flat: &[f64]) -> Option<Self> {
        let k = self.joint.nrows();
        let table = &flat[..k * k];
        if !table.iter().all(|v| v.is_finite() && *v > 0.0) {
            return None;
        }
        let total: f64 = table.iter().sum();
        let mut joint = DMatrix::from_column_slice(k, k, table) / total;
        let held = hold_every_diagonal(&mut joint);
        let components = self.components.with_flat(&flat[k * k..])?;
        Some(Self {
            components,
            joint,
            held,
        })
    }
}

impl Problem<'_> {
    fn estimate(&self, weights: &DMatrix<f64>) -> Result<GaussianComponents, FitError> {
        let cov = self.covariance;
        GaussianComponents::estimate_scaled(self.z, weights, cov.family, cov.shrinkage, &class_name)
    }

    /// The M-step: eqs. (5)-(6) through weighted estimation, then eq. (7).
    fn m_step(&self, posterior: &DMatrix<f64>) -> Result<Params, FitError> {
        let components = self.estimate(posterior)?;
        let (joint, held) = update_joint(posterior, self.given);
        Ok(Params {
            components,
            joint,
            held,
        })
    }

    /// The E-step of `params`, its log-likelihood possibly not finite.
    fn e_step(&self, params: Params) -> Point {
        let log_dens = params.components.log_densities_scaled(self.z);
        let (posterior, ll) = e_step(log_dens, self.given, &params.joint, self.guide);
        Point {
            params,
            posterior,
            ll,
        }
    }

    /// `point` as the next iteration of the run: traced and reported.
    fn record(
        &self,
        point: &Point,
        history: &mut History,
        gauge: Gauge,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<(), FitError> {
        history.trace.push(point.ll);
        let iteration = history.trace.len();
        let max_iterations = self.iterations.max_iter;
        step(
            progress,
            Progress {
                stage: "EM",
                iteration,
                max_iterations,
                objective: point.ll,
                fraction: gauge.start + gauge.span * iteration as f64 / max_iterations as f64,
            },
        )
    }

    /// The E-step of an M-step's parameters as the next iteration; a
    /// log-likelihood that is not finite ends the run with an error.
    fn evaluate(
        &self,
        params: Params,
        history: &mut History,
        gauge: Gauge,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Point, FitError> {
        let point = self.e_step(params);
        if !point.ll.is_finite() {
            return Err(FitError::Numerical(format!(
                "the log-likelihood became {} at iteration {}; \
                 try --cov diag or a larger --shrinkage",
                point.ll,
                history.trace.len() + 1
            )));
        }
        self.record(&point, history, gauge, progress)?;
        Ok(point)
    }

    /// EM from the class weights `start` (n x K), accelerated by SQUAREM
    /// (Varadhan & Roland 2008): on overlapping classes the flips are much
    /// of the missing information and EM's linear rate is slow (about 22
    /// iterations at 100k rows, d = 20, K = 5). From the point `t0` two
    /// plain steps give `t1` and `t2`; the extrapolated point is kept only
    /// when it is a valid model (see [`Params::with_flat`]) whose
    /// log-likelihood is at least `t1`'s, else the run goes on from `t2`,
    /// so the trace is that of a monotone EM. Convergence is judged on a
    /// plain step, as without acceleration.
    fn run(
        &self,
        start: &DMatrix<f64>,
        gauge: Gauge,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Run, FitError> {
        let first = Params {
            components: self.estimate(start)?,
            joint: self.starting_joint(start),
            held: false,
        };
        self.run_from(first, gauge, progress)
    }

    /// [`Problem::run`] from the parameters `first` instead of a start's
    /// weights: how the fit on a subsample is continued on every row.
    fn run_from(
        &self,
        first: Params,
        gauge: Gauge,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Run, FitError> {
        let opts = self.iterations;
        let mut history = History::default();
        let mut squarem = Squarem::default();
        let mut t0 = self.evaluate(first, &mut history, gauge, progress)?;
        loop {
            if history.trace.len() >= opts.max_iter {
                return Ok(t0.into_run(history, false));
            }
            // Only the parameters and log-likelihood of t0 and t1 are
            // extrapolated from: each posterior (n x K) goes as soon as its
            // M-step is done, so no more of them are alive than in plain EM.
            let t1 = self.m_step(&t0.posterior)?;
            let Point {
                params: p0, ll: l0, ..
            } = t0;
            let t1 = self.evaluate(t1, &mut history, gauge, progress)?;
            let converged = relative_change(l0, t1.ll) < opts.tol;
            if converged || history.trace.len() >= opts.max_iter {
                return Ok(t1.into_run(history, converged));
            }
            let t2 = self.m_step(&t1.posterior)?;
            let Point {
                params: p1, ll: l1, ..
            } = t1;
            let jump = self
                .accelerate
                .then(|| self.extrapolate(&mut squarem, [&p0, &p1, &t2], l1))
                .flatten();
            t0 = match jump {
                Some(point) => {
                    self.record(&point, &mut history, gauge, progress)?;
                    point
                }
                None => self.evaluate(t2, &mut history, gauge, progress)?,
            };
        }
    }

    /// SQUAREM's point from `t0`, `t1 = F(t0)` and `t2 = F(t1)` with its
    /// E-step, or `None` when there is no longer step than `t2`, the point
    /// is not a valid model or it lowers the log-likelihood below `t1`'s
    /// (`l1`).
    /// A refused point shortens the step bound on either failure, as in the
    /// reference implementation: both say the map is not as linear along
    /// this path as the step length assumed.
    fn extrapolate(
        &self,
        squarem: &mut Squarem,
        [t0, t1, t2]: [&Params; 3],
        l1: f64,
    ) -> Option<Point> {
        let (flat, a) = squarem.extrapolate(&t0.to_flat(), &t1.to_flat(), &t2.to_flat())?;
        if a <= 1.0 {
            return None;
        }
        let jumped = t2
            .with_flat(&flat)
            .map(|params| self.e_step(params))
            .filter(|point| point.ll.is_finite() && point.ll >= l1);
        if jumped.is_none() {
            squarem.rejected(a);
        }
        jumped
    }

    /// The starting table of a start's weights: their expected counts mixed
    /// with a uniform spread of `INITIAL_FLIP_MASS`, so that the one-hot
    /// start of the given labels keeps `1 - INITIAL_FLIP_MASS` on the
    /// diagonal and no flip starts impossible.
    fn starting_joint(&self, weights: &DMatrix<f64>) -> DMatrix<f64> {
        let k = weights.ncols();
        let n = self.given.len() as f64;
        let mut counts = DMatrix::<f64>::zeros(k, k);
        for (i, &g) in self.given.iter().enumerate() {
            for c in 0..k {
                counts[(g, c)] += weights[(i, c)];
            }
        }
        let off = INITIAL_FLIP_MASS / (k - 1) as f64;
        DMatrix::from_fn(k, k, |j, c| {
            let row = counts.row(j).sum();
            let share = counts[(j, c)] / row;
            (row / n) * ((1.0 - INITIAL_FLIP_MASS) * share + off * (1.0 - share))
        })
    }
}

/// The label-free reading of NDA on the given labels: `P(k | x)` from class
/// Gaussians and label frequencies. Where the features contradict a label it
/// already leans to another class, so it starts the EM nearer the clean
/// classes than the given labels do.
fn nda_posterior(components: &GaussianComponents, z: Scaled<'_>, p_given: &[f64]) -> DMatrix<f64> {
    let mut w = components.log_densities_scaled(z);
    for (c, p) in p_given.iter().enumerate() {
        w.column_mut(c).add_scalar_mut(p.ln());
    }
    normalise_log_rows(&mut w);
    w
}

/// The given labels with a share of the undecided rows moved to a random
/// other class, one-hot. Each row's coin is its own ([`keyed_uniform`] of
/// its key and the `draw`), so a row moves or not wherever it sits.
fn perturbed(labels: &[usize], guide: &Guide, k: usize, keys: &[u64], draw: u64) -> DMatrix<f64> {
    let moved: Vec<usize> = labels
        .iter()
        .enumerate()
        .map(|(i, &g)| {
            let coin = keyed_uniform(keys[i], draw.wrapping_mul(2));
            if guide.trusted(i).is_none() && coin <= PERTURBED_SHARE {
                // A uniform in (0, 1] times k - 1, rounded up: a step of 1 to
                // k - 1 classes, each as likely.
                let other = keyed_uniform(keys[i], draw.wrapping_mul(2) | 1) * (k - 1) as f64;
                (g + other.ceil() as usize) % k
            } else {
                g
            }
        })
        .collect();
    one_hot(&moved, k)
}

/// The starts of one fit (see the module comment), built one at a time as
/// the fit asks for them: a warm start alone when there is one (it is
/// already a converged fit's basin), else the decided labels, NDA's
/// label-free posterior and the seeded perturbations. Every start has the
/// decided rows pinned. Lazily, because the first start is usually kept:
/// building the others up front cost a whole NDA pass and three n x K
/// matrices (120 MB at a million rows, 5 classes) that were then dropped.
struct Starts<'a> {
    problem: &'a Problem<'a>,
    k: usize,
    p_given: &'a [f64],
    /// The decided labels; `None` for a warm start.
    labels: Option<Vec<usize>>,
    /// The rows' keys ([`row_keys`] of the raw values), made for the first
    /// perturbed start: most fits keep their first start and never need them.
    keys: Option<Vec<u64>>,
    seed: u64,
    next: usize,
}

impl<'a> Starts<'a> {
    fn new(problem: &'a Problem<'a>, k: usize, p_given: &'a [f64], seed: u64) -> Self {
        let warm = problem
            .guide
            .warm_posterior(problem.given.len(), k)
            .is_some();
        Starts {
            problem,
            k,
            p_given,
            labels: (!warm).then(|| problem.guide.decided_labels(problem.given)),
            keys: None,
            seed,
            next: 0,
        }
    }

    fn count(&self) -> usize {
        if self.labels.is_some() {
            2 + PERTURBED_STARTS
        } else {
            1
        }
    }

    /// The next start, `None` after the last.
    fn next_start(&mut self) -> Option<Result<DMatrix<f64>, FitError>> {
        let s = self.next;
        if s >= self.count() {
            return None;
        }
        self.next += 1;
        let (problem, k, guide) = (self.problem, self.k, self.problem.guide);
        let Some(labels) = &self.labels else {
            let mut w = guide.warm_posterior(problem.given.len(), k)?.clone();
            guide.pin(&mut w);
            return Some(Ok(w));
        };
        Some(match s {
            0 => Ok(one_hot(labels, k)),
            1 => problem.estimate(&one_hot(labels, k)).map(|components| {
                let mut nda = nda_posterior(&components, problem.z, self.p_given);
                guide.pin(&mut nda);
                nda
            }),
            _ => {
                let (x, seed) = (problem.z.x, self.seed);
                let keys = self
                    .keys
                    .get_or_insert_with(|| row_keys(x.as_slice(), x.nrows(), seed));
                let draw = seed ^ 0x726e_6461_7374_6172 ^ s as u64;
                Ok(perturbed(labels, guide, k, keys, draw))
            }
        })
    }
}

/// Runs the starts in order and keeps the first one's fit when it is
/// admissible (table dominant without being held): the given labels name the
/// classes, and on a table whose likelihood is dominated by the features
/// (digits: 64 features, full covariances) a start that wanders from them
/// can reach a higher likelihood with clusters that are not the classes.
/// Otherwise the best log-likelihood among the admissible runs of the other
/// starts, else among all. Returns the kept run, the starts run and how many
/// were admissible.
fn best_run(
    problem: &Problem<'_>,
    starts: &mut Starts<'_>,
    gauge: Gauge,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<(Run, usize, usize), FitError> {
    let mut kept: Option<Run> = None;
    let (mut tried, mut admissible) = (0, 0);
    let count = starts.count();
    while let Some(start) = starts.next_start() {
        let start = start?;
        let s = tried;
        tried += 1;
        let run = match problem.run(&start, gauge.part(s, count), progress) {
            Ok(run) => run,
            // A start that empties a class is no fit; another start may be.
            Err(FitError::Numerical(_)) if s > 0 => continue,
            Err(e) => return Err(e),
        };
        admissible += usize::from(!run.held);
        if s == 0 && !run.held {
            return Ok((run, tried, admissible));
        }
        let ll = |r: &Run| r.trace.last().copied().unwrap_or(f64::NEG_INFINITY);
        let better = kept
            .as_ref()
            .is_none_or(|b| (b.held && !run.held) || (b.held == run.held && ll(&run) > ll(b)));
        if better {
            kept = Some(run);
        }
    }
    let kept =
        kept.ok_or_else(|| FitError::Numerical("no start of the EM could be fitted".into()))?;
    Ok((kept, tried, admissible))
}

impl Rnda {
    /// When and how much of a table of `d` columns and `k` classes the
    /// starts run on (see [`subsample`]): a class's Gaussian and its row
    /// of the flip table.
    fn plan(&self, d: usize, k: usize) -> subsample::Plan {
        let per_class = subsample::gaussian_params(self.covariance.family, d, k) + k - 1;
        subsample::Plan::gaussian(per_class, subsample::ROWS_PER_PARAMETER)
    }

    /// The kept run of the starts (see [`best_run`]), how many were tried
    /// and admissible, and a note when a subsample was used. On a table
    /// large enough (see [`subsample`]) the starts run on a stratified
    /// subsample, whose kept fit is then continued on every row to the
    /// usual convergence test; a warm start is already near the full-data
    /// optimum, so it is never moved to the subsample's.
    fn fit_starts(
        &self,
        problem: &Problem<'_>,
        p_given: &[f64],
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<(Run, usize, usize, Option<String>), FitError> {
        let (k, d) = (p_given.len(), problem.z.ncols());
        let rows = match problem.guide.warm {
            Some(_) => None,
            None => subsample::stratified_by(problem.given, k, &self.plan(d, k), || {
                row_keys(problem.z.x.as_slice(), problem.z.x.nrows(), self.seed)
            }),
        };
        let Some(rows) = rows else {
            let mut starts = Starts::new(problem, k, p_given, self.seed);
            let (run, tried, admissible) = best_run(problem, &mut starts, Gauge::WHOLE, progress)?;
            return Ok((run, tried, admissible, None));
        };
        let sub = subsample::Sub::gather(&rows, problem.z.x, problem.given, problem.guide);
        let sub_problem = Problem {
            z: Scaled {
                x: &sub.x,
                by: problem.z.by,
            },
            given: &sub.given,
            guide: &sub.guide,
            ..*problem
        };
        let mut starts = Starts::new(&sub_problem, k, p_given, self.seed);
        let halves = |i| Gauge::WHOLE.part(i, 2);
        let (sub_run, tried, admissible) =
            best_run(&sub_problem, &mut starts, halves(0), progress)?;
        let note = format!(
            "EM ran {} iteration(s) on a stratified subsample of {} rows first, then continued \
             on all {} rows to convergence",
            sub_run.iterations,
            rows.len(),
            problem.given.len()
        );
        let first = Params {
            components: sub_run.components,
            joint: sub_run.joint,
            held: sub_run.held,
        };
        let run = problem.run_from(first, halves(1), progress)?;
        Ok((run, tried, admissible, Some(note)))
    }
}

impl RobustModel for Rnda {
    fn name(&self) -> &'static str {
        "rnda"
    }

    fn fit_guided(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        let prologue = Prologue::new(x, given, n_classes, true, Scaling::PerFeature)?;
        guide.check(given.len(), n_classes)?;
        self.covariance.require_estimable("rnda", "--cov diag", x)?;
        let k = n_classes;
        let p_given = prologue.label_frequencies();
        let Prologue { standardizer, .. } = prologue;
        let problem = Problem {
            z: Scaled {
                x,
                by: Some(&standardizer),
            },
            given,
            guide,
            covariance: self.covariance,
            iterations: self.iterations,
            accelerate: true,
        };
        let (run, tried, admissible, sub_note) = self.fit_starts(&problem, &p_given, progress)?;
        let mut fit = Fit::from_posterior(run.posterior, given);
        fit.flips_unidentified = run.held;
        if tried > 1 || run.held {
            fit.extra
                .notes
                .push(start_note(tried, admissible, run.held));
        }
        fit.extra.notes.extend(sub_note);
        fit.trace = run.trace;
        fit.converged = run.converged;
        fit.iterations = run.iterations;
        report_tables(&mut fit, &run.joint);
        // Prediction prior of eq. (8): P(true = k) = sum_j gamma_jk P(given = j).
        let log_prior: Vec<f64> = (0..k).map(|c| run.joint.column(c).sum().ln()).collect();
        GaussianClassifier {
            standardizer,
            components: run.components,
            log_prior,
        }
        .attach_to(&mut fit);
        Ok(fit)
    }
}

/// Why there were restarts (the first start needed the constraint), how many
/// were admissible, and whether the kept one needed the constraint too.
fn start_note(starts: usize, admissible: usize, held: bool) -> String {
    let kept = if held {
        "none was, so the flip table was held diagonally dominant: without the constraint a \
         true class would be given another label more often than its own (the same data as \
         swapped class names)"
    } else {
        "the best of those is kept"
    };
    format!(
        "EM from {starts} start(s), as the first needed the constraint; {admissible} reached a \
         diagonally dominant flip table without it; {kept}"
    )
}

/// The name of the flip table in the paper's orientation, P(true | given).
pub const PAPER_TABLE: &str = "gamma (paper orientation)";

/// The flip table as P(given | true) and in the paper's orientation, and the
/// log-likelihood.
fn report_tables(fit: &mut Fit, joint: &DMatrix<f64>) {
    let k = joint.nrows();
    let p_true: Vec<f64> = (0..k).map(|c| joint.column(c).sum()).collect();
    fit.gamma = Some(GammaTable {
        p_given_true: DMatrix::from_fn(k, k, |c, j| joint[(j, c)] / p_true[c]),
    });
    let gamma = DMatrix::from_fn(k, k, |j, c| joint[(j, c)] / joint.row(j).sum());
    let labels: Vec<String> = (0..k).map(class_name).collect();
    fit.extra.matrices.push(NamedMatrix {
        name: PAPER_TABLE.into(),
        orientation: "rows = given label, columns = true class, entry = P(true | given) (eq. 7)"
            .into(),
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
