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
use super::time::now;
use crate::atomic_write::write_atomic;
use crate::dataset::{Dataset, content_hash};
use crate::models::ModelOptions;

/// The journal format this build writes and the newest it reads. Raise it
/// when a change would make an older relabel misread a journal (it would
/// otherwise skip the entries it cannot parse as damaged lines); a journal
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
    /// What the model said of the sample before it was first decided (the
    /// audit file's p_mislabel and model). Absent in journals written
    /// before it was recorded, and for a change to no decision; an older
    /// relabel skips the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<Seen>,
}

/// A sample's p_mislabel and the model that gave it, as the screen showed
/// them when the sample was first decided.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seen {
    pub p_mislabel: f64,
    pub model: String,
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
    /// The flag threshold the curator set (the screen opens with it
    /// again). An older relabel skips the line as one it cannot read and
    /// keeps the rest.
    Threshold {
        value: f64,
        time: String,
    },
    /// The curator's comment on a sample; empty text removes it. Not an
    /// undo step: a comment is changed by writing it again. An older
    /// relabel skips the line as one it cannot read and keeps the rest.
    Comment {
        row: usize,
        id: String,
        text: String,
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
    let mut bytes = ds.content_hash().to_le_bytes().to_vec();
    bytes.extend_from_slice(options.as_bytes());
    // The embedded demo keeps a session of its own, apart from the file of
    // the same bytes (sample_data/iris_noisy.csv): decisions made trying
    // the demo must not turn up, and be exported, in the file.
    if ds.raw.path == Path::new(crate::app::DEMO_NAME) {
        bytes.extend_from_slice(b"\0the embedded demo");
    }
    format!("{:016x}", content_hash(&bytes))
}

/// What reading a journal found besides its entries. A damaged line is
/// skipped and reported, never a reason to drop or cut the entries after
/// it; the file is never shortened or rewritten, only appended to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// 1-based numbers of the lines that could not be read: skipped (and
    /// left in the file as they are).
    pub skipped: Vec<usize>,
    /// Lines where a torn entry ran into the next one (written by a relabel
    /// that did not end a torn line first): the torn part was skipped and
    /// the complete entry after it kept.
    pub salvaged: Vec<usize>,
    /// The first line is not a readable header. The entries are recovered
    /// anyway: the session key they belong to is the file's name, which is
    /// the key of the input being opened.
    pub header_damaged: bool,
    /// The last line has no newline (a crash tore it): a newline is written
    /// before the next entry, so that entry starts a line of its own.
    pub torn_tail: bool,
    /// Where a copy of the journal went before the first repair (writing
    /// that newline, or appending after a damaged line).
    pub backup: Option<PathBuf>,
}

impl Recovery {
    /// Whether the journal read whole, with nothing to report.
    pub fn is_clean(&self) -> bool {
        self.skipped.is_empty()
            && self.salvaged.is_empty()
            && !self.header_damaged
            && !self.torn_tail
    }

    /// One line for the screen and stderr; `None` when there is nothing to say.
    pub fn describe(&self, journal: &Path) -> Option<String> {
        if self.is_clean() {
            return None;
        }
        let mut parts = Vec::new();
        if !self.skipped.is_empty() {
            parts.push(format!(
                "skipped {} ({})",
                crate::dataset::counted(self.skipped.len(), "unreadable line"),
                line_list(&self.skipped)
            ));
        }
        if self.header_damaged {
            parts.push("the header (line 1) is damaged: entries recovered by the session key in the file name".into());
        }
        if !self.salvaged.is_empty() {
            parts.push(format!(
                "kept the entry after a torn one on line {}",
                line_list(&self.salvaged)
            ));
        }
        if self.torn_tail {
            parts.push(
                "the last line was torn by a crash: it is ended before the next entry".into(),
            );
        }
        // What happened first, the path last: a narrow screen shows the
        // start of the line.
        let mut text = format!(
            "the session journal: {}; every intact entry was kept ({})",
            parts.join(", "),
            journal.display()
        );
        if let Some(b) = &self.backup {
            text.push_str(&format!(
                "; a copy from before the repair is in {}",
                b.display()
            ));
        }
        Some(text)
    }
}

/// "4, 9, 12" (the first ten, then how many more).
fn line_list(lines: &[usize]) -> String {
    let shown: Vec<String> = lines.iter().take(10).map(usize::to_string).collect();
    let mut text = shown.join(", ");
    if lines.len() > 10 {
        text.push_str(&format!(" and {} more", lines.len() - 10));
    }
    text
}

