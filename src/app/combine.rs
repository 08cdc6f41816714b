//! `auto`'s ranking: the candidates combined by their held-out evidence.
//!
//! The ranking is a mixture of the members' posteriors over the true class,
//! each member fitted on every row: P(true | x, given) = sum_m w_m P_m(true
//! | x, given). A mixture of posteriors is itself a probability, so
//! p_mislabel stays one. Choosing a single member instead is noisy when
//! the candidates are close: the choice then flips between draws of the
//! same table, and the loser may rank the flips much better.
//!
//! The weights judge what the curator consumes: the order. Each
//! candidate's held-out P(given = j | x) (its P(true | x) through the flip
//! table profiled on its fold's training rows) is scored by how well it
//! ranks the evidence rows' given labels, one class against the rest (the
//! AUC, averaged over the classes). With two classes and noise that
//! depends on the class alone, a scorer's AUC on the noisy labels is an
//! increasing affine function of its AUC on the true ones (Menon, van
//! Rooyen, Ong and Williamson 2015, "Learning from corrupted binary labels
//! via class-probability estimation"), whatever the flip rates: the
//! candidate that ranks the given labels best ranks the true classes best,
//! and within a given label it is the true class that marks a flip. A
//! member's weight is the chance that it ranks best, over Bayesian-bootstrap
//! draws of the evidence rows (Rubin 1981): a clear winner takes all of it,
//! and candidates the rows cannot tell apart share it.
//!
//! The held-out log-likelihood (the evidence's score) also judges
//! calibration, which the ranking never uses (p_mislabel is calibrated on
//! its own, [`super::calibrate`]), and weights from it failed both ways.
//! Stacking it (Yao, Vehtari, Simpson and Gelman 2018) gave cbt 0.27-0.44 on
//! breast cancer with 30% pair noise, where cbt ranks the flips at AUROC
//! 0.75-0.78 and shift at 0.975: the mixture ranked at 0.963. Their
//! pseudo-BMA+ weights gave cbt all of xor_60k, where its score is 0.020
//! nats a row above rnda's and rnda alone ranks at 0.9895 against cbt's
//! 0.956. These weights rank at 0.977 and 0.9895 there (docs/RESULTS.md).
//! The evidence's likelihood still decides what is scored and what a slow
//! member must add before the curator waits for it ([`earned`]).

use std::sync::Arc;
use std::time::Instant;

use nalgebra::DMatrix;

use super::evidence::{self, BUDGET_FACTOR, Evidence, MIN_BUDGET, NO_WAIT};
use super::held_out_flips;
use crate::models::ensemble::WeightedClassifier;
use crate::models::{
    Classifier, Control, Fit, FitError, GammaTable, Guide, MemberFlips, ModelInput, Progress,
    RobustModel,
};

/// (model, weight) pairs, or (model, predicted seconds) for those left out.
pub type Weights = Vec<(String, f64)>;

/// A candidate whose weight is below this is left out: it could move no
/// sample's p_mislabel by more than this, and fitting it on every row
/// would cost as much as the members that matter.
pub const MIN_WEIGHT: f64 = 0.01;

/// How many Bayesian-bootstrap draws the weights count wins over: a
/// weight's Monte Carlo error is then at most 0.5 / sqrt(1000) = 0.016,
/// and a candidate needs 10 wins to reach [`MIN_WEIGHT`].
pub const BOOTSTRAP_DRAWS: u64 = 1000;

/// `weights` as a reader sees them: hundredths that add up to the
/// weights' own total, rounded, the largest remainders rounded up (ties,
/// to a millionth of a hundredth, to the earlier weight: the weights are
/// sums of thousandths and carry their rounding). Each rounded alone,
/// 0.565 and 0.435 read "0.57 + 0.44", a mixture of 1.01.
pub fn in_hundredths(weights: &[f64]) -> Vec<f64> {
    let scaled: Vec<f64> = weights.iter().map(|w| w * 100.0).collect();
    let mut shown: Vec<f64> = scaled.iter().map(|s| s.floor()).collect();
    let total = scaled.iter().sum::<f64>().round();
    let short = (total - shown.iter().sum::<f64>()).max(0.0) as usize;
    let mut order: Vec<usize> = (0..weights.len()).collect();
    let remainder = |i: usize| ((scaled[i] - shown[i]) * 1e6).round();
    order.sort_by(|&a, &b| remainder(b).total_cmp(&remainder(a)));
    for &i in order.iter().take(short) {
        shown[i] += 1.0;
    }
    shown.iter().map(|s| s / 100.0).collect()
}

