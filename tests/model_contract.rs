//! The model contract's property (issue 48), for every model of the
//! registry through `scan`: a table with no label noise and well-separated
//! classes flags nothing; a table whose features are independent of the
//! labels flags nothing (the pipeline's no-evidence rule, where that is
//! the mechanism); a 2 vs 2 design flags nothing and says why.
#![allow(clippy::unwrap_used)]

mod common;
use common::*;

use std::fmt::Write as _;
use std::path::Path;

const MODELS: [&str; 10] = [
    "rnda", "nda", "rlr", "lr", "shift", "rmda", "mda", "lda", "cbt", "all",
];

/// A deterministic spread in [-1, 1) without an RNG dependency.
fn spread(i: usize, j: usize) -> f64 {
    ((i * 7919 + j * 104_729 + i * j * 31) % 1000) as f64 / 500.0 - 1.0
}

/// `n` rows of 3 features, labels alternating; the classes 8 apart on two
/// features when `signal`, else the features ignore the label. Also the
/// class probabilities `--probs` would read (the truth's, or the shares).
fn write_table(dir: &Path, name: &str, n: usize, signal: bool) -> (String, String) {
    let (mut csv, mut probs) = (String::from("id,a,b,c,label\n"), String::from("id,c0,c1\n"));
    for i in 0..n {
        let c = i % 2;
        let shift = if signal { 8.0 * c as f64 } else { 0.0 };
        let (a, b, d) = (spread(i, 0) + shift, spread(i, 1) - shift, spread(i, 2));
        writeln!(csv, "s{i},{a:.4},{b:.4},{d:.4},c{c}").unwrap();
        let p1 = if signal { 0.02 + 0.96 * c as f64 } else { 0.5 };
        writeln!(probs, "s{i},{:.2},{p1:.2}", 1.0 - p1).unwrap();
    }
    let (table, probs_path) = (
        dir.join(format!("{name}.csv")),
        dir.join(format!("{name}_p.csv")),
    );
    std::fs::write(&table, csv).unwrap();
    std::fs::write(&probs_path, probs).unwrap();
    (
        table.to_string_lossy().into_owned(),
        probs_path.to_string_lossy().into_owned(),
    )
}

fn flagged(report: &serde_json::Value) -> u64 {
    report["flagged_at_0.5"].as_u64().unwrap()
}

#[test]
fn clean_separated_classes_and_tables_without_signal_flag_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for (name, signal) in [("separated", true), ("no_signal", false)] {
        let (table, probs) = write_table(dir.path(), name, 120, signal);
        for model in MODELS {
            let (_, report) = scan_with_report(dir.path(), &[&table, "--model", model]);
            assert_eq!(flagged(&report), 0, "{model} on {name}: {report:#}");
        }
        let (_, report) = scan_with_report(dir.path(), &[&table, "--probs", &probs]);
        assert_eq!(flagged(&report), 0, "probs on {name}: {report:#}");
    }
}

#[test]
fn two_against_two_flags_nothing_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let (table, _) = write_table(dir.path(), "tiny", 4, true);
    for model in ["shift", "lr"] {
        let (_, report) = scan_with_report(dir.path(), &[&table, "--model", model]);
        assert_eq!(flagged(&report), 0, "{model}: {report:#}");
        let notes = report["extra"]["notes"].to_string();
        assert!(notes.contains("cannot tell"), "{model}: {notes}");
    }
}
