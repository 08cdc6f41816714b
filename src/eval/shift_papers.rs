//! Tibshirani & Manning, "Robust logistic regression using shift
//! parameters": Table 1 (standard against robust logistic regression on
//! simulated logistic data, with an unpenalised and an L1-penalised theta)
//! and Appendix B's Table 6 (the baseline, a k-nearest-neighbour prefilter,
//! the label-flipping model and the robust model on four simulations).
//!
//! Settings the paper states are followed: features Uniform(-5, 5) (or
//! Normal(0, 1)), theta_j = 2 on the relevant features, zero intercept;
//! train, dev and test sets of equal size, noise in train and dev only;
//! lambda by 0-1 loss on dev (unpenalised theta); with an L1 theta, for each
//! kappa the lambda of best training accuracy, then kappa by dev accuracy
//! (section 3.3, the dev set standing in for cross-validation); the
//! prefilter's k on dev. Chosen here: kappa on a 12-point geometric grid
//! from the smallest kappa that zeroes theta down by 10^3; k in 1..=10; the
//! flipping model is relabel's rlr with its defaults or the curator's
//! `--opt` (`--opt lambda=0` is the paper's EM of Appendix A with an
//! unpenalised classifier); 50
//! repeats (the paper does not say how many; its standard errors fit about
//! 50).

use nalgebra::DMatrix;

use super::knn::knn_prefilter;
use super::metrics::accuracy;
use super::paper_table::{Scale, Stat, Table, Tick};
use crate::models::logistic::classifier::LogisticClassifier;
use crate::models::logistic::l1_logistic::{self, Design, Penalty, Problem};
use crate::models::logistic::rlr::Rlr;
use crate::models::logistic::shift::ShiftLr;
use crate::models::numerics::{one_hot, sigmoid};
use crate::models::standardize::Standardizer;
use crate::models::{Classifier, FitError, ModelOptions, RobustModel, argmax, no_progress};
use crate::rng::Rng;

/// Repeats per row (not stated by the paper; its standard errors fit 50).
pub const PAPER_REPEATS: usize = 50;

/// How the features of a simulation are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Features {
    Uniform,
    Normal,
}

/// How the clean labels follow the features.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Labels {
    /// Logistic with theta_j = 2 on the first `relevant` features.
    Logistic { relevant: usize },
    /// The posterior of N(2, I) (positive) against N(-2, 2I) (negative),
    /// equal priors: not quite logistic (Appendix B, experiment 4).
    Gaussians,
}

/// How training and dev labels are corrupted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Noise {
    /// Class 0 flips to 1 with p0, class 1 to 0 with p1.
    Flip { p0: f64, p1: f64 },
    /// Every negative with its feature in [-5, -4] labelled positive
    /// (Appendix B, experiment 3).
    Band,
}

/// One simulation design.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Design1 {
    pub m: usize,
    pub n: usize,
    pub features: Features,
    pub labels: Labels,
    pub noise: Noise,
}

impl Design1 {
    /// Draws `n` rows: features, labels, noise (unless `clean`).
    fn draw(&self, clean: bool, rng: &mut Rng) -> (DMatrix<f64>, Vec<usize>) {
        let x = DMatrix::from_fn(self.n, self.m, |_, _| match self.features {
            Features::Uniform => rng.uniform_in(-5.0, 5.0),
            Features::Normal => rng.normal(),
        });
        let y = (0..self.n)
            .map(|i| {
                let row = x.row(i);
                let p = match self.labels {
                    Labels::Logistic { relevant } => {
                        sigmoid(row.iter().take(relevant).map(|v| 2.0 * v).sum())
                    }
                    Labels::Gaussians => {
                        // ln N(x; 2, I) - ln N(x; -2, 2I), equal priors.
                        let m = self.m as f64;
                        let pos: f64 = row.iter().map(|v| (v - 2.0).powi(2)).sum();
                        let neg: f64 = row.iter().map(|v| (v + 2.0).powi(2)).sum();
                        sigmoid(-0.5 * pos + 0.25 * neg + 0.5 * m * 2f64.ln())
                    }
                };
                let y = usize::from(rng.uniform() < p);
                if clean {
                    return y;
                }
                match self.noise {
                    Noise::Flip { p0, p1 } => {
                        let flip = if y == 0 { p0 } else { p1 };
                        if rng.uniform() < flip { 1 - y } else { y }
                    }
                    Noise::Band => usize::from(y == 1 || row[0] <= -4.0),
                }
            })
            .collect();
        (x, y)
    }
}

