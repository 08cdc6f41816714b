//! The model pane: the flip table (gamma) as a heat map, the report's
//! matrices, numbers, lists and notes, and charts: objective, p_mislabel
//! histogram, a 2-D projection with the flagged samples highlighted.
//! Matrices a model marks hidden (`MatrixDisplay`) are not drawn.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Axis, BarChart, Block, Cell, Chart, Clear, Dataset, GraphType, Paragraph, Row, Table, Widget,
    Wrap,
};

use super::app::{App, Pane};
use super::keys::Action;
use super::pane_frame::pane_block;
use super::text::{distinct, integral_or, num, pad, width};
use super::theme::Theme;
use crate::models::{Fit, GammaTable, NamedMatrix};

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let title = match app.session.model_name() {
        Some(m) => format!("model {m}"),
        None => "model".to_string(),
    };
    let block = pane_block(&title, app.focus == Pane::Model, &app.theme);
    let inner = block.inner(area);
    block.render(area, buf);
    let Some(fit) = app.session.fit() else {
        let text = if app.fitting() {
            "fitting...".to_string()
        } else {
            format!(
                "no fit yet ({} picks a model)",
                app.keys.hint(Action::Model)
            )
        };
        Paragraph::new(text).render(inner, buf);
        return;
    };
    // Drawn whole on a page as tall as it needs, of which the pane shows
    // the rows its scroll asks for: tables and notes past the bottom are
    // reachable (the movement keys scroll the pane when it has the focus).
    let stacked = inner.width < 60;
    let tables = tables_height(app, fit, inner.width / if stacked { 1 } else { 2 });
    let natural = if stacked {
        tables + 3 * CHART_LINES
    } else {
        tables.max(3 * CHART_LINES)
    };
    let page = Rect::new(0, 0, inner.width, natural.max(inner.height));
    let mut drawn = Buffer::empty(page);
    draw(app, fit, page, &mut drawn, tables);
    let offset = app.scrolled(Pane::Model, usize::from(page.height), inner.height);
    for y in 0..inner.height.min(page.height - offset) {
        for x in 0..inner.width {
            buf[(inner.x + x, inner.y + y)] = drawn[(x, y + offset)].clone();
        }
    }
}

/// Rows the tables need in a column `width` wide: the flip table, the
/// report's matrices, and its lines as they wrap.
fn tables_height(app: &App, fit: &Fit, width: u16) -> u16 {
    let classes = app.session.dataset().classes.len() as u16;
    let gamma = fit
        .gamma
        .as_ref()
        .map_or(0, |_| classes + HeatTable::GRID_LINES);
    let matrices: u16 = fit
        .extra
        .matrices
        .iter()
        .filter(|m| !m.display.hidden)
        .map(|m| m.row_labels.len() as u16 + HeatTable::GRID_LINES)
        .sum();
    let cells = usize::from(width.max(1));
    let report: usize = report_lines(fit)
        .iter()
        .map(|l| l.width().div_ceil(cells).max(1))
        .sum();
    gamma + matrices + u16::try_from(report).unwrap_or(u16::MAX)
}

/// The pane's content on a page of `inner` (tables need `tables` rows).
fn draw(app: &App, fit: &Fit, inner: Rect, buf: &mut Buffer, tables: u16) {
    let [left, right] = if inner.width >= 60 {
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(inner)
    } else {
        Layout::vertical([Constraint::Length(tables), Constraint::Min(0)]).areas(inner)
    };
    render_tables(app, fit, left, buf);
    // On a short pane fewer charts beat three empty frames. The
    // histogram goes last.
    let charts = (right.height / CHART_LINES).clamp(1, 3) as u32;
    let areas = Layout::vertical((0..charts).map(|_| Constraint::Ratio(1, charts))).split(right);
    let theme = &app.theme;
    match areas.len() {
        3 => {
            render_objective(fit, areas[0], buf, theme);
            render_histogram(app.session.p_mislabel_histogram(), areas[1], buf, theme);
            render_scatter(app, fit, areas[2], buf);
        }
        2 => {
            render_histogram(app.session.p_mislabel_histogram(), areas[0], buf, theme);
            render_scatter(app, fit, areas[1], buf);
        }
        _ => render_histogram(app.session.p_mislabel_histogram(), right, buf, theme),
    }
}

/// Rows a chart needs to say anything.
const CHART_LINES: u16 = 5;

/// The part of `area` from row `y` down.
fn below(area: Rect, y: u16) -> Rect {
    Rect {
        y,
        height: (area.y + area.height).saturating_sub(y),
        ..area
    }
}