/// The weight of every scored candidate of `evidence`, in its order
/// ([`ranking_weights`] over all of them).
pub fn model_weights(evidence: &Evidence) -> Vec<(String, f64)> {
    let all: Vec<usize> = (0..evidence.log_lik.len()).collect();
    let w = ranking_weights(evidence, &all);
    names_of(evidence, &all).into_iter().zip(w).collect()
}

/// Every scored candidate's held-out AUC of the given labels over the
/// evidence rows that all of them ranked ([`Ranks`]), in its order.
pub fn discrimination(evidence: &Evidence) -> Vec<(String, f64)> {
    let all: Vec<usize> = (0..evidence.log_lik.len()).collect();
    let ranks = Ranks::of(evidence, &all);
    let ones = vec![1.0; ranks.rows];
    let auc = (0..all.len()).map(|c| ranks.auc(c, &ones));
    names_of(evidence, &all).into_iter().zip(auc).collect()
}

fn names_of(evidence: &Evidence, which: &[usize]) -> Vec<String> {
    which
        .iter()
        .map(|&c| evidence.log_lik[c].0.clone())
        .collect()
}

/// The weights of the candidates `which` (indices into `evidence.log_lik`):
/// the share of [`BOOTSTRAP_DRAWS`] Bayesian-bootstrap draws of the evidence
/// rows (exponential weights, Rubin 1981) in which each has the highest
/// AUC of the given labels, a tie splitting its draw. The draws are keyed by
/// the rows' values ([`HeldOut::keys`](super::evidence::HeldOut)), so the
/// weights do not follow the rows' order in the file. With no row every
/// candidate ranked, they share equally.
fn ranking_weights(evidence: &Evidence, which: &[usize]) -> Vec<f64> {
    let m = which.len();
    let ranks = Ranks::of(evidence, which);
    if ranks.rows == 0 || ranks.classes.is_empty() {
        return vec![1.0 / m.max(1) as f64; m];
    }
    let mut w = vec![0.0; m];
    let mut draw = vec![0.0; ranks.rows];
    for d in 0..BOOTSTRAP_DRAWS {
        for (a, &key) in draw.iter_mut().zip(&ranks.keys) {
            *a = -crate::rng::keyed_uniform(key, d).ln();
        }
        let auc: Vec<f64> = (0..m).map(|c| ranks.auc(c, &draw)).collect();
        let top = auc.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let best = auc.iter().filter(|&&a| a == top).count() as f64;
        for (acc, a) in w.iter_mut().zip(&auc) {
            if *a == top {
                *acc += 1.0 / best / BOOTSTRAP_DRAWS as f64;
            }
        }
    }
    w
}

/// The candidates' held-out P(given = k | x), sorted once per (candidate,
/// class k) for the AUCs of many draws of row weights: the evidence rows
/// every candidate ranked, and the classes that have rows given them and
/// rows not.
struct Ranks {
    rows: usize,
    keys: Vec<u64>,
    /// Per class kept: whether each row was given it.
    positive: Vec<Vec<bool>>,
    classes: Vec<usize>,
    /// Per candidate, per class kept: the rows in increasing P(given = k |
    /// x), and where each run of equal values ends.
    order: Vec<Vec<(Vec<usize>, Vec<usize>)>>,
}

