//! The list of models by CLI name, and construction from options.

use super::{FitError, ModelOptions, RobustModel, nda::Nda, rnda::Rnda};

/// What the CLI help and the TUI model picker show about a model.
#[derive(Clone, Copy, Debug)]
pub struct ModelInfo {
    pub name: &'static str,
    pub title: &'static str,
    pub summary: &'static str,
    /// Names of the `ModelOptions` fields the model reads.
    pub options: &'static [&'static str],
}

pub const MODELS: &[ModelInfo] = &[
    ModelInfo {
        name: "rnda",
        title: "robust normal discriminant analysis",
        summary: "Gaussian classes with a learned label-flip table (Bootkrajang & Kaban 2011)",
        options: &["covariance", "shrinkage", "max_iter", "tol", "seed"],
    },
    ModelInfo {
        name: "nda",
        title: "normal discriminant analysis",
        summary: "Gaussian classes, labels trusted (baseline)",
        options: &["covariance", "shrinkage"],
    },
];

/// Builds a model by its CLI name, checking its options once.
pub fn build_model(name: &str, options: &ModelOptions) -> Result<Box<dyn RobustModel>, FitError> {
    options.validate_common()?;
    match name {
        "rnda" => Ok(Box::new(Rnda::new(options.clone()))),
        "nda" => Ok(Box::new(Nda::new(options.clone()))),
        other => Err(FitError::UnknownModel(
            other.to_string(),
            MODELS.iter().map(|m| m.name).collect::<Vec<_>>().join(", "),
        )),
    }
}
