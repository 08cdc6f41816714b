//! What every paper experiment prints: a plain-text table with aligned
//! columns, each figure a mean with its standard error over the draws, and
//! the paper's own figure beside it where the paper's text gives one.

use super::detection::mean_sd;

/// How large an experiment runs: the paper's setting, or a smoke run that
/// only checks the command works (one draw, the smallest sizes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Paper,
    Smoke,
}

impl Scale {
    /// `paper` at the paper's scale, `smoke` on a smoke run.
    pub fn pick<T>(self, paper: T, smoke: T) -> T {
        match self {
            Scale::Paper => paper,
            Scale::Smoke => smoke,
        }
    }
}

/// A progress report: the share done and what runs now.
pub type Tick<'a> = &'a (dyn Fn(f64, String) + Sync);

/// A tick that reports nothing (tests).
pub fn silent(_: f64, _: String) {}

/// Mean and standard error of the mean over draws (NaN draws left out).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stat {
    pub mean: f64,
    pub se: f64,
    pub n: usize,
}

impl Stat {
    pub fn of(values: &[f64]) -> Stat {
        let n = values.iter().filter(|v| !v.is_nan()).count();
        let (mean, sd) = mean_sd(values.iter().copied());
        Stat {
            mean,
            se: if n > 1 {
                sd / (n as f64).sqrt()
            } else {
                f64::NAN
            },
            n,
        }
    }

    /// The paired difference `a - b` over the same draws.
    pub fn paired(a: &[f64], b: &[f64]) -> Stat {
        let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
        Stat::of(&d)
    }

    /// `mean ± se` of the values times `scale` (100 for %), `decimals` places.
    pub fn show(&self, scale: f64, decimals: usize) -> String {
        if self.mean.is_nan() {
            return "-".into();
        }
        if self.se.is_nan() {
            return format!("{:.*}", decimals, scale * self.mean);
        }
        format!(
            "{:.*} ± {:.*}",
            decimals,
            scale * self.mean,
            decimals,
            scale * self.se
        )
    }

    /// As a percentage with two decimals.
    pub fn pct(&self) -> String {
        self.show(100.0, 2)
    }
}

/// A table of text cells: the first column left-aligned, the rest right.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Self {
        Self {
            header: header.iter().map(|h| (*h).to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    pub fn render(&self) -> String {
        let cols = self
            .rows
            .iter()
            .map(Vec::len)
            .chain([self.header.len()])
            .max()
            .unwrap_or(0);
        let width = |c: usize| {
            self.rows
                .iter()
                .chain([&self.header])
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..cols).map(width).collect();
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let cells: Vec<String> = (0..cols)
                .map(|c| {
                    let s = row.get(c).map_or("", String::as_str);
                    let pad = widths[c].saturating_sub(s.chars().count());
                    if c == 0 {
                        format!("{s}{}", " ".repeat(pad))
                    } else {
                        format!("{}{s}", " ".repeat(pad))
                    }
                })
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
        }
        out
    }
}

/// A figure the paper reports as a number, or `-` where it has none.
pub fn paper_cell(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.decimals$}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_is_the_mean_and_its_standard_error() {
        let s = Stat::of(&[0.1, 0.2, 0.3, f64::NAN]);
        assert_eq!(s.n, 3);
        assert!((s.mean - 0.2).abs() < 1e-12);
        assert!((s.se - 0.1 / 3f64.sqrt()).abs() < 1e-12);
        assert_eq!(s.pct(), "20.00 ± 5.77");
        assert_eq!(Stat::of(&[0.5]).pct(), "50.00");
        let d = Stat::paired(&[0.3, 0.5], &[0.1, 0.2]);
        assert!((d.mean - 0.25).abs() < 1e-12);
    }

    #[test]
    fn a_table_aligns_its_columns() {
        let mut t = Table::new(&["model", "acc"]);
        t.push(vec!["lda".into(), "91.2 ± 0.3".into()]);
        t.push(vec!["rmda (defaults)".into(), "9.0".into()]);
        let s = t.render();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[0], "model                   acc");
        assert_eq!(lines[1], "lda              91.2 ± 0.3");
        assert_eq!(lines[2], "rmda (defaults)         9.0");
    }
}
