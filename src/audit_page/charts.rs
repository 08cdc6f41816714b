//! The page's pictures: the flip table as a heat map (an HTML table with
//! coloured cells, so the numbers stay selectable text), the shift summary
//! for models with per-sample shifts, the histogram of p_mislabel and the
//! projection scatter, both inline SVG.

use super::{AuditInput, esc, prob};
use crate::analysis::projection::Projection;
use crate::dataset::Dataset;
use crate::models::{Fit, GammaTable};
use crate::review::Decision;

/// Histogram bars.
pub const BAR: &str = "#d9480f";
const UNDECIDED: &str = "#adb5bd";
const FLAGGED: &str = "#e03131";
const RELABELLED: &str = "#1c7ed6";
const KEPT: &str = "#2f9e44";
const DROPPED: &str = "#212529";
const BINS: usize = 20;

/// White at 0 to deep blue at 1, linear in RGB: the cell's number is
/// printed too, so the colour only has to make the diagonal stand out.
pub fn heat_colour(v: f64) -> String {
    let t = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(247.0, 8.0),
        mix(251.0, 48.0),
        mix(255.0, 107.0)
    )
}

/// The flip table, or the shift summary, or a line saying the model has
/// neither (an ensemble, a mixture without a table).
pub fn noise_section(ds: &Dataset, fit: &Fit) -> String {
    let body = match (&fit.gamma, &fit.shifts) {
        (Some(g), _) => heat_map(g, &ds.classes),
        (None, Some(_)) => shift_summary(ds, fit),
        (None, None) => {
            "<p>This model reports neither a flip table nor per-sample shifts.</p>\n".into()
        }
    };
    format!(
        "<section id=\"noise\">\n<h2>What the model thinks of the labels</h2>\n{body}</section>\n"
    )
}

fn heat_map(g: &GammaTable, classes: &[String]) -> String {
    let k = g.n_classes();
    let name = |c: usize| esc(classes.get(c).map_or("?", String::as_str));
    let mut html = String::from(
        "<table class=\"heat\">\n<tr><th class=\"corner\">true &darr; / given &rarr;</th>",
    );
    for j in 0..k {
        html.push_str(&format!("<th>{}</th>", name(j)));
    }
    html.push_str("</tr>\n");
    for t in 0..k {
        html.push_str(&format!("<tr><th>{}</th>", name(t)));
        for j in 0..k {
            let v = g.p_given_true(t, j);
            let ink = if v > 0.45 { "#fff" } else { "#1b1b1b" };
            html.push_str(&format!(
                "<td class=\"heat\" style=\"background:{};color:{ink}\" title=\"P(given {} | true {}) = {v:.4}\">{:.3}</td>",
                heat_colour(v),
                name(j),
                name(t),
                v
            ));
        }
        html.push_str("</tr>\n");
    }
    html.push_str(
        "</table>\n<p class=\"note\">The flip table: P(given label | true class), \
         rows = true class, columns = given label; off the diagonal, how often \
         a class is given the wrong label.</p>\n",
    );
    html
}

/// A shift model has no table: how many samples it shifted, per given
/// label, and the largest shifts.
fn shift_summary(ds: &Dataset, fit: &Fit) -> String {
    let Some(shifts) = &fit.shifts else {
        return String::new();
    };
    let size: Vec<f64> = (0..shifts.nrows())
        .map(|i| shifts.row(i).iter().map(|v| v * v).sum::<f64>().sqrt())
        .collect();
    let shifted: Vec<usize> = (0..size.len()).filter(|&i| size[i] > 0.0).collect();
    let mut html = format!(
        "<p>{} of {} samples have a non-zero shift (the model moved their label's \
         score instead of believing it).</p>\n<table class=\"shifts\">\n<tr><th>given label</th><th>samples</th><th>shifted</th></tr>\n",
        shifted.len(),
        size.len()
    );
    for (c, class) in ds.classes.iter().enumerate() {
        let n = ds.labels.iter().filter(|&&l| l == c).count();
        let s = shifted.iter().filter(|&&i| ds.labels[i] == c).count();
        html.push_str(&format!(
            "<tr><td>{}</td><td class=\"num\">{n}</td><td class=\"num\">{s}</td></tr>\n",
            esc(class)
        ));
    }
    html.push_str("</table>\n");
    let mut largest = shifted;
    largest.sort_by(|&a, &b| size[b].total_cmp(&size[a]));
    largest.truncate(10);
    if !largest.is_empty() {
        html.push_str("<p>Largest shifts:</p>\n<table class=\"shifts\">\n<tr><th>id</th><th>given</th><th>|shift|</th><th>p_mislabel</th></tr>\n");
        for i in largest {
            html.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{:.3}</td><td class=\"num\">{}</td></tr>\n",
                esc(&ds.ids[i]),
                esc(ds.given_label(i)),
                size[i],
                prob(fit.p_mislabel[i])
            ));
        }
        html.push_str("</table>\n");
    }
    html
}

