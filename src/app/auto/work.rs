//! What auto knows of its candidates besides their scores: how complex a
//! fit is (free parameters: what its work is counted in)
//! and what its held-out fits cost (work, for the evaluation's bound).
//! Both are counted from the table's shape, never read from a clock, so
//! the choice is the same on any machine.

use super::candidates::Candidate;

/// The work auto spends on held-out fits at most, in units of
/// rows x parameters x iterations ([`work`]). At the pace measured on this
/// project's 2-core machine (about a nanosecond per unit on one core, see
/// [`iterations`]) it is half a second of two cores.
pub const EVALUATION_WORK: f64 = 1.0e9;

/// The free parameters of `c`'s fit on `n` rows of `d` columns and `k`
/// classes: the classifier's (a mean and a full covariance per class for
/// the Gaussian models, a weight vector and intercept per class but one for
/// the logistic ones), plus a flip table's k (k - 1) for the robust models
/// and for `probs` on top of a plain classifier, plus one shift per row for
/// shift.
pub fn parameters(c: Candidate, n: usize, d: usize, k: usize) -> f64 {
    let (d, k, n) = (d as f64, k as f64, n as f64);
    let gaussian = k * (d + d * (d + 1.0) / 2.0);
    let logistic = (k - 1.0) * (d + 1.0);
    let flips = k * (k - 1.0);
    match c.model() {
        "rnda" | "nda" | "rmda" => gaussian + flips,
        "rlr" | "lr" => logistic + flips,
        "shift" => logistic + n,
        // A cell per class and level of each kept symbol: two levels a
        // column at the least.
        _ => 2.0 * d * k + flips,
    }
}

/// Passes over every (row, parameter) pair a fit makes, measured on a
/// 2000 x 20 table of 5 Gaussian classes (`relabel scan --model M`, 2026-12,
/// one core's seconds over rows x parameters at a nanosecond a unit):
/// rnda's EM about 26, QDA 2, rmda's BIC series of EMs 365, L1 logistic
/// regression's lambda search 430, rlr's EM of those 1430, shift's lambda
/// path 15000, cbt's BDRA search 1000.
fn iterations(model: &str) -> f64 {
    match model {
        "nda" => 2.0,
        "rnda" => 26.0,
        "rmda" => 365.0,
        "lr" => 430.0,
        "rlr" => 1430.0,
        "shift" => 15000.0,
        _ => 1000.0,
    }
}

/// The work of one fit of `c` on `n` rows: rows x the classifier's
/// parameters x [`iterations`] (a plain classifier's fit; `probs`' EM on
/// its probabilities is a rounding error beside it).
pub fn work(c: Candidate, n: usize, d: usize, k: usize) -> f64 {
    let classifier = match c.model() {
        "shift" => parameters(Candidate::Plain("lr"), n, d, k),
        m => parameters(Candidate::Robust(m), n, d, k) - (k * (k - 1)) as f64,
    };
    n as f64 * classifier.max(1.0) * iterations(c.model())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_the_shape() {
        let q = Candidate::Plain("nda");
        // 5 classes of 20 features: 5 x (20 + 210) + 20.
        assert_eq!(parameters(q, 1000, 20, 5), 1170.0);
        assert_eq!(parameters(Candidate::Robust("rnda"), 1, 20, 5), 1170.0);
        // Logistic: 4 x 21 + 20; shift adds one per row.
        assert_eq!(parameters(Candidate::Plain("lr"), 1000, 20, 5), 104.0);
        assert_eq!(parameters(Candidate::Robust("shift"), 1000, 20, 5), 1084.0);
        // Work grows with the rows and the model's passes.
        let w = |c, n| work(c, n, 20, 5);
        assert_eq!(w(q, 2000), 2.0 * w(q, 1000));
        assert!(w(Candidate::Robust("shift"), 800) > 10.0 * w(Candidate::Robust("rnda"), 800));
    }
}
