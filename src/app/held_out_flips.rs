//! A member's flip table counted on rows its classifier never saw.
//!
//! rnda and rlr estimate their flip table together with a classifier fitted
//! to every row, and a classifier that has seen a row's label explains part
//! of the noise as signal: the table then holds too few flips, and not
//! evenly (on breast cancer with 30% of each class flipped, rlr's table
//! kept 0.82 and 0.95 of the two classes' labels, and ranked the flips at
//! AUROC 0.73). The evidence holds each member's P(true | x) from fits that
//! never saw the row, the out-of-sample probabilities cleanlab counts noise
//! with (Northcutt, Jiang and Chuang 2021). The flip table their confident
//! joint counts ([`confident_flip_table`]) takes the place of the
//! member's own:
//!
//!   P(true = k | x, given) ∝ P(k | x) P(given | true = k),
//!
//! P(k | x) the member's classifier fitted on every row. With two classes
//! each given label's samples keep their order, and only how the two
//! labels' samples interleave moves. The count is trusted as calibration
//! trusts it ([`super::calibrate`]): only from held-out fits that predict
//! the given labels better than the class shares do, by [`EARN_Z`]
//! standard errors (without skill the joint counts about half of every
//! class wrong at random). A held-out table that is not diagonally
//! dominant is not identified either. In both cases the member keeps its
//! own.
//!
//! The table is counted, not fitted: the table that best explains the given
//! labels under the held-out P(true | x) (`evidence::profile_flip_table`)
//! takes a soft classifier's doubt for the labels' noise and comes out too
//! close to the identity (rlr's held-out fits on 2000 rows of a 60000 x
//! 100 table: 0.96 of each class's labels kept, against 0.80 drawn), as
//! the confident joint's per-class thresholds do not.

use nalgebra::DMatrix;

use super::calibrate::{LogLik, confident_joint, held_out_skill};
use super::combine::EARN_Z;
use super::evidence::HeldOut;
use crate::models::gaussian::rnda::PAPER_TABLE;
use crate::models::{Fit, GammaTable, Guide, MemberFlips};

/// The held-out flip table of every member (name, weight) that `learns`
/// one, where its held-out fits have skill (`log_lik`, as in the
/// evidence) and the evidence rows they scored identify the table.
pub fn tables(
    held_out: &HeldOut,
    log_lik: &[LogLik],
    members: &[(String, f64)],
    learns: impl Fn(&str) -> bool,
) -> Vec<MemberFlips> {
    members
        .iter()
        .filter(|(m, _)| learns(m))
        .filter(|(m, _)| {
            held_out_skill(log_lik, &held_out.given, &[(m.clone(), 1.0)])
                .is_some_and(|(gain, se)| gain > EARN_Z * se)
        })
        .filter_map(|(m, _)| {
            let (_, rows) = held_out.p_true.iter().find(|(c, _)| c == m)?;
            let scored: Vec<(usize, &Vec<f64>)> = rows
                .iter()
                .zip(&held_out.given)
                .filter_map(|(p, &g)| p.as_ref().map(|p| (g, p)))
                .collect();
            let k = scored.first()?.1.len();
            let p: Vec<Vec<f64>> = scored.iter().map(|(_, p)| p.to_vec()).collect();
            let given: Vec<usize> = scored.iter().map(|(g, _)| *g).collect();
            let table = confident_flip_table(&p, &given, k);
            dominant(&table).then(|| MemberFlips {
                model: m.clone(),
                p_given_true: table
                    .row_iter()
                    .map(|r| r.iter().copied().collect())
                    .collect(),
                rows: scored.len(),
            })
        })
        .collect()
}

