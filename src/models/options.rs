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
    /// rlr: the flip table P(given | true), "0.9,0.1;0.05,0.95" (rows =
    /// true class), or one flip rate per class "0.1,0.2". Seeds the EM, or
    /// stays fixed with `fix_gamma` (RLogReg-F).
    pub gamma: Option<String>,
    /// rlr: keep `gamma` fixed instead of estimating it.
    pub fix_gamma: bool,
    /// rlr: pseudo-count added to every cell of the flip table when it is
    /// re-estimated (a Dirichlet prior on each row; 0 = the paper's maximum
    /// likelihood, eqs. 8-9). On tens of samples the ML table collapses to
    /// the identity as the flexible classifier absorbs the suspects.
    pub gamma_prior: f64,
    /// rlr / lr: a fixed L1 penalty instead of the Bayesian rule
    /// lambda = N / sum |w| (Cawley & Talbot).
    pub lambda: Option<f64>,
    /// shift: how to choose lambda on the path: "cv" (K-fold
    /// cross-validation), "noise" (the most shifts not above
    /// `noise_fraction`), or "accuracy" (training accuracy, Tibshirani &
    /// Manning section 3.3).
    pub lambda_rule: String,
    /// shift: the expected fraction of wrong labels (implies rule "noise").
    pub noise_fraction: Option<f64>,
    /// shift: folds for the "cv" rule.
    pub cv_folds: usize,
    /// shift: penalty on theta: "none", "l2" or "l1" (eq. 2), weight `kappa`.
    pub theta_penalty: String,
    /// shift: weight of the theta penalty; `None` takes the Bayesian lambda
    /// of eq. 7 (Cawley & Talbot) of the plain L1 fit, so wide data need
    /// no cross-validation over kappa.
    pub kappa: Option<f64>,
    /// shift: number of lambda values on the path.
    pub path_length: usize,
    /// rmda: a fixed number of clusters; `None` chooses it by BIC over
    /// `clusters_min..=clusters_max`.
    pub clusters: Option<usize>,
    /// rmda: smallest number of clusters BIC tries (default: the number of
    /// classes K).
    pub clusters_min: Option<usize>,
    /// rmda: largest number of clusters BIC tries (default: 4 K).
    pub clusters_max: Option<usize>,
    /// mda: clusters in each class's mixture; `None` chooses it per class by
    /// BIC over 1..=4.
    pub clusters_per_class: Option<usize>,
    /// rmda / mda: k-means++ starts of each mixture EM; the best
    /// log-likelihood is kept.
    pub restarts: usize,
    /// rmda / mda: fit on per-feature standardised features (true) or on
    /// the features as given (false). Spherical and diagonal clusters are
    /// spherical/diagonal in the units they are fitted in, so data already
    /// on one scale (pixels, the papers' simulations) may keep its own.
    pub standardize: bool,
    /// cbt: mislabelling probabilities alpha_k = P(true class != k | given
    /// label k), one per class "0.1,0.2" or one for all "0.1"; `None`
    /// estimates them by the leave-one-out predictive likelihood.
    pub alpha: Option<String>,
    /// cbt: bins a continuous feature is quantised into (by quantiles);
    /// discrete features keep their own levels.
    pub levels: usize,
    /// cbt: run the Bayesian Data Reduction Algorithm (greedy feature
    /// removal and level merging); `None` = on when there are 2+ features.
    pub bdra: Option<bool>,
}

