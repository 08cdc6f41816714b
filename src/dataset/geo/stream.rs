//! A series matrix read as it is decompressed, a block of lines at a time.
//!
//! A 54,675-probe x 200-sample matrix is 65 MB of text for an 87 MB
//! matrix of doubles: read whole, the text (and the gzip file it came from)
//! sat in memory beside the matrix it was being parsed into. Read as a
//! stream, the reader holds the header lines (a few hundred kB), one block
//! of table lines and the matrix.
//!
//! Only a file read this way exactly as it reads whole is read this way:
//! valid UTF-8 throughout (else the whole file is Windows-1252, which only
//! the end can tell), text from its start (no NUL byte where
//! [`super::super::binary::check_text`] looks), and no error of any kind.
//! Otherwise [`series`] gives `None` and the caller reads the whole file,
//! which says what is wrong as it always did.

use std::io::BufRead;
use std::path::Path;

use super::series::{self, TABLE_BEGIN, TABLE_END};
use super::table::Reader;
use super::{Ignore, Parsed};

/// Table lines read and parsed together: large enough to keep both cores
/// busy parsing (2,048 lines of 200 values is 1.5 MB of text), small
/// beside the matrix.
const BLOCK: usize = 2048;

/// How far [`super::sniff`] looks for the first line, and
/// [`super::super::binary::check_text`] for NUL bytes.
const SNIFF: usize = 4096;
const LOOK: usize = 8192;

/// The lines of a stream: 1-based numbers counting every line, the text
/// without its end of line; `None` on anything the whole-file reader would
/// read differently or refuse.
struct Lines<'a> {
    input: &'a mut dyn BufRead,
    buf: Vec<u8>,
    line: usize,
    /// Bytes read so far, and where the last line read began.
    offset: u64,
    start: u64,
}

impl Lines<'_> {
    /// The next line (its number, and where in `out` its text went), or
    /// `Some(None)` at the end; `None` when the stream cannot be read here.
    fn next_into(&mut self, out: &mut String) -> Option<Option<(usize, usize)>> {
        self.buf.clear();
        let read = self.input.read_until(b'\n', &mut self.buf).ok()?;
        if read == 0 {
            return Some(None);
        }
        if self.offset < LOOK as u64 {
            let look = (LOOK as u64 - self.offset) as usize;
            if self.buf[..look.min(self.buf.len())].contains(&0) {
                return None;
            }
        }
        self.start = self.offset;
        self.offset += read as u64;
        self.line += 1;
        let text = std::str::from_utf8(&self.buf).ok()?;
        let start = out.len();
        out.push_str(text.trim_end_matches('\n').trim_end_matches('\r'));
        Some(Some((self.line, start)))
    }

    /// The next line that is not blank, as an owned string.
    fn next_text(&mut self) -> Option<Option<(usize, String)>> {
        loop {
            let mut text = String::new();
            match self.next_into(&mut text)? {
                None => return Some(None),
                Some(_) if text.trim().is_empty() => continue,
                Some((line, _)) => return Some(Some((line, text))),
            }
        }
    }
}

/// The series matrix on `input` (decompressed), its table read with
/// `ignore`; `size` is the length of the decompressed text when known, to
/// allocate the matrix once. `None` when it is not a series matrix or
/// cannot be read as a stream exactly as the whole file would be read.
pub fn series(
    path: &Path,
    input: &mut dyn BufRead,
    size: Option<u64>,
    ignore: &mut Ignore<'_>,
) -> Option<Parsed> {
    let mut lines = Lines {
        input,
        buf: Vec::new(),
        line: 0,
        offset: 0,
        start: 0,
    };
    let (first, text) = lines.next_text()??;
    if lines.start >= SNIFF as u64 || !text.trim_start_matches('\u{feff}').starts_with("!Series_") {
        return None;
    }
    let mut head = vec![(first, text)];
    loop {
        let (line, text) = lines.next_text()??;
        if text.trim().eq_ignore_ascii_case(TABLE_BEGIN) {
            break;
        }
        head.push((line, text));
    }
    let head: Vec<(usize, &str)> = head.iter().map(|(l, t)| (*l, t.as_str())).collect();
    // A table without a header or rows is refused by the whole-file reader.
    let (header_line, header) = lines.next_text()??;
    if header.trim().eq_ignore_ascii_case(TABLE_END) {
        return None;
    }
    let mut block = Block::default();
    let mut more = block.fill(&mut lines)?;
    let rows = 1 + block.spans.len();
    let mut parsed = series::of_head(path, &head, Some(&header), rows).ok()?;
    let mut reader = Reader::new(path, &parsed.what, Some((header_line, &header))).ok()?;
    reader.reserve(block.probes_in(size, lines.offset));
    loop {
        reader.add(&block.rows(), ignore).ok()?;
        if !more {
            break;
        }
        more = block.fill(&mut lines)?;
    }
    // What follows the table is read too: a byte that is not UTF-8 there,
    // or a gzip stream cut short, changes how the whole file reads.
    let mut rest = String::new();
    while lines.next_into(&mut rest)?.is_some() {
        rest.clear();
    }
    let t = reader.finish();
    parsed.samples = t.samples;
    parsed.features = t.features;
    parsed.values = t.values;
    Some(parsed)
}

