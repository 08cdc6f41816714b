//! shift's penalty on theta for a wide table, chosen by cross-validation.
//!
//! Tibshirani & Manning penalise theta by L1 on their microarray table
//! (section 4.2) and by a Gaussian prior on their NLP data (section 4.3),
//! and tune its weight by cross-validating the plain model first (section
//! 4.3: "first tuning sigma using standard logistic regression, fixing this
//! choice, then tuning lambda"). Which of the two suits a table is a
//! property of its signal: a few informative genes among thousands (the
//! lasso's case; a ridge spreads its weight over the noise and ranks at
//! chance) or many weak correlated ones (the ridge's; a lasso keeps an
//! arbitrary few, Zou & Hastie 2005). So both families are one grid here,
//! and the point whose fits on the other folds give each row's given label
//! the highest mean log-likelihood is taken: selection by cross-validated
//! log score, the criterion the ridge's kappa already had. The class
//! shares' score is computed alongside, for the report.

use nalgebra::DMatrix;

use super::l1_logistic::{self, Coefs, Design, Penalty, Problem, neg_log_likelihood};
use super::ridge_logistic;
use crate::models::standardize::Standardizer;

/// The lasso's grid runs from the kappa at which every weight is zero
/// down to this fraction of it: glmnet's `lambda.min.ratio` where the
/// features outnumber the rows (Friedman, Hastie & Tibshirani 2010).
const L1_GRID_RATIO: f64 = 0.01;
/// Points of the lasso's grid, evenly spaced in log kappa (a tenth of a
/// decade apart).
const L1_GRID_POINTS: usize = 21;

/// A penalty family theta may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    L1,
    L2,
}

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Self::L1 => "L1",
            Self::L2 => "L2",
        }
    }

    fn penalty(self, kappa: f64) -> Penalty {
        match self {
            Self::L1 => Penalty { l1: kappa, l2: 0.0 },
            Self::L2 => Penalty { l1: 0.0, l2: kappa },
        }
    }
}

/// The penalty chosen, with what chose it.
#[derive(Clone, Debug)]
pub struct ThetaChoice {
    pub family: Family,
    pub kappa: f64,
    /// Mean held-out log-likelihood of the given labels per row at the
    /// chosen point, at the other family's best point (None when only one
    /// family was on the grid), and under the class shares.
    pub score: f64,
    pub other: Option<f64>,
    pub baseline: f64,
    /// Every row's class probabilities from the fit without its fold, at
    /// the chosen point.
    pub held_out: DMatrix<f64>,
}

impl ThetaChoice {
    pub fn penalty(&self) -> Penalty {
        self.family.penalty(self.kappa)
    }

    /// One sentence for the report.
    pub fn note(&self, folds: usize) -> String {
        let other = match (self.other, self.family) {
            (Some(o), Family::L1) => format!(", the best L2 {o:.3}"),
            (Some(o), Family::L2) => format!(", the best L1 {o:.3}"),
            (None, _) => String::new(),
        };
        format!(
            "theta penalised by {} with kappa {:.4}, chosen by {folds}-fold cross-validated \
             log-likelihood of the given labels ({:.3} per row{other}; the class shares {:.3})",
            self.family.name(),
            self.kappa,
            self.score,
            self.baseline,
        )
    }
}

/// The point of `families`' grids with the best cross-validated
/// log-likelihood of `targets` (one-hot given labels) on `x` scaled by
/// `scaling`, over `test_folds`.
pub fn choose(
    x: &DMatrix<f64>,
    scaling: &Standardizer,
    targets: &DMatrix<f64>,
    test_folds: &[Vec<usize>],
    families: &[Family],
) -> ThetaChoice {
    let z = Design::standardized(x, scaling);
    let mut best: Option<(Family, f64, f64, DMatrix<f64>)> = None;
    let mut best_of = Vec::new();
    for &family in families {
        let kappas = grid(family, z, targets);
        let held_out = cross_fitted_path(x, scaling, targets, family, &kappas, test_folds);
        let mut family_best = f64::NEG_INFINITY;
        for (kappa, probs) in kappas.into_iter().zip(held_out) {
            let score = mean_log_likelihood(&probs, targets);
            family_best = family_best.max(score);
            if best.as_ref().is_none_or(|b| score > b.2) {
                best = Some((family, kappa, score, probs));
            }
        }
        best_of.push((family, family_best));
    }
    let (family, kappa, score, held_out) = best.expect("at least one family");
    let other = best_of
        .iter()
        .filter(|(f, _)| *f != family)
        .map(|(_, s)| *s)
        .next();
    ThetaChoice {
        family,
        kappa,
        score,
        other,
        baseline: class_share_score(targets, test_folds),
        held_out,
    }
}

