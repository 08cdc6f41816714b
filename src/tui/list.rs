//! The sample list: rank, id, given, suggested, p_mislabel bar, gamma, the
//! model's own columns, decision. Virtualised: only the rows on screen are
//! formatted, so a million rows scroll as fast as a hundred. The scroll
//! position is ratatui's `TableState`, kept across frames in the app.

use std::time::Instant;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::{Cell, Paragraph, Row, StatefulWidget, Table, TableState, Widget};

use super::app::{App, Pane};
use super::keys::Action;
use super::pane_frame::pane_block;
use super::text::{bar, distinct, num, pad_left, short};

pub mod columns;

use crate::review::{Decision, SortKey};
use columns::{Core, ModelColumn, Plan};

/// The table's columns at the list's inner width.
pub fn table_plan(app: &App, width: u16) -> (Vec<ModelColumn>, Plan) {
    let fit = app.session.fit();
    let columns = fit.map(columns::model_columns).unwrap_or_default();
    let core = Core::new(app.session.dataset(), app.id_width, fit);
    let plan = columns::plan(width, core, &columns);
    (columns, plan)
}

/// How wide the list would like to be on a wide screen: enough for every
/// model column, so `all` takes width from the detail pane.
pub fn wanted_width(app: &App) -> u16 {
    let fit = app.session.fit();
    let columns = fit.map(columns::model_columns).unwrap_or_default();
    let core = Core::new(app.session.dataset(), app.id_width, fit);
    columns::full_width(core, &columns) + 2
}

/// The first row shown: the old one, moved just enough to show the cursor.
fn scroll(previous: usize, cursor: usize, height: usize, len: usize) -> usize {
    let offset = previous.min(len.saturating_sub(1));
    if cursor < offset {
        cursor
    } else if height > 0 && cursor >= offset + height {
        cursor + 1 - height
    } else {
        offset
    }
}

/// What the rows of one frame need, computed once per frame.
struct Frame<'a> {
    app: &'a App,
    plan: Plan,
    /// The model columns shown, with their values.
    shown: Vec<(&'a ModelColumn, Option<&'a [f64]>)>,
    /// Class names cut to the given, suggested and decision columns, told
    /// apart ("…_1", "…_2") and with an ellipsis where cut.
    given: Vec<String>,
    suggested: Vec<String>,
    decided: Vec<String>,
}

