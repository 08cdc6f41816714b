//! The opening every fit shares: check the inputs, count the classes,
//! optionally insist that every class has a sample, and scale the features;
//! and the progress report that turns a curator's stop into an error, so a
//! fit loop cancels with `?`.

use nalgebra::DMatrix;

use super::standardize::Standardizer;
use super::{Control, FitError, Progress};

/// Checks the shapes every model relies on; returns the class counts.
pub fn check_inputs(
    x: &DMatrix<f64>,
    given: &[usize],
    n_classes: usize,
) -> Result<Vec<usize>, FitError> {
    if x.nrows() != given.len() {
        return Err(FitError::InvalidInput(format!(
            "{} rows of features but {} labels",
            x.nrows(),
            given.len()
        )));
    }
    if n_classes < 2 {
        return Err(FitError::InvalidInput(format!(
            "need at least two classes to find mislabelled samples, found {n_classes}"
        )));
    }
    if x.nrows() == 0 {
        return Err(FitError::InvalidInput("the data has no rows".into()));
    }
    if let Some(bad) = x.iter().find(|v| !v.is_finite()) {
        return Err(FitError::InvalidInput(format!(
            "the features contain a non-finite value ({bad}); use --missing drop or mean"
        )));
    }
    let mut counts = vec![0usize; n_classes];
    for &g in given {
        if g >= n_classes {
            return Err(FitError::InvalidInput(format!(
                "label index {g} out of range for {n_classes} classes"
            )));
        }
        counts[g] += 1;
    }
    Ok(counts)
}

/// How a model names class `c` in its reports; `ModelReport::name_classes`
/// puts the table's class names in its place.
pub fn class_name(c: usize) -> String {
    format!("class #{c}")
}

/// Rejects classes without samples: a Gaussian needs at least one point.
pub fn require_every_class(counts: &[usize]) -> Result<(), FitError> {
    if let Some(c) = counts.iter().position(|&n| n == 0) {
        return Err(FitError::InvalidInput(format!(
            "{} has no samples; every class needs at least one",
            class_name(c)
        )));
    }
    Ok(())
}

/// The feature scaling a model fits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scaling {
    /// Centre and scale every feature, so that shrinkage, spherical
    /// covariances and L1 penalties treat features in different units alike.
    PerFeature,
    /// Keep the features' own units (mixtures on data already on one scale).
    AsGiven,
}

impl Scaling {
    /// The mixture models' `standardize` option.
    pub fn from_standardize(standardize: bool) -> Self {
        if standardize {
            Self::PerFeature
        } else {
            Self::AsGiven
        }
    }
}

/// What a fit knows once its inputs have been checked.
#[derive(Clone, Debug)]
pub struct Prologue {
    /// Samples carrying each given label.
    pub counts: Vec<usize>,
    /// The scaling the model fits in; its classifier applies it to new rows.
    pub standardizer: Standardizer,
}

impl Prologue {
    /// Checks `x` against the labels ([`check_inputs`]), then, when
    /// `needs_every_class`, that no class is empty, and fits the scaling.
    pub fn new(
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        needs_every_class: bool,
        scaling: Scaling,
    ) -> Result<Self, FitError> {
        let counts = check_inputs(x, given, n_classes)?;
        if needs_every_class {
            require_every_class(&counts)?;
        }
        let standardizer = match scaling {
            Scaling::PerFeature => Standardizer::fit(x),
            Scaling::AsGiven => Standardizer::identity(x.ncols()),
        };
        Ok(Self {
            counts,
            standardizer,
        })
    }

    /// The scaled features, materialised (the Gaussian models read every
    /// entry many times; the logistic solver scales on the fly instead).
    pub fn scaled(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        self.standardizer.apply(x)
    }

    /// `P(given = j) = N_j / N`, the empirical prior of the given labels.
    pub fn label_frequencies(&self) -> Vec<f64> {
        let n: usize = self.counts.iter().sum();
        self.counts.iter().map(|&c| c as f64 / n as f64).collect()
    }
}

/// Reports progress and turns a [`Control::Stop`] into
/// [`FitError::Cancelled`], so that a fit loop stops with `?`.
pub fn step(
    progress: &mut dyn FnMut(Progress) -> Control,
    report: Progress,
) -> Result<(), FitError> {
    match progress(report) {
        Control::Continue => Ok(()),
        Control::Stop => Err(FitError::Cancelled),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_prologue_counts_classes_and_rejects_an_empty_one() {
        let x = DMatrix::from_row_slice(3, 1, &[1.0, 2.0, 3.0]);
        let p = Prologue::new(&x, &[0, 1, 1], 2, true, Scaling::PerFeature).unwrap();
        assert_eq!(p.counts, [1, 2]);
        assert!(p.scaled(&x).column(0).sum().abs() < 1e-12);
        let e = Prologue::new(&x, &[0, 0, 0], 2, true, Scaling::PerFeature).unwrap_err();
        assert!(e.to_string().contains("class #1 has no samples"), "{e}");
        let p = Prologue::new(&x, &[0, 0, 0], 2, false, Scaling::AsGiven).unwrap();
        assert_eq!(p.scaled(&x), x);
    }

    #[test]
    fn a_stop_becomes_cancelled() {
        let report = Progress {
            stage: "test",
            iteration: 1,
            max_iterations: 1,
            objective: 0.0,
            fraction: 1.0,
        };
        assert_eq!(
            step(&mut |_| Control::Stop, report.clone()),
            Err(FitError::Cancelled)
        );
        assert_eq!(step(&mut |_| Control::Continue, report), Ok(()));
    }
}
