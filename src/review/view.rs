//! Which samples the list shows, and in what order.

use rayon::prelude::*;
use std::cmp::Ordering;

use super::decision::{Decision, DecisionFilter};
use crate::dataset::Dataset;
use crate::models::Fit;

/// What the list shows; the default shows everything.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    /// Only samples with this given label.
    pub class: Option<usize>,
    /// Only samples the model suggests this label for; with `class`, one
    /// confusion pair ("given A -> suggested B").
    pub suggested: Option<usize>,
    pub decision: Option<DecisionFilter>,
    /// Only samples at least this suspect.
    pub min_p_mislabel: Option<f64>,
    /// Only samples whose id contains this text (case-insensitive).
    pub id_contains: Option<String>,
    /// Only samples with a comment.
    pub commented: bool,
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// A short description for the status bar.
    pub fn describe(&self, classes: &[String]) -> String {
        let mut parts = Vec::new();
        let name = |c: usize| classes.get(c).map(String::as_str).unwrap_or("?");
        match (self.class, self.suggested) {
            (Some(a), Some(b)) => parts.push(format!("{}->{}", name(a), name(b))),
            (Some(a), None) => parts.push(format!("given={}", name(a))),
            (None, Some(b)) => parts.push(format!("suggested={}", name(b))),
            (None, None) => {}
        }
        if let Some(d) = self.decision {
            parts.push(d.name().to_string());
        }
        if let Some(p) = self.min_p_mislabel {
            parts.push(format!("p>={p:.2}"));
        }
        if let Some(s) = &self.id_contains {
            parts.push(format!("id~{s}"));
        }
        if self.commented {
            parts.push("commented".into());
        }
        parts.join(" ")
    }
}

/// Sort orders of the list.
#[derive(Clone, Debug, PartialEq)]
pub enum SortKey {
    PMislabel,
    Gamma,
    Id,
    Row,
    /// By the given label's name, then the model's order.
    Given,
    /// By the suggested label's name, then the model's order.
    Suggested,
    /// A per-sample model column (`Fit::extra.sample_columns`), by name.
    Column(String),
}

impl SortKey {
    pub fn name(&self) -> String {
        match self {
            SortKey::PMislabel => "p_mislabel".into(),
            SortKey::Gamma => "gamma".into(),
            SortKey::Id => "id".into(),
            SortKey::Row => "row".into(),
            SortKey::Given => "given".into(),
            SortKey::Suggested => "suggested".into(),
            SortKey::Column(c) => c.clone(),
        }
    }

    /// Scores sort most suspect first; ids and rows ascending.
    pub fn default_descending(&self) -> bool {
        !matches!(
            self,
            SortKey::Id | SortKey::Row | SortKey::Given | SortKey::Suggested
        )
    }
}

/// NaN (no score) sorts last whichever the direction.
fn by_score(a: f64, b: f64, descending: bool) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ if descending => b.total_cmp(&a),
        _ => a.total_cmp(&b),
    }
}

pub struct ViewInputs<'a> {
    pub dataset: &'a Dataset,
    pub fit: Option<&'a Fit>,
    /// Position of every sample in the model's ranking (ties in scores
    /// follow it); computed once per fit.
    pub rank: Option<&'a [usize]>,
    pub decisions: &'a [Option<Decision>],
    /// Whether a sample has a comment (the filter's `commented`).
    pub has_comment: &'a dyn Fn(usize) -> bool,
    pub filter: &'a Filter,
    pub sort: &'a SortKey,
    pub descending: bool,
}

/// Position of every sample in a fit's ranking.
pub fn rank_positions(fit: &Fit) -> Vec<usize> {
    let mut r = vec![0; fit.p_mislabel.len()];
    for (pos, i) in fit.ranking().into_iter().enumerate() {
        r[i] = pos;
    }
    r
}