impl Frame<'_> {
    fn sort_arrow(&self) -> &'static str {
        if self.app.session.sort_descending() {
            "↓"
        } else {
            "↑"
        }
    }

    /// "samples │ sort p_mislabel↓", and which columns do not fit.
    fn title(&self, columns: &[ModelColumn]) -> String {
        let sort_header = match self.app.session.sort_key() {
            SortKey::Column(name) => columns
                .iter()
                .find(|c| c.name == *name)
                .map_or_else(|| name.clone(), |c| c.header.clone()),
            _ => self.app.session.sort_name(),
        };
        let mut title = format!("samples │ sort {sort_header}{}", self.sort_arrow());
        if !self.plan.hidden.is_empty() {
            let names: Vec<&str> = self
                .plan
                .hidden
                .iter()
                .map(|&i| columns[i].header.as_str())
                .collect();
            title.push_str(&format!(" │ too narrow for {}", names.join(" ")));
        }
        title
    }

    fn decision_cell(&self, i: usize) -> Cell<'static> {
        let theme = &self.app.theme;
        let classes = &self.app.session.dataset().classes;
        // A commented sample ends its cell with a pen (the detail pane
        // shows the comment), taking two cells from a relabel's class.
        let commented = self.app.session.comment_of(i).is_some();
        let mark = if commented { " ✎" } else { "" };
        let class_w = self.plan.core.decision as usize - 2 - 2 * usize::from(commented);
        match self.app.session.decision(i) {
            Some(Decision::Relabel(c)) => {
                let name = if commented {
                    short(&classes[c], class_w)
                } else {
                    self.decided[c].clone()
                };
                Cell::from(format!("→ {name}{mark}")).style(theme.relabelled)
            }
            Some(Decision::Keep) => Cell::from(format!("keep{mark}")).style(theme.kept),
            Some(Decision::Drop) => Cell::from(format!("drop{mark}")).style(theme.dropped),
            None => Cell::from(mark.trim_start().to_string()),
        }
    }

    /// The row of sample `i`, shown at 1-based `rank`.
    fn row(&self, rank: usize, i: usize) -> Row<'static> {
        let s = &self.app.session;
        let ds = s.dataset();
        // What the sample shows: a refit leaves the row being read as it was.
        let fit = s.fit_of(i);
        let core = self.plan.core;
        let p = fit.map_or(f64::NAN, |f| f.p_mislabel[i]);
        let given = ds.labels[i];
        let p_style = if p >= s.threshold() {
            self.app.theme.flagged
        } else {
            Default::default()
        };
        let suggested = fit.map(|f| self.suggested[f.suggested[i]].clone());
        let moved = self.app.moved_until.is_some_and(|t| t > Instant::now())
            && s.moved().binary_search(&i).is_ok();
        let rank_style = if moved {
            self.app.theme.moved
        } else {
            Default::default()
        };
        let mut cells = vec![
            Cell::from(rank.to_string()).style(rank_style),
            Cell::from(short(&ds.ids[i], core.id as usize)),
            Cell::from(self.given[given].clone()),
            Cell::from(suggested.unwrap_or_default()),
            Cell::from(format!(
                "{} {}",
                num(p, 3),
                bar(p, self.plan.p as usize - 6)
            ))
            .style(p_style),
        ];
        if core.gamma {
            let gamma = fit.map_or(f64::NAN, |f| f.sample_gamma(i, given));
            cells.push(Cell::from(pad_left(
                &num(gamma, 3),
                columns::GAMMA as usize,
            )));
        }
        let pinned = s.pinned() == Some(i);
        for (c, values) in &self.shown {
            let v = if pinned {
                fit.and_then(|f| f.extra.sample_column(&c.name))
                    .map_or(f64::NAN, |col| col.values[i])
            } else {
                values.map_or(f64::NAN, |v| v[i])
            };
            cells.push(Cell::from(c.format(v)));
        }
        cells.push(self.decision_cell(i));
        Row::new(cells)
    }

    /// The header row and the column widths.
    fn header(&self) -> (Row<'static>, Vec<Constraint>) {
        let sort = self.app.session.sort_key();
        let arrow = self.sort_arrow();
        let sorted = self.app.theme.sorted_header;
        let head = |text: &str, key: &SortKey| -> Cell<'static> {
            if sort == key {
                Cell::from(format!("{text}{arrow}")).style(sorted)
            } else {
                Cell::from(text.to_string())
            }
        };
        let core = self.plan.core;
        let mut header = vec![
            Cell::from("#"),
            head("id", &SortKey::Id),
            head("given", &SortKey::Given),
            head("suggested", &SortKey::Suggested),
            head("p_mislabel", &SortKey::PMislabel),
        ];
        let mut widths = vec![
            Constraint::Length(core.rank),
            Constraint::Length(core.id),
            Constraint::Length(core.given),
            Constraint::Length(core.suggested),
            Constraint::Length(self.plan.p),
        ];
        if core.gamma {
            // Right-aligned like the numbers under it and the model columns.
            // A model of shifts puts its shifts here: headed as such.
            let shifts = self.app.session.fit().is_some_and(|f| f.shifts.is_some());
            let name = if shifts { "shift" } else { "gamma" };
            let gamma = if *sort == SortKey::Gamma {
                name.to_string()
            } else {
                format!("{name:>6}")
            };
            header.push(head(&gamma, &SortKey::Gamma));
            widths.push(Constraint::Length(columns::GAMMA));
        }
        for (c, _) in &self.shown {
            let key = SortKey::Column(c.name.clone());
            let text = if *sort == key {
                format!("{}{arrow}", c.header)
            } else {
                c.header.clone()
            };
            let cell = Cell::from(pad_left(&text, c.width as usize));
            header.push(if *sort == key {
                cell.style(sorted)
            } else {
                cell
            });
            widths.push(Constraint::Length(c.width));
        }
        header.push(Cell::from("decision"));
        widths.push(Constraint::Min(core.decision));
        (Row::new(header).style(self.app.theme.header), widths)
    }
}

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let s = &app.session;
    let fit = s.fit();
    let (columns, plan) = table_plan(app, area.width.saturating_sub(2));
    let shown = plan
        .shown
        .iter()
        .map(|&c| {
            let values = fit
                .and_then(|f| f.extra.sample_column(&columns[c].name))
                .map(|col| col.values.as_slice());
            (&columns[c], values)
        })
        .collect();
    let classes = &s.dataset().classes;
    let cut = |w: u16| distinct(classes, usize::from(w));
    let frame = Frame {
        app,
        given: cut(plan.core.given),
        suggested: cut(plan.core.suggested),
        decided: cut(plan.core.decision.saturating_sub(2)),
        plan,
        shown,
    };
    let block = pane_block(&frame.title(&columns), app.focus == Pane::List, &app.theme);
    let inner = block.inner(area);
    block.render(area, buf);
    // One header line; the rest are rows.
    let height = inner.height.saturating_sub(1) as usize;
    let view = s.view();
    let cursor = s.cursor();
    let offset = scroll(app.list_state.borrow().offset(), cursor, height, view.len());
    app.list_area.set(Rect {
        y: inner.y + 1,
        height: inner.height.saturating_sub(1),
        ..inner
    });
    let end = (offset + height).min(view.len());
    let rows: Vec<Row> = (offset..end)
        .map(|pos| frame.row(pos + 1, view[pos]))
        .collect();
    app.rows_formatted.set(rows.len());
    let (header, widths) = frame.header();
    let table = Table::new(rows, widths)
        .header(header)
        .row_highlight_style(app.theme.selected);
    // The table is given the visible rows only, so its own state is
    // relative to them; the app's state keeps the absolute position.
    let mut window = TableState::new().with_selected((cursor < end).then(|| cursor - offset));
    StatefulWidget::render(table, inner, buf, &mut window);
    *app.list_state.borrow_mut() = TableState::new()
        .with_offset(offset)
        .with_selected((!view.is_empty()).then_some(cursor));
    if view.is_empty() {
        empty_hint(app, inner, buf);
    }
}

fn empty_hint(app: &App, inner: Rect, buf: &mut Buffer) {
    let text = if app.session.filter().is_empty() {
        "no samples".to_string()
    } else {
        format!(
            "no sample matches the filter ({} to change it)",
            app.keys.hint(Action::Filter)
        )
    };
    let line = Rect {
        y: inner.y + 1,
        height: 1,
        ..inner
    };
    Paragraph::new(text).render(line, buf);
}

#[cfg(test)]
mod tests {
    use super::scroll;

    #[test]
    fn the_window_follows_the_cursor() {
        assert_eq!(scroll(0, 5, 10, 100), 0);
        assert_eq!(scroll(0, 12, 10, 100), 3);
        assert_eq!(scroll(20, 12, 10, 100), 12);
        assert_eq!(scroll(50, 0, 10, 3), 0);
    }
}
