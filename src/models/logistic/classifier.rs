//! The classifier a logistic fit leaves behind: P(true | x) for new rows
//! from the coefficients on standardised features, and how those
//! coefficients read on the original scale.

use nalgebra::DMatrix;

use crate::models::Classifier;
use crate::models::logistic::l1_logistic::{self, Coefs, Design};
use crate::models::standardize::Standardizer;

/// P(true | x) for new rows, on the original feature scale.
#[derive(Clone, Debug)]
pub struct LogisticClassifier {
    pub standardizer: Standardizer,
    pub coefs: Coefs,
    pub n_classes: usize,
}

impl Classifier for LogisticClassifier {
    fn predict_proba(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        let design = Design::standardized(x, &self.standardizer);
        l1_logistic::probabilities(
            &l1_logistic::linear_on(&design, &self.coefs, None),
            self.n_classes,
        )
    }
}

/// Weights on the original scale: w_j / sd_j per logit.
pub fn original_scale(coefs: &Coefs, s: &Standardizer) -> DMatrix<f64> {
    DMatrix::from_fn(coefs.beta.nrows(), coefs.beta.ncols(), |j, k| {
        coefs.beta[(j, k)] / s.scale[j]
    })
}

/// Non-zero features as "#j" (the CLI and UI put names on them), largest
/// standardised weight first.
pub fn selected_features(coefs: &Coefs, s: &Standardizer) -> Vec<String> {
    let orig = original_scale(coefs, s);
    let mut js: Vec<usize> = (0..coefs.beta.nrows())
        .filter(|&j| coefs.beta.row(j).iter().any(|b| *b != 0.0))
        .collect();
    js.sort_by(|a, b| {
        coefs
            .beta
            .row(*b)
            .amax()
            .total_cmp(&coefs.beta.row(*a).amax())
    });
    js.into_iter()
        .map(|j| {
            let w: Vec<String> = orig.row(j).iter().map(|v| format!("{v:.4}")).collect();
            format!("#{j} ({})", w.join(", "))
        })
        .collect()
}
