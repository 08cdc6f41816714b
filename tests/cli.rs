//! The headless contract (DESIGN §3), exercised through the real binary.
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

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample_data")
        .join(name)
}

/// Rows of scan's CSV output as (header, records).
fn parse_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

/// 0-based rows flipped in a `*.truth.csv`.
fn flipped_rows(truth: &Path) -> Vec<usize> {
    let mut r = csv::Reader::from_path(truth).unwrap();
    r.records()
        .map(|rec| rec.unwrap())
        .filter(|rec| &rec[4] == "1")
        .map(|rec| rec[0].parse().unwrap())
        .collect()
}

#[test]
fn scan_puts_the_flipped_iris_rows_on_top_with_sensible_suggestions() {
    let out = succeed(relabel().args([
        "scan",
        sample("iris_noisy.csv").to_str().unwrap(),
        "--model",
        "rnda",
    ]));
    let (header, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(
        header[..6],
        ["row", "id", "given", "suggested", "p_mislabel", "gamma"]
    );
    assert_eq!(header[6..9], ["p_setosa", "p_versicolor", "p_virginica"]);
    assert_eq!(rows.len(), 150);
    let p: Vec<f64> = rows.iter().map(|r| r[4].parse().unwrap()).collect();
    assert!(
        p.windows(2).all(|w| w[0] >= w[1]),
        "not sorted by p_mislabel"
    );

    let flipped = flipped_rows(&sample("iris_noisy.truth.csv"));
    let k = flipped.len();
    let top: Vec<usize> = rows[..k].iter().map(|r| r[0].parse().unwrap()).collect();
    let hits = top.iter().filter(|r| flipped.contains(r)).count();
    assert!(
        hits * 10 >= k * 8,
        "only {hits} of the top {k} were flipped"
    );

    // Where a flipped row is flagged, the suggestion is its true label.
    let truth: Vec<(usize, String)> = csv::Reader::from_path(sample("iris_noisy.truth.csv"))
        .unwrap()
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].parse().unwrap(), r[2].to_string())
        })
        .collect();
    let mut right = 0;
    for r in rows[..k]
        .iter()
        .filter(|r| flipped.contains(&r[0].parse().unwrap()))
    {
        let row: usize = r[0].parse().unwrap();
        if truth.iter().any(|(t, label)| *t == row && *label == r[3]) {
            right += 1;
        }
    }
    assert!(
        right * 10 >= hits * 9,
        "{right} of {hits} suggestions are the true label"
    );
}

#[test]
fn scan_writes_a_report_with_the_oriented_gamma_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ranking.csv");
    let report = dir.path().join("report.json");
    relabel()
        .args([
            "scan",
            sample("iris_noisy.csv").to_str().unwrap(),
            "--model",
            "rnda",
        ])
        .arg("--out")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(json["model"], "rnda");
    assert_eq!(json["classes"].as_array().unwrap().len(), 3);
    let gamma = json["gamma"]["values"].as_array().unwrap();
    for row in gamma {
        let s: f64 = row
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .sum();
        assert!((s - 1.0).abs() < 1e-9);
    }
    assert!(
        json["gamma"]["orientation"]
            .as_str()
            .unwrap()
            .contains("rows = true class")
    );
    assert!(json["converged"].is_boolean());
    assert!(json["trace"].as_array().unwrap().len() as u64 == json["iterations"].as_u64().unwrap());
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("row,id,given")
    );
}

#[test]
fn scan_predicts_a_test_table() {
    let dir = tempfile::tempdir().unwrap();
    let pred = dir.path().join("pred.csv");
    let out = relabel()
        .args([
            "scan",
            sample("iris_noisy.csv").to_str().unwrap(),
            "--model",
            "rnda",
        ])
        .arg("--out")
        .arg(dir.path().join("r.csv"))
        .arg("--predict")
        .arg(sample("iris.csv"))
        .arg("--predictions")
        .arg(&pred)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("test accuracy"), "{stderr}");
    let (header, rows) = parse_csv(&std::fs::read_to_string(&pred).unwrap());
    assert_eq!(header[..4], ["row", "id", "given", "predicted"]);
    assert_eq!(rows.len(), 150);
    let right = rows.iter().filter(|r| r[2] == r[3]).count();
    // Trained on 20% flipped labels, scored against the clean ones.
    assert!(right >= 140, "{right} of 150");
}

