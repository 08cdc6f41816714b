//! Lynch & Willett (1999), Figs. 1-2: average probability of error of the
//! Combined Bayes Test against the number of symbols M, with N = 10
//! training samples per class, tau = 1, for several mislabelling
//! probabilities alpha_k = alpha_l; one test observation (Fig. 1) or two
//! (Fig. 2, both from the same class).
//!
//! The paper computes P(e) (eq. 6-7) exactly; here it is estimated by
//! seeded Monte Carlo over what eq. (7) sums over: symbol probabilities
//! p_k, p_l from the uniform Dirichlet (eq. 2), training data of each class
//! with each sample drawn from the other class with probability alpha, and
//! the test observations — the last summed exactly (every way the N_y
//! observations can fall, weighted by its probability under p_k or p_l),
//! which removes most of the variance. The test is eq. (5) with eq. (4)
//! evaluated exactly: the sum over all arrangements of mislabelled samples
//! runs as a dynamic programme over symbols whose state is the two numbers
//! of mislabelled samples (N_kl, N_lk), since eq. (3) depends on the
//! arrangement only through per-symbol factorials and those totals. The
//! test assumes the true alpha. The paper also says any assumed alpha in
//! [0, 0.5) gives the same results; the check reports P(e) of the alpha = 0
//! test beside it.

use rayon::prelude::*;

use crate::models::numerics::{ln_gamma, log_sum_exp};
use crate::rng::Rng;

/// The mislabelling probabilities of Fig. 1.
pub const FIG1_ALPHAS: [f64; 6] = [0.0, 0.05, 0.15, 0.25, 0.35, 0.45];
/// The mislabelling probabilities of Fig. 2.
pub const FIG2_ALPHAS: [f64; 4] = [0.0, 0.05, 0.15, 0.25];
/// Training samples per class in Figs. 1-2.
pub const FIG1_N: usize = 10;
/// M* the paper reads off Fig. 1 (one test observation) per alpha of
/// [`FIG1_ALPHAS`], and off Fig. 2 for two per alpha of [`FIG2_ALPHAS`].
pub const PAPER_M_STAR_1: [usize; 6] = [4, 5, 6, 8, 10, 12];
pub const PAPER_M_STAR_2: [usize; 4] = [5, 6, 7, 9];

/// P(e) at one (alpha, M).
#[derive(Clone, Debug, PartialEq)]
pub struct Fig1Point {
    pub alpha: f64,
    pub m: usize,
    /// Mean and standard error over the trials.
    pub error: (f64, f64),
    /// The same trials decided by the alpha = 0 test.
    pub error_alpha0_test: f64,
}

/// P(e) against M for several alpha, with `n_test` test observations.
#[derive(Clone, Debug, PartialEq)]
pub struct Fig1 {
    pub n_test: usize,
    pub trials: usize,
    pub seed: u64,
    pub ms: Vec<usize>,
    pub points: Vec<Fig1Point>,
}

impl Fig1 {
    /// M* (the M of least P(e)) for one alpha.
    pub fn m_star(&self, alpha: f64) -> Option<&Fig1Point> {
        self.points
            .iter()
            .filter(|p| p.alpha == alpha)
            .min_by(|a, b| a.error.0.total_cmp(&b.error.0))
    }

    /// The M whose P(e) is within two standard errors (of the difference)
    /// of the least: the Monte Carlo cannot tell them from M*.
    pub fn m_star_range(&self, alpha: f64) -> (usize, usize) {
        let Some(best) = self.m_star(alpha) else {
            return (0, 0);
        };
        let close: Vec<usize> = self
            .points
            .iter()
            .filter(|p| p.alpha == alpha)
            .filter(|p| p.error.0 - best.error.0 <= 2.0 * p.error.1.hypot(best.error.1))
            .map(|p| p.m)
            .collect();
        (
            close.iter().copied().min().unwrap_or(0),
            close.iter().copied().max().unwrap_or(0),
        )
    }

