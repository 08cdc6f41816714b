//! The table reader on arbitrary bytes: it never panics, every error is one
//! line, and whatever loads is consistent (finite features, one label and
//! id per sample, an export of no edits gives back the input byte for byte,
//! a relabel reads back as that label).
//!
//! A few hundred cases run in every `cargo test`; with
//! `RELABEL_FUZZ_SECS=600` the same property runs for ten minutes, fresh
//! seeds each round. Inputs it found are kept in `tests/inputs/`.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use super::{CategoricalPolicy, CellEdit, LoadOptions, MissingPolicy, load_bytes, rewrite};

/// One fuzz case: the file's bytes and which option set reads them.
#[derive(Clone)]
struct Input {
    bytes: Vec<u8>,
    options: usize,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text: String = self
            .bytes
            .iter()
            .flat_map(|b| std::ascii::escape_default(*b))
            .map(char::from)
            .collect();
        write!(f, "options #{} on b\"{text}\"", self.options)
    }
}

/// The option sets every input is read with (by index).
fn option_sets() -> Vec<LoadOptions> {
    vec![
        LoadOptions::default(),
        LoadOptions {
            label: Some("label".into()),
            id: Some("id".into()),
            ..LoadOptions::default()
        },
        LoadOptions {
            transpose: true,
            ..LoadOptions::default()
        },
        LoadOptions {
            categorical: CategoricalPolicy::Onehot,
            missing: MissingPolicy::Mean,
            ..LoadOptions::default()
        },
        LoadOptions {
            missing: MissingPolicy::Drop,
            multiline_cells: true,
            log2: true,
            ..LoadOptions::default()
        },
        LoadOptions {
            delimiter: Some(b';'),
            ignore: vec!["a".into()],
            categorical: CategoricalPolicy::Onehot,
            multiline_cells: true,
            ..LoadOptions::default()
        },
        LoadOptions {
            transpose: true,
            multiline_cells: true,
            categorical: CategoricalPolicy::Onehot,
            missing: MissingPolicy::Drop,
            ..LoadOptions::default()
        },
    ]
}

/// Pieces that make CSV hard: delimiters, quotes, line ends, numbers and
/// their edge cases, missing tokens, the names the reader looks for, a
/// BOM, gzip's magic, invalid UTF-8, controls, and any byte at all.
fn token() -> impl Strategy<Value = Vec<u8>> {
    let fixed: Vec<&'static [u8]> = vec![
        b",",
        b",",
        b"\t",
        b";",
        b"\n",
        b"\n",
        b"\r\n",
        b"\r",
        b"\"",
        b"\"",
        b" ",
        b"1",
        b"0.5",
        b"-2e3",
        b"1e308",
        b"1e-320",
        b"NA",
        b"?",
        b"inf",
        b"nan",
        b"a",
        b"b",
        b"label",
        b"id",
        b"class",
        b"\xEF\xBB\xBF",
        b"\x1f\x8b",
        b"\xff",
        b"\xc3",
        b"\0",
        b"\x1b",
        b"\xe2\x80\xa8",
    ];
    prop_oneof![
        6 => proptest::sample::select(fixed).prop_map(<[u8]>::to_vec),
        1 => any::<u8>().prop_map(|b| vec![b]),
        1 => "[a-z0-9]{1,4}".prop_map(String::into_bytes),
    ]
}

/// A table that loads, to mutate: header `id,a,b,label` (or `;`), or the
/// same cells transposed (`gene,s0,s1,..` with rows a, b, label); some
/// labels quoted, one with a line break.
fn table() -> impl Strategy<Value = Vec<u8>> {
    // The multi-line label and the transposed layout load only under some
    // option sets, so they are the rarer cases.
    let label = prop_oneof![3 => Just(0u8), 3 => Just(1), 1 => Just(2), 1 => Just(3)];
    let row = (0..5u8, -50..50i32, label);
    (
        proptest::collection::vec(row, 2..8),
        any::<bool>(),
        prop_oneof![3 => Just(false), 1 => Just(true)],
    )
        .prop_map(|(rows, semicolon, transpose)| {
            let d = if semicolon { ";" } else { "," };
            let cells: Vec<[String; 4]> = rows
                .into_iter()
                .enumerate()
                .map(|(i, (a, b, l))| {
                    let label = ["p", "q", "\"r s\"", "\"t\nu\""][usize::from(l)];
                    [
                        format!("s{i}"),
                        a.to_string(),
                        (f64::from(b) / 4.0).to_string(),
                        label.to_string(),
                    ]
                })
                .collect();
            let mut s = String::new();
            if transpose {
                let line = |name: &str, f: usize| {
                    let row: Vec<&str> = cells.iter().map(|c| c[f].as_str()).collect();
                    format!("{name}{d}{}\n", row.join(d))
                };
                s.push_str(&line("gene", 0));
                s.push_str(&line("a", 1));
                s.push_str(&line("b", 2));
                s.push_str(&line("label", 3));
            } else {
                s.push_str(&format!("id{d}a{d}b{d}label\n"));
                for c in &cells {
                    s.push_str(&format!("{}\n", c.join(d)));
                }
            }
            s.into_bytes()
        })
}

