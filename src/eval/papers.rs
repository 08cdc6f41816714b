//! The papers' own experiments, where their data can be simulated.

use nalgebra::DMatrix;

use super::detection::mean_sd;
use super::metrics::accuracy;
use crate::models::logistic::classifier::LogisticClassifier;
use crate::models::logistic::l1_logistic::{self, Design, Penalty, Problem};
use crate::models::logistic::shift::ShiftLr;
use crate::models::numerics::sigmoid;
use crate::models::standardize::Standardizer;
use crate::models::{Classifier, FitError, ModelOptions, argmax};
use crate::rng::Rng;

/// One row of Tibshirani & Manning's Table 1 (unregularised theta).
#[derive(Clone, Debug, PartialEq)]
pub struct ShiftTableRow {
    pub p0: f64,
    pub p1: f64,
    pub repeats: usize,
    /// Test accuracy of plain logistic regression: mean and standard error.
    pub standard: (f64, f64),
    /// Test accuracy of shift-LR with lambda chosen on the dev set.
    pub robust: (f64, f64),
}

/// Logistic data of the paper: `m` features Uniform(-5, 5), theta_j = 2,
/// zero intercept; labels of class 0 flip with p0, of class 1 with p1.
fn logistic_data(
    n: usize,
    m: usize,
    p0: f64,
    p1: f64,
    rng: &mut Rng,
) -> (DMatrix<f64>, Vec<usize>) {
    let x = DMatrix::from_fn(n, m, |_, _| rng.uniform_in(-5.0, 5.0));
    let y = (0..n)
        .map(|i| {
            let eta: f64 = (0..m).map(|j| 2.0 * x[(i, j)]).sum();
            let y = usize::from(rng.uniform() < sigmoid(eta));
            let flip = if y == 0 { p0 } else { p1 };
            if rng.uniform() < flip { 1 - y } else { y }
        })
        .collect();
    (x, y)
}

fn test_accuracy(c: &dyn Classifier, x: &DMatrix<f64>, y: &[usize]) -> f64 {
    let p = c.predict_proba(x);
    let predicted: Vec<usize> = (0..p.nrows())
        .map(|i| argmax(p.row(i).iter().copied()))
        .collect();
    accuracy(&predicted, y)
}

/// Table 1, first five rows: train, dev and test sets of `n` each; noise
/// in train and dev only; lambda by 0-1 loss on dev.
pub fn shift_table1(
    p0: f64,
    p1: f64,
    n: usize,
    repeats: usize,
    seed: u64,
) -> Result<ShiftTableRow, FitError> {
    let mut rng = Rng::new(seed);
    let mut standard = Vec::new();
    let mut robust = Vec::new();
    let opts = ModelOptions {
        theta_penalty: "none".into(),
        path_length: 30,
        ..ModelOptions::default()
    };
    for _ in 0..repeats {
        let (xtr, ytr) = logistic_data(n, 10, p0, p1, &mut rng);
        let (xdev, ydev) = logistic_data(n, 10, p0, p1, &mut rng);
        let (xte, yte) = logistic_data(n, 10, 0.0, 0.0, &mut rng);
        // Standard: unpenalised logistic regression.
        let s = Standardizer::fit(&xtr);
        let t = crate::models::numerics::one_hot(&ytr, 2);
        let prob = Problem {
            x: Design::standardized(&xtr, &s),
            targets: &t,
            offset: None,
            penalty_factor: None,
        };
        let coefs = l1_logistic::fit(&prob, Penalty { l1: 0.0, l2: 0.0 }, None, 200, 1e-10);
        let plain = LogisticClassifier {
            standardizer: s,
            coefs,
            n_classes: 2,
        };
        standard.push(test_accuracy(&plain, &xte, &yte));
        // Robust: the shift path, lambda by dev accuracy (ties: larger lambda).
        let path = ShiftLr::new(&opts)?.path_classifiers(&xtr, &ytr, 2)?;
        let mut best = (f64::NEG_INFINITY, 0);
        for (k, (_, c)) in path.iter().enumerate() {
            let a = test_accuracy(c, &xdev, &ydev);
            if a > best.0 + 1e-12 {
                best = (a, k);
            }
        }
        robust.push(test_accuracy(&path[best.1].1, &xte, &yte));
    }
    let se = |v: &[f64]| {
        let (m, sd) = mean_sd(v.iter().copied());
        (m, sd / (v.len() as f64).sqrt())
    };
    Ok(ShiftTableRow {
        p0,
        p1,
        repeats,
        standard: se(&standard),
        robust: se(&robust),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn clean_data_is_learned_well_by_both() {
        let row = shift_table1(0.0, 0.0, 200, 2, 1).unwrap();
        assert!(row.standard.0 > 0.9 && row.robust.0 > 0.9, "{row:?}");
    }

    #[test]
    fn one_sided_noise_is_generated_at_the_asked_rate() {
        let mut rng = Rng::new(2);
        let (x, y) = logistic_data(4000, 10, 0.3, 0.0, &mut rng);
        let clean_zero = (0..4000)
            .filter(|&i| (0..10).map(|j| 2.0 * x[(i, j)]).sum::<f64>() < -5.0)
            .collect::<Vec<_>>();
        let flipped =
            clean_zero.iter().filter(|&&i| y[i] == 1).count() as f64 / clean_zero.len() as f64;
        assert!((flipped - 0.3).abs() < 0.05, "{flipped}");
    }
}
