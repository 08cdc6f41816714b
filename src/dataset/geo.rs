//! GEO files read directly (DESIGN §4): a GEO DataSet SOFT file (`GDSnnn.soft`)
//! or a series matrix (`GSEnnn_series_matrix.txt`), recognised by content.
//! Samples (GSM accessions) become rows, probes become features (named by
//! the `IDENTIFIER` gene column when there is one), and the label comes from
//! a GDS subset type, a `!Sample_characteristics_ch1` key (`tissue: tumor`)
//! or any `!Sample_...` field.
//!
//! The matrix is never rewritten: the dataset's raw table is a labels sheet
//! (`id,label,<label field>`), which is what an export writes.

use std::collections::HashMap;
use std::path::Path;

use super::cells::RawColumn;
use super::grid::{Grid, Labels};
use super::read::{err, quote_if_needed};
use super::{DataError, LoadOptions};

/// The two GEO layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeoKind {
    /// GEO DataSet SOFT: `^DATASET`, `^SUBSET` blocks, `!dataset_table_begin`.
    DataSet,
    /// Series matrix: `!Series_...`, `!Sample_...`, `!series_matrix_table_begin`.
    SeriesMatrix,
}

/// Recognises a GEO file by its first non-blank line.
pub fn sniff(bytes: &[u8]) -> Option<GeoKind> {
    let head = &bytes[..bytes.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())?
        .trim_start_matches('\u{feff}');
    if first.starts_with("^DATABASE") || first.starts_with("^DATASET") {
        Some(GeoKind::DataSet)
    } else if first.starts_with("!Series_") {
        Some(GeoKind::SeriesMatrix)
    } else {
        None
    }
}

/// A candidate label field: its name, each sample's value (None where the
/// field says nothing about it) and the 1-based line it came from.
#[derive(Debug)]
struct Field {
    name: String,
    values: Vec<Option<String>>,
    line: usize,
}

/// What the header and the table of a GEO file hold.
#[derive(Debug)]
struct Parsed {
    samples: Vec<String>,
    fields: Vec<Field>,
    features: Vec<RawColumn>,
}

fn unquote(s: &str) -> String {
    let t = s.trim();
    t.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(t)
        .to_string()
}

/// The table between `begin` and `end`: sample columns after `skip` leading
/// columns (ID_REF, and IDENTIFIER when `named`). Returns sample ids and one
/// column per probe.
fn read_table(
    path: &Path,
    lines: &[(usize, &str)],
    named: bool,
) -> Result<(Vec<String>, Vec<RawColumn>), DataError> {
    let Some(((header_line, header), rows)) = lines.split_first() else {
        return Err(err(
            path,
            0,
            0,
            "the data table is empty".into(),
            "check that the file is complete",
        ));
    };
    let header: Vec<String> = header.split('\t').map(unquote).collect();
    let skip = if named && header.get(1).is_some_and(|h| h == "IDENTIFIER") {
        2
    } else {
        1
    };
    if header.len() <= skip {
        return Err(err(
            path,
            *header_line,
            0,
            "the data table has no sample columns".into(),
            "check that the file is complete",
        ));
    }
    let samples = header[skip..].to_vec();
    let names: Vec<String> = rows
        .iter()
        .map(|(_, l)| {
            let mut cells = l.split('\t');
            let id = unquote(cells.next().unwrap_or_default());
            if skip == 2 {
                unquote(cells.next().unwrap_or_default())
            } else {
                id
            }
        })
        .collect();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for n in &names {
        *seen.entry(n.as_str()).or_default() += 1;
    }
    let mut features = Vec::with_capacity(rows.len());
    for ((line, row), name) in rows.iter().zip(&names) {
        let cells: Vec<&str> = row.split('\t').collect();
        if cells.len() != header.len() {
            return Err(err(
                path,
                *line,
                0,
                format!(
                    "this table row has {} fields but the table header has {}",
                    cells.len(),
                    header.len()
                ),
                "check that the file is complete and tab-separated",
            ));
        }
        let probe = unquote(cells[0]);
        let name = if seen[name.as_str()] > 1 || name.is_empty() {
            format!("{name} ({probe})")
        } else {
            name.clone()
        };
        let mut col = RawColumn::new(name, false, samples.len());
        for (j, cell) in cells[skip..].iter().enumerate() {
            let text = unquote(cell);
            let text = if text.eq_ignore_ascii_case("null") {
                ""
            } else {
                text.as_str()
            };
            col.push(text, *line, j + skip + 1);
        }
        features.push(col);
    }
    Ok((samples, features))
}

