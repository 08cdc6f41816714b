//! The detail pane: the selected sample's posterior per class (with the
//! keys that relabel to each), its most unusual features and its nearest
//! neighbours.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::app::{App, Pane};
use super::keys::{Action, digit_range};
use super::pane_frame::pane_block;
use super::text::{bar, clip_line, num, pad, short, width, wrap_words};

/// "1-9" when the relabel keys are the digits, else the keys one by one.
fn relabel_keys(app: &App) -> String {
    let digits: Vec<u8> = (1..=9).collect();
    let keys: Vec<String> = digits
        .iter()
        .map(|&n| app.keys.hint(Action::RelabelNth(n)))
        .collect();
    digit_range(&digits, &keys)
}

/// The posterior's heading: what the key beside each class does.
fn posterior_heading(app: &App) -> String {
    if app.session.digit_keys_name_classes() {
        "posterior (digit keys relabel to the class of that name):".into()
    } else {
        format!("posterior (keys {} relabel to these):", relabel_keys(app))
    }
}

/// Cells for one of `names` in a line with `fixed` other cells, in a pane
/// `cells` wide: `least` (the lines keep their alignment), more when the
/// names are longer and the pane has room for them whole.
fn name_width(names: &[String], least: usize, cells: u16, fixed: usize) -> usize {
    let longest = names.iter().map(|c| width(c)).max().unwrap_or(0);
    longest
        .min(usize::from(cells).saturating_sub(fixed))
        .max(least)
}

/// [`name_width`] for class names, at least 14 cells.
fn class_width(app: &App, cells: u16, fixed: usize) -> usize {
    name_width(&app.session.dataset().classes, 14, cells, fixed)
}

fn posterior_lines(app: &App, i: usize, cells: u16, lines: &mut Vec<Line<'static>>) {
    let s = &app.session;
    let Some(fit) = s.fit_of(i) else { return };
    let classes = &s.dataset().classes;
    lines.push(Line::from(posterior_heading(app)));
    // " k name 0.123 " and a 12-cell bar.
    let name_w = class_width(app, cells, 22);
    for (c, key) in s.keyed_classes(i) {
        let p = fit.posterior[(i, c)];
        let key = key.map_or_else(|| " ".into(), |k| app.keys.hint(Action::RelabelNth(k)));
        lines.push(Line::from(format!(
            " {key} {} {} {}",
            pad(&classes[c], name_w),
            num(p, 3),
            bar(p, 12)
        )));
    }
}

fn sample_lines(app: &App, i: usize, cells: u16, lines: &mut Vec<Line<'static>>) {
    let ds = app.session.dataset();
    let Some(d) = app.detail.current.as_ref().filter(|d| d.sample == i) else {
        return;
    };
    // Values read on a log2 scale are shown on it, and it is said.
    lines.push(Line::from(if ds.log_scale.is_log2() {
        "features (log2 values, most unusual first, z = standardised):"
    } else {
        "features (most unusual first, z = standardised):"
    }));
    // "   name " and "     value z  +0.00", for the six shown (a microarray
    // has tens of thousands of names); a probe with its gene symbol.
    let shown: Vec<String> = d
        .features
        .iter()
        .take(6)
        .map(|&(j, _, _)| ds.feature_label(j))
        .collect();
    let feature_w = name_width(&shown, 20, cells, 23);
    for (&(_, v, z), name) in d.features.iter().take(6).zip(&shown) {
        lines.push(Line::from(format!(
            "   {} {:>10} z {:>+6.2}",
            pad(name, feature_w),
            format!("{v:.4}"),
            z
        )));
    }
    lines.push(Line::from("nearest neighbours:"));
    // "   id " and " d 0.00".
    let name_w = class_width(app, cells, 23);
    for &(k, dist) in &d.neighbours {
        lines.push(Line::from(format!(
            "   {} {} d {dist:.2}",
            pad(&ds.ids[k], 12),
            pad(ds.given_label(k), name_w),
        )));
    }
}

/// The sample's comment, in at most two lines (the rest cut with `…`): the
/// pane's other lines matter as much, and the comment key shows it whole.
fn comment_lines(app: &App, i: usize, cells: u16, lines: &mut Vec<Line<'static>>) {
    let Some(text) = app.session.comment_of(i) else {
        return;
    };
    let cells = usize::from(cells).max(8);
    let mut rows = wrap_words(&format!("✎ {text}"), cells);
    if rows.len() > 2 {
        rows.truncate(2);
        let cut = short(&rows[1], cells - 1);
        rows[1] = if cut.ends_with('…') {
            cut
        } else {
            format!("{cut}…")
        };
    }
    lines.extend(
        rows.into_iter()
            .map(|r| Line::from(Span::styled(r, app.theme.given))),
    );
}

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let s = &app.session;
    let ds = s.dataset();
    let block = pane_block("detail", app.focus == Pane::Detail, &app.theme);
    let inner = block.inner(area);
    block.render(area, buf);
    let Some(i) = s.selected() else {
        Paragraph::new("nothing selected").render(inner, buf);
        return;
    };
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{} ", ds.ids[i]), app.theme.header),
        Span::raw(format!("(row {}) given ", ds.rows[i])),
        Span::styled(ds.given_label(i).to_string(), app.theme.given),
    ])];
    comment_lines(app, i, inner.width, &mut lines);
    posterior_lines(app, i, inner.width, &mut lines);
    sample_lines(app, i, inner.width, &mut lines);
    let lines: Vec<Line> = lines
        .into_iter()
        .map(|l| clip_line(l, usize::from(inner.width)))
        .collect();
    let offset = app.scrolled(Pane::Detail, lines.len(), inner.height);
    Paragraph::new(lines).scroll((offset, 0)).render(inner, buf);
}
