//! Decimal commas: `3,14` for 3.14, as spreadsheets in most of continental
//! Europe and Latin America write numbers, and so their CSV exports, with
//! a semicolon (or tab) between fields because the comma is taken.
//!
//! The comma is read as a decimal mark column by column, and only where
//! nothing else can be meant: the fields are not separated by commas (with
//! commas between fields a quoted `"1,500"` is as likely fifteen hundred
//! with a thousands separator), at least one cell of the column has a
//! comma between digits, and no cell has a point. A point beside commas
//! is either a thousands separator (`1.234,5`) or a second convention
//! mixed into the column; both are left as text, so the cell is an error
//! naming it rather than a number read a thousand times too small.

use super::cells::{Cell, is_missing, read_cell};

/// Whether a table separated by `delimiter` may write decimal commas.
pub fn possible(delimiter: u8) -> bool {
    delimiter != b','
}

/// `text` (trimmed) with its one comma, between digits, as a point; `None`
/// when it is not of that form.
pub fn as_point(text: &str) -> Option<String> {
    let t = text.trim();
    let at = t.find(',')?;
    let b = t.as_bytes();
    let between_digits =
        at > 0 && b[at - 1].is_ascii_digit() && b.get(at + 1).is_some_and(u8::is_ascii_digit);
    if !between_digits || t[at + 1..].contains(',') || t.contains('.') {
        return None;
    }
    let point = t.replacen(',', ".", 1);
    matches!(read_cell(&point), Cell::Number(_)).then_some(point)
}

/// Whether a column of cells is written with decimal commas: at least one
/// cell is a decimal-comma number, and every other is missing or a number
/// without a point (`12`, `-3`, `1e5`).
pub fn column_is(cells: impl IntoIterator<Item = impl AsRef<str>>) -> bool {
    let mut commas = false;
    for cell in cells {
        let t = cell.as_ref().trim();
        if is_missing(t) {
            continue;
        }
        if t.contains(',') {
            if as_point(t).is_none() {
                return false;
            }
            commas = true;
        } else if t.contains('.') || !matches!(read_cell(t), Cell::Number(_)) {
            return false;
        }
    }
    commas
}

/// The cell as the number reader should see it: a decimal comma as a point
/// (in a column [`column_is`] accepted), anything else as it is.
pub fn read_as(cell: &str) -> std::borrow::Cow<'_, str> {
    as_point(cell).map_or(std::borrow::Cow::Borrowed(cell), std::borrow::Cow::Owned)
}

/// What to do about a cell the number reader took for text, when it is a
/// number in a convention not read in its column: a decimal comma beside
/// points or in a comma-separated file, or a thousands separator.
pub fn hint(cell: &str) -> Option<String> {
    let t = cell.trim();
    if as_point(t).is_some() {
        return Some(
            "decimal commas are read in a column with no points, in a file whose fields are separated by semicolons or tabs: write every number of the column one way".into(),
        );
    }
    let plain = t.replace('.', "");
    let grouped = t.contains('.') && (as_point(&plain).is_some() || t.contains(','));
    let digits_only = plain
        .trim_start_matches(['-', '+'])
        .bytes()
        .all(|b| b.is_ascii_digit() || b == b',');
    (grouped && digits_only).then(|| {
        "it looks like a number with thousands separators: write it without them (1234,5 or 1234.5)".into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comma_between_digits_is_a_decimal_mark() {
        assert_eq!(as_point("3,14").as_deref(), Some("3.14"));
        assert_eq!(as_point(" -0,5 ").as_deref(), Some("-0.5"));
        assert_eq!(as_point("2,5e-3").as_deref(), Some("2.5e-3"));
        for not in ["1,2,3", "1.234,5", ",5", "5,", "a,b", "1,x", "12", "1.5"] {
            assert_eq!(as_point(not), None, "{not}");
        }
    }

    #[test]
    fn a_column_reads_decimal_commas_only_when_nothing_else_is_meant() {
        assert!(column_is(["1,5", "2", "NA", "", "-0,25", "1e3"]));
        // No comma at all: an ordinary column.
        assert!(!column_is(["1", "2"]));
        // A point beside commas: thousands separators or mixed conventions.
        assert!(!column_is(["1,5", "1.5"]));
        assert!(!column_is(["1,5", "1.234,5"]));
        // Words are not numbers in any convention.
        assert!(!column_is(["1,5", "high"]));
        assert!(!column_is(["a,b", "c,d"]));
    }

    #[test]
    fn numbers_in_another_convention_get_a_hint() {
        let says = |cell: &str, what: &str| hint(cell).is_some_and(|h| h.contains(what));
        assert!(says("1,5", "one way"));
        assert!(says("1.234,5", "thousands"));
        assert!(says("1,234.5", "thousands"));
        assert_eq!(hint("high"), None);
        assert_eq!(hint("a.b,c"), None);
    }

    #[test]
    fn only_tables_not_separated_by_commas_write_decimal_commas() {
        assert!(possible(b';'));
        assert!(possible(b'\t'));
        assert!(!possible(b','));
    }
}
