//! The model picker: a model list and the options of the highlighted
//! model. Models with many options (rmda has ten) do not fit a 24-line
//! screen under the model list, so the option list scrolls around the
//! highlighted option and says what is above and below.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{Command, PopupComponent, PopupContext, PopupOutcome, Typed, frame, type_into};
use crate::models::{AUTO_INFO, MODELS, ModelInfo, ModelOptions};
use crate::tui::keys::PopupAction;
use crate::tui::text::width;

/// The picker's list: `auto` first (the default, and the way back to it
/// after trying a model by name), then every model.
fn listed() -> impl Iterator<Item = &'static ModelInfo> {
    std::iter::once(&AUTO_INFO).chain(MODELS)
}

/// Entry `i` of [`listed`].
fn info(i: usize) -> &'static ModelInfo {
    listed().nth(i).unwrap_or(&AUTO_INFO)
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModelPicker {
    pub model: usize,
    pub options: ModelOptions,
    /// Focus on the option list instead of the model list.
    pub in_options: bool,
    pub option: usize,
    /// Text being typed for the highlighted option.
    pub editing: Option<String>,
    /// Why the typed value was refused, shown whole under the field.
    pub refused: Option<String>,
}

impl ModelPicker {
    /// Opens on the model in use and its options.
    pub fn new(model: &str, options: &ModelOptions) -> ModelPicker {
        ModelPicker {
            model: listed().position(|m| m.name == model).unwrap_or(0),
            options: options.clone(),
            in_options: false,
            option: 0,
            editing: None,
            refused: None,
        }
    }

    /// A key while an option's value is being typed.
    fn edit_key(&mut self, mut text: String, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        match type_into(&mut text, key, ctx.keys) {
            Typed::Cancel => {
                self.refused = None;
                PopupOutcome::Stay
            }
            Typed::Edited => {
                self.editing = Some(text);
                PopupOutcome::Stay
            }
            Typed::Confirm => {
                let fields = info(self.model).options;
                // Nothing typed: back to the default (for an optional
                // value, the one chosen from the data).
                let default = |f: &str| {
                    ModelOptions::default()
                        .get(f)
                        .filter(|v| !v.is_empty())
                        .unwrap_or_else(|| "null".into())
                };
                let value = match fields.get(self.option) {
                    Some(f) if text.trim().is_empty() => default(f),
                    _ => text.clone(),
                };
                match fields.get(self.option).map(|f| self.options.set(f, &value)) {
                    Some(Err(e)) => {
                        self.editing = Some(text);
                        self.refused = Some(e.to_string());
                        PopupOutcome::Invalid(e.to_string())
                    }
                    _ => {
                        self.refused = None;
                        PopupOutcome::Stay
                    }
                }
            }
        }
    }

    fn fit(&self) -> PopupOutcome {
        PopupOutcome::Then(Command::Fit {
            model: info(self.model).name.to_string(),
            options: Box::new(self.options.clone()),
        })
    }

    /// Up (-1) or down (+1) in the list that has the focus.
    fn step(&mut self, by: isize) {
        if self.in_options {
            let n = info(self.model).options.len();
            self.option = self
                .option
                .saturating_add_signed(by)
                .min(n.saturating_sub(1));
        } else {
            self.model = self
                .model
                .saturating_add_signed(by)
                .min(listed().count() - 1);
            self.option = 0;
        }
    }
}

impl PopupComponent for ModelPicker {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        if let Some(text) = self.editing.take() {
            return self.edit_key(text, key, ctx);
        }
        let fields = info(self.model).options;
        match ctx.keys.popup_action(key) {
            Some(PopupAction::Cancel | PopupAction::Close) => return PopupOutcome::Close,
            Some(PopupAction::SwitchFocus) => {
                self.in_options = !self.in_options && !fields.is_empty();
            }
            Some(PopupAction::Up) => self.step(-1),
            Some(PopupAction::Down) => self.step(1),
            // The field opens empty, the current value and what it accepts
            // said under it: typing replaces, nothing is to be erased first.
            Some(PopupAction::Confirm) if self.in_options && !fields.is_empty() => {
                self.editing = Some(String::new());
            }
            Some(PopupAction::Confirm | PopupAction::Fit) => return self.fit(),
            _ => {}
        }
        PopupOutcome::Stay
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let w = 72.min(area.width);
        let lines = lines(
            self,
            w.saturating_sub(2),
            area.height.saturating_sub(2),
            ctx,
        );
        let h = lines.len() as u16 + 2;
        frame("model", lines, (w, h), area, buf, ctx.theme);
    }
}

