//! Spreadsheets (.xlsx, .xlsm, .xlsb, .xls, .ods) through calamine. One
//! worksheet (`--sheet NAME|INDEX`, default the first) becomes a CSV in
//! memory, one record per sheet row, which the CSV path then reads as any
//! table: numbers stay numbers (written so they read back exactly), and
//! that CSV is what an export writes beside the workbook, which is never
//! written. A date in a feature column is an error.

use std::io::Cursor;
use std::path::Path;

use calamine::{Data, Reader, open_workbook_auto_from_rs};

use super::grid::Grid;
use super::read::{err, quote_if_needed};
use super::{DataError, LoadOptions};

const EXTENSIONS: [&str; 5] = ["xlsx", "xlsm", "xlsb", "xls", "ods"];
const ZIP_MAGIC: &[u8] = b"PK\x03\x04";
const OLE_MAGIC: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";

/// Whether a file is a workbook: a spreadsheet extension, or a zip or OLE
/// container (which no CSV starts with).
pub fn is_workbook(path: &Path, bytes: &[u8]) -> bool {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    ext.is_some_and(|e| EXTENSIONS.contains(&e.as_str()))
        || bytes.starts_with(ZIP_MAGIC)
        || bytes.starts_with(OLE_MAGIC)
}

/// A date cell: 1-based row (the CSV line) and column, and its text.
#[derive(Clone, Debug)]
struct DateCell {
    line: usize,
    column: usize,
    text: String,
}

/// A worksheet as CSV bytes, with what the CSV cannot say.
#[derive(Clone, Debug)]
pub struct Workbook {
    pub csv: Vec<u8>,
    sheet: String,
    header: Vec<String>,
    dates: Vec<DateCell>,
    /// The texts of the rows above the header, read as a title.
    pub title: Vec<String>,
}

/// `C4` for 1-based (line 4, column 3).
fn cell_name(line: usize, column: usize) -> String {
    let mut letters = Vec::new();
    let mut c = column;
    while c > 0 {
        letters.push(b'A' + ((c - 1) % 26) as u8);
        c = (c - 1) / 26;
    }
    letters.reverse();
    format!("{}{line}", String::from_utf8_lossy(&letters))
}

/// The text a cell stands for in the CSV; dates are also returned apart.
fn cell_text(cell: &Data) -> (String, bool) {
    match cell {
        Data::Empty => (String::new(), false),
        Data::Int(v) => (v.to_string(), false),
        // Rust's shortest round-trip form: the CSV reads back the same f64.
        Data::Float(v) => (v.to_string(), false),
        Data::String(s) => (s.clone(), false),
        Data::Bool(b) => (if *b { "TRUE" } else { "FALSE" }.to_string(), false),
        Data::DateTime(d) => (format!("date serial {d}"), true),
        Data::DateTimeIso(s) | Data::DurationIso(s) => (s.clone(), true),
        // #N/A, #DIV/0! and friends: no value.
        Data::Error(_) => ("NA".to_string(), false),
    }
}

/// Picks the worksheet: by name, else by 0-based index, else the first.
fn pick_sheet(path: &Path, names: &[String], wanted: Option<&str>) -> Result<String, DataError> {
    let listed = || {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{i} \"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some(wanted) = wanted else {
        return names.first().cloned().ok_or_else(|| {
            err(
                path,
                0,
                0,
                "the workbook has no worksheets".into(),
                "check the file",
            )
        });
    };
    names
        .iter()
        .find(|n| *n == wanted)
        .or_else(|| wanted.parse::<usize>().ok().and_then(|i| names.get(i)))
        .cloned()
        .ok_or_else(|| {
            err(
                path,
                0,
                0,
                format!("the workbook has no sheet \"{wanted}\""),
                &format!(
                    "pass --sheet NAME or 0-based INDEX; the sheets are: {}",
                    listed()
                ),
            )
        })
}

