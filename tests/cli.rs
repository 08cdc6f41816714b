//! The headless contract (DESIGN §3), exercised through the real binary.
#![allow(clippy::unwrap_used)]

mod common;
use common::*;

use std::path::{Path, PathBuf};

use assert_cmd::Command;

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
    let iris = sample("iris_noisy.csv");
    let (ranking, json) =
        scan_with_report(dir.path(), &[iris.to_str().unwrap(), "--model", "rnda"]);
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
    let said = format!(
        "{} after {} iteration",
        if json["converged"] == true {
            "converged"
        } else {
            "did NOT converge"
        },
        json["iterations"]
    );
    let sentence = json["convergence"].as_str().unwrap();
    assert!(sentence.starts_with(&said), "{sentence} vs {said}");
    assert_eq!(json["ranked_by_label_only"], false);
    assert_eq!(json["flips_unidentified"], false);
    assert!(json["trace"].as_array().unwrap().len() as u64 == json["iterations"].as_u64().unwrap());
    assert!(ranking.starts_with("row,id,given"));
    let (header, rows) = parse_csv(&ranking);
    let p = header.iter().position(|h| h == "p_mislabel").unwrap();
    let sum: f64 = rows.iter().map(|r| r[p].parse::<f64>().unwrap()).sum();
    let expected = json["expected_wrong_labels"].as_f64().unwrap();
    assert!(
        (expected - sum).abs() < 1e-3 * rows.len() as f64,
        "{expected} vs {sum}"
    );
    assert!(
        json.get("selection").is_none(),
        "a named model was not chosen"
    );
}

#[test]
fn auto_reports_its_choice_and_every_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.json");
    scan(sample("iris_noisy.csv"), &[])
        .arg("--out")
        .arg(dir.path().join("r.csv"))
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let json = read_json(&report);
    let selection = &json["extra"]["selection"];
    let chosen = selection["chosen"].as_str().unwrap();
    assert_eq!(
        json["model"], chosen,
        "the report names the model that fitted"
    );
    let candidates = selection["candidates"].as_array().unwrap();
    // Five robust models, and lr and QDA under probs' flip table.
    assert_eq!(candidates.len(), 7);
    let best = candidates[0]["score"].as_f64().unwrap();
    for c in candidates {
        if let Some(s) = c["score"].as_f64() {
            assert!(s <= best && s < 0.0, "{c}");
        }
    }
    // The chosen model carries the largest share of the ranking, and the
    // shares of the members sum to one.
    let weight = |c: &serde_json::Value| c["weight"].as_f64().unwrap_or(0.0);
    let chosen_weight = candidates
        .iter()
        .find(|c| c["model"] == chosen)
        .map(weight)
        .unwrap();
    assert!(candidates.iter().all(|c| weight(c) <= chosen_weight));
    let total: f64 = candidates.iter().map(weight).sum();
    assert!((total - 1.0).abs() < 1e-9, "{total}");
    let notes = json["extra"]["notes"].as_array().unwrap();
    let first = notes[0].as_str().unwrap();
    assert!(
        first.starts_with("auto chose ") || first.starts_with("auto combined "),
        "{first}"
    );
    assert!(first.contains(chosen), "{first}");
}

