//! The scale and class intercepts of theta's predictions, refitted by
//! maximum likelihood on the given labels, where theta's penalty was
//! chosen by cross-validation (a wide table; issue 48).
//!
//! The penalty that chose theta's direction also shrank its scale: on a
//! wide table a lasso that keeps the ten informative features of 5000
//! holds their weights far below their maximum-likelihood size (the
//! relaxed lasso's observation, Meinshausen 2007), so every prediction
//! sits near the class shares. With one-way noise those shares are the
//! noise's (15% of 100 rows flipped from a to b gives 35 : 65), and a
//! ranking by 1 - P(given | x) then puts rows of the smaller given class
//! above the flips, whatever x says. Measured (RESULTS, issue 48): w0-w2
//! went from AUROC 0.74-0.81 to 0.85-0.93 on the draw; over three
//! draws of all eleven wide tables 25 of 33 rose, 5 stayed and 3 fell (by
//! 0.007-0.037).
//!
//! The refit is the paper's logistic model on a design of one column per
//! class, theta's log-probabilities L_i: logit_c = b L_ic + a_c (a_0 = 0),
//! K parameters fitted by Newton's method. Both of theta's scores are
//! refitted: the held-out one (theta fitted without each row's fold, when
//! theta alone fits every training label) and theta's own at the chosen
//! lambda (where it does not, so the refit stays finite). The direction,
//! and so the order within a class, is theta's; only how strongly theta's
//! evidence weighs against the class shares is the data's to say. A scale
//! below zero would turn theta's evidence around; it is held at zero (the
//! class shares alone) instead.

use nalgebra::{DMatrix, DVector};

/// Floor of a held-out probability before its logarithm: an exact zero
/// from a saturated fit stays finite.
const MIN_PROB: f64 = 1e-300;
/// Newton steps at most; the problem has K unknowns and is concave, so it
/// converges in a handful.
const MAX_NEWTON: usize = 100;
/// Stop when the Newton decrement (the predicted gain) is below this.
const DECREMENT_TOL: f64 = 1e-12;
/// Ridge on the negative Hessian, so a flat direction (a class no row
/// gives) still has a step.
const HESSIAN_RIDGE: f64 = 1e-9;

/// `held_out` (n x K, rows summing to one) with its log-scale multiplied by
/// the maximum-likelihood scale and each class's intercept refitted, for
/// the `labels` (0..K). Also the scale.
pub(super) fn relaxed(held_out: &DMatrix<f64>, labels: &[usize]) -> (DMatrix<f64>, f64) {
    let (n, k) = (held_out.nrows(), held_out.ncols());
    if n == 0 || k < 2 {
        return (held_out.clone(), 1.0);
    }
    let logp = held_out.map(|p| p.max(MIN_PROB).ln());
    // v = (b, a_1 .. a_{K-1}); start at the held-out probabilities as they
    // are (b = 1, a = 0).
    let mut v = DVector::zeros(k);
    v[0] = 1.0;
    let mut value = log_likelihood(&logp, labels, &v);
    for _ in 0..MAX_NEWTON {
        let (grad, hess) = derivatives(&logp, labels, &v);
        let mut neg = -hess;
        for d in 0..k {
            neg[(d, d)] += HESSIAN_RIDGE * (1.0 + neg[(d, d)]);
        }
        let Some(chol) = neg.cholesky() else { break };
        let step = chol.solve(&grad);
        let decrement = grad.dot(&step);
        // NaN (a degenerate solve) stops too.
        if decrement.is_nan() || decrement <= DECREMENT_TOL {
            break;
        }
        // Backtrack until the likelihood rises (concave: a short enough
        // step always does).
        let mut t = 1.0;
        let mut moved = false;
        for _ in 0..40 {
            let mut next = &v + &step * t;
            next[0] = next[0].max(0.0);
            let nv = log_likelihood(&logp, labels, &next);
            if nv >= value {
                moved = nv > value;
                v = next;
                value = nv;
                break;
            }
            t *= 0.5;
        }
        if !moved {
            break;
        }
    }
    (probabilities(&logp, &v), v[0])
}

/// Row i's logits under v.
fn logits(logp: &DMatrix<f64>, i: usize, v: &DVector<f64>) -> Vec<f64> {
    (0..logp.ncols())
        .map(|c| v[0] * logp[(i, c)] + if c == 0 { 0.0 } else { v[c] })
        .collect()
}

fn softmax(z: &[f64]) -> Vec<f64> {
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.into_iter().map(|v| v / s).collect()
}

fn log_likelihood(logp: &DMatrix<f64>, labels: &[usize], v: &DVector<f64>) -> f64 {
    labels
        .iter()
        .enumerate()
        .map(|(i, &y)| {
            let z = logits(logp, i, v);
            z[y] - crate::models::numerics::log_sum_exp(&z)
        })
        .sum()
}

/// Gradient and Hessian of the log-likelihood in v. Class c's feature
/// vector is (L_ic, e_c) (e_0 = 0): the gradient is the given class's
/// features less their mean under q, the Hessian minus their covariance.
fn derivatives(
    logp: &DMatrix<f64>,
    labels: &[usize],
    v: &DVector<f64>,
) -> (DVector<f64>, DMatrix<f64>) {
    let k = logp.ncols();
    let mut grad = DVector::zeros(k);
    let mut hess = DMatrix::zeros(k, k);
    let feature = |i: usize, c: usize| {
        let mut f = DVector::zeros(k);
        f[0] = logp[(i, c)];
        if c > 0 {
            f[c] = 1.0;
        }
        f
    };
    for (i, &y) in labels.iter().enumerate() {
        let q = softmax(&logits(logp, i, v));
        let feats: Vec<DVector<f64>> = (0..k).map(|c| feature(i, c)).collect();
        let mean = feats
            .iter()
            .zip(&q)
            .fold(DVector::zeros(k), |acc, (f, p)| acc + f * *p);
        grad += &feats[y] - &mean;
        for (f, p) in feats.iter().zip(&q) {
            let d = f - &mean;
            hess -= (&d * d.transpose()) * *p;
        }
    }
    (grad, hess)
}

