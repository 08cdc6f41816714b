//! Stage 2 of auto: a pure function from the table of held-out scores to a
//! choice.
//!
//! The criterion is the cross-validated log score of the given labels,
//! mean log P(given_i | x_i) over the held-out rows, and the choice is the
//! candidate with the best one (model selection by cross-validation:
//! Stone 1974; Hastie, Tibshirani and Friedman, *The Elements of
//! Statistical Learning*, 2nd ed., §7.10). The log score is a proper
//! scoring rule, so a flexible candidate does not win by overfitting, and
//! it judges the whole predictive distribution of the given labels: how
//! well the candidate separates the classes and how well its flip table
//! explains the labels it calls wrong. Equal scores go to the candidate
//! whose fit costs less work, then to the earlier one. (The
//! one-standard-error rule, the cheapest or simplest candidate within a
//! standard error of the best, was measured and not kept: docs/RESULTS.md.)

/// One candidate's row of the table: its held-out log score per sample row
/// (`None` for a row never held out) and the work of its fit on every row.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub name: String,
    pub log_scores: Vec<Option<f64>>,
    pub work: f64,
}

/// A candidate's mean held-out log score and its standard error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Score {
    pub mean: f64,
    pub standard_error: f64,
}

/// What decide found: every candidate's score (in the table's order), the
/// best-scored candidate and the one chosen (indices into the table).
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub scores: Vec<Option<Score>>,
    pub best: usize,
    pub chosen: usize,
}

/// The best-scored candidate of `table`; `None` when no candidate has a
/// finite score. Every candidate is scored on the rows all of them scored,
/// so the means compare like with like.
pub fn decide(table: &[Row]) -> Option<Choice> {
    let rows = table.first().map_or(0, |r| r.log_scores.len());
    let common: Vec<usize> = (0..rows)
        .filter(|&i| table.iter().all(|r| r.log_scores[i].is_some()))
        .collect();
    let scores: Vec<Option<Score>> = table.iter().map(|r| score(r, &common)).collect();
    let best = (0..table.len())
        .filter_map(|c| scores[c].map(|s| (c, s.mean)))
        .max_by(|a, b| {
            a.1.total_cmp(&b.1)
                .then(table[b.0].work.total_cmp(&table[a.0].work))
                .then(b.0.cmp(&a.0))
        })?
        .0;
    Some(Choice {
        scores,
        best,
        chosen: best,
    })
}

/// Mean and standard error of `row`'s scores over `common` rows; `None`
/// when they are not finite or there are none.
fn score(row: &Row, common: &[usize]) -> Option<Score> {
    let v: Vec<f64> = common.iter().filter_map(|&i| row.log_scores[i]).collect();
    let n = v.len() as f64;
    if v.is_empty() {
        return None;
    }
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    mean.is_finite().then(|| Score {
        mean,
        standard_error: (var / n).sqrt(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A candidate whose rows alternate `a` and `b` nats, costing `work`.
    fn row(name: &str, a: f64, b: f64, work: f64) -> Row {
        Row {
            name: name.into(),
            log_scores: (0..100)
                .map(|i| Some(if i % 2 == 0 { a } else { b }))
                .collect(),
            work,
        }
    }

    #[test]
    fn the_best_score_is_chosen_however_dear() {
        let table = [
            row("cheap", -0.27, -0.77, 1.0),
            row("best", -0.25, -0.75, 100.0),
            row("worse", -0.6, -0.8, 0.5),
        ];
        let c = decide(&table).unwrap();
        assert_eq!((c.best, c.chosen), (1, 1));
        // Alternating -0.25 and -0.75: mean -0.5, standard error
        // 0.25 sqrt(100 / 99) / 10.
        let s = c.scores[1].unwrap();
        assert!((s.mean + 0.5).abs() < 1e-12);
        assert!((s.standard_error - 0.025 * (100f64 / 99.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn equal_scores_go_to_the_cheaper_fit() {
        let table = [row("dear", -0.5, -0.5, 9.0), row("cheap", -0.5, -0.5, 1.0)];
        assert_eq!(decide(&table).unwrap().chosen, 1);
    }

    #[test]
    fn candidates_are_compared_on_the_rows_all_of_them_scored() {
        // "partial" skipped its worst rows; compared on the common rows
        // only, it is no better than "full".
        let full = row("full", -0.2, -2.0, 1.0);
        let mut partial = row("partial", -0.2, -2.0, 2.0);
        for i in (1..100).step_by(2) {
            partial.log_scores[i] = None;
        }
        let c = decide(&[full, partial]).unwrap();
        assert_eq!(c.scores[0], c.scores[1]);
        assert_eq!(c.chosen, 0, "equal scores, the cheaper fit");
    }

    #[test]
    fn ties_in_work_go_to_the_earlier_candidate_and_no_score_is_no_choice() {
        let table = [row("a", -0.5, -0.5, 1.0), row("b", -0.5, -0.5, 1.0)];
        assert_eq!(decide(&table).unwrap().chosen, 0);
        let nan = Row {
            name: "nan".into(),
            log_scores: vec![Some(f64::NAN); 4],
            work: 1.0,
        };
        assert_eq!(decide(&[nan]), None);
        assert_eq!(decide(&[]), None);
    }
}
