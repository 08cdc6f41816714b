//! Tables of shapes that used to hang a model for minutes: each must now
//! answer, or refuse in one line with exit code 2 and a way out.
#![allow(clippy::unwrap_used)]

mod common;
use common::*;

use std::fmt::Write as _;
use std::path::Path;

/// `rows` samples of `features` standard-normal-ish features, labels cycling
/// through `classes` classes, shifted by class so the data has structure.
fn write_table(path: &Path, rows: usize, features: usize, classes: usize) {
    let mut csv = String::from("id");
    for j in 0..features {
        write!(csv, ",f{j}").unwrap();
    }
    csv.push_str(",label\n");
    for i in 0..rows {
        let c = i % classes;
        write!(csv, "s{i}").unwrap();
        for j in 0..features {
            // A deterministic spread without an RNG dependency.
            let v = ((i * 7919 + j * 104_729) % 1000) as f64 / 500.0 - 1.0 + 0.3 * c as f64;
            write!(csv, ",{v:.4}").unwrap();
        }
        writeln!(csv, ",c{c}").unwrap();
    }
    std::fs::write(path, csv).unwrap();
}

#[test]
fn full_covariances_of_wide_tables_refuse_in_one_line_with_the_ways_out() {
    let dir = tempfile::tempdir().unwrap();
    let wide = dir.path().join("wide.csv");
    write_table(&wide, 4, 600, 2);
    for model in ["rnda", "nda", "lda"] {
        let out = relabel()
            .args(["scan", wide.to_str().unwrap(), "--model", model])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{model}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{model}: {stderr}");
        assert!(
            stderr.contains("cov diag") && stderr.contains("rlr"),
            "{stderr}"
        );
    }
    let out = relabel()
        .args([
            "scan",
            wide.to_str().unwrap(),
            "--model",
            "rnda",
            "--cov",
            "diag",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn shift_with_classes_smaller_than_the_folds_picks_lambda_by_training_accuracy() {
    let dir = tempfile::tempdir().unwrap();
    let many = dir.path().join("many.csv");
    let report = dir.path().join("report.json");
    write_table(&many, 40, 3, 20);
    let out = relabel()
        .args(["scan", many.to_str().unwrap(), "--model", "shift"])
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = std::fs::read_to_string(&report).unwrap();
    assert!(
        report.contains("training accuracy") && report.contains("cannot be in all 5"),
        "{report}"
    );
}
