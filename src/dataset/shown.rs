//! Cells and column names as they appear in messages: always on one line,
//! never longer than a glance. Every message that echoes text from the
//! input goes through here, so a cell holding a line break, a terminal
//! escape or ten thousand characters cannot break the one-line contract of
//! a bad-input error.

use unicode_width::UnicodeWidthChar;

/// How much of a cell a message shows, in display columns (a CJK character
/// counts two); longer text is cut and ends with an ellipsis.
pub const SHOWN_WIDTH: usize = 40;

/// At most this many names when a message lists columns.
const LISTED_NAMES: usize = 12;

/// Characters a terminal would act on rather than print: controls (line
/// breaks, escapes), the Unicode line and paragraph separators, and the
/// bidirectional overrides that make text appear in another order.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200E}' | '\u{200F}' | '\u{FEFF}'
        )
        || ('\u{202A}'..='\u{202E}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

fn escaped(c: char) -> String {
    match c {
        '\n' => "\\n".into(),
        '\r' => "\\r".into(),
        '\t' => "\\t".into(),
        c => format!("\\u{{{:x}}}", c as u32),
    }
}

/// `text` with every control character escaped, uncut: a whole message
/// stays on one line whatever file text went into it.
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if needs_escape(c) {
                escaped(c)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// `text` on one line, escaped and cut to [`SHOWN_WIDTH`] display columns.
pub fn one_line(text: &str) -> String {
    one_line_within(text, SHOWN_WIDTH)
}

/// [`one_line`] cut to `max_width` display columns.
pub fn one_line_within(text: &str, max_width: usize) -> String {
    let mut out = String::new();
    let mut width = 0;
    for c in text.chars() {
        let piece = if needs_escape(c) {
            escaped(c)
        } else {
            c.to_string()
        };
        let w: usize = piece.chars().map(|c| c.width().unwrap_or(0)).sum();
        if width + w > max_width {
            out.push('…');
            return out;
        }
        width += w;
        out.push_str(&piece);
    }
    out
}

/// "1 sample", "3 samples": a count and its noun (plural with an s).
pub fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// A cell (or a name) quoted for a message: `"text"`, on one line and
/// short, with a quote inside written `\"`.
pub fn shown(text: &str) -> String {
    format!("\"{}\"", one_line(text).replace('"', "\\\""))
}

/// Column names for a message: each on one line and short, at most
/// [`LISTED_NAMES`] of them, then how many more there are.
pub fn name_list(names: &[String]) -> String {
    name_list_of(names, LISTED_NAMES)
}

/// [`name_list`] of at most `listed` names, for a message that must stay
/// short whatever the names (a refusal in one line).
pub fn name_list_of(names: &[String], listed: usize) -> String {
    let mut s = names
        .iter()
        .take(listed)
        .map(|n| one_line(n))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > listed {
        s.push_str(&format!(" and {} more", names.len() - listed));
    }
    s
}

/// A column name as a command-line argument in a hint (`--ignore NAME`):
/// bare when the shell leaves it alone, else in single quotes; on one line.
pub fn as_arg(name: &str) -> String {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "_-.,:/=+@%".contains(c));
    if plain {
        one_line(name)
    } else {
        format!("'{}'", one_line(&name.replace('\'', "'\\''")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_and_escapes_are_shown_not_acted_on() {
        assert_eq!(shown("a\nb"), "\"a\\nb\"");
        assert_eq!(shown("x\r\n\t\u{1b}[31m"), "\"x\\r\\n\\t\\u{1b}[31m\"");
        assert_eq!(shown("say \"hi\""), "\"say \\\"hi\\\"\"");
        assert_eq!(shown("a\u{2028}b\u{202e}"), "\"a\\u{2028}b\\u{202e}\"");
        assert!(!shown("\u{85}").contains('\u{85}'));
    }

    #[test]
    fn long_cells_are_cut_by_display_width() {
        let long = "x".repeat(10_000);
        let s = shown(&long);
        assert_eq!(s.chars().count(), SHOWN_WIDTH + 3, "{s}");
        assert!(s.ends_with("…\""));
        // Wide characters count two columns.
        let wide = one_line(&"日".repeat(100));
        assert_eq!(wide.chars().count(), SHOWN_WIDTH / 2 + 1);
        assert_eq!(one_line("short"), "short");
    }

    #[test]
    fn names_in_hints_are_quoted_for_the_shell_when_needed() {
        assert_eq!(as_arg("gene_1"), "gene_1");
        assert_eq!(as_arg("my col"), "'my col'");
        assert_eq!(as_arg("it's"), "'it'\\''s'");
        assert_eq!(as_arg(""), "''");
    }

    #[test]
    fn long_name_lists_say_how_many_are_left_out() {
        let names: Vec<String> = (0..20).map(|i| format!("c{i}")).collect();
        let s = name_list(&names);
        assert!(
            s.starts_with("c0, c1,") && s.ends_with("c11 and 8 more"),
            "{s}"
        );
        assert_eq!(name_list(&["a".into(), "b".into()]), "a, b");
    }
}
