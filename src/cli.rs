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
pub fn run(command: &Command, data: &DataArgs, model: &ModelArgs) -> Result<(), CliError> {
    match command {
        Command::Scan(a) => scan::run(a, data, model),
        Command::Eval(a) => eval::run(a, data, model),
        Command::Export(a) => export(a, data, model.name()),
        Command::Report(a) => report::run(a, data, model),
        Command::Completions(a) => shell::completions(a.shell, &mut std::io::stdout().lock()),
        Command::Man => shell::man(&mut std::io::stdout().lock()),
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
