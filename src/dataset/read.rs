//! Bytes to records: gzip, BOM, delimiter sniffing, and a quote-aware
//! scanner that remembers where every record lies so an export can copy
//! untouched records byte for byte.

use std::borrow::Cow;
use std::io::Read;
use std::ops::Range;
use std::path::Path;

use super::{DataError, RecordSpan};

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const BOM: &[u8] = b"\xEF\xBB\xBF";

pub fn err(path: &Path, line: usize, column: usize, message: String, hint: &str) -> DataError {
    DataError {
        file: path.to_path_buf(),
        line,
        column,
        message: super::shown::escape_controls(&message),
        hint: super::shown::escape_controls(hint),
    }
}

/// Decompresses gzip content (recognised by its magic bytes, whatever the
/// file is called). Returns the content and whether it was compressed.
pub fn decompress(path: &Path, bytes: Vec<u8>) -> Result<(Vec<u8>, bool), DataError> {
    if !bytes.starts_with(&GZIP_MAGIC) {
        return Ok((bytes, false));
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(&bytes[..])
        .read_to_end(&mut out)
        .map_err(|e| {
            err(
                path,
                0,
                0,
                format!("cannot decompress the gzip data: {e}"),
                "check that the file is complete, or decompress it yourself",
            )
        })?;
    // Decoded once, it must be the table: content that is itself gzip (or
    // merely starts like it) would be read here but could not be read back
    // from an export, which writes the decoded bytes.
    if out.starts_with(&GZIP_MAGIC) {
        return Err(err(
            path,
            0,
            0,
            "the file is compressed twice (its decompressed content is gzip again)".into(),
            "decompress it once yourself (gunzip) and read the result",
        ));
    }
    Ok((out, true))
}

/// Records, and where a quote that is never closed opened.
pub struct Scanned {
    pub records: Vec<RecordSpan>,
    /// (1-based line, byte offset) of a quote still open at the end of the
    /// content: everything after it would be one cell.
    pub unclosed: Option<(usize, usize)>,
}

/// Splits content into records. A newline inside double quotes belongs to
/// the field; blank lines are not records (an export copies them as they
/// are). Remembers where a quote still open at the end opened.
pub fn scan(bytes: &[u8]) -> Scanned {
    let start = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    let mut records = Vec::new();
    let mut line = 1;
    let mut record_start = start;
    let mut record_line = 1;
    let mut in_quotes = false;
    let mut opened = (0, 0);
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                in_quotes = !in_quotes;
                if in_quotes {
                    opened = (line, i);
                }
            }
            b'\n' if !in_quotes => {
                let content_end = if i > record_start && bytes[i - 1] == b'\r' {
                    i - 1
                } else {
                    i
                };
                if content_end > record_start {
                    records.push(RecordSpan {
                        line: record_line,
                        content: record_start..content_end,
                        terminator: content_end..i + 1,
                    });
                }
                line += 1;
                record_start = i + 1;
                record_line = line;
            }
            b'\n' => line += 1,
            _ => {}
        }
        i += 1;
    }
    if record_start < bytes.len() {
        let mut end = bytes.len();
        if bytes[end - 1] == b'\r' {
            end -= 1;
        }
        if end > record_start {
            records.push(RecordSpan {
                line: record_line,
                content: record_start..end,
                terminator: end..bytes.len(),
            });
        }
    }
    Scanned {
        records,
        unclosed: in_quotes.then_some(opened),
    }
}

/// The records of a table's content and its delimiter (`given`, else
/// sniffed from the header), refusing an empty table and a quote that is
/// never closed.
pub fn table_records(
    path: &Path,
    bytes: &[u8],
    given: Option<u8>,
) -> Result<(Vec<RecordSpan>, u8), DataError> {
    let Scanned { records, unclosed } = scan(bytes);
    let Some(header) = records.first() else {
        return Err(err(
            path,
            0,
            0,
            "the file is empty".into(),
            "a header row and data rows are needed",
        ));
    };
    let header_bytes = &bytes[header.content.clone()];
    if let Some(d) = given {
        wrong_delimiter(path, header_bytes, d)?;
    }
    let delimiter = given.map_or_else(|| sniff_delimiter(path, header_bytes), Ok);
    if let Some((line, at)) = unclosed {
        // The open quote lies in the last record, which runs to the end.
        let column = match (&delimiter, records.last()) {
            (Ok(d), Some(rec)) if rec.content.start <= at => {
                let mut fields = Vec::new();
                split_fields(&bytes[rec.content.start..at], *d, &mut fields);
                fields.len()
            }
            _ => 0,
        };
        return Err(err(
            path,
            line,
            column,
            "a quote opens here and is never closed, so the rest of the file would be one cell"
                .into(),
            "close the quote where the cell ends, or remove it (a quote inside a quoted cell is written twice: \"\")",
        ));
    }
    Ok((records, delimiter?))
}