impl Default for ModelOptions {
    fn default() -> Self {
        Self {
            seed: 0,
            max_iter: 500,
            tol: 1e-7,
            covariance: CovarianceFamily::Full,
            shrinkage: None,
            gamma: None,
            fix_gamma: false,
            gamma_prior: 1.0,
            lambda: None,
            lambda_rule: "cv".into(),
            noise_fraction: None,
            cv_folds: 5,
            theta_penalty: "l1".into(),
            kappa: None,
            path_length: 30,
            clusters: None,
            clusters_min: None,
            clusters_max: None,
            clusters_per_class: None,
            restarts: 4,
            standardize: true,
            alpha: None,
            levels: 4,
            bdra: None,
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
        if let Some(l) = self.lambda
            && !(l.is_finite() && l >= 0.0)
        {
            return Err(InvalidOption(format!("lambda must be >= 0, got {l}")));
        }
        if let Some(f) = self.noise_fraction
            && !(0.0..=1.0).contains(&f)
        {
            return Err(InvalidOption(format!(
                "--noise-fraction must be between 0 and 1, got {f}"
            )));
        }
        if !["cv", "noise", "accuracy"].contains(&self.lambda_rule.as_str()) {
            return Err(InvalidOption(format!(
                "lambda_rule must be cv, noise or accuracy, got \"{}\"",
                self.lambda_rule
            )));
        }
        if !["none", "l1", "l2"].contains(&self.theta_penalty.as_str()) {
            return Err(InvalidOption(format!(
                "theta_penalty must be none, l1 or l2, got \"{}\"",
                self.theta_penalty
            )));
        }
        if let Some(kappa) = self.kappa
            && !(kappa.is_finite() && kappa >= 0.0)
        {
            return Err(InvalidOption(format!(
                "kappa must be >= 0 (or null for the Bayesian rule), got {}",
                kappa
            )));
        }
        if !(self.gamma_prior.is_finite() && self.gamma_prior >= 0.0) {
            return Err(InvalidOption(format!(
                "gamma_prior must be >= 0, got {}",
                self.gamma_prior
            )));
        }
        if self.cv_folds < 2 {
            return Err(InvalidOption("cv_folds must be at least 2".into()));
        }
        if self.clusters == Some(0) || self.clusters_min == Some(0) {
            return Err(InvalidOption("clusters must be at least 1".into()));
        }
        if let (Some(lo), Some(hi)) = (self.clusters_min, self.clusters_max)
            && lo > hi
        {
            return Err(InvalidOption(format!(
                "clusters_min ({lo}) is larger than clusters_max ({hi})"
            )));
        }
        if self.restarts == 0 {
            return Err(InvalidOption("restarts must be at least 1".into()));
        }
        if self.levels < 2 {
            return Err(InvalidOption(format!(
                "levels must be at least 2 (bins per continuous feature), got {}",
                self.levels
            )));
        }
        if self.path_length < 2 {
            return Err(InvalidOption("path_length must be at least 2".into()));
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

/// Reads a flip table P(given | true) for K classes: "a,b;c,d" (rows =
/// true class) or one flip rate per class "r0,r1,..." spread evenly over
/// the other classes.
pub fn parse_gamma(text: &str, k: usize) -> Result<nalgebra::DMatrix<f64>, super::FitError> {
    use super::FitError::InvalidOption;
    let num = |s: &str| -> Result<f64, super::FitError> {
        let v: f64 = s
            .trim()
            .parse()
            .map_err(|_| InvalidOption(format!("gamma: \"{}\" is not a number", s.trim())))?;
        if (0.0..=1.0).contains(&v) {
            Ok(v)
        } else {
            Err(InvalidOption(format!("gamma: {v} is not a probability")))
        }
    };
    let rows: Vec<&str> = text.split(';').filter(|r| !r.trim().is_empty()).collect();
    if rows.len() == 1 {
        let rates: Vec<f64> = rows[0].split(',').map(num).collect::<Result<_, _>>()?;
        if rates.len() != k {
            return Err(InvalidOption(format!(
                "gamma: {} flip rates for {k} classes; give one per class, or a full table \"a,b;c,d\"",
                rates.len()
            )));
        }
        let off = |r: f64| r / (k - 1) as f64;
        return Ok(nalgebra::DMatrix::from_fn(k, k, |t, g| {
            if t == g {
                1.0 - rates[t]
            } else {
                off(rates[t])
            }
        }));
    }
    if rows.len() != k {
        return Err(InvalidOption(format!(
            "gamma: {} rows for {k} classes (rows = true class, separated by ;)",
            rows.len()
        )));
    }
    let mut m = nalgebra::DMatrix::zeros(k, k);
    for (t, row) in rows.iter().enumerate() {
        let vals: Vec<f64> = row.split(',').map(num).collect::<Result<_, _>>()?;
        if vals.len() != k {
            return Err(InvalidOption(format!(
                "gamma: row {} has {} entries, not {k}",
                t + 1,
                vals.len()
            )));
        }
        let sum: f64 = vals.iter().sum();
        if (sum - 1.0).abs() > 1e-6 {
            return Err(InvalidOption(format!(
                "gamma: row {} sums to {sum}, not 1",
                t + 1
            )));
        }
        for (g, v) in vals.into_iter().enumerate() {
            m[(t, g)] = v;
        }
    }
    Ok(m)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod gamma_tests {
    use super::*;

    #[test]
    fn gamma_tables_and_rates_parse() {
        let m = parse_gamma("0.9,0.1;0.05,0.95", 2).unwrap();
        assert_eq!(m[(1, 0)], 0.05);
        let m = parse_gamma("0.1,0.3,0", 3).unwrap();
        assert!((m[(1, 1)] - 0.7).abs() < 1e-12 && (m[(1, 2)] - 0.15).abs() < 1e-12);
    }

    #[test]
    fn bad_gamma_strings_say_what_is_wrong() {
        for (text, needle) in [
            ("0.9,0.2;0.1,0.9", "sums to"),
            ("0.9,x;0.1,0.9", "not a number"),
            ("1.5,0", "not a probability"),
            ("0.1,0.1,0.1", "3 flip rates for 2 classes"),
            ("0.9,0.1;0.1,0.9;0.5,0.5", "3 rows for 2 classes"),
        ] {
            let e = parse_gamma(text, 2).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }

    #[test]
    fn shift_and_lambda_options_are_checked() {
        for (k, v) in [
            ("noise_fraction", "1.5"),
            ("lambda_rule", "magic"),
            ("theta_penalty", "l3"),
            ("cv_folds", "1"),
            ("lambda", "-1"),
        ] {
            let mut o = ModelOptions::default();
            o.set(k, v).unwrap();
            assert!(o.validate_common().is_err(), "{k}={v}");
        }
        let o = ModelOptions {
            clusters_min: Some(5),
            clusters_max: Some(2),
            ..ModelOptions::default()
        };
        assert!(
            o.validate_common()
                .unwrap_err()
                .to_string()
                .contains("larger than")
        );
    }
}