/// Every row's class probabilities from theta fitted under `pen` without
/// the row's fold.
pub fn cross_fitted(
    x: &DMatrix<f64>,
    scaling: &Standardizer,
    targets: &DMatrix<f64>,
    pen: Penalty,
    test_folds: &[Vec<usize>],
) -> DMatrix<f64> {
    let (family, kappa) = if pen.l1 > 0.0 || pen.l2 == 0.0 {
        (Family::L1, pen.l1)
    } else {
        (Family::L2, pen.l2)
    };
    cross_fitted_path(x, scaling, targets, family, &[kappa], test_folds).remove(0)
}

/// A family's kappas, weakest penalty last.
fn grid(family: Family, z: Design<'_>, targets: &DMatrix<f64>) -> Vec<f64> {
    match family {
        Family::L2 => {
            let mut kappas = ridge_logistic::kappa_grid(z.ncols());
            kappas.reverse();
            kappas
        }
        Family::L1 => {
            let top = l1_logistic::lambda_max(&Problem {
                x: z,
                targets,
                offset: None,
                penalty_factor: None,
            });
            (0..L1_GRID_POINTS)
                .map(|i| top * L1_GRID_RATIO.powf(i as f64 / (L1_GRID_POINTS - 1) as f64))
                .collect()
        }
    }
}

/// Held-out probabilities at each of `kappas` (see
/// [`ridge_logistic::cross_fitted_path`]; the lasso's folds likewise walk
/// the kappas warm-started, each kappa times the fold's share of rows).
fn cross_fitted_path(
    x: &DMatrix<f64>,
    scaling: &Standardizer,
    targets: &DMatrix<f64>,
    family: Family,
    kappas: &[f64],
    test_folds: &[Vec<usize>],
) -> Vec<DMatrix<f64>> {
    use rayon::prelude::*;
    let (n, k) = (x.nrows(), targets.ncols());
    let z = Design::standardized(x, scaling);
    if family == Family::L2 && ridge_logistic::applies(n, x.ncols(), k) {
        let mut ridge = kappas.to_vec();
        ridge.reverse();
        let mut out = ridge_logistic::cross_fitted_path(z, targets, &ridge, test_folds);
        out.reverse();
        return out;
    }
    let per_fold: Vec<Vec<DMatrix<f64>>> = test_folds
        .par_iter()
        .map(|test| {
            let mut in_test = vec![false; n];
            test.iter().for_each(|&i| in_test[i] = true);
            let train: Vec<usize> = (0..n).filter(|&i| !in_test[i]).collect();
            let (x_train, x_test) = (x.select_rows(&train), x.select_rows(test));
            let t_train = targets.select_rows(&train);
            let problem = Problem {
                x: Design::standardized(&x_train, scaling),
                targets: &t_train,
                offset: None,
                penalty_factor: None,
            };
            let z_test = Design::standardized(&x_test, scaling);
            let share = train.len() as f64 / n as f64;
            let mut warm: Option<Coefs> = None;
            kappas
                .iter()
                .map(|&kappa| {
                    let pen = family.penalty(kappa * share);
                    let coefs = l1_logistic::fit(&problem, pen, warm.as_ref(), 100, 1e-10);
                    let probs = l1_logistic::probabilities(
                        &l1_logistic::linear_on(&z_test, &coefs, None),
                        k,
                    );
                    warm = Some(coefs);
                    probs
                })
                .collect()
        })
        .collect();
    ridge_logistic::held_out_per_grid_point(n, k, test_folds, &per_fold, kappas.len())
}

