//! The help: every binding of both key tables, built from the key map so it
//! never disagrees with the keys. It scrolls on short screens.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::scrolled::Scrolled;
use super::{PopupComponent, PopupContext, PopupOutcome, frame};
use crate::tui::keys::Action;
use crate::tui::text::width;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Help {
    text: Scrolled,
}

/// `text` right-aligned in `n` cells; never cut.
fn right(text: &str, n: usize) -> String {
    format!("{}{text}", " ".repeat(n.saturating_sub(width(text))))
}

/// `text` left-aligned in `n` cells; never cut.
fn left(text: &str, n: usize) -> String {
    format!("{text}{}", " ".repeat(n.saturating_sub(width(text))))
}

/// "keys  description" for the main screen, then for the popups; the keys
/// right-aligned in a column as wide as the widest (at least 17 cells).
fn entries(ctx: &PopupContext) -> Vec<String> {
    let main = ctx.keys.help_lines();
    let popup = ctx.keys.popup_help_lines();
    let keys_width = main
        .iter()
        .chain(&popup)
        .map(|(k, _)| width(k))
        .fold(17, usize::max);
    let line = |(k, d): (String, String)| format!("{}  {d}", right(&k, keys_width));
    let mut v: Vec<String> = main.into_iter().map(line).collect();
    v.push(String::new());
    v.push(format!("{}  in popups:", right("", keys_width)));
    v.extend(popup.into_iter().map(line));
    v
}

impl PopupComponent for Help {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        self.text.handle_key(key, ctx, Action::Help)
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let entries = entries(ctx);
        // Two columns when one does not fit the screen's height.
        let rows = if entries.len() as u16 + 2 > area.height && area.width >= 140 {
            entries.len().div_ceil(2)
        } else {
            entries.len()
        };
        let lines: Vec<Line> = (0..rows)
            .map(
                |r| match entries.get(r + rows).filter(|_| rows < entries.len()) {
                    Some(second) => Line::from(format!("{}{second}", left(&entries[r], 66))),
                    None => Line::from(entries[r].clone()),
                },
            )
            .collect();
        // What still does not fit scrolls, and the title says so.
        let (title, lines) = self.text.window("keys", lines, area, ctx);
        let w = if rows < entries.len() { 136 } else { 68 };
        let h = lines.len() as u16 + 2;
        frame(&title, lines, (w, h), area, buf, ctx.theme);
    }
}