    fn alphas(&self) -> Vec<f64> {
        let mut a: Vec<f64> = self.points.iter().map(|p| p.alpha).collect();
        a.dedup();
        a
    }

    /// The table; `paper_m_star` is the paper's M* per alpha, in order.
    pub fn to_table(&self, figure: &str, paper_m_star: &[usize]) -> String {
        let alphas = self.alphas();
        let mut out = format!(
            "Lynch & Willett (1999) {figure}: N = {FIG1_N} training samples per class, {} test \
             observation{} from one class, tau = 1, uniform Dirichlet symbol probabilities, \
             alpha_k = alpha_l; CBT of eq. (5) with eq. (4) summed exactly, assuming the true \
             alpha\n{} Monte Carlo trials per point (seed {}), test observations summed exactly; \
             P(e) mean (standard error)\n{:>4}",
            self.n_test,
            if self.n_test == 1 { "" } else { "s" },
            self.trials,
            self.seed,
            "M"
        );
        for a in &alphas {
            out.push_str(&format!(" {:>16}", format!("alpha={a:.2}")));
        }
        out.push('\n');
        for &m in &self.ms {
            out.push_str(&format!("{m:>4}"));
            for a in &alphas {
                if let Some(p) = self.points.iter().find(|p| p.m == m && p.alpha == *a) {
                    out.push_str(&format!(
                        " {:>16}",
                        format!("{:.4} ({:.4})", p.error.0, p.error.1)
                    ));
                }
            }
            out.push('\n');
        }
        let mut line = |name: &str, cell: &dyn Fn(f64, usize) -> String| {
            out.push_str(&format!("{name:>4}"));
            for (i, a) in alphas.iter().enumerate() {
                out.push_str(&format!(" {:>16}", cell(*a, i)));
            }
            out.push('\n');
        };
        line("M*", &|a, _| self.m_star(a).map_or(0, |p| p.m).to_string());
        line("2se", &|a, _| {
            let (lo, hi) = self.m_star_range(a);
            format!("{lo}..{hi}")
        });
        line("pap.", &|_, i| {
            paper_m_star
                .get(i)
                .map_or_else(|| "-".into(), usize::to_string)
        });
        out.push_str(
            "M* = least P(e); 2se = the M within two standard errors of it; pap. = the paper's M*, \
             read off its figure\nlargest |P(e) of the true-alpha test - P(e) of the alpha=0 \
             test| over M:\n    ",
        );
        for a in &alphas {
            let d = self
                .points
                .iter()
                .filter(|p| p.alpha == *a)
                .map(|p| (p.error.0 - p.error_alpha0_test).abs())
                .fold(0.0, f64::max);
            out.push_str(&format!(" {d:>16.5}"));
        }
        out.push('\n');
        out
    }
}

fn ln_fact(n: usize) -> f64 {
    ln_gamma(n as f64 + 1.0)
}

/// `n ln p`, with 0 ln 0 = 0.
fn ln_pow(p: f64, n: usize) -> f64 {
    if n == 0 { 0.0 } else { n as f64 * p.ln() }
}

/// The test observations counted at one symbol, on class k's side (under
/// H_k) or class l's (under H_l): eq. (3) adds y_i to the counts of the
/// hypothesised class.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Test {
    k: usize,
    l: usize,
}

impl Test {
    const NONE: Test = Test { k: 0, l: 0 };

    /// `y` test observations of a symbol under hypothesis `h`.
    fn at(h: Hypothesis, y: usize) -> Test {
        match h {
            Hypothesis::K => Test { k: y, l: 0 },
            Hypothesis::L => Test { k: 0, l: y },
        }
    }
}

/// Which class the test data are hypothesised to come from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Hypothesis {
    K,
    L,
}