/// West's breast arrays (49 x 7129): shift's ridge theta fits every
/// label there, so each array is scored by the fit without its fold; that
/// ranking puts most of the literature's nine suspects first.
#[test]
fn shift_scores_a_wide_table_out_of_fold_and_finds_its_suspects() {
    let dir = tempfile::tempdir().unwrap();
    let breast = sample("breast_west.csv.gz");
    let (ranking, json) = scan_with_report(
        dir.path(),
        &["--model", "shift", "-q", breast.to_str().unwrap()],
    );
    let notes = json["extra"]["notes"].to_string();
    assert!(
        notes.contains("scored by theta fitted without its fold"),
        "{notes}"
    );
    let scalars = json["extra"]["scalars"].to_string();
    assert!(scalars.contains("\"kappa\""), "{scalars}");
    let suspects: Vec<String> = std::fs::read_to_string(sample("breast_west_suspects.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    let (header, rows) = parse_csv(&ranking);
    let id = header.iter().position(|h| h == "id").unwrap();
    let found = rows
        .iter()
        .take(9)
        .filter(|r| suspects.contains(&r[id]))
        .count();
    assert!(found >= 5, "{found} of the top nine are suspects");
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
    let bad = write_in(dir.path(), "bad.csv", "a,b,label\n1,2,x\n3,oops,y\n5,6,x\n");
    let out = scan(&bad, &[]).output().unwrap();
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

/// A paper's check on the wrong table says which ids it looks for and
/// which file to pass, before any fit.
#[test]
fn a_papers_check_on_another_table_names_the_file_it_needs() {
    for (paper, table, missing) in [
        ("breast", "colon.csv", "A11"),
        ("colon", "breast_west.csv.gz", "T2"),
    ] {
        let out = relabel()
            .args(["eval", "--paper", paper])
            .arg(sample(table))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{paper}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(missing), "{stderr}");
        assert!(stderr.contains("pass sample_data/"), "{stderr}");
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

/// A copy of wine_noisy.csv in a temp dir and a review session on it in a
/// temp data home (the Linux layout the binary finds with XDG_DATA_HOME).
fn reviewed_wine() -> (
    tempfile::TempDir,
    tempfile::TempDir,
    PathBuf,
    relabel::review::Session,
) {
    use relabel::dataset::{LoadOptions, load};
    let dir = tempfile::tempdir().unwrap();
    let data_home = tempfile::tempdir().unwrap();
    let input = dir.path().join("wine_noisy.csv");
    std::fs::copy(sample("wine_noisy.csv"), &input).unwrap();
    let store = data_home.path().join("relabel").join("sessions");
    let ds = load(&input, &LoadOptions::default()).unwrap();
    let (session, _) = relabel::review::Session::open(ds, Some(&store)).unwrap();
    (dir, data_home, input, session)
}

#[test]
fn export_writes_the_cleaned_file_from_a_saved_session() {
    let (dir, data_home, input, mut session) = reviewed_wine();
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
    let (dir, data_home, input, mut session) = reviewed_wine();
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
    let json = read_json(&report);
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

// ---- issue 12: bad input is refused in one line with exit 2 ----

/// A small two-class table that every model fits quickly.
fn small_table(dir: &Path, name: &str) -> PathBuf {
    let mut text = String::from("id,f1,f2,label\n");
    for i in 0..30 {
        let class = i % 2;
        let f1 = class as f64 * 2.0 + (i as f64 * 0.37).sin();
        let f2 = (i as f64 * 0.11).cos() - class as f64;
        text.push_str(&format!("s{i},{f1:.3},{f2:.3},{}\n", ["a", "b"][class]));
    }
    write_in(dir, name, text)
}

#[test]
fn an_unclosed_quote_in_the_last_column_is_refused_where_it_opens() {
    let dir = tempfile::tempdir().unwrap();
    let q = dir.path().join("q.csv");
    std::fs::write(
        &q,
        "id,f1,f2,label\n1,0.1,1.0,a\n2,0.2,2.0,\"b\n3,0.3,1.5,b\n4,0.4,2.5,a\n",
    )
    .unwrap();
    let e = refused(scan(&q, &["--model", "lda"]));
    assert!(
        e.contains("q.csv:3:4: a quote opens here and is never closed"),
        "{e}"
    );
}

#[test]
fn a_label_over_several_lines_needs_multiline_cells() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.csv");
    let mut text = std::fs::read_to_string(small_table(dir.path(), "s.csv")).unwrap();
    text.push_str("s30,0.5,0.5,\"a\nb\"\n");
    std::fs::write(&path, text).unwrap();
    let e = refused(scan(&path, &["--model", "lda"]));
    assert!(
        e.contains("m.csv:32:4: the label in column \"label\" spans lines 32-33"),
        "{e}"
    );
    assert!(e.contains("--multiline-cells"), "{e}");
    let out = succeed(scan(&path, &["--model", "lda", "--multiline-cells"]));
    let (_, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(rows.len(), 31);
}

#[test]
fn scan_never_overwrites_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let data = small_table(dir.path(), "d.csv");
    let test = small_table(dir.path(), "t.csv");
    let before = std::fs::read(&data).unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    // The same file by another spelling, and through a symlink.
    let other_spelling = sub.join("..").join("d.csv");
    let mut cases = vec![
        vec!["--out".into(), data.clone()],
        vec!["--report".into(), other_spelling],
        vec![
            "--predict".into(),
            test.clone(),
            "--predictions".into(),
            test.clone(),
        ],
        vec![
            "--predict".into(),
            test.clone(),
            "--predictions".into(),
            data.clone(),
        ],
    ];
    #[cfg(unix)]
    {
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&data, &link).unwrap();
        cases.push(vec!["--out".into(), link]);
    }
    for case in cases {
        let e = refused(scan(&data, &["--model", "lda"]).args(&case));
        assert!(
            e.contains("scan never overwrites its input"),
            "{case:?}: {e}"
        );
    }
    assert_eq!(std::fs::read(&data).unwrap(), before);
    // Two outputs in one file.
    let e = refused(
        scan(&data, &["--model", "lda", "--out"])
            .arg(dir.path().join("x.csv"))
            .arg("--report")
            .arg(sub.join("..").join("x.csv")),
    );
    assert!(e.contains("--out and --report both name"), "{e}");
}

#[test]
fn a_failed_scan_writes_nothing_and_a_good_one_replaces_its_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let data = small_table(dir.path(), "d.csv");
    let bad_test = write_in(dir.path(), "bad_test.csv", "id,f1,label\ns0,1,a\n");
    let (out, report, pred) = (
        dir.path().join("ranking.csv"),
        dir.path().join("report.json"),
        dir.path().join("pred.csv"),
    );
    std::fs::write(&out, "old ranking").unwrap();
    let run = |test: &Path| {
        let mut cmd = relabel();
        cmd.arg("scan")
            .arg(&data)
            .args(["--model", "lda", "--out"])
            .arg(&out)
            .arg("--report")
            .arg(&report)
            .arg("--predict")
            .arg(test)
            .arg("--predictions")
            .arg(&pred);
        cmd
    };
    let e = refused(&mut run(&bad_test));
    assert!(e.contains("no column \"f2\""), "{e}");
    assert!(!report.exists() && !pred.exists());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old ranking");
    succeed(&mut run(&small_table(dir.path(), "t.csv")));
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("row,id,given")
    );
    assert!(report.exists() && pred.exists());
    // A device is written in place (a rename cannot replace it).
    #[cfg(unix)]
    succeed(scan(
        &data,
        &[
            "--model",
            "lda",
            "--out",
            "/dev/null",
            "--report",
            "/dev/null",
        ],
    ));
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "bad_test.csv",
            "d.csv",
            "pred.csv",
            "ranking.csv",
            "report.json",
            "t.csv"
        ],
        "no temporary file left"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_or_a_device_is_refused_without_reading_it() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.csv");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let e = refused(scan(&fifo, &[]));
        assert!(
            e.contains("pipe.csv: this is a named pipe (FIFO), not a regular file"),
            "{e}"
        );
        let data = small_table(dir.path(), "d.csv");
        let e = refused(
            scan(&data, &["--model", "lda", "--predict"])
                .arg(&fifo)
                .arg("--predictions")
                .arg(dir.path().join("p.csv")),
        );
        assert!(e.contains("not a regular file"), "{e}");
    }
    let e = refused(relabel().args(["scan", "/dev/zero"]));
    assert!(
        e.contains("/dev/zero: this is a device, not a regular file"),
        "{e}"
    );
}

