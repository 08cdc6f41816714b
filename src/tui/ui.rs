//! Drawing. Everything here reads the `App` and writes into the buffer:
//! no data changes, no I/O. The list formats only the rows on screen.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Axis, BarChart, Block, Cell, Chart, Clear, Dataset, GraphType, Paragraph, Row, Table, Widget,
    Wrap,
};

use super::app::{App, Pane, Popup, filter_entries};
use super::picker;
use super::table::{self, Core, ModelColumn, Plan};
use crate::models::{Fit, GammaTable, NamedMatrix};
use crate::review::{Decision, SortKey};

/// Screens at least this wide show list, detail and model side by side.
const WIDE: u16 = 110;
/// The detail pane's feature lines need this much beside a wide list.
const RIGHT_MIN: u16 = 46;

fn heat(v: f64) -> Color {
    // White (0) to deep red (1): the eye finds large flip rates first.
    let v = if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let g = (235.0 - 200.0 * v.sqrt()) as u8;
    Color::Rgb(235, g, g)
}

fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

fn num(v: f64, digits: usize) -> String {
    if v.is_nan() {
        "-".into()
    } else {
        format!("{v:.digits$}")
    }
}

/// Counts and flags (iterations, clusters, non-zero shifts) read as
/// integers; other numbers get `digits` decimals.
fn integral_or(v: f64, digits: usize) -> String {
    if v.fract() == 0.0 && v.abs() < 1e12 {
        format!("{v:.0}")
    } else {
        num(v, digits)
    }
}

/// A bar of `width` cells for a value in [0, 1], with eighth blocks.
fn bar(v: f64, width: usize) -> String {
    if !v.is_finite() {
        return " ".repeat(width);
    }
    let eighths = (v.clamp(0.0, 1.0) * (width * 8) as f64).round() as usize;
    let parts = [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let mut s = "█".repeat(eighths / 8);
    if !eighths.is_multiple_of(8) {
        s.push_str(parts[eighths % 8]);
    }
    while s.chars().count() < width {
        s.push(' ');
    }
    s
}

fn pane_block(title: &str, focused: bool) -> Block<'_> {
    let style = if focused {
        Style::default().fg(Color::Cyan)
    } else {
        Style::default().fg(Color::DarkGray)
    };
    Block::bordered()
        .title(Line::from(format!(" {title} ")))
        .border_style(style)
}

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let [main, status, hint] = Layout::vertical([
            Constraint::Min(3),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area);
        if area.width >= WIDE {
            let [list, right] = Layout::horizontal([
                Constraint::Length(self.list_width(area.width)),
                Constraint::Fill(1),
            ])
            .areas(main);
            let [detail, model] =
                Layout::vertical([Constraint::Percentage(42), Constraint::Percentage(58)])
                    .areas(right);
            self.render_list(list, buf);
            self.render_detail(detail, buf);
            self.render_model(model, buf);
        } else {
            match self.focus {
                Pane::List => self.render_list(main, buf),
                Pane::Detail => self.render_detail(main, buf),
                Pane::Model => self.render_model(main, buf),
            }
        }
        self.render_status(status, buf);
        self.render_hint(hint, buf);
        if let Some(p) = &self.popup {
            self.render_popup(p, area, buf);
        }
    }
}

impl App {
    /// The table's columns at the list's inner width.
    fn table_plan(&self, width: u16) -> (Vec<ModelColumn>, Plan) {
        let fit = self.session.fit();
        let columns = fit.map(table::model_columns).unwrap_or_default();
        let core = Core::new(self.session.dataset(), self.id_width, fit);
        let plan = table::plan(width, core, &columns);
        (columns, plan)
    }

    /// How wide the list would like to be on a wide screen: enough for
    /// every model column, so `all` takes width from the detail pane.
    fn list_width(&self, total: u16) -> u16 {
        let share = total * 55 / 100;
        let fit = self.session.fit();
        let columns = fit.map(table::model_columns).unwrap_or_default();
        let core = Core::new(self.session.dataset(), self.id_width, fit);
        let want = table::full_width(core, &columns) + 2;
        want.clamp(share, share.max(total.saturating_sub(RIGHT_MIN)))
    }