/// A `--delimiter` that leaves the header one field where another
/// delimiter splits it: the option is wrong, and saying so beats "no
/// feature columns are left" from the one column it makes.
fn wrong_delimiter(path: &Path, header: &[u8], given: u8) -> Result<(), DataError> {
    let mut fields = Vec::new();
    split_fields(header, given, &mut fields);
    if fields.len() > 1 {
        return Ok(());
    }
    let Ok(found) = sniff_delimiter(path, header) else {
        return Ok(());
    };
    split_fields(header, found, &mut fields);
    let name = |d: u8| match d {
        b'\t' => "tab".to_string(),
        d => format!("'{}'", char::from(d)),
    };
    Err(err(
        path,
        1,
        0,
        format!(
            "with --delimiter {} the header is a single column, but {} splits it into {} columns",
            name(given),
            name(found),
            fields.len()
        ),
        &format!(
            "leave out --delimiter (it is found from the header), or pass --delimiter {}",
            if found == b'\t' {
                "tab".to_string()
            } else {
                char::from(found).to_string()
            }
        ),
    ))
}

/// The bytes of a file, refusing what is not a regular file before opening
/// it: a FIFO with no writer would block forever in open(), and a device
/// like /dev/zero never ends. A symlink to a regular file is followed.
pub fn read_regular_file(path: &Path) -> Result<Vec<u8>, DataError> {
    let (mut file, len) = open_regular_file(path)?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.read_to_end(&mut bytes)
        .map_err(|e| cannot_read(path, e))?;
    Ok(bytes)
}

/// The file at `path` opened, and its length, after the checks of
/// [`read_regular_file`].
pub fn open_regular_file(path: &Path) -> Result<(std::fs::File, u64), DataError> {
    let cannot = |e| cannot_read(path, e);
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return Err(not_regular(path, &meta.file_type()));
    }
    let file = std::fs::File::open(path).map_err(cannot)?;
    // It may have been replaced between the look and the open.
    let meta = file.metadata().map_err(cannot)?;
    if !meta.is_file() {
        return Err(not_regular(path, &meta.file_type()));
    }
    Ok((file, meta.len()))
}

fn cannot_read(path: &Path, e: std::io::Error) -> DataError {
    err(
        path,
        0,
        0,
        format!("cannot read the file: {e}"),
        "check the path and that you may read it",
    )
}

/// A file's content as a stream, decompressed as it is read when it is
/// gzip, and the length of that content when known: the file's for plain
/// text; for gzip, the length its trailer records (modulo 4 GiB, of the
/// last member: a hint, not a promise). `None` when the file cannot be
/// read (the whole-file reader then says why).
pub fn content_stream(
    mut file: std::fs::File,
    len: u64,
) -> Option<(Box<dyn std::io::BufRead>, Option<u64>)> {
    use std::io::{BufReader, Seek, SeekFrom};
    // Large enough that reads and inflation go in big steps.
    const BUFFER: usize = 1 << 18;
    let mut magic = [0u8; 2];
    let gzip = file.read_exact(&mut magic).is_ok() && magic == GZIP_MAGIC;
    if !gzip {
        file.seek(SeekFrom::Start(0)).ok()?;
        return Some((Box::new(BufReader::with_capacity(BUFFER, file)), Some(len)));
    }
    let mut trailer = [0u8; 4];
    file.seek(SeekFrom::End(-4)).ok()?;
    file.read_exact(&mut trailer).ok()?;
    file.seek(SeekFrom::Start(0)).ok()?;
    let decoder = flate2::read::MultiGzDecoder::new(BufReader::with_capacity(BUFFER, file));
    let size = u64::from(u32::from_le_bytes(trailer));
    Some((
        Box::new(BufReader::with_capacity(BUFFER, decoder)),
        Some(size),
    ))
}

