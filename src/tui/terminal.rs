//! The terminal the review screen draws on, and putting it back as it was
//! whatever ends the screen: a quit, an error, a panic, or SIGTERM, SIGHUP
//! or SIGINT from outside (a closed terminal window, `kill`).
//!
//! The screen draws on standard output when that is a terminal, else on
//! the terminal itself (`/dev/tty`), so `relabel FILE > out` still shows
//! the screen and `out` gets no escape codes. Without any terminal there is
//! no screen: [`NoTerminal`] says so in one line.
//!
//! Every frame is written whole under one lock, and restoring takes the
//! same lock and then closes the output: a signal that arrives mid-frame
//! restores after the frame, and nothing is drawn after the restore.

use std::fs::File;
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use crossterm::event::{DisableBracketedPaste, DisableMouseCapture};
use crossterm::terminal::{self, EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// The review screen needs a terminal and there is none.
#[derive(Debug, thiserror::Error)]
#[error("no terminal: use `relabel scan FILE` to rank the samples without the review screen")]
pub struct NoTerminal;

/// The screen ended on a signal from outside (its number); the terminal
/// is restored by then. Exit with 128 + the number, as the shell would.
#[derive(Debug, thiserror::Error)]
#[error("stopped by {}; every decision made is in the session journal", signal_name(.0))]
pub struct Interrupted(pub i32);

fn signal_name(signal: &i32) -> String {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    match *signal {
        SIGTERM => "SIGTERM".into(),
        SIGHUP => "SIGHUP".into(),
        SIGINT => "SIGINT".into(),
        s => format!("signal {s}"),
    }
}

/// Where frames go: standard output, or the terminal opened by name.
enum Sink {
    Stdout(std::io::Stdout),
    Tty(File),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Stdout(s) => s.write(buf),
            Sink::Tty(f) => f.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Stdout(s) => s.flush(),
            Sink::Tty(f) => f.flush(),
        }
    }
}

/// The open output; `None` before the screen opens and once restored.
static SINK: Mutex<Option<Sink>> = Mutex::new(None);

/// A signal received and not yet acted on (0: none).
static SIGNALLED: AtomicI32 = AtomicI32::new(0);

/// The writer the backend draws into: a frame is gathered, then written
/// and flushed at once under [`SINK`]'s lock.
#[derive(Default)]
pub struct Frames {
    pending: Vec<u8>,
}

impl Write for Frames {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let mut sink = SINK
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let bytes = std::mem::take(&mut self.pending);
        match sink.as_mut() {
            Some(s) => {
                s.write_all(&bytes)?;
                s.flush()
            }
            // Restored already: the frame has nowhere to go.
            None => Ok(()),
        }
    }
}

pub type Screen = Terminal<CrosstermBackend<Frames>>;

/// Whether the screen has somewhere to draw and to read keys from: stdin
/// or stdout is a terminal (`relabel FILE </dev/null >out` in a script has
/// neither, and gets [`NoTerminal`], not a screen drawn elsewhere), and
/// the terminal can be opened (a process without one cannot).
fn sink() -> Result<Sink, NoTerminal> {
    let stdout = std::io::stdout();
    if stdout.is_terminal() {
        return Ok(Sink::Stdout(stdout));
    }
    if !std::io::stdin().is_terminal() {
        return Err(NoTerminal);
    }
    File::options()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .map(Sink::Tty)
        .map_err(|_| NoTerminal)
}

/// Whether [`open`] would find a terminal, without opening the screen.
pub fn available() -> bool {
    sink().is_ok()
}

/// Opens the screen: raw mode, the alternate screen, the panic hook and
/// the signal watcher that restore it.
pub fn open() -> anyhow::Result<Screen> {
    let mut out = sink()?;
    terminal::enable_raw_mode().map_err(|_| NoTerminal)?;
    crossterm::execute!(out, EnterAlternateScreen)?;
    *SINK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(out);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    watch_signals()?;
    Ok(Terminal::new(CrosstermBackend::new(Frames::default()))?)
}

/// Puts the terminal back: mouse reporting and bracketed paste off, the
/// main screen, the cursor shown, cooked mode. Safe to call more than
/// once and from any thread; later frames are dropped.
pub fn restore() {
    let mut sink = SINK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(mut s) = sink.take() {
        let _ = crossterm::execute!(
            s,
            DisableMouseCapture,
            DisableBracketedPaste,
            LeaveAlternateScreen,
            crossterm::cursor::Show
        );
    }
    let _ = terminal::disable_raw_mode();
}

/// A signal the loops must stop for, if one came.
pub fn signalled() -> Option<Interrupted> {
    match SIGNALLED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(Interrupted(s)),
    }
}

/// How long the screen's loop has to notice a signal (it looks every 50
/// ms) before the watcher restores the terminal and exits by itself: the
/// loop may be in the middle of an export of a large file.
const GRACE: Duration = Duration::from_secs(2);

/// SIGTERM, SIGHUP and SIGINT no longer kill the process at once: the
/// screen's loop sees [`signalled`] and ends in order (journal closed,
/// lock released, terminal restored). If it does not within [`GRACE`],
/// the watcher restores the terminal and exits with 128 + the signal.
fn watch_signals() -> anyhow::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                SIGNALLED.store(signal, Ordering::SeqCst);
                std::thread::sleep(GRACE);
                restore();
                eprintln!("relabel: {}", Interrupted(signal));
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}
