//! Label-noise-aware models behind one contract (DESIGN §2).
//!
//! Every model takes a feature matrix (n x p, rows = samples), the *given*
//! label index of every row and the number of classes, and returns a [`Fit`]:
//! the posterior over the true class, the probability that the given label is
//! wrong, the suggested label and the model's noise estimate. Models never do
//! file I/O; the `dataset` module turns tables into matrices first.

use std::fmt;
use std::sync::Arc;

use nalgebra::DMatrix;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

pub mod discrete;
pub mod ensemble;
pub mod gaussian;
pub mod guide;
pub mod logistic;
pub mod numerics;
pub mod options;
pub mod probs;
pub mod prologue;
pub mod registry;
pub mod report;
pub mod squarem;
pub mod standardize;

pub use guide::Guide;
pub use options::{CovarianceFamily, ModelOptions};
pub use prologue::check_inputs;
pub use registry::{
    AUTO, AUTO_INFO, DataShape, MAX_DISCRETE_LEVELS, MODELS, ModelInfo, build_model,
    is_discrete_column,
};
pub use report::{
    CandidateScore, ColumnDisplay, HeldOutSkill, MatrixDisplay, ModelReport, NamedMatrix,
    NamedSeries, SampleColumn, Selection, Verdict, WrongLabelCount,
};

/// What a model reports once per iteration (at least) while it fits.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Short name of the current phase, e.g. "EM" or "lambda path".
    pub stage: &'static str,
    /// 1-based iteration within the stage.
    pub iteration: usize,
    /// Upper bound on iterations for the stage (for the gauge).
    pub max_iterations: usize,
    /// Current value of the objective (the quantity in `Fit::trace`).
    pub objective: f64,
    /// Overall completion in [0, 1], best effort.
    pub fraction: f64,
}

/// The answer of a progress callback: go on, or stop the fit promptly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Continue,
    Stop,
}

/// Errors a fit can end with. Messages are written for the curator and say
/// what to do.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum FitError {
    #[error("the fit was cancelled")]
    Cancelled,
    #[error("{0}")]
    InvalidInput(String),
    /// The model cannot be used on this data (e.g. CBT on continuous data
    /// without quantisation); the message says which model to use instead.
    #[error("{0}")]
    NotApplicable(String),
    #[error("numerical problem: {0}")]
    Numerical(String),
    #[error("unknown model '{0}': choose one of {1}")]
    UnknownModel(String, String),
    #[error("invalid option: {0}")]
    InvalidOption(String),
}

impl FitError {
    /// Whether this model could not fit these rows (it refused them, or its
    /// numerics failed on them), so that another model may still: auto then
    /// goes on without it. A cancel, or an option or model the user got
    /// wrong, is never such a failure.
    pub fn is_the_models_own(&self) -> bool {
        matches!(
            self,
            FitError::Numerical(_) | FitError::NotApplicable(_) | FitError::InvalidInput(_)
        )
    }
}

/// The label-flip table in the orientation the whole program uses:
/// `p_given_true[(k, j)] = P(given label = j | true class = k)`.
/// Rows are true classes, columns are given labels; every row sums to one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GammaTable {
    pub p_given_true: DMatrix<f64>,
}

impl GammaTable {
    /// Human-readable orientation, written into reports and the UI.
    pub const ORIENTATION: &'static str =
        "rows = true class, columns = given label, entry = P(given | true)";

    pub fn identity(k: usize) -> Self {
        Self {
            p_given_true: DMatrix::identity(k, k),
        }
    }

    pub fn n_classes(&self) -> usize {
        self.p_given_true.nrows()
    }

    /// `P(given = j | true = k)`.
    pub fn p_given_true(&self, true_class: usize, given: usize) -> f64 {
        self.p_given_true[(true_class, given)]
    }

