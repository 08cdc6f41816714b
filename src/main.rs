//! The `relabel` binary: parse the command line, dispatch, and turn errors
//! into one line on stderr with exit code 2 (bad input) or 1.

use std::process::ExitCode;

use clap::Parser;
use relabel::cli::{self, Cli};

fn main() -> ExitCode {
    let args = Cli::parse();
    let result = match &args.command {
        Some(command) => cli::run(command, &args.data, &args.model),
        None => cli::open_tui(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("relabel: {e}");
            e.exit_code()
        }
    }
}