fn predict(c: &dyn Classifier, x: &DMatrix<f64>) -> Vec<usize> {
    let p = c.predict_proba(x);
    (0..p.nrows())
        .map(|i| argmax(p.row(i).iter().copied()))
        .collect()
}

fn acc(c: &dyn Classifier, x: &DMatrix<f64>, y: &[usize]) -> f64 {
    accuracy(&predict(c, x), y)
}

/// Logistic regression with an L1 penalty `kappa` on theta (0: none).
fn logistic(x: &DMatrix<f64>, y: &[usize], kappa: f64) -> LogisticClassifier {
    let s = Standardizer::fit(x);
    let t = one_hot(y, 2);
    let prob = Problem {
        x: Design::standardized(x, &s),
        targets: &t,
        offset: None,
        penalty_factor: None,
    };
    let coefs = l1_logistic::fit(&prob, Penalty { l1: kappa, l2: 0.0 }, None, 200, 1e-10);
    LogisticClassifier {
        standardizer: s,
        coefs,
        n_classes: 2,
    }
}

/// The smallest L1 weight that keeps every standardised coefficient at
/// zero (the intercept fitted): max_j |z_j^T (y - mean y)|.
fn kappa_max(x: &DMatrix<f64>, y: &[usize]) -> f64 {
    let z = Standardizer::fit(x).apply(x);
    let mean = y.iter().sum::<usize>() as f64 / y.len() as f64;
    (0..z.ncols())
        .map(|j| {
            z.column(j)
                .iter()
                .zip(y)
                .map(|(v, &t)| v * (t as f64 - mean))
                .sum::<f64>()
                .abs()
        })
        .fold(0.0, f64::max)
}

fn kappa_grid(x: &DMatrix<f64>, y: &[usize], points: usize) -> Vec<f64> {
    let top = kappa_max(x, y);
    (0..points)
        .map(|i| top * 10f64.powf(-3.0 * i as f64 / (points - 1).max(1) as f64))
        .collect()
}

/// The index of the best score (ties: the first, i.e. the larger penalty).
fn best(scores: impl Iterator<Item = f64>) -> usize {
    let mut top = (f64::NEG_INFINITY, 0);
    for (i, s) in scores.enumerate() {
        if s > top.0 + 1e-12 {
            top = (s, i);
        }
    }
    top.1
}

/// Shift-LR along its lambda path at theta penalty `theta` (kappa given
/// for "l1"); the path's classifiers.
fn shift_path(
    x: &DMatrix<f64>,
    y: &[usize],
    theta: &str,
    kappa: Option<f64>,
) -> Result<Vec<(f64, LogisticClassifier)>, FitError> {
    let opts = ModelOptions {
        theta_penalty: theta.into(),
        kappa,
        path_length: 30,
        ..ModelOptions::default()
    };
    ShiftLr::new(&opts)?.path_classifiers(x, y, 2)
}

/// One row of Table 1: test accuracy of standard and robust LR.
#[derive(Clone, Debug, PartialEq)]
pub struct Table1Row {
    pub p0: f64,
    pub p1: f64,
    pub regularised: bool,
    pub standard: Stat,
    pub robust: Stat,
    /// robust - standard over the same draws.
    pub gain: Stat,
    /// The paper's standard and robust accuracy (%), each mean and se.
    pub paper: [f64; 4],
}

