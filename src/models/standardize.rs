//! Per-feature centring and scaling, the common ground of every model that
//! fits on continuous features.

use nalgebra::{DMatrix, DVector};

/// Per-feature centring and scaling. Models fit on standardised features so
/// that shrinkage, spherical covariances and L1 penalties treat features in
/// different units alike; constant features get scale 1 (they stay zero).
#[derive(Clone, Debug, PartialEq)]
pub struct Standardizer {
    pub mean: DVector<f64>,
    pub scale: DVector<f64>,
}

impl Standardizer {
    pub fn fit(x: &DMatrix<f64>) -> Self {
        let n = x.nrows().max(1) as f64;
        let p = x.ncols();
        let mut mean = DVector::zeros(p);
        let mut scale = DVector::zeros(p);
        for j in 0..p {
            let col = x.column(j);
            let m = col.sum() / n;
            let var = col.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / n;
            mean[j] = m;
            scale[j] = if var > 1e-24 * (1.0 + m * m) {
                var.sqrt()
            } else {
                1.0
            };
        }
        Self { mean, scale }
    }

    /// The scaling that leaves features as they are.
    pub fn identity(p: usize) -> Self {
        Self {
            mean: DVector::zeros(p),
            scale: DVector::from_element(p, 1.0),
        }
    }

    pub fn apply(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        let mut z = x.clone();
        for j in 0..z.ncols() {
            let (m, s) = (self.mean[j], self.scale[j]);
            for v in z.column_mut(j).iter_mut() {
                *v = (*v - m) / s;
            }
        }
        z
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn standardizer_centres_and_scales_and_keeps_constant_columns() {
        let x = DMatrix::from_row_slice(3, 2, &[1.0, 5.0, 2.0, 5.0, 3.0, 5.0]);
        let s = Standardizer::fit(&x);
        let z = s.apply(&x);
        assert!(z.column(0).sum().abs() < 1e-12);
        assert!((z.column(0).norm_squared() / 3.0 - 1.0).abs() < 1e-12);
        assert!(z.column(1).iter().all(|v| *v == 0.0));
    }
}
