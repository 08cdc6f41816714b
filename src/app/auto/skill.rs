//! The "no evidence" rule, for every model (named or chosen by auto).
//!
//! A ranking of wrong labels is evidence only if the features predict the
//! given labels at all. The test: the held-out AUC of the given labels
//! (each class against the rest, averaged over the classes; 0.5 is the
//! class shares' constant classifier) of the model's out-of-fold
//! predictions on auto's sample, against chance. Under the null (features
//! independent of labels) a fold's held-out labels are exchangeable given
//! the scores its fit assigns them, since that fit never saw them; the AUC
//! is a linear rank statistic, so its mean and variance under permutation
//! of the labels within each fold are exact (Hoeffding's combinatorial
//! central limit theorem, 1951), and the z it gives is the Mann-Whitney
//! test's for two classes and one fold. A one-sided test at 5% (z > 1.645)
//! decides. A rank statistic has power where a log score has none: on 62
//! rows of colon the held-out log-likelihood's gain over the class shares
//! is within its noise while the ranking is real.
//!
//! How to call it (the pipeline does, for every fit): [`of_model`] makes a
//! named model's held-out fits on the bounded sample and tests them;
//! [`test`] tests held-out predictions already made (auto's chosen
//! candidate); [`withhold`] is what a fit without evidence becomes. A
//! contract test "no signal -> nothing flagged" fits through
//! `app::FitPlan::fit` and checks `fit.extra.held_out_skill` and that no
//! p_mislabel reaches 0.5.

use nalgebra::DMatrix;

use super::candidates::Candidate;
use super::evaluate::{HeldOut, Outcome, Sample, evaluate};
use crate::app::inputs::FitInputs;
use crate::models::{
    ColumnDisplay, Control, Fit, FitError, HeldOutSkill, ModelOptions, Progress, SampleColumn,
    Verdict, rank_descending,
};

/// The name of the column that keeps a model's own p_mislabel when the
/// data cannot back it.
pub const UNBACKED: &str = "model_p";

