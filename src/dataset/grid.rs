//! Records to a sample-by-column grid, in either orientation: the usual
//! samples-as-rows table, or a genes x samples sheet (`--transpose`).

use std::collections::HashSet;
use std::path::Path;

use super::LoadOptions;
use super::cells::RawColumn;
use super::read::{err, field_lines, field_text, split_fields};
use super::{DataError, RecordSpan};

const LABEL_NAMES: [&str; 4] = ["label", "class", "target", "y"];
const ID_NAMES: [&str; 3] = ["id", "sample", "name"];

/// The columns of a table, one entry per sample, before any policy.
#[derive(Debug)]
pub struct Grid {
    pub features: Vec<RawColumn>,
    pub labels: Vec<String>,
    /// (line, column) of every label cell.
    pub label_at: Vec<(usize, usize)>,
    pub ids: Option<Vec<String>>,
    pub label_name: String,
    /// Field index of the label column, or record index of the label row.
    pub label_field: usize,
    pub id_name: Option<String>,
    pub n_fields: usize,
}

fn find_named(names: &[String], wanted: &[&str]) -> Option<usize> {
    names
        .iter()
        .position(|n| wanted.iter().any(|w| n.trim().eq_ignore_ascii_case(w)))
}

fn not_found(path: &Path, what: &str, name: &str, names: &[String]) -> DataError {
    err(
        path,
        1,
        0,
        format!("there is no {what} named \"{name}\""),
        &format!("the columns are: {}", names.join(", ")),
    )
}

/// Fields of a record as text, plus the 1-based line of each field.
fn fields_of(
    bytes: &[u8],
    rec: &RecordSpan,
    delimiter: u8,
    scratch: &mut Vec<std::ops::Range<usize>>,
) -> Vec<(String, usize)> {
    let content = &bytes[rec.content.clone()];
    split_fields(content, delimiter, scratch);
    let mut lines = Vec::new();
    field_lines(content, scratch, &mut lines);
    scratch
        .iter()
        .zip(&lines)
        .map(|(r, l)| (field_text(&content[r.clone()]), rec.line + l))
        .collect()
}

pub fn samples_as_rows(
    path: &Path,
    bytes: &[u8],
    records: &[RecordSpan],
    delimiter: u8,
    opts: &LoadOptions,
) -> Result<Grid, DataError> {
    let mut scratch = Vec::new();
    let header: Vec<String> = fields_of(bytes, &records[0], delimiter, &mut scratch)
        .into_iter()
        .map(|(t, _)| t.trim().to_string())
        .collect();
    let n_fields = header.len();
    let label_field = match &opts.label {
        Some(name) => header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| not_found(path, "label column", name, &header))?,
        None => find_named(&header, &LABEL_NAMES).unwrap_or(n_fields - 1),
    };
    let id_field = match &opts.id {
        Some(name) => Some(
            header
                .iter()
                .position(|h| h == name)
                .ok_or_else(|| not_found(path, "id column", name, &header))?,
        ),
        None => find_named(&header, &ID_NAMES).filter(|&i| i != label_field),
    };
    let mut ignored = HashSet::new();
    for name in &opts.ignore {
        let i = header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| not_found(path, "column to ignore", name, &header))?;
        ignored.insert(i);
    }
    // With --probs the features come from the probabilities file.
    let feature_fields: Vec<usize> = (0..n_fields)
        .filter(|i| *i != label_field && Some(*i) != id_field && !ignored.contains(i))
        .filter(|_| opts.probs.is_none())
        .collect();
    if feature_fields.is_empty() && opts.probs.is_none() {
        return Err(err(
            path,
            1,
            0,
            "no feature columns are left besides the label and id".into(),
            "check --label, --id and --ignore",
        ));
    }
    let n = records.len() - 1;
    let keep_texts = opts.categorical == super::CategoricalPolicy::Onehot;
    let mut features: Vec<RawColumn> = feature_fields
        .iter()
        .map(|&f| RawColumn::new(header[f].clone(), keep_texts, n))
        .collect();
    let mut labels = Vec::with_capacity(n);
    let mut label_at = Vec::with_capacity(n);
    let mut ids = id_field.map(|_| Vec::with_capacity(n));
    let content_fields = |rec: &RecordSpan, scratch: &mut Vec<std::ops::Range<usize>>| {
        split_fields(&bytes[rec.content.clone()], delimiter, scratch);
    };
    let mut lines = Vec::new();
    for rec in &records[1..] {
        content_fields(rec, &mut scratch);
        if scratch.len() != n_fields {
            return Err(err(
                path,
                rec.line,
                0,
                format!(
                    "this row has {} fields but the header has {n_fields}",
                    scratch.len()
                ),
                "check for a missing or extra delimiter, or an unclosed quote",
            ));
        }
        let content = &bytes[rec.content.clone()];
        field_lines(content, &scratch, &mut lines);
        let line_of = |f: usize| rec.line + lines[f];
        let label = field_text(&content[scratch[label_field].clone()]);
        labels.push(label);
        label_at.push((line_of(label_field), label_field + 1));
        if let (Some(ids), Some(f)) = (ids.as_mut(), id_field) {
            ids.push(field_text(&content[scratch[f].clone()]).trim().to_string());
        }
        for (col, &f) in features.iter_mut().zip(&feature_fields) {
            col.push(&field_text(&content[scratch[f].clone()]), line_of(f), f + 1);
        }
    }
    Ok(Grid {
        features,
        labels,
        label_at,
        ids,
        label_name: header[label_field].clone(),
        label_field,
        id_name: id_field.map(|f| header[f].clone()),
        n_fields,
    })
}

