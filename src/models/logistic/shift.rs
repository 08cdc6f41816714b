//! Logistic regression with per-sample shift parameters (Tibshirani &
//! Manning, eqs. 1-2): logit P(y_i = 1) = theta^T x_i + gamma_i, with an L1
//! penalty lambda sum |gamma_i| on the shifts and theta unpenalised or
//! penalised by kappa (L1 or L2). A large shift says the sample's label
//! disagrees with the rest of the data.
//!
//! The problem is a penalised GLM on [X | I_n] (section 3.1), solved over a
//! warm-started lambda path from lambda_max (all shifts zero) down. With two
//! classes each shift is one more coordinate of the coordinate-descent
//! solver (`l1_logistic::fit_with_shifts`): its column is a unit vector, so
//! it costs O(1) inside the same Newton rounds as theta. K > 2 classes use
//! the paper's group-lasso proposal, one group of K shifts per sample with
//! penalty lambda sum ||gamma_i||_2, which couples a sample's K logits: there
//! theta (shifts as an offset) and the group shifts (proximal steps per
//! sample) alternate until the shifts settle.
//!
//! The options are checked into [`LambdaRule`] and [`ThetaPenalty`] when the
//! model is built.

use std::sync::Arc;

use nalgebra::DMatrix;

use crate::models::logistic::bayes_lambda::bayes_lambda;
use crate::models::logistic::classifier::LogisticClassifier;
use crate::models::logistic::l1_logistic::{self, Coefs, Design, Penalty, Problem};
use crate::models::numerics::one_hot;
use crate::models::options::invalid_option;
use crate::models::prologue::{Prologue, Scaling};
use crate::models::standardize::Standardizer;
use crate::models::{
    ColumnDisplay, Control, Fit, FitError, ModelOptions, NamedSeries, Progress, RobustModel,
    SampleColumn,
};
use crate::rng::Rng;

/// The path runs from lambda_max down to this fraction of it.
const PATH_RATIO: f64 = 0.01;

/// How lambda is chosen on the path (`lambda_rule`, `noise_fraction`,
/// `cv_folds`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LambdaRule {
    /// Held-out accuracy over this many folds.
    CrossValidation { folds: usize },
    /// The most shifts not above this fraction of the samples.
    NoiseFraction(f64),
    /// Training accuracy (Tibshirani & Manning section 3.3).
    TrainingAccuracy,
}

/// Fraction of wrong labels the "noise" rule expects when
/// `noise_fraction` is unset.
const DEFAULT_NOISE_FRACTION: f64 = 0.1;

impl LambdaRule {
    pub fn checked(o: &ModelOptions) -> Result<Self, FitError> {
        if o.cv_folds < 2 {
            return Err(invalid_option("cv_folds", "at least 2", o.cv_folds));
        }
        let rule = match o.lambda_rule.as_str() {
            "cv" => Self::CrossValidation { folds: o.cv_folds },
            "noise" => Self::NoiseFraction(DEFAULT_NOISE_FRACTION),
            "accuracy" => Self::TrainingAccuracy,
            other => {
                return Err(invalid_option(
                    "lambda_rule",
                    "cv, noise or accuracy",
                    format!("\"{other}\""),
                ));
            }
        };
        // An expected noise fraction implies the "noise" rule.
        match o.noise_fraction {
            Some(f) if !(0.0..=1.0).contains(&f) => Err(invalid_option(
                "noise_fraction (--noise-fraction)",
                "between 0 and 1",
                f,
            )),
            Some(f) => Ok(Self::NoiseFraction(f)),
            None => Ok(rule),
        }
    }
}

/// The penalty on theta (`theta_penalty`, weight `kappa`; eq. 2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ThetaPenalty {
    None,
    /// `None`: kappa by the Bayesian rule of eq. 7 on the plain L1 fit.
    L1 {
        kappa: Option<f64>,
    },
    L2 {
        kappa: f64,
    },
}

impl ThetaPenalty {
    pub fn checked(o: &ModelOptions) -> Result<Self, FitError> {
        if let Some(kappa) = o.kappa
            && !(kappa.is_finite() && kappa >= 0.0)
        {
            return Err(invalid_option(
                "kappa",
                "a number >= 0 (or unset for the Bayesian rule)",
                kappa,
            ));
        }
        match o.theta_penalty.as_str() {
            "none" => Ok(Self::None),
            "l1" => Ok(Self::L1 { kappa: o.kappa }),
            "l2" => Ok(Self::L2 {
                kappa: o.kappa.unwrap_or(1.0),
            }),
            other => Err(invalid_option(
                "theta_penalty",
                "none, l1 or l2",
                format!("\"{other}\""),
            )),
        }
    }
}

