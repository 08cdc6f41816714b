//! The three bottom lines: the status bar (file, model, counts, filter, the
//! fit in flight), the message line and the hint line (the keys).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::app::{App, Pane};
use super::keys::Action;
use super::text::{bar, short, width};

/// One part of the status bar: its text, a shorter form for a narrow
/// screen, and how much the curator needs it (higher stays longer).
struct Part {
    full: String,
    short: String,
    keep: u8,
}

impl Part {
    fn new(keep: u8, full: String, short: String) -> Part {
        Part { full, short, keep }
    }
}

/// The parts joined by " │ " in `cells` terminal cells: when they do not
/// fit, the least needed part takes its short form first, then, if that
/// is not enough, the least needed is left out, and so on. A cut line
/// would lose its end, which is where the fit in flight and the marks
/// of unexported or read-only work are.
fn fit_parts(parts: &[Part], cells: usize) -> String {
    let mut forms: Vec<Option<&str>> = parts.iter().map(|p| Some(p.full.as_str())).collect();
    let line = |forms: &[Option<&str>]| {
        let shown: Vec<&str> = forms.iter().flatten().copied().collect();
        format!(" {}", shown.join(" │ "))
    };
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by_key(|&i| (parts[i].keep, std::cmp::Reverse(i)));
    for i in order.iter().copied() {
        if width(&line(&forms)) <= cells {
            break;
        }
        forms[i] = Some(parts[i].short.as_str());
    }
    for i in order.iter().copied() {
        if width(&line(&forms)) <= cells {
            break;
        }
        forms[i] = None;
    }
    line(&forms)
}