/// Reads the chosen worksheet into CSV bytes.
pub fn to_csv(path: &Path, bytes: &[u8], opts: &LoadOptions) -> Result<Workbook, DataError> {
    let mut book = open_workbook_auto_from_rs(Cursor::new(bytes.to_vec())).map_err(|e| {
        err(
            path,
            0,
            0,
            format!("cannot open the workbook: {e}"),
            "check that it is an .xlsx, .xls or .ods file, or save the sheet as CSV",
        )
    })?;
    let sheet = pick_sheet(path, &book.sheet_names(), opts.sheet.as_deref())?;
    let range = book.worksheet_range(&sheet).map_err(|e| {
        err(
            path,
            0,
            0,
            format!("cannot read sheet \"{sheet}\": {e}"),
            "save the sheet as CSV and open that",
        )
    })?;
    // Rows before the used range stay blank lines, so a CSV line is the
    // sheet's row number in every message.
    let (top, _) = range.start().unwrap_or((0, 0));
    let mut csv = "\n".repeat(top as usize);
    let (mut header, mut dates) = (Vec::new(), Vec::new());
    // A header names at least two columns (a feature and the label): rows
    // above the first that does, with one cell or none, are a title or
    // notes, as sheets often start, and become blank lines too.
    let filled = |row: &[Data]| row.iter().filter(|c| !matches!(c, Data::Empty)).count();
    let head = range.rows().position(|row| filled(row) >= 2).unwrap_or(0);
    let mut title = Vec::new();
    for (r, row) in range.rows().enumerate() {
        let line = top as usize + r + 1;
        if r < head {
            title.extend(
                row.iter()
                    .map(|c| cell_text(c).0)
                    .filter(|t| !t.trim().is_empty()),
            );
            csv.push('\n');
            continue;
        }
        // An empty row is no sample: a blank line, which is no record.
        if filled(row) == 0 {
            csv.push('\n');
            continue;
        }
        let mut fields = Vec::with_capacity(row.len());
        for (c, cell) in row.iter().enumerate() {
            let (text, is_date) = cell_text(cell);
            if is_date {
                let column = c + 1;
                dates.push(DateCell {
                    line,
                    column,
                    text: text.clone(),
                });
            }
            if r == head {
                header.push(text.trim().to_string());
            }
            fields.push(quote_if_needed(&text, b','));
        }
        csv.push_str(&fields.join(","));
        csv.push('\n');
    }
    Ok(Workbook {
        csv: csv.into_bytes(),
        sheet,
        header,
        dates,
        title,
    })
}

impl Workbook {
    /// A date is an error in a feature column (label, id and ignored
    /// columns may hold dates).
    pub fn check_dates(
        &self,
        path: &Path,
        grid: &Grid,
        opts: &LoadOptions,
    ) -> Result<(), DataError> {
        let header_line = self.first_line();
        for d in &self.dates {
            let name = self.header.get(d.column - 1).cloned().unwrap_or_default();
            if d.line == header_line
                || grid.label_field == d.column - 1
                || grid.id_name.as_deref() == Some(name.as_str())
                || super::glob::any_matches(&super::glob::patterns(&opts.ignore), &name)
                || opts.probs.is_some()
            {
                continue;
            }
            return Err(err(
                path,
                d.line,
                d.column,
                format!(
                    "cell {} of sheet \"{}\" is a date ({}) in feature column \"{name}\"",
                    cell_name(d.line, d.column),
                    self.sheet,
                    d.text
                ),
                &format!(
                    "features must be numbers: use --ignore {name}, or store the value as a number"
                ),
            ));
        }
        Ok(())
    }

    /// The sheet row of the header.
    fn first_line(&self) -> usize {
        self.csv.iter().take_while(|&&b| b == b'\n').count() + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_named_like_a_spreadsheet() {
        assert_eq!(cell_name(4, 3), "C4");
        assert_eq!(cell_name(1, 26), "Z1");
        assert_eq!(cell_name(2, 27), "AA2");
    }

    #[test]
    fn workbooks_are_known_by_extension_or_container() {
        assert!(is_workbook(Path::new("a.XLSX"), b""));
        assert!(is_workbook(Path::new("a.ods"), b""));
        assert!(is_workbook(Path::new("a.bin"), b"PK\x03\x04rest"));
        assert!(!is_workbook(Path::new("a.csv"), b"a,b\n"));
    }
}