#[derive(Clone, Debug)]
pub struct ShiftLr {
    rule: LambdaRule,
    theta_penalty: ThetaPenalty,
    /// Points on the lambda path.
    path_length: usize,
    /// Seeds the fold assignment of cross-validation.
    seed: u64,
}

impl ShiftLr {
    /// Reads `lambda_rule`, `noise_fraction`, `cv_folds`, `theta_penalty`,
    /// `kappa`, `path_length` and `seed`.
    pub fn new(options: &ModelOptions) -> Result<Self, FitError> {
        if options.path_length < 2 {
            return Err(invalid_option(
                "path_length",
                "at least 2",
                options.path_length,
            ));
        }
        Ok(Self {
            rule: LambdaRule::checked(options)?,
            theta_penalty: ThetaPenalty::checked(options)?,
            path_length: options.path_length,
            seed: options.seed,
        })
    }

    /// The theta penalty for (x, given): kappa as set, or by eq. 7.
    fn theta_penalty(&self, z: Design<'_>, targets: &DMatrix<f64>) -> Penalty {
        let bayes_kappa = || {
            let p = Problem {
                x: z,
                targets,
                offset: None,
                penalty_factor: None,
            };
            let lambda_max = l1_logistic::lambda_max(&p);
            let start = Coefs::zeros(z.ncols(), p.n_logits());
            bayes_lambda(&p, lambda_max, None, &start).lambda
        };
        match self.theta_penalty {
            ThetaPenalty::L1 { kappa } => Penalty {
                l1: kappa.unwrap_or_else(bayes_kappa),
                l2: 0.0,
            },
            ThetaPenalty::L2 { kappa } => Penalty { l1: 0.0, l2: kappa },
            ThetaPenalty::None => Penalty { l1: 0.0, l2: 0.0 },
        }
    }
}

/// Per-sample scratch of the group-shift update.
struct GroupBuffers {
    s: Vec<f64>,
    y: Vec<f64>,
    p: Vec<f64>,
    u: Vec<f64>,
}

impl GroupBuffers {
    fn new(k: usize) -> Self {
        Self {
            s: vec![0.0; k],
            y: vec![0.0; k],
            p: vec![0.0; k],
            u: vec![0.0; k],
        }
    }
}

/// The best group shifts (K > 2) for fixed linear predictors `eta` (n x K):
/// penalty lambda ||gamma_i||_2 per sample.
fn update_group_shifts(
    eta: &DMatrix<f64>,
    given: &[usize],
    lambda: f64,
    shifts: &mut DMatrix<f64>,
) {
    let k = eta.ncols();
    let mut buf = GroupBuffers::new(k);
    for (i, &g) in given.iter().enumerate() {
        // Group lasso: accelerated proximal gradient (FISTA) on this
        // sample's K shifts, step 1/L with L = 1/2 the largest
        // curvature of the softmax loss; plain step-1 iterations took
        // ~130 steps per sample per round. Buffers are reused and the
        // softmax taken directly (no log): this loop is most of a
        // K > 2 fit.
        const STEP: f64 = 2.0;
        for c in 0..k {
            buf.s[c] = shifts[(i, c)];
            buf.y[c] = buf.s[c];
        }
        let mut t: f64 = 1.0;
        for _ in 0..200 {
            let top = (0..k)
                .map(|c| eta[(i, c)] + buf.y[c])
                .fold(f64::NEG_INFINITY, f64::max);
            let mut total = 0.0;
            for c in 0..k {
                buf.p[c] = (eta[(i, c)] + buf.y[c] - top).exp();
                total += buf.p[c];
            }
            let mut norm = 0.0;
            for c in 0..k {
                let grad = buf.p[c] / total - f64::from(u8::from(c == g));
                buf.u[c] = buf.y[c] - STEP * grad;
                norm += buf.u[c] * buf.u[c];
            }
            let norm = norm.sqrt();
            let scale = if norm > STEP * lambda {
                1.0 - STEP * lambda / norm
            } else {
                0.0
            };
            let t_next = (1.0 + (1.0 + 4.0 * t * t).sqrt()) / 2.0;
            let momentum = (t - 1.0) / t_next;
            let mut change: f64 = 0.0;
            for c in 0..k {
                let next = buf.u[c] * scale;
                change = change.max((next - buf.s[c]).abs());
                buf.y[c] = next + momentum * (next - buf.s[c]);
                buf.s[c] = next;
            }
            t = t_next;
            // Well inside GROUP_TOL, the tolerance of the rounds.
            if change < 1e-7 {
                break;
            }
        }
        for c in 0..k {
            shifts[(i, c)] = buf.s[c];
        }
    }
}

