//! `relabel report FILE`: the saved review session of FILE as one
//! self-contained HTML page ([`crate::audit_page`]) to share with people
//! who will not run relabel.
//!
//! The session is found as `relabel export` finds it: the input loaded with
//! the same data options, its journal looked up in the session store. The
//! journal keeps decisions and the chosen model, not the fit, so the page's
//! p_mislabel comes from a fit made now, headlessly, with the session's
//! model on every sample and its given label: the ranking the review
//! screen shows when the session is reopened. The page says so.

use std::path::{Path, PathBuf};

use super::CliError;
use super::args::{DataArgs, ModelArgs, ReportArgs};
use super::progress::Bar;
use crate::app::{FitInputs, FitPlan};
use crate::audit_page::{AuditInput, Tally, render};
use crate::models::ModelOptions;
use crate::review::{ResumeInfo, ReviewError, Session, default_store};

/// The model the page fits, and the reader's reason for it.
struct Choice {
    name: String,
    options: ModelOptions,
    why: String,
}

pub fn run(a: &ReportArgs, data: &DataArgs, model: &ModelArgs) -> Result<(), CliError> {
    let out = a.out.clone().unwrap_or_else(|| default_out(&a.data));
    check_out(&a.data, &out, a.force)?;
    if model.model.is_some() {
        model.check_read_by(model.name())?;
    }
    let store = default_store().ok_or_else(|| {
        CliError::Failed(anyhow::anyhow!(
            "cannot find a home directory for the session store"
        ))
    })?;
    let session = open_session(&a.data, data, model, &store)?;
    let choice = choose_model(&session, model)?;
    let ds = session.dataset();
    let plan = FitPlan::for_table(ds, &choice.name, &choice.options)?;
    let inputs = FitInputs::of_table(ds, &plan, None);
    let fit = {
        let bar = Bar::new(a.quiet, &format!("report {}", plan.name));
        plan.fit(&inputs, &ds.labels, &mut bar.fit_callback(0.0, 1.0))?
    };
    let n = ds.n_samples();
    let decisions: Vec<_> = (0..n).map(|i| session.decision(i)).collect();
    let decided_at: Vec<Option<String>> = (0..n)
        .map(|i| session.audit_time(i).map(str::to_string))
        .collect();
    let seen: Vec<_> = (0..n).map(|i| session.seen(i).cloned()).collect();
    let shown_model = page_model(&plan.name, &fit);
    let fit_note = format!(
        "fitted for this page with {shown_model} ({}), on all {n} samples with their given \
         labels: the ranking the review screen shows when the session is reopened",
        choice.why
    );
    let generated = crate::review::time::now();
    let html = render(&AuditInput {
        dataset: ds,
        decisions: &decisions,
        decided_at: &decided_at,
        seen: &seen,
        comments: session.comments(),
        fit: &fit,
        model: &shown_model,
        fit_note: &fit_note,
        journal: session.journal_path(),
        generated: &generated,
    });
    crate::atomic_write::write_atomic(&out, a.force, |w| w.write_all(html.as_bytes())).map_err(
        |e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => exists(&out),
            _ => CliError::Failed(
                anyhow::Error::new(e).context(format!("cannot write {}", out.display())),
            ),
        },
    )?;
    let t = Tally::of(&decisions, &fit.p_mislabel, fit.flag_cutoff());
    let left = match fit.uncounted() {
        Some(why) => format!("no count of wrong labels: {why}"),
        None => format!(
            "about {:.1} wrong labels expected among the undecided",
            t.expected_remaining
        ),
    };
    println!(
        "wrote {} ({} decided, {} undecided, {left})",
        out.display(),
        t.decided(),
        t.undecided,
    );
    Ok(())
}

/// `<stem>.audit.html` beside the input, next to export's `<stem>.audit.csv`.
fn default_out(input: &Path) -> PathBuf {
    crate::review::export::default_paths(input)
        .1
        .with_extension("html")
}

