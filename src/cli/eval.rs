//! `relabel eval`: inject label noise into clean data and measure detection.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::args::{DataArgs, EvalArgs, ModelArgs};
use super::{CliError, load};
use crate::app::{FitInputs, FitPlan};
use crate::dataset::{CellEdit, Dataset, rewrite};
use crate::eval::detection::{NoiseConfig, mean_sd, run_detection};
use crate::eval::noise::{NoiseKind, inject};

pub fn run(a: &EvalArgs, data: &DataArgs, model: &ModelArgs) -> Result<(), CliError> {
    if let Some(paper) = &a.paper {
        return run_paper(paper, a, data, model);
    }
    let Some(path) = &a.data else {
        return Err(CliError::BadInput(
            "eval needs a clean labelled table (or --paper NAME)".into(),
        ));
    };
    let requested: Vec<&str> = a
        .models
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let ds = load(path, data, &requested)?;
    let options = model.model_options()?;
    let kind = NoiseKind::parse(&a.noise).ok_or_else(|| {
        CliError::BadInput(format!(
            "--noise must be pair or symmetric, got \"{}\"",
            a.noise
        ))
    })?;
    if !(0.0..1.0).contains(&a.rate) {
        return Err(CliError::BadInput(format!(
            "--rate must be in [0, 1), got {}",
            a.rate
        )));
    }
    if let Some(out) = &a.write_noisy {
        return write_noisy(&ds, kind, a.rate, options.seed, out);
    }
    if a.repeats == 0 {
        return Err(CliError::BadInput("--repeats must be at least 1".into()));
    }
    let test = match &a.test {
        Some(path) => Some(load_test(&ds, path)?),
        None => None,
    };
    let noise = NoiseConfig {
        kind,
        rate: a.rate,
        repeats: a.repeats,
        base_seed: options.seed,
    };
    println!(
        "relabel eval: {} ({} samples, {} features, {} classes), {} noise at {:.0}%, {} draws (seeds {}..{})",
        path.display(),
        ds.x.nrows(),
        ds.x.ncols(),
        ds.classes.len(),
        a.noise,
        100.0 * a.rate,
        a.repeats,
        options.seed,
        options.seed + a.repeats as u64 - 1
    );
    println!(
        "{:<8} {:>15} {:>15} {:>15} {:>15} {:>15} {:>15} {:>9}",
        "model",
        "AUROC",
        "avg precision",
        "precision@k",
        "recall@k",
        "suggested acc",
        "test acc",
        "converged"
    );
    for requested in requested {
        let plan = FitPlan::for_table(&ds, requested, &options)?;
        let inputs = FitInputs::of_table(&ds, &plan, None);
        let test_x = test.as_ref().map(|(x, _)| plan.test_matrix(&ds, x));
        let scores = run_detection(
            &plan,
            &inputs,
            &ds.labels,
            &noise,
            test_x
                .as_deref()
                .zip(test.as_ref().map(|(_, y)| y.as_slice())),
        )?;
        let name = &plan.name;
        let cell = |f: &dyn Fn(&crate::eval::detection::DetectionScores) -> f64| {
            let (m, s) = mean_sd(scores.iter().map(f));
            if m.is_nan() {
                "-".to_string()
            } else {
                format!("{m:.3} ± {s:.3}")
            }
        };
        let converged = scores.iter().filter(|s| s.converged).count();
        println!(
            "{:<8} {:>15} {:>15} {:>15} {:>15} {:>15} {:>15} {:>9}",
            name,
            cell(&|s| s.auroc),
            cell(&|s| s.average_precision),
            cell(&|s| s.precision_at_k),
            cell(&|s| s.recall_at_k),
            cell(&|s| s.suggested_accuracy),
            cell(&|s| s.test_accuracy.unwrap_or(f64::NAN)),
            format!("{converged}/{}", scores.len()),
        );
    }
    println!(
        "k = number of flipped labels; suggested acc = share of samples whose suggested label is the true one"
    );
    Ok(())
}