/// The per-symbol factor of eq. (3) for a = x_kl,i mislabelled samples in
/// class k's data and b = x_lk,i in class l's:
/// (x_kk + x_lk + y_k)! (x_ll + x_kl + y_l)! / (x_kk! x_lk! x_ll! x_kl!).
fn ln_symbol_factor(u: usize, v: usize, a: usize, b: usize, test: Test) -> f64 {
    ln_fact(u - a + b + test.k) + ln_fact(v - b + a + test.l)
        - ln_fact(u - a)
        - ln_fact(b)
        - ln_fact(v - b)
        - ln_fact(a)
}

/// Adds one symbol to the DP over (N_kl, N_lk) (linear scale: the factors
/// are ratios of factorials of at most 2N + 2, far from overflow).
fn convolve(dp: &[f64], nk: usize, nl: usize, u: usize, v: usize, test: Test) -> Vec<f64> {
    let w = nl + 1;
    // The symbol's factors once, not once per DP cell.
    let factor: Vec<f64> = (0..=u)
        .flat_map(|a| (0..=v).map(move |b| ln_symbol_factor(u, v, a, b, test).exp()))
        .collect();
    let mut out = vec![0.0; (nk + 1) * w];
    for big_a in 0..=nk {
        for big_b in 0..=nl {
            let d = dp[big_a * w + big_b];
            if d == 0.0 {
                continue;
            }
            for a in 0..=u.min(nk - big_a) {
                for b in 0..=v.min(nl - big_b) {
                    out[(big_a + a) * w + big_b + b] += d * factor[a * (v + 1) + b];
                }
            }
        }
    }
    out
}

/// ln of eq. (4) up to factors common to both hypotheses, from the DP, for
/// `n_test` test observations from class `h`.
fn ln_eq4(
    dp: &[f64],
    nk: usize,
    nl: usize,
    m: usize,
    alpha: f64,
    h: Hypothesis,
    n_test: usize,
) -> f64 {
    let w = nl + 1;
    let Test { k: yk, l: yl } = Test::at(h, n_test);
    let mut terms = Vec::with_capacity(dp.len());
    for big_a in 0..=nk {
        for big_b in 0..=nl {
            let d = dp[big_a * w + big_b];
            if d <= 0.0 || (alpha == 0.0 && (big_a > 0 || big_b > 0)) {
                continue;
            }
            terms.push(
                d.ln()
                    + ln_pow(alpha, big_a)
                    + ln_pow(1.0 - alpha, nk - big_a)
                    + ln_pow(alpha, big_b)
                    + ln_pow(1.0 - alpha, nl - big_b)
                    - ln_fact(nk - big_a + big_b + yk + m - 1)
                    - ln_fact(nl - big_b + big_a + yl + m - 1),
            );
        }
    }
    log_sum_exp(&terms)
}

/// Decides H_k (true) or H_l for a test symbol: z_k > tau z_l, tau = 1;
/// equality (to rounding) goes to H_l as in eq. (6).
fn decide_k(ln_zk: f64, ln_zl: f64) -> bool {
    ln_zk - ln_zl > 1e-10 * (1.0 + ln_zk.abs())
}

fn dirichlet(m: usize, rng: &mut Rng) -> Vec<f64> {
    let e: Vec<f64> = (0..m).map(|_| -(1.0 - rng.uniform()).ln()).collect();
    let s: f64 = e.iter().sum();
    e.into_iter().map(|v| v / s).collect()
}

/// One way the test observations can fall: the observed symbols they hit
/// (with how many each), the counts at distinct symbols no training sample
/// has (those are exchangeable, so one case stands for all of them), and
/// the case's probability under each class.
struct Case {
    observed: Vec<(usize, usize)>,
    unseen: Vec<usize>,
    mass_k: f64,
    mass_l: f64,
}

