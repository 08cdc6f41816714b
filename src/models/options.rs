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

impl ModelOptions {
    /// Sets one option by its field name from text, the way the CLI's
    /// `--opt key=value` and the TUI's model picker do: the value is read as
    /// JSON when it parses as JSON (numbers, booleans, null), else as a
    /// string. New fields become settable everywhere without front-end code.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), super::FitError> {
        use super::FitError::InvalidOption;
        let mut map = match serde_json::to_value(&*self) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => return Err(InvalidOption("options cannot be represented".into())),
        };
        let key = key.trim().replace('-', "_");
        if !map.contains_key(&key) {
            let known: Vec<&str> = map.keys().map(String::as_str).collect();
            return Err(InvalidOption(format!(
                "unknown option '{key}'; known options: {}",
                known.join(", ")
            )));
        }
        let text = value.trim();
        let parsed = serde_json::from_str::<serde_json::Value>(text)
            .unwrap_or_else(|_| serde_json::Value::String(text.to_string()));
        let previous = map.insert(key.clone(), parsed.clone());
        let attempt: Result<Self, _> =
            serde_json::from_value(serde_json::Value::Object(map.clone()));
        let attempt = match attempt {
            Ok(o) => Ok(o),
            // "5" for a string field, or a string for an optional string.
            Err(_) => {
                map.insert(key.clone(), serde_json::Value::String(text.to_string()));
                serde_json::from_value(serde_json::Value::Object(map))
            }
        };
        match attempt {
            Ok(o) => {
                *self = o;
                Ok(())
            }
            Err(e) => Err(InvalidOption(format!(
                "cannot set {key} to '{text}' (currently {}): {e}",
                previous.map(|v| v.to_string()).unwrap_or_default()
            ))),
        }
    }

    /// The current value of an option as text (for the TUI picker).
    pub fn get(&self, key: &str) -> Option<String> {
        let value = serde_json::to_value(self).ok()?;
        match value.get(key)? {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Null => Some(String::new()),
            v => Some(v.to_string()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn set_reads_numbers_enums_and_optionals_by_field_name() {
        let mut o = ModelOptions::default();
        o.set("max-iter", "20").unwrap();
        o.set("covariance", "diag").unwrap();
        o.set("shrinkage", "0.25").unwrap();
        assert_eq!(o.max_iter, 20);
        assert_eq!(o.covariance, CovarianceFamily::Diag);
        assert_eq!(o.shrinkage, Some(0.25));
        o.set("shrinkage", "null").unwrap();
        assert_eq!(o.shrinkage, None);
        assert_eq!(o.get("covariance").as_deref(), Some("diag"));
    }

    #[test]
    fn set_rejects_unknown_keys_and_bad_values_with_the_known_names() {
        let mut o = ModelOptions::default();
        let e = o.set("nonsense", "1").unwrap_err().to_string();
        assert!(
            e.contains("unknown option") && e.contains("max_iter"),
            "{e}"
        );
        let e = o.set("max_iter", "many").unwrap_err().to_string();
        assert!(e.contains("cannot set max_iter"), "{e}");
        assert_eq!(o, ModelOptions::default());
    }

    #[test]
    fn common_validation_names_the_flag() {
        let o = ModelOptions {
            tol: -1.0,
            ..ModelOptions::default()
        };
        assert!(
            o.validate_common()
                .unwrap_err()
                .to_string()
                .contains("--tol")
        );
        let o = ModelOptions {
            shrinkage: Some(2.0),
            ..ModelOptions::default()
        };
        assert!(
            o.validate_common()
                .unwrap_err()
                .to_string()
                .contains("--shrinkage")
        );
    }
}
