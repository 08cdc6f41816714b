//! Text measured in terminal cells (`unicode-width`): a CJK character or
//! an emoji takes two cells, so padding and cutting by `chars()` would
//! push every column after it out of line.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Cells `s` takes on a terminal.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// The longest prefix of `s` that fits `n` cells.
fn prefix(s: &str, n: usize) -> &str {
    let mut used = 0;
    for (i, c) in s.char_indices() {
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > n {
            return &s[..i];
        }
        used += w;
    }
    s
}

/// `s` cut to `n` cells, with an ellipsis when something was cut.
pub fn short(s: &str, n: usize) -> String {
    if width(s) <= n {
        s.to_string()
    } else if n == 0 {
        String::new()
    } else {
        let mut t = prefix(s, n - 1).to_string();
        t.push('…');
        t
    }
}

/// Labels cut to `n` cells so that they stay told apart: names that share
/// a long start ("cultivar_1", "cultivar_2") lose that start, not their
/// ends, which are all that differ ("…_1", "…_2"). Cut from the right,
/// as [`short`] does, such names would all read "cultiva…".
pub fn distinct(labels: &[String], n: usize) -> Vec<String> {
    let plain = || labels.iter().map(|l| short(l, n)).collect::<Vec<_>>();
    if labels.len() < 2 || labels.iter().all(|l| width(l) <= n) {
        return plain();
    }
    let common = labels[1..].iter().fold(labels[0].as_str(), |acc, l| {
        let end = acc
            .char_indices()
            .zip(l.chars())
            .find(|((_, a), b)| a != b)
            .map_or(acc.len().min(l.len()), |((i, _), _)| i);
        &acc[..end]
    });
    if common.is_empty() || labels.iter().any(|l| l.len() == common.len()) {
        return plain();
    }
    let cut: Vec<String> = labels
        .iter()
        .map(|l| short(&format!("…{}", &l[common.len()..]), n))
        .collect();
    let mut seen = cut.clone();
    seen.sort();
    seen.dedup();
    if seen.len() == cut.len() {
        cut
    } else {
        plain()
    }
}

/// `text` in rows of at most `cells` terminal cells, broken at spaces; a
/// word wider than a row (a long path) is broken where the row ends.
pub fn wrap_words(text: &str, cells: usize) -> Vec<String> {
    let cells = cells.max(1);
    let mut rows: Vec<String> = Vec::new();
    let mut row = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let gap = usize::from(!row.is_empty());
        if width(&row) + gap + width(word) <= cells {
            if gap == 1 {
                row.push(' ');
            }
            row.push_str(word);
            continue;
        }
        if !row.is_empty() {
            rows.push(std::mem::take(&mut row));
        }
        let mut rest = word;
        while width(rest) > cells {
            let head = prefix(rest, cells);
            // A first character wider than the row still goes somewhere.
            let head = if head.is_empty() {
                &rest[..rest.chars().next().map_or(0, char::len_utf8)]
            } else {
                head
            };
            rows.push(head.to_string());
            rest = &rest[head.len()..];
        }
        row.push_str(rest);
    }
    if !row.is_empty() || rows.is_empty() {
        rows.push(row);
    }
    rows
}