impl Ranks {
    fn of(evidence: &Evidence, which: &[usize]) -> Ranks {
        let held = &evidence.held_out;
        let columns: Vec<Option<&Vec<Option<Vec<f64>>>>> = which
            .iter()
            .map(|&c| {
                let name = &evidence.log_lik[c].0;
                held.p_given.iter().find(|(m, _)| m == name).map(|(_, p)| p)
            })
            .collect();
        let n = held.given.len();
        let kept: Vec<usize> = (0..n)
            .filter(|&i| {
                columns
                    .iter()
                    .all(|col| col.is_some_and(|p| p.get(i).is_some_and(Option::is_some)))
            })
            .collect();
        // Every evidence row has its key; a row's place would do as one
        // (keyed_uniform mixes it), and costs no allocation.
        let keys = kept
            .iter()
            .map(|&i| held.keys.get(i).copied().unwrap_or(i as u64))
            .collect();
        let k = kept
            .first()
            .and_then(|&i| columns.first()?.map(|p| p[i].as_ref().map_or(0, Vec::len)))
            .unwrap_or(0);
        // Of two classes, P(given = 0 | x) = 1 - P(given = 1 | x) orders
        // the rows in reverse, so both one-against-rest AUCs are one number:
        // the draws count it once.
        let first = usize::from(k == 2);
        let classes: Vec<usize> = (first..k)
            .filter(|&c| {
                let pos = kept.iter().filter(|&&i| held.given[i] == c).count();
                pos > 0 && pos < kept.len()
            })
            .collect();
        let positive = classes
            .iter()
            .map(|&c| kept.iter().map(|&i| held.given[i] == c).collect())
            .collect();
        let order = columns
            .iter()
            .map(|col| {
                let Some(p) = col else { return Vec::new() };
                classes
                    .iter()
                    .map(|&c| {
                        let score = |r: usize| p[kept[r]].as_ref().map_or(0.0, |v| v[c]);
                        let mut rows: Vec<usize> = (0..kept.len()).collect();
                        rows.sort_by(|&a, &b| score(a).total_cmp(&score(b)));
                        let ends = (1..=rows.len())
                            .filter(|&e| e == rows.len() || score(rows[e]) != score(rows[e - 1]))
                            .collect();
                        (rows, ends)
                    })
                    .collect()
            })
            .collect();
        Ranks {
            rows: kept.len(),
            keys,
            positive,
            classes,
            order,
        }
    }

    /// Candidate `c`'s AUC of the given labels with the rows weighed by
    /// `weight`, one class against the rest, averaged over the classes: the
    /// weighted chance that a row given the class scores above one not, a
    /// tie counting one half.
    fn auc(&self, c: usize, weight: &[f64]) -> f64 {
        let mut total = 0.0;
        for ((rows, ends), positive) in self.order[c].iter().zip(&self.positive) {
            let (mut below, mut sum, mut pos_total) = (0.0, 0.0, 0.0);
            let mut start = 0;
            for &end in ends {
                let (mut pos, mut neg) = (0.0, 0.0);
                for &r in &rows[start..end] {
                    if positive[r] {
                        pos += weight[r];
                    } else {
                        neg += weight[r];
                    }
                }
                sum += pos * (below + 0.5 * neg);
                below += neg;
                pos_total += pos;
                start = end;
            }
            total += sum / (pos_total * below);
        }
        total / self.classes.len().max(1) as f64
    }
}

/// Per evidence row that every candidate of `which` scored, their
/// likelihoods relative to the row's best (the EM update of the stacking
/// weights is unchanged by a per-row factor, and exp() stays in range).
fn relative_rows(log_lik: &[(String, Vec<Option<f64>>)], which: &[usize]) -> Vec<Vec<f64>> {
    let n = log_lik.first().map_or(0, |(_, ll)| ll.len());
    (0..n)
        .filter_map(|i| {
            let ll: Vec<f64> = which
                .iter()
                .map(|&c| log_lik[c].1[i])
                .collect::<Option<_>>()?;
            let top = ll.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            top.is_finite()
                .then(|| ll.iter().map(|l| (l - top).exp()).collect())
        })
        .collect()
}

/// The stacking weights of `m` candidates over `rows`: the mixture
/// weights that maximise sum_i log sum_m w_m P_m(given_i | x_i), by EM
/// (the objective is concave in w, so EM reaches its maximum). What a
/// member adds to the predictive, for [`stacked_log_lik`] and
/// [`paired_gain`].
fn em_weights(rows: &[Vec<f64>], m: usize) -> Vec<f64> {
    const ROUNDS: usize = 1000;
    const TOL: f64 = 1e-9;
    let mut w = vec![1.0 / m.max(1) as f64; m];
    for _ in 0..ROUNDS {
        if rows.is_empty() {
            break;
        }
        let mut next = vec![0.0; m];
        for lik in rows {
            let mix: f64 = lik.iter().zip(&w).map(|(l, w)| l * w).sum();
            if mix > 0.0 {
                for (acc, (l, w)) in next.iter_mut().zip(lik.iter().zip(&w)) {
                    *acc += w * l / mix;
                }
            }
        }
        next.iter_mut().for_each(|v| *v /= rows.len() as f64);
        let change = next
            .iter()
            .zip(&w)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        w = next;
        if change < TOL {
            break;
        }
    }
    w
}

