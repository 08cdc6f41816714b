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
