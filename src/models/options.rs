//! Options as the front ends hold them: one flat struct with defaults, the
//! form the CLI, the TUI model picker, saved sessions and reports read and
//! write (its serde field names are the `--opt` keys, so they stay stable).
//! It is unchecked: each model's constructor checks exactly the fields it
//! reads and keeps them in its own typed form (linfa's params -> checked
//! params), so a bad value fails when the model is built, naming the
//! option, and never halfway through a fit. The checks of fields several
//! models read live here.

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use super::FitError;

/// Covariance structure of the Gaussian models.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum CovarianceFamily {
    /// One full covariance per class (QDA).
    #[default]
    Full,
    /// One full covariance shared by all classes (LDA).
    #[value(alias = "common", alias = "shared")]
    Tied,
    /// One diagonal covariance per class.
    #[value(alias = "diagonal")]
    Diag,
    /// One variance per class (sigma^2 I).
    #[value(alias = "sphere")]
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
    /// `noise_fraction`), "accuracy" (training accuracy, Tibshirani &
    /// Manning section 3.3), or "auto" (accuracy on a wide table or under
    /// an L2 theta, cv otherwise).
    pub lambda_rule: String,
    /// shift: the expected fraction of wrong labels (implies rule "noise").
    pub noise_fraction: Option<f64>,
    /// shift: folds for the "cv" rule.
    pub cv_folds: usize,
    /// shift: penalty on theta: "none", "l2" or "l1" (eq. 2), weight
    /// `kappa`; "auto" is, on tables with at least as many features as
    /// rows (up to 500 rows x logits), l1 or l2 with kappa, whichever
    /// 5-fold cross-validates the given labels' log-likelihood best; l1
    /// otherwise.
    pub theta_penalty: String,
    /// shift: weight of the theta penalty; `None`: cross-validated on a
    /// wide table, else the Bayesian lambda of eq. 7 (Cawley & Talbot) of
    /// the plain L1 fit, or 1 under L2.
    pub kappa: Option<f64>,
    /// shift: number of lambda values on the path.
    pub path_length: usize,
    /// rmda: a fixed number of clusters; `None` chooses it by BIC over
    /// `clusters_min..=clusters_max`.
    pub clusters: Option<usize>,
    /// rmda: smallest number of clusters BIC tries (default: the number of
    /// classes K).
    pub clusters_min: Option<usize>,
    /// rmda: largest number of clusters BIC tries. Named, BIC tries every
    /// number up to it; unset, it goes up to 4 K but stops once two numbers
    /// in a row score worse than the best.
    pub clusters_max: Option<usize>,
    /// mda: clusters in each class's mixture; `None` chooses it per class by
    /// BIC over 1..=4, stopping once two numbers in a row score worse.
    pub clusters_per_class: Option<usize>,
    /// rmda / mda: k-means++ starts of each mixture EM; the best
    /// log-likelihood is kept.
    pub restarts: usize,
    /// rmda / mda / rlr / lr: fit on per-feature standardised features
    /// (true) or on the features as given (false). Spherical and diagonal
    /// clusters are spherical/diagonal in the units they are fitted in, so
    /// data already on one scale (pixels, the papers' simulations) may keep
    /// its own; rlr's L1 penalty weighs features in their own units (a
    /// paper's own preprocessed table).
    pub standardize: bool,
    /// rmda: how the clusters' covariance is chosen. "bic" (the default):
    /// with the number of clusters, by BIC over spherical clusters (on the
    /// features as given and standardised), diagonal, tied and full ones
    /// (Bouveyron & Girard section 3.3), while `covariance` and
    /// `standardize` are at their defaults; "fixed", or either of them
    /// set otherwise: the `covariance` and `standardize` given.
    pub covariance_rule: String,
    /// cbt: mislabelling probabilities alpha_k = P(true class != k | given
    /// label k), one per class "0.1,0.2" or one for all "0.1"; `None`
    /// estimates them by the leave-one-out predictive likelihood.
    pub alpha: Option<String>,
    /// cbt: bins a continuous feature is quantised into, of equal
    /// frequency (edges at the sample quantiles); discrete features (at
    /// most this many values, or integers with at most 32) keep their own
    /// levels. Lynch & Willett's model is a table of symbols, so a
    /// continuous column has to be cut; equal-frequency cuts put as many
    /// rows in every bin, and BDRA then merges the bins that do not tell
    /// the classes apart.
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
            lambda_rule: "auto".into(),
            noise_fraction: None,
            cv_folds: 5,
            theta_penalty: "auto".into(),
            kappa: None,
            path_length: 30,
            clusters: None,
            clusters_min: None,
            clusters_max: None,
            clusters_per_class: None,
            restarts: 4,
            standardize: true,
            covariance_rule: "bic".into(),
            alpha: None,
            levels: 4,
            bdra: None,
        }
    }
}

/// An option value a model cannot use: the message names the option (its
/// `--opt` key) and what it accepts.
pub fn invalid_option(option: &str, allowed: &str, got: impl std::fmt::Display) -> FitError {
    FitError::InvalidOption(format!("{option} must be {allowed}, got {got}"))
}

/// The iteration budget of an iterative fit (`max_iter`, `tol`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Iterations {
    pub max_iter: usize,
    /// Relative change of the objective below which the fit has converged.
    pub tol: f64,
}

impl ModelOptions {
    /// Asks every model's constructor (where the checks live) about these
    /// options, so that a command line with a bad value fails at once, before
    /// a large table is read and whatever model `auto` picks.
    pub fn check_with_every_model(&self) -> Result<(), FitError> {
        for model in super::MODELS {
            super::build_model(model.name, self)?;
        }
        Ok(())
    }
}

