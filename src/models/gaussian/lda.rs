//! Linear discriminant analysis: normal discriminant analysis with one
//! covariance shared by all classes (the LDA baseline of Bouveyron & Girard
//! 2009, section 4). A thin wrapper so the baseline has its own name.

use nalgebra::DMatrix;

use crate::models::gaussian::nda::Nda;
use crate::models::{
    Control, CovarianceFamily, Fit, FitError, ModelOptions, Progress, RobustModel,
};

#[derive(Clone, Debug)]
pub struct Lda {
    inner: Nda,
}

impl Lda {
    /// Any `covariance` in `options` is replaced by `tied`.
    pub fn new(options: ModelOptions) -> Self {
        Self {
            inner: Nda::new(ModelOptions {
                covariance: CovarianceFamily::Tied,
                ..options
            }),
        }
    }
}

impl RobustModel for Lda {
    fn name(&self) -> &'static str {
        "lda"
    }

    fn fit(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        self.inner.fit(x, given, n_classes, progress)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::models::no_progress;

    #[test]
    fn lda_is_nda_with_a_tied_covariance() {
        let x = DMatrix::from_fn(40, 2, |i, j| {
            ((i * 7 + j * 3) % 11) as f64 + 3.0 * (i % 2) as f64
        });
        let y: Vec<usize> = (0..40).map(|i| i % 2).collect();
        let a = Lda::new(ModelOptions::default())
            .fit(&x, &y, 2, &mut no_progress())
            .unwrap();
        let b = Nda::new(ModelOptions {
            covariance: CovarianceFamily::Tied,
            ..ModelOptions::default()
        })
        .fit(&x, &y, 2, &mut no_progress())
        .unwrap();
        assert_eq!(a.posterior, b.posterior);
        assert_eq!(Lda::new(ModelOptions::default()).name(), "lda");
    }
}
