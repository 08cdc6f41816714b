//! The filter menu: all, one given label, one kind of decision, the
//! commented samples, the flagged samples, one suggested label, or one
//! confusion pair ("given A -> suggested B", most common first).

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::{Command, PopupComponent, PopupContext, PopupOutcome, frame, menu, step};
use crate::review::{DecisionFilter, Filter};
use crate::tui::keys::PopupAction;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilterMenu {
    /// The highlighted entry.
    pub selected: usize,
}

/// The menu's entries: "p_mislabel >= threshold" after the decisions,
/// then the suggested labels and the confusion pairs once a fit is in.
fn entries(ctx: &PopupContext) -> Vec<(String, Filter)> {
    let classes = &ctx.session.dataset().classes;
    let mut v = vec![("show all".to_string(), Filter::default())];
    for (c, name) in classes.iter().enumerate() {
        v.push((
            format!("given label = {name}"),
            Filter {
                class: Some(c),
                ..Filter::default()
            },
        ));
    }
    for d in DecisionFilter::ALL {
        v.push((
            d.name().to_string(),
            Filter {
                decision: Some(d),
                ..Filter::default()
            },
        ));
    }
    v.push((
        "with a comment".to_string(),
        Filter {
            commented: true,
            ..Filter::default()
        },
    ));
    let t = ctx.session.threshold();
    v.push((
        format!("p_mislabel >= {t:.2}"),
        Filter {
            min_p_mislabel: Some(t),
            ..Filter::default()
        },
    ));
    if ctx.session.fit().is_some() {
        for (c, name) in classes.iter().enumerate() {
            v.push((
                format!("suggested label = {name}"),
                Filter {
                    suggested: Some(c),
                    ..Filter::default()
                },
            ));
        }
        for ((a, b), n) in ctx.session.confusion_pairs() {
            v.push((
                format!("given {} -> suggested {} ({n})", classes[a], classes[b]),
                Filter {
                    class: Some(a),
                    suggested: Some(b),
                    ..Filter::default()
                },
            ));
        }
    }
    v
}

impl PopupComponent for FilterMenu {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        let entries = entries(ctx);
        match ctx.keys.popup_action(key) {
            Some(PopupAction::Cancel | PopupAction::Close) => PopupOutcome::Close,
            Some(PopupAction::Confirm) => entries
                .into_iter()
                .nth(self.selected)
                .map_or(PopupOutcome::Close, |(_, f)| {
                    PopupOutcome::Then(Command::ApplyFilter(f))
                }),
            action => {
                if let Some(s) = step(action, self.selected, entries.len(), 10) {
                    self.selected = s;
                }
                PopupOutcome::Stay
            }
        }
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let names: Vec<String> = entries(ctx).into_iter().map(|(n, _)| n).collect();
        let rows = usize::from(area.height.saturating_sub(2));
        let lines = menu(&names, self.selected, ctx.theme, rows);
        let h = lines.len() as u16 + 2;
        let title = format!(
            "filter ({} applies)",
            ctx.keys.popup_hint(PopupAction::Confirm)
        );
        let w = names
            .iter()
            .map(|n| crate::tui::text::width(n))
            .max()
            .unwrap_or(0) as u16
            + 4;
        frame(&title, lines, (w.max(40), h), area, buf, ctx.theme);
    }
}