/// `name`'s held-out fits on the sample of `inputs` and their test; `None`
/// when the model cannot make them (it cannot classify held-out rows),
/// with its reason.
pub fn of_model(
    name: &str,
    inputs: &FitInputs<'_>,
    labels: &[usize],
    options: &ModelOptions,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<Result<HeldOutSkill, String>, FitError> {
    let Some(candidate) = Candidate::named(name) else {
        return Ok(Err(format!("{name} is not a model")));
    };
    let sample = Sample::draw(inputs, labels, options.seed);
    let smallest = smallest_class(labels, inputs.n_classes());
    if !sample.holds_out() {
        return Ok(Ok(too_few(name, smallest)));
    }
    let table = evaluate(&[candidate], inputs, &sample, options, progress)?;
    Ok(match &table.outcomes[0] {
        Outcome::Scored(h) => Ok(test(h, &sample, smallest)),
        Outcome::Dropped { reason, .. } => Err(reason.clone()),
    })
}

/// The test of probabilities that are held out already (`--probs`: another
/// classifier's out-of-fold probabilities), on the same bounded sample,
/// all its rows one block.
pub fn of_probabilities(p: &DMatrix<f64>, labels: &[usize], n_classes: usize) -> HeldOutSkill {
    let inputs = FitInputs::of_matrix(p, n_classes);
    let mut sample = Sample::draw(&inputs, labels, 0);
    sample.folds = vec![Some(0); sample.rows.len()];
    let rows = p.select_rows(sample.rows.iter());
    let held = HeldOut {
        name: "probs".into(),
        p_true: rows.clone(),
        p_given: rows,
    };
    test(&held, &sample, smallest_class(labels, n_classes))
}

fn smallest_class(labels: &[usize], k: usize) -> usize {
    let mut counts = vec![0usize; k];
    labels.iter().for_each(|&g| counts[g] += 1);
    counts.into_iter().filter(|&c| c > 0).min().unwrap_or(0)
}

fn too_few(name: &str, smallest: usize) -> HeldOutSkill {
    HeldOutSkill::new(name, Verdict::TooFewSamples, 0, None, None, smallest)
}

/// The test of `held`'s out-of-fold P(given | x) on `sample` (see the
/// module's comment); `smallest` is the table's smallest class, for the
/// reason.
pub fn test(held: &HeldOut, sample: &Sample, smallest: usize) -> HeldOutSkill {
    let rows: Vec<usize> = (0..sample.rows.len())
        .filter(|&j| sample.folds[j].is_some())
        .collect();
    let Some(stat) = RankStatistic::of(held, sample, &rows) else {
        return too_few(&held.name, smallest);
    };
    let (mean, var) = stat.null_moments(sample, &rows);
    let sd = var.sqrt();
    let auc = stat.observed - stat.offset;
    let null_auc = mean - stat.offset;
    // A fold whose fit gives every row the same prediction (a fit that
    // kept no feature) ranks nothing: the permutation null has no spread
    // there, and what is left of T - E T is the rounding of the sums,
    // which divided by a rounding-sized sd read as z = 7 to 9.
    if !stat.varies_within_folds(sample, &rows) {
        return HeldOutSkill::new(
            &held.name,
            Verdict::NoSkill,
            rows.len(),
            Some(auc),
            Some(0.0),
            smallest,
        );
    }
    // Even a perfect ranking (AUC 1) would be within chance: too few rows.
    if sd <= 0.0 || (1.0 - null_auc) / sd <= HeldOutSkill::Z {
        return too_few(&held.name, smallest);
    }
    let z = (auc - null_auc) / sd;
    let verdict = if z > HeldOutSkill::Z {
        Verdict::Skill
    } else {
        Verdict::NoSkill
    };
    HeldOutSkill::new(
        &held.name,
        verdict,
        rows.len(),
        Some(auc),
        Some(z),
        smallest,
    )
}

/// The macro AUC as a linear rank statistic: T = sum_i a_{y_i} r_{y_i}(i),
/// r_c(i) the mid-rank of row i's P(given = c | x) among the held-out rows,
/// a_c = 1 / (K' n_c (n - n_c)) over the K' classes tested; the AUC is T
/// less `offset`.
struct RankStatistic {
    /// Per tested row (in `rows` order), per class: a_c r_c(i) (0 for a
    /// class not tested).
    f: DMatrix<f64>,
    observed: f64,
    offset: f64,
}

impl RankStatistic {
    fn of(held: &HeldOut, sample: &Sample, rows: &[usize]) -> Option<RankStatistic> {
        let n = rows.len();
        let k = held.p_given.ncols();
        let mut counts = vec![0usize; k];
        rows.iter().for_each(|&j| counts[sample.given[j]] += 1);
        // Of two classes the two AUCs are one number: test class 1 alone.
        let tested: Vec<usize> = (usize::from(k == 2)..k)
            .filter(|&c| counts[c] > 0 && counts[c] < n)
            .collect();
        if tested.is_empty() {
            return None;
        }
        let mut f = DMatrix::zeros(n, k);
        let mut offset = 0.0;
        for &c in &tested {
            let a = 1.0 / (tested.len() * counts[c] * (n - counts[c])) as f64;
            let ranks = mid_ranks(
                &rows
                    .iter()
                    .map(|&j| held.p_given[(j, c)])
                    .collect::<Vec<_>>(),
            );
            for (i, r) in ranks.into_iter().enumerate() {
                f[(i, c)] = a * r;
            }
            offset += a * (counts[c] * (counts[c] + 1)) as f64 / 2.0;
        }
        let observed = rows
            .iter()
            .enumerate()
            .map(|(i, &j)| f[(i, sample.given[j])])
            .sum();
        Some(RankStatistic {
            f,
            observed,
            offset,
        })
    }

    /// Whether any fold's rows differ in what they contribute to T for
    /// some class (else permuting labels within folds cannot change T).
    fn varies_within_folds(&self, sample: &Sample, rows: &[usize]) -> bool {
        let mut first: std::collections::HashMap<usize, usize> = Default::default();
        rows.iter().enumerate().any(|(i, &j)| {
            let Some(fold) = sample.folds[j] else {
                return false;
            };
            let f0 = *first.entry(fold).or_insert(i);
            (0..self.f.ncols()).any(|c| self.f[(i, c)] != self.f[(f0, c)])
        })
    }

    /// Mean and variance of T when each fold's labels are permuted among
    /// its rows (Hoeffding 1951: for T = sum_i C[i, pi(i)] over a block of
    /// m rows, Var T = sum_{i,j} d_ij^2 / (m - 1), d the doubly centred C;
    /// here C[i, j] = f(i, y_j), so the columns group by label).
    fn null_moments(&self, sample: &Sample, rows: &[usize]) -> (f64, f64) {
        let k = self.f.ncols();
        let (mut mean, mut var) = (0.0, 0.0);
        let folds = rows
            .iter()
            .filter_map(|&j| sample.folds[j])
            .max()
            .map_or(0, |f| f + 1);
        for fold in 0..folds {
            let block: Vec<usize> = (0..rows.len())
                .filter(|&i| sample.folds[rows[i]] == Some(fold))
                .collect();
            let m = block.len() as f64;
            if block.len() < 2 {
                continue;
            }
            let mut per_label = vec![0.0; k];
            block
                .iter()
                .for_each(|&i| per_label[sample.given[rows[i]]] += 1.0);
            let row_mean: Vec<f64> = block
                .iter()
                .map(|&i| (0..k).map(|c| per_label[c] * self.f[(i, c)]).sum::<f64>() / m)
                .collect();
            let col_mean: Vec<f64> = (0..k)
                .map(|c| block.iter().map(|&i| self.f[(i, c)]).sum::<f64>() / m)
                .collect();
            let grand = row_mean.iter().sum::<f64>() / m;
            mean += m * grand;
            let mut ss = 0.0;
            for (b, &i) in block.iter().enumerate() {
                for c in 0..k {
                    let d = self.f[(i, c)] - row_mean[b] - col_mean[c] + grand;
                    ss += per_label[c] * d * d;
                }
            }
            var += ss / (m - 1.0);
        }
        (mean, var)
    }
}

/// 1-based mid-ranks (ties share the mean of their ranks).
fn mid_ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut ranks = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let mid = (i + j) as f64 / 2.0 + 1.0;
        order[i..=j].iter().for_each(|&o| ranks[o] = mid);
        i = j + 1;
    }
    ranks
}