#[test]
fn a_bad_cell_exits_2_with_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "a,b,label\n1,2,x\n3,oops,y\n5,6,x\n").unwrap();
    let out = relabel().arg("scan").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("bad.csv:3:2"), "{stderr}");
    assert!(stderr.contains("--ignore b"), "{stderr}");
}

#[test]
fn bad_options_and_missing_files_exit_2() {
    let iris = sample("iris.csv");
    for args in [
        vec!["scan", iris.to_str().unwrap(), "--model", "nonsense"],
        vec!["scan", iris.to_str().unwrap(), "--cov", "round"],
        vec!["scan", iris.to_str().unwrap(), "--opt", "nonsense=1"],
        vec!["scan", "/no/such/file.csv"],
        vec!["eval", iris.to_str().unwrap(), "--rate", "1.5"],
        vec!["eval"],
        vec!["eval", "--paper", "nonsense"],
        vec![
            "scan",
            iris.to_str().unwrap(),
            "--model",
            "rlr",
            "--gamma",
            "0.9,0.2;0.1,0.9",
        ],
        vec![
            "scan",
            iris.to_str().unwrap(),
            "--model",
            "shift",
            "--noise-fraction",
            "2",
        ],
    ] {
        let out = relabel().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
}

#[test]
fn eval_reports_detection_figures_for_each_model() {
    let out = succeed(
        relabel()
            .args([
                "eval",
                sample("iris.csv").to_str().unwrap(),
                "--repeats",
                "2",
            ])
            .args(["--models", "rnda,nda", "--rate", "0.2", "--noise", "pair"])
            .arg("--test")
            .arg(sample("iris.csv")),
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let line = |m: &str| text.lines().find(|l| l.starts_with(m)).unwrap().to_string();
    let auroc = |l: &str| -> f64 { l.split_whitespace().nth(1).unwrap().parse().unwrap() };
    assert!(auroc(&line("rnda")) > 0.8, "{text}");
    assert!(auroc(&line("nda")) > 0.5, "{text}");
    assert!(
        text.contains("AUROC") && text.contains("test acc"),
        "{text}"
    );
}

#[test]
fn eval_writes_a_noisy_copy_and_its_truth() {
    let dir = tempfile::tempdir().unwrap();
    let noisy = dir.path().join("wine_noisy.csv");
    relabel()
        .args([
            "eval",
            sample("wine.csv").to_str().unwrap(),
            "--rate",
            "0.2",
            "--seed",
            "3",
        ])
        .arg("--write-noisy")
        .arg(&noisy)
        .assert()
        .success();
    let original = std::fs::read_to_string(sample("wine.csv")).unwrap();
    let changed = std::fs::read_to_string(&noisy).unwrap();
    let diff = original
        .lines()
        .zip(changed.lines())
        .filter(|(a, b)| a != b)
        .count();
    let flipped = flipped_rows(&dir.path().join("wine_noisy.truth.csv"));
    assert_eq!(diff, flipped.len());
    assert_eq!(flipped.len(), (0.2f64 * 178.0).round() as usize);
}

#[test]
fn export_writes_the_cleaned_file_from_a_saved_session() {
    use relabel::dataset::{LoadOptions, load};
    use relabel::review::Session;
    let dir = tempfile::tempdir().unwrap();
    let data_home = tempfile::tempdir().unwrap();
    let input = dir.path().join("wine_noisy.csv");
    std::fs::copy(sample("wine_noisy.csv"), &input).unwrap();
    // A session as the review screen leaves it (Linux layout of the data dir).
    let store = data_home.path().join("relabel").join("sessions");
    let ds = load(&input, &LoadOptions::default()).unwrap();
    let (mut session, _) = Session::open(ds, Some(&store)).unwrap();
    session.relabel(0, 1).unwrap();
    session.drop_sample(1).unwrap();
    drop(session);

    succeed(
        relabel()
            .arg("export")
            .arg(&input)
            .env("XDG_DATA_HOME", data_home.path()),
    );
    let cleaned = std::fs::read_to_string(dir.path().join("wine_noisy.cleaned.csv")).unwrap();
    let original = std::fs::read_to_string(&input).unwrap();
    assert_eq!(cleaned.lines().count(), original.lines().count() - 1);
    assert!(dir.path().join("wine_noisy.audit.csv").exists());
    // Again: refuses to replace without --force.
    let again = relabel()
        .arg("export")
        .arg(&input)
        .env("XDG_DATA_HOME", data_home.path())
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    // A file never reviewed has no session.
    let none = relabel()
        .arg("export")
        .arg(sample("iris.csv"))
        .env("XDG_DATA_HOME", data_home.path())
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no review session"));
}

/// Issue 12: a damaged line at line 4 of the journal lost every later
/// decision and cut them off the file, with exit 0 and no word.
#[test]
fn export_keeps_every_decision_around_a_damaged_journal_line_and_says_so() {
    use relabel::dataset::{LoadOptions, load};
    use relabel::review::Session;
    let dir = tempfile::tempdir().unwrap();
    let data_home = tempfile::tempdir().unwrap();
    let input = dir.path().join("wine_noisy.csv");
    std::fs::copy(sample("wine_noisy.csv"), &input).unwrap();
    let store = data_home.path().join("relabel").join("sessions");
    let ds = load(&input, &LoadOptions::default()).unwrap();
    let (mut session, _) = Session::open(ds, Some(&store)).unwrap();
    for s in 0..5 {
        session.drop_sample(s).unwrap();
    }
    let journal = session.journal_path().unwrap().to_path_buf();
    drop(session);
    let bytes = std::fs::read(&journal).unwrap();
    let mut lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();
    lines.insert(3, b"{\"kind\":\"mystery\"}\n");
    let damaged = lines.concat();
    std::fs::write(&journal, &damaged).unwrap();

    let out = succeed(
        relabel()
            .arg("export")
            .arg(&input)
            .args([
                "--out",
                dir.path().join("r.csv").to_str().unwrap(),
                "--force",
            ])
            .env("XDG_DATA_HOME", data_home.path()),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("5 dropped"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("skipped 1 unreadable line (4)") && stderr.contains(".bak"),
        "{stderr}"
    );
    let after = std::fs::read(&journal).unwrap();
    assert!(after.starts_with(&damaged), "the journal is not cut");
}

#[test]
fn scan_with_cbt_reads_string_levels_of_house_votes() {
    let votes = sample("house_votes_84.csv");
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.json");
    let out = succeed(
        relabel()
            .args([
                "scan",
                votes.to_str().unwrap(),
                "--model",
                "cbt",
                "--report",
            ])
            .arg(&report),
    );
    let (header, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(
        header[..5],
        ["row", "id", "given", "suggested", "p_mislabel"]
    );
    assert_eq!(rows.len(), 435);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let text = json.to_string();
    // Kept features are named by their source column, not by a 0/1 column.
    assert!(
        text.contains("kept_features") && text.contains("physician_fee_freeze"),
        "{text}"
    );
    assert!(text.contains("log10_M"), "{text}");
    // Without cbt the string columns are an error whose hint names both ways.
    let out = relabel()
        .args(["scan", votes.to_str().unwrap(), "--model", "rnda"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("--categorical onehot") && stderr.contains("--model cbt"),
        "{stderr}"
    );
}
