//! The byte-exact rewrite against an independent CSV reader: random small
//! tables (samples as rows, or transposed) written the way people and tools
//! write them, random edits; the `csv` crate must read the output as the
//! input with exactly those edits, and everything else must come out byte
//! for byte.

use std::path::Path;

use proptest::prelude::*;

use super::super::read::quote_if_needed;
use super::super::{CellEdit, LoadOptions, load_bytes};
use super::rewrite;

/// A cell's text and whether the file quotes it even though it need not.
type Cell = (String, bool);

/// One line of the file: its cells, its terminator, and the blank lines
/// that follow it.
#[derive(Clone, Debug)]
struct Record {
    cells: Vec<Cell>,
    terminator: &'static str,
    blank_after: Vec<&'static str>,
}

#[derive(Clone, Debug)]
struct Table {
    delimiter: u8,
    /// Genes x samples: sample i is field i + 1 and the labels are a row.
    transpose: bool,
    /// The label's field index, or (transposed) the label row's record index.
    label_at: usize,
    /// Number of free-text columns (rows, transposed), ignored when loading.
    n_text: usize,
    /// Header first.
    records: Vec<Record>,
    n_samples: usize,
    /// The last record has no line terminator.
    unterminated: bool,
}

/// Texts with the characters that make CSV hard: both delimiters, quotes,
/// spaces at either end, embedded newlines, and nothing at all.
fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            4 => Just('a'),
            2 => Just('b'),
            2 => Just(' '),
            2 => Just(','),
            2 => Just('"'),
            1 => Just('\t'),
            1 => Just('\n'),
        ],
        0..5,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

/// A label: any text with something besides blanks in it.
fn label() -> impl Strategy<Value = String> {
    (text(), prop_oneof![Just("p"), Just("q"), Just("r")], text())
        .prop_map(|(a, core, b)| format!("{a}{core}{b}"))
}

fn terminator() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("\n"), Just("\r\n")]
}

fn line_end() -> impl Strategy<Value = (&'static str, Vec<&'static str>)> {
    (terminator(), proptest::collection::vec(terminator(), 0..2))
}

fn named(name: &str) -> Cell {
    (name.to_string(), false)
}

/// A samples-as-rows table (header `x`, free text `c0..`, `label` at
/// `label_at`), or the same cells transposed.
fn table() -> impl Strategy<Value = Table> {
    (
        prop_oneof![Just(b','), Just(b'\t')],
        0..3usize,
        2..7usize,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_flat_map(|(delimiter, n_text, n_samples, transpose, unterminated)| {
            let n_fields = n_text + 2;
            let sample = (
                proptest::collection::vec((text(), any::<bool>()), n_text),
                (label(), any::<bool>()),
                (1..100u32, any::<bool>()),
            );
            let n_records = if transpose { n_fields } else { n_samples } + 1;
            (
                0..n_fields,
                proptest::collection::vec(sample, n_samples),
                proptest::collection::vec(line_end(), n_records),
                Just((delimiter, n_text, transpose, unterminated)),
            )
        })
        .prop_map(
            |(label_at, samples, ends, (delimiter, n_text, transpose, unterminated))| {
                let mut header: Vec<Cell> = std::iter::once(named("x"))
                    .chain((0..n_text).map(|t| named(&format!("c{t}"))))
                    .collect();
                header.insert(label_at, named("label"));
                let rows: Vec<Vec<Cell>> = samples
                    .into_iter()
                    .map(|(mut cells, label, (x, quote_x))| {
                        cells.insert(0, (x.to_string(), quote_x));
                        cells.insert(label_at, label);
                        cells
                    })
                    .collect();
                let n_samples = rows.len();
                let lines: Vec<Vec<Cell>> = if transpose {
                    let ids = std::iter::once(named("name"))
                        .chain((0..n_samples).map(|i| named(&format!("s{i}"))));
                    std::iter::once(ids.collect())
                        .chain(header.iter().enumerate().map(|(f, name)| {
                            std::iter::once(name.clone())
                                .chain(rows.iter().map(|r| r[f].clone()))
                                .collect()
                        }))
                        .collect()
                } else {
                    std::iter::once(header).chain(rows).collect()
                };
                let records = lines
                    .into_iter()
                    .zip(ends)
                    .map(|(cells, (terminator, blank_after))| Record {
                        cells,
                        terminator,
                        blank_after,
                    })
                    .collect();
                Table {
                    delimiter,
                    transpose,
                    label_at: if transpose { label_at + 1 } else { label_at },
                    n_text,
                    records,
                    n_samples,
                    unterminated,
                }
            },
        )
}

/// A cell as a careful writer puts it: quoted when it must be (or when the
/// writer likes quotes), inner quotes doubled.
fn encode((text, quote): &Cell, delimiter: u8) -> String {
    let must = text
        .bytes()
        .any(|b| b == delimiter || b == b'"' || b == b'\n' || b == b'\r');
    if must || *quote {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.clone()
    }
}

impl Table {
    /// The file, each record's cells written by `cells` (None: left out).
    fn bytes(&self, cells: impl Fn(usize, &Record) -> Option<Vec<String>>) -> Vec<u8> {
        let mut out = String::new();
        let sep = if self.delimiter == b'\t' { "\t" } else { "," };
        for (r, rec) in self.records.iter().enumerate() {
            let last = r + 1 == self.records.len();
            if let Some(cells) = cells(r, rec) {
                out.push_str(&cells.join(sep));
                if !(last && self.unterminated) {
                    out.push_str(rec.terminator);
                }
            }
            if !(last && self.unterminated) {
                rec.blank_after.iter().for_each(|b| out.push_str(b));
            }
        }
        out.into_bytes()
    }

    /// A record's cells as the input has them.
    fn cells(&self, rec: &Record) -> Vec<String> {
        rec.cells
            .iter()
            .map(|c| encode(c, self.delimiter))
            .collect()
    }

    fn options(&self) -> LoadOptions {
        LoadOptions {
            label: Some("label".into()),
            delimiter: Some(self.delimiter),
            ignore: (0..self.n_text).map(|t| format!("c{t}")).collect(),
            transpose: self.transpose,
            // Labels with line breaks are legal CSV, which the export keeps.
            multiline_cells: true,
            ..LoadOptions::default()
        }
    }

    fn labels(&self) -> Vec<&str> {
        if self.transpose {
            let row = &self.records[self.label_at].cells[1..];
            row.iter().map(|c| c.0.as_str()).collect()
        } else {
            let rows = &self.records[1..];
            rows.iter()
                .map(|r| r.cells[self.label_at].0.as_str())
                .collect()
        }
    }

    /// (record, field) of sample i's label.
    fn label_cell(&self, i: usize) -> (usize, usize) {
        if self.transpose {
            (self.label_at, i + 1)
        } else {
            (i + 1, self.label_at)
        }
    }

    /// Whether dropping sample i leaves out (record, field).
    fn dropped_with(&self, i: usize, record: usize, field: usize) -> bool {
        if self.transpose {
            field == i + 1
        } else {
            record == i + 1
        }
    }
}

/// Every record as the `csv` crate reads it (blank lines are not records;
/// a record of the wrong length shows up in the comparison).
fn records(bytes: &[u8], delimiter: u8) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes)
        .records()
        .map(|r| match r {
            Ok(r) => r.iter().map(str::to_string).collect(),
            Err(e) => panic!("the csv crate cannot read it: {e}"),
        })
        .collect()
}

