//! Input formats and shell conventions through the real binary: GEO files,
//! spreadsheets, `--probs`, completions and the man page.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn relabel() -> Command {
    Command::cargo_bin("relabel").unwrap()
}

/// Runs the command and fails the test with its stderr unless it succeeds.
fn succeed(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs the command, which must fail with exit 2 and one line on stderr;
/// returns that line.
fn bad_input(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    err
}

#[allow(dead_code)]
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
        .join(name)
}

#[allow(dead_code)]
fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample_data")
        .join(name)
}

#[test]
fn completions_and_man_page_name_scan() {
    for shell in ["bash", "zsh", "fish"] {
        let out = succeed(relabel().args(["completions", shell]));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(!text.is_empty() && text.contains("scan"), "{shell}");
    }
    let out = succeed(relabel().arg("man"));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(".TH") && text.contains("scan"), "{text}");
    let err = bad_input(relabel().args(["completions", "tcsh"]));
    assert!(err.contains("tcsh"), "{err}");
}

/// Rows of a CSV as (header, records).
fn parse_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

#[test]
fn probs_reads_relabels_own_ranking_matched_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let ranked = dir.path().join("ranked.csv");
    let data = sample("iris_noisy.csv");
    succeed(
        relabel()
            .args(["scan", "--model", "rnda", "--out"])
            .arg(&ranked)
            .arg(&data),
    );
    let report = dir.path().join("report.json");
    let out = succeed(
        relabel()
            .arg("scan")
            .arg("--probs")
            .arg(&ranked)
            .arg(&data)
            .arg("--report")
            .arg(&report),
    );
    let (header, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
    assert!(header.contains(&"p_setosa".to_string()), "{header:?}");
    assert_eq!(rows.len(), 150);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(report["model"], "probs");
    let gamma = report["gamma"]["values"].as_array().unwrap();
    for (k, row) in gamma.iter().enumerate() {
        let row: Vec<f64> = row
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert!(
            row.iter().all(|v| *v <= row[k]),
            "row {k} dominant: {row:?}"
        );
    }
}

#[test]
fn probs_by_order_needs_only_ids_and_labels_and_a_matching_count() {
    let dir = tempfile::tempdir().unwrap();
    let labels = dir.path().join("labels.csv");
    std::fs::write(
        &labels,
        "id,label\na,cat\nb,cat\nc,cat\nd,dog\ne,dog\nf,dog\n",
    )
    .unwrap();
    let probs = dir.path().join("probs.csv");
    std::fs::write(
        &probs,
        "dog,cat\n0.1,0.9\n0.2,0.8\n0.05,0.95\n0.9,0.1\n0.8,0.2\n0.03,0.97\n",
    )
    .unwrap();
    let out = succeed(
        relabel()
            .arg("scan")
            .arg("--probs")
            .arg(&probs)
            .arg(&labels),
    );
    let (_, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(
        (rows[0][1].as_str(), rows[0][3].as_str()),
        ("f", "cat"),
        "{rows:?}"
    );

    std::fs::write(&probs, "dog,cat\n0.1,0.9\n").unwrap();
    let err = bad_input(
        relabel()
            .arg("scan")
            .arg("--probs")
            .arg(&probs)
            .arg(&labels),
    );
    assert!(err.contains("1 rows") && err.contains("6 samples"), "{err}");
    std::fs::write(&probs, "dog,bird\n0.1,0.9\n").unwrap();
    let err = bad_input(
        relabel()
            .arg("scan")
            .arg("--probs")
            .arg(&probs)
            .arg(&labels),
    );
    assert!(err.contains("\"cat\"") && err.contains("p_cat"), "{err}");
}
