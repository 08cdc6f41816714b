//! The two bottom lines: the status bar (file, model, counts, filter, the
//! fit in flight) and the hint line (the last message, else the main keys).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::app::App;
use super::keys::Action;
use super::text::bar;

/// " │ fitting rnda: em it 3 obj -1.2 [███ ] Esc cancels"
fn fit_progress(app: &App) -> Option<String> {
    let job = app.job.as_ref()?;
    let progress = job.last.as_ref().map_or_else(
        || "starting".to_string(),
        |p| {
            // A stage without an objective (auto choosing a model counts
            // fits done) says its count, as the headless progress does.
            if p.objective.is_finite() {
                format!("{} it {} obj {:.4}", p.stage, p.iteration, p.objective)
            } else {
                format!("{} {}/{}", p.stage, p.iteration, p.max_iterations)
            }
        },
    );
    let fraction = job
        .last
        .as_ref()
        .map_or(0.0, |p| p.fraction.clamp(0.0, 1.0));
    Some(format!(
        " │ fitting {}: {progress} [{}] {} cancels",
        job.model,
        bar(fraction, 10),
        app.keys.hint(Action::Cancel)
    ))
}

pub fn render_status(app: &App, area: Rect, buf: &mut Buffer) {
    let s = &app.session;
    let c = s.counts();
    let path = &s.dataset().raw.path;
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let model = s.model_name().unwrap_or(&app.model);
    let mut text = format!(
        " {file} │ {model} │ flagged {} at p≥{:.2} │ decided {}/{}",
        c.flagged,
        s.threshold(),
        c.decided,
        c.total,
    );
    if s.fit().is_some() {
        // The curator's "how many more should I look at?".
        text.push_str(&format!(" │ ~{:.0} wrong left", c.expected_wrong));
    }
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
    if s.read_only_holder().is_some() {
        text.push_str(" [read-only]");
    }
    text.push_str(&fit_progress(app).unwrap_or_default());
    Paragraph::new(text)
        .style(app.theme.status_bar)
        .render(area, buf);
}

/// Rows of at most `cells` terminal cells each (a long path breaks anywhere).
fn wrap_cells(text: &str, cells: usize) -> Vec<String> {
    let mut rows = vec![String::new()];
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > cells.max(1) && used > 0 {
            rows.push(String::new());
            used = 0;
        }
        if let Some(row) = rows.last_mut() {
            row.push(c);
        }
        used += w;
    }
    rows
}

/// While there are start-up notices: each of them and then the last
/// message, on rows of their own, wrapped to `cells`.
fn notice_rows(app: &App, cells: usize) -> Vec<Line<'static>> {
    if app.notices.is_empty() {
        return Vec::new();
    }
    let mut rows = Vec::new();
    for m in app.notices.iter().chain(&app.message) {
        let style = if m.error {
            app.theme.error
        } else {
            ratatui::style::Style::default()
        };
        rows.extend(
            wrap_cells(&m.text, cells)
                .into_iter()
                .map(|r| Line::from(Span::styled(r, style))),
        );
    }
    rows
}

/// How many rows the hint line takes in a screen of `area`: one, or while
/// start-up notices are shown, enough for all of them (up to a third of
/// the screen).
pub fn hint_height(app: &App, area: Rect) -> u16 {
    let rows = notice_rows(app, usize::from(area.width)).len();
    let rows = u16::try_from(rows).unwrap_or(u16::MAX);
    rows.clamp(1, (area.height / 3).max(1))
}

pub fn render_hint(app: &App, area: Rect, buf: &mut Buffer) {
    let rows = notice_rows(app, usize::from(area.width));
    if !rows.is_empty() {
        Paragraph::new(rows).render(area, buf);
        return;
    }
    let line = match &app.message {
        Some(m) if m.error => Line::from(Span::styled(m.text.clone(), app.theme.error)),
        Some(m) => Line::from(m.text.clone()),
        None => {
            let k = |a| app.keys.hint(a);
            Line::from(format!(
                "{} accept  {} keep  {} drop  {} undo  {} model  {} export  {} help  {} quit",
                k(Action::Accept),
                k(Action::Keep),
                k(Action::Drop),
                k(Action::Undo),
                k(Action::Model),
                k(Action::Export),
                k(Action::Help),
                k(Action::Quit)
            ))
            .style(app.theme.dim)
        }
    };
    Paragraph::new(line).render(area, buf);
}