/// The stacked held-out log-likelihood per evidence row of the candidates
/// in `log_lik` (their stacking weights fitted on the rows all of them
/// scored; `None` on the other rows): what a dear candidate must lift, as
/// [`earned`] judges it, when there is more than one cheap candidate.
pub fn stacked_log_lik(log_lik: &[(String, Vec<Option<f64>>)]) -> Vec<Option<f64>> {
    let which: Vec<usize> = (0..log_lik.len()).collect();
    let w = em_weights(&relative_rows(log_lik, &which), which.len());
    let n = log_lik.first().map_or(0, |(_, ll)| ll.len());
    (0..n)
        .map(|i| {
            let ll: Vec<f64> = log_lik.iter().map(|(_, l)| l[i]).collect::<Option<_>>()?;
            let top = ll.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let mix: f64 = ll.iter().zip(&w).map(|(l, w)| w * (l - top).exp()).sum();
            (top.is_finite() && mix > 0.0).then(|| top + mix.ln())
        })
        .collect()
}

/// The candidates of `evidence` worth fitting ([`members`]), their
/// weights computed again over themselves alone, so that a candidate left
/// out leaves no trace in them: under stacking a weight of 1.6e-8 moved the
/// others' in their eighth decimal, and shift, scored in some runs of a
/// 3000-row table and stopped after its deciding fold in others, moved the
/// ranking in its sixth.
pub fn weighted_members(evidence: &Evidence) -> Weights {
    let kept = members(&model_weights(evidence));
    let index = |m: &str| evidence.log_lik.iter().position(|(c, _)| c == m);
    let set: Vec<usize> = kept.iter().filter_map(|(m, _)| index(m)).collect();
    if set.len() < 2 {
        return kept;
    }
    members_over(evidence, set)
}

/// The [`members`] of the candidates `set` (indices into
/// `evidence.log_lik`) weighed alone. Weighed in candidate order, whatever
/// order `set` lists them in (the order they were tried follows their
/// measured cost): the weights' float sums then do not depend on it.
fn members_over(evidence: &Evidence, mut set: Vec<usize>) -> Weights {
    set.sort_unstable();
    let w = ranking_weights(evidence, &set);
    let named: Vec<(String, f64)> = set
        .iter()
        .map(|&c| evidence.log_lik[c].0.clone())
        .zip(w)
        .collect();
    members(&named)
}

/// The members worth fitting: weight at least [`MIN_WEIGHT`], renormalised,
/// heaviest first (ties in candidate order).
pub fn members(weights: &[(String, f64)]) -> Vec<(String, f64)> {
    let mut kept: Vec<(String, f64)> = weights
        .iter()
        .filter(|(_, w)| *w >= MIN_WEIGHT)
        .cloned()
        .collect();
    let total: f64 = kept.iter().map(|(_, w)| w).sum();
    kept.iter_mut().for_each(|(_, w)| *w /= total);
    kept.sort_by(|a, b| evidence::heaviest_first((&a.0, a.1), (&b.0, b.1)));
    kept
}

/// A member's budget for its fit on every row: its share of the heaviest
/// member's weight times `anchor_seconds`, [`BUDGET_FACTOR`] times over (a
/// member half as heavy may take ten times as long as the anchor), and
/// never less than [`MIN_BUDGET`]. A member that adds a little weight may
/// not add much waiting.
pub fn member_budget(weight: f64, heaviest: f64, anchor_seconds: f64) -> f64 {
    (BUDGET_FACTOR * weight / heaviest * anchor_seconds).max(MIN_BUDGET.as_secs_f64())
}

