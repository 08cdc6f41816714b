//! The flag threshold, typed as a number between 0 and 1.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::{Command, PopupComponent, PopupContext, PopupOutcome, Typed, frame, type_into};
use crate::tui::keys::PopupAction;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThresholdPrompt {
    pub input: String,
}

impl ThresholdPrompt {
    /// Starts from the current threshold, so a small change is a few keys.
    pub fn new(threshold: f64) -> ThresholdPrompt {
        ThresholdPrompt {
            input: format!("{threshold:.2}"),
        }
    }
}

impl PopupComponent for ThresholdPrompt {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        match type_into(&mut self.input, key, ctx.keys) {
            Typed::Cancel => PopupOutcome::Close,
            Typed::Edited => PopupOutcome::Stay,
            Typed::Confirm => match self.input.trim().parse::<f64>() {
                Ok(t) if (0.0..=1.0).contains(&t) => PopupOutcome::Then(Command::SetThreshold(t)),
                _ => PopupOutcome::Invalid(format!(
                    "\"{}\" is not a number between 0 and 1",
                    self.input
                )),
            },
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let title = format!(
            "flag threshold (0-1, {})",
            ctx.keys.popup_hint(PopupAction::Confirm)
        );
        let lines = vec![Line::from(format!("{}▏", self.input))];
        frame(&title, lines, (34, 3), area, buf, ctx.theme);
    }
}
