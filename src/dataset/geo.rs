//! GEO files read directly (DESIGN §4), recognised by content: a GEO
//! DataSet SOFT file (`GDSnnn.soft`), a series matrix
//! (`GSEnnn_series_matrix.txt`) and a family SOFT file
//! (`GSEnnn_family.soft`: series, platform and every sample's table in one
//! file). Samples (GSM accessions) become rows and probes features, named
//! by their probe ids; gene symbols, from the platform table (a GDS's
//! `IDENTIFIER` column, a family file's platform section, or `--platform`),
//! are shown beside them and never change the matrix. The label comes from
//! a GDS subset type, a sample characteristic (`tissue: tumor`) or any
//! `!Sample_` field, cut by `--label-pattern` or several joined with `+`.
//! A single sample's SOFT file (GSM) or a platform's (GPL, `.annot`) holds
//! nothing to rank and is refused, saying what it is and what to open.
//!
//! The matrix is never rewritten: the dataset's raw table is a labels sheet
//! (`id,label,<label field>`), which is what an export writes.

mod fields;
#[cfg(test)]
mod fuzz;
mod platform;
mod series;
mod soft;
mod stream;
mod table;

pub use fields::LabelField;
pub use platform::GeneSymbols;

use std::path::Path;

use super::cells::RawColumn;
use super::glob::Pattern;
use super::grid::{Grid, Labels};
use super::read::{err, quote_if_needed};
use super::shown::as_arg;
use super::{DataError, LoadOptions};
use fields::Field;

/// The two ways GEO files begin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeoKind {
    /// Series matrix: `!Series_...`, `!Sample_...`, `!series_matrix_table_begin`.
    SeriesMatrix,
    /// SOFT: `^DATABASE`, `^DATASET`, `^SERIES`, `^PLATFORM`, `^SAMPLE` or
    /// `^Annotation` sections; which file it is, its sections say.
    Soft,
}

/// The SOFT section names a file may begin with.
const SECTIONS: [&str; 6] = [
    "DATABASE",
    "DATASET",
    "SERIES",
    "PLATFORM",
    "SAMPLE",
    "ANNOTATION",
];

/// Recognises a GEO file by its first non-blank line.
pub fn sniff(bytes: &[u8]) -> Option<GeoKind> {
    let head = &bytes[..bytes.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())?
        .trim_start_matches('\u{feff}');
    if first.starts_with("!Series_") {
        return Some(GeoKind::SeriesMatrix);
    }
    let section = section_name(first)?;
    SECTIONS
        .iter()
        .any(|s| s.eq_ignore_ascii_case(section))
        .then_some(GeoKind::Soft)
}

/// `SAMPLE` of `^SAMPLE = GSM1`.
fn section_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('^')?;
    Some(rest.split(['=', ' ', '\t']).next().unwrap_or(rest).trim())
}

/// What a GEO file holds, whichever its layout.
#[derive(Debug, Default)]
struct Parsed {
    /// What the file is, for messages: "the series matrix of GSE285754".
    what: String,
    samples: Vec<String>,
    fields: Vec<Field>,
    /// One column per probe (named by its id) and its values, column after
    /// column, `samples.len()` each.
    features: Vec<RawColumn>,
    values: Vec<f64>,
    symbols: Option<GeneSymbols>,
    notes: Vec<String>,
}

/// A GEO file read as a table of samples.
pub struct GeoTable {
    pub grid: Grid,
    /// The labels sheet that stands for the file (the dataset's raw bytes).
    pub sheet: Vec<u8>,
    /// Gene symbols of the file's own platform table, if it has one.
    pub symbols: Option<GeneSymbols>,
    /// What the reader did that the curator should know.
    pub notes: Vec<String>,
}

/// Numbered non-blank lines (1-based line, text without `\r`).
fn numbered(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect()
}

/// Options that have no meaning for a GEO file are refused, not ignored.
fn check_options(path: &Path, opts: &LoadOptions) -> Result<(), DataError> {
    let refused = if opts.transpose {
        Some((
            "--transpose",
            "a GEO file is read with its samples as rows already",
        ))
    } else if opts.delimiter.is_some_and(|d| d != b'\t') {
        Some(("--delimiter", "a GEO file's tables are tab-separated"))
    } else {
        None
    };
    match refused {
        Some((option, why)) => Err(err(
            path,
            0,
            0,
            format!("{option} does not apply here: {why}"),
            &format!("leave out {option}"),
        )),
        None => Ok(()),
    }
}

/// `--ignore` over probes: each pattern, whether it matched one yet, and
/// the `--platform` symbols it may match besides the probe ids.
pub(super) struct Ignore<'a> {
    patterns: Vec<(Pattern, bool)>,
    platform: Option<&'a GeneSymbols>,
}

impl<'a> Ignore<'a> {
    fn new(opts: &LoadOptions, platform: Option<&'a GeneSymbols>) -> Self {
        Self {
            patterns: super::glob::patterns(&opts.ignore)
                .into_iter()
                .map(|p| (p, false))
                .collect(),
            platform,
        }
    }

    /// Whether `--ignore` leaves out this probe (by its id, or its gene
    /// symbol: `--platform`'s, else `own`, the file's).
    pub fn drops(&mut self, probe: &str, own: Option<&str>) -> bool {
        if self.patterns.is_empty() {
            return false;
        }
        let symbol = self.platform.and_then(|s| s.get(probe)).or(own);
        let mut hit = false;
        for (p, used) in &mut self.patterns {
            if p.matches(probe) || symbol.is_some_and(|s| p.matches(s)) {
                *used = true;
                hit = true;
            }
        }
        hit
    }
}

