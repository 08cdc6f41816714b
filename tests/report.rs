//! `relabel report`: the saved session as one self-contained HTML page
//! (issue 14 item 3).
#![allow(clippy::unwrap_used)]

mod common;

use common::{
    HOSTILE_CLASS, HOSTILE_COMMENT, HOSTILE_IDS, HOSTILE_LABEL, HOSTILE_MODEL, Reviewed,
    hostile_review, parse_csv, sample, succeed,
};

fn escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// Every tag of the page: all markup from the data is escaped, so each
/// `<` starts a tag the page itself wrote.
fn tags(html: &str) -> Vec<&str> {
    html.split('<')
        .skip(1)
        .map(|t| t.split('>').next().unwrap())
        .collect()
}

fn report(r: &Reviewed, extra: &[&str]) -> String {
    let mut args = vec!["report"];
    args.extend(extra);
    let out = succeed(&mut r.relabel(&args));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.starts_with("wrote "), "{stdout}");
    std::fs::read_to_string(r.dir.path().join("iris_noisy.audit.html")).unwrap()
}

#[test]
fn the_page_has_the_heat_map_histogram_scatter_and_every_decision() {
    let r = hostile_review("rnda");
    let html = report(&r, &[]);
    // 3 x 3 flip table, each cell coloured and numbered.
    assert_eq!(
        html.matches("<td class=\"heat\" style=\"background:#")
            .count(),
        9
    );
    assert!(html.contains("<svg class=\"histogram\""));
    assert!(html.matches("<rect class=\"bar\"").count() >= 2);
    assert!(html.contains("<svg class=\"scatter\""));
    let [relabelled, kept, dropped] = &r.decided;
    assert_eq!(
        html.matches("<tr class=\"decision relabelled\">").count(),
        relabelled.len()
    );
    assert_eq!(
        html.matches("<tr class=\"decision kept\">").count(),
        kept.len()
    );
    assert_eq!(
        html.matches("<tr class=\"decision dropped\">").count(),
        dropped.len()
    );
    // An undecided sample is listed for its comment, as in the audit file,
    // and so is every flagged sample nobody decided (issue 50).
    let before = html.split("</b>flagged, undecided").next().unwrap();
    let flagged_undecided: usize = before.rsplit("<b>").next().unwrap().parse().unwrap();
    assert!(flagged_undecided > 0);
    assert_eq!(
        html.matches("<tr class=\"decision undecided\">").count(),
        1 + flagged_undecided
    );
    // Nothing of the curator's machine, no raw debugging numbers.
    let home = r.dir.path().parent().unwrap().display().to_string();
    assert!(!html.contains(&home), "a path of this machine");
    assert!(!html.contains("iterations ="), "raw report fields");
    let comment = format!("<td class=\"comment\">{}</td>", escaped(HOSTILE_COMMENT));
    assert_eq!(html.matches(&comment).count(), 2, "{comment}");
    assert!(html.contains("<dt>model</dt><dd>rnda</dd>"), "model named");
    // Beside this page's fit, what the screen showed before each decision.
    let shown = format!(
        "<td class=\"shown\">0.250 ({})</td>",
        escaped(HOSTILE_MODEL)
    );
    assert_eq!(html.matches(&shown).count(), 6, "{shown}");
    assert!(
        html.contains("the session&#39;s model"),
        "which fit, and why"
    );
    assert!(html.contains("<b>150</b>samples"));
    assert!(html.contains("<b>6</b>decided"));
    assert!(html.contains("<b>144</b>undecided"));
}

#[test]
fn data_strings_are_escaped_and_nothing_is_fetched() {
    let r = hostile_review("rnda");
    let html = report(&r, &[]);
    for s in HOSTILE_IDS.iter().chain([
        &HOSTILE_CLASS,
        &HOSTILE_LABEL,
        &HOSTILE_MODEL,
        &HOSTILE_COMMENT,
    ]) {
        assert!(html.contains(&escaped(s)), "{s} escaped");
    }
    let lower = html.to_lowercase();
    assert!(
        !lower.contains("<script"),
        "no script, from the data or not"
    );
    assert!(!lower.contains("<b>set") && !lower.contains("<u>label"));
    assert!(!lower.contains("<b>why"));
    for needle in ["http://", "https://", "src=", "url(", "@import"] {
        assert!(!lower.contains(needle), "{needle}");
    }
    for tag in tags(&html) {
        let name = tag.split_whitespace().next().unwrap_or("");
        assert!(
            !["img", "link", "iframe", "object", "embed", "script"].contains(&name),
            "{tag}"
        );
        assert!(!tag.contains("href="), "{tag}");
    }
}