/// Every case of `n_test` (1 or 2) test observations, their masses summing
/// to one under each class.
fn cases(pk: &[f64], pl: &[f64], observed: &[usize], n_test: usize) -> Vec<Case> {
    let seen: Vec<bool> = (0..pk.len()).map(|i| observed.contains(&i)).collect();
    let unseen = |p: &[f64], pow: i32| -> f64 {
        (0..p.len())
            .filter(|&i| !seen[i])
            .map(|i| p[i].powi(pow))
            .sum()
    };
    let (uk, ul) = (unseen(pk, 1), unseen(pl, 1));
    let mut out = Vec::new();
    let mut push = |observed: Vec<(usize, usize)>, unseen: Vec<usize>, mass_k: f64, mass_l: f64| {
        if mass_k + mass_l > 0.0 {
            out.push(Case {
                observed,
                unseen,
                mass_k,
                mass_l,
            });
        }
    };
    if n_test == 1 {
        push(vec![], vec![1], uk, ul);
        for &o in observed {
            push(vec![(o, 1)], vec![], pk[o], pl[o]);
        }
        return out;
    }
    let (uk2, ul2) = (unseen(pk, 2), unseen(pl, 2));
    push(vec![], vec![2], uk2, ul2);
    push(vec![], vec![1, 1], uk * uk - uk2, ul * ul - ul2);
    for (j, &o) in observed.iter().enumerate() {
        push(vec![(o, 1)], vec![1], 2.0 * pk[o] * uk, 2.0 * pl[o] * ul);
        push(vec![(o, 2)], vec![], pk[o] * pk[o], pl[o] * pl[o]);
        for &q in &observed[j + 1..] {
            push(
                vec![(o, 1), (q, 1)],
                vec![],
                2.0 * pk[o] * pk[q],
                2.0 * pl[o] * pl[q],
            );
        }
    }
    out
}

/// The counts of one trial's training data per symbol, and their size.
struct Training<'a> {
    xk: &'a [usize],
    xl: &'a [usize],
    observed: &'a [usize],
    n: usize,
    m: usize,
}

impl Training<'_> {
    /// ln eq. (4) with the test data of `case` from class `h`, for each
    /// assumed alpha.
    fn ln_z(&self, case: &Case, h: Hypothesis, n_test: usize, alphas: [f64; 2]) -> [f64; 2] {
        let n = self.n;
        let mut dp = vec![0.0; (n + 1) * (n + 1)];
        dp[0] = 1.0;
        for &i in self.observed {
            let t = case
                .observed
                .iter()
                .find(|(o, _)| *o == i)
                .map_or(Test::NONE, |&(_, c)| Test::at(h, c));
            dp = convolve(&dp, n, n, self.xk[i], self.xl[i], t);
        }
        for &c in &case.unseen {
            dp = convolve(&dp, n, n, 0, 0, Test::at(h, c));
        }
        alphas.map(|a| ln_eq4(&dp, n, n, self.m, a, h, n_test))
    }
}

/// Conditional P(e) of one trial (training data drawn), summed exactly
/// over the `n_test` test observations: for the test assuming the true
/// alpha, and for the alpha = 0 test.
fn trial(m: usize, alpha: f64, n: usize, n_test: usize, rng: &mut Rng) -> (f64, f64) {
    let pk = dirichlet(m, rng);
    let pl = dirichlet(m, rng);
    let mut xk = vec![0usize; m];
    let mut xl = vec![0usize; m];
    for _ in 0..n {
        let from_l = rng.uniform() < alpha;
        xk[rng.categorical(if from_l { &pl } else { &pk })] += 1;
    }
    for _ in 0..n {
        let from_k = rng.uniform() < alpha;
        xl[rng.categorical(if from_k { &pk } else { &pl })] += 1;
    }
    let observed: Vec<usize> = (0..m).filter(|&i| xk[i] + xl[i] > 0).collect();
    let training = Training {
        xk: &xk,
        xl: &xl,
        observed: &observed,
        n,
        m,
    };
    let (mut error, mut error0) = (0.0, 0.0);
    for case in cases(&pk, &pl, &observed, n_test) {
        let zk = training.ln_z(&case, Hypothesis::K, n_test, [alpha, 0.0]);
        let zl = training.ln_z(&case, Hypothesis::L, n_test, [alpha, 0.0]);
        let wrong = |k: bool| 0.5 * if k { case.mass_l } else { case.mass_k };
        error += wrong(decide_k(zk[0], zl[0]));
        error0 += wrong(decide_k(zk[1], zl[1]));
    }
    (error, error0)
}