/// The members (heaviest first) whose fit on all `n` rows is within their
/// [`member_budget`], judged before fitting by
/// `Evidence::predicted_seconds` (see there for what it overstates). The
/// budget's anchor is the cheapest scored candidate's predicted fit, so
/// the heaviest member is held to it too:
/// when the evidence splits its weight between a model that takes a second
/// on the table and one that takes minutes (rnda 0.44 and rmda 0.48 on a
/// 200k-row Gaussian table, whose held-out scores agree to 3 decimals),
/// the curator waits for the cheap one, as the evidence's own budget would
/// have had it. If no member is within its budget, the cheapest member is
/// kept alone. The others are returned with their predicted seconds, to
/// be said; the kept weights are renormalised.
pub fn affordable(members: Weights, evidence: &Evidence, n: usize) -> (Weights, Weights) {
    let predicted = |m: &str| evidence.predicted_seconds(m, n).unwrap_or(0.0);
    let Some(w1) = members.first().map(|m| m.1) else {
        return (members, Vec::new());
    };
    let anchor = evidence.anchor_seconds(n);
    let (mut kept, mut left): (Vec<_>, Vec<_>) = members
        .into_iter()
        .partition(|(m, w)| predicted(m) <= member_budget(*w, w1, anchor));
    if kept.is_empty() {
        let cheapest = (0..left.len())
            .min_by(|&a, &b| predicted(&left[a].0).total_cmp(&predicted(&left[b].0)))
            .unwrap_or(0);
        kept.push(left.remove(cheapest));
    }
    let total: f64 = kept.iter().map(|(_, w)| w).sum();
    kept.iter_mut().for_each(|(_, w)| *w /= total);
    let left = left.into_iter().map(|(m, _)| {
        let secs = predicted(&m);
        (m, secs)
    });
    (kept, left.collect())
}

/// How many standard errors its evidence must add before a member that
/// makes the curator wait is fitted: one-sided, two leaves out a member
/// that the evidence cannot tell from nothing about as often as a
/// conventional test would (2.3%).
pub const EARN_Z: f64 = 2.0;

/// Whether a lift of `gain` ± `se` nats per row, measured on `rows` of the
/// `of` rows that will decide, is more likely than not to fall short of
/// [`EARN_Z`] standard errors on all of them: if the other rows continue
/// its trend, its z grows by sqrt(of / rows) (stochastic curtailment at
/// conditional power one half; Lan, Simon and Halperin 1982).
pub fn cannot_earn(gain: f64, se: f64, rows: usize, of: usize) -> bool {
    gain <= EARN_Z * (rows as f64 / of.max(1) as f64).sqrt() * se
}

/// A member left out by [`earned`]: its predicted fit on every row, and
/// what it added to the held-out log-likelihood per evidence row (mean and
/// standard error of the paired difference).
#[derive(Clone, Debug, PartialEq)]
pub struct Unearned {
    pub model: String,
    pub seconds: f64,
    pub gain: f64,
    pub standard_error: f64,
}

/// The members (of [`affordable`]) whose wait the evidence pays for. A
/// member whose fit on all `n` rows is predicted to take longer than
/// [`NO_WAIT`] (a wait nobody minds) is kept only if adding it to the
/// cheaper members raises the stacked held-out log-likelihood by more than
/// [`EARN_Z`] standard errors of the paired per-row difference; members
/// are tried cheapest first. On a 200k-row Gaussian table rnda and rmda
/// scored -0.866 both and stacking (the weights then) split them 0.48 / 0.52, so the
/// curator waited 50 s for rmda's half of a ranking rnda gave in one: the
/// one-standard-error rule of model selection (Breiman et al. 1984), read
/// with cost as the measure of complexity. When no member is cheap, the
/// cheapest is the start. Members that are all cheap come back as given.
pub fn earned(members: Weights, evidence: &Evidence, n: usize) -> (Weights, Vec<Unearned>) {
    let predicted = |m: &str| evidence.predicted_seconds(m, n).unwrap_or(0.0);
    let index = |m: &str| evidence.log_lik.iter().position(|(c, _)| c == m);
    let names: Vec<&str> = members.iter().map(|(m, _)| m.as_str()).collect();
    let start = cheap_start(&names, evidence, n);
    let mut set: Vec<usize> = start.iter().filter_map(|m| index(m)).collect();
    let mut dear: Vec<&str> = members
        .iter()
        .map(|(m, _)| m.as_str())
        .filter(|m| !start.iter().any(|c| c == m))
        .collect();
    dear.sort_by(|a, b| predicted(a).total_cmp(&predicted(b)));
    let mut left = Vec::new();
    for m in dear {
        let Some(c) = index(m) else { continue };
        let (gain, se) = paired_gain(&evidence.log_lik, &set, c);
        if gain > EARN_Z * se {
            set.push(c);
        } else {
            left.push(Unearned {
                model: m.to_string(),
                seconds: predicted(m),
                gain,
                standard_error: se,
            });
        }
    }
    if left.is_empty() {
        return (members, left);
    }
    (members_over(evidence, set), left)
}