fn not_regular(path: &Path, kind: &std::fs::FileType) -> DataError {
    let what = if kind.is_dir() {
        "a directory"
    } else {
        special_kind(kind)
    };
    err(
        path,
        0,
        0,
        format!("this is {what}, not a regular file"),
        "give a table saved as a file (to read a stream, save it to a file first)",
    )
}

#[cfg(unix)]
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_kind: &std::fs::FileType) -> &'static str {
    "a special file"
}

/// Byte ranges of the fields of one record (quotes included).
pub fn split_fields(record: &[u8], delimiter: u8, out: &mut Vec<Range<usize>>) {
    out.clear();
    let mut start = 0;
    let mut in_quotes = false;
    for (i, &b) in record.iter().enumerate() {
        if b == b'"' {
            in_quotes = !in_quotes;
        } else if b == delimiter && !in_quotes {
            out.push(start..i);
            start = i + 1;
        }
    }
    out.push(start..record.len());
}

/// The text of a field: surrounding quotes removed, doubled quotes undone.
pub fn field_text(raw: &[u8]) -> String {
    let s = String::from_utf8_lossy(raw);
    let t = s.trim_matches(|c| c == ' ' || c == '\t');
    if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
        t[1..t.len() - 1].replace("\"\"", "\"")
    } else {
        s.into_owned()
    }
}

/// [`field_text`] without a copy for the usual cell (valid UTF-8, not
/// quoted): reading a large table allocates nothing per cell.
pub fn field_str(raw: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(raw) {
        Ok(s) if !quoted(raw) => Cow::Borrowed(s),
        _ => Cow::Owned(field_text(raw)),
    }
}

/// [`field_str`] of the field at `range` of a record, given the record as
/// text when it is valid UTF-8 (checked once per record, not per field: a
/// range between ASCII delimiters is then valid too).
pub fn field_in<'a>(text: Option<&'a str>, record: &'a [u8], range: Range<usize>) -> Cow<'a, str> {
    let raw = &record[range.clone()];
    match text.and_then(|s| s.get(range)) {
        Some(s) if !quoted(raw) => Cow::Borrowed(s),
        _ => field_str(raw),
    }
}

/// Whether [`field_text`] takes quotes off: the field, blanks (space, tab)
/// aside, starts and ends with a quote.
fn quoted(raw: &[u8]) -> bool {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    match (
        raw.iter().position(|b| !blank(b)),
        raw.iter().rposition(|b| !blank(b)),
    ) {
        (Some(first), Some(last)) => last > first && raw[first] == b'"' && raw[last] == b'"',
        _ => false,
    }
}

/// Number of newlines inside the first `upto` bytes of a record, so an error
/// in a field after a quoted multi-line field names the right line.
pub fn lines_before(record: &[u8], upto: usize) -> usize {
    record[..upto].iter().filter(|&&b| b == b'\n').count()
}

/// `lines_before` for every field of a record in one pass (fields in
/// order): per-field counting is quadratic in the row length, which a
/// 2000-gene row makes slow.
pub fn field_lines(record: &[u8], fields: &[std::ops::Range<usize>], out: &mut Vec<usize>) {
    out.clear();
    if !record.contains(&b'\n') {
        out.resize(fields.len(), 0);
        return;
    }
    let (mut seen, mut at) = (0, 0);
    for f in fields {
        seen += lines_before(&record[at..f.start.max(at)], f.start.max(at) - at);
        at = f.start.max(at);
        out.push(seen);
    }
}

/// Picks the delimiter of the header among comma, tab and semicolon: the one
/// that occurs most outside quotes.
pub fn sniff_delimiter(path: &Path, header: &[u8]) -> Result<u8, DataError> {
    let mut counts = [0usize; 3];
    let candidates = [b',', b'\t', b';'];
    let mut in_quotes = false;
    for &b in header {
        if b == b'"' {
            in_quotes = !in_quotes;
        } else if !in_quotes {
            for (c, d) in candidates.iter().enumerate() {
                if b == *d {
                    counts[c] += 1;
                }
            }
        }
    }
    let (best, &n) = counts
        .iter()
        .enumerate()
        .max_by_key(|(i, n)| (**n, std::cmp::Reverse(*i)))
        .unwrap_or((0, &0));
    if n == 0 {
        return Err(err(
            path,
            1,
            0,
            "the header has a single column, so there are no features next to the label".into(),
            "if the file uses another delimiter, pass it with --delimiter",
        ));
    }
    Ok(candidates[best])
}

