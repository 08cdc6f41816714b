//! The sessions in the store, as `relabel sessions` lists them, and a
//! session set aside so that its file opens fresh. Setting aside moves the
//! journal into `forgotten/` in the store, never deletes it: what the
//! curator decided can still be read there.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::ReviewError;
use super::journal::{Lock, take_lock};
use super::time::{now, rfc3339};

/// One journal in the store.
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    pub key: String,
    /// The input as its header names it ("?" when the header is unreadable).
    pub file: String,
    /// Entries after the header (decisions, undos, comments, exports).
    pub entries: usize,
    /// When the journal was last written (UTC).
    pub modified: String,
    /// The session of an earlier version of a file that has changed since:
    /// the index keeps the key each path last had, and this is not it.
    pub older: bool,
}

/// The folder set-aside journals go to.
pub fn forgotten_dir(store: &Path) -> PathBuf {
    store.join("forgotten")
}

/// Path -> the key it last opened with.
fn index(store: &Path) -> BTreeMap<String, String> {
    std::fs::read(store.join("index.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn header_file(text: &str) -> String {
    text.lines()
        .next()
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .and_then(|v| v.get("file").and_then(|f| f.as_str()).map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// Every session in `store`, the most recently written first.
pub fn list(store: &Path) -> Result<Vec<Listed>, ReviewError> {
    let io = |e: std::io::Error| ReviewError::Io(format!("cannot read {}: {e}", store.display()));
    let read = match std::fs::read_dir(store) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(e)),
    };
    let index = index(store);
    let mut out = Vec::new();
    let mut times = Vec::new();
    for entry in read {
        let path = entry.map_err(io)?.path();
        let Some(key) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".jsonl"))
        else {
            continue;
        };
        let text = String::from_utf8_lossy(&std::fs::read(&path).map_err(io)?).into_owned();
        let secs = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs() as i64);
        let indexed = index
            .iter()
            .find(|(_, k)| *k == key)
            .map(|(p, _)| p.clone());
        let file = indexed.clone().unwrap_or_else(|| header_file(&text));
        // Not the path's current key, but the path has one: a newer version.
        let older = indexed.is_none()
            && Path::new(&file)
                .canonicalize()
                .is_ok_and(|p| index.contains_key(&p.display().to_string()));
        times.push(secs);
        out.push(Listed {
            key: key.to_string(),
            file,
            entries: text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .count()
                .saturating_sub(1),
            modified: rfc3339(secs),
            older,
        });
    }
    let mut order: Vec<usize> = (0..out.len()).collect();
    order.sort_by(|&a, &b| times[b].cmp(&times[a]).then(out[a].key.cmp(&out[b].key)));
    Ok(order.into_iter().map(|i| out[i].clone()).collect())
}

/// Moves the journal of `key` into `forgotten/` (named with the time), so
/// the file it belongs to opens with no decisions. `None` when there was
/// none; an error when a review screen has it open.
pub fn set_aside(store: &Path, key: &str) -> Result<Option<PathBuf>, ReviewError> {
    let journal = store.join(format!("{key}.jsonl"));
    if !journal.exists() {
        return Ok(None);
    }
    let _guard = match take_lock(store, key)? {
        Lock::Busy(holder) => {
            return Err(ReviewError::Io(format!(
                "the session is open in {holder}: quit that review screen first"
            )));
        }
        other => other,
    };
    let dir = forgotten_dir(store);
    let fail =
        |e: std::io::Error| ReviewError::Io(format!("cannot move {}: {e}", journal.display()));
    std::fs::create_dir_all(&dir).map_err(fail)?;
    let stamp = now().replace(':', "-");
    let to = dir.join(format!("{key}-{stamp}.jsonl"));
    std::fs::rename(&journal, &to).map_err(fail)?;
    let backup = store.join(format!("{key}.jsonl.bak"));
    if backup.exists() {
        let _ = std::fs::rename(&backup, dir.join(format!("{key}-{stamp}.jsonl.bak")));
    }
    Ok(Some(to))
}

/// Sets aside every session of `input` (its current one and those of its
/// earlier versions), for `relabel sessions forget`.
pub fn forget_file(store: &Path, input: &Path) -> Result<Vec<PathBuf>, ReviewError> {
    let canonical = input
        .canonicalize()
        .unwrap_or_else(|_| input.to_path_buf())
        .display()
        .to_string();
    let given = input.display().to_string();
    let mut moved = Vec::new();
    for s in list(store)? {
        let same = s.file == canonical
            || s.file == given
            || Path::new(&s.file)
                .canonicalize()
                .is_ok_and(|p| p.display().to_string() == canonical);
        if same && let Some(to) = set_aside(store, &s.key)? {
            moved.push(to);
        }
    }
    Ok(moved)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::dataset::{LoadOptions, load};
    use crate::review::Session;

    /// A file that changed keeps its old session, listed as an earlier
    /// version's; forgetting the file sets both aside.
    #[test]
    fn an_earlier_version_is_listed_as_such_and_forgotten_with_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store");
        let input = dir.path().join("t.csv");
        let opts = LoadOptions::default();
        std::fs::write(&input, "x,label\n1,a\n2,a\n3,b\n4,b\n").unwrap();
        let (mut s, _) = Session::open(load(&input, &opts).unwrap(), Some(&store)).unwrap();
        s.keep(0).unwrap();
        drop(s);
        std::fs::write(&input, "x,label\n1,a\n2,a\n3,b\n5,b\n").unwrap();
        let (s, _) = Session::open(load(&input, &opts).unwrap(), Some(&store)).unwrap();
        drop(s);
        let listed = list(&store).unwrap();
        assert_eq!(listed.len(), 2, "{listed:?}");
        assert_eq!(listed.iter().filter(|l| l.older).count(), 1, "{listed:?}");
        let older = listed.iter().find(|l| l.older).unwrap();
        assert_eq!(older.entries, 1);
        let moved = forget_file(&store, &input).unwrap();
        assert_eq!(moved.len(), 2);
        assert!(list(&store).unwrap().is_empty());
        assert_eq!(std::fs::read_dir(forgotten_dir(&store)).unwrap().count(), 2);
    }
}
