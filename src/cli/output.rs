//! Writers for scan's ranking CSV, JSON report and predictions.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use nalgebra::DMatrix;
use serde_json::json;

use super::CliError;
use crate::dataset::Dataset;
use crate::models::{Fit, GammaTable, ModelOptions, argmax};

/// How a scan was run, for the report.
pub struct RunInfo {
    pub model: String,
    pub options: ModelOptions,
    pub wall_seconds: f64,
}

/// Empty for NaN (a value that does not apply), else full precision kept
/// short: probabilities to 6 decimals.
fn num(v: f64) -> String {
    if v.is_nan() {
        String::new()
    } else {
        format!("{v:.6}")
    }
}

/// Writes the ranking: one line per sample, most suspect first.
pub fn write_ranking(w: &mut dyn Write, ds: &Dataset, fit: &Fit) -> Result<(), CliError> {
    let mut out = csv::Writer::from_writer(w);
    let mut header = vec![
        "row".to_string(),
        "id".into(),
        "given".into(),
        "suggested".into(),
        "p_mislabel".into(),
        "gamma".into(),
    ];
    header.extend(ds.classes.iter().map(|c| format!("p_{c}")));
    header.extend(fit.extra.sample_columns.iter().map(|c| c.name.clone()));
    let io = |e: csv::Error| CliError::Failed(anyhow::anyhow!("cannot write the ranking: {e}"));
    out.write_record(&header).map_err(io)?;
    for i in fit.ranking() {
        let given = ds.labels[i];
        let mut rec = vec![
            ds.rows[i].to_string(),
            ds.ids[i].clone(),
            ds.given_label(i).to_string(),
            ds.classes[fit.suggested[i]].clone(),
            num(fit.p_mislabel[i]),
            num(fit.sample_gamma(i, given)),
        ];
        rec.extend((0..ds.classes.len()).map(|k| num(fit.posterior[(i, k)])));
        rec.extend(fit.extra.sample_columns.iter().map(|c| num(c.values[i])));
        out.write_record(&rec).map_err(io)?;
    }
    out.flush()
        .map_err(|e| CliError::Failed(anyhow::anyhow!("cannot write the ranking: {e}")))?;
    Ok(())
}

fn gamma_json(g: &GammaTable) -> serde_json::Value {
    let k = g.n_classes();
    json!({
        "orientation": GammaTable::ORIENTATION,
        "values": (0..k).map(|t| (0..k).map(|j| g.p_given_true(t, j)).collect::<Vec<_>>()).collect::<Vec<_>>(),
    })
}

/// The JSON report of DESIGN §3. Non-finite numbers become null.
pub fn report_value(ds: &Dataset, fit: &Fit, info: &RunInfo) -> serde_json::Value {
    let finite = |v: f64| if v.is_finite() { json!(v) } else { json!(null) };
    let mut extra = serde_json::to_value(&fit.extra).unwrap_or(json!(null));
    // Per-sample columns are in the ranking CSV; the report keeps their names.
    if let Some(obj) = extra.as_object_mut() {
        obj.insert(
            "sample_columns".into(),
            json!(
                fit.extra
                    .sample_columns
                    .iter()
                    .map(|c| c.name.clone())
                    .collect::<Vec<_>>()
            ),
        );
    }
    json!({
        "file": ds.raw.path.display().to_string(),
        "samples": ds.x.nrows(),
        "features": ds.x.ncols(),
        "model": info.model,
        "options": info.options,
        "classes": ds.classes,
        "class_counts": ds.class_counts(),
        "gamma": fit.gamma.as_ref().map(gamma_json),
        "has_shifts": fit.shifts.is_some(),
        "extra": extra,
        "trace": fit.trace.iter().map(|v| finite(*v)).collect::<Vec<_>>(),
        "iterations": fit.iterations,
        "converged": fit.converged,
        "wall_seconds": info.wall_seconds,
        "flagged_at_0.5": fit.p_mislabel.iter().filter(|p| **p >= 0.5).count(),
    })
}

pub fn write_report(path: &Path, ds: &Dataset, fit: &Fit, info: &RunInfo) -> Result<(), CliError> {
    let value = report_value(ds, fit, info);
    let text = serde_json::to_string_pretty(&value)
        .map_err(|e| CliError::Failed(anyhow::anyhow!("cannot encode the report: {e}")))?;
    std::fs::write(path, text + "\n")
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Writes one line per test row: row, id, predicted, p_<class>, and `given`
/// when the test file has labels. Returns the accuracy against those labels.
pub fn write_predictions(
    path: &Path,
    ds: &Dataset,
    proba: &DMatrix<f64>,
    ids: &[String],
    labels: Option<&[String]>,
) -> Result<Option<f64>, CliError> {
    let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut out = csv::Writer::from_writer(BufWriter::new(file));
    let io = |e: csv::Error| CliError::Failed(anyhow::anyhow!("cannot write predictions: {e}"));
    let mut header = vec!["row".to_string(), "id".into()];
    if labels.is_some() {
        header.push("given".into());
    }
    header.push("predicted".into());
    header.extend(ds.classes.iter().map(|c| format!("p_{c}")));
    out.write_record(&header).map_err(io)?;
    let mut right = 0usize;
    for i in 0..proba.nrows() {
        let predicted = &ds.classes[argmax(proba.row(i).iter().copied())];
        let mut rec = vec![i.to_string(), ids[i].clone()];
        if let Some(l) = labels {
            rec.push(l[i].clone());
            if &l[i] == predicted {
                right += 1;
            }
        }
        rec.push(predicted.clone());
        rec.extend((0..ds.classes.len()).map(|k| num(proba[(i, k)])));
        out.write_record(&rec).map_err(io)?;
    }
    out.flush()
        .map_err(|e| CliError::Failed(anyhow::anyhow!("cannot write predictions: {e}")))?;
    Ok(labels.map(|_| right as f64 / proba.nrows().max(1) as f64))
}
