//! The review session (DESIGN §5): decisions, undo/redo, the list view, the
//! journal that makes every confirmed decision survive a crash, and export.
//! Nothing here knows about terminals.

use std::path::{Path, PathBuf};

pub mod decision;
pub mod export;
pub mod input_check;
pub mod journal;
pub mod session;
pub mod sessions;
pub mod time;
pub mod view;

pub use decision::{Decision, DecisionFilter};
pub use export::{ExportOptions, ExportSummary};
pub use session::{Accepted, Comment, Counts, ResumeInfo, Session};
pub use view::{Filter, SortKey};

use crate::dataset::{LoadOptions, load};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReviewError {
    #[error("{0}")]
    Io(String),
    #[error("{} already exists; confirm to replace it, or choose another name", .0.display())]
    Exists(PathBuf),
    #[error("{} is the input file; relabel never writes over its input", .0.display())]
    WouldOverwriteInput(PathBuf),
    #[error("there is no sample {0}")]
    NoSuchSample(usize),
    #[error("there is no class {0}")]
    NoSuchClass(usize),
    #[error("{0}")]
    Data(String),
    #[error(
        "{} was written by a newer relabel (session format {version}; this one reads up to {}): update relabel to resume this session",
        .journal.display(),
        journal::SESSION_FORMAT_VERSION
    )]
    NewerSession { journal: PathBuf, version: u32 },
    #[error(
        "no review session was found for {0}: open it with `relabel FILE` and make some decisions first"
    )]
    NoSession(String),
    #[error(
        "read-only, not saved: {holder} has this session open for writing; quit that one and open the file again to decide here"
    )]
    ReadOnly { holder: String },
    #[error(
        "{} changed on disk since it was loaded, not saved: export the decisions against the loaded version under a new name, or reopen the file",
        .0.display()
    )]
    InputChanged(PathBuf),
}

impl Session {
    pub fn export(&mut self, opts: &ExportOptions) -> Result<ExportSummary, ReviewError> {
        export::export(self, opts)
    }
}

/// Where session journals live: the user data directory.
pub fn default_store() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "relabel").map(|d| d.data_dir().join("sessions"))
}

/// `relabel export FILE`: loads the input, replays its journal, exports.
/// What reading the journal found (lines skipped, a backup, a review
/// screen holding the session) goes to `notice` before anything else, so
/// it is said even when the export then fails. Export only needs to read:
/// it works while a review screen holds the session, and then the export
/// is not recorded in the journal.
pub fn export_from_journal(
    path: &Path,
    load_options: &LoadOptions,
    store: &Path,
    opts: &ExportOptions,
    notice: &mut dyn FnMut(&str),
) -> Result<ExportSummary, ReviewError> {
    let ds = load(path, load_options).map_err(|e| ReviewError::Data(e.to_string()))?;
    let (mut session, info) = Session::open(ds, Some(store))?;
    for n in session.journal_notices() {
        notice(&n);
    }
    if !matches!(info, ResumeInfo::Resumed { .. }) {
        return Err(ReviewError::NoSession(path.display().to_string()));
    }
    let mut opts = opts.clone();
    if opts.model.is_empty() {
        opts.model = session.model_choice().map(|(m, _)| m).unwrap_or_default();
    }
    session.export(&opts)
}
