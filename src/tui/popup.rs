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
pub mod comment;
pub mod confirm;
pub mod field_picker;
pub mod filter;
pub mod help;
pub mod model_picker;
pub mod notes;
pub mod option_values;
pub mod record;
pub mod scrolled;
pub mod search;
pub mod threshold;

pub use class_picker::ClassPicker;
pub use comment::CommentPrompt;
pub use filter::FilterMenu;
pub use help::Help;
pub use model_picker::ModelPicker;
pub use notes::Notes;
pub use record::RecordView;
pub use search::SearchPrompt;
pub use threshold::ThresholdPrompt;

/// The open popup.
#[derive(Clone, Debug, PartialEq)]
pub enum Popup {
    Help(Help),
    Notes(Notes),
    Record(RecordView),
    Filter(FilterMenu),
    ClassPicker(ClassPicker),
    ModelPicker(Box<ModelPicker>),
    Threshold(ThresholdPrompt),
    Search(SearchPrompt),
    Comment(CommentPrompt),
    ConfirmQuit,
    ConfirmOverwrite,
    /// Accept every suggestion at or above the threshold (with what it
    /// would change).
    ConfirmAcceptAll(confirm::AcceptAll),
    /// The input changed on disk: what now?
    InputChanged,
}

/// What a popup reads: the session, the keys (for its hints), the colours,
/// and the last message (the notes show it whole).
pub struct PopupContext<'a> {
    pub session: &'a Session,
    pub message: Option<&'a str>,
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
    /// Set (empty: remove) a sample's comment.
    Comment {
        sample: usize,
        text: String,
    },
    Quit,
    Export {
        overwrite: bool,
    },
    /// Export, and quit once it is written.
    ExportThenQuit,
    /// Accept every suggestion at or above this threshold.
    AcceptAll(f64),
    /// Go on with the loaded version of a changed input and export it
    /// under a name of its own.
    ExportAsLoaded,
    /// Go on with the loaded version of a changed input.
    KeepLoaded,
    /// Open the input again as it is now.
    Reopen,
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
            Popup::Notes(p) => p.handle_key(key, ctx),
            Popup::Record(p) => p.handle_key(key, ctx),
            Popup::Filter(p) => p.handle_key(key, ctx),
            Popup::ClassPicker(p) => p.handle_key(key, ctx),
            Popup::ModelPicker(p) => p.handle_key(key, ctx),
            Popup::Threshold(p) => p.handle_key(key, ctx),
            Popup::Search(p) => p.handle_key(key, ctx),
            Popup::Comment(p) => p.handle_key(key, ctx),
            Popup::ConfirmQuit => confirm::Quit.handle_key(key, ctx),
            Popup::ConfirmOverwrite => confirm::Overwrite.handle_key(key, ctx),
            Popup::ConfirmAcceptAll(p) => p.handle_key(key, ctx),
            Popup::InputChanged => confirm::InputChanged.handle_key(key, ctx),
        }
    }

    /// The text being typed, when this popup is a text field (a search, the
    /// threshold, a comment, a model option being edited): where pasted
    /// text goes.
    pub fn text_field(&mut self) -> Option<&mut String> {
        match self {
            Popup::Search(p) => Some(&mut p.input),
            Popup::Threshold(p) => Some(&mut p.input),
            Popup::Comment(p) => Some(&mut p.input),
            Popup::ModelPicker(p) => p.editing.as_mut(),
            _ => None,
        }
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        match self {
            Popup::Help(p) => p.render(area, buf, ctx),
            Popup::Notes(p) => p.render(area, buf, ctx),
            Popup::Record(p) => p.render(area, buf, ctx),
            Popup::Filter(p) => p.render(area, buf, ctx),
            Popup::ClassPicker(p) => p.render(area, buf, ctx),
            Popup::ModelPicker(p) => p.render(area, buf, ctx),
            Popup::Threshold(p) => p.render(area, buf, ctx),
            Popup::Search(p) => p.render(area, buf, ctx),
            Popup::Comment(p) => p.render(area, buf, ctx),
            Popup::ConfirmQuit => confirm::Quit.render(area, buf, ctx),
            Popup::ConfirmOverwrite => confirm::Overwrite.render(area, buf, ctx),
            Popup::ConfirmAcceptAll(p) => p.render(area, buf, ctx),
            Popup::InputChanged => confirm::InputChanged.render(area, buf, ctx),
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
/// The lines of a menu in at most `rows` lines: every entry when they fit,
/// else a window that keeps the highlighted entry in view, between lines
/// saying how many are above and below (thirty classes do not fit a
/// 24-line screen, and a highlight off the screen is a guess).
pub fn menu(entries: &[String], selected: usize, theme: &Theme, rows: usize) -> Vec<Line<'static>> {
    let line = |i: usize| {
        let e = &entries[i];
        if i == selected {
            Line::from(Span::styled(format!("▶ {e}"), theme.selected))
        } else {
            Line::from(format!("  {e}"))
        }
    };
    let n = entries.len();
    if n <= rows || rows < 3 {
        return (0..n).map(line).collect();
    }
    let room = rows - 2;
    let first = selected.saturating_sub(room / 2).min(n - room);
    let more = |k: usize, arrow: &str| {
        let text = if k > 0 {
            format!("  {arrow} {k} more")
        } else {
            String::new()
        };
        Line::from(Span::styled(text, theme.dim))
    };
    std::iter::once(more(first, "↑"))
        .chain((first..first + room).map(line))
        .chain(std::iter::once(more(n - first - room, "↓")))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn a_long_menu_keeps_the_highlight_in_view() {
        let entries: Vec<String> = (0..30).map(|i| format!("class_{i:02}")).collect();
        let theme = Theme::monochrome();
        // Room for all: every entry, no markers.
        assert_eq!(menu(&entries, 27, &theme, 40).len(), 30);
        // Ten rows: eight entries between the markers, the highlight among them.
        let end = texts(&menu(&entries, 27, &theme, 10));
        assert_eq!(end.len(), 10);
        assert_eq!(end[0], "  ↑ 22 more");
        assert!(end.contains(&"▶ class_27".to_string()), "{end:?}");
        assert_eq!((end[8].as_str(), end[9].as_str()), ("  class_29", ""));
        let start = texts(&menu(&entries, 0, &theme, 10));
        assert_eq!((start[0].as_str(), start[1].as_str()), ("", "▶ class_00"));
        assert_eq!(start[9], "  ↓ 22 more");
        let middle = texts(&menu(&entries, 15, &theme, 10));
        assert_eq!(
            (middle[0].as_str(), middle[9].as_str()),
            ("  ↑ 11 more", "  ↓ 11 more")
        );
        assert!(middle.contains(&"▶ class_15".to_string()), "{middle:?}");
    }
}
