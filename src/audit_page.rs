//! The shareable audit of a review session (issue 14 item 3): one HTML page
//! that says what data set was reviewed, what the model found, what the
//! curator decided and how many wrong labels are likely left.
//!
//! The page is self-contained: inline CSS and inline SVG, no script, no
//! font, image or stylesheet from elsewhere. It has to open as an e-mail
//! attachment, a CI artefact or a file on an air-gapped machine, and must
//! never make a reader's browser fetch anything. Every string that comes
//! from the data (ids, labels, column names, the file name) goes through
//! [`esc`]: an input file is not trusted to be free of markup.

use std::collections::BTreeMap;
use std::path::Path;

use crate::analysis::projection::Projection;
use crate::dataset::Dataset;
use crate::models::Fit;
use crate::review::journal::Seen;
use crate::review::{Comment, Decision};

mod charts;

/// Everything the page shows. The caller loads the session and fits the
/// model; this module only lays it out, so it needs no file or terminal.
pub struct AuditInput<'a> {
    pub dataset: &'a Dataset,
    /// One per sample; `None` is undecided.
    pub decisions: &'a [Option<Decision>],
    /// When each sample's decision was made, as the journal recorded it;
    /// for an undecided sample with a comment, when the comment was.
    pub decided_at: &'a [Option<String>],
    /// What the screen showed of each sample before it was first decided
    /// (p_mislabel and model), where the journal recorded it.
    pub seen: &'a [Option<Seen>],
    /// The curator's comments, by sample.
    pub comments: &'a BTreeMap<usize, Comment>,
    /// The fit whose p_mislabel the page reports, on every sample.
    pub fit: &'a Fit,
    /// The model that made `fit` as the page names it (for `auto`, what it
    /// chose).
    pub model: &'a str,
    /// Which fit this is and why this model, in a sentence for the reader.
    pub fit_note: &'a str,
    /// The session's journal, so a reader can find the source of truth.
    pub journal: Option<&'a Path>,
    /// When the page was made (RFC 3339).
    pub generated: &'a str,
}

/// The figures the counts section and the summary line share.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub samples: usize,
    pub relabelled: usize,
    pub kept: usize,
    pub dropped: usize,
    pub undecided: usize,
    /// Undecided samples at or above the fit's cutoff ([`Fit::flag_cutoff`]).
    pub flagged_undecided: usize,
    /// That cutoff.
    pub cutoff: f64,
    /// Sum of p_mislabel over undecided samples: the wrong labels to
    /// expect among what nobody has looked at yet.
    pub expected_remaining: f64,
    /// The 95% interval of that number (`app::auto::counts`).
    pub interval: (usize, usize),
}

impl Tally {
    pub fn of(decisions: &[Option<Decision>], p_mislabel: &[f64], cutoff: f64) -> Tally {
        let mut t = Tally {
            samples: decisions.len(),
            cutoff,
            ..Tally::default()
        };
        for (d, p) in decisions.iter().zip(p_mislabel) {
            match d {
                Some(Decision::Relabel(_)) => t.relabelled += 1,
                Some(Decision::Keep) => t.kept += 1,
                Some(Decision::Drop) => t.dropped += 1,
                None => {
                    t.undecided += 1;
                    if !p.is_nan() {
                        t.expected_remaining += p;
                        t.flagged_undecided += usize::from(*p >= cutoff);
                    }
                }
            }
        }
        let undecided: Vec<f64> = decisions
            .iter()
            .zip(p_mislabel)
            .filter(|(d, _)| d.is_none())
            .map(|(_, p)| *p)
            .collect();
        let count = crate::app::auto::counts::count(&undecided);
        t.interval = (count.low, count.high);
        t
    }

    pub fn decided(&self) -> usize {
        self.relabelled + self.kept + self.dropped
    }
}

/// Escapes text for HTML element content and quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A probability for a table cell; a value that does not apply is a dash.
fn prob(p: f64) -> String {
    if p.is_nan() {
        "–".into()
    } else {
        format!("{p:.3}")
    }
}

