//! Faults from outside the program (issue 51): no terminal, standard output
//! redirected, signals, a 50 MB line, a journal of a newer format, a full
//! disk under the journal, the input changed on disk during a review. The
//! review screen runs in a pseudo-terminal here, as in a terminal window,
//! so what it leaves the terminal in can be read back.
#![allow(clippy::unwrap_used)]

mod common;
use common::*;

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::termios::{LocalFlags, OutputFlags};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// The review screen (or anything else) running in a pseudo-terminal, with
/// all it wrote so far.
struct InPty {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    master: Box<dyn portable_pty::MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    output: Arc<Mutex<Vec<u8>>>,
}

/// Runs `program args` in an 80x24 pseudo-terminal with its own session
/// store and config directory under `home`.
fn spawn(program: &str, args: &[&str], home: &Path) -> InPty {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 24,
            cols: 80,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(program);
    cmd.args(args);
    cmd.cwd(home);
    cmd.env("XDG_DATA_HOME", home.join("data"));
    cmd.env("XDG_CONFIG_HOME", home.join("config"));
    cmd.env("TERM", "xterm-256color");
    let child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let output = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&output);
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    let writer = pair.master.take_writer().unwrap();
    InPty {
        child,
        master: pair.master,
        writer,
        output,
    }
}

