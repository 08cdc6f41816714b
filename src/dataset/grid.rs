//! Records to a sample-by-column grid, in either orientation: the usual
//! samples-as-rows table, or a genes x samples sheet (`--transpose`).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::LoadOptions;
use super::cells::RawColumn;
use super::decimal_comma;
use super::glob;
use super::read::{err, field_in, field_lines, field_text, split_fields};

use super::shown::{name_list, shown};
use super::{DataError, Progress, RecordSpan};
use rayon::prelude::*;

pub(super) const LABEL_NAMES: [&str; 4] = ["label", "class", "target", "y"];
const ID_NAMES: [&str; 3] = ["id", "sample", "name"];

/// The columns of a table, one entry per sample, before any policy.
#[derive(Debug)]
pub struct Grid {
    /// Per column its name and first problem cells (and, under onehot, the
    /// texts of a string column); the values are in `values`.
    pub features: Vec<RawColumn>,
    /// Every feature value, column after column (`labels.codes.len()` rows
    /// each): NaN where missing or not a number.
    pub values: Vec<f64>,
    pub labels: Labels,
    pub ids: Option<Vec<String>>,
    pub label_name: String,
    /// Field index of the label column, or record index of the label row.
    pub label_field: usize,
    pub id_name: Option<String>,
    pub n_fields: usize,
    /// Read from a GEO file: the label is a sample field, the features probes.
    pub geo: bool,
}

impl Grid {
    /// Moves the values of columns read one by one (`RawColumn::push`)
    /// into one column-major block.
    pub fn values_of(features: &mut [RawColumn]) -> Vec<f64> {
        let mut values = Vec::with_capacity(features.iter().map(|c| c.values.len()).sum());
        for col in features {
            values.append(&mut col.values);
            col.values = Vec::new();
        }
        values
    }
}

/// The label texts of the samples, each distinct text stored once.
#[derive(Debug, Default)]
pub struct Labels {
    /// Distinct texts in order of first appearance.
    pub levels: Vec<String>,
    /// Every sample's index into `levels`.
    pub codes: Vec<usize>,
    /// (line, column) of the first label that is empty or blank.
    pub first_empty: Option<(usize, usize)>,
}

impl Labels {
    /// `at(i)`: where the label of sample i is.
    pub fn from_texts(texts: Vec<String>, at: impl Fn(usize) -> (usize, usize)) -> Labels {
        let mut labels = Labels::default();
        let mut index = HashMap::new();
        for (i, t) in texts.into_iter().enumerate() {
            labels.push(&mut index, &t, || at(i));
        }
        labels
    }

    fn push(
        &mut self,
        index: &mut HashMap<String, usize>,
        text: &str,
        at: impl FnOnce() -> (usize, usize),
    ) {
        let code = match index.get(text) {
            Some(&c) => c,
            None => {
                if text.trim().is_empty() && self.first_empty.is_none() {
                    self.first_empty = Some(at());
                }
                index.insert(text.to_string(), self.levels.len());
                self.levels.push(text.to_string());
                self.levels.len() - 1
            }
        };
        self.codes.push(code);
    }

    /// Appends the labels of the samples after these.
    fn append(&mut self, index: &mut HashMap<String, usize>, later: Labels) {
        let map: Vec<usize> = later
            .levels
            .into_iter()
            .map(|t| {
                let next = self.levels.len();
                *index.entry(t).or_insert_with_key(|t| {
                    self.levels.push(t.clone());
                    next
                })
            })
            .collect();
        self.codes.extend(later.codes.iter().map(|&c| map[c]));
        if self.first_empty.is_none() {
            self.first_empty = later.first_empty;
        }
    }
}

/// The field named `name`; `None` when there is none, an error naming both
/// when the header repeats it (which one `option` meant is a guess).
fn the_one(
    path: &Path,
    option: &str,
    header: &[String],
    name: &str,
) -> Option<Result<usize, DataError>> {
    let mut named = (0..header.len()).filter(|&i| header[i] == name);
    let first = named.next()?;
    Some(match named.next() {
        None => Ok(first),
        Some(second) => Err(err(
            path,
            1,
            second + 1,
            format!(
                "columns {} and {} are both named {}",
                first + 1,
                second + 1,
                shown(name)
            ),
            &format!("rename one in the header so that {option} names a single column"),
        )),
    })
}