/// P(e) against M by Monte Carlo: `trials` training draws per (alpha, M),
/// each point with its own seed stream derived from `seed`; `n_test` (1 or
/// 2) test observations.
pub fn curve(alphas: &[f64], ms: &[usize], n_test: usize, trials: usize, seed: u64) -> Fig1 {
    let jobs: Vec<(usize, f64, usize)> = alphas
        .iter()
        .enumerate()
        .flat_map(|(ai, &a)| ms.iter().map(move |&m| (ai, a, m)))
        .collect();
    let points: Vec<Fig1Point> = jobs
        .par_iter()
        .map(|&(ai, alpha, m)| {
            let mut rng =
                Rng::new(seed ^ ((ai as u64) << 32) ^ (m as u64).wrapping_mul(0x9E37_79B9));
            let mut sum = 0.0;
            let mut sum_sq = 0.0;
            let mut sum0 = 0.0;
            for _ in 0..trials {
                let (e, e0) = trial(m, alpha, FIG1_N, n_test, &mut rng);
                sum += e;
                sum_sq += e * e;
                sum0 += e0;
            }
            let t = trials as f64;
            let mean = sum / t;
            let var = (sum_sq / t - mean * mean).max(0.0) * t / (t - 1.0).max(1.0);
            Fig1Point {
                alpha,
                m,
                error: (mean, (var / t).sqrt()),
                error_alpha0_test: sum0 / t,
            }
        })
        .collect();
    Fig1 {
        n_test,
        trials,
        seed,
        ms: ms.to_vec(),
        points,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Brute force of eq. (4): every arrangement of mislabelled samples
    /// enumerated symbol by symbol; `y` holds the test counts per symbol.
    fn brute_ln_eq4(xk: &[usize], xl: &[usize], y: &[usize], alpha: f64, h: Hypothesis) -> f64 {
        let m = xk.len();
        let n_test: usize = y.iter().sum();
        let at = Test::at(h, n_test);
        let n = xk.iter().sum::<usize>();
        let nl = xl.iter().sum::<usize>();
        let mut terms = Vec::new();
        let mut a = vec![0usize; m];
        let mut b = vec![0usize; m];
        loop {
            let (sa, sb): (usize, usize) = (a.iter().sum(), b.iter().sum());
            let mut t = ln_pow(alpha, sa)
                + ln_pow(1.0 - alpha, n - sa)
                + ln_pow(alpha, sb)
                + ln_pow(1.0 - alpha, nl - sb)
                - ln_fact(n - sa + sb + at.k + m - 1)
                - ln_fact(nl - sb + sa + at.l + m - 1);
            for i in 0..m {
                t += ln_symbol_factor(xk[i], xl[i], a[i], b[i], Test::at(h, y[i]));
            }
            if t.is_finite() {
                terms.push(t);
            }
            // Next arrangement (odometer over a then b).
            let mut i = 0;
            loop {
                if i == 2 * m {
                    return log_sum_exp(&terms);
                }
                let (v, cap) = if i < m {
                    (&mut a[i], xk[i])
                } else {
                    (&mut b[i - m], xl[i - m])
                };
                if *v < cap {
                    *v += 1;
                    break;
                }
                *v = 0;
                i += 1;
            }
        }
    }

    fn dp_of(xk: &[usize], xl: &[usize], y: &[usize], h: Hypothesis) -> Vec<f64> {
        let mut dp = vec![0.0; 5 * 5];
        dp[0] = 1.0;
        for i in 0..xk.len() {
            dp = convolve(&dp, 4, 4, xk[i], xl[i], Test::at(h, y[i]));
        }
        dp
    }

    #[test]
    fn the_dp_equals_eq4_summed_over_every_arrangement() {
        let xk = [2, 1, 0, 1];
        let xl = [0, 2, 1, 1];
        let m = 4;
        // One test observation at each symbol, and two at every pair.
        let mut tests: Vec<Vec<usize>> = (0..m)
            .map(|y| (0..m).map(|i| usize::from(i == y)).collect())
            .collect();
        for y1 in 0..m {
            for y2 in y1..m {
                tests.push(
                    (0..m)
                        .map(|i| usize::from(i == y1) + usize::from(i == y2))
                        .collect(),
                );
            }
        }
        for y in &tests {
            let n_test = y.iter().sum();
            for &alpha in &[0.0, 0.1, 0.3] {
                for h in [Hypothesis::K, Hypothesis::L] {
                    let fast = ln_eq4(&dp_of(&xk, &xl, y, h), 4, 4, m, alpha, h, n_test);
                    let slow = brute_ln_eq4(&xk, &xl, y, alpha, h);
                    assert!(
                        (fast - slow).abs() < 1e-10,
                        "y {y:?} alpha {alpha}: {fast} vs {slow}"
                    );
                }
            }
        }
    }

    #[test]
    fn without_mislabelling_the_test_compares_smoothed_counts() {
        // alpha = 0, equal N: z_k / z_l = (x_k,y + 1) / (x_l,y + 1) for one
        // observation, and for two at one symbol
        // (x_k,y + 1)(x_k,y + 2) / ((x_l,y + 1)(x_l,y + 2)).
        let xk = [3, 1, 0];
        let xl = [1, 1, 2];
        let ratio = |y: [usize; 3]| {
            let n = y.iter().sum();
            ln_eq4(
                &dp_of(&xk, &xl, &y, Hypothesis::K),
                4,
                4,
                3,
                0.0,
                Hypothesis::K,
                n,
            ) - ln_eq4(
                &dp_of(&xk, &xl, &y, Hypothesis::L),
                4,
                4,
                3,
                0.0,
                Hypothesis::L,
                n,
            )
        };
        assert!((ratio([1, 0, 0]) - (4.0f64 / 2.0).ln()).abs() < 1e-12);
        assert!((ratio([2, 0, 0]) - (20.0f64 / 6.0).ln()).abs() < 1e-12);
        assert!((ratio([1, 0, 1]) - (4.0f64 / 2.0 / 3.0).ln()).abs() < 1e-12);
    }

    #[test]
    fn the_cases_of_the_test_data_hold_all_their_probability() {
        let pk = [0.1, 0.2, 0.3, 0.25, 0.15];
        let pl = [0.3, 0.1, 0.1, 0.2, 0.3];
        for n_test in [1, 2] {
            let c = cases(&pk, &pl, &[1, 3], n_test);
            let (k, l): (f64, f64) = c
                .iter()
                .map(|c| (c.mass_k, c.mass_l))
                .fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
            assert!(
                (k - 1.0).abs() < 1e-12 && (l - 1.0).abs() < 1e-12,
                "{n_test}: {k} {l}"
            );
        }
    }

    #[test]
    fn error_has_an_interior_minimum_and_grows_with_alpha() {
        let f = curve(&[0.0, 0.35], &[2, 4, 16], 1, 300, 1);
        let e = |a: f64, m: usize| {
            f.points
                .iter()
                .find(|p| p.alpha == a && p.m == m)
                .unwrap()
                .error
                .0
        };
        let table = f.to_table("Fig. 1", &PAPER_M_STAR_1);
        assert!(e(0.0, 4) < e(0.0, 2) && e(0.0, 4) < e(0.0, 16), "{table}");
        for m in [2, 4, 16] {
            assert!(e(0.35, m) > e(0.0, m), "{table}");
        }
        assert!(table.contains("M*") && table.contains("pap."), "{table}");
    }

    #[test]
    fn two_test_observations_lower_the_error() {
        let one = curve(&[0.0], &[4], 1, 300, 2);
        let two = curve(&[0.0], &[4], 2, 300, 2);
        assert!(
            two.points[0].error.0 < one.points[0].error.0,
            "{two:?} {one:?}"
        );
    }
}