    /// Converts a table oriented the other way, `p_true_given[(j, k)] =
    /// P(true = k | given = j)` (rNDA's gamma, eq. 7 of Bootkrajang & Kabán
    /// 2011), using the marginal of the given labels `P(given = j)`, by Bayes:
    /// `P(given = j | true = k) = P(true = k | given = j) P(given = j) /
    /// sum_j' P(true = k | given = j') P(given = j')`.
    /// A true class with no mass at all gets an identity row, since nothing
    /// was learned about how it flips.
    pub fn from_p_true_given(p_true_given: &DMatrix<f64>, p_given: &[f64]) -> Self {
        let k = p_true_given.nrows();
        let mut out = DMatrix::zeros(k, k);
        for true_class in 0..k {
            let total: f64 = (0..k)
                .map(|j| p_true_given[(j, true_class)] * p_given[j])
                .sum();
            for given in 0..k {
                out[(true_class, given)] = if total > 0.0 {
                    p_true_given[(given, true_class)] * p_given[given] / total
                } else if given == true_class {
                    1.0
                } else {
                    0.0
                };
            }
        }
        Self { p_given_true: out }
    }

    /// The opposite orientation, `P(true = k | given = j)` at `[(j, k)]`,
    /// given the prior of true classes `P(true = k)`.
    pub fn to_p_true_given(&self, p_true: &[f64]) -> DMatrix<f64> {
        let k = self.n_classes();
        let mut out = DMatrix::zeros(k, k);
        for given in 0..k {
            let total: f64 = (0..k)
                .map(|t| self.p_given_true[(t, given)] * p_true[t])
                .sum();
            for t in 0..k {
                out[(given, t)] = if total > 0.0 {
                    self.p_given_true[(t, given)] * p_true[t] / total
                } else if given == t {
                    1.0
                } else {
                    0.0
                };
            }
        }
        out
    }
}

/// A fitted classifier for new rows (test-set accuracy, `scan --predict`).
pub trait Classifier: Send + Sync + fmt::Debug {
    /// Class probabilities P(true class = k | x), one row per row of `x`.
    fn predict_proba(&self, x: &DMatrix<f64>) -> DMatrix<f64>;
}

/// The result of a fit (DESIGN §2).
#[derive(Clone, Debug)]
pub struct Fit {
    /// n x K: P(true class = k | x_i, given label).
    pub posterior: DMatrix<f64>,
    /// 1 - posterior[i, given_i].
    pub p_mislabel: Vec<f64>,
    /// argmax of each posterior row.
    pub suggested: Vec<usize>,
    /// K x K flip table, rows = true class, columns = given label.
    pub gamma: Option<GammaTable>,
    /// Per-sample shift parameters, n x (K or 1).
    pub shifts: Option<DMatrix<f64>>,
    pub extra: ModelReport,
    /// Objective per iteration (log-likelihood or penalised objective).
    pub trace: Vec<f64>,
    pub converged: bool,
    pub iterations: usize,
    /// What one of `iterations` counts, as [`Fit::convergence`] says it:
    /// an iteration of EM or of a search for most models, a point of the
    /// lambda path for shift (whose solve at each point runs rounds of its
    /// own).
    pub iteration_unit: &'static str,
    /// Present when the model can classify new rows.
    pub classifier: Option<Arc<dyn Classifier>>,
    /// The model's own order of suspicion, used to break ties in
    /// `p_mislabel` (e.g. shift-LR's entry order). Lower = more suspicious.
    pub suspicion_rank: Option<Vec<usize>>,
    /// The fit tells samples apart by their given label alone: its
    /// classifier gives every sample the same P(true | x) (rlr when eq. 7
    /// kept no feature), so within a label the list is row order. Said by
    /// the model, not read off the numbers: a confident fit on clean,
    /// separated classes gives every p_mislabel 0 too, and ranks well.
    pub label_only: bool,
    /// The fit's flip table is not identified by the data: EM ended on the
    /// diagonal-dominance constraint from every start (rnda), where its own
    /// optimum gives a true class another label more often than its own,
    /// the same data as the classes with their names swapped. Its split of
    /// P(given | x) into classes and flips, so its p_mislabel, is then the
    /// constraint's. The model's word, as for `label_only`.
    pub flips_unidentified: bool,
    /// A mixture's members that stopped before converging, with their
    /// iterations: the mixture's `converged` is false then, and its
    /// `iterations` are its first member's, so without them the sentence
    /// would pin one member's stop on another's count.
    pub stopped_members: Vec<(String, usize)>,
}

