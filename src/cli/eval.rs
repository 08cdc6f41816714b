//! `relabel eval`: inject label noise into clean data and measure detection.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context;

mod microarray;
mod papers;
mod run;

use super::args::{DataArgs, EvalArgs, ModelArgs};
use super::progress::Bar;
use super::{CliError, load};
use crate::app::{FitInputs, FitPlan};
use crate::dataset::{CellEdit, Dataset, rewrite};
use crate::eval::detection::{DetectionScores, NoiseConfig, TestSet, mean_sd, run_detection};
use crate::eval::noise::{NoiseKind, inject};
use crate::eval::review_curve::{Curve, default_every, learning_curve, static_curve};
use crate::models::no_progress;

pub fn run(a: &EvalArgs, data: &DataArgs, model: &ModelArgs) -> Result<(), CliError> {
    if let Some(paper) = a.paper {
        return papers::run(paper, a, data, model);
    }
    if let Some(dir) = &a.home_ground {
        return home_ground(dir, data, model);
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
    model.check_read_by_any(&requested, &["seed"])?;
    let options = model.model_options()?;
    let kind = a.noise;
    if !(0.0..1.0).contains(&a.rate) {
        return Err(CliError::BadInput(format!(
            "--rate must be in [0, 1), got {}",
            a.rate
        )));
    }
    if let Some(out) = &a.write_noisy {
        return write_noisy(&ds, kind, a.rate, options.seed, out);
    }
    if a.draws() == 0 {
        return Err(CliError::BadInput("--repeats must be at least 1".into()));
    }
    if a.review_curve {
        return review_curves(&ds, &requested, &options, kind, a);
    }
    let test = match &a.test {
        Some(path) => Some(load_test(&ds, path)?),
        None => None,
    };
    let noise = NoiseConfig {
        kind,
        rate: a.rate,
        repeats: a.draws(),
        base_seed: options.seed,
    };
    println!(
        "relabel eval: {} ({} samples, {} features, {} classes), {} noise at {:.0}%, {} draws (seeds {}..{})",
        path.display(),
        ds.x.nrows(),
        ds.x.ncols(),
        ds.classes.len(),
        kind.name(),
        100.0 * a.rate,
        a.draws(),
        options.seed,
        options.seed + a.draws() as u64 - 1
    );
    print_header();
    let bar = Bar::new(a.quiet, "eval");
    let fits = requested.len() * a.draws();
    for (m, requested) in requested.iter().enumerate() {
        let plan = FitPlan::for_table(&ds, requested, &options)?;
        let inputs = FitInputs::of_table(&ds, &plan, None);
        let test = test.as_ref().map(|(x, y)| TestSet {
            table: Some(&ds),
            x,
            labels: y,
        });
        let mut scores = Vec::with_capacity(a.draws());
        // One draw at a time, so the bar moves between fits: draw r of a
        // run of `repeats` uses noise seed base + r, as one draw from base + r does.
        for r in 0..a.draws() {
            let done = m * a.draws() + r;
            bar.set(
                done as f64 / fits as f64,
                format!("{} draw {}/{}", plan.name, r + 1, a.draws()),
            );
            let one = NoiseConfig {
                repeats: 1,
                base_seed: noise.base_seed.wrapping_add(r as u64),
                ..noise
            };
            scores.extend(run_detection(&plan, &inputs, &ds.labels, &one, test)?);
        }
        bar.suspend(|| print_row(&plan.name, &scores));
    }
    drop(bar);
    println!(
        "k = number of flipped labels; flagged = the round(sum p) most likely wrong (scan's rule); sum p = sum of p_mislabel (1.0 = calibrated); suggested acc = share of samples whose suggested label is the true one"
    );
    if let Some(t) = &a.test {
        let same = |p: &Path| fs::canonicalize(p).ok();
        let held_out = same(t).is_none() || same(t) != same(path);
        println!(
            "test acc = the classifier trained on the noisy labels, scored on {}",
            if held_out {
                "the --test table's labels"
            } else {
                "the training rows themselves (--test is DATA): not held-out accuracy"
            }
        );
    }
    Ok(())
}

/// `eval --home-ground DIR`: [`crate::eval::home_ground`] on every model
/// with a directory in DIR.
fn home_ground(dir: &Path, data: &DataArgs, model: &ModelArgs) -> Result<(), CliError> {
    use crate::eval::home_ground::{HOME_MODELS, print, score_table, tables_of};
    let models = HOME_MODELS.iter().filter(|m| dir.join(m).is_dir());
    let options = model.model_options()?;
    let mut scores = Vec::new();
    for &m in models {
        let load = data.load_options_for(&[m])?;
        for table in tables_of(dir, m)? {
            let score = score_table(&table, m, &load, &options)
                .with_context(|| format!("{m} on {}", table.display()))?;
            scores.push(score);
        }
    }
    print(&scores);
    Ok(())
}

/// `eval --review-curve`: per model, the inspections a correct curator
/// needs with a one-shot ranking and with refits on the decisions.
fn review_curves(
    ds: &Dataset,
    requested: &[&str],
    options: &crate::models::ModelOptions,
    kind: NoiseKind,
    a: &EvalArgs,
) -> Result<(), CliError> {
    let every = a.every.unwrap_or_else(|| default_every(ds.n_samples()));
    if every == 0 {
        return Err(CliError::BadInput("--every must be at least 1".into()));
    }
    println!(
        "relabel eval --review-curve: {} ({} samples, {} classes), {} noise at {:.0}%, {} draws; refit every {every} decisions",
        ds.raw.path.display(),
        ds.n_samples(),
        ds.classes.len(),
        kind.name(),
        100.0 * a.rate,
        a.draws(),
    );
    println!(
        "{:<8} {:<10} {:>15} {:>15} {:>15} {:>7}",
        "model", "ranking", "50% found", "90% found", "100% found", "refits"
    );
    for requested in requested {
        let plan = FitPlan::for_table(ds, requested, options)?;
        let inputs = FitInputs::of_table(ds, &plan, None);
        let mut once = Vec::new();
        let mut learned = Vec::new();
        for r in 0..a.draws() {
            let injected = inject(
                &ds.labels,
                ds.classes.len(),
                kind,
                a.rate,
                options.seed.wrapping_add(r as u64),
            );
            let first = plan.fit(&inputs, &injected.labels, &mut no_progress())?;
            // Refits keep the model auto chose rather than choosing again.
            let settled = plan.settled(&first, options)?;
            once.push(static_curve(&first, &injected));
            learned.push(learning_curve(
                &settled, &inputs, &injected, &ds.labels, first, every,
            )?);
        }
        let name = requested.to_string();
        print_curve_row(&name, "one-shot", &once);
        print_curve_row(&name, "learning", &learned);
    }
    println!(
        "inspections = samples looked at, from the top, until that share of the flipped labels was found (mean ± sd)"
    );
    Ok(())
}

fn print_curve_row(model: &str, ranking: &str, curves: &[Curve]) {
    let cell = |share: f64| {
        let v: Vec<f64> = curves
            .iter()
            .filter_map(|c| c.inspections_for(share))
            .map(|v| v as f64)
            .collect();
        let (m, sd) = mean_sd(v);
        format!("{m:.0} ± {sd:.0}")
    };
    let refits = curves.iter().map(|c| c.refits).sum::<usize>() / curves.len().max(1);
    println!(
        "{model:<8} {ranking:<10} {:>15} {:>15} {:>15} {refits:>7}",
        cell(0.5),
        cell(0.9),
        cell(1.0)
    );
}

fn print_header() {
    println!(
        "{:<8} {:>15} {:>15} {:>15} {:>15} {:>15} {:>15} {:>15} {:>15} {:>9}",
        "model",
        "AUROC",
        "avg precision",
        "precision@k",
        "recall@k",
        "flagged/k",
        "sum p/k",
        "suggested acc",
        "test acc",
        "converged"
    );
}

/// One model's figures over the noise draws, as mean ± sd.
fn print_row(name: &str, scores: &[DetectionScores]) {
    let cell = |f: &dyn Fn(&DetectionScores) -> f64| {
        let (m, s) = mean_sd(scores.iter().map(f));
        if m.is_nan() {
            "-".to_string()
        } else {
            format!("{m:.3} ± {s:.3}")
        }
    };
    let converged = scores.iter().filter(|s| s.converged).count();
    println!(
        "{:<8} {:>15} {:>15} {:>15} {:>15} {:>15} {:>15} {:>15} {:>15} {:>9}",
        name,
        cell(&|s| s.auroc),
        cell(&|s| s.average_precision),
        cell(&|s| s.precision_at_k),
        cell(&|s| s.recall_at_k),
        cell(&|s| s.flagged as f64 / s.n_flipped as f64),
        cell(&|s| s.expected / s.n_flipped as f64),
        cell(&|s| s.suggested_accuracy),
        cell(&|s| s.test_accuracy.unwrap_or(f64::NAN)),
        format!("{converged}/{}", scores.len()),
    );
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