/// K > 2: rounds of (theta fit, group-shift update) per path point, and
/// the largest shift change that ends them. Shifts rank samples; a 1e-4
/// change moves no ranking, and the alternation converges linearly, so a
/// tighter tolerance cost most of a 23 s wine fit.
const MAX_GROUP_ROUNDS: usize = 30;
const GROUP_TOL: f64 = 1e-4;
/// One point of the path.
#[derive(Clone, Debug)]
struct PathPoint {
    lambda: f64,
    theta: Coefs,
    shifts: DMatrix<f64>,
}

impl PathPoint {
    fn nonzero(&self) -> Vec<bool> {
        (0..self.shifts.nrows())
            .map(|i| self.shifts.row(i).iter().any(|v| *v != 0.0))
            .collect()
    }
}

impl ShiftLr {
    /// The warm-started path on (z, given); `progress` per lambda.
    fn path(
        &self,
        x: &DMatrix<f64>,
        scaling: &Standardizer,
        given: &[usize],
        k: usize,
        progress: &mut dyn FnMut(usize, f64) -> Control,
    ) -> Result<Vec<PathPoint>, FitError> {
        let z = Design::standardized(x, scaling);
        let targets = one_hot(given, k);
        let c = if k == 2 { 1 } else { k };
        let pen = self.theta_penalty(z, &targets);
        let no_offset = Problem {
            x: z,
            targets: &targets,
            offset: None,
            penalty_factor: None,
        };
        let theta0 = l1_logistic::fit(&no_offset, pen, None, 100, 1e-10);
        let probs = l1_logistic::probabilities(&l1_logistic::linear(&no_offset, &theta0), k);
        let lambda_max = (0..given.len())
            .map(|i| {
                if k == 2 {
                    (1.0 - probs[(i, given[i])]).abs()
                } else {
                    (0..k)
                        .map(|cc| (f64::from(u8::from(cc == given[i])) - probs[(i, cc)]).powi(2))
                        .sum::<f64>()
                        .sqrt()
                }
            })
            .fold(0.0, f64::max);
        let steps = self.path_length;
        let mut theta = theta0;
        let mut shifts = DMatrix::zeros(given.len(), c);
        let mut out = Vec::with_capacity(steps);
        for step in 0..steps {
            // Just above lambda_max at the start, so the first point has no shift.
            let lambda = 1.0001 * lambda_max * PATH_RATIO.powf(step as f64 / (steps - 1) as f64);
            if k == 2 {
                theta = l1_logistic::fit_with_shifts(
                    &no_offset,
                    pen,
                    Some(&theta),
                    shifts.as_mut_slice(),
                    lambda,
                    200,
                    1e-9,
                );
            } else {
                // Group shifts couple the K logits of a sample, which the
                // per-class coordinate descent cannot: alternate instead.
                for _round in 0..MAX_GROUP_ROUNDS {
                    let before = shifts.clone();
                    let with_offset = Problem {
                        x: z,
                        targets: &targets,
                        offset: Some(&shifts),
                        penalty_factor: None,
                    };
                    theta = l1_logistic::fit(&with_offset, pen, Some(&theta), 3, 1e-8);
                    let eta = l1_logistic::linear(&no_offset, &theta);
                    update_group_shifts(&eta, given, lambda, &mut shifts);
                    if (&shifts - &before).amax() < GROUP_TOL {
                        break;
                    }
                }
            }
            if progress(step + 1, lambda) == Control::Stop {
                return Err(FitError::Cancelled);
            }
            out.push(PathPoint {
                lambda,
                theta: theta.clone(),
                shifts: shifts.clone(),
            });
        }
        Ok(out)
    }

