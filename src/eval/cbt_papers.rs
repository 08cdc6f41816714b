//! Lynch & Willett (1999), Fig. 1: average probability of error of the
//! Combined Bayes Test against the number of symbols M, with N = 10
//! training samples per class, one test observation, tau = 1, for several
//! mislabelling probabilities alpha_k = alpha_l.
//!
//! The paper computes P(e) (eq. 6-7) exactly; here it is estimated by
//! seeded Monte Carlo over what eq. (7) sums over: symbol probabilities
//! p_k, p_l from the uniform Dirichlet (eq. 2), training data of each class
//! with each sample drawn from the other class with probability alpha, and
//! the test observation — the last summed exactly (every symbol y weighted
//! by p_k(y) or p_l(y)), which removes most of the variance. The test is
//! eq. (5) with eq. (4) evaluated exactly: the sum over all arrangements of
//! mislabelled samples runs as a dynamic programme over symbols whose state
//! is the two numbers of mislabelled samples (N_kl, N_lk), since eq. (3)
//! depends on the arrangement only through per-symbol factorials and those
//! totals. The test assumes the true alpha. The paper also says any assumed
//! alpha in [0, 0.5) gives the same results; the check reports P(e) of the
//! alpha = 0 test beside it.

use rayon::prelude::*;

use crate::models::numerics::{ln_gamma, log_sum_exp};
use crate::rng::Rng;

/// The mislabelling probabilities of Fig. 1.
pub const FIG1_ALPHAS: [f64; 6] = [0.0, 0.05, 0.15, 0.25, 0.35, 0.45];
/// Training samples per class in Fig. 1.
pub const FIG1_N: usize = 10;

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

#[derive(Clone, Debug, PartialEq)]
pub struct Fig1 {
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

