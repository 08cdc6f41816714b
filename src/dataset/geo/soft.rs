//! SOFT files: sections opened by `^NAME = value` lines. Which file it is,
//! its sections say: a GEO DataSet (`^DATASET`: `^SUBSET`s and one table),
//! a family file (`^SERIES`, `^PLATFORM` and a `^SAMPLE` section per sample,
//! each with its own table), or one sample's or one platform's file, which
//! hold nothing to rank.

use std::collections::HashMap;
use std::path::Path;

use super::super::DataError;
use super::super::cells::RawColumn;
use super::super::read::err;
use super::super::shown::one_line;
use super::fields::FieldSet;
use super::platform::{self, GeneSymbols};
use super::series::{marker, no_values, value_of, values_of};
use super::table::{self, unquote};
use super::{Field, Ignore, Parsed, section_name};

/// One `^NAME = value` section: its kind (upper case), value and lines
/// (the `^` line excluded).
struct Section<'a> {
    kind: String,
    value: String,
    lines: &'a [(usize, &'a str)],
    /// The line of the `^` line.
    line: usize,
}

fn sections<'a>(lines: &'a [(usize, &'a str)]) -> Vec<Section<'a>> {
    let starts: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].1.starts_with('^'))
        .collect();
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let end = starts.get(k + 1).copied().unwrap_or(lines.len());
            let l = lines[s].1;
            Section {
                kind: section_name(l).unwrap_or_default().to_ascii_uppercase(),
                value: l.split_once('=').map_or("", |(_, v)| v.trim()).to_string(),
                lines: &lines[s + 1..end],
                line: lines[s].0,
            }
        })
        .collect()
}

pub fn parse(
    path: &Path,
    lines: &[(usize, &str)],
    ignore: &mut Ignore<'_>,
    with_table: bool,
) -> Result<Parsed, DataError> {
    let all = sections(lines);
    let count = |kind: &str| all.iter().filter(|s| s.kind == kind).count();
    if count("DATASET") > 0 {
        return dataset(path, &all, ignore, with_table);
    }
    let (samples, series) = (count("SAMPLE"), count("SERIES") > 0);
    if samples >= 2 || (samples == 1 && series) {
        return family(path, &all, ignore, with_table);
    }
    Err(refusal(path, &all))
}

