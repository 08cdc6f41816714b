//! Writing a whole file so that a reader (or a crash) sees either the old
//! file or the complete new one, never a part: the content goes to a
//! temporary file in the same directory (a rename is atomic only within one
//! filesystem), is synced, and is then renamed over the destination.

use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Writes `path` whole with what `write` produces.
///
/// With `overwrite` false an existing `path` is never replaced: the call
/// fails with [`io::ErrorKind::AlreadyExists`], even when the file appeared
/// after the caller last looked. When `write` (or any step) fails, neither
/// `path` nor a temporary file is left behind.
pub fn write_atomic(
    path: &Path,
    overwrite: bool,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // The temporary file is removed when `tmp` drops on any early return.
    let mut tmp = builder().tempfile_in(dir)?;
    {
        let mut out = BufWriter::new(tmp.as_file_mut());
        write(&mut out)?;
        out.flush()?;
    }
    tmp.as_file().sync_all()?;
    if overwrite {
        tmp.persist(path).map_err(|e| e.error)?;
    } else {
        tmp.persist_noclobber(path).map_err(|e| e.error)?;
    }
    sync_dir(dir);
    Ok(())
}

/// Temporary files named for who left them, should a crash leave one; on
/// Unix created with the mode `File::create` uses (0o666 less the umask)
/// rather than tempfile's owner-only 0o600, so the written file is as
/// readable as one written in place.
fn builder() -> tempfile::Builder<'static, 'static> {
    let mut b = tempfile::Builder::new();
    b.prefix(".relabel-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b
}

/// Makes the rename itself durable. Best effort: some filesystems refuse
/// to sync a directory, and the data is already on disk either way.
#[cfg(unix)]
fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Elsewhere a directory cannot be opened to sync it.
#[cfg(not(unix))]
fn sync_dir(_dir: &Path) {}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn the_content_lands_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        write_atomic(&path, false, |w| {
            w.write_all(b"a,b\n")?;
            w.write_all(b"1,2\n")
        })
        .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"a,b\n1,2\n");
        assert_eq!(names(dir.path()), ["out.csv"]);
    }

    #[test]
    fn an_existing_file_is_replaced_only_with_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        std::fs::write(&path, b"old").unwrap();
        let e = write_atomic(&path, false, |w| w.write_all(b"new")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(names(dir.path()), ["out.csv"], "no temporary file left");
        write_atomic(&path, true, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
    }

    #[test]
    fn a_failing_writer_leaves_no_file_and_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        let e = write_atomic(&path, true, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("disk on fire"))
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "disk on fire");
        assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
    }

    #[test]
    fn a_failing_writer_leaves_an_existing_file_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.json");
        std::fs::write(&path, b"old").unwrap();
        write_atomic(&path, true, |_| Err(io::Error::other("no"))).unwrap_err();
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(names(dir.path()), ["index.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn the_file_is_as_readable_as_one_written_in_place() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let in_place = dir.path().join("plain");
        std::fs::write(&in_place, b"x").unwrap();
        let path = dir.path().join("atomic");
        write_atomic(&path, false, |w| w.write_all(b"x")).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), mode(&in_place));
    }
}