/// One block of table lines, in one string.
#[derive(Default)]
struct Block {
    text: String,
    /// (line number, start, end) of each non-blank line in `text`.
    spans: Vec<(usize, usize, usize)>,
}

impl Block {
    /// Reads the next lines of the table, up to [`BLOCK`]; whether the
    /// table goes on after them (`None`: the stream cannot be read here).
    fn fill(&mut self, lines: &mut Lines<'_>) -> Option<bool> {
        self.text.clear();
        self.spans.clear();
        while self.spans.len() < BLOCK {
            let Some((line, start)) = lines.next_into(&mut self.text)? else {
                return Some(false);
            };
            let text = &self.text[start..];
            if text.trim().is_empty() {
                self.text.truncate(start);
                continue;
            }
            if text.trim().eq_ignore_ascii_case(TABLE_END) {
                self.text.truncate(start);
                return Some(false);
            }
            self.spans.push((line, start, self.text.len()));
        }
        Some(true)
    }

    fn rows(&self) -> Vec<(usize, &str)> {
        self.spans
            .iter()
            .map(|&(line, start, end)| (line, &self.text[start..end]))
            .collect()
    }

    /// About how many probes the table has in all, from the bytes per
    /// line of this first block and the text's size; none when unknown.
    /// A sixteenth more covers the spread of line lengths (values have more
    /// or fewer digits); room left unused is given back at the end.
    fn probes_in(&self, size: Option<u64>, read: u64) -> usize {
        let (Some(size), Some(&(_, _, end))) = (size, self.spans.last()) else {
            return 0;
        };
        let per_line = (end as u64 / self.spans.len() as u64).max(1);
        let left = size.saturating_sub(read) / per_line;
        let probes = self.spans.len() as u64 + left + left / 16;
        usize::try_from(probes).unwrap_or(0)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::io::Read;

    use super::*;
    use crate::dataset::LoadOptions;

    fn read(text: &[u8]) -> Option<Parsed> {
        let mut ignore = Ignore::new(&LoadOptions::default(), None);
        series(Path::new("x"), &mut &text[..], None, &mut ignore)
    }

    /// What reads as a stream exactly as whole is read so; the rest is
    /// left to the whole-file reader.
    #[test]
    fn only_what_reads_alike_is_read_as_a_stream() {
        let gz = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/geo/GSE1122_series_matrix.txt.gz"),
        )
        .unwrap();
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut text)
            .unwrap();
        let parsed = read(&text).unwrap();
        assert_eq!(parsed.samples.len(), 15);
        assert_eq!(parsed.values.len(), parsed.features.len() * 15);
        let mut latin1 = text.clone();
        latin1.insert(20, 0xE9);
        assert!(read(&latin1).is_none(), "not UTF-8");
        let mut nul = text.clone();
        nul.insert(20, 0);
        assert!(read(&nul).is_none(), "a NUL where binary files are told");
        assert!(read(&text[..text.len() / 2]).is_none(), "cut short");
        assert!(read(b"a\tb\n1\t2\n").is_none(), "not a series matrix");
    }
}
