//! Writers for scan's ranking CSV, JSON report and predictions.

use std::io::Write;

use nalgebra::DMatrix;
use rayon::prelude::*;
use serde_json::json;

use super::CliError;
use super::decimal::{fixed6, push_fixed6};
use crate::dataset::Dataset;
use crate::models::{Fit, GammaTable, ModelOptions, argmax};

/// How a scan was run, for the report.
pub struct RunInfo {
    pub model: String,
    pub options: ModelOptions,
    pub wall_seconds: f64,
    /// `app::data_notes` of the table, worked out once for stderr and the
    /// report (on a large table they read a sample of every column).
    pub data_notes: Vec<String>,
}

/// The ranking's fixed columns (DESIGN §3), before the per-class ones.
pub const RANKING_COLUMNS: [&str; 6] = ["row", "id", "given", "suggested", "p_mislabel", "gamma"];

/// The per-class probability columns: `p_<class>` for every class, unless
/// one of those names would equal another column of the file (a class
/// called `mislabel` makes a second `p_mislabel`); then every class's
/// column is `p[<class>]`, so a script sees one rule per file and can tell
/// which from the header. Distinct classes give distinct names either way.
pub fn class_columns(classes: &[String], others: &[String]) -> Vec<String> {
    let plain: Vec<String> = classes.iter().map(|c| format!("p_{c}")).collect();
    if plain.iter().any(|p| others.contains(p)) {
        classes.iter().map(|c| format!("p[{c}]")).collect()
    } else {
        plain
    }
}

/// Writes the ranking: one line per sample, most suspect first.
pub fn write_ranking(w: &mut dyn Write, ds: &Dataset, fit: &Fit) -> Result<(), CliError> {
    let mut out = csv::Writer::from_writer(w);
    let mut header: Vec<String> = RANKING_COLUMNS.iter().map(|c| c.to_string()).collect();
    let extras: Vec<String> = fit
        .extra
        .sample_columns
        .iter()
        .map(|c| c.name.clone())
        .collect();
    let others: Vec<String> = header.iter().chain(&extras).cloned().collect();
    header.extend(class_columns(&ds.classes, &others));
    header.extend(extras);
    out.write_record(&header).map_err(ranking_failed)?;
    out.flush().map_err(ranking_failed)?;
    let w = out.into_inner().map_err(ranking_failed)?;
    // Formatting is most of the work (a million rows took 2.3 s on one
    // core), so blocks of rows are formatted on every core and written in
    // ranking order: the bytes are those of one writer.
    let order = fit.ranking();
    for batch in order.chunks(RANKING_BATCH) {
        let blocks: Vec<Result<Vec<u8>, CliError>> = batch
            .par_chunks(RANKING_BLOCK)
            .map(|rows| ranking_block(rows, ds, fit))
            .collect();
        for block in blocks {
            w.write_all(&block?).map_err(ranking_failed)?;
        }
    }
    Ok(())
}

/// Rows formatted on one core at a time, and rows held formatted at once
/// (a few MB, whatever the table's size).
const RANKING_BLOCK: usize = 4096;
const RANKING_BATCH: usize = 64 * RANKING_BLOCK;

/// The ranking's records for `rows`, as CSV bytes.
fn ranking_block(rows: &[usize], ds: &Dataset, fit: &Fit) -> Result<Vec<u8>, CliError> {
    let numbers = gather_numbers(rows, ds, fit);
    let per_row = numbers.len() / rows.len().max(1);
    // The ids' bytes are scattered too: copied out in one loop first.
    let mut id_bytes = Vec::with_capacity(rows.len() * 8);
    let id_ends: Vec<usize> = rows
        .iter()
        .map(|&i| {
            id_bytes.extend_from_slice(ds.ids[i].as_bytes());
            id_bytes.len()
        })
        .collect();
    let codes: Vec<(usize, usize, usize)> = rows
        .iter()
        .map(|&i| (ds.rows[i], ds.labels[i], fit.suggested[i]))
        .collect();
    let mut out = csv::Writer::from_writer(Vec::with_capacity(rows.len() * 96));
    let mut field = Vec::with_capacity(32);
    let mut id_start = 0;
    for (r, (row, given, suggested)) in codes.into_iter().enumerate() {
        field.clear();
        // Writing to a Vec cannot fail.
        let _ = write!(field, "{row}");
        out.write_field(&field).map_err(ranking_failed)?;
        out.write_field(&id_bytes[id_start..id_ends[r]])
            .map_err(ranking_failed)?;
        id_start = id_ends[r];
        for text in [&ds.classes[given], &ds.classes[suggested]] {
            out.write_field(text).map_err(ranking_failed)?;
        }
        for &v in &numbers[r * per_row..(r + 1) * per_row] {
            field.clear();
            push_fixed6(&mut field, v);
            out.write_field(&field).map_err(ranking_failed)?;
        }
        out.write_record(None::<&[u8]>).map_err(ranking_failed)?;
    }
    out.into_inner().map_err(ranking_failed)
}

