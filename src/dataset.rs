//! Reading labelled tables into matrices (DESIGN §4), keeping the original
//! bytes of every record so an export changes only what the curator changed.

mod binary;
mod build;
mod cells;
mod compatible;
mod decimal_comma;
mod encoding;
#[cfg(test)]
mod fuzz;
mod geo;
mod glob;
mod grid;
pub(crate) mod log_scale;
mod probs;
mod read;
mod record;
mod rewrite;
mod sheet;
mod shown;
#[cfg(test)]
mod tests;

pub use cells::is_missing;
pub use compatible::TestTable;
pub use encoding::TextEncoding;
pub use geo::{GeneSymbols, LabelField};
pub use log_scale::{LogRule, LogScale, RawShape, Weighed};
pub use read::content_hash;
pub use rewrite::rewrite;
pub use shown::{counted, name_list, one_line, shown};

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use self::read::err;

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// How missing cells (empty, NA, NaN, ?) in feature columns are handled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum MissingPolicy {
    /// Stop with an error naming the row and column.
    #[default]
    Error,
    /// Leave out every sample with a missing feature.
    Drop,
    /// Replace by the column mean of the present values.
    Mean,
}

/// How non-numeric feature columns are handled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum CategoricalPolicy {
    /// A non-numeric feature column is an error that names it.
    #[default]
    Error,
    /// Each string level becomes a 0/1 column `<col>=<level>`.
    Onehot,
}

/// Everything that decides how a file becomes a dataset. Part of the session
/// key (`review::journal::session_key`): the same file read differently is a
/// different session, so a new field must serialise to nothing at its
/// default, as `log2` does.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LoadOptions {
    /// Label column name (or, with `transpose`, the label row name).
    pub label: Option<String>,
    /// Id column name.
    pub id: Option<String>,
    /// Field delimiter; sniffed from the header when `None`.
    pub delimiter: Option<u8>,
    /// Columns that are neither features nor label nor id.
    pub ignore: Vec<String>,
    pub missing: MissingPolicy,
    pub categorical: CategoricalPolicy,
    /// Genes x samples sheet: first column = feature names, header = sample ids.
    pub transpose: bool,
    /// Numeric features become log2(value) (microarray intensities); a
    /// value <= 0 is an error. Left out of the serialised options when off,
    /// so session keys made before it existed still match.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub log2: bool,
    /// Without `log2`: whether values that look like raw intensities are
    /// read logged (`log_scale`). Not part of the session key: the scale
    /// changes what the models see, never what a sample is, so a review
    /// begun on one scale resumes on the other.
    #[serde(skip)]
    pub log_rule: LogRule,
    /// `--probs FILE`: another classifier's class probabilities are the
    /// features (one column per class); the table gives only ids and labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probs: Option<PathBuf>,
    /// `--sheet NAME|INDEX`: the worksheet of a spreadsheet (default the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sheet: Option<String>,
    /// `--label-pattern REGEX` (GEO files): the label is the first group
    /// (else the whole match) of this expression in the field's value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_pattern: Option<String>,
    /// `--platform FILE`: gene symbols shown beside the probe ids. Not part
    /// of the session key: it changes what is shown, never what is read.
    #[serde(skip)]
    pub platform: Option<PathBuf>,
    /// `--top-variance N`: only the N most variable numeric features are
    /// read. Not part of the session key, as the scale is not: it changes
    /// what the models see, never what a sample is.
    #[serde(skip)]
    pub top_variance: Option<usize>,
    /// Let a quoted label or id span several lines (legal CSV, but in a
    /// label sheet almost always a stray quote). Not part of the session
    /// key: it decides whether a file loads, not what it loads as.
    #[serde(skip)]
    pub multiline_cells: bool,
    /// The dataset is only scored, never exported, rewritten nor reviewed
    /// (`scan`): the file's bytes and record spans (`RawTable`) are let go
    /// as soon as the cells are read, leaving the models the memory they
    /// took (as much as the matrix for a numeric table). Not part of the
    /// session key: a dataset without them never opens a session.
    #[serde(skip)]
    pub drop_raw: bool,
}

