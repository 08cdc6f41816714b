//! The first two principal components of the standardised features,
//! computed once per dataset, for the scatter in the model pane.

use nalgebra::{DMatrix, DVector};

use crate::models::standardize::Standardizer;

/// Points drawn at most: a scatter of a million dots says no more than a
/// few thousand, and a frame must stay cheap.
const MAX_POINTS: usize = 4000;

#[derive(Clone, Debug, Default)]
pub struct Projection {
    /// (pc1, pc2) of every sample.
    pub points: Vec<(f64, f64)>,
    /// Samples to draw in the background (a regular subsample).
    pub background: Vec<usize>,
    pub bounds: [(f64, f64); 2],
}

/// Leading eigenvector of a symmetric matrix by power iteration, with a
/// fixed start so the result is deterministic.
fn leading_eigenvector(m: &DMatrix<f64>) -> DVector<f64> {
    let n = m.nrows();
    let mut v = DVector::from_fn(n, |i, _| 1.0 + (i % 7) as f64 * 0.1);
    v.normalize_mut();
    for _ in 0..200 {
        let mut w = m * &v;
        let norm = w.norm();
        if norm < 1e-300 {
            break;
        }
        w /= norm;
        if (&w - &v).norm() < 1e-10 {
            return w;
        }
        v = w;
    }
    v
}

impl Projection {
    pub fn compute(x: &DMatrix<f64>) -> Projection {
        let (n, p) = x.shape();
        if n == 0 || p == 0 {
            return Projection::default();
        }
        let z = Standardizer::fit(x).apply(x);
        // With more features than samples, work with the n x n Gram matrix.
        let (pc1, pc2): (Vec<f64>, Vec<f64>) = if p <= n {
            let cov = z.tr_mul(&z) / n as f64;
            let v1 = leading_eigenvector(&cov);
            let l1 = (v1.transpose() * &cov * &v1)[(0, 0)];
            let deflated = &cov - &v1 * v1.transpose() * l1;
            let v2 = if p > 1 {
                leading_eigenvector(&deflated)
            } else {
                DVector::zeros(p)
            };
            let s1 = &z * v1;
            let s2 = &z * v2;
            (s1.iter().copied().collect(), s2.iter().copied().collect())
        } else {
            let gram = &z * z.transpose();
            let u1 = leading_eigenvector(&gram);
            let l1 = (u1.transpose() * &gram * &u1)[(0, 0)];
            let deflated = &gram - &u1 * u1.transpose() * l1;
            let u2 = leading_eigenvector(&deflated);
            let l2 = (u2.transpose() * &gram * &u2)[(0, 0)];
            (
                u1.iter().map(|v| v * l1.max(0.0).sqrt()).collect(),
                u2.iter().map(|v| v * l2.max(0.0).sqrt()).collect(),
            )
        };
        let points: Vec<(f64, f64)> = pc1.into_iter().zip(pc2).collect();
        let bound = |f: fn(&(f64, f64)) -> f64| {
            let lo = points.iter().map(f).fold(f64::INFINITY, f64::min);
            let hi = points.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
            if hi > lo {
                (lo, hi)
            } else {
                (lo - 1.0, lo + 1.0)
            }
        };
        let stride = n.div_ceil(MAX_POINTS).max(1);
        Projection {
            bounds: [bound(|p| p.0), bound(|p| p.1)],
            background: (0..n).step_by(stride).collect(),
            points,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_component_follows_the_long_axis() {
        let x = DMatrix::from_fn(100, 2, |i, j| {
            let t = i as f64 / 10.0;
            if j == 0 {
                t
            } else {
                t + 0.01 * ((i % 3) as f64)
            }
        });
        let p = Projection::compute(&x);
        assert_eq!(p.points.len(), 100);
        let spread = |f: fn(&(f64, f64)) -> f64| {
            let v: Vec<f64> = p.points.iter().map(f).collect();
            let m = v.iter().sum::<f64>() / 100.0;
            v.iter().map(|x| (x - m).powi(2)).sum::<f64>()
        };
        assert!(spread(|p| p.0) > 100.0 * spread(|p| p.1));
    }

    #[test]
    fn wide_data_uses_the_gram_matrix_and_large_data_is_subsampled() {
        let x = DMatrix::from_fn(5, 50, |i, j| ((i * 13 + j * 7) % 11) as f64);
        assert_eq!(Projection::compute(&x).points.len(), 5);
        let big = DMatrix::from_fn(10_000, 2, |i, j| (i * (j + 1)) as f64);
        assert!(Projection::compute(&big).background.len() <= MAX_POINTS);
    }
}
