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
//!
//! The flagged count follows the same number. Cutting p_mislabel at 0.5
//! is a rule for one row (more likely wrong than right), not a count: where
//! a fit's p_mislabel are spread, most wrong labels sit below 0.5 while
//! their sum is right (RESULTS.md). So a fit flags its round(sum p) most
//! likely wrong rows, cleanlab's default (`prune_by_noise_rate`: remove as
//! many rows as the estimated noise, most suspect first; Northcutt, Jiang
//! and Chuang, "Confident learning", JAIR 2021, section 3.2): the cutoff is
//! the p_mislabel of the last of them, and a row tied with it is flagged
//! too.

use crate::models::{Fit, WrongLabelCount};

/// The interval's coverage.
pub const LEVEL: f64 = 0.95;

/// Rows x counts the exact convolution may cost.
const EXACT_WORK: usize = 20_000_000;

/// A p_mislabel this close to 0 or 1 is a sure draw.
const SURE: f64 = 1e-12;

/// Where the sum of p_mislabel is no count ([`Fit::uncounted`]: no
/// held-out skill, ranked by label alone, flips unidentified), a row is
/// flagged when it is more likely wrong than right.
pub const MAJORITY: f64 = 0.5;

/// The p_mislabel at or above which a row is flagged: that of the
/// round(sum p)-th most likely wrong row (NaN ignored), or 1 when the sum
/// rounds to none (every p is then below 0.5, so no row reaches 1).
pub fn cutoff(p: &[f64]) -> f64 {
    let mut known: Vec<f64> = p.iter().copied().filter(|v| !v.is_nan()).collect();
    let expected: f64 = known.iter().sum();
    let n = expected.round() as usize;
    if n == 0 {
        return 1.0;
    }
    // The p_mislabel of more than `expected` rows are positive, so the
    // n-th is positive and no row of p_mislabel 0 is ever flagged. Only the
    // n-th largest is needed: a selection, not a sort (the review screen
    // recounts the undecided after every decision; on a million rows the
    // sort cost 336 M instructions, the selection 61 M).
    let at = n.min(known.len()) - 1;
    *known.select_nth_unstable_by(at, |a, b| b.total_cmp(a)).1
}

/// How many of `p` are at or above `cutoff`.
pub fn at_or_above(p: &[f64], cutoff: f64) -> usize {
    p.iter().filter(|&&v| v >= cutoff).count()
}

impl Fit {
    /// The p_mislabel from which this fit flags a row ([`cutoff`], or
    /// [`MAJORITY`] where its p_mislabel are no count): what scan's line,
    /// the report, the audit page and the review screen's first threshold
    /// use.
    pub fn flag_cutoff(&self) -> f64 {
        if self.uncounted().is_some() {
            MAJORITY
        } else {
            cutoff(&self.p_mislabel)
        }
    }

    /// The rows at or above [`Fit::flag_cutoff`].
    pub fn flagged(&self) -> usize {
        at_or_above(&self.p_mislabel, self.flag_cutoff())
    }
}

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
    let flagged = at_or_above(&known, cutoff(&known));
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
        // 30 expected among 100 alike: all tie with the 30th, all flagged.
        assert_eq!(c.flagged, 100);
        // Sure draws add themselves; NaN is no draw.
        let mut p = vec![0.3; 100];
        p.extend([1.0, 1.0, 0.0, f64::NAN]);
        let c = count(&p);
        assert_eq!((c.low, c.high), (23, 41));
    }

    #[test]
    fn a_fit_flags_as_many_rows_as_it_expects_most_likely_first() {
        // Sum 2.6: the three most likely wrong, though two are below 0.5.
        let p = [0.9, 0.05, 0.45, 0.0, 0.4, 0.3, 0.2, 0.3];
        assert_eq!(cutoff(&p), 0.4);
        assert_eq!(at_or_above(&p, cutoff(&p)), 3);
        assert_eq!(count(&p).flagged, 3);
        // A tie with the last is flagged too; NaN is no row.
        let p = [0.9, 0.5, 0.5, 0.1, f64::NAN];
        assert_eq!((cutoff(&p), at_or_above(&p, cutoff(&p))), (0.5, 3));
        // 3.8 expected: the fourth is a 0.3, tied with nine others, and a
        // threshold cannot split a tie: all eleven (0.5 would flag one).
        let mut p = vec![0.3; 10];
        p.push(0.8);
        assert_eq!(count(&p).flagged, 11);
        // A sum under one half flags nothing, at no cutoff a row reaches.
        let p = [0.2, 0.1, 0.0];
        assert_eq!((cutoff(&p), count(&p).flagged), (1.0, 0));
        assert_eq!(count(&[]).flagged, 0);
    }

    #[test]
    fn a_fit_without_a_count_flags_what_is_more_likely_wrong_than_right() {
        use nalgebra::DMatrix;
        let post = DMatrix::from_row_slice(4, 2, &[0.6, 0.4, 0.7, 0.3, 0.7, 0.3, 0.2, 0.8]);
        let mut fit = Fit::from_posterior(post, &[0, 0, 0, 0]);
        // Sum 1.8: the two most likely wrong, 0.8 and 0.4.
        assert_eq!((fit.flag_cutoff(), fit.flagged()), (0.4, 2));
        fit.label_only = true;
        assert_eq!((fit.flag_cutoff(), fit.flagged()), (MAJORITY, 1));
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
