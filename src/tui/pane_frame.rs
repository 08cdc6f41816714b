//! A pane's frame, shared by the panes and the layout that places them (in
//! `ui` it tied the layout and the panes into an import circle).

use ratatui::text::Line;
use ratatui::widgets::Block;

use super::theme::Theme;

/// A pane's frame; the focused one stands out.
pub fn pane_block<'a>(title: &str, focused: bool, theme: &Theme) -> Block<'a> {
    let style = if focused {
        theme.focused_border
    } else {
        theme.unfocused_border
    };
    Block::bordered()
        .title(Line::from(format!(" {title} ")))
        .border_style(style)
}