impl Fit {
    /// Builds the derived columns (`p_mislabel`, `suggested`) from a posterior.
    pub fn from_posterior(posterior: DMatrix<f64>, given: &[usize]) -> Self {
        let n = posterior.nrows();
        let mut fit = Self {
            posterior,
            p_mislabel: vec![0.0; given.len()],
            suggested: vec![0; n],
            gamma: None,
            shifts: None,
            extra: ModelReport::default(),
            trace: Vec::new(),
            converged: false,
            iterations: 0,
            iteration_unit: "iteration",
            classifier: None,
            suspicion_rank: None,
            label_only: false,
            flips_unidentified: false,
            stopped_members: Vec::new(),
        };
        fit.derive_from_posterior(given);
        fit
    }

    /// Recomputes the derived columns (`p_mislabel` against the *given*
    /// labels, `suggested`) after the posterior changed.
    pub fn derive_from_posterior(&mut self, given: &[usize]) {
        for (i, &g) in given.iter().enumerate() {
            self.p_mislabel[i] = (1.0 - self.posterior[(i, g)]).clamp(0.0, 1.0);
            self.suggested[i] = argmax(self.posterior.row(i).iter().copied());
        }
    }

    /// "converged after 7 iterations", "did NOT converge after 500
    /// iterations", or for a mixture "did NOT converge: cbt stopped after 8
    /// iterations": one sentence wherever a fit's convergence is shown (the
    /// status line, the model pane, the notes popup, the audit page).
    pub fn convergence(&self) -> String {
        if !self.stopped_members.is_empty() {
            let stopped: Vec<String> = self
                .stopped_members
                .iter()
                .map(|(m, n)| {
                    format!(
                        "{m} stopped after {}",
                        crate::dataset::counted(*n, "iteration")
                    )
                })
                .collect();
            return format!("did NOT converge: {}", stopped.join(", "));
        }
        format!(
            "{} after {}",
            if self.converged {
                "converged"
            } else {
                "did NOT converge"
            },
            crate::dataset::counted(self.iterations, self.iteration_unit)
        )
    }

    /// Why the sum of p_mislabel is no count of wrong labels, when it is
    /// not: the flip table behind it is the start's or the constraint's,
    /// not the data's. Every surface that counts (the status bar, scan's
    /// line and report, the audit page) says this instead.
    pub fn uncounted(&self) -> Option<&str> {
        if let Some(why) = self
            .extra
            .held_out_skill
            .as_ref()
            .and_then(|s| s.reason.as_deref())
        {
            return Some(why);
        }
        if self.label_only {
            Some(
                "the model ranks by the given label alone (its classifier kept no feature), so \
                 p_mislabel is the same within each label and its flip table is the start's",
            )
        } else if self.flips_unidentified {
            Some(
                "the model's flip table ended on the diagonal-dominance constraint, so the data \
                 did not tell its classes from the same classes with swapped names and its \
                 p_mislabel are the constraint's",
            )
        } else {
            None
        }
    }

    /// Whether `sample_gamma` says anything (a flip table or shifts); models
    /// without either, like `all` and `rmda`, give NaN for every sample.
    pub fn has_sample_gamma(&self) -> bool {
        self.shifts.is_some() || self.gamma.is_some()
    }