/// Writes a cell, quoting it only if it needs quotes.
pub fn quote_if_needed(text: &str, delimiter: u8) -> String {
    let needs = text
        .bytes()
        .any(|b| b == delimiter || b == b'"' || b == b'\n' || b == b'\r')
        || text.starts_with(' ')
        || text.ends_with(' ');
    if needs {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// FNV-1a, 64 bit: a stable hash (unlike std's, it never changes between
/// Rust versions), used to key review sessions on the input's bytes.
pub fn content_hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn records_keep_terminators_and_skip_blank_lines() {
        let b = b"a,b\r\n1,2\n\n3,4";
        let r = scan(b).records;
        assert_eq!(r.len(), 3);
        assert_eq!(&b[r[0].content.clone()], b"a,b");
        assert_eq!(&b[r[0].terminator.clone()], b"\r\n");
        assert_eq!(r[2].line, 4);
        assert!(r[2].terminator.is_empty());
    }

    #[test]
    fn quoted_newlines_stay_in_the_record_and_lines_are_counted() {
        let b = b"a,b\n\"x\ny\",2\n3,4\n";
        let r = scan(b).records;
        assert_eq!(r.len(), 3);
        assert_eq!(r[1].line, 2);
        assert_eq!(r[2].line, 4);
        let mut f = Vec::new();
        split_fields(&b[r[1].content.clone()], b',', &mut f);
        assert_eq!(field_text(&b[r[1].content.clone()][f[0].clone()]), "x\ny");
    }

    #[test]
    fn field_str_is_field_text() {
        for raw in [
            &b"1.5"[..],
            b" 2 ",
            b"\"a\"\"b\"",
            b" \"q\" ",
            b"\"",
            b"\"open",
            b"\xff1",
            b"",
            b"\tx\t",
            b"\"\"",
            b" \" ",
            b"\t\"a,b\"\t",
            "\"\u{e9}\"".as_bytes(),
        ] {
            assert_eq!(field_str(raw), field_text(raw), "{raw:?}");
            let record = [b"x,".as_slice(), raw, b",y"].concat();
            let range = 2..2 + raw.len();
            let text = std::str::from_utf8(&record).ok();
            assert_eq!(field_in(text, &record, range), field_text(raw), "{raw:?}");
        }
    }

    #[test]
    fn bom_is_skipped() {
        let b = b"\xEF\xBB\xBFa,b\n1,2\n";
        let r = scan(b).records;
        assert_eq!(&b[r[0].content.clone()], b"a,b");
    }

    #[test]
    fn sniffs_comma_tab_semicolon_outside_quotes() {
        let p = Path::new("t.csv");
        assert_eq!(sniff_delimiter(p, b"a,b,c").unwrap(), b',');
        assert_eq!(sniff_delimiter(p, b"a\tb\tc").unwrap(), b'\t');
        assert_eq!(sniff_delimiter(p, b"\"a,b\";c;d").unwrap(), b';');
        let e = sniff_delimiter(p, b"abc").unwrap_err().to_string();
        assert!(
            e.contains("single column") && e.contains("--delimiter"),
            "{e}"
        );
    }

    #[test]
    fn quoting_only_when_needed() {
        assert_eq!(quote_if_needed("abc", b','), "abc");
        assert_eq!(quote_if_needed("a,b", b','), "\"a,b\"");
        assert_eq!(quote_if_needed("a\"b", b','), "\"a\"\"b\"");
        assert_eq!(field_text(b"\"a\"\"b\""), "a\"b");
    }

    #[test]
    fn gzip_is_recognised_by_content() {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(b"a,b\n1,2\n").unwrap();
        let gz = enc.finish().unwrap();
        let (plain, was) = decompress(Path::new("x"), gz).unwrap();
        assert!(was);
        assert_eq!(plain, b"a,b\n1,2\n");
        let (same, was) = decompress(Path::new("x"), b"a,b\n".to_vec()).unwrap();
        assert!(!was);
        assert_eq!(same, b"a,b\n");
    }

    #[test]
    fn hash_is_fnv1a() {
        assert_eq!(content_hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(content_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
