//! Every colour the screen uses, in one place. `NO_COLOR` (https://no-color.org)
//! gives a theme without colours that keeps the modifiers (bold, reversed),
//! so the selection and the headers still show.

use ratatui::style::{Color, Modifier, Style};

#[derive(Clone, Debug, PartialEq)]
pub struct Theme {
    /// Draw colours at all; without, `heat` is plain too.
    colour: bool,
    pub focused_border: Style,
    pub unfocused_border: Style,
    pub popup_border: Style,
    /// The list's header row, the detail pane's id, heat-map labels.
    pub header: Style,
    /// The header of the column the list is sorted by.
    pub sorted_header: Style,
    /// The selected row or menu entry.
    pub selected: Style,
    /// p_mislabel at or above the threshold.
    pub flagged: Style,
    /// The rank of a row a learning refit moved far (for a moment).
    pub moved: Style,
    pub relabelled: Style,
    pub dropped: Style,
    pub kept: Style,
    /// The given label in the detail pane.
    pub given: Style,
    pub status_bar: Style,
    /// Hints and orientation lines.
    pub dim: Style,
    pub error: Style,
    pub histogram: Style,
    pub objective: Style,
    pub scatter_background: Style,
    pub scatter_flagged: Style,
    pub scatter_selected: Style,
}

impl Theme {
    /// The colours of the screen.
    pub fn coloured() -> Theme {
        let fg = |c| Style::default().fg(c);
        Theme {
            colour: true,
            focused_border: fg(Color::Cyan),
            unfocused_border: fg(Color::DarkGray),
            popup_border: fg(Color::Yellow),
            header: Style::default().add_modifier(Modifier::BOLD),
            sorted_header: fg(Color::Yellow),
            selected: Style::default().add_modifier(Modifier::REVERSED),
            flagged: fg(Color::Red),
            moved: Style::default().bg(Color::Yellow).fg(Color::Black),
            relabelled: fg(Color::Green),
            dropped: fg(Color::Magenta),
            kept: fg(Color::Blue),
            given: fg(Color::Yellow),
            status_bar: Style::default().bg(Color::Blue).fg(Color::White),
            dim: fg(Color::DarkGray),
            error: fg(Color::Red),
            histogram: fg(Color::Red),
            objective: fg(Color::Cyan),
            scatter_background: fg(Color::DarkGray),
            scatter_flagged: fg(Color::Red),
            scatter_selected: fg(Color::Yellow),
        }
    }

    /// No colours; what colour said is said with modifiers where it matters.
    pub fn monochrome() -> Theme {
        let plain = Style::default();
        let bold = Style::default().add_modifier(Modifier::BOLD);
        Theme {
            colour: false,
            focused_border: bold,
            unfocused_border: plain,
            popup_border: bold,
            header: bold,
            sorted_header: Style::default().add_modifier(Modifier::UNDERLINED),
            selected: Style::default().add_modifier(Modifier::REVERSED),
            flagged: bold,
            moved: Style::default().add_modifier(Modifier::UNDERLINED | Modifier::BOLD),
            relabelled: plain,
            dropped: plain,
            kept: plain,
            given: plain,
            status_bar: Style::default().add_modifier(Modifier::REVERSED),
            dim: plain,
            error: bold,
            histogram: plain,
            objective: plain,
            scatter_background: plain,
            scatter_flagged: plain,
            scatter_selected: bold,
        }
    }

    /// Monochrome when `NO_COLOR` is set and not empty, else coloured.
    pub fn from_env() -> Theme {
        Theme::for_no_color(std::env::var_os("NO_COLOR").as_deref())
    }

    fn for_no_color(value: Option<&std::ffi::OsStr>) -> Theme {
        if value.is_some_and(|v| !v.is_empty()) {
            Theme::monochrome()
        } else {
            Theme::coloured()
        }
    }

    /// A heat-map cell for a value in [0, 1]: white (0) to deep red (1),
    /// so the eye finds large flip rates first.
    pub fn heat(&self, v: f64) -> Style {
        if !self.colour {
            return Style::default();
        }
        let v = if v.is_finite() {
            v.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let g = (235.0 - 200.0 * v.sqrt()) as u8;
        Style::default().bg(Color::Rgb(235, g, g)).fg(Color::Black)
    }

    #[cfg(test)]
    fn styles(&self) -> Vec<Style> {
        let mut v = vec![
            self.focused_border,
            self.unfocused_border,
            self.popup_border,
            self.header,
            self.sorted_header,
            self.selected,
            self.flagged,
            self.relabelled,
            self.dropped,
            self.kept,
            self.given,
            self.status_bar,
            self.dim,
            self.error,
            self.histogram,
            self.objective,
            self.scatter_background,
            self.scatter_flagged,
            self.scatter_selected,
        ];
        v.extend([0.0, 0.5, 1.0, f64::NAN].map(|x| self.heat(x)));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn no_color_has_no_colours_but_keeps_the_selection() {
        let t = Theme::for_no_color(Some(OsStr::new("1")));
        for s in t.styles() {
            assert_eq!((s.fg, s.bg), (None, None), "{s:?}");
        }
        assert!(t.selected.add_modifier.contains(Modifier::REVERSED));
        assert!(t.header.add_modifier.contains(Modifier::BOLD));
    }

    #[test]
    fn an_empty_or_missing_no_color_keeps_the_colours() {
        for v in [None, Some(OsStr::new(""))] {
            let t = Theme::for_no_color(v);
            assert_eq!(t, Theme::coloured());
            assert!(t.styles().iter().any(|s| s.fg.is_some()));
        }
    }
}
