//! `--probs FILE`: another classifier's out-of-fold class probabilities as
//! the feature matrix. One column per class, named like the class (or
//! `p_<class>`, as `relabel scan` writes them); rows matched to the table by
//! an id column when the file has one, else by order.

use std::collections::HashMap;
use std::path::Path;

use nalgebra::DMatrix;

use super::build::Built;
use super::read::{decompress, err, sniff_delimiter};
use super::{DataError, FeatureSource};

const ID_NAMES: [&str; 3] = ["id", "sample", "name"];

/// A row of probabilities may miss summing to one by this much (rounded
/// output); the `probs` model renormalises with the same tolerance.
const ROW_SUM_TOLERANCE: f64 = 0.02;

/// Every record of the probabilities file with its 1-based line.
struct Table {
    header: Vec<String>,
    rows: Vec<(usize, Vec<String>)>,
}

fn read_table(path: &Path) -> Result<Table, DataError> {
    // The same refusals as the table itself (a FIFO or a device never ends).
    let bytes = super::read::read_regular_file(path)?;
    let (bytes, _) = decompress(path, bytes)?;
    let (bytes, _) = super::encoding::to_utf8(bytes);
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let delimiter = sniff_delimiter(path, first)?;
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .from_reader(&bytes[..]);
    let bad = |e: csv::Error| {
        let line = e.position().map_or(0, |p| p.line() as usize);
        err(
            path,
            line,
            0,
            format!("cannot read the probabilities file: {e}"),
            "every row needs one value per header column",
        )
    };
    let header = reader
        .headers()
        .map_err(bad)?
        .iter()
        .map(|h| h.trim().trim_start_matches('\u{feff}').to_string())
        .collect();
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(bad)?;
        let line = record.position().map_or(0, |p| p.line() as usize);
        rows.push((line, record.iter().map(str::to_string).collect()));
    }
    Ok(Table { header, rows })
}

/// The column of each class: named like it, else `p_<class>`.
fn class_columns(
    path: &Path,
    header: &[String],
    classes: &[String],
) -> Result<Vec<usize>, DataError> {
    classes
        .iter()
        .map(|c| {
            let p = format!("p_{c}");
            header
                .iter()
                .position(|h| h == c)
                .or_else(|| header.iter().position(|h| *h == p))
                .ok_or_else(|| {
                    err(
                        path,
                        1,
                        0,
                        format!("there is no probability column for class \"{c}\" (looked for \"{c}\" and \"{p}\")"),
                        &format!(
                            "name one column per class like the labels of the table; the columns are: {}",
                            header.join(", ")
                        ),
                    )
                })
        })
        .collect()
}

/// For every sample of the table, the row of the probabilities file.
fn match_rows(
    path: &Path,
    table: &Table,
    id_column: Option<usize>,
    ids: &[String],
) -> Result<Vec<usize>, DataError> {
    let Some(col) = id_column else {
        if table.rows.len() != ids.len() {
            return Err(err(
                path,
                0,
                0,
                format!(
                    "the file has {} rows of probabilities but the table has {} samples",
                    table.rows.len(),
                    ids.len()
                ),
                "without an id column rows are matched by order, so the counts must agree; add an id column to match by id",
            ));
        }
        return Ok((0..ids.len()).collect());
    };
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    for (r, (line, row)) in table.rows.iter().enumerate() {
        if by_id.insert(row[col].trim(), r).is_some() {
            return Err(err(
                path,
                *line,
                col + 1,
                format!("the id \"{}\" appears twice", row[col].trim()),
                "give each sample one row of probabilities",
            ));
        }
    }
    ids.iter()
        .map(|id| {
            by_id.get(id.as_str()).copied().ok_or_else(|| {
                err(
                    path,
                    0,
                    col + 1,
                    format!("no probabilities for the sample with id \"{id}\""),
                    &format!(
                        "column \"{}\" must hold every id of the table",
                        table.header[col]
                    ),
                )
            })
        })
        .collect()
}

/// One probability cell: a number in [0, 1].
fn probability(path: &Path, text: &str, line: usize, column: usize) -> Result<f64, DataError> {
    match text.trim().parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(err(
            path,
            line,
            column,
            format!("\"{}\" is not a probability", text.trim()),
            "every class column needs a number between 0 and 1",
        )),
    }
}

/// Replaces the (empty) features of `built` by the probabilities in `path`.
pub fn attach(path: &Path, built: &mut Built) -> Result<(), DataError> {
    let table = read_table(path)?;
    let columns = class_columns(path, &table.header, &built.classes)?;
    let id_column = built
        .id_name
        .as_ref()
        .and_then(|name| table.header.iter().position(|h| h == name))
        .or_else(|| {
            table
                .header
                .iter()
                .position(|h| ID_NAMES.iter().any(|n| h.eq_ignore_ascii_case(n)))
        });
    let rows = match_rows(path, &table, id_column, &built.ids)?;
    let k = columns.len();
    let mut x = DMatrix::zeros(rows.len(), k);
    for (i, &r) in rows.iter().enumerate() {
        let (line, row) = &table.rows[r];
        for (c, &col) in columns.iter().enumerate() {
            x[(i, c)] = probability(path, &row[col], *line, col + 1)?;
        }
        let sum = x.row(i).sum();
        if (sum - 1.0).abs() > ROW_SUM_TOLERANCE {
            return Err(err(
                path,
                *line,
                0,
                format!("the class probabilities of this row sum to {sum:.4}, not 1"),
                "give every class's probability, one column per class",
            ));
        }
    }
    built.feature_names = built.classes.iter().map(|c| format!("p_{c}")).collect();
    built.sources = built
        .feature_names
        .iter()
        .map(|name| FeatureSource::Numeric {
            name: name.clone(),
            fill: None,
        })
        .collect();
    built.categorical.clear();
    built.x = x;
    Ok(())
}