/// What a fit without evidence becomes, so that nothing relabel quotes
/// claims a flag: every posterior sits on its given label (p_mislabel 0,
/// the given label suggested, nothing flagged, no count), the rows keep the
/// model's own order of suspicion (the ranking, for a curator who reads it
/// anyway, and for the benchmark's AUROC of the output order), and the
/// model's own p_mislabel stays in the column [`UNBACKED`]. The verdict is
/// the fit's (`extra.held_out_skill`), so every surface says why.
pub fn withhold(fit: &mut Fit, given: &[usize], skill: HeldOutSkill) {
    let own = fit.p_mislabel.clone();
    fit.suspicion_rank = Some(rank_of(&fit.ranking()));
    for (i, &g) in given.iter().enumerate() {
        let mut row = fit.posterior.row_mut(i);
        row.fill(0.0);
        row[g] = 1.0;
    }
    fit.derive_from_posterior(given);
    fit.extra.sample_columns.push(
        SampleColumn::new(UNBACKED, own).with_display(ColumnDisplay {
            label: Some("model p".into()),
            decimals: 3,
            width: 7,
            ..ColumnDisplay::default()
        }),
    );
    fit.extra.notes.insert(
        0,
        format!(
            "the data cannot tell which labels are wrong: {}; nothing is flagged, and the rows \
             keep the model's order of suspicion (its own p_mislabel in the column {UNBACKED})",
            skill.reason.as_deref().unwrap_or("no held-out skill")
        ),
    );
    fit.extra.held_out_skill = Some(skill);
}