/// An open journal: for writing when this process holds the session's lock
/// (one writer per session), else read-only.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    writer: Option<Writer>,
    /// Who holds the lock, when this one is read-only.
    holder: Option<String>,
    /// The lock could not be taken for a reason other than another holder
    /// (a filesystem without locks): writing goes on, unguarded.
    lock_warning: Option<String>,
    /// The file does not end with a newline: the next append writes one.
    torn: bool,
}

/// The write side: the journal opened for appending and the lock held for
/// as long as it is open (the OS releases it when the process dies).
#[derive(Debug)]
struct Writer {
    file: File,
    /// `None` when the filesystem refused a lock (see `lock_warning`).
    _lock: Option<LockGuard>,
}

/// The locked `<key>.lock` and the side file naming this process.
#[derive(Debug)]
pub(super) struct LockGuard {
    _file: File,
    info: PathBuf,
}

impl Drop for LockGuard {
    /// Removes the lock-info before the lock itself goes (`_file` drops
    /// after this), so a reader never finds this process named for a free
    /// lock.
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.info);
    }
}

/// A journal just opened: the journal, the entries read and what reading found.
#[derive(Debug)]
pub struct Opened {
    pub journal: Journal,
    pub entries: Vec<Entry>,
    pub recovery: Recovery,
}

fn io(path: &Path, what: &str, e: std::io::Error) -> ReviewError {
    ReviewError::Io(format!("cannot {what} {}: {e}", path.display()))
}

/// How the lock attempt went.
pub(super) enum Lock {
    Held(LockGuard),
    /// Another process holds it: what its lock-info says.
    Busy(String),
    /// Locks do not work here.
    Unsupported(String),
}

/// Takes the session's lock (`<key>.lock`, an advisory lock through `fs4`)
/// without waiting, and names this process in `<key>.lock-info`.
pub(super) fn take_lock(store: &Path, key: &str) -> Result<Lock, ReviewError> {
    use fs4::fs_std::FileExt;
    let path = store.join(format!("{key}.lock"));
    let info = store.join(format!("{key}.lock-info"));
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| io(&path, "open", e))?;
    match FileExt::try_lock_exclusive(&file) {
        Ok(true) => {
            let text = format!("pid {}, opened {}\n", std::process::id(), now());
            // Best effort: the lock works without its description.
            let _ = write_atomic(&info, true, |w| w.write_all(text.as_bytes()));
            Ok(Lock::Held(LockGuard { _file: file, info }))
        }
        Ok(false) => {
            let holder = std::fs::read_to_string(&info)
                .ok()
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "a process that left no pid".into());
            Ok(Lock::Busy(format!("another relabel, {holder}")))
        }
        Err(e) => Ok(Lock::Unsupported(format!(
            "cannot lock {}: {e}; a second screen on this file would not be stopped",
            path.display()
        ))),
    }
}

impl Journal {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Who holds the session when this journal is read-only.
    pub fn read_only_holder(&self) -> Option<&str> {
        self.holder.as_deref()
    }

    /// Why this journal is written without a lock, if it is.
    pub fn lock_warning(&self) -> Option<&str> {
        self.lock_warning.as_deref()
    }

    /// Opens (creating) the journal for `key` in `store` and returns the
    /// entries in it. Takes the session's lock first: when another process
    /// holds it the journal is read-only (appends are refused, naming the
    /// holder) and nothing in the file is touched. Lines that cannot be read
    /// are skipped and reported, never cut; before the first write to a
    /// journal that did not read whole, a copy goes beside it
    /// (`<key>.jsonl.bak`). A journal from a newer relabel is refused
    /// untouched.
    pub fn open(store: &Path, key: &str) -> Result<Opened, ReviewError> {
        std::fs::create_dir_all(store).map_err(|e| io(store, "create", e))?;
        let path = store.join(format!("{key}.jsonl"));
        let lock = take_lock(store, key)?;
        // Read after locking, so a holder's last entry is complete.
        let (entries, mut recovery) = read_entries(&path)?;
        let mut journal = Journal {
            torn: recovery.torn_tail,
            path,
            writer: None,
            holder: None,
            lock_warning: None,
        };
        let lock = match lock {
            Lock::Busy(holder) => {
                journal.holder = Some(holder);
                return Ok(Opened {
                    journal,
                    entries,
                    recovery,
                });
            }
            Lock::Held(guard) => Some(guard),
            Lock::Unsupported(why) => {
                journal.lock_warning = Some(why);
                None
            }
        };
        if !recovery.is_clean() {
            recovery.backup = Some(back_up(&journal.path)?);
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&journal.path)
            .map_err(|e| io(&journal.path, "open", e))?;
        journal.writer = Some(Writer { file, _lock: lock });
        Ok(Opened {
            journal,
            entries,
            recovery,
        })
    }