/// A column name that says "identifier" as its last word: `patient_id`,
/// `Sample ID`, `sample-id`, `SampleID`, `sampleId`. Such a column holds
/// codes, not measurements: read as a feature, numeric ids put the file's
/// order into the model (a file sorted by class makes them a perfect
/// predictor, hiding every wrong label). Only an `ID`/`Id` that follows a
/// lowercase letter counts without a separator, so `LIPID` and `ACID` stay
/// features.
pub fn named_like_an_id(name: &str) -> bool {
    let t = name.trim();
    let lower = t.to_ascii_lowercase();
    let separated = ["_id", " id", "-id", ".id"]
        .iter()
        .any(|s| lower.ends_with(s) && lower.len() > s.len());
    let camel = (t.ends_with("ID") || t.ends_with("Id"))
        && t[..t.len() - 2]
            .chars()
            .next_back()
            .is_some_and(char::is_lowercase);
    separated || camel
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
/// says where. When it is the `first` data row, the likelier cause is a
/// title or a note above the header (spreadsheets export them as lines of
/// their own), read as the header.
fn wrong_width(
    path: &Path,
    rec: &RecordSpan,
    content: &[u8],
    (got, want): (usize, usize),
    first: bool,
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
    } else if first {
        format!(
            "the header is the first line of the file: if the lines above line {} are a title or notes, delete them; else check for a missing or extra delimiter",
            rec.line
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
    progress: Option<Progress<'_>>,
) -> Result<Grid, DataError> {
    let chunks = default_chunks(records.len());
    samples_as_rows_in(path, bytes, records, delimiter, opts, chunks, progress)
}

/// [`samples_as_rows`] read in `n_chunks` chunks of records.
pub fn samples_as_rows_in(
    path: &Path,
    bytes: &[u8],
    records: &[RecordSpan],
    delimiter: u8,
    opts: &LoadOptions,
    n_chunks: usize,
    progress: Option<Progress<'_>>,
) -> Result<Grid, DataError> {
    // A table without a data row is refused before anything is built per
    // field: a one-line file of 25 million fields took gigabytes to say so.
    if records.len() < 2 {
        return Err(header_only(path, bytes, &records[0], delimiter));
    }
    let mut scratch = Vec::new();
    let header: Vec<String> = fields_of(bytes, &records[0], delimiter, &mut scratch)
        .into_iter()
        .map(|(t, _)| t.trim().to_string())
        .collect();
    let n_fields = header.len();
    no_numbers_for_names(path, &header, header.len(), records[0].line)?;
    let Columns {
        label_field,
        id_field,
        feature_fields,
    } = Columns::resolve(path, &header, opts)?;
    let data = &records[1..];
    let n = data.len();
    let p = feature_fields.len();
    let layout = RowLayout {
        path,
        bytes,
        delimiter,
        opts,
        n_fields,
        label_field,
        id_field,
        feature_fields: &feature_fields,
        label_cell: format!("the label in column {}", shown(&header[label_field])),
        id_cell: format!(
            "the id in column {}",
            shown(id_field.map_or("", |f| header[f].as_str()))
        ),
        first_line: data.first().map(|r| r.line),
        progress: progress.map(|report| (report, AtomicUsize::new(0), n)),
    };
    let (mut values, parts) = layout.read_in_chunks(data, p, n_chunks);
    let mut features: Vec<RawColumn> = feature_fields
        .iter()
        .map(|&f| RawColumn::new(header[f].clone(), false, 0))
        .collect();
    let mut labels = Labels {
        codes: Vec::with_capacity(n),
        ..Labels::default()
    };
    let mut index = HashMap::new();
    let mut ids = id_field.map(|_| Vec::with_capacity(n));
    // Chunks in file order, so the first problem cells are the earliest.
    for part in parts {
        let part = part?;
        for (col, later) in features.iter_mut().zip(part.columns) {
            col.merge_later(later);
        }
        labels.append(&mut index, part.labels);
        if let (Some(ids), Some(mut more)) = (ids.as_mut(), part.ids) {
            ids.append(&mut more);
        }
    }
    if decimal_comma::possible(delimiter) {
        reread_decimal_commas(
            bytes,
            data,
            delimiter,
            &feature_fields,
            &mut features,
            &mut values,
        );
    }
    // String columns become 0/1 columns, which needs every cell's text; but
    // most columns are numbers, and a String per cell would more than
    // double the memory of loading them. So only a column that turned out
    // to hold a string is read again for its texts. Without an id column,
    // a string column may also hold the sample names (`build`).
    if opts.categorical == super::CategoricalPolicy::Onehot || id_field.is_none() {
        for (col, &f) in features.iter_mut().zip(&feature_fields) {
            if col.first_text.is_some() {
                col.texts = Some(column_texts(bytes, data, delimiter, f));
            }
        }
    }
    Ok(Grid {
        features,
        values,
        labels,
        ids,
        label_name: header[label_field].clone(),
        label_field,
        id_name: id_field.map(|f| header[f].clone()),
        n_fields,
        geo: false,
    })
}

/// Why a table of one line has no samples, read in constant memory: its
/// fields are walked, never gathered, and only the first few kept to name.
fn header_only(path: &Path, bytes: &[u8], rec: &RecordSpan, delimiter: u8) -> DataError {
    const SHOWN: usize = 16;
    let content = &bytes[rec.content.clone()];
    let (mut fields, mut numbers, mut first) = (0, true, Vec::new());
    let mut start = 0;
    let mut in_quotes = false;
    for i in 0..=content.len() {
        let b = content.get(i).copied();
        if b == Some(b'"') {
            in_quotes = !in_quotes;
        }
        if b.is_some() && (in_quotes || b != Some(delimiter)) {
            continue;
        }
        let text = field_text(&content[start..i]).trim().to_string();
        numbers &= matches!(
            super::cells::read_cell(&text),
            super::cells::Cell::Number(_)
        );
        if first.len() < SHOWN {
            first.push(text);
        } else if !numbers {
            // A name that is not a number: the count no longer matters.
            break;
        }
        fields += 1;
        start = i + 1;
    }
    match no_numbers_for_names(path, &first, fields, rec.line) {
        Err(e) if numbers => e,
        _ => no_samples(path),
    }
}

/// A header of numbers only is a data row: the file has none (as UCI's
/// `.data` files), and read as one its first sample would be lost and its
/// values taken for names. A header naming wavelengths keeps a label
/// column's name, so it has a word.
/// `header` holds the first names (all of them, or enough to list) of
/// `fields`.
fn no_numbers_for_names(
    path: &Path,
    header: &[String],
    fields: usize,
    line: usize,
) -> Result<(), DataError> {
    let numbers = header
        .iter()
        .all(|h| matches!(super::cells::read_cell(h), super::cells::Cell::Number(_)));
    if fields < 2 || !numbers {
        return Ok(());
    }
    let mut names = header.to_vec();
    names.resize(fields, String::new());
    Err(err(
        path,
        line,
        0,
        format!(
            "the first line, read as the header, holds only numbers ({}), so the file seems to have no header line",
            name_list(&names)
        ),
        "add a first line naming the columns (the class column named label), so that the first sample is read as one",
    ))
}

/// Which fields of a row-per-sample table hold the label, the id and the
/// features, from the header and the options.
struct Columns {
    label_field: usize,
    id_field: Option<usize>,
    feature_fields: Vec<usize>,
}

impl Columns {
    fn resolve(path: &Path, header: &[String], opts: &LoadOptions) -> Result<Self, DataError> {
        let n_fields = header.len();
        let label_field = match &opts.label {
            Some(name) => the_one(path, "--label", header, name)
                .ok_or_else(|| not_found(path, "label column", name, header))??,
            // The last column a curator sees is the last one with a name:
            // a delimiter at the end of every line (as some spreadsheets
            // write them) makes one more field, unnamed and empty.
            None => find_named(header, &LABEL_NAMES).unwrap_or_else(|| {
                header
                    .iter()
                    .rposition(|h| !h.is_empty())
                    .unwrap_or(n_fields - 1)
            }),
        };
        let id_field = match &opts.id {
            Some(name) => Some(
                the_one(path, "--id", header, name)
                    .ok_or_else(|| not_found(path, "id column", name, header))??,
            ),
            // An unnamed first column is the row index pandas' `to_csv`
            // and R's `write.csv` write: row names, not a measurement (in
            // a file sorted by class, 0..n would predict the labels).
            None => find_named(header, &ID_NAMES)
                .or_else(|| header.iter().position(|h| named_like_an_id(h)))
                .or_else(|| (n_fields > 1 && header[0].is_empty()).then_some(0))
                .filter(|&i| i != label_field),
        };
        let mut ignored = HashSet::new();
        // Every column of that name: a header that repeats a name means
        // them all, as --ignore with --transpose leaves out every row so
        // named.
        for pattern in glob::patterns(&opts.ignore) {
            let hits: Vec<usize> = (0..n_fields)
                .filter(|&i| pattern.matches(&header[i]))
                .collect();
            if hits.is_empty() && pattern.is_glob() {
                return Err(err(
                    path,
                    1,
                    0,
                    format!("no column matches --ignore {}", shown(pattern.text())),
                    &format!("the columns are: {}", name_list(header)),
                ));
            }
            if hits.is_empty() {
                return Err(not_found(path, "column to ignore", pattern.text(), header));
            }
            ignored.extend(hits);
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
        Ok(Columns {
            label_field,
            id_field,
            feature_fields,
        })
    }
}

/// How many chunks a table of `n` records is read in: a few per thread,
/// so a slow chunk does not leave a core idle, and one for a small table.
pub fn default_chunks(n: usize) -> usize {
    const MIN_RECORDS: usize = 4096;
    (n / MIN_RECORDS).clamp(1, 4 * rayon::current_num_threads())
}

/// `n` records cut into `chunks` consecutive ranges of near-equal length.
fn chunk_bounds(n: usize, chunks: usize) -> Vec<std::ops::Range<usize>> {
    let k = chunks.clamp(1, n.max(1));
    (0..k).map(|c| c * n / k..(c + 1) * n / k).collect()
}

/// What reading a samples-as-rows table needs to know about it.
struct RowLayout<'a> {
    path: &'a Path,
    bytes: &'a [u8],
    delimiter: u8,
    opts: &'a LoadOptions,
    n_fields: usize,
    label_field: usize,
    id_field: Option<usize>,
    feature_fields: &'a [usize],
    label_cell: String,
    id_cell: String,
    /// The line of the first data record.
    first_line: Option<usize>,
    /// Where to report, the records read so far by every chunk, and of how many.
    progress: Option<(Progress<'a>, AtomicUsize, usize)>,
}

/// Records a chunk reads between two reports of progress.
const REPORT_EVERY: usize = 16_384;

/// One chunk of records, read: the first problem cells of every column in
/// it, its labels and ids (its values are already in place).
struct Chunk {
    columns: Vec<RawColumn>,
    labels: Labels,
    ids: Option<Vec<String>>,
}

impl RowLayout<'_> {
    /// Every record of `data` read in `n_chunks` chunks in parallel: the
    /// values (column-major, `p` columns) and each chunk's columns, labels
    /// and ids, in file order.
    fn read_in_chunks(
        &self,
        data: &[RecordSpan],
        p: usize,
        n_chunks: usize,
    ) -> (Vec<f64>, Vec<Result<Chunk, DataError>>) {
        // Chunks of records are read in parallel, each into its rows of every
        // column of one column-major block, which becomes the matrix as it is.
        let n = data.len();
        let mut values = vec![0.0; n * p];
        let bounds = chunk_bounds(n, n_chunks);
        let mut pieces: Vec<Vec<&mut [f64]>> =
            bounds.iter().map(|_| Vec::with_capacity(p)).collect();
        for column in values.chunks_mut(n.max(1)).take(p) {
            let mut rest = column;
            for (piece, r) in pieces.iter_mut().zip(&bounds) {
                let (head, tail) = rest.split_at_mut(r.len());
                piece.push(head);
                rest = tail;
            }
        }
        let parts: Vec<Result<Chunk, DataError>> = pieces
            .into_par_iter()
            .zip(bounds.par_iter())
            .map(|(mut piece, r)| self.read_chunk(&data[r.clone()], &mut piece))
            .collect();
        (values, parts)
    }

    /// Reads `records` into `out` (one slice per feature column, a row per
    /// record); the first bad record of the chunk is its error.
    fn read_chunk(
        &self,
        records: &[RecordSpan],
        out: &mut [&mut [f64]],
    ) -> Result<Chunk, DataError> {
        let mut columns: Vec<RawColumn> = self
            .feature_fields
            .iter()
            .map(|_| RawColumn::new(String::new(), false, 0))
            .collect();
        let mut labels = Labels {
            codes: Vec::with_capacity(records.len()),
            ..Labels::default()
        };
        let mut index = HashMap::new();
        let mut ids = self.id_field.map(|_| Vec::with_capacity(records.len()));
        let mut scratch = Vec::with_capacity(self.n_fields);
        let mut lines = Vec::with_capacity(self.n_fields);
        for (r, rec) in records.iter().enumerate() {
            if r % REPORT_EVERY == REPORT_EVERY - 1 {
                self.report(REPORT_EVERY);
            }
            let content = &self.bytes[rec.content.clone()];
            split_fields(content, self.delimiter, &mut scratch);
            if scratch.len() != self.n_fields {
                return Err(wrong_width(
                    self.path,
                    rec,
                    content,
                    (scratch.len(), self.n_fields),
                    Some(rec.line) == self.first_line,
                ));
            }
            field_lines(content, &scratch, &mut lines);
            let line_of = |f: usize| rec.line + lines[f];
            let text = std::str::from_utf8(content).ok();
            let field = |f: usize| field_in(text, content, scratch[f].clone());
            let f = self.label_field;
            let label = field(f);
            let at = (line_of(f), f + 1);
            single_line(self.path, self.opts, &label, at, &self.label_cell)?;
            labels.push(&mut index, &label, || at);
            if let (Some(ids), Some(f)) = (ids.as_mut(), self.id_field) {
                let id = field(f);
                single_line(
                    self.path,
                    self.opts,
                    &id,
                    (line_of(f), f + 1),
                    &self.id_cell,
                )?;
                ids.push(id.trim().to_string());
            }
            for ((col, out), &f) in columns
                .iter_mut()
                .zip(out.iter_mut())
                .zip(self.feature_fields)
            {
                out[r] = col.note(&field(f), line_of(f), f + 1);
            }
        }
        self.report(records.len() % REPORT_EVERY);
        Ok(Chunk {
            columns,
            labels,
            ids,
        })
    }

    /// `more` records read.
    fn report(&self, more: usize) {
        if let Some((report, done, n)) = &self.progress {
            let done = done.fetch_add(more, Ordering::Relaxed) + more;
            report(done as f64 / (*n).max(1) as f64);
        }
    }
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
    let label_row = label_row_of(path, &names, opts)?;
    let ignore = glob::patterns(&opts.ignore);
    let keep_texts = opts.categorical == super::CategoricalPolicy::Onehot;
    let mut features = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        let rec = &records[r + 1];
        if row.len() != n_fields {
            let content = &bytes[rec.content.clone()];
            return Err(wrong_width(
                path,
                rec,
                content,
                (row.len(), n_fields),
                r == 0,
            ));
        }
        if r == label_row || glob::any_matches(&ignore, &names[r]) {
            continue;
        }
        let col = feature_row(&names[r], &row[1..], keep_texts, delimiter);
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
    let labels = Labels::from_texts(
        label_cells[1..].iter().map(|(t, _)| t.clone()).collect(),
        |j| (label_cells[j + 1].1, j + 2),
    );
    Ok(Grid {
        values: Grid::values_of(&mut features),
        features,
        labels,
        ids: Some(ids),
        label_name: names[label_row].clone(),
        label_field: label_row + 1,
        id_name: None,
        n_fields,
        geo: false,
    })
}

/// The row of a genes x samples sheet holding the labels (`--label`, or
/// one named like a label), once every `--ignore` is known to name a row.
fn label_row_of(path: &Path, names: &[String], opts: &LoadOptions) -> Result<usize, DataError> {
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
        None => find_named(names, &LABEL_NAMES).ok_or_else(|| {
            err(
                path,
                0,
                1,
                "no row is named label, class, target or y".into(),
                "with --transpose, pass --label ROW to say which row holds the labels",
            )
        })?,
    };
    for pattern in glob::patterns(&opts.ignore) {
        if !names.iter().any(|n| pattern.matches(n)) {
            return Err(err(
                path,
                0,
                1,
                format!(
                    "there is no row {} {} to ignore",
                    if pattern.is_glob() {
                        "matching"
                    } else {
                        "named"
                    },
                    shown(pattern.text())
                ),
                "with --transpose, --ignore names rows (first column), or globs of them",
            ));
        }
    }
    Ok(label_row)
}

/// One feature row of a genes x samples sheet (its cells after the name)
/// as a column; read again with decimal commas when written so. Only a row
/// the number reader found text in is read again.
fn feature_row(
    name: &str,
    cells: &[(String, usize)],
    keep_texts: bool,
    delimiter: u8,
) -> RawColumn {
    let read = |value: &dyn Fn(&str) -> std::borrow::Cow<'_, str>| {
        let mut col = RawColumn::new(name.to_string(), keep_texts, cells.len());
        for (j, (text, line)) in cells.iter().enumerate() {
            col.push(&value(text), *line, j + 2);
        }
        col
    };
    let col = read(&|t| std::borrow::Cow::Borrowed(t));
    if col.first_text.is_some()
        && decimal_comma::possible(delimiter)
        && decimal_comma::column_is(cells.iter().map(|(t, _)| t))
    {
        read(&|t| decimal_comma::read_as(t))
    } else {
        col
    }
}

