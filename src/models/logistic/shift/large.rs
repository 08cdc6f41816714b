//! Large tables (issue 11): lambda is chosen by cross-validation on a
//! stratified subsample, then theta and the shifts are fitted on every row
//! at that lambda alone.
//!
//! The shift penalty lambda is a threshold on each sample's own loss
//! gradient (a shift is non-zero exactly when the norm of the gradient at
//! zero shift exceeds it), so its scale does not grow with the rows: more
//! rows only estimate theta more precisely. The choice needs the rows that
//! estimate theta well, about [`ROWS_PER_PARAMETER`] per coefficient, not
//! the whole table; every row then enters through the final fit, which
//! starts from the subsample's theta at the chosen lambda (closer to the
//! full-data answer than the previous point of a full-data path would be).
//!
//! The theta penalty is the subsample's too: eq. 7's kappa = N / sum|w|
//! depends on the weights, which the subsample estimates to within their
//! sampling error (5.67 on gauss 10k, 5.73-5.77 on its 160k-row folds of
//! gauss 200k), and weighs O(1) against a loss summed over all rows, so
//! its search on every row (18 s at 160k) would change nothing measurable.
//!
//! The full-data path above the chosen point served only to rank the
//! samples by the lambda at which their shift entered. At the chosen theta
//! that lambda is each sample's threshold itself, which orders the samples
//! the same way the walk would up to the drift of theta along the path,
//! and more finely than the path's grid; the fit reports it as the entry.

use nalgebra::DMatrix;

use super::{
    GROUP_TOL, PathInput, PathPoint, PathRun, ShiftLr, Walked, best_cv_point, rank_by_entry,
    shift_thresholds,
};
use crate::models::gaussian::subsample;
use crate::models::logistic::l1_logistic::{self, Coefs, Design, Penalty};
use crate::models::numerics::{one_hot, sigmoid};
use crate::models::{Control, FitError, Progress};
use crate::rng::row_keys;

/// Rows of the subsample per coefficient of theta (K x (p + 1) of them;
/// the rarest class gets this many per coefficient of its own p + 1): the
/// Gaussian models' 50, at which each coefficient's standard error is
/// about 1/7 of its own scale. A training fold then holds 40 rows per
/// coefficient, so the sampling error of theta moves a sample's linear
/// predictor by about sqrt(1/40) = 0.16 (the mean leverage is
/// coefficients / rows), against thresholds of 0.2-1 that the path lowers
/// by 15% a point: the held-out accuracy, flat over several points around
/// its peak, picks among the same points as the whole table's folds
/// (gauss 10k: the 13th point of 30 on 5250 rows, the 11th on all 10k,
/// AUROC 0.99634 and 0.99630).
pub const ROWS_PER_PARAMETER: usize = subsample::ROWS_PER_PARAMETER;

/// Largest share of the rows lambda is chosen on. Unlike the Gaussian
/// models' EM detour ([`subsample::MAX_SHARE`]), which only shortens the
/// path to the full-data answer, a lambda chosen on a subsample is the
/// answer, so the share stays at a quarter, where the search costs a
/// quarter of what it would on every row and the answer still moves little.
pub const MAX_SHARE: f64 = 0.25;

/// When a table is large enough for lambda to be chosen on a subsample.
#[derive(Clone, Debug)]
pub struct LargeTables {
    /// Fewest rows (the Gaussian models' [`subsample::MIN_ROWS`]: below
    /// it the whole fit takes seconds, and is left exactly as it was).
    pub min_rows: usize,
    pub rows_per_parameter: usize,
    /// Largest share of the rows ([`MAX_SHARE`]): a subsample
    /// nearer the whole table saves little and only moves the answer.
    pub max_share: f64,
}

impl Default for LargeTables {
    fn default() -> Self {
        Self {
            min_rows: subsample::MIN_ROWS,
            rows_per_parameter: ROWS_PER_PARAMETER,
            max_share: MAX_SHARE,
        }
    }
}

impl ShiftLr {
    /// The subsample's rows and the folds, when lambda is chosen by
    /// cross-validation on a table large enough (see [`LargeTables`]).
    pub(super) fn cv_subsample(&self, input: &PathInput<'_>) -> Option<(Vec<usize>, usize)> {
        let (plan, folds) = self.large_plan(input.x.ncols(), input.labels, input.k)?;
        let rows = subsample::stratified_by(input.labels, input.k, &plan, || {
            row_keys(input.x.as_slice(), input.x.nrows(), self.seed)
        })?;
        Some((rows, folds))
    }

    /// How the subsample of a table of `d` columns and `labels` in `k`
    /// classes would be drawn, and the folds lambda is cross-validated on
    /// there; `None` when lambda is not cross-validated or a fold could not
    /// hold a row per coefficient. Whether the table is large enough is the
    /// plan's to say (see [`LargeTables`]).
    pub(super) fn large_plan(
        &self,
        d: usize,
        labels: &[usize],
        k: usize,
    ) -> Option<(subsample::Plan, usize)> {
        let folds = self.cv_folds(labels, k)?;
        // A class's logit: a weight per feature and an intercept.
        let per_class = d + 1;
        if self.large.rows_per_parameter * per_class < folds {
            return None;
        }
        let plan = subsample::Plan {
            params_per_class: per_class,
            rows_per_parameter: self.large.rows_per_parameter,
            min_rows: self.large.min_rows,
            max_share: self.large.max_share,
        };
        Some((plan, folds))
    }