/// Counts of p_mislabel in `BINS` equal bins of [0, 1]; NaN is left out.
fn bin_counts(p: &[f64]) -> [usize; BINS] {
    let mut counts = [0; BINS];
    for v in p.iter().filter(|v| !v.is_nan()) {
        let b = ((v.clamp(0.0, 1.0) * BINS as f64) as usize).min(BINS - 1);
        counts[b] += 1;
    }
    counts
}

pub fn histogram(p: &[f64]) -> String {
    let (w, h, left, right, top, bottom) = (520.0, 260.0, 44.0, 12.0, 18.0, 38.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let counts = bin_counts(p);
    let max = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let bw = pw / BINS as f64;
    let mut svg = format!(
        "<svg class=\"histogram\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" \
         aria-label=\"histogram of p_mislabel\">\n"
    );
    for (b, &n) in counts.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let bh = (n as f64 / max * ph).max(1.0);
        let x = left + b as f64 * bw;
        let y = top + ph - bh;
        let lo = b as f64 / BINS as f64;
        svg.push_str(&format!(
            "<rect class=\"bar\" x=\"{:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{bh:.1}\" fill=\"{BAR}\">\
             <title>{lo:.2}–{:.2}: {n} samples</title></rect>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{n}</text>\n",
            x + 1.0,
            bw - 2.0,
            lo + 1.0 / BINS as f64,
            x + bw / 2.0,
            y - 3.0
        ));
    }
    let base = top + ph;
    svg.push_str(&format!(
        "<line x1=\"{left}\" y1=\"{base}\" x2=\"{:.1}\" y2=\"{base}\" stroke=\"#495057\"/>\n\
         <line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{base}\" stroke=\"#495057\"/>\n\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{max}</text>\
         <text x=\"{:.1}\" y=\"{base}\" text-anchor=\"end\">0</text>\n",
        left + pw,
        left - 4.0,
        top + 4.0,
        left - 4.0
    ));
    for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let x = left + t * pw;
        svg.push_str(&format!(
            "<line x1=\"{x:.1}\" y1=\"{base}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#495057\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{t}</text>\n",
            base + 4.0,
            base + 16.0
        ));
    }
    let x = left + 0.5 * pw;
    svg.push_str(&format!(
        "<line x1=\"{x:.1}\" y1=\"{top}\" x2=\"{x:.1}\" y2=\"{base}\" stroke=\"#495057\" stroke-dasharray=\"4 3\"/>\n\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">p_mislabel (dashed: the 0.5 flag threshold)</text>\n</svg>\n",
        left + pw / 2.0,
        h - 4.0
    ));
    svg
}

/// How a sample is drawn in the scatter.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    Undecided,
    Flagged,
    Relabelled,
    Kept,
    Dropped,
}

impl Mark {
    /// `cutoff`: the fit's ([`Fit::flag_cutoff`]).
    fn of(decision: Option<Decision>, p: f64, cutoff: f64) -> Mark {
        match decision {
            Some(Decision::Relabel(_)) => Mark::Relabelled,
            Some(Decision::Keep) => Mark::Kept,
            Some(Decision::Drop) => Mark::Dropped,
            None if p >= cutoff => Mark::Flagged,
            None => Mark::Undecided,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Mark::Undecided => "undecided",
            Mark::Flagged => "undecided, flagged",
            Mark::Relabelled => "relabelled",
            Mark::Kept => "kept",
            Mark::Dropped => "dropped",
        }
    }

