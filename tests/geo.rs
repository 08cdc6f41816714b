//! GEO files as curators download them (`tests/fixtures/geo/`, made by
//! its `make_fixtures.py` from ../shared/data/geo): each loads and ranks,
//! or is refused in one line of at most 300 characters that says what the
//! file is and what to do; the three layouts of one series read alike;
//! the review screen opens on every one without a panic.
#![allow(clippy::unwrap_used)]

mod common;
use common::*;

use std::path::PathBuf;

use relabel::dataset::{Dataset, LoadOptions, load};

/// What a file with these arguments must give.
enum Expect {
    /// A ranking of this many samples.
    Ranks(usize),
    /// Exit 2 and one line holding every one of these phrases.
    Refused(Vec<&'static str>),
}

/// The longest refusal, as the curator sees it: `relabel: FILE: ...`,
/// the file named as they typed it in its own directory.
const MAX_LINE: usize = 300;

fn check(name: &str, args: &[&str], expect: &Expect) {
    let path = geo_fixture(name);
    let out = scan(&path, args).arg("--quiet").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    match expect {
        Expect::Ranks(n) => {
            assert!(out.status.success(), "{name} {args:?}: {stderr}");
            let (_, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
            assert_eq!(rows.len(), *n, "{name} {args:?}");
        }
        Expect::Refused(phrases) => {
            assert_eq!(out.status.code(), Some(2), "{name} {args:?}: {stderr}");
            let line = stderr.trim_end();
            assert_eq!(line.lines().count(), 1, "{name}: {stderr}");
            let as_typed = line.replace(&path.display().to_string(), name);
            assert!(
                as_typed.chars().count() <= MAX_LINE,
                "{name}: {} characters: {as_typed}",
                as_typed.chars().count()
            );
            for p in phrases {
                assert!(line.contains(p), "{name} {args:?}: no {p:?} in {line}");
            }
        }
    }
}

#[test]
fn every_geo_file_ranks_or_is_refused_in_one_line_saying_what_it_is() {
    use Expect::*;
    let fast = ["--model", "nda", "--cov", "diag"];
    let cases: Vec<(&str, Vec<&str>, Expect)> = vec![
        (
            "GDS670_head400.soft.gz",
            vec![],
            Refused(vec![
                "GEO DataSet GDS670",
                "--label FIELD",
                "\"disease state\" (normal, ",
            ]),
        ),
        (
            "GDS670_head400.soft.gz",
            vec!["--label", "disease state", "--missing", "mean"],
            Ranks(15),
        ),
        (
            "GSE285754_series_matrix.txt.gz",
            vec![],
            Refused(vec![
                "series matrix of GSE285754 (18 samples x 757 probes)",
                "--label title --label-pattern '^(.*)-rep' (4 groups)",
                "\"strain\" (5xFAD, C57BL/6J)",
            ]),
        ),
        (
            "GSE285754_series_matrix.txt.gz",
            vec!["--label", "title", "--label-pattern", "^(.*)-rep"],
            Ranks(18),
        ),
        (
            "GSE285754_series_matrix.txt.gz",
            vec!["--label", "strain+ev cell line"],
            Ranks(18),
        ),
        (
            "GSE285754_series_matrix.txt.gz",
            vec!["--label", "title"],
            Refused(vec![
                "every sample has a \"title\" of its own",
                "--label-pattern '^(.*)-rep'",
            ]),
        ),
        (
            "GSE99709_series_matrix.txt.gz",
            vec!["--label", "treated with"],
            Refused(vec![
                "series matrix of GSE99709 has 12 samples but no data rows",
                "GSE99709_Stat3RNA-Seq-counts.csv.gz",
            ]),
        ),
        (
            "GSE105845_family.soft",
            vec![],
            Refused(vec![
                "family SOFT file of GSE105845 has no sample sections",
                "GSE105845_RAW.tar",
            ]),
        ),
        ("soft_ex_family.txt", vec!["--label", "Cell line"], Ranks(3)),
        (
            "soft_ex_family.txt",
            vec![],
            Refused(vec![
                "family SOFT file",
                "3 samples x 20 probes",
                "\"Cell line\"",
            ]),
        ),
        (
            "GSM11805_head200.txt.gz",
            vec![],
            Refused(vec![
                "GEO sample file (GSM11805)",
                "GSE781_series_matrix.txt.gz",
            ]),
        ),
        (
            "GPL97_head300.annot.gz",
            vec![],
            Refused(vec!["GEO platform annotation (GPL97)", "--platform"]),
        ),
        (
            "GSE1122_series_matrix.txt.gz",
            vec![
                "--label",
                "disease state",
                "--missing",
                "mean",
                "--platform",
            ],
            Ranks(15),
        ),
        (
            "GSE1122_family.soft.gz",
            vec!["--label", "disease state", "--missing", "mean"],
            Ranks(15),
        ),
    ];
    for (name, mut args, expect) in cases {
        if args.last() == Some(&"--platform") {
            args.pop();
            let platform = geo_fixture("GPL80_from_GDS670.annot.gz");
            let platform = Box::leak(platform.display().to_string().into_boxed_str());
            args.extend(["--platform", platform]);
        }
        if matches!(expect, Ranks(_)) {
            args.extend(fast);
        }
        check(name, &args, &expect);
    }
}

#[test]
fn options_that_do_not_apply_to_a_geo_file_are_refused() {
    let file = "GDS670_head400.soft.gz";
    let label = ["--label", "disease state"];
    for (extra, said) in [
        (&["--transpose"][..], "--transpose does not apply"),
        (&["--sheet", "1"], "--sheet does not apply"),
        (&["--delimiter", ";"], "--delimiter does not apply"),
        (&["--ignore", "NOPE*"], "no probe of the GEO DataSet GDS670"),
        (&["--ignore", "*"], "no feature is left"),
        (
            &["--id", "tissue"],
            "no sample field \"tissue\" to take the ids from",
        ),
        (
            &["--id", "source"],
            "does not give every sample an id of its own",
        ),
        (&["--label-pattern", "(("], "is not a regular expression"),
        (&["--label-pattern", "^x"], "does not match sample GSM18403"),
        (
            &["--platform", "../GSE99709_series_matrix.txt.gz"],
            "no gene symbol column",
        ),
    ] {
        let extra: Vec<String> = extra
            .iter()
            .map(|a| match a.strip_prefix("../") {
                Some(name) => geo_fixture(name).display().to_string(),
                None => a.to_string(),
            })
            .collect();
        let mut args: Vec<&str> = label.to_vec();
        args.extend(extra.iter().map(String::as_str));
        check(file, &args, &Expect::Refused(vec![said]));
    }
    // --ignore with a glob and --id with a field of unique values work.
    let out = succeed(scan(
        geo_fixture(file),
        &[
            "--label",
            "disease state",
            "--missing",
            "mean",
            "--ignore",
            "AF*",
            "--id",
            "title",
            "--model",
            "nda",
            "--cov",
            "diag",
        ],
    ));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(",01_NML,") && !text.contains("GSM18403"),
        "{text}"
    );
    // --platform on a table of another platform is refused.
    check(
        file,
        &[
            "--label",
            "disease state",
            "--missing",
            "mean",
            "--platform",
            geo_fixture("GPL97_head300.annot.gz").to_str().unwrap(),
        ],
        &Expect::Refused(vec![
            "none of the 381 features is a probe of the platform GPL97_head300",
        ]),
    );
}

fn geo(name: &str, opts: LoadOptions) -> Dataset {
    load(&geo_fixture(name), &opts).unwrap()
}

/// GSE1122's options: its label, missing values filled.
fn gse1122_options() -> LoadOptions {
    LoadOptions {
        label: Some("disease state".into()),
        missing: relabel::dataset::MissingPolicy::Mean,
        ..LoadOptions::default()
    }
}

/// GDS670 (GSE1122's GDS) and GSE1122's series matrix with a platform
/// table built from the GDS's IDENTIFIER column.
fn gds_and_series() -> (Dataset, Dataset) {
    let gds = geo("GDS670_head400.soft.gz", gse1122_options());
    let series = geo(
        "GSE1122_series_matrix.txt.gz",
        LoadOptions {
            platform: Some(geo_fixture("GPL80_from_GDS670.annot.gz")),
            ..gse1122_options()
        },
    );
    (gds, series)
}

/// GEO names a control probe's gene `--Control` (a GDS's IDENTIFIER
/// column, and platform tables built from it): a placeholder, shown as no
/// symbol at all.
#[test]
fn control_probes_have_no_gene_symbol() {
    let (gds, series) = gds_and_series();
    for ds in [&gds, &series] {
        let label = |probe: &str| {
            let j = ds.feature_names.iter().position(|f| f == probe).unwrap();
            ds.feature_label(j)
        };
        // Spike-in controls have the placeholder; a housekeeping gene's
        // control probe keeps its gene.
        assert_eq!(label("AFFX-BioB-5_at"), "AFFX-BioB-5_at");
        assert_eq!(label("AFFX-CreX-3_at"), "AFFX-CreX-3_at");
        assert_eq!(
            label("AFFX-HSAC07/X00351_3_at"),
            "AFFX-HSAC07/X00351_3_at ACTB"
        );
        assert!(ds.feature_labels().iter().all(|l| !l.contains("Control")));
    }
}

#[test]
fn a_gds_its_series_matrix_and_its_family_file_read_alike_with_gene_symbols() {
    let (gds, series) = gds_and_series();
    let family = geo("GSE1122_family.soft.gz", gse1122_options());
    let bare = geo("GSE1122_series_matrix.txt.gz", gse1122_options());
    // 400 probes, 19 of them null in every sample.
    assert_eq!((gds.n_samples(), gds.n_features()), (15, 381));
    assert_eq!(gds.class_counts(), [5, 5, 5]);
    assert_eq!(gds.feature_names[0], "A28102_at");
    assert_eq!(gds.feature_label(0), "A28102_at GABRA3");
    for other in [&series, &family, &bare] {
        assert_eq!(other.ids, gds.ids);
        assert_eq!(other.classes, gds.classes);
        assert_eq!(other.labels, gds.labels);
        assert_eq!(other.feature_names, gds.feature_names);
        assert_eq!(other.x, gds.x, "the matrix, value for value");
    }
    for other in [&series, &family] {
        assert_eq!(other.feature_labels(), gds.feature_labels());
    }
    assert_eq!(
        bare.feature_label(0),
        "A28102_at",
        "no platform, no symbols"
    );
    // The symbols are said in the notes, with where they came from.
    let said = |ds: &Dataset| ds.reader_notes.join(" | ");
    assert!(
        said(&family).contains("gene symbols from the platform section (GPL80)"),
        "{}",
        said(&family)
    );
    assert!(
        said(&series).contains("GPL80_from_GDS670.annot.gz"),
        "{}",
        said(&series)
    );
}

#[test]
fn the_review_screen_opens_on_every_geo_file_that_loads() {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use relabel::models::ModelOptions;
    use relabel::review::Session;
    use relabel::tui::App;
    use relabel::tui::keys::KeyMap;
    let opts = |label: &str| LoadOptions {
        label: Some(label.into()),
        missing: relabel::dataset::MissingPolicy::Mean,
        ..LoadOptions::default()
    };
    for (name, o) in [
        (
            "GDS670_head400.soft.gz",
            // As the command line reads it: raw values of a wide table logged.
            LoadOptions {
                log_rule: relabel::dataset::LogRule::WhenRaw,
                ..opts("disease state")
            },
        ),
        ("GSE1122_family.soft.gz", opts("disease state")),
        ("soft_ex_family.txt", opts("Cell line")),
        (
            "GSE285754_series_matrix.txt.gz",
            LoadOptions {
                label_pattern: Some("^(.*)-rep".into()),
                ..opts("title")
            },
        ),
    ] {
        let ds = geo(name, o);
        let (session, resume) = Session::open(ds, None).unwrap();
        let mut app = App::with_keys(
            session,
            &resume,
            "auto",
            ModelOptions::default(),
            KeyMap::load(None).unwrap(),
        );
        app.start_fit(false);
        app.wait_for_fit();
        app.refresh_detail();
        for (w, h) in [(80, 24), (120, 36), (20, 5)] {
            let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
            t.draw(|f| f.render_widget(&app, f.area())).unwrap();
        }
        // The detail pane: probes with their gene symbols, on the scale
        // said (a GDS's raw MAS5 values are read on a log2 scale).
        if name.starts_with("GDS670") {
            let text = screen_text(&app, 200, 50);
            assert!(text.contains("features (log2 values"), "{text}");
            let ds = app.session.dataset();
            let shown = (0..ds.n_features())
                .filter(|&j| ds.gene_symbol(j).is_some())
                .any(|j| text.contains(&ds.feature_label(j)));
            assert!(shown, "no probe with its symbol in {text}");
        }
    }
}

fn screen_text(app: &relabel::tui::App, w: u16, h: u16) -> String {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    let buf = t.backend().buffer().clone();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `--platform` takes what a curator has: a GPL SOFT file (its platform
/// table) or a GDS of the same platform (its IDENTIFIER column), beside
/// the annotation file; the matrix is the same, the symbols the same.
#[test]
fn a_gpl_soft_file_or_a_gds_gives_a_series_matrix_its_gene_symbols() {
    let dir = tempfile::tempdir().unwrap();
    // A GPL SOFT file: the annotation's table under a ^PLATFORM section.
    let annot = gunzip_text("GPL80_from_GDS670.annot.gz");
    let table = &annot[annot.find("!platform_table_begin").unwrap()..];
    let soft = dir.path().join("GPL80.soft");
    std::fs::write(
        &soft,
        format!(
            "^PLATFORM = GPL80\n!Platform_title = Hu6800\n!Platform_geo_accession = GPL80\n{table}"
        ),
    )
    .unwrap();
    let opts = |platform: PathBuf| LoadOptions {
        label: Some("disease state".into()),
        missing: relabel::dataset::MissingPolicy::Mean,
        platform: Some(platform),
        ..LoadOptions::default()
    };
    let series = "GSE1122_series_matrix.txt.gz";
    let by_annot = geo(series, opts(geo_fixture("GPL80_from_GDS670.annot.gz")));
    for other in [
        geo(series, opts(soft.clone())),
        geo(series, opts(geo_fixture("GDS670_head400.soft.gz"))),
    ] {
        assert_eq!(other.x, by_annot.x);
        assert_eq!(other.feature_labels(), by_annot.feature_labels());
    }
    assert_eq!(by_annot.feature_label(0), "A28102_at GABRA3");
}

/// A gzip fixture's text.
fn gunzip_text(name: &str) -> String {
    String::from_utf8(gunzip(&geo_fixture(name))).unwrap()
}

/// The advice on a missing value in a GEO file can be followed: the
/// `--ignore` it names leaves that probe out, and the file loads.
#[test]
fn the_missing_value_advice_on_a_geo_file_can_be_followed() {
    let dir = tempfile::tempdir().unwrap();
    let text = gunzip_text("GSE1122_series_matrix.txt.gz");
    // One value of a probe that has the others: blank, as GEO writes it.
    let mut blanked = false;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let cells: Vec<&str> = l.split('\t').collect();
            if !blanked && l.starts_with("\"AF") && cells.iter().skip(1).all(|c| !c.is_empty()) {
                blanked = true;
                let mut cells = cells;
                cells[3] = "";
                return cells.join("\t");
            }
            l.to_string()
        })
        .collect();
    let file = write_in(dir.path(), "GSE1122_series_matrix.txt", lines.join("\n"));
    let out = scan(&file, &["--label", "disease state", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    let advice = said.split("--ignore ").nth(1).unwrap();
    let probe = advice.split_whitespace().next().unwrap().to_string();
    assert!(probe.starts_with("AF"), "{said}");
    let out = succeed(scan(
        &file,
        &[
            "--label",
            "disease state",
            "--quiet",
            "--ignore",
            &probe,
            "--model",
            "nda",
            "--cov",
            "diag",
        ],
    ));
    let (_, rows) = parse_csv(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(rows.len(), 15, "{said}");
}

/// A 2 vs 2 series: said first, before the ranking, that the design is too
/// small for any ranking to mean something, and nothing is flagged.
#[test]
fn a_two_by_two_series_is_said_too_small_before_its_ranking() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from(
        "!Series_geo_accession\t\"GSE2\"\n\
         !Sample_title\t\"KO-1\"\t\"KO-2\"\t\"WT-1\"\t\"WT-2\"\n\
         !Sample_geo_accession\t\"GSM1\"\t\"GSM2\"\t\"GSM3\"\t\"GSM4\"\n\
         !Sample_characteristics_ch1\t\"genotype: KO\"\t\"genotype: KO\"\t\"genotype: WT\"\t\"genotype: WT\"\n\
         !series_matrix_table_begin\n\"ID_REF\"\t\"GSM1\"\t\"GSM2\"\t\"GSM3\"\t\"GSM4\"\n",
    );
    for p in 0..30 {
        let v: Vec<String> = (0..4)
            .map(|s| {
                format!(
                    "{:.2}",
                    6.0 + (p % 7) as f64 + 2.0 * (s / 2) as f64 + 0.1 * s as f64
                )
            })
            .collect();
        text.push_str(&format!("\"{}_at\"\t{}\n", 1000 + p, v.join("\t")));
    }
    text.push_str("!series_matrix_table_end\n");
    let file = write_in(dir.path(), "GSE2_series_matrix.txt", text);
    let out = succeed(scan(&file, &["--label", "genotype", "--out"]).arg(dir.path().join("r.csv")));
    let said = String::from_utf8_lossy(&out.stderr).to_string();
    let first = said.lines().next().unwrap();
    assert!(
        first.contains(
            "this design is too small for any ranking to mean something (\"KO\" 2 and \"WT\" 2)"
        ),
        "{said}"
    );
    assert!(
        said.contains("the data cannot tell which labels are wrong")
            && said.contains("nothing flagged"),
        "{said}"
    );
}

/// The features a model names (rlr's selected probes) carry their gene
/// symbols in the report and on the audit page, as in the detail pane.
#[test]
fn the_report_and_the_audit_page_name_probes_with_their_symbols() {
    let dir = tempfile::tempdir().unwrap();
    let file = geo_fixture("GSE1122_family.soft.gz");
    let args = [
        "--label",
        "disease state",
        "--missing",
        "mean",
        "--model",
        "rlr",
        "--opt",
        "lambda=0.5",
        "--quiet",
    ];
    let mut scan = vec![file.to_str().unwrap()];
    scan.extend(args);
    let (_, report) = scan_with_report(dir.path(), &scan);
    let lists = report["extra"]["lists"].as_array().unwrap();
    let selected: Vec<&str> = lists.iter().find(|l| l[0] == "selected_features").unwrap()[1]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(!selected.is_empty());
    let ds = geo(
        "GSE1122_family.soft.gz",
        LoadOptions {
            label: Some("disease state".into()),
            missing: relabel::dataset::MissingPolicy::Mean,
            ..LoadOptions::default()
        },
    );
    let labels = ds.feature_labels();
    // "A28102_at GABRA3 (0.0000, ...)": a probe with its symbol, then the weights.
    let named = |item: &str| labels.iter().any(|l| item.starts_with(&format!("{l} (")));
    assert!(selected.iter().all(|s| named(s)), "{selected:?}");
    assert!(
        selected
            .iter()
            .any(|s| s.split(" (").next().unwrap().contains(' ')),
        "no symbol in {selected:?}"
    );
    // The page is made from a review session: one with a decision, in a
    // store of the test's own (never the home directory's).
    let data_home = tempfile::tempdir().unwrap();
    let store = data_home.path().join("relabel").join("sessions");
    let (mut session, _) = relabel::review::Session::open(ds, Some(&store)).unwrap();
    session.keep(0).unwrap();
    drop(session);
    let page = dir.path().join("a.html");
    succeed(
        relabel()
            .arg("report")
            .arg(&file)
            .args(args)
            .arg("--out")
            .arg(&page)
            .env("XDG_DATA_HOME", data_home.path()),
    );
    let html = std::fs::read_to_string(&page).unwrap();
    let first = selected[0].split(" (").next().unwrap();
    assert!(html.contains(first), "no {first} on the page");
}

/// The fields of two loads of one file that must be equal.
fn assert_same(a: &Dataset, b: &Dataset, what: &str) {
    assert_eq!(a.x, b.x, "{what}");
    assert_eq!(a.feature_labels(), b.feature_labels(), "{what}");
    assert_eq!(a.ids, b.ids, "{what}");
    assert_eq!(a.classes, b.classes, "{what}");
    assert_eq!(a.labels, b.labels, "{what}");
    assert_eq!(a.reader_notes, b.reader_notes, "{what}");
    assert_eq!(a.raw.bytes, b.raw.bytes, "{what}");
    assert_eq!(a.constant, b.constant, "{what}");
    assert_eq!(a.empty, b.empty, "{what}");
}

/// A series matrix is read as it is decompressed, so that its text is
/// never held whole beside its matrix: whatever its compression, line
/// ends, blank lines or encoding, it loads exactly as its bytes read whole
/// do, and a file that cannot be read fails with the same message.
#[test]
fn a_series_matrix_read_as_a_stream_loads_as_it_does_read_whole() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let gz = std::fs::read(geo_fixture("GSE1122_series_matrix.txt.gz")).unwrap();
    let text = gunzip_text("GSE1122_series_matrix.txt.gz");
    let crlf = text.replace('\n', "\r\n\r\n");
    let long = longer(&text, 10);
    let mut gz_crlf = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz_crlf.write_all(crlf.as_bytes()).unwrap();
    // One byte that is not UTF-8 in a sample field: the whole file is then
    // Windows-1252, which a stream cannot know until its end.
    let mut latin1 = text
        .replacen(
            "!Sample_source_name_ch1\t\"",
            "!Sample_source_name_ch1\t\"caf\u{1} ",
            1,
        )
        .into_bytes();
    let at = latin1.iter().position(|&b| b == 1).unwrap();
    latin1[at] = 0xE9;
    let variants: Vec<(&str, Vec<u8>)> = vec![
        ("GSE1122_series_matrix.txt.gz", gz.clone()),
        ("plain_series_matrix.txt", text.clone().into_bytes()),
        ("long_series_matrix.txt", long.into_bytes()),
        ("crlf_series_matrix.txt.gz", gz_crlf.finish().unwrap()),
        ("latin1_series_matrix.txt", latin1),
        ("cut_series_matrix.txt.gz", gz[..gz.len() * 2 / 3].to_vec()),
        (
            "cut_series_matrix.txt",
            text.as_bytes()[..text.len() / 2].to_vec(),
        ),
    ];
    let options = [
        gse1122_options(),
        LoadOptions {
            ignore: vec!["AFFX-*".into()],
            platform: Some(geo_fixture("GPL80_from_GDS670.annot.gz")),
            ..gse1122_options()
        },
    ];
    for opts in &options {
        for (name, bytes) in &variants {
            let file = write_in(dir.path(), name, bytes);
            let streamed = load(&file, opts);
            let whole = relabel::dataset::load_bytes(&file, bytes.clone(), opts);
            let cut = name.starts_with("cut");
            assert_eq!(
                streamed.is_ok(),
                !cut,
                "{name}: {:?}",
                streamed.as_ref().err()
            );
            match (&streamed, &whole) {
                (Ok(a), Ok(b)) => assert_same(a, b, name),
                (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{name}"),
                _ => panic!(
                    "{name}: streamed {:?}, whole {:?}",
                    streamed.is_ok(),
                    whole.is_ok()
                ),
            }
        }
    }
}

/// A series matrix with its probes `times` over (`ID`, `ID_r1`, ...): a
/// table longer than one block of the streamed read.
fn longer(text: &str, times: usize) -> String {
    let (head, rest) = text.split_once("\"ID_REF\"").unwrap();
    let (table, tail) = rest.split_once("!series_matrix_table_end").unwrap();
    let (header, rows) = table.split_once('\n').unwrap();
    let mut out = format!("{head}\"ID_REF\"{header}\n");
    for r in 0..times {
        for row in rows.lines() {
            let (probe, values) = row.split_once('\t').unwrap();
            let probe = probe.trim_end_matches('"');
            let again = if r == 0 {
                String::new()
            } else {
                format!("_r{r}")
            };
            out.push_str(&format!("{probe}{again}\"\t{values}\n"));
        }
    }
    out.push_str("!series_matrix_table_end");
    out.push_str(tail);
    out
}