/// Words of `text` in lines of at most `max` cells.
fn wrap(text: &str, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let len = width(&line);
        if len > 0 && len + 1 + width(word) > max {
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

/// One line per model, the highlighted one marked.
fn model_lines(p: &ModelPicker, ctx: &PopupContext) -> Vec<Line<'static>> {
    listed()
        .enumerate()
        .map(|(i, m)| {
            let mark = if i == p.model { "▶" } else { " " };
            let style = if i == p.model && !p.in_options {
                ctx.theme.selected
            } else {
                Style::default()
            };
            Line::from(Span::styled(
                format!("{mark} {:<7} {}", m.name, m.title),
                style,
            ))
        })
        .collect()
}

/// The option `j` of the highlighted model; `margin` says what is above
/// or below when the list scrolls.
fn option_line(p: &ModelPicker, j: usize, margin: &str, ctx: &PopupContext) -> Line<'static> {
    let field = info(p.model).options[j];
    let highlighted = p.in_options && j == p.option;
    let value = match (&p.editing, highlighted) {
        (Some(t), true) => format!("{t}▏"),
        // An unset option is chosen from the data (BIC, a size-aware
        // default); a blank looked like a missing value.
        _ => p
            .options
            .get(field)
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| "(auto)".into()),
    };
    let style = if highlighted {
        ctx.theme.selected
    } else {
        Style::default()
    };
    Line::from(Span::styled(format!("{margin}{field:<16} {value}"), style))
}

/// "options 1-4 of 10 (Tab to edit, Enter to change):"
fn options_heading(first: usize, rows: usize, n: usize, ctx: &PopupContext) -> String {
    let k = |a| ctx.keys.popup_hint(a);
    let keys = format!(
        "({} to edit, {} to change)",
        k(PopupAction::SwitchFocus),
        k(PopupAction::Confirm)
    );
    if rows < n {
        format!("options {}-{} of {n} {keys}:", first + 1, first + rows)
    } else {
        format!("options {keys}:")
    }
}

/// The last lines: while a value is typed, what the option accepts, its
/// value now and why a value was refused (whole, wrapped); else the keys.
fn footer(p: &ModelPicker, width: usize, ctx: &PopupContext) -> Vec<Line<'static>> {
    let k = |a| ctx.keys.popup_hint(a);
    let field = info(p.model).options.get(p.option).copied();
    let (Some(_), Some(field)) = (&p.editing, field) else {
        return vec![Line::from(format!(
            "{} on a model fits it; {} closes",
            k(PopupAction::Confirm),
            k(PopupAction::Cancel)
        ))];
    };
    let now = p
        .options
        .get(field)
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "(auto)".into());
    let mut text = vec![format!(
        "{field}: {}. Now {now}; {} sets, {} keeps it.",
        super::option_values::accepted(field),
        k(PopupAction::Confirm),
        k(PopupAction::Cancel)
    )];
    text.extend(p.refused.clone());
    let mut out = Vec::new();
    for (i, t) in text.iter().enumerate() {
        let style = if i > 0 {
            ctx.theme.error
        } else {
            Style::default()
        };
        out.extend(
            wrap(t, width.max(1))
                .into_iter()
                .map(|l| Line::from(Span::styled(l, style))),
        );
    }
    out
}

/// The picker's lines for an inner area of `width` x `height`.
fn lines(p: &ModelPicker, width: u16, height: u16, ctx: &PopupContext) -> Vec<Line<'static>> {
    let models = model_lines(p, ctx);
    let footer = footer(p, usize::from(width), ctx);
    let info = &info(p.model);
    let summary: Vec<Line> = wrap(info.summary, width.max(1) as usize)
        .into_iter()
        .map(Line::from)
        .collect();
    let n = info.options.len();
    // Models, summary, the options heading and the footer always show;
    // the two blank separators go before any option is hidden.
    let fixed = models.len() + summary.len() + 1 + footer.len();
    let room = (height as usize).saturating_sub(fixed);
    let spaced = room >= n + 2;
    let rows = if spaced { room - 2 } else { room }.min(n);
    let first = window(p.option, n, rows);

    let mut out = models;
    if spaced {
        out.push(Line::from(""));
    }
    out.extend(summary);
    out.push(Line::from(options_heading(first, rows, n, ctx)));
    for j in first..first + rows {
        // Arrows in the margin say there is more without costing a line.
        let margin = if j == first && first > 0 {
            "↑ "
        } else if j + 1 == first + rows && first + rows < n {
            "↓ "
        } else {
            "  "
        };
        out.push(option_line(p, j, margin, ctx));
    }
    if spaced {
        out.push(Line::from(""));
    }
    out.extend(footer);
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