    /// Appends an entry and waits until it is on disk. A torn last line is
    /// ended first, so the entry starts a line of its own.
    pub fn append(&mut self, entry: &Entry) -> Result<(), ReviewError> {
        let Some(writer) = self.writer.as_mut() else {
            return Err(ReviewError::ReadOnly {
                holder: self.holder.clone().unwrap_or_default(),
            });
        };
        let mut line = Vec::new();
        if self.torn {
            line.push(b'\n');
        }
        serde_json::to_writer(&mut line, entry)
            .map_err(|e| ReviewError::Io(format!("cannot encode a journal entry: {e}")))?;
        line.push(b'\n');
        let file = &mut writer.file;
        let written = file
            .write_all(&line)
            .and_then(|()| file.flush())
            .and_then(|()| file.sync_data());
        // After a failed write the file may end mid-line: end it next time
        // (at worst that leaves a blank line, which reading skips).
        self.torn = written.is_err();
        written.map_err(|e| io(&self.path, "write", e))
    }
}

/// Reads every line of the journal at `path` (none when it does not exist).
fn read_entries(path: &Path) -> Result<(Vec<Entry>, Recovery), ReviewError> {
    let mut entries = Vec::new();
    let mut recovery = Recovery::default();
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((entries, recovery)),
        Err(e) => return Err(io(path, "open", e)),
    };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    for n in 1.. {
        line.clear();
        let read = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| io(path, "read", e))?;
        if read == 0 {
            break;
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        } else {
            recovery.torn_tail = true;
        }
        if n == 1 {
            check_version(path, &line)?;
        }
        let parsed = parse_line(&line);
        if let Some((Entry::Header { version, .. }, _)) = &parsed
            && *version > SESSION_FORMAT_VERSION
        {
            return Err(ReviewError::NewerSession {
                journal: path.to_path_buf(),
                version: *version,
            });
        }
        if n == 1 {
            recovery.header_damaged = !matches!(parsed, Some((Entry::Header { .. }, false)));
        }
        match parsed {
            Some((entry, salvaged)) => {
                if salvaged {
                    recovery.salvaged.push(n);
                }
                entries.push(entry);
            }
            None => recovery.skipped.push(n),
        }
    }
    Ok((entries, recovery))
}

/// How every entry this build writes begins (serde writes the tag first).
const ENTRY_START: &[u8] = b"{\"kind\":";
/// How many later entry starts a damaged line is searched for.
const SALVAGE_TRIES: usize = 8;