/// `relabel eval --paper NAME`.
fn run_paper(
    paper: &str,
    a: &EvalArgs,
    data: &DataArgs,
    model: &ModelArgs,
) -> Result<(), CliError> {
    let seed = model.model_options()?.seed;
    match paper {
        "shift-table1" => {
            println!(
                "Tibshirani & Manning Table 1 setting: 10 features U(-5,5), theta_j = 2, train/dev/test 500 each, \
                 lambda by dev 0-1 loss; {} repeats, seed {seed}",
                a.repeats
            );
            println!(
                "{:>5} {:>5} {:>18} {:>18}",
                "p0", "p1", "standard (%)", "robust (%)"
            );
            for (p0, p1) in [(0.0, 0.0), (0.1, 0.0), (0.2, 0.0), (0.3, 0.0), (0.3, 0.1)] {
                let row = crate::eval::papers::shift_table1(p0, p1, 500, a.repeats, seed)?;
                println!(
                    "{p0:>5.1} {p1:>5.1} {:>10.2} ± {:>5.2} {:>10.2} ± {:>5.2}",
                    100.0 * row.standard.0,
                    100.0 * row.standard.1,
                    100.0 * row.robust.0,
                    100.0 * row.robust.1
                );
            }
            Ok(())
        }
        "rmda-sim2" | "rmda-sim3" => {
            let k = if paper == "rmda-sim2" { 2 } else { 3 };
            let check = crate::eval::rmda_papers::simulation(
                k,
                &crate::eval::rmda_papers::ETAS,
                500,
                1000,
                a.repeats,
                seed,
            )
            .map_err(|e| CliError::BadInput(e.to_string()))?;
            print!("{}", check.to_table());
            Ok(())
        }
        "rmda-usps" => {
            let Some(path) = &a.data else {
                return Err(CliError::BadInput(
                    "rmda-usps needs the USPS 2 vs 4 table as DATA (ids tr*/te*)".into(),
                ));
            };
            let check = crate::eval::rmda_papers::usps_2v4(
                path,
                &crate::eval::rmda_papers::ETAS,
                a.repeats,
                seed,
            )
            .map_err(|e| CliError::BadInput(e.to_string()))?;
            print!("{}", check.to_table());
            Ok(())
        }
        "rlr-synth" => {
            println!(
                "Bootkrajang & Kaban Fig. 1: 3 relevant Gaussian features (w = 10/3), 30% of class 1 \
                 labelled 0, 100 clean test points; {} repeats, seed {seed}",
                a.repeats
            );
            println!(
                "{:>5} {:>5} {:>6} {:>16} {:>9} {:>9} {:>6}",
                "n", "d", "model", "test error (%)", "selected", "relevant", "leak"
            );
            for n in [500, 100] {
                for d in [100, 500, 1000] {
                    let row =
                        crate::eval::logistic_papers::bootkrajang_synth(n, d, a.repeats, seed)?;
                    for c in &row.cells {
                        println!(
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
            println!(
                "selected = non-zero weights; relevant = of the 3 true features; leak = mean |w| of \
                 noise features over mean |w| of relevant ones"
            );
            Ok(())
        }
        "colon" => colon_checks(a, data),
        "cbt-fig1" => {
            let ms: Vec<usize> = (2..=16).chain([20, 24, 32]).collect();
            let fig = crate::eval::cbt_papers::fig1(
                &crate::eval::cbt_papers::FIG1_ALPHAS,
                &ms,
                100 * a.repeats,
                seed,
            );
            print!("{}", fig.to_table());
            Ok(())
        }
        other => Err(CliError::BadInput(format!(
            "unknown paper experiment \"{other}\"; available: shift-table1, rlr-synth, colon, \
             rmda-sim2, rmda-sim3, rmda-usps, cbt-fig1"
        ))),
    }
}

/// `relabel eval --paper colon DATA`: which samples each logistic model
/// flags on Alon's colon data, and the leave-one-out errors of Table 2.
fn colon_checks(a: &EvalArgs, data: &DataArgs) -> Result<(), CliError> {
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
    println!(
        "colon: {} samples x {} genes{}; literature suspects {}; rlr-F gamma (P(given | true), rows {}) = {}",
        ds.n_samples(),
        ds.n_features(),
        if ds.options.log2 { " (log2)" } else { "" },
        COLON_SUSPECTS.join(" "),
        ds.classes.join(", "),
        colon.suspect_gamma()
    );
    println!("\nflags on all 62 samples (suspects in brackets):");
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
        println!("{} ({:.0} ms)", f.model, 1000.0 * f.seconds);
        println!(
            "  p >= 0.5 ({}, {} suspects): {}",
            f.flagged.len(),
            ColonFlags::suspects_in(&f.flagged),
            mark(&f.flagged)
        );
        println!(
            "  top 9 ({} suspects): {}",
            ColonFlags::suspects_in(&f.top9),
            mark(&f.top9)
        );
        if let Some(s) = &f.shifted {
            println!(
                "  non-zero shifts ({}, {} suspects): {}",
                s.len(),
                ColonFlags::suspects_in(s),
                mark(s)
            );
        }
    }
    println!(
        "\nleave-one-out (Table 2): error % against corrected labels (CRT) and on non-suspects (CLN)"
    );
    println!(
        "{:>16} {:>8} {:>8} {:>7} {:>8}",
        "model", "LOO-CRT", "LOO-CLN", "genes", "seconds"
    );
    for r in colon_loo(&colon)? {
        println!(
            "{:>16} {:>8.2} {:>8.2} {:>7.2} {:>8.2}",
            r.model, r.crt, r.cln, r.genes, r.seconds
        );
    }
    Ok(())
}

/// Loads a clean test table with the training schema; its labels must be
/// classes seen in training.
fn load_test(ds: &Dataset, path: &Path) -> Result<(nalgebra::DMatrix<f64>, Vec<usize>), CliError> {
    let table = ds.load_compatible(path)?;
    let x = table.x;
    let labels = table.labels.ok_or_else(|| {
        CliError::BadInput(format!(
            "{}: the test table has no label column \"{}\"; test accuracy needs labels",
            path.display(),
            ds.label_name
        ))
    })?;
    let mut y = Vec::with_capacity(labels.len());
    for (i, l) in labels.iter().enumerate() {
        y.push(ds.class_index(l).ok_or_else(|| {
            CliError::BadInput(format!(
                "{}: row {i} has label \"{l}\", which the training data does not have",
                path.display()
            ))
        })?);
    }
    Ok((x, y))
}

/// `<dir>/<stem>.truth.csv` beside the noisy copy.
fn truth_path(out: &Path) -> PathBuf {
    let stem = out
        .file_name()
        .and_then(|n| n.to_str())
        .map(|n| n.split('.').next().unwrap_or(n).to_string())
        .unwrap_or_else(|| "noisy".into());
    out.with_file_name(format!("{stem}.truth.csv"))
}

/// Writes a noisy copy of the input (only label cells change) and its truth.
fn write_noisy(
    ds: &Dataset,
    kind: NoiseKind,
    rate: f64,
    seed: u64,
    out: &Path,
) -> Result<(), CliError> {
    if out.exists() {
        return Err(CliError::BadInput(format!(
            "{} exists; choose another --write-noisy path or remove it first",
            out.display()
        )));
    }
    let injected = inject(&ds.labels, ds.classes.len(), kind, rate, seed);
    let edits: Vec<(usize, CellEdit)> = injected
        .flipped
        .iter()
        .enumerate()
        .filter(|(_, f)| **f)
        .map(|(i, _)| (i, CellEdit::Relabel(ds.classes[injected.labels[i]].clone())))
        .collect();
    let bytes = rewrite(ds, &edits, None);
    fs::write(out, bytes).with_context(|| format!("cannot write {}", out.display()))?;
    let truth = truth_path(out);
    let mut w = csv::Writer::from_path(&truth)
        .with_context(|| format!("cannot create {}", truth.display()))?;
    let io = |e: csv::Error| CliError::Failed(anyhow::anyhow!("cannot write the truth file: {e}"));
    w.write_record(["row", "id", "true_label", "noisy_label", "flipped"])
        .map_err(io)?;
    for i in 0..ds.x.nrows() {
        w.write_record([
            ds.rows[i].to_string(),
            ds.ids[i].clone(),
            ds.given_label(i).to_string(),
            ds.classes[injected.labels[i]].clone(),
            (if injected.flipped[i] { "1" } else { "0" }).to_string(),
        ])
        .map_err(io)?;
    }
    w.flush()
        .with_context(|| format!("cannot write {}", truth.display()))?;
    eprintln!(
        "wrote {} ({} of {} labels flipped, {kind:?} noise, seed {seed}) and {}",
        out.display(),
        injected.n_flipped(),
        ds.x.nrows(),
        truth.display()
    );
    Ok(())
}