/// Each sample's place in `order` (a ranking, most suspicious first).
fn rank_of(order: &[usize]) -> Vec<usize> {
    let place: Vec<f64> = {
        let mut p = vec![0.0; order.len()];
        for (r, &i) in order.iter().enumerate() {
            p[i] = -(r as f64);
        }
        p
    };
    rank_descending(&place)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::models::no_progress;
    use crate::rng::Rng;

    /// `n` rows of `d` features; labels from the first feature when
    /// `signal`, else independent of every feature.
    fn table(n: usize, d: usize, signal: bool, seed: u64) -> (DMatrix<f64>, Vec<usize>) {
        let mut rng = Rng::new(seed);
        let x = DMatrix::from_fn(n, d, |_, _| rng.normal());
        let labels = (0..n)
            .map(|i| {
                let u = if signal { x[(i, 0)] } else { rng.normal() };
                usize::from(u + 0.5 * rng.normal() > 0.0)
            })
            .collect();
        (x, labels)
    }

    fn skill_of(model: &str, x: &DMatrix<f64>, labels: &[usize]) -> HeldOutSkill {
        let inputs = FitInputs::of_matrix(x, 2);
        of_model(
            model,
            &inputs,
            labels,
            &ModelOptions::default(),
            &mut no_progress(),
        )
        .unwrap()
        .unwrap()
    }

    #[test]
    fn features_that_predict_the_labels_show_skill_and_noise_does_not() {
        let (x, y) = table(300, 3, true, 1);
        let s = skill_of("rnda", &x, &y);
        assert_eq!(s.verdict, Verdict::Skill, "{s:?}");
        assert!(s.auc.unwrap() > 0.8 && s.reason.is_none());
        for seed in 0..4 {
            let (x, y) = table(300, 3, false, 10 + seed);
            let s = skill_of("rnda", &x, &y);
            assert_eq!(s.verdict, Verdict::NoSkill, "{s:?}");
            assert!(s.reason.unwrap().contains("no skill"));
        }
    }

    #[test]
    fn two_against_two_is_too_few_to_tell() {
        let x = DMatrix::from_row_slice(4, 1, &[0.0, 0.1, 5.0, 5.1]);
        let s = skill_of("lr", &x, &[0, 0, 1, 1]);
        assert_eq!(s.verdict, Verdict::TooFewSamples);
        assert_eq!(s.smallest_class, 2);
        assert!(s.reason.unwrap().starts_with("too few samples per class"));
        // Six a class are held out, and twelve rows perfectly ranked in five
        // folds are evidence (by permutation, a chance of about 1 in 2^5).
        let x = DMatrix::from_fn(
            12,
            1,
            |i, _| if i < 6 { 0.0 } else { 5.0 } + i as f64 * 0.01,
        );
        let y: Vec<usize> = (0..12).map(|i| usize::from(i >= 6)).collect();
        assert_eq!(skill_of("lr", &x, &y).verdict, Verdict::Skill);
    }

    /// The null moments are those of the permutation distribution: for two
    /// classes in one block, Mann-Whitney's mean 1/2 and variance (n + 1) /
    /// (12 n1 n2).
    #[test]
    fn one_block_of_two_classes_has_the_mann_whitney_moments() {
        let n = 40;
        let given: Vec<usize> = (0..n).map(|i| usize::from(i % 4 == 0)).collect();
        let sample = Sample {
            rows: (0..n).collect(),
            folds: vec![Some(0); n],
            given: given.clone(),
        };
        let p = DMatrix::from_fn(n, 2, |i, c| {
            let s = ((i * 37) % n) as f64 / n as f64;
            if c == 1 { s } else { 1.0 - s }
        });
        let held = HeldOut {
            name: "x".into(),
            p_true: p.clone(),
            p_given: p,
        };
        let rows: Vec<usize> = (0..n).collect();
        let stat = RankStatistic::of(&held, &sample, &rows).unwrap();
        let (mean, var) = stat.null_moments(&sample, &rows);
        let (n1, n0) = (10.0, 30.0);
        assert!((mean - stat.offset - 0.5).abs() < 1e-12);
        assert!(
            (var - (n as f64 + 1.0) / (12.0 * n1 * n0)).abs() < 1e-12,
            "{var}"
        );
    }

    /// A fold fit that kept no feature predicts its class shares for every
    /// row: no ranking, so no skill, however the folds' shares differ
    /// (rounding once read as z = 7 to 9 here: rlr and shift on a table
    /// without signal flagged half the rows).
    #[test]
    fn predictions_constant_within_each_fold_show_no_skill() {
        let n = 120;
        let given: Vec<usize> = (0..n).map(|i| i % 2).collect();
        let folds: Vec<Option<usize>> = (0..n).map(|i| Some(i % 5)).collect();
        let sample = Sample {
            rows: (0..n).collect(),
            folds: folds.clone(),
            given: given.clone(),
        };
        let share = |i: usize| 0.45 + 0.02 * folds[i].unwrap() as f64;
        let p = DMatrix::from_fn(n, 2, |i, c| if c == 1 { share(i) } else { 1.0 - share(i) });
        let held = HeldOut {
            name: "x".into(),
            p_true: p.clone(),
            p_given: p,
        };
        let s = test(&held, &sample, 60);
        assert_eq!(s.verdict, Verdict::NoSkill, "{s:?}");
        assert_eq!(s.z, Some(0.0));
    }

    #[test]
    fn a_withheld_fit_flags_nothing_and_keeps_the_models_order() {
        let given = [0, 1, 0, 1];
        let p = [0.9, 0.2, 0.6, 0.1];
        let posterior =
            DMatrix::from_fn(4, 2, |i, c| if c == given[i] { 1.0 - p[i] } else { p[i] });
        let mut fit = Fit::from_posterior(posterior, &given);
        let before = fit.ranking();
        let skill = HeldOutSkill::new("rnda", Verdict::NoSkill, 40, Some(0.52), Some(0.3), 2);
        withhold(&mut fit, &given, skill);
        assert!(fit.p_mislabel.iter().all(|&p| p == 0.0));
        assert_eq!(fit.suggested, given);
        assert_eq!(fit.ranking(), before);
        let kept = &fit.extra.sample_column(UNBACKED).unwrap().values;
        assert!(kept.iter().zip(p).all(|(a, b)| (a - b).abs() < 1e-12));
        assert!(fit.uncounted().unwrap().contains("no skill"));
        assert!(fit.extra.notes[0].starts_with("the data cannot tell which labels are wrong"));
    }
}