#[test]
fn onehot_on_an_identifier_column_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    // Nearly one level per row (a column of one word per sample would
    // name the samples instead).
    let mut text = String::from("f1,city,label\n");
    for i in 0..10_000 {
        text.push_str(&format!(
            "{},c{},{}\n",
            (i % 7) as f64 / 7.0,
            i % 9_999,
            ["a", "b"][i % 2]
        ));
    }
    let path = write_in(dir.path(), "ids.csv", text);
    for model in ["auto", "rnda"] {
        let e = refused(scan(&path, &["--categorical", "onehot", "--model", model]));
        assert!(
            e.contains("column \"city\" has 9999 different strings among 10000 samples")
                && e.contains("--ignore city"),
            "{e}"
        );
    }
}

#[test]
fn cells_in_messages_are_one_line_and_short() {
    let dir = tempfile::tempdir().unwrap();
    let long = "z".repeat(10_000);
    let path = write_in(
        dir.path(),
        "c.csv",
        format!("a,b,label\n1,\"x\ny\",p\n2,{long},q\n"),
    );
    let e = refused(scan(&path, &["--model", "lda"]));
    assert!(e.contains("cannot read \"x\\ny\""), "{e}");
    assert!(e.len() < 400, "{e}");
}

#[test]
fn huge_values_are_refused_at_load_naming_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("f1,big,label\n");
    for i in 0..20 {
        text.push_str(&format!("{i},1e308,{}\n", ["a", "b"][i % 2]));
    }
    let path = write_in(dir.path(), "h.csv", text);
    for model in ["rnda", "mda", "auto"] {
        let e = refused(scan(&path, &["--model", model]));
        assert!(
            e.contains("h.csv:2:2: column \"big\" has \"1e308\", too large")
                && e.contains("rescale"),
            "{model}: {e}"
        );
    }
}