    /// Picks a point of the path by the configured rule.
    fn choose(
        &self,
        x: &DMatrix<f64>,
        scaling: &Standardizer,
        given: &[usize],
        k: usize,
        path: &[PathPoint],
    ) -> Result<(usize, String), FitError> {
        let n = given.len();
        let z = Design::standardized(x, scaling);
        let accuracy_of = |theta: &Coefs, rows: &[usize]| -> f64 {
            let probs = l1_logistic::probabilities(&l1_logistic::linear_on(&z, theta, None), k);
            rows.iter()
                .filter(|i| crate::models::argmax(probs.row(**i).iter().copied()) == given[**i])
                .count() as f64
                / rows.len().max(1) as f64
        };
        let by_training_accuracy = || {
            let all: Vec<usize> = (0..n).collect();
            let mut best = (0, f64::NEG_INFINITY);
            for (idx, p) in path.iter().enumerate() {
                let a = accuracy_of(&p.theta, &all);
                if a > best.1 + 1e-12 {
                    best = (idx, a);
                }
            }
            best
        };
        match self.rule {
            LambdaRule::NoiseFraction(f) => {
                let cap = (f * n as f64).floor() as usize;
                // The smallest lambda whose shifts stay within the expected noise.
                let idx = path
                    .iter()
                    .rposition(|p| p.nonzero().iter().filter(|v| **v).count() <= cap)
                    .unwrap_or(0);
                Ok((
                    idx,
                    format!("lambda chosen as the most shifts within noise fraction {f}"),
                ))
            }
            LambdaRule::TrainingAccuracy => {
                let (idx, a) = by_training_accuracy();
                Ok((idx, format!("lambda chosen by training accuracy ({a:.3})")))
            }
            LambdaRule::CrossValidation { folds } if smallest_class(given, k) < folds.min(n) => {
                // A class smaller than the number of folds is missing from
                // some training split, so held-out accuracy says nothing
                // about it (and K paths per fold cost minutes for 100 tiny
                // classes): the paper's own training-accuracy rule applies.
                let (idx, a) = by_training_accuracy();
                Ok((
                    idx,
                    format!(
                        "lambda chosen by training accuracy ({a:.3}): a class of {} samples \
                         cannot be in all {folds} cross-validation training folds",
                        smallest_class(given, k)
                    ),
                ))
            }
            LambdaRule::CrossValidation { folds } => {
                let folds = folds.min(n);
                let mut order: Vec<usize> = (0..n).collect();
                Rng::new(self.seed).shuffle(&mut order);
                let mut score = vec![0.0; path.len()];
                let mut in_test = vec![false; n];
                for fold in 0..folds {
                    let test: Vec<usize> =
                        order.iter().copied().skip(fold).step_by(folds).collect();
                    in_test.iter_mut().for_each(|t| *t = false);
                    test.iter().for_each(|&i| in_test[i] = true);
                    let train: Vec<usize> =
                        order.iter().copied().filter(|&i| !in_test[i]).collect();
                    let xtr = x.select_rows(train.iter());
                    let gtr: Vec<usize> = train.iter().map(|&i| given[i]).collect();
                    if gtr.iter().collect::<std::collections::HashSet<_>>().len() < 2 {
                        continue;
                    }
                    let sub = self.path(&xtr, scaling, &gtr, k, &mut |_, _| Control::Continue)?;
                    for (idx, p) in sub.iter().enumerate() {
                        score[idx] += accuracy_of(&p.theta, &test) * test.len() as f64;
                    }
                }
                let mut best = (0, f64::NEG_INFINITY);
                for (idx, s) in score.iter().enumerate() {
                    // Ties go to the smaller lambda: shifts never enter a
                    // prediction, so when held-out accuracy cannot tell two
                    // points apart, the one whose shifts absorb more
                    // suspects is the more useful answer (the paper's own
                    // argument for choosing lambda on training accuracy).
                    if *s >= best.1 - 1e-12 {
                        best = (idx, *s);
                    }
                }
                Ok((
                    best.0,
                    format!(
                        "lambda chosen by {folds}-fold cross-validation (accuracy {:.3})",
                        best.1 / n as f64
                    ),
                ))
            }
        }
    }
}

/// The size of the smallest class that has samples.
fn smallest_class(given: &[usize], k: usize) -> usize {
    let mut counts = vec![0usize; k];
    given.iter().for_each(|&g| counts[g] += 1);
    counts.into_iter().filter(|&c| c > 0).min().unwrap_or(0)
}

