//! A popup of text lines that scrolls on short screens (the help, the
//! notes): it closes on the popup's cancel, close or confirm key or on the
//! main-screen key that opened it, and its title says which lines show.

use std::cell::Cell;

use crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::{PopupContext, PopupOutcome, step};
use crate::tui::keys::{Action, PopupAction};

/// Lines a page key scrolls.
const PAGE: usize = 10;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scrolled {
    /// The first line shown.
    pub scroll: usize,
    /// How far the text can scroll on the last frame's screen.
    max: Cell<usize>,
}

impl Scrolled {
    /// Scrolls, or closes on the keys that close it (`opener` among them).
    pub fn handle_key(
        &mut self,
        key: &KeyEvent,
        ctx: &PopupContext,
        opener: Action,
    ) -> PopupOutcome {
        let action = ctx.keys.popup_action(key);
        let closes = matches!(
            action,
            Some(PopupAction::Cancel | PopupAction::Close | PopupAction::Confirm)
        ) || (action.is_none() && ctx.keys.action(key) == Some(opener));
        if closes {
            return PopupOutcome::Close;
        }
        let max = self.max.get();
        if let Some(s) = step(action, self.scroll, max + 1, PAGE) {
            self.scroll = s.min(max);
        }
        PopupOutcome::Stay
    }

    /// The title ("NAME 1-22 of 46 (j/k scroll, Esc closes)" when the
    /// lines do not all fit `area` inside a border) and the lines shown.
    pub fn window<'a>(
        &self,
        name: &str,
        lines: Vec<Line<'a>>,
        area: Rect,
        ctx: &PopupContext,
    ) -> (String, Vec<Line<'a>>) {
        let visible = (area.height.saturating_sub(2) as usize).max(1);
        let max = lines.len().saturating_sub(visible);
        self.max.set(max);
        let first = self.scroll.min(max);
        let k = |a| ctx.keys.popup_hint(a);
        let title = if max > 0 {
            format!(
                "{name} {}-{} of {} ({}/{} scroll, {} closes)",
                first + 1,
                (first + visible).min(lines.len()),
                lines.len(),
                k(PopupAction::Down),
                k(PopupAction::Up),
                k(PopupAction::Cancel)
            )
        } else {
            format!("{name} ({} closes)", k(PopupAction::Cancel))
        };
        (title, lines.into_iter().skip(first).collect())
    }
}
