//! Stopping a dear candidate's second round once its first fold shows
//! that it cannot earn its wait.
//!
//! `worth_the_wait` curtails between the rounds, from the first round's
//! rows. A candidate it lets through still costs three fits on two thirds
//! of the full evidence sample (on a 10k-row table, most of the default's
//! time), though the anchor's scores on those rows are already known. So
//! the same rule of stochastic curtailment ([`combine::cannot_earn`]) is
//! applied again once the candidate's deciding fold has scored its third
//! of the rows: a z of its lift over the anchor below EARN_Z / sqrt(3)
//! leaves it less than even odds of earning its wait, and its other folds
//! stop. Only fold [`DECIDING_FOLD`] decides, whatever
//! order the folds finish in on the pool, so what is chosen does not
//! depend on timing; only the time saved does.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::app::combine;

/// The fold whose held-out rows decide.
pub const DECIDING_FOLD: usize = 0;

/// What a deciding fold showed of a candidate that fell short.
#[derive(Clone, Debug, PartialEq)]
pub struct Shortfall {
    pub model: String,
    /// Mean and standard error of its lift over the anchor, nats per row.
    pub gain: f64,
    pub standard_error: f64,
    /// Rows the deciding fold held out, of `of` evidence rows.
    pub rows: usize,
    pub of: usize,
}

pub struct Curtail<'a> {
    /// The anchor's name and held-out log-likelihood per evidence row (the
    /// same rows and folds as the round's).
    anchor: &'a str,
    anchor_ll: &'a [Option<f64>],
    /// The candidates that must earn their wait; no other is ever stopped.
    dear: Vec<&'static str>,
    /// Per entry of `dear`: set once its deciding fold fell short.
    futile: Vec<AtomicBool>,
    /// The evidence rows that will decide in the end (the anchor's scored
    /// rows, unless [`Curtail::deciding_for`] says more).
    of: usize,
    short: Mutex<Vec<Shortfall>>,
}

impl<'a> Curtail<'a> {
    pub fn new(anchor: &'a str, anchor_ll: &'a [Option<f64>], dear: Vec<&'static str>) -> Self {
        let futile = dear.iter().map(|_| AtomicBool::new(false)).collect();
        Curtail {
            anchor,
            anchor_ll,
            dear,
            futile,
            of: anchor_ll.iter().filter(|l| l.is_some()).count(),
            short: Mutex::new(Vec::new()),
        }
    }

    /// Judges against the anchor's scores on part of the evidence sample
    /// (the first round's deciding fold) while `of` rows will decide: the
    /// candidate's z is curtailed as if its trend continued over all of them.
    pub fn deciding_for(mut self, of: usize) -> Self {
        self.of = of;
        self
    }

    /// Whether `model`'s folds should stop.
    pub fn stops(&self, model: &str) -> bool {
        self.position(model)
            .is_some_and(|i| self.futile[i].load(Ordering::Relaxed))
    }

    /// Judges `model` from one fold's held-out `rows` (positions among the
    /// evidence rows) and their log-likelihoods, if that fold decides.
    pub fn judge(&self, model: &str, fold: usize, rows: &[usize], scores: &[f64]) {
        let Some(i) = self.position(model) else {
            return;
        };
        if fold != DECIDING_FOLD {
            return;
        }
        let mut extra = vec![None; self.anchor_ll.len()];
        for (&r, &s) in rows.iter().zip(scores) {
            extra[r] = Some(s);
        }
        let (gain, se) = combine::lift_over(self.anchor_ll, &extra);
        let of = self.of;
        if combine::cannot_earn(gain, se, rows.len(), of) {
            self.futile[i].store(true, Ordering::Relaxed);
            if let Ok(mut short) = self.short.lock() {
                short.push(Shortfall {
                    model: model.to_string(),
                    gain,
                    standard_error: se,
                    rows: rows.len(),
                    of,
                });
            }
        }
    }

    /// The anchor the candidates were judged against.
    pub fn anchor(&self) -> &str {
        self.anchor
    }

    /// The candidates that fell short, in the order they were judged.
    pub fn shortfalls(self) -> Vec<Shortfall> {
        self.short.into_inner().unwrap_or_default()
    }

    fn position(&self, model: &str) -> Option<usize> {
        self.dear.iter().position(|m| *m == model)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// An anchor scored on 300 rows, alternately -0.5 and -1.0 nats.
    fn anchor() -> Vec<Option<f64>> {
        (0..300)
            .map(|i| Some(if i % 2 == 0 { -0.5 } else { -1.0 }))
            .collect()
    }

    #[test]
    fn a_candidate_no_better_than_the_anchor_on_its_deciding_fold_stops() {
        let base = anchor();
        let curtail = Curtail::new("rnda", &base, vec!["shift"]);
        let rows: Vec<usize> = (0..100).collect();
        // Another fold cannot decide, however poor.
        curtail.judge("shift", 1, &rows, &vec![-9.0; 100]);
        assert!(!curtail.stops("shift"));
        // A hair worse than the anchor on every row of the deciding fold.
        let worse: Vec<f64> = rows.iter().map(|&r| base[r].unwrap() - 0.01).collect();
        curtail.judge("shift", DECIDING_FOLD, &rows, &worse);
        assert!(curtail.stops("shift"));
        let short = curtail.shortfalls();
        assert_eq!(short.len(), 1);
        assert_eq!((short[0].rows, short[0].of), (100, 300));
        assert!(short[0].gain <= 0.0, "{short:?}");
    }

    #[test]
    fn a_candidate_that_explains_rows_the_anchor_cannot_goes_on() {
        let base = anchor();
        let curtail = Curtail::new("rnda", &base, vec!["rlr"]);
        let rows: Vec<usize> = (0..100).collect();
        // Far better on the anchor's poor rows, a little worse elsewhere:
        // the mixture gains clearly.
        let better: Vec<f64> = rows
            .iter()
            .map(|&r| if r % 2 == 0 { -0.6 } else { -0.1 })
            .collect();
        curtail.judge("rlr", DECIDING_FOLD, &rows, &better);
        assert!(!curtail.stops("rlr"));
        // A candidate that is not dear is never judged.
        curtail.judge("cbt", DECIDING_FOLD, &rows, &vec![-9.0; 100]);
        assert!(!curtail.stops("cbt"));
        assert!(curtail.shortfalls().is_empty());
    }
}
