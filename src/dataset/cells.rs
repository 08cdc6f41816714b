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
    let t = text.trim();
    if let Some(v) = plain_decimal(t.as_bytes()) {
        return Cell::Number(v);
    }
    if is_missing(t) {
        return Cell::Missing;
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Cell::Number(v),
        Ok(_) => Cell::Infinite,
        // U+2212, the typographic minus, as text copied from a document or
        // a web page has it: a minus all the same.
        Err(_) if t.contains(MINUS_SIGN) => match t.replace(MINUS_SIGN, "-").parse::<f64>() {
            Ok(v) if v.is_finite() => Cell::Number(v),
            Ok(_) => Cell::Infinite,
            Err(_) => Cell::Text,
        },
        Err(_) => Cell::Text,
    }
}

const MINUS_SIGN: char = '\u{2212}';

/// Powers of ten a double holds exactly.
const EXACT_POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The value of a plain decimal like `-1.25` or `3e-4` when it can be had
/// exactly as std's parser would give it, else `None` (then std decides).
/// Most cells of a numeric table have at most 15 digits: their digits as
/// an integer below 2^53 and a power of ten up to 1e22 are both exact
/// doubles, so one multiplication or division rounds correctly (Clinger's
/// fast path) — the same double as `str::parse`, several times faster.
pub fn plain_decimal(t: &[u8]) -> Option<f64> {
    let (negative, mut i) = match t.first()? {
        b'-' => (true, 1),
        b'+' => (false, 1),
        _ => (false, 0),
    };
    let mut mantissa: u64 = 0;
    let mut digits = 0u32;
    let mut exponent: i64 = 0;
    while let Some(&b) = t.get(i).filter(|b| b.is_ascii_digit()) {
        mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(b - b'0'));
        digits += 1;
        i += 1;
    }
    if t.get(i) == Some(&b'.') {
        i += 1;
        while let Some(&b) = t.get(i).filter(|b| b.is_ascii_digit()) {
            mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(b - b'0'));
            digits += 1;
            exponent -= 1;
            i += 1;
        }
    }
    if digits == 0 || digits > 19 {
        return None;
    }
    if matches!(t.get(i), Some(b'e' | b'E')) {
        i += 1;
        let negative_exp = match t.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let (mut e, start) = (0i64, i);
        while let Some(&b) = t.get(i).filter(|b| b.is_ascii_digit()) {
            e = e * 10 + i64::from(b - b'0');
            i += 1;
            if i - start > 4 {
                return None;
            }
        }
        if i == start {
            return None;
        }
        exponent += if negative_exp { -e } else { e };
    }
    if i != t.len() || mantissa > 1 << 53 || exponent.unsigned_abs() > 22 {
        return None;
    }
    let m = mantissa as f64;
    let pow = EXACT_POW10[exponent.unsigned_abs() as usize];
    let v = if exponent < 0 { m / pow } else { m * pow };
    Some(if negative { -v } else { v })
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
    /// A text cell that is not a detection call (see [`is_detection_call`]).
    pub other_text: bool,
}

/// An Affymetrix detection call, as MAS5 writes them beside each signal:
/// `A` (absent), `P` (present), `M` (marginal), or the words.
pub fn is_detection_call(text: &str) -> bool {
    let t = text.trim();
    matches!(t, "A" | "P" | "M")
        || ["absent", "present", "marginal"]
            .iter()
            .any(|w| t.eq_ignore_ascii_case(w))
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
        let v = self.note(text, line, column);
        self.values.push(v);
        if let Some(t) = self.texts.as_mut() {
            t.push(text.trim().to_string());
        }
    }

    /// A cell's value (NaN where missing or not a number), remembering the
    /// column's first problem cells; the caller stores the value, so a
    /// table can be read straight into its matrix.
    pub fn note(&mut self, text: &str, line: usize, column: usize) -> f64 {
        let at = || CellAt {
            line,
            column,
            text: text.trim().to_string(),
        };
        match read_cell(text) {
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
                if !self.other_text && !is_detection_call(text) {
                    self.other_text = true;
                }
                f64::NAN
            }
            Cell::Infinite => {
                if self.first_infinite.is_none() {
                    self.first_infinite = Some(at());
                }
                f64::NAN
            }
        }
    }

    /// Takes the first problem cells of `later`, the same column read from
    /// records after this one's, where this one has none.
    pub fn merge_later(&mut self, later: RawColumn) {
        fn first(a: &mut Option<CellAt>, b: Option<CellAt>) {
            if a.is_none() {
                *a = b;
            }
        }
        first(&mut self.first_text, later.first_text);
        first(&mut self.first_number, later.first_number);
        first(&mut self.first_nonpositive, later.first_nonpositive);
        first(&mut self.first_missing, later.first_missing);
        first(&mut self.first_infinite, later.first_infinite);
        first(&mut self.first_huge, later.first_huge);
        self.other_text |= later.other_text;
    }

    /// A column of detection calls only (and missing cells): a quality
    /// flag of the measurement beside it, not a measurement.
    pub fn holds_detection_calls(&self) -> bool {
        self.first_text.is_some() && self.first_number.is_none() && !self.other_text
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
        assert_eq!(read_cell("\u{2212}1.5"), Cell::Number(-1.5));
        assert_eq!(read_cell("2e\u{2212}3"), Cell::Number(0.002));
        assert_eq!(read_cell("\u{2212}x"), Cell::Text);
        assert_eq!(read_cell("abc"), Cell::Text);
        assert_eq!(read_cell("inf"), Cell::Infinite);
    }

    #[test]
    fn plain_decimals_read_as_std_reads_them() {
        let mut cases: Vec<String> = [
            "0",
            "-0",
            "+0",
            "1",
            "-1.5",
            "1.",
            ".5",
            "-.5",
            "+.5e1",
            "0.1",
            "0.3",
            "1e22",
            "1e23",
            "9007199254740993",
            "9007199254740992",
            "123456789012345678",
            "1234567890123456789012",
            "1e-22",
            "4.9e-324",
            "1.7976931348623157e308",
            "1e",
            "1e+",
            "e5",
            ".",
            "-",
            "+",
            "1..2",
            "1e5.5",
            "0x10",
            "1_0",
            "inf",
            "NaN",
            "1 2",
            "1,5",
            "00000000000000000001",
            "1e00022",
            "-0.089155",
            "2.2250738585072014e-308",
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        // A fixed pseudo-random walk over short decimals.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let digits = (x % 1_000_000_000_000_000) as f64;
            let shift = ((x >> 50) % 40) as i32 - 20;
            cases.push(format!("{}", digits * 10f64.powi(shift)));
            cases.push(format!("{:e}", digits / 1e9));
            cases.push(format!("-{}.{}", x % 1000, (x >> 20) % 100_000));
        }
        for c in &cases {
            let std = c.parse::<f64>().ok();
            if let Some(v) = plain_decimal(c.as_bytes()) {
                assert_eq!(Some(v.to_bits()), std.map(f64::to_bits), "{c}");
            }
        }
        assert_eq!(plain_decimal(b"-0.089155"), Some(-0.089155));
        assert_eq!(plain_decimal(b"1e23"), None);
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
