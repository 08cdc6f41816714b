//! `relabel eval --paper colon|breast|rlr-table6 DATA`: the logistic
//! papers' checks on real microarray tables whose literature names the
//! arrays with a wrong label.

use super::super::progress::Bar;
use super::run::{Run, needs_data};
use crate::cli::CliError;
use crate::cli::args::{DataArgs, EvalArgs};
use crate::dataset::Dataset;
use crate::eval::microarray_papers::{COLON, Flags, LooRow, Study, Suspected, bootstrap};
use crate::eval::preprocess::Prep;
use crate::models::ModelOptions;

/// Prints a line with the progress bar off the screen.
macro_rules! say {
    ($bar:expr, $($t:tt)*) => {
        $bar.suspend(|| println!($($t)*))
    };
}

/// Loads a study's table as its paper's protocol reads it: as stored (no
/// log rule), then `prep`, else `--prep`, else the paper's own; checks it
/// holds the suspects and two classes.
fn load_study(
    a: &EvalArgs,
    data: &DataArgs,
    study: Study,
    prep: Option<Prep>,
) -> Result<(Dataset, Prep), CliError> {
    use crate::models::AUTO;
    let Some(path) = &a.data else {
        return Err(CliError::BadInput(format!(
            "{} needs its table as DATA ({})",
            study.name, study.expected
        )));
    };
    let load = crate::dataset::LoadOptions {
        log_rule: crate::dataset::LogRule::Never,
        ..data.load_options_for(&["rlr", AUTO])?
    };
    let mut ds = crate::dataset::load(path, &load)?;
    let missing: Vec<&str> = study
        .suspects
        .iter()
        .copied()
        .filter(|s| !ds.ids.iter().any(|id| id == s))
        .collect();
    if !missing.is_empty() {
        let absent = if missing.len() == study.suspects.len() {
            "none of them is in this table".to_string()
        } else {
            format!("{} missing", missing.join(" "))
        };
        return Err(CliError::BadInput(format!(
            "{}: {} checks the ids {}, and {absent}; pass {}",
            path.display(),
            study.name,
            study.suspects.join(" "),
            study.expected
        )));
    }
    if ds.classes.len() != 2 {
        return Err(CliError::BadInput(format!(
            "{}: {} needs two classes, and the labels hold {}; pass {}",
            path.display(),
            study.name,
            ds.classes.len(),
            study.expected
        )));
    }
    let prep = prep.or(a.prep).unwrap_or(study.prep);
    if a.smoke {
        // A smoke run reads the first 200 genes.
        ds.x = ds.x.columns(0, ds.n_features().min(200)).into_owned();
    }
    ds.x = prep
        .apply(&ds.x)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", path.display())))?;
    Ok((ds, prep))
}

/// `relabel eval --paper rlr-table6 DATA`: Bootkrajang & Kaban's bootstrap
/// detection on colon (100 subsets of 50, every --repeats one subset).
pub fn rlr_table6(
    run: &Run<'_>,
    a: &EvalArgs,
    data: &DataArgs,
    options: &ModelOptions,
) -> Result<(), CliError> {
    needs_data(a, "rlr-table6", COLON.expected)?;
    let (ds, prep) = load_study(a, data, COLON, None)?;
    let table = suspected(&ds, COLON, options);
    let subsets = run.repeats.unwrap_or(run.scale.pick(100, 2));
    let b = bootstrap(&table, subsets, 50, run.seed, &run.tick())?;
    run.say(format!("--prep {}\n{}", prep.name(), b.to_table()));
    Ok(())
}

/// `relabel eval --paper colon|breast DATA`: which samples each logistic
/// model flags against the literature's suspects, and the leave-one-out
/// errors of the paper's table beside the paper's own figures.
pub fn suspect_checks(
    bar: &Bar,
    a: &EvalArgs,
    data: &DataArgs,
    options: &ModelOptions,
    study: Study,
) -> Result<(), CliError> {
    use crate::eval::microarray_papers::{flags, loo};
    let (ds, prep) = load_study(a, data, study, None)?;
    let table = suspected(&ds, study, options);
    say!(
        bar,
        "{}: {} samples x {} genes, --prep {}; literature suspects {}; rlr-F gamma (P(given | true), rows {}) = {}",
        study.name,
        ds.n_samples(),
        ds.n_features(),
        prep.name(),
        study.suspects.join(" "),
        ds.classes.join(", "),
        table.suspect_gamma()
    );
    say!(
        bar,
        "\nflags on all {} samples (suspects in brackets):",
        ds.n_samples()
    );
    print_flags(
        bar,
        &table,
        default_flags(&ds, &table, options)?,
        flags(&table)?,
    );
    print_loo(bar, study, &loo(&table, false, smoke_limit(a))?);
    Ok(())
}

