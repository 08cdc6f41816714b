//! What every `relabel eval --paper` experiment shares: its settings, the
//! progress bar, and how its table is printed (used by `papers` and
//! `microarray`, which would otherwise import each other).

use super::super::CliError;
use super::super::args::EvalArgs;
use super::super::progress::Bar;
use crate::eval::paper_table::Scale;
use crate::eval::{rmda_papers, rnda_papers, shift_papers};

/// What every experiment's printing shares.
pub(in crate::cli) struct Run<'a> {
    pub scale: Scale,
    pub repeats: Option<usize>,
    pub seed: u64,
    pub bar: &'a Bar,
}

/// A table the experiment prints.
pub(super) trait Printed {
    fn text(&self) -> String;
}

/// The experiments' tables all print themselves with `to_table`.
macro_rules! printed_by_to_table {
    ($($t:ty),+ $(,)?) => {
        $(impl Printed for $t {
            fn text(&self) -> String {
                self.to_table()
            }
        })+
    };
}

printed_by_to_table!(
    rmda_papers::ContaminationCheck,
    rnda_papers::Curve,
    rnda_papers::Fig1,
    shift_papers::Table1,
    shift_papers::Table6,
);

impl Run<'_> {
    /// Prints a block of text with the bar off the screen.
    pub fn say(&self, text: String) {
        self.bar.suspend(|| println!("{}", text.trim_end()));
    }

    pub(super) fn print<T: Printed, E: Into<CliError>>(
        &self,
        result: Result<T, E>,
    ) -> Result<(), CliError> {
        let t = result.map_err(Into::into)?;
        self.say(t.text());
        Ok(())
    }

    /// The experiment's progress, on the bar.
    pub fn tick(&self) -> impl Fn(f64, String) + Sync + '_ {
        |f, m| self.bar.set(f, m)
    }
}

pub(super) fn needs_data<'a>(
    a: &'a EvalArgs,
    paper: &str,
    what: &str,
) -> Result<&'a std::path::Path, CliError> {
    a.data
        .as_deref()
        .ok_or_else(|| CliError::BadInput(format!("{paper} needs {what} as DATA")))
}
