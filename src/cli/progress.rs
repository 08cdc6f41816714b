//! The progress bar of headless fits, on stderr. It appears only once a
//! run has taken a second (a quick scan should print nothing but its
//! summary), only when stderr is a terminal (a log file or a pipe must not
//! collect carriage returns and escape codes), and never with `--quiet`.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::models::{Control, Progress};

/// How long a run goes unannounced.
const SHOW_AFTER: Duration = Duration::from_secs(1);
/// Positions on the bar: fine enough for a smooth bar, whole numbers for indicatif.
const STEPS: u64 = 1000;

pub struct Bar {
    bar: ProgressBar,
    /// Set once the run is over, under the lock the revealing thread takes,
    /// so a bar is never revealed after it was cleared.
    done: Arc<Mutex<bool>>,
}

impl Bar {
    /// A bar for a run called `prefix` (e.g. "scan rnda"), hidden for now.
    pub fn new(quiet: bool, prefix: &str) -> Bar {
        let bar = ProgressBar::with_draw_target(Some(STEPS), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} {prefix} [{bar:30}] {percent:>3}% {msg} ({elapsed})",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(prefix.to_string());
        let done = Arc::new(Mutex::new(false));
        if !quiet && std::io::stderr().is_terminal() {
            let (bar, done) = (bar.clone(), Arc::clone(&done));
            // A thread of its own, because a model may report seldom (one
            // long iteration) and `eval` reports only between fits.
            std::thread::spawn(move || {
                std::thread::sleep(SHOW_AFTER);
                if let Ok(done) = done.lock()
                    && !*done
                {
                    bar.set_draw_target(ProgressDrawTarget::stderr());
                    bar.enable_steady_tick(Duration::from_millis(120));
                }
            });
        }
        Bar { bar, done }
    }

    /// Overall completion in [0, 1] and what is running now.
    pub fn set(&self, fraction: f64, message: String) {
        let position = (fraction.clamp(0.0, 1.0) * STEPS as f64).round() as u64;
        self.bar.set_position(position);
        self.bar.set_message(message);
    }

    /// Runs `f` (which prints) with the bar off the screen.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// The callback a fit reports to: `share` of the whole run starts at
    /// `start` (a single fit: 0 and 1).
    pub fn fit_callback(&self, start: f64, share: f64) -> impl FnMut(Progress) -> Control + '_ {
        move |p: Progress| {
            let stage = if p.max_iterations > 0 {
                format!("{} {}/{}", p.stage, p.iteration, p.max_iterations)
            } else {
                format!("{} {}", p.stage, p.iteration)
            };
            self.set(start + share * p.fraction, stage);
            Control::Continue
        }
    }
}

impl Drop for Bar {
    /// Clears the line, so what comes next on stderr (the summary, an
    /// error) starts on a clean one.
    fn drop(&mut self) {
        match self.done.lock() {
            Ok(mut done) => *done = true,
            Err(poisoned) => *poisoned.into_inner() = true,
        }
        self.bar.finish_and_clear();
    }
}
