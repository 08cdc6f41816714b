//! `relabel eval --paper NAME`: the papers' own experiments, each printed as
//! a table beside the figures the paper reports (docs/RESULTS.md).

use super::super::CliError;
use super::super::args::{DataArgs, EvalArgs, ModelArgs, Paper};
use crate::eval::microarray_papers::{BREAST, COLON};
use crate::eval::paper_table::Scale;
use crate::eval::{bdra_papers, rmda_papers, rnda_papers, shift_papers};
use clap::ValueEnum;

use super::super::progress::Bar;

use super::microarray;
use super::run::{Run, needs_data};

pub fn run(paper: Paper, a: &EvalArgs, data: &DataArgs, model: &ModelArgs) -> Result<(), CliError> {
    let options = model.model_options()?;
    let seed = options.seed;
    if a.repeats == Some(0) {
        return Err(CliError::BadInput("--repeats must be at least 1".into()));
    }
    if a.prep.is_some() && !matches!(paper, Paper::Colon | Paper::Breast | Paper::RlrTable6) {
        return Err(CliError::BadInput(
            "--prep applies to --paper colon, breast and rlr-table6 only".into(),
        ));
    }
    // The experiments run their own fits: the bar says which one runs and
    // for how long (and, where the experiment has rows, how far it is).
    let bar = Bar::new(a.quiet, "eval --paper");
    let name = paper
        .to_possible_value()
        .map_or_else(|| format!("{paper:?}"), |v| v.get_name().to_string());
    bar.set(0.0, name);
    let bar = &bar;
    let run = Run {
        scale: if a.smoke { Scale::Smoke } else { Scale::Paper },
        repeats: a.repeats,
        seed,
        bar,
    };
    match paper {
        Paper::ShiftTable1 => run.print(shift_papers::table1(
            run.scale,
            a.repeats,
            seed,
            &run.tick(),
        )),
        Paper::ShiftTable6 => run.print(shift_papers::table6(
            run.scale,
            a.repeats,
            &options,
            &run.tick(),
        )),
        Paper::RmdaSim2 => run.print(rmda_papers::simulation(
            2,
            run.scale,
            a.repeats,
            seed,
            &run.tick(),
        )),
        Paper::RmdaSim3 => run.print(rmda_papers::simulation(
            3,
            run.scale,
            a.repeats,
            seed,
            &run.tick(),
        )),
        Paper::RmdaUsps => {
            let path = needs_data(a, "rmda-usps", "the USPS 2 vs 4 table (ids tr*/te*)")?;
            run.print(rmda_papers::usps_2v4(
                path,
                run.scale,
                a.repeats,
                seed,
                &run.tick(),
            ))
        }
        Paper::RmdaDefaults => {
            let c = rmda_papers::defaults_check(run.scale, a.repeats, seed, &run.tick())?;
            run.say(c.to_table());
            Ok(())
        }
        Paper::RndaFig1 => run.print(rnda_papers::fig1(run.scale, a.repeats, seed, &run.tick())),
        Paper::RndaFig2 => {
            for spec in [rnda_papers::SYNTH_2, rnda_papers::SYNTH_3] {
                run.print(rnda_papers::fig2(
                    spec,
                    run.scale,
                    a.repeats,
                    seed,
                    &run.tick(),
                ))?;
            }
            Ok(())
        }
        Paper::RndaFig3 => rnda_fig3(&run, a, data),
        Paper::RndaFig4 => {
            let (by_dim, by_size) = rnda_papers::fig4(run.scale, a.repeats, seed, &run.tick())?;
            run.say(by_dim.to_table());
            run.say(by_size.to_table());
            Ok(())
        }
        Paper::RlrSynth => rlr_synth(&run),
        Paper::Colon => microarray::suspect_checks(bar, a, data, &options, COLON),
        Paper::Breast => microarray::suspect_checks(bar, a, data, &options, BREAST),
        Paper::RlrTable6 => microarray::rlr_table6(&run, a, data, &options),
        Paper::ColonPrep => microarray::prep_sweep(&run, a, data, &options, COLON),
        Paper::BreastPrep => microarray::prep_sweep(&run, a, data, &options, BREAST),
        Paper::CbtFig1 => cbt_figure(&run, 1),
        Paper::CbtFig2 => cbt_figure(&run, 2),
        Paper::BdraFig3 => {
            run.say(bdra_papers::figures(run.scale, a.repeats, seed, &run.tick()).to_table());
            Ok(())
        }
    }
}

