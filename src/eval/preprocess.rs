//! The preprocessings a microarray paper may have applied before its
//! models saw the table (`relabel eval --paper colon --prep NAME`).
//!
//! Every logistic model in relabel standardises each gene (column) itself,
//! so a per-gene affine rescaling (the author's min-max copy of colon) is
//! the raw table to them; only a transform that mixes genes or bends the
//! scale (a log, a per-sample standardisation) changes what they fit.

use nalgebra::DMatrix;

/// How the table is transformed before the models read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Prep {
    /// As read (raw intensities).
    Raw,
    /// Each sample (row) standardised to mean 0 and variance 1:
    /// Bootkrajang & Kaban's section 3.2 ("the rows of the D x M design
    /// matrix ... zero mean and unit variance"), on a table already
    /// preprocessed (the author's breast copy is min-max per gene).
    Rows,
    /// Each gene rescaled to [-1, 1] by its min and max: the author's
    /// `colon.mat` (jakramate/ntc).
    Minmax,
    /// Min-max per gene, then each sample standardised: the section 3.2
    /// rule applied to the author's min-max copy of colon.
    MinmaxRows,
    /// log2 of every value.
    Log2,
    /// log2, then each sample standardised (the paper's row rule on log
    /// intensities).
    Log2Rows,
}

impl Prep {
    pub const ALL: [Prep; 6] = [
        Prep::Raw,
        Prep::Rows,
        Prep::Minmax,
        Prep::MinmaxRows,
        Prep::Log2,
        Prep::Log2Rows,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Prep::Raw => "raw",
            Prep::Rows => "rows",
            Prep::Minmax => "minmax",
            Prep::MinmaxRows => "minmax-rows",
            Prep::Log2 => "log2",
            Prep::Log2Rows => "log2-rows",
        }
    }

    /// The transformed table; `Err` names a value a log cannot take.
    pub fn apply(self, x: &DMatrix<f64>) -> Result<DMatrix<f64>, String> {
        let mut x = x.clone();
        if matches!(self, Prep::Log2 | Prep::Log2Rows) {
            if let Some(v) = x
                .iter()
                .find(|v| (**v).partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater))
            {
                return Err(format!(
                    "--prep {} takes log2 of every value, and the table holds {v}",
                    self.name()
                ));
            }
            x.apply(|v| *v = v.log2());
        }
        if matches!(self, Prep::Minmax | Prep::MinmaxRows) {
            min_max_columns(&mut x);
        }
        if matches!(self, Prep::Rows | Prep::MinmaxRows | Prep::Log2Rows) {
            standardise_rows(&mut x);
        }
        Ok(x)
    }
}

/// Each column to [-1, 1]; a constant column to 0.
fn min_max_columns(x: &mut DMatrix<f64>) {
    for mut col in x.column_iter_mut() {
        let lo = col.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = col.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let span = hi - lo;
        col.apply(|v| {
            *v = if span > 0.0 {
                2.0 * (*v - lo) / span - 1.0
            } else {
                0.0
            }
        });
    }
}

/// Each row to mean 0 and (population) variance 1; a constant row to 0.
fn standardise_rows(x: &mut DMatrix<f64>) {
    let m = x.ncols() as f64;
    for mut row in x.row_iter_mut() {
        let mean = row.iter().sum::<f64>() / m;
        let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / m;
        let sd = var.sqrt();
        row.apply(|v| *v = if sd > 0.0 { (*v - mean) / sd } else { 0.0 });
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn each_prep_does_what_it_names() {
        let x = DMatrix::from_row_slice(3, 2, &[1.0, 8.0, 2.0, 5.0, 4.0, 2.0]);
        assert_eq!(Prep::Raw.apply(&x).unwrap(), x);
        let mm = Prep::Minmax.apply(&x).unwrap();
        for (v, want) in mm.column(0).iter().zip([-1.0, -1.0 / 3.0, 1.0]) {
            assert!((v - want).abs() < 1e-12, "{mm}");
        }
        assert_eq!(mm[(2, 1)], -1.0);
        let l = Prep::Log2.apply(&x).unwrap();
        assert_eq!(l[(0, 1)], 3.0);
        for p in [Prep::Rows, Prep::MinmaxRows, Prep::Log2Rows] {
            let r = p.apply(&x).unwrap();
            for row in r.row_iter() {
                let mean = row.iter().sum::<f64>() / 2.0;
                let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 2.0;
                assert!(mean.abs() < 1e-12 && (var - 1.0).abs() < 1e-12, "{p:?}");
            }
        }
    }

    #[test]
    fn a_log_of_a_non_positive_value_is_refused() {
        let x = DMatrix::from_row_slice(1, 2, &[1.0, 0.0]);
        let e = Prep::Log2Rows.apply(&x).unwrap_err();
        assert!(e.contains("log2-rows") && e.contains('0'), "{e}");
    }
}
