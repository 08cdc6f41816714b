//! How well a model finds injected label noise: for each seed, flip labels
//! of clean data, fit, and score `p_mislabel` against the flips.

use nalgebra::DMatrix;

use super::metrics::{accuracy, auroc, average_precision, precision_recall_at};
use super::noise::{NoiseKind, inject};
use crate::app::{FitInputs, FitPlan};
use crate::models::{FitError, argmax, no_progress};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoiseConfig {
    pub kind: NoiseKind,
    pub rate: f64,
    pub repeats: usize,
    /// Repeat r uses noise seed `base_seed + r` (the model keeps its own seed).
    pub base_seed: u64,
}

/// Figures of one fit on one noisy copy.
#[derive(Clone, Debug, PartialEq)]
pub struct DetectionScores {
    pub n_flipped: usize,
    /// Samples flagged ([`crate::models::Fit::flagged`]: as many as the sum of
    /// p_mislabel, the most likely wrong first), and that sum: both should
    /// be close to `n_flipped` when p_mislabel is a probability.
    pub flagged: usize,
    pub expected: f64,
    pub auroc: f64,
    pub average_precision: f64,
    /// Precision and recall among the top k = n_flipped suspects.
    pub precision_at_k: f64,
    pub recall_at_k: f64,
    /// Fraction of all samples whose suggested label is their true label.
    pub suggested_accuracy: f64,
    /// Accuracy of the model's classifier on a clean test set, if given.
    pub test_accuracy: Option<f64>,
    pub converged: bool,
    pub wall_seconds: f64,
}

/// A clean test set: the training table (for its layout; `None` when the
/// inputs are a bare matrix), the test rows' feature matrix and their labels.
#[derive(Clone, Copy, Debug)]
pub struct TestSet<'a> {
    pub table: Option<&'a crate::dataset::Dataset>,
    pub x: &'a DMatrix<f64>,
    pub labels: &'a [usize],
}

/// Runs `plan` on `repeats` noisy copies of clean labels, and scores each
/// fit's classifier on `test` when given.
pub fn run_detection(
    plan: &FitPlan,
    inputs: &FitInputs<'_>,
    clean: &[usize],
    noise: &NoiseConfig,
    test: Option<TestSet<'_>>,
) -> Result<Vec<DetectionScores>, FitError> {
    let n_classes = inputs.n_classes();
    let mut out = Vec::with_capacity(noise.repeats);
    for r in 0..noise.repeats {
        let injected = inject(
            clean,
            n_classes,
            noise.kind,
            noise.rate,
            noise.base_seed.wrapping_add(r as u64),
        );
        let started = std::time::Instant::now();
        let fit = plan.fit(inputs, &injected.labels, &mut no_progress())?;
        let wall_seconds = started.elapsed().as_secs_f64();
        let k = injected.n_flipped();
        // Scored by the output order (a fit whose data cannot tell keeps
        // the model's order at p_mislabel 0, `app::auto::skill::withhold`).
        let order = order_scores(&fit);
        let (precision_at_k, recall_at_k) = precision_recall_at(&order, &injected.flipped, k);
        let test_accuracy = match (test, &fit.classifier) {
            (Some(t), Some(c)) => {
                let p = match t.table {
                    Some(table) => c.predict_proba(&plan.test_matrix(table, t.x, &fit)),
                    None => c.predict_proba(t.x),
                };
                let predicted: Vec<usize> = (0..p.nrows())
                    .map(|i| argmax(p.row(i).iter().copied()))
                    .collect();
                Some(accuracy(&predicted, t.labels))
            }
            _ => None,
        };
        out.push(DetectionScores {
            n_flipped: k,
            flagged: fit.flagged(),
            expected: fit.p_mislabel.iter().filter(|p| p.is_finite()).sum(),
            auroc: auroc(&order, &injected.flipped).unwrap_or(f64::NAN),
            average_precision: average_precision(&order, &injected.flipped).unwrap_or(f64::NAN),
            precision_at_k,
            recall_at_k,
            suggested_accuracy: accuracy(&fit.suggested, clean),
            test_accuracy,
            converged: fit.converged,
            wall_seconds,
        });
    }
    Ok(out)
}

/// Each sample's score as its place in the fit's ranking (the output
/// order: p_mislabel, ties in the model's order of suspicion).
fn order_scores(fit: &crate::models::Fit) -> Vec<f64> {
    let mut score = vec![0.0; fit.p_mislabel.len()];
    for (place, i) in fit.ranking().into_iter().enumerate() {
        score[i] = -(place as f64);
    }
    score
}

/// Mean and sample standard deviation, ignoring NaN.
pub fn mean_sd(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let v: Vec<f64> = values.into_iter().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = if v.len() > 1 {
        (v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    (mean, sd)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::models::ModelOptions;
    use crate::rng::Rng;

    #[test]
    fn detection_on_separated_classes_is_near_perfect_and_reproducible() {
        let mut rng = Rng::new(1);
        let n = 300;
        let clean: Vec<usize> = (0..n).map(|i| i % 2).collect();
        let x = DMatrix::from_fn(n, 2, |i, _| 6.0 * clean[i] as f64 + rng.normal());
        let cfg = NoiseConfig {
            kind: NoiseKind::Symmetric,
            rate: 0.1,
            repeats: 2,
            base_seed: 3,
        };
        let plan = FitPlan::new("rnda", &ModelOptions::default()).unwrap();
        let inputs = FitInputs::of_matrix(&x, 2);
        let a = run_detection(
            &plan,
            &inputs,
            &clean,
            &cfg,
            Some(TestSet {
                table: None,
                x: &x,
                labels: &clean,
            }),
        )
        .unwrap();
        let b = run_detection(&plan, &inputs, &clean, &cfg, None).unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].n_flipped, 30);
        assert!(a[0].auroc > 0.98, "{:?}", a[0]);
        assert!(a[0].test_accuracy.unwrap() > 0.98);
        assert_eq!(a[0].auroc, b[0].auroc);
        assert_eq!(b[0].test_accuracy, None);
    }

    #[test]
    fn mean_sd_ignores_nan() {
        let (m, s) = mean_sd([1.0, 3.0, f64::NAN]);
        assert_eq!(m, 2.0);
        assert!((s - 2f64.sqrt()).abs() < 1e-12);
    }
}