/// Numbered non-blank lines (1-based line, text).
type Lines<'a> = [(usize, &'a str)];

/// The lines strictly between the table markers, and the header lines before.
fn split_at_table<'a>(
    path: &Path,
    lines: &'a Lines<'a>,
    begin: &str,
    end: &str,
) -> Result<(&'a Lines<'a>, &'a Lines<'a>), DataError> {
    let start = lines
        .iter()
        .position(|(_, l)| l.trim().eq_ignore_ascii_case(begin))
        .ok_or_else(|| {
            err(
                path,
                0,
                0,
                format!("the GEO file has no {begin} line"),
                "check that the file is complete",
            )
        })?;
    let stop = lines[start..]
        .iter()
        .position(|(_, l)| l.trim().eq_ignore_ascii_case(end))
        .map_or(lines.len(), |p| start + p);
    Ok((&lines[..start], &lines[start + 1..stop]))
}

fn parse_dataset(path: &Path, lines: &[(usize, &str)]) -> Result<Parsed, DataError> {
    let (head, table) = split_at_table(path, lines, "!dataset_table_begin", "!dataset_table_end")?;
    let (samples, features) = read_table(path, table, true)?;
    let index: HashMap<&str, usize> = samples
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let mut fields: Vec<Field> = Vec::new();
    let (mut description, mut ids, mut at) = (String::new(), Vec::new(), 0);
    for (line, l) in head {
        let Some((key, value)) = l.split_once('=') else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        match key {
            "^SUBSET" => (description, ids) = (String::new(), Vec::new()),
            "!subset_description" => (description, at) = (value.to_string(), *line),
            "!subset_sample_id" => ids = value.split(',').map(|s| s.trim().to_string()).collect(),
            "!subset_type" => {
                let f = match fields.iter().position(|f| f.name == value) {
                    Some(f) => f,
                    None => {
                        fields.push(Field {
                            name: value.to_string(),
                            values: vec![None; samples.len()],
                            line: at,
                        });
                        fields.len() - 1
                    }
                };
                for id in &ids {
                    if let Some(&i) = index.get(id.as_str()) {
                        fields[f].values[i] = Some(description.clone());
                    }
                }
            }
            _ => {}
        }
    }
    Ok(Parsed {
        samples,
        fields,
        features,
    })
}

fn parse_series(path: &Path, lines: &[(usize, &str)]) -> Result<Parsed, DataError> {
    let (head, table) = split_at_table(
        path,
        lines,
        "!series_matrix_table_begin",
        "!series_matrix_table_end",
    )?;
    let (samples, features) = read_table(path, table, false)?;
    let mut fields: Vec<Field> = Vec::new();
    for (line, l) in head {
        let mut cells = l.split('\t');
        let Some(key) = cells.next().and_then(|k| k.strip_prefix("!Sample_")) else {
            continue;
        };
        let values: Vec<String> = cells.map(unquote).collect();
        if values.len() != samples.len() {
            continue;
        }
        if key.starts_with("characteristics_ch") {
            // One key per line, usually; `key: value` per cell.
            let mut by_key: Vec<Field> = Vec::new();
            for (i, v) in values.iter().enumerate() {
                let Some((k, v)) = v.split_once(':') else {
                    continue;
                };
                let k = k.trim().to_string();
                let f = match by_key.iter().position(|f| f.name == k) {
                    Some(f) => f,
                    None => {
                        by_key.push(Field {
                            name: k,
                            values: vec![None; samples.len()],
                            line: *line,
                        });
                        by_key.len() - 1
                    }
                };
                by_key[f].values[i] = Some(v.trim().to_string());
            }
            fields.extend(by_key);
        } else {
            fields.push(Field {
                name: key.to_string(),
                values: values.into_iter().map(Some).collect(),
                line: *line,
            });
        }
    }
    Ok(Parsed {
        samples,
        fields,
        features,
    })
}