    fn render_list(&self, area: Rect, buf: &mut Buffer) {
        let s = &self.session;
        let ds = s.dataset();
        let fit = s.fit();
        let (columns, plan) = self.table_plan(area.width.saturating_sub(2));
        let sort = s.sort_key();
        let arrow = if s.sort_descending() { "↓" } else { "↑" };
        let sort_header = match sort {
            SortKey::Column(name) => columns
                .iter()
                .find(|c| c.name == *name)
                .map_or_else(|| name.clone(), |c| c.header.clone()),
            other => other.name(),
        };
        let mut title = format!("samples │ sort {sort_header}{arrow}");
        if !plan.hidden.is_empty() {
            let names: Vec<&str> = plan
                .hidden
                .iter()
                .map(|&i| columns[i].header.as_str())
                .collect();
            title.push_str(&format!(" │ too narrow for {}", names.join(" ")));
        }
        let block = pane_block(&title, self.focus == Pane::List);
        let inner = block.inner(area);
        block.render(area, buf);
        // One header line; the rest are rows.
        let height = inner.height.saturating_sub(1) as usize;
        let view = s.view();
        let cursor = s.cursor();
        let mut offset = self.list_offset.get().min(view.len().saturating_sub(1));
        if cursor < offset {
            offset = cursor;
        } else if height > 0 && cursor >= offset + height {
            offset = cursor + 1 - height;
        }
        self.list_offset.set(offset);
        self.list_area.set(Rect {
            y: inner.y + 1,
            height: inner.height.saturating_sub(1),
            ..inner
        });
        let end = (offset + height).min(view.len());
        let threshold = s.threshold();
        let core = plan.core;
        let class_w = core.decision as usize - 2;
        let shown: Vec<(&ModelColumn, Option<&[f64]>)> = plan
            .shown
            .iter()
            .map(|&c| {
                let values = fit
                    .and_then(|f| f.extra.sample_column(&columns[c].name))
                    .map(|col| col.values.as_slice());
                (&columns[c], values)
            })
            .collect();
        let rows: Vec<Row> = view[offset..end]
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                let p = fit.map_or(f64::NAN, |f| f.p_mislabel[i]);
                let given = ds.labels[i];
                let suggested = fit.map(|f| f.suggested[i]);
                let decision = match s.decision(i) {
                    Some(Decision::Relabel(c)) => format!("→ {}", short(&ds.classes[c], class_w)),
                    Some(Decision::Keep) => "keep".into(),
                    Some(Decision::Drop) => "drop".into(),
                    None => String::new(),
                };
                let p_style = if p >= threshold {
                    Style::default().fg(Color::Red)
                } else {
                    Style::default()
                };
                let dec_style = match s.decision(i) {
                    Some(Decision::Relabel(_)) => Style::default().fg(Color::Green),
                    Some(Decision::Drop) => Style::default().fg(Color::Magenta),
                    Some(Decision::Keep) => Style::default().fg(Color::Blue),
                    None => Style::default(),
                };
                let mut cells = vec![
                    Cell::from(format!("{}", offset + k + 1)),
                    Cell::from(short(&ds.ids[i], core.id as usize)),
                    Cell::from(short(&ds.classes[given], core.given as usize)),
                    Cell::from(
                        suggested
                            .map(|c| short(&ds.classes[c], core.suggested as usize))
                            .unwrap_or_default(),
                    ),
                    Cell::from(format!("{} {}", num(p, 3), bar(p, plan.p as usize - 6)))
                        .style(p_style),
                ];
                if core.gamma {
                    let gamma = fit.map_or(f64::NAN, |f| f.sample_gamma(i, given));
                    let w = table::GAMMA as usize;
                    cells.push(Cell::from(format!("{:>w$}", num(gamma, 3))));
                }
                for (c, values) in &shown {
                    cells.push(Cell::from(c.format(values.map_or(f64::NAN, |v| v[i]))));
                }
                cells.push(Cell::from(decision).style(dec_style));
                let mut row = Row::new(cells);
                if offset + k == cursor {
                    row = row.style(Style::default().add_modifier(Modifier::REVERSED));
                }
                row
            })
            .collect();
        self.rows_formatted.set(rows.len());
        let sorted = Style::default().fg(Color::Yellow);
        let head = |text: &str, key: SortKey| -> Cell<'static> {
            if *sort == key {
                Cell::from(format!("{text}{arrow}")).style(sorted)
            } else {
                Cell::from(text.to_string())
            }
        };
        let mut header = vec![
            Cell::from("#"),
            head("id", SortKey::Id),
            Cell::from("given"),
            Cell::from("suggested"),
            head("p_mislabel", SortKey::PMislabel),
        ];
        let mut widths = vec![
            Constraint::Length(core.rank),
            Constraint::Length(core.id),
            Constraint::Length(core.given),
            Constraint::Length(core.suggested),
            Constraint::Length(plan.p),
        ];
        if core.gamma {
            // Right-aligned like the numbers under it and the model columns.
            let gamma = if *sort == SortKey::Gamma {
                "gamma"
            } else {
                " gamma"
            };
            header.push(head(gamma, SortKey::Gamma));
            widths.push(Constraint::Length(table::GAMMA));
        }
        for (c, _) in &shown {
            let w = c.width as usize;
            let text = if *sort == SortKey::Column(c.name.clone()) {
                format!("{}{arrow}", c.header)
            } else {
                c.header.clone()
            };
            let cell = Cell::from(format!("{text:>w$}"));
            header.push(if *sort == SortKey::Column(c.name.clone()) {
                cell.style(sorted)
            } else {
                cell
            });
            widths.push(Constraint::Length(c.width));
        }
        header.push(Cell::from("decision"));
        widths.push(Constraint::Min(core.decision));
        let header = Row::new(header).style(Style::default().add_modifier(Modifier::BOLD));
        Table::new(rows, widths).header(header).render(inner, buf);
        if view.is_empty() {
            let text = if s.filter().is_empty() {
                "no samples"
            } else {
                "no sample matches the filter (f to change it)"
            };
            Paragraph::new(text).render(
                Rect {
                    y: inner.y + 1,
                    height: 1,
                    ..inner
                },
                buf,
            );
        }
    }

    fn render_detail(&self, area: Rect, buf: &mut Buffer) {
        let s = &self.session;
        let ds = s.dataset();
        let block = pane_block("detail", self.focus == Pane::Detail);
        let inner = block.inner(area);
        block.render(area, buf);
        let Some(i) = s.selected() else {
            Paragraph::new("nothing selected").render(inner, buf);
            return;
        };
        let mut lines = vec![Line::from(vec![
            Span::styled(
                format!("{} ", ds.ids[i]),
                Style::default().add_modifier(Modifier::BOLD),
            ),
            Span::raw(format!("(row {}) given ", ds.rows[i])),
            Span::styled(
                ds.given_label(i).to_string(),
                Style::default().fg(Color::Yellow),
            ),
        ])];
        if let Some(fit) = s.fit() {
            lines.push(Line::from("posterior (keys 1-9 relabel to these):"));
            for (n, c) in s.classes_by_posterior(i).into_iter().enumerate() {
                let p = fit.posterior[(i, c)];
                let key = if n < 9 {
                    format!("{}", n + 1)
                } else {
                    " ".into()
                };
                lines.push(Line::from(format!(
                    " {key} {:<14} {} {}",
                    short(&ds.classes[c], 14),
                    num(p, 3),
                    bar(p, 12)
                )));
            }
        }
        if let Some(d) = self.detail.current.as_ref().filter(|d| d.sample == i) {
            lines.push(Line::from(
                "features (most unusual first, z = standardised):",
            ));
            for &(j, v, z) in d.features.iter().take(6) {
                lines.push(Line::from(format!(
                    "   {:<20} {:>10} z {:>+6.2}",
                    short(&ds.feature_names[j], 20),
                    format!("{v:.4}"),
                    z
                )));
            }
            lines.push(Line::from("nearest neighbours:"));
            for &(k, dist) in &d.neighbours {
                lines.push(Line::from(format!(
                    "   {:<12} {:<14} d {:.2}",
                    short(&ds.ids[k], 12),
                    short(ds.given_label(k), 14),
                    dist
                )));
            }
        }
        Paragraph::new(lines).render(inner, buf);
    }

    fn render_model(&self, area: Rect, buf: &mut Buffer) {
        let title = match self.session.model_name() {
            Some(m) => format!("model {m}"),
            None => "model".to_string(),
        };
        let block = pane_block(&title, self.focus == Pane::Model);
        let inner = block.inner(area);
        block.render(area, buf);
        let Some(fit) = self.session.fit() else {
            let text = if self.fitting() {
                "fitting..."
            } else {
                "no fit yet (m picks a model)"
            };
            Paragraph::new(text).render(inner, buf);
            return;
        };
        let [left, right] = if inner.width >= 60 {
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(inner)
        } else {
            Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(inner)
        };
        self.render_tables(fit, left, buf);
        // A chart needs about five rows to say anything; on a short pane
        // fewer charts beat three empty frames. The histogram goes last.
        let charts = (right.height / 5).clamp(1, 3) as u32;
        let areas =
            Layout::vertical((0..charts).map(|_| Constraint::Ratio(1, charts))).split(right);
        match areas.len() {
            3 => {
                render_objective(fit, areas[0], buf);
                self.render_histogram(fit, areas[1], buf);
                self.render_scatter(fit, areas[2], buf);
            }
            2 => {
                self.render_histogram(fit, areas[0], buf);
                self.render_scatter(fit, areas[1], buf);
            }
            _ => self.render_histogram(fit, right, buf),
        }
    }

    /// The gamma heat map, matrices from the model's report, and its numbers.
    fn render_tables(&self, fit: &Fit, area: Rect, buf: &mut Buffer) {
        let classes = &self.session.dataset().classes;
        let mut y = area.y;
        let bottom = area.y + area.height;
        if let Some(g) = &fit.gamma {
            let h = render_gamma(
                g,
                classes,
                Rect {
                    y,
                    height: bottom - y,
                    ..area
                },
                buf,
            );
            y += h;
        }
        for m in fit
            .extra
            .matrices
            .iter()
            .filter(|m| !m.name.contains("paper orientation"))
        {
            if y + 3 >= bottom {
                break;
            }
            let h = render_matrix(
                m,
                Rect {
                    y,
                    height: bottom - y,
                    ..area
                },
                buf,
            );
            y += h;
        }
        let mut lines = vec![Line::from(format!(
            "{} after {} iterations",
            if fit.converged {
                "converged"
            } else {
                "NOT converged"
            },
            fit.iterations
        ))];
        for (name, v) in fit.extra.scalars.iter().take(6) {
            lines.push(Line::from(format!("{name} = {}", integral_or(*v, 4))));
        }
        for (name, items) in &fit.extra.lists {
            lines.push(Line::from(format!("{name}: {}", items.join(" "))));
        }
        for series in &fit.extra.series {
            let pts: Vec<String> = series
                .points
                .iter()
                .take(8)
                .map(|(x, y)| format!("{}:{}", num(*x, 2), integral_or(*y, 1)))
                .collect();
            lines.push(Line::from(format!(
                "{} ({} vs {}): {}",
                series.name,
                series.y_label,
                series.x_label,
                pts.join(" ")
            )));
        }
        for note in &fit.extra.notes {
            lines.push(Line::from(note.clone()));
        }
        if y < bottom {
            Paragraph::new(lines).wrap(Wrap { trim: true }).render(
                Rect {
                    y,
                    height: bottom - y,
                    ..area
                },
                buf,
            );
        }
    }

    fn render_histogram(&self, fit: &Fit, area: Rect, buf: &mut Buffer) {
        let mut bins = [0u64; 10];
        for p in fit.p_mislabel.iter().filter(|p| p.is_finite()) {
            bins[((p * 10.0) as usize).min(9)] += 1;
        }
        let labels: Vec<String> = (0..10).map(|b| format!(".{b}")).collect();
        let data: Vec<(&str, u64)> = labels.iter().map(String::as_str).zip(bins).collect();
        let width = (area.width.saturating_sub(2) / 10).clamp(1, 6);
        BarChart::default()
            .block(Block::bordered().title(Line::from(" p_mislabel histogram ")))
            .data(&data)
            .bar_width(width.saturating_sub(1).max(1))
            .bar_gap(1)
            .bar_style(Style::default().fg(Color::Red))
            .render(area, buf);
    }

    fn render_scatter(&self, fit: &Fit, area: Rect, buf: &mut Buffer) {
        let pr = &self.projection;
        let t = self.session.threshold();
        let background: Vec<(f64, f64)> = pr
            .background
            .iter()
            .filter(|&&i| fit.p_mislabel[i] < t || fit.p_mislabel[i].is_nan())
            .map(|&i| pr.points[i])
            .collect();
        let flagged: Vec<(f64, f64)> = (0..pr.points.len())
            .filter(|&i| fit.p_mislabel[i] >= t)
            .take(4000)
            .map(|i| pr.points[i])
            .collect();
        let selected: Vec<(f64, f64)> = self
            .session
            .selected()
            .map(|i| pr.points[i])
            .into_iter()
            .collect();
        let datasets = vec![
            Dataset::default()
                .marker(Marker::Braille)
                .graph_type(GraphType::Scatter)
                .style(Style::default().fg(Color::DarkGray))
                .data(&background),
            Dataset::default()
                .name("flagged")
                .marker(Marker::Braille)
                .graph_type(GraphType::Scatter)
                .style(Style::default().fg(Color::Red))
                .data(&flagged),
            Dataset::default()
                .name("selected")
                .marker(Marker::Block)
                .graph_type(GraphType::Scatter)
                .style(Style::default().fg(Color::Yellow))
                .data(&selected),
        ];
        Chart::new(datasets)
            .block(Block::bordered().title(Line::from(" PC1 x PC2 ")))
            .x_axis(Axis::default().bounds([pr.bounds[0].0, pr.bounds[0].1]))
            .y_axis(Axis::default().bounds([pr.bounds[1].0, pr.bounds[1].1]))
            .render(area, buf);
    }

    fn render_status(&self, area: Rect, buf: &mut Buffer) {
        let s = &self.session;
        let c = s.counts();
        let file = s.dataset().raw.path.file_name().map_or_else(
            || s.dataset().raw.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let model = s.model_name().unwrap_or(&self.model);
        let mut text = format!(
            " {file} │ {model} │ flagged {} at p≥{:.2} │ decided {}/{}",
            c.flagged,
            s.threshold(),
            c.decided,
            c.total,
        );
        if !s.filter().is_empty() {
            text.push_str(&format!(
                " │ filter {} ({} shown)",
                s.filter().describe(&s.dataset().classes),
                c.shown
            ));
        }
        if s.has_unexported() {
            text.push_str(" [+]");
        }
        if let Some(job) = &self.job {
            let progress = job.last.as_ref().map_or_else(
                || "starting".to_string(),
                |p| format!("{} it {} obj {:.4}", p.stage, p.iteration, p.objective),
            );
            let fraction = job
                .last
                .as_ref()
                .map_or(0.0, |p| p.fraction.clamp(0.0, 1.0));
            text.push_str(&format!(
                " │ fitting {}: {progress} [{}] Esc cancels",
                job.model,
                bar(fraction, 10)
            ));
        }
        Paragraph::new(text)
            .style(Style::default().bg(Color::Blue).fg(Color::White))
            .render(area, buf);
    }

    fn render_hint(&self, area: Rect, buf: &mut Buffer) {
        let line = match &self.message {
            Some(m) if m.error => Line::from(Span::styled(
                m.text.clone(),
                Style::default().fg(Color::Red),
            )),
            Some(m) => Line::from(m.text.clone()),
            None => {
                let k = |a| self.keys.keys_of(a);
                use super::keys::Action as A;
                Line::from(format!(
                    "{} accept  {} keep  {} drop  {} undo  {} model  {} export  {} help  {} quit",
                    k(A::Accept),
                    k(A::Keep),
                    k(A::Drop),
                    k(A::Undo),
                    k(A::Model),
                    k(A::Export),
                    k(A::Help),
                    k(A::Quit)
                ))
                .style(Style::default().fg(Color::DarkGray))
            }
        };
        Paragraph::new(line).render(area, buf);
    }

    fn render_popup(&self, popup: &Popup, area: Rect, buf: &mut Buffer) {
        let classes = &self.session.dataset().classes;
        let (title, lines, w, h): (String, Vec<Line>, u16, u16) = match popup {
            Popup::Help { scroll } => {
                let entries: Vec<String> = self
                    .keys
                    .help_lines()
                    .into_iter()
                    .map(|(k, d)| format!("{k:>17}  {d}"))
                    .collect();
                // Two columns when one does not fit the screen's height.
                let rows = if entries.len() as u16 + 2 > area.height && area.width >= 140 {
                    entries.len().div_ceil(2)
                } else {
                    entries.len()
                };
                let lines: Vec<Line> = (0..rows)
                    .map(|r| {
                        let left = &entries[r];
                        match entries.get(r + rows).filter(|_| rows < entries.len()) {
                            Some(right) => Line::from(format!("{left:<66}{right}")),
                            None => Line::from(left.clone()),
                        }
                    })
                    .collect();
                // What still does not fit scrolls, and the title says so.
                let visible = (area.height.saturating_sub(2) as usize).max(1);
                let max = lines.len().saturating_sub(visible);
                self.help_scroll_max.set(max);
                let first = (*scroll).min(max);
                let title = if max > 0 {
                    format!(
                        "keys {}-{} of {} (j/k scroll, Esc closes)",
                        first + 1,
                        (first + visible).min(lines.len()),
                        lines.len()
                    )
                } else {
                    "keys (Esc closes)".into()
                };
                let lines: Vec<Line> = lines.into_iter().skip(first).collect();
                let w = if rows < entries.len() { 136 } else { 68 };
                let h = lines.len() as u16 + 2;
                (title, lines, w, h)
            }
            Popup::Filter { selected } => {
                let mut entries: Vec<String> = filter_entries(classes)
                    .into_iter()
                    .map(|(n, _)| n)
                    .collect();
                entries.push(format!("p_mislabel >= {:.2}", self.session.threshold()));
                let lines = menu(&entries, *selected);
                let h = lines.len() as u16 + 2;
                ("filter (Enter applies)".into(), lines, 40, h)
            }
            Popup::ClassPicker { selected } => {
                let sample = self.session.selected().unwrap_or(0);
                let entries: Vec<String> = self
                    .session
                    .classes_by_posterior(sample)
                    .into_iter()
                    .map(|c| classes[c].clone())
                    .collect();
                let lines = menu(&entries, *selected);
                let h = lines.len() as u16 + 2;
                ("relabel to (Enter)".into(), lines, 36, h)
            }
            Popup::ModelPicker(p) => {
                let w = 72.min(area.width);
                let lines = picker::lines(p, w.saturating_sub(2), area.height.saturating_sub(2));
                let h = lines.len() as u16 + 2;
                ("model".into(), lines, w, h)
            }
            Popup::Threshold { input } => (
                "flag threshold (0-1, Enter)".into(),
                vec![Line::from(format!("{input}▏"))],
                34,
                3,
            ),
            Popup::Search { input } => (
                "search id (Enter)".into(),
                vec![Line::from(format!("/{input}▏"))],
                34,
                3,
            ),
            Popup::ConfirmQuit => (
                "quit?".into(),
                vec![
                    Line::from("Some decisions are not exported yet."),
                    Line::from("They are saved in the session journal and"),
                    Line::from("come back when you open this file again."),
                    Line::from(""),
                    Line::from("y quit   e export first   any other key stays"),
                ],
                50,
                7,
            ),
            Popup::ConfirmOverwrite => (
                "replace?".into(),
                vec![
                    Line::from("The cleaned file or the audit file exists."),
                    Line::from("y replace them   any other key cancels"),
                ],
                46,
                4,
            ),
        };
        let w = w.min(area.width);
        let h = h.min(area.height);
        let rect = Rect {
            x: area.x + (area.width - w) / 2,
            y: area.y + (area.height - h) / 2,
            width: w,
            height: h,
        };
        Clear.render(rect, buf);
        Paragraph::new(lines)
            .block(
                Block::bordered()
                    .title(Line::from(format!(" {title} ")))
                    .border_style(Style::default().fg(Color::Yellow)),
            )
            .render(rect, buf);
    }
}

