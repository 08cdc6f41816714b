//! `auto`'s p_mislabel brought to the noise its held-out fits see.
//!
//! A model fitted on every row has seen each row's given label, and a
//! flexible one learns part of the noise as signal: its flip table then
//! says too little is flipped and its posteriors hardly leave the given
//! labels (rlr on house votes ranked the flips at AUROC 0.98 yet put none
//! of 87 over 0.5). The evidence already holds, for a sample of rows, each
//! member's P(true | x) from a fit that never saw the row. Counted by the
//! confident joint of those held-out probabilities and the given labels
//! (Northcutt, Jiang and Chuang 2021), they give the share of wrong labels
//! a classifier sees without having fitted the noise (cleanlab's estimate,
//! from the same kind of out-of-sample probabilities). The fit's posteriors then have their prior odds of a
//! wrong label rescaled by one factor c, the Bayes update for a changed
//! prior on "this label is wrong", so that the mean p_mislabel over the
//! table is that share:
//!
//!   P'(true = k | x, given) ∝ c P(true = k | x, given) for k != given.
//!
//! The logit of every p_mislabel moves by log c, so the ranking is the
//! same; only the probabilities (and the count flagged at 0.5) change.
//!
//! The confident joint trusts its classifier: Northcutt et al.'s exactness
//! results assume held-out probabilities that are, per example, within a
//! margin of the true ones. A classifier with no skill has per-class
//! thresholds at the class shares, passes about half of every class over
//! the other's threshold at random, and the joint then counts about half
//! the labels wrong whatever the noise (colon, 62 rows x 2000 genes: held-out
//! fits on 41 rows that kept no gene, 45% counted against 19% flipped, and
//! every p_mislabel's odds multiplied by 15). So the count is used only when
//! the members' held-out fits predict the given labels better than the
//! constant classifier of the class shares does, by [`EARN_Z`] standard
//! errors of the paired per-row difference (the rule `combine::earned`
//! applies to a member's evidence); otherwise the held-out fits say nothing
//! about which labels are wrong, and the fit keeps its own noise estimate.

use super::combine::{self, EARN_Z};
use super::evidence::HeldOut;
use crate::models::Fit;
use crate::models::numerics::log_sum_exp;

/// What calibration did to a fit: the odds factor applied (`None`: the fit
/// kept its own p_mislabel) and the report's note.
pub struct Calibrated {
    pub odds: Option<f64>,
    pub note: String,
}