/// Reads again, with decimal commas, the feature columns written so (see
/// [`decimal_comma`]). Only a column the number reader found text in is
/// looked at, so a table of ordinary numbers costs nothing more.
fn reread_decimal_commas(
    bytes: &[u8],
    data: &[RecordSpan],
    delimiter: u8,
    feature_fields: &[usize],
    features: &mut [RawColumn],
    values: &mut [f64],
) {
    let n = data.len();
    for (c, (col, &f)) in features.iter_mut().zip(feature_fields).enumerate() {
        if col.first_text.is_none() {
            continue;
        }
        // A column of levels is known at its first cell: nothing is kept.
        if !decimal_comma::column_is(column_cells(bytes, data, delimiter, f).map(|(t, _)| t)) {
            continue;
        }
        let mut again = RawColumn::new(std::mem::take(&mut col.name), false, 0);
        let cells = column_cells(bytes, data, delimiter, f);
        for ((text, line), v) in cells.zip(&mut values[c * n..(c + 1) * n]) {
            *v = again.note(&decimal_comma::read_as(&text), line, f + 1);
        }
        *col = again;
    }
}

/// The text of field `f` of every record of `records`, with its line.
fn column_cells<'a>(
    bytes: &'a [u8],
    records: &'a [RecordSpan],
    delimiter: u8,
    f: usize,
) -> impl Iterator<Item = (String, usize)> + 'a {
    let (mut scratch, mut lines) = (Vec::new(), Vec::new());
    records.iter().map(move |rec| {
        let content = &bytes[rec.content.clone()];
        split_fields(content, delimiter, &mut scratch);
        field_lines(content, &scratch, &mut lines);
        (
            field_text(&content[scratch[f].clone()]),
            rec.line + lines[f],
        )
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

/// The error of a table with a header and nothing under it.
pub(super) fn no_samples(path: &Path) -> DataError {
    err(
        path,
        1,
        0,
        "the table has a header but no samples".into(),
        "add data rows",
    )
}
