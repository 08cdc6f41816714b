//! The count checked on held-out rows: a robust model's own p_mislabel,
//! fitted on the very rows they judge, can be over- or under-confident (a
//! fit that has partly learnt a row's wrong label doubts it less), and the
//! count a curator quotes is their sum. (A plain classifier under `probs`'
//! flip table reads out-of-fold probabilities already; it is not checked
//! again: measured, a second held-out estimate over-counted there,
//! docs/RESULTS.md.)
//!
//! The check uses the held-out predictions auto made already. For each
//! held-out row of the sample, P(true | x) comes from a fit that never saw
//! it; a temperature (Guo et al. 2017, "On calibration of modern neural
//! networks") and the flip table P(given | true) are fitted by maximum
//! likelihood of the given labels on the *other* folds' held-out rows
//! (cross-fitting), and Bayes' rule gives the row's held-out
//! p_mislabel. The mean difference between those and the model's own on
//! the same rows, times the table's rows, corrects the model's total (the
//! difference estimator of survey sampling: Särndal, Swensson and
//! Wretman, *Model Assisted Survey Sampling*, 1992, §6.3). The correction
//! is made only when the difference is beyond chance (|mean| > 1.96
//! standard errors, two-sided 5%: calibration-in-the-large, Steyerberg,
//! *Clinical Prediction Models*, 2009, §15.2), so a model whose own count
//! is right keeps it; it moves every p_mislabel by one shift on the
//! log-odds scale, the prior odds of a wrong label, so the order is the
//! model's.

use nalgebra::DMatrix;

use super::evaluate::{FOLDS, HeldOut, Sample, profile_flip_table};
use crate::models::Fit;

/// Each sampled row's held-out p_mislabel (table row, p).
#[derive(Clone, Debug, PartialEq)]
pub struct Recount {
    pub rows: Vec<(usize, f64)>,
}

/// Two-sided 5% normal quantile.
const Z: f64 = 1.959_963_984_540_054;

impl Recount {
    /// The cross-fitted held-out p_mislabel of `held`'s rows of `sample`;
    /// `None` with fewer than two folds' rows.
    pub fn of(held: &HeldOut, sample: &Sample) -> Option<Recount> {
        let k = held.p_true.ncols();
        let mut rows = Vec::new();
        for f in 0..FOLDS {
            let test: Vec<usize> = (0..sample.rows.len())
                .filter(|&j| sample.folds[j] == Some(f))
                .collect();
            let train: Vec<usize> = (0..sample.rows.len())
                .filter(|&j| sample.folds[j].is_some_and(|g| g != f))
                .collect();
            if test.is_empty() || train.is_empty() {
                continue;
            }
            let p = held.p_true.select_rows(train.iter());
            let given: Vec<usize> = train.iter().map(|&j| sample.given[j]).collect();
            let (tau, flips) = calibrate(&p, &given);
            for &j in &test {
                let q = temper(&held.p_true.row(j).transpose(), tau);
                let g = sample.given[j];
                let total: f64 = (0..k).map(|t| q[t] * flips[(t, g)]).sum();
                if total > 0.0 && total.is_finite() {
                    rows.push((sample.rows[j], 1.0 - q[g] * flips[(g, g)] / total));
                }
            }
        }
        (rows.len() >= 2).then_some(Recount { rows })
    }

    /// Corrects `fit`'s p_mislabel when its own disagree with the held-out
    /// ones beyond chance; the note says what was done.
    pub fn apply(&self, fit: &mut Fit) -> Option<String> {
        let d: Vec<f64> = self
            .rows
            .iter()
            .filter(|(i, _)| !fit.p_mislabel[*i].is_nan())
            .map(|&(i, p)| p - fit.p_mislabel[i])
            .collect();
        let m = d.len() as f64;
        if m < 2.0 {
            return None;
        }
        let mean = d.iter().sum::<f64>() / m;
        let se = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (m - 1.0) / m).sqrt();
        if mean.abs() <= Z * se {
            return None;
        }
        let known = fit.p_mislabel.iter().filter(|p| !p.is_nan()).count() as f64;
        let own: f64 = fit.p_mislabel.iter().filter(|p| !p.is_nan()).sum();
        let target = (own + known * mean).clamp(0.0, known);
        let b = shift_to(&fit.p_mislabel, target);
        for i in 0..fit.p_mislabel.len() {
            let p = fit.p_mislabel[i];
            let q = shifted(p, b);
            if p.is_nan() || q == p {
                continue;
            }
            rescale_row(fit, i, p, q);
        }
        Some(format!(
            "the count is checked on {} held-out rows: the model's own p_mislabel sum to {own:.1}, \
             held-out ones say {target:.1} (difference {:+.3} ± {:.3} a row); every p_mislabel \
             is moved by {b:+.2} on the log-odds scale, the order unchanged",
            d.len(),
            mean,
            se
        ))
    }
}