/// Why a SOFT file with no table of several samples cannot be ranked, and
/// what to open instead.
fn refusal(path: &Path, all: &[Section<'_>]) -> DataError {
    let find = |kind: &str| all.iter().find(|s| s.kind == kind);
    if let Some(sample) = find("SAMPLE") {
        let gsm =
            one_line(value_of(sample.lines, "!Sample_geo_accession").unwrap_or(&sample.value));
        let hint = match value_of(sample.lines, "!Sample_series_id").map(one_line) {
            Some(gse) => format!(
                "open its series instead: {gse}_series_matrix.txt.gz or {gse}_family.soft.gz from GEO"
            ),
            None => "open the series matrix of its series instead".into(),
        };
        return err(
            path,
            sample.line,
            0,
            format!(
                "this is a GEO sample file ({gsm}): one sample's values, nothing to compare them with"
            ),
            &hint,
        );
    }
    if let Some(series) = find("SERIES") {
        let gse =
            one_line(value_of(series.lines, "!Series_geo_accession").unwrap_or(&series.value));
        return no_values(
            path,
            &format!("the family SOFT file of {gse}"),
            series.lines,
            0,
        );
    }
    let annotation = find("ANNOTATION");
    let platform = annotation.or_else(|| find("PLATFORM"));
    let Some(section) = platform else {
        return err(
            path,
            0,
            0,
            "this SOFT file has no dataset, series or sample section".into(),
            "open a GEO DataSet (GDSnnn.soft.gz), a series matrix or a family SOFT file",
        );
    };
    let gpl = one_line(
        value_of(section.lines, "!Annotation_platform")
            .or_else(|| value_of(section.lines, "!Platform_geo_accession"))
            .unwrap_or(&section.value),
    );
    err(
        path,
        section.line,
        0,
        format!(
            "this is a GEO platform {} ({gpl}): probe ids and gene names, no samples",
            if annotation.is_some() {
                "annotation"
            } else {
                "file"
            }
        ),
        &format!(
            "pass it with --platform to a series matrix of {gpl} to show gene symbols beside the probe ids"
        ),
    )
}

/// A GEO DataSet: `^SUBSET` sections name the samples of each group of a
/// subset type (`disease state`: `RCC`, `normal`); one table follows.
fn dataset(
    path: &Path,
    all: &[Section<'_>],
    ignore: &mut Ignore<'_>,
    with_table: bool,
) -> Result<Parsed, DataError> {
    let Some(ds) = all.iter().rev().find(|s| s.kind == "DATASET") else {
        return Err(refusal(path, all));
    };
    let what = format!("the GEO DataSet {}", one_line(&ds.value));
    let begin = marker(ds.lines, "!dataset_table_begin").ok_or_else(|| {
        err(
            path,
            0,
            0,
            format!("{what} has no !dataset_table_begin line: the file was cut short"),
            "download it again",
        )
    })?;
    let end =
        marker(&ds.lines[begin..], "!dataset_table_end").map_or(ds.lines.len(), |e| begin + e);
    let rows = &ds.lines[begin + 1..end];
    let mut parsed = Parsed {
        samples: rows
            .first()
            .map(|(_, h)| table::header_samples(h).0)
            .unwrap_or_default(),
        ..Parsed::default()
    };
    if with_table {
        let t = table::read(path, &what, rows, ignore)?;
        parsed.symbols = Some(GeneSymbols::new(
            format!("the IDENTIFIER column of {}", ds.value),
            t.identifiers,
        ))
        .filter(|s| !s.is_empty());
        parsed.samples = t.samples;
        parsed.features = t.features;
        parsed.values = t.values;
    }
    parsed.fields = subsets(all, ds.lines, &parsed.samples);
    parsed.what = what;
    Ok(parsed)
}

/// Each subset type as a field: a sample's value is the description of
/// the subset of that type that lists it. The column descriptions
/// (`#GSM18403 = Value for GSM18403: 01_NML; src: lung tissue`) give each
/// sample's title and source, as a series matrix has them.
fn subsets(all: &[Section<'_>], lines: &[(usize, &str)], samples: &[String]) -> Vec<Field> {
    let index: HashMap<&str, usize> = samples
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let mut set = FieldSet::new(samples.len());
    for s in all.iter().filter(|s| s.kind == "SUBSET") {
        let (Some(kind), Some(description)) = (
            value_of(s.lines, "!subset_type"),
            value_of(s.lines, "!subset_description"),
        ) else {
            continue;
        };
        let line = s
            .lines
            .iter()
            .find(|(_, l)| l.starts_with("!subset_description"))
            .map_or(s.line, |(n, _)| *n);
        for ids in values_of(s.lines, "!subset_sample_id") {
            for id in ids.split(',').map(str::trim) {
                if let Some(&i) = index.get(id) {
                    set.set_primary(kind, 1, line, i, description);
                }
            }
        }
    }
    for &(line, l) in lines {
        let Some((key, value)) = l.strip_prefix('#').and_then(|r| r.split_once('=')) else {
            continue;
        };
        let Some(&i) = index.get(key.trim()) else {
            continue;
        };
        let value = value.trim();
        let value = value
            .strip_prefix("Value for ")
            .and_then(|v| v.split_once(':'))
            .map_or(value, |(_, rest)| rest.trim());
        let (title, source) = value.split_once("; src:").unwrap_or((value, ""));
        set.set("title", 1, line, i, title.trim());
        if !source.trim().is_empty() {
            set.set("source", 1, line, i, source.trim());
        }
    }
    set.finish()
}

/// One `^SAMPLE` section: its accession, its `!Sample_` lines and its table.
struct Sample<'a> {
    id: String,
    section: &'a Section<'a>,
    /// The table's header and rows (empty without a table).
    table: &'a [(usize, &'a str)],
    /// The line of `!sample_table_begin`.
    table_line: usize,
}

fn sample_of<'a>(section: &'a Section<'a>) -> Sample<'a> {
    let id = value_of(section.lines, "!Sample_geo_accession")
        .unwrap_or(&section.value)
        .to_string();
    let (table, table_line) = match marker(section.lines, "!sample_table_begin") {
        Some(b) => {
            let end = marker(&section.lines[b..], "!sample_table_end")
                .map_or(section.lines.len(), |e| b + e);
            (&section.lines[b + 1..end], section.lines[b].0)
        }
        None => (&section.lines[..0], section.line),
    };
    Sample {
        id,
        section,
        table,
        table_line,
    }
}

