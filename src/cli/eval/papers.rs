//! `relabel eval --paper NAME`: the papers' own experiments, each printed as
//! a table beside the figures the paper reports (docs/RESULTS.md).

use super::super::CliError;
use super::super::args::{DataArgs, EvalArgs, ModelArgs, Paper};
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
    let seed = model.model_options()?.seed;
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
        Paper::Colon => colon_checks(bar, a, data),
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

/// `relabel eval --paper colon DATA`: which samples each logistic model
/// flags on Alon's colon data, and the leave-one-out errors of Table 2.
fn colon_checks(bar: &Bar, a: &EvalArgs, data: &DataArgs) -> Result<(), CliError> {
    use crate::eval::logistic_papers::{COLON_SUSPECTS, Colon, ColonFlags, colon_flags, colon_loo};
    let Some(path) = &a.data else {
        return Err(CliError::BadInput(
            "colon needs the colon table as DATA (sample_data/colon.csv, ids T*/N*)".into(),
        ));
    };
    let ds = crate::dataset::load(path, &data.load_options_for(&["rlr"])?)?;
    let missing: Vec<&str> = COLON_SUSPECTS
        .iter()
        .copied()
        .filter(|s| !ds.ids.iter().any(|id| id == s))
        .collect();
    if !missing.is_empty() || ds.classes.len() != 2 {
        return Err(CliError::BadInput(format!(
            "{}: expected two classes and the ids {} (missing: {})",
            path.display(),
            COLON_SUSPECTS.join(" "),
            missing.join(" ")
        )));
    }
    let colon = Colon {
        x: &ds.x,
        given: &ds.labels,
        ids: &ds.ids,
    };
    say!(
        bar,
        "colon: {} samples x {} genes{}; literature suspects {}; rlr-F gamma (P(given | true), rows {}) = {}",
        ds.n_samples(),
        ds.n_features(),
        if ds.options.log2 { " (log2)" } else { "" },
        COLON_SUSPECTS.join(" "),
        ds.classes.join(", "),
        colon.suspect_gamma()
    );
    say!(bar, "\nflags on all 62 samples (suspects in brackets):");
    let mark = |list: &[String]| {
        list.iter()
            .map(|s| {
                if COLON_SUSPECTS.contains(&s.as_str()) {
                    format!("[{s}]")
                } else {
                    s.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    for f in colon_flags(&colon)? {
        say!(bar, "{} ({:.0} ms)", f.model, 1000.0 * f.seconds);
        say!(
            bar,
            "  p >= 0.5 ({}, {} suspects): {}",
            f.flagged.len(),
            ColonFlags::suspects_in(&f.flagged),
            mark(&f.flagged)
        );
        say!(
            bar,
            "  top 9 ({} suspects): {}",
            ColonFlags::suspects_in(&f.top9),
            mark(&f.top9)
        );
        if let Some(s) = &f.shifted {
            say!(
                bar,
                "  non-zero shifts ({}, {} suspects): {}",
                s.len(),
                ColonFlags::suspects_in(s),
                mark(s)
            );
        }
    }
    say!(
        bar,
        "\nleave-one-out (Table 2): error % against corrected labels (CRT) and on non-suspects (CLN)"
    );
    say!(
        bar,
        "{:>16} {:>8} {:>8} {:>7} {:>8}",
        "model",
        "LOO-CRT",
        "LOO-CLN",
        "genes",
        "seconds"
    );
    for r in colon_loo(&colon)? {
        say!(
            bar,
            "{:>16} {:>8.2} {:>8.2} {:>7.2} {:>8.2}",
            r.model,
            r.crt,
            r.cln,
            r.genes,
            r.seconds
        );
    }
    Ok(())
}
