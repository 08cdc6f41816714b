//! The one fit pipeline. scan, eval, the review screen and its refits all
//! go through it, so a model sees the same matrix, gets the same names and
//! says the same things wherever it runs.

use std::borrow::Cow;

use nalgebra::DMatrix;

use crate::dataset::Dataset;
use crate::models::{
    AUTO, Control, DataShape, Fit, FitError, Guide, ModelInput, ModelOptions, Progress,
    RobustModel, build_model, resolve_model_name,
};

/// A model ready to fit: `auto` resolved, options checked.
pub struct FitPlan {
    /// The model that fits (never `auto`).
    pub name: String,
    /// Why `auto` chose it, for the status line and the report.
    pub note: Option<String>,
    model: Box<dyn RobustModel>,
}

impl std::fmt::Debug for FitPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FitPlan")
            .field("name", &self.name)
            .field("note", &self.note)
            .finish_non_exhaustive()
    }
}

impl FitPlan {
    /// Resolves `requested` (a model name or `auto`) for data of this shape
    /// and builds the model, which checks its options.
    pub fn new(
        requested: &str,
        options: &ModelOptions,
        shape: &DataShape,
    ) -> Result<FitPlan, FitError> {
        let (name, note) = resolve_model_name(requested, shape);
        let model = build_model(&name, options)?;
        Ok(FitPlan { name, note, model })
    }

    /// [`FitPlan::new`] for a loaded table.
    pub fn for_table(
        ds: &Dataset,
        requested: &str,
        options: &ModelOptions,
    ) -> Result<FitPlan, FitError> {
        // --probs gives class probabilities, which only `probs` reads as such.
        if requested == AUTO && ds.options.probs.is_some() {
            let mut plan = Self::new("probs", options, &DataShape::of(&ds.x))?;
            plan.note = Some("auto chose probs: --probs gives class probabilities".into());
            return Ok(plan);
        }
        Self::new(requested, options, &DataShape::of(&ds.x))
    }

    /// The matrix the model reads (asked of the model, nowhere else).
    pub fn input(&self) -> ModelInput {
        self.model.input()
    }

    /// Fits on `inputs` with these labels (one per row of the inputs), then
    /// puts the table's class and feature names into the report.
    pub fn fit(
        &self,
        inputs: &FitInputs<'_>,
        labels: &[usize],
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        self.fit_guided(inputs, labels, &Guide::default(), progress)
    }

    /// [`FitPlan::fit`] with the curator's decisions (one per row of the
    /// inputs) and a warm start: see [`Guide`].
    pub fn fit_guided(
        &self,
        inputs: &FitInputs<'_>,
        labels: &[usize],
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        let mut fit = self.model.fit_inputs(
            &inputs.features,
            inputs.levels.as_ref(),
            labels,
            inputs.classes.len(),
            guide,
            progress,
        )?;
        if let Some(note) = &self.note {
            fit.extra.notes.push(note.clone());
        }
        fit.extra.name_features(&inputs.feature_names);
        fit.extra.name_classes(&inputs.classes);
        Ok(fit)
    }

