//! The label of a GEO file opened without `--label`: the sample fields
//! that group the samples (a characteristic, a subset type, the titles cut
//! by a pattern), each with its values and how many samples have each, to
//! choose from instead of leaving the screen with an error. It runs before
//! a session exists (the table cannot be read without its label), so it
//! reads the keys and draws on its own, through the `[popup]` key table.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{frame, menu, step};
use crate::dataset::LabelField;
use crate::tui::keys::{KeyMap, PopupAction};
use crate::tui::text::short;
use crate::tui::theme::Theme;

#[derive(Clone, Debug, PartialEq)]
pub struct FieldPicker {
    /// The file, as the title names it.
    pub file: String,
    pub fields: Vec<LabelField>,
    /// The highlighted field.
    pub selected: usize,
}

/// What became of a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldOutcome {
    Stay,
    /// Leave without a label (the screen then says why it cannot open).
    Cancel,
    /// Read the file with this `--label` (and `--label-pattern`).
    Chosen {
        label: String,
        pattern: Option<String>,
    },
}

/// How many values of the highlighted field are listed.
const VALUES: usize = 8;

impl FieldPicker {
    pub fn new(file: &str, fields: Vec<LabelField>) -> FieldPicker {
        FieldPicker {
            file: file.to_string(),
            fields,
            selected: 0,
        }
    }

    pub fn handle_key(&mut self, key: &KeyEvent, keys: &KeyMap) -> FieldOutcome {
        match keys.popup_action(key) {
            Some(PopupAction::Cancel | PopupAction::Close) => FieldOutcome::Cancel,
            Some(PopupAction::Confirm) => match self.fields.get(self.selected) {
                Some(f) => FieldOutcome::Chosen {
                    label: f.name.clone(),
                    pattern: f.pattern.clone(),
                },
                None => FieldOutcome::Cancel,
            },
            action => {
                if let Some(s) = step(action, self.selected, self.fields.len(), 10) {
                    self.selected = s;
                }
                FieldOutcome::Stay
            }
        }
    }

    /// A field as the menu lists it: `disease state (3 values)`, `title
    /// cut by ^(.*)-rep (4 groups)`.
    fn entry(f: &LabelField) -> String {
        match &f.pattern {
            Some(p) => format!("{} cut by {p} ({} groups)", f.name, f.groups.len()),
            None => format!("{} ({} values)", f.name, f.groups.len()),
        }
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, keys: &KeyMap, theme: &Theme) {
        let w = area.width.min(72);
        let inner = usize::from(w.saturating_sub(4));
        let entries: Vec<String> = self
            .fields
            .iter()
            .map(|f| short(&Self::entry(f), inner.saturating_sub(2)))
            .collect();
        let mut lines = vec![
            Line::from(short(
                &format!(
                    "which sample field holds the labels? ({} chooses, {} leaves)",
                    keys.popup_hint(PopupAction::Confirm),
                    keys.popup_hint(PopupAction::Cancel)
                ),
                inner,
            )),
            Line::raw(""),
        ];
        // The menu gets what the values leave of the screen.
        let values = self
            .fields
            .get(self.selected)
            .map_or(0, |f| f.groups.len().min(VALUES + 1));
        let rows = usize::from(area.height.saturating_sub(2))
            .saturating_sub(lines.len() + values + 2)
            .max(3);
        lines.extend(menu(&entries, self.selected, theme, rows));
        if let Some(f) = self.fields.get(self.selected) {
            lines.push(Line::raw(""));
            lines.push(Line::from(Span::styled(
                short(&format!("samples per value of {}:", f.name), inner),
                theme.header,
            )));
            for (value, count) in f.groups.iter().take(VALUES) {
                lines.push(Line::from(format!(
                    "  {:>4}  {}",
                    count,
                    short(value, inner.saturating_sub(8))
                )));
            }
            if f.groups.len() > VALUES {
                lines.push(Line::from(Span::styled(
                    format!("  and {} more values", f.groups.len() - VALUES),
                    theme.dim,
                )));
            }
        }
        let h = lines.len() as u16 + 2;
        let title = format!("label of {}", short(&self.file, inner.saturating_sub(12)));
        frame(&title, lines, (w, h), area, buf, theme);
    }
}

