//! Every `relabel eval --paper` experiment runs end to end on its smoke
//! setting and prints the paper's figures beside relabel's. The papers'
//! settings are benchmarks (`benches/papers.py`), never tests.
#![allow(clippy::unwrap_used)]

mod common;

use common::{relabel, sample, succeed};

/// Runs `eval --paper NAME --smoke [DATA]` and returns its stdout.
fn smoke(paper: &str, data: Option<&std::path::Path>) -> String {
    let mut cmd = relabel();
    cmd.args(["eval", "--paper", paper, "--smoke", "-q"]);
    if let Some(d) = data {
        cmd.arg(d);
    }
    String::from_utf8(succeed(&mut cmd).stdout).unwrap()
}

#[test]
fn every_simulated_experiment_runs_on_its_smoke_setting() {
    for (paper, expect) in [
        ("shift-table1", "paper robust"),
        ("shift-table6", "paper prefiltering"),
        ("rlr-synth", "minus lr"),
        ("rmda-sim2", "RLDA"),
        ("rmda-sim3", "RMDA defaults"),
        ("rmda-defaults", "the old default"),
        ("rnda-fig1", "true parameters"),
        ("rnda-fig2", "depuration"),
        ("rnda-fig4", "per class"),
        ("cbt-fig1", "pap."),
        ("cbt-fig2", "2 test observations"),
        ("bdra-fig3", "features removed"),
    ] {
        let out = smoke(paper, None);
        assert!(out.contains(expect), "{paper}: {out}");
        assert!(out.contains("paper"), "{paper}: {out}");
    }
}

#[test]
fn every_experiment_on_a_table_runs_on_its_smoke_setting() {
    let usps =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/usps_mini.csv");
    for (paper, table, expect) in [
        ("colon", sample("colon.csv"), "leave-one-out"),
        ("colon-prep", sample("colon.csv"), "samples off"),
        ("rlr-table6", sample("colon.csv"), "paper rlr-F"),
        ("breast", sample("breast_west.csv.gz"), "leave-one-out"),
        ("breast-prep", sample("breast_west.csv.gz"), "samples off"),
        ("rnda-fig3", sample("wine.csv"), "c-separation"),
        ("rmda-usps", usps, "USPS"),
    ] {
        let out = smoke(paper, Some(&table));
        assert!(out.contains(expect), "{paper}: {out}");
    }
}

#[test]
fn the_colon_check_names_its_preprocessing() {
    let out = smoke("colon", Some(&sample("colon.csv")));
    assert!(out.contains("--prep minmax-rows"), "{out}");
    let mut cmd = relabel();
    cmd.args([
        "eval", "--paper", "colon", "--smoke", "-q", "--prep", "log2",
    ])
    .arg(sample("colon.csv"));
    let out = String::from_utf8(succeed(&mut cmd).stdout).unwrap();
    assert!(out.contains("--prep log2;"), "{out}");
}

#[test]
fn prep_is_refused_where_no_table_is_read() {
    let out = relabel()
        .args(["eval", "--paper", "rmda-sim2", "--smoke", "--prep", "log2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--prep applies to"));
}