fn menu(entries: &[String], selected: usize) -> Vec<Line<'static>> {
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            if i == selected {
                Line::from(Span::styled(
                    format!("▶ {e}"),
                    Style::default().add_modifier(Modifier::REVERSED),
                ))
            } else {
                Line::from(format!("  {e}"))
            }
        })
        .collect()
}

/// Draws a labelled heat map; returns the height used.
fn heat_table(
    title: &str,
    orientation: &str,
    rows: &[String],
    cols: &[String],
    value: &dyn Fn(usize, usize) -> f64,
    area: Rect,
    buf: &mut Buffer,
) -> u16 {
    let height = (rows.len() as u16 + 4).min(area.height);
    let rect = Rect { height, ..area };
    let longest = cols.iter().map(|c| c.chars().count()).max().unwrap_or(4);
    let cell = (longest as u16).clamp(5, 10);
    let label = (rows.iter().map(|r| r.chars().count()).max().unwrap_or(4) as u16).clamp(5, 12);
    let header = Row::new(
        std::iter::once(Cell::from(""))
            .chain(cols.iter().map(|c| Cell::from(short(c, cell as usize))))
            .collect::<Vec<_>>(),
    )
    .style(Style::default().add_modifier(Modifier::BOLD));
    let body: Vec<Row> = rows
        .iter()
        .enumerate()
        .map(|(r, name)| {
            Row::new(
                std::iter::once(
                    Cell::from(short(name, label as usize))
                        .style(Style::default().add_modifier(Modifier::BOLD)),
                )
                .chain((0..cols.len()).map(|c| {
                    let v = value(r, c);
                    Cell::from(num(v, 2)).style(Style::default().bg(heat(v)).fg(Color::Black))
                }))
                .collect::<Vec<_>>(),
            )
        })
        .collect();
    let widths: Vec<Constraint> = std::iter::once(Constraint::Length(label))
        .chain(cols.iter().map(|_| Constraint::Length(cell)))
        .collect();
    let block = Block::bordered().title(Line::from(format!(" {title} ")));
    let inner = block.inner(rect);
    block.render(rect, buf);
    Paragraph::new(Line::from(orientation.to_string()).style(Style::default().fg(Color::DarkGray)))
        .render(Rect { height: 1, ..inner }, buf);
    Table::new(body, widths).header(header).render(
        Rect {
            y: inner.y + 1,
            height: inner.height.saturating_sub(1),
            ..inner
        },
        buf,
    );
    height
}