fn exists(out: &Path) -> CliError {
    CliError::BadInput(format!(
        "{} already exists; pass --force to replace it, or --out to choose another name",
        out.display()
    ))
}

/// Checked before the table is read and the model fitted, so a refusal
/// costs nothing.
fn check_out(input: &Path, out: &Path, force: bool) -> Result<(), CliError> {
    let same = match (std::fs::canonicalize(input), std::fs::canonicalize(out)) {
        (Ok(i), Ok(o)) => i == o,
        _ => false,
    };
    if same {
        return Err(CliError::BadInput(format!(
            "--out {} is the input file; relabel never writes over its input — choose another name",
            out.display()
        )));
    }
    if out.is_dir() {
        return Err(CliError::BadInput(format!(
            "--out {} is a directory; give the page a file name",
            out.display()
        )));
    }
    if out.exists() && !force {
        return Err(exists(out));
    }
    Ok(())
}

/// The input's saved session, as `relabel export` finds it; what reading
/// the journal found (lines skipped, a backup) is said first.
fn open_session(
    path: &Path,
    data: &DataArgs,
    model: &ModelArgs,
    store: &Path,
) -> Result<Session, CliError> {
    let review = |e: ReviewError| match e {
        ReviewError::Io(_) => CliError::Failed(anyhow::anyhow!(e)),
        e => CliError::BadInput(e.to_string()),
    };
    let ds = super::load(path, data, &[model.name()])?;
    let (session, info) = Session::open(ds, Some(store)).map_err(review)?;
    for n in session.journal_notices() {
        eprintln!("relabel: {n}");
    }
    if !matches!(info, ResumeInfo::Resumed { .. }) {
        return Err(review(ReviewError::NoSession(path.display().to_string())));
    }
    Ok(session)
}

/// `--model` given: that model with the options typed. Otherwise the
/// session's last model with the options it was fitted with (as the review
/// screen resumes it); options typed without `--model` would silently
/// change that fit, so they are refused. A session that never fitted gets
/// `auto`.
/// The model the page names: for `auto`, what it chose ("auto: rnda 0.98 +
/// rlr 0.02"). A reader of the page cannot rerun the choice, and "auto"
/// alone says nothing of which model ranked the samples.
fn page_model(requested: &str, fit: &crate::models::Fit) -> String {
    match &fit.extra.selection {
        Some(s) => format!("auto: {}", crate::app::auto::combination(s)),
        None => requested.to_string(),
    }
}

fn choose_model(session: &Session, model: &ModelArgs) -> Result<Choice, CliError> {
    if model.model.is_some() {
        return Ok(Choice {
            name: model.name().to_string(),
            options: model.model_options()?,
            why: "given with --model".into(),
        });
    }
    match session.model_choice() {
        Some((name, options)) => {
            if let Some((flag, _)) = model.typed().first() {
                return Err(CliError::BadInput(format!(
                    "{flag} needs --model: without it the page fits the session's model {name} with the options it was fitted with"
                )));
            }
            Ok(Choice {
                name,
                options,
                why: "the session's model".into(),
            })
        }
        None => {
            model.check_read_by(model.name())?;
            Ok(Choice {
                name: model.name().to_string(),
                options: model.model_options()?,
                why: "the session has not chosen a model; the default".into(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::{CandidateScore, Fit, Selection};

    #[test]
    fn the_page_names_what_auto_chose() {
        let mut fit = Fit::from_posterior(
            nalgebra::DMatrix::from_row_slice(2, 2, &[0.9, 0.1, 0.2, 0.8]),
            &[0, 1],
        );
        assert_eq!(page_model("rnda", &fit), "rnda");
        let member = |model: &str, weight: f64| CandidateScore {
            weight: Some(weight),
            ..CandidateScore::scored(model, -0.5)
        };
        fit.extra.selection = Some(Selection {
            chosen: "rlr".into(),
            criterion: "held-out log-likelihood".into(),
            candidates: vec![member("shift", 0.3), member("rlr", 0.7)],
        });
        assert_eq!(page_model("auto", &fit), "auto: rlr");
    }
}
