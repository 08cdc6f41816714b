//! The cleaned file: the input's bytes with only the curator's changes.

use std::collections::HashMap;
use std::ops::Range;

use super::read::{quote_if_needed, split_fields};
use super::{CellEdit, Dataset};

/// Line terminator to use for a line relabel adds: the file's own.
fn file_terminator(ds: &Dataset) -> Vec<u8> {
    ds.raw
        .records
        .iter()
        .map(|r| &ds.raw.bytes[r.terminator.clone()])
        .find(|t| !t.is_empty())
        .map(<[u8]>::to_vec)
        .unwrap_or_else(|| b"\n".to_vec())
}

/// `text` written as the cell it replaces was: quoted when that one was
/// (R's `write.csv` quotes every string), else only when it must be.
fn in_style_of(old: &[u8], text: &str, delimiter: u8) -> String {
    let quoted = old
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t'))
        .is_some_and(|&b| b == b'"');
    if quoted {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        quote_if_needed(text, delimiter)
    }
}

/// Rebuilds one record from its fields, replacing or leaving out some and
/// appending `extra` (already quoted) fields.
fn rebuild(
    content: &[u8],
    delimiter: u8,
    replace: &HashMap<usize, String>,
    remove: &[bool],
    extra: Option<&str>,
) -> Vec<u8> {
    let mut ranges: Vec<Range<usize>> = Vec::new();
    split_fields(content, delimiter, &mut ranges);
    let mut out = Vec::with_capacity(content.len() + 16);
    let mut first = true;
    for (f, r) in ranges.iter().enumerate() {
        if remove.get(f).copied().unwrap_or(false) {
            continue;
        }
        if !first {
            out.push(delimiter);
        }
        first = false;
        match replace.get(&f) {
            Some(text) => {
                out.extend_from_slice(in_style_of(&content[r.clone()], text, delimiter).as_bytes())
            }
            None => out.extend_from_slice(&content[r.clone()]),
        }
    }
    if let Some(e) = extra {
        out.push(delimiter);
        out.extend_from_slice(quote_if_needed(e, delimiter).as_bytes());
    }
    out
}

/// The input's bytes with `edits` applied (per sample: a new label, or the
/// sample left out); with `flag_column`, dropped samples stay, marked
/// `drop` in a column (or, transposed, a row) of that name. In the input's
/// text encoding.
pub fn rewrite(ds: &Dataset, edits: &[(usize, CellEdit)], flag_column: Option<&str>) -> Vec<u8> {
    let utf8 = if ds.layout.transpose {
        rewrite_columns(ds, edits, flag_column)
    } else {
        rewrite_rows(ds, edits, flag_column)
    };
    super::encoding::from_utf8(utf8, ds.raw.encoding)
}

fn rewrite_rows(ds: &Dataset, edits: &[(usize, CellEdit)], flag: Option<&str>) -> Vec<u8> {
    let bytes = &ds.raw.bytes;
    let delimiter = ds.raw.delimiter;
    // Data row (record index - 1) -> edit.
    let by_row: HashMap<usize, &CellEdit> = edits.iter().map(|(s, e)| (ds.rows[*s], e)).collect();
    let mut out = Vec::with_capacity(bytes.len() + 64);
    // A worksheet's rows above its header (a title) are blank lines in the
    // CSV that stands for it, kept there so that line numbers are the
    // sheet's rows; the cleaned CSV starts at the header.
    let mut pos = match (ds.raw.format, ds.raw.records.first()) {
        (super::SourceFormat::Spreadsheet, Some(header)) => header.content.start,
        _ => 0,
    };
    let none = HashMap::new();
    for (r, rec) in ds.raw.records.iter().enumerate() {
        out.extend_from_slice(&bytes[pos..rec.content.start]);
        pos = rec.terminator.end;
        let content = &bytes[rec.content.clone()];
        let edit = if r == 0 {
            None
        } else {
            by_row.get(&(r - 1)).copied()
        };
        match (r, edit, flag) {
            (0, _, Some(name)) => out.extend(rebuild(content, delimiter, &none, &[], Some(name))),
            (_, Some(CellEdit::Drop), None) => continue,
            (_, Some(CellEdit::Drop), Some(_)) => {
                out.extend(rebuild(content, delimiter, &none, &[], Some("drop")));
            }
            (_, Some(CellEdit::Relabel(label)), f) => {
                let replace = HashMap::from([(ds.layout.label_field, label.clone())]);
                out.extend(rebuild(content, delimiter, &replace, &[], f.map(|_| "")));
            }
            (_, None, Some(_)) => out.extend(rebuild(content, delimiter, &none, &[], Some(""))),
            (_, None, None) => out.extend_from_slice(content),
        }
        out.extend_from_slice(&bytes[rec.terminator.clone()]);
    }
    out.extend_from_slice(&bytes[pos..]);
    out
}

fn rewrite_columns(ds: &Dataset, edits: &[(usize, CellEdit)], flag: Option<&str>) -> Vec<u8> {
    let bytes = &ds.raw.bytes;
    let delimiter = ds.raw.delimiter;
    // Sample column j (0-based among data columns) is field j + 1.
    let mut remove = vec![false; ds.layout.n_fields];
    let mut relabel: HashMap<usize, String> = HashMap::new();
    let mut dropped_fields = Vec::new();
    for (s, e) in edits {
        let field = ds.rows[*s] + 1;
        match e {
            CellEdit::Drop if flag.is_none() => remove[field] = true,
            CellEdit::Drop => dropped_fields.push(field),
            CellEdit::Relabel(l) => {
                relabel.insert(field, l.clone());
            }
        }
    }
    let touches_all = remove.iter().any(|r| *r);
    let none = HashMap::new();
    let mut out = Vec::with_capacity(bytes.len() + 64);
    let mut pos = 0;
    for (r, rec) in ds.raw.records.iter().enumerate() {
        out.extend_from_slice(&bytes[pos..rec.content.start]);
        pos = rec.terminator.end;
        let content = &bytes[rec.content.clone()];
        let is_label_row = r == ds.layout.label_field;
        if is_label_row && !relabel.is_empty() {
            out.extend(rebuild(content, delimiter, &relabel, &remove, None));
        } else if touches_all {
            out.extend(rebuild(content, delimiter, &none, &remove, None));
        } else {
            out.extend_from_slice(content);
        }
        out.extend_from_slice(&bytes[rec.terminator.clone()]);
    }
    out.extend_from_slice(&bytes[pos..]);
    if let Some(name) = flag {
        let terminator = file_terminator(ds);
        if !out.is_empty() && !out.ends_with(b"\n") {
            out.extend_from_slice(&terminator);
        }
        let mut row = quote_if_needed(name, delimiter).into_bytes();
        for field in 1..ds.layout.n_fields {
            row.push(delimiter);
            if dropped_fields.contains(&field) {
                row.extend_from_slice(b"drop");
            }
        }
        out.extend(row);
        out.extend_from_slice(&terminator);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
