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

use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind};
use crossterm::execute;

pub mod app;
pub mod detail_pane;
pub mod fit;
pub mod keys;
pub mod list;
pub mod model_pane;
pub mod popup;
pub mod status;
pub mod text;
pub mod theme;
pub mod ui;

#[cfg(test)]
mod tests;

pub use app::App;

use crate::dataset::Dataset;
use crate::models::ModelOptions;
use crate::review::Session;

/// What the UI opens with.
pub struct TuiArgs {
    pub dataset: Dataset,
    /// Session journals; `None` keeps no journal.
    pub store: Option<PathBuf>,
    pub model: String,
    pub options: ModelOptions,
    /// The model was named on the command line: it replaces the one a
    /// resumed session last used (which is recorded in the journal).
    pub model_given: bool,
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

/// Runs the UI until the curator quits.
pub fn run(args: TuiArgs) -> anyhow::Result<()> {
    let (mut session, resume) = Session::open(args.dataset, args.store.as_deref())?;
    prefer_named_model(&mut session, &args.model, &args.options, args.model_given)?;
    let mut app = App::new(session, &resume, &args.model, args.options);
    app.start_fit(false);
    app.refresh_detail();

    let mut terminal = ratatui::init();
    // ratatui's hook restores the screen on a panic; mouse capture is ours.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(std::io::stdout(), DisableMouseCapture);
        previous(info);
    }));
    let _ = execute!(std::io::stdout(), EnableMouseCapture);
    let result = event_loop(&mut terminal, &mut app);
    let _ = execute!(std::io::stdout(), DisableMouseCapture);
    ratatui::restore();
    result
}

fn event_loop(terminal: &mut ratatui::DefaultTerminal, app: &mut App) -> anyhow::Result<()> {
    while !app.quit {
        terminal.draw(|frame| frame.render_widget(&*app, frame.area()))?;
        if event::poll(Duration::from_millis(50))? {
            match event::read()? {
                Event::Key(k) if k.kind == KeyEventKind::Press => app.handle_key(&k),
                Event::Mouse(m) => app.handle_mouse(&m),
                _ => {}
            }
        }
        app.poll_worker();
        app.tick(std::time::Instant::now());
    }
    Ok(())
}
