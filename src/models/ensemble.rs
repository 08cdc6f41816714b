//! `all`: every applicable robust model on the same data, their mean
//! posterior, and how much they disagree about each sample.
//!
//! Models run on scoped threads (each is already parallel inside, so this
//! mostly overlaps their serial parts); their progress is funnelled through
//! a channel to the single caller-supplied callback, whose `Stop` reaches
//! every model through a shared flag.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use nalgebra::DMatrix;

use super::{
    Classifier, ColumnDisplay, Control, DataShape, Fit, FitError, Guide, ModelInput, ModelOptions,
    Progress, RobustModel, SampleColumn, build_model,
};

/// The per-sample column of how much the members disagree; the TUI sorts
/// and heads it by this name.
pub const DISAGREEMENT: &str = "disagreement";

/// Per-model columns are this prefix plus the member's name.
pub const MEMBER_PREFIX: &str = "p_mislabel_";

/// A member's p_mislabel as a column, headed by the member's name.
pub fn member_column(member: &str, p_mislabel: Vec<f64>) -> SampleColumn {
    SampleColumn::new(format!("{MEMBER_PREFIX}{member}"), p_mislabel).with_display(ColumnDisplay {
        label: Some(member.to_string()),
        width: 5,
        ..ColumnDisplay::default()
    })
}

/// The disagreement column: the sort a curator of `all` wants right after
/// p_mislabel, so it is offered first.
pub fn disagreement_column(values: Vec<f64>) -> SampleColumn {
    SampleColumn::new(DISAGREEMENT, values).with_display(ColumnDisplay {
        label: Some("dis.".into()),
        width: 5,
        sort_first: true,
        ..ColumnDisplay::default()
    })
}

/// The robust models `all` tries, in report order.
pub const ENSEMBLE_MEMBERS: &[&str] = &["rnda", "rlr", "shift", "rmda", "cbt"];

#[derive(Clone, Debug)]
pub struct AllModels {
    options: ModelOptions,
}

impl AllModels {
    /// Reads `seed`, `max_iter` and `tol` (passed on to the members), and
    /// checks the options of every member it may run, so a bad value fails
    /// here rather than in whichever member the data happens to select.
    pub fn new(options: &ModelOptions) -> Result<Self, FitError> {
        options.checked_iterations()?;
        for name in ENSEMBLE_MEMBERS {
            build_model(name, options)?;
        }
        Ok(Self {
            options: options.clone(),
        })
    }

    /// Which members suit data of this shape, and why the others do not.
    /// `cbt_features`: the columns cbt would read (its level codes are one
    /// column per source column, fewer than the one-hot features).
    pub fn plan(shape: &DataShape, cbt_features: usize) -> (Vec<&'static str>, Vec<String>) {
        let mut chosen = Vec::new();
        let mut skipped = Vec::new();
        for &name in ENSEMBLE_MEMBERS {
            let gaussian = matches!(name, "rnda" | "rmda");
            if gaussian && shape.n_features >= shape.n_samples {
                skipped.push(format!(
                    "{name} skipped: Gaussian models need fewer features ({}) than samples ({})",
                    shape.n_features, shape.n_samples
                ));
            } else if name == "cbt" && cbt_features > super::discrete::cbt::MAX_FEATURES {
                skipped.push(format!(
                    "cbt skipped: {} features are too many for joint cells (at most {})",
                    cbt_features,
                    super::discrete::cbt::MAX_FEATURES
                ));
            } else {
                chosen.push(name);
            }
        }
        (chosen, skipped)
    }
}

/// Classifies new rows by the weighted mean of several classifiers'
/// probabilities (`all`: equal weights; `auto`'s mixture: its weights).
#[derive(Debug)]
pub struct WeightedClassifier(pub Vec<(f64, Arc<dyn Classifier>)>);

impl WeightedClassifier {
    pub fn equal(members: Vec<Arc<dyn Classifier>>) -> Self {
        let w = 1.0 / members.len().max(1) as f64;
        WeightedClassifier(members.into_iter().map(|c| (w, c)).collect())
    }
}

impl Classifier for WeightedClassifier {
    fn predict_proba(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        let mut sum: Option<DMatrix<f64>> = None;
        for (w, c) in &self.0 {
            let p = c.predict_proba(x) * *w;
            sum = Some(match sum {
                Some(s) => s + p,
                None => p,
            });
        }
        sum.unwrap_or_else(|| DMatrix::zeros(x.nrows(), 0))
    }
}

