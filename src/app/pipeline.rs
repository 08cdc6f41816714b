//! The one fit pipeline. scan, eval, the review screen and its refits all
//! go through it, so a model sees the same matrix, gets the same names and
//! says the same things wherever it runs.

use std::borrow::Cow;
use std::sync::Mutex;

use nalgebra::DMatrix;

pub use super::inputs::FitInputs;

use super::auto::candidates::Candidate;
use super::auto::fit::{Chosen, choose, fit_candidate};
use super::auto::recount::Recount;
use super::auto::{counts, describe, skill};
use crate::dataset::Dataset;
use crate::models::{
    AUTO, Control, Fit, FitError, Guide, HeldOutSkill, ModelInput, ModelOptions, Progress,
    RobustModel, Selection, build_model,
};

/// A model ready to fit: options checked, or `auto`, which chooses when it
/// fits (`app::auto`).
pub struct FitPlan {
    /// The model that fits, or `auto` until it has chosen.
    pub name: String,
    /// Why this model fits when not named by the user.
    pub note: Option<String>,
    model: Planned,
    /// The options it was built with (its held-out check builds it again).
    options: ModelOptions,
    /// The held-out check of the count of auto's choice, kept for refits.
    recount: Mutex<Option<Recount>>,
}

enum Planned {
    One(Box<dyn RobustModel>),
    /// Chosen at fit time among auto's candidates.
    Auto,
    /// What auto chose, kept for refits: the candidate, the evidence that
    /// chose it and its held-out skill.
    Chosen(Candidate, Box<(Selection, HeldOutSkill)>),
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
    /// Builds `requested` (a model name, or `auto`), which checks its
    /// options; `auto` checks every candidate's.
    pub fn new(requested: &str, options: &ModelOptions) -> Result<FitPlan, FitError> {
        let model = if requested == AUTO {
            for c in super::auto::candidates::all() {
                build_model(c.model(), options)?;
            }
            Planned::Auto
        } else {
            Planned::One(build_model(requested, options)?)
        };
        Ok(FitPlan {
            name: requested.to_string(),
            note: None,
            model,
            options: options.clone(),
            recount: Mutex::new(None),
        })
    }

    /// [`FitPlan::new`] for a loaded table.
    pub fn for_table(
        ds: &Dataset,
        requested: &str,
        options: &ModelOptions,
    ) -> Result<FitPlan, FitError> {
        // --probs gives class probabilities, which only `probs` reads as such.
        if requested == AUTO && ds.options.probs.is_some() {
            let mut plan = Self::new("probs", options)?;
            plan.note = Some("auto chose probs: --probs gives class probabilities".into());
            return Ok(plan);
        }
        Self::new(requested, options)
    }

    /// The plan for the candidate `auto` chose in `fit` (a refit keeps it
    /// rather than choosing again); this plan when it named its model.
    pub fn settled(&self, fit: &Fit, options: &ModelOptions) -> Result<FitPlan, FitError> {
        let chosen = fit
            .extra
            .selection
            .as_ref()
            .zip(fit.extra.held_out_skill.as_ref());
        match (&self.model, chosen) {
            (Planned::Auto | Planned::Chosen(..), Some((sel, skill))) => {
                let candidate = Candidate::parse(&sel.chosen).ok_or_else(|| {
                    FitError::InvalidInput(format!("auto's choice {} is no candidate", sel.chosen))
                })?;
                build_model(candidate.model(), options)?;
                Ok(FitPlan {
                    name: sel.chosen.clone(),
                    note: Some("chosen by auto".into()),
                    model: Planned::Chosen(candidate, Box::new((sel.clone(), skill.clone()))),
                    options: options.clone(),
                    recount: Mutex::new(self.recount.lock().ok().and_then(|r| r.clone())),
                })
            }
            _ => Self::new(&self.name, options),
        }
    }

