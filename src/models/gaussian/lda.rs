//! Linear discriminant analysis: normal discriminant analysis with one
//! covariance shared by all classes (the LDA baseline of Bouveyron & Girard
//! 2009, section 4). A thin wrapper so the baseline has its own name.

use crate::models::Guide;
use nalgebra::DMatrix;

use crate::models::gaussian::components::CovarianceParams;
use crate::models::gaussian::nda::Nda;
use crate::models::{
    Control, CovarianceFamily, Fit, FitError, ModelOptions, Progress, RobustModel,
};

#[derive(Clone, Debug)]
pub struct Lda {
    inner: Nda,
}

impl Lda {
    /// Reads `shrinkage`; the family is always `tied`, whatever
    /// `covariance` says.
    pub fn new(options: &ModelOptions) -> Result<Self, FitError> {
        Ok(Self {
            inner: Nda::with(CovarianceParams {
                family: CovarianceFamily::Tied,
                shrinkage: options.checked_shrinkage()?,
            }),
        })
    }
}

impl RobustModel for Lda {
    fn name(&self) -> &'static str {
        "lda"
    }

    fn fit_guided(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        // Checked here too so that the refusal names the model asked for.
        CovarianceParams {
            family: CovarianceFamily::Tied,
            shrinkage: None,
        }
        .require_estimable(self.name(), "--model nda --cov diag", x)?;
        self.inner.fit_guided(x, given, n_classes, guide, progress)
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
        let a = Lda::new(&ModelOptions::default())
            .unwrap()
            .fit(&x, &y, 2, &mut no_progress())
            .unwrap();
        let b = Nda::new(&ModelOptions {
            covariance: CovarianceFamily::Tied,
            ..ModelOptions::default()
        })
        .unwrap()
        .fit(&x, &y, 2, &mut no_progress())
        .unwrap();
        assert_eq!(a.posterior, b.posterior);
        assert_eq!(Lda::new(&ModelOptions::default()).unwrap().name(), "lda");
    }

    #[test]
    fn a_shrinkage_outside_0_1_is_rejected_by_name() {
        for s in [-0.1, 1.5] {
            let o = ModelOptions {
                shrinkage: Some(s),
                ..ModelOptions::default()
            };
            let e = Lda::new(&o).unwrap_err().to_string();
            assert!(
                e.contains("shrinkage") && e.contains("between 0 and 1"),
                "{e}"
            );
            let e = Nda::new(&o).unwrap_err().to_string();
            assert!(e.contains("shrinkage"), "{e}");
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod option_tests {
    use super::*;

    crate::models::rejects_option! {
        shrinkage_above_1: Lda::new, "shrinkage" = "2";
    }
}