/// One line as an entry; `true` beside it when the line was a torn entry
/// that ran into a complete one and only the latter was read. `None` for
/// a line that holds no entry (blank, garbage, another shape, an unknown
/// kind).
fn parse_line(line: &[u8]) -> Option<(Entry, bool)> {
    if let Ok(e) = serde_json::from_slice::<Entry>(line) {
        return Some((e, false));
    }
    // Quotes inside strings are escaped, so an unescaped `{"kind":` past
    // the start can only begin another entry.
    let mut from = 1;
    for _ in 0..SALVAGE_TRIES {
        let at = from + find(line.get(from..)?, ENTRY_START)?;
        if let Ok(e) = serde_json::from_slice::<Entry>(&line[at..]) {
            return Some((e, true));
        }
        from = at + 1;
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Copies the journal beside itself before its first repair and returns
/// where. `<key>.jsonl.bak` is reused when it holds an earlier state of the
/// same journal (a prefix: the journal only grows, so nothing in it is
/// lost); otherwise the next free `<key>.jsonl.bak2`, `.bak3`, ...
fn back_up(path: &Path) -> Result<PathBuf, ReviewError> {
    let bytes = std::fs::read(path).map_err(|e| io(path, "read", e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for n in 1..=100 {
        let suffix = if n == 1 { String::new() } else { n.to_string() };
        let backup = path.with_file_name(format!("{name}.bak{suffix}"));
        let free = match std::fs::read(&backup) {
            Ok(old) => bytes.starts_with(&old),
            Err(e) => e.kind() == std::io::ErrorKind::NotFound,
        };
        if free {
            write_atomic(&backup, true, |w| w.write_all(&bytes))
                .map_err(|e| io(&backup, "write", e))?;
            return Ok(backup);
        }
    }
    Err(ReviewError::Io(format!(
        "cannot keep a copy of {} before repairing it: 100 older copies are in the way",
        path.display()
    )))
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
mod fuzz_tests;

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
                seen: None,
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
            ..LoadOptions::default()
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
        let e = Journal::open(dir.path(), "k").map(|_| ()).unwrap_err();
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
        let entries = Journal::open(dir.path(), "k").unwrap().entries;
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
        let Opened {
            journal: mut j,
            entries: old,
            ..
        } = Journal::open(dir.path(), "k").unwrap();
        assert!(old.is_empty());
        j.append(&step(1)).unwrap();
        j.append(&Entry::Undo { time: "t".into() }).unwrap();
        drop(j);
        let entries = Journal::open(dir.path(), "k").unwrap().entries;
        assert_eq!(entries, vec![step(1), Entry::Undo { time: "t".into() }]);
    }

    fn header() -> Entry {
        Entry::Header {
            version: SESSION_FORMAT_VERSION,
            file: "f".into(),
            key: "k".into(),
            samples: 10,
            created: "t".into(),
        }
    }

    /// A journal as a session leaves it: a header and five decisions.
    fn five_decisions(dir: &Path) -> Vec<Entry> {
        let mut j = Journal::open(dir, "k").unwrap().journal;
        let mut all = vec![header()];
        all.extend((1..=5).map(step));
        for e in &all {
            j.append(e).unwrap();
        }
        all
    }

    fn journal_bytes(dir: &Path) -> Vec<u8> {
        std::fs::read(dir.join("k.jsonl")).unwrap()
    }

    /// Puts `damage` as line `at` (1-based), pushing the others down, or in
    /// place of line `at` when `replace`.
    fn damage(dir: &Path, at: usize, damage: &[u8], replace: bool) -> Vec<u8> {
        let bytes = journal_bytes(dir);
        let mut lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();
        let mut line = damage.to_vec();
        line.push(b'\n');
        if replace {
            lines[at - 1] = &line;
        } else {
            lines.insert(at - 1, &line);
        }
        let damaged = lines.concat();
        std::fs::write(dir.join("k.jsonl"), &damaged).unwrap();
        damaged
    }

    /// Every intact entry is read, the damaged line reported, the file left
    /// as it was (a copy beside it), and an append after it reads back.
    fn survives(bad: &[u8]) {
        let dir = tempfile::tempdir().unwrap();
        let all = five_decisions(dir.path());
        let damaged = damage(dir.path(), 4, bad, false);
        let Opened {
            mut journal,
            entries,
            recovery,
        } = Journal::open(dir.path(), "k").unwrap();
        assert_eq!(entries, all, "every intact entry survives");
        assert_eq!(recovery.skipped, [4]);
        assert!(!recovery.header_damaged);
        assert_eq!(
            journal_bytes(dir.path()),
            damaged,
            "the file is not touched"
        );
        let backup = recovery.backup.clone().unwrap();
        assert_eq!(std::fs::read(&backup).unwrap(), damaged);
        let text = recovery.describe(journal.path()).unwrap();
        assert!(text.contains("skipped 1 unreadable line (4)"), "{text}");
        assert!(text.contains("k.jsonl.bak"), "{text}");
        journal.append(&step(6)).unwrap();
        drop(journal);
        let after = journal_bytes(dir.path());
        assert!(after.starts_with(&damaged), "never shortened nor rewritten");
        let again = Journal::open(dir.path(), "k").unwrap();
        let mut expected = all;
        expected.push(step(6));
        assert_eq!(again.entries, expected);
        assert_eq!(again.recovery.skipped, [4]);
    }

    #[test]
    fn a_garbage_line_is_skipped_and_the_rest_kept() {
        survives(b"this is not json at all");
    }

    #[test]
    fn a_blank_line_is_skipped_and_the_rest_kept() {
        survives(b"");
    }

    #[test]
    fn a_line_of_nul_bytes_is_skipped_and_the_rest_kept() {
        survives(&[0u8; 4096]);
    }

    #[test]
    fn json_of_another_shape_is_skipped_and_the_rest_kept() {
        survives(br#"{"a":[1,2,3],"b":null}"#);
        survives(b"[1,2,3]");
        survives(b"42");
    }

    #[test]
    fn an_unknown_kind_is_skipped_and_the_rest_kept() {
        survives(br#"{"kind":"future","time":"t","what":1}"#);
        survives(br#"{"kind":"step","group":"not a number","time":"t","changes":[]}"#);
    }

    #[test]
    fn a_step_written_before_seen_was_recorded_reads_without_it() {
        let line = r#"{"kind":"step","group":3,"time":"t","changes":[{"row":1,"id":"b","before":null,"after":{"relabel":"q"}}]}"#;
        let Entry::Step { changes, .. } = serde_json::from_str::<Entry>(line).unwrap() else {
            panic!("not a step");
        };
        assert_eq!(changes[0].after, Some(Recorded::Relabel("q".into())));
        assert_eq!(changes[0].seen, None);
        // And a change without it is written as before.
        assert!(!serde_json::to_string(&changes[0]).unwrap().contains("seen"));
    }

    #[test]
    fn a_five_megabyte_line_is_skipped_and_the_rest_kept() {
        let mut big = br#"{"kind":"step","group":9,"time":"t","changes":["#.to_vec();
        big.resize(5 * 1024 * 1024, b'x');
        survives(&big);
    }

    #[test]
    fn a_damaged_header_is_reported_and_the_entries_recovered() {
        let dir = tempfile::tempdir().unwrap();
        let all = five_decisions(dir.path());
        let damaged = damage(dir.path(), 1, b"{\"kind\":\"hea\0\0\0", true);
        let Opened {
            mut journal,
            entries,
            recovery,
        } = Journal::open(dir.path(), "k").unwrap();
        assert_eq!(entries, all[1..], "the decisions are recovered");
        assert!(recovery.header_damaged);
        assert_eq!(recovery.skipped, [1]);
        assert!(recovery.backup.is_some());
        let text = recovery.describe(journal.path()).unwrap();
        assert!(text.contains("header (line 1) is damaged"), "{text}");
        assert_eq!(journal_bytes(dir.path()), damaged, "not reset");
        journal.append(&step(6)).unwrap();
        drop(journal);
        assert!(journal_bytes(dir.path()).starts_with(&damaged));
        assert_eq!(Journal::open(dir.path(), "k").unwrap().entries.len(), 6);
    }

    #[test]
    fn a_first_line_of_another_kind_marks_the_header_damaged_but_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("k.jsonl"),
            b"{\"kind\":\"undo\",\"time\":\"t\"}\n",
        )
        .unwrap();
        let opened = Journal::open(dir.path(), "k").unwrap();
        assert_eq!(opened.entries, [Entry::Undo { time: "t".into() }]);
        assert!(opened.recovery.header_damaged);
        assert!(opened.recovery.skipped.is_empty());
    }

    #[test]
    fn a_torn_last_line_is_ended_before_the_next_append() {
        let dir = tempfile::tempdir().unwrap();
        let all = five_decisions(dir.path());
        let path = dir.path().join("k.jsonl");
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"kind\":\"step\",\"gro").unwrap();
        drop(f);
        let torn = journal_bytes(dir.path());
        let Opened {
            mut journal,
            entries,
            recovery,
        } = Journal::open(dir.path(), "k").unwrap();
        assert_eq!(entries, all);
        assert!(recovery.torn_tail);
        assert_eq!(recovery.skipped, [7]);
        assert_eq!(journal_bytes(dir.path()), torn, "opening cuts nothing");
        journal.append(&step(6)).unwrap();
        drop(journal);
        let after = journal_bytes(dir.path());
        assert!(after.starts_with(&torn));
        let again = Journal::open(dir.path(), "k").unwrap();
        let mut expected = all;
        expected.push(step(6));
        assert_eq!(again.entries, expected, "the new entry is not merged");
        assert!(!again.recovery.torn_tail);
        assert_eq!(again.recovery.skipped, [7]);
    }

    #[test]
    fn a_complete_last_entry_without_its_newline_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mut all = five_decisions(dir.path());
        let path = dir.path().join("k.jsonl");
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&serde_json::to_vec(&step(6)).unwrap()).unwrap();
        drop(f);
        all.push(step(6));
        let mut opened = Journal::open(dir.path(), "k").unwrap();
        assert_eq!(opened.entries, all);
        assert!(opened.recovery.torn_tail && opened.recovery.skipped.is_empty());
        opened.journal.append(&step(7)).unwrap();
        drop(opened);
        all.push(step(7));
        assert_eq!(Journal::open(dir.path(), "k").unwrap().entries, all);
    }

    #[test]
    fn an_entry_merged_onto_a_torn_line_by_an_older_relabel_is_salvaged() {
        let dir = tempfile::tempdir().unwrap();
        let mut all = five_decisions(dir.path());
        let mut merged = b"{\"kind\":\"step\",\"gro".to_vec();
        merged.extend(serde_json::to_vec(&step(6)).unwrap());
        damage(dir.path(), 7, &merged, false);
        all.push(step(6));
        let opened = Journal::open(dir.path(), "k").unwrap();
        assert_eq!(opened.entries, all);
        assert_eq!(opened.recovery.salvaged, [7]);
        assert!(opened.recovery.skipped.is_empty());
    }

    #[test]
    fn a_clean_journal_gets_no_backup_and_no_report() {
        let dir = tempfile::tempdir().unwrap();
        five_decisions(dir.path());
        let opened = Journal::open(dir.path(), "k").unwrap();
        assert!(opened.recovery.is_clean());
        assert_eq!(opened.recovery.describe(opened.journal.path()), None);
        assert!(!dir.path().join("k.jsonl.bak").exists());
    }

    #[test]
    fn a_backup_that_is_not_an_earlier_state_is_kept_and_another_made() {
        let dir = tempfile::tempdir().unwrap();
        five_decisions(dir.path());
        damage(dir.path(), 4, b"garbage", false);
        std::fs::write(dir.path().join("k.jsonl.bak"), b"something else").unwrap();
        let opened = Journal::open(dir.path(), "k").unwrap();
        assert_eq!(
            opened.recovery.backup.as_deref(),
            Some(dir.path().join("k.jsonl.bak2").as_path())
        );
        assert_eq!(
            std::fs::read(dir.path().join("k.jsonl.bak")).unwrap(),
            b"something else"
        );
        drop(opened);
        // Reopening reuses the copy of its own earlier state.
        let again = Journal::open(dir.path(), "k").unwrap();
        assert_eq!(again.recovery.backup, Some(dir.path().join("k.jsonl.bak2")));
    }

    #[test]
    fn line_numbers_are_listed_ten_at_most() {
        let r = Recovery {
            skipped: (1..=12).collect(),
            ..Recovery::default()
        };
        let text = r.describe(Path::new("j")).unwrap();
        assert!(
            text.contains("(1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more)"),
            "{text}"
        );
    }

    #[test]
    fn one_writer_per_session_the_second_open_is_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = Journal::open(dir.path(), "k").unwrap().journal;
        first.append(&header()).unwrap();
        assert_eq!(first.read_only_holder(), None);
        let mut second = Journal::open(dir.path(), "k").unwrap();
        assert_eq!(second.entries, [header()], "a reader still reads");
        let holder = second.journal.read_only_holder().unwrap().to_string();
        assert!(
            holder.contains(&format!("pid {}", std::process::id())),
            "{holder}"
        );
        let e = second.journal.append(&step(1)).unwrap_err();
        assert!(matches!(e, ReviewError::ReadOnly { .. }));
        let message = e.to_string();
        assert!(
            message.contains("read-only") && message.contains("pid"),
            "{message}"
        );
        drop(second);
        first.append(&step(2)).unwrap();
        drop(first);
        assert!(
            !dir.path().join("k.lock-info").exists(),
            "the holder's note goes with it"
        );
        let mut third = Journal::open(dir.path(), "k").unwrap();
        assert_eq!(third.journal.read_only_holder(), None);
        third.journal.append(&step(3)).unwrap();
        drop(third);
        assert_eq!(
            Journal::open(dir.path(), "k").unwrap().entries,
            [header(), step(2), step(3)]
        );
    }

    #[test]
    fn a_reader_touches_nothing_even_in_a_damaged_journal() {
        let dir = tempfile::tempdir().unwrap();
        five_decisions(dir.path());
        let _writer = Journal::open(dir.path(), "k").unwrap();
        let path = dir.path().join("k.jsonl");
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"torn").unwrap();
        drop(f);
        let before = journal_bytes(dir.path());
        let reader = Journal::open(dir.path(), "k").unwrap();
        assert!(reader.journal.read_only_holder().is_some());
        assert!(reader.recovery.torn_tail);
        assert_eq!(reader.recovery.backup, None, "no repair, so no copy");
        assert_eq!(journal_bytes(dir.path()), before);
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
