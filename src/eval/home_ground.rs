//! `relabel eval --home-ground DIR`: each seed model on the kind of table
//! its paper is about (issue 48), to set beside the peer on the same files.
//!
//! DIR holds one directory per model (`rnda`, `shift`, `rlr`, `rmda`,
//! `cbt`; `benches/tables/home_ground.py` writes them), each with
//! `NAME.csv` tables and `NAME.truth.csv` beside them (row, true_label,
//! flipped). Every table is fitted through the pipeline as `scan --model
//! NAME` fits it, and the ranking scored as `eval` scores it: by the
//! output order, which keeps the model's own order where the pipeline
//! found no held-out skill and flags nothing. The peer
//! (`benches/peer/home_ground_peer.py --home DIR`) reads the same files.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};

use crate::app::{FitInputs, FitPlan};
use crate::dataset::{Dataset, LoadOptions};
use crate::eval::metrics::auroc;
use crate::models::{Fit, ModelOptions, no_progress};

/// The models that have a home ground, in the order they are run.
pub const HOME_MODELS: [&str; 5] = ["rnda", "shift", "rlr", "rmda", "cbt"];

/// One table's figures.
#[derive(Clone, Debug)]
pub struct HomeScore {
    pub model: String,
    pub table: String,
    pub auroc: f64,
    pub flagged: usize,
    pub flipped: usize,
    /// Why the pipeline gave no count (`Fit::uncounted`), if it did not.
    pub uncounted: Option<String>,
}

/// The tables of `dir/model/`, sorted by name, without their truth files.
pub fn tables_of(dir: &Path, model: &str) -> anyhow::Result<Vec<PathBuf>> {
    let sub = dir.join(model);
    let mut out: Vec<PathBuf> = fs::read_dir(&sub)
        .with_context(|| format!("reading {}", sub.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.ends_with(".csv") && !name.ends_with(".truth.csv")
        })
        .collect();
    out.sort();
    Ok(out)
}

/// Which of `ds`'s rows were flipped, read from the truth file beside
/// `table` (its `row` is the 0-based data row, as `ds.rows`).
pub fn flips_of(table: &Path, ds: &Dataset) -> anyhow::Result<Vec<bool>> {
    let stem = table
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| anyhow!("{}: no file name", table.display()))?;
    let path = table.with_file_name(format!("{stem}.truth.csv"));
    let mut reader =
        csv::Reader::from_path(&path).with_context(|| format!("reading {}", path.display()))?;
    let headers = reader.headers()?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| anyhow!("{}: no `{name}` column", path.display()))
    };
    let (row, flipped) = (col("row")?, col("flipped")?);
    let mut by_row = std::collections::HashMap::new();
    for record in reader.records() {
        let record = record?;
        let r: usize = record[row].trim().parse()?;
        let f = matches!(record[flipped].trim(), "1" | "true" | "True");
        by_row.insert(r, f);
    }
    ds.rows
        .iter()
        .map(|r| {
            by_row
                .get(r)
                .copied()
                .ok_or_else(|| anyhow!("{}: no truth for data row {r}", path.display()))
        })
        .collect()
}

/// Each row's score as its place in the output order (the `eval` rule).
fn order_scores(fit: &Fit) -> Vec<f64> {
    let mut score = vec![0.0; fit.p_mislabel.len()];
    for (place, i) in fit.ranking().into_iter().enumerate() {
        score[i] = -(place as f64);
    }
    score
}

/// `model` fitted on `table` through the pipeline, scored against its
/// truth file.
pub fn score_table(
    table: &Path,
    model: &str,
    load: &LoadOptions,
    options: &ModelOptions,
) -> anyhow::Result<HomeScore> {
    let ds = crate::dataset::load(table, load)?;
    let flipped = flips_of(table, &ds)?;
    let plan = FitPlan::for_table(&ds, model, options)?;
    let inputs = FitInputs::of_table(&ds, &plan, None);
    let fit = plan.fit(&inputs, &ds.labels, &mut no_progress())?;
    Ok(HomeScore {
        model: model.to_string(),
        table: table
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string(),
        auroc: auroc(&order_scores(&fit), &flipped).unwrap_or(f64::NAN),
        flagged: fit.p_mislabel.iter().filter(|p| **p >= 0.5).count(),
        flipped: flipped.iter().filter(|f| **f).count(),
        uncounted: fit.uncounted().map(str::to_string),
    })
}

/// One line per table, then each model's mean AUROC.
pub fn print(scores: &[HomeScore]) {
    for s in scores {
        let why = s
            .uncounted
            .as_deref()
            .map(|w| format!(" (not counted: {w})"))
            .unwrap_or_default();
        println!(
            "{}/{} AUROC {:.3} flagged {} flipped {}{why}",
            s.model, s.table, s.auroc, s.flagged, s.flipped
        );
    }
    let mut models: Vec<&str> = scores.iter().map(|s| s.model.as_str()).collect();
    models.dedup();
    for m in models {
        let v: Vec<f64> = scores
            .iter()
            .filter(|s| s.model == m)
            .map(|s| s.auroc)
            .collect();
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        println!("{m} mean AUROC {mean:.3} over {} tables", v.len());
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A tiny home ground: two Gaussian classes far apart with two
    /// flipped labels; rnda must rank them first.
    #[test]
    fn scores_a_table_against_its_truth_file() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("rnda");
        fs::create_dir(&sub).unwrap();
        let mut table = String::from("id,a,b,label\n");
        let mut truth = String::from("row,true_label,flipped\n");
        for i in 0..40 {
            let class = i % 2;
            let (x, y) = (
                class as f64 * 6.0 + (i as f64 * 0.37).sin(),
                (i as f64 * 0.71).cos(),
            );
            let flipped = i == 4 || i == 9;
            let given = if flipped { 1 - class } else { class };
            table.push_str(&format!("s{i},{x},{y},c{given}\n"));
            truth.push_str(&format!("{i},c{class},{}\n", u8::from(flipped)));
        }
        fs::write(sub.join("t.csv"), table).unwrap();
        fs::write(sub.join("t.truth.csv"), truth).unwrap();
        fs::write(sub.join("notes.txt"), "not a table").unwrap();
        let tables = tables_of(dir.path(), "rnda").unwrap();
        assert_eq!(tables, vec![sub.join("t.csv")]);
        let s = score_table(
            &tables[0],
            "rnda",
            &LoadOptions::default(),
            &ModelOptions::default(),
        )
        .unwrap();
        assert_eq!((s.flipped, s.table.as_str()), (2, "t"));
        assert!(s.auroc > 0.99, "{s:?}");
    }
}
