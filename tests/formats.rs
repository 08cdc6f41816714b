//! Input formats and shell conventions through the real binary: GEO files,
//! spreadsheets, `--probs`, completions and the man page.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn relabel() -> Command {
    Command::cargo_bin("relabel").unwrap()
}

/// Runs the command and fails the test with its stderr unless it succeeds.
fn succeed(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs the command, which must fail with exit 2 and one line on stderr;
/// returns that line.
fn bad_input(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    err
}

#[allow(dead_code)]
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
        .join(name)
}

#[allow(dead_code)]
fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample_data")
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