fn probabilities(logp: &DMatrix<f64>, v: &DVector<f64>) -> DMatrix<f64> {
    let (n, k) = (logp.nrows(), logp.ncols());
    let mut out = DMatrix::zeros(n, k);
    for i in 0..n {
        for (c, p) in softmax(&logits(logp, i, v)).into_iter().enumerate() {
            out[(i, c)] = p;
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Held-out probabilities shrunk toward noisy class shares: the rows
    /// have a true score s (class 1 when s > 0) and the "fit" reports
    /// sigmoid(0.3 s + 0.8), too flat and leaning to class 1.
    fn shrunk(n: usize, seed: u64) -> (DMatrix<f64>, Vec<usize>, Vec<f64>) {
        let mut rng = Rng::new(seed);
        let s: Vec<f64> = (0..n).map(|_| 3.0 * rng.normal()).collect();
        let labels: Vec<usize> = s
            .iter()
            .map(|&v| usize::from(rng.uniform() < crate::models::numerics::sigmoid(v)))
            .collect();
        let p = DMatrix::from_fn(n, 2, |i, c| {
            let q = crate::models::numerics::sigmoid(0.3 * s[i] + 0.8);
            if c == 1 { q } else { 1.0 - q }
        });
        (p, labels, s)
    }

    /// The refit recovers the scale that generated the labels (1 / 0.3 on
    /// the shrunk logits) and the zero intercept, and keeps each class's
    /// order.
    #[test]
    fn the_scale_and_intercept_are_refitted() {
        let (p, labels, s) = shrunk(4000, 7);
        let (q, b) = relaxed(&p, &labels);
        assert!((b - 1.0 / 0.3).abs() < 0.4, "scale {b}");
        // The refitted P(1 | x) is sigmoid(s) up to sampling error.
        let worst = (0..s.len())
            .map(|i| (q[(i, 1)] - crate::models::numerics::sigmoid(s[i])).abs())
            .fold(0.0, f64::max);
        assert!(worst < 0.1, "{worst}");
        for i in 1..s.len() {
            assert_eq!(p[(i, 1)] > p[(0, 1)], q[(i, 1)] > q[(0, 1)]);
        }
    }

    /// The refit is a maximum: moving the scale or the intercept away
    /// from it fits the labels less well.
    #[test]
    fn the_refit_maximises_the_likelihood() {
        let (p, labels, _) = shrunk(300, 8);
        let logp = p.map(|v| v.max(MIN_PROB).ln());
        let (q, b) = relaxed(&p, &labels);
        let fitted: f64 = labels
            .iter()
            .enumerate()
            .map(|(i, &y)| q[(i, y)].ln())
            .sum();
        // The fitted intercept, read back from one row's refitted logit.
        let logit = (q[(0, 1)] / q[(0, 0)]).ln();
        let a = logit - b * (logp[(0, 1)] - logp[(0, 0)]);
        let mut v = DVector::from_vec(vec![b, a]);
        assert!((log_likelihood(&logp, &labels, &v) - fitted).abs() < 1e-6);
        let (grad, _) = derivatives(&logp, &labels, &v);
        assert!(grad.amax() < 1e-4, "{grad}");
        for (db, da) in [(0.05, 0.0), (-0.05, 0.0), (0.0, 0.05), (0.0, -0.05)] {
            v[0] = b + db;
            v[1] = a + da;
            assert!(log_likelihood(&logp, &labels, &v) < fitted);
        }
    }

    /// Held-out probabilities that carry no evidence (labels independent
    /// of them) get a scale near zero: the class shares decide.
    #[test]
    fn no_evidence_gives_the_class_shares() {
        let mut rng = Rng::new(9);
        let n = 2000;
        // Spread predictions, labels drawn at 30% whatever they say.
        let p = DMatrix::from_fn(n, 2, |i, c| {
            let q = 0.2 + 0.6 * ((i * 7919) % 1000) as f64 / 1000.0;
            if c == 1 { q } else { 1.0 - q }
        });
        let labels: Vec<usize> = (0..n).map(|_| usize::from(rng.uniform() < 0.3)).collect();
        let (q, b) = relaxed(&p, &labels);
        assert!(b < 0.3, "scale {b}");
        let share = labels.iter().filter(|&&y| y == 1).count() as f64 / n as f64;
        assert!((q.column(1).mean() - share).abs() < 0.02);
    }

    /// Three classes: the refit keeps rows summing to one.
    #[test]
    fn three_classes_stay_probabilities() {
        let n = 200;
        let labels: Vec<usize> = (0..n).map(|i| i % 3).collect();
        // Every row leans to its label, but no further than one half.
        let p = DMatrix::from_fn(n, 3, |i, c| if c == labels[i] { 0.5 } else { 0.25 });
        let (q, b) = relaxed(&p, &labels);
        assert!(b > 1.0);
        for (i, &y) in labels.iter().enumerate() {
            assert!((q.row(i).sum() - 1.0).abs() < 1e-12);
            assert_eq!(crate::models::argmax(q.row(i).iter().copied()), y);
        }
    }
}
