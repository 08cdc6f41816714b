//! The screen's layout: which panes show where, then the status lines and
//! the open popup on top. Drawing reads the `App` and writes into the
//! buffer; it changes no session data and does no I/O. What it does write
//! is view state the next key needs: the list's `TableState`, where the
//! list was drawn (mouse clicks), how many rows were formatted, and how far
//! the help can scroll.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Widget;

use super::app::{App, Pane};
use super::{detail_pane, list, model_pane, status};

/// Screens at least this wide show list, detail and model side by side.
const WIDE: u16 = 110;
/// The detail pane's feature lines need this much beside a wide list.
const RIGHT_MIN: u16 = 46;

/// The list's width on a wide screen: what it wants, between 55% of the
/// screen and what leaves the detail pane its minimum.
fn list_width(app: &App, total: u16) -> u16 {
    let share = total * 55 / 100;
    list::wanted_width(app).clamp(share, share.max(total.saturating_sub(RIGHT_MIN)))
}

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let [main, status_line, message, hint] = Layout::vertical([
            Constraint::Min(3),
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area);
        if area.width >= WIDE {
            let [left, right] = Layout::horizontal([
                Constraint::Length(list_width(self, area.width)),
                Constraint::Fill(1),
            ])
            .areas(main);
            let [detail, model] =
                Layout::vertical([Constraint::Percentage(42), Constraint::Percentage(58)])
                    .areas(right);
            list::render(self, left, buf);
            detail_pane::render(self, detail, buf);
            model_pane::render(self, model, buf);
        } else {
            match self.focus {
                Pane::List => list::render(self, main, buf),
                Pane::Detail => detail_pane::render(self, main, buf),
                Pane::Model => model_pane::render(self, main, buf),
            }
        }
        status::render_status(self, status_line, buf);
        status::render_message(self, message, buf);
        status::render_hint(self, hint, buf, area.width < WIDE);
        if let Some(p) = &self.popup {
            p.render(area, buf, &self.popup_context());
        }
    }
}
