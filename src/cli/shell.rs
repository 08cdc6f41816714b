//! Shell conventions: completion scripts (`relabel completions SHELL`) and
//! the man page (`relabel man`). Both are generated from what the program
//! itself uses, so they never fall behind it: the options and commands from
//! the clap definitions in [`super::args`], the keys from the review screen's
//! key table (the one its help is built from, handed in by the binary, since
//! `cli` and `tui` never import each other), the paths from the same
//! `directories` lookups the program makes.
//!
//! The man page is one page, `relabel(1)`: the commands are its sections,
//! not pages of their own, so it names no `relabel-scan(1)` that does not
//! exist.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::CommandFactory;

use super::CliError;
use super::args::Cli;

/// The review screen's keys as its help lists them: (keys, what they do),
/// on the main screen and inside popups.
#[derive(Clone, Debug, Default)]
pub struct ScreenKeys {
    pub main: Vec<(String, String)>,
    pub popup: Vec<(String, String)>,
}

/// Writes the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<(), CliError> {
    let mut command = Cli::command();
    clap_complete::generate(shell, &mut command, "relabel", out);
    out.flush().context("cannot write the completion script")?;
    Ok(())
}

/// Writes the man page (roff): name, synopsis, description, the options
/// every command shares, each command with its own options, then the keys
/// of the review screen, its files, the environment and the exit status.
pub fn man(out: &mut dyn Write, keys: &ScreenKeys) -> Result<(), CliError> {
    let page = man_page(keys).context("cannot build the man page")?;
    out.write_all(page.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write the man page")?;
    Ok(())
}

fn man_page(keys: &ScreenKeys) -> anyhow::Result<String> {
    let mut command = Cli::command();
    command.build();
    let man = clap_mangen::Man::new(command.clone());
    let mut roff = Vec::new();
    man.render_title(&mut roff)?;
    man.render_name_section(&mut roff)?;
    man.render_synopsis_section(&mut roff)?;
    let mut page = String::from_utf8(roff)?;
    page.push_str(DESCRIPTION);
    let mut roff = Vec::new();
    man.render_options_section(&mut roff)?;
    page.push_str(&String::from_utf8(roff)?);
    page.push_str(&commands_section(&command)?);
    page.push_str(&keys_section(keys));
    page.push_str(&files_section());
    page.push_str(ENVIRONMENT);
    page.push_str(EXIT_STATUS);
    page.push_str(SEE_ALSO);
    Ok(once_preamble(&page))
}

/// Each of clap_mangen's section renderings starts with the same two-line
/// preamble (the quote string for groff and others); a page needs it once.
fn once_preamble(roff: &str) -> String {
    const PREAMBLE: [&str; 2] = [".ie \\n(.g .ds Aq \\(aq", ".el .ds Aq '"];
    let mut seen = false;
    let mut out = String::new();
    let mut lines = roff.lines().peekable();
    while let Some(line) = lines.next() {
        if line == PREAMBLE[0] && lines.peek() == Some(&PREAMBLE[1]) {
            lines.next();
            if seen {
                continue;
            }
            seen = true;
            out.push_str(PREAMBLE[0]);
            out.push('\n');
            out.push_str(PREAMBLE[1]);
            out.push('\n');
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Text for a roff line: backslashes and dashes escaped, and a line that
/// would start with a control character kept as text.
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// COMMANDS: each subcommand's usage, what it does and the options only it
/// takes (the shared data and model options are under OPTIONS once).
fn commands_section(command: &clap::Command) -> anyhow::Result<String> {
    let shared: Vec<&str> = command
        .get_arguments()
        .map(|a| a.get_id().as_str())
        .collect();
    let mut s = String::from(".SH COMMANDS\n");
    s.push_str(
        "Without a command, relabel opens the review screen on FILE (or on the embedded \
         demo). The commands below run without a screen; each also takes the options \
         above.\n",
    );
    for sub in command.get_subcommands().filter(|c| !c.is_hide_set()) {
        if sub.get_name() == "help" {
            continue;
        }
        let mut sub = sub.clone();
        let usage = sub.render_usage().to_string();
        let usage = usage.trim().trim_start_matches("Usage:").trim();
        s.push_str(&format!(".SS \"relabel {}\"\n", sub.get_name()));
        s.push_str(&format!(".B {}\n.PP\n", roff_text(usage)));
        if let Some(about) = sub.get_long_about().or_else(|| sub.get_about()) {
            s.push_str(&roff_text(&about.to_string()));
            s.push('\n');
        }
        let own: Vec<clap::Arg> = sub
            .get_arguments()
            .filter(|a| !a.is_hide_set() && !shared.contains(&a.get_id().as_str()))
            .filter(|a| !matches!(a.get_id().as_str(), "help" | "version"))
            .cloned()
            .collect();
        if own.is_empty() {
            continue;
        }
        let mut options = Vec::new();
        clap_mangen::Man::new(
            clap::Command::new("relabel")
                .disable_help_flag(true)
                .args(own),
        )
        .render_options_section(&mut options)?;
        // The options of a command are part of its subsection, not sections.
        for line in String::from_utf8(options)?.lines() {
            if !line.starts_with(".SH") {
                s.push_str(line);
                s.push('\n');
            }
        }
    }
    Ok(s)
}

/// KEYS: the review screen's default bindings, from the same table its help
/// and hints are built from.
fn keys_section(keys: &ScreenKeys) -> String {
    let mut s = String::from(".SH KEYS\n");
    s.push_str(
        "The review screen's default keys. A keymap.toml in the config directory (see \
         FILES) rebinds any of them; the screen's help (?) and hints then show yours.\n",
    );
    let table = |s: &mut String, lines: &[(String, String)]| {
        for (keys, what) in lines {
            s.push_str(&format!(
                ".TP\n\\fB{}\\fR\n{}\n",
                roff_text(keys),
                roff_text(what)
            ));
        }
    };
    table(&mut s, &keys.main);
    s.push_str(".PP\nInside popups (menus, the help, the model picker, text fields, questions):\n");
    table(&mut s, &keys.popup);
    s
}

/// Where the program keeps things, as `directories` resolves it here: the
/// pattern first (as on Linux), then this system's path.
fn files_section() -> String {
    let dirs = directories::ProjectDirs::from("", "", "relabel");
    let here = |p: Option<PathBuf>| match p {
        Some(p) => format!("On this system: {}", roff_text(&p.display().to_string())),
        None => "No home directory was found on this system.".to_string(),
    };
    let sessions = crate::review::default_store();
    let keymap = dirs.as_ref().map(|d| d.config_dir().join("keymap.toml"));
    format!(
        ".SH FILES\n\
         .TP\n\\fI$XDG_DATA_HOME/relabel/sessions/\\fR (default \\fI~/.local/share/relabel/sessions/\\fR)\n\
         One journal per reviewed input, \\fIKEY.jsonl\\fR, keyed by a hash of the input's content \
         and the options it was read with; every decision is appended before the screen shows it. \
         \\fIKEY.lock\\fR and \\fIKEY.lock\\-info\\fR name the screen that holds the session; a journal \
         that did not read whole is copied to \\fIKEY.jsonl.bak\\fR before the next write. \
         \\fBrelabel sessions\\fR lists them; \\fBrelabel sessions forget\\fR and \\fB\\-\\-fresh\\fR \
         move a session to \\fIforgotten/\\fR in this folder (never deleted). {}\n\
         .TP\n\\fI$XDG_CONFIG_HOME/relabel/keymap.toml\\fR (default \\fI~/.config/relabel/keymap.toml\\fR)\n\
         Key bindings of the review screen: action = [keys], as in the defaults under KEYS; \
         actions left out keep their defaults. {}\n\
         .TP\n\\fISTEM.cleaned.EXT\\fR, \\fISTEM.audit.csv\\fR, \\fISTEM.audit.html\\fR, \\fISTEM.labels.csv\\fR\n\
         What an export and a report write beside the input: the cleaned file (a CSV beside a \
         spreadsheet; a labels sheet for a GEO file), the audit trail, the page to share. \
         The input is never written.\n",
        here(sessions),
        here(keymap),
    )
}

const DESCRIPTION: &str = ".SH DESCRIPTION\n\
relabel finds the wrong labels in a labelled table. It fits a label\\-noise\\-aware model \
(or \\fBauto\\fR, which chooses among them by held\\-out evidence), ranks every sample by \
the probability that its given label is wrong, and shows the ranking in a review screen: \
accept the suggested label, choose another, keep or drop the sample, undo, and export a \
cleaned copy with an audit trail. The input file is never written, and every decision is \
saved before the screen shows it.\n\
.PP\n\
\\fBrelabel\\fR \\fIFILE\\fR opens the review screen on FILE (CSV, TSV, gzip, a spreadsheet \
or a GEO file); without FILE, on an embedded demo. The commands below do the same work \
without a screen.\n";

const ENVIRONMENT: &str = ".SH ENVIRONMENT\n\
.TP\n\\fBNO_COLOR\\fR\n\
Set and not empty: the review screen uses no colour (the selection stays visible in reverse video).\n\
.TP\n\\fBXDG_DATA_HOME\\fR, \\fBXDG_CONFIG_HOME\\fR, \\fBHOME\\fR\n\
Where the sessions folder and keymap.toml are (see FILES); on macOS and Windows the platform's own folders.\n\
.TP\n\\fBRAYON_NUM_THREADS\\fR\n\
How many threads fits use (default: one per core). The ranking is the same with any number: \
sums are taken in a fixed order, and nothing reads a clock.\n";

const EXIT_STATUS: &str = ".SH EXIT STATUS\n\
.TP\n0\nSuccess.\n\
.TP\n1\nA failure that is not the input's fault (an output that cannot be written, a fit that failed).\n\
.TP\n2\nBad input or a bad option: one line on stderr, \\fIfile:line:column: what is wrong \\- what to do\\fR.\n";

const SEE_ALSO: &str = ".SH SEE ALSO\n\
\\fBrelabel \\-\\-help\\fR and \\fBrelabel\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR; \
README.md and docs/GUIDE.md in the source.\n";

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

    fn keys() -> ScreenKeys {
        ScreenKeys {
            main: vec![
                ("j Down".into(), "next sample".into()),
                ("?".into(), "this help".into()),
            ],
            popup: vec![("Esc".into(), "cancel".into())],
        }
    }

    fn page() -> String {
        text(|o| man(o, &keys()))
    }

    fn sections(page: &str) -> Vec<&str> {
        page.lines()
            .filter_map(|l| l.strip_prefix(".SH "))
            .collect()
    }

    #[test]
    fn the_man_page_has_its_sections_in_order() {
        let page = page();
        assert!(page.contains("\n.TH relabel 1 "), "{page}");
        let preambles = page.matches(".ds Aq").count();
        assert!(preambles <= 2, "the preamble {preambles} times");
        assert_eq!(
            sections(&page),
            [
                "NAME",
                "SYNOPSIS",
                "DESCRIPTION",
                "OPTIONS",
                "COMMANDS",
                "KEYS",
                "FILES",
                "ENVIRONMENT",
                "\"EXIT STATUS\"",
                "\"SEE ALSO\""
            ]
            .map(|s| s.trim_matches('"'))
        );
    }

    #[test]
    fn the_man_page_names_no_page_that_does_not_exist() {
        let page = page();
        // Only relabel(1) is written; a reference like relabel-scan(1)
        // would send the reader to nothing.
        let refs: Vec<&str> = page
            .split(|c: char| c.is_whitespace())
            .filter(|w| w.contains("(1)") && !w.starts_with("relabel(1)"))
            .collect();
        assert!(refs.is_empty(), "{refs:?}");
    }

    #[test]
    fn every_command_has_a_subsection_with_its_own_options() {
        let page = page();
        let mut command = Cli::command();
        command.build();
        for sub in command.get_subcommands().filter(|c| c.get_name() != "help") {
            let heading = format!(".SS \"relabel {}\"", sub.get_name());
            assert!(page.contains(&heading), "no {heading}");
        }
        // scan's own options are under scan, the shared ones once, above.
        let scan = &page[page.find(".SS \"relabel scan\"").unwrap_or(0)..];
        let scan = &scan[..scan.find(".SS \"relabel eval\"").unwrap_or(scan.len())];
        assert!(
            scan.contains("\\-\\-out") && scan.contains("\\-\\-report"),
            "{scan}"
        );
        assert!(
            !scan.contains("\\-\\-label"),
            "shared options repeated under scan: {scan}"
        );
        assert!(page.contains("\\-\\-label"));
    }

    #[test]
    fn the_keys_section_lists_the_keys_it_is_given() {
        let page = page();
        let keys_part =
            &page[page.find(".SH KEYS").unwrap_or(0)..page.find(".SH FILES").unwrap_or(0)];
        for (k, what) in keys().main.iter().chain(&keys().popup) {
            let entry = format!("\\fB{}\\fR\n{}\n", roff_text(k), roff_text(what));
            assert!(
                keys_part.contains(&entry),
                "KEYS lacks {k:?} {what:?}:\n{keys_part}"
            );
        }
    }

    #[test]
    fn files_and_environment_name_the_paths_and_variables_the_program_reads() {
        let page = page();
        let files = &page[page.find(".SH FILES").unwrap_or(0)..];
        assert!(files.contains("relabel/sessions/") && files.contains("keymap.toml"));
        if let Some(store) = crate::review::default_store() {
            let here = roff_text(&store.display().to_string());
            assert!(
                files.contains(&here),
                "the resolved sessions folder {here}: {files}"
            );
        }
        for var in [
            "NO_COLOR",
            "XDG_DATA_HOME",
            "XDG_CONFIG_HOME",
            "RAYON_NUM_THREADS",
        ] {
            assert!(
                files.contains(&format!("\\fB{var}")),
                "ENVIRONMENT lacks {var}"
            );
        }
    }

    #[test]
    fn roff_text_keeps_control_characters_as_text() {
        assert_eq!(roff_text(".hidden"), "\\&.hidden");
        assert_eq!(roff_text("'quote"), "\\&'quote");
        assert_eq!(roff_text("a-b\\c"), "a\\-b\\ec");
    }
}
