//! The `relabel` binary: parse the command line, dispatch to a headless
//! command or the review screen, and turn errors into one line on stderr
//! with exit code 2 (bad input) or 1.

use std::process::ExitCode;

use clap::Parser;
use relabel::cli::{self, Cli, CliError};

fn main() -> ExitCode {
    let args = Cli::parse();
    let result = match &args.command {
        Some(command) => cli::run(command, &args.data, &args.model),
        None => open_review(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("relabel: {e}");
            e.exit_code()
        }
    }
}

/// `relabel [FILE]`: the review screen on FILE, or on the embedded demo.
fn open_review(args: &Cli) -> Result<(), CliError> {
    let model = args.model.name();
    let load_options = args.data.load_options_for(&[model])?;
    let dataset = relabel::app::load_or_demo(args.file.as_deref(), &load_options)?;
    let options = args.model.model_options()?;
    relabel::tui::run(relabel::tui::TuiArgs {
        dataset,
        store: relabel::review::default_store(),
        model: model.to_string(),
        options,
        model_given: args.model.model.is_some(),
    })
    .map_err(CliError::Failed)
}
