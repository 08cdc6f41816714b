//! Writing a whole file so that a reader (or a crash) sees either the old
//! file or the complete new one, never a part: the content goes to a
//! temporary file in the same directory (a rename is atomic only within one
//! filesystem), is synced, and is then renamed over the destination.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// What every temporary file of ours has in its name, after `.<name>`
/// (`.out.csv.relabel-tmp-a1B2c3`), so that one a crash left behind is
/// recognised and removed ([`remove_stale_temps`]) and nothing else is.
pub const TEMP_MARK: &str = ".relabel-tmp-";
/// The random part after [`TEMP_MARK`]: this many ASCII letters and digits.
const TEMP_RANDOM: usize = 6;
/// A temporary file younger than this may belong to a write in progress.
pub const STALE_AFTER: Duration = Duration::from_secs(60);

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
    stage(path, write)?.commit(overwrite)
}

/// A file written whole and synced under a temporary name beside its
/// destination, not yet renamed: [`Staged::commit`] puts it in place;
/// dropping it removes the temporary file. Staging two files before
/// committing either lets a caller choose the order in which they appear.
#[derive(Debug)]
pub struct Staged {
    tmp: tempfile::NamedTempFile,
    path: PathBuf,
    dir: PathBuf,
}

/// Writes what `write` produces to a synced temporary file beside `path`.
pub fn stage(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<Staged> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The temporary file is removed when `tmp` drops on any early return.
    let prefix = format!(".{name}{TEMP_MARK}");
    let mut tmp = builder(&prefix).tempfile_in(dir)?;
    {
        let mut out = BufWriter::new(tmp.as_file_mut());
        write(&mut out)?;
        out.flush()?;
    }
    tmp.as_file().sync_all()?;
    Ok(Staged {
        tmp,
        path: path.to_path_buf(),
        dir: dir.to_path_buf(),
    })
}

impl Staged {
    /// Renames the temporary file over the destination (see
    /// [`write_atomic`] for `overwrite`) and makes the rename durable.
    pub fn commit(self, overwrite: bool) -> io::Result<()> {
        if overwrite {
            self.tmp.persist(&self.path).map_err(|e| e.error)?;
        } else {
            self.tmp
                .persist_noclobber(&self.path)
                .map_err(|e| e.error)?;
        }
        sync_dir(&self.dir);
        Ok(())
    }
}

/// Temporary files named for who left them (`.<name>.relabel-tmp-XXXXXX`),
/// should a crash leave one; on Unix created with the mode `File::create`
/// uses (0o666 less the umask) rather than tempfile's owner-only 0o600, so
/// the written file is as readable as one written in place.
fn builder(prefix: &str) -> tempfile::Builder<'_, 'static> {
    let mut b = tempfile::Builder::new();
    b.prefix(prefix).rand_bytes(TEMP_RANDOM).suffix("");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b
}

/// Whether `name` is one of our temporary files: `.<name>` then
/// [`TEMP_MARK`] then exactly [`TEMP_RANDOM`] ASCII letters and digits.
pub fn is_temp_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.') else {
        return false;
    };
    let Some(at) = rest.rfind(TEMP_MARK) else {
        return false;
    };
    let random = &rest[at + TEMP_MARK.len()..];
    at > 0 && random.len() == TEMP_RANDOM && random.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Removes the temporary files of ours in `dir` that a killed write left:
/// only names [`is_temp_name`] accepts, only regular files, only those
/// last modified more than `older_than` ago (a younger one may be another
/// relabel's write in progress). Best effort; returns how many went.
pub fn remove_stale_temps(dir: &Path, older_than: Duration) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let now = SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(is_temp_name) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > older_than);
        if meta.is_file() && old && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
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

    #[test]
    fn temporary_files_are_named_after_their_destination() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        let staged = stage(&path, |w| w.write_all(b"x")).unwrap();
        let names = names(dir.path());
        assert_eq!(names.len(), 1);
        assert!(names[0].starts_with(".out.csv.relabel-tmp-"), "{names:?}");
        assert!(is_temp_name(&names[0]), "{names:?}");
        drop(staged);
        assert!(
            self::names(dir.path()).is_empty(),
            "a dropped stage cleans up"
        );
    }

    #[test]
    fn only_our_temporary_names_are_recognised() {
        assert!(is_temp_name(".a.csv.relabel-tmp-aB3xY9"));
        assert!(!is_temp_name(".a.csv.relabel-tmp-aB3xY"), "too short");
        assert!(!is_temp_name(".a.csv.relabel-tmp-aB3xY9z"), "too long");
        assert!(
            !is_temp_name(".a.csv.relabel-tmp-aB3-Y9"),
            "not alphanumeric"
        );
        assert!(!is_temp_name("a.csv.relabel-tmp-aB3xY9"), "not hidden");
        assert!(!is_temp_name("..relabel-tmp-aB3xY9"), "no name");
        assert!(
            !is_temp_name(".relabel-abcdef"),
            "the old pattern is not ours to guess"
        );
    }

    #[test]
    fn stale_temporary_files_of_ours_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let old = SystemTime::now() - Duration::from_secs(3600);
        let make = |name: &str, aged: bool| {
            let p = dir.path().join(name);
            std::fs::write(&p, b"x").unwrap();
            if aged {
                let f = std::fs::File::options().write(true).open(&p).unwrap();
                f.set_modified(old).unwrap();
            }
        };
        make(".out.csv.relabel-tmp-abc123", true);
        make(".out.csv.relabel-tmp-def456", false);
        make(".out.csv.other-tmp-abc123", true);
        make("data.csv", true);
        std::fs::create_dir(dir.path().join(".d.relabel-tmp-zzz999")).unwrap();
        assert_eq!(remove_stale_temps(dir.path(), STALE_AFTER), 1);
        assert_eq!(
            names(dir.path()),
            [
                ".d.relabel-tmp-zzz999",
                ".out.csv.other-tmp-abc123",
                ".out.csv.relabel-tmp-def456",
                "data.csv"
            ]
        );
    }
}
