//! Flip tables stay identifiable (issue 10): no true class is given another
//! label more often than its own. Wisconsin breast cancer with 30% pair noise,
//! seeds where a single EM start of rnda reached the swapped-names fixed
//! point (P(given = own | true) of 0.42 and 0.40 before the constraint, then
//! held at one half by it); the restarts must find an admissible fit there,
//! for rnda's flip table and for rmda's clusters alike.
#![allow(clippy::unwrap_used)]

mod common;
use common::*;

use std::path::{Path, PathBuf};

/// A noisy copy of breast cancer for `seed`, and the report of `model` on it.
fn report_on_noisy_breast_cancer(dir: &Path, seed: &str, model: &str) -> serde_json::Value {
    let clean = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_data/breast_cancer.csv");
    let noisy: PathBuf = dir.join(format!("bc{seed}.csv"));
    if !noisy.exists() {
        let out = relabel()
            .arg("eval")
            .arg(&clean)
            .args(["--noise", "pair", "--rate", "0.3", "--seed", seed])
            .arg("--write-noisy")
            .arg(&noisy)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let report = dir.join(format!("bc{seed}-{model}.json"));
    let out = relabel()
        .arg("scan")
        .arg(&noisy)
        .args(["--model", model, "--out"])
        .arg(dir.join(format!("ranking-{model}.csv")))
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    read_json(&report)
}

fn rows(value: &serde_json::Value) -> Vec<Vec<f64>> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect()
        })
        .collect()
}

fn scalar(report: &serde_json::Value, name: &str) -> f64 {
    report["extra"]["scalars"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s[0] == name)
        .unwrap_or_else(|| panic!("no scalar {name}"))[1]
        .as_f64()
        .unwrap()
}

#[test]
fn rnda_keeps_every_class_its_own_label_at_least_half_the_time_on_breast_cancer() {
    let dir = tempfile::tempdir().unwrap();
    // Seed 2: a single start from the given labels reached the swapped fit;
    // the restarts find an admissible one, strictly dominant. Seed 3: no
    // start of the full-covariance model is admissible (its maximum splits
    // a dense core from the outliers, not the classes), so the constraint
    // holds the table at the boundary and the report must say so.
    for (seed, admissible) in [("2", true), ("3", false)] {
        let report = report_on_noisy_breast_cancer(dir.path(), seed, "rnda");
        let table = rows(&report["gamma"]["values"]);
        for (k, row) in table.iter().enumerate() {
            let margin = if admissible { 1e-6 } else { -1e-9 };
            assert!(
                row[k] > 0.5 + margin,
                "seed {seed}, true class {k}: {row:?}"
            );
            assert!(
                row.iter().all(|p| *p <= row[k] + 1e-9),
                "seed {seed}: {row:?}"
            );
        }
        let notes = report["extra"]["notes"].to_string();
        assert!(notes.contains("4 start(s)"), "seed {seed}: {notes}");
        assert_eq!(
            !notes.contains("none was"),
            admissible,
            "seed {seed}: {notes}"
        );
    }
}

#[test]
fn rmda_leaves_no_class_more_than_half_flipped_on_breast_cancer() {
    let dir = tempfile::tempdir().unwrap();
    let report = report_on_noisy_breast_cancer(dir.path(), "2", "rmda");
    let r = rows(
        &report["extra"]["matrices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == "R")
            .unwrap()["values"],
    );
    let n_classes = r[0].len();
    // The classes' flip rates implied by R: each cluster belongs to the class
    // that labels most of it; a class keeps its label on the share of its
    // clusters' weight that carries it.
    let mut kept = vec![0.0; n_classes];
    let mut total = vec![0.0; n_classes];
    for (j, row) in r.iter().enumerate() {
        let size = scalar(&report, &format!("cluster_size[{}]", j + 1));
        let owner = (0..n_classes)
            .max_by(|&a, &b| row[a].total_cmp(&row[b]))
            .unwrap();
        kept[owner] += size * row[owner];
        total[owner] += size;
    }
    for c in 0..n_classes {
        assert!(total[c] > 0.0, "class {c} owns no cluster: {r:?}");
        assert!(kept[c] / total[c] > 0.5, "class {c}: {r:?}");
    }
}
