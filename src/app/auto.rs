//! `auto`, the default: one standard method in three stages, each file
//! importing only those before it.
//!
//! - [`evaluate`]: every applicable candidate's out-of-fold predictive
//!   distribution of the given labels on a bounded, seeded sample of rows.
//! - [`decide`]: a pure function of those held-out scores: the
//!   cross-validated log score and the one-standard-error rule.
//! - [`fit`]: the candidates within the work bound evaluated, the choice
//!   fitted on every row.
//!
//! Beside them: [`candidates`] (what auto may choose), [`work`] (their free
//! parameters and the work of their fits, counted from the table's shape),
//! [`skill`] (the "no evidence" rule every model meets), [`recount`] (the
//! count checked on held-out rows) and [`counts`] (the count of wrong
//! labels and its interval).

pub mod candidates;
pub mod counts;
pub mod decide;
pub mod evaluate;
pub mod fit;
pub mod recount;
pub mod skill;
pub mod work;

use crate::models::Selection;

/// "auto chose rnda by ...: rnda -0.412 ± 0.015, lr+probs -0.420 ± 0.016,
/// shift not evaluated": the note a fit by auto starts with.
pub fn describe(selection: &Selection) -> String {
    format!(
        "auto chose {} by the {}: {}",
        selection.chosen,
        selection.criterion,
        scores(selection)
    )
}

/// Every candidate's score with its standard error, or its status when it
/// has none.
pub fn scores(selection: &Selection) -> String {
    let each: Vec<String> = selection
        .candidates
        .iter()
        .map(|c| match (c.score, c.standard_error) {
            (Some(s), Some(se)) => format!("{} {s:.3} ± {se:.3}", c.model),
            (Some(s), None) => format!("{} {s:.3}", c.model),
            _ => format!("{} {}", c.model, c.status),
        })
        .collect();
    each.join(", ")
}

/// The name of what auto chose.
pub fn combination(selection: &Selection) -> String {
    selection.chosen.clone()
}
