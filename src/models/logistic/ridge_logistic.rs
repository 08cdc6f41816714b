//! L2-penalised logistic regression on a wide table, solved in the space
//! of its rows.
//!
//! With a Gaussian prior on theta (Tibshirani & Manning section 4, penalty
//! kappa / 2 ||theta||^2) the optimum lies in the span of the rows: at it
//! Z^T R + kappa W = 0, R = P - T the residuals, so W = Z^T A with
//! A = -R / kappa. With p >= n features the n x C coefficients A are far
//! fewer than the p x C of W, and Newton's method on them converges in a
//! handful of steps where coordinate descent over thousands of correlated
//! genes crawled (4 s on 49 x 7129, every coordinate active under an L2
//! penalty). The equations solved are
//!
//!   R(G A + 1 b^T) + kappa A = 0,  1^T R = 0,  G = Z Z^T,
//!
//! whose Jacobian J satisfies H = diag(G, I) J for the Hessian H of the
//! objective in (A, b): J's Newton step is a Newton step of the convex
//! objective, so backtracking on that objective keeps every step a
//! descent even where G is singular (standardised columns make G 1 = 0).
//! The intercepts are unpenalised; with a softmax the last class's is held
//! at zero, which fixes the one direction the probabilities do not see.

use nalgebra::{DMatrix, DVector};

use super::l1_logistic::{Coefs, Design, Penalty, neg_log_likelihood, probabilities};

/// Largest system (rows x logits, plus intercepts) solved directly. Its
/// LU factorisation costs (n C)^3 / 3 per Newton step, and choosing kappa
/// takes some 200 of them (5 folds x 9 grid points x a few steps): 1.5 s
/// for 300 x 600, 13 s for 700 x 1000 (L1 there: 0.2 and 0.5 s).
pub const MAX_UNKNOWNS: usize = 500;

/// Whether the row-space solver takes a problem of `n` rows, `p` features
/// and `k` classes: it pays where the features outnumber the rows.
pub fn applies(n: usize, p: usize, k: usize) -> bool {
    let c = if k == 2 { 1 } else { k };
    p >= n && n * c + c <= MAX_UNKNOWNS
}

/// Whether a theta under `pen` on `n` rows, `p` features and `k` classes
/// is fitted here: a pure ridge where [`applies`].
pub fn takes(pen: Penalty, n: usize, p: usize, k: usize) -> bool {
    pen.l1 == 0.0 && pen.l2 > 0.0 && applies(n, p, k)
}

/// The fit and whether Newton's method met `tol` on the largest
/// stationarity residual per sample.
pub struct RidgeFit {
    pub coefs: Coefs,
    pub converged: bool,
}

/// Minimises sum_i -log P(t_i | z_i) + kappa / 2 ||W||^2 over W (p x C)
/// and unpenalised intercepts, for soft targets `targets` (n x K).
pub fn fit(
    z: Design<'_>,
    targets: &DMatrix<f64>,
    kappa: f64,
    max_iter: usize,
    tol: f64,
) -> RidgeFit {
    let g = gram(z);
    let solved = solve(&g, targets, kappa, None, max_iter, tol);
    RidgeFit {
        coefs: in_features(z, &solved),
        converged: solved.converged,
    }
}

/// A solution in the rows' space: W = Z^T a, intercepts b.
#[derive(Clone, Debug)]
pub struct Solved {
    pub a: DMatrix<f64>,
    pub b: Vec<f64>,
    pub converged: bool,
}

impl Solved {
    /// Linear predictors of rows whose kernel values against the training
    /// rows are `cross` (rows x training rows).
    pub fn linear(&self, cross: &DMatrix<f64>) -> DMatrix<f64> {
        let ga = cross * &self.a;
        DMatrix::from_fn(ga.nrows(), ga.ncols(), |i, j| ga[(i, j)] + self.b[j])
    }
}

