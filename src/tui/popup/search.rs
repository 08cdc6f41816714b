//! Search the ids and comments: the first sample whose id or comment
//! contains the text is selected.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::{Command, PopupComponent, PopupContext, PopupOutcome, Typed, frame, type_into};
use crate::tui::keys::PopupAction;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchPrompt {
    pub input: String,
}

impl PopupComponent for SearchPrompt {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        match type_into(&mut self.input, key, ctx.keys) {
            Typed::Cancel => PopupOutcome::Close,
            Typed::Edited => PopupOutcome::Stay,
            Typed::Confirm => PopupOutcome::Then(Command::Search(self.input.clone())),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let title = format!(
            "search ids, comments ({})",
            ctx.keys.popup_hint(PopupAction::Confirm)
        );
        // "/" is the prompt, as in vim and less, whatever key opened it.
        let lines = vec![Line::from(format!("/{}▏", self.input))];
        frame(&title, lines, (34, 3), area, buf, ctx.theme);
    }
}