/// The filtered, sorted sample indices.
pub fn compute(v: &ViewInputs<'_>) -> Vec<usize> {
    let ds = v.dataset;
    let n = ds.n_samples();
    let p = |i: usize| v.fit.map_or(f64::NAN, |f| f.p_mislabel[i]);
    let needle = v.filter.id_contains.as_ref().map(|s| s.to_lowercase());
    let mut out: Vec<usize> = (0..n)
        .filter(|&i| v.filter.class.is_none_or(|c| ds.labels[i] == c))
        .filter(|&i| {
            v.filter
                .suggested
                .is_none_or(|c| v.fit.is_some_and(|f| f.suggested[i] == c))
        })
        .filter(|&i| v.filter.decision.is_none_or(|d| d.admits(v.decisions[i])))
        .filter(|&i| v.filter.min_p_mislabel.is_none_or(|t| p(i) >= t))
        .filter(|&i| !v.filter.commented || (v.has_comment)(i))
        .filter(|&i| {
            needle
                .as_ref()
                .is_none_or(|s| ds.ids[i].to_lowercase().contains(s.as_str()))
        })
        .collect();
    // The model's own order breaks ties in its scores.
    let tie = |a: &usize, b: &usize| match v.rank {
        Some(r) => r[*a].cmp(&r[*b]),
        None => a.cmp(b),
    };
    let d = v.descending;
    match v.sort {
        // The model's ranking is p_mislabel descending with its ties
        // broken, so integer keys give the same order as comparing scores,
        // several times faster on a million rows (once per fit taken in).
        SortKey::PMislabel if d && v.rank.is_some() => {
            let r = v.rank.unwrap_or_default();
            // Keys gathered first: looking them up inside the sort's
            // comparisons misses the cache on every one.
            let mut keyed: Vec<(bool, bool, usize, usize)> = out
                .iter()
                .map(|&i| (v.decisions[i].is_some(), p(i).is_nan(), r[i], i))
                .collect();
            keyed.par_sort_unstable();
            out = keyed.into_iter().map(|k| k.3).collect();
        }
        // Decided samples sink below the undecided: the top of the default
        // order is always what is left to review.
        SortKey::PMislabel => out.sort_by(|a, b| {
            let decided = |i: usize| v.decisions[i].is_some();
            decided(*a)
                .cmp(&decided(*b))
                .then_with(|| by_score(p(*a), p(*b), d))
                .then_with(|| tie(a, b))
        }),
        SortKey::Gamma => {
            let g = |i: usize| v.fit.map_or(f64::NAN, |f| f.sample_gamma(i, ds.labels[i]));
            out.sort_by(|a, b| by_score(g(*a), g(*b), d).then_with(|| tie(a, b)));
        }
        SortKey::Column(name) => {
            let col = v.fit.and_then(|f| f.extra.sample_column(name));
            let c = |i: usize| col.map_or(f64::NAN, |c| c.values[i]);
            out.sort_by(|a, b| by_score(c(*a), c(*b), d).then_with(|| tie(a, b)));
        }
        SortKey::Id => out.sort_by(|a, b| {
            let o = natural_cmp(&ds.ids[*a], &ds.ids[*b]).then(a.cmp(b));
            if d { o.reverse() } else { o }
        }),
        SortKey::Given | SortKey::Suggested => {
            // Class names compared once per class, not once per comparison.
            let mut order: Vec<usize> = (0..ds.classes.len()).collect();
            order.sort_by(|a, b| natural_cmp(&ds.classes[*a], &ds.classes[*b]));
            let mut place = vec![0; order.len()];
            for (pos, c) in order.into_iter().enumerate() {
                place[c] = pos;
            }
            let given = *v.sort == SortKey::Given;
            // No fit: no suggestion, sorted after every class.
            let class = |i: usize| match (given, v.fit) {
                (true, _) => place[ds.labels[i]],
                (false, Some(f)) => place.get(f.suggested[i]).copied().unwrap_or(usize::MAX),
                (false, None) => usize::MAX,
            };
            out.sort_by(|a, b| {
                let o = class(*a).cmp(&class(*b));
                if d { o.reverse() } else { o }.then_with(|| tie(a, b))
            });
        }
        SortKey::Row => out.sort_by(|a, b| {
            let o = ds.rows[*a].cmp(&ds.rows[*b]);
            if d { o.reverse() } else { o }
        }),
    }
    out
}

/// Compares ids so that "T2" < "T10": runs of digits by value.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let mut ai = a.chars().peekable();
    let mut bi = b.chars().peekable();
    loop {
        match (ai.peek().copied(), bi.peek().copied()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let mut na = String::new();
                while let Some(c) = ai.peek().copied().filter(char::is_ascii_digit) {
                    na.push(c);
                    ai.next();
                }
                let mut nb = String::new();
                while let Some(c) = bi.peek().copied().filter(char::is_ascii_digit) {
                    nb.push(c);
                    bi.next();
                }
                let ta = na.trim_start_matches('0');
                let tb = nb.trim_start_matches('0');
                let o = ta.len().cmp(&tb.len()).then_with(|| ta.cmp(tb));
                if o != Ordering::Equal {
                    return o;
                }
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(&y);
                }
                ai.next();
                bi.next();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order_of_ids() {
        let mut ids = vec!["T10", "T2", "N1", "T1", "T02x"];
        ids.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(ids, ["N1", "T1", "T2", "T02x", "T10"]);
    }

    #[test]
    fn nan_scores_sort_last_both_ways() {
        assert_eq!(by_score(f64::NAN, 0.1, true), Ordering::Greater);
        assert_eq!(by_score(f64::NAN, 0.1, false), Ordering::Greater);
        assert_eq!(by_score(0.9, 0.1, true), Ordering::Less);
    }
}
