//! The text encoding of a delimited file. Everything after this reads
//! UTF-8; an export writes the cleaned file back in the input's encoding.
//!
//! - UTF-8, with or without its byte-order mark: read as it is.
//! - UTF-16 with a byte-order mark, as Excel saves "Unicode Text".
//! - Anything else that is not valid UTF-8 is read as Windows-1252, as
//!   Excel saves "CSV" on Western-European Windows (and Latin-1, which
//!   agrees with it on every printable character). Read as UTF-8 instead,
//!   each accented letter became U+FFFD, so "thé" and "thè" were one class,
//!   and a relabel wrote UTF-8 into a Windows-1252 file. Every byte
//!   sequence decodes as Windows-1252, so a file in yet another encoding
//!   (Shift-JIS, say) reads as wrong letters rather than an error: the
//!   data notes say which encoding was assumed.
//!
//! The guess is made again on every read, so a cleaned file is read as
//! written unless the curator's edits removed every byte that was not
//! UTF-8 and all its other non-ASCII bytes happen to form UTF-8 (`Ã©`
//! written in Windows-1252 is the UTF-8 of `é`): text that was already
//! mis-decoded once, then read as UTF-8.

use std::borrow::Cow;

use encoding_rs::{UTF_16BE, UTF_16LE, WINDOWS_1252};

/// How a file's text was stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TextEncoding {
    #[default]
    Utf8,
    Utf16Le,
    Utf16Be,
    Windows1252,
}

impl TextEncoding {
    /// The name a curator knows the encoding by.
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "UTF-8",
            TextEncoding::Utf16Le => "UTF-16LE",
            TextEncoding::Utf16Be => "UTF-16BE",
            TextEncoding::Windows1252 => "Windows-1252",
        }
    }
}

/// `bytes` as UTF-8, and the encoding they were in. UTF-16's byte-order
/// mark is left out (UTF-8's stays: the reader skips it and an export
/// keeps it).
pub fn to_utf8(bytes: Vec<u8>) -> (Vec<u8>, TextEncoding) {
    let utf16 = match encoding_rs::Encoding::for_bom(&bytes) {
        Some((e, bom)) if e == UTF_16LE => Some((TextEncoding::Utf16Le, e, bom)),
        Some((e, bom)) if e == UTF_16BE => Some((TextEncoding::Utf16Be, e, bom)),
        _ => None,
    };
    if let Some((encoding, e, bom)) = utf16 {
        let (text, _) = e.decode_without_bom_handling(&bytes[bom..]);
        return (text.into_owned().into_bytes(), encoding);
    }
    if std::str::from_utf8(&bytes).is_ok() {
        return (bytes, TextEncoding::Utf8);
    }
    let (text, _) = WINDOWS_1252.decode_without_bom_handling(&bytes);
    (text.into_owned().into_bytes(), TextEncoding::Windows1252)
}

/// UTF-8 `bytes` (what [`to_utf8`] gave, with edits) in `encoding` again.
/// Windows-1252 maps every character its decoding can give back to its
/// byte, and an export writes only the file's own texts (its labels, and
/// ASCII), so nothing is lost.
pub fn from_utf8(bytes: Vec<u8>, encoding: TextEncoding) -> Vec<u8> {
    let text = || String::from_utf8_lossy(&bytes).into_owned();
    match encoding {
        TextEncoding::Utf8 => bytes,
        TextEncoding::Windows1252 => {
            let text = text();
            let (out, _, _) = WINDOWS_1252.encode(&text);
            match out {
                Cow::Borrowed(b) => b.to_vec(),
                Cow::Owned(b) => b,
            }
        }
        TextEncoding::Utf16Le | TextEncoding::Utf16Be => {
            let le = encoding == TextEncoding::Utf16Le;
            let text = text();
            let mut out = Vec::with_capacity(2 * text.len() + 2);
            for unit in std::iter::once(0xFEFF).chain(text.encode_utf16()) {
                out.extend_from_slice(&if le {
                    unit.to_le_bytes()
                } else {
                    unit.to_be_bytes()
                });
            }
            out
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_read_as_it_is() {
        for text in ["a,b\n1,x\n", "\u{feff}a,é\n1,thé\n"] {
            let (out, e) = to_utf8(text.as_bytes().to_vec());
            assert_eq!((out.as_slice(), e), (text.as_bytes(), TextEncoding::Utf8));
            assert_eq!(from_utf8(out, e), text.as_bytes());
        }
    }

    #[test]
    fn windows_1252_is_decoded_and_written_back_byte_for_byte() {
        // "thé", "thè", the euro sign (0x80) and a curly quote (0x92).
        let raw = b"a;label\n1;th\xe9\n2;th\xe8\n3;\x80\x92\n".to_vec();
        let (out, e) = to_utf8(raw.clone());
        assert_eq!(e, TextEncoding::Windows1252);
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            "a;label\n1;thé\n2;thè\n3;€\u{2019}\n"
        );
        assert_eq!(from_utf8(out, e), raw);
        // Every byte decodes, and comes back.
        let all: Vec<u8> = (0..=255).collect();
        let (out, e) = to_utf8(all.clone());
        assert_eq!(from_utf8(out, e), all);
    }

    #[test]
    fn utf16_with_its_mark_is_decoded_and_written_back() {
        let text = "a\tlabel\n1\tthé\n";
        for le in [true, false] {
            let mut raw: Vec<u8> = Vec::new();
            for unit in std::iter::once(0xFEFF).chain(text.encode_utf16()) {
                raw.extend_from_slice(&if le {
                    unit.to_le_bytes()
                } else {
                    unit.to_be_bytes()
                });
            }
            let (out, e) = to_utf8(raw.clone());
            assert_eq!(out, text.as_bytes());
            assert_eq!(e.name(), if le { "UTF-16LE" } else { "UTF-16BE" });
            assert_eq!(from_utf8(out, e), raw);
        }
    }
}
