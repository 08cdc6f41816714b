//! The Bayesian regularisation of Cawley & Talbot (2006), as Bootkrajang &
//! Kaban's eq. 7 uses it: lambda = N / sum|w| with N the number of non-zero
//! weights, which integrates lambda out under a Jeffreys prior. rlr and lr
//! choose their penalty by it; shift uses it for kappa, its theta penalty.

use crate::models::logistic::l1_logistic::{self, Coefs, Penalty, Problem};

/// The Bayesian lambda is searched down to this fraction of lambda_max.
pub const LAMBDA_FLOOR: f64 = 1e-4;
/// Relative width at which the search for the fixed point of eq. 7 stops.
pub const LAMBDA_RTOL: f64 = 5e-3;

/// Tolerance of the fits at the probed lambdas (per sample, as in
/// `l1_logistic::fit`). A probe only decides on which side of eq. 7's
/// fixed point it lies, and the bracket is 0.5% wide: a fit whose
/// coefficients still move by 1e-6 per sample in a Newton round is far
/// inside that. The caller's EM refines the coefficients of the returned
/// end with its own M-steps.
const PROBE_TOL: f64 = 1e-6;

/// Where the Bayesian rule of eq. 7 left lambda.
#[derive(Clone, Debug)]
pub struct BayesLambda {
    pub lambda: f64,
    pub coefs: Coefs,
    /// false: no fixed point above the floor (separable classes).
    pub found: bool,
    /// L1 fits spent on the search.
    pub fits: usize,
}

/// lambda = N / sum|w| (eq. 7) as a root search along the regularisation
/// path. Iterating eq. 7 directly cycles when the number of non-zero
/// weights N jumps, so we bracket the fixed point instead: above it
/// lambda * sum|w| > N (lambda too large: weights shrunk more than the
/// rule wants, or no weights at all), below it the reverse. Walking down
/// from lambda_max the first crossing is the stable fixed point the
/// paper's greedy Algorithm 1 reaches by adding weights one at a time.
/// The sparser end of the final bracket is returned.
pub fn bayes_lambda(
    problem: &Problem<'_>,
    lambda_max: f64,
    start: Option<f64>,
    warm: &Coefs,
) -> BayesLambda {
    let mut fits = 0;
    let mut fit_at = |lambda: f64, warm: &Coefs| {
        fits += 1;
        l1_logistic::fit(
            problem,
            Penalty {
                l1: lambda,
                l2: 0.0,
            },
            Some(warm),
            100,
            PROBE_TOL,
        )
    };
    // At lambda_max itself rounding can leave one weight a hair off zero;
    // it counts as the empty model.
    let above = |lambda: f64, c: &Coefs| {
        let n = c.n_nonzero();
        n == 0 || lambda >= lambda_max * (1.0 - 1e-9) || lambda * c.l1() > n as f64
    };
    let floor = LAMBDA_FLOOR * lambda_max;
    // From a previous solution the root is close: small steps.
    let factor: f64 = if start.is_some() { 0.85 } else { 0.7 };
    let mut lambda = start.unwrap_or(lambda_max).clamp(floor, lambda_max);
    let mut coefs = fit_at(lambda, warm);
    let (mut hi, mut lo);
    if above(lambda, &coefs) {
        hi = (lambda, coefs.clone());
        loop {
            if lambda <= floor {
                return BayesLambda {
                    lambda,
                    coefs,
                    found: false,
                    fits,
                };
            }
            lambda = (lambda * factor).max(floor);
            coefs = fit_at(lambda, &coefs);
            if above(lambda, &coefs) {
                hi = (lambda, coefs.clone());
            } else {
                lo = (lambda, coefs.clone());
                break;
            }
        }
    } else {
        lo = (lambda, coefs.clone());
        loop {
            lambda = (lambda / factor).min(lambda_max);
            coefs = fit_at(lambda, &coefs);
            if above(lambda, &coefs) || lambda >= lambda_max {
                hi = (lambda, coefs.clone());
                break;
            }
            lo = (lambda, coefs.clone());
        }
    }
    while hi.0 / lo.0 > 1.0 + LAMBDA_RTOL {
        let mid = (hi.0 * lo.0).sqrt();
        let c = fit_at(mid, &hi.1);
        if above(mid, &c) {
            hi = (mid, c);
        } else {
            lo = (mid, c);
        }
    }
    BayesLambda {
        lambda: hi.0,
        coefs: hi.1,
        found: true,
        fits,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::models::logistic::l1_logistic::Design;
    use crate::models::numerics::one_hot;
    use crate::models::standardize::Standardizer;
    use crate::rng::Rng;

    #[test]
    fn the_bayesian_lambda_brackets_the_fixed_point_of_eq_7() {
        let (x, _, given) =
            crate::eval::logistic_papers::synth_data(300, 40, 0.1, &mut Rng::new(5));
        let s = Standardizer::fit(&x);
        let t = one_hot(&given, 2);
        let p = Problem {
            x: Design::standardized(&x, &s),
            targets: &t,
            offset: None,
            penalty_factor: None,
        };
        let lm = l1_logistic::lambda_max(&p);
        let b = bayes_lambda(&p, lm, None, &Coefs::zeros(40, 1));
        assert!(b.found && b.lambda < lm);
        let n = b.coefs.n_nonzero() as f64;
        // Just above the fixed point: lambda * sum|w| exceeds N...
        assert!(
            b.lambda * b.coefs.l1() > n,
            "{} {}",
            b.lambda * b.coefs.l1(),
            n
        );
        // ...and a little below it the rule asks for a larger lambda.
        let below = b.lambda * (1.0 - 2.0 * LAMBDA_RTOL);
        let c = l1_logistic::fit(
            &p,
            Penalty { l1: below, l2: 0.0 },
            Some(&b.coefs),
            100,
            1e-10,
        );
        assert!(below * c.l1() <= c.n_nonzero() as f64);
        // Started from the answer, the search stays there.
        let again = bayes_lambda(&p, lm, Some(b.lambda), &b.coefs);
        assert!((again.lambda / b.lambda - 1.0).abs() < 3.0 * LAMBDA_RTOL);
    }
}