    /// The matrix the model reads (asked of the model, nowhere else); for
    /// `auto`, both, since its candidates read either.
    pub fn input(&self) -> ModelInput {
        match &self.model {
            Planned::One(m) => m.input(),
            Planned::Auto | Planned::Chosen(..) => ModelInput::Both,
        }
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
    /// inputs) and a warm start: see [`Guide`]. `auto` first chooses its
    /// model, then fits it; the report's `selection` says how. Every fit
    /// then meets the "no evidence" rule ([`skill`]) and gets its count.
    pub fn fit_guided(
        &self,
        inputs: &FitInputs<'_>,
        labels: &[usize],
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        let k = inputs.n_classes();
        let (features, levels) = (&inputs.features, inputs.levels.as_ref());
        let (mut fit, skill) = match &self.model {
            Planned::One(m) => {
                let fit = m.fit_inputs(features, levels, labels, k, guide, progress)?;
                let skill = self.check(m.name(), inputs, labels, progress)?;
                (fit, skill)
            }
            Planned::Auto => {
                let chosen = choose(inputs, labels, &self.options, progress)?;
                self.fit_choice(chosen, inputs, labels, guide, progress)?
            }
            Planned::Chosen(c, kept) => {
                let (selection, skill) = kept.as_ref();
                let mut fit =
                    fit_candidate(*c, inputs, labels, guide, &self.options, None, progress)?;
                fit.extra.selection = Some(selection.clone());
                let recount = self.recount.lock().ok().and_then(|r| r.clone());
                if let Some(note) = recount.and_then(|r| r.apply(&mut fit)) {
                    fit.extra.notes.push(note);
                }
                (fit, Ok(skill.clone()))
            }
        };
        if let Some(note) = &self.note {
            fit.extra.notes.push(note.clone());
        }
        if let Some(sel) = &fit.extra.selection {
            fit.extra.notes.insert(0, describe(sel));
        }
        match skill {
            Ok(s) if s.reason.is_some() => skill::withhold(&mut fit, labels, s),
            Ok(s) => fit.extra.held_out_skill = Some(s),
            Err(why) => fit.extra.notes.push(why),
        }
        fit.extra.wrong_labels = counts::of_fit(&fit);
        fit.extra.name_features(&inputs.feature_names);
        fit.extra.name_classes(&inputs.classes);
        Ok(fit)
    }

    /// A named model's held-out check ([`skill`]); `Err` with the note to
    /// show when it cannot be made.
    fn check(
        &self,
        model: &str,
        inputs: &FitInputs<'_>,
        labels: &[usize],
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Result<HeldOutSkill, String>, FitError> {
        if model == "probs" {
            let k = inputs.n_classes();
            return Ok(Ok(skill::of_probabilities(&inputs.features, labels, k)));
        }
        Ok(
            skill::of_model(model, inputs, labels, &self.options, progress)?
                .map_err(|why| format!("no held-out check of {model}'s skill: {why}")),
        )
    }

    /// Auto's choice fitted on every row; when that fit fails, or ranks by
    /// the given label alone, or has a flip table the data did not identify,
    /// the next best-scored candidate, and a note says why.
    fn fit_choice(
        &self,
        chosen: Chosen,
        inputs: &FitInputs<'_>,
        labels: &[usize],
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<(Fit, Result<HeldOutSkill, String>), FitError> {
        let Chosen {
            candidate,
            mut selection,
            skill,
            fallbacks,
            held_out,
            fold_fits,
            sample,
        } = chosen;
        let mut kept: Option<(Fit, HeldOutSkill, Candidate)> = None;
        let mut passed = Vec::new();
        let mut first_error = None;
        for (c, s) in std::iter::once((candidate, skill)).chain(fallbacks) {
            let done = fold_fits.iter().find(|(d, _)| *d == c).map(|(_, f)| f);
            match fit_candidate(c, inputs, labels, guide, &self.options, done, progress) {
                Ok(fit) => {
                    let why = fit.uncounted().map(str::to_string);
                    // The first fit stands unless a later one can count.
                    if kept.is_none() || why.is_none() {
                        kept = Some((fit, s, c));
                    }
                    match why {
                        None => break,
                        Some(w) => passed.push(format!("{} {w}", c.name())),
                    }
                }
                Err(e) if e.is_the_models_own() => {
                    passed.push(format!("{} failed on every row ({e})", c.name()));
                    first_error.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        let Some((mut fit, s, c)) = kept else {
            return Err(first_error.unwrap_or(FitError::Cancelled));
        };
        // A plain classifier's p_mislabel come from its out-of-fold
        // probabilities already: only a robust model's, fitted on the rows
        // they judge, are checked on held-out rows; and only when the
        // sample is the table, so that each held-out fit saw four fifths of
        // the rows the full fit saw (on a larger table the sample's fits
        // are weaker than the full fit, and their count is not its count).
        let whole = sample.rows.len() == labels.len();
        let recount = held_out
            .iter()
            .find(|(d, _)| whole && *d == c && matches!(c, Candidate::Robust(_)))
            .and_then(|(_, h)| Recount::of(h, &sample));
        if let Some(note) = recount.as_ref().and_then(|r| r.apply(&mut fit)) {
            fit.extra.notes.push(note);
        }
        if let Ok(mut kept) = self.recount.lock() {
            *kept = recount;
        }
        if c != candidate {
            fit.extra.notes.push(format!(
                "{}; so {}, the best-scored candidate left, is fitted",
                passed.join("; "),
                c.name()
            ));
            selection.chosen = c.name();
            for e in &mut selection.candidates {
                e.weight = (e.model == selection.chosen).then_some(1.0);
            }
        }
        // Every candidate left out says why, in one line.
        for e in selection.candidates.iter().filter(|e| e.score.is_none()) {
            let why = e.reason.as_deref().unwrap_or("no reason given");
            fit.extra
                .notes
                .push(format!("{} {}: {why}", e.model, e.status));
        }
        fit.extra.selection = Some(selection);
        Ok((fit, Ok(s)))
    }

    /// The name of the model that made `fit`: `auto`'s choice, or this one.
    pub fn model_of<'f>(&'f self, fit: &'f Fit) -> &'f str {
        fit.extra
            .selection
            .as_ref()
            .map_or(self.name.as_str(), |s| s.chosen.as_str())
    }

    /// The rows of another table with this table's layout (a test set), as
    /// the matrix the classifier of `fit` reads.
    pub fn test_matrix<'x>(
        &self,
        ds: &Dataset,
        x: &'x DMatrix<f64>,
        fit: &Fit,
    ) -> Cow<'x, DMatrix<f64>> {
        let input = match &self.model {
            Planned::One(m) => m.input(),
            Planned::Auto | Planned::Chosen(..) => Candidate::parse(self.model_of(fit))
                .and_then(|c| build_model(c.model(), &ModelOptions::default()).ok())
                .map_or(ModelInput::Features, |m| m.input()),
        };
        if input == ModelInput::Levels && !ds.categorical.is_empty() {
            Cow::Owned(ds.source_matrix_of(x))
        } else {
            Cow::Borrowed(x)
        }
    }
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
                // A probe with its gene symbol, where the platform gives one.
                (None, ds.feature_labels())
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
    use crate::models::{Verdict, no_progress};

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

    /// Two Gaussian classes 2.4 apart, a fifth of the labels flipped;
    /// with `signal` false the labels ignore the features.
    fn gaussian(n: usize, signal: bool) -> Dataset {
        let mut rng = crate::rng::Rng::new(8);
        let mut csv = String::from("id,a,b,label\n");
        for i in 0..n {
            let t = i % 2;
            let shift = if t == 1 { 1.2 } else { -1.2 };
            let mut label = if rng.uniform() < 0.2 { 1 - t } else { t };
            if !signal {
                label = usize::from(rng.uniform() < 0.5);
            }
            csv.push_str(&format!(
                "s{i},{:.4},{:.4},c{label}\n",
                rng.normal() + shift,
                rng.normal() - shift
            ));
        }
        table(&csv)
    }

    fn fit_with(ds: &Dataset, model: &str) -> (FitPlan, Fit) {
        let plan = FitPlan::for_table(ds, model, &ModelOptions::default()).unwrap();
        let inputs = FitInputs::of_table(ds, &plan, None);
        let fit = plan.fit(&inputs, &ds.labels, &mut no_progress()).unwrap();
        (plan, fit)
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
    fn auto_chooses_when_it_fits_says_why_and_a_refit_keeps_the_choice() {
        let ds = gaussian(240, true);
        let (plan, fit) = fit_with(&ds, "auto");
        assert_eq!(plan.input(), ModelInput::Both, "its candidates read either");
        let chosen = plan.model_of(&fit).to_string();
        assert!(Candidate::parse(&chosen).is_some(), "{chosen}");
        let sel = fit.extra.selection.clone().unwrap();
        let note = &fit.extra.notes[0];
        assert!(
            note.starts_with(&format!("auto chose {chosen} by")),
            "{note}"
        );
        assert_eq!(
            fit.extra.held_out_skill.as_ref().unwrap().verdict,
            Verdict::Skill
        );
        let count = fit.extra.wrong_labels.clone().unwrap();
        assert!(count.low as f64 <= count.expected && count.expected <= count.high as f64);
        // A refit keeps the choice instead of choosing again, and fits the
        // same way.
        let settled = plan.settled(&fit, &ModelOptions::default()).unwrap();
        assert_eq!(settled.name, chosen);
        let inputs = FitInputs::of_table(&ds, &settled, None);
        let again = settled
            .fit(&inputs, &ds.labels, &mut no_progress())
            .unwrap();
        assert_eq!(again.posterior, fit.posterior);
        assert_eq!(again.extra.selection, Some(sel));
        // A named model is never overridden.
        let (named, fit) = fit_with(&ds, "rlr");
        assert_eq!(named.model_of(&fit), "rlr");
        assert!(fit.extra.selection.is_none());
    }

    /// The same table gives the same fit with one thread or two, and on a
    /// machine ten times slower (every progress report takes a while): no
    /// choice reads a clock.
    #[test]
    fn auto_gives_the_same_answer_on_any_machine() {
        let ds = gaussian(300, true);
        let on = |threads: usize, slow: bool| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let plan = FitPlan::for_table(&ds, "auto", &ModelOptions::default()).unwrap();
                let inputs = FitInputs::of_table(&ds, &plan, None);
                let mut progress = |_: Progress| {
                    if slow {
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                    Control::Continue
                };
                plan.fit(&inputs, &ds.labels, &mut progress).unwrap()
            })
        };
        let one = on(1, false);
        for other in [on(2, false), on(2, true), on(1, true)] {
            assert_eq!(other.p_mislabel, one.p_mislabel);
            assert_eq!(other.ranking(), one.ranking());
            assert_eq!(other.extra.selection, one.extra.selection);
        }
    }

    /// Labels independent of the features: every model, named or chosen,
    /// flags nothing and says why.
    #[test]
    fn without_signal_nothing_is_flagged() {
        let ds = gaussian(300, false);
        for model in ["auto", "rnda", "lr"] {
            let (_, fit) = fit_with(&ds, model);
            let skill = fit.extra.held_out_skill.as_ref().unwrap();
            assert_eq!(skill.verdict, Verdict::NoSkill, "{model}: {skill:?}");
            assert!(fit.p_mislabel.iter().all(|&p| p < 0.5), "{model}");
            assert!(fit.extra.wrong_labels.is_none());
            assert!(fit.uncounted().unwrap().contains("no skill"), "{model}");
        }
    }

    /// Nine rows: no class can be held out, so auto fits its first
    /// candidate that fits and says the data cannot tell.
    #[test]
    fn a_tiny_table_is_too_small_to_tell() {
        let ds =
            table("id,a,label\n1,2,x\n2,4,y\n3,6,x\n4,8,y\n5,2,x\n6,5,y\n7,7,x\n8,9,y\n9,3,x\n");
        let (_, fit) = fit_with(&ds, "auto");
        let skill = fit.extra.held_out_skill.as_ref().unwrap();
        assert_eq!(skill.verdict, Verdict::TooFewSamples);
        assert!(fit.p_mislabel.iter().all(|&p| p == 0.0));
    }

    #[test]
    fn report_matrices_carry_the_class_names() {
        // The review screen used to show "class #k" where scan showed names.
        let ds = votes();
        let (_, fit) = fit_with(&ds, "cbt");
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
