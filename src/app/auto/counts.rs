//! The count of wrong labels a curator quotes, with its uncertainty.
//!
//! Each sample's label is wrong with probability p_mislabel, independently
//! given the fit, so the number of wrong labels is a sum of independent
//! Bernoulli draws: a Poisson binomial distribution, with mean sum p and
//! variance sum p (1 - p). Its central 95% interval is read from the exact
//! distribution (the convolution of the draws, Chen and Liu 1997) when that
//! is cheap, and from its normal approximation with a continuity
//! correction otherwise (thousands of uncertain rows, where the normal is
//! exact to well under one count). The interval is the count's spread given
//! the fit; it says nothing of the fit's own error, which the benchmark
//! measures (docs/RESULTS.md).

use crate::models::{Fit, WrongLabelCount};

/// The interval's coverage.
pub const LEVEL: f64 = 0.95;

/// Rows x counts the exact convolution may cost.
const EXACT_WORK: usize = 20_000_000;

/// A p_mislabel this close to 0 or 1 is a sure draw.
const SURE: f64 = 1e-12;

/// The count of `fit`'s wrong labels, or `None` when its p_mislabel are
/// no count ([`Fit::uncounted`]).
pub fn of_fit(fit: &Fit) -> Option<WrongLabelCount> {
    fit.uncounted().is_none().then(|| count(&fit.p_mislabel))
}

/// The count of wrong labels among samples whose labels are wrong with
/// probabilities `p` (NaN ignored): the review screen's "wrong left" among
/// the undecided is `count` of theirs.
pub fn count(p: &[f64]) -> WrongLabelCount {
    let known: Vec<f64> = p.iter().copied().filter(|v| !v.is_nan()).collect();
    let flagged = known.iter().filter(|&&v| v >= 0.5).count();
    let expected: f64 = known.iter().sum();
    let sure = known.iter().filter(|&&v| v >= 1.0 - SURE).count();
    let open: Vec<f64> = known
        .iter()
        .copied()
        .filter(|&v| v > SURE && v < 1.0 - SURE)
        .collect();
    let tail = (1.0 - LEVEL) / 2.0;
    let (low, high) = if open.len().saturating_mul(open.len()) <= EXACT_WORK {
        let pmf = poisson_binomial(&open);
        (quantile(&pmf, tail), quantile(&pmf, 1.0 - tail))
    } else {
        let mean: f64 = open.iter().sum();
        let sd = open.iter().map(|v| v * (1.0 - v)).sum::<f64>().sqrt();
        // P(X <= x) ~ Phi((x + 0.5 - mean) / sd): the least x reaching q.
        let at = |q: f64| (mean - 0.5 + normal_quantile(q) * sd).ceil().max(0.0) as usize;
        (at(tail), at(1.0 - tail).min(open.len()))
    };
    WrongLabelCount {
        flagged,
        expected,
        low: sure + low,
        high: sure + high,
        level: LEVEL,
    }
}

/// The distribution of the number of successes of independent draws with
/// probabilities `p`.
fn poisson_binomial(p: &[f64]) -> Vec<f64> {
    let mut pmf = vec![0.0; p.len() + 1];
    pmf[0] = 1.0;
    for (n, &q) in p.iter().enumerate() {
        for x in (1..=n + 1).rev() {
            pmf[x] = pmf[x] * (1.0 - q) + pmf[x - 1] * q;
        }
        pmf[0] *= 1.0 - q;
    }
    pmf
}

/// The least x with P(X <= x) >= q.
fn quantile(pmf: &[f64], q: f64) -> usize {
    let mut acc = 0.0;
    for (x, v) in pmf.iter().enumerate() {
        acc += v;
        if acc >= q - 1e-12 {
            return x;
        }
    }
    pmf.len().saturating_sub(1)
}

/// The standard normal quantile (Acklam's rational approximation, relative
/// error below 1.2e-9; its published coefficients, digit for digit).
#[allow(clippy::excessive_precision)]
fn normal_quantile(q: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.383577518672690e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [
        7.784695709041462e-3,
        3.224671290700398e-1,
        2.445134137142996,
        3.754408661907416,
    ];
    let tail = |r: f64| {
        (((((C[0] * r + C[1]) * r + C[2]) * r + C[3]) * r + C[4]) * r + C[5])
            / ((((D[0] * r + D[1]) * r + D[2]) * r + D[3]) * r + 1.0)
    };
    if q < 0.02425 {
        tail((-2.0 * q.ln()).sqrt())
    } else if q > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - q).ln()).sqrt())
    } else {
        let r = (q - 0.5) * (q - 0.5);
        let s = q - 0.5;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * s
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_exact_interval_is_the_binomials() {
        // 100 draws at 0.3: Binomial(100, 0.3), whose 2.5% and 97.5%
        // quantiles are 21 and 39.
        let c = count(&[0.3; 100]);
        assert_eq!((c.low, c.high), (21, 39));
        assert!((c.expected - 30.0).abs() < 1e-9);
        assert_eq!(c.flagged, 0);
        // Sure draws add themselves; NaN is no draw.
        let mut p = vec![0.3; 100];
        p.extend([1.0, 1.0, 0.0, f64::NAN]);
        let c = count(&p);
        assert_eq!((c.low, c.high, c.flagged), (23, 41, 2));
    }

    #[test]
    fn the_normal_interval_agrees_with_the_exact_one_where_both_apply() {
        let p: Vec<f64> = (0..4000)
            .map(|i| 0.05 + 0.9 * (i % 97) as f64 / 97.0)
            .collect();
        let pmf = poisson_binomial(&p);
        let exact = (quantile(&pmf, 0.025), quantile(&pmf, 0.975));
        let mut many = p.clone();
        many.extend(p.iter().copied());
        let c = count(&many);
        // 8000 rows take the normal path; the exact interval of twice the
        // draws is the sum's, near 2 x mean -+ 1.96 sqrt(2) sd.
        let mean: f64 = many.iter().sum();
        let sd = many.iter().map(|v| v * (1.0 - v)).sum::<f64>().sqrt();
        assert!((c.low as f64 - (mean - 1.96 * sd)).abs() <= 1.5, "{c:?}");
        assert!((c.high as f64 - (mean + 1.96 * sd)).abs() <= 1.5, "{c:?}");
        assert!(exact.0 < exact.1);
        assert!((normal_quantile(0.975) - 1.959964).abs() < 1e-6);
    }
}
