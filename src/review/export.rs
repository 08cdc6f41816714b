//! The cleaned file and its audit trail (DESIGN §5): each written whole
//! through a temporary file and a rename (`crate::atomic_write`), never over
//! the input, never over an existing file unless the curator said so.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::ReviewError;
use super::decision::Decision;
use super::session::Session;
use super::time::now;
use crate::atomic_write::{STALE_AFTER, Staged, remove_stale_temps, stage};
use crate::dataset::{CellEdit, Dataset, rewrite};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExportOptions {
    /// Where to write the cleaned file; default `<dir>/<stem>.cleaned.<ext>`.
    pub out: Option<PathBuf>,
    /// Replace existing files.
    pub overwrite: bool,
    /// Keep dropped rows, marked in a `relabel_action` column.
    pub keep_dropped_with_flag: bool,
    /// Model named in the audit file for a decision with no record of what
    /// the curator was shown (made before any fit, or in a journal written
    /// before that was recorded).
    pub model: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExportSummary {
    pub cleaned: PathBuf,
    pub audit: PathBuf,
    pub relabelled: usize,
    pub dropped: usize,
    pub kept: usize,
    /// Samples with a comment, decided or not.
    pub commented: usize,
}

impl ExportSummary {
    /// ", 2 commented" when there are comments: the curator's messages
    /// name the count only where it says something.
    pub fn commented_part(&self) -> String {
        if self.commented == 0 {
            String::new()
        } else {
            format!(", {} commented", self.commented)
        }
    }
}

/// Splits `dir/name.csv.gz` into (`dir`, `name`, `csv`, gz?). An input that
/// is not a file (the embedded demo) exports to the working directory.
fn parts(input: &Path) -> (PathBuf, String, String, bool) {
    if !input.is_file() {
        return (
            PathBuf::from("."),
            "relabel-demo".into(),
            "csv".into(),
            false,
        );
    }
    let dir = input.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = input
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("data.csv")
        .to_string();
    let (name, gz) = match name.strip_suffix(".gz") {
        Some(n) => (n.to_string(), true),
        None => (name, false),
    };
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_string(), e.to_string()),
        _ => (name.clone(), "csv".to_string()),
    };
    (dir, stem, ext, gz)
}

/// Default paths of the cleaned file and the audit file for an input.
pub fn default_paths(input: &Path) -> (PathBuf, PathBuf) {
    let (dir, stem, ext, gz) = parts(input);
    let gz = if gz { ".gz" } else { "" };
    (
        dir.join(format!("{stem}.cleaned.{ext}{gz}")),
        dir.join(format!("{stem}.audit.csv")),
    )
}

/// [`default_paths`] for a loaded table: a spreadsheet's or GEO file's
/// export is a CSV beside it (`<stem>.cleaned.csv`, `<stem>.labels.csv`),
/// since their own formats are never written.
pub fn default_paths_for(ds: &crate::dataset::Dataset) -> (PathBuf, PathBuf) {
    let (cleaned, audit) = default_paths(&ds.raw.path);
    match ds.raw.format.export_suffix() {
        Some(suffix) if ds.raw.path.is_file() => {
            let (dir, stem, _, _) = parts(&ds.raw.path);
            (dir.join(format!("{stem}{suffix}")), audit)
        }
        _ => (cleaned, audit),
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// The error of writing `path`, naming it (and its folder when that is
/// what refused), never the temporary file beside it that the write
/// used: the curator never sees that name, and it is gone by now.
fn write_error(path: &Path, e: std::io::Error, overwrite: bool) -> ReviewError {
    if e.kind() == std::io::ErrorKind::AlreadyExists && !overwrite {
        return ReviewError::Exists(path.to_path_buf());
    }
    // tempfile's errors carry the temporary path in their text.
    let cause = e.raw_os_error().map_or_else(
        || std::io::Error::from(e.kind()).to_string(),
        |code| std::io::Error::from_raw_os_error(code).to_string(),
    );
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let folder = if e.kind() == std::io::ErrorKind::PermissionDenied {
        format!(" (the folder {} does not let relabel write)", dir.display())
    } else {
        String::new()
    };
    ReviewError::Io(format!("cannot write {}: {cause}{folder}", path.display()))
}

/// Writes one export file whole under a temporary name, not yet in place.
fn stage_file(path: &Path, bytes: &[u8]) -> Result<Staged, ReviewError> {
    stage(path, |w| w.write_all(bytes)).map_err(|e| write_error(path, e, true))
}

/// Puts both files in place. Both are written and synced first; then the
/// audit is renamed into place before the cleaned file, never after: a
/// crash between the two renames leaves an audit without a cleaned file
/// (harmless: nothing takes an audit alone for a finished export, and the
/// next export writes both again), never a cleaned file without its audit.
/// A crash before either rename leaves only temporary files, which the
/// next export removes. A file that appeared since the check in [`export`]
/// is still not replaced without `overwrite`.
fn put_in_place(
    audit: (&Path, Staged),
    cleaned: (&Path, Staged),
    overwrite: bool,
) -> Result<(), ReviewError> {
    let (cleaned_path, cleaned_staged) = cleaned;
    audit
        .1
        .commit(overwrite)
        .map_err(|e| write_error(audit.0, e, overwrite))?;
    cleaned_staged
        .commit(overwrite)
        .map_err(|e| write_error(cleaned_path, e, overwrite))
}

/// Removes what a killed export left in the directories it writes to.
fn remove_leftovers(paths: [&Path; 2]) {
    for p in paths {
        let dir = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        remove_stale_temps(dir, STALE_AFTER);
    }
}

fn gzip(bytes: &[u8]) -> Result<Vec<u8>, ReviewError> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes)
        .and_then(|()| enc.finish())
        .map_err(|e| ReviewError::Io(format!("cannot compress the cleaned file: {e}")))
}