/// `fit`'s p_mislabel brought to the share of wrong labels the members'
/// (name, weight) held-out fits count, when those fits have shown skill
/// (see the module's comment); `None` without held-out rows to count on.
pub fn calibrate(
    fit: &mut Fit,
    log_lik: &[LogLik],
    held_out: &HeldOut,
    members: &[(String, f64)],
    given: &[usize],
) -> Option<Calibrated> {
    let rate = held_out_noise(held_out, members)?;
    let before = mean(&fit.p_mislabel);
    if let Some((gain, se)) = held_out_skill(log_lik, &held_out.given, members)
        && gain <= EARN_Z * se
    {
        return Some(Calibrated {
            odds: None,
            note: format!(
                "p_mislabel is the fit's own ({:.1}% of the labels wrong): the held-out fits predict the given labels no better than the class shares do ({gain:+.4} ± {se:.4} nats per row), so the {:.1}% of wrong labels their confident joint counts is not evidence",
                100.0 * before,
                100.0 * rate
            ),
        });
    }
    let c = odds_for_rate(&fit.p_mislabel, rate);
    rescale_odds(fit, given, c);
    Some(Calibrated {
        odds: Some(c),
        note: format!(
            "p_mislabel is calibrated to the held-out fits: they see {:.1}% of the labels wrong, the fit on every row {:.1}%, so the odds of a wrong label are multiplied by {c:.2} (the ranking is the same)",
            100.0 * rate,
            100.0 * before
        ),
    })
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// A candidate's held-out log P(given | x) per evidence row (as in
/// [`super::evidence::Evidence::log_lik`]).
pub type LogLik = (String, Vec<Option<f64>>);

/// Mean and standard error, over the evidence rows every member scored, of
/// what the members' weighted held-out predictive distribution of the
/// given label adds to the log-likelihood of the constant classifier that
/// predicts the class shares. The evidence's folds are stratified, so a
/// constant fitted without a fold predicts the shares of the whole sample:
/// those shares are its held-out prediction. `None` without such rows.
pub fn held_out_skill(
    log_lik: &[LogLik],
    given: &[usize],
    members: &[(String, f64)],
) -> Option<(f64, f64)> {
    let columns: Vec<(&Vec<Option<f64>>, f64)> = members
        .iter()
        .map(|(m, w)| log_lik.iter().find(|(c, _)| c == m).map(|(_, ll)| (ll, *w)))
        .collect::<Option<_>>()?;
    let total: f64 = columns.iter().map(|(_, w)| w).sum();
    let mut rows = Vec::new();
    for (i, &g) in given.iter().enumerate() {
        let terms: Option<Vec<f64>> = columns
            .iter()
            .map(|(ll, w)| ll.get(i).copied().flatten().map(|l| l + (w / total).ln()))
            .collect();
        if let Some(terms) = terms {
            rows.push((g, log_sum_exp(&terms)));
        }
    }
    if rows.len() < 2 {
        return None;
    }
    let k = rows.iter().map(|(g, _)| g + 1).max().unwrap_or(0);
    let mut counts = vec![0.0; k];
    for (g, _) in &rows {
        counts[*g] += 1.0;
    }
    let n = rows.len() as f64;
    let d: Vec<f64> = rows
        .iter()
        .map(|(g, ll)| ll - (counts[*g] / n).ln())
        .collect();
    Some(combine::mean_and_se(&d))
}

/// The share of wrong labels among the evidence rows that every member
/// (name, weight) scored, by the confident joint of the members' weighted
/// held-out P(true | x) and the rows' given labels. `None` without such
/// rows.
pub fn held_out_noise(held_out: &HeldOut, members: &[(String, f64)]) -> Option<f64> {
    let columns: Vec<(&Vec<Option<Vec<f64>>>, f64)> = members
        .iter()
        .map(|(m, w)| {
            held_out
                .p_true
                .iter()
                .find(|(c, _)| c == m)
                .map(|(_, p)| (p, *w))
        })
        .collect::<Option<_>>()?;
    let total: f64 = columns.iter().map(|(_, w)| w).sum();
    let mut rows = Vec::new();
    let mut given = Vec::new();
    for (i, &g) in held_out.given.iter().enumerate() {
        let mut mixed: Option<Vec<f64>> = None;
        for (p, w) in &columns {
            let Some(row) = &p[i] else {
                mixed = None;
                break;
            };
            let acc = mixed.get_or_insert_with(|| vec![0.0; row.len()]);
            for (a, v) in acc.iter_mut().zip(row) {
                *a += w / total * v;
            }
        }
        if let Some(row) = mixed {
            rows.push(row);
            given.push(g);
        }
    }
    let k = rows.first()?.len();
    Some(confident_joint_noise(&rows, &given, k))
}

/// The share of wrong labels by the confident joint (Northcutt, Jiang and
/// Chuang 2021, "Confident learning"; see [`confident_joint`]): the counts
/// per given label are scaled to that label's rows, and the share is what
/// falls off the diagonal. A flip table fitted to P(true | x) cannot tell
/// a soft classifier from noisy labels (a classifier trained on noisy
/// labels is soft by exactly the noise), per-class thresholds can.
fn confident_joint_noise(rows: &[Vec<f64>], given: &[usize], k: usize) -> f64 {
    let (joint, counts) = confident_joint(rows, given, k);
    let mut off = 0.0;
    for (g, counted) in joint.iter().enumerate() {
        let total: usize = counted.iter().sum();
        if total > 0 {
            let wrong: usize = total - counted[g];
            off += wrong as f64 / total as f64 * counts[g] as f64;
        }
    }
    off / given.len().max(1) as f64
}

/// The confident joint of held-out P(true | x) `rows` and their given
/// labels: class j's threshold is the mean P(j | x) over the rows labelled
/// j; a row counts as truly j when P(j | x) reaches that threshold (the
/// likeliest such j when several do). Returns the counts, [given][true],
/// and the rows per given label.
pub fn confident_joint(
    rows: &[Vec<f64>],
    given: &[usize],
    k: usize,
) -> (Vec<Vec<usize>>, Vec<usize>) {
    let mut sums = vec![0.0; k];
    let mut counts = vec![0usize; k];
    for (row, &g) in rows.iter().zip(given) {
        sums[g] += row[g];
        counts[g] += 1;
    }
    let thresholds: Vec<f64> = (0..k)
        .map(|j| {
            if counts[j] > 0 {
                sums[j] / counts[j] as f64
            } else {
                f64::INFINITY
            }
        })
        .collect();
    let mut joint = vec![vec![0usize; k]; k];
    for (row, &g) in rows.iter().zip(given) {
        let sure = (0..k)
            .filter(|&j| row[j] >= thresholds[j])
            .max_by(|&a, &b| row[a].total_cmp(&row[b]));
        if let Some(j) = sure {
            joint[g][j] += 1;
        }
    }
    (joint, counts)
}

/// The factor c on the odds of a wrong label that makes the mean of
/// `p_mislabel` equal `rate` (1 when it cannot: every p is 0 or 1, or the
/// rate is out of reach).
pub fn odds_for_rate(p_mislabel: &[f64], rate: f64) -> f64 {
    // Sixty halvings of sixty nats leave the factor exact to 1e-16.
    const ROUNDS: usize = 60;
    let mean_at = |log_c: f64| {
        let c = log_c.exp();
        p_mislabel
            .iter()
            .map(|&p| {
                if p >= 1.0 {
                    1.0
                } else {
                    c * p / (1.0 - p + c * p)
                }
            })
            .sum::<f64>()
            / p_mislabel.len().max(1) as f64
    };
    // Thirty nats either way is far past any real noise prior.
    let (mut lo, mut hi) = (-30.0f64, 30.0f64);
    if !(mean_at(lo) < rate && rate < mean_at(hi)) {
        return 1.0;
    }
    for _ in 0..ROUNDS {
        let mid = 0.5 * (lo + hi);
        if mean_at(mid) < rate {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (0.5 * (lo + hi)).exp()
}

/// The fit with the odds of every row's wrong label multiplied by `c`:
/// each posterior row's classes other than the given label scaled by c and
/// the row renormalised; p_mislabel and the suggestions follow.
pub fn rescale_odds(fit: &mut Fit, given: &[usize], c: f64) {
    for (i, &g) in given.iter().enumerate() {
        let mut row = fit.posterior.row_mut(i);
        for (k, v) in row.iter_mut().enumerate() {
            if k != g {
                *v *= c;
            }
        }
        let total = row.sum();
        if total > 0.0 {
            row /= total;
        }
    }
    fit.derive_from_posterior(given);
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
