//! Headless commands (DESIGN §3): `scan`, `eval`, `export`. Each returns a
//! [`CliError`] that the binary turns into one line on stderr and an exit
//! code: 2 for bad input, 1 for anything else.

use std::process::ExitCode;

pub mod args;
pub mod eval;
pub mod output;
pub mod scan;

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
}

impl CliError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::BadInput(_) => ExitCode::from(2),
            CliError::Failed(_) => ExitCode::from(1),
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
    match export_from_journal(&a.data, &data.load_options_for(&[model])?, &store, &opts) {
        Ok(s) => {
            println!(
                "wrote {} ({} relabelled, {} dropped, {} kept) and {}",
                s.cleaned.display(),
                s.relabelled,
                s.dropped,
                s.kept,
                s.audit.display()
            );
            Ok(())
        }
        Err(e @ ReviewError::Io(_)) => Err(CliError::Failed(anyhow::anyhow!(e))),
        Err(ReviewError::Exists(p)) => Err(CliError::BadInput(format!(
            "{} already exists; pass --force to replace it, or --out to choose another name",
            p.display()
        ))),
        Err(e) => Err(CliError::BadInput(e.to_string())),
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

/// What `auto` looks at: size and whether every feature is discrete (small
/// integer codes, e.g. one-hot columns or y/n answers).
pub fn data_shape(ds: &crate::dataset::Dataset) -> crate::models::DataShape {
    const MAX_DISCRETE_LEVELS: usize = 8;
    let discrete = ds.x.ncols() > 0
        && ds.x.column_iter().all(|col| {
            let mut levels: Vec<f64> = Vec::new();
            for &v in col.iter() {
                if v.fract() != 0.0 {
                    return false;
                }
                if !levels.contains(&v) {
                    if levels.len() == MAX_DISCRETE_LEVELS {
                        return false;
                    }
                    levels.push(v);
                }
            }
            true
        });
    crate::models::DataShape {
        n_samples: ds.x.nrows(),
        n_features: ds.x.ncols(),
        discrete,
    }
}

/// The level-code matrix (`Dataset::source_matrix`) when a model asks for
/// levels and the table has string columns; `None` when the feature matrix
/// serves (no string columns, or a model of features).
pub fn level_matrix(
    ds: &crate::dataset::Dataset,
    input: crate::models::ModelInput,
) -> Option<nalgebra::DMatrix<f64>> {
    (input != crate::models::ModelInput::Features && !ds.categorical.is_empty())
        .then(|| ds.source_matrix().0)
}

/// Whether the model named on the command line reads string levels as they
/// are, so that string columns load without `--categorical onehot`. `auto`
/// and `all` do too: auto then sees discrete data and picks cbt, and all
/// hands cbt the levels and the other members one-hot columns.
pub fn model_reads_levels(model: &str) -> bool {
    matches!(model, "cbt" | "auto" | "all")
}

/// The embedded demo: iris with 20% pair noise (sample_data/iris_noisy.csv).
pub const DEMO_CSV: &str = include_str!("../assets/demo.csv");
pub const DEMO_NAME: &str = "demo (iris with 20% pair noise)";

/// Loads FILE, or the embedded demo when no file is given.
pub fn load_or_demo(
    file: Option<&std::path::Path>,
    data: &DataArgs,
    model: &str,
) -> Result<crate::dataset::Dataset, CliError> {
    match file {
        Some(path) => load(path, data, &[model]),
        None => Ok(crate::dataset::load_bytes(
            std::path::Path::new(DEMO_NAME),
            DEMO_CSV.as_bytes().to_vec(),
            &data.load_options_for(&[model])?,
        )?),
    }
}

/// `relabel [FILE]`: the review UI.
pub fn open_tui(args: &Cli) -> Result<(), CliError> {
    let dataset = load_or_demo(args.file.as_deref(), &args.data, args.model.name())?;
    let options = args.model.model_options()?;
    crate::tui::run(crate::tui::TuiArgs {
        dataset,
        store: crate::review::default_store(),
        model: args.model.name().to_string(),
        options,
        model_given: args.model.model.is_some(),
    })
    .map_err(CliError::Failed)
}
