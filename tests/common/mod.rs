//! Helpers every integration test uses: the binary, a command that must
//! succeed or be refused, the sample files, test files in temporary
//! directories (`files`, shared with the library's tests), and scan's CSV
//! output.
// Each test file uses some of them.
#![allow(dead_code, unused_imports, clippy::unwrap_used)]

use std::borrow::BorrowMut;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

mod files;
pub use files::*;

pub fn relabel() -> Command {
    Command::cargo_bin("relabel").unwrap()
}

/// `relabel scan FILE ARGS`, to run or to add arguments to.
pub fn scan(file: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> Command {
    let mut cmd = relabel();
    cmd.arg("scan").arg(file).args(args);
    cmd
}

/// Runs the command, expects exit 2, one line on stderr and nothing on
/// stdout; returns the line.
pub fn refused(mut cmd: impl BorrowMut<Command>) -> String {
    let out = cmd
        .borrow_mut()
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "wrote {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    stderr
}

/// Runs the command and fails the test with its stderr unless it succeeds.
pub fn succeed(mut cmd: impl BorrowMut<Command>) -> std::process::Output {
    let out = cmd.borrow_mut().output().unwrap();
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
/// `relabel scan ARGS`, writing its ranking and report into `dir`; it must
/// succeed. The ranking's text and the report.
pub fn scan_with_report(dir: &Path, args: &[&str]) -> (String, serde_json::Value) {
    let (out, report) = (dir.join("ranking.csv"), dir.join("report.json"));
    relabel()
        .arg("scan")
        .args(args)
        .arg("--out")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    (std::fs::read_to_string(&out).unwrap(), read_json(&report))
}

/// A JSON file a command wrote (a `--report`).
pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

pub fn parse_csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

/// The label column of [`hostile_review`]'s table: markup in a column name.
pub const HOSTILE_LABEL: &str = "<u>label</u>";
/// Ids of [`hostile_review`]'s table that would be markup if not escaped.
pub const HOSTILE_IDS: [&str; 2] = ["<script>alert(1)</script>", "a&b \"c\" 'd'"];
/// A class name of [`hostile_review`]'s table (iris's setosa) with markup.
pub const HOSTILE_CLASS: &str = "<b>set&osa</b>";
/// The model [`hostile_review`]'s screen showed before each decision.
pub const HOSTILE_MODEL: &str = "<i>shown</i> & \"model\"";

/// The comment [`hostile_review`] writes on a relabelled sample (0) and
/// on an undecided one (10).
pub const HOSTILE_COMMENT: &str = "<b>why</b> & \"see\" 'sheet 2'";

/// A reviewed copy of iris_noisy.csv in a temp dir, its session in a temp
/// data home (the Linux layout the binary finds with XDG_DATA_HOME).
pub struct Reviewed {
    pub dir: tempfile::TempDir,
    pub data_home: tempfile::TempDir,
    pub input: PathBuf,
    /// Samples relabelled, kept and dropped.
    pub decided: [Vec<usize>; 3],
}

impl Reviewed {
    /// `relabel ARGS` on the input with this session store and the label column.
    pub fn relabel(&self, args: &[&str]) -> Command {
        let mut cmd = relabel();
        cmd.args(args)
            .arg(&self.input)
            .args(["--label", HOSTILE_LABEL])
            .env("XDG_DATA_HOME", self.data_home.path());
        cmd
    }
}

/// iris_noisy.csv with markup in two ids, a class name and the label
/// column's name, reviewed with model `model`: samples 0..4 relabelled to
/// the next class, 5 kept, 6 dropped, each shown 0.25 suspect by
/// [`HOSTILE_MODEL`] before it was decided; 0 and the undecided 10 carry
/// [`HOSTILE_COMMENT`].
pub fn hostile_review(model: &str) -> Reviewed {
    use relabel::dataset::{LoadOptions, load};
    let dir = tempfile::tempdir().unwrap();
    let data_home = tempfile::tempdir().unwrap();
    let input = dir.path().join("iris_noisy.csv");
    let text = std::fs::read_to_string(sample("iris_noisy.csv")).unwrap();
    let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let mut lines: Vec<String> = text
        .lines()
        .map(|l| l.replace(",setosa,", &format!(",{},", quote(HOSTILE_CLASS))))
        .collect();
    lines[0] = lines[0].replacen(",label,", &format!(",{},", quote(HOSTILE_LABEL)), 1);
    for (line, id) in lines[1..].iter_mut().zip(HOSTILE_IDS) {
        let rest = line.split_once(',').unwrap().1.to_string();
        *line = format!("{},{rest}", quote(id));
    }
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    let store = data_home.path().join("relabel").join("sessions");
    let options = LoadOptions {
        label: Some(HOSTILE_LABEL.into()),
        ..LoadOptions::default()
    };
    let ds = load(&input, &options).unwrap();
    let (mut session, _) = relabel::review::Session::open(ds, Some(&store)).unwrap();
    session
        .set_model_choice(model, &relabel::models::ModelOptions::default())
        .unwrap();
    // What the screen showed before the decisions: every sample 0.25
    // suspect, by a model whose name is markup too.
    let (n, k) = (
        session.dataset().n_samples(),
        session.dataset().classes.len(),
    );
    let labels = session.dataset().labels.clone();
    let posterior = nalgebra::DMatrix::from_fn(n, k, |i, c| {
        if c == labels[i] {
            0.75
        } else {
            0.25 / (k - 1) as f64
        }
    });
    session.set_fit(
        HOSTILE_MODEL,
        relabel::models::Fit::from_posterior(posterior, &labels),
    );
    let relabelled = vec![0, 1, 2, 3];
    for &s in &relabelled {
        let other = (session.dataset().labels[s] + 1) % session.dataset().classes.len();
        session.relabel(s, other).unwrap();
    }
    session.keep(5).unwrap();
    session.drop_sample(6).unwrap();
    session.comment(0, HOSTILE_COMMENT).unwrap();
    session.comment(10, HOSTILE_COMMENT).unwrap();
    Reviewed {
        dir,
        data_home,
        input,
        decided: [relabelled, vec![5], vec![6]],
    }
}
