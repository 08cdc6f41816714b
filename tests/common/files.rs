//! Test files in temporary directories and the GEO fixtures: shared by the
//! integration tests (through `tests/common`) and the library's own tests
//! (`src/dataset/tests.rs` includes this file by its path), so that each
//! is written once.
#![allow(dead_code, clippy::unwrap_used)] // each test file uses some of them

use std::path::{Path, PathBuf};

/// `text` written to `name` in `dir`; its path.
pub fn write_in(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A GEO file of `tests/fixtures/geo/` (made by its `make_fixtures.py`).
pub fn geo_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/geo")
        .join(name)
}

/// The decompressed content of a gzip file.
pub fn gunzip(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_end(&mut out)
        .unwrap();
    out
}