/// The audit's action for a sample that has a comment and no decision.
pub const UNDECIDED: &str = "undecided";

/// Writes the cleaned file and the audit file of the session's decisions
/// and comments (audit rows in input order), then journals the export.
pub fn export(session: &mut Session, opts: &ExportOptions) -> Result<ExportSummary, ReviewError> {
    // A changed input is never exported from the loaded bytes under the
    // name an export of the file as it is now would take.
    let changed = session.input_changed();
    if changed && !session.keeps_loaded_version() {
        return Err(ReviewError::InputChanged(
            session.dataset().raw.path.clone(),
        ));
    }
    let ds = session.dataset();
    let (cleaned, audit) = output_paths(ds, opts, changed)?;
    let mut edits = Vec::new();
    let (mut relabelled, mut dropped, mut kept) = (0, 0, 0);
    let mut audit_rows = csv::Writer::from_writer(Vec::new());
    let csv_err = |e: csv::Error| ReviewError::Io(format!("cannot write the audit file: {e}"));
    audit_rows
        .write_record([
            "row",
            "id",
            "given",
            "new_label_or_action",
            "p_mislabel",
            "model",
            "time",
            "comment",
        ])
        .map_err(csv_err)?;
    let fit = session.fit();
    let mut order: Vec<usize> = (0..ds.n_samples()).collect();
    order.sort_by_key(|&i| ds.rows[i]);
    for i in order {
        let decision = session.decisions()[i];
        let comment = session.comments().get(&i);
        // An undecided sample is in the audit when the curator commented
        // on it (left for someone else, say): the comment is part of the
        // trail, and its row says nothing was decided.
        if decision.is_none() && comment.is_none() {
            continue;
        }
        match decision {
            Some(Decision::Relabel(c)) => {
                relabelled += 1;
                edits.push((i, CellEdit::Relabel(ds.classes[c].clone())));
            }
            Some(Decision::Drop) => {
                dropped += 1;
                edits.push((i, CellEdit::Drop));
            }
            Some(Decision::Keep) => kept += 1,
            None => {}
        }
        // What the curator was shown before deciding; a session whose
        // journal predates that record falls back to the fit at hand.
        let (p, model) = match session.seen(i) {
            Some(seen) => (Some(seen.p_mislabel), seen.model.clone()),
            None => (fit.map(|f| f.p_mislabel[i]), opts.model.clone()),
        };
        let p = p
            .filter(|p| !p.is_nan())
            .map(|p| format!("{p:.6}"))
            .unwrap_or_default();
        let time = session
            .audit_time(i)
            .map(str::to_string)
            .unwrap_or_else(now);
        audit_rows
            .write_record([
                ds.rows[i].to_string(),
                ds.ids[i].clone(),
                ds.given_label(i).to_string(),
                decision.map_or_else(|| UNDECIDED.to_string(), |d| d.describe(&ds.classes)),
                p,
                model,
                time,
                comment.map(|c| c.text.clone()).unwrap_or_default(),
            ])
            .map_err(csv_err)?;
    }
    let flag = opts.keep_dropped_with_flag.then_some("relabel_action");
    let mut bytes = rewrite(ds, &edits, flag);
    if cleaned.to_string_lossy().ends_with(".gz") {
        bytes = gzip(&bytes)?;
    }
    let audit_bytes = audit_rows
        .into_inner()
        .map_err(|e| ReviewError::Io(format!("cannot write the audit file: {e}")))?;
    remove_leftovers([&cleaned, &audit]);
    let staged_cleaned = stage_file(&cleaned, &bytes)?;
    let staged_audit = stage_file(&audit, &audit_bytes)?;
    put_in_place(
        (&audit, staged_audit),
        (&cleaned, staged_cleaned),
        opts.overwrite,
    )?;
    session.mark_exported(&cleaned)?;
    Ok(ExportSummary {
        cleaned,
        audit,
        relabelled,
        dropped,
        kept,
        commented: session.comments().len(),
    })
}

