//! Numerically stable special functions the models share: sums and
//! normalisations in log space, the logistic function and its log, log
//! Gamma, and the convergence test of the iterative fits.

use nalgebra::DMatrix;

/// `log(sum(exp(v)))` without overflow: shift by the maximum first (the
/// standard identity log sum exp(v) = m + log sum exp(v - m)). Returns
/// `-inf` for an empty slice or when every entry is `-inf`.
pub fn log_sum_exp(v: &[f64]) -> f64 {
    let m = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if m == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    if m == f64::INFINITY {
        return f64::INFINITY;
    }
    m + v.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
}

/// Normalises each row of a matrix of log-weights into probabilities in
/// place and returns the sum of the row log-normalisers (the log-likelihood
/// when the rows are log joint densities).
pub fn normalise_log_rows(log_w: &mut DMatrix<f64>) -> f64 {
    use rayon::prelude::*;
    let (n, k) = log_w.shape();
    if n == 0 {
        return 0.0;
    }
    // Rows are independent: blocks of rows on all cores, each row's max and
    // sum taken over the columns in order as a serial pass would, so the
    // values do not depend on the thread count.
    let lse: Vec<f64> = {
        let data = log_w.as_slice();
        (0..n)
            .into_par_iter()
            .with_min_len(ROW_BLOCK)
            .map(|i| {
                let m = (0..k).fold(f64::NEG_INFINITY, |m, c| m.max(data[c * n + i]));
                if !m.is_finite() {
                    return m;
                }
                let s: f64 = (0..k).fold(0.0, |s, c| s + (data[c * n + i] - m).exp());
                m + s.ln()
            })
            .collect()
    };
    log_w.as_mut_slice().par_chunks_mut(n).for_each(|col| {
        col.par_chunks_mut(ROW_BLOCK)
            .enumerate()
            .for_each(|(b, block)| {
                for (o, v) in block.iter_mut().enumerate() {
                    let l = lse[b * ROW_BLOCK + o];
                    *v = if l.is_finite() {
                        (*v - l).exp()
                    } else {
                        1.0 / k as f64
                    };
                }
            });
    });
    lse.iter().sum()
}

/// Rows per parallel task of [`normalise_log_rows`].
const ROW_BLOCK: usize = 4096;

/// Logistic function, computed so that neither tail overflows.
pub fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// `log(sigmoid(z))` = `-log(1 + exp(-z))`, stable in both tails.
pub fn log_sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        -(-z).exp().ln_1p()
    } else {
        z - z.exp().ln_1p()
    }
}

/// How many of `labels` fall in each of `k` classes.
pub fn class_counts(labels: &[usize], k: usize) -> Vec<usize> {
    let mut counts = vec![0; k];
    for &l in labels {
        counts[l] += 1;
    }
    counts
}

/// 0/1 weights from hard labels (n x K), for fitting with trusted labels.
pub fn one_hot(labels: &[usize], k: usize) -> DMatrix<f64> {
    let mut w = DMatrix::zeros(labels.len(), k);
    for (i, &l) in labels.iter().enumerate() {
        w[(i, l)] = 1.0;
    }
    w
}

/// Stops a loop once the objective has settled: relative change below `tol`.
pub fn relative_change(previous: f64, current: f64) -> f64 {
    (current - previous).abs() / previous.abs().max(1e-12)
}

/// `ln Gamma(x)` for x > 0 by the Lanczos approximation (g = 7, 9 terms,
/// relative error about 1e-15), with the reflection formula below 0.5.
/// Factorials of counts in the Dirichlet-multinomial formulas overflow f64
/// past 170!, so they are handled as `ln_gamma(n + 1)`.
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEF: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = COEF[0];
    let t = x + G + 0.5;
    for (i, c) in COEF.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// `ln(exp(a) + exp(b))` without overflow.
pub fn log_add_exp(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        return hi;
    }
    hi + (lo - hi).exp().ln_1p()
}

/// Groups a parallel sum is split into: the sum's association is fixed by
/// the blocks alone, whatever the cores (up to this many of them busy).
const SUM_GROUPS: usize = 8;