/// The paper's Table 1: p0, p1, regularised, then standard and robust
/// accuracy (%) as mean, se, mean, se.
pub const TABLE1: [(f64, f64, bool, [f64; 4]); 7] = [
    (0.0, 0.0, false, [96.56, 0.09, 96.60, 0.10]),
    (0.1, 0.0, false, [93.48, 0.18, 93.58, 0.18]),
    (0.2, 0.0, false, [87.49, 0.24, 89.22, 0.23]),
    (0.3, 0.0, false, [80.40, 0.25, 84.15, 0.28]),
    (0.3, 0.1, false, [84.16, 0.35, 86.63, 0.33]),
    (0.3, 0.0, true, [75.89, 0.50, 76.98, 0.56]),
    (0.3, 0.1, true, [74.98, 0.56, 76.16, 0.57]),
];

/// One draw of an unpenalised row: standard LR and shift with lambda by
/// dev 0-1 loss.
fn unpenalised_draw(d: &Design1, rng: &mut Rng) -> Result<(f64, f64), FitError> {
    let (xtr, ytr) = d.draw(false, rng);
    let (xdev, ydev) = d.draw(false, rng);
    let (xte, yte) = d.draw(true, rng);
    let standard = acc(&logistic(&xtr, &ytr, 0.0), &xte, &yte);
    let path = shift_path(&xtr, &ytr, "none", None)?;
    let k = best(path.iter().map(|(_, c)| acc(c, &xdev, &ydev)));
    Ok((standard, acc(&path[k].1, &xte, &yte)))
}

/// One draw of a regularised row: L1 LR with kappa by dev accuracy; shift
/// with, per kappa, lambda by training accuracy, then kappa by dev accuracy.
fn regularised_draw(d: &Design1, kappas: usize, rng: &mut Rng) -> Result<(f64, f64), FitError> {
    let (xtr, ytr) = d.draw(false, rng);
    let (xdev, ydev) = d.draw(false, rng);
    let (xte, yte) = d.draw(true, rng);
    let grid = kappa_grid(&xtr, &ytr, kappas);
    let plain: Vec<LogisticClassifier> = grid.iter().map(|&k| logistic(&xtr, &ytr, k)).collect();
    let k = best(plain.iter().map(|c| acc(c, &xdev, &ydev)));
    let standard = acc(&plain[k], &xte, &yte);
    let mut robust = Vec::with_capacity(grid.len());
    for &kappa in &grid {
        let path = shift_path(&xtr, &ytr, "l1", Some(kappa))?;
        let l = best(path.iter().map(|(_, c)| acc(c, &xtr, &ytr)));
        robust.push(path.into_iter().nth(l).map(|p| p.1));
    }
    let robust: Vec<LogisticClassifier> = robust.into_iter().flatten().collect();
    let k = best(robust.iter().map(|c| acc(c, &xdev, &ydev)));
    Ok((standard, acc(&robust[k], &xte, &yte)))
}

#[derive(Clone, Debug, PartialEq)]
pub struct Table1 {
    pub repeats: usize,
    pub seed: u64,
    pub n: [usize; 2],
    pub rows: Vec<Table1Row>,
}

impl Table1 {
    pub fn to_table(&self) -> String {
        let mut t = Table::new(&[
            "p0",
            "p1",
            "regularised",
            "standard (%)",
            "robust (%)",
            "robust - standard",
            "paper standard",
            "paper robust",
        ]);
        for r in &self.rows {
            t.push(vec![
                format!("{:.1}", r.p0),
                format!("{:.1}", r.p1),
                (if r.regularised { "yes" } else { "no" }).into(),
                r.standard.pct(),
                r.robust.pct(),
                r.gain.pct(),
                format!("{:.2} ± {:.2}", r.paper[0], r.paper[1]),
                format!("{:.2} ± {:.2}", r.paper[2], r.paper[3]),
            ]);
        }
        format!(
            "Tibshirani & Manning Table 1: features U(-5,5), theta_j = 2, zero intercept; \
             unregularised rows: 10 relevant features, train/dev/test {} each, lambda by dev 0-1 \
             loss; regularised rows: 20 features of which 5 relevant, train/dev/test {} each, L1 \
             theta, kappa by dev accuracy (robust: per kappa the lambda of best training \
             accuracy); noise in train and dev; test accuracy, mean ± standard error over {} \
             repeats; seed {}\n{}",
            self.n[0],
            self.n[1],
            self.repeats,
            self.seed,
            t.render()
        )
    }
}