impl ShiftLr {
    /// Every point of the lambda path as (lambda, classifier from theta),
    /// for choosing lambda on held-out data (the papers' experiments).
    pub fn path_classifiers(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
    ) -> Result<Vec<(f64, LogisticClassifier)>, FitError> {
        let Prologue { standardizer, .. } =
            Prologue::new(x, given, n_classes, false, Scaling::PerFeature)?;
        let path = self.path(x, &standardizer, given, n_classes, &mut |_, _| {
            Control::Continue
        })?;
        Ok(path
            .into_iter()
            .map(|p| {
                (
                    p.lambda,
                    LogisticClassifier {
                        standardizer: standardizer.clone(),
                        coefs: p.theta,
                        n_classes,
                    },
                )
            })
            .collect())
    }
}

impl RobustModel for ShiftLr {
    fn name(&self) -> &'static str {
        "shift"
    }

    fn fit(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        let Prologue { standardizer, .. } =
            Prologue::new(x, given, n_classes, false, Scaling::PerFeature)?;
        let k = n_classes;
        let steps = self.path_length;
        let path = self.path(x, &standardizer, given, k, &mut |step, lambda| {
            progress(Progress {
                stage: "lambda path",
                iteration: step,
                max_iterations: steps,
                objective: lambda,
                fraction: step as f64 / steps as f64,
            })
        })?;
        let (chosen, why) = self.choose(x, &standardizer, given, k, &path)?;
        let point = &path[chosen];
        // The curator's scores come from theta alone (section 3.2).
        let z = Design::standardized(x, &standardizer);
        let posterior =
            l1_logistic::probabilities(&l1_logistic::linear_on(&z, &point.theta, None), k);
        let mut fit = Fit::from_posterior(posterior, given);
        let n = given.len();
        let mut entry = vec![f64::NAN; n];
        for pt in &path {
            for (i, nz) in pt.nonzero().into_iter().enumerate() {
                if nz && entry[i].is_nan() {
                    entry[i] = pt.lambda;
                }
            }
        }
        // Samples whose shift enters earlier on the path are more suspect.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| {
            let ea = if entry[a].is_nan() { -1.0 } else { entry[a] };
            let eb = if entry[b].is_nan() { -1.0 } else { entry[b] };
            eb.total_cmp(&ea).then(a.cmp(&b))
        });
        let mut rank = vec![0; n];
        for (pos, i) in order.into_iter().enumerate() {
            rank[i] = pos;
        }
        fit.suspicion_rank = Some(rank);
        fit.shifts = Some(point.shifts.clone());
        fit.extra
            .sample_columns
            .push(
                SampleColumn::new("entry_lambda", entry).with_display(ColumnDisplay {
                    label: Some("entry".into()),
                    ..ColumnDisplay::default()
                }),
            );
        fit.extra.series.push(NamedSeries {
            name: "shift path".into(),
            x_label: "lambda".into(),
            y_label: "non-zero shifts".into(),
            points: path
                .iter()
                .map(|p| (p.lambda, p.nonzero().iter().filter(|v| **v).count() as f64))
                .collect(),
        });
        fit.extra.scalars.push(("lambda".into(), point.lambda));
        fit.extra.scalars.push((
            "non_zero_shifts".into(),
            point.nonzero().iter().filter(|v| **v).count() as f64,
        ));
        fit.extra.notes.push(why);
        fit.trace = path.iter().map(|p| p.lambda).collect();
        fit.iterations = path.len();
        fit.converged = true;
        fit.classifier = Some(Arc::new(LogisticClassifier {
            standardizer,
            coefs: point.theta.clone(),
            n_classes: k,
        }));
        Ok(fit)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::eval::metrics::auroc;
    use crate::models::no_progress;

    /// Tibshirani & Manning's simulation: features Uniform(-5, 5), theta_j
    /// = 2, zero intercept; then a fraction of labels flipped.
    fn simulated(
        n: usize,
        d: usize,
        flip: f64,
        seed: u64,
    ) -> (DMatrix<f64>, Vec<usize>, Vec<bool>) {
        let mut rng = Rng::new(seed);
        let x = DMatrix::from_fn(n, d, |_, _| rng.uniform_in(-5.0, 5.0));
        let mut given = Vec::new();
        let mut flipped = Vec::new();
        for i in 0..n {
            let eta: f64 = (0..d).map(|j| 2.0 * x[(i, j)]).sum();
            let y = usize::from(rng.uniform() < crate::models::numerics::sigmoid(eta));
            let f = rng.uniform() < flip;
            given.push(if f { 1 - y } else { y });
            flipped.push(f);
        }
        (x, given, flipped)
    }

    fn opts(rule: &str) -> ModelOptions {
        ModelOptions {
            lambda_rule: rule.into(),
            theta_penalty: "none".into(),
            path_length: 15,
            ..ModelOptions::default()
        }
    }

    #[test]
    fn lambda_max_starts_the_path_with_no_shifts_and_entries_come_in_order() {
        let (x, given, _) = simulated(200, 5, 0.1, 1);
        let f = ShiftLr::new(&opts("accuracy"))
            .unwrap()
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        let path = &f.extra.series[0].points;
        assert_eq!(path[0].1, 0.0);
        assert!(path.windows(2).all(|w| w[0].0 > w[1].0));
        assert!(path.last().unwrap().1 > 0.0);
        let entry = &f.extra.sample_column("entry_lambda").unwrap().values;
        assert!(entry.iter().any(|e| !e.is_nan()));
    }

    #[test]
    fn shifts_find_the_flipped_labels() {
        let (x, given, flipped) = simulated(300, 5, 0.15, 2);
        let f = ShiftLr::new(&ModelOptions {
            noise_fraction: Some(0.2),
            ..opts("noise")
        })
        .unwrap()
        .fit(&x, &given, 2, &mut no_progress())
        .unwrap();
        let nz = f.extra.scalar("non_zero_shifts").unwrap();
        assert!(nz <= 60.0, "{nz}");
        let entry: Vec<f64> = f
            .extra
            .sample_column("entry_lambda")
            .unwrap()
            .values
            .iter()
            .map(|e| if e.is_nan() { 0.0 } else { *e })
            .collect();
        let a = auroc(&entry, &flipped).unwrap();
        assert!(a > 0.85, "entry-lambda AUROC {a}");
        // The sign of a shift points away from the given label.
        let shifts = f.shifts.as_ref().unwrap();
        for i in 0..300 {
            let s = shifts[(i, 0)];
            if s != 0.0 {
                assert_eq!(s > 0.0, given[i] == 1, "sample {i}");
            }
        }
    }

    #[test]
    fn three_classes_use_one_group_of_shifts_per_sample() {
        let mut rng = Rng::new(3);
        let mut given: Vec<usize> = (0..150).map(|i| i % 3).collect();
        let x = DMatrix::from_fn(
            150,
            3,
            |i, j| if j == given[i] { 3.0 } else { 0.0 } + rng.normal(),
        );
        for g in given.iter_mut().take(9) {
            *g = (*g + 1) % 3;
        }
        let f = ShiftLr::new(&ModelOptions {
            noise_fraction: Some(0.1),
            ..opts("noise")
        })
        .unwrap()
        .fit(&x, &given, 3, &mut no_progress())
        .unwrap();
        assert_eq!(f.shifts.as_ref().unwrap().ncols(), 3);
        let top: Vec<usize> = f.ranking().into_iter().take(9).collect();
        assert!(top.iter().filter(|&&i| i < 9).count() >= 7, "{top:?}");
    }

    #[test]
    fn cross_validation_picks_a_point_and_says_so() {
        let (x, given, _) = simulated(120, 3, 0.1, 4);
        let f = ShiftLr::new(&opts("cv"))
            .unwrap()
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        assert!(
            f.extra.notes[0].contains("cross-validation"),
            "{:?}",
            f.extra.notes
        );
    }

    #[test]
    fn cancels_within_one_path_step() {
        let (x, given, _) = simulated(100, 3, 0.1, 5);
        let mut calls = 0;
        let e = ShiftLr::new(&opts("accuracy"))
            .unwrap()
            .fit(&x, &given, 2, &mut |_| {
                calls += 1;
                Control::Stop
            })
            .unwrap_err();
        assert_eq!(e, FitError::Cancelled);
        assert_eq!(calls, 1);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod option_tests {
    use super::*;

    crate::models::rejects_option! {
        unknown_lambda_rule: ShiftLr::new, "lambda_rule" = "magic";
        unknown_theta_penalty: ShiftLr::new, "theta_penalty" = "l3";
        noise_fraction_above_1: ShiftLr::new, "noise_fraction" = "1.5";
        one_cv_fold: ShiftLr::new, "cv_folds" = "1";
        negative_kappa: ShiftLr::new, "kappa" = "-1";
        one_point_path: ShiftLr::new, "path_length" = "1";
    }
}