fn edit() -> impl Strategy<Value = Option<CellEdit>> {
    prop_oneof![
        3 => Just(None),
        2 => label().prop_map(|l| Some(CellEdit::Relabel(l))),
        1 => Just(Some(CellEdit::Drop)),
    ]
}

proptest! {
    #[test]
    fn only_the_edited_cells_and_dropped_samples_change(
        table in table(),
        edits in proptest::collection::vec(edit(), 6),
    ) {
        let input = table.bytes(|_, rec| Some(table.cells(rec)));
        let classes: std::collections::HashSet<&str> = table.labels().into_iter().collect();
        prop_assume!(classes.len() >= 2, "a table needs two classes to load");
        let ds = match load_bytes(Path::new("p.csv"), input.clone(), &table.options()) {
            Ok(ds) => ds,
            // A table whose features never vary is refused: nothing to rewrite.
            Err(e) if e.to_string().contains("one value in every sample") => return Ok(()),
            Err(e) => panic!("{e}\n{}", String::from_utf8_lossy(&input)),
        };
        prop_assert_eq!(ds.n_samples(), table.n_samples);
        // Every sample is kept, so sample i is data row (or column) i.
        let edits: Vec<(usize, CellEdit)> = edits
            .into_iter()
            .take(table.n_samples)
            .enumerate()
            .filter_map(|(i, e)| e.map(|e| (i, e)))
            .collect();
        let out = rewrite(&ds, &edits, None);
        let drops: Vec<usize> = edits
            .iter()
            .filter(|(_, e)| *e == CellEdit::Drop)
            .map(|(i, _)| *i)
            .collect();
        let kept = |r: usize, f: usize| !drops.iter().any(|&i| table.dropped_with(i, r, f));
        let relabels: Vec<((usize, usize), &String)> = edits
            .iter()
            .filter_map(|(i, e)| match e {
                CellEdit::Relabel(l) => Some((table.label_cell(*i), l)),
                CellEdit::Drop => None,
            })
            .collect();
        let new_label = |r: usize, f: usize| {
            relabels.iter().find(|(at, _)| *at == (r, f)).map(|(_, l)| *l)
        };

        // The csv crate reads the input with exactly these edits applied.
        let expected: Vec<Vec<String>> = records(&input, table.delimiter)
            .into_iter()
            .enumerate()
            .filter(|(r, _)| kept(*r, usize::MAX))
            .map(|(r, fields)| {
                fields
                    .into_iter()
                    .enumerate()
                    .filter(|(f, _)| kept(r, *f))
                    .map(|(f, text)| new_label(r, f).cloned().unwrap_or(text))
                    .collect()
            })
            .collect();
        prop_assert_eq!(records(&out, table.delimiter), expected);

        // Byte for byte: every cell, terminator and blank line as it was,
        // except the edited label cells and what a drop leaves out.
        let want = table.bytes(|r, rec| {
            kept(r, usize::MAX).then(|| {
                table
                    .cells(rec)
                    .into_iter()
                    .enumerate()
                    .filter(|(f, _)| kept(r, *f))
                    .map(|(f, cell)| match new_label(r, f) {
                        // A quoted cell stays quoted (R's write.csv style).
                        Some(l) if cell.trim_start_matches([' ', '\t']).starts_with('"') => {
                            format!("\"{}\"", l.replace('"', "\"\""))
                        }
                        Some(l) => quote_if_needed(l, table.delimiter),
                        None => cell,
                    })
                    .collect()
            })
        });
        prop_assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&want));
    }
}