/// A line of spans cut to `cells` terminal cells, ending in an ellipsis
/// where something was cut (a paragraph would cut it silently).
pub fn clip_line(line: ratatui::text::Line<'static>, cells: usize) -> ratatui::text::Line<'static> {
    if line.width() <= cells {
        return line;
    }
    let mut left = cells;
    let mut spans = Vec::new();
    for span in line.spans {
        let w = width(&span.content);
        if w < left {
            left -= w;
            spans.push(span);
            continue;
        }
        // The last span shown: cut, with room for the ellipsis.
        spans.push(ratatui::text::Span::styled(
            short(&span.content, left),
            span.style,
        ));
        break;
    }
    let mut cut = ratatui::text::Line::from(spans);
    cut.style = line.style;
    if !cut.to_string().ends_with('…') {
        // The cut fell between two spans: the last one takes the ellipsis.
        if let Some(last) = cut.spans.last_mut() {
            let w = width(&last.content);
            last.content = short(&format!("{}…", last.content), w).into();
        }
    }
    cut
}

/// `s` cut to `n` cells without an ellipsis (short headers).
pub fn clip(s: &str, n: usize) -> String {
    prefix(s, n).to_string()
}

/// `s` cut to `n` cells and padded on the right to exactly `n`.
pub fn pad(s: &str, n: usize) -> String {
    let mut t = short(s, n);
    t.push_str(&" ".repeat(n.saturating_sub(width(&t))));
    t
}

/// `s` cut to `n` cells and padded on the left to exactly `n`.
pub fn pad_left(s: &str, n: usize) -> String {
    let t = short(s, n);
    format!("{}{t}", " ".repeat(n.saturating_sub(width(&t))))
}

pub fn num(v: f64, digits: usize) -> String {
    if v.is_nan() {
        "-".into()
    } else {
        format!("{v:.digits$}")
    }
}

/// Counts and flags (iterations, clusters, non-zero shifts) read as
/// integers; other numbers get `digits` decimals.
pub fn integral_or(v: f64, digits: usize) -> String {
    if v.fract() == 0.0 && v.abs() < 1e12 {
        format!("{v:.0}")
    } else {
        num(v, digits)
    }
}

/// A bar of `width` cells for a value in [0, 1], with eighth blocks.
pub fn bar(v: f64, cells: usize) -> String {
    if !v.is_finite() {
        return " ".repeat(cells);
    }
    let eighths = (v.clamp(0.0, 1.0) * (cells * 8) as f64).round() as usize;
    let parts = [" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let mut s = "█".repeat(eighths / 8);
    if !eighths.is_multiple_of(8) {
        s.push_str(parts[eighths % 8]);
    }
    let used = width(&s);
    s.push_str(&" ".repeat(cells.saturating_sub(used)));
    s
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

    #[test]
    fn words_wrap_at_spaces_and_long_words_break() {
        assert_eq!(wrap_words("one two three", 7), ["one two", "three"]);
        assert_eq!(wrap_words("", 5), [""]);
        assert_eq!(wrap_words("a  b", 5), ["a b"]);
        assert_eq!(
            wrap_words("see /a/very/long/path here", 8),
            ["see", "/a/very/", "long/pat", "h here"]
        );
        // Two-cell characters count as two.
        assert_eq!(wrap_words("日本語 日本", 6), ["日本語", "日本"]);
        for row in wrap_words("日本語日本語", 5) {
            assert!(width(&row) <= 5, "{row}");
        }
    }

    #[test]
    fn cut_labels_keep_what_tells_them_apart() {
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let wine = owned(&["cultivar_1", "cultivar_2", "cultivar_3"]);
        assert_eq!(distinct(&wine, 6), ["…1", "…2", "…3"]);
        assert_eq!(distinct(&wine, 10), wine, "labels that fit stay whole");
        // Nothing in common: cut from the right as usual.
        let iris = owned(&["setosa", "versicolor", "virginica"]);
        assert_eq!(distinct(&iris, 6), ["setosa", "versi…", "virgi…"]);
        // One label is the common start itself: no empty remainder.
        let nested = owned(&["control", "control_treated"]);
        assert_eq!(distinct(&nested, 5), ["cont…", "cont…"]);
        // The common start holds wide characters.
        let wide = owned(&["日本語_a", "日本語_b"]);
        assert_eq!(distinct(&wide, 4), ["…a", "…b"]);
        // Still too long after the common start: cut, and still distinct.
        let long = owned(&["group_alpha_x", "group_beta_x"]);
        assert_eq!(distinct(&long, 5), ["…alp…", "…bet…"]);
    }

    #[test]
    fn a_clipped_line_ends_in_an_ellipsis() {
        use ratatui::text::{Line, Span};
        let line = Line::from(vec![Span::raw("abc "), Span::raw("defgh")]);
        assert_eq!(clip_line(line.clone(), 20).to_string(), "abc defgh");
        assert_eq!(clip_line(line.clone(), 6).to_string(), "abc d…");
        assert_eq!(clip_line(line, 4).to_string(), "abc…");
        assert_eq!(
            width(&clip_line(Line::from("日本語日本語"), 5).to_string()),
            5
        );
    }

    #[test]
    fn wide_characters_count_two_cells() {
        assert_eq!(width("日本"), 4);
        assert_eq!(width("🐱x"), 3);
        assert_eq!(short("日本語", 4), "日…");
        assert_eq!(width(&short("日本語", 4)), 3);
        assert_eq!(pad("日本", 6), "日本  ");
        assert_eq!(pad("日本語", 5), "日本…");
        assert_eq!(pad_left("🐱", 4), "  🐱");
        assert_eq!(clip("日本語", 5), "日本");
    }
}
