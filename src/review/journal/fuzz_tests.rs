//! Randomised journals of raw bytes: intact entries with damage of every
//! kind between them. Opening never panics, never shortens or rewrites the
//! file, keeps every intact entry, and the next append reads back after
//! them. A few hundred cases run in every `cargo test`; with
//! `RELABEL_FUZZ_SECS=600` the same check runs for that long.

use std::path::Path;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};

use super::*;
use crate::dataset::{LoadOptions, load_bytes};
use crate::review::Session;

/// A piece of a journal: an entry on a line of its own, or raw bytes.
#[derive(Clone, Debug)]
pub(super) enum Piece {
    Entry(Entry),
    Raw(Vec<u8>),
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9]{0,6}",
        Just("p".to_string()),
        Just("q".to_string()),
        Just("{\"kind\":\"undo\",\"time\":\"t\"}".to_string()),
        any::<String>(),
    ]
}

fn recorded() -> impl Strategy<Value = Option<Recorded>> {
    prop_oneof![
        Just(None),
        Just(Some(Recorded::Keep)),
        Just(Some(Recorded::Drop)),
        text().prop_map(|c| Some(Recorded::Relabel(c))),
    ]
}

fn change() -> impl Strategy<Value = Change> {
    let row = prop_oneof![0usize..8, Just(usize::MAX), any::<usize>()];
    let seen = prop::option::of(
        (-1e6f64..1e6, text()).prop_map(|(p_mislabel, model)| Seen { p_mislabel, model }),
    );
    (row, text(), recorded(), recorded(), seen).prop_map(|(row, id, before, after, seen)| Change {
        row,
        id,
        before,
        after,
        seen,
    })
}

fn entry() -> impl Strategy<Value = Entry> {
    let group = prop_oneof![0u64..10, Just(u64::MAX), any::<u64>()];
    prop_oneof![
        (0..=SESSION_FORMAT_VERSION, text(), any::<usize>()).prop_map(
            |(version, file, samples)| {
                Entry::Header {
                    version,
                    file,
                    key: "k".into(),
                    samples,
                    created: "t".into(),
                }
            }
        ),
        (group, text(), prop::collection::vec(change(), 0..4)).prop_map(
            |(group, time, changes)| Entry::Step {
                group,
                time,
                changes,
            }
        ),
        text().prop_map(|time| Entry::Undo { time }),
        text().prop_map(|time| Entry::Redo { time }),
        (text(), text()).prop_map(|(cleaned, time)| Entry::Export { cleaned, time }),
        (any::<usize>(), text(), text(), text()).prop_map(|(row, id, text, time)| {
            Entry::Comment {
                row,
                id,
                text,
                time,
            }
        }),
        text().prop_map(|name| Entry::Model {
            name,
            options: Box::default(),
            time: "t".into(),
        }),
    ]
}

/// Damage as it comes: random bytes, pieces of entries (torn ones), the
/// bytes that matter to a line reader and to salvaging.
fn raw() -> impl Strategy<Value = Vec<u8>> {
    let fragment = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..48),
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(vec![0u8; 16]),
        Just(b"{\"kind\":".to_vec()),
        Just(b"{\"kind\":\"step\",\"gro".to_vec()),
        Just(b"{\"kind\":\"future\"}".to_vec()),
        Just(b"{\"version\":1}".to_vec()),
        Just(b"}".to_vec()),
        (entry(), any::<prop::sample::Index>()).prop_map(|(e, cut)| {
            let bytes = serde_json::to_vec(&e).unwrap_or_default();
            bytes[..cut.index(bytes.len() + 1)].to_vec()
        }),
    ];
    prop::collection::vec(fragment, 1..4).prop_map(|f| f.concat())
}

pub(super) fn pieces() -> impl Strategy<Value = Vec<Piece>> {
    let piece = prop_oneof![
        3 => entry().prop_map(Piece::Entry),
        2 => raw().prop_map(Piece::Raw),
    ];
    prop::collection::vec(piece, 0..12)
}

/// The file's bytes and the entries that stand on lines of their own.
fn layout(pieces: &[Piece]) -> (Vec<u8>, Vec<Entry>) {
    let mut bytes = Vec::new();
    let mut intact = Vec::new();
    for p in pieces {
        match p {
            Piece::Entry(e) => {
                if bytes.last().is_none_or(|b| *b == b'\n') {
                    intact.push(e.clone());
                }
                bytes.extend(serde_json::to_vec(e).unwrap_or_default());
                bytes.push(b'\n');
            }
            Piece::Raw(r) => bytes.extend_from_slice(r),
        }
    }
    (bytes, intact)
}

