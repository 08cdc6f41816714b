//! `relabel eval --paper NAME`: the papers' own experiments, each printed as
//! a table beside the figures the paper reports (docs/RESULTS.md).

use super::super::CliError;
use super::super::args::{DataArgs, EvalArgs, ModelArgs, Paper};
use crate::eval::microarray_papers::{BREAST, COLON, Flags, LooRow, Study, Suspected};
use crate::models::ModelOptions;
use clap::ValueEnum;

use super::super::progress::Bar;

/// Prints a line with the progress bar off the screen, so the two never
/// share a terminal line.
macro_rules! say {
    ($bar:expr, $($t:tt)*) => {
        $bar.suspend(|| println!($($t)*))
    };
}

pub fn run(paper: Paper, a: &EvalArgs, data: &DataArgs, model: &ModelArgs) -> Result<(), CliError> {
    let options = model.model_options()?;
    let seed = options.seed;
    // The experiments run their own fits: the bar says which one runs and
    // for how long (and, where the experiment has rows, how far it is).
    let bar = Bar::new(a.quiet, "eval --paper");
    let name = paper
        .to_possible_value()
        .map_or_else(|| format!("{paper:?}"), |v| v.get_name().to_string());
    bar.set(0.0, name);
    let bar = &bar;
    match paper {
        Paper::ShiftTable1 => shift_table1(bar, a.repeats, seed),
        Paper::RmdaSim2 => rmda_simulation(bar, 2, a.repeats, seed),
        Paper::RmdaSim3 => rmda_simulation(bar, 3, a.repeats, seed),
        Paper::RmdaUsps => rmda_usps(bar, a, seed),
        Paper::RlrSynth => rlr_synth(bar, a.repeats, seed),
        Paper::Colon => suspect_checks(bar, a, data, &options, COLON),
        Paper::Breast => suspect_checks(bar, a, data, &options, BREAST),
        Paper::CbtFig1 => cbt_fig1(bar, a.repeats, seed),
    }
}

/// Tibshirani & Manning, Table 1.
fn shift_table1(bar: &Bar, repeats: usize, seed: u64) -> Result<(), CliError> {
    say!(
        bar,
        "Tibshirani & Manning Table 1 setting: 10 features U(-5,5), theta_j = 2, train/dev/test 500 each, \
         lambda by dev 0-1 loss; {} repeats, seed {seed}",
        repeats
    );
    say!(
        bar,
        "{:>5} {:>5} {:>18} {:>18}",
        "p0",
        "p1",
        "standard (%)",
        "robust (%)"
    );
    let rows = [(0.0, 0.0), (0.1, 0.0), (0.2, 0.0), (0.3, 0.0), (0.3, 0.1)];
    for (r, (p0, p1)) in rows.into_iter().enumerate() {
        bar.set(r as f64 / rows.len() as f64, format!("p0 {p0} p1 {p1}"));
        let row = crate::eval::papers::shift_table1(p0, p1, 500, repeats, seed)?;
        say!(
            bar,
            "{p0:>5.1} {p1:>5.1} {:>10.2} ± {:>5.2} {:>10.2} ± {:>5.2}",
            100.0 * row.standard.0,
            100.0 * row.standard.1,
            100.0 * row.robust.0,
            100.0 * row.robust.1
        );
    }
    Ok(())
}

/// Bouveyron & Girard, sections 4.2 (two classes) and 4.4 (three).
fn rmda_simulation(bar: &Bar, k: usize, repeats: usize, seed: u64) -> Result<(), CliError> {
    let check = crate::eval::rmda_papers::simulation(
        k,
        &crate::eval::rmda_papers::ETAS,
        500,
        1000,
        repeats,
        seed,
    )
    .map_err(|e| CliError::BadInput(e.to_string()))?;
    bar.suspend(|| print!("{}", check.to_table()));
    Ok(())
}

/// Bouveyron & Girard, section 4.3 (USPS 2 vs 4).
fn rmda_usps(bar: &Bar, a: &EvalArgs, seed: u64) -> Result<(), CliError> {
    let Some(path) = &a.data else {
        return Err(CliError::BadInput(
            "rmda-usps needs the USPS 2 vs 4 table as DATA (ids tr*/te*)".into(),
        ));
    };
    let check =
        crate::eval::rmda_papers::usps_2v4(path, &crate::eval::rmda_papers::ETAS, a.repeats, seed)
            .map_err(|e| CliError::BadInput(e.to_string()))?;
    bar.suspend(|| print!("{}", check.to_table()));
    Ok(())
}