/// The models of `names` whose fit on all `n` rows is predicted within
/// [`NO_WAIT`], a wait nobody minds; if none is, the cheapest alone.
pub fn cheap_start(names: &[&str], evidence: &Evidence, n: usize) -> Vec<String> {
    cheap_by(names, |m| evidence.predicted_seconds(m, n).unwrap_or(0.0))
}

/// [`cheap_start`] by any prediction of a fit's seconds on every row (the
/// first round judges by its deciding folds before there is evidence).
pub fn cheap_by(names: &[&str], predicted: impl Fn(&str) -> f64) -> Vec<String> {
    let floor = NO_WAIT.as_secs_f64();
    let cheap: Vec<String> = names
        .iter()
        .filter(|m| predicted(m) <= floor)
        .map(|m| m.to_string())
        .collect();
    if !cheap.is_empty() {
        return cheap;
    }
    names
        .iter()
        .min_by(|a, b| predicted(a).total_cmp(&predicted(b)))
        .map(|m| vec![m.to_string()])
        .unwrap_or_default()
}

/// What adding `extra` to the stacked `set` adds per row ([`paired_gain`]),
/// by name; `None` when one of them has no evidence.
pub fn lift(evidence: &Evidence, set: &[String], extra: &str) -> Option<(f64, f64)> {
    let index = |m: &str| evidence.log_lik.iter().position(|(c, _)| c == m);
    let set: Vec<usize> = set.iter().map(|m| index(m)).collect::<Option<_>>()?;
    Some(paired_gain(&evidence.log_lik, &set, index(extra)?))
}

/// What adding `extra` to `base` adds per row ([`paired_gain`]), from their
/// held-out log-likelihoods per evidence row, over the rows both scored.
pub fn lift_over(base: &[Option<f64>], extra: &[Option<f64>]) -> (f64, f64) {
    let log_lik = [
        (String::new(), base.to_vec()),
        (String::new(), extra.to_vec()),
    ];
    paired_gain(&log_lik, &[0], 1)
}

/// Mean and standard error, over the rows all of them scored, of what
/// adding candidate `extra` to the stacked `set` adds to each row's
/// held-out log-likelihood, each side with its own stacking weights.
fn paired_gain(log_lik: &[(String, Vec<Option<f64>>)], set: &[usize], extra: usize) -> (f64, f64) {
    let mut both = set.to_vec();
    both.push(extra);
    let rows = relative_rows(log_lik, &both);
    let w_set = em_weights(
        &rows
            .iter()
            .map(|r| r[..set.len()].to_vec())
            .collect::<Vec<_>>(),
        set.len(),
    );
    let w_both = em_weights(&rows, both.len());
    let mix = |r: &[f64], w: &[f64]| {
        let m: f64 = r.iter().zip(w).map(|(l, w)| l * w).sum();
        m.max(f64::MIN_POSITIVE).ln()
    };
    let d: Vec<f64> = rows
        .iter()
        .map(|r| mix(r, &w_both) - mix(&r[..set.len()], &w_set))
        .collect();
    mean_and_se(&d)
}

/// Mean and standard error of the mean of per-row differences (as if two
/// rows when there are fewer, so nothing divides by zero).
pub fn mean_and_se(d: &[f64]) -> (f64, f64) {
    let m = d.len().max(2) as f64;
    let mean = d.iter().sum::<f64>() / m;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (m - 1.0);
    (mean, (var / m).sqrt())
}

/// The members of a mixture, (model, weight), and the flip tables their
/// held-out fits imply ([`super::held_out_flips`]).
#[derive(Clone, Copy)]
pub struct Members<'a> {
    pub models: &'a [(Box<dyn RobustModel>, f64)],
    pub flips: &'a [MemberFlips],
}

