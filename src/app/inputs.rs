//! What a model is fitted on: the matrix (and level codes) with the names
//! to report with. Its own file so that auto's stages and the pipeline
//! both read it without importing each other (`pipeline` adds
//! `FitInputs::of_table`, which needs a plan).

use std::borrow::Cow;

use nalgebra::DMatrix;

/// What a model is fitted on: the feature matrix, the level codes when the
/// model reads them and they differ, and the names to report with.
#[derive(Clone, Debug)]
pub struct FitInputs<'a> {
    pub features: Cow<'a, DMatrix<f64>>,
    /// Level codes, one column per source column (`Dataset::source_matrix`),
    /// when the model reads levels and the table has string columns.
    pub levels: Option<DMatrix<f64>>,
    pub classes: Vec<String>,
    /// Names of the columns of the matrix the model numbers its features by:
    /// source columns when it reads levels, feature columns otherwise.
    pub feature_names: Vec<String>,
}

impl<'a> FitInputs<'a> {
    /// A bare matrix with `n_classes` unnamed classes (simulations, tests).
    pub fn of_matrix(x: &'a DMatrix<f64>, n_classes: usize) -> FitInputs<'a> {
        FitInputs {
            features: Cow::Borrowed(x),
            levels: None,
            classes: (0..n_classes).map(|k| format!("class #{k}")).collect(),
            feature_names: Vec::new(),
        }
    }

    pub fn n_classes(&self) -> usize {
        self.classes.len()
    }

    pub fn n_samples(&self) -> usize {
        self.features.nrows()
    }

    /// These inputs on `rows` only (cross-validation folds).
    pub fn select(&self, rows: &[usize]) -> FitInputs<'static> {
        FitInputs {
            features: Cow::Owned(self.features.select_rows(rows.iter())),
            levels: self.levels.as_ref().map(|l| l.select_rows(rows.iter())),
            classes: self.classes.clone(),
            feature_names: self.feature_names.clone(),
        }
    }

    /// Detaches the inputs from the table (to move them to a worker thread).
    pub fn into_owned(self) -> FitInputs<'static> {
        FitInputs {
            features: Cow::Owned(self.features.into_owned()),
            levels: self.levels,
            classes: self.classes,
            feature_names: self.feature_names,
        }
    }
}