/// "fitting rnda: em it 3 obj -1.2 [███ ] Esc cancels", and the short
/// form "rnda: em it 3 obj -1.2 [█ ] Esc".
fn fit_progress(app: &App) -> Option<Part> {
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
    let cancel = app.keys.hint(Action::Cancel);
    Some(Part::new(
        9,
        format!(
            "fitting {}: {progress} [{}] {cancel} cancels",
            job.model,
            bar(fraction, 10)
        ),
        format!("{}: {progress} [{}] {cancel}", job.model, bar(fraction, 5)),
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
    let mut parts = vec![
        Part::new(2, file.clone(), short(&file, 16)),
        Part::new(
            3,
            model.to_string(),
            // "rnda 0.88 + rlr 0.12" -> "rnda+"
            model
                .split_once(' ')
                .map_or_else(|| model.to_string(), |(m, _)| format!("{m}+")),
        ),
        Part::new(
            5,
            format!("flagged {} at p≥{:.2}", c.flagged, s.threshold()),
            format!("{} flagged", c.flagged),
        ),
        Part::new(
            7,
            format!("decided {}/{}", c.decided, c.total),
            format!("{}/{}", c.decided, c.total),
        ),
    ];
    match s.fit() {
        // Within a label the list is file order, and the count of wrong
        // labels is the flip table's start, not the data's: said while the
        // fit is shown, not only in a note the first key puts away.
        Some(fit) if fit.label_only => parts.push(Part::new(
            6,
            "ranked by label only".to_string(),
            "label only".to_string(),
        )),
        // The flip table ended on the dominance constraint: its count of
        // wrong labels is the constraint's (a model the curator named;
        // `auto` looks past such a fit).
        Some(fit) if fit.flips_unidentified => parts.push(Part::new(
            6,
            "flips not identified".to_string(),
            "unidentified".to_string(),
        )),
        // Held-out fits show no skill: the ranking is no evidence.
        Some(fit) if fit.uncounted().is_some() => parts.push(Part::new(
            6,
            "no evidence of wrong labels".to_string(),
            "no evidence".to_string(),
        )),
        // The curator's "how many more should I look at?", with the
        // count's 95% interval given the fit.
        Some(_) => {
            let left = app.wrong_left();
            parts.push(Part::new(
                6,
                format!(
                    "~{:.0} ({}–{}) wrong left",
                    left.expected, left.low, left.high
                ),
                format!("~{:.0} left", left.expected),
            ));
        }
        None => {}
    }
    if !s.filter().is_empty() {
        let filter = s.filter().describe(&s.dataset().classes);
        parts.push(Part::new(
            4,
            format!("filter {filter} ({} shown)", c.shown),
            format!("{} shown", c.shown),
        ));
    }
    let mut marks = String::new();
    if s.has_unexported() {
        marks.push_str("[+]");
    }
    if s.read_only_holder().is_some() {
        marks.push_str("[read-only]");
    }
    if !marks.is_empty() {
        let short = marks.replace("[read-only]", "[ro]");
        parts.push(Part::new(10, marks, short));
    }
    parts.extend(fit_progress(app));
    Paragraph::new(fit_parts(&parts, usize::from(area.width)))
        .style(app.theme.status_bar)
        .render(area, buf);
}

/// A message as it fits one line of `cells`: whole, or cut and followed
/// by the key that shows it whole (a fit's notes run to several lines).
fn whole_or_pointed(text: &str, key: &str, cells: u16) -> String {
    let cells = usize::from(cells);
    if width(text) <= cells {
        return text.to_string();
    }
    let pointer = format!("  ({key}: all of it)");
    if width(&pointer) + 8 > cells {
        return short(text, cells);
    }
    format!("{}{pointer}", short(text, cells - width(&pointer)))
}

/// The message line: what the last key did, what a fit found, or what went
/// wrong (in the error colour), on one line of its own.
pub fn render_message(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(m) = &app.message else { return };
    let style = if m.error {
        app.theme.error
    } else {
        ratatui::style::Style::default()
    };
    let text = whole_or_pointed(&m.text, &app.keys.hint(Action::Notes), area.width);
    Paragraph::new(Line::from(Span::styled(text, style))).render(area, buf);
}

/// The hint line's keys, most needed first: help, the other panes when
/// they are hidden, what the focused pane's keys do, quit.
fn hint_parts(app: &App, narrow: bool) -> Vec<(String, &'static str)> {
    let k = |a| app.keys.hint(a);
    let mut parts = vec![(k(Action::Help), "help")];
    if narrow {
        parts.push((k(Action::NextPane), "more panes"));
    }
    match app.focus {
        Pane::List => parts.extend([
            (k(Action::Accept), "accept"),
            (k(Action::Keep), "keep"),
            (k(Action::Drop), "drop"),
            (k(Action::Relabel), "relabel"),
            (k(Action::Undo), "undo"),
            (k(Action::Filter), "filter"),
            (k(Action::Search), "search"),
            (k(Action::Export), "export"),
            (k(Action::Notes), "notes"),
            (k(Action::Model), "model"),
        ]),
        Pane::Detail | Pane::Model => {
            parts.push((format!("{}/{}", k(Action::Down), k(Action::Up)), "scroll"));
            if !narrow {
                parts.push((k(Action::NextPane), "next pane"));
            }
            parts.extend([
                (k(Action::Accept), "accept"),
                (k(Action::Keep), "keep"),
                (k(Action::Drop), "drop"),
                (k(Action::Undo), "undo"),
            ]);
        }
    }
    parts
}

/// The hint line, always shown: as many of the keys as fit, with help
/// first and quit last.
pub fn render_hint(app: &App, area: Rect, buf: &mut Buffer, narrow: bool) {
    let quit = format!("{} quit", app.keys.hint(Action::Quit));
    let room = usize::from(area.width);
    let mut line = String::new();
    for (key, what) in hint_parts(app, narrow) {
        let part = format!("{key} {what}");
        let sep = if line.is_empty() { "" } else { "  " };
        if width(&line) + sep.len() + width(&part) + 2 + width(&quit) > room {
            break;
        }
        line.push_str(sep);
        line.push_str(&part);
    }
    if !line.is_empty() {
        line.push_str("  ");
    }
    line.push_str(&quit);
    Paragraph::new(Line::from(short(&line, room)).style(app.theme.dim)).render(area, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts() -> Vec<Part> {
        vec![
            Part::new(
                2,
                "a_rather_long_file_name.csv".into(),
                "a_rather_long_f…".into(),
            ),
            Part::new(3, "rnda 0.88 + rlr 0.12".into(), "rnda+".into()),
            Part::new(7, "decided 3/4000".into(), "3/4000".into()),
            Part::new(10, "[+]".into(), "[+]".into()),
            Part::new(
                9,
                "fitting auto: 2/3 [███] Esc cancels".into(),
                "auto [█] Esc".into(),
            ),
        ]
    }

    #[test]
    fn a_long_message_points_to_the_notes() {
        assert_eq!(whole_or_pointed("short", "i", 20), "short");
        let long = "rnda converged after 8 iterations; auto chose rnda by 3-fold cross-validated log-likelihood";
        let line = whole_or_pointed(long, "i", 40);
        assert_eq!(width(&line), 40, "{line}");
        assert!(
            line.starts_with("rnda converged") && line.ends_with("…  (i: all of it)"),
            "{line}"
        );
        // No room for the pointer: the message alone, cut.
        assert_eq!(width(&whole_or_pointed(long, "i", 12)), 12);
    }

    #[test]
    fn a_wide_line_is_whole() {
        let line = fit_parts(&parts(), 200);
        assert_eq!(
            line,
            " a_rather_long_file_name.csv │ rnda 0.88 + rlr 0.12 │ decided 3/4000 │ [+] │ \
             fitting auto: 2/3 [███] Esc cancels"
        );
    }

    #[test]
    fn a_narrow_line_shortens_and_drops_the_least_needed_first() {
        let line = fit_parts(&parts(), 85);
        assert!(width(&line) <= 85, "{line}");
        // The file name and the model are shortened first, then the count...
        assert_eq!(
            line,
            " a_rather_long_f… │ rnda+ │ 3/4000 │ [+] │ fitting auto: 2/3 [███] Esc cancels"
        );
        // ...and only then the fit in flight.
        let line = fit_parts(&parts(), 60);
        assert_eq!(
            line,
            " a_rather_long_f… │ rnda+ │ 3/4000 │ [+] │ auto [█] Esc"
        );
        let line = fit_parts(&parts(), 30);
        assert!(width(&line) <= 30, "{line}");
        // ...and at 30 cells the file and model are left out, while the
        // unexported mark and the way to cancel stay.
        assert_eq!(line, " 3/4000 │ [+] │ auto [█] Esc");
    }
}
