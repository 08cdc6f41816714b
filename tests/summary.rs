//! Headless runs talk like command-line tools (issue 14 item 4): scan ends
//! with one summary line on stderr whose figures are those of the ranking
//! it wrote, and nothing on stderr is a progress bar when stderr is not a
//! terminal (here it is a pipe, as in a log or CI).
#![allow(clippy::unwrap_used)]

mod common;

use common::{parse_csv, read_json, relabel, sample, scan, succeed, write_in};

/// The number after `before` up to the next space, e.g. `flagged` in "29 flagged".
fn number_before(line: &str, word: &str) -> f64 {
    let at = line
        .find(word)
        .unwrap_or_else(|| panic!("no {word} in {line}"));
    let head = line[..at].trim_end();
    let start = head.rfind(' ').map_or(0, |i| i + 1);
    head[start..].parse().unwrap()
}

fn assert_no_bar(stderr: &str) {
    assert!(
        !stderr.contains('\x1b') && !stderr.contains('\r'),
        "escape codes or carriage returns on a stderr that is not a terminal: {stderr:?}"
    );
}

#[test]
fn the_summary_line_gives_the_figures_of_the_written_ranking() {
    let dir = tempfile::tempdir().unwrap();
    let ranking = dir.path().join("ranking.csv");
    let report = dir.path().join("report.json");
    let out = succeed(
        scan(sample("iris_noisy.csv"), &[])
            .arg("--out")
            .arg(&ranking)
            .arg("--report")
            .arg(&report),
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_no_bar(&stderr);
    let line = stderr.trim_end();
    assert!(line.starts_with("relabel scan: "), "{line}");
    assert!(line.contains(" (chosen by auto: "), "{line}");
    assert!(line.contains(" wrong labels expected ("), "{line}");
    assert!(line.contains(", 95% interval)"), "{line}");
    assert!(line.contains("150 samples,"), "{line}");
    assert!(!line.contains("label alone"), "{line}");
    assert!(
        line.ends_with(&format!(
            "ranking written to {}, report to {}",
            ranking.display(),
            report.display()
        )),
        "{line}"
    );

    let (header, rows) = parse_csv(&std::fs::read_to_string(&ranking).unwrap());
    let col = header.iter().position(|h| h == "p_mislabel").unwrap();
    let p: Vec<f64> = rows.iter().map(|r| r[col].parse().unwrap()).collect();
    // Flagged: the rows at or above the fit's cutoff (the report's, in
    // full; the line's to 3 decimals, the ranking's p_mislabel to 6), as
    // many as the wrong labels it expects.
    let report = read_json(&report);
    let cutoff = report["flag_cutoff"].as_f64().unwrap();
    let said_cutoff: f64 = line.split("flagged (p_mislabel >= ").nth(1).unwrap()[..5]
        .parse()
        .unwrap();
    assert_eq!(
        format!("{cutoff:.3}"),
        format!("{said_cutoff:.3}"),
        "{line}"
    );
    let six = |v: f64| (v * 1e6).round();
    let at_or_above = p.iter().filter(|v| six(**v) >= six(cutoff)).count();
    let flagged = number_before(line, " flagged");
    assert_eq!(flagged, at_or_above as f64, "{line}");
    assert_eq!(report["flagged"], at_or_above, "{line}");
    let expected: f64 = p.iter().sum();
    assert_eq!(flagged, expected.round(), "{line}");
    // Not the majority rule: some flagged row is below one half.
    assert!(
        p.iter().any(|v| six(*v) >= six(cutoff) && *v < 0.5),
        "{cutoff}"
    );
    let said = number_before(line, " wrong labels expected");
    assert!(line.contains(&format!("about {said:.1} wrong")), "{line}");
    assert!(
        (said - expected).abs() <= 0.05 + 1e-9,
        "{said} vs {expected}"
    );
}

#[test]
fn the_summary_names_every_output_and_the_test_accuracy() {
    let dir = tempfile::tempdir().unwrap();
    let out = succeed(
        relabel()
            .args(["scan", "--model", "nda"])
            .arg(sample("iris_noisy.csv"))
            .arg("--report")
            .arg(dir.path().join("r.json"))
            .arg("--predict")
            .arg(sample("iris.csv"))
            .arg("--predictions")
            .arg(dir.path().join("p.csv")),
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let line = stderr.trim_end();
    // A model given by name needs no reason.
    assert!(line.starts_with("relabel scan: nda, 150 samples"), "{line}");
    for part in [
        "ranking written to stdout",
        "report to ",
        "predictions to ",
        "test accuracy on ",
    ] {
        assert!(line.contains(part), "{part}: {line}");
    }
    // The ranking on stdout is untouched by it.
    let (header, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(header[0], "row");
    assert_eq!(rows.len(), 150);
}

#[test]
fn quiet_runs_say_nothing_on_success() {
    let out = succeed(relabel().args(["scan", "-q"]).arg(sample("iris_noisy.csv")));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = succeed(
        relabel()
            .args(["eval", "--quiet", "--models", "nda", "--repeats", "2"])
            .arg(sample("iris.csv")),
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A fit long enough for the bar to show on a terminal (rlr on 2000 genes)
/// leaves no trace of it in a pipe; nor does eval's run of many fits.
#[test]
fn no_progress_bar_reaches_a_stderr_that_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let out = succeed(
        scan(sample("colon.csv"), &[])
            .arg("--log2")
            .arg("--out")
            .arg(dir.path().join("colon.csv")),
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // Which logistic models auto mixes on colon, and in what shares, is
    // the evidence's business; the line is what this test is about.
    assert!(
        stderr.starts_with("relabel scan: ") && stderr.contains(" (chosen by auto: "),
        "{stderr}"
    );
    assert_no_bar(&stderr);
    let out = succeed(
        relabel()
            .args(["eval", "--models", "rnda,nda", "--repeats", "3"])
            .arg(sample("wine.csv")),
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.is_empty(), "{stderr:?}");
    assert_no_bar(&String::from_utf8(out.stdout).unwrap());
}

/// A paper's experiment prints its table on stdout; a pipe gets no trace
/// of the bar on either stream.
#[test]
fn a_papers_experiment_leaves_no_bar_in_a_pipe() {
    let out = succeed(relabel().args(["eval", "--paper", "shift-table1", "--smoke"]));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stdout.contains("robust (%)"), "{stdout}");
    // The setting, the header and the paper's seven rows.
    assert_eq!(stdout.lines().count(), 9, "{stdout}");
    assert_no_bar(&stdout);
    assert_no_bar(&stderr);
}

/// Before the fit, scan says what the table holds that its ranking cannot
/// show (here one label typed two ways); `-q` keeps stderr for errors.
#[test]
fn scan_notes_a_label_written_two_ways_before_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = String::from("a,b,label\n");
    for i in 0..30 {
        let (label, m) = match i % 3 {
            0 => ("x", 0.0),
            1 => ("y", 3.0),
            _ => (if i == 2 { "Y " } else { "y" }, 3.0),
        };
        table.push_str(&format!(
            "{},{},{label}\n",
            m + (i % 5) as f64 * 0.3,
            m - (i % 7) as f64 * 0.2
        ));
    }
    let data = write_in(dir.path(), "t.csv", table);
    let ranking = dir.path().join("r.csv");
    let out = succeed(scan(&data, &[]).arg("--out").arg(&ranking));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{stderr}");
    assert!(
        lines[0].starts_with("relabel scan: note: the labels \"y\" (19) and \"Y \" (1) differ"),
        "{stderr}"
    );
    assert!(
        lines[1].starts_with("relabel scan: note: class \"Y \" (1 sample)"),
        "{stderr}"
    );
    assert!(lines[2].contains("ranking written to"), "{stderr}");
    let quiet = succeed(scan(&data, &[]).arg("-q").arg("--out").arg(&ranking));
    assert!(quiet.stderr.is_empty());
}

/// A data note reaches both stderr and the report, worked out once for the
/// two; `-q` silences stderr and the report still has it.
#[test]
fn data_notes_go_to_stderr_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("id,a,flat,label\n");
    for i in 0..12 {
        text.push_str(&format!(
            "s{i},{},7,{}\n",
            i % 5,
            if i < 6 { "x" } else { "y" }
        ));
    }
    let table = write_in(dir.path(), "t.csv", text);
    for quiet in [false, true] {
        let report = dir.path().join(format!("r{quiet}.json"));
        let mut cmd = relabel();
        cmd.arg("scan")
            .arg(&table)
            .args(["--model", "nda", "--out"])
            .arg(dir.path().join("rank.csv"))
            .arg("--report")
            .arg(&report);
        if quiet {
            cmd.arg("-q");
        }
        let out = succeed(&mut cmd);
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(
            stderr.contains("note: column flat holds one value"),
            !quiet,
            "{stderr}"
        );
        let json = read_json(&report);
        let notes = json["data_notes"].as_array().unwrap();
        assert!(
            notes.iter().any(|n| n.as_str().unwrap().contains("flat")),
            "{notes:?}"
        );
    }
}

/// Uniform draws in (0, 1) from a xorshift generator started at `state`.
fn uniform(mut state: u64) -> impl FnMut() -> f64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
}

/// `relabel scan` of the table `csv` with `model`: its summary line on
/// stderr and its JSON report.
fn scan_table(csv: &str, model: &str) -> (String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let table = write_in(dir.path(), "table.csv", csv);
    let out = succeed(
        scan(&table, &["--model", model, "--out"])
            .arg(dir.path().join("ranking.csv"))
            .arg("--report")
            .arg(dir.path().join("report.json")),
    );
    let report =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    (String::from_utf8(out.stderr).unwrap(), report)
}

/// Labels no feature predicts: rlr's classifier keeps no feature, its
/// held-out fits show no skill, and the one line a log keeps says the data
/// cannot tell which labels are wrong; the report a script reads says it
/// in fields of its own.
#[test]
fn the_summary_line_says_when_the_data_cannot_tell() {
    let mut next = uniform(0x2545_f491_4f6c_dd1d);
    let mut csv = (0..200).map(|j| format!("f{j},")).collect::<String>() + "label\n";
    for _ in 0..30 {
        for _ in 0..200 {
            csv.push_str(&format!("{:.4},", next()));
        }
        csv.push_str(if next() < 0.5 { "a\n" } else { "b\n" });
    }
    let (line, report) = scan_table(&csv, "rlr");
    assert!(
        line.contains(
            "the data cannot tell which labels are wrong: rlr's held-out fits show no skill"
        ),
        "{line}"
    );
    assert!(line.contains("nothing flagged"), "{line}");
    assert_eq!(report["held_out_skill"]["verdict"], "no_skill");
    assert_eq!(report["flagged_at_0.5"], 0);
    assert_eq!(report["flagged"], 0);
    assert!(report["wrong_labels"].is_null());
    assert_eq!(report["ranked_by_label_only"], true);
}

/// Labels no naming of the classes makes mostly right: two clusters, the
/// first labelled `a` three times in ten and the second `b` nine times in
/// ten. rnda's flip table ends on the dominance constraint from every
/// start, so its sum of p_mislabel is the constraint's: the line says it is
/// no count, and the report says why in a field of its own.
#[test]
fn the_summary_line_says_when_the_flip_table_is_not_identified() {
    let mut uniform = uniform(0x9e37_79b9_7f4a_7c15);
    let mut csv = String::from("f1,f2,label\n");
    for i in 0..300 {
        let centre = if i % 2 == 0 { 0.0 } else { 4.0 };
        // Box-Muller: two standard normal draws from two uniform ones.
        let (r, t) = (
            (-2.0 * uniform().ln()).sqrt(),
            std::f64::consts::TAU * uniform(),
        );
        let own = if i % 2 == 0 { 0.3 } else { 0.9 };
        let label = match (i % 2 == 0, uniform() < own) {
            (true, true) | (false, false) => "a",
            _ => "b",
        };
        csv.push_str(&format!(
            "{:.4},{:.4},{label}\n",
            centre + r * t.cos(),
            centre + r * t.sin()
        ));
    }
    let (line, report) = scan_table(&csv, "rnda");
    assert!(
        line.contains(
            "wrong labels expected (not a count: the flip table ended on the diagonal-dominance constraint"
        ),
        "{line}"
    );
    assert_eq!(report["flips_unidentified"], true);
    assert_eq!(report["ranked_by_label_only"], false);
}