fn parse(
    path: &Path,
    lines: &[(usize, &str)],
    kind: GeoKind,
    ignore: &mut Ignore<'_>,
    with_table: bool,
) -> Result<Parsed, DataError> {
    match kind {
        GeoKind::SeriesMatrix => series::parse(path, lines, ignore, with_table),
        GeoKind::Soft => soft::parse(path, lines, ignore, with_table),
    }
}

/// A GEO file as a grid of samples, plus the labels sheet that stands for
/// it as the dataset's raw bytes.
/// `platform`: the symbols `--platform` gave, which `--ignore` may name.
pub fn grid(
    path: &Path,
    bytes: &[u8],
    kind: GeoKind,
    opts: &LoadOptions,
    platform: Option<&GeneSymbols>,
) -> Result<GeoTable, DataError> {
    check_options(path, opts)?;
    let text = String::from_utf8_lossy(bytes);
    let lines = numbered(&text);
    let mut ignore = Ignore::new(opts, platform);
    let parsed = parse(path, &lines, kind, &mut ignore, true)?;
    assemble(path, parsed, &ignore, opts)
}

/// [`grid`] of a series matrix read from `input` (decompressed text of
/// `size` bytes, when known) as it is decompressed, never whole: `None`
/// when `input` is not a series matrix that reads as a stream exactly as
/// it reads whole (see [`stream`]); the caller then reads it whole.
pub fn streamed_grid(
    path: &Path,
    input: &mut dyn std::io::BufRead,
    size: Option<u64>,
    opts: &LoadOptions,
    platform: Option<&GeneSymbols>,
) -> Result<Option<GeoTable>, DataError> {
    if check_options(path, opts).is_err() {
        return Ok(None);
    }
    let mut ignore = Ignore::new(opts, platform);
    match stream::series(path, input, size, &mut ignore) {
        Some(parsed) => assemble(path, parsed, &ignore, opts).map(Some),
        None => Ok(None),
    }
}

/// The grid and labels sheet of a file parsed, once every `--ignore`
/// pattern is known to have matched a probe.
fn assemble(
    path: &Path,
    parsed: Parsed,
    ignore: &Ignore<'_>,
    opts: &LoadOptions,
) -> Result<GeoTable, DataError> {
    if let Some((unused, _)) = ignore.patterns.iter().find(|(_, used)| !used) {
        return Err(err(
            path,
            0,
            0,
            format!(
                "no probe of {} is named or matches --ignore {}",
                parsed.what,
                as_arg(unused.text())
            ),
            "--ignore takes probe ids, gene symbols or globs of them (AFFX-*)",
        ));
    }
    let shape = format!(
        "{} ({} samples x {} probes)",
        parsed.what,
        parsed.samples.len(),
        parsed.features.len()
    );
    let chosen = fields::choose_labels(path, &shape, &parsed.fields, &parsed.samples, opts)?;
    let (ids, id_name) = fields::choose_ids(path, &parsed.fields, &parsed.samples, opts)?;
    let mut sheet = format!(
        "{},label,{}\n",
        quote_if_needed(&id_name, b','),
        quote_if_needed(&chosen.name, b',')
    );
    for ((id, label), source) in ids.iter().zip(&chosen.labels).zip(&chosen.sources) {
        let (id, label, source) = (
            quote_if_needed(id, b','),
            quote_if_needed(label, b','),
            quote_if_needed(source, b','),
        );
        sheet.push_str(&format!("{id},{label},{source}\n"));
    }
    let line = chosen.line;
    let grid = Grid {
        values: parsed.values,
        features: parsed.features,
        labels: Labels::from_texts(chosen.labels, |_| (line, 0)),
        ids: Some(ids),
        label_name: chosen.name,
        label_field: 1,
        id_name: Some(id_name),
        n_fields: 3,
        geo: true,
    };
    Ok(GeoTable {
        grid,
        sheet: sheet.into_bytes(),
        symbols: parsed.symbols,
        notes: parsed.notes,
    })
}

/// The fields of a GEO file that could hold its labels, each with its
/// values and their counts (for a picker), without reading its table.
pub fn label_fields(path: &Path, bytes: &[u8]) -> Result<Vec<LabelField>, DataError> {
    let kind = sniff(bytes).ok_or_else(|| {
        err(
            path,
            0,
            0,
            "this is not a GEO file".into(),
            "name the label column with --label",
        )
    })?;
    let text = String::from_utf8_lossy(bytes);
    let lines = numbered(&text);
    let mut ignore = Ignore {
        patterns: Vec::new(),
        platform: None,
    };
    let parsed = parse(path, &lines, kind, &mut ignore, false)?;
    Ok(fields::label_fields(&parsed.fields))
}

/// `--platform FILE`: the gene symbols of a platform's table.
pub fn platform_symbols(path: &Path, bytes: &[u8]) -> Result<GeneSymbols, DataError> {
    let text = String::from_utf8_lossy(bytes);
    platform::from_file(path, &numbered(&text))
}

/// The file name of a GEO address (`ftp://.../GSE1_RAW.tar` -> `GSE1_RAW.tar`).
fn file_name(address: &str) -> &str {
    address.rsplit('/').next().unwrap_or(address)
}

/// The text after the first tab or ` = ` of a header line, unquoted.
fn header_value(line: &str) -> &str {
    let value = match line.split_once('\t') {
        Some((_, v)) => v,
        None => line.split_once('=').map_or("", |(_, v)| v),
    };
    table::unquote(value)
}
