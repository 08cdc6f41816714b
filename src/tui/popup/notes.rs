//! The notes, whole: what the table holds that the ranking cannot show,
//! what reading the journal found, how the model was chosen (every
//! candidate with its score or why it has none) and what the fit says of
//! itself, and the last message. The hint line has room for one line of
//! them and the start-up notices go at the first key; here they stay. It
//! scrolls like the help.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::scrolled::Scrolled;
use super::{PopupComponent, PopupContext, PopupOutcome, frame};
use crate::models::{CandidateScore, Fit};
use crate::tui::keys::Action;
use crate::tui::text::wrap_words;
/// The popup's widest, in cells: longer notes wrap, and lines much wider
/// than this are hard to follow.
const MAX_WIDTH: u16 = 100;

#[derive(Clone, Debug, PartialEq)]
pub struct Notes {
    text: Scrolled,
    /// Gathered when the notes open, not at every frame: the data notes
    /// count every sample's label.
    sections: Vec<Section>,
}

impl Notes {
    pub fn new(ctx: &PopupContext) -> Notes {
        Notes {
            text: Scrolled::default(),
            sections: sections(ctx),
        }
    }
}

/// A heading and its items, each a paragraph.
type Section = (String, Vec<String>);

/// "rnda -0.866 ± 0.020, weight 1.00" or "rlr: not worth the wait ...: why";
/// `weight` is the candidate's as shown beside the others'.
fn candidate_line(c: &CandidateScore, weight: Option<f64>) -> String {
    match c.score {
        Some(score) => {
            let se = c
                .standard_error
                .map_or(String::new(), |se| format!(" ± {se:.3}"));
            let weight = weight.map_or(String::new(), |w| format!(", weight {w:.2}"));
            let status = if c.status == "scored" {
                String::new()
            } else {
                format!(" ({})", c.status)
            };
            format!("{} {score:.3}{se}{weight}{status}", c.model)
        }
        None => match &c.reason {
            Some(why) => format!("{}: {}: {why}", c.model, c.status),
            None => format!("{}: {}", c.model, c.status),
        },
    }
}

fn fit_sections(model: &str, fit: &Fit) -> Vec<Section> {
    let mut out = Vec::new();
    let mut about = vec![fit.convergence()];
    about.extend(fit.extra.notes.iter().cloned());
    out.push((format!("the fit: {model}"), about));
    if let Some(sel) = &fit.extra.selection {
        let weights: Vec<f64> = sel.candidates.iter().filter_map(|c| c.weight).collect();
        let mut shown = weights.into_iter();
        let lines = sel
            .candidates
            .iter()
            .map(|c| candidate_line(c, c.weight.and_then(|_| shown.next())))
            .collect();
        out.push((format!("the candidates, by {}", sel.criterion), lines));
    }
    out
}

fn sections(ctx: &PopupContext) -> Vec<Section> {
    let session = ctx.session;
    let mut table = crate::app::data_notes(session.dataset());
    if table.is_empty() {
        table.push("nothing unusual found in the table".into());
    }
    let mut out = vec![("the table".to_string(), table)];
    let journal = session.journal_notices();
    if !journal.is_empty() {
        out.push(("the session's journal".into(), journal));
    }
    match session.fit() {
        Some(fit) => out.extend(fit_sections(session.model_name().unwrap_or("model"), fit)),
        None => out.push(("the fit".into(), vec!["no fit yet".into()])),
    }
    let fitted = session.model_name().zip(session.fit());
    if let Some(m) = ctx.message.filter(|m| !tells_the_fit(m, fitted)) {
        out.push(("the last message".into(), vec![m.to_string()]));
    }
    out
}

/// Whether `message` is the fit's own summary ("MODEL converged after N
/// iterations; NOTES"), said above.
fn tells_the_fit(message: &str, fitted: Option<(&str, &Fit)>) -> bool {
    fitted.is_some_and(|(model, f)| {
        message.starts_with(&format!("{model} {}", f.convergence()))
            && message.ends_with(&f.extra.notes.join("; "))
    })
}