impl RobustModel for AllModels {
    fn name(&self) -> &'static str {
        "all"
    }

    fn input(&self) -> ModelInput {
        ModelInput::Both
    }

    fn fit_guided(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        self.fit_inputs(x, None, given, n_classes, guide, progress)
    }

    /// Each member gets the matrix it asks for: cbt the level codes, the
    /// others the (one-hot) features.
    fn fit_inputs(
        &self,
        x: &DMatrix<f64>,
        levels: Option<&DMatrix<f64>>,
        given: &[usize],
        n_classes: usize,
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        super::check_inputs(x, given, n_classes)?;
        guide.check(given.len(), n_classes)?;
        if let Some(l) = levels {
            super::check_inputs(l, given, n_classes)?;
        }
        let shape = DataShape::of(x);
        let cbt_features = levels.map_or(x.ncols(), |l| l.ncols());
        let (planned, mut notes) = Self::plan(&shape, cbt_features);
        let mut members: Vec<(&'static str, Box<dyn RobustModel>)> = Vec::new();
        for name in planned {
            match build_model(name, &self.options) {
                Ok(m) => members.push((name, m)),
                Err(FitError::UnknownModel(..)) => {}
                Err(e) => return Err(e),
            }
        }
        if members.is_empty() {
            return Err(FitError::NotApplicable(
                "no robust model applies to this data".into(),
            ));
        }
        let stop = AtomicBool::new(false);
        let n_members = members.len();
        let names: Vec<&'static str> = members.iter().map(|(n, _)| *n).collect();
        let (tx, rx) = mpsc::channel::<(usize, Progress)>();
        let results: Vec<(&'static str, Result<Fit, FitError>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = members
                .into_iter()
                .enumerate()
                .map(|(m, (name, model))| {
                    let tx = tx.clone();
                    let stop = &stop;
                    scope.spawn(move || {
                        let mut cb = |p: Progress| {
                            let _ = tx.send((m, p));
                            if stop.load(Ordering::Relaxed) {
                                Control::Stop
                            } else {
                                Control::Continue
                            }
                        };
                        (
                            name,
                            model.fit_inputs(x, levels, given, n_classes, guide, &mut cb),
                        )
                    })
                })
                .collect();
            drop(tx);
            let mut fractions = vec![0.0; n_members];
            for (m, p) in rx {
                fractions[m] = p.fraction;
                let overall = fractions.iter().sum::<f64>() / n_members as f64;
                let shown = Progress {
                    stage: names[m],
                    fraction: overall,
                    ..p
                };
                if progress(shown) == Control::Stop {
                    stop.store(true, Ordering::Relaxed);
                }
            }
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        ("?", Err(FitError::Numerical("a model panicked".into())))
                    })
                })
                .collect()
        });
        if stop.load(Ordering::Relaxed) {
            return Err(FitError::Cancelled);
        }
        let mut fits: Vec<(&'static str, Fit)> = Vec::new();
        for (name, r) in results {
            match r {
                Ok(f) => fits.push((name, f)),
                Err(FitError::Cancelled) => return Err(FitError::Cancelled),
                Err(e) => notes.push(format!("{name} failed: {e}")),
            }
        }
        if fits.is_empty() {
            return Err(FitError::NotApplicable(format!(
                "every model failed: {}",
                notes.join("; ")
            )));
        }
        // Members classify rows of different matrices when the table has
        // string columns, so no one matrix serves a mean classifier.
        let mixed = levels.is_some()
            && fits.iter().any(|(name, _)| {
                build_model(name, &self.options).is_ok_and(|m| m.input() == ModelInput::Levels)
            });
        let mut fit = combine(fits, given, notes)?;
        if mixed {
            fit.classifier = None;
        }
        Ok(fit)
    }
}