/// The page's expected count of wrong labels left is the sum of scan's
/// p_mislabel over the samples nobody decided.
#[test]
fn expected_wrong_labels_left_is_the_sum_over_the_undecided() {
    let r = hostile_review("rnda");
    let html = report(&r, &[]);
    let scan = succeed(&mut r.relabel(&["scan", "--model", "rnda", "-q"]));
    let (header, rows) = parse_csv(&String::from_utf8(scan.stdout).unwrap());
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let decided: Vec<usize> = r.decided.iter().flatten().copied().collect();
    let expected: f64 = rows
        .iter()
        .filter(|row| !decided.contains(&row[col("row")].parse().unwrap()))
        .map(|row| row[col("p_mislabel")].parse::<f64>().unwrap())
        .sum();
    let card = format!("<b>{expected:.1}</b>wrong labels expected among the undecided");
    assert!(html.contains(&card), "{card}");
}

#[test]
fn a_shift_model_gets_the_shift_summary_instead_of_a_table() {
    let r = hostile_review("shift");
    let html = report(&r, &[]);
    assert!(html.contains("non-zero shift"));
    assert!(!html.contains("class=\"heat\""));
    assert!(html.contains("<dt>model</dt><dd>shift</dd>"));
}

#[test]
fn bad_requests_are_one_line_and_exit_2() {
    let r = hostile_review("rnda");
    let refused = |cmd: &mut assert_cmd::Command, says: &str| {
        let out = cmd.output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(says), "{says}: {stderr}");
    };
    report(&r, &["-q"]);
    let page = r.dir.path().join("iris_noisy.audit.html");
    let before = std::fs::read(&page).unwrap();
    refused(&mut r.relabel(&["report"]), "--force");
    assert_eq!(std::fs::read(&page).unwrap(), before, "left alone");
    report(&r, &["--force"]);
    let input = r.input.to_str().unwrap();
    refused(
        &mut r.relabel(&["report", "--out", input]),
        "is the input file",
    );
    refused(
        &mut r.relabel(&["report", "--force", "--seed", "3"]),
        "--seed needs --model",
    );
    let none = common::relabel()
        .arg("report")
        .arg(sample("iris.csv"))
        .env("XDG_DATA_HOME", r.data_home.path())
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no review session"));
    let other = r.dir.path().join("elsewhere.html");
    succeed(&mut r.relabel(&["report", "--model", "nda", "--out", other.to_str().unwrap()]));
    let html = std::fs::read_to_string(&other).unwrap();
    assert!(html.contains("<dt>model</dt><dd>nda</dd>") && html.contains("given with --model"));
}

/// `relabel export` writes the same trail as the page: every decision and
/// every comment, an undecided sample's row saying so.
#[test]
fn the_headless_export_carries_the_comments() {
    let r = hostile_review("rnda");
    let said = succeed(&mut r.relabel(&["export"])).stdout;
    let said = String::from_utf8(said).unwrap();
    assert!(said.contains(", 1 kept, 2 commented) and "), "{said}");
    let audit = std::fs::read_to_string(r.dir.path().join("iris_noisy.audit.csv")).unwrap();
    let (header, rows) = parse_csv(&audit);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let decided: usize = r.decided.iter().map(Vec::len).sum();
    assert_eq!(rows.len(), decided + 1, "{audit}");
    let commented: Vec<(&str, &str)> = rows
        .iter()
        .filter(|row| !row[col("comment")].is_empty())
        .map(|row| {
            (
                row[col("row")].as_str(),
                row[col("new_label_or_action")].as_str(),
            )
        })
        .collect();
    assert_eq!(commented.len(), 2, "{audit}");
    assert_eq!(commented[1], ("10", "undecided"));
    assert_ne!(commented[0].1, "undecided");
    assert!(
        rows.iter()
            .filter(|row| !row[col("comment")].is_empty())
            .all(|row| row[col("comment")] == HOSTILE_COMMENT)
    );
}
