//! The logistic papers' experiments: Bootkrajang & Kaban's Synth-500 /
//! Synth-100 (Fig. 1-2) and their colon cancer checks (Tables 2 and 6),
//! which the shift paper repeats (its Table 2).

use nalgebra::DMatrix;

use super::detection::mean_sd;
use crate::models::logistic::rlr::Rlr;
use crate::models::logistic::shift::ShiftLr;
use crate::models::numerics::sigmoid;
use crate::models::{Fit, FitError, ModelOptions, RobustModel, argmax, no_progress};
use crate::rng::Rng;

/// Samples with biological evidence of a wrong label (Alon et al. 1999;
/// the set both papers compare against).
pub const COLON_SUSPECTS: [&str; 9] = ["T2", "T30", "T33", "T36", "T37", "N8", "N12", "N34", "N36"];

/// Relevant weights of the Synth data (Ng 2004): w_1..3 = 10/3.
const SYNTH_RELEVANT: usize = 3;
const SYNTH_WEIGHT: f64 = 10.0 / 3.0;
/// Share of class-1 labels flipped to 0 (the paper's 75 of 250).
const SYNTH_FLIP: f64 = 0.3;

/// Gaussian features, labels from the logistic model, then one-sided flips
/// of class 1 with probability `flip`. Returns (x, true labels, given).
pub fn synth_data(
    n: usize,
    d: usize,
    flip: f64,
    rng: &mut Rng,
) -> (DMatrix<f64>, Vec<usize>, Vec<usize>) {
    let x = DMatrix::from_fn(n, d, |_, _| rng.normal());
    let mut truth = Vec::with_capacity(n);
    let mut given = Vec::with_capacity(n);
    for i in 0..n {
        let eta: f64 = (0..SYNTH_RELEVANT).map(|j| SYNTH_WEIGHT * x[(i, j)]).sum();
        let t = usize::from(rng.uniform() < sigmoid(eta));
        let g = if t == 1 && rng.uniform() < flip { 0 } else { t };
        truth.push(t);
        given.push(g);
    }
    (x, truth, given)
}

/// The flip table of the Synth noise, for RLogReg-F.
fn synth_gamma() -> String {
    format!("1,0;{SYNTH_FLIP},{}", 1.0 - SYNTH_FLIP)
}

/// Mean (and standard error) over repeats for one model at one dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthCell {
    pub model: String,
    pub test_error: (f64, f64),
    /// Non-zero weights.
    pub selected: f64,
    /// Of the 3 relevant features, how many were selected.
    pub relevant_found: f64,
    /// Mean |w_j| / mean over relevant j of |w_j| for irrelevant j: how
    /// much weight leaks to noise features (0 = none).
    pub leak: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SynthRow {
    pub n_train: usize,
    pub d: usize,
    pub repeats: usize,
    pub cells: Vec<SynthCell>,
}

