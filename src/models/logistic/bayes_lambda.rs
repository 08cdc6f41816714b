//! The Bayesian regularisation of Cawley & Talbot (2006), as Bootkrajang &
//! Kaban's eq. 7 uses it: lambda = N / sum|w| with N the number of non-zero
//! weights, which integrates lambda out under a Jeffreys prior. rlr and lr
//! choose their penalty by it; shift uses it for kappa, its theta penalty.

use crate::models::logistic::l1_logistic::{self, Coefs, Penalty, Problem};

/// The search gives up below [`LAMBDA_FLOOR`] x lambda_max, but never
/// above this lambda. Eq. 7's lambda is the reciprocal of the mean |w| of
/// the non-zero (standardised) weights, so a fixed point below it needs
/// logits that move by over 10 per standard deviation of a feature:
/// separated classes. The floor relative to lambda_max alone grew with
/// the rows (lambda_max is a sum over samples) and passed over the fixed
/// point, which stays O(1): at 100k rows it sat below the floor.
pub const MAX_FLOOR: f64 = 0.1;
/// The floor as a fraction of lambda_max, where that is lower.
pub const LAMBDA_FLOOR: f64 = 1e-4;
/// Relative width at which the search for the fixed point of eq. 7 stops.
pub const LAMBDA_RTOL: f64 = 5e-3;

/// Largest step of the search in ln(lambda) before the fixed point is
/// bracketed: a halving. Eq. 7 can hold at several lambdas (h jumps where
/// weights enter) and the first crossing from lambda_max is the one the
/// paper's greedy algorithm reaches; with decade steps the search landed
/// on a lower one and EM on pair-noised digits (seed 1) on a swapped
/// flip table (AUROC 0.999 -> 0.484). Halvings keep it, in about half
/// the probes of the 0.7x steps (rlr walks this part on a subsample of a
/// large table).
const MAX_STEP: f64 = std::f64::consts::LN_2;

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

/// The lowest lambda the search probes.
pub fn lambda_floor(lambda_max: f64) -> f64 {
    MAX_FLOOR.min(LAMBDA_FLOOR * lambda_max)
}

/// A fit at one lambda and how far eq. 7 is from holding there.
#[derive(Clone, Debug)]
struct Probe {
    /// ln(lambda).
    u: f64,
    coefs: Coefs,
    /// ln(lambda * sum|w| / N): positive above the fixed point (weights
    /// shrunk more than the rule wants), +inf with no weights at all.
    h: f64,
}

impl Probe {
    fn new(lambda: f64, lambda_max: f64, mut coefs: Coefs) -> Probe {
        let n = coefs.n_nonzero();
        // At lambda_max itself rounding can leave one weight a hair off
        // zero; it is the empty model, and is handed on as one (rlr read
        // a hair as a classifier: colon's BLogReg at lambda_max kept
        // g0839, its weight 0.0000 to four places, and rlr ranked by a
        // flip table the data did not fix).
        let h = if n == 0 || lambda >= lambda_max * (1.0 - 1e-9) {
            coefs.beta.fill(0.0);
            f64::INFINITY
        } else {
            (lambda * coefs.l1() / n as f64).ln()
        };
        Probe {
            u: lambda.ln(),
            coefs,
            h,
        }
    }

    fn above(&self) -> bool {
        self.h > 0.0
    }
}

/// lambda = N / sum|w| (eq. 7) as a root search for h(ln lambda) =
/// ln(lambda sum|w| / N) along the regularisation path, from lambda_max
/// (or `start`) down. Iterating eq. 7 directly cycles when the number of
/// non-zero weights N jumps, so the fixed point is bracketed and the
/// sparser end of the final bracket returned. See [`search`].
pub fn bayes_lambda(
    problem: &Problem<'_>,
    lambda_max: f64,
    start: Option<f64>,
    warm: &Coefs,
) -> BayesLambda {
    let lambda = start
        .unwrap_or(lambda_max)
        .clamp(lambda_floor(lambda_max), lambda_max);
    let coefs = probe_fit(problem, lambda, warm);
    let first = Probe::new(lambda, lambda_max, coefs);
    search(problem, lambda_max, first, start.is_some(), 1)
}

