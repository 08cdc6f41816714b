//! The per-symbol fixed point of the expected true-class counts.
//!
//! The alpha search calls it for every (symbol, label) pair at every trial
//! alpha (gauss_200k: 2.7 million calls, 33 iterations each), so it runs on
//! the stack for up to `MAX_FIXED` classes, with the products of x and the
//! flip rows that the iterations share taken out of the loop. Every value
//! is the one the plain loop ([`split_general`]) computes, operation for
//! operation: the alpha search compares likelihoods, and a last-bit change
//! could move its choice.

/// Fixed-point iterations per symbol at most.
const SPLIT_ITERATIONS: usize = 500;
/// Classes up to this many take the stack path.
const MAX_FIXED: usize = 8;

/// The expected true-class counts of one symbol with given-label counts
/// `x`: the fixed point c_t = sum_g x_g r_g(t),
/// r_g(t) ∝ A[g][t] (c_t + 1) / (n_t + M). `weight[t]` is 1 / (n_t + M)
/// up to a common factor.
pub fn split_counts(x: &[f64], a: &[f64], weight: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; weight.len()];
    split_counts_into(x, a, weight, &mut c);
    c
}

/// [`split_counts`] into `out` (K values).
pub fn split_counts_into(x: &[f64], a: &[f64], weight: &[f64], out: &mut [f64]) {
    if x.len() > 2 * MAX_FIXED {
        out.copy_from_slice(&split_general(x, a, weight));
        return;
    }
    match weight.len() {
        2 => split_fixed::<2>(x, a, weight, out),
        3 => split_fixed::<3>(x, a, weight, out),
        4 => split_fixed::<4>(x, a, weight, out),
        5 => split_fixed::<5>(x, a, weight, out),
        6 => split_fixed::<6>(x, a, weight, out),
        7 => split_fixed::<7>(x, a, weight, out),
        8 => split_fixed::<8>(x, a, weight, out),
        _ => out.copy_from_slice(&split_general(x, a, weight)),
    }
}

/// Two [`split_counts_into`] side by side. An iteration is a chain of
/// dependent sums and divisions that leaves the divider idle between
/// links; a second, independent chain fills those gaps. Each is computed
/// exactly as alone and stops at its own convergence.
pub fn split_two(x: [&[f64]; 2], a: &[f64], weight: [&[f64]; 2], out: [&mut [f64]; 2]) {
    let [o0, o1] = out;
    if x[0].len() > 2 * MAX_FIXED || x[0].len() != x[1].len() {
        split_counts_into(x[0], a, weight[0], o0);
        split_counts_into(x[1], a, weight[1], o1);
        return;
    }
    match weight[0].len() {
        2 => two_fixed::<2>(x, a, weight, [o0, o1]),
        3 => two_fixed::<3>(x, a, weight, [o0, o1]),
        4 => two_fixed::<4>(x, a, weight, [o0, o1]),
        5 => two_fixed::<5>(x, a, weight, [o0, o1]),
        6 => two_fixed::<6>(x, a, weight, [o0, o1]),
        7 => two_fixed::<7>(x, a, weight, [o0, o1]),
        8 => two_fixed::<8>(x, a, weight, [o0, o1]),
        _ => {
            split_counts_into(x[0], a, weight[0], o0);
            split_counts_into(x[1], a, weight[1], o1);
        }
    }
}

/// The starting point, x's counts passed through the flip table.
fn start(x: &[f64], a: &[f64], k: usize, t: usize) -> f64 {
    (0..x.len()).map(|g| x[g] * a[g * k + t]).sum()
}

/// One symbol's fixed point for K classes, at most 2K label groups (the
/// given labels and the decided classes).
struct Fixed<const K: usize> {
    c: [f64; K],
    w: [f64; K],
    /// The groups with samples: their flip rows, and x_g A[g][t], the
    /// first product of every update term.
    rows: [[f64; K]; 2 * MAX_FIXED],
    scaled: [[f64; K]; 2 * MAX_FIXED],
    n: usize,
    tol: f64,
    iterations: usize,
    done: bool,
}

impl<const K: usize> Fixed<K> {
    fn new(x: &[f64], a: &[f64], weight: &[f64]) -> Self {
        let total: f64 = x.iter().sum();
        let mut rows = [[0.0; K]; 2 * MAX_FIXED];
        let mut scaled = [[0.0; K]; 2 * MAX_FIXED];
        let mut n = 0;
        for (g, &xg) in x.iter().enumerate() {
            if xg == 0.0 {
                continue;
            }
            rows[n].copy_from_slice(&a[g * K..(g + 1) * K]);
            scaled[n] = std::array::from_fn(|t| xg * rows[n][t]);
            n += 1;
        }
        Self {
            c: std::array::from_fn(|t| start(x, a, K, t)),
            w: std::array::from_fn(|t| weight[t]),
            rows,
            scaled,
            n,
            tol: 1e-10 * (1.0 + total),
            iterations: 0,
            done: false,
        }
    }