    /// The glyph at (x, y); decided marks are larger and differ in shape,
    /// not only in colour, so a grey print still tells them apart.
    fn glyph(self, x: f64, y: f64, title: &str) -> String {
        let title = if title.is_empty() {
            String::new()
        } else {
            format!("<title>{title}</title>")
        };
        match self {
            Mark::Undecided => format!(
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"2.5\" fill=\"{UNDECIDED}\">{title}</circle>"
            ),
            Mark::Flagged => format!(
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3\" fill=\"{FLAGGED}\">{title}</circle>"
            ),
            Mark::Relabelled => format!(
                "<path d=\"M{x:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z\" fill=\"{RELABELLED}\">{title}</path>",
                y - 6.0,
                x + 5.5,
                y + 4.0,
                x - 5.5,
                y + 4.0
            ),
            Mark::Kept => format!(
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4.5\" fill=\"none\" stroke=\"{KEPT}\" stroke-width=\"2\">{title}</circle>"
            ),
            Mark::Dropped => format!(
                "<path d=\"M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}\" stroke=\"{DROPPED}\" stroke-width=\"2.2\">{title}</path>",
                x - 4.5,
                y - 4.5,
                x + 4.5,
                y + 4.5,
                x - 4.5,
                y + 4.5,
                x + 4.5,
                y - 4.5
            ),
        }
    }
}

/// The projection with every decided sample marked; undecided ones are the
/// projection's background subsample (a few thousand dots say it all).
pub fn scatter(proj: &Projection, a: &AuditInput) -> String {
    let (w, plot_h, legend_h, pad) = (760.0, 440.0, 30.0, 14.0);
    let h = plot_h + legend_h;
    let mut svg = format!(
        "<svg class=\"scatter\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" \
         aria-label=\"samples on the first two principal components\">\n\
         <rect x=\"0.5\" y=\"0.5\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#dee2e6\"/>\n",
        w - 1.0,
        plot_h - 1.0
    );
    if proj.points.is_empty() {
        svg.push_str("<text x=\"20\" y=\"30\">no features to project</text>\n</svg>\n");
        return svg;
    }
    let [(x0, x1), (y0, y1)] = proj.bounds;
    let at = |i: usize| {
        let (px, py) = proj.points[i];
        (
            pad + (px - x0) / (x1 - x0) * (w - 2.0 * pad),
            pad + (1.0 - (py - y0) / (y1 - y0)) * (plot_h - 2.0 * pad),
        )
    };
    let cutoff = a.fit.flag_cutoff();
    let mark = |i: usize| Mark::of(a.decisions[i], a.fit.p_mislabel[i], cutoff);
    let ds = a.dataset;
    // Background first, decided samples last so that they are on top.
    let decided: Vec<usize> = (0..proj.points.len())
        .filter(|&i| a.decisions[i].is_some())
        .collect();
    let mut counts = [0usize; 5];
    for i in 0..proj.points.len() {
        counts[mark(i) as usize] += 1;
    }
    for &i in proj
        .background
        .iter()
        .filter(|&&i| a.decisions[i].is_none())
    {
        let (x, y) = at(i);
        let m = mark(i);
        let title = if m == Mark::Flagged {
            format!(
                "{} ({}), p_mislabel {}",
                esc(&ds.ids[i]),
                esc(ds.given_label(i)),
                prob(a.fit.p_mislabel[i])
            )
        } else {
            String::new()
        };
        svg.push_str(&m.glyph(x, y, &title));
    }
    svg.push('\n');
    for i in decided {
        let (x, y) = at(i);
        let title = format!(
            "{} ({}): {}",
            esc(&ds.ids[i]),
            esc(ds.given_label(i)),
            mark(i).label()
        );
        svg.push_str(&mark(i).glyph(x, y, &title));
        svg.push('\n');
    }
    let marks = [
        Mark::Undecided,
        Mark::Flagged,
        Mark::Relabelled,
        Mark::Kept,
        Mark::Dropped,
    ];
    let mut x = pad + 6.0;
    let y = plot_h + legend_h / 2.0;
    for m in marks {
        svg.push_str(&m.glyph(x, y, ""));
        let text = format!("{} ({})", m.label(), counts[m as usize]);
        svg.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\">{text}</text>\n",
            x + 9.0,
            y + 4.0
        ));
        x += 30.0 + 6.2 * text.replace("&ge;", ">").len() as f64;
    }
    svg.push_str("</svg>\n<p class=\"note\">Principal components of the standardised features. Hover a mark for its id.</p>\n");
    svg
}
