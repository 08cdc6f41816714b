//! Relabel through a menu of the classes, most likely first.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::{Command, PopupComponent, PopupContext, PopupOutcome, frame, menu, step};
use crate::tui::keys::PopupAction;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassPicker {
    /// The highlighted class, as a rank in the posterior order.
    pub selected: usize,
}

impl PopupComponent for ClassPicker {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        if ctx.session.selected().is_none() {
            return PopupOutcome::Close;
        }
        match ctx.keys.popup_action(key) {
            Some(PopupAction::Cancel | PopupAction::Close) => PopupOutcome::Close,
            Some(PopupAction::Confirm) => PopupOutcome::Then(Command::RelabelToRank(self.selected)),
            action => {
                let n = ctx.session.dataset().classes.len();
                if let Some(s) = step(action, self.selected, n, 10) {
                    self.selected = s;
                }
                PopupOutcome::Stay
            }
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let classes = &ctx.session.dataset().classes;
        let sample = ctx.session.selected().unwrap_or(0);
        let entries: Vec<String> = ctx
            .session
            .classes_by_posterior(sample)
            .into_iter()
            .map(|c| classes[c].clone())
            .collect();
        let rows = usize::from(area.height.saturating_sub(2));
        let lines = menu(&entries, self.selected, ctx.theme, rows);
        let h = lines.len() as u16 + 2;
        let title = format!("relabel to ({})", ctx.keys.popup_hint(PopupAction::Confirm));
        frame(&title, lines, (36, h), area, buf, ctx.theme);
    }
}