/// `"disease state" (RCC, normal)`: a field and its first few values.
fn describe(field: &Field) -> String {
    let mut values: Vec<&str> = Vec::new();
    for v in field.values.iter().flatten() {
        if !values.contains(&v.as_str()) {
            values.push(v);
        }
    }
    let more = if values.len() > 4 { ", ..." } else { "" };
    values.truncate(4);
    format!("\"{}\" ({}{more})", field.name, values.join(", "))
}

/// The label field: `--label` (a subset type, characteristic key or
/// `!Sample_` field, with or without the `Sample_` prefix); without it, an
/// error listing the fields that could be labels.
fn choose_field<'a>(
    path: &Path,
    fields: &'a [Field],
    opts: &LoadOptions,
) -> Result<&'a Field, DataError> {
    let n = fields.first().map_or(0, |f| f.values.len());
    let Some(name) = &opts.label else {
        // Fields that split the samples into groups: 2..n distinct values.
        let mut candidates: Vec<String> = fields
            .iter()
            .filter(|f| {
                let mut distinct: Vec<&String> = f.values.iter().flatten().collect();
                distinct.sort();
                distinct.dedup();
                distinct.len() >= 2 && distinct.len() < n
            })
            .map(describe)
            .collect();
        if candidates.is_empty() {
            candidates = fields.iter().map(describe).collect();
        }
        return Err(err(
            path,
            0,
            0,
            "a GEO file has no label column".into(),
            &format!(
                "choose the label with --label FIELD; the fields are: {}",
                candidates.join("; ")
            ),
        ));
    };
    let wanted = name.strip_prefix("!").unwrap_or(name);
    let wanted = wanted.strip_prefix("Sample_").unwrap_or(wanted);
    fields
        .iter()
        .find(|f| f.name == wanted || f.name.eq_ignore_ascii_case(wanted))
        .ok_or_else(|| {
            err(
                path,
                0,
                0,
                format!("the GEO file has no field \"{name}\" to take the labels from"),
                &format!(
                    "the fields are: {}",
                    fields.iter().map(describe).collect::<Vec<_>>().join("; ")
                ),
            )
        })
}

/// A GEO file as a grid of samples, plus the labels sheet that stands for
/// it as the dataset's raw bytes.
pub fn grid(
    path: &Path,
    bytes: &[u8],
    kind: GeoKind,
    opts: &LoadOptions,
) -> Result<(Grid, Vec<u8>), DataError> {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let parsed = match kind {
        GeoKind::DataSet => parse_dataset(path, &lines)?,
        GeoKind::SeriesMatrix => parse_series(path, &lines)?,
    };
    let field = choose_field(path, &parsed.fields, opts)?;
    if let Some(i) = field.values.iter().position(Option::is_none) {
        return Err(err(
            path,
            field.line,
            0,
            format!("sample {} has no \"{}\"", parsed.samples[i], field.name),
            "choose another field with --label, or add the sample to a subset of that type",
        ));
    }
    let labels: Vec<String> = field
        .values
        .iter()
        .map(|v| v.clone().unwrap_or_default())
        .collect();
    let mut sheet = format!("id,label,{}\n", quote_if_needed(&field.name, b','));
    for (id, label) in parsed.samples.iter().zip(&labels) {
        let (id, label) = (quote_if_needed(id, b','), quote_if_needed(label, b','));
        sheet.push_str(&format!("{id},{label},{label}\n"));
    }
    let mut features = parsed.features;
    let grid = Grid {
        values: Grid::values_of(&mut features),
        features,
        labels: Labels::from_texts(labels, |_| (field.line, 0)),
        ids: Some(parsed.samples),
        label_name: field.name.clone(),
        label_field: 1,
        id_name: Some("id".into()),
        n_fields: 3,
    };
    Ok((grid, sheet.into_bytes()))
}
