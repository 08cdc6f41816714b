//! What a fit reports besides its posterior: named numbers, matrices,
//! series, lists and per-sample columns, each carrying how a screen shows
//! it, so the report writer and the TUI show any model's extras without
//! knowing the model.

use serde::{Deserialize, Serialize};

/// A labelled matrix in a model's report (R matrix, gamma of a sub-model...).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NamedMatrix {
    pub name: String,
    /// What rows, columns and entries mean, in words.
    pub orientation: String,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    /// Row-major values, `row_labels.len()` rows.
    pub values: Vec<Vec<f64>>,
    /// How a screen shows it; not part of the JSON report.
    #[serde(skip)]
    pub display: MatrixDisplay,
}

/// How a front end shows a report matrix.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatrixDisplay {
    /// Kept in the JSON report but left off screens (e.g. the same table in
    /// a paper's own orientation, which would only repeat the flip table).
    pub hidden: bool,
}

/// How a front end shows a per-sample column: the model says it, so that
/// review/ and tui/ show any model's extras without knowing its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnDisplay {
    /// Header in narrow tables; `None` means the column's name.
    pub label: Option<String>,
    /// Decimals of a value (0 for counts and indices).
    pub decimals: usize,
    /// Cells a typical value needs, for sizing the column.
    pub width: usize,
    /// Offered as a sort order.
    pub sortable: bool,
    /// Offered as the first sort order after `p_mislabel` (what the
    /// curator most likely wants next, e.g. `all`'s disagreement).
    pub sort_first: bool,
    /// Written to scan's output but left off screens.
    pub hidden: bool,
}

impl Default for ColumnDisplay {
    fn default() -> Self {
        Self {
            label: None,
            decimals: 3,
            width: 6,
            sortable: true,
            sort_first: false,
            hidden: false,
        }
    }
}

/// An x/y series in a model's report (lambda path, BIC per number of clusters).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NamedSeries {
    pub name: String,
    pub x_label: String,
    pub y_label: String,
    pub points: Vec<(f64, f64)>,
}

/// A per-sample column a model adds to scan's output (e.g. `entry_lambda`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleColumn {
    pub name: String,
    /// One value per sample; NaN where it does not apply (written empty).
    pub values: Vec<f64>,
    /// How a screen shows it; not part of the JSON report.
    #[serde(skip)]
    pub display: ColumnDisplay,
}

impl SampleColumn {
    /// A column shown with the default hints (3 decimals, sortable).
    pub fn new(name: impl Into<String>, values: Vec<f64>) -> Self {
        Self {
            name: name.into(),
            values,
            display: ColumnDisplay::default(),
        }
    }

    pub fn with_display(mut self, display: ColumnDisplay) -> Self {
        self.display = display;
        self
    }

    /// The header a narrow table shows.
    pub fn label(&self) -> &str {
        self.display.label.as_deref().unwrap_or(&self.name)
    }
}

/// Model-specific results, generic enough that the report writer and the TUI
/// can show every model's extras without knowing the model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelReport {
    /// Named numbers: lambda, BIC, number of clusters, M*...
    pub scalars: Vec<(String, f64)>,
    pub matrices: Vec<NamedMatrix>,
    pub series: Vec<NamedSeries>,
    /// Named lists of words: kept features, selected features...
    pub lists: Vec<(String, Vec<String>)>,
    pub sample_columns: Vec<SampleColumn>,
    /// Sentences for the curator (e.g. why `auto` chose a model).
    pub notes: Vec<String>,
    /// How `auto` chose this model, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<Selection>,
    /// Whether held-out fits show that the features predict the given
    /// labels (`app::auto::skill`): set by the pipeline for every model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_out_skill: Option<HeldOutSkill>,
    /// The count of wrong labels with its interval (`app::auto::counts`);
    /// `None` when the fit cannot count ([`crate::models::Fit::uncounted`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrong_labels: Option<WrongLabelCount>,
}