#[test]
fn options_the_model_does_not_read_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = small_table(dir.path(), "d.csv");
    let e = refused(&mut scan(&data, &["--model", "lda", "--gamma", "abc"]));
    assert!(
        e.contains("--gamma is not read by model lda, which reads: shrinkage"),
        "{e}"
    );
    let e = refused(&mut scan(&data, &["--model", "rlr", "--opt", "restarts=2"]));
    assert!(e.contains("--opt restarts is not read by model rlr"), "{e}");
    let e = refused(&mut scan(&data, &["--opt", "clusters_per_class=2"]));
    assert!(e.contains("any model auto may choose"), "{e}");
    // Typing a default value still counts as typing it.
    let e = refused(&mut scan(&data, &["--model", "nda", "--seed", "0"]));
    assert!(e.contains("--seed is not read by model nda"), "{e}");
    // all reads its members' options; auto what any candidate reads.
    succeed(&mut scan(
        &data,
        &["--model", "rlr", "--fix-gamma", "--gamma", "0.1,0.1"],
    ));
    succeed(&mut scan(&data, &["--shrinkage", "0.1"]));
    succeed(&mut scan(
        &data,
        &["--model", "lda", "--opt", "shrinkage=0.2"],
    ));
}

#[test]
fn a_class_named_like_a_fixed_column_gets_unambiguous_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.csv");
    let text = std::fs::read_to_string(small_table(dir.path(), "d.csv"))
        .unwrap()
        .replace(",a\n", ",mislabel\n");
    std::fs::write(&path, text).unwrap();
    let out = succeed(scan(&path, &["--model", "lda"]));
    let (header, _) = parse_csv(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(header[4], "p_mislabel");
    assert_eq!(header[6..8], ["p[mislabel]", "p[b]"]);
    let unique: std::collections::HashSet<&String> = header.iter().collect();
    assert_eq!(unique.len(), header.len(), "{header:?}");
}

#[test]
fn eval_and_the_review_screen_refuse_options_no_chosen_model_reads() {
    let iris = sample("iris.csv");
    let iris = iris.to_str().unwrap();
    // eval draws its noise with --seed, so the seed is always read.
    succeed(relabel().args([
        "eval",
        iris,
        "--models",
        "nda",
        "--seed",
        "5",
        "--repeats",
        "1",
    ]));
    for args in [
        vec![
            "eval",
            iris,
            "--models",
            "nda,lda",
            "--gamma",
            "0.1",
            "--repeats",
            "1",
        ],
        // Without a subcommand: the review screen, refused before it opens.
        vec![iris, "--model", "lda", "--gamma", "0.2"],
    ] {
        let out = relabel().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("--gamma is not read"), "{stderr}");
    }
}

