//! The `relabel` binary: parse the command line, dispatch to a headless
//! command or the review screen, and turn errors into one line on stderr
//! with exit code 2 (bad input) or 1.

use std::process::ExitCode;

use clap::Parser;
use relabel::cli::{self, Cli, CliError};

fn main() -> ExitCode {
    let args = match Cli::try_parse() {
        Ok(args) => args,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            eprintln!("relabel: {}", one_line(&e));
            return ExitCode::from(2);
        }
    };
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

/// A command-line error in one line, like every other bad-input message:
/// clap's own rendering spreads it over several lines with a usage block.
fn one_line(e: &clap::Error) -> String {
    let text = e.to_string();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"))
        .map(|l| l.strip_prefix("error: ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `relabel [FILE]`: the review screen on FILE, or on the embedded demo.
fn open_review(args: &Cli) -> Result<(), CliError> {
    let model = args.model.name();
    args.model.check_read_by(model)?;
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