impl InPty {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.output.lock().unwrap()).into_owned()
    }

    /// Waits until `seen()` (the output, or the screen) holds `what`.
    fn wait_until_in(&self, what: &str, seen: impl Fn() -> String) {
        let start = Instant::now();
        while !seen().contains(what) {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no {what:?} on the screen:\n{}",
                seen()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until the output holds `what`.
    fn wait_for(&self, what: &str) {
        self.wait_until_in(what, || self.text());
    }

    /// The screen as the terminal shows it now: the output replayed on the
    /// 80 x 24 grid (cursor moves, clears and printed characters; colours
    /// and modes skipped), a line a row. ratatui redraws only the cells
    /// that changed, so a sentence is whole on the grid, not in the output.
    fn screen(&self) -> String {
        let text = self.text();
        let mut grid = vec![vec![' '; 80]; 24];
        let (mut row, mut col) = (0usize, 0usize);
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\x1b' if chars.peek() == Some(&'[') => {
                    chars.next();
                    let mut params = String::new();
                    let mut end = ' ';
                    for d in chars.by_ref() {
                        if ('@'..='~').contains(&d) {
                            end = d;
                            break;
                        }
                        params.push(d);
                    }
                    let mut at = params.split(';').map(|p| p.parse::<usize>().unwrap_or(1));
                    match end {
                        'H' => {
                            row = at.next().unwrap_or(1).saturating_sub(1);
                            col = at.next().unwrap_or(1).saturating_sub(1);
                        }
                        'J' if params == "2" => grid = vec![vec![' '; 80]; 24],
                        _ => {}
                    }
                }
                '\x1b' => {
                    chars.next();
                }
                '\r' => col = 0,
                '\n' => row += 1,
                c if !c.is_control() => {
                    if let Some(cell) = grid.get_mut(row).and_then(|r| r.get_mut(col)) {
                        *cell = c;
                    }
                    col += 1;
                }
                _ => {}
            }
        }
        grid.iter()
            .map(|r| r.iter().collect::<String>() + "\n")
            .collect()
    }

    /// Waits until the screen shows `what`.
    fn wait_to_show(&self, what: &str) {
        self.wait_until_in(what, || self.screen());
    }

    fn signal(&self, name: &str) {
        let pid = self.child.process_id().unwrap().to_string();
        let status = std::process::Command::new("kill")
            .args(["-s", name, &pid])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// The exit code, once the process ended.
    fn exit_code(&mut self) -> u32 {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.exit_code();
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "still running: {:?}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The terminal is as a shell needs it: characters echoed, lines
    /// edited, Ctrl-C a signal, output processed.
    fn assert_cooked(&self) {
        let t = self.master.get_termios().unwrap();
        for flag in [LocalFlags::ECHO, LocalFlags::ICANON, LocalFlags::ISIG] {
            assert!(t.local_flags.contains(flag), "{flag:?} is off");
        }
        assert!(t.output_flags.contains(OutputFlags::OPOST), "-opost");
    }
}

/// Whether `off` comes after the last `on` in `text`.
fn turned_off(text: &str, on: &str, off: &str) -> bool {
    match (text.rfind(on), text.rfind(off)) {
        (Some(a), Some(b)) => b > a,
        (None, _) => true,
        _ => false,
    }
}

const RELABEL: &str = env!("CARGO_BIN_EXE_relabel");

/// The demo's screen, stopped by `signal`: the terminal is restored (cooked
/// mode, main screen, no mouse reporting) and the exit code is the shell's.
fn restored_after(signal: &str, number: u32) {
    let home = tempfile::tempdir().unwrap();
    let mut screen = spawn(RELABEL, &[], home.path());
    screen.wait_for("samples");
    screen.signal(signal);
    assert_eq!(screen.exit_code(), 128 + number, "{}", screen.text());
    screen.assert_cooked();
    screen.wait_for("stopped by SIG");
    let text = screen.text();
    assert!(
        turned_off(&text, "\x1b[?1049h", "\x1b[?1049l"),
        "still on the alternate screen"
    );
    assert!(
        turned_off(&text, "\x1b[?1000h", "\x1b[?1000l"),
        "mouse reporting left on"
    );
}

#[test]
fn sigterm_restores_the_terminal() {
    restored_after("TERM", 15);
}

#[test]
fn sighup_restores_the_terminal() {
    restored_after("HUP", 1);
}

#[test]
fn sigint_restores_the_terminal() {
    restored_after("INT", 2);
}

#[test]
fn with_stdout_redirected_the_screen_is_drawn_on_the_terminal() {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("out");
    let script = "exec \"$0\" \"$1\" > \"$2\"";
    let iris = sample("iris.csv");
    let mut screen = spawn(
        "sh",
        &[
            "-c",
            script,
            RELABEL,
            iris.to_str().unwrap(),
            out.to_str().unwrap(),
        ],
        home.path(),
    );
    screen.wait_for("samples");
    screen.writer.write_all(b"q").unwrap();
    assert_eq!(screen.exit_code(), 0, "{}", screen.text());
    screen.assert_cooked();
    assert_eq!(
        std::fs::read(&out).unwrap(),
        b"",
        "escape codes in the file"
    );
}

#[test]
fn without_a_terminal_the_screen_says_so_in_one_line() {
    let iris = sample("iris.csv");
    for args in [vec![iris.to_str().unwrap()], vec![]] {
        let home = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(RELABEL)
            .args(&args)
            .env("XDG_DATA_HOME", home.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("relabel: no terminal") && stderr.contains("relabel scan"),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
        assert!(!home.path().join("relabel").exists(), "a session was begun");
    }
}

/// A journal of a newer format: `export` and the review screen both
/// refuse it with exit code 2 and the same one line.
#[test]
fn a_newer_journal_gives_exit_2_from_the_screen_as_from_export() {
    let home = tempfile::tempdir().unwrap();
    let iris = home.path().join("iris.csv");
    std::fs::copy(sample("iris.csv"), &iris).unwrap();
    let mut first = spawn(RELABEL, &[iris.to_str().unwrap()], home.path());
    first.wait_for("samples");
    first.writer.write_all(b"q").unwrap();
    assert_eq!(first.exit_code(), 0);
    let store = home.path().join("data/relabel/sessions");
    let journal = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let text = std::fs::read_to_string(&journal).unwrap();
    std::fs::write(&journal, text.replace("\"version\":1", "\"version\":99")).unwrap();

    let export = relabel()
        .args(["export", iris.to_str().unwrap()])
        .env("XDG_DATA_HOME", home.path().join("data"))
        .output()
        .unwrap();
    assert_eq!(export.status.code(), Some(2));
    let said = String::from_utf8(export.stderr).unwrap();
    assert!(said.contains("newer relabel"), "{said}");

    let mut screen = spawn(RELABEL, &[iris.to_str().unwrap()], home.path());
    assert_eq!(screen.exit_code(), 2, "{}", screen.text());
    screen.wait_for("newer relabel");
    screen.assert_cooked();
}

/// A one-line file of 25 million fields (50 MB) is refused within 1 GiB
/// of address space, in one line.
#[test]
fn a_fifty_megabyte_line_is_refused_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("wide.csv");
    std::fs::write(&file, b"x,".repeat(25 << 20)).unwrap();
    let out = std::process::Command::new("sh")
        .args([
            "-c",
            "ulimit -v 1048576 && exec \"$0\" scan \"$1\" --out \"$2\"",
            RELABEL,
            file.to_str().unwrap(),
            dir.path().join("o.csv").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no samples"), "{stderr}");
}

/// Issue 51: the journal's disk fills during a review (here the file-size
/// limit, lowered from outside, then raised again as when space is freed):
/// the failed decision is said and not shown, the next one after the room
/// is back is saved, said, and the journal reads whole with every saved
/// decision in it.
#[test]
fn a_full_disk_during_a_review_loses_nothing_saved_and_recovers() {
    let home = tempfile::tempdir().unwrap();
    // 1 block of 512 bytes: the journal's header fits, a few decisions do
    // not. SIGXFSZ is ignored, so a write past the limit fails (EFBIG) as on
    // a full disk instead of killing the process.
    let script = "trap '' XFSZ; ulimit -S -f 1; exec \"$0\"";
    let mut screen = spawn("sh", &["-c", script, RELABEL], home.path());
    screen.wait_for("samples");
    let mut refused = false;
    for _ in 0..20 {
        screen.writer.write_all(b" ").unwrap();
        std::thread::sleep(Duration::from_millis(150));
        if screen.text().contains("cannot write") {
            refused = true;
            break;
        }
    }
    assert!(refused, "no write failed: {:?}", screen.text());
    let seen = screen.text().len();
    let pid = screen.child.process_id().unwrap().to_string();
    let raised = std::process::Command::new("prlimit")
        .args(["--pid", &pid, "--fsize=unlimited:unlimited"])
        .status()
        .unwrap();
    assert!(raised.success());
    // Read on the replayed screen, not in the output: ratatui sends only the
    // cells that changed, so "kept" written over "re-ranked" arrives as "k",
    // a cursor move and "pt". A refit started by the earlier decisions may
    // also finish in the same frame as this key and say so instead: then the
    // next key's decision is the one said. Each try is a decision made after
    // the room came back.
    let start = Instant::now();
    let mut said = false;
    while !said && start.elapsed() < Duration::from_secs(30) {
        screen.writer.write_all(b" ").unwrap();
        let pressed = Instant::now();
        while !said && pressed.elapsed() < Duration::from_secs(3) {
            std::thread::sleep(Duration::from_millis(20));
            said = screen.screen().contains("kept");
        }
    }
    assert!(
        said,
        "no decision after the room came back was said: {:?}",
        &screen.text()[seen..]
    );
    screen.writer.write_all(b"qy").unwrap();
    assert_eq!(screen.exit_code(), 0, "{}", screen.text());
    screen.assert_cooked();
    let store = home.path().join("data").join("relabel").join("sessions");
    let journal = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap();
    let text = std::fs::read_to_string(&journal).unwrap();
    // Every line but a torn one (ended by the next write) is a whole entry,
    // and the last decision is among them.
    let whole: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert!(text.ends_with('\n'), "{text}");
    assert!(
        whole.last().unwrap()["kind"] == "step",
        "the last decision is not the journal's last entry: {text}"
    );
    assert!(whole.len() >= 2, "{text}");
}

/// Issue 51, fault 5: the input changes on disk during a review (a row
/// appended, a label cell edited, the file cut in half). `e` then says so
/// and offers the choices instead of writing the version loaded at start
/// under the cleaned file's name (what it did before: "exported
/// iris.cleaned.csv", the outside change silently reverted); choosing the
/// export writes the loaded version under a name that says so.
#[test]
fn a_changed_input_is_named_before_an_export() {
    let original = std::fs::read_to_string(sample("iris.csv")).unwrap();
    let appended = format!("{original}151,setosa,5,3.4,1.5,0.2\n");
    let edited = original.replacen("1,setosa,", "1,versicolor,", 1);
    let halved = original[..original.len() / 2].to_string();
    for changed in [appended, edited, halved] {
        let home = tempfile::tempdir().unwrap();
        let iris = home.path().join("iris.csv");
        std::fs::write(&iris, &original).unwrap();
        let mut screen = spawn(RELABEL, &[iris.to_str().unwrap()], home.path());
        screen.wait_to_show("samples");
        screen.writer.write_all(b" ").unwrap();
        screen.wait_to_show("kept");
        std::fs::write(&iris, &changed).unwrap();
        screen.writer.write_all(b"e").unwrap();
        screen.wait_to_show("iris.csv changed on disk since it was loaded");
        let shown = screen.screen();
        assert!(
            shown.contains("against the loaded version (*.as-loaded.*)"),
            "{shown}"
        );
        assert!(shown.contains("r reopen the file as it is now"), "{shown}");
        let written = |name: &str| home.path().join(name).exists();
        assert!(
            !written("iris.cleaned.csv") && !written("iris.audit.csv"),
            "exported without a word: {shown}"
        );
        screen.writer.write_all(b"e").unwrap();
        screen.wait_to_show("exported");
        let cleaned = std::fs::read_to_string(home.path().join("iris.as-loaded.cleaned.csv"));
        assert_eq!(cleaned.unwrap(), original, "not the loaded version");
        assert!(!written("iris.cleaned.csv"));
        assert_eq!(std::fs::read_to_string(&iris).unwrap(), changed);
        screen.writer.write_all(b"q").unwrap();
        assert_eq!(screen.exit_code(), 0, "{}", screen.screen());
        screen.assert_cooked();
    }
}