/// `fit`'s row `i` with p_mislabel `q` instead of `p`: the given label's
/// posterior 1 - q, the others scaled to share q as they shared p.
fn rescale_row(fit: &mut Fit, i: usize, p: f64, q: f64) {
    let k = fit.posterior.ncols();
    let g = (0..k)
        .map(|c| (c, (1.0 - fit.posterior[(i, c)] - p).abs()))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(0, |(c, _)| c);
    for c in 0..k {
        fit.posterior[(i, c)] = if c == g {
            1.0 - q
        } else if p > 0.0 {
            fit.posterior[(i, c)] * q / p
        } else {
            q / (k - 1).max(1) as f64
        };
    }
    fit.p_mislabel[i] = q;
    let best = (0..k)
        .max_by(|&a, &b| {
            fit.posterior[(i, a)]
                .total_cmp(&fit.posterior[(i, b)])
                .then(b.cmp(&a))
        })
        .unwrap_or(g);
    fit.suggested[i] = best;
}

/// `p` moved by `b` on the log-odds scale (0 and 1 stay).
fn shifted(p: f64, b: f64) -> f64 {
    if p.is_nan() || p <= 0.0 || p >= 1.0 {
        return p;
    }
    1.0 / (1.0 + (-(p / (1.0 - p)).ln() - b).exp())
}

/// The log-odds shift that makes the known `p` sum to `target` (bisection:
/// the sum rises with the shift).
fn shift_to(p: &[f64], target: f64) -> f64 {
    let sum = |b: f64| {
        p.iter()
            .filter(|v| !v.is_nan())
            .map(|&v| shifted(v, b))
            .sum::<f64>()
    };
    let (mut lo, mut hi) = (-40.0, 40.0);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if sum(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// `p` raised to 1 / tau and renormalised.
fn temper(p: &nalgebra::DVector<f64>, tau: f64) -> Vec<f64> {
    let q: Vec<f64> = p.iter().map(|&v| v.max(1e-300).powf(1.0 / tau)).collect();
    let s: f64 = q.iter().sum();
    q.into_iter().map(|v| v / s).collect()
}

/// The temperature and flip table that best explain `given` under held-out
/// P(true | x) `p`: golden-section search on log tau over [1/20, 20], the
/// flip table profiled at each tau ([`profile_flip_table`]).
fn calibrate(p: &DMatrix<f64>, given: &[usize]) -> (f64, DMatrix<f64>) {
    let at = |log_tau: f64| {
        let tau = log_tau.exp();
        let q = DMatrix::from_fn(p.nrows(), p.ncols(), |i, c| {
            p[(i, c)].max(1e-300).powf(1.0 / tau)
        });
        let q = normalised(q);
        let flips = profile_flip_table(&q, given);
        let ll: f64 = given
            .iter()
            .enumerate()
            .map(|(i, &g)| {
                (0..p.ncols())
                    .map(|t| q[(i, t)] * flips[(t, g)])
                    .sum::<f64>()
                    .max(f64::MIN_POSITIVE)
                    .ln()
            })
            .sum();
        (ll, flips)
    };
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (-(20f64.ln()), 20f64.ln());
    let mut c = b - ratio * (b - a);
    let mut d = a + ratio * (b - a);
    let (mut fc, mut fd) = (at(c).0, at(d).0);
    for _ in 0..20 {
        if fc >= fd {
            b = d;
            d = c;
            fd = fc;
            c = b - ratio * (b - a);
            fc = at(c).0;
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + ratio * (b - a);
            fd = at(d).0;
        }
    }
    let best = 0.5 * (a + b);
    (best.exp(), at(best).1)
}

fn normalised(mut q: DMatrix<f64>) -> DMatrix<f64> {
    for mut r in q.row_iter_mut() {
        let s = r.sum();
        if s > 0.0 {
            r /= s;
        }
    }
    q
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_shift_reaches_its_target_and_keeps_the_order() {
        let p = vec![0.01, 0.2, 0.45, 0.7, 0.99, 0.0, 1.0];
        let b = shift_to(&p, 4.0);
        let q: Vec<f64> = p.iter().map(|&v| shifted(v, b)).collect();
        assert!((q.iter().sum::<f64>() - 4.0).abs() < 1e-9, "{q:?}");
        assert!(q.windows(2).take(4).all(|w| w[0] < w[1]));
        assert_eq!((q[5], q[6]), (0.0, 1.0));
    }

    #[test]
    fn overconfident_held_out_probabilities_are_tempered() {
        // Two classes, P(true = 1 | x) = s_i; given labels drawn from a
        // softer truth s_i^(1/2) renormalised: the best temperature is 2,
        // and the flip table stays near the identity.
        let n = 4000;
        let mut rng = crate::rng::Rng::new(5);
        let mut p = DMatrix::zeros(n, 2);
        let mut given = Vec::with_capacity(n);
        for i in 0..n {
            let s = (i as f64 + 0.5) / n as f64;
            let hard = [1.0 - s, s];
            let soft = temper(&nalgebra::DVector::from_vec(hard.to_vec()), 2.0);
            p[(i, 0)] = hard[0];
            p[(i, 1)] = hard[1];
            given.push(usize::from(rng.uniform() < soft[1]));
        }
        let (tau, flips) = calibrate(&p, &given);
        assert!((tau - 2.0).abs() < 0.5, "{tau}");
        assert!(flips[(0, 0)] > 0.9 && flips[(1, 1)] > 0.9, "{flips}");
    }
}
