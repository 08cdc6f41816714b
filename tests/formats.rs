//! Input formats and shell conventions through the real binary: GEO files,
//! spreadsheets, `--probs`, completions and the man page.
#![allow(clippy::unwrap_used)]

mod common;
use common::*;

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// Runs the command, which must fail with exit 2 and one line on stderr;
/// returns that line.
fn bad_input(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    err
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
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
    let report = read_json(&report);
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
    // Six rows are too few to show skill: the planted row leads the order
    // and nothing is suggested (the no-evidence rule).
    let (_, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(
        (rows[0][1].as_str(), rows[0][3].as_str()),
        ("f", "dog"),
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

/// Exports a session in which sample 0 was relabelled to class 1 and sample
/// 1 dropped; returns the directory holding the input and its exports.
fn export_after_review(input: &Path, options: &relabel::dataset::LoadOptions) -> tempfile::TempDir {
    use relabel::review::Session;
    let data_home = tempfile::tempdir().unwrap();
    let store = data_home.path().join("relabel").join("sessions");
    let ds = relabel::dataset::load(input, options).unwrap();
    let (mut session, _) = Session::open(ds, Some(&store)).unwrap();
    session.relabel(0, 1).unwrap();
    session.drop_sample(1).unwrap();
    drop(session);
    let mut cmd = relabel();
    cmd.arg("export")
        .arg(input)
        .env("XDG_DATA_HOME", data_home.path());
    if let Some(label) = &options.label {
        cmd.args(["--label", label]);
    }
    if let Some(sheet) = &options.sheet {
        cmd.args(["--sheet", sheet]);
    }
    if options.missing == relabel::dataset::MissingPolicy::Mean {
        cmd.args(["--missing", "mean"]);
    }
    succeed(&mut cmd);
    data_home
}

#[test]
fn a_series_matrix_opens_with_a_characteristic_as_label_gzip_or_not() {
    let dir = tempfile::tempdir().unwrap();
    let plain = fixture("GSE99999_series_matrix.txt");
    let gz = dir.path().join("GSE99999_series_matrix.txt.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, &std::fs::read(&plain).unwrap()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    for file in [&plain, &gz] {
        let err = bad_input(relabel().arg("scan").arg(file));
        assert!(
            err.contains("--label") && err.contains("\"tissue\" (tumor, normal)"),
            "{err}"
        );
        let err = bad_input(relabel().arg("scan").arg(file).args(["--label", "tissue"]));
        assert!(err.contains(":13:4:") && err.contains("--missing"), "{err}");
        let out = succeed(relabel().arg("scan").arg(file).args([
            "--label",
            "tissue",
            "--missing",
            "mean",
            "--model",
            "nda",
            "--opt",
            "shrinkage=0.5",
        ]));
        // Six arrays are too few for a held-out fit: nothing is suggested
        // (the no-evidence rule), and the odd one still leads the order.
        let (_, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
        assert_eq!(
            (
                rows[0][1].as_str(),
                rows[0][2].as_str(),
                rows[0][3].as_str()
            ),
            ("GSM6", "normal", "normal")
        );
    }
    // Any !Sample_ field, with or without its prefix.
    let out = succeed(relabel().arg("scan").arg(&plain).args([
        "--label",
        "!Sample_title",
        "--missing",
        "drop",
        "--model",
        "nda",
    ]));
    assert!(String::from_utf8(out.stdout).unwrap().contains("tumour 1"));
}

#[test]
fn a_series_matrix_exports_a_labels_sheet_and_the_audit() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("GSE99999_series_matrix.txt");
    std::fs::copy(fixture("GSE99999_series_matrix.txt"), &input).unwrap();
    let options = relabel::dataset::LoadOptions {
        label: Some("tissue".into()),
        missing: relabel::dataset::MissingPolicy::Mean,
        ..Default::default()
    };
    export_after_review(&input, &options);
    let sheet =
        std::fs::read_to_string(dir.path().join("GSE99999_series_matrix.labels.csv")).unwrap();
    assert_eq!(
        sheet,
        "id,label,tissue\nGSM1,normal,tumor\nGSM3,tumor,tumor\nGSM4,normal,normal\nGSM5,normal,normal\nGSM6,normal,normal\n"
    );
    assert!(dir.path().join("GSE99999_series_matrix.audit.csv").exists());
    assert_eq!(
        std::fs::read(&input).unwrap(),
        std::fs::read(fixture("GSE99999_series_matrix.txt")).unwrap()
    );
}

#[test]
fn the_real_gds507_opens_with_its_disease_state_subsets() {
    let file = sample("GDS507.soft.gz");
    let err = bad_input(relabel().arg("scan").arg(&file));
    assert!(
        err.contains("\"disease state\" (RCC, normal)") && err.contains("\"individual\""),
        "{err}"
    );
    let ds = relabel::dataset::load(
        &file,
        &relabel::dataset::LoadOptions {
            label: Some("disease state".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!((ds.n_samples(), ds.n_features()), (17, 22645));
    assert_eq!(ds.class_counts(), [9, 8]);
    assert_eq!(ds.ids[0], "GSM11815");
    assert_eq!(ds.feature_names[0], "PRPF8");
    assert!(
        ds.feature_names.iter().any(|f| f.ends_with(')')),
        "duplicate symbols get their probe"
    );
}

#[test]
fn xlsx_and_ods_sheets_keep_their_numbers() {
    for name in ["small.xlsx", "small.ods"] {
        let out = succeed(
            relabel()
                .arg("scan")
                .arg(fixture(name))
                .args(["--model", "nda"]),
        );
        let (_, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
        assert_eq!(rows.len(), 6, "{name}");
        // Too few rows to show skill: s6 leads the order, nothing is
        // suggested (the no-evidence rule).
        assert_eq!(
            (rows[0][1].as_str(), rows[0][3].as_str()),
            ("s6", "b"),
            "{name}"
        );
    }
    let ds = relabel::dataset::load(&fixture("small.xlsx"), &Default::default()).unwrap();
    assert_eq!(ds.x[(1, 1)], 0.125);
    assert_eq!(ds.feature_names, ["x1", "x2"]);
}

#[test]
fn a_date_in_a_feature_column_and_an_unknown_sheet_are_one_line_errors() {
    let file = fixture("small.xlsx");
    let err = bad_input(relabel().arg("scan").arg(&file).args(["--sheet", "dated"]));
    assert!(
        err.contains(":2:2:") && err.contains("B2") && err.contains("--ignore when"),
        "{err}"
    );
    succeed(
        relabel()
            .arg("scan")
            .arg(&file)
            .args(["--sheet", "1", "--ignore", "when", "--model", "nda"]),
    );
    let err = bad_input(relabel().arg("scan").arg(&file).args(["--sheet", "nope"]));
    assert!(
        err.contains("\"samples\"") && err.contains("\"dated\""),
        "{err}"
    );
}

#[test]
fn a_workbook_exports_a_csv_beside_it_and_is_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("small.xlsx");
    std::fs::copy(fixture("small.xlsx"), &input).unwrap();
    export_after_review(&input, &Default::default());
    let cleaned = std::fs::read_to_string(dir.path().join("small.cleaned.csv")).unwrap();
    assert_eq!(
        cleaned,
        "id,x1,x2,label\ns1,1,0.1,b\ns3,0.9,0.3,a\ns4,5,2.5,b\ns5,5.5,2.25,b\ns6,1.1,0.2,b\n"
    );
    assert!(dir.path().join("small.audit.csv").exists());
    assert_eq!(
        std::fs::read(&input).unwrap(),
        std::fs::read(fixture("small.xlsx")).unwrap()
    );
}

/// Rows above a sheet's header (a title, a note) are skipped and said, and
/// an empty row among the samples is no sample.
#[test]
fn a_sheet_with_a_title_above_its_header_loads_and_says_so() {
    let file = fixture("small.xlsx");
    let out = succeed(
        relabel()
            .arg("scan")
            .arg(&file)
            .args(["--sheet", "titled", "--model", "nda"]),
    );
    let (_, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(rows.len(), 6);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("rows above its header are taken for a title and skipped (\"Lab measurements, batch 3\", ...)"),
        "{stderr}"
    );
    let opts = relabel::dataset::LoadOptions {
        sheet: Some("titled".into()),
        ..Default::default()
    };
    let ds = relabel::dataset::load(&file, &opts).unwrap();
    assert_eq!(ds.feature_names, ["x1", "x2"]);
    assert_eq!(ds.x[(1, 1)], 0.125);
}