/// The fields of the GEO file at `path`, offered until one is chosen (its
/// name and pattern) or the curator leaves (`None`); `None` at once when
/// the file has no fields to offer (it is not a GEO file).
pub fn pick(
    terminal: &mut crate::tui::terminal::Screen,
    path: &std::path::Path,
) -> anyhow::Result<Option<(String, Option<String>)>> {
    use crossterm::event::{self, Event, KeyEventKind};
    let fields = match crate::dataset::label_fields(path) {
        Ok(fields) if !fields.is_empty() => fields,
        _ => return Ok(None),
    };
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut picker = FieldPicker::new(&name, fields);
    let (keys, _) = KeyMap::from_config_dir();
    let theme = Theme::from_env();
    loop {
        if let Some(signal) = crate::tui::terminal::signalled() {
            return Err(signal.into());
        }
        terminal.draw(|f| picker.render(f.area(), f.buffer_mut(), &keys, &theme))?;
        if !event::poll(std::time::Duration::from_millis(50))? {
            continue;
        }
        if let Event::Key(k) = event::read()?
            && k.kind == KeyEventKind::Press
        {
            match picker.handle_key(&k, &keys) {
                FieldOutcome::Stay => {}
                FieldOutcome::Cancel => return Ok(None),
                FieldOutcome::Chosen { label, pattern } => return Ok(Some((label, pattern))),
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyEventKind, KeyEventState, KeyModifiers};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent {
            code,
            modifiers: KeyModifiers::NONE,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }
    }

    fn picker() -> FieldPicker {
        let field = |name: &str, pattern: Option<&str>, groups: &[(&str, usize)]| LabelField {
            name: name.into(),
            pattern: pattern.map(String::from),
            groups: groups.iter().map(|(v, c)| (v.to_string(), *c)).collect(),
        };
        FieldPicker::new(
            "GSE285754_series_matrix.txt.gz",
            vec![
                field("strain", None, &[("5xFAD", 14), ("C57BL/6J", 4)]),
                field("ev treatment", None, &[("No", 8), ("Yes", 10)]),
                field(
                    "title",
                    Some("^(.*)-rep"),
                    &[("AD-Veh", 4), ("AD-hNSC", 5), ("AD-iMGL", 5), ("WT-Veh", 4)],
                ),
            ],
        )
    }

    fn screen(p: &FieldPicker, w: u16, h: u16) -> String {
        let keys = KeyMap::load(None).unwrap();
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| p.render(f.area(), f.buffer_mut(), &keys, &Theme::monochrome()))
            .unwrap();
        let buf = t.backend().buffer().clone();
        (0..h)
            .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_keys_move_choose_and_leave() {
        let keys = KeyMap::load(None).unwrap();
        let mut p = picker();
        assert_eq!(
            p.handle_key(&press(KeyCode::Down), &keys),
            FieldOutcome::Stay
        );
        assert_eq!(
            p.handle_key(&press(KeyCode::Down), &keys),
            FieldOutcome::Stay
        );
        assert_eq!(
            p.handle_key(&press(KeyCode::Down), &keys),
            FieldOutcome::Stay
        );
        assert_eq!(p.selected, 2, "the last stays the last");
        assert_eq!(
            p.handle_key(&press(KeyCode::Enter), &keys),
            FieldOutcome::Chosen {
                label: "title".into(),
                pattern: Some("^(.*)-rep".into())
            }
        );
        assert_eq!(
            p.handle_key(&press(KeyCode::Esc), &keys),
            FieldOutcome::Cancel
        );
    }

    #[test]
    fn it_shows_each_field_and_the_highlighted_ones_values_with_counts() {
        let mut p = picker();
        let s = screen(&p, 80, 24);
        assert!(s.contains("which sample field holds the labels?"), "{s}");
        assert!(s.contains("▶ strain (2 values)"), "{s}");
        assert!(s.contains("title cut by ^(.*)-rep (4 groups)"), "{s}");
        assert!(s.contains("samples per value of strain:"), "{s}");
        assert!(s.contains("  14  5xFAD"), "{s}");
        p.selected = 2;
        let s = screen(&p, 80, 24);
        assert!(s.contains("   5  AD-hNSC"), "{s}");
        // Small screens draw without a panic.
        for (w, h) in [(20, 5), (1, 1), (40, 10)] {
            screen(&p, w, h);
        }
    }
}
