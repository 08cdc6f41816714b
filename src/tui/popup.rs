//! Popups take the keys until they close. Each popup is a struct in its own
//! file that owns its keys (read through the `[popup]` key table) and its
//! drawing; `App` only hands keys to the open one and carries out the
//! `Command` it returns, so a popup never reaches into the app.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

use super::keys::{KeyMap, PopupAction};
use super::theme::Theme;
use crate::models::ModelOptions;
use crate::review::{Filter, Session};

pub mod class_picker;
pub mod confirm;
pub mod filter;
pub mod help;
pub mod model_picker;
pub mod search;
pub mod threshold;

pub use class_picker::ClassPicker;
pub use filter::FilterMenu;
pub use help::Help;
pub use model_picker::ModelPicker;
pub use search::SearchPrompt;
pub use threshold::ThresholdPrompt;

/// The open popup.
#[derive(Clone, Debug, PartialEq)]
pub enum Popup {
    Help(Help),
    Filter(FilterMenu),
    ClassPicker(ClassPicker),
    ModelPicker(Box<ModelPicker>),
    Threshold(ThresholdPrompt),
    Search(SearchPrompt),
    ConfirmQuit,
    ConfirmOverwrite,
}

/// What a popup reads: the session, the keys (for its hints), the colours.
pub struct PopupContext<'a> {
    pub session: &'a Session,
    pub keys: &'a KeyMap,
    pub theme: &'a Theme,
}

/// What became of a key.
#[derive(Clone, Debug, PartialEq)]
pub enum PopupOutcome {
    /// The popup stays open.
    Stay,
    /// The input was not acceptable: the app shows this error and the
    /// popup stays open to correct it.
    Invalid(String),
    /// The popup closes.
    Close,
    /// The popup closes and the app does this.
    Then(Command),
}

/// What a popup asks the app to do once it closed.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    ApplyFilter(Filter),
    /// Relabel the selected sample to its n-th class by posterior (0-based).
    RelabelToRank(usize),
    SetThreshold(f64),
    Search(String),
    Quit,
    Export {
        overwrite: bool,
    },
    Info(String),
    /// Record the model choice and fit it.
    Fit {
        model: String,
        options: Box<ModelOptions>,
    },
}

/// Keys and drawing of one popup.
pub trait PopupComponent {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome;
    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext);
}

impl Popup {
    pub fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        match self {
            Popup::Help(p) => p.handle_key(key, ctx),
            Popup::Filter(p) => p.handle_key(key, ctx),
            Popup::ClassPicker(p) => p.handle_key(key, ctx),
            Popup::ModelPicker(p) => p.handle_key(key, ctx),
            Popup::Threshold(p) => p.handle_key(key, ctx),
            Popup::Search(p) => p.handle_key(key, ctx),
            Popup::ConfirmQuit => confirm::Quit.handle_key(key, ctx),
            Popup::ConfirmOverwrite => confirm::Overwrite.handle_key(key, ctx),
        }
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        match self {
            Popup::Help(p) => p.render(area, buf, ctx),
            Popup::Filter(p) => p.render(area, buf, ctx),
            Popup::ClassPicker(p) => p.render(area, buf, ctx),
            Popup::ModelPicker(p) => p.render(area, buf, ctx),
            Popup::Threshold(p) => p.render(area, buf, ctx),
            Popup::Search(p) => p.render(area, buf, ctx),
            Popup::ConfirmQuit => confirm::Quit.render(area, buf, ctx),
            Popup::ConfirmOverwrite => confirm::Overwrite.render(area, buf, ctx),
        }
    }
}

/// Draws a bordered popup of (at most) `w` x `h` in the middle of `area`.
pub fn frame(
    title: &str,
    lines: Vec<Line>,
    (w, h): (u16, u16),
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
) {
    let w = w.min(area.width);
    let h = h.min(area.height);
    let rect = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    Clear.render(rect, buf);
    Paragraph::new(lines)
        .block(
            Block::bordered()
                .title(Line::from(format!(" {title} ")))
                .border_style(theme.popup_border),
        )
        .render(rect, buf);
}

/// A menu's lines, the highlighted entry marked and reversed.
pub fn menu(entries: &[String], selected: usize, theme: &Theme) -> Vec<Line<'static>> {
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            if i == selected {
                Line::from(Span::styled(format!("▶ {e}"), theme.selected))
            } else {
                Line::from(format!("  {e}"))
            }
        })
        .collect()
}

/// Moves a highlighted entry of `n` by a popup key; `None` for other keys.
pub fn step(action: Option<PopupAction>, i: usize, n: usize, page: usize) -> Option<usize> {
    let last = n.saturating_sub(1);
    Some(match action? {
        PopupAction::Up => i.saturating_sub(1),
        PopupAction::Down => (i + 1).min(last),
        PopupAction::Top => 0,
        PopupAction::Bottom => last,
        PopupAction::PageUp => i.saturating_sub(page),
        PopupAction::PageDown => (i + page).min(last),
        _ => return None,
    })
}

/// What a key does to a text field.
pub enum Typed {
    Confirm,
    Cancel,
    /// The text changed (or the key was ignored).
    Edited,
}

/// A text field: the popup table's confirm, cancel and delete_char keys
/// act; any other character is typed.
pub fn type_into(input: &mut String, key: &KeyEvent, keys: &KeyMap) -> Typed {
    match keys.popup_action(key) {
        Some(PopupAction::Confirm) => return Typed::Confirm,
        Some(PopupAction::Cancel) => return Typed::Cancel,
        Some(PopupAction::DeleteChar) => {
            input.pop();
            return Typed::Edited;
        }
        _ => {}
    }
    if let KeyCode::Char(c) = key.code {
        input.push(c);
    }
    Typed::Edited
}
