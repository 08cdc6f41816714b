//! The README's and the guide's examples, run: every ```console block that
//! follows a `<!-- check -->` line is executed and its output compared with
//! what the page shows, so an example cannot go stale unnoticed. The rules
//! are in docs/GUIDE.md, "Examples that are checked"; in short: `$ ` lines are
//! shell commands run in one fresh directory per block (with `sample_data/`
//! and the binary under test first on PATH), the lines after a command are its
//! stdout and stderr as one stream, compared exactly, where `...` inside a
//! line matches any text and a line of `...` alone matches any lines.
//!
//! Also here, the other page that must not drift: `relabel man`'s KEYS are
//! the review screen's key table.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

const PAGES: [&str; 2] = ["README.md", "docs/GUIDE.md"];
const MARK: &str = "<!-- check";
const ELLIPSIS: &str = "...";
/// Tools beyond the shell's own that examples may call; missing, they fail
/// the check with what to install.
const TOOLS: &[&str] = &["jq"];

/// One command of a checked block and the output the page shows for it.
#[derive(Debug)]
struct Step {
    /// 1-based line of the `$ ` line in the page.
    line: usize,
    command: String,
    expected: Vec<String>,
}

#[derive(Debug)]
struct Block {
    page: &'static str,
    /// 1-based line of the opening fence.
    line: usize,
    exit: i32,
    steps: Vec<Step>,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The exit code a marker asks of a block's last command: `<!-- check -->`
/// is 0, `<!-- check exit=2 -->` is 2.
fn marker_exit(marker: &str) -> Option<i32> {
    let rest = marker
        .trim()
        .strip_prefix(MARK)?
        .strip_suffix("-->")?
        .trim();
    if rest.is_empty() {
        return Some(0);
    }
    rest.strip_prefix("exit=")?.trim().parse().ok()
}

/// The checked blocks of one page. A marker not followed by a console block
/// is a mistake in the page, and says so.
fn blocks(page: &'static str, text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].trim_start().starts_with(MARK) {
            i += 1;
            continue;
        }
        let exit = marker_exit(lines[i])
            .unwrap_or_else(|| panic!("{page}:{}: cannot read marker {:?}", i + 1, lines[i]));
        let fence = i + 1;
        assert!(
            lines.get(fence).is_some_and(|l| l.trim() == "```console"),
            "{page}:{}: a check marker must be followed by a ```console block",
            i + 1
        );
        let mut steps: Vec<Step> = Vec::new();
        let mut j = fence + 1;
        while j < lines.len() && lines[j].trim_end() != "```" {
            let line = lines[j];
            if let Some(command) = line.strip_prefix("$ ") {
                steps.push(Step {
                    line: j + 1,
                    command: command.to_string(),
                    expected: Vec::new(),
                });
            } else {
                let step = steps.last_mut().unwrap_or_else(|| {
                    panic!("{page}:{}: output before the first `$ ` command", j + 1)
                });
                step.expected.push(line.to_string());
            }
            j += 1;
        }
        assert!(j < lines.len(), "{page}:{}: unclosed block", fence + 1);
        assert!(
            !steps.is_empty(),
            "{page}:{}: a checked block without a command",
            fence + 1
        );
        out.push(Block {
            page,
            line: fence + 1,
            exit,
            steps,
        });
        i = j + 1;
    }
    out
}

/// Whether `actual` is what `expected` shows: line by line, exactly, except
/// that `...` inside a line matches any text there and a lone `...` any run
/// of lines.
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e.trim() == ELLIPSIS => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, actual_rest)| line_matches(e, a) && matches(rest, actual_rest)),
    }
}

/// One line against its pattern: the pieces between `...` in order, the
/// first at the start and the last at the end.
fn line_matches(pattern: &str, line: &str) -> bool {
    let pieces: Vec<&str> = pattern.split(ELLIPSIS).collect();
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if pieces.len() == 1 {
        return line == pattern;
    }
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    for piece in &pieces[1..pieces.len() - 1] {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// A directory of one block's own, holding the repository's sample data.
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = repo().join("sample_data");
    let to = dir.path().join("sample_data");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&from, &to).unwrap();
    #[cfg(not(unix))]
    {
        std::fs::create_dir(&to).unwrap();
        for entry in std::fs::read_dir(&from).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    dir
}

fn path_with_binary() -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_relabel"))
        .parent()
        .unwrap()
        .to_path_buf();
    let mut paths = vec![bin];
    if let Some(path) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(paths).unwrap()
}