/// The coefficients on the features of a solution on `z`'s rows.
pub fn in_features(z: Design<'_>, solved: &Solved) -> Coefs {
    let c = solved.a.ncols();
    let mut beta = DMatrix::zeros(z.ncols(), c);
    for j in 0..c {
        let col = solved.a.column(j);
        let col = col.as_slice();
        let sum: f64 = col.iter().sum();
        for f in 0..z.ncols() {
            beta[(f, j)] = z.dot_given_sum(f, col, sum);
        }
    }
    Coefs {
        intercept: solved.b.clone(),
        beta,
    }
}

/// Newton's method on the stationarity equations for the kernel matrix
/// `g` of the training rows, from `start` (a neighbouring kappa's answer)
/// or zero.
pub fn solve(
    g: &DMatrix<f64>,
    targets: &DMatrix<f64>,
    kappa: f64,
    start: Option<&Solved>,
    max_iter: usize,
    tol: f64,
) -> Solved {
    let (n, k) = (g.nrows(), targets.ncols());
    let c = if k == 2 { 1 } else { k };
    let free_b = if k == 2 { 1 } else { k - 1 };
    let (mut a, mut b) = match start {
        Some(s) => (s.a.clone(), s.b.clone()),
        None => (DMatrix::<f64>::zeros(n, c), vec![0.0; c]),
    };
    let objective = |a: &DMatrix<f64>, b: &[f64]| -> (f64, DMatrix<f64>) {
        let ga = g * a;
        let eta = DMatrix::from_fn(n, c, |i, j| ga[(i, j)] + b[j]);
        let probs = probabilities(&eta, k);
        let nll = neg_log_likelihood(&probs, targets);
        (nll + 0.5 * kappa * a.dot(&ga), probs)
    };
    let (mut value, mut probs) = objective(&a, &b);
    let mut converged = false;
    for _ in 0..max_iter {
        let r = residuals(&probs, targets, c);
        // Stationarity: R + kappa A per row and logit, 1^T R per intercept.
        let mut phi = DVector::zeros(n * c + free_b);
        for j in 0..c {
            for i in 0..n {
                phi[j * n + i] = r[(i, j)] + kappa * a[(i, j)];
            }
        }
        for j in 0..free_b {
            phi[n * c + j] = r.column(j).sum();
        }
        if phi.amax() <= tol * (1.0 + kappa) {
            converged = true;
            break;
        }
        let jac = jacobian(g, &probs, kappa, k, c, free_b);
        let Some(step) = jac.lu().solve(&(-&phi)) else {
            break;
        };
        let mut t = 1.0;
        let mut moved = false;
        for _ in 0..40 {
            let na = DMatrix::from_fn(n, c, |i, j| a[(i, j)] + t * step[j * n + i]);
            let nb: Vec<f64> = (0..c)
                .map(|j| b[j] + if j < free_b { t * step[n * c + j] } else { 0.0 })
                .collect();
            let (v, pr) = objective(&na, &nb);
            if v.is_finite() && v <= value + 1e-12 * value.abs().max(1.0) {
                (a, b, value, probs) = (na, nb, v, pr);
                moved = true;
                break;
            }
            t *= 0.5;
        }
        if !moved {
            break;
        }
    }
    Solved { a, b, converged }
}

/// Points of the kappa grid, as multiples of the number of features: with
/// standardised features and kappa = c p, a row's linear predictor has
/// prior standard deviation about 1 / sqrt(c), so the grid runs from a
/// prior that hardly constrains it (sd 30) to one that hardly lets it
/// leave a coin's odds (sd 0.3), in half decades.
/// Exponents (base 10) of the grid's multiples.
const KAPPA_GRID: [f64; 9] = [-3.0, -2.5, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0];

/// The kappa grid for `p` features (see [`KAPPA_GRID`]), weakest prior
/// first.
pub fn kappa_grid(p: usize) -> Vec<f64> {
    KAPPA_GRID
        .iter()
        .map(|e| 10f64.powf(*e) * p as f64)
        .collect()
}

