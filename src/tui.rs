//! The review UI (DESIGN §6): a ratatui app over `review::Session`.
//!
//! One loop: draw, wait up to 50 ms for a key or mouse event, take in what
//! the fit worker sent, repeat. Drawing changes no session data (it keeps
//! only view state: the list's scroll, where it was drawn); keys become
//! `Action`s through the key table and actions become `Session` calls,
//! unless a popup is open: then the popup reads the key through the
//! keymap's `[popup]` table and tells the app what to do.
//!
//! Files: `app` (state, key dispatch), `fit` (the fit in flight), `keys`
//! (both key tables), `ui` (layout), one file per component (`list`,
//! `detail_pane`, `model_pane`, `status`, `popup/*`), `theme` (colours,
//! NO_COLOR), `text` (widths in terminal cells).

use std::path::PathBuf;
use std::time::Duration;

use crossterm::event::{self, EnableBracketedPaste, EnableMouseCapture, Event, KeyEventKind};
use crossterm::execute;

pub mod app;
pub mod detail_pane;
pub mod fit;
pub mod keys;
pub mod list;
pub mod loading;
pub mod model_pane;
pub mod pane_frame;
pub mod popup;
pub mod status;
pub mod terminal;
pub mod text;
pub mod theme;
pub mod ui;

#[cfg(test)]
mod tests;

pub use app::App;

use crate::dataset::{DataError, Dataset, LoadOptions};
use crate::models::ModelOptions;
use crate::review::Session;

/// The table the UI opens: loaded already (the demo), or a file to load
/// in the background while the screen shows its first rows.
pub enum Source {
    Ready(Box<Dataset>),
    File(PathBuf, Box<LoadOptions>),
}

/// What the UI opens with.
pub struct TuiArgs {
    pub source: Source,
    /// Session journals; `None` keeps no journal.
    pub store: Option<PathBuf>,
    pub model: String,
    pub options: ModelOptions,
    /// The model was named on the command line: it replaces the one a
    /// resumed session last used (which is recorded in the journal).
    pub model_given: bool,
    /// Start with no decisions: the earlier session is set aside.
    pub fresh: bool,
}

/// A resumed session refits with the model it last used, unless the
/// curator named one on the command line: then that one is recorded and
/// used (asking for `--model shift` and getting rnda back is a surprise).
pub fn prefer_named_model(
    session: &mut Session,
    model: &str,
    options: &ModelOptions,
    given: bool,
) -> Result<(), crate::review::ReviewError> {
    if given && session.model_choice().is_some() {
        session.set_model_choice(model, options)?;
    }
    Ok(())
}

