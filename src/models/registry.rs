//! The list of models by CLI name, and construction from options.

use super::discrete::cbt::Cbt;
use super::ensemble::AllModels;
use super::gaussian::{lda::Lda, mda::Mda, nda::Nda, rmda::Rmda, rnda::Rnda};
use super::logistic::{rlr::Rlr, shift::ShiftLr};
use super::probs::Probs;
use super::{FitError, ModelOptions, RobustModel};

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
    ModelInfo {
        name: "rlr",
        title: "robust sparse logistic regression",
        summary: "logistic model with a learned flip table and Bayesian L1 (Bootkrajang & Kaban 2013)",
        options: &[
            "gamma",
            "fix_gamma",
            "gamma_prior",
            "lambda",
            "max_iter",
            "tol",
            "standardize",
        ],
    },
    ModelInfo {
        name: "lr",
        title: "sparse logistic regression",
        summary: "L1 logistic regression with the Bayesian lambda, labels trusted (BLogReg baseline)",
        options: &["lambda", "max_iter", "tol", "standardize"],
    },
    ModelInfo {
        name: "shift",
        title: "shift-parameter logistic regression",
        summary: "one L1-penalised shift per sample over a lambda path (Tibshirani & Manning)",
        options: &[
            "lambda_rule",
            "noise_fraction",
            "cv_folds",
            "theta_penalty",
            "kappa",
            "path_length",
            "seed",
        ],
    },
    ModelInfo {
        name: "rmda",
        title: "robust mixture discriminant analysis",
        summary: "unsupervised Gaussian mixture (covariance and clusters by BIC) linked to classes by a learned matrix R (Bouveyron & Girard 2009)",
        options: &[
            "covariance_rule",
            "covariance",
            "shrinkage",
            "clusters",
            "clusters_min",
            "clusters_max",
            "restarts",
            "standardize",
            "max_iter",
            "tol",
            "seed",
        ],
    },
    ModelInfo {
        name: "mda",
        title: "mixture discriminant analysis",
        summary: "one Gaussian mixture per class, labels trusted (baseline)",
        options: &[
            "covariance",
            "shrinkage",
            "clusters_per_class",
            "restarts",
            "standardize",
            "max_iter",
            "tol",
            "seed",
        ],
    },
    ModelInfo {
        name: "lda",
        title: "linear discriminant analysis",
        summary: "Gaussian classes with one shared covariance, labels trusted (baseline)",
        options: &["shrinkage"],
    },
    ModelInfo {
        name: "cbt",
        title: "combined Bayes test (discrete features)",
        summary: "symbols with a uniform Dirichlet prior and mislabelling probabilities alpha, BDRA feature reduction (Lynch & Willett 1999)",
        options: &["alpha", "levels", "bdra"],
    },
    ModelInfo {
        name: "probs",
        title: "flip table on a classifier's probabilities",
        summary: "confident joint's P(given | true) under a classifier's out-of-fold probabilities of the given labels (--probs FILE)",
        options: &[],
    },
    ModelInfo {
        name: "all",
        title: "every applicable robust model",
        summary: "runs the robust models together: mean posterior and per-sample disagreement",
        options: &["seed", "max_iter", "tol"],
    },
];

/// Builds a model by its CLI name; its constructor checks the options it
/// reads, once.
pub fn build_model(name: &str, options: &ModelOptions) -> Result<Box<dyn RobustModel>, FitError> {
    match name {
        "rnda" => Ok(Box::new(Rnda::new(options)?)),
        "nda" => Ok(Box::new(Nda::new(options)?)),
        "all" => Ok(Box::new(AllModels::new(options)?)),
        "rlr" => Ok(Box::new(Rlr::robust(options)?)),
        "lr" => Ok(Box::new(Rlr::baseline(options)?)),
        "shift" => Ok(Box::new(ShiftLr::new(options)?)),
        "rmda" => Ok(Box::new(Rmda::new(options)?)),
        "mda" => Ok(Box::new(Mda::new(options)?)),
        "lda" => Ok(Box::new(Lda::new(options)?)),
        "cbt" => Ok(Box::new(Cbt::new(options)?)),
        "probs" => Ok(Box::new(Probs::new(options)?)),
        other => Err(FitError::UnknownModel(
            other.to_string(),
            MODELS.iter().map(|m| m.name).collect::<Vec<_>>().join(", "),
        )),
    }
}

/// The model choice made by held-out evidence on the data (the default).
pub const AUTO: &str = "auto";

/// What the model picker shows about `auto`; its candidates' own options
/// are theirs to set by name (`--opt`), the seed fixes its folds.
pub const AUTO_INFO: ModelInfo = ModelInfo {
    name: AUTO,
    title: "chosen by held-out evidence",
    summary: "every robust model scored by the cross-validated likelihood of the given labels; \
              the best, or a mixture of the close ones, is fitted (the default)",
    options: &["seed"],
};

/// What `auto` needs to know about the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataShape {
    pub n_samples: usize,
    pub n_features: usize,
    /// Every feature takes a few integer values (codes, 0/1 columns).
    pub discrete: bool,
}

pub use crate::models::discrete::MAX_DISCRETE_LEVELS;

/// Whether a column's values are a few integer symbols (see
/// [`MAX_DISCRETE_LEVELS`]).
pub fn is_discrete_column(values: impl IntoIterator<Item = f64>) -> bool {
    let mut levels: Vec<f64> = Vec::new();
    for v in values {
        if v.fract() != 0.0 {
            return false;
        }
        if !levels.contains(&v) {
            if levels.len() == MAX_DISCRETE_LEVELS {
                return false;
            }
            levels.push(v);
        }
    }
    true
}

impl DataShape {
    /// The shape of a feature matrix (rows = samples).
    pub fn of(x: &nalgebra::DMatrix<f64>) -> Self {
        Self {
            n_samples: x.nrows(),
            n_features: x.ncols(),
            discrete: x.ncols() > 0
                && x.column_iter()
                    .all(|col| is_discrete_column(col.iter().copied())),
        }
    }
}