/// Every row's class probabilities from the fits without its fold (every
/// row is in one of `test_folds`), at each of `kappas` in turn. The kernel
/// of every row against every other is formed once; each fold's fits walk
/// the kappas warm-started from the previous one. A fold's kappa is the
/// given one times its share of the rows: the penalty is on a sum over
/// rows, so that keeps the prior's weight per row that of the fit on every
/// row.
pub fn cross_fitted_path(
    z: Design<'_>,
    targets: &DMatrix<f64>,
    kappas: &[f64],
    test_folds: &[Vec<usize>],
) -> Vec<DMatrix<f64>> {
    use rayon::prelude::*;
    let (n, k) = (z.nrows(), targets.ncols());
    let g = gram(z);
    let per_fold: Vec<Vec<DMatrix<f64>>> = test_folds
        .par_iter()
        .map(|test| {
            let (train, g_train, cross) = split(&g, test);
            let t_train = targets.select_rows(&train);
            let share = train.len() as f64 / n as f64;
            let mut warm: Option<Solved> = None;
            kappas
                .iter()
                .map(|&kappa| {
                    let solved = solve(&g_train, &t_train, kappa * share, warm.as_ref(), 100, 1e-9);
                    let probs = probabilities(&solved.linear(&cross), k);
                    warm = Some(solved);
                    probs
                })
                .collect()
        })
        .collect();
    held_out_per_grid_point(n, k, test_folds, &per_fold, kappas.len())
}

/// Each grid point's held-out probabilities on every row, from the
/// folds' predictions on their own test rows (`per_fold[fold][point]`).
pub(super) fn held_out_per_grid_point(
    n: usize,
    k: usize,
    test_folds: &[Vec<usize>],
    per_fold: &[Vec<DMatrix<f64>>],
    points: usize,
) -> Vec<DMatrix<f64>> {
    (0..points)
        .map(|g| {
            let mut out = DMatrix::zeros(n, k);
            for (test, fold) in test_folds.iter().zip(per_fold) {
                for (r, &i) in test.iter().enumerate() {
                    out.set_row(i, &fold[g].row(r));
                }
            }
            out
        })
        .collect()
}

/// The training rows of a fold held out as `test`, their kernel block and
/// the test rows' kernel values against them.
fn split(g: &DMatrix<f64>, test: &[usize]) -> (Vec<usize>, DMatrix<f64>, DMatrix<f64>) {
    let mut in_test = vec![false; g.nrows()];
    test.iter().for_each(|&i| in_test[i] = true);
    let train: Vec<usize> = (0..g.nrows()).filter(|&i| !in_test[i]).collect();
    let g_train = g.select_rows(&train).select_columns(&train);
    let cross = g.select_rows(test).select_columns(&train);
    (train, g_train, cross)
}

/// G = Z Z^T, one column of the (virtually standardised) design at a time.
pub fn gram(z: Design<'_>) -> DMatrix<f64> {
    let n = z.nrows();
    let mut g = DMatrix::zeros(n, n);
    let mut col = vec![0.0; n];
    for f in 0..z.ncols() {
        col.iter_mut().for_each(|v| *v = 0.0);
        z.axpy(f, 1.0, &mut col);
        for j in 0..n {
            let cj = col[j];
            if cj == 0.0 {
                continue;
            }
            for i in j..n {
                g[(i, j)] += col[i] * cj;
            }
        }
    }
    g.fill_upper_triangle_with_lower_triangle();
    g
}

/// P - T for the C logits (binary: the positive class's column).
fn residuals(probs: &DMatrix<f64>, targets: &DMatrix<f64>, c: usize) -> DMatrix<f64> {
    let n = probs.nrows();
    if c == 1 {
        DMatrix::from_fn(n, 1, |i, _| probs[(i, 1)] - targets[(i, 1)])
    } else {
        probs - targets
    }
}

