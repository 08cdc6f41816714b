//! A GEO data table (a GDS's or a series matrix's): a probe per line, its
//! id first, then (in a GDS) its `IDENTIFIER`, then one value per sample.
//! A probe is a feature, so each line is one column of the column-major
//! block the matrix is made of: lines are read in parallel straight into
//! it, never into a cell-by-cell copy (a 54,675-probe array is 11 million
//! cells for 200 samples).

use std::path::Path;

use rayon::prelude::*;

use super::super::DataError;
use super::super::cells::RawColumn;
use super::super::read::err;
use super::Ignore;

/// The text of a cell without the quotes GEO writes around it.
pub fn unquote(s: &str) -> &str {
    let t = s.trim();
    t.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(t)
}

/// A probe table read.
#[derive(Debug, Default)]
pub struct ProbeTable {
    /// The sample accessions of the header, in order.
    pub samples: Vec<String>,
    /// One column per probe kept, named by its id.
    pub features: Vec<RawColumn>,
    /// Column after column, `samples.len()` values each.
    pub values: Vec<f64>,
    /// (probe, IDENTIFIER) of a GDS, every probe's.
    pub identifiers: Vec<(String, String)>,
}

/// The sample accessions of a table's header line: the fields after the
/// probe id (and the IDENTIFIER of a GDS). `None` when it has none.
pub fn header_samples(header: &str) -> (Vec<String>, usize) {
    let cells: Vec<&str> = header.split('\t').map(unquote).collect();
    let skip = if cells
        .get(1)
        .is_some_and(|h| h.eq_ignore_ascii_case("IDENTIFIER"))
    {
        2
    } else {
        1
    };
    let samples = cells.iter().skip(skip).map(|s| s.to_string()).collect();
    (samples, skip)
}

/// Reads `lines` (the header, then a line per probe) of `what` ("the
/// series matrix of GSE1"), leaving out the probes `ignore` names.
pub fn read(
    path: &Path,
    what: &str,
    lines: &[(usize, &str)],
    ignore: &mut Ignore<'_>,
) -> Result<ProbeTable, DataError> {
    let mut reader = Reader::new(path, what, lines.first().copied())?;
    reader.add(lines.get(1..).unwrap_or_default(), ignore)?;
    Ok(reader.finish())
}

/// A probe table read a block of lines at a time, so that a reader of a
/// stream holds one block of text, never the whole file, beside the matrix.
pub struct Reader<'p> {
    path: &'p Path,
    /// Fields before the first value: the probe id (and a GDS's IDENTIFIER).
    skip: usize,
    table: ProbeTable,
}

impl<'p> Reader<'p> {
    /// The reader of the table whose header line is `header`.
    pub fn new(
        path: &'p Path,
        what: &str,
        header: Option<(usize, &str)>,
    ) -> Result<Self, DataError> {
        let Some((header_line, header)) = header else {
            return Err(err(
                path,
                0,
                0,
                format!("the data table of {what} has no header line"),
                "check that the file is complete (download it again)",
            ));
        };
        let (samples, skip) = header_samples(header);
        if samples.is_empty() {
            return Err(err(
                path,
                header_line,
                0,
                format!("the data table of {what} has no sample columns"),
                "check that the file is complete (download it again)",
            ));
        }
        let table = ProbeTable {
            samples,
            ..ProbeTable::default()
        };
        Ok(Self { path, skip, table })
    }

    /// Room for `probes` more probes, so that the matrix is allocated once
    /// at about its size rather than grown by doubling.
    pub fn reserve(&mut self, probes: usize) {
        let n = self.table.samples.len();
        self.table.features.reserve_exact(probes);
        self.table.values.reserve_exact(probes.saturating_mul(n));
    }

    /// The next probe lines, in the file's order.
    pub fn add(
        &mut self,
        rows: &[(usize, &str)],
        ignore: &mut Ignore<'_>,
    ) -> Result<(), DataError> {
        let (path, skip) = (self.path, self.skip);
        let mut kept: Vec<(usize, &str, &str)> = Vec::with_capacity(rows.len());
        for &(line, row) in rows {
            let mut cells = row.splitn(3, '\t');
            let probe = unquote(cells.next().unwrap_or_default());
            let identifier = (skip == 2).then(|| unquote(cells.next().unwrap_or_default()));
            if let Some(id) = identifier.filter(|i| !i.is_empty()) {
                self.table
                    .identifiers
                    .push((probe.to_string(), id.to_string()));
            }
            if !ignore.drops(probe, identifier) {
                kept.push((line, probe, row));
            }
        }
        let n = self.table.samples.len();
        let start = self.table.values.len();
        self.table.values.resize(start + kept.len() * n, f64::NAN);
        let read_row = |&(line, probe, row): &(usize, &str, &str), out: &mut [f64]| {
            read_probe(path, (line, probe, row), skip, out)
        };
        let features = match kept
            .par_iter()
            .zip(self.table.values[start..].par_chunks_mut(n))
            .map(|(row, out)| read_row(row, out))
            .collect::<Result<Vec<RawColumn>, DataError>>()
        {
            Ok(features) => features,
            // Which line a parallel read stops at varies: the first bad line
            // in the file is found again in order, so the message never does.
            Err(e) => {
                let mut scratch = vec![0.0; n];
                for row in &kept {
                    read_row(row, &mut scratch)?;
                }
                return Err(e);
            }
        };
        self.table.features.extend(features);
        Ok(())
    }

    /// The table read, holding no more room than its probes take.
    pub fn finish(mut self) -> ProbeTable {
        self.table.values.shrink_to_fit();
        self.table.features.shrink_to_fit();
        self.table
    }
}

/// One probe's line into `out` (one value per sample): `null` and the
/// usual missing-value tokens are missing.
fn read_probe(
    path: &Path,
    (line, probe, row): (usize, &str, &str),
    skip: usize,
    out: &mut [f64],
) -> Result<RawColumn, DataError> {
    let mut col = RawColumn::new(probe.to_string(), false, 0);
    let mut cells = row.split('\t').skip(skip);
    for (j, slot) in out.iter_mut().enumerate() {
        let Some(cell) = cells.next() else {
            return Err(wrong_width(path, line, skip + j, skip + out.len()));
        };
        let text = unquote(cell);
        let text = if text.eq_ignore_ascii_case("null") {
            ""
        } else {
            text
        };
        *slot = col.note(text, line, skip + j + 1);
    }
    let extra = cells.count();
    if extra > 0 {
        return Err(wrong_width(
            path,
            line,
            skip + out.len() + extra,
            skip + out.len(),
        ));
    }
    Ok(col)
}

fn wrong_width(path: &Path, line: usize, got: usize, want: usize) -> DataError {
    err(
        path,
        line,
        0,
        format!("this table row has {got} fields but the table header has {want}"),
        "check that the file is complete and tab-separated (download it again)",
    )
}