/// What held-out fits say of a table: whether the features predict the
/// given labels better than the class shares do. Without that skill the
/// data cannot tell which labels are wrong, and nothing is flagged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HeldOutSkill {
    /// The model (or auto's candidate) whose held-out fits were tested.
    pub model: String,
    pub verdict: Verdict,
    /// Held-out rows tested.
    pub rows: usize,
    /// Held-out AUC of the given labels, each class against the rest,
    /// averaged over the classes (0.5: no skill); `None` when no row could
    /// be held out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auc: Option<f64>,
    /// Its distance from chance in standard errors under permutation of the
    /// labels within the folds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub z: Option<f64>,
    /// The smallest class's rows.
    pub smallest_class: usize,
    /// Why the data cannot tell which labels are wrong (`None` with skill).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// [`HeldOutSkill`]'s verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The held-out fits predict the given labels beyond chance.
    Skill,
    /// They do not: the ranking is no evidence of a wrong label.
    NoSkill,
    /// Too few samples per class for held-out fits to show skill at all.
    TooFewSamples,
}

impl HeldOutSkill {
    /// The z a one-sided test at 5% needs.
    pub const Z: f64 = 1.645;

    /// The verdict with its reason, as every surface says it.
    pub fn new(
        model: &str,
        verdict: Verdict,
        rows: usize,
        auc: Option<f64>,
        z: Option<f64>,
        smallest_class: usize,
    ) -> HeldOutSkill {
        let reason = match verdict {
            Verdict::Skill => None,
            Verdict::TooFewSamples => Some(format!(
                "too few samples per class for a held-out fit (the smallest class has \
                 {smallest_class}): even a perfect held-out ranking could not be told from chance"
            )),
            Verdict::NoSkill => Some(format!(
                "{model}'s held-out fits show no skill over the class shares (held-out AUC of the \
                 given labels {:.3} on {rows} rows, {:.2} standard errors from chance; a one-sided \
                 5% test needs {})",
                auc.unwrap_or(f64::NAN),
                z.unwrap_or(f64::NAN),
                Self::Z
            )),
        };
        HeldOutSkill {
            model: model.to_string(),
            verdict,
            rows,
            auc,
            z,
            smallest_class,
            reason,
        }
    }
}

/// The number of wrong labels a fit implies: each label is wrong with its
/// p_mislabel, so the count is a sum of independent Bernoulli draws (a
/// Poisson binomial), whose mean is `expected` and whose central 95%
/// interval is `low..=high`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WrongLabelCount {
    /// Samples at or above the cutoff (`app::auto::counts::cutoff`): as
    /// many as the sum rounds to, the most likely wrong first.
    pub flagged: usize,
    /// The sum of p_mislabel.
    pub expected: f64,
    pub low: usize,
    pub high: usize,
    /// The interval's coverage (0.95).
    pub level: f64,
}

/// `auto`'s choice and the evidence behind it (`app::auto`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Selection {
    /// The member with the largest weight.
    pub chosen: String,
    /// What the scores are, in words.
    pub criterion: String,
    /// Every candidate, the chosen one included, best score first.
    pub candidates: Vec<CandidateScore>,
}

/// One candidate of `auto`: its score, or why it has none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CandidateScore {
    pub model: String,
    /// Mean cross-validated log-likelihood of the given labels per sample.
    pub score: Option<f64>,
    /// Standard error of that mean.
    pub standard_error: Option<f64>,
    /// "scored", "not applicable", "over the time budget", "failed", or
    /// "left out" (scored, then not fitted on every row; the notes say why).
    pub status: String,
    /// The model's own words when it has no score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its share of the combined ranking (the chance that it ranks the
    /// held-out given labels best), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
}

impl CandidateScore {
    /// The status of a candidate that refused the rows it was given.
    pub const NOT_APPLICABLE: &str = "not applicable";
    /// The status of a scored member not fitted on every row.
    pub const LEFT_OUT: &str = "left out";