/// One bad-input message: file, 1-based line and column, what is wrong and
/// what to do. Displayed as `file:line:col: message (hint)`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", self.render())]
pub struct DataError {
    pub file: PathBuf,
    /// 1-based physical line in the (decompressed) file; 0 when not tied to a line.
    pub line: usize,
    /// 1-based column (field number); 0 when not tied to a column.
    pub column: usize,
    pub message: String,
    /// What the user can do about it.
    pub hint: String,
}

impl DataError {
    fn render(&self) -> String {
        let mut s = one_line_path(&self.file);
        if self.line > 0 {
            s.push_str(&format!(":{}", self.line));
            if self.column > 0 {
                s.push_str(&format!(":{}", self.column));
            }
        }
        s.push_str(": ");
        s.push_str(&self.message);
        if !self.hint.is_empty() {
            s.push_str(" — ");
            s.push_str(&self.hint);
        }
        s
    }
}

/// A path on one line (a file name may hold a line break); unlike a cell,
/// never cut: the user needs all of it.
fn one_line_path(path: &Path) -> String {
    path.display()
        .to_string()
        .chars()
        .map(|c| {
            if c.is_control() {
                shown::one_line(&c.to_string())
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The decompressed bytes of the input and where each record lies in them.
#[derive(Clone, Debug)]
pub struct RawTable {
    pub path: PathBuf,
    /// Decompressed file content, exactly as read.
    pub bytes: Vec<u8>,
    pub gzip: bool,
    /// Texts of a worksheet's rows above its header, skipped as a title.
    pub title: Vec<String>,
    /// The file's text encoding; `bytes` are UTF-8 whatever it was, and an
    /// export writes it back in this one.
    pub encoding: TextEncoding,
    pub delimiter: u8,
    /// Where every record lies (header first): its content and its terminator.
    pub records: Vec<RecordSpan>,
    /// What the file was; for a spreadsheet or a GEO file, `bytes` is the
    /// CSV that stands for it (the sheet's cells; a labels sheet for GEO).
    pub format: SourceFormat,
}

/// Why `--missing drop` left out a sample whose label is empty.
pub const UNLABELLED: &str = "no label";

/// The kind of file a table was read from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SourceFormat {
    /// CSV/TSV, optionally gzip: an export rewrites its bytes.
    #[default]
    Delimited,
    /// .xlsx/.xls/.ods: the export is a CSV beside it.
    Spreadsheet,
    /// GEO SOFT or series matrix: the export is a labels sheet.
    Geo,
}

impl SourceFormat {
    /// What the export of such a file is named: `None` keeps the input's
    /// name and extension (`<stem>.cleaned.<ext>`); `Some(suffix)` is a CSV
    /// named `<stem><suffix>`, since the input's own format is never written.
    pub fn export_suffix(self) -> Option<&'static str> {
        match self {
            SourceFormat::Delimited => None,
            SourceFormat::Spreadsheet => Some(".cleaned.csv"),
            SourceFormat::Geo => Some(".labels.csv"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordSpan {
    /// 1-based physical line where the record starts.
    pub line: usize,
    /// The record's bytes, without the line terminator.
    pub content: Range<usize>,
    /// The terminator that followed it (`\n`, `\r\n` or empty at EOF).
    pub terminator: Range<usize>,
}

/// A labelled table ready for the models.
#[derive(Clone, Debug)]
pub struct Dataset {
    pub raw: RawTable,
    pub options: LoadOptions,
    /// n x p features, one row per kept sample.
    pub x: DMatrix<f64>,
    pub feature_names: Vec<String>,
    /// Class names in order of first appearance; `labels` index into it.
    pub classes: Vec<String>,
    /// Given label of every sample (index into `classes`).
    pub labels: Vec<usize>,
    /// Sample ids: the id column (with `transpose`, the header), else the
    /// 0-based data row as text.
    pub ids: Vec<String>,
    /// For every sample, its 0-based data row in the input (header excluded;
    /// with `transpose`, the 0-based sample column among the data columns).
    pub rows: Vec<usize>,
    /// Name of the label column (or label row with `transpose`).
    pub label_name: String,
    /// Name of the id column, if one was used.
    pub id_name: Option<String>,
    /// Data rows left out by `--missing drop`, with the reason.
    pub dropped: Vec<(usize, String)>,
    /// Feature columns left out for holding one value in every sample.
    pub constant: Vec<String>,
    /// Feature columns left out for holding no value in any sample (an
    /// unnamed one as "").
    pub empty: Vec<String>,
    /// A column named like an id that repeats values: left out.
    pub repeated_id: Option<String>,
    /// The ids are a string column's words, one per sample, not a column
    /// named as ids.
    pub ids_by_words: bool,
    /// String-valued feature columns (under `--categorical onehot`) with
    /// their levels and each sample's level, for models that use levels as
    /// they are.
    pub categorical: Vec<CategoricalColumn>,
    /// How the source columns became features (to read a test table alike).
    pub sources: Vec<FeatureSource>,
    /// The scale the numeric features were read on.
    pub log_scale: LogScale,
    pub layout: Layout,
    /// Gene symbols of the features (probe ids), from the platform table:
    /// shown beside them, never instead of them.
    pub gene_symbols: Option<Arc<GeneSymbols>>,
    /// What the reader did that the curator should know (columns of
    /// detection calls left out, a variance filter, a GEO file's columns).
    pub reader_notes: Vec<String>,
}

/// A string-valued column: its levels in order of first appearance and the
/// level index of every sample.
#[derive(Clone, Debug, PartialEq)]
pub struct CategoricalColumn {
    pub name: String,
    pub levels: Vec<String>,
    pub codes: Vec<usize>,
}

/// A source column and how it entered the feature matrix.
#[derive(Clone, Debug, PartialEq)]
pub enum FeatureSource {
    /// One numeric column; `fill` is the mean used for missing values.
    Numeric { name: String, fill: Option<f64> },
    /// One 0/1 column per level, named `<name>=<level>`.
    Categorical { name: String, levels: Vec<String> },
}

/// Where things are in the file, for rewriting it.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub transpose: bool,
    /// Field index of the label column, or (transposed) record index of the label row.
    pub label_field: usize,
    /// Number of fields per record.
    pub n_fields: usize,
}

/// What an export changes: per sample (index into `Dataset` samples).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CellEdit {
    /// Write this label instead of the given one.
    Relabel(String),
    /// Leave the sample out of the cleaned file.
    Drop,
}

/// Reads a file (gzip recognised by its content) into a dataset.
pub fn load(path: &Path, opts: &LoadOptions) -> Result<Dataset, DataError> {
    load_file(path, opts, None)
}

/// What a load reports as it reads the records of a table: the fraction
/// read so far (0 to 1), called from the threads that read them.
pub type Progress<'a> = &'a (dyn Fn(f64) + Sync);

/// [`load`], telling `progress` how far the reading of the records has
/// come (for a loading screen: the rest of a load is a small part of it).
pub fn load_with_progress(
    path: &Path,
    opts: &LoadOptions,
    progress: Progress<'_>,
) -> Result<Dataset, DataError> {
    load_file(path, opts, Some(progress))
}

/// Reads the file at `path`: a series matrix as it is decompressed, so
/// that its text is never held whole beside its matrix (a GEO matrix of
/// an Affymetrix array is tens of MB of each); any other file whole.
fn load_file(
    path: &Path,
    opts: &LoadOptions,
    progress: Option<Progress<'_>>,
) -> Result<Dataset, DataError> {
    let (file, len) = read::open_regular_file(path)?;
    let platform = opts.platform.as_deref().map(read_platform).transpose()?;
    let streamable = opts.sheet.is_none() && !sheet::is_workbook(path, &[]);
    if let Some((mut input, size)) = read::content_stream(file, len).filter(|_| streamable)
        && let Some(table) = geo::streamed_grid(path, &mut *input, size, opts, platform.as_ref())?
    {
        return geo_dataset(path, table, opts, platform);
    }
    let bytes = read::read_regular_file(path)?;
    load_bytes_in(path, bytes, opts, progress, platform)
}

/// Builds a dataset from a file's bytes already in memory; `path` names it
/// in messages. GEO files are recognised by their content and spreadsheets
/// by their container (zip or OLE) and extension; both become a CSV that
/// stands for them (a labels sheet for GEO), which is what an export writes.
pub fn load_bytes(path: &Path, bytes: Vec<u8>, opts: &LoadOptions) -> Result<Dataset, DataError> {
    let platform = opts.platform.as_deref().map(read_platform).transpose()?;
    load_bytes_in(path, bytes, opts, None, platform)
}

/// `platform`: the symbols of `--platform`, read before the file.
fn load_bytes_in(
    path: &Path,
    bytes: Vec<u8>,
    opts: &LoadOptions,
    progress: Option<Progress<'_>>,
    platform: Option<GeneSymbols>,
) -> Result<Dataset, DataError> {
    let workbook = sheet::is_workbook(path, &bytes)
        .then(|| sheet::to_csv(path, &bytes, opts))
        .transpose()?;
    let (bytes, gzip, encoding) = match &workbook {
        Some(w) => (w.csv.clone(), false, TextEncoding::Utf8),
        None => {
            let (bytes, gzip) = read::decompress(path, bytes)?;
            binary::check_text(path, &bytes)?;
            let (bytes, encoding) = encoding::to_utf8(bytes);
            (bytes, gzip, encoding)
        }
    };
    if let Some(kind) = geo::sniff(&bytes) {
        refuse_unless(
            path,
            opts.sheet.is_none(),
            "--sheet",
            "a GEO file has no worksheets",
        )?;
        let table = geo::grid(path, &bytes, kind, opts, platform.as_ref())?;
        drop(bytes);
        return geo_dataset(path, table, opts, platform);
    }
    refuse_unless(
        path,
        workbook.is_some() || opts.sheet.is_none(),
        "--sheet",
        "only a workbook (.xlsx, .xls, .ods) has worksheets",
    )?;
    refuse_unless(
        path,
        opts.label_pattern.is_none(),
        "--label-pattern",
        "it cuts the labels out of a GEO file's sample fields; in a table, write the labels in a column of their own",
    )?;
    if opts.transpose && opts.probs.is_some() {
        return Err(err(
            path,
            0,
            0,
            "--probs needs a table with one row per sample, not --transpose".into(),
            "write the ids and labels as two columns (id,label)",
        ));
    }
    // A worksheet arrives as CSV written here, always comma-separated.
    let delimiter = opts.delimiter.or(workbook.as_ref().map(|_| b','));
    let (records, delimiter) = read::table_records(path, &bytes, delimiter)?;
    let grid = if opts.transpose {
        grid::samples_as_columns(path, &bytes, &records, delimiter, opts)?
    } else {
        grid::samples_as_rows(path, &bytes, &records, delimiter, opts, progress)?
    };
    if let Some(w) = &workbook {
        w.check_dates(path, &grid, opts)?;
    }
    let (bytes, records) = if opts.drop_raw {
        (Vec::new(), Vec::new())
    } else {
        (bytes, records)
    };
    let raw = RawTable {
        path: path.to_path_buf(),
        bytes,
        gzip,
        title: workbook
            .as_ref()
            .map(|w| w.title.clone())
            .unwrap_or_default(),
        encoding,
        delimiter,
        records,
        format: if workbook.is_some() {
            SourceFormat::Spreadsheet
        } else {
            SourceFormat::Delimited
        },
    };
    let extras = Extras {
        symbols: platform,
        notes: Vec::new(),
    };
    finish(path, grid, raw, opts, extras)
}

/// A GEO file's dataset: its labels sheet stands for it as the raw table.
fn geo_dataset(
    path: &Path,
    table: geo::GeoTable,
    opts: &LoadOptions,
    platform: Option<GeneSymbols>,
) -> Result<Dataset, DataError> {
    let records = read::scan(&table.sheet).records;
    let raw = RawTable {
        path: path.to_path_buf(),
        bytes: table.sheet,
        gzip: false,
        title: Vec::new(),
        encoding: TextEncoding::Utf8,
        delimiter: b',',
        records,
        format: SourceFormat::Geo,
    };
    let extras = Extras {
        symbols: platform.or(table.symbols),
        notes: table.notes,
    };
    finish(path, table.grid, raw, opts, extras)
}

/// An option that does not apply to this file is refused, never ignored.
fn refuse_unless(path: &Path, fine: bool, option: &str, why: &str) -> Result<(), DataError> {
    if fine {
        return Ok(());
    }
    Err(err(
        path,
        0,
        0,
        format!("{option} does not apply to this file: {why}"),
        &format!("leave out {option}"),
    ))
}

/// `--platform FILE`: the gene symbols of a platform table.
fn read_platform(path: &Path) -> Result<GeneSymbols, DataError> {
    let bytes = read::read_regular_file(path)?;
    let (bytes, _) = read::decompress(path, bytes)?;
    binary::check_text(path, &bytes)?;
    let (bytes, _) = encoding::to_utf8(bytes);
    geo::platform_symbols(path, &bytes)
}

/// The fields of a GEO file that could hold its labels, with each one's
/// values and counts, for a picker (a file that is not GEO has none).
pub fn label_fields(path: &Path) -> Result<Vec<LabelField>, DataError> {
    let bytes = read::read_regular_file(path)?;
    let (bytes, _) = read::decompress(path, bytes)?;
    let (bytes, _) = encoding::to_utf8(bytes);
    geo::label_fields(path, &bytes)
}

/// What a reader knows besides the grid.
struct Extras {
    symbols: Option<GeneSymbols>,
    notes: Vec<String>,
}

/// The grid through the policies (missing values, levels, classes), with
/// the probabilities of `--probs` as features when given.
fn finish(
    path: &Path,
    grid: grid::Grid,
    raw: RawTable,
    opts: &LoadOptions,
    extras: Extras,
) -> Result<Dataset, DataError> {
    let layout = Layout {
        transpose: opts.transpose && raw.format == SourceFormat::Delimited,
        label_field: grid.label_field,
        n_fields: grid.n_fields,
    };
    let label_name = grid.label_name.clone();
    let mut built = build::build(path, grid, opts)?;
    if let Some(probs_path) = &opts.probs {
        probs::attach(probs_path, &mut built)?;
    }
    if built.x.ncols() == 0 {
        return Err(err(
            path,
            0,
            0,
            "no feature is left to compare the samples by".into(),
            "check --ignore and --top-variance, or open a file with measurements",
        ));
    }
    if built.classes.len() < 2 {
        return Err(err(
            path,
            0,
            0,
            format!(
                "every sample has the label {}, so there is nothing to tell apart",
                shown(built.classes.first().map(String::as_str).unwrap_or(""))
            ),
            "check that --label names the label column",
        ));
    }
    let mut reader_notes = extras.notes;
    reader_notes.extend(built.notes);
    let gene_symbols = match extras.symbols {
        Some(symbols) => {
            let named = symbols_named(path, &symbols, &built.feature_names, opts)?;
            reader_notes.push(named);
            Some(Arc::new(symbols))
        }
        None => None,
    };
    Ok(Dataset {
        raw,
        options: opts.clone(),
        x: built.x,
        feature_names: built.feature_names,
        classes: built.classes,
        labels: built.labels,
        ids: built.ids,
        rows: built.kept,
        label_name,
        id_name: built.id_name,
        dropped: built.dropped,
        constant: built.constant,
        empty: built.empty,
        repeated_id: built.repeated_id,
        ids_by_words: built.ids_by_words,
        categorical: built.categorical,
        sources: built.sources,
        log_scale: built.log_scale,
        layout,
        gene_symbols,
        reader_notes,
    })
}

/// How many features the platform names, said in a note; a platform that
/// names none of them is another platform's, and refused.
fn symbols_named(
    path: &Path,
    symbols: &GeneSymbols,
    features: &[String],
    opts: &LoadOptions,
) -> Result<String, DataError> {
    let named = features.iter().filter(|f| symbols.get(f).is_some()).count();
    if named == 0 && opts.platform.is_some() {
        return Err(err(
            path,
            0,
            0,
            format!(
                "none of the {} features is a probe of the platform {} (its probes are like {}, the features like {})",
                features.len(),
                symbols.source,
                symbols.some_probes().first().map_or("", String::as_str),
                features.first().map_or("", String::as_str)
            ),
            "pass the platform the file was measured on (its !Series_platform_id)",
        ));
    }
    Ok(format!(
        "gene symbols from {} are shown beside the probe ids ({} of {} features have one); the features are still the probes",
        symbols.source,
        named,
        features.len()
    ))
}

impl Dataset {
    pub fn n_samples(&self) -> usize {
        self.x.nrows()
    }

    pub fn n_features(&self) -> usize {
        self.x.ncols()
    }

    pub fn class_counts(&self) -> Vec<usize> {
        crate::models::numerics::class_counts(&self.labels, self.classes.len())
    }

    pub fn class_index(&self, label: &str) -> Option<usize> {
        self.classes.iter().position(|c| c == label)
    }

    /// The gene symbol of feature `j`, when a platform table gives one.
    pub fn gene_symbol(&self, j: usize) -> Option<&str> {
        let symbols = self.gene_symbols.as_ref()?;
        symbols.get(self.feature_names.get(j)?)
    }

    /// Feature `j` as shown: its name, and its gene symbol beside it
    /// (`1007_s_at DDR1`) when the platform gives one.
    pub fn feature_label(&self, j: usize) -> String {
        match self.gene_symbol(j) {
            Some(symbol) => format!("{} {symbol}", self.feature_names[j]),
            None => self.feature_names[j].clone(),
        }
    }

    /// [`Dataset::feature_label`] of every feature.
    pub fn feature_labels(&self) -> Vec<String> {
        (0..self.feature_names.len())
            .map(|j| self.feature_label(j))
            .collect()
    }

    /// The text of sample i's label as written in the file.
    pub fn given_label(&self, i: usize) -> &str {
        &self.classes[self.labels[i]]
    }

    /// One column per source column: numbers as they are, string columns as
    /// level codes 0..L-1 (for models that use levels themselves, like the
    /// Combined Bayes Test), with the source column names.
    pub fn source_matrix(&self) -> (DMatrix<f64>, Vec<String>) {
        let mut names = Vec::with_capacity(self.sources.len());
        let mut columns: Vec<Vec<f64>> = Vec::with_capacity(self.sources.len());
        let mut j = 0;
        let mut categorical = self.categorical.iter();
        for source in &self.sources {
            match source {
                FeatureSource::Numeric { name, .. } => {
                    names.push(name.clone());
                    columns.push(self.x.column(j).iter().copied().collect());
                    j += 1;
                }
                FeatureSource::Categorical { name, levels } => {
                    names.push(name.clone());
                    let codes = categorical
                        .next()
                        .map(|c| c.codes.iter().map(|&v| v as f64).collect())
                        .unwrap_or_default();
                    columns.push(codes);
                    j += levels.len();
                }
            }
        }
        let x = DMatrix::from_fn(self.n_samples(), columns.len(), |i, c| columns[c][i]);
        (x, names)
    }

    /// [`Dataset::source_matrix`] of another matrix with this dataset's
    /// feature layout (a test table): each string column's 0/1 columns
    /// become the index of its 1, or the level count for a level the
    /// training data never had (no 1 at all).
    pub fn source_matrix_of(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        let mut columns: Vec<Vec<f64>> = Vec::with_capacity(self.sources.len());
        let mut j = 0;
        for source in &self.sources {
            match source {
                FeatureSource::Numeric { .. } => {
                    columns.push(x.column(j).iter().copied().collect());
                    j += 1;
                }
                FeatureSource::Categorical { levels, .. } => {
                    let l = levels.len();
                    columns.push(
                        (0..x.nrows())
                            .map(|i| (0..l).find(|&c| x[(i, j + c)] == 1.0).unwrap_or(l) as f64)
                            .collect(),
                    );
                    j += l;
                }
            }
        }
        DMatrix::from_fn(x.nrows(), columns.len(), |i, c| columns[c][i])
    }

    /// The content hash of the (decompressed) input in its own encoding,
    /// keying review sessions: a session begun before relabel decoded
    /// Windows-1252 files (it hashed the bytes as read) is found again.
    pub fn content_hash(&self) -> u64 {
        match self.raw.encoding {
            TextEncoding::Utf8 => content_hash(&self.raw.bytes),
            e => content_hash(&encoding::from_utf8(self.raw.bytes.clone(), e)),
        }
    }
}
