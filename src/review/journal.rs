//! The session journal: one JSON object per line, appended and synced
//! before a decision counts as done, replayed when the same input is
//! opened again. Samples are recorded by data row and id, classes by name,
//! so the file reads on its own.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::ReviewError;
use crate::atomic_write::write_atomic;
use crate::dataset::{Dataset, content_hash};
use crate::models::ModelOptions;

/// A decision as written to the journal: classes by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recorded {
    Relabel(String),
    Keep,
    Drop,
}

/// One sample's change within a step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// 0-based data row of the input.
    pub row: usize,
    pub id: String,
    pub before: Option<Recorded>,
    pub after: Option<Recorded>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Entry {
    Header {
        file: String,
        key: String,
        samples: usize,
        created: String,
    },
    /// One undo step (a single decision, or a bulk one).
    Step {
        group: u64,
        time: String,
        changes: Vec<Change>,
    },
    Undo {
        time: String,
    },
    Redo {
        time: String,
    },
    Model {
        name: String,
        options: Box<ModelOptions>,
        time: String,
    },
    Export {
        cleaned: String,
        time: String,
    },
}

/// The session key: the input's content and the load options that decide
/// what a sample is.
pub fn session_key(ds: &Dataset) -> String {
    // How string columns are read changes nothing when there are none; the
    // default then differs by model (cbt, auto and all read levels), and a
    // numeric table must keep one session whichever model opens it.
    let mut options = ds.options.clone();
    if ds.categorical.is_empty() {
        options.categorical = crate::dataset::CategoricalPolicy::default();
    }
    let options = serde_json::to_string(&options).unwrap_or_default();
    let mut bytes = content_hash(&ds.raw.bytes).to_le_bytes().to_vec();
    bytes.extend_from_slice(options.as_bytes());
    format!("{:016x}", content_hash(&bytes))
}

/// An open journal file.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
}

fn io(path: &Path, what: &str, e: std::io::Error) -> ReviewError {
    ReviewError::Io(format!("cannot {what} {}: {e}", path.display()))
}

impl Journal {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens (creating) the journal for `key` in `store` and returns the
    /// entries already in it. A last line cut off by a crash is dropped from
    /// the file, so the next entry starts on a line of its own.
    pub fn open(store: &Path, key: &str) -> Result<(Self, Vec<Entry>), ReviewError> {
        std::fs::create_dir_all(store).map_err(|e| io(store, "create", e))?;
        let path = store.join(format!("{key}.jsonl"));
        let mut entries = Vec::new();
        let mut good_len = 0u64;
        if path.exists() {
            let reader = BufReader::new(File::open(&path).map_err(|e| io(&path, "open", e))?);
            let mut offset = 0u64;
            for line in reader.split(b'\n') {
                let line = line.map_err(|e| io(&path, "read", e))?;
                let len = line.len() as u64 + 1;
                match serde_json::from_slice::<Entry>(&line) {
                    Ok(e) => {
                        entries.push(e);
                        offset += len;
                        good_len = offset;
                    }
                    // Only a torn last line can be unreadable; stop there.
                    Err(_) => break,
                }
            }
        }
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)
            .map_err(|e| io(&path, "open", e))?;
        let actual = file.metadata().map_err(|e| io(&path, "read", e))?.len();
        if actual > good_len {
            file.set_len(good_len).map_err(|e| io(&path, "repair", e))?;
        }
        Ok((Self { path, file }, entries))
    }

    /// Appends an entry and waits until it is on disk.
    pub fn append(&mut self, entry: &Entry) -> Result<(), ReviewError> {
        let mut line = serde_json::to_vec(entry)
            .map_err(|e| ReviewError::Io(format!("cannot encode a journal entry: {e}")))?;
        line.push(b'\n');
        self.file
            .write_all(&line)
            .and_then(|()| self.file.flush())
            .and_then(|()| self.file.sync_data())
            .map_err(|e| io(&self.path, "write", e))
    }
}

/// Remembers which key each input path last had, so a changed file is
/// noticed. Returns the previous key for this path, if any.
pub fn record_key(store: &Path, input: &Path, key: &str) -> Result<Option<String>, ReviewError> {
    std::fs::create_dir_all(store).map_err(|e| io(store, "create", e))?;
    let index_path = store.join("index.json");
    let mut index: BTreeMap<String, String> = std::fs::read(&index_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let name = input
        .canonicalize()
        .unwrap_or_else(|_| input.to_path_buf())
        .display()
        .to_string();
    let previous = index.insert(name, key.to_string());
    let text = serde_json::to_vec_pretty(&index)
        .map_err(|e| ReviewError::Io(format!("cannot encode the session index: {e}")))?;
    write_atomic(&index_path, true, |w| w.write_all(&text))
        .map_err(|e| io(&index_path, "write", e))?;
    Ok(previous)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn step(row: usize) -> Entry {
        Entry::Step {
            group: row as u64,
            time: "t".into(),
            changes: vec![Change {
                row,
                id: row.to_string(),
                before: None,
                after: Some(Recorded::Relabel("a".into())),
            }],
        }
    }

    #[test]
    fn the_string_column_policy_keys_a_session_only_when_there_are_strings() {
        use crate::dataset::{CategoricalPolicy, LoadOptions, load_bytes};
        let key = |text: &str, categorical| {
            let opts = LoadOptions {
                categorical,
                ..LoadOptions::default()
            };
            let ds = load_bytes(Path::new("t.csv"), text.as_bytes().to_vec(), &opts).unwrap();
            session_key(&ds)
        };
        let numeric = "a,label\n1,x\n2,y\n";
        assert_eq!(
            key(numeric, CategoricalPolicy::Error),
            key(numeric, CategoricalPolicy::Onehot)
        );
        let strings = "a,b,label\n1,u,x\n2,v,y\n";
        let onehot = key(strings, CategoricalPolicy::Onehot);
        let plain = "a,label\n1,x\n2,y\n";
        assert_ne!(onehot, key(plain, CategoricalPolicy::Onehot));
    }

    #[test]
    fn entries_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let (mut j, old) = Journal::open(dir.path(), "k").unwrap();
        assert!(old.is_empty());
        j.append(&step(1)).unwrap();
        j.append(&Entry::Undo { time: "t".into() }).unwrap();
        drop(j);
        let (_, entries) = Journal::open(dir.path(), "k").unwrap();
        assert_eq!(entries, vec![step(1), Entry::Undo { time: "t".into() }]);
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_the_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (mut j, _) = Journal::open(dir.path(), "k").unwrap();
        j.append(&step(1)).unwrap();
        drop(j);
        let path = dir.path().join("k.jsonl");
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"kind\":\"step\",\"gro").unwrap();
        drop(f);
        let (mut j, entries) = Journal::open(dir.path(), "k").unwrap();
        assert_eq!(entries, vec![step(1)]);
        j.append(&step(2)).unwrap();
        drop(j);
        let (_, entries) = Journal::open(dir.path(), "k").unwrap();
        assert_eq!(entries, vec![step(1), step(2)]);
    }

    #[test]
    fn the_index_reports_the_previous_key_of_a_path() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.csv");
        std::fs::write(&input, "x").unwrap();
        assert_eq!(record_key(dir.path(), &input, "a").unwrap(), None);
        assert_eq!(
            record_key(dir.path(), &input, "b").unwrap().as_deref(),
            Some("a")
        );
    }
}
