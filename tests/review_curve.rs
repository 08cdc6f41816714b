//! `relabel eval --review-curve` end to end: both rankings reported, with
//! inspection counts a curator could have made.
#![allow(clippy::unwrap_used)]

mod common;

use common::{relabel, sample, succeed};

#[test]
fn the_review_curve_reports_one_shot_and_learning_walks() {
    let out = succeed(relabel().args(["eval"]).arg(sample("iris.csv")).args([
        "--models",
        "nda",
        "--noise",
        "symmetric",
        "--rate",
        "0.2",
        "--repeats",
        "1",
        "--review-curve",
        "--every",
        "10",
    ]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("refit every 10 decisions"), "{text}");
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| l.starts_with("nda "))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!(rows[0][1], "one-shot");
    assert_eq!(rows[1][1], "learning");
    for row in &rows {
        // "50% ± sd 90% ± sd 100% ± sd refits": 30 flips among 150 rows.
        let found: Vec<f64> = [2, 5, 8].iter().map(|&c| row[c].parse().unwrap()).collect();
        assert!(found[0] >= 15.0 && found[0] <= found[1], "{row:?}");
        assert!(found[1] <= found[2] && found[2] <= 150.0, "{row:?}");
    }
    assert_eq!(rows[0][11], "0", "a one-shot ranking never refits");
    assert!(rows[1][11].parse::<usize>().unwrap() > 0);
}

#[test]
fn every_needs_the_review_curve() {
    let out = relabel()
        .args(["eval"])
        .arg(sample("iris.csv"))
        .args(["--every", "3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
