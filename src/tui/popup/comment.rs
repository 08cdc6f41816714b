//! A comment on the selected sample: one line of text for the audit trail.
//! Starts from the sample's comment, so a correction is a few keys; an
//! empty comment removes it.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{Command, PopupComponent, PopupContext, PopupOutcome, Typed, frame, type_into};
use crate::tui::keys::PopupAction;
use crate::tui::text::{short, width, wrap_words};

#[derive(Clone, Debug, PartialEq)]
pub struct CommentPrompt {
    /// The sample the comment is for, fixed when the prompt opened (a refit
    /// may re-rank the list meanwhile).
    pub sample: usize,
    pub input: String,
}

impl CommentPrompt {
    pub fn new(sample: usize, current: Option<&str>) -> CommentPrompt {
        CommentPrompt {
            sample,
            input: current.unwrap_or_default().to_string(),
        }
    }
}

impl PopupComponent for CommentPrompt {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        match type_into(&mut self.input, key, ctx.keys) {
            Typed::Cancel => PopupOutcome::Close,
            Typed::Edited => PopupOutcome::Stay,
            Typed::Confirm => PopupOutcome::Then(Command::Comment {
                sample: self.sample,
                text: self.input.clone(),
            }),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let id = ctx
            .session
            .dataset()
            .ids
            .get(self.sample)
            .map_or("?", String::as_str);
        let w = area.width.min(64);
        let inner = usize::from(w.saturating_sub(2)).max(8);
        let title = format!(
            "comment on {} ({} saves, {} cancels)",
            short(id, 16),
            ctx.keys.popup_hint(PopupAction::Confirm),
            ctx.keys.popup_hint(PopupAction::Cancel)
        );
        let typed = format!("{}▏", self.input);
        // The whole comment while the screen has room (borders and the
        // hint take three lines); beyond it, its end, where the typing is.
        let room = usize::from(area.height).saturating_sub(3).max(1);
        let mut rows = wrap_words(&typed, inner);
        if rows.len() > room {
            rows.drain(..rows.len() - room);
        }
        let mut lines: Vec<Line> = rows.into_iter().map(Line::from).collect();
        lines.push(Line::from(Span::styled(
            "one line for the audit file; empty: no comment",
            ctx.theme.dim,
        )));
        let h = lines.len() as u16 + 2;
        let w = w.max((width(&title) as u16 + 4).min(area.width));
        frame(&title, lines, (w, h), area, buf, ctx.theme);
    }
}
