//! A series matrix (`GSEnnn_series_matrix.txt.gz`): `!Series_` lines, then
//! `!Sample_` lines with one tab-separated quoted value per sample, then
//! the table between `!series_matrix_table_begin` and its end.

use std::path::Path;

use super::super::DataError;
use super::super::read::err;
use super::super::shown::{one_line, one_line_within};
use super::fields::FieldSet;
use super::table::{self, unquote};
use super::{Ignore, Parsed, file_name, header_value};

/// The line index of a marker line (compared without case).
pub fn marker(lines: &[(usize, &str)], name: &str) -> Option<usize> {
    lines
        .iter()
        .position(|(_, l)| l.trim().eq_ignore_ascii_case(name))
}

/// The value of the first header line starting with `key`.
pub fn value_of<'a>(head: &'a [(usize, &'a str)], key: &str) -> Option<&'a str> {
    head.iter()
        .find(|(_, l)| l.split(['\t', ' ', '=']).next() == Some(key))
        .map(|(_, l)| header_value(l))
        .filter(|v| !v.is_empty())
}

/// Every value of the header lines starting with `key`.
pub fn values_of<'a>(head: &'a [(usize, &'a str)], key: &str) -> Vec<&'a str> {
    head.iter()
        .filter(|(_, l)| l.split(['\t', ' ', '=']).next() == Some(key))
        .map(|(_, l)| header_value(l))
        .filter(|v| !v.is_empty())
        .collect()
}

pub fn parse(
    path: &Path,
    lines: &[(usize, &str)],
    ignore: &mut Ignore<'_>,
    with_table: bool,
) -> Result<Parsed, DataError> {
    let begin = marker(lines, TABLE_BEGIN).ok_or_else(|| no_table(path))?;
    let end = marker(&lines[begin..], TABLE_END).map_or(lines.len(), |e| begin + e);
    let (head, rows) = (&lines[..begin], &lines[begin + 1..end]);
    let mut parsed = of_head(path, head, rows.first().map(|&(_, h)| h), rows.len())?;
    if with_table {
        let t = table::read(path, &parsed.what, rows, ignore)?;
        parsed.samples = t.samples;
        parsed.features = t.features;
        parsed.values = t.values;
    }
    Ok(parsed)
}

pub const TABLE_BEGIN: &str = "!series_matrix_table_begin";
pub const TABLE_END: &str = "!series_matrix_table_end";

pub fn no_table(path: &Path) -> DataError {
    err(
        path,
        0,
        0,
        "this series matrix has no !series_matrix_table_begin line: the file was cut short".into(),
        "download it again",
    )
}

/// What the lines before the table say (the series, its samples and their
/// fields), given the table's header line and how many lines the table
/// has, header included: a table without data rows is refused here.
pub fn of_head(
    path: &Path,
    head: &[(usize, &str)],
    header: Option<&str>,
    rows: usize,
) -> Result<Parsed, DataError> {
    let what = match value_of(head, "!Series_geo_accession") {
        Some(gse) => format!("the series matrix of {}", one_line(gse)),
        None => "this series matrix".to_string(),
    };
    let samples: Vec<String> = match header {
        Some(header) => table::header_samples(header).0,
        None => sample_row(head, "!Sample_geo_accession").unwrap_or_default(),
    };
    let fields = sample_fields(head, samples.len());
    if rows <= 1 && !samples.is_empty() {
        return Err(no_values(path, &what, head, samples.len()));
    }
    Ok(Parsed {
        what,
        samples,
        fields,
        ..Parsed::default()
    })
}

/// The quoted values of the first header line named `key`, one per sample.
fn sample_row(head: &[(usize, &str)], key: &str) -> Option<Vec<String>> {
    head.iter()
        .find(|(_, l)| l.split('\t').next() == Some(key))
        .map(|(_, l)| {
            l.split('\t')
                .skip(1)
                .map(|v| unquote(v).to_string())
                .collect()
        })
}

/// The `!Sample_` lines as fields; a line whose values are not one per
/// sample is not one.
fn sample_fields(head: &[(usize, &str)], n: usize) -> Vec<super::Field> {
    let mut set = FieldSet::new(n);
    for &(line, l) in head {
        let mut cells = l.split('\t');
        let Some(key) = cells.next().and_then(|k| k.strip_prefix("!Sample_")) else {
            continue;
        };
        let values: Vec<&str> = cells.map(unquote).collect();
        if values.len() != n {
            continue;
        }
        for (i, v) in values.into_iter().enumerate() {
            set.set_sample_key(key, line, i, v);
        }
    }
    set.finish()
}

/// A GEO file whose samples have no values (a sequencing series keeps them
/// in supplementary files): what it is, and the file to open instead.
pub fn no_values(path: &Path, what: &str, head: &[(usize, &str)], n: usize) -> DataError {
    let sequencing = values_of(head, "!Series_type")
        .iter()
        .any(|t| t.to_ascii_lowercase().contains("sequencing"));
    let why = if sequencing {
        "sequencing: the values are in supplementary files"
    } else {
        "its values are not in this file"
    };
    // A file name from the file's text: escaped and bounded, so the line
    // stays one readable line whatever the header holds.
    let hint = match processed_file(&values_of(head, "!Series_supplementary_file")) {
        Some((file, true)) => format!(
            "open {} from its GEO page instead (--transpose if genes are rows)",
            one_line_within(file, 48)
        ),
        Some((file, false)) => format!(
            "its supplementary file {} holds the values: make a table of samples from it",
            one_line_within(file, 48)
        ),
        None => "open the series' processed values from its GEO page instead".to_string(),
    };
    let holds = match n {
        0 => "no sample sections".to_string(),
        n => format!("{n} samples but no data rows"),
    };
    err(path, 0, 0, format!("{what} has {holds} ({why})"), &hint)
}

/// The supplementary file most likely to hold a table of values (a
/// counts or expression table before a raw-data archive), and whether it
/// is a table.
fn processed_file<'a>(files: &[&'a str]) -> Option<(&'a str, bool)> {
    let names: Vec<&str> = files.iter().map(|f| file_name(f)).collect();
    let tabular = |n: &&str| {
        let l = n.to_ascii_lowercase();
        [".csv", ".tsv", ".txt", ".xlsx"]
            .iter()
            .any(|e| l.ends_with(e) || l.ends_with(&format!("{e}.gz")))
    };
    let table = names
        .iter()
        .find(|n| tabular(n) && n.to_ascii_lowercase().contains("count"))
        .or_else(|| names.iter().find(|n| tabular(n)));
    match table {
        Some(t) => Some((t, true)),
        None => names.first().map(|f| (*f, false)),
    }
}