/// Bootkrajang & Kaban (2011) Fig. 3 on DATA (the paper: iris, wine).
fn rnda_fig3(run: &Run<'_>, a: &EvalArgs, data: &DataArgs) -> Result<(), CliError> {
    let path = needs_data(a, "rnda-fig3", "a labelled table (the paper: iris, wine)")?;
    let ds = crate::dataset::load(path, &data.load_options_for(&["rnda"])?)?;
    let name = path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    let table = rnda_papers::Labelled {
        name: &name,
        x: &ds.x,
        y: &ds.labels,
        k: ds.classes.len(),
    };
    run.print(rnda_papers::fig3(
        &table,
        run.scale,
        run.repeats,
        run.seed,
        &run.tick(),
    ))
}

/// Bootkrajang & Kaban (2013), Fig. 1.
fn rlr_synth(run: &Run<'_>) -> Result<(), CliError> {
    use crate::eval::logistic_papers::{bootkrajang_synth, synth_table};
    let repeats = run.repeats.unwrap_or(run.scale.pick(500, 1));
    let grid: Vec<(usize, usize)> = run.scale.pick(
        [500, 100]
            .iter()
            .flat_map(|&n| [100, 500, 1000].map(|d| (n, d)))
            .collect(),
        vec![(100, 30)],
    );
    let mut rows = Vec::new();
    for (i, &(n, d)) in grid.iter().enumerate() {
        run.bar
            .set(i as f64 / grid.len() as f64, format!("n {n} d {d}"));
        rows.push(bootkrajang_synth(n, d, repeats, run.seed)?);
    }
    run.say(synth_table(&rows, run.seed));
    Ok(())
}

/// Lynch & Willett, Fig. 1 (one test observation) and Fig. 2 (one and
/// two): P(e) against M, 100 trials per point for every --repeats.
fn cbt_figure(run: &Run<'_>, figure: u8) -> Result<(), CliError> {
    use crate::eval::cbt_papers::{
        FIG1_ALPHAS, FIG2_ALPHAS, PAPER_M_STAR_1, PAPER_M_STAR_2, curve,
    };
    let ms: Vec<usize> = run
        .scale
        .pick((2..=16).chain([20, 24, 32]).collect(), vec![2, 4]);
    let trials = 100 * run.repeats.unwrap_or(run.scale.pick(50, 1));
    if figure == 1 {
        let fig = curve(&FIG1_ALPHAS, &ms, 1, trials, run.seed);
        run.say(fig.to_table("Fig. 1", &PAPER_M_STAR_1));
        return Ok(());
    }
    for (n_test, paper) in [(1, &PAPER_M_STAR_1[..4]), (2, &PAPER_M_STAR_2[..])] {
        run.bar.set(
            0.5 * (n_test - 1) as f64,
            format!("{n_test} test observations"),
        );
        let fig = curve(&FIG2_ALPHAS, &ms, n_test, trials, run.seed);
        run.say(fig.to_table("Fig. 2", paper));
    }
    Ok(())
}

impl From<rmda_papers::PaperError> for CliError {
    fn from(e: rmda_papers::PaperError) -> Self {
        match e {
            rmda_papers::PaperError::Data(m) => CliError::BadInput(m),
            rmda_papers::PaperError::Fit(f) => f.into(),
        }
    }
}