pub fn table1(
    scale: Scale,
    repeats: Option<usize>,
    seed: u64,
    tick: Tick<'_>,
) -> Result<Table1, FitError> {
    let repeats = repeats.unwrap_or(scale.pick(PAPER_REPEATS, 1));
    let n = scale.pick([500, 100], [40, 40]);
    let kappas = scale.pick(12, 3);
    let mut rows = Vec::new();
    for (i, &(p0, p1, regularised, paper)) in TABLE1.iter().enumerate() {
        tick(
            i as f64 / TABLE1.len() as f64,
            format!(
                "p0 {p0} p1 {p1}{}",
                if regularised { " regularised" } else { "" }
            ),
        );
        let d = if regularised {
            Design1 {
                m: 20,
                n: n[1],
                features: Features::Uniform,
                labels: Labels::Logistic { relevant: 5 },
                noise: Noise::Flip { p0, p1 },
            }
        } else {
            Design1 {
                m: 10,
                n: n[0],
                features: Features::Uniform,
                labels: Labels::Logistic { relevant: 10 },
                noise: Noise::Flip { p0, p1 },
            }
        };
        let mut rng = Rng::new(seed.wrapping_add(i as u64 * 7_919));
        let (mut standard, mut robust) = (Vec::new(), Vec::new());
        for _ in 0..repeats {
            let (s, r) = if regularised {
                regularised_draw(&d, kappas, &mut rng)?
            } else {
                unpenalised_draw(&d, &mut rng)?
            };
            standard.push(s);
            robust.push(r);
        }
        rows.push(Table1Row {
            p0,
            p1,
            regularised,
            standard: Stat::of(&standard),
            robust: Stat::of(&robust),
            gain: Stat::paired(&robust, &standard),
            paper,
        });
    }
    Ok(Table1 {
        repeats,
        seed,
        n,
        rows,
    })
}