    /// The value shown in the `gamma` column for sample `i`: its shift when the
    /// model has shifts (the signed shift, or the group norm when K > 2), else
    /// the gamma-table entry P(given | suggested), else NaN.
    pub fn sample_gamma(&self, i: usize, given: usize) -> f64 {
        if let Some(shifts) = &self.shifts {
            if shifts.ncols() == 1 {
                return shifts[(i, 0)];
            }
            return shifts.row(i).norm();
        }
        match &self.gamma {
            Some(g) => g.p_given_true(self.suggested[i], given),
            None => f64::NAN,
        }
    }

    /// Sample indices in order of suspicion: p_mislabel descending, ties by
    /// the model's own order, then by row.
    pub fn ranking(&self) -> Vec<usize> {
        // p_mislabel descending in f64's total order (as `total_cmp`), then
        // the model's own suspicion, then the row: integer keys, every tie
        // broken, so the parallel sort gives the one answer quickly.
        let total_order = |v: f64| {
            let b = v.to_bits() as i64;
            b ^ ((((b >> 63) as u64) >> 1) as i64)
        };
        let mut keyed: Vec<(std::cmp::Reverse<i64>, usize, usize)> = (0..self.p_mislabel.len())
            .map(|i| {
                let suspicion = self.suspicion_rank.as_ref().map_or(0, |r| r[i]);
                (
                    std::cmp::Reverse(total_order(self.p_mislabel[i])),
                    suspicion,
                    i,
                )
            })
            .collect();
        keyed.par_sort_unstable();
        let order: Vec<usize> = keyed.into_iter().map(|k| k.2).collect();
        order
    }
}

/// Each sample's place in the order of `score`, largest first (ties by
/// row): a [`Fit::suspicion_rank`] from a model's own measure of doubt.
pub fn rank_descending(score: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..score.len()).collect();
    order.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
    let mut rank = vec![0; score.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    rank
}

/// Index of the largest value (first on ties); 0 for an empty iterator.
pub fn argmax(values: impl IntoIterator<Item = f64>) -> usize {
    let mut best = 0;
    let mut best_value = f64::NEG_INFINITY;
    for (i, v) in values.into_iter().enumerate() {
        if v > best_value {
            best = i;
            best_value = v;
        }
    }
    best
}

/// Which matrix a model wants from a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelInput {
    /// The feature matrix: numbers as they are, string levels as 0/1 columns.
    Features,
    /// One column per source column, string columns as level codes 0..L-1
    /// (`Dataset::source_matrix`): models of discrete symbols (CBT) need a
    /// column's levels as one variable, which one-hot columns would split.
    Levels,
    /// Both, for a model that hands each of its members its own (`all`).
    Both,
}

impl ModelInput {
    /// The matrix this input means; `levels` is `None` when the table has
    /// no string columns, so that both matrices are the same.
    pub fn pick<'a>(
        self,
        features: &'a DMatrix<f64>,
        levels: Option<&'a DMatrix<f64>>,
    ) -> &'a DMatrix<f64> {
        match (self, levels) {
            (ModelInput::Levels, Some(l)) => l,
            _ => features,
        }
    }
}