fn tool_exists(name: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {name} >/dev/null 2>&1")])
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs one step in `dir`: (exit code, stdout and stderr as one stream).
fn run(dir: &Path, command: &str) -> (i32, String) {
    let out = Command::new("sh")
        .args(["-c", &format!("exec 2>&1\n{command}")])
        .current_dir(dir)
        .env("PATH", path_with_binary())
        // Nothing of the user's: sessions and keymaps in the block's directory.
        .env("XDG_DATA_HOME", dir.join(".data"))
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .env("HOME", dir)
        .env("NO_COLOR", "1")
        .env_remove("RELABEL_FUZZ_SECS")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// What to tell the engineer whose change altered an example.
fn mismatch(block: &Block, step: &Step, code: i32, actual: &str, why: &str) -> String {
    format!(
        "{page}:{line}: the example `$ {cmd}` {why}.\n\
         If your change meant this, update only the lines after that `$ ` line in \
         {page} (the block at line {block_line}) to the output below; change nothing \
         else, and keep `...` where a line is meant to be cut (docs/GUIDE.md, \
         \"Examples that are checked\"). If it did not mean this, the example found a \
         regression.\n\
         --- the page shows ---\n{expected}\n--- the command printed (exit {code}) ---\n{actual}",
        page = block.page,
        line = step.line,
        cmd = step.command,
        block_line = block.line,
        expected = step.expected.join("\n"),
    )
}

fn check(block: &Block) -> Result<(), String> {
    for &tool in TOOLS {
        let needs = block.steps.iter().any(|s| {
            s.command
                .split(|c: char| c.is_whitespace() || c == '|' || c == '(' || c == ';')
                .any(|w| w == tool)
        });
        if needs && !tool_exists(tool) {
            return Err(format!(
                "{}:{}: this example needs `{tool}`, which is not installed: install it \
                 (e.g. `apt-get install {tool}`) to run the README's checks",
                block.page, block.line
            ));
        }
    }
    let dir = workdir();
    let last = block.steps.len() - 1;
    for (k, step) in block.steps.iter().enumerate() {
        let (code, actual) = run(dir.path(), &step.command);
        let want = if k == last { block.exit } else { 0 };
        if code != want {
            return Err(mismatch(
                block,
                step,
                code,
                &actual,
                &format!("exited {code}, not {want}"),
            ));
        }
        let lines: Vec<&str> = actual.lines().collect();
        if !matches(&step.expected, &lines) {
            return Err(mismatch(
                block,
                step,
                code,
                &actual,
                "printed something else than the page shows",
            ));
        }
    }
    Ok(())
}

fn page_blocks() -> Vec<Block> {
    PAGES
        .iter()
        .flat_map(|page| {
            let text = std::fs::read_to_string(repo().join(page))
                .unwrap_or_else(|e| panic!("{page}: {e}"));
            blocks(page, &text)
        })
        .collect()
}

#[test]
fn every_checked_example_prints_what_the_page_shows() {
    let all = page_blocks();
    assert!(
        all.iter().any(|b| b.page == "README.md"),
        "README.md has no checked example: mark its quick start with <!-- check -->"
    );
    let failures: Vec<String> = all.iter().filter_map(|b| check(b).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} checked examples differ:\n\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_quick_start_commands_of_the_readme_are_checked() {
    // The README's promises a newcomer types first: the scan summary, the
    // first ranking rows and the eval table must stay among the checked ones.
    let readme: Vec<String> = page_blocks()
        .into_iter()
        .filter(|b| b.page == "README.md")
        .flat_map(|b| b.steps.into_iter().map(|s| s.command))
        .collect();
    for needle in ["relabel scan", "head", "relabel eval"] {
        assert!(
            readme.iter().any(|c| c.contains(needle)),
            "README.md: no checked example runs `{needle}`: {readme:?}"
        );
    }
}

#[test]
fn a_line_of_dots_skips_lines_and_trailing_dots_match_a_prefix() {
    let e = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(matches(&e(&["a", "...", "d"]), &["a", "b", "c", "d"]));
    assert!(matches(&e(&["a", "...", "d"]), &["a", "d"]));
    assert!(!matches(&e(&["a", "...", "d"]), &["a", "b"]));
    assert!(matches(
        &e(&["relabel scan: rnda..."]),
        &["relabel scan: rnda 0.94"]
    ));
    assert!(!matches(
        &e(&["relabel scan: rnda..."]),
        &["relabel scan: rlr"]
    ));
    let summary = "scan: rnda (chosen by auto: ...), 150 samples";
    assert!(matches(
        &e(&[summary]),
        &["scan: rnda (chosen by auto: x, y), 150 samples"]
    ));
    assert!(!matches(
        &e(&[summary]),
        &["scan: rnda (chosen by auto: x), 151 samples"]
    ));
    assert!(!matches(&e(&["ab...ba"]), &["aba"]));
    assert!(!matches(&e(&["0.980"]), &["0.981"]));
    assert!(!matches(&e(&["a"]), &["a", "b"]));
    assert!(matches(&e(&[]), &[]));
}

#[test]
fn blocks_are_read_with_their_commands_output_and_exit_code() {
    let page = "text\n<!-- check exit=2 -->\n```console\n$ one\nout 1\nout 2\n$ two\n```\n\
                <!-- check -->\n```console\n$ three\n```\n```console\n$ unchecked\n```\n";
    let b = blocks("page", page);
    assert_eq!(b.len(), 2);
    assert_eq!((b[0].line, b[0].exit, b[1].exit), (3, 2, 0));
    assert_eq!(b[0].steps[0].command, "one");
    assert_eq!(b[0].steps[0].expected, ["out 1", "out 2"]);
    assert_eq!((b[0].steps[1].line, b[0].steps[1].expected.len()), (7, 0));
    assert_eq!(b[1].steps[0].command, "three");
}

/// roff's escapes for text, as the man page writes its keys.
fn roff(text: &str) -> String {
    text.replace('\\', "\\e").replace('-', "\\-")
}

#[test]
fn the_man_page_lists_every_key_of_the_review_screen() {
    let out = Command::new(env!("CARGO_BIN_EXE_relabel"))
        .arg("man")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = String::from_utf8(out.stdout).unwrap();
    let keys = &page[page.find(".SH KEYS").unwrap()..page.find(".SH FILES").unwrap()];
    let table = relabel::tui::keys::KeyMap::load(None).unwrap();
    let lines = table
        .help_lines()
        .into_iter()
        .chain(table.popup_help_lines());
    let mut n = 0;
    for (k, what) in lines {
        let entry = format!("\\fB{}\\fR\n{}\n", roff(&k), roff(&what));
        assert!(keys.contains(&entry), "KEYS lacks {k:?} ({what}):\n{keys}");
        n += 1;
    }
    assert!(n > 20, "only {n} keys");
}
