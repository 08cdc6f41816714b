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

/// The journal format this build writes and the newest it reads. Raise it
/// when a change would make an older relabel misread a journal (it would
/// otherwise cut the entries it cannot parse as a torn line); a journal
/// with a higher number is refused, not touched. Journals written before
/// the header carried a version are version 1.
pub const SESSION_FORMAT_VERSION: u32 = 1;

fn version_1() -> u32 {
    1
}

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
        /// [`SESSION_FORMAT_VERSION`] of the relabel that began the journal.
        #[serde(default = "version_1")]
        version: u32,
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
    // default then differs by model (one that reads string levels lets them
    // in), and a numeric table must keep one session whichever model opens it.
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
    /// entries already in it. The file is cut at the first line that does
    /// not parse (a last line torn by a crash), so the next entry starts on
    /// a line of its own; a line damaged mid-file loses the entries after it
    /// too. A journal from a newer relabel is refused untouched.
    pub fn open(store: &Path, key: &str) -> Result<(Self, Vec<Entry>), ReviewError> {
        std::fs::create_dir_all(store).map_err(|e| io(store, "create", e))?;
        let path = store.join(format!("{key}.jsonl"));
        let mut entries = Vec::new();
        let mut good_len = 0u64;
        if path.exists() {
            let reader = BufReader::new(File::open(&path).map_err(|e| io(&path, "open", e))?);
            let mut offset = 0u64;
            for (n, line) in reader.split(b'\n').enumerate() {
                let line = line.map_err(|e| io(&path, "read", e))?;
                if n == 0 {
                    check_version(&path, &line)?;
                }
                let len = line.len() as u64 + 1;
                match serde_json::from_slice::<Entry>(&line) {
                    Ok(e) => {
                        entries.push(e);
                        offset += len;
                        good_len = offset;
                    }
                    // A crash tears only the last line; stop at the first
                    // that does not parse.
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

/// Refuses a journal begun by a newer relabel before anything in it is
/// parsed or repaired. Only the version is read, so a header whose other
/// fields a newer format changed is still recognised.
fn check_version(path: &Path, first_line: &[u8]) -> Result<(), ReviewError> {
    #[derive(Deserialize)]
    struct Versioned {
        #[serde(default = "version_1")]
        version: u32,
    }
    match serde_json::from_slice::<Versioned>(first_line) {
        Ok(Versioned { version }) if version > SESSION_FORMAT_VERSION => {
            Err(ReviewError::NewerSession {
                journal: path.to_path_buf(),
                version,
            })
        }
        _ => Ok(()),
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

    /// Pins today's keys. A session is found again only by its key, so a
    /// change here (to the hash, to how the options are serialised, a new
    /// `LoadOptions` field that is written when at its default) would orphan
    /// every curator's saved sessions: keep the old keys readable, or raise
    /// `SESSION_FORMAT_VERSION` and migrate.
    #[test]
    fn session_keys_of_a_fixed_input_and_fixed_options_do_not_change() {
        use crate::dataset::{CategoricalPolicy, LoadOptions, MissingPolicy, load_bytes};
        let key = |text: &str, opts: &LoadOptions| {
            let ds = load_bytes(Path::new("golden.csv"), text.as_bytes().to_vec(), opts).unwrap();
            session_key(&ds)
        };
        let plain = "id,x,label\r\na,1,p\r\nb,2,\"p\"\r\nc,3,q\r\n";
        assert_eq!(key(plain, &LoadOptions::default()), "5a244e95dfbeb417");
        let every_option = LoadOptions {
            label: Some("class".into()),
            id: Some("name".into()),
            delimiter: Some(b';'),
            ignore: vec!["note".into()],
            missing: MissingPolicy::Mean,
            categorical: CategoricalPolicy::Onehot,
            transpose: false,
            log2: true,
            multiline_cells: false,
        };
        let rich = "name;x;colour;note;class\nn1;1;red;a;p\nn2;NA;blue;b;q\nn3;4;red;c;q\n";
        assert_eq!(key(rich, &every_option), "c50232ab85e54c85");
    }

    #[test]
    fn a_journal_from_a_newer_relabel_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.jsonl");
        let newer = format!(
            "{{\"kind\":\"header\",\"version\":{},\"file\":\"f\",\"key\":\"k\",\"samples\":1,\"created\":\"t\"}}\n{{\"kind\":\"future\"}}\n",
            SESSION_FORMAT_VERSION + 1
        );
        std::fs::write(&path, &newer).unwrap();
        let e = Journal::open(dir.path(), "k").unwrap_err();
        let message = e.to_string();
        assert!(
            message.contains("newer relabel") && message.contains("update relabel"),
            "{message}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), newer);
    }

    #[test]
    fn a_header_without_a_version_is_version_1_and_new_ones_carry_it() {
        let old = r#"{"kind":"header","file":"f","key":"k","samples":1,"created":"t"}"#;
        match serde_json::from_str::<Entry>(old).unwrap() {
            Entry::Header { version, .. } => assert_eq!(version, 1),
            other => panic!("{other:?}"),
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("k.jsonl"), format!("{old}\n")).unwrap();
        let (_, entries) = Journal::open(dir.path(), "k").unwrap();
        assert_eq!(entries.len(), 1);
        let new = Entry::Header {
            version: SESSION_FORMAT_VERSION,
            file: "f".into(),
            key: "k".into(),
            samples: 1,
            created: "t".into(),
        };
        let text = serde_json::to_string(&new).unwrap();
        assert!(
            text.contains(&format!("\"version\":{SESSION_FORMAT_VERSION}")),
            "{text}"
        );
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