/// The numbers of `rows`' records, row after row. Rows in ranking order are
/// scattered over the table, so each value is a cache miss; gathered one
/// column at a time, in a loop of independent loads, the core overlaps the
/// misses that formatting in between would wait on one by one: on 1M rows
/// the ranking's formatting took a third of the time it took row by row.
fn gather_numbers(rows: &[usize], ds: &Dataset, fit: &Fit) -> Vec<f64> {
    let columns: Vec<&[f64]> = std::iter::once(fit.p_mislabel.as_slice())
        .chain(
            fit.posterior
                .as_slice()
                .chunks(fit.posterior.nrows().max(1)),
        )
        .chain(fit.extra.sample_columns.iter().map(|c| c.values.as_slice()))
        .collect();
    let per_row = columns.len() + 1;
    let mut numbers = vec![0.0; rows.len() * per_row];
    let mut gather = |slot: usize, value: &dyn Fn(usize) -> f64| {
        for (r, &i) in rows.iter().enumerate() {
            numbers[r * per_row + slot] = value(i);
        }
    };
    gather(0, &|i| columns[0][i]);
    gather(1, &|i| fit.sample_gamma(i, ds.labels[i]));
    for (c, column) in columns.iter().enumerate().skip(1) {
        gather(c + 1, &|i| column[i]);
    }
    numbers
}

fn ranking_failed(e: impl std::fmt::Display) -> CliError {
    CliError::Failed(anyhow::anyhow!("cannot write the ranking: {e}"))
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
        "data_notes": info.data_notes,
        "gamma": fit.gamma.as_ref().map(gamma_json),
        "has_shifts": fit.shifts.is_some(),
        "extra": extra,
        "trace": fit.trace.iter().map(|v| finite(*v)).collect::<Vec<_>>(),
        "iterations": fit.iterations,
        "converged": fit.converged,
        // The sentence the screen shows: a mixture's names the member that
        // stopped, which `converged` alone cannot.
        "convergence": fit.convergence(),
        // Within a label the list is file order, and the flip table the
        // start's: a script must not read the ranking or the count as the data's.
        "ranked_by_label_only": fit.label_only,
        // The flip table ended on the dominance constraint: the split into
        // classes and flips, so p_mislabel, is the constraint's.
        "flips_unidentified": fit.flips_unidentified,
        "wall_seconds": info.wall_seconds,
        // Kept for scripts that read it; `flagged` is what scan's line says:
        // the rows at or above `flag_cutoff`, as many as the expected count.
        "flagged_at_0.5": fit.p_mislabel.iter().filter(|p| **p >= 0.5).count(),
        "flagged": fit.flagged(),
        "flag_cutoff": finite(fit.flag_cutoff()),
        // Each label is wrong with probability p_mislabel: their sum is the
        // number of wrong labels the model expects.
        "expected_wrong_labels": fit.p_mislabel.iter().filter(|p| p.is_finite()).sum::<f64>(),
        // The count with its 95% interval (`null` when the fit cannot count),
        // and whether held-out fits show the data can tell wrong labels at all.
        "wrong_labels": fit.extra.wrong_labels,
        "held_out_skill": fit.extra.held_out_skill,
    })
}

/// The report as the text written to REPORT.json.
pub fn report_text(ds: &Dataset, fit: &Fit, info: &RunInfo) -> Result<String, CliError> {
    let value = report_value(ds, fit, info);
    let text = serde_json::to_string_pretty(&value)
        .map_err(|e| CliError::Failed(anyhow::anyhow!("cannot encode the report: {e}")))?;
    Ok(text + "\n")
}

/// Writes one line per test row: row, id, predicted, p_<class>, and `given`
/// when the test file has labels.
pub fn write_predictions(
    w: &mut dyn Write,
    ds: &Dataset,
    proba: &DMatrix<f64>,
    ids: &[String],
    labels: Option<&[String]>,
) -> Result<(), CliError> {
    let mut out = csv::Writer::from_writer(w);
    let io = |e: csv::Error| CliError::Failed(anyhow::anyhow!("cannot write predictions: {e}"));
    let mut header = vec!["row".to_string(), "id".into()];
    if labels.is_some() {
        header.push("given".into());
    }
    header.push("predicted".into());
    let others = header.clone();
    header.extend(class_columns(&ds.classes, &others));
    out.write_record(&header).map_err(io)?;
    for i in 0..proba.nrows() {
        let predicted = &ds.classes[argmax(proba.row(i).iter().copied())];
        let mut rec = vec![i.to_string(), ids[i].clone()];
        if let Some(l) = labels {
            rec.push(l[i].clone());
        }
        rec.push(predicted.clone());
        rec.extend((0..ds.classes.len()).map(|k| fixed6(proba[(i, k)])));
        out.write_record(&rec).map_err(io)?;
    }
    out.flush()
        .map_err(|e| CliError::Failed(anyhow::anyhow!("cannot write predictions: {e}")))?;
    Ok(())
}

/// The share of test rows whose predicted class is their label.
pub fn accuracy(ds: &Dataset, proba: &DMatrix<f64>, labels: &[String]) -> f64 {
    let right = (0..proba.nrows())
        .filter(|&i| ds.classes[argmax(proba.row(i).iter().copied())] == labels[i])
        .count();
    right as f64 / proba.nrows().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn class_columns_are_p_class_unless_one_would_collide() {
        let fixed = names(&RANKING_COLUMNS);
        assert_eq!(class_columns(&names(&["a", "b"]), &fixed), ["p_a", "p_b"]);
        assert_eq!(
            class_columns(&names(&["mislabel", "ok"]), &fixed),
            ["p[mislabel]", "p[ok]"]
        );
        let with_extra = names(&["row", "p_lambda"]);
        assert_eq!(
            class_columns(&names(&["lambda", "x"]), &with_extra),
            ["p[lambda]", "p[x]"]
        );
    }
}
