//! Stage 3 of auto: the candidates that apply are evaluated within the
//! work bound, decide chooses, and the choice is fitted on every row.

use std::sync::Arc;

use nalgebra::DMatrix;

use super::candidates::{Candidate, PLAIN, ROBUST};
use super::decide::{Choice, Row, decide};
use super::evaluate::{
    FOLDS, FoldFits, HeldOut, Outcome, Sample, content_keys, evaluate_keeping, stratified_folds,
};
use super::skill;
use super::work::{EVALUATION_WORK, work};
use crate::app::inputs::FitInputs;
use crate::models::ensemble::WeightedClassifier;
use crate::models::probs::Probs;
use crate::models::{
    CandidateScore, Classifier, Control, Fit, FitError, Guide, HeldOutSkill, ModelOptions,
    Progress, RobustModel, Selection, Verdict, build_model,
};

/// What auto chose and why: the candidate, the report's selection, and the
/// chosen candidate's held-out skill.
pub struct Chosen {
    pub candidate: Candidate,
    pub selection: Selection,
    pub skill: HeldOutSkill,
    /// The other scored candidates, best first, with their skill: tried in
    /// turn when the choice cannot be fitted on every row.
    pub fallbacks: Vec<(Candidate, HeldOutSkill)>,
    /// Every scored candidate's held-out predictions on the sample, for
    /// the check of the count of the one fitted
    /// ([`super::recount::Recount`]).
    pub held_out: Vec<(Candidate, HeldOut)>,
    /// Plain classifiers' fold fits on a sample of every row: their fit on
    /// every row starts from them ([`fit_candidate`]).
    pub fold_fits: Vec<(Candidate, FoldFits)>,
    pub sample: Sample,
}

/// The criterion as the report says it.
pub const CRITERION: &str = "cross-validated log score of the given labels (5 folds on at most \
    1000 rows; the best is fitted)";