    /// A candidate scored `score` (tests build selections with it).
    #[cfg(test)]
    pub fn scored(model: &str, score: f64) -> CandidateScore {
        CandidateScore {
            model: model.into(),
            score: Some(score),
            standard_error: None,
            status: "scored".into(),
            reason: None,
            weight: None,
        }
    }
}

impl ModelReport {
    pub fn scalar(&self, name: &str) -> Option<f64> {
        self.scalars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }
    pub fn matrix(&self, name: &str) -> Option<&NamedMatrix> {
        self.matrices.iter().find(|m| m.name == name)
    }
    pub fn sample_column(&self, name: &str) -> Option<&SampleColumn> {
        self.sample_columns.iter().find(|c| c.name == name)
    }

    /// Models label classes "class #k" in their matrices and lists, since they never
    /// see the class names; this puts the names in their place.
    pub fn name_classes(&mut self, classes: &[String]) {
        let rename = |label: &mut String| {
            if let Some(k) = label
                .strip_prefix("class #")
                .and_then(|k| k.parse::<usize>().ok())
                && let Some(name) = classes.get(k)
            {
                *label = name.clone();
            }
        };
        for m in &mut self.matrices {
            m.row_labels.iter_mut().for_each(rename);
            m.col_labels.iter_mut().for_each(rename);
        }
        for (_, items) in &mut self.lists {
            items.iter_mut().for_each(rename);
        }
        for note in &mut self.notes {
            *note = name_classes_in(note, classes);
        }
    }

    /// Models name features by column index ("#12 ..."), since they never
    /// see the table; this puts the table's names in their place.
    pub fn name_features(&mut self, names: &[String]) {
        for (_, items) in &mut self.lists {
            for item in items.iter_mut() {
                let Some(rest) = item.strip_prefix('#') else {
                    continue;
                };
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                if let Some(name) = digits.parse::<usize>().ok().and_then(|j| names.get(j)) {
                    *item = format!("{name}{}", &rest[digits.len()..]);
                }
            }
        }
    }
}

/// `text` with every "class #k" (k a whole number naming one of `classes`)
/// replaced by that class's name: notes name classes inside sentences.
fn name_classes_in(text: &str, classes: &[String]) -> String {
    const MARK: &str = "class #";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let after = &rest[at + MARK.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        match after[..digits]
            .parse::<usize>()
            .ok()
            .and_then(|k| classes.get(k))
        {
            Some(name) => out.push_str(name),
            None => out.push_str(&rest[at..at + MARK.len() + digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn notes_name_their_classes_inside_sentences() {
        let classes: Vec<String> = (0..12).map(|k| format!("c{k}")).collect();
        let mut r = ModelReport::default();
        r.notes
            .push("held for class #1, class #11 and class #12; class #x stays".into());
        r.name_classes(&classes);
        assert_eq!(r.notes[0], "held for c1, c11 and class #12; class #x stays");
    }

    #[test]
    fn reports_get_the_tables_names() {
        let mut r = ModelReport::default();
        r.matrices.push(NamedMatrix {
            name: "R".into(),
            orientation: String::new(),
            row_labels: vec!["cluster 1".into()],
            col_labels: vec!["class #0".into(), "class #1".into(), "class #9".into()],
            values: vec![vec![0.5, 0.5, 0.0]],
            display: Default::default(),
        });
        r.lists.push((
            "selected_features".into(),
            vec!["#1 (0.5)".into(), "#7".into()],
        ));
        r.name_classes(&["tumor".into(), "normal".into()]);
        r.name_features(&["a".into(), "b".into()]);
        assert_eq!(r.matrices[0].col_labels, ["tumor", "normal", "class #9"]);
        assert_eq!(r.matrices[0].row_labels, ["cluster 1"]);
        assert_eq!(r.lists[0].1, ["b (0.5)", "#7"]);
    }
}