    /// One update, unless converged or out of iterations.
    #[inline(always)]
    fn step(&mut self) {
        if self.done {
            return;
        }
        let c = &self.c;
        let phi: [f64; K] = std::array::from_fn(|t| (c[t] + 1.0) * self.w[t]);
        let mut next = [0.0; K];
        for (row, scaled) in self.rows[..self.n].iter().zip(&self.scaled[..self.n]) {
            let s: f64 = row.iter().zip(&phi).map(|(a, p)| a * p).sum();
            if s > 0.0 {
                for t in 0..K {
                    next[t] += scaled[t] * phi[t] / s;
                }
            }
        }
        let change = c
            .iter()
            .zip(&next)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        self.c = next;
        self.iterations += 1;
        self.done = change <= self.tol || self.iterations == SPLIT_ITERATIONS;
    }
}

fn split_fixed<const K: usize>(x: &[f64], a: &[f64], weight: &[f64], out: &mut [f64]) {
    let mut one = Fixed::<K>::new(x, a, weight);
    while !one.done {
        one.step();
    }
    out.copy_from_slice(&one.c);
}

fn two_fixed<const K: usize>(x: [&[f64]; 2], a: &[f64], weight: [&[f64]; 2], out: [&mut [f64]; 2]) {
    let mut first = Fixed::<K>::new(x[0], a, weight[0]);
    let mut second = Fixed::<K>::new(x[1], a, weight[1]);
    while !(first.done && second.done) {
        first.step();
        second.step();
    }
    let [o0, o1] = out;
    o0.copy_from_slice(&first.c);
    o1.copy_from_slice(&second.c);
}

/// The plain loop, for any K.
pub(super) fn split_general(x: &[f64], a: &[f64], weight: &[f64]) -> Vec<f64> {
    let (k, groups) = (weight.len(), x.len());
    let mut c: Vec<f64> = (0..k).map(|t| start(x, a, k, t)).collect();
    let total: f64 = x.iter().sum();
    let mut next = vec![0.0; k];
    let mut phi = vec![0.0; k];
    for _ in 0..SPLIT_ITERATIONS {
        for t in 0..k {
            phi[t] = (c[t] + 1.0) * weight[t];
        }
        next.iter_mut().for_each(|v| *v = 0.0);
        for g in 0..groups {
            if x[g] == 0.0 {
                continue;
            }
            let row = &a[g * k..(g + 1) * k];
            let s: f64 = row.iter().zip(&phi).map(|(a, p)| a * p).sum();
            if s > 0.0 {
                for t in 0..k {
                    next[t] += x[g] * row[t] * phi[t] / s;
                }
            }
        }
        let change = c
            .iter()
            .zip(&next)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        std::mem::swap(&mut c, &mut next);
        if change <= 1e-10 * (1.0 + total) {
            break;
        }
    }
    c
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::models::discrete::cbt::group_table;

    proptest! {
        /// The stack path is the plain loop bit for bit, with and without
        /// decided groups, empty groups and zero weights included.
        #[test]
        fn the_stack_path_is_the_plain_loop(
            k in 2usize..10,
            decided in any::<bool>(),
            seed in prop::collection::vec(0u32..400, 40),
            alpha_seed in prop::collection::vec(0.0f64..0.5, 10),
        ) {
            let groups = if decided { 2 * k } else { k };
            let alpha: Vec<f64> = alpha_seed[..k].iter().map(|v| v * (k - 1) as f64 / k as f64).collect();
            let a = group_table(&alpha, groups);
            // Some counts zero, some large.
            let x: Vec<f64> = (0..groups).map(|g| {
                let v = seed[g % seed.len()];
                if v % 5 == 0 { 0.0 } else { f64::from(v * (1 + v % 7)) }
            }).collect();
            let weight: Vec<f64> = (0..k).map(|t| if seed[30 + t % 10] % 11 == 0 { 0.0 } else { 1.0 / (1.0 + f64::from(seed[20 + t % 10])) }).collect();
            let fast = split_counts(&x, &a, &weight);
            let plain = split_general(&x, &a, &weight);
            let bits = |v: &[f64]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&fast), bits(&plain));
            // Side by side with another symbol (one sample fewer in a
            // group, other weights), each is what it is alone.
            let mut y = x.clone();
            let g = seed[39] as usize % groups;
            y[g] = (y[g] - 1.0).max(0.0);
            let v: Vec<f64> = weight.iter().rev().copied().collect();
            let (mut p, mut q) = (vec![0.0; k], vec![0.0; k]);
            split_two([&x, &y], &a, [&weight, &v], [&mut p, &mut q]);
            prop_assert_eq!(bits(&p), bits(&plain));
            prop_assert_eq!(bits(&q), bits(&split_general(&y, &a, &v)));
        }
    }
}