/// The sum of `term(b)` over `blocks`, in parallel but always associated
/// the same way: [`SUM_GROUPS`] contiguous runs of blocks, each summed in
/// order, then the runs in order. Rayon's `reduce` associates partial sums
/// as the work happens to be stolen, so the same fit on the same rows could
/// differ in its last bits from run to run, and with the number of cores.
/// `zero` is the sum of nothing.
pub fn ordered_sum<F>(blocks: &[usize], zero: &DMatrix<f64>, term: F) -> DMatrix<f64>
where
    F: Fn(usize) -> DMatrix<f64> + Sync,
{
    use rayon::prelude::*;
    let per_group = blocks.len().div_ceil(SUM_GROUPS).max(1);
    blocks
        .par_chunks(per_group)
        .map(|group| group.iter().fold(zero.clone(), |acc, &b| acc + term(b)))
        .collect::<Vec<_>>()
        .into_iter()
        .fold(zero.clone(), |acc, part| acc + part)
}

/// [`ordered_sum`] of several sums at once (`term(b)` gives one term of
/// each), associated the same way, so each comes out as its own
/// `ordered_sum` would: what lets one pass over a block of rows serve
/// every component.
pub fn ordered_sums<F>(blocks: &[usize], zero: &[DMatrix<f64>], term: F) -> Vec<DMatrix<f64>>
where
    F: Fn(usize) -> Vec<DMatrix<f64>> + Sync,
{
    use rayon::prelude::*;
    let add = |mut acc: Vec<DMatrix<f64>>, t: Vec<DMatrix<f64>>| {
        acc.iter_mut().zip(t).for_each(|(a, t)| *a += t);
        acc
    };
    let per_group = blocks.len().div_ceil(SUM_GROUPS).max(1);
    blocks
        .par_chunks(per_group)
        .map(|group| {
            group
                .iter()
                .fold(zero.to_vec(), |acc, &b| add(acc, term(b)))
        })
        .collect::<Vec<_>>()
        .into_iter()
        .fold(zero.to_vec(), add)
}

/// A^T B without copying A transposed. nalgebra hands products of
/// dynamic matrices beyond 5 x 5 to matrixmultiply, which reads A^T in
/// place through strides (`a.transpose()` first scattered a copy as large
/// as A); its own loop for smaller shapes assumes unit row strides (it
/// crashed on such a view), so those take `tr_mul`'s dot products.
pub fn tr_product(a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    const NALGEBRA_SMALL_DIM: usize = 5;
    let (rows, m) = a.shape();
    if m <= NALGEBRA_SMALL_DIM || b.ncols() <= NALGEBRA_SMALL_DIM || rows <= NALGEBRA_SMALL_DIM {
        return a.tr_mul(b);
    }
    let at = nalgebra::DMatrixView::from_slice_with_strides(a.as_slice(), m, rows, rows, 1);
    let mut g = DMatrix::zeros(m, b.ncols());
    g.gemm(1.0, &at, b, 0.0);
    g
}

/// The maximum-likelihood multinomial `counts` (or a row of probabilities)
/// under the constraint that entry `d` is at least every other
/// (order-restricted inference: the maximum of a tree order): `d` is pooled
/// with the largest entries for as long as they exceed the pooled mean.
/// Keeps the total; returns whether anything was pooled. The flip tables
/// of rnda, rmda, rlr and probs stay diagonally dominant by it (issue 10's
/// identifiability condition).
pub fn hold_diagonal(counts: &mut [f64], d: usize) -> bool {
    let mut others: Vec<usize> = (0..counts.len()).filter(|&j| j != d).collect();
    others.sort_by(|a, b| counts[*b].total_cmp(&counts[*a]));
    let (mut sum, mut pooled) = (counts[d], 1usize);
    for &j in &others {
        if counts[j] > sum / pooled as f64 {
            sum += counts[j];
            pooled += 1;
        } else {
            break;
        }
    }
    if pooled == 1 {
        return false;
    }
    let mean = sum / pooled as f64;
    counts[d] = mean;
    for &j in &others[..pooled - 1] {
        counts[j] = mean;
    }
    true
}