    /// Lambda by `folds`-fold cross-validation on the subsample `rows`,
    /// then theta and the shifts on every row at that lambda, from the
    /// subsample's fit there.
    pub(super) fn fit_large(
        &self,
        input: &PathInput<'_>,
        rows: &[usize],
        folds: usize,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<(PathPoint, Walked), FitError> {
        let (xs, labels, frozen) = input.subset(rows);
        let sub = PathInput {
            x: &xs,
            scaling: input.scaling,
            labels: &labels,
            frozen: &frozen,
            k: input.k,
        };
        // The subsample's cross-validation is the first half of the gauge,
        // its path to the chosen point and the solve on every row the rest.
        let steps = self.path_length;
        let score = self.cv_scores(&sub, folds, steps, &mut |point, accuracy| {
            progress(Progress {
                stage: "cross-validation",
                iteration: point,
                max_iterations: steps,
                objective: accuracy,
                fraction: 0.5 * point as f64 / steps as f64,
            })
        })?;
        let (chosen, best) = best_cv_point(&score);
        let mut report = |iteration: usize, lambda: f64| {
            let stop = progress(Progress {
                stage: "lambda path",
                iteration,
                max_iterations: chosen + 2,
                objective: lambda,
                fraction: 0.5 + 0.5 * iteration as f64 / (chosen + 2) as f64,
            });
            match stop {
                Control::Stop => Err(FitError::Cancelled),
                Control::Continue => Ok(()),
            }
        };
        // The subsample's own path down to the chosen point: its lambdas
        // are the ones cross-validation scored, and its theta there (with
        // each row's shift at its optimum for it) starts the fit on every
        // row.
        let mut run = PathRun::new(self, &sub);
        let mut lambdas = Vec::with_capacity(chosen + 1);
        for step in 0..=chosen {
            lambdas.push(run.advance());
            report(step + 1, lambdas[step])?;
        }
        let lambda = lambdas[chosen];
        let mut full = PathRun::warm(input, run.pen, run.theta, run.max_rounds);
        full.seed_binary_shifts(lambda);
        let mut on_round = |_| match report(chosen + 1, lambda) {
            Ok(()) => Control::Continue,
            Err(_) => Control::Stop,
        };
        let settled = full.solve_watched(lambda, GROUP_TOL, &mut on_round)?;
        report(chosen + 2, lambda)?;
        let probs =
            l1_logistic::probabilities(&l1_logistic::linear(&full.problem(), &full.theta), input.k);
        let thresholds = shift_thresholds(input, &probs);
        let series = lambdas
            .iter()
            .map(|&l| (l, thresholds.iter().filter(|t| **t > l).count() as f64))
            .collect();
        let m = rows.len();
        let walked = Walked {
            entries: rank_by_entry(thresholds),
            series,
            why: format!(
                "lambda chosen by {folds}-fold cross-validation on a stratified subsample of \
                 {m} rows (accuracy {:.3}), then fitted on all {} rows",
                best / m as f64,
                input.labels.len()
            ),
            settled,
        };
        let point = PathPoint {
            lambda,
            theta: full.theta,
            shifts: full.shifts,
        };
        Ok((point, walked))
    }
}

impl<'a> PathRun<'a> {
    /// A run on `input` at theta `theta` and penalty `pen` found elsewhere
    /// (the subsample's), all shifts zero; it walks no path of its own.
    fn warm(input: &PathInput<'a>, pen: Penalty, theta: Coefs, max_rounds: usize) -> Self {
        let c = if input.k == 2 { 1 } else { input.k };
        Self {
            z: Design::standardized(input.x, input.scaling),
            targets: one_hot(input.labels, input.k),
            labels: input.labels,
            frozen: input.frozen,
            k: input.k,
            pen,
            lambda_max: f64::NAN,
            steps: 0,
            step: 0,
            theta,
            shifts: DMatrix::zeros(input.labels.len(), c),
            max_rounds,
            choice: None,
        }
    }

    /// Each free row's binary shift at its optimum for the current theta
    /// and `lambda`: zero when its threshold (|1 - P(given | x)|) is within
    /// lambda, else the shift that brings P(given | x) to 1 - lambda.
    ///
    /// The binary solver moves theta and the shifts by coordinates. From
    /// zero shifts at a small lambda every row's shift moved at once and
    /// absorbed the labels before theta could: on 2000 rows at lambda 0.01
    /// all 2000 shifts ended non-zero with 1400-1750 p_mislabel at exactly
    /// 0 (AUROC 0.70-0.96 over eight fold seeds), where the path at that
    /// lambda has 830 shifts (AUROC 0.992); on 100k rows the solve took
    /// 35-40 s. Started here, at the subsample's theta, it ends where the
    /// path does. K > 2 needs no seed: its alternation starts with this
    /// very step.
    fn seed_binary_shifts(&mut self, lambda: f64) {
        if self.k > 2 {
            return;
        }
        let lin = l1_logistic::linear(&self.problem(), &self.theta);
        // ln((1 - lambda) / lambda): the logit of P(given | x) = 1 - lambda.
        let target = (1.0 - lambda).ln() - lambda.ln();
        for (i, &label) in self.labels.iter().enumerate() {
            let eta = lin[(i, 0)];
            let p1 = sigmoid(eta);
            let (gap, wanted) = if label == 1 {
                (1.0 - p1, target)
            } else {
                (p1, -target)
            };
            let frozen = self.frozen.get(i).copied().unwrap_or(false);
            self.shifts[(i, 0)] = if frozen || gap <= lambda {
                0.0
            } else {
                wanted - eta
            };
        }
    }
}