/// Mean posterior, per-model p_mislabel columns, and the disagreement score:
/// the standard deviation of the members' p_mislabel for each sample.
fn combine(
    fits: Vec<(&'static str, Fit)>,
    given: &[usize],
    notes: Vec<String>,
) -> Result<Fit, FitError> {
    let m = fits.len() as f64;
    let mut posterior = fits[0].1.posterior.clone();
    for (_, f) in &fits[1..] {
        posterior += &f.posterior;
    }
    posterior /= m;
    let mut fit = Fit::from_posterior(posterior, given);
    let n = given.len();
    let disagreement: Vec<f64> = (0..n)
        .map(|i| {
            let mean = fits.iter().map(|(_, f)| f.p_mislabel[i]).sum::<f64>() / m;
            (fits
                .iter()
                .map(|(_, f)| (f.p_mislabel[i] - mean).powi(2))
                .sum::<f64>()
                / m)
                .sqrt()
        })
        .collect();
    for (name, f) in &fits {
        fit.extra
            .sample_columns
            .push(member_column(name, f.p_mislabel.clone()));
        fit.extra
            .scalars
            .push((format!("{name}.iterations"), f.iterations as f64));
        fit.extra.scalars.push((
            format!("{name}.converged"),
            if f.converged { 1.0 } else { 0.0 },
        ));
    }
    fit.extra
        .sample_columns
        .push(disagreement_column(disagreement));
    fit.extra.lists.push((
        "models".into(),
        fits.iter().map(|(n, _)| n.to_string()).collect(),
    ));
    fit.extra.notes = notes;
    fit.converged = fits.iter().all(|(_, f)| f.converged);
    fit.iterations = fits.iter().map(|(_, f)| f.iterations).max().unwrap_or(0);
    // The trace of the first member, so the objective chart has a curve.
    fit.trace = fits[0].1.trace.clone();
    let classifiers: Vec<Arc<dyn Classifier>> = fits
        .iter()
        .filter_map(|(_, f)| f.classifier.clone())
        .collect();
    if classifiers.len() == fits.len() {
        fit.classifier = Some(Arc::new(WeightedClassifier::equal(classifiers)));
    }
    Ok(fit)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::models::no_progress;
    use crate::rng::Rng;

    fn data() -> (DMatrix<f64>, Vec<usize>) {
        let mut rng = Rng::new(3);
        let mut given: Vec<usize> = (0..200).map(|i| i % 2).collect();
        let x = DMatrix::from_fn(200, 3, |i, _| 4.0 * given[i] as f64 + rng.normal());
        for g in given.iter_mut().take(20) {
            *g = 1 - *g;
        }
        (x, given)
    }

    #[test]
    fn combines_members_into_a_mean_and_a_disagreement_column() {
        let (x, given) = data();
        let fit = AllModels::new(&ModelOptions::default())
            .unwrap()
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        let members = &fit.extra.lists[0].1;
        assert!(members.contains(&"rnda".to_string()));
        let cols: Vec<&SampleColumn> = fit
            .extra
            .sample_columns
            .iter()
            .filter(|c| c.name.starts_with("p_mislabel_"))
            .collect();
        assert_eq!(cols.len(), members.len());
        for i in 0..200 {
            let mean = cols.iter().map(|c| c.values[i]).sum::<f64>() / cols.len() as f64;
            assert!((fit.p_mislabel[i] - mean).abs() < 1e-9);
        }
        let dis = fit.extra.sample_column("disagreement").unwrap();
        assert!(dis.values.iter().all(|v| *v >= 0.0 && v.is_finite()));
        // The 20 flipped samples are the most suspect.
        let top: Vec<usize> = fit.ranking().into_iter().take(20).collect();
        assert!(top.iter().filter(|&&i| i < 20).count() >= 18);
    }

    #[test]
    fn plan_skips_gaussian_models_on_wide_data_and_says_why() {
        let wide = DataShape {
            n_samples: 62,
            n_features: 2000,
            discrete: false,
        };
        let (chosen, skipped) = AllModels::plan(&wide, 2000);
        assert!(!chosen.contains(&"rnda") && !chosen.contains(&"rmda"));
        assert!(!chosen.contains(&"cbt"));
        assert!(skipped.iter().any(|s| s.contains("rnda skipped")));
        // One-hot votes: 48 features for the others, 16 level columns for cbt.
        let votes = DataShape {
            n_samples: 435,
            n_features: 48,
            discrete: true,
        };
        assert!(AllModels::plan(&votes, 16).0.contains(&"cbt"));
        assert!(
            !AllModels::plan(&votes, super::super::discrete::cbt::MAX_FEATURES + 1)
                .0
                .contains(&"cbt")
        );
    }

    #[test]
    fn stop_cancels_every_member() {
        let (x, given) = data();
        let err = AllModels::new(&ModelOptions::default())
            .unwrap()
            .fit(&x, &given, 2, &mut |_| Control::Stop)
            .unwrap_err();
        assert_eq!(err, FitError::Cancelled);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod option_tests {
    use super::*;

    crate::models::rejects_option! {
        zero_tol: AllModels::new, "tol" = "0";
        a_member_option: AllModels::new, "lambda_rule" = "magic";
    }
}
