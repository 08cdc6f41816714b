//! Shell conventions: completion scripts (`relabel completions SHELL`) and
//! the man page (`relabel man`), both generated from the clap definitions in
//! [`super::args`], so they never fall behind the options.

use std::io::Write;

use anyhow::Context;
use clap::CommandFactory;

use super::CliError;
use super::args::Cli;

/// Writes the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<(), CliError> {
    let mut command = Cli::command();
    clap_complete::generate(shell, &mut command, "relabel", out);
    out.flush().context("cannot write the completion script")?;
    Ok(())
}

/// Writes the man page (roff): name, synopsis, every option with its help
/// text, and the subcommands.
pub fn man(out: &mut dyn Write) -> Result<(), CliError> {
    clap_mangen::Man::new(Cli::command())
        .render(out)
        .context("cannot write the man page")?;
    out.flush().context("cannot write the man page")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(write: impl FnOnce(&mut Vec<u8>) -> Result<(), CliError>) -> String {
        let mut out = Vec::new();
        write(&mut out).unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8(out).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn every_shell_gets_a_script_that_knows_scan() {
        use clap_complete::Shell;
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish] {
            let script = text(|o| completions(shell, o));
            assert!(script.contains("scan"), "{shell}: {script}");
            assert!(script.contains("label"), "{shell}");
        }
    }

    #[test]
    fn the_man_page_names_the_commands_and_options() {
        let page = text(|o| man(o));
        assert!(page.starts_with(".ie") || page.contains(".TH"), "{page}");
        assert!(page.contains("scan") && page.contains("label"), "{page}");
    }
}
