//! The GEO readers on the fixtures cut short and mutated: they never
//! panic, every error is one line, and whatever loads is consistent (at
//! least one feature, two classes, finite values, names for everything).
//! A hundred cases run in every `cargo test`; `RELABEL_FUZZ_SECS` runs
//! more, as for the table reader (`dataset::fuzz`).

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use super::super::{LoadOptions, MissingPolicy, load, load_bytes};
use super::fields::MAX_LINE;

/// The fixtures of `tests/geo.rs`, decompressed.
fn fixtures() -> Vec<Vec<u8>> {
    let gz = |bytes: &[u8]| {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .read_to_end(&mut out)
            .map(|_| out)
            .unwrap_or_default()
    };
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/geo/");
    let read = |name: &str| std::fs::read(format!("{dir}{name}")).unwrap_or_default();
    vec![
        gz(&read("GDS670_head400.soft.gz")),
        gz(&read("GSE1122_series_matrix.txt.gz")),
        gz(&read("GSE1122_family.soft.gz")),
        gz(&read("GSE285754_series_matrix.txt.gz")),
        gz(&read("GSE99709_series_matrix.txt.gz")),
        read("soft_ex_family.txt"),
        read("GSE105845_family.soft"),
        gz(&read("GSM11805_head200.txt.gz")),
        gz(&read("GPL97_head300.annot.gz")),
        gz(&read("GPL80_from_GDS670.annot.gz")),
    ]
}

fn option_sets() -> Vec<LoadOptions> {
    let label = |l: &str| Some(l.to_string());
    vec![
        LoadOptions::default(),
        LoadOptions {
            label: label("disease state"),
            missing: MissingPolicy::Mean,
            ..LoadOptions::default()
        },
        LoadOptions {
            label: label("disease state+source"),
            missing: MissingPolicy::Drop,
            ignore: vec!["A*".into()],
            top_variance: Some(7),
            ..LoadOptions::default()
        },
        LoadOptions {
            label: label("title"),
            label_pattern: Some("^(.*)[-_ ]".into()),
            id: Some("geo_accession".into()),
            missing: MissingPolicy::Mean,
            ..LoadOptions::default()
        },
        LoadOptions {
            label: label("Cell line"),
            log2: true,
            ..LoadOptions::default()
        },
    ]
}

/// What GEO files are made of, to splice in.
fn token() -> impl Strategy<Value = Vec<u8>> {
    let fixed: Vec<&'static [u8]> = vec![
        b"\t",
        b"\t",
        b"\n",
        b"\n",
        b"\r\n",
        b"\"",
        b"=",
        b":",
        b",",
        b"null",
        b"NA",
        b"1e400",
        b"-1",
        b"0",
        b"!series_matrix_table_end\n",
        b"!series_matrix_table_begin\n",
        b"!sample_table_end\n",
        b"!dataset_table_begin\n",
        b"^SAMPLE = GSM1\n",
        b"^PLATFORM = GPL1\n",
        b"!Sample_characteristics_ch1\t\"disease state: x\"\n",
        b"!Sample_title = a-rep1\n",
        b"!subset_type = disease state\n",
        b"\xff",
        b"\0",
    ];
    prop_oneof![
        6 => proptest::sample::select(fixed).prop_map(<[u8]>::to_vec),
        1 => any::<u8>().prop_map(|b| vec![b]),
    ]
}

/// A fixture cut at some byte, or with a few pieces spliced in or lines
/// deleted, and the option set to read it with.
fn input() -> impl Strategy<Value = (Vec<u8>, usize)> {
    let files = fixtures();
    let n = files.len();
    (
        0..n,
        any::<usize>(),
        proptest::collection::vec((any::<usize>(), token(), 0..3u8), 0..4),
        0..option_sets().len(),
    )
        .prop_map(move |(f, cut, edits, options)| {
            let mut bytes = files[f].clone();
            if edits.is_empty() {
                bytes.truncate(cut % (bytes.len() + 1));
            }
            for (at, piece, how) in edits {
                let at = at % (bytes.len() + 1);
                match how {
                    0 => {
                        bytes.splice(at..at, piece);
                    }
                    1 => {
                        let end = (at + piece.len()).min(bytes.len());
                        bytes.splice(at..end, piece);
                    }
                    _ => {
                        // The line holding `at` goes.
                        let start = bytes[..at]
                            .iter()
                            .rposition(|&b| b == b'\n')
                            .map_or(0, |p| p + 1);
                        let end = bytes[at..]
                            .iter()
                            .position(|&b| b == b'\n')
                            .map_or(bytes.len(), |p| at + p + 1);
                        bytes.drain(start..end);
                    }
                }
            }
            (bytes, options)
        })
}

/// The file read from disk, where a series matrix is read as a stream,
/// gives what its bytes read whole give: the same dataset or the same error.
fn check_streamed(bytes: &[u8], opts: &LoadOptions) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
    let path = dir.path().join("GSE1_series_matrix.txt");
    std::fs::write(&path, bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let whole_here = load_bytes(&path, bytes.to_vec(), opts);
    match (load(&path, opts), whole_here) {
        (Ok(a), Ok(b)) => {
            prop_assert_eq!(&a.x, &b.x);
            prop_assert_eq!(a.feature_labels(), b.feature_labels());
            prop_assert_eq!(&a.ids, &b.ids);
            prop_assert_eq!(&a.labels, &b.labels);
            prop_assert_eq!(&a.reader_notes, &b.reader_notes);
            prop_assert_eq!(&a.raw.bytes, &b.raw.bytes);
        }
        (Err(a), Err(b)) => prop_assert_eq!(format!("{a:?}"), format!("{b:?}")),
        (a, b) => prop_assert!(false, "streamed {:?}, whole {:?}", a.is_ok(), b.is_ok()),
    }
    Ok(())
}

fn check((bytes, options): &(Vec<u8>, usize)) -> Result<(), TestCaseError> {
    let path = Path::new("GSE1_series_matrix.txt");
    let whole = load_bytes(path, bytes.clone(), &option_sets()[*options]);
    check_streamed(bytes, &option_sets()[*options])?;
    let ds = match whole {
        Ok(ds) => ds,
        Err(e) => {
            // One line as the curator reads it: `relabel: ` and the message.
            let text = format!("relabel: {e}");
            prop_assert!(!text.chars().any(char::is_control), "{text:?}");
            prop_assert!(
                text.chars().count() <= MAX_LINE,
                "{} characters: {text}",
                text.chars().count()
            );
            return Ok(());
        }
    };
    let n = ds.n_samples();
    prop_assert!(n > 0 && ds.classes.len() >= 2 && ds.n_features() > 0);
    prop_assert!(ds.x.iter().all(|v| v.is_finite()));
    prop_assert_eq!(ds.feature_names.len(), ds.n_features());
    prop_assert_eq!(ds.ids.len(), n);
    prop_assert_eq!(ds.labels.len(), n);
    prop_assert_eq!(ds.feature_labels().len(), ds.n_features());
    Ok(())
}

fn run(cases: u32) {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    if let Err(e) = TestRunner::new(config).run(&input(), |i| check(&i)) {
        panic!("{e}");
    }
}

#[test]
fn the_geo_readers_never_panic_on_cut_or_mutated_files() {
    assert!(
        fixtures().iter().all(|f| !f.is_empty()),
        "the fixtures are readable"
    );
    let secs = std::env::var("RELABEL_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok());
    let Some(secs) = secs else {
        run(100);
        return;
    };
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        run(1000);
    }
}