/// P(given | true) from the confident joint of held-out `p_true` and the
/// `given` labels ([`confident_joint`]): each given label's counts scaled
/// to its rows (the joint's calibration in Northcutt et al.), a pseudo-count
/// of 1/K per cell (a flip never counted is unlikely, not impossible), each
/// true class's column of counts then read as its row of the table.
pub fn confident_flip_table(p_true: &[Vec<f64>], given: &[usize], k: usize) -> DMatrix<f64> {
    let (joint, counts) = confident_joint(p_true, given, k);
    let mut scaled = DMatrix::from_element(k, k, 1.0 / k as f64);
    for (g, counted) in joint.iter().enumerate() {
        let total: usize = counted.iter().sum();
        if total == 0 {
            scaled[(g, g)] += counts[g] as f64;
            continue;
        }
        for (t, &c) in counted.iter().enumerate() {
            scaled[(g, t)] += c as f64 / total as f64 * counts[g] as f64;
        }
    }
    DMatrix::from_fn(k, k, |t, g| scaled[(g, t)] / scaled.column(t).sum())
}

/// Each true class keeps its own label more often than it takes any other.
fn dominant(table: &DMatrix<f64>) -> bool {
    (0..table.nrows()).all(|j| (0..table.ncols()).all(|g| g == j || table[(j, j)] > table[(j, g)]))
}

/// `fit`'s posterior, p_mislabel, suggestions and flip table from
/// `flips` and its classifier's `p_true` on every row; decided rows stay
/// pinned. Returns the mean share of labels kept by the table replaced.
pub fn apply(
    fit: &mut Fit,
    flips: &MemberFlips,
    p_true: &DMatrix<f64>,
    given: &[usize],
    guide: &Guide,
) -> Option<f64> {
    let k = fit.posterior.ncols();
    if p_true.shape() != fit.posterior.shape() || flips.p_given_true.len() != k {
        return None;
    }
    let table = flips.table();
    let before = fit.gamma.as_ref().map(|g| mean_kept(&g.p_given_true));
    for (i, &g) in given.iter().enumerate() {
        let joint: Vec<f64> = (0..k)
            .map(|t| p_true[(i, t)].max(0.0) * table[(t, g)])
            .collect();
        let total: f64 = joint.iter().sum();
        if total > 0.0 && total.is_finite() {
            for (t, v) in joint.into_iter().enumerate() {
                fit.posterior[(i, t)] = v / total;
            }
        }
    }
    guide.pin(&mut fit.posterior);
    fit.derive_from_posterior(given);
    fit.gamma = Some(GammaTable {
        p_given_true: table,
    });
    restate_paper_table(fit, given);
    before
}

/// rnda's report also states its table as the paper's P(true | given)
/// (eq. 7: the posterior's flows from each given label); it is restated
/// from the new posterior so the report does not keep the replaced one.
fn restate_paper_table(fit: &mut Fit, given: &[usize]) {
    let k = fit.posterior.ncols();
    let mut flows = DMatrix::<f64>::zeros(k, k);
    for (i, &g) in given.iter().enumerate() {
        for t in 0..k {
            flows[(g, t)] += fit.posterior[(i, t)];
        }
    }
    let Some(m) = fit
        .extra
        .matrices
        .iter_mut()
        .find(|m| m.name == PAPER_TABLE)
    else {
        return;
    };
    m.values = flows
        .row_iter()
        .map(|r| {
            let total = r.sum().max(f64::MIN_POSITIVE);
            r.iter().map(|v| v / total).collect()
        })
        .collect();
}

/// The mean of a flip table's diagonal: the share of labels a true class
/// keeps, averaged over the classes.
pub fn mean_kept(table: &DMatrix<f64>) -> f64 {
    table.diagonal().mean()
}

/// "rlr's flip table is the one its held-out fits imply on 569 evidence
/// rows (each class keeps 0.84 of its labels; its fit on every row said
/// 0.88)".
pub fn note(model: &str, flips: &MemberFlips, own: Option<f64>) -> String {
    let kept = mean_kept(&flips.table());
    let own = own.map_or(String::new(), |o| {
        format!("; its fit on every row said {o:.2}")
    });
    format!(
        "{model}'s flip table is the one its held-out fits imply on {} evidence rows (a true class keeps {kept:.2} of its labels on average{own}): a fit that has seen the labels takes part of the noise for signal",
        flips.rows
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
