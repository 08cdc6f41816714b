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
            say(&format!("relabel: {}", one_line(&e)));
            return ExitCode::from(2);
        }
    };
    let result = match &args.command {
        Some(command) => cli::run(command, &args.data, &args.model, &screen_keys),
        None => open_review(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say(&format!("relabel: {e}"));
            e.exit_code()
        }
    }
}

/// A line on stderr; a stderr that is gone (the terminal window closed)
/// does not turn the exit into a panic, as `eprintln!` would.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
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

/// The review screen's default keys, for `relabel man`: the binary is the
/// one place that knows both `cli` and `tui`.
fn screen_keys() -> Result<cli::shell::ScreenKeys, CliError> {
    let keys = relabel::tui::keys::KeyMap::load(None)
        .map_err(|e| CliError::Failed(anyhow::anyhow!("the embedded keymap: {e}")))?;
    Ok(cli::shell::ScreenKeys {
        main: keys.help_lines(),
        popup: keys.popup_help_lines(),
    })
}

/// `relabel [FILE]`: the review screen on FILE, or on the embedded demo.
fn open_review(args: &Cli) -> Result<(), CliError> {
    use relabel::tui::terminal;
    let model = args.model.name();
    args.model.check_read_by(model)?;
    let load_options = args.data.load_options_for(&[model])?;
    let options = args.model.model_options()?;
    // Before anything is read: a script that runs the screen by mistake
    // is told at once what to run instead.
    if !terminal::available() {
        return Err(CliError::BadInput(terminal::NoTerminal.to_string()));
    }
    // A file loads behind the screen (its first rows shown at once); the
    // demo is in memory already.
    let source = match &args.file {
        // A path that is not a regular file is refused by the loader at
        // once, before the screen opens.
        Some(path) if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) => {
            relabel::tui::Source::Ready(Box::new(relabel::dataset::load(path, &load_options)?))
        }
        Some(path) => relabel::tui::Source::File(path.clone(), Box::new(load_options)),
        None => {
            relabel::tui::Source::Ready(Box::new(relabel::app::load_or_demo(None, &load_options)?))
        }
    };
    relabel::tui::run(relabel::tui::TuiArgs {
        source,
        store: relabel::review::default_store(),
        model: model.to_string(),
        options,
        model_given: args.model.model.is_some(),
        fresh: args.fresh,
    })
    .map_err(screen_error)
}

/// The review screen's error as the command line reports it: the same
/// cause gives the same exit code as from a headless command.
fn screen_error(e: anyhow::Error) -> CliError {
    let e = match e.downcast::<relabel::dataset::DataError>() {
        Ok(data) => return CliError::from(data),
        Err(e) => e,
    };
    let e = match e.downcast::<relabel::review::ReviewError>() {
        Ok(review) => return CliError::from(review),
        Err(e) => e,
    };
    let e = match e.downcast::<relabel::tui::terminal::Interrupted>() {
        Ok(signal) => return CliError::Interrupted(signal),
        Err(e) => e,
    };
    match e.downcast::<relabel::tui::terminal::NoTerminal>() {
        Ok(none) => CliError::BadInput(none.to_string()),
        Err(other) => CliError::Failed(other),
    }
}