fn gzip(bytes: Vec<u8>) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let done = enc.write_all(&bytes).and_then(|()| enc.finish());
    done.unwrap_or(bytes)
}

fn input() -> impl Strategy<Value = Input> {
    let raw = proptest::collection::vec(token(), 0..80).prop_map(|t| t.concat());
    let mutated = (
        table(),
        proptest::collection::vec((any::<usize>(), token(), any::<bool>()), 0..4),
    )
        .prop_map(|(mut bytes, edits)| {
            for (at, piece, replace) in edits {
                let at = at % (bytes.len() + 1);
                let end = if replace {
                    (at + piece.len()).min(bytes.len())
                } else {
                    at
                };
                bytes.splice(at..end, piece);
            }
            bytes
        });
    (
        prop_oneof![1 => raw, 2 => mutated],
        prop_oneof![9 => Just(false), 1 => Just(true)],
        0..option_sets().len(),
    )
        .prop_map(|(bytes, compress, options)| Input {
            bytes: if compress { gzip(bytes) } else { bytes },
            options,
        })
}

/// Cases run and cases that loaded, reported by the long run: a fuzzer
/// whose inputs all fail at the first check tests little.
static CASES: AtomicUsize = AtomicUsize::new(0);
static LOADED: AtomicUsize = AtomicUsize::new(0);

/// The property, for one input.
fn check(input: &Input) -> Result<(), TestCaseError> {
    let opts = &option_sets()[input.options];
    let path = Path::new("fuzz.csv");
    CASES.fetch_add(1, Ordering::Relaxed);
    let ds = match load_bytes(path, input.bytes.clone(), opts) {
        Ok(ds) => ds,
        Err(e) => {
            let text = e.to_string();
            prop_assert!(!text.chars().any(char::is_control), "{text:?}");
            prop_assert!(!text.contains('\u{2028}'), "{text:?}");
            prop_assert!(text.len() < 2000, "{} bytes: {text}", text.len());
            prop_assert!(text.starts_with("fuzz.csv"), "{text}");
            return Ok(());
        }
    };
    LOADED.fetch_add(1, Ordering::Relaxed);
    let n = ds.n_samples();
    prop_assert!(n > 0 && ds.classes.len() >= 2);
    prop_assert!(ds.x.iter().all(|v| v.is_finite()), "{}", ds.x);
    prop_assert_eq!(ds.labels.len(), n);
    prop_assert_eq!(ds.ids.len(), n);
    prop_assert_eq!(ds.rows.len(), n);
    prop_assert!(ds.rows.windows(2).all(|w| w[0] < w[1]));
    prop_assert_eq!(ds.feature_names.len(), ds.n_features());
    let (levels, names) = ds.source_matrix();
    prop_assert_eq!(levels.ncols(), names.len());
    // Unedited, the file comes back as it was read (decompressed): in its
    // own encoding, whatever the reader decoded it to.
    let read = super::read::decompress(path, input.bytes.clone())
        .map(|(b, _)| b)
        .unwrap_or_default();
    prop_assert_eq!(&rewrite(&ds, &[], None), &read);
    // A relabel reads back as the new label, everything else as it was.
    let edited = rewrite(
        &ds,
        &[(0, CellEdit::Relabel("new, \"label\"".into()))],
        None,
    );
    // The one case the encoding cannot survive (`dataset::encoding`): the
    // relabel took out the only bytes that were not UTF-8, and the rest,
    // read as Windows-1252, happen to be valid UTF-8.
    if ds.raw.encoding == super::TextEncoding::Windows1252 && std::str::from_utf8(&edited).is_ok() {
        return Ok(());
    }
    let again = load_bytes(path, edited, opts);
    let again = match again {
        Ok(d) => d,
        Err(e) => return Err(TestCaseError::fail(format!("the relabelled file: {e}"))),
    };
    prop_assert_eq!(again.given_label(0), "new, \"label\"");
    prop_assert_eq!(again.n_samples(), n);
    prop_assert_eq!(&again.x, &ds.x);
    Ok(())
}

/// Runs `cases` fresh cases; panics with the smallest failing input.
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
fn the_reader_never_panics_and_every_error_is_one_line() {
    let secs = std::env::var("RELABEL_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok());
    let Some(secs) = secs else {
        run(300);
        return;
    };
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut rounds = 0;
    while Instant::now() < deadline {
        run(2000);
        rounds += 1;
    }
    eprintln!(
        "fuzz: {rounds} rounds of 2000 cases, no failure; {} of {} inputs loaded",
        LOADED.load(Ordering::Relaxed),
        CASES.load(Ordering::Relaxed)
    );
}
