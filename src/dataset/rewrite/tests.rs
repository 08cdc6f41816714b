//! The byte-exact rewrite against an independent CSV reader: random small
//! tables written the way people and tools write them, random edits; the
//! `csv` crate must read the output as the input with exactly those edits,
//! and every line not edited must come out byte for byte.

use std::path::Path;

use proptest::prelude::*;

use super::super::read::quote_if_needed;
use super::super::{CellEdit, LoadOptions, load_bytes};
use super::rewrite;

/// A cell's text and whether the file quotes it even though it need not.
type Cell = (String, bool);

/// One data row: its cells (label at `label_at`), its line terminator, and
/// the blank lines that follow it.
#[derive(Clone, Debug)]
struct Row {
    cells: Vec<Cell>,
    terminator: &'static str,
    blank_after: Vec<&'static str>,
}

#[derive(Clone, Debug)]
struct Table {
    delimiter: u8,
    /// Field index of the label column.
    label_at: usize,
    /// Number of free-text columns (ignored when loading) besides `x` and the label.
    n_text: usize,
    header_terminator: &'static str,
    rows: Vec<Row>,
    /// The last row has no line terminator.
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

fn table() -> impl Strategy<Value = Table> {
    (
        prop_oneof![Just(b','), Just(b'\t')],
        0..3usize,
        2..7usize,
        terminator(),
        any::<bool>(),
    )
        .prop_flat_map(
            |(delimiter, n_text, n_rows, header_terminator, unterminated)| {
                let n_fields = n_text + 2;
                let row = (
                    proptest::collection::vec((text(), any::<bool>()), n_text),
                    (label(), any::<bool>()),
                    (1..100u32, any::<bool>()),
                    terminator(),
                    proptest::collection::vec(terminator(), 0..2),
                );
                (
                    0..n_fields,
                    proptest::collection::vec(row, n_rows),
                    Just((delimiter, n_text, header_terminator, unterminated)),
                )
            },
        )
        .prop_map(
            |(label_at, rows, (delimiter, n_text, header_terminator, unterminated))| {
                let rows = rows
                    .into_iter()
                    .map(|(mut free, label, (x, quote_x), terminator, blank_after)| {
                        // Feature `x` first among the non-label fields, then the free text.
                        free.insert(0, (x.to_string(), quote_x));
                        free.insert(label_at, label);
                        Row {
                            cells: free,
                            terminator,
                            blank_after,
                        }
                    })
                    .collect();
                Table {
                    delimiter,
                    label_at,
                    n_text,
                    header_terminator,
                    rows,
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

fn join(cells: &[String], delimiter: u8) -> String {
    cells.join(std::str::from_utf8(&[delimiter]).unwrap_or(","))
}

impl Table {
    fn header(&self) -> Vec<String> {
        let mut h: Vec<String> = std::iter::once("x".to_string())
            .chain((0..self.n_text).map(|t| format!("c{t}")))
            .collect();
        h.insert(self.label_at, "label".into());
        h
    }

    fn last_terminator(&self, r: usize, t: &'static str) -> &'static str {
        if self.unterminated && r + 1 == self.rows.len() {
            ""
        } else {
            t
        }
    }

    /// The file, with each data row's line written by `line` (None: left out).
    fn bytes(&self, line: impl Fn(usize, &Row) -> Option<String>) -> Vec<u8> {
        let mut out = join(&self.header(), self.delimiter) + self.header_terminator;
        for (r, row) in self.rows.iter().enumerate() {
            if let Some(content) = line(r, row) {
                out.push_str(&content);
                out.push_str(self.last_terminator(r, row.terminator));
            }
            if self.last_terminator(r, "\n").is_empty() {
                continue;
            }
            for blank in &row.blank_after {
                out.push_str(blank);
            }
        }
        out.into_bytes()
    }

    fn line(&self, row: &Row) -> String {
        let cells: Vec<String> = row
            .cells
            .iter()
            .map(|c| encode(c, self.delimiter))
            .collect();
        join(&cells, self.delimiter)
    }

    fn options(&self) -> LoadOptions {
        LoadOptions {
            label: Some("label".into()),
            delimiter: Some(self.delimiter),
            ignore: (0..self.n_text).map(|t| format!("c{t}")).collect(),
            ..LoadOptions::default()
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
    fn only_the_edited_cells_and_dropped_lines_change(
        table in table(),
        edits in proptest::collection::vec(edit(), 6),
    ) {
        let input = table.bytes(|_, row| Some(table.line(row)));
        let classes: std::collections::HashSet<&str> =
            table.rows.iter().map(|r| r.cells[table.label_at].0.as_str()).collect();
        prop_assume!(classes.len() >= 2, "a table needs two classes to load");
        let ds = match load_bytes(Path::new("p.csv"), input.clone(), &table.options()) {
            Ok(ds) => ds,
            Err(e) => panic!("{e}\n{}", String::from_utf8_lossy(&input)),
        };
        prop_assert_eq!(ds.n_samples(), table.rows.len());
        // Every sample is kept, so sample i is data row i.
        let edits: Vec<(usize, CellEdit)> = edits
            .into_iter()
            .take(table.rows.len())
            .enumerate()
            .filter_map(|(i, e)| e.map(|e| (i, e)))
            .collect();
        let edit_of = |r: usize| edits.iter().find(|(i, _)| *i == r).map(|(_, e)| e);
        let out = rewrite(&ds, &edits, None);

        // The csv crate reads the input with exactly these edits applied.
        let mut expected = records(&input, table.delimiter);
        for r in (0..table.rows.len()).rev() {
            match edit_of(r) {
                Some(CellEdit::Drop) => {
                    expected.remove(r + 1);
                }
                Some(CellEdit::Relabel(l)) => expected[r + 1][table.label_at].clone_from(l),
                None => {}
            }
        }
        prop_assert_eq!(records(&out, table.delimiter), expected);

        // Byte for byte: untouched lines, blank lines and terminators as they
        // were; an edited line differs only in its label cell.
        let want = table.bytes(|r, row| match edit_of(r) {
            None => Some(table.line(row)),
            Some(CellEdit::Drop) => None,
            Some(CellEdit::Relabel(l)) => {
                let mut cells: Vec<String> =
                    row.cells.iter().map(|c| encode(c, table.delimiter)).collect();
                cells[table.label_at] = quote_if_needed(l, table.delimiter);
                Some(join(&cells, table.delimiter))
            }
        });
        prop_assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&want));
    }
}