fn render_gamma(g: &GammaTable, classes: &[String], area: Rect, buf: &mut Buffer) -> u16 {
    heat_table(
        "gamma P(given | true)",
        "rows: true class, cols: given",
        classes,
        classes,
        &|r, c| g.p_given_true(r, c),
        area,
        buf,
    )
}

fn render_matrix(m: &NamedMatrix, area: Rect, buf: &mut Buffer) -> u16 {
    heat_table(
        &m.name,
        &m.orientation,
        &m.row_labels,
        &m.col_labels,
        &|r, c| m.values[r][c],
        area,
        buf,
    )
}

fn render_objective(fit: &Fit, area: Rect, buf: &mut Buffer) {
    let points: Vec<(f64, f64)> = fit
        .trace
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_finite())
        .map(|(i, v)| ((i + 1) as f64, *v))
        .collect();
    let (lo, hi) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(p.1), hi.max(p.1))
        });
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 1.0, lo + 1.0)
    };
    let n = points.len().max(2) as f64;
    let title = format!(
        " objective {} ",
        points
            .last()
            .map(|p| format!("{:.4}", p.1))
            .unwrap_or_default()
    );
    Chart::new(vec![
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(Color::Cyan))
            .data(&points),
    ])
    .block(Block::bordered().title(Line::from(title)))
    .x_axis(Axis::default().bounds([1.0, n]))
    .y_axis(Axis::default().bounds([lo, hi]))
    .render(area, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_with_the_value() {
        assert_eq!(bar(0.0, 4), "    ");
        assert_eq!(bar(1.0, 4), "████");
        assert_eq!(bar(0.5, 4), "██  ");
        assert_eq!(bar(f64::NAN, 2), "  ");
        assert_eq!(short("abcdef", 4), "abc…");
    }
}