    /// The rows of another table with this table's layout (a test set), as
    /// the matrix the fitted model's classifier reads.
    pub fn test_matrix<'x>(&self, ds: &Dataset, x: &'x DMatrix<f64>) -> Cow<'x, DMatrix<f64>> {
        if self.model.input() == ModelInput::Levels && !ds.categorical.is_empty() {
            Cow::Owned(ds.source_matrix_of(x))
        } else {
            Cow::Borrowed(x)
        }
    }
}

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
    /// The inputs `plan`'s model reads from a table, on all rows or on
    /// `rows` (a refit without the dropped samples).
    pub fn of_table(ds: &'a Dataset, plan: &FitPlan, rows: Option<&[usize]>) -> FitInputs<'a> {
        let rows = rows.filter(|r| r.len() != ds.n_samples() || !is_identity(r));
        let select = |m: &DMatrix<f64>| match rows {
            Some(r) => m.select_rows(r.iter()),
            None => m.clone(),
        };
        let (levels, feature_names) =
            if plan.input() != ModelInput::Features && !ds.categorical.is_empty() {
                let (levels, names) = ds.source_matrix();
                (Some(select(&levels)), names)
            } else {
                (None, ds.feature_names.clone())
            };
        let features = match rows {
            Some(r) => Cow::Owned(ds.x.select_rows(r.iter())),
            None => Cow::Borrowed(&ds.x),
        };
        FitInputs {
            features,
            levels,
            classes: ds.classes.clone(),
            feature_names,
        }
    }

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

fn is_identity(rows: &[usize]) -> bool {
    rows.iter().enumerate().all(|(i, &r)| i == r)
}

/// Whether a model reads string columns as levels, so that a table with
/// string columns loads without `--categorical onehot`. `auto` does: it then
/// sees the levels and can choose the model of discrete symbols.
pub fn reads_levels(model: &str) -> bool {
    model == AUTO
        || build_model(model, &ModelOptions::default())
            .is_ok_and(|m| m.input() != ModelInput::Features)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::dataset::{CategoricalPolicy, LoadOptions, load_bytes};
    use crate::models::no_progress;

    fn table(csv: &str) -> Dataset {
        let options = LoadOptions {
            categorical: CategoricalPolicy::Onehot,
            ..LoadOptions::default()
        };
        load_bytes(
            std::path::Path::new("t.csv"),
            csv.as_bytes().to_vec(),
            &options,
        )
        .unwrap()
    }

    fn votes() -> Dataset {
        let mut csv = String::from("id,q1,q2,party\n");
        for i in 0..40 {
            let party = if i % 2 == 0 { "dem" } else { "rep" };
            let q1 = if (i % 2 == 0) != (i % 7 == 0) {
                "y"
            } else {
                "n"
            };
            let q2 = ["y", "n", "?"][i % 3];
            csv.push_str(&format!("s{i},{q1},{q2},{party}\n"));
        }
        table(&csv)
    }

    #[test]
    fn the_model_says_which_matrix_it_reads() {
        assert!(reads_levels("cbt"));
        assert!(reads_levels("all"));
        assert!(reads_levels("auto"));
        assert!(!reads_levels("rnda"));
        assert!(!reads_levels("shift"));
        assert!(!reads_levels("no such model"));
    }

    #[test]
    fn a_model_of_levels_gets_level_codes_and_source_names() {
        let ds = votes();
        let plan = FitPlan::for_table(&ds, "cbt", &ModelOptions::default()).unwrap();
        let inputs = FitInputs::of_table(&ds, &plan, None);
        assert_eq!(inputs.levels.as_ref().unwrap().ncols(), 2);
        assert_eq!(inputs.feature_names, ["q1", "q2"]);
        let plan = FitPlan::for_table(&ds, "rlr", &ModelOptions::default()).unwrap();
        let inputs = FitInputs::of_table(&ds, &plan, None);
        assert!(inputs.levels.is_none());
        assert_eq!(inputs.feature_names.len(), ds.x.ncols());
    }

    #[test]
    fn auto_is_resolved_and_says_why_in_the_fit() {
        let ds = votes();
        let plan = FitPlan::for_table(&ds, "auto", &ModelOptions::default()).unwrap();
        assert_eq!(plan.name, "cbt");
        let inputs = FitInputs::of_table(&ds, &plan, None);
        let fit = plan.fit(&inputs, &ds.labels, &mut no_progress()).unwrap();
        assert!(fit.extra.notes.iter().any(|n| n.contains("auto chose cbt")));
    }

    #[test]
    fn report_matrices_carry_the_class_names() {
        // The review screen used to show "class #k" where scan showed names.
        let ds = votes();
        let plan = FitPlan::for_table(&ds, "cbt", &ModelOptions::default()).unwrap();
        let inputs = FitInputs::of_table(&ds, &plan, None);
        let fit = plan.fit(&inputs, &ds.labels, &mut no_progress()).unwrap();
        let labels: Vec<&String> = fit
            .extra
            .matrices
            .iter()
            .flat_map(|m| m.row_labels.iter().chain(&m.col_labels))
            .collect();
        assert!(!labels.is_empty());
        assert!(
            labels.iter().all(|l| !l.starts_with("class #")),
            "{labels:?}"
        );
        assert!(labels.iter().any(|l| *l == "dem"));
    }

    #[test]
    fn a_subset_takes_only_its_rows() {
        let ds = votes();
        let plan = FitPlan::for_table(&ds, "cbt", &ModelOptions::default()).unwrap();
        let rows: Vec<usize> = (0..ds.n_samples()).step_by(2).collect();
        let inputs = FitInputs::of_table(&ds, &plan, Some(&rows));
        assert_eq!(inputs.n_samples(), rows.len());
        assert_eq!(inputs.levels.as_ref().unwrap().nrows(), rows.len());
        let all: Vec<usize> = (0..ds.n_samples()).collect();
        let inputs = FitInputs::of_table(&ds, &plan, Some(&all));
        assert!(matches!(inputs.features, Cow::Borrowed(_)));
    }
}