/// The sections as lines of at most `cells`: headings in bold, items
/// as bullets with their wrapped rows indented under them.
fn lines(sections: &[Section], cells: usize, ctx: &PopupContext) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for (i, (heading, items)) in sections.iter().enumerate() {
        if i > 0 {
            out.push(Line::from(""));
        }
        for row in wrap_words(heading, cells) {
            out.push(Line::from(Span::styled(row, ctx.theme.header)));
        }
        for item in items {
            for (j, row) in wrap_words(item, cells.saturating_sub(2))
                .into_iter()
                .enumerate()
            {
                let lead = if j == 0 { "• " } else { "  " };
                out.push(Line::from(format!("{lead}{row}")));
            }
        }
    }
    out
}

impl PopupComponent for Notes {
    fn handle_key(&mut self, key: &KeyEvent, ctx: &PopupContext) -> PopupOutcome {
        self.text.handle_key(key, ctx, Action::Notes)
    }

    fn render(&self, area: Rect, buf: &mut Buffer, ctx: &PopupContext) {
        let w = MAX_WIDTH.min(area.width);
        let lines = lines(&self.sections, usize::from(w.saturating_sub(2)), ctx);
        let (title, lines) = self.text.window("notes", lines, area, ctx);
        let h = lines.len() as u16 + 2;
        frame(&title, lines, (w, h), area, buf, ctx.theme);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(model: &str, score: f64, se: f64, weight: Option<f64>) -> CandidateScore {
        CandidateScore {
            model: model.into(),
            score: Some(score),
            standard_error: Some(se),
            status: "scored".into(),
            reason: None,
            weight,
        }
    }

    #[test]
    fn the_fit_tells_its_candidates_and_its_own_summary_is_not_repeated() {
        use crate::models::Selection;
        use nalgebra::DMatrix;
        let mut fit = Fit::from_posterior(
            DMatrix::from_row_slice(2, 2, &[0.9, 0.1, 0.2, 0.8]),
            &[0, 1],
        );
        fit.converged = true;
        fit.iterations = 7;
        fit.extra.notes = vec!["auto chose rnda".into(), "calibrated".into()];
        fit.extra.selection = Some(Selection {
            chosen: "rnda".into(),
            criterion: "held-out log-likelihood".into(),
            candidates: vec![scored("rnda", -0.5, 0.01, Some(1.0))],
        });
        let s = fit_sections("rnda", &fit);
        assert_eq!(s[0].0, "the fit: rnda");
        assert_eq!(
            s[0].1,
            [
                "converged after 7 iterations",
                "auto chose rnda",
                "calibrated"
            ]
        );
        assert_eq!(s[1].0, "the candidates, by held-out log-likelihood");
        assert_eq!(s[1].1, ["rnda -0.500 ± 0.010, weight 1.00"]);
        assert!(tells_the_fit(
            "rnda converged after 7 iterations; auto chose rnda; calibrated",
            Some(("rnda", &fit))
        ));
        assert!(!tells_the_fit(
            "rmda failed: too few rows",
            Some(("rnda", &fit))
        ));
        assert!(!tells_the_fit("exported", None));
        // A fit without notes does not swallow every other message.
        fit.extra.notes.clear();
        assert!(tells_the_fit(
            "rnda converged after 7 iterations",
            Some(("rnda", &fit))
        ));
        assert!(!tells_the_fit("exported a.csv", Some(("rnda", &fit))));
    }

    #[test]
    fn a_candidate_reads_as_its_score_or_why_it_has_none() {
        assert_eq!(
            candidate_line(&scored("rnda", -0.8662, 0.0201, Some(1.0)), Some(1.0)),
            "rnda -0.866 ± 0.020, weight 1.00"
        );
        let mut left = scored("shift", -0.9, 0.01, None);
        left.status = CandidateScore::LEFT_OUT.into();
        assert_eq!(
            candidate_line(&left, None),
            "shift -0.900 ± 0.010 (left out)"
        );
        let slow = CandidateScore {
            model: "rmda".into(),
            score: None,
            standard_error: None,
            status: "too slow for 200000 rows".into(),
            reason: Some("name it with --model to fit it".into()),
            weight: None,
        };
        assert_eq!(
            candidate_line(&slow, None),
            "rmda: too slow for 200000 rows: name it with --model to fit it"
        );
    }
}
