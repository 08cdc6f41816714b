//! Questions: quit with unexported decisions or comments, replace an
//! earlier export.
//! The popup table's `yes` (and `export`) keys answer; any other key is no.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::{Command, PopupComponent, PopupContext, PopupOutcome, frame};
use crate::tui::keys::PopupAction;

/// "Quit with decisions or comments not exported?"
pub struct Quit;

/// "Replace the files an earlier export wrote?"
pub struct Overwrite;

impl PopupComponent for Quit {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        match ctx.keys.popup_action(key) {
            Some(PopupAction::Yes) => PopupOutcome::Then(Command::Quit),
            Some(PopupAction::Export) => PopupOutcome::Then(Command::Export { overwrite: false }),
            _ => PopupOutcome::Close,
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let k = |a| ctx.keys.popup_hint(a);
        let lines = vec![
            Line::from("Some decisions or comments are not exported."),
            Line::from("They are saved in the session journal and"),
            Line::from("come back when you open this file again."),
            Line::from(""),
            Line::from(format!(
                "{} quit   {} export first   any other key stays",
                k(PopupAction::Yes),
                k(PopupAction::Export)
            )),
        ];
        frame("quit?", lines, (50, 7), area, buf, ctx.theme);
    }
}

impl PopupComponent for Overwrite {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        match ctx.keys.popup_action(key) {
            Some(PopupAction::Yes) => PopupOutcome::Then(Command::Export { overwrite: true }),
            _ => PopupOutcome::Then(Command::Info("export cancelled".into())),
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let lines = vec![
            Line::from("The cleaned file or the audit file exists."),
            Line::from(format!(
                "{} replace them   any other key cancels",
                ctx.keys.popup_hint(PopupAction::Yes)
            )),
        ];
        frame("replace?", lines, (46, 4), area, buf, ctx.theme);
    }
}