/// CBT's alpha search reaches its fixed point on house votes with 30% pair
/// noise: its two coupled alphas needed up to six sweeps there, and a cap
/// of four reported half such draws as not converged (this one among them).
#[test]
fn cbt_alpha_search_converges_on_noisy_house_votes() {
    let dir = tempfile::tempdir().unwrap();
    let noisy = dir.path().join("votes.csv");
    succeed(
        relabel()
            .arg("eval")
            .arg(sample("house_votes_84.csv"))
            .args([
                "--models", "cbt", "--noise", "pair", "--rate", "0.3", "--seed", "7", "-q",
            ])
            .arg("--write-noisy")
            .arg(&noisy),
    );
    let report = dir.path().join("report.json");
    succeed(
        scan(&noisy, &["--model", "cbt", "-q", "--out"])
            .arg(dir.path().join("ranking.csv"))
            .arg("--report")
            .arg(&report),
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    assert_eq!(json["converged"], true, "{}", json["convergence"]);
}

/// A wide table of raw-looking intensities is read on a log2 scale, and the
/// report's notes say so with the way back; `--no-log2` reads them as they
/// are, and asking for both is refused.
#[test]
fn raw_looking_values_are_read_logged_unless_no_log2_says_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    // Eight samples of 12 "genes" on scales from 2^2 to 2^13, as raw
    // expression arrays are.
    let header: Vec<String> = (0..12).map(|g| format!("g{g}")).collect();
    let mut text = format!("{},label\n", header.join(","));
    for i in 0..8 {
        let values: Vec<String> = (0..12)
            .map(|g| (2f64.powi(2 + g) * (1.0 + 0.1 * ((i * 7 + g) % 5) as f64)).to_string())
            .collect();
        text.push_str(&format!(
            "{},{}\n",
            values.join(","),
            ["x", "y"][i as usize % 2]
        ));
    }
    let table = write_in(dir.path(), "raw.csv", &text);
    let notes = |extra: &[&str]| {
        let run = dir.path().join(format!("run{}", extra.len()));
        std::fs::create_dir_all(&run).unwrap();
        let mut args = vec![table.to_str().unwrap(), "--model", "shift"];
        args.extend_from_slice(extra);
        let (_, report) = scan_with_report(&run, &args);
        report["data_notes"].as_array().unwrap().clone()
    };
    let logged = notes(&[]);
    assert!(
        logged.iter().any(|n| {
            let n = n.as_str().unwrap();
            n.contains("read on a log2 scale") && n.contains("--no-log2")
        }),
        "{logged:?}"
    );
    let as_read = notes(&["--no-log2"]);
    assert!(
        !as_read.iter().any(|n| n.as_str().unwrap().contains("log")),
        "{as_read:?}"
    );
    let out = relabel()
        .args(["scan", table.to_str().unwrap(), "--log2", "--no-log2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Issue 50: `relabel sessions` lists what is saved, `forget` sets a
/// file's sessions aside (moved, not deleted), and the file then opens
/// with no decisions.
#[test]
fn sessions_are_listed_and_forgotten() {
    let stdout = |cmd: &mut Command| String::from_utf8_lossy(&succeed(cmd).stdout).into_owned();
    let (_dir, data_home, input, mut session) = reviewed_wine();
    session.drop_sample(0).unwrap();
    drop(session);
    let listed = stdout(
        relabel()
            .arg("sessions")
            .env("XDG_DATA_HOME", data_home.path()),
    );
    let canonical = input.canonicalize().unwrap().display().to_string();
    assert!(
        listed.contains(&canonical) && listed.contains("1 change,"),
        "{listed}"
    );
    let forgot = stdout(
        relabel()
            .args(["sessions", "forget"])
            .arg(&input)
            .env("XDG_DATA_HOME", data_home.path()),
    );
    assert!(forgot.contains("1 session set aside"), "{forgot}");
    let store = data_home.path().join("relabel").join("sessions");
    let kept = std::fs::read_dir(store.join("forgotten")).unwrap().count();
    assert_eq!(kept, 1);
    let again = stdout(
        relabel()
            .arg("sessions")
            .env("XDG_DATA_HOME", data_home.path()),
    );
    assert!(again.contains("no saved sessions"), "{again}");
    let ds = relabel::dataset::load(&input, &Default::default()).unwrap();
    let (s, info) = relabel::review::Session::open(ds, Some(&store)).unwrap();
    assert_eq!(s.counts().decided, 0);
    assert_ne!(info, relabel::review::ResumeInfo::Resumed { decisions: 1 });
}
