//! Headless commands (DESIGN §3): `scan`, `eval`, `export`, `report`, and the
//! command-line arguments the review screen shares. Each command returns a
//! [`CliError`] that the binary turns into one line on stderr and an exit
//! code: 2 for bad input, 1 for anything else. Fitting goes through
//! [`crate::app`]; this module never opens the review screen.

use std::process::ExitCode;

pub mod args;
mod decimal;
pub mod eval;
pub mod output;
pub mod progress;
pub mod report;
pub mod scan;
pub mod shell;

pub use args::{Cli, Command, DataArgs, ModelArgs};

/// What went wrong, sorted by whose move it is.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The input or the options are wrong: the message says what to do.
    #[error("{0}")]
    BadInput(String),
    /// Anything else (I/O failures, numerical failures).
    #[error("{0:#}")]
    Failed(#[from] anyhow::Error),
    /// The review screen was stopped by a signal (its number), its
    /// terminal restored: the exit code is the shell's, 128 + the number.
    #[error("{0}")]
    Interrupted(crate::tui::terminal::Interrupted),
}

impl CliError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::BadInput(_) => ExitCode::from(2),
            CliError::Failed(_) => ExitCode::from(1),
            CliError::Interrupted(s) => ExitCode::from(u8::try_from(128 + s.0).unwrap_or(1)),
        }
    }
}

/// A session's error as the command line says it: a failed read or write
/// is a failure (1); anything else (a journal of a newer format, a
/// missing session, an existing file) is the user's move (2), the same
/// from `export` as from the review screen.
impl From<crate::review::ReviewError> for CliError {
    fn from(e: crate::review::ReviewError) -> Self {
        match e {
            crate::review::ReviewError::Io(_) => CliError::Failed(anyhow::anyhow!(e)),
            e => CliError::BadInput(e.to_string()),
        }
    }
}

impl From<crate::dataset::DataError> for CliError {
    fn from(e: crate::dataset::DataError) -> Self {
        CliError::BadInput(e.to_string())
    }
}

impl From<crate::models::FitError> for CliError {
    fn from(e: crate::models::FitError) -> Self {
        use crate::models::FitError::*;
        match e {
            InvalidInput(_) | NotApplicable(_) | UnknownModel(..) | InvalidOption(_) => {
                CliError::BadInput(e.to_string())
            }
            Cancelled | Numerical(_) => CliError::Failed(anyhow::anyhow!(e)),
        }
    }
}

/// Runs a headless command with the shared data and model options.
/// `screen_keys` gives the review screen's keys for the man page: the binary
/// hands them in, since `cli` and `tui` never import each other.
pub fn run(
    command: &Command,
    data: &DataArgs,
    model: &ModelArgs,
    screen_keys: &dyn Fn() -> Result<shell::ScreenKeys, CliError>,
) -> Result<(), CliError> {
    match command {
        Command::Scan(a) => scan::run(a, data, model),
        Command::Eval(a) => eval::run(a, data, model),
        Command::Export(a) => export(a, data, model.name()),
        Command::Report(a) => report::run(a, data, model),
        Command::Completions(a) => shell::completions(a.shell, &mut std::io::stdout().lock()),
        Command::Sessions(a) => sessions(a),
        Command::Man => shell::man(&mut std::io::stdout().lock(), &screen_keys()?),
    }
}

/// `relabel sessions`: the saved sessions, or some set aside.
fn sessions(a: &args::SessionsArgs) -> Result<(), CliError> {
    use crate::review::{ReviewError, default_store, sessions};
    use std::io::Write;
    let store = default_store().ok_or_else(|| {
        CliError::Failed(anyhow::anyhow!(
            "cannot find a home directory for the session store"
        ))
    })?;
    let review = |e: ReviewError| CliError::from(e);
    let mut out = std::io::stdout().lock();
    let mut say = |line: String| writeln!(out, "{line}").map_err(|e| CliError::Failed(e.into()));
    match &a.action {
        None | Some(args::SessionsAction::List) => {
            let listed = sessions::list(&store).map_err(review)?;
            if listed.is_empty() {
                return say(format!("no saved sessions in {}", store.display()));
            }
            say(format!("sessions in {}:", store.display()))?;
            for s in listed {
                let older = if s.older {
                    " (an earlier version of the file)"
                } else {
                    ""
                };
                say(format!(
                    "  {}  {}, last written {}{older}",
                    s.file,
                    crate::dataset::counted(s.entries, "change"),
                    s.modified
                ))?;
            }
            say("forget a file's sessions with `relabel sessions forget FILE`; open one fresh with `relabel --fresh FILE`".into())
        }
        Some(args::SessionsAction::Forget { files }) => {
            for file in files {
                let moved = sessions::forget_file(&store, file).map_err(review)?;
                match moved.as_slice() {
                    [] => say(format!("{}: no saved session", file.display()))?,
                    _ => say(format!(
                        "{}: {} set aside in {} (delete them there to free the space)",
                        file.display(),
                        crate::dataset::counted(moved.len(), "session"),
                        sessions::forgotten_dir(&store).display()
                    ))?,
                }
            }
            Ok(())
        }
    }
}

/// `relabel export`: the cleaned file from the journal, without the UI.
fn export(a: &args::ExportArgs, data: &DataArgs, model: &str) -> Result<(), CliError> {
    use crate::review::{ExportOptions, ReviewError, default_store, export_from_journal};
    let store = default_store().ok_or_else(|| {
        CliError::Failed(anyhow::anyhow!(
            "cannot find a home directory for the session store"
        ))
    })?;
    let opts = ExportOptions {
        out: a.out.clone(),
        overwrite: a.force,
        keep_dropped_with_flag: a.keep_dropped,
        model: String::new(),
    };
    let load_options = data.load_options_for(&[model])?;
    let mut notice = |n: &str| eprintln!("relabel: {n}");
    match export_from_journal(&a.data, &load_options, &store, &opts, &mut notice) {
        Ok(s) => {
            println!(
                "wrote {} ({} relabelled, {} dropped, {} kept{}) and {}",
                s.cleaned.display(),
                s.relabelled,
                s.dropped,
                s.kept,
                s.commented_part(),
                s.audit.display()
            );
            Ok(())
        }
        Err(ReviewError::Exists(p)) => Err(CliError::BadInput(format!(
            "{} already exists; pass --force to replace it, or --out to choose another name",
            p.display()
        ))),
        Err(e) => Err(e.into()),
    }
}

/// Loads a table with the user's data options, for the named models (a
/// model that reads string levels lets string columns in by default).
pub fn load(
    path: &std::path::Path,
    data: &DataArgs,
    models: &[&str],
) -> Result<crate::dataset::Dataset, CliError> {
    Ok(crate::dataset::load(path, &data.load_options_for(models)?)?)
}

/// [`load`] for a table that is only scored (`scan`): never exported,
/// rewritten nor reviewed, so the file's bytes are let go once read.
pub fn load_to_score(
    path: &std::path::Path,
    data: &DataArgs,
    models: &[&str],
) -> Result<crate::dataset::Dataset, CliError> {
    let options = crate::dataset::LoadOptions {
        drop_raw: true,
        ..data.load_options_for(models)?
    };
    Ok(crate::dataset::load(path, &options)?)
}