fn mean_log_likelihood(probs: &DMatrix<f64>, targets: &DMatrix<f64>) -> f64 {
    -neg_log_likelihood(probs, targets) / targets.nrows().max(1) as f64
}

/// The mean held-out log-likelihood of the class shares of the other
/// folds (each share counted from one, so a class a fold's training rows
/// lack is not impossible).
fn class_share_score(targets: &DMatrix<f64>, test_folds: &[Vec<usize>]) -> f64 {
    let (n, k) = (targets.nrows(), targets.ncols());
    let totals: Vec<f64> = (0..k).map(|c| targets.column(c).sum()).collect();
    let mut sum = 0.0;
    for test in test_folds {
        let mut counts = totals.clone();
        for &i in test {
            for (c, count) in counts.iter_mut().enumerate() {
                *count -= targets[(i, c)];
            }
        }
        let total: f64 = counts.iter().sum::<f64>() + k as f64;
        for &i in test {
            for (c, count) in counts.iter().enumerate() {
                if targets[(i, c)] > 0.0 {
                    sum += targets[(i, c)] * ((count + 1.0) / total).ln();
                }
            }
        }
    }
    sum / n.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::numerics::one_hot;
    use crate::rng::Rng;

    /// `n` rows of `p` standard normal features, labels from a logistic
    /// model on the first `informative` features with total logit sd 3.
    fn table(n: usize, p: usize, informative: usize, seed: u64) -> (DMatrix<f64>, Vec<usize>) {
        let mut rng = Rng::new(seed);
        let x = DMatrix::from_fn(n, p, |_, _| rng.normal());
        let weight = 3.0 / (informative as f64).sqrt();
        let given = (0..n)
            .map(|i| {
                let eta: f64 = (0..informative).map(|j| weight * x[(i, j)]).sum();
                usize::from(rng.uniform() < crate::models::numerics::sigmoid(eta))
            })
            .collect();
        (x, given)
    }

    fn folds(n: usize) -> Vec<Vec<usize>> {
        (0..5).map(|f| (f..n).step_by(5).collect()).collect()
    }

    fn chosen(informative: usize) -> ThetaChoice {
        let (x, given) = table(80, 400, informative, 3);
        let s = Standardizer::fit(&x);
        choose(
            &x,
            &s,
            &one_hot(&given, 2),
            &folds(80),
            &[Family::L1, Family::L2],
        )
    }

    #[test]
    fn a_few_informative_features_take_the_lasso_many_take_the_ridge() {
        let sparse = chosen(3);
        assert_eq!(sparse.family, Family::L1, "{}", sparse.note(5));
        assert!(sparse.score > sparse.other.expect("the other penalty was scored"));
        let dense = chosen(200);
        assert_eq!(dense.family, Family::L2, "{}", dense.note(5));
        // Both beat the class shares: the labels do depend on x.
        assert!(sparse.score > sparse.baseline && dense.score > dense.baseline);
    }

    #[test]
    fn the_held_out_probabilities_are_the_chosen_points_fits_without_each_fold() {
        let (x, given) = table(60, 200, 3, 4);
        let s = Standardizer::fit(&x);
        let targets = one_hot(&given, 2);
        let c = choose(&x, &s, &targets, &folds(60), &[Family::L1]);
        let again = cross_fitted(&x, &s, &targets, c.penalty(), &folds(60));
        // Warm starts along the grid reach the same optimum as a cold fit.
        assert!((&c.held_out - &again).amax() < 1e-4);
        assert!((mean_log_likelihood(&c.held_out, &targets) - c.score).abs() < 1e-12);
    }

    #[test]
    fn the_class_shares_score_is_each_folds_smoothed_share() {
        let given = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0];
        let targets = one_hot(&given, 2);
        let folds = vec![vec![0, 1, 2, 3, 4], vec![5, 6, 7, 8, 9]];
        // Each fold's training rows hold 4 of class 0 and 1 of class 1:
        // shares (4 + 1) / 7 and (1 + 1) / 7.
        let expected = (8.0 * (5.0f64 / 7.0).ln() + 2.0 * (2.0f64 / 7.0).ln()) / 10.0;
        assert!((class_share_score(&targets, &folds) - expected).abs() < 1e-12);
    }
}