/// Indices of "#j (...)" entries of the selected-features list, with weights.
fn selected_weights(fit: &Fit) -> Vec<(usize, f64)> {
    fit.extra
        .lists
        .iter()
        .find(|(name, _)| name == "selected_features")
        .map(|(_, items)| {
            items
                .iter()
                .filter_map(|s| {
                    let rest = s.strip_prefix('#')?;
                    let (j, w) = rest.split_once(" (")?;
                    let w = w.trim_end_matches(')').split(',').next()?.trim();
                    Some((j.parse().ok()?, w.parse().ok()?))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn error_rate(fit: &Fit, x: &DMatrix<f64>, y: &[usize]) -> f64 {
    let Some(c) = &fit.classifier else {
        return f64::NAN;
    };
    let p = c.predict_proba(x);
    let wrong = (0..y.len())
        .filter(|&i| argmax(p.row(i).iter().copied()) != y[i])
        .count();
    wrong as f64 / y.len() as f64
}

/// One point of Fig. 1: lr (BLogReg), rlr (RLogReg) and rlr with the
/// true gamma (RLogReg-F), trained on `n_train` noisy samples of dimension
/// `d`, tested on 100 clean ones.
pub fn bootkrajang_synth(
    n_train: usize,
    d: usize,
    repeats: usize,
    seed: u64,
) -> Result<SynthRow, FitError> {
    let models: [(&str, Rlr); 3] = [
        ("lr", Rlr::baseline(&ModelOptions::default())?),
        ("rlr", Rlr::robust(&ModelOptions::default())?),
        (
            "rlr-F",
            Rlr::robust(&ModelOptions {
                gamma: Some(synth_gamma()),
                fix_gamma: true,
                ..ModelOptions::default()
            })?,
        ),
    ];
    /// Per model: test errors, selected counts, relevant found, leaks.
    #[derive(Clone, Default)]
    struct Draws(Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>);
    let mut acc: Vec<Draws> = vec![Draws::default(); models.len()];
    for r in 0..repeats {
        let mut rng = Rng::new(seed.wrapping_add(r as u64));
        let (x, _, given) = synth_data(n_train, d, SYNTH_FLIP, &mut rng);
        let (xt, yt, _) = synth_data(100, d, 0.0, &mut rng);
        for ((_, model), cell) in models.iter().zip(acc.iter_mut()) {
            let fit = model.fit(&x, &given, 2, &mut no_progress())?;
            let w = selected_weights(&fit);
            let relevant: Vec<f64> = w
                .iter()
                .filter(|(j, _)| *j < SYNTH_RELEVANT)
                .map(|(_, w)| w.abs())
                .collect();
            let noise: f64 = w
                .iter()
                .filter(|(j, _)| *j >= SYNTH_RELEVANT)
                .map(|(_, w)| w.abs())
                .sum::<f64>()
                / (d - SYNTH_RELEVANT) as f64;
            let rel_mean = relevant.iter().sum::<f64>() / SYNTH_RELEVANT as f64;
            cell.0.push(error_rate(&fit, &xt, &yt));
            cell.1.push(w.len() as f64);
            cell.2.push(relevant.len() as f64);
            cell.3.push(if rel_mean > 0.0 {
                noise / rel_mean
            } else {
                f64::NAN
            });
        }
    }
    let cells = models
        .iter()
        .zip(acc)
        .map(|((name, _), Draws(err, sel, rel, leak))| {
            let (m, sd) = mean_sd(err.iter().copied());
            SynthCell {
                model: (*name).to_string(),
                test_error: (m, sd / (err.len() as f64).sqrt()),
                selected: mean_sd(sel).0,
                relevant_found: mean_sd(rel).0,
                leak: mean_sd(leak).0,
            }
        })
        .collect();
    Ok(SynthRow {
        n_train,
        d,
        repeats,
        cells,
    })
}

/// The colon data with the literature's suspects located.
pub struct Colon<'a> {
    pub x: &'a DMatrix<f64>,
    pub given: &'a [usize],
    pub ids: &'a [String],
}

impl Colon<'_> {
    fn is_suspect(&self, i: usize) -> bool {
        COLON_SUSPECTS.contains(&self.ids[i].as_str())
    }

    /// The labels with every suspect flipped (the paper's "corrected").
    fn corrected(&self) -> Vec<usize> {
        (0..self.given.len())
            .map(|i| {
                if self.is_suspect(i) {
                    1 - self.given[i]
                } else {
                    self.given[i]
                }
            })
            .collect()
    }

    /// P(given | true) implied by the suspects, as `--gamma` text: the
    /// table RLogReg-F is given in the paper ("the true label flipping
    /// proportions").
    pub fn suspect_gamma(&self) -> String {
        let truth = self.corrected();
        let mut counts = [[0.0f64; 2]; 2];
        for (t, g) in truth.iter().zip(self.given) {
            counts[*t][*g] += 1.0;
        }
        let row = |t: usize| {
            let total = counts[t][0] + counts[t][1];
            format!("{:.4},{:.4}", counts[t][0] / total, counts[t][1] / total)
        };
        format!("{};{}", row(0), row(1))
    }
}

/// A model and the name the tables print for it.
pub type NamedModel = (String, Box<dyn RobustModel>);

/// The models of the colon checks, by the names the tables print.
pub fn colon_models(colon: &Colon<'_>) -> Result<Vec<NamedModel>, FitError> {
    let fixed = ModelOptions {
        gamma: Some(colon.suspect_gamma()),
        fix_gamma: true,
        ..ModelOptions::default()
    };
    let ml = ModelOptions {
        gamma_prior: 0.0,
        ..ModelOptions::default()
    };
    let shift_noise = ModelOptions {
        noise_fraction: Some(0.15),
        ..ModelOptions::default()
    };
    Ok(vec![
        (
            "lr".into(),
            Box::new(Rlr::baseline(&ModelOptions::default())?),
        ),
        (
            "rlr".into(),
            Box::new(Rlr::robust(&ModelOptions::default())?),
        ),
        ("rlr (ML gamma)".into(), Box::new(Rlr::robust(&ml)?)),
        ("rlr-F".into(), Box::new(Rlr::robust(&fixed)?)),
        (
            "shift (cv)".into(),
            Box::new(ShiftLr::new(&ModelOptions::default())?),
        ),
        (
            "shift (noise 0.15)".into(),
            Box::new(ShiftLr::new(&shift_noise)?),
        ),
    ])
}

/// What one model flags on the whole colon set.
#[derive(Clone, Debug, PartialEq)]
pub struct ColonFlags {
    pub model: String,
    /// p_mislabel >= 0.5, most suspect first.
    pub flagged: Vec<String>,
    /// The nine most suspect samples.
    pub top9: Vec<String>,
    /// Samples with a non-zero shift (shift models only).
    pub shifted: Option<Vec<String>>,
    pub seconds: f64,
}

impl ColonFlags {
    pub fn suspects_in(list: &[String]) -> usize {
        list.iter()
            .filter(|s| COLON_SUSPECTS.contains(&s.as_str()))
            .count()
    }
}

pub fn colon_flags(colon: &Colon<'_>) -> Result<Vec<ColonFlags>, FitError> {
    let mut out = Vec::new();
    for (name, model) in colon_models(colon)? {
        let start = std::time::Instant::now();
        let fit = model.fit(colon.x, colon.given, 2, &mut no_progress())?;
        let seconds = start.elapsed().as_secs_f64();
        let order = fit.ranking();
        let id = |i: usize| colon.ids[i].clone();
        let flagged = order
            .iter()
            .filter(|&&i| fit.p_mislabel[i] >= 0.5)
            .map(|&i| id(i))
            .collect();
        let top9 = order.iter().take(9).map(|&i| id(i)).collect();
        let shifted = fit.shifts.as_ref().map(|s| {
            order
                .iter()
                .filter(|&&i| s.row(i).iter().any(|v| *v != 0.0))
                .map(|&i| id(i))
                .collect()
        });
        out.push(ColonFlags {
            model: name,
            flagged,
            top9,
            shifted,
            seconds,
        });
    }
    Ok(out)
}

/// Leave-one-out errors of Table 2.
#[derive(Clone, Debug, PartialEq)]
pub struct LooRow {
    pub model: String,
    /// Errors against the corrected labels, over all 62 samples (LOO-CRT).
    pub crt: f64,
    /// Errors over the non-suspects only; suspects always train (LOO-CLN).
    pub cln: f64,
    /// Mean number of selected genes over the CLN runs.
    pub genes: f64,
    pub seconds: f64,
}

/// Table 2: LOO-CRT and LOO-CLN errors (%) for lr, rlr and rlr-F.
pub fn colon_loo(colon: &Colon<'_>) -> Result<Vec<LooRow>, FitError> {
    let n = colon.given.len();
    let corrected = colon.corrected();
    let mut out = Vec::new();
    for (name, model) in colon_models(colon)? {
        if name.starts_with("shift") {
            continue;
        }
        let start = std::time::Instant::now();
        let (mut crt, mut cln, mut cln_n) = (0usize, 0usize, 0usize);
        let mut genes = Vec::new();
        for (held, &truth) in corrected.iter().enumerate() {
            let rows: Vec<usize> = (0..n).filter(|&i| i != held).collect();
            let x = colon.x.select_rows(rows.iter());
            let g: Vec<usize> = rows.iter().map(|&i| colon.given[i]).collect();
            let fit = model.fit(&x, &g, 2, &mut no_progress())?;
            let Some(c) = &fit.classifier else {
                continue;
            };
            let p = c.predict_proba(&colon.x.rows(held, 1).into_owned());
            let predicted = argmax(p.row(0).iter().copied());
            crt += usize::from(predicted != truth);
            if !colon.is_suspect(held) {
                cln += usize::from(predicted != colon.given[held]);
                cln_n += 1;
                genes.push(fit.extra.scalar("n_selected").unwrap_or(f64::NAN));
            }
        }
        out.push(LooRow {
            model: name,
            crt: 100.0 * crt as f64 / n as f64,
            cln: 100.0 * cln as f64 / cln_n.max(1) as f64,
            genes: mean_sd(genes).0,
            seconds: start.elapsed().as_secs_f64(),
        });
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn synth_flips_only_class_one_at_the_paper_rate() {
        let mut rng = Rng::new(3);
        let (_, truth, given) = synth_data(4000, 5, 0.3, &mut rng);
        let ones = truth.iter().filter(|t| **t == 1).count() as f64;
        let flipped = truth
            .iter()
            .zip(&given)
            .filter(|(t, g)| **t == 1 && **g == 0)
            .count() as f64;
        assert!((flipped / ones - 0.3).abs() < 0.03);
        assert!(truth.iter().zip(&given).all(|(t, g)| *t == 1 || *g == 0));
    }

    #[test]
    fn robust_models_beat_the_baseline_on_synth_500() {
        let row = bootkrajang_synth(500, 30, 2, 7).unwrap();
        let err = |m: &str| {
            row.cells
                .iter()
                .find(|c| c.model == m)
                .unwrap()
                .test_error
                .0
        };
        assert!(err("rlr-F") < err("lr"), "{row:?}");
        assert!(err("rlr") <= err("lr") + 0.02, "{row:?}");
        for c in &row.cells {
            assert!(c.relevant_found > 2.5, "{c:?}");
        }
    }

    #[test]
    fn suspect_gamma_counts_the_literature_flips() {
        let ids: Vec<String> = ["T2", "T1", "N8", "N1"].map(String::from).to_vec();
        let x = DMatrix::zeros(4, 1);
        let given = [0, 0, 1, 1];
        let colon = Colon {
            x: &x,
            given: &given,
            ids: &ids,
        };
        // True tumors: T1 and N8 (given normal); true normals: T2 (given tumor), N1.
        assert_eq!(colon.suspect_gamma(), "0.5000,0.5000;0.5000,0.5000");
        assert_eq!(colon.corrected(), vec![1, 0, 0, 1]);
    }
}
