//! Reading a second table (a test set) with the schema of a loaded one.

use std::collections::HashMap;
use std::path::Path;

use nalgebra::DMatrix;

use super::cells::{Cell, MAX_MAGNITUDE, read_cell};
use super::decimal_comma;
use super::read::{
    decompress, err, field_lines, field_text, read_regular_file, split_fields, table_records,
};
use super::shown::shown;
use super::{DataError, Dataset, FeatureSource, LogScale};

/// A cell's text and 1-based (line, column).
type Located = (String, usize, usize);
/// Columns by name, the sample ids when they come from the header, and
/// the delimiter.
type Columns = (HashMap<String, Vec<Located>>, Option<Vec<String>>, u8);

/// A test table read with a training table's schema.
#[derive(Clone, Debug)]
pub struct TestTable {
    /// Features in the training table's order.
    pub x: DMatrix<f64>,
    /// Labels, when the test table has the label column.
    pub labels: Option<Vec<String>>,
    pub ids: Vec<String>,
}

/// Every column of a table by name, each a vector over samples, plus the
/// sample ids (the header, when transposed).
fn columns_by_name(path: &Path, ds: &Dataset) -> Result<Columns, DataError> {
    let bytes = read_regular_file(path)?;
    let (bytes, _) = decompress(path, bytes)?;
    let (bytes, _) = super::encoding::to_utf8(bytes);
    let (records, delimiter) = table_records(path, &bytes, ds.options.delimiter)?;
    let mut scratch = Vec::new();
    let mut lines = Vec::new();
    let rows: Vec<Vec<Located>> = records
        .iter()
        .map(|rec| {
            let content = &bytes[rec.content.clone()];
            split_fields(content, delimiter, &mut scratch);
            field_lines(content, &scratch, &mut lines);
            scratch
                .iter()
                .zip(&lines)
                .enumerate()
                .map(|(f, (r, l))| (field_text(&content[r.clone()]), rec.line + l, f + 1))
                .collect()
        })
        .collect();
    let width = rows[0].len();
    for (r, row) in rows.iter().enumerate() {
        if row.len() != width {
            return Err(err(
                path,
                records[r].line,
                0,
                format!(
                    "this row has {} fields but the header has {width}",
                    row.len()
                ),
                "check for a missing or extra delimiter",
            ));
        }
    }
    let mut columns = HashMap::new();
    if ds.layout.transpose {
        let ids = rows[0][1..]
            .iter()
            .map(|c| c.0.trim().to_string())
            .collect();
        for row in &rows[1..] {
            columns.insert(row[0].0.trim().to_string(), row[1..].to_vec());
        }
        Ok((columns, Some(ids), delimiter))
    } else {
        for (f, name) in rows[0].iter().enumerate() {
            columns.insert(
                name.0.trim().to_string(),
                rows[1..].iter().map(|r| r[f].clone()).collect(),
            );
        }
        Ok((columns, None, delimiter))
    }
}

impl Dataset {
    /// Reads a test table with this dataset's schema: the same feature
    /// columns by name (in any order), the label column if it has one.
    pub fn load_compatible(&self, path: &Path) -> Result<TestTable, DataError> {
        let (columns, header_ids, delimiter) = columns_by_name(path, self)?;
        let n = header_ids
            .as_ref()
            .map(Vec::len)
            .or_else(|| columns.values().next().map(Vec::len))
            .unwrap_or(0);
        let mut x = DMatrix::zeros(n, self.n_features());
        let mut j = 0;
        for source in &self.sources {
            let name = match source {
                FeatureSource::Numeric { name, .. } | FeatureSource::Categorical { name, .. } => {
                    name
                }
            };
            let col = columns.get(name).ok_or_else(|| {
                err(
                    path,
                    1,
                    0,
                    format!(
                        "the test table has no column {}, which the model uses",
                        shown(name)
                    ),
                    "give it the same feature columns as the training table",
                )
            })?;
            match source {
                FeatureSource::Numeric { fill, .. } => {
                    let values = self.numeric_column(path, name, col, delimiter, *fill)?;
                    x.column_mut(j).copy_from_slice(&values);
                    j += 1;
                }
                FeatureSource::Categorical { levels, .. } => {
                    // A level the training data never had gets no 1 at all.
                    for (i, (text, _, _)) in col.iter().enumerate() {
                        if let Some(l) = levels.iter().position(|l| l == text.trim()) {
                            x[(i, j + l)] = 1.0;
                        }
                    }
                    j += levels.len();
                }
            }
        }
        let labels = columns
            .get(&self.label_name)
            .map(|c| c.iter().map(|(t, _, _)| t.clone()).collect());
        let ids = match header_ids {
            Some(ids) => ids,
            None => match self.id_name.as_ref().and_then(|id| columns.get(id)) {
                Some(c) => c.iter().map(|(t, _, _)| t.trim().to_string()).collect(),
                None => (0..n).map(|i| i.to_string()).collect(),
            },
        };
        Ok(TestTable { x, labels, ids })
    }

    /// One numeric column of a test table, read as the training table's
    /// was (its scale, its fill for a missing value).
    fn numeric_column(
        &self,
        path: &Path,
        name: &str,
        col: &[Located],
        delimiter: u8,
        fill: Option<f64>,
    ) -> Result<Vec<f64>, DataError> {
        let log2 = self.log_scale.is_log2();
        // The test table's own convention: a training table read with
        // decimal commas may be scored on one written with points, and the
        // other way round.
        let commas = decimal_comma::possible(delimiter)
            && decimal_comma::column_is(col.iter().map(|c| &c.0));
        col.iter()
            .map(|(text, line, column)| {
                let read = if commas {
                    decimal_comma::read_as(text)
                } else {
                    std::borrow::Cow::Borrowed(text.as_str())
                };
                let (message, hint) = match (read_cell(&read), fill) {
                    (Cell::Number(v), _) if log2 && v <= 0.0 => (
                        format!(
                            "the training table was read on a log2 scale, which needs positive values, but column {} has {v}",
                            shown(name)
                        ),
                        if self.log_scale == LogScale::Asked {
                            "the training table was read with --log2"
                        } else {
                            "its values looked like raw intensities; pass --no-log2 to read both tables as they are"
                        },
                    ),
                    (Cell::Number(v), _) if log2 => return Ok(v.log2()),
                    (Cell::Number(v), _) if v.abs() > MAX_MAGNITUDE => (
                        format!(
                            "column {} has {}, too large to compute with (at most {MAX_MAGNITUDE:e} in size)",
                            shown(name),
                            shown(text.trim())
                        ),
                        "rescale the column as the training table was",
                    ),
                    (Cell::Number(v), _) => return Ok(v),
                    (Cell::Missing, Some(m)) => return Ok(m),
                    (Cell::Missing, None) => (
                        format!("missing value in column {}", shown(name)),
                        "fill it in, or read the training table with --missing mean",
                    ),
                    _ => (
                        format!(
                            "cannot read {} as a number in column {}",
                            shown(text.trim()),
                            shown(name)
                        ),
                        "the training table has numbers in this column",
                    ),
                };
                Err(err(path, *line, *column, message, hint))
            })
            .collect()
    }
}