/// The Jacobian of the stationarity equations in (A, free intercepts):
/// S G + kappa I and S 1 above, 1^T S G and 1^T S 1 below, S the
/// per-row softmax curvature (p (1 - p) when binary).
fn jacobian(
    g: &DMatrix<f64>,
    probs: &DMatrix<f64>,
    kappa: f64,
    k: usize,
    c: usize,
    free_b: usize,
) -> DMatrix<f64> {
    let n = g.nrows();
    let m = n * c + free_b;
    let mut jac = DMatrix::zeros(m, m);
    // dR_ij / deta_il, the softmax curvature of row i.
    let s = |i: usize, j: usize, l: usize| -> f64 {
        if k == 2 {
            probs[(i, 1)] * probs[(i, 0)]
        } else {
            let pj = probs[(i, j)];
            (if j == l { pj } else { 0.0 }) - pj * probs[(i, l)]
        }
    };
    // Row `row` of J gains row i's curvature for logit j: S_i[j, l] times
    // G's row i in logit l's block, and S_i[j, l] in intercept l's column.
    let add_curvature = |jac: &mut DMatrix<f64>, row: usize, i: usize, j: usize| {
        for l in 0..c {
            let sijl = s(i, j, l);
            if sijl == 0.0 {
                continue;
            }
            for m2 in 0..n {
                jac[(row, l * n + m2)] += sijl * g[(i, m2)];
            }
            if l < free_b {
                jac[(row, n * c + l)] += sijl;
            }
        }
    };
    for i in 0..n {
        for j in 0..c {
            let row = j * n + i;
            add_curvature(&mut jac, row, i, j);
            jac[(row, row)] += kappa;
        }
    }
    // The intercepts' rows sum their logit's rows over the samples.
    for j in 0..free_b {
        for i in 0..n {
            add_curvature(&mut jac, n * c + j, i, j);
        }
    }
    jac
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::logistic::l1_logistic::{self, Penalty, Problem};
    use crate::models::standardize::Standardizer;
    use crate::rng::Rng;

    /// A wide table: n rows, p features, labels from the first feature
    /// with some flipped.
    fn wide(n: usize, p: usize, k: usize, seed: u64) -> (DMatrix<f64>, DMatrix<f64>) {
        let mut rng = Rng::new(seed);
        let x = DMatrix::from_fn(n, p, |_, _| rng.normal());
        let targets = DMatrix::from_fn(n, k, |i, j| {
            let class = ((x[(i, 0)] + x[(i, 1)]).abs() * k as f64 / 3.0) as usize % k;
            f64::from(u8::from(class == j))
        });
        (x, targets)
    }

    fn objective(z: Design<'_>, targets: &DMatrix<f64>, coefs: &Coefs, kappa: f64) -> f64 {
        let p = Problem {
            x: z,
            targets,
            offset: None,
            penalty_factor: None,
        };
        l1_logistic::objective(&p, coefs, Penalty { l1: 0.0, l2: kappa })
    }

    #[test]
    fn meets_the_coordinate_descent_optimum_binary_and_softmax() {
        for (k, seed) in [(2, 1), (3, 2)] {
            let (x, targets) = wide(30, 80, k, seed);
            let s = Standardizer::fit(&x);
            let z = Design::standardized(&x, &s);
            let kappa = 1.0;
            let ours = fit(z, &targets, kappa, 50, 1e-10);
            assert!(ours.converged, "k = {k}");
            let problem = Problem {
                x: z,
                targets: &targets,
                offset: None,
                penalty_factor: None,
            };
            let cd = l1_logistic::fit(&problem, Penalty { l1: 0.0, l2: kappa }, None, 2000, 1e-13);
            let (a, b) = (
                objective(z, &targets, &ours.coefs, kappa),
                objective(z, &targets, &cd, kappa),
            );
            // The optimum is unique: ours is at it (never above the
            // coordinate-descent answer by more than its tolerance).
            assert!(a <= b + 1e-6, "k = {k}: {a} vs {b}");
            let pa = l1_logistic::probabilities(&l1_logistic::linear(&problem, &ours.coefs), k);
            let pb = l1_logistic::probabilities(&l1_logistic::linear(&problem, &cd), k);
            assert!((pa - pb).amax() < 1e-4, "k = {k}");
        }
    }

    /// n rows of p standard normal features; labels drawn from a logistic
    /// model whose coefficients spread over every feature with total
    /// signal `signal` (the logit's standard deviation).
    fn dense_logistic(n: usize, p: usize, signal: f64, seed: u64) -> (DMatrix<f64>, DMatrix<f64>) {
        let mut rng = Rng::new(seed);
        let x = DMatrix::from_fn(n, p, |_, _| rng.normal());
        let theta: Vec<f64> = (0..p)
            .map(|_| rng.normal() * signal / (p as f64).sqrt())
            .collect();
        let targets = DMatrix::from_fn(n, 2, |_, _| 0.0);
        let mut targets = targets;
        for i in 0..n {
            let eta: f64 = (0..p).map(|j| theta[j] * x[(i, j)]).sum();
            let y = usize::from(rng.uniform() < crate::models::numerics::sigmoid(eta));
            targets[(i, y)] = 1.0;
        }
        (x, targets)
    }

    fn folds(n: usize, k: usize) -> Vec<Vec<usize>> {
        (0..k).map(|f| (f..n).step_by(k).collect()).collect()
    }

    #[test]
    fn cross_validation_shrinks_more_where_the_labels_carry_less_signal() {
        let (n, p) = (80, 200);
        let kappa_at = |signal: f64| {
            let (x, targets) = dense_logistic(n, p, signal, 5);
            let s = Standardizer::fit(&x);
            let z = Design::standardized(&x, &s);
            let grid = kappa_grid(p);
            let held_out = cross_fitted_path(z, &targets, &grid, &folds(n, 5));
            let scores: Vec<f64> = held_out
                .iter()
                .map(|probs| -neg_log_likelihood(probs, &targets))
                .collect();
            grid[crate::models::argmax(scores)]
        };
        let (strong, none) = (kappa_at(8.0), kappa_at(0.0));
        // Labels that ignore x are best predicted by a coin: the most
        // shrunk point; a strong dense signal wants a weaker prior.
        assert_eq!(none, 10.0 * p as f64);
        assert!(strong < none / 10.0, "strong {strong}, none {none}");
    }

    #[test]
    fn cross_fitted_rows_are_predicted_by_the_fit_without_their_fold() {
        let (x, mut targets) = dense_logistic(60, 150, 8.0, 6);
        // Flip every fifth label: a fit on every row bends to each of them
        // (it separates them all), the fit without the row's fold does not.
        let flipped: Vec<usize> = (0..60).step_by(5).collect();
        for &i in &flipped {
            targets.swap((i, 0), (i, 1));
        }
        let s = Standardizer::fit(&x);
        let z = Design::standardized(&x, &s);
        let kappa = 0.1 * 150.0;
        let all = fit(z, &targets, kappa, 100, 1e-10);
        let problem = Problem {
            x: z,
            targets: &targets,
            offset: None,
            penalty_factor: None,
        };
        let in_sample = l1_logistic::probabilities(&l1_logistic::linear(&problem, &all.coefs), 2);
        let held_out = cross_fitted_path(z, &targets, &[kappa], &folds(60, 5)).remove(0);
        let given_p = |probs: &DMatrix<f64>, i: usize| {
            probs[(i, 1)] * targets[(i, 1)] + probs[(i, 0)] * targets[(i, 0)]
        };
        assert!(flipped.iter().all(|&i| given_p(&in_sample, i) > 0.5));
        let caught = flipped
            .iter()
            .filter(|&&i| given_p(&held_out, i) < 0.5)
            .count();
        assert!(caught >= flipped.len() / 2, "{caught} of {}", flipped.len());
    }

    #[test]
    fn applies_only_where_features_outnumber_rows_and_the_system_is_small() {
        assert!(applies(49, 7129, 2));
        assert!(!applies(500, 20, 2));
        assert!(!applies(1000, 50_000, 2));
        assert!(!applies(200, 50_000, 3));
    }
}
