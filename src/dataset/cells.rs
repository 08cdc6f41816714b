//! Reading one cell: missing-value tokens, numbers, and where a bad cell is.

/// Texts that mean "no value" (compared trimmed, ignoring case).
const MISSING: [&str; 5] = ["", "na", "nan", "n/a", "?"];

pub fn is_missing(text: &str) -> bool {
    let t = text.trim();
    MISSING.iter().any(|m| t.eq_ignore_ascii_case(m))
}

/// The largest magnitude a feature value may have. The models square and
/// sum features (variances, covariances, squared distances) before any
/// rescaling: 1e150 squared is 1e300, which leaves room for a sum over ten
/// million rows, and for the factor 4 of a squared difference, below the
/// largest double (1.8e308). A value beyond it is almost always a unit
/// mistake or a sentinel, so it is refused at load, naming the column,
/// rather than every model having to guard against overflow.
pub const MAX_MAGNITUDE: f64 = 1e150;

/// A cell's value: a finite number, missing, or text that is not a number.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Number(f64),
    Missing,
    Text,
    Infinite,
}

pub fn read_cell(text: &str) -> Cell {
    if is_missing(text) {
        return Cell::Missing;
    }
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Cell::Number(v),
        Ok(_) => Cell::Infinite,
        Err(_) => Cell::Text,
    }
}

/// Where a cell is, 1-based, and its text (for messages).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct CellAt {
    pub line: usize,
    pub column: usize,
    pub text: String,
}

/// One source column (or, transposed, one source row) of feature values.
#[derive(Clone, Debug, Default)]
pub struct RawColumn {
    pub name: String,
    /// NaN where missing or not a number.
    pub values: Vec<f64>,
    /// Every cell's text, kept only when string levels may be needed.
    pub texts: Option<Vec<String>>,
    pub first_text: Option<CellAt>,
    pub first_number: Option<CellAt>,
    /// First number <= 0 (no logarithm).
    pub first_nonpositive: Option<CellAt>,
    pub first_missing: Option<CellAt>,
    pub first_infinite: Option<CellAt>,
    /// First number beyond [`MAX_MAGNITUDE`].
    pub first_huge: Option<CellAt>,
}

impl RawColumn {
    pub fn new(name: String, keep_texts: bool, capacity: usize) -> Self {
        Self {
            name,
            values: Vec::with_capacity(capacity),
            texts: keep_texts.then(|| Vec::with_capacity(capacity)),
            ..Self::default()
        }
    }

    pub fn push(&mut self, text: &str, line: usize, column: usize) {
        let at = || CellAt {
            line,
            column,
            text: text.trim().to_string(),
        };
        let v = match read_cell(text) {
            Cell::Number(v) => {
                if self.first_number.is_none() {
                    self.first_number = Some(at());
                }
                if v <= 0.0 && self.first_nonpositive.is_none() {
                    self.first_nonpositive = Some(at());
                }
                if v.abs() > MAX_MAGNITUDE && self.first_huge.is_none() {
                    self.first_huge = Some(at());
                }
                v
            }
            Cell::Missing => {
                if self.first_missing.is_none() {
                    self.first_missing = Some(at());
                }
                f64::NAN
            }
            Cell::Text => {
                if self.first_text.is_none() {
                    self.first_text = Some(at());
                }
                f64::NAN
            }
            Cell::Infinite => {
                if self.first_infinite.is_none() {
                    self.first_infinite = Some(at());
                }
                f64::NAN
            }
        };
        self.values.push(v);
        if let Some(t) = self.texts.as_mut() {
            t.push(text.trim().to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_tokens_numbers_and_text() {
        for m in ["", " ", "NA", "nan", "N/A", "?"] {
            assert_eq!(read_cell(m), Cell::Missing, "{m:?}");
        }
        assert_eq!(read_cell(" 1.5e3 "), Cell::Number(1500.0));
        assert_eq!(read_cell("abc"), Cell::Text);
        assert_eq!(read_cell("inf"), Cell::Infinite);
    }

    #[test]
    fn a_column_remembers_its_first_problem_cells() {
        let mut c = RawColumn::new("a".into(), false, 3);
        c.push("1", 2, 1);
        c.push("x", 3, 1);
        c.push("y", 4, 1);
        c.push("", 5, 1);
        assert_eq!(c.first_text.as_ref().map(|a| a.line), Some(3));
        assert_eq!(c.first_missing.as_ref().map(|a| a.line), Some(5));
        assert_eq!(c.values[0], 1.0);
        assert!(c.values[1].is_nan());
    }
}