/// Fits every member on every row and mixes their posteriors by weight.
/// The first member (the heaviest) lends the combination its report,
/// shifts and trace; the flip table is the weighted mean of the members'.
/// The first member's fit sets the budget of the others ([`member_budget`]):
/// a member still running then is stopped and left out (a fit's cost can
/// grow faster than its rows, which no prediction from small fits sees).
/// A member whose fit on every row fails (a mixture that collapses on all
/// rows though it fitted the folds) is left out too, with its reason: the
/// others' evidence stands, so the curator gets their ranking, not an
/// error. Only when every member fails is the first failure returned.
/// A member whose flip table the data did not identify is left out while
/// one they did is fitted. The mixture ranks by the given label alone
/// ([`Fit::label_only`]) only when every member does. Returns the fit and
/// the members left out.
pub fn fit(
    members: Members<'_>,
    features: &DMatrix<f64>,
    levels: Option<&DMatrix<f64>>,
    given: &[usize],
    n_classes: usize,
    guide: &Guide,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<(Fit, Vec<String>), FitError> {
    let Members {
        models: members,
        flips,
    } = members;
    let count = members.len();
    let mut first: Option<f64> = None;
    let mut fits: Vec<(usize, Fit)> = Vec::with_capacity(count);
    let mut left_out = Vec::new();
    let mut notes = Vec::new();
    let mut first_failure = None;
    for (m, (model, _)) in members.iter().enumerate() {
        let started = Instant::now();
        let mut stopped_by_caller = false;
        let mut scaled = |mut p: Progress| {
            p.fraction = (m as f64 + p.fraction.clamp(0.0, 1.0)) / count as f64;
            if progress(p) == Control::Stop {
                stopped_by_caller = true;
                return Control::Stop;
            }
            let budget = first.map(|t| member_budget(members[m].1, members[0].1, t));
            match budget {
                Some(b) if started.elapsed().as_secs_f64() > b => Control::Stop,
                _ => Control::Continue,
            }
        };
        match model.fit_inputs(features, levels, given, n_classes, guide, &mut scaled) {
            Ok(mut f) => {
                first.get_or_insert_with(|| started.elapsed().as_secs_f64());
                let table = flips.iter().find(|t| t.model == model.name());
                if let (Some(t), Some(c), true) =
                    (table, f.classifier.clone(), model.learns_a_flip_table())
                {
                    let p_true = c.predict_proba(model.input().pick(features, levels));
                    let own = held_out_flips::apply(&mut f, t, &p_true, given, guide);
                    notes.push(held_out_flips::note(model.name(), t, own));
                }
                fits.push((m, f));
            }
            Err(FitError::Cancelled) if !stopped_by_caller => {
                left_out.push(model.name().to_string());
                notes.push(format!(
                    "{} is left out of the mixture: its fit on every row ran over the time budget (name it with --model to wait for it)",
                    model.name()
                ));
            }
            Err(e) if e.is_the_models_own() => {
                left_out.push(model.name().to_string());
                notes.push(format!(
                    "{} is left out of the mixture: its fit on every row failed ({e})",
                    model.name()
                ));
                first_failure.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
    }
    if fits.is_empty() {
        return Err(first_failure.unwrap_or(FitError::Cancelled));
    }
    // The weights judged each member by its held-out P(given | x), which any
    // split of it into classes and flips predicts alike; the mixture takes
    // the members' posteriors of the true class, that split (for a member
    // with a held-out flip table, the split its held-out fits count). A member whose
    // model says the data did not identify it would lend the constraint's
    // split, not the data's, so it goes while a member the data identified
    // is left to carry the weight.
    if fits.iter().any(|(_, f)| !f.flips_unidentified) {
        fits.retain(|(m, f)| {
            if f.flips_unidentified {
                let name = members[*m].0.name();
                left_out.push(name.to_string());
                notes.push(format!(
                    "{name} is left out of the mixture: it {UNIDENTIFIED}"
                ));
            }
            !f.flips_unidentified
        });
    }
    let kept: Vec<(&dyn RobustModel, f64)> = fits
        .iter()
        .map(|(m, _)| (members[*m].0.as_ref(), members[*m].1))
        .collect();
    let total: f64 = kept.iter().map(|(_, w)| w).sum();
    let mut fits: Vec<Fit> = fits.into_iter().map(|(_, f)| f).collect();
    let mut out = if fits.len() == 1 {
        fits.remove(0)
    } else {
        mix(&kept, fits, total, given, n_classes, levels.is_some())
    };
    out.extra.notes.extend(notes);
    Ok((out, left_out))
}

/// What a fit whose flip table the data did not identify did
/// ([`Fit::flips_unidentified`]), after its model's name.
pub const UNIDENTIFIED: &str = "ended with its flip table on the diagonal-dominance constraint \
    from every start (the data did not tell its classes from the same classes with swapped names, \
    so its p_mislabel are the constraint's)";

/// Why `auto` looks past a fit that ranks by the given label alone.
pub const FLAT_MEMBER: &str = "gives every sample with the same given label the same p_mislabel \
    (its classifier kept no feature)";

/// The members' fits mixed by weight (renormalised by `total`).
fn mix(
    kept: &[(&dyn RobustModel, f64)],
    mut fits: Vec<Fit>,
    total: f64,
    given: &[usize],
    n_classes: usize,
    has_levels: bool,
) -> Fit {
    let weights: Vec<f64> = kept.iter().map(|(_, w)| w / total).collect();
    let mut posterior = DMatrix::zeros(given.len(), n_classes);
    for (f, w) in fits.iter().zip(&weights) {
        posterior += &f.posterior * *w;
    }
    let mut out = Fit::from_posterior(posterior, given);
    out.suspicion_rank = mean_place(&fits, &weights);
    out.label_only = fits.iter().all(|f| f.label_only);
    out.flips_unidentified = fits.iter().all(|f| f.flips_unidentified);
    out.gamma = mean_gamma(&fits, &weights);
    out.converged = fits.iter().all(|f| f.converged);
    out.stopped_members = kept
        .iter()
        .zip(&fits)
        .filter(|(_, f)| !f.converged)
        .map(|((m, _), f)| (m.name().to_string(), f.iterations))
        .collect();
    out.classifier = stack(kept, &weights, &fits, has_levels);
    let names: Vec<String> = kept
        .iter()
        .zip(in_hundredths(&weights))
        .map(|((m, _), w)| format!("{} {w:.2}", m.name()))
        .collect();
    let first = fits.swap_remove(0);
    out.shifts = first.shifts;
    out.trace = first.trace;
    out.iterations = first.iterations;
    out.iteration_unit = first.iteration_unit;
    out.extra = first.extra;
    out.extra.notes.push(format!(
        "the ranking mixes {}; the extras shown are {}'s",
        names.join(" + "),
        kept[0].0.name()
    ));
    out
}

/// The mixture's own order, for ties in its p_mislabel: each sample's
/// place in every member's ranking, weighted. A member's order breaks its
/// own ties (shift's entry order where no shift is in the fit, cbt's
/// statistic, rlr's classifier under an identity flip table); mixed, those
/// ties went by row, and a mixture of two such members ranked nothing.
/// Without a member that has an order, the mixture has none either.
fn mean_place(fits: &[Fit], weights: &[f64]) -> Option<Vec<usize>> {
    if fits.iter().all(|f| f.suspicion_rank.is_none()) {
        return None;
    }
    let mut place = vec![0.0; fits.first()?.p_mislabel.len()];
    for (f, w) in fits.iter().zip(weights) {
        for (r, i) in f.ranking().into_iter().enumerate() {
            place[i] -= w * r as f64;
        }
    }
    Some(crate::models::rank_descending(&place))
}

/// The weighted mean of the members' flip tables (each row still sums to
/// one), over the members that have one.
fn mean_gamma(fits: &[Fit], weights: &[f64]) -> Option<GammaTable> {
    let mut sum: Option<DMatrix<f64>> = None;
    let mut total = 0.0;
    for (f, w) in fits.iter().zip(weights) {
        if let Some(g) = &f.gamma {
            let add = &g.p_given_true * *w;
            sum = Some(match sum {
                Some(s) => s + add,
                None => add,
            });
            total += w;
        }
    }
    sum.map(|s| GammaTable {
        p_given_true: s / total,
    })
}

/// New rows classified by the members' classifiers, mixed by weight;
/// `None` when a member cannot classify, or when the members read
/// different matrices (a table with string columns, one member reading
/// level codes): one test matrix cannot serve them all.
fn stack(
    members: &[(&dyn RobustModel, f64)],
    weights: &[f64],
    fits: &[Fit],
    has_levels: bool,
) -> Option<Arc<dyn Classifier>> {
    let inputs: Vec<ModelInput> = members.iter().map(|(m, _)| m.input()).collect();
    if has_levels && inputs.iter().any(|i| *i != inputs[0]) {
        return None;
    }
    let members = weights
        .iter()
        .zip(fits)
        .map(|(w, f)| Some((*w, f.classifier.clone()?)))
        .collect::<Option<Vec<_>>>()?;
    Some(Arc::new(WeightedClassifier(members)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