/// Evaluates every candidate that applies, and decides.
pub fn choose(
    inputs: &FitInputs<'_>,
    labels: &[usize],
    options: &ModelOptions,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<Chosen, FitError> {
    let sample = Sample::draw(inputs, labels, options.seed);
    let (candidates, mut report) = within_bound(inputs, labels, &sample);
    let smallest = smallest_class(labels, inputs.n_classes());
    let first = candidates[0];
    if !sample.holds_out() {
        let too_few = |c: Candidate| {
            let s = HeldOutSkill::new(&c.name(), Verdict::TooFewSamples, 0, None, None, smallest);
            (c, s)
        };
        return Ok(Chosen {
            candidate: first,
            selection: selection(first, report),
            skill: too_few(first).1,
            fallbacks: candidates[1..].iter().map(|&c| too_few(c)).collect(),
            held_out: Vec::new(),
            fold_fits: Vec::new(),
            sample,
        });
    }
    let (table, kept) = evaluate_keeping(&candidates, inputs, &sample, options, progress)?;
    let (n, k) = (labels.len(), inputs.n_classes());
    let scored: Vec<(Candidate, &HeldOut)> = candidates
        .iter()
        .zip(&table.outcomes)
        .filter_map(|(c, o)| match o {
            Outcome::Scored(h) => Some((*c, h)),
            Outcome::Dropped { .. } => None,
        })
        .collect();
    let rows: Vec<Row> = scored
        .iter()
        .map(|(c, h)| Row {
            name: h.name.clone(),
            log_scores: h.log_scores(&sample),
            work: work(*c, n, columns(*c, inputs), k),
        })
        .collect();
    for o in &table.outcomes {
        if let Outcome::Dropped { name, reason } = o {
            report.push(unscored(name, "failed", reason.clone()));
        }
    }
    let Some(choice) = decide(&rows) else {
        let why: Vec<String> = report
            .iter()
            .map(|c| format!("{}: {}", c.model, c.reason.as_deref().unwrap_or(&c.status)))
            .collect();
        return Err(FitError::NotApplicable(format!(
            "auto could score no candidate ({})",
            why.join("; ")
        )));
    };
    let (chosen, held) = scored[choice.chosen];
    let mut selection = selection(chosen, report);
    selection
        .candidates
        .splice(0..0, scored_entries(&rows, &choice));
    Ok(Chosen {
        candidate: chosen,
        skill: skill::test(held, &sample, smallest),
        fallbacks: by_score(&scored, &choice)
            .into_iter()
            .map(|(c, h)| (c, skill::test(h, &sample, smallest)))
            .collect(),
        held_out: scored.iter().map(|(c, h)| (*c, (*h).clone())).collect(),
        fold_fits: candidates
            .iter()
            .zip(kept)
            .filter_map(|(c, f)| Some((*c, f?)))
            .collect(),
        selection,
        sample,
    })
}

/// The scored candidates other than the chosen one, best score first.
fn by_score<'a>(
    scored: &[(Candidate, &'a HeldOut)],
    choice: &Choice,
) -> Vec<(Candidate, &'a HeldOut)> {
    let mut order: Vec<usize> = (0..scored.len())
        .filter(|&c| c != choice.chosen && choice.scores[c].is_some())
        .collect();
    let mean = |c: usize| choice.scores[c].map_or(f64::NEG_INFINITY, |s| s.mean);
    order.sort_by(|&a, &b| mean(b).total_cmp(&mean(a)).then(a.cmp(&b)));
    order.into_iter().map(|c| scored[c]).collect()
}

/// The report's entries of the scored candidates, best score first.
fn scored_entries(rows: &[Row], choice: &Choice) -> Vec<CandidateScore> {
    let mut out: Vec<(f64, CandidateScore)> = rows
        .iter()
        .enumerate()
        .filter_map(|(c, r)| {
            let s = choice.scores[c]?;
            Some((
                s.mean,
                CandidateScore {
                    model: r.name.clone(),
                    score: Some(s.mean),
                    standard_error: Some(s.standard_error),
                    status: "scored".into(),
                    reason: None,
                    weight: (c == choice.chosen).then_some(1.0),
                },
            ))
        })
        .collect();
    out.sort_by(|a, b| b.0.total_cmp(&a.0));
    out.into_iter().map(|(_, c)| c).collect()
}

fn selection(chosen: Candidate, candidates: Vec<CandidateScore>) -> Selection {
    Selection {
        chosen: chosen.name(),
        criterion: CRITERION.into(),
        candidates,
    }
}

fn unscored(model: &str, status: &str, reason: String) -> CandidateScore {
    CandidateScore {
        model: model.to_string(),
        score: None,
        standard_error: None,
        status: status.into(),
        reason: Some(reason),
        weight: None,
    }
}

fn smallest_class(labels: &[usize], k: usize) -> usize {
    let mut counts = vec![0usize; k];
    labels.iter().for_each(|&g| counts[g] += 1);
    counts.into_iter().filter(|&c| c > 0).min().unwrap_or(0)
}

/// Columns of the matrix `c` reads.
fn columns(c: Candidate, inputs: &FitInputs<'_>) -> usize {
    build_model(c.model(), &ModelOptions::default()).map_or(inputs.features.ncols(), |m| {
        m.input()
            .pick(&inputs.features, inputs.levels.as_ref())
            .ncols()
    })
}

/// The candidates that apply, cheapest held-out fits first while their
/// work stays within [`EVALUATION_WORK`] (the cheapest always), put back
/// in candidate order; and the report's entries for those left out.
fn within_bound(
    inputs: &FitInputs<'_>,
    labels: &[usize],
    sample: &Sample,
) -> (Vec<Candidate>, Vec<CandidateScore>) {
    let k = inputs.n_classes();
    let smallest = smallest_class(labels, k);
    let d = inputs.features.ncols();
    let mut report = Vec::new();
    let mut all: Vec<Candidate> = ROBUST.iter().map(|&m| Candidate::Robust(m)).collect();
    for &m in PLAIN {
        let c = Candidate::Plain(m);
        // QDA where every class has room for its covariance: twice its
        // parameters in rows.
        if m == "nda" && smallest < 2 * (d + 1) {
            let reason = format!(
                "QDA needs every class well above its {d} features (at least {} rows; the smallest class has {smallest})",
                2 * (d + 1)
            );
            report.push(unscored(&c.name(), CandidateScore::NOT_APPLICABLE, reason));
            continue;
        }
        all.push(c);
    }
    let train = sample.rows.len() * (FOLDS - 1) / FOLDS;
    let cost = |c: Candidate| FOLDS as f64 * work(c, train, columns(c, inputs), k);
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by(|&a, &b| cost(all[a]).total_cmp(&cost(all[b])).then(a.cmp(&b)));
    let mut spent = 0.0;
    let mut kept = vec![false; all.len()];
    for (rank, &c) in order.iter().enumerate() {
        let w = cost(all[c]);
        if rank == 0 || spent + w <= EVALUATION_WORK {
            spent += w;
            kept[c] = true;
        } else {
            let reason = format!(
                "its {FOLDS} held-out fits on {train} rows would cost {w:.1e} units of work \
                 (rows x parameters x iterations), past what auto spends on choosing \
                 ({EVALUATION_WORK:.0e}); name it with --model to fit it"
            );
            report.push(unscored(&all[c].name(), "not evaluated", reason));
        }
    }
    let chosen = (0..all.len())
        .filter(|&c| kept[c])
        .map(|c| all[c])
        .collect();
    (chosen, report)
}

/// `c` fitted on every row: a robust model as it is; a plain classifier's
/// out-of-fold probabilities under `probs`' flip table. `done` is the
/// evaluation's fold fits of `c`, used when they are the very fits this
/// would make (the same labels in the same folds).
pub fn fit_candidate(
    c: Candidate,
    inputs: &FitInputs<'_>,
    labels: &[usize],
    guide: &Guide,
    options: &ModelOptions,
    done: Option<&FoldFits>,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<Fit, FitError> {
    let k = inputs.n_classes();
    let model = build_model(c.model(), options)?;
    let Candidate::Plain(name) = c else {
        let (x, levels) = (&inputs.features, inputs.levels.as_ref());
        return model.fit_inputs(x, levels, labels, k, guide, progress);
    };
    // The classifier trusts its labels: the curator's decisions are labels.
    let trusted = guide.decided_labels(labels);
    let keys = content_keys(inputs, options.seed);
    let all: Vec<usize> = (0..labels.len()).collect();
    let folds = stratified_folds(&all, &trusted, k, &keys);
    let (mut oof, members) = match done.filter(|d| d.given == trusted && d.folds == folds) {
        Some(d) => (d.oof.clone(), d.members.clone()),
        None => out_of_fold(c, inputs, &trusted, &folds, options, progress)?,
    };
    // Rows of a class too small to hold out are predicted by every fold.
    let mean = WeightedClassifier::equal(members);
    let never: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&i| folds[i].is_none())
        .collect();
    if !never.is_empty() {
        let p = mean.predict_proba(&inputs.select(&never).features);
        for (r, &i) in never.iter().enumerate() {
            oof.set_row(i, &p.row(r));
        }
    }
    let mut fit = Probs::new(options)?.fit_guided(&oof, labels, k, guide, progress)?;
    fit.classifier = Some(Arc::new(mean));
    fit.extra.notes.push(format!(
        "{}: {name}'s {FOLDS}-fold out-of-fold class probabilities with probs' flip table on top",
        c.name()
    ));
    Ok(fit)
}

/// Out-of-fold P(true | x) and the fold classifiers.
type OutOfFold = (DMatrix<f64>, Vec<Arc<dyn Classifier>>);

/// A plain classifier's out-of-fold P(true | x) over `folds` (rows in no
/// fold are NaN) and its fold fits, in fold order.
fn out_of_fold(
    c: Candidate,
    inputs: &FitInputs<'_>,
    labels: &[usize],
    folds: &[Option<usize>],
    options: &ModelOptions,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<OutOfFold, FitError> {
    let k = inputs.n_classes();
    let mut oof = DMatrix::from_element(labels.len(), k, f64::NAN);
    let mut members = Vec::with_capacity(FOLDS);
    for f in 0..FOLDS {
        let (held, train): (Vec<usize>, Vec<usize>) =
            (0..labels.len()).partition(|&i| folds[i] == Some(f));
        let train_labels: Vec<usize> = train.iter().map(|&i| labels[i]).collect();
        let mut step = |mut p: Progress| {
            p.fraction = (f as f64 + p.fraction.clamp(0.0, 1.0)) / (FOLDS + 1) as f64;
            progress(p)
        };
        let fitted =
            c.fit_classifier(&inputs.select(&train), &train_labels, k, options, &mut step)?;
        let p = fitted.predict(&inputs.select(&held));
        for (r, &i) in held.iter().enumerate() {
            oof.set_row(i, &p.row(r));
        }
        members.push(fitted.classifier());
    }
    Ok((oof, members))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::models::{Guide, no_progress};

    /// Three overlapping classes, every seventh label moved on by one.
    fn table(n: usize) -> (DMatrix<f64>, Vec<usize>) {
        let x = DMatrix::from_fn(n, 2, |i, j| {
            let class = (i % 3) as f64;
            let wobble = ((i * 7919 + j * 104_729) % 1000) as f64 / 1000.0 - 0.5;
            class * (1.0 + j as f64) + 1.5 * wobble
        });
        let given = (0..n)
            .map(|i| if i % 7 == 0 { (i + 1) % 3 } else { i % 3 })
            .collect();
        (x, given)
    }

    #[test]
    fn the_evaluations_fold_fits_are_the_final_fits_own_when_the_sample_is_the_table() {
        let (x, given) = table(300);
        let inputs = FitInputs::of_matrix(&x, 3);
        let options = ModelOptions::default();
        let chosen = choose(&inputs, &given, &options, &mut no_progress()).unwrap();
        assert_eq!(chosen.sample.rows.len(), 300);
        let (c, done) = chosen
            .fold_fits
            .iter()
            .find(|(c, _)| *c == Candidate::Plain("lr"))
            .expect("lr's fold fits are kept on a sample of every row");
        assert!(
            chosen
                .fold_fits
                .iter()
                .all(|(c, _)| matches!(c, Candidate::Plain(_)))
        );
        let guide = Guide::default();
        let fit = |d| fit_candidate(*c, &inputs, &given, &guide, &options, d, &mut no_progress());
        let (again, reused) = (fit(None).unwrap(), fit(Some(done)).unwrap());
        assert_eq!(again.p_mislabel, reused.p_mislabel);
        assert_eq!(again.suggested, reused.suggested);
        // Fold fits of other labels are not this fit's: they are refitted.
        let mut other = given.clone();
        other[1] = 2;
        let refit = fit_candidate(
            *c,
            &inputs,
            &other,
            &guide,
            &options,
            Some(done),
            &mut no_progress(),
        );
        let plain = fit_candidate(
            *c,
            &inputs,
            &other,
            &guide,
            &options,
            None,
            &mut no_progress(),
        );
        assert_eq!(refit.unwrap().p_mislabel, plain.unwrap().p_mislabel);
    }
}