/// Appendix B's experiments: name, design (n set by the scale), and the
/// paper's accuracy (%) of baseline, prefiltering, flipping, robust, each
/// mean and se.
pub fn table6_designs(n: usize) -> [(&'static str, Design1, [f64; 8]); 4] {
    let negatives = Noise::Flip { p0: 0.3, p1: 0.0 };
    [
        (
            "1: 50 features U(-5,5)",
            Design1 {
                m: 50,
                n,
                features: Features::Uniform,
                labels: Labels::Logistic { relevant: 50 },
                noise: negatives,
            },
            [79.55, 0.27, 87.00, 0.37, 87.14, 0.13, 81.11, 0.27],
        ),
        (
            "2: 50 features N(0,1)",
            Design1 {
                m: 50,
                n,
                features: Features::Normal,
                labels: Labels::Logistic { relevant: 50 },
                noise: negatives,
            },
            [79.15, 0.27, 86.59, 0.35, 85.00, 0.12, 80.58, 0.27],
        ),
        (
            "3: 1 feature, negatives in [-5,-4] flipped",
            Design1 {
                m: 1,
                n,
                features: Features::Uniform,
                labels: Labels::Logistic { relevant: 1 },
                noise: Noise::Band,
            },
            [87.11, 0.25, 87.11, 0.25, 91.15, 0.16, 91.65, 0.14],
        ),
        (
            "4: 50 features, Gaussian classes",
            Design1 {
                m: 50,
                n,
                features: Features::Uniform,
                labels: Labels::Gaussians,
                noise: negatives,
            },
            [85.95, 0.33, 92.87, 0.56, 90.28, 0.27, 94.10, 0.52],
        ),
    ]
}

/// The methods of Table 6, in order.
pub const TABLE6_METHODS: [&str; 4] = ["baseline", "prefiltering", "flipping", "robust"];

/// One draw of an experiment: test accuracy of the four methods.
fn table6_draw(
    d: &Design1,
    max_k: usize,
    options: &ModelOptions,
    rng: &mut Rng,
) -> Result<[f64; 4], FitError> {
    let (xtr, ytr) = d.draw(false, rng);
    let (xdev, ydev) = d.draw(false, rng);
    let (xte, yte) = d.draw(true, rng);
    let baseline = logistic(&xtr, &ytr, 0.0);
    // Prefilter: k on dev (k = 1 keeps every row: the baseline).
    let filtered: Vec<LogisticClassifier> = (1..=max_k)
        .map(|k| {
            let kept = knn_prefilter(&xtr, &ytr, k);
            let labels: Vec<usize> = kept.iter().map(|&i| ytr[i]).collect();
            // A filter that leaves one class empty cannot train.
            if labels.iter().all(|&l| l == labels[0]) {
                baseline.clone()
            } else {
                logistic(&xtr.select_rows(&kept), &labels, 0.0)
            }
        })
        .collect();
    let k = best(filtered.iter().map(|c| acc(c, &xdev, &ydev)));
    let flipping = Rlr::robust(options)?.fit(&xtr, &ytr, 2, &mut no_progress())?;
    let flipping = flipping
        .classifier
        .as_ref()
        .map_or(f64::NAN, |c| acc(c.as_ref(), &xte, &yte));
    let path = shift_path(&xtr, &ytr, "none", None)?;
    let l = best(path.iter().map(|(_, c)| acc(c, &xdev, &ydev)));
    Ok([
        acc(&baseline, &xte, &yte),
        acc(&filtered[k], &xte, &yte),
        flipping,
        acc(&path[l].1, &xte, &yte),
    ])
}

#[derive(Clone, Debug, PartialEq)]
pub struct Table6 {
    pub repeats: usize,
    pub seed: u64,
    /// The flipping model's fixed L1 weight (`--opt lambda`), or `None`
    /// for its Bayesian rule.
    pub lambda: Option<f64>,
    pub n: usize,
    /// Per experiment: name, accuracy per method, the paper's figures.
    pub rows: Vec<(String, [Stat; 4], [f64; 8])>,
}

impl Table6 {
    pub fn to_table(&self) -> String {
        let mut header = vec!["experiment"];
        for m in TABLE6_METHODS {
            header.push(m);
        }
        for m in [
            "paper baseline",
            "paper prefiltering",
            "paper flipping",
            "paper robust",
        ] {
            header.push(m);
        }
        let mut t = Table::new(&header);
        for (name, stats, paper) in &self.rows {
            let mut row = vec![name.clone()];
            row.extend(stats.iter().map(Stat::pct));
            row.extend((0..4).map(|m| format!("{:.2} ± {:.2}", paper[2 * m], paper[2 * m + 1])));
            t.push(row);
        }
        format!(
            "Tibshirani & Manning Appendix B Table 6: train/dev/test {} each, negatives flipped \
             with probability 0.3 in train and dev unless stated; theta_j = 2, zero intercept; \
             baseline = unpenalised LR; prefiltering = drop a row any of whose k-1 nearest \
             neighbours disagrees, k in 1..=10 by dev accuracy, then LR; flipping = relabel's rlr \
             ({}); robust = shift, theta unpenalised, lambda by dev 0-1 loss; test \
             accuracy, mean ± standard error over {} repeats; seed {}\n{}",
            self.n,
            self.lambda.map_or_else(
                || "defaults: the Bayesian L1 rule".to_string(),
                |l| format!("L1 weight fixed at {l}")
            ),
            self.repeats,
            self.seed,
            t.render()
        )
    }
}

/// `flipping` reads the curator's `--opt` (rlr's options; the seed is
/// also the experiment's).
pub fn table6(
    scale: Scale,
    repeats: Option<usize>,
    flipping: &ModelOptions,
    tick: Tick<'_>,
) -> Result<Table6, FitError> {
    let seed = flipping.seed;
    let repeats = repeats.unwrap_or(scale.pick(PAPER_REPEATS, 1));
    let n = scale.pick(500, 40);
    let max_k = scale.pick(10, 2);
    let designs = table6_designs(n);
    let mut rows = Vec::new();
    for (e, (name, d, paper)) in designs.iter().enumerate() {
        tick(
            e as f64 / designs.len() as f64,
            format!("experiment {}", e + 1),
        );
        let mut rng = Rng::new(seed.wrapping_add(e as u64 * 104_729));
        let mut acc: [Vec<f64>; 4] = Default::default();
        for _ in 0..repeats {
            for (m, a) in table6_draw(d, max_k, flipping, &mut rng)?
                .into_iter()
                .enumerate()
            {
                acc[m].push(a);
            }
        }
        rows.push(((*name).to_string(), acc.map(|a| Stat::of(&a)), *paper));
    }
    Ok(Table6 {
        repeats,
        seed,
        lambda: flipping.lambda,
        n,
        rows,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::eval::paper_table::silent;

    #[test]
    fn one_sided_noise_is_generated_at_the_asked_rate() {
        let d = Design1 {
            m: 10,
            n: 4000,
            features: Features::Uniform,
            labels: Labels::Logistic { relevant: 10 },
            noise: Noise::Flip { p0: 0.3, p1: 0.0 },
        };
        let mut rng = Rng::new(2);
        let (x, y) = d.draw(false, &mut rng);
        let clean_zero = (0..4000)
            .filter(|&i| (0..10).map(|j| 2.0 * x[(i, j)]).sum::<f64>() < -5.0)
            .collect::<Vec<_>>();
        let flipped =
            clean_zero.iter().filter(|&&i| y[i] == 1).count() as f64 / clean_zero.len() as f64;
        assert!((flipped - 0.3).abs() < 0.05, "{flipped}");
    }

    #[test]
    fn the_band_noise_labels_every_row_below_minus_four_positive() {
        let d = table6_designs(2000)[2].1;
        let (x, y) = d.draw(false, &mut Rng::new(3));
        assert!((0..2000).filter(|&i| x[(i, 0)] <= -4.0).all(|i| y[i] == 1));
        let (x, y) = d.draw(true, &mut Rng::new(3));
        assert!((0..2000).any(|i| x[(i, 0)] <= -4.0 && y[i] == 0));
    }

    #[test]
    fn the_kappa_grid_starts_where_theta_is_all_zero() {
        let d = Design1 {
            m: 5,
            n: 200,
            features: Features::Uniform,
            labels: Labels::Logistic { relevant: 2 },
            noise: Noise::Flip { p0: 0.0, p1: 0.0 },
        };
        let (x, y) = d.draw(true, &mut Rng::new(4));
        let grid = kappa_grid(&x, &y, 4);
        let at = |k: f64| {
            logistic(&x, &y, k)
                .coefs
                .beta
                .iter()
                .filter(|v| v.abs() > 1e-9)
                .count()
        };
        assert!(at(1.01 * grid[0]) <= 2, "{}", at(1.01 * grid[0]));
        assert!(at(grid[3]) >= 2);
    }

    #[test]
    fn smoke_runs_fill_both_tables() {
        let t1 = table1(Scale::Smoke, None, 1, &silent).unwrap();
        assert_eq!(t1.rows.len(), 7);
        assert!(t1.rows[0].standard.mean > 0.8, "{:?}", t1.rows[0]);
        assert!(t1.to_table().contains("paper robust"));
        let options = ModelOptions {
            seed: 1,
            ..ModelOptions::default()
        };
        let t6 = table6(Scale::Smoke, None, &options, &silent).unwrap();
        assert_eq!(t6.rows.len(), 4);
        for (_, s, _) in &t6.rows {
            assert!(s.iter().all(|a| (0.0..=1.0).contains(&a.mean)), "{s:?}");
        }
    }
}
