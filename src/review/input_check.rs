//! Whether the input file still holds the bytes the session was opened on
//! (DESIGN §4): checked before every journal append and every export, so
//! a file edited, cut or appended to during a review is named, never
//! silently exported from the old bytes.
//!
//! A key press must stay cheap on a large file, so the check is a `stat`:
//! the size and modification time recorded at opening. Only when they
//! moved are the bytes read and hashed against the loaded ones (a `touch`
//! or a save of the same content changes nothing); a spreadsheet or GEO
//! file, whose loaded bytes are a conversion, counts as changed then.

use std::cell::{Cell, OnceCell};
use std::path::Path;
use std::time::SystemTime;

use crate::dataset::{Dataset, SourceFormat, content_hash};

/// What `stat` says of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let m = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
        Some(Stamp {
            len: m.len(),
            modified: m.modified().ok(),
        })
    }
}

/// The input as it was loaded, and what the curator chose once told it
/// changed.
#[derive(Debug, Default)]
pub struct InputWatch {
    /// `None` for an input that is not a file (the embedded demo).
    stamp: Cell<Option<Stamp>>,
    /// The loaded bytes' hash, computed the first time it is needed.
    loaded: OnceCell<u64>,
    /// The curator goes on with the loaded version (decisions are about
    /// it; an export is written under a name of its own).
    keep_loaded: bool,
}

impl InputWatch {
    pub fn new(ds: &Dataset) -> InputWatch {
        InputWatch {
            stamp: Cell::new(Stamp::of(&ds.raw.path)),
            ..InputWatch::default()
        }
    }

    /// Whether the file on disk differs from the loaded bytes.
    pub fn changed(&self, ds: &Dataset) -> bool {
        let Some(was) = self.stamp.get() else {
            return false;
        };
        let Some(now) = Stamp::of(&ds.raw.path) else {
            return true;
        };
        if now == was {
            return false;
        }
        let same = ds.raw.format == SourceFormat::Delimited
            && on_disk_hash(ds)
                .is_some_and(|h| h == *self.loaded.get_or_init(|| ds.content_hash()));
        if same {
            // Touched, not changed: the next check is a `stat` again.
            self.stamp.set(Some(now));
        }
        !same
    }

    pub fn keep_loaded(&mut self) {
        self.keep_loaded = true;
    }

    pub fn keeps_loaded(&self) -> bool {
        self.keep_loaded
    }
}

/// The hash of the file's bytes as the loader sees them (decompressed).
fn on_disk_hash(ds: &Dataset) -> Option<u64> {
    let bytes = std::fs::read(&ds.raw.path).ok()?;
    let bytes = if ds.raw.gzip {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&bytes[..]), &mut out)
            .ok()?;
        out
    } else {
        bytes
    };
    Some(content_hash(&bytes))
}