/// Asserts that a log-likelihood trace never falls by more than `rel_tol`
/// of its size: EM's monotonicity, checked by every EM model's tests.
#[cfg(test)]
pub fn assert_never_falls(trace: &[f64], rel_tol: f64, what: &str) {
    for w in trace.windows(2) {
        assert!(
            w[1] >= w[0] - rel_tol * w[0].abs(),
            "{what}: {} then {}",
            w[0],
            w[1]
        );
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ln_gamma_matches_factorials_and_half_integers() {
        let mut f = 0.0f64;
        for n in 1..=30u32 {
            f += f64::from(n).ln();
            let got = ln_gamma(f64::from(n) + 1.0);
            assert!((got - f).abs() < 1e-12 * f.max(1.0), "{n}: {got} vs {f}");
        }
        let half = std::f64::consts::PI.sqrt().ln();
        assert!((ln_gamma(0.5) - half).abs() < 1e-13);
        assert!(ln_gamma(1.0).abs() < 1e-14 && ln_gamma(2.0).abs() < 1e-14);
        // Stirling with two correction terms at a large argument.
        let x: f64 = 1e6;
        let stirling =
            (x - 0.5) * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI).ln() + 1.0 / (12.0 * x);
        assert!((ln_gamma(x) - stirling).abs() < 1e-6);
        assert!((log_add_exp(1000.0, 1000.0) - (1000.0 + 2f64.ln())).abs() < 1e-12);
    }

    #[test]
    fn log_sum_exp_survives_large_and_small_values() {
        assert!((log_sum_exp(&[1000.0, 1000.0]) - (1000.0 + 2f64.ln())).abs() < 1e-12);
        assert!((log_sum_exp(&[-1000.0, -1000.0]) - (-1000.0 + 2f64.ln())).abs() < 1e-12);
        assert_eq!(log_sum_exp(&[]), f64::NEG_INFINITY);
        assert_eq!(
            log_sum_exp(&[f64::NEG_INFINITY, f64::NEG_INFINITY]),
            f64::NEG_INFINITY
        );
    }

    #[test]
    fn normalised_rows_sum_to_one_and_return_the_log_likelihood() {
        let mut m = DMatrix::from_row_slice(2, 2, &[0.0, 0.0, -800.0, -801.0]);
        let ll = normalise_log_rows(&mut m);
        assert!((m[(0, 0)] - 0.5).abs() < 1e-12);
        assert!((m.row(1).sum() - 1.0).abs() < 1e-12);
        let expected = 2f64.ln() + (-800.0 + (1.0 + (-1f64).exp()).ln());
        assert!((ll - expected).abs() < 1e-9);
    }

    #[test]
    fn sigmoid_tails_are_finite() {
        assert_eq!(sigmoid(-1000.0), 0.0);
        assert_eq!(sigmoid(1000.0), 1.0);
        assert!((log_sigmoid(-1000.0) + 1000.0).abs() < 1e-9);
        assert!(log_sigmoid(1000.0).abs() < 1e-12);
        assert!((log_sigmoid(0.3) - sigmoid(0.3).ln()).abs() < 1e-12);
    }

    /// Terms of very different sizes, whose float sum depends on how it is
    /// associated: the same bits from pools of one, two and seven threads
    /// and from repeated calls.
    #[test]
    fn an_ordered_sum_is_the_same_whatever_the_threads() {
        let blocks: Vec<usize> = (0..37).collect();
        let term = |b: usize| {
            let v = if b.is_multiple_of(3) {
                1e16
            } else {
                1.0 + b as f64 * 1e-3
            };
            DMatrix::from_element(2, 2, if b.is_multiple_of(2) { v } else { -v / 3.0 })
        };
        let zero = DMatrix::zeros(2, 2);
        let sum_with = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| ordered_sum(&blocks, &zero, term))
        };
        let one = sum_with(1);
        for threads in [2, 7, 2, 7] {
            assert_eq!(sum_with(threads), one);
        }
        // And it is the sum: near 1e16 only the large terms count.
        let plain: f64 = blocks.iter().map(|&b| term(b)[(0, 0)]).sum();
        assert!((one[(0, 0)] - plain).abs() <= 1e-12 * plain.abs().max(1.0) + 16.0);
    }
}
