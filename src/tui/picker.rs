//! The model picker's text. Models with many options (rmda has ten) do not
//! fit a 24-line screen under the model list, so the option list scrolls
//! around the highlighted option and says what is above and below.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::app::ModelPicker;
use crate::models::MODELS;

const FOOTER: &str = "Enter on a model fits it; Esc closes";

/// Words of `text` in lines of at most `width` characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The first option shown when `rows` of `n` options fit: the highlighted
/// one stays in view, near the middle.
fn window(selected: usize, n: usize, rows: usize) -> usize {
    selected
        .saturating_sub(rows / 2)
        .min(n.saturating_sub(rows))
}

/// The picker's lines for an inner area of `width` x `height`.
pub fn lines(p: &ModelPicker, width: u16, height: u16) -> Vec<Line<'static>> {
    let reversed = Style::default().add_modifier(Modifier::REVERSED);
    let mut models = Vec::new();
    for (i, m) in MODELS.iter().enumerate() {
        let mark = if i == p.model { "▶" } else { " " };
        let style = if i == p.model && !p.in_options {
            reversed
        } else {
            Style::default()
        };
        models.push(Line::from(Span::styled(
            format!("{mark} {:<7} {}", m.name, m.title),
            style,
        )));
    }
    let info = &MODELS[p.model];
    let summary: Vec<Line> = wrap(info.summary, width.max(1) as usize)
        .into_iter()
        .map(Line::from)
        .collect();
    let fields = info.options;
    // Models, summary, the options heading and the footer always show;
    // the two blank separators go before any option is hidden.
    let fixed = models.len() + summary.len() + 2;
    let height = height as usize;
    let room = height.saturating_sub(fixed);
    let spaced = room >= fields.len() + 2;
    let rows = if spaced { room - 2 } else { room }.min(fields.len());
    let first = window(p.option, fields.len(), rows);
    let heading = if rows < fields.len() {
        format!(
            "options {}-{} of {} (Tab to edit, Enter to change):",
            first + 1,
            first + rows,
            fields.len()
        )
    } else {
        "options (Tab to edit, Enter to change):".to_string()
    };

    let mut out = models;
    if spaced {
        out.push(Line::from(""));
    }
    out.extend(summary);
    out.push(Line::from(heading));
    for (j, field) in fields.iter().enumerate().skip(first).take(rows) {
        let value = match (&p.editing, p.in_options && j == p.option) {
            (Some(t), true) => format!("{t}▏"),
            // An unset option is chosen from the data (BIC, a size-aware
            // default); a blank looked like a missing value.
            _ => p
                .options
                .get(field)
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| "(auto)".into()),
        };
        let style = if p.in_options && j == p.option {
            reversed
        } else {
            Style::default()
        };
        // Arrows in the margin say there is more without costing a line.
        let margin = if j == first && first > 0 {
            "↑ "
        } else if j + 1 == first + rows && first + rows < fields.len() {
            "↓ "
        } else {
            "  "
        };
        out.push(Line::from(Span::styled(
            format!("{margin}{field:<16} {value}"),
            style,
        )));
    }
    if spaced {
        out.push(Line::from(""));
    }
    out.push(Line::from(FOOTER));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_wrap_at_words() {
        assert_eq!(wrap("a bb ccc dd", 6), ["a bb", "ccc dd"]);
        assert_eq!(wrap("", 6), Vec::<String>::new());
    }

    #[test]
    fn the_window_keeps_the_selection_in_view() {
        assert_eq!(window(0, 10, 4), 0);
        assert_eq!(window(5, 10, 4), 3);
        assert_eq!(window(9, 10, 4), 6);
        assert_eq!(window(3, 3, 8), 0);
        for sel in 0..10 {
            let first = window(sel, 10, 4);
            assert!((first..first + 4).contains(&sel));
        }
    }
}