/// Bootkrajang & Kaban, Fig. 1.
fn rlr_synth(bar: &Bar, repeats: usize, seed: u64) -> Result<(), CliError> {
    say!(
        bar,
        "Bootkrajang & Kaban Fig. 1: 3 relevant Gaussian features (w = 10/3), 30% of class 1 \
         labelled 0, 100 clean test points; {} repeats, seed {seed}",
        repeats
    );
    say!(
        bar,
        "{:>5} {:>5} {:>6} {:>16} {:>9} {:>9} {:>6}",
        "n",
        "d",
        "model",
        "test error (%)",
        "selected",
        "relevant",
        "leak"
    );
    for n in [500, 100] {
        for d in [100, 500, 1000] {
            let row = crate::eval::logistic_papers::bootkrajang_synth(n, d, repeats, seed)?;
            for c in &row.cells {
                say!(
                    bar,
                    "{n:>5} {d:>5} {:>6} {:>8.2} ± {:>5.2} {:>9.1} {:>9.2} {:>6.3}",
                    c.model,
                    100.0 * c.test_error.0,
                    100.0 * c.test_error.1,
                    c.selected,
                    c.relevant_found,
                    c.leak
                );
            }
        }
    }
    say!(
        bar,
        "selected = non-zero weights; relevant = of the 3 true features; leak = mean |w| of \
         noise features over mean |w| of relevant ones"
    );
    Ok(())
}

/// Lynch & Willett, Fig. 1.
fn cbt_fig1(bar: &Bar, repeats: usize, seed: u64) -> Result<(), CliError> {
    let ms: Vec<usize> = (2..=16).chain([20, 24, 32]).collect();
    let fig = crate::eval::cbt_papers::fig1(
        &crate::eval::cbt_papers::FIG1_ALPHAS,
        &ms,
        100 * repeats,
        seed,
    );
    bar.suspend(|| print!("{}", fig.to_table()));
    Ok(())
}

/// `relabel eval --paper colon|breast DATA`: which samples each logistic
/// model flags against the literature's suspects, and the leave-one-out
/// errors of the paper's table beside the paper's own figures.
fn suspect_checks(
    bar: &Bar,
    a: &EvalArgs,
    data: &DataArgs,
    options: &ModelOptions,
    study: Study,
) -> Result<(), CliError> {
    use crate::eval::microarray_papers::{flags, loo};
    use crate::models::AUTO;
    let Some(path) = &a.data else {
        return Err(CliError::BadInput(format!(
            "{} needs its table as DATA ({})",
            study.name, study.expected
        )));
    };
    // The papers standardise the raw values: their experiments read the
    // table as it is unless --log2 asks otherwise.
    let load = crate::dataset::LoadOptions {
        log_rule: crate::dataset::LogRule::Never,
        ..data.load_options_for(&["rlr", AUTO])?
    };
    let ds = crate::dataset::load(path, &load)?;
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
    let table = Suspected {
        study,
        x: &ds.x,
        given: &ds.labels,
        ids: &ds.ids,
    };
    say!(
        bar,
        "{}: {} samples x {} genes{}; literature suspects {}; rlr-F gamma (P(given | true), rows {}) = {}",
        study.name,
        ds.n_samples(),
        ds.n_features(),
        if ds.log_scale.is_log2() {
            " (log2)"
        } else {
            ""
        },
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
    print_loo(bar, study, &loo(&table)?);
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
    let start = std::time::Instant::now();
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
    Ok(table.flags_of(name, &fit, start.elapsed().as_secs_f64()))
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
        say!(
            bar,
            "{} ({:.0} ms), AUROC against the suspects {auroc}",
            f.model,
            1000.0 * f.seconds
        );
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
    say!(
        bar,
        "\nleave-one-out ({}): error % against corrected labels (CRT) and on non-suspects (CLN); the paper's in the last columns",
        study.table
    );
    say!(
        bar,
        "{:>16} {:>8} {:>8} {:>7} {:>8} {:>10} {:>10} {:>11}",
        "model",
        "LOO-CRT",
        "LOO-CLN",
        "genes",
        "seconds",
        "paper CRT",
        "paper CLN",
        "paper genes"
    );
    for r in rows {
        let paper = study.reported.iter().find(|p| p.0 == r.model).map_or_else(
            || format!("{:>10} {:>10} {:>11}", "-", "-", "-"),
            |p| format!("{:>10.2} {:>10.2} {:>11.2}", p.1, p.2, p.3),
        );
        say!(
            bar,
            "{:>16} {:>8.2} {:>8.2} {:>7.2} {:>8.2} {paper}",
            r.model,
            r.crt,
            r.cln,
            r.genes,
            r.seconds
        );
    }
}
