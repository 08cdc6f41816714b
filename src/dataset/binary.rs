//! A file that is not text is named for what it is, not read as a table
//! of one garbled column ("the table has a header but no samples"). The
//! formats a curator most often has beside their tables are recognised by
//! their first bytes; any other file with NUL bytes in its start is binary
//! (no text encoding relabel reads writes a NUL, UTF-16 aside, which is
//! known by its byte-order mark).

use std::path::Path;

use super::DataError;
use super::read::err;

/// (first bytes, what the file is, what to do instead).
const KNOWN: [(&[u8], &str, &str); 11] = [
    (
        b"RDX2\n",
        "an R data file (.RData/.rda)",
        "in R, load() it and write.csv() the table",
    ),
    (
        b"RDX3\n",
        "an R data file (.RData/.rda)",
        "in R, load() it and write.csv() the table",
    ),
    (
        b"RDA2\n",
        "an R data file (.RData/.rda)",
        "in R, load() it and write.csv() the table",
    ),
    (
        b"RDA3\n",
        "an R data file (.RData/.rda)",
        "in R, load() it and write.csv() the table",
    ),
    (
        b"X\n\x00\x00\x00",
        "an R serialised object (.rds)",
        "in R, readRDS() it and write.csv() the table",
    ),
    (
        b"\x89HDF\r\n\x1a\n",
        "an HDF5 file (.h5, .h5ad, .mat v7.3)",
        "export the table from it as CSV (for AnnData, adata.to_df().to_csv())",
    ),
    (
        b"MATLAB 5.0 MAT-file",
        "a MATLAB data file (.mat)",
        "in MATLAB, writetable() or csvwrite() the matrix",
    ),
    (
        b"\x93NUMPY",
        "a NumPy array (.npy)",
        "write it as CSV with a label column (numpy.savetxt or pandas)",
    ),
    (
        b"%PDF",
        "a PDF document",
        "open the table it was made from, saved as CSV",
    ),
    (
        b"\xFD7zXZ\x00",
        "an xz-compressed file",
        "decompress it (unxz) and open the result",
    ),
    (
        b"\x89PNG",
        "a PNG image",
        "open the table it was made from, saved as CSV",
    ),
];

/// Formats whose first bytes a text header could begin with, known by
/// their last bytes too (Parquet, Arrow) or a longer mark (bzip2's block
/// magic after its level digit).
fn framed(bytes: &[u8]) -> Option<(&'static str, &'static str)> {
    let both = |m: &[u8]| bytes.len() >= 2 * m.len() && bytes.starts_with(m) && bytes.ends_with(m);
    if both(b"PAR1") {
        Some((
            "a Parquet file",
            "write it as CSV (pandas: pd.read_parquet(f).to_csv(...))",
        ))
    } else if both(b"ARROW1") {
        Some((
            "an Arrow/Feather file",
            "write it as CSV (pandas: pd.read_feather(f).to_csv(...))",
        ))
    } else if bytes.starts_with(b"BZh") && bytes.get(4..10) == Some(b"1AY&SY") {
        Some((
            "a bzip2-compressed file",
            "decompress it (bunzip2) and open the result",
        ))
    } else {
        None
    }
}

/// Affymetrix CEL files: version 4 (binary, starting with the integer 64)
/// and Command Console (starting with the byte 59, version 1).
const CEL: [&[u8]; 2] = [b"\x40\x00\x00\x00\x04\x00\x00\x00", b"\x3b\x01"];

/// How much of the start is looked at for NUL bytes.
const LOOK: usize = 8192;

/// Refuses content that is not text, naming the format when it is known.
pub fn check_text(path: &Path, bytes: &[u8]) -> Result<(), DataError> {
    if let Some((_, what, todo)) = KNOWN.iter().find(|(magic, _, _)| bytes.starts_with(magic)) {
        return Err(refusal(path, what, todo));
    }
    if let Some((what, todo)) = framed(bytes) {
        return Err(refusal(path, what, todo));
    }
    if CEL.iter().any(|m| bytes.starts_with(m)) {
        return Err(refusal(
            path,
            "an Affymetrix CEL file (one array's raw scan)",
            "summarise the arrays into a table first (e.g. R's affy::rma or oligo::rma), or open the series matrix from GEO",
        ));
    }
    let utf16 = bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF");
    if !utf16 && bytes[..bytes.len().min(LOOK)].contains(&0) {
        return Err(refusal(
            path,
            "a binary file",
            "save the table as CSV or TSV (text), or open the file relabel should read",
        ));
    }
    Ok(())
}

fn refusal(path: &Path, what: &str, todo: &str) -> DataError {
    err(
        path,
        0,
        0,
        format!("this is {what}, not a table of text"),
        todo,
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn binary_files_are_named_and_text_passes() {
        let p = Path::new("x");
        let named = |b: &[u8]| check_text(p, b).unwrap_err().message;
        assert!(named(b"RDX3\nX\n\x00\x00").contains("an R data file"));
        assert!(named(b"%PDF-1.7\n").contains("PDF"));
        assert!(named(b"\x40\x00\x00\x00\x04\x00\x00\x00rest").contains("CEL"));
        assert!(named(b"a,b\n\x00\x01\x02").contains("a binary file"));
        assert!(check_text(p, b"a,b,label\n1,2,x\n").is_ok());
        assert!(
            check_text(p, b"\xFF\xFEa\x00,\x00").is_ok(),
            "UTF-16 is text"
        );
        assert!(check_text(p, b"").is_ok());
    }
}