const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;\
color:#1b1b1b;background:#fff;max-width:1120px;margin:20px auto;padding:0 16px;line-height:1.4}\
h1{font-size:1.45em;margin-bottom:2px}h2{font-size:1.1em;border-bottom:1px solid #ddd;\
padding-bottom:3px;margin-top:26px}.sub,.note{color:#5c5f66;font-size:.9em}\
table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #dee2e6;padding:3px 8px;text-align:left}\
th{background:#f8f9fa}td.num{text-align:right;font-variant-numeric:tabular-nums}\
table.heat td.heat{width:72px;height:34px;text-align:center;font-variant-numeric:tabular-nums}\
table.heat th.corner{font-weight:normal;color:#5c5f66;font-size:11px}\
dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 16px;margin:6px 0}\
dt{color:#5c5f66}dd{margin:0}.cards{display:flex;gap:10px;flex-wrap:wrap}\
.card{border:1px solid #dee2e6;border-radius:6px;padding:6px 14px;min-width:110px}\
.card b{display:block;font-size:1.45em}.row{display:flex;gap:28px;flex-wrap:wrap;align-items:flex-start}\
svg text{font-family:inherit;font-size:11px;fill:#343a40}\
tr.relabelled td.what{color:#1c7ed6;font-weight:600}tr.kept td.what{color:#2f9e44;font-weight:600}\
tr.dropped td.what{color:#212529;font-weight:600;text-decoration:line-through}";

/// The whole page.
pub fn render(a: &AuditInput) -> String {
    let ds = a.dataset;
    let tally = Tally::of(a.decisions, &a.fit.p_mislabel, a.fit.flag_cutoff());
    let file = ds.raw.path.display().to_string();
    let name = ds
        .raw
        .path
        .file_name()
        .map_or(file.clone(), |n| n.to_string_lossy().into_owned());
    let projection = Projection::compute(&ds.x);
    let mut page = String::with_capacity(64 * 1024);
    page.push_str(&format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>relabel audit: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>Label audit: {}</h1>\n<p class=\"sub\">made by relabel {} on {}</p>\n",
        esc(&name),
        esc(&name),
        env!("CARGO_PKG_VERSION"),
        esc(a.generated),
    ));
    page.push_str(&counts_section(&tally, a.fit.uncounted()));
    // The file's name, not its path: the page is shared, and a path says
    // whose machine it came from.
    page.push_str(&data_section(a, &name));
    page.push_str(&model_section(a));
    page.push_str("<div class=\"row\">\n");
    page.push_str(&charts::noise_section(ds, a.fit));
    page.push_str(&format!(
        "<section id=\"histogram\">\n<h2>p_mislabel, every sample</h2>\n{}</section>\n",
        charts::histogram(&a.fit.p_mislabel)
    ));
    page.push_str("</div>\n");
    page.push_str(&format!(
        "<section id=\"projection\">\n<h2>The samples on their first two principal components</h2>\n{}</section>\n",
        charts::scatter(&projection, a)
    ));
    page.push_str(&decisions_section(a));
    page.push_str("</body>\n</html>\n");
    page
}

fn counts_section(t: &Tally, uncounted: Option<&str>) -> String {
    let card =
        |label: &str, value: String| format!("<div class=\"card\"><b>{value}</b>{label}</div>");
    // A page that is shared must not print a sum of p_mislabel the data did
    // not set as if it were a count.
    let (expected, note) = match uncounted {
        Some(why) => (
            "&ndash;".to_string(),
            format!(
                "No count of wrong labels: {}. The model&#39;s notes below say more.",
                esc(why)
            ),
        ),
        None => (
            format!("{:.1}", t.expected_remaining),
            format!(
                "Expected wrong labels = the sum of p_mislabel over the undecided samples: each of \
                 their labels is wrong with that probability, so their number lies between {} and \
                 {} with 95% probability given the fit (a Poisson binomial).",
                t.interval.0, t.interval.1
            ),
        ),
    };
    let cards = [
        card("samples", t.samples.to_string()),
        card("decided", t.decided().to_string()),
        card("relabelled", t.relabelled.to_string()),
        card("kept", t.kept.to_string()),
        card("dropped", t.dropped.to_string()),
        card("undecided", t.undecided.to_string()),
        card(
            &format!("flagged, undecided (p_mislabel &ge; {:.3})", t.cutoff),
            t.flagged_undecided.to_string(),
        ),
        card("wrong labels expected among the undecided", expected),
    ];
    format!(
        "<section id=\"counts\">\n<h2>Where the review stands</h2>\n<div class=\"cards\">{}</div>\n\
         <p class=\"note\">{note}</p>\n</section>\n",
        cards.join("")
    )
}

fn data_section(a: &AuditInput, file: &str) -> String {
    let ds = a.dataset;
    let mut per_class = vec![0usize; ds.classes.len()];
    for &l in &ds.labels {
        per_class[l] += 1;
    }
    let classes: Vec<String> = ds
        .classes
        .iter()
        .zip(&per_class)
        .map(|(c, n)| format!("{} ({n})", esc(c)))
        .collect();
    let mut facts = vec![
        ("file", esc(file)),
        ("samples", ds.n_samples().to_string()),
        ("features", ds.x.ncols().to_string()),
        ("label column", esc(&ds.label_name)),
        ("id column", id_fact(ds.id_name.as_deref())),
        ("classes, given labels", classes.join(", ")),
    ];
    if !ds.dropped.is_empty() {
        facts.push((
            "rows left out",
            format!("{} (missing values)", ds.dropped.len()),
        ));
    }
    // Its name only: the page is shared, and the path says whose home
    // directory it came from; the name finds it in `relabel sessions`.
    if let Some(name) = a.journal.and_then(Path::file_name) {
        facts.push(("session journal", esc(&name.to_string_lossy())));
    }
    let notes = crate::app::data_notes(ds);
    if !notes.is_empty() {
        let items: String = notes
            .iter()
            .map(|n| format!("<li>{}</li>", esc(n)))
            .collect();
        facts.push(("to know", format!("<ul>{items}</ul>")));
    }
    format!(
        "<section id=\"data\">\n<h2>Data set</h2>\n{}</section>\n",
        fact_list(&facts)
    )
}

/// The id column as the page says it; an unnamed one is a row index.
fn id_fact(name: Option<&str>) -> String {
    match name {
        None => "none (row numbers)".into(),
        Some("") => "the first, unnamed (a row index)".into(),
        Some(name) => esc(name),
    }
}

fn fact_list(facts: &[(&str, String)]) -> String {
    let items: String = facts
        .iter()
        .map(|(k, v)| format!("<dt>{k}</dt><dd>{v}</dd>"))
        .collect();
    format!("<dl class=\"facts\">{items}</dl>\n")
}

fn model_section(a: &AuditInput) -> String {
    let fit = a.fit;
    let mut facts = vec![
        ("model", esc(a.model)),
        ("this fit", esc(a.fit_note)),
        ("converged", fit.convergence()),
    ];
    // The report's raw numbers (iterations, shrinkage per class) are the
    // model's debugging aid, not the reader's: `relabel scan --report`
    // writes them all.
    // Lists name features as the review screen does: a probe beside its
    // gene symbol when the platform gives one.
    for (name, items) in &fit.extra.lists {
        let mut shown: Vec<String> = items.iter().take(24).map(|i| esc(i)).collect();
        if items.len() > 24 {
            shown.push(format!("and {} more", items.len() - 24));
        }
        facts.push((name.as_str(), shown.join(", ")));
    }
    let notes: String = fit
        .extra
        .notes
        .iter()
        .map(|n| format!("<li>{}</li>", esc(n)))
        .collect();
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!("<ul class=\"note\">{notes}</ul>\n")
    };
    format!(
        "<section id=\"model\">\n<h2>Model</h2>\n{}{notes}</section>\n",
        fact_list(&facts)
    )
}

/// Every decided, commented or flagged sample in input order, with what
/// the model said of it (the audit file's rows, and what is left to do).
fn decisions_section(a: &AuditInput) -> String {
    let ds = a.dataset;
    // The flagged samples nobody decided are part of the story too: what
    // is left to look at.
    let cutoff = a.fit.flag_cutoff();
    let flagged = |i: usize| a.fit.p_mislabel[i] >= cutoff;
    let mut order: Vec<usize> = (0..ds.n_samples())
        .filter(|&i| a.decisions[i].is_some() || a.comments.contains_key(&i) || flagged(i))
        .collect();
    order.sort_by_key(|&i| ds.rows[i]);
    if order.is_empty() {
        return "<section id=\"decisions\">\n<h2>Decisions</h2>\n<p>No sample has been decided yet.</p>\n</section>\n".into();
    }
    let mut rows = String::new();
    for i in order {
        let (class, what) = match a.decisions[i] {
            Some(d @ Decision::Relabel(_)) => (
                "relabelled",
                format!("relabel &rarr; {}", esc(&d.describe(&ds.classes))),
            ),
            Some(Decision::Keep) => ("kept", "keep".into()),
            Some(Decision::Drop) => ("dropped", "drop".into()),
            None => ("undecided", crate::review::export::UNDECIDED.into()),
        };
        let when = a.decided_at[i].as_deref().map_or(String::new(), esc);
        let comment = a.comments.get(&i).map_or(String::new(), |c| esc(&c.text));
        let shown = a.seen[i].as_ref().map_or(String::new(), |s| {
            format!("{} ({})", prob(s.p_mislabel), esc(&s.model))
        });
        rows.push_str(&format!(
            "<tr class=\"decision {class}\"><td class=\"num\">{}</td><td>{}</td><td>{}</td>\
             <td class=\"what\">{what}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td>\
             <td class=\"shown\">{shown}</td><td>{when}</td><td class=\"comment\">{comment}</td></tr>\n",
            ds.rows[i],
            esc(&ds.ids[i]),
            esc(ds.given_label(i)),
            esc(&ds.classes[a.fit.suggested[i]]),
            prob(a.fit.p_mislabel[i]),
            esc(a.model),
        ));
    }
    format!(
        "<section id=\"decisions\">\n<h2>Decisions</h2>\n<table class=\"decisions\">\n\
         <tr><th>row</th><th>id</th><th>given</th><th>decision</th><th>model's suggestion</th>\
         <th>p_mislabel</th><th>model</th><th>shown when decided</th><th>decided at</th><th>comment</th></tr>\n\
         {rows}</table>\n\
         <p class=\"note\">row: the 0-based data row of the input (header excluded). \
         Suggestion, p_mislabel and model: this page's fit. Shown when decided: the \
         p_mislabel and model the review screen showed before the sample was first decided \
         (blank where the session did not record it). An undecided row is there because it \
         is flagged (p_mislabel &ge; {cutoff:.3}: as many rows as wrong labels the fit expects, \
         the most likely first) or for its comment; a comment's time is its own.</p>\n</section>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_column_is_named_or_said_what_it_is() {
        assert_eq!(id_fact(None), "none (row numbers)");
        assert_eq!(id_fact(Some("")), "the first, unnamed (a row index)");
        assert_eq!(id_fact(Some("a<b")), "a&lt;b");
    }

    /// A fit whose flip table is not the data's gets no count of wrong
    /// labels on a page that will be shared, and says why; every other
    /// fit gets the sum.
    #[test]
    fn a_fit_whose_flips_are_not_the_datas_gets_no_count_of_wrong_labels() {
        let t = Tally::of(&[None, None, Some(Decision::Keep)], &[0.25, 0.5, 0.9], 0.5);
        let counted = counts_section(&t, None);
        assert!(
            counted.contains("<b>0.8</b>wrong labels expected"),
            "{counted}"
        );
        let mut fit = Fit::from_posterior(nalgebra::DMatrix::from_element(3, 2, 0.5), &[0, 1, 0]);
        fit.label_only = true;
        let blind = counts_section(&t, fit.uncounted());
        assert!(
            blind.contains("<b>&ndash;</b>wrong labels expected"),
            "{blind}"
        );
        assert!(blind.contains("ranks by the given label alone"), "{blind}");
        assert!(!blind.contains("0.8"), "{blind}");
        fit.label_only = false;
        fit.flips_unidentified = true;
        let held = counts_section(&t, fit.uncounted());
        assert!(held.contains("<b>&ndash;</b>"), "{held}");
        assert!(held.contains("diagonal-dominance constraint"), "{held}");
    }
}