/// The gamma heat map, matrices from the model's report, and its numbers.
fn render_tables(app: &App, fit: &Fit, area: Rect, buf: &mut Buffer) {
    let classes = &app.session.dataset().classes;
    let theme = &app.theme;
    let mut y = area.y;
    let bottom = area.y + area.height;
    if let Some(g) = &fit.gamma {
        y += render_gamma(g, classes, below(area, y), buf, theme);
    }
    for m in fit.extra.matrices.iter().filter(|m| !m.display.hidden) {
        if y + 3 >= bottom {
            break;
        }
        y += render_matrix(m, below(area, y), buf, theme);
    }
    if y < bottom {
        Paragraph::new(report_lines(fit))
            .wrap(Wrap { trim: true })
            .render(below(area, y), buf);
    }
}

/// Convergence, then the report's scalars, lists, series and notes.
fn report_lines(fit: &Fit) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(fit.convergence())];
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
    lines
}

/// A labelled heat map: what it shows, the labels, and the values.
struct HeatTable<'a> {
    title: &'a str,
    orientation: &'a str,
    rows: &'a [String],
    cols: &'a [String],
    value: &'a dyn Fn(usize, usize) -> f64,
}

impl HeatTable<'_> {
    /// Lines of a grid besides its rows: the borders, the orientation and
    /// the header.
    const GRID_LINES: u16 = 4;
    /// Lines of the ranked form besides its rows (it has no header).
    const RANKED_LINES: u16 = 3;

    /// Draws the table, or its rows' largest entries when its columns
    /// cannot be read in `area`; returns the height used.
    fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) -> u16 {
        let widest = |labels: &[String]| labels.iter().map(|l| width(l)).max().unwrap_or(4) as u16;
        let inner_width = area.width.saturating_sub(2);
        let n_cols = self.cols.len() as u16;
        // A one-cell gap after every column; a value needs 4 cells ("0.00")
        // and a label at least 5.
        const MIN_LABEL: u16 = 5;
        const MIN_CELL: u16 = 4;
        let fits = |label: u16, cell: u16| label + n_cols * (cell + 1) <= inner_width;
        let mut label = widest(self.rows).clamp(MIN_LABEL, 12);
        if !fits(MIN_LABEL, MIN_CELL) {
            return self.render_ranked(area, buf, theme, label);
        }
        // Shrink the columns to the pane before cutting the labels, so that
        // the table cuts them, not ratatui: its own squeeze cuts from the
        // right and loses the part that differs.
        let mut cell = widest(self.cols).clamp(5, 10);
        if !fits(label, cell) {
            cell =
                (inner_width.saturating_sub(label + n_cols) / n_cols.max(1)).clamp(MIN_CELL, cell);
            label = inner_width
                .saturating_sub(n_cols * (cell + 1))
                .clamp(MIN_LABEL, label);
        }
        let header = Row::new(
            std::iter::once(Cell::from(""))
                .chain(
                    distinct(self.cols, cell as usize)
                        .into_iter()
                        .map(Cell::from),
                )
                .collect::<Vec<_>>(),
        )
        .style(theme.header);
        let names = distinct(self.rows, label as usize);
        let body: Vec<Row> = names
            .into_iter()
            .enumerate()
            .map(|(r, name)| {
                let name = Cell::from(name).style(theme.header);
                let values = (0..self.cols.len()).map(|c| {
                    let v = (self.value)(r, c);
                    Cell::from(num(v, 2)).style(theme.heat(v))
                });
                Row::new(std::iter::once(name).chain(values).collect::<Vec<_>>())
            })
            .collect();
        let widths: Vec<Constraint> = std::iter::once(Constraint::Length(label))
            .chain(self.cols.iter().map(|_| Constraint::Length(cell)))
            .collect();
        let (height, inner) = self.frame(
            area,
            buf,
            theme,
            self.orientation.to_string(),
            Self::GRID_LINES,
        );
        Table::new(body, widths)
            .header(header)
            .render(below(inner, inner.y + 1), buf);
        self.mark_cut(height.saturating_sub(Self::GRID_LINES), inner, buf, theme);
        height
    }

    /// The table as one line per row with that row's largest entries first,
    /// as many as the width holds: twenty classes do not fit a pane's
    /// columns, and the entries that matter (a class's own label, the
    /// labels it is most often given instead) are a row's largest.
    fn render_ranked(&self, area: Rect, buf: &mut Buffer, theme: &Theme, label: u16) -> u16 {
        let (height, inner) = self.frame(
            area,
            buf,
            theme,
            format!("largest first; {}", self.orientation),
            Self::RANKED_LINES,
        );
        let cols = distinct(self.cols, 8);
        let lines: Vec<Line> = distinct(self.rows, label as usize)
            .into_iter()
            .enumerate()
            .map(|(r, name)| {
                let mut order: Vec<usize> = (0..self.cols.len()).collect();
                order.sort_by(|&a, &b| (self.value)(r, b).total_cmp(&(self.value)(r, a)));
                let mut used = label + 1;
                let mut spans = vec![Span::styled(pad(&name, label as usize + 1), theme.header)];
                for c in order {
                    let v = (self.value)(r, c);
                    let entry = format!("{} {}", cols[c], num(v, 2));
                    if used + width(&entry) as u16 > inner.width {
                        break;
                    }
                    used += width(&entry) as u16 + 2;
                    spans.push(Span::styled(entry, theme.heat(v)));
                    spans.push(Span::raw("  "));
                }
                Line::from(spans)
            })
            .collect();
        Paragraph::new(lines).render(below(inner, inner.y + 1), buf);
        self.mark_cut(height.saturating_sub(Self::RANKED_LINES), inner, buf, theme);
        height
    }

    /// When only `shown` of the rows fit, the last line that does says how
    /// many are hidden, so a class's row is never missing unsaid.
    fn mark_cut(&self, shown: u16, inner: Rect, buf: &mut Buffer, theme: &Theme) {
        let rows = self.rows.len() as u16;
        if shown >= rows || shown == 0 {
            return;
        }
        let last = Rect {
            y: inner.y + inner.height - 1,
            height: 1,
            ..inner
        };
        Clear.render(last, buf);
        let hidden = rows - shown + 1;
        Paragraph::new(Line::from(format!("↓ {hidden} more rows")).style(theme.dim))
            .render(last, buf);
    }

    /// The bordered block with the title and the orientation line; the
    /// height used (the rows plus `extra` lines, within `area`) and the
    /// inside of the block.
    fn frame(
        &self,
        area: Rect,
        buf: &mut Buffer,
        theme: &Theme,
        orientation: String,
        extra: u16,
    ) -> (u16, Rect) {
        let height = (self.rows.len() as u16 + extra).min(area.height);
        let rect = Rect { height, ..area };
        let block = Block::bordered().title(Line::from(format!(" {} ", self.title)));
        let inner = block.inner(rect);
        block.render(rect, buf);
        Paragraph::new(Line::from(orientation).style(theme.dim))
            .render(Rect { height: 1, ..inner }, buf);
        (height, inner)
    }
}