/// The cleaned file and the audit file an export writes: `--out` and an
/// audit beside it named after its stem, or the defaults beside the input.
/// Neither may be the input, nor (without `overwrite`) an existing file.
/// `as_loaded`: the input changed since it was loaded, and the default
/// names say the export is of the loaded version (`<stem>.as-loaded.*`).
fn output_paths(
    ds: &Dataset,
    opts: &ExportOptions,
    as_loaded: bool,
) -> Result<(PathBuf, PathBuf), ReviewError> {
    let (mut default_cleaned, mut default_audit) = default_paths_for(ds);
    if as_loaded {
        for p in [&mut default_cleaned, &mut default_audit] {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            if let Some((stem, rest)) = name.as_deref().and_then(|n| n.split_once('.')) {
                p.set_file_name(format!("{stem}.as-loaded.{rest}"));
            }
        }
    }
    let cleaned = opts.out.clone().unwrap_or(default_cleaned);
    let audit = match &opts.out {
        Some(out) => {
            let (dir, stem, _, _) = parts_of_output(out);
            dir.join(format!("{stem}.audit.csv"))
        }
        None => default_audit,
    };
    for p in [&cleaned, &audit] {
        if same_file(p, &ds.raw.path) {
            return Err(ReviewError::WouldOverwriteInput(p.clone()));
        }
        if p.exists() && !opts.overwrite {
            return Err(ReviewError::Exists(p.clone()));
        }
    }
    Ok((cleaned, audit))
}

/// The audit file goes beside a chosen output, named after its stem.
fn parts_of_output(out: &Path) -> (PathBuf, String, String, bool) {
    let dir = out.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = out
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("out.csv");
    let name = name.strip_suffix(".gz").unwrap_or(name);
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    let stem = stem.strip_suffix(".cleaned").unwrap_or(stem);
    (dir, stem.to_string(), String::new(), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 51: a write the folder refuses names the file the curator
    /// asked for, never the temporary file beside it.
    #[test]
    fn a_refused_write_names_the_real_path() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("missing").join("w.cleaned.csv");
        let e = match stage_file(&path, b"x") {
            Err(e) => e.to_string(),
            Ok(_) => panic!("wrote into a missing folder"),
        };
        assert!(
            e.starts_with(&format!("cannot write {}: ", path.display())),
            "{e}"
        );
        assert!(!e.contains(crate::atomic_write::TEMP_MARK), "{e}");
    }

    #[test]
    fn default_names_keep_the_extension_and_compression() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let input = dir.path().join("x.csv.gz");
        std::fs::write(&input, b"").unwrap_or_else(|e| panic!("{e}"));
        let (c, a) = default_paths(&input);
        assert_eq!(c, dir.path().join("x.cleaned.csv.gz"));
        assert_eq!(a, dir.path().join("x.audit.csv"));
        let input = dir.path().join("data.v2.tsv");
        std::fs::write(&input, b"").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            default_paths(&input).0,
            dir.path().join("data.v2.cleaned.tsv")
        );
        assert_eq!(
            parts_of_output(Path::new("/o/y.cleaned.csv")).1,
            "y",
            "a chosen y.cleaned.csv gets y.audit.csv"
        );
    }
}