    pub fn to_table(&self) -> String {
        let alphas: Vec<f64> = {
            let mut a: Vec<f64> = self.points.iter().map(|p| p.alpha).collect();
            a.dedup();
            a
        };
        let mut out = format!(
            "Lynch & Willett (1999) Fig. 1 setting: N = {FIG1_N} training samples per class, one test \
             observation, tau = 1, uniform Dirichlet symbol probabilities, alpha_k = alpha_l; CBT of \
             eq. (5) with eq. (4) summed exactly, assuming the true alpha\n\
             {} Monte Carlo trials per point (seed {}), test observation summed exactly; P(e) mean (standard error)\n{:>4}",
            self.trials, self.seed, "M"
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
        out.push_str(&format!("{:>4}", "M*"));
        for a in &alphas {
            let m = self.m_star(*a).map_or(0, |p| p.m);
            out.push_str(&format!(" {m:>16}"));
        }
        out.push('\n');
        out.push_str(
            "largest |P(e) of the true-alpha test - P(e) of the alpha=0 test| over M:\n    ",
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
        out.push_str("\npaper (read off Fig. 1): M* = 4, 5, 6, 8, 10, 12 for alpha = 0, 0.05, 0.15, 0.25, 0.35, 0.45\n");
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

/// Which class the test observation's symbol is counted with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Test {
    None,
    K,
    L,
}

/// The per-symbol factor of eq. (3) for a = x_kl,i mislabelled samples in
/// class k's data and b = x_lk,i in class l's:
/// (x_kk + x_lk + y)! (x_ll + x_kl + y)! / (x_kk! x_lk! x_ll! x_kl!).
fn ln_symbol_factor(u: usize, v: usize, a: usize, b: usize, test: Test) -> f64 {
    let yk = usize::from(test == Test::K);
    let yl = usize::from(test == Test::L);
    ln_fact(u - a + b + yk) + ln_fact(v - b + a + yl)
        - ln_fact(u - a)
        - ln_fact(b)
        - ln_fact(v - b)
        - ln_fact(a)
}

/// Adds one symbol to the DP over (N_kl, N_lk) (linear scale: the factors
/// are ratios of factorials of at most 2N + 1, far from overflow).
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

/// ln of eq. (4) up to factors common to both hypotheses, from the DP.
fn ln_eq4(dp: &[f64], nk: usize, nl: usize, m: usize, alpha: f64, h: Test) -> f64 {
    let w = nl + 1;
    let yk = usize::from(h == Test::K);
    let yl = usize::from(h == Test::L);
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

/// Conditional P(e) of one trial (training data drawn), summed over the
/// test symbol: for the test assuming the true alpha, and for the alpha = 0
/// test.
fn trial(m: usize, alpha: f64, n: usize, rng: &mut Rng) -> (f64, f64) {
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
    let start = {
        let mut d = vec![0.0; (n + 1) * (n + 1)];
        d[0] = 1.0;
        d
    };
    let dp_without = |skip: Option<usize>| {
        observed
            .iter()
            .filter(|&&i| Some(i) != skip)
            .fold(start.clone(), |dp, &i| {
                convolve(&dp, n, n, xk[i], xl[i], Test::None)
            })
    };
    let mut error = 0.0;
    let mut error0 = 0.0;
    let mut add = |y_mass_k: f64, y_mass_l: f64, k_true_alpha: bool, k_alpha0: bool| {
        error += 0.5 * if k_true_alpha { y_mass_l } else { y_mass_k };
        error0 += 0.5 * if k_alpha0 { y_mass_l } else { y_mass_k };
    };
    // Symbols no training sample has: all decided alike.
    let all = dp_without(None);
    let (unseen_k, unseen_l): (f64, f64) = (0..m)
        .filter(|&i| xk[i] + xl[i] == 0)
        .map(|i| (pk[i], pl[i]))
        .fold((0.0, 0.0), |(a, b), (c, d)| (a + c, b + d));
    if unseen_k + unseen_l > 0.0 {
        let zk = ln_eq4(&all, n, n, m, alpha, Test::K);
        let zl = ln_eq4(&all, n, n, m, alpha, Test::L);
        let zk0 = ln_eq4(&all, n, n, m, 0.0, Test::K);
        let zl0 = ln_eq4(&all, n, n, m, 0.0, Test::L);
        add(unseen_k, unseen_l, decide_k(zk, zl), decide_k(zk0, zl0));
    }
    for &y in &observed {
        let rest = dp_without(Some(y));
        let with_k = convolve(&rest, n, n, xk[y], xl[y], Test::K);
        let with_l = convolve(&rest, n, n, xk[y], xl[y], Test::L);
        let zk = ln_eq4(&with_k, n, n, m, alpha, Test::K);
        let zl = ln_eq4(&with_l, n, n, m, alpha, Test::L);
        let zk0 = ln_eq4(&with_k, n, n, m, 0.0, Test::K);
        let zl0 = ln_eq4(&with_l, n, n, m, 0.0, Test::L);
        add(pk[y], pl[y], decide_k(zk, zl), decide_k(zk0, zl0));
    }
    (error, error0)
}

/// Fig. 1 by Monte Carlo: `trials` training draws per (alpha, M), each
/// point with its own seed stream derived from `seed`.
pub fn fig1(alphas: &[f64], ms: &[usize], trials: usize, seed: u64) -> Fig1 {
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
                let (e, e0) = trial(m, alpha, FIG1_N, &mut rng);
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
    /// enumerated symbol by symbol.
    fn brute_ln_eq4(xk: &[usize], xl: &[usize], y: usize, m: usize, alpha: f64, h: Test) -> f64 {
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
                - ln_fact(n - sa + sb + usize::from(h == Test::K) + m - 1)
                - ln_fact(nl - sb + sa + usize::from(h == Test::L) + m - 1);
            for i in 0..m {
                let test = if i == y { h } else { Test::None };
                t += ln_symbol_factor(xk[i], xl[i], a[i], b[i], test);
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

    #[test]
    fn the_dp_equals_eq4_summed_over_every_arrangement() {
        let xk = [2, 1, 0, 1];
        let xl = [0, 2, 1, 1];
        let m = 4;
        for y in 0..m {
            for &alpha in &[0.0, 0.1, 0.3] {
                for h in [Test::K, Test::L] {
                    let mut dp = vec![0.0; 5 * 5];
                    dp[0] = 1.0;
                    for i in 0..m {
                        let t = if i == y { h } else { Test::None };
                        dp = convolve(&dp, 4, 4, xk[i], xl[i], t);
                    }
                    let fast = ln_eq4(&dp, 4, 4, m, alpha, h);
                    let slow = brute_ln_eq4(&xk, &xl, y, m, alpha, h);
                    assert!(
                        (fast - slow).abs() < 1e-10,
                        "y {y} alpha {alpha}: {fast} vs {slow}"
                    );
                }
            }
        }
    }

    #[test]
    fn without_mislabelling_the_test_compares_smoothed_counts() {
        // alpha = 0: z_k / z_l = (x_k,y + 1) / (x_l,y + 1) for equal N.
        let xk = [3, 1, 0];
        let xl = [1, 1, 2];
        let mut dp = vec![0.0; 5 * 5];
        dp[0] = 1.0;
        for i in 0..3 {
            dp = convolve(&dp, 4, 4, xk[i], xl[i], Test::None);
        }
        // Symbol 0 with y counted nowhere: check the ratio through eq. (4)
        // with y added to each side.
        let mut rest = vec![0.0; 25];
        rest[0] = 1.0;
        for i in 1..3 {
            rest = convolve(&rest, 4, 4, xk[i], xl[i], Test::None);
        }
        let zk = ln_eq4(&convolve(&rest, 4, 4, 3, 1, Test::K), 4, 4, 3, 0.0, Test::K);
        let zl = ln_eq4(&convolve(&rest, 4, 4, 3, 1, Test::L), 4, 4, 3, 0.0, Test::L);
        assert!(((zk - zl) - (4.0f64 / 2.0).ln()).abs() < 1e-12);
    }

    #[test]
    fn error_has_an_interior_minimum_and_grows_with_alpha() {
        let f = fig1(&[0.0, 0.35], &[2, 4, 16], 300, 1);
        let e = |a: f64, m: usize| {
            f.points
                .iter()
                .find(|p| p.alpha == a && p.m == m)
                .unwrap()
                .error
                .0
        };
        assert!(
            e(0.0, 4) < e(0.0, 2) && e(0.0, 4) < e(0.0, 16),
            "{}",
            f.to_table()
        );
        for m in [2, 4, 16] {
            assert!(e(0.35, m) > e(0.0, m), "{}", f.to_table());
        }
        assert!(f.to_table().contains("M*"));
    }
}