fn render_gamma(
    g: &GammaTable,
    classes: &[String],
    area: Rect,
    buf: &mut Buffer,
    theme: &Theme,
) -> u16 {
    HeatTable {
        title: "gamma P(given | true)",
        orientation: "rows: true class, cols: given",
        rows: classes,
        cols: classes,
        value: &|r, c| g.p_given_true(r, c),
    }
    .render(area, buf, theme)
}

fn render_matrix(m: &NamedMatrix, area: Rect, buf: &mut Buffer, theme: &Theme) -> u16 {
    HeatTable {
        title: &m.name,
        orientation: &m.orientation,
        rows: &m.row_labels,
        cols: &m.col_labels,
        value: &|r, c| m.values[r][c],
    }
    .render(area, buf, theme)
}

fn render_histogram(bins: [u64; 10], area: Rect, buf: &mut Buffer, theme: &Theme) {
    let labels: Vec<String> = (0..10).map(|b| format!(".{b}")).collect();
    let data: Vec<(&str, u64)> = labels.iter().map(String::as_str).zip(bins).collect();
    let bar_width = (area.width.saturating_sub(2) / 10).clamp(1, 6);
    BarChart::default()
        .block(Block::bordered().title(Line::from(" p_mislabel histogram ")))
        .data(&data)
        .bar_width(bar_width.saturating_sub(1).max(1))
        .bar_gap(1)
        .bar_style(theme.histogram)
        .render(area, buf);
}

