//! Options shared by the CLI, the TUI model picker and reports. One flat
//! struct with defaults, so a model reads only the fields it uses and every
//! front end can show and serialise them the same way. Each model checks its
//! own fields once, when it is built (see `registry::build_model`).

use serde::{Deserialize, Serialize};

/// Covariance structure of the Gaussian models.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CovarianceFamily {
    /// One full covariance per class (QDA).
    #[default]
    Full,
    /// One full covariance shared by all classes (LDA).
    Tied,
    /// One diagonal covariance per class.
    Diag,
    /// One variance per class (sigma^2 I).
    Spherical,
}

impl CovarianceFamily {
    pub const ALL: [CovarianceFamily; 4] = [Self::Full, Self::Tied, Self::Diag, Self::Spherical];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Tied => "tied",
            Self::Diag => "diag",
            Self::Spherical => "spherical",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "full" => Some(Self::Full),
            "tied" | "common" | "shared" => Some(Self::Tied),
            "diag" | "diagonal" => Some(Self::Diag),
            "spherical" | "sphere" => Some(Self::Spherical),
            _ => None,
        }
    }
}

impl std::fmt::Display for CovarianceFamily {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelOptions {
    /// Seed for every random choice a model makes (initialisation, restarts).
    pub seed: u64,
    /// Upper bound on (outer) iterations.
    pub max_iter: usize,
    /// Relative change of the objective below which a fit has converged.
    pub tol: f64,
    /// Covariance family of the Gaussian models.
    pub covariance: CovarianceFamily,
    /// Shrinkage of each covariance towards its scaled identity, in [0, 1]:
    /// `(1 - s) S + s (tr S / p) I`. `None` picks a size-aware default that
    /// keeps p >= n_k fits well posed.
    pub shrinkage: Option<f64>,
}

impl Default for ModelOptions {
    fn default() -> Self {
        Self {
            seed: 0,
            max_iter: 500,
            tol: 1e-7,
            covariance: CovarianceFamily::Full,
            shrinkage: None,
        }
    }
}

impl ModelOptions {
    /// Checks the fields every model shares.
    pub fn validate_common(&self) -> Result<(), super::FitError> {
        use super::FitError::InvalidOption;
        if self.max_iter == 0 {
            return Err(InvalidOption("--max-iter must be at least 1".into()));
        }
        if !(self.tol.is_finite() && self.tol > 0.0) {
            return Err(InvalidOption(format!(
                "--tol must be a positive number, got {}",
                self.tol
            )));
        }
        if let Some(s) = self.shrinkage
            && !(0.0..=1.0).contains(&s)
        {
            return Err(InvalidOption(format!(
                "--shrinkage must be between 0 and 1, got {s}"
            )));
        }
        Ok(())
    }
}