/// A family file read as its series matrix would be: a row per sample
/// (its table's VALUE column), the labels from the samples' fields, the
/// gene symbols from the platform section.
fn family(
    path: &Path,
    all: &[Section<'_>],
    ignore: &mut Ignore<'_>,
    with_table: bool,
) -> Result<Parsed, DataError> {
    let series = all.iter().find(|s| s.kind == "SERIES");
    let what = match series {
        Some(s) => format!(
            "the family SOFT file of {}",
            value_of(s.lines, "!Series_geo_accession").unwrap_or(&s.value)
        ),
        None => "this family SOFT file".to_string(),
    };
    let symbols = all
        .iter()
        .filter(|s| s.kind == "PLATFORM")
        .find_map(|p| {
            let gpl = value_of(p.lines, "!Platform_geo_accession").unwrap_or(&p.value);
            platform::from_table(
                format!("the platform section ({gpl})"),
                platform::platform_table(p.lines)?,
            )
        })
        .filter(|s| !s.is_empty());
    let samples: Vec<Sample<'_>> = all
        .iter()
        .filter(|s| s.kind == "SAMPLE")
        .map(sample_of)
        .collect();
    let mut set = FieldSet::new(samples.len());
    for (i, s) in samples.iter().enumerate() {
        for &(line, l) in s.section.lines {
            let Some((key, value)) = l.split_once('=') else {
                continue;
            };
            if let Some(key) = key.trim().strip_prefix("!Sample_") {
                set.set_sample_key(key, line, i, value.trim());
            }
        }
    }
    let mut parsed = Parsed {
        samples: samples.iter().map(|s| s.id.clone()).collect(),
        fields: set.finish(),
        ..Parsed::default()
    };
    if samples.iter().all(|s| s.table.len() <= 1) {
        let head = series.map_or(&[][..], |s| s.lines);
        return Err(no_values(path, &what, head, samples.len()));
    }
    if with_table {
        let own = symbols.as_ref();
        let table = value_tables(path, &what, &samples, &mut |probe: &str| {
            ignore.drops(probe, own.and_then(|s| s.get(probe)))
        })?;
        parsed.features = table.features;
        parsed.values = table.values;
        parsed.notes.extend(table.note);
    }
    parsed.symbols = symbols;
    parsed.what = what;
    Ok(parsed)
}

/// Every sample's VALUE column as the rows of one column-major block: a
/// probe per column, in order of first appearance; a probe a sample's
/// table lacks is a missing value there.
struct ValueTables {
    features: Vec<RawColumn>,
    values: Vec<f64>,
    note: Option<String>,
}

fn value_tables(
    path: &Path,
    what: &str,
    samples: &[Sample<'_>],
    dropped: &mut dyn FnMut(&str) -> bool,
) -> Result<ValueTables, DataError> {
    let n = samples.len();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut names: Vec<&str> = Vec::new();
    let mut columns: Vec<usize> = Vec::with_capacity(n);
    let mut others: Vec<String> = Vec::new();
    for s in samples {
        let Some(((line, header), rows)) = s.table.split_first() else {
            columns.push(0);
            continue;
        };
        let header: Vec<&str> = header.split('\t').map(unquote).collect();
        let Some(c) = header.iter().position(|h| h.eq_ignore_ascii_case("VALUE")) else {
            return Err(err(
                path,
                *line,
                0,
                format!("the table of sample {} in {what} has no VALUE column", s.id),
                "check that the file is complete (download it again)",
            ));
        };
        columns.push(c);
        for h in header
            .iter()
            .skip(1)
            .filter(|h| !h.eq_ignore_ascii_case("VALUE"))
        {
            if !others.iter().any(|o| o == h) {
                others.push(h.to_string());
            }
        }
        for (_, row) in rows {
            let probe = unquote(row.split('\t').next().unwrap_or_default());
            if !index.contains_key(probe) && !dropped(probe) {
                index.insert(probe, names.len());
                names.push(probe);
            }
        }
    }
    let p = names.len();
    let mut values = vec![f64::NAN; p * n];
    let mut written = vec![false; p * n];
    let mut features: Vec<RawColumn> = names
        .iter()
        .map(|name| RawColumn::new(name.to_string(), false, 0))
        .collect();
    for (i, (s, &c)) in samples.iter().zip(&columns).enumerate() {
        for &(line, row) in s.table.iter().skip(1) {
            let mut cells = row.split('\t');
            let probe = unquote(cells.next().unwrap_or_default());
            let Some(&j) = index.get(probe) else { continue };
            let Some(cell) = cells.nth(c.saturating_sub(1)) else {
                return Err(err(
                    path,
                    line,
                    0,
                    format!("this row of sample {}'s table has no VALUE cell", s.id),
                    "check that the file is complete (download it again)",
                ));
            };
            let text = unquote(cell);
            let text = if text.eq_ignore_ascii_case("null") {
                ""
            } else {
                text
            };
            values[j * n + i] = features[j].note(text, line, c + 1);
            written[j * n + i] = true;
        }
    }
    for (j, col) in features.iter_mut().enumerate() {
        for (i, s) in samples.iter().enumerate() {
            if !written[j * n + i] {
                col.note("", s.table_line, 0);
            }
        }
    }
    let note = (!others.is_empty()).then(|| {
        format!(
            "each sample's VALUE column is read (GEO's final value for the sample); its table's other columns ({}) are left out",
            others.join(", ")
        )
    });
    Ok(ValueTables {
        features,
        values,
        note,
    })
}
