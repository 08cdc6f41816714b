//! Helpers every integration test uses: the binary, a command that must
//! succeed, the sample files, and scan's CSV output.
#![allow(dead_code, clippy::unwrap_used)] // each test file uses some of them

use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub fn relabel() -> Command {
    Command::cargo_bin("relabel").unwrap()
}

/// Runs the command and fails the test with its stderr unless it succeeds.
pub fn succeed(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample_data")
        .join(name)
}

/// Rows of scan's CSV output as (header, records).
pub fn parse_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}