/// [`bayes_lambda`] from coefficients already fitted at `lambda`
/// (EM's exact M-step): when eq. 7 still holds there, a single probe
/// confirms it.
pub fn bayes_lambda_from_fit(
    problem: &Problem<'_>,
    lambda_max: f64,
    lambda: f64,
    fitted: &Coefs,
) -> BayesLambda {
    let first = Probe::new(lambda, lambda_max, fitted.clone());
    search(problem, lambda_max, first, true, 0)
}

fn probe_fit(problem: &Problem<'_>, penalty: f64, warm: &Coefs) -> Coefs {
    l1_logistic::fit(
        problem,
        Penalty {
            l1: penalty,
            l2: 0.0,
        },
        Some(warm),
        100,
        PROBE_TOL,
    )
}

/// The root search from `first`. Walking down from lambda_max the first
/// crossing is the stable fixed point the paper's greedy Algorithm 1
/// reaches by adding weights one at a time. Near the fixed point sum|w|
/// and N barely move with lambda once the rows outnumber the weights, so
/// h has slope close to 1 in ln(lambda): a Newton step with that slope,
/// u - h, which is the eq. 7 update itself, lands next to the root. Until
/// the root is bracketed the step is that, at most a halving (see
/// [`MAX_STEP`]) and at least half the final width; once bracketed, false
/// position (Illinois) in ln(lambda), kept half the final width inside
/// the bracket so that an accurate estimate closes it with the next
/// probe. That only `from_near` a previous answer (EM's re-check, the
/// end of a stride sample's walk); a search from lambda_max bisects, as the walk
/// it replaced did: where h is not monotone inside the bracket the two
/// find different crossings, and shift's kappa on pair-noised wine
/// depended on which (AUROC 0.983 bisecting, 0.966 by false position).
fn search(
    problem: &Problem<'_>,
    lambda_max: f64,
    first: Probe,
    from_near: bool,
    mut fits: usize,
) -> BayesLambda {
    let width = LAMBDA_RTOL.ln_1p();
    let (u_floor, u_max) = (lambda_floor(lambda_max).ln(), lambda_max.ln());
    let mut fit_at = |u: f64, warm: &Coefs| {
        fits += 1;
        let lambda = u.exp();
        Probe::new(lambda, lambda_max, probe_fit(problem, lambda, warm))
    };
    // Walk until the sign of h changes.
    let mut p = first;
    let (mut hi, mut lo) = loop {
        let step = (1.1 * p.h.abs() + 0.5 * width).clamp(width, MAX_STEP);
        let q = if p.above() {
            if p.u <= u_floor + 1e-12 {
                return BayesLambda {
                    lambda: p.u.exp(),
                    coefs: p.coefs,
                    found: false,
                    fits,
                };
            }
            fit_at((p.u - step).max(u_floor), &p.coefs)
        } else {
            fit_at((p.u + step).min(u_max), &p.coefs)
        };
        match (p.above(), q.above()) {
            (true, false) => break (p, q),
            (false, true) => break (q, p),
            _ => p = q,
        }
    };
    // Illinois: the end that stays twice in a row has its h halved. h
    // jumps by about 1/N where a weight enters, and the fixed point often
    // sits on such a jump, where false position creeps: a probe that did
    // not halve the bracket is followed by a bisection.
    let (mut h_hi, mut h_lo) = (hi.h, lo.h);
    let mut last_above = None;
    let mut before = f64::INFINITY;
    while hi.u - lo.u > width {
        let halved = hi.u - lo.u <= 0.5 * before;
        before = hi.u - lo.u;
        let secant = if from_near && halved && h_hi.is_finite() && h_lo.is_finite() && h_hi > h_lo {
            (lo.u * h_hi - hi.u * h_lo) / (h_hi - h_lo)
        } else {
            0.5 * (lo.u + hi.u)
        };
        let margin = (0.5 * width).min(0.25 * (hi.u - lo.u));
        let u = secant.clamp(lo.u + margin, hi.u - margin);
        let warm = if u - lo.u < hi.u - u {
            &lo.coefs
        } else {
            &hi.coefs
        };
        let q = fit_at(u, warm);
        let above = q.above();
        if above {
            (h_hi, hi) = (q.h, q);
            if last_above == Some(true) {
                h_lo *= 0.5;
            }
        } else {
            (h_lo, lo) = (q.h, q);
            if last_above == Some(false) {
                h_hi *= 0.5;
            }
        }
        last_above = Some(above);
    }
    BayesLambda {
        lambda: hi.u.exp(),
        coefs: hi.coefs,
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
    use nalgebra::DMatrix;

    /// At lambda_max the L1 optimum is no weight at all: a hair of one
    /// (rounding in the fit) is handed on as the empty model, which
    /// callers read as "kept no feature", not as a classifier.
    #[test]
    fn a_hair_of_a_weight_at_lambda_max_is_the_empty_model() {
        let mut coefs = Coefs::zeros(3, 1);
        coefs.beta[(1, 0)] = 1e-9;
        coefs.intercept[0] = 0.4;
        let probe = Probe::new(10.0, 10.0, coefs.clone());
        assert_eq!(probe.coefs.n_nonzero(), 0);
        assert_eq!(probe.coefs.intercept, [0.4]);
        assert!(probe.h.is_infinite() && probe.above());
        // Below lambda_max the same weight is a weight.
        let probe = Probe::new(5.0, 10.0, coefs);
        assert_eq!(probe.coefs.n_nonzero(), 1);
        assert!(probe.h.is_finite());
    }

    /// The search this module replaced: 0.7x steps down the path from
    /// lambda_max to its first crossing of eq. 7, then bisection, floored at
    /// 1e-4 lambda_max. The reference for the new search's answer.
    fn path_walk(p: &Problem<'_>, lambda_max: f64, warm: &Coefs) -> BayesLambda {
        let mut fits = 0;
        let mut fit_at = |lambda: f64, warm: &Coefs| {
            fits += 1;
            probe_fit(p, lambda, warm)
        };
        let above = |lambda: f64, c: &Coefs| Probe::new(lambda, lambda_max, c.clone()).above();
        let floor = 1e-4 * lambda_max;
        let mut lambda = lambda_max;
        let mut coefs = fit_at(lambda, warm);
        let mut hi = (lambda, coefs.clone());
        let mut lo = loop {
            if lambda <= floor {
                return BayesLambda {
                    lambda,
                    coefs,
                    found: false,
                    fits,
                };
            }
            lambda = (lambda * 0.7).max(floor);
            coefs = fit_at(lambda, &coefs);
            if !above(lambda, &coefs) {
                break (lambda, coefs.clone());
            }
            hi = (lambda, coefs.clone());
        };
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

    /// `f` on the standardised problem of (x, given) with one-hot targets,
    /// and its lambda_max.
    fn on_problem<R>(
        x: &DMatrix<f64>,
        given: &[usize],
        f: impl FnOnce(&Problem<'_>, f64) -> R,
    ) -> R {
        let s = Standardizer::fit(x);
        let t = one_hot(given, given.iter().max().unwrap() + 1);
        let p = Problem {
            x: Design::standardized(x, &s),
            targets: &t,
            offset: None,
            penalty_factor: None,
        };
        let lm = l1_logistic::lambda_max(&p);
        f(&p, lm)
    }

    /// Gaussian features, `k` classes by the largest of `k` noisy linear
    /// scores on the first three features.
    fn classes(n: usize, d: usize, k: usize, seed: u64) -> (DMatrix<f64>, Vec<usize>) {
        let mut rng = Rng::new(seed);
        let x = DMatrix::from_fn(n, d, |_, _| rng.normal());
        let given = (0..n)
            .map(|i| {
                let mut score = |c: usize| (c as f64 + 1.0) * x[(i, c % 3)] + rng.normal();
                (0..k)
                    .map(|c| (c, score(c)))
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .map_or(0, |(c, _)| c)
            })
            .collect();
        (x, given)
    }

    #[test]
    fn the_search_reaches_the_path_walks_fixed_point_in_fewer_fits() {
        let cases = [
            crate::eval::logistic_papers::synth_data(300, 40, 0.1, &mut Rng::new(5)),
            {
                let (x, g) = classes(400, 10, 3, 7);
                (x, Vec::new(), g)
            },
            {
                let (x, g) = classes(2000, 8, 4, 8);
                (x, Vec::new(), g)
            },
        ];
        let (mut walked, mut searched) = (0, 0);
        for (x, _, given) in &cases {
            let (old, new) = on_problem(x, given, |p, lm| {
                let zeros = Coefs::zeros(x.ncols(), p.n_logits());
                (path_walk(p, lm, &zeros), bayes_lambda(p, lm, None, &zeros))
            });
            assert!(old.found && new.found);
            // On the 4-class problem h is not monotone near the root (N
            // goes 24, 25, 24, 26 within 2%): both answers hold eq. 7.
            let gap = (new.lambda / old.lambda).ln().abs();
            assert!(
                gap < 4.0 * LAMBDA_RTOL,
                "lambda {} vs the walk's {}",
                new.lambda,
                old.lambda
            );
            assert!(
                new.fits < old.fits,
                "{} fits vs the walk's {}",
                new.fits,
                old.fits
            );
            (walked, searched) = (walked + old.fits, searched + new.fits);
        }
        // Not far fewer here: on these small problems the fixed point
        // sits where N jumps, which only bisection narrows.
        assert!(3 * searched <= 2 * walked, "{searched} fits vs {walked}");
    }

    /// With many rows lambda_max (a sum over samples) is large while eq.
    /// 7's fixed point, 1 / mean|w|, is not: a floor at a fraction of
    /// lambda_max passed over it and reported separable classes.
    #[test]
    fn a_fixed_point_far_below_lambda_max_is_found() {
        let (x, _, given) =
            crate::eval::logistic_papers::synth_data(40_000, 4, 0.0, &mut Rng::new(9));
        let (b, lm) = on_problem(&x, &given, |p, lm| {
            (bayes_lambda(p, lm, None, &Coefs::zeros(4, 1)), lm)
        });
        assert!(b.found, "{} of lambda_max {lm}", b.lambda);
        assert!(b.lambda < 1e-4 * lm, "{} of lambda_max {lm}", b.lambda);
        let rule = b.coefs.n_nonzero() as f64 / b.coefs.l1();
        assert!(
            (b.lambda / rule - 1.0).abs() < 2.0 * LAMBDA_RTOL,
            "{} vs {rule}",
            b.lambda
        );
        // The old walk's 0.7x steps took 26 probes to reach its floor
        // (1e-4 lambda_max, above this fixed point) and stopped there;
        // halvings come down in about half as many, then bisection.
        assert!(b.fits <= 25, "{} fits", b.fits);
    }

    #[test]
    fn the_bayesian_lambda_brackets_the_fixed_point_of_eq_7() {
        let (x, _, given) =
            crate::eval::logistic_papers::synth_data(300, 40, 0.1, &mut Rng::new(5));
        on_problem(&x, &given, |p, lm| {
            let b = bayes_lambda(p, lm, None, &Coefs::zeros(40, 1));
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
                p,
                Penalty { l1: below, l2: 0.0 },
                Some(&b.coefs),
                100,
                1e-10,
            );
            assert!(below * c.l1() <= c.n_nonzero() as f64);
            // Started from the answer, the search stays there.
            let again = bayes_lambda(p, lm, Some(b.lambda), &b.coefs);
            assert!((again.lambda / b.lambda - 1.0).abs() < 3.0 * LAMBDA_RTOL);
            // And from a fit there, a few probes confirm it.
            let fitted = bayes_lambda_from_fit(p, lm, b.lambda, &b.coefs);
            assert!((fitted.lambda / b.lambda - 1.0).abs() < 3.0 * LAMBDA_RTOL);
            assert!(fitted.fits <= 3, "{} fits", fitted.fits);
        });
    }
}
