//! Inputs that once misled the table reader (found by hand or by the fuzz
//! test in `src/dataset/fuzz.rs`), kept as files in `tests/inputs/`. Each
//! is read with the default options and must give the outcome written
//! here: an error starting with the given text (always one line), or a
//! table.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use relabel::dataset::{LoadOptions, load};

/// File name -> how the error reads after "FILE:" (from the line number,
/// or from the message when there is none), or "" when
/// the file must load.
const EXPECTED: &[(&str, &str)] = &[
    (
        "unclosed_quote_last_column.csv",
        "3:4: a quote opens here and is never closed",
    ),
    ("gzip_of_gzip_magic.csv.gz", "the file is compressed twice"),
];

#[test]
fn every_kept_input_gives_its_outcome() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("inputs");
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "README.md" {
            continue;
        }
        let (_, want) = EXPECTED
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("{name} is in tests/inputs but not in EXPECTED"));
        match load(&path, &LoadOptions::default()) {
            Ok(_) => assert!(want.is_empty(), "{name} loaded, expected {want:?}"),
            Err(e) => {
                let text = e.to_string();
                assert!(!text.chars().any(char::is_control), "{name}: {text:?}");
                let after = text.strip_prefix(&path.display().to_string()).unwrap();
                assert!(
                    !want.is_empty() && after.trim_start_matches([':', ' ']).starts_with(want),
                    "{name}: {text}"
                );
            }
        }
        seen.push(name);
    }
    assert_eq!(seen.len(), EXPECTED.len(), "missing files: {seen:?}");
}