/// What a curator's `relabel FILE` (the default) flags on the table.
fn default_flags(
    ds: &crate::dataset::Dataset,
    table: &Suspected<'_>,
    options: &ModelOptions,
) -> Result<Flags, CliError> {
    use crate::app::pipeline::{FitInputs, FitPlan};
    use crate::models::{AUTO, no_progress};
    let plan = FitPlan::for_table(ds, AUTO, options)?;
    let fit = plan.fit(
        &FitInputs::of_table(ds, &plan, None),
        &ds.labels,
        &mut no_progress(),
    )?;
    let chosen = fit
        .extra
        .selection
        .as_ref()
        .map_or_else(|| plan.name.clone(), crate::app::auto::combination);
    let name = format!("the default ({chosen})");
    Ok(table.flags_of(name, &fit))
}

/// The study's table as its checks read it.
fn suspected<'a>(ds: &'a Dataset, study: Study, options: &ModelOptions) -> Suspected<'a> {
    Suspected {
        study,
        x: &ds.x,
        given: &ds.labels,
        ids: &ds.ids,
        base: options.clone(),
    }
}

/// A smoke run holds out only the first few samples.
fn smoke_limit(a: &EvalArgs) -> Option<usize> {
    a.smoke.then_some(3)
}

/// Each model's flags, then the default's, suspects in brackets.
fn print_flags(bar: &Bar, table: &Suspected<'_>, default: Flags, models: Vec<Flags>) {
    let mark = |list: &[String]| {
        list.iter()
            .map(|s| {
                if table.is_suspect_id(s) {
                    format!("[{s}]")
                } else {
                    s.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    for f in models.into_iter().chain([default]) {
        let auroc = f.auroc.map_or_else(|| "-".into(), |a| format!("{a:.3}"));
        say!(bar, "{}, AUROC against the suspects {auroc}", f.model);
        say!(
            bar,
            "  p >= 0.5 ({}, {} suspects): {}",
            f.flagged.len(),
            table.suspects_in(&f.flagged),
            mark(&f.flagged)
        );
        say!(
            bar,
            "  top {} ({} suspects): {}",
            f.top.len(),
            table.suspects_in(&f.top),
            mark(&f.top)
        );
        if let Some(s) = &f.shifted {
            say!(
                bar,
                "  non-zero shifts ({}, {} suspects): {}",
                s.len(),
                table.suspects_in(s),
                mark(s)
            );
        }
    }
}

/// The leave-one-out table, the paper's figures in the last columns.
fn print_loo(bar: &Bar, study: Study, rows: &[LooRow]) {
    use crate::eval::paper_table::Table;
    let mut t = Table::new(&[
        "model",
        "LOO-CRT",
        "LOO-CLN",
        "genes",
        "paper CRT",
        "paper CLN",
        "paper genes",
    ]);
    for r in rows {
        let mut row = vec![
            r.model.clone(),
            format!("{:.2}", r.crt),
            format!("{:.2}", r.cln),
            format!("{:.2}", r.genes),
        ];
        match study.reported.iter().find(|p| p.0 == r.model) {
            Some(p) => row.extend([p.1, p.2, p.3].map(|v| format!("{v:.2}"))),
            None => row.extend(["-", "-", "-"].map(String::from)),
        }
        t.push(row);
    }
    say!(
        bar,
        "\nleave-one-out ({}): error % against corrected labels (CRT) and on non-suspects (CLN); genes = mean non-zero weights over the CLN fits; the paper's in the last columns (its RLogReg estimates gamma by maximum likelihood: the row rlr (ML gamma))\n{}",
        study.table,
        t.render()
    );
}

/// `relabel eval --paper colon-prep|breast-prep DATA`: the paper's
/// leave-one-out table under every preprocessing.
pub fn prep_sweep(
    run: &Run<'_>,
    a: &EvalArgs,
    data: &DataArgs,
    options: &ModelOptions,
    study: Study,
) -> Result<(), CliError> {
    use crate::eval::microarray_papers::{prep_sweep, prep_table};
    let (ds, _) = load_study(a, data, study, Some(Prep::Raw))?;
    let table = suspected(&ds, study, options);
    let (rows, refused) = prep_sweep(&ds.x, &table, smoke_limit(a), &run.tick())?;
    run.say(prep_table(study, &rows, &refused));
    Ok(())
}