/// Checks of single fields, shared by the models that read them; each model
/// calls the ones for its own fields when it is built.
impl ModelOptions {
    pub fn checked_max_iter(&self) -> Result<usize, FitError> {
        if self.max_iter == 0 {
            return Err(invalid_option("max_iter (--max-iter)", "at least 1", 0));
        }
        Ok(self.max_iter)
    }

    pub fn checked_iterations(&self) -> Result<Iterations, FitError> {
        let max_iter = self.checked_max_iter()?;
        if !(self.tol.is_finite() && self.tol > 0.0) {
            return Err(invalid_option("tol (--tol)", "a positive number", self.tol));
        }
        Ok(Iterations {
            max_iter,
            tol: self.tol,
        })
    }

    /// `shrinkage`: in [0, 1], or unset for the size-aware default.
    pub fn checked_shrinkage(&self) -> Result<Option<f64>, FitError> {
        match self.shrinkage {
            Some(s) if !(0.0..=1.0).contains(&s) => Err(invalid_option(
                "shrinkage (--shrinkage)",
                "between 0 and 1 (or unset for the default)",
                s,
            )),
            s => Ok(s),
        }
    }

    /// `lambda`: a fixed L1 penalty >= 0, or unset for the Bayesian rule.
    pub fn checked_lambda(&self) -> Result<Option<f64>, FitError> {
        match self.lambda {
            Some(l) if !(l.is_finite() && l >= 0.0) => Err(invalid_option(
                "lambda",
                "a number >= 0 (or unset for the Bayesian rule)",
                l,
            )),
            l => Ok(l),
        }
    }

    /// A count that must be at least `min`, unset allowed.
    pub fn checked_at_least(
        option: &str,
        value: Option<usize>,
        min: usize,
    ) -> Result<Option<usize>, FitError> {
        match value {
            Some(v) if v < min => Err(invalid_option(
                option,
                &format!("at least {min} (or unset to choose it by BIC)"),
                v,
            )),
            v => Ok(v),
        }
    }

    pub fn checked_restarts(&self) -> Result<usize, FitError> {
        if self.restarts == 0 {
            return Err(invalid_option("restarts", "at least 1", 0));
        }
        Ok(self.restarts)
    }
}

impl ModelOptions {
    /// Sets one option by its field name from text, the way the CLI's
    /// `--opt key=value` and the TUI's model picker do: the value is read as
    /// JSON when it parses as JSON (numbers, booleans, null), else as a
    /// string. New fields become settable everywhere without front-end code.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), FitError> {
        use FitError::InvalidOption;
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
}

/// rlr's `gamma` option, read and checked without the number of classes:
/// a flip table "a,b;c,d" (rows = true class, each a distribution) or one
/// flip rate per class "r0,r1,..." spread evenly over the other classes.
#[derive(Clone, Debug, PartialEq)]
pub enum GammaSpec {
    Rates(Vec<f64>),
    Table(Vec<Vec<f64>>),
}

impl GammaSpec {
    pub fn parse(text: &str) -> Result<Self, FitError> {
        use FitError::InvalidOption;
        let num = |s: &str| -> Result<f64, FitError> {
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
            return Ok(Self::Rates(rates));
        }
        let mut table = Vec::with_capacity(rows.len());
        for (t, row) in rows.iter().enumerate() {
            let vals: Vec<f64> = row.split(',').map(num).collect::<Result<_, _>>()?;
            let sum: f64 = vals.iter().sum();
            if (sum - 1.0).abs() > 1e-6 {
                return Err(InvalidOption(format!(
                    "gamma: row {} sums to {sum}, not 1",
                    t + 1
                )));
            }
            table.push(vals);
        }
        Ok(Self::Table(table))
    }

    /// The K x K table P(given | true); fails when the text was written for
    /// another number of classes.
    pub fn table(&self, k: usize) -> Result<DMatrix<f64>, FitError> {
        use FitError::InvalidOption;
        match self {
            Self::Rates(rates) => {
                if rates.len() != k {
                    return Err(InvalidOption(format!(
                        "gamma: {} flip rates for {k} classes; give one per class, or a full table \"a,b;c,d\"",
                        rates.len()
                    )));
                }
                let off = |r: f64| r / (k - 1) as f64;
                Ok(DMatrix::from_fn(k, k, |t, g| {
                    if t == g {
                        1.0 - rates[t]
                    } else {
                        off(rates[t])
                    }
                }))
            }
            Self::Table(rows) => {
                if rows.len() != k {
                    return Err(InvalidOption(format!(
                        "gamma: {} rows for {k} classes (rows = true class, separated by ;)",
                        rows.len()
                    )));
                }
                let mut m = DMatrix::zeros(k, k);
                for (t, vals) in rows.iter().enumerate() {
                    if vals.len() != k {
                        return Err(InvalidOption(format!(
                            "gamma: row {} has {} entries, not {k}",
                            t + 1,
                            vals.len()
                        )));
                    }
                    for (g, v) in vals.iter().enumerate() {
                        m[(t, g)] = *v;
                    }
                }
                Ok(m)
            }
        }
    }
}

/// Reads a flip table P(given | true) for K classes (see [`GammaSpec`]).
pub fn parse_gamma(text: &str, k: usize) -> Result<DMatrix<f64>, FitError> {
    GammaSpec::parse(text)?.table(k)
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
}