/// Genes x samples: the header holds sample ids; each record is a feature
/// named by its first cell, except the label row and ignored rows.
pub fn samples_as_columns(
    path: &Path,
    bytes: &[u8],
    records: &[RecordSpan],
    delimiter: u8,
    opts: &LoadOptions,
) -> Result<Grid, DataError> {
    let mut scratch = Vec::new();
    let header = fields_of(bytes, &records[0], delimiter, &mut scratch);
    let n_fields = header.len();
    let ids: Vec<String> = header[1..]
        .iter()
        .map(|(t, _)| t.trim().to_string())
        .collect();
    let n = ids.len();
    let rows: Vec<Vec<(String, usize)>> = records[1..]
        .iter()
        .map(|r| fields_of(bytes, r, delimiter, &mut scratch))
        .collect();
    let names: Vec<String> = rows
        .iter()
        .map(|r| {
            r.first()
                .map(|(t, _)| t.trim().to_string())
                .unwrap_or_default()
        })
        .collect();
    let label_row = match &opts.label {
        Some(name) => names.iter().position(|h| h == name).ok_or_else(|| {
            err(
                path,
                0,
                1,
                format!("there is no row named \"{name}\" to take the labels from"),
                "with --transpose, --label names the row (first column) holding the labels",
            )
        })?,
        None => find_named(&names, &LABEL_NAMES).ok_or_else(|| {
            err(
                path,
                0,
                1,
                "no row is named label, class, target or y".into(),
                "with --transpose, pass --label ROW to say which row holds the labels",
            )
        })?,
    };
    for name in &opts.ignore {
        if !names.contains(name) {
            return Err(err(
                path,
                0,
                1,
                format!("there is no row named \"{name}\" to ignore"),
                "with --transpose, --ignore names rows (first column)",
            ));
        }
    }
    let keep_texts = opts.categorical == super::CategoricalPolicy::Onehot;
    let mut features = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        let rec = &records[r + 1];
        if row.len() != n_fields {
            return Err(err(
                path,
                rec.line,
                0,
                format!(
                    "this row has {} fields but the header has {n_fields}",
                    row.len()
                ),
                "check for a missing or extra delimiter, or an unclosed quote",
            ));
        }
        if r == label_row || opts.ignore.contains(&names[r]) {
            continue;
        }
        let mut col = RawColumn::new(names[r].clone(), keep_texts, n);
        for (j, (text, line)) in row[1..].iter().enumerate() {
            col.push(text, *line, j + 2);
        }
        features.push(col);
    }
    if features.is_empty() {
        return Err(err(
            path,
            0,
            0,
            "no feature rows are left besides the label row".into(),
            "check --label and --ignore",
        ));
    }
    let label_cells = &rows[label_row];
    Ok(Grid {
        features,
        labels: label_cells[1..].iter().map(|(t, _)| t.clone()).collect(),
        label_at: label_cells[1..]
            .iter()
            .enumerate()
            .map(|(j, (_, line))| (*line, j + 2))
            .collect(),
        ids: Some(ids),
        label_name: names[label_row].clone(),
        label_field: label_row + 1,
        id_name: None,
        n_fields,
    })
}
