//! The whole record of one sample: every field of its line with its
//! column's name (the list and the detail pane show a few), above what the
//! model and the curator said of it. It scrolls like the help.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::scrolled::Scrolled;
use super::{PopupComponent, PopupContext, PopupOutcome, frame};
use crate::tui::keys::Action;
use crate::tui::text::{pad, width, wrap_words};

/// The popup's widest, in cells.
const MAX_WIDTH: u16 = 100;

#[derive(Clone, Debug, PartialEq)]
pub struct RecordView {
    /// The sample shown: the one selected when the view opened.
    pub sample: usize,
    text: Scrolled,
}

impl RecordView {
    pub fn new(sample: usize) -> RecordView {
        RecordView {
            sample,
            text: Scrolled::default(),
        }
    }
}

/// What the model and the curator said of the sample, then its fields,
/// each "name  value" with long values wrapped under themselves.
fn lines(sample: usize, cells: usize, ctx: &PopupContext) -> Vec<String> {
    let s = ctx.session;
    let ds = s.dataset();
    let class = |c: usize| ds.classes.get(c).map_or("?", String::as_str);
    let line = ds
        .raw
        .records
        .get(ds.rows[sample] + 1)
        .filter(|_| ds.record_bytes(sample).is_some())
        .map_or(String::new(), |r| format!(", line {}", r.line));
    let mut out = vec![format!(
        "{} (row {}{line})  given {}",
        ds.ids[sample],
        // 0-based, as the detail pane and `scan`'s ranking count rows.
        ds.rows[sample],
        class(ds.labels[sample])
    )];
    if let Some(f) = s.fit_of(sample) {
        out.push(format!(
            "suggested {}  p_mislabel {:.3}",
            class(f.suggested[sample]),
            f.p_mislabel[sample]
        ));
    }
    if let Some(d) = s.decision(sample) {
        out.push(format!("decision: {}", d.describe(&ds.classes)));
    }
    if let Some(c) = s.comment_of(sample) {
        out.extend(wrap_words(&format!("comment: {c}"), cells));
    }
    out.push(String::new());
    let fields = ds.record_fields(sample);
    let names = fields.iter().map(|(n, _)| width(n)).max().unwrap_or(0);
    let names = names.min(cells / 2);
    let room = cells.saturating_sub(names + 2).max(1);
    for (name, value) in fields {
        let mut parts = wrap_words(&value, room).into_iter();
        let first = parts.next().unwrap_or_default();
        out.push(format!("{}  {first}", pad(&name, names)));
        out.extend(parts.map(|p| format!("{}  {p}", " ".repeat(names))));
    }
    out
}

impl PopupComponent for RecordView {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        self.text.handle_key(key, ctx, Action::Record)
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let w = MAX_WIDTH.min(area.width);
        let lines: Vec<Line> = lines(self.sample, usize::from(w.saturating_sub(2)), ctx)
            .into_iter()
            .map(Line::from)
            .collect();
        let (title, lines) = self.text.window("record", lines, area, ctx);
        let h = lines.len() as u16 + 2;
        frame(&title, lines, (w, h), area, buf, ctx.theme);
    }
}