/// The model contract (DESIGN §2).
pub trait RobustModel: Send {
    fn name(&self) -> &'static str;
    /// The matrix the model wants; callers holding a table use
    /// [`RobustModel::fit_inputs`] so the choice is made in one place.
    fn input(&self) -> ModelInput {
        ModelInput::Features
    }
    /// Fits on the matrix [`RobustModel::input`] asks for: `features`, or
    /// `levels` (the level-code matrix, `None` when it equals `features`),
    /// with the curator's decisions and a warm start in `guide`.
    fn fit_inputs(
        &self,
        features: &DMatrix<f64>,
        levels: Option<&DMatrix<f64>>,
        given: &[usize],
        n_classes: usize,
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        self.fit_guided(
            self.input().pick(features, levels),
            given,
            n_classes,
            guide,
            progress,
        )
    }
    /// Fits with decided samples as evidence (see [`Guide`]): a decided
    /// row's true class is known, and `p_mislabel` is still against the
    /// given label. A latent-label model pins decided rows in its own
    /// E-step; a model that trusts its labels fits on the decided labels
    /// ([`Guide::fallback`], exact for it). `progress` is called at least
    /// once per iteration; returning [`Control::Stop`] makes the fit return
    /// [`FitError::Cancelled`] within one iteration.
    fn fit_guided(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError>;
    /// Fits with nothing decided.
    fn fit(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        self.fit_guided(x, given, n_classes, &Guide::default(), progress)
    }
}

/// A progress callback that never stops (for tests and headless use).
pub fn no_progress() -> impl FnMut(Progress) -> Control {
    |_| Control::Continue
}

/// One test per invalid option value: building the model with it fails
/// with an [`FitError::InvalidOption`] whose message names the option.
#[cfg(test)]
macro_rules! rejects_option {
    ($($test:ident: $build:expr, $key:literal = $value:literal;)*) => {$(
        #[test]
        fn $test() {
            let mut options = $crate::models::ModelOptions::default();
            options.set($key, $value).unwrap();
            match ($build)(&options) {
                Err(e @ $crate::models::FitError::InvalidOption(_)) => {
                    assert!(e.to_string().contains($key), "{} = {}: {e}", $key, $value)
                }
                Err(e) => panic!("{} = {}: not an option error: {e}", $key, $value),
                Ok(_) => panic!("{} = {} was accepted", $key, $value),
            }
        }
    )*};
}
#[cfg(test)]
pub(crate) use rejects_option;

#[cfg(test)]
mod gamma_tests {
    use nalgebra::DMatrix;
    use proptest::prelude::*;

    use super::GammaTable;

    /// A K x K table with positive rows summing to one, and a positive
    /// distribution over K classes.
    fn table_and_prior() -> impl Strategy<Value = (DMatrix<f64>, Vec<f64>)> {
        (2usize..6).prop_flat_map(|k| {
            (
                prop::collection::vec(prop::collection::vec(0.01f64..1.0, k), k),
                prop::collection::vec(0.01f64..1.0, k),
            )
                .prop_map(move |(rows, prior)| {
                    let table =
                        DMatrix::from_fn(k, k, |r, c| rows[r][c] / rows[r].iter().sum::<f64>());
                    let total: f64 = prior.iter().sum();
                    (table, prior.iter().map(|p| p / total).collect())
                })
        })
    }

    fn assert_close(a: &DMatrix<f64>, b: &DMatrix<f64>) -> Result<(), TestCaseError> {
        let gap = (a - b).amax();
        prop_assert!(gap < 1e-10, "differ by {gap}:\n{a}{b}");
        Ok(())
    }

    proptest! {
        /// P(true | given) -> P(given | true) -> P(true | given), with the
        /// prior of true classes the first table implies.
        #[test]
        fn from_p_true_given_round_trips((p_true_given, p_given) in table_and_prior()) {
            let k = p_given.len();
            let table = GammaTable::from_p_true_given(&p_true_given, &p_given);
            for r in 0..k {
                prop_assert!((table.p_given_true.row(r).sum() - 1.0).abs() < 1e-10);
            }
            let p_true: Vec<f64> = (0..k)
                .map(|t| (0..k).map(|j| p_true_given[(j, t)] * p_given[j]).sum())
                .collect();
            assert_close(&table.to_p_true_given(&p_true), &p_true_given)?;
        }

        /// P(given | true) -> P(true | given) -> P(given | true), with the
        /// marginal of given labels the first table implies.
        #[test]
        fn to_p_true_given_round_trips((p_given_true, p_true) in table_and_prior()) {
            let k = p_true.len();
            let table = GammaTable { p_given_true: p_given_true.clone() };
            let p_true_given = table.to_p_true_given(&p_true);
            let p_given: Vec<f64> = (0..k)
                .map(|j| (0..k).map(|t| p_given_true[(t, j)] * p_true[t]).sum())
                .collect();
            let back = GammaTable::from_p_true_given(&p_true_given, &p_given);
            assert_close(&back.p_given_true, &p_given_true)?;
        }
    }
}