fn is_subsequence(small: &[Entry], big: &[Entry]) -> bool {
    let mut it = big.iter();
    small.iter().all(|s| it.any(|b| b == s))
}

fn sentinel() -> Entry {
    Entry::Undo {
        time: "sentinel".into(),
    }
}

/// A directory for one case: in memory where there is such a filesystem
/// (every append is synced, and on a disk the syncs are most of the time).
fn scratch() -> std::io::Result<tempfile::TempDir> {
    tempfile::tempdir_in("/dev/shm").or_else(|_| tempfile::tempdir())
}

const TABLE: &str = "id,x,label\na,1,p\nb,2,p\nc,3,q\nd,4,q\ne,5,p\nf,6,q\n";

/// The property, for one journal.
pub(super) fn check(pieces: &[Piece]) -> Result<(), TestCaseError> {
    let (bytes, intact) = layout(pieces);
    let dir = scratch().map_err(|e| TestCaseError::fail(e.to_string()))?;
    let path = dir.path().join("k.jsonl");
    std::fs::write(&path, &bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let opened = match Journal::open(dir.path(), "k") {
        Ok(o) => o,
        Err(ReviewError::NewerSession { .. }) => {
            prop_assert_eq!(
                std::fs::read(&path).ok(),
                Some(bytes),
                "a refused journal is touched"
            );
            return Ok(());
        }
        Err(e) => return Err(TestCaseError::fail(e.to_string())),
    };
    let Opened {
        mut journal,
        entries,
        recovery,
    } = opened;
    prop_assert_eq!(
        std::fs::read(&path).ok(),
        Some(bytes.clone()),
        "opening wrote"
    );
    prop_assert!(
        is_subsequence(&intact, &entries),
        "lost an intact entry: {:?} of {:?}",
        intact,
        entries
    );
    prop_assert_eq!(recovery.backup.is_some(), !recovery.is_clean());
    journal
        .append(&sentinel())
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    drop(journal);
    let after = std::fs::read(&path).unwrap_or_default();
    prop_assert!(after.starts_with(&bytes), "shortened or rewritten");
    let again = Journal::open(dir.path(), "k").map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut expected = entries;
    expected.push(sentinel());
    prop_assert_eq!(&again.entries, &expected, "the append did not read back");
    prop_assert_eq!(&again.recovery.skipped, &recovery.skipped);
    drop(again);
    replay_in_a_session(&bytes)
}

/// A session replays whatever the reader let through without panicking.
fn replay_in_a_session(bytes: &[u8]) -> Result<(), TestCaseError> {
    let fail = |e: String| TestCaseError::fail(e);
    let ds = load_bytes(
        Path::new("t.csv"),
        TABLE.as_bytes().to_vec(),
        &LoadOptions::default(),
    )
    .map_err(|e| fail(e.to_string()))?;
    let store = scratch().map_err(|e| fail(e.to_string()))?;
    let path = store.path().join(format!("{}.jsonl", session_key(&ds)));
    std::fs::write(&path, bytes).map_err(|e| fail(e.to_string()))?;
    match Session::open(ds, Some(store.path())) {
        Ok((mut s, _)) => {
            // The replayed history must still step, and take a new step,
            // without panicking.
            while s.undo().map_err(|e| fail(e.to_string()))? {}
            while s.redo().map_err(|e| fail(e.to_string()))? {}
            s.keep(0).map_err(|e| fail(e.to_string()))?;
            s.undo().map_err(|e| fail(e.to_string()))?;
            Ok(())
        }
        Err(ReviewError::NewerSession { .. }) => Ok(()),
        Err(e) => Err(fail(e.to_string())),
    }
}

fn run(cases: u32) -> Result<(), TestError<Vec<Piece>>> {
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner.run(&pieces(), |p| check(&p))
}

#[test]
fn random_journals_keep_every_intact_entry_and_are_never_cut() {
    if let Err(e) = run(300) {
        panic!("{e}");
    }
}

/// `RELABEL_FUZZ_SECS=600 cargo test --lib journal::fuzz` runs batches of
/// fresh random cases until the time is up (without it: nothing; the quick
/// test above is the everyday one).
#[test]
fn random_journals_for_as_long_as_asked() {
    let secs: u64 = std::env::var("RELABEL_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    if secs == 0 {
        return;
    }
    let end = Instant::now() + Duration::from_secs(secs);
    let mut batches = 0u64;
    while Instant::now() < end {
        if let Err(e) = run(500) {
            panic!("after {batches} batches of 500: {e}");
        }
        batches += 1;
    }
    eprintln!("fuzz: {batches} batches of 500 random journals, no failure");
}