/// Runs the UI until the curator quits. A table that cannot be read ends
/// it with that [`DataError`] (the caller says it in one line, exit 2);
/// no terminal ends it with [`terminal::NoTerminal`] before anything is
/// read, and a signal with [`terminal::Interrupted`] once the terminal is
/// restored.
pub fn run(args: TuiArgs) -> anyhow::Result<()> {
    let mut terminal = terminal::open()?;
    let TuiArgs {
        source,
        store,
        model,
        options,
        model_given,
        fresh,
    } = args;
    // Only the first opening is fresh: a reopen goes on with what it made.
    let mut fresh = Some(fresh);
    let mut source = Some(source);
    let result = loop {
        let Some(next) = source.take() else {
            break Ok(());
        };
        // What reopening loads: the same file with the same options.
        let again = match &next {
            Source::File(path, opts) => Some(Source::File(path.clone(), opts.clone())),
            Source::Ready(_) => None,
        };
        let reviewed = match load(&mut terminal, next, (&model, &options)) {
            Ok(Some(dataset)) => review(
                &mut terminal,
                dataset,
                store.as_deref(),
                (&model, options.clone(), model_given),
                fresh.take().unwrap_or(false),
            ),
            Ok(None) => Ok(false),
            Err(e) => Err(e),
        };
        match reviewed {
            Ok(true) => source = again,
            Ok(false) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    terminal::restore();
    result
}

/// Opens the session on `dataset` and runs the review until the curator
/// quits; whether they asked to reopen the file (it changed on disk).
fn review(
    terminal: &mut terminal::Screen,
    dataset: Dataset,
    store: Option<&std::path::Path>,
    (model, options, model_given): (&str, ModelOptions, bool),
    fresh: bool,
) -> anyhow::Result<bool> {
    let (mut session, resume) = if fresh {
        Session::open_fresh(dataset, store)?
    } else {
        Session::open(dataset, store)?
    };
    prefer_named_model(&mut session, model, &options, model_given)?;
    let mut app = App::new(session, &resume, model, options);
    app.start_fit(false);
    app.refresh_detail();
    // Turned off again by `terminal::restore`, however the screen ends.
    let _ = execute!(
        terminal.backend_mut(),
        EnableMouseCapture,
        EnableBracketedPaste
    );
    event_loop(terminal, &mut app)?;
    Ok(app.reopen)
}

/// The table, loaded on a worker thread while the loading screen shows the
/// file's first rows; `None` when the curator quit first.
fn load(
    terminal: &mut terminal::Screen,
    source: Source,
    model: (&str, &ModelOptions),
) -> anyhow::Result<Option<Dataset>> {
    let (path, mut options) = match source {
        Source::Ready(ds) => return Ok(Some(*ds)),
        Source::File(path, options) => (path, *options),
    };
    loop {
        match load_file(terminal, &path, &options, model) {
            // A GEO file opened without --label: its fields are offered.
            Err(e) if options.label.is_none() && e.downcast_ref::<DataError>().is_some() => {
                match popup::field_picker::pick(terminal, &path)? {
                    Some((label, pattern)) => {
                        options.label = Some(label);
                        options.label_pattern = pattern;
                    }
                    None => return Err(e),
                }
            }
            loaded => return loaded,
        }
    }
}

/// [`load`] of one file with one set of options.
fn load_file(
    terminal: &mut terminal::Screen,
    path: &std::path::Path,
    options: &LoadOptions,
    _model: (&str, &ModelOptions),
) -> anyhow::Result<Option<Dataset>> {
    let path = path.to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel::<Result<Dataset, DataError>>();
    // Started before the preview is read, which it then runs beside.
    let read = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let worker = {
        let (path, options) = (path.clone(), options.clone());
        let read = std::sync::Arc::clone(&read);
        std::thread::Builder::new()
            .name("load".into())
            .spawn(move || {
                let report = |f: f64| {
                    let permille = (f.clamp(0.0, 1.0) * 1000.0) as u32;
                    read.fetch_max(permille, std::sync::atomic::Ordering::Relaxed);
                };
                let loaded = crate::dataset::load_with_progress(&path, &options, &report);
                let _ = tx.send(loaded);
            })?
    };
    let screen = loading::Loading {
        read,
        ..loading::Loading::new(&path, options)
    };
    loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(result) => {
                let _ = worker.join();
                return Ok(Some(result?));
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                anyhow::bail!("the loader of {} stopped unexpectedly", path.display())
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        if let Some(signal) = terminal::signalled() {
            return Err(signal.into());
        }
        terminal.draw(|frame| frame.render_widget(&screen, frame.area()))?;
        while event::poll(Duration::ZERO)? {
            if let Event::Key(k) = event::read()?
                && k.kind == KeyEventKind::Press
                && quits_loading(&k)
            {
                // The loader finishes on its own; nothing was decided yet.
                return Ok(None);
            }
        }
    }
}

/// q, Esc or Ctrl-C leave the loading screen.
fn quits_loading(k: &crossterm::event::KeyEvent) -> bool {
    use crossterm::event::{KeyCode, KeyModifiers};
    match k.code {
        KeyCode::Char('q') | KeyCode::Esc => true,
        KeyCode::Char('c') => k.modifiers.contains(KeyModifiers::CONTROL),
        _ => false,
    }
}

fn event_loop(terminal: &mut terminal::Screen, app: &mut App) -> anyhow::Result<()> {
    while !app.quit {
        if let Some(signal) = terminal::signalled() {
            return Err(signal.into());
        }
        terminal.draw(|frame| frame.render_widget(&*app, frame.area()))?;
        if event::poll(Duration::from_millis(50))? {
            match event::read()? {
                Event::Key(k) if k.kind == KeyEventKind::Press => app.handle_key(&k),
                Event::Mouse(m) => app.handle_mouse(&m),
                Event::Paste(text) => app.handle_paste(&text),
                _ => {}
            }
        }
        app.poll_worker();
        app.tick(std::time::Instant::now());
    }
    Ok(())
}