fn render_scatter(app: &App, fit: &Fit, area: Rect, buf: &mut Buffer) {
    let pr = &app.projection;
    let theme = &app.theme;
    let t = app.session.threshold();
    let background: Vec<(f64, f64)> = pr
        .background
        .iter()
        .filter(|&&i| fit.p_mislabel[i] < t || fit.p_mislabel[i].is_nan())
        .map(|&i| pr.points[i])
        .collect();
    let flagged: Vec<(f64, f64)> = app
        .flagged_points(fit, t)
        .iter()
        .map(|&i| pr.points[i])
        .collect();
    let selected: Vec<(f64, f64)> = app
        .session
        .selected()
        .map(|i| pr.points[i])
        .into_iter()
        .collect();
    let datasets = vec![
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Scatter)
            .style(theme.scatter_background)
            .data(&background),
        Dataset::default()
            .name("flagged")
            .marker(Marker::Braille)
            .graph_type(GraphType::Scatter)
            .style(theme.scatter_flagged)
            .data(&flagged),
        Dataset::default()
            .name("selected")
            .marker(Marker::Block)
            .graph_type(GraphType::Scatter)
            .style(theme.scatter_selected)
            .data(&selected),
    ];
    Chart::new(datasets)
        .block(Block::bordered().title(Line::from(" PC1 x PC2 ")))
        .x_axis(Axis::default().bounds([pr.bounds[0].0, pr.bounds[0].1]))
        .y_axis(Axis::default().bounds([pr.bounds[1].0, pr.bounds[1].1]))
        .render(area, buf);
}

fn render_objective(fit: &Fit, area: Rect, buf: &mut Buffer, theme: &Theme) {
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
    let last = points
        .last()
        .map(|p| format!("{:.4}", p.1))
        .unwrap_or_default();
    Chart::new(vec![
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.objective)
            .data(&points),
    ])
    .block(Block::bordered().title(Line::from(format!(" objective {last} "))))
    .x_axis(Axis::default().bounds([1.0, n]))
    .y_axis(Axis::default().bounds([lo, hi]))
    .render(area, buf);
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn rendered(classes: usize, w: u16) -> Vec<String> {
        rendered_in(classes, w, 30)
    }

    fn rendered_in(classes: usize, w: u16, h: u16) -> Vec<String> {
        let names: Vec<String> = (0..classes).map(|c| format!("c{c}")).collect();
        // Each class keeps its label 0.8 of the time and is given the next
        // class's 0.15 of the time.
        let value = |r: usize, c: usize| match (c + classes - r) % classes {
            0 => 0.8,
            1 => 0.15,
            _ => 0.05 / (classes - 2) as f64,
        };
        let table = HeatTable {
            title: "gamma",
            orientation: "rows: true class, cols: given",
            rows: &names,
            cols: &names,
            value: &value,
        };
        let area = Rect::new(0, 0, w, h);
        let mut buf = Buffer::empty(area);
        table.render(area, &mut buf, &Theme::monochrome());
        (0..area.height)
            .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect()
    }

    #[test]
    fn many_classes_list_each_rows_largest_entries() {
        let lines = rendered(20, 35);
        assert!(lines[1].contains("largest first"), "{lines:?}");
        let row = lines.iter().find(|l| l.contains("│c3 ")).unwrap();
        let (own, next) = (row.find("c3 0.80").unwrap(), row.find("c4 0.15").unwrap());
        assert!(own < next, "{row}");
        assert!(
            lines
                .iter()
                .any(|l| l.contains("│c19 ") && l.contains("c0 0.15"))
        );
    }

    #[test]
    fn few_classes_keep_the_grid() {
        let lines = rendered(3, 35);
        assert!(!lines[1].contains("largest first"), "{lines:?}");
        assert!(
            lines[2].contains("c0") && lines[2].contains("c2"),
            "{lines:?}"
        );
        assert!(
            lines[3].contains("0.80") && lines[3].contains("0.15"),
            "{lines:?}"
        );
    }

    #[test]
    fn a_table_cut_by_the_pane_says_how_many_rows_it_hides() {
        // Five classes in 7 lines: borders, orientation and header leave
        // three, two rows and the count of the other three.
        let lines = rendered_in(5, 35, 7);
        assert!(
            lines[3].contains("│c0 ") && lines[4].contains("│c1 "),
            "{lines:?}"
        );
        assert!(lines[5].contains("↓ 3 more rows"), "{lines:?}");
        assert!(!lines.iter().any(|l| l.contains("│c2 ")), "{lines:?}");
        // Twenty, ranked, in 6 lines: two rows and the other eighteen.
        let lines = rendered_in(20, 35, 6);
        assert!(lines[1].contains("largest first"), "{lines:?}");
        assert!(lines[4].contains("↓ 18 more rows"), "{lines:?}");
        // With room for every row, nothing is said; with room for none,
        // nothing breaks.
        assert!(!rendered(5, 35).iter().any(|l| l.contains("more rows")));
        for h in 0..4 {
            rendered_in(5, 35, h);
            rendered_in(20, 35, h);
        }
    }
}
