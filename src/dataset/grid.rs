//! Records to a sample-by-column grid, in either orientation: the usual
//! samples-as-rows table, or a genes x samples sheet (`--transpose`).

use std::collections::HashSet;
use std::path::Path;

use super::LoadOptions;
use super::cells::RawColumn;
use super::read::{err, field_lines, field_text, split_fields};
use super::shown::{name_list, shown};
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
        format!("there is no {what} named {}", shown(name)),
        &format!("the columns are: {}", name_list(names)),
    )
}

/// A label or id that spans several lines is refused unless the user said
/// such cells are meant (`--multiline-cells`): in a label sheet a quoted
/// line break is almost always a stray quote that swallowed the rows after
/// it. `what` says which cell, e.g. `the label in column "label"`.
fn single_line(
    path: &Path,
    opts: &LoadOptions,
    text: &str,
    (line, column): (usize, usize),
    what: &str,
) -> Result<(), DataError> {
    let breaks = text.matches('\n').count();
    if breaks == 0 || opts.multiline_cells {
        return Ok(());
    }
    Err(err(
        path,
        line,
        column,
        format!(
            "{what} spans lines {line}-{}: a quoted cell with line breaks, {}",
            line + breaks,
            shown(text)
        ),
        "this is almost always a stray quote: close it where the cell ends, or remove it; if the line breaks are meant, pass --multiline-cells",
    ))
}

/// [`single_line`] for a transposed sheet: the sample ids in the header
/// and the cells of the label row (the first field of each names the row).
fn single_line_sheet(
    path: &Path,
    opts: &LoadOptions,
    header: &[(String, usize)],
    label_cells: &[(String, usize)],
    label_row: &str,
) -> Result<(), DataError> {
    for (j, (text, line)) in header.iter().enumerate().skip(1) {
        single_line(
            path,
            opts,
            text,
            (*line, j + 1),
            "the sample id in the header",
        )?;
    }
    let what = format!("the label in row {}", shown(label_row));
    for (j, (text, line)) in label_cells.iter().enumerate().skip(1) {
        single_line(path, opts, text, (*line, j + 1), &what)?;
    }
    Ok(())
}

/// A record whose field count differs from the header's; when the record
/// runs over several lines, a quote is the likely cause, and the message
/// says where.
fn wrong_width(
    path: &Path,
    rec: &RecordSpan,
    content: &[u8],
    got: usize,
    want: usize,
) -> DataError {
    let breaks = content.iter().filter(|&&b| b == b'\n').count();
    let hint = if breaks > 0 {
        format!(
            "this record runs from line {} to line {} because a quote opened on line {} is closed only on line {}: close it where the cell ends, or remove it",
            rec.line,
            rec.line + breaks,
            rec.line,
            rec.line + breaks
        )
    } else {
        "check for a missing or extra delimiter, or an unclosed quote".to_string()
    };
    err(
        path,
        rec.line,
        0,
        format!("this row has {got} fields but the header has {want}"),
        &hint,
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
    // String columns become 0/1 columns, which needs every cell's text; but
    // most columns are numbers, and a String per cell would more than
    // double the memory of loading them. So a column keeps texts from its
    // first string on, after reading the cells before it again.
    let keep_texts = opts.categorical == super::CategoricalPolicy::Onehot;
    let mut features: Vec<RawColumn> = feature_fields
        .iter()
        .map(|&f| RawColumn::new(header[f].clone(), false, n))
        .collect();
    let mut labels = Vec::with_capacity(n);
    let mut label_at = Vec::with_capacity(n);
    let mut ids = id_field.map(|_| Vec::with_capacity(n));
    let content_fields = |rec: &RecordSpan, scratch: &mut Vec<std::ops::Range<usize>>| {
        split_fields(&bytes[rec.content.clone()], delimiter, scratch);
    };
    let mut lines = Vec::new();
    let label_cell = format!("the label in column {}", shown(&header[label_field]));
    let id_cell = format!(
        "the id in column {}",
        shown(id_field.map_or("", |f| header[f].as_str()))
    );
    for (r, rec) in records[1..].iter().enumerate() {
        content_fields(rec, &mut scratch);
        let content = &bytes[rec.content.clone()];
        if scratch.len() != n_fields {
            return Err(wrong_width(path, rec, content, scratch.len(), n_fields));
        }
        field_lines(content, &scratch, &mut lines);
        let line_of = |f: usize| rec.line + lines[f];
        let label = field_text(&content[scratch[label_field].clone()]);
        let at = (line_of(label_field), label_field + 1);
        single_line(path, opts, &label, at, &label_cell)?;
        labels.push(label);
        label_at.push(at);
        if let (Some(ids), Some(f)) = (ids.as_mut(), id_field) {
            let id = field_text(&content[scratch[f].clone()]);
            single_line(path, opts, &id, (line_of(f), f + 1), &id_cell)?;
            ids.push(id.trim().to_string());
        }
        for (col, &f) in features.iter_mut().zip(&feature_fields) {
            col.push(&field_text(&content[scratch[f].clone()]), line_of(f), f + 1);
            if keep_texts && col.texts.is_none() && col.first_text.is_some() {
                col.texts = Some(column_texts(bytes, &records[1..=r + 1], delimiter, f));
            }
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
                format!(
                    "there is no row named {} to take the labels from",
                    shown(name)
                ),
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
                format!("there is no row named {} to ignore", shown(name)),
                "with --transpose, --ignore names rows (first column)",
            ));
        }
    }
    let keep_texts = opts.categorical == super::CategoricalPolicy::Onehot;
    let mut features = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        let rec = &records[r + 1];
        if row.len() != n_fields {
            let content = &bytes[rec.content.clone()];
            return Err(wrong_width(path, rec, content, row.len(), n_fields));
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
    single_line_sheet(path, opts, &header, label_cells, &names[label_row])?;
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

/// The trimmed text of field `f` of every record of `records`.
fn column_texts(bytes: &[u8], records: &[RecordSpan], delimiter: u8, f: usize) -> Vec<String> {
    let mut scratch = Vec::new();
    records
        .iter()
        .map(|rec| {
            let content = &bytes[rec.content.clone()];
            split_fields(content, delimiter, &mut scratch);
            field_text(&content[scratch[f].clone()]).trim().to_string()
        })
        .collect()
}
