//! Penalised logistic regression by coordinate descent on a quadratic
//! approximation (the glmnet scheme of Friedman, Hastie & Tibshirani 2010):
//! soft targets, L1 and L2 penalties with per-feature factors, an offset per
//! sample and class, an unpenalised intercept, warm starts and an active
//! set. Binary problems use one coefficient vector (the sigmoid of the
//! papers); K > 2 classes use a softmax, cycling over the classes with a
//! diagonal Newton step each (glmnet's multinomial scheme).
//!
//! The loss is the *summed* negative log-likelihood, so lambda is on the
//! scale of the papers' objectives (Bootkrajang & Kaban eq. 5, Tibshirani &
//! Manning eq. 1).

use std::borrow::Cow;

use nalgebra::DMatrix;

use crate::models::numerics::{ordered_sum, sigmoid, tr_product};
use crate::models::standardize::Standardizer;

/// Coefficients of a fit: one column per logit (1 when binary, K softmax).
#[derive(Clone, Debug, PartialEq)]
pub struct Coefs {
    pub intercept: Vec<f64>,
    /// p x C.
    pub beta: DMatrix<f64>,
}

impl Coefs {
    pub fn zeros(p: usize, c: usize) -> Coefs {
        Coefs {
            intercept: vec![0.0; c],
            beta: DMatrix::zeros(p, c),
        }
    }

    pub fn n_nonzero(&self) -> usize {
        self.beta.iter().filter(|b| **b != 0.0).count()
    }

    pub fn l1(&self) -> f64 {
        self.beta.iter().map(|b| b.abs()).sum()
    }

    /// Intercepts then the coefficients column by column, as one vector
    /// (for accelerated fixed-point iterations).
    pub fn flat(&self) -> Vec<f64> {
        self.intercept
            .iter()
            .chain(self.beta.iter())
            .copied()
            .collect()
    }

    /// Coefficients of this shape from the first values of `v` (laid out
    /// as by [`Coefs::flat`]).
    pub fn with_flat(&self, v: &[f64]) -> Coefs {
        let k = self.intercept.len();
        let b = self.beta.len();
        Coefs {
            intercept: v[..k].to_vec(),
            beta: DMatrix::from_column_slice(self.beta.nrows(), self.beta.ncols(), &v[k..k + b]),
        }
    }
}

/// The design matrix as the solver sees it: the caller's column-major
/// features, optionally centred and scaled on the fly. Standardising
/// virtually instead of copying halves the memory of a 10k x 20k fit and
/// saves a pass over it; every column operation is a contiguous slice loop
/// the compiler vectorises.
#[derive(Clone, Copy, Debug)]
pub struct Design<'a> {
    data: &'a [f64],
    n: usize,
    d: usize,
    mean: Option<&'a [f64]>,
    scale: Option<&'a [f64]>,
}

impl<'a> Design<'a> {
    /// Features used as they are.
    pub fn raw(x: &'a DMatrix<f64>) -> Self {
        Self {
            data: x.as_slice(),
            n: x.nrows(),
            d: x.ncols(),
            mean: None,
            scale: None,
        }
    }

    /// `(x - mean) / scale` per column, never materialised.
    pub fn standardized(x: &'a DMatrix<f64>, s: &'a Standardizer) -> Self {
        Self {
            mean: Some(s.mean.as_slice()),
            scale: Some(s.scale.as_slice()),
            ..Self::raw(x)
        }
    }

    pub fn nrows(&self) -> usize {
        self.n
    }

    pub fn ncols(&self) -> usize {
        self.d
    }

    /// The features as given (column-major), before any standardising:
    /// what identifies a row whatever its place or the table's scaling.
    pub fn values(&self) -> &'a [f64] {
        self.data
    }

    fn col(&self, j: usize) -> &'a [f64] {
        &self.data[j * self.n..(j + 1) * self.n]
    }

    /// (centre, 1 / scale) of column j.
    fn affine(&self, j: usize) -> (f64, f64) {
        (
            self.mean.map_or(0.0, |m| m[j]),
            self.scale.map_or(1.0, |s| 1.0 / s[j]),
        )
    }

    pub fn value(&self, i: usize, j: usize) -> f64 {
        let (m, inv) = self.affine(j);
        (self.col(j)[i] - m) * inv
    }

    /// z_j . v
    pub fn dot(&self, j: usize, v: &[f64]) -> f64 {
        let vsum = if self.affine(j).0 == 0.0 {
            0.0
        } else {
            v.iter().sum()
        };
        self.dot_given_sum(j, v, vsum)
    }

    /// z_j . v when the caller knows sum(v): one pass over the data
    /// instead of two.
    pub fn dot_given_sum(&self, j: usize, v: &[f64], vsum: f64) -> f64 {
        let (m, inv) = self.affine(j);
        let xv: f64 = self.col(j).iter().zip(v).map(|(x, v)| x * v).sum();
        (xv - m * vsum) * inv
    }

    /// sum_i w_i z_ij^2
    pub fn weighted_sq(&self, j: usize, w: &[f64]) -> f64 {
        let (m, inv) = self.affine(j);
        let s: f64 = self
            .col(j)
            .iter()
            .zip(w)
            .map(|(x, w)| {
                let z = x - m;
                w * z * z
            })
            .sum();
        s * inv * inv
    }

    /// out += a z_j
    pub fn axpy(&self, j: usize, a: f64, out: &mut [f64]) {
        let (m, inv) = self.affine(j);
        let a = a * inv;
        for (o, x) in out.iter_mut().zip(self.col(j)) {
            *o += a * (x - m);
        }
    }

    /// A coordinate step of `delta` on column j: the linear predictor moves
    /// by z_j delta and the working residual by -w z_j delta. Returns how
    /// much the residual's sum fell.
    fn step(&self, j: usize, delta: f64, w: &[f64], r: &mut [f64], eta: &mut [f64]) -> f64 {
        let (m, inv) = self.affine(j);
        let a = delta * inv;
        let mut fell = 0.0;
        for (((x, wi), ri), ei) in self.col(j).iter().zip(w).zip(r.iter_mut()).zip(eta) {
            let dz = a * (x - m);
            let dr = wi * dz;
            *ri -= dr;
            fell += dr;
            *ei += dz;
        }
        fell
    }
}

/// A problem: features and soft targets (rows sum to one).
pub struct Problem<'a> {
    pub x: Design<'a>,
    /// n x K target probabilities.
    pub targets: &'a DMatrix<f64>,
    /// Added to each logit (n x C), e.g. shift parameters.
    pub offset: Option<&'a DMatrix<f64>>,
    /// Penalty factor per feature (0 = unpenalised).
    pub penalty_factor: Option<&'a [f64]>,
}

impl Problem<'_> {
    pub fn n_classes(&self) -> usize {
        self.targets.ncols()
    }

    /// Number of logits: one for two classes.
    pub fn n_logits(&self) -> usize {
        if self.n_classes() == 2 {
            1
        } else {
            self.n_classes()
        }
    }
}

/// Penalties: `l1 * sum |b| + l2 / 2 * sum b^2`, each times the factor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Penalty {
    pub l1: f64,
    pub l2: f64,
}

/// Linear predictors (n x C) of coefficients on `x`, plus the offset.
/// Only non-zero coefficients cost a pass over the data.
pub fn linear_on(x: &Design<'_>, c: &Coefs, offset: Option<&DMatrix<f64>>) -> DMatrix<f64> {
    use rayon::prelude::*;
    let n = x.nrows();
    let mut eta = DMatrix::zeros(n, c.beta.ncols());
    if n > 0 {
        // Each class's column on its own core (each element summed in the
        // same order as serially).
        eta.as_mut_slice()
            .par_chunks_mut(n)
            .zip(c.intercept.as_slice().par_iter())
            .enumerate()
            .for_each(|(k, (col, b0))| {
                col.iter_mut().for_each(|e| *e = *b0);
                for j in 0..c.beta.nrows() {
                    let b = c.beta[(j, k)];
                    if b != 0.0 {
                        x.axpy(j, b, col);
                    }
                }
            });
    }
    if let Some(o) = offset {
        eta += o;
    }
    eta
}

pub fn linear(p: &Problem<'_>, c: &Coefs) -> DMatrix<f64> {
    linear_on(&p.x, c, p.offset)
}

/// Class probabilities (n x K) from linear predictors.
pub fn probabilities(eta: &DMatrix<f64>, n_classes: usize) -> DMatrix<f64> {
    let n = eta.nrows();
    if n_classes == 2 {
        return DMatrix::from_fn(n, 2, |i, k| {
            let p1 = sigmoid(eta[(i, 0)]);
            if k == 1 { p1 } else { 1.0 - p1 }
        });
    }
    let mut out = eta.clone();
    crate::models::numerics::normalise_log_rows(&mut out);
    out
}

/// Summed negative log-likelihood of soft targets.
pub fn neg_log_likelihood(probs: &DMatrix<f64>, targets: &DMatrix<f64>) -> f64 {
    let mut s = 0.0;
    for (p, t) in probs.iter().zip(targets.iter()) {
        if *t > 0.0 {
            s -= t * p.max(1e-300).ln();
        }
    }
    s
}

/// The penalised objective being minimised.
pub fn objective(p: &Problem<'_>, c: &Coefs, pen: Penalty) -> f64 {
    objective_at(p, &linear(p, c), c, pen)
}

/// The objective at coefficients whose linear predictors (offset
/// included) are `eta`.
fn objective_at(p: &Problem<'_>, eta: &DMatrix<f64>, c: &Coefs, pen: Penalty) -> f64 {
    let probs = probabilities(eta, p.n_classes());
    neg_log_likelihood(&probs, p.targets) + penalty_of(p, c, pen)
}

/// The softmax objective from the row normalisers `lse` of `eta` that a
/// Newton round keeps: -ln p_ik = lse_i - eta_ik, so no exp or log (a
/// full softmax pass per round was a sixth of a fit's time at 100k rows).
/// Summed in fixed row blocks on all cores, then in block order, so the
/// value does not depend on the thread count.
fn softmax_objective(
    p: &Problem<'_>,
    eta: &DMatrix<f64>,
    lse: &[f64],
    c: &Coefs,
    pen: Penalty,
) -> f64 {
    use rayon::prelude::*;
    let n = eta.nrows();
    let blocks: Vec<f64> = (0..n.div_ceil(ROW_CHUNK))
        .into_par_iter()
        .map(|b| {
            let mut s = 0.0;
            for k in 0..eta.ncols() {
                for i in b * ROW_CHUNK..((b + 1) * ROW_CHUNK).min(n) {
                    let t = p.targets[(i, k)];
                    if t > 0.0 {
                        s += t * (lse[i] - eta[(i, k)]);
                    }
                }
            }
            s
        })
        .collect();
    blocks.iter().sum::<f64>() + penalty_of(p, c, pen)
}

/// The penalty term of the objective.
fn penalty_of(p: &Problem<'_>, c: &Coefs, pen: Penalty) -> f64 {
    let mut penalty = 0.0;
    for j in 0..c.beta.nrows() {
        let f = p.penalty_factor.map_or(1.0, |pf| pf[j]);
        for k in 0..c.beta.ncols() {
            let b = c.beta[(j, k)];
            // An infinite penalty (the intercept-only fit of lambda_max)
            // costs nothing at zero.
            if b != 0.0 {
                penalty += f * (pen.l1 * b.abs() + 0.5 * pen.l2 * b * b);
            }
        }
    }
    penalty
}

fn soft_threshold(z: f64, g: f64) -> f64 {
    if z > g {
        z - g
    } else if z < -g {
        z + g
    } else {
        0.0
    }
}

/// The target class a logit column stands for.
fn class_of(n_logits: usize, k: usize) -> usize {
    if n_logits == 1 { 1 } else { k }
}

/// The largest L1 penalty at which every penalised coefficient is zero
/// (with the intercept fitted): max_j |x_j^T (t - p)| over penalised j.
pub fn lambda_max(p: &Problem<'_>) -> f64 {
    let c = fit(
        p,
        Penalty {
            l1: f64::INFINITY,
            l2: 0.0,
        },
        None,
        100,
        1e-8,
    );
    let probs = probabilities(&linear(p, &c), p.n_classes());
    let n = p.x.nrows();
    let mut best: f64 = 0.0;
    let mut resid = vec![0.0; n];
    for k in 0..p.n_logits() {
        let class = class_of(p.n_logits(), k);
        for (i, r) in resid.iter_mut().enumerate() {
            *r = p.targets[(i, class)] - probs[(i, class)];
        }
        for j in 0..p.x.ncols() {
            let f = p.penalty_factor.map_or(1.0, |pf| pf[j]);
            if f > 0.0 {
                best = best.max(p.x.dot(j, &resid).abs() / f);
            }
        }
    }
    best
}

/// Minimises the penalised loss from `warm` (or zero). `max_outer` bounds
/// the Newton (IRLS) rounds; `tol` is on the largest weighted change of a
/// coefficient in a round (the loss decrease its step makes), per sample:
/// the loss is a sum over samples, so an absolute tolerance would ask a
/// 200k-row fit for 1000 times the precision of a 200-row one (glmnet
/// likewise scales its threshold by the null deviance).
pub fn fit(
    p: &Problem<'_>,
    pen: Penalty,
    warm: Option<&Coefs>,
    max_outer: usize,
    tol: f64,
) -> Coefs {
    fit_impl(p, pen, warm, None, max_outer, tol)
}

/// Per-sample shifts of a binary fit: their values, their L1 penalty, and
/// the rows whose shift is held at zero (empty: none).
pub struct Shifts<'s> {
    pub values: &'s mut [f64],
    pub lambda: f64,
    pub frozen: &'s [bool],
}

/// Binary fit on [X | I_n] (Tibshirani & Manning section 3.1): besides the
/// coefficients, one shift per sample added to its logit, L1-penalised by
/// `lambda`. Each shift is a coordinate whose column is a unit vector, so
/// its update costs O(1) inside the same Newton rounds as the features,
/// instead of alternating whole fits with closed-form shift updates.
pub fn fit_with_shifts(
    p: &Problem<'_>,
    pen: Penalty,
    warm: Option<&Coefs>,
    shifts: Shifts<'_>,
    max_outer: usize,
    tol: f64,
) -> Coefs {
    assert_eq!(p.n_logits(), 1, "per-sample shifts are for two classes");
    fit_impl(p, pen, warm, Some(shifts), max_outer, tol)
}

/// Largest step of a shift in one Newton round: the quadratic model of a
/// confidently wrong sample has almost no curvature and would overshoot.
const MAX_SHIFT_STEP: f64 = 4.0;

fn fit_impl(
    p: &Problem<'_>,
    pen: Penalty,
    warm: Option<&Coefs>,
    mut shifts: Option<Shifts<'_>>,
    max_outer: usize,
    tol: f64,
) -> Coefs {
    let (n, d) = (p.x.nrows(), p.x.ncols());
    let tol = tol * n as f64;
    let c_count = p.n_logits();
    let mut c = warm.cloned().unwrap_or_else(|| Coefs::zeros(d, c_count));
    let mut eta = linear(p, &c);
    if let Some(sh) = &shifts {
        for (e, s) in eta.as_mut_slice().iter_mut().zip(sh.values.iter()) {
            *e += s;
        }
    }
    let mut w = vec![0.0; n];
    let mut r = vec![0.0; n];
    // Curvatures are computed on first need: in a wide problem most
    // coordinates stay at zero and never need one.
    let mut v = vec![f64::NAN; d];
    let mut active: Vec<usize> = Vec::new();
    // Screening (in the spirit of the strong rules of Tibshirani et al.
    // 2012): Newton rounds sweep only coordinates that are non-zero or whose
    // gradient at the start is near the penalty; one pass over all columns
    // at the end checks the optimality conditions and readmits violators.
    // On wide data this replaces a pass over every column per round by two
    // per fit.
    let mut candidate: Vec<bool> = (0..d)
        .map(|j| (0..c_count).any(|k| c.beta[(j, k)] != 0.0))
        .collect();
    admit(p, pen, &eta, SCREEN, &mut candidate);
    let mut coords: Vec<usize> = (0..d).filter(|&j| candidate[j]).collect();
    for _kkt in 0..MAX_KKT_ROUNDS {
        newton_rounds(
            p,
            pen,
            &mut c,
            &mut eta,
            &mut shifts,
            &coords,
            &mut w,
            &mut r,
            &mut v,
            &mut active,
            max_outer,
            tol,
        );
        if admit(p, pen, &eta, 1.0, &mut candidate) == 0 {
            break;
        }
        coords = (0..d).filter(|&j| candidate[j]).collect();
    }
    c
}

/// What one of [`SoftmaxRounds::round`]'s steps did.
#[derive(Clone, Copy, Debug)]
pub struct RoundStep {
    /// Largest change of a coefficient (intercepts included) the proximal
    /// Newton step proposed, before any damping, less the part that adds
    /// the same to every class (see [`step_off_redundant`]). The step is zero exactly
    /// at a point satisfying the optimality (KKT) conditions, so unlike
    /// the damped move it cannot look small far from the optimum.
    pub proposed: f64,
    /// No damped step lowered the objective: the coefficients are left
    /// where they were.
    pub stuck: bool,
}

/// Largest change from `c0` to `c` of a coefficient (intercepts included)
/// once each coefficient's mean change over the K classes is taken out.
/// Adding one number to a coefficient of every class changes no softmax
/// probability, and the class-by-class rounds creep that way (the
/// intercepts, unpenalised, by a near-constant amount each round: 5e-4 on
/// 200k rows of 5 classes, with not one shift moving). That creep is no
/// distance from the optimum and kept the round's step from ever falling
/// below shift's tolerance; what is left is zero exactly where the
/// probabilities, and with them the loss, stop changing.
fn step_off_redundant(c0: &Coefs, c: &Coefs) -> f64 {
    let rows = std::iter::once((c.intercept.clone(), c0.intercept.clone())).chain(
        (0..c.beta.nrows()).map(|j| {
            (
                c.beta.row(j).iter().copied().collect(),
                c0.beta.row(j).iter().copied().collect(),
            )
        }),
    );
    let mut largest: f64 = 0.0;
    for (new, old) in rows {
        let delta: Vec<f64> = new.iter().zip(&old).map(|(a, b)| a - b).collect();
        let mean = delta.iter().sum::<f64>() / delta.len().max(1) as f64;
        largest = delta.iter().fold(largest, |m, d| m.max((d - mean).abs()));
    }
    largest
}

/// Single proximal Newton rounds of a softmax fit (K > 2 classes, no
/// penalty factors) whose offset changes between rounds: shift's
/// alternation of theta with the group shifts. [`fit`] with one round
/// would do the same step, but around it sit checks this caller makes
/// redundant and five passes of the softmax (two screening and optimality
/// checks, two objective values for the damping test, the row
/// normalisers). Here the softmax is formed once per round and kept
/// current class by class as one class's predictors change (a single
/// exponential per sample, and no logarithm), and the objective on both
/// sides of the damping test comes from the same cache. Every column is a
/// candidate: screening pays off over the many Newton rounds of a full
/// fit, while this caller's convergence test (the proposed step) needs
/// the optimality conditions of all columns after every round anyway.
pub struct SoftmaxRounds<'a> {
    x: Design<'a>,
    targets: &'a DMatrix<f64>,
    pen: Penalty,
    coords: Vec<usize>,
    gram: bool,
    /// Rows the Gram matrices are formed on above 64k rows (see
    /// [`RowSample`]): shift's rounds on 200k rows spent a fifth of their
    /// time forming them on every row.
    sample: Option<RowSample>,
    /// Linear predictors with the offset (n x K).
    eta: DMatrix<f64>,
    /// The softmax of `eta`, kept up to date class by class.
    soft: RowSoftmax,
    w: Vec<f64>,
    r: Vec<f64>,
    v: Vec<f64>,
    active: Vec<usize>,
}

impl<'a> SoftmaxRounds<'a> {
    pub fn new(x: Design<'a>, targets: &'a DMatrix<f64>, pen: Penalty) -> Self {
        let (n, d, k) = (x.nrows(), x.ncols(), targets.ncols());
        assert!(k > 2, "softmax rounds are for more than two classes");
        let gram = use_gram(n, d);
        Self {
            x,
            targets,
            pen,
            coords: (0..d).collect(),
            gram,
            sample: gram.then(|| RowSample::of(&x)).flatten(),
            eta: DMatrix::zeros(n, k),
            soft: RowSoftmax::of(&DMatrix::zeros(n, k)),
            w: vec![0.0; n],
            r: vec![0.0; n],
            v: vec![f64::NAN; d],
            active: Vec::new(),
        }
    }

    /// The penalised objective at `c` from the cache: the summed negative
    /// log-likelihood is sum_ik t_ik (ln Z_i - eta_ik).
    fn value(&self, c: &Coefs) -> f64 {
        let kk = self.eta.ncols();
        let mut nll = 0.0;
        for (i, lz) in self.soft.log_normalisers().into_iter().enumerate() {
            for k in 0..kk {
                let t = self.targets[(i, k)];
                if t > 0.0 {
                    nll += t * (lz - self.eta[(i, k)]);
                }
            }
        }
        let pen = self.pen;
        let penalty: f64 = c
            .beta
            .iter()
            .filter(|b| **b != 0.0)
            .map(|b| pen.l1 * b.abs() + 0.5 * pen.l2 * b * b)
            .sum();
        nll + penalty
    }

    /// One proximal Newton round (glmnet's multinomial scheme, as in
    /// [`fit`]) from `c`, whose linear predictors without the offset are
    /// `lin`, damped like [`fit`]'s rounds when it raises the objective.
    /// `tol` is [`fit`]'s, for the coordinate descent inside the round.
    ///
    /// With `coupled`, the offset's own variables move with theta inside
    /// the round (see [`Coupled`]); should that joint step raise the joint
    /// objective, the round is taken again without them.
    pub fn round(
        &mut self,
        c: &mut Coefs,
        lin: &DMatrix<f64>,
        offset: &DMatrix<f64>,
        tol: f64,
        mut coupled: Option<&mut dyn Coupled>,
    ) -> RoundStep {
        let (n, kk) = self.eta.shape();
        let tol = tol * n as f64;
        self.eta.copy_from(lin);
        self.eta += offset;
        self.soft = RowSoftmax::of(&self.eta);
        let coupled_penalty =
            |o: &Option<&mut dyn Coupled>| o.as_ref().map_or(0.0, |o| o.penalty());
        let f0 = self.value(c) + coupled_penalty(&coupled);
        let c0 = c.clone();
        let mut before = vec![0.0; if coupled.is_some() { n } else { 0 }];
        let p = Problem {
            x: self.x,
            targets: self.targets,
            offset: Some(offset),
            penalty_factor: None,
        };
        for k in 0..kk {
            for i in 0..n {
                let pi = self.soft.prob(i, k);
                self.w[i] = (pi * (1.0 - pi)).max(MIN_CURVATURE);
                self.r[i] = self.targets[(i, k)] - pi;
            }
            if let Some(o) = coupled.as_deref_mut() {
                o.reduce(k, &mut self.w, &mut self.r);
            }
            let eta_k = &mut self.eta.as_mut_slice()[k * n..(k + 1) * n];
            if coupled.is_some() {
                before.copy_from_slice(eta_k);
            }
            if self.gram {
                sparse_gram_class_round(
                    &p,
                    self.pen,
                    c,
                    k,
                    &self.coords,
                    &Curvature::of(self.sample.as_ref(), &self.x, &self.w),
                    &self.r,
                    eta_k,
                    tol,
                    false,
                );
            } else {
                let mut class = ClassRound {
                    k,
                    w: &self.w,
                    r: &mut self.r,
                    v: &mut self.v,
                    active: &mut self.active,
                };
                naive_class_round(
                    &p,
                    self.pen,
                    c,
                    &mut class,
                    &self.coords,
                    &mut None,
                    eta_k,
                    tol,
                );
            }
            if let Some(o) = coupled.as_deref_mut() {
                o.absorb(k, &before, eta_k);
            }
            self.soft.update(&self.eta, k);
        }
        let proposed = step_off_redundant(&c0, c);
        let f1 = self.value(c) + coupled_penalty(&coupled);
        let slack = 1e-10 * f0.abs().max(1.0);
        if coupled.is_some() {
            if f1 <= f0 + slack || !f0.is_finite() {
                return RoundStep {
                    proposed,
                    stuck: false,
                };
            }
            c.clone_from(&c0);
            return self.round(c, lin, offset, tol / n as f64, None);
        }
        let stuck = f1 > f0 + slack
            && f0.is_finite()
            && damp(&p, self.pen, f0, None, &c0, c, &mut self.eta).is_none();
        RoundStep { proposed, stuck }
    }
}

/// Variables of the offset that move with theta inside a
/// [`SoftmaxRounds::round`]: with a quadratic model of their own penalty
/// they can be minimised out of each class's quadratic model row by row,
/// which leaves that class a weighted least-squares problem of the same
/// form with other weights and residuals (a Schur complement). The round
/// then moves them to their minimiser given theta's step.
pub trait Coupled {
    /// Replaces class `k`'s weights and residuals (t - p) by those of the
    /// model with the coupled variables minimised out.
    fn reduce(&mut self, k: usize, w: &mut [f64], r: &mut [f64]);
    /// Class `k`'s predictors went from `before` to `eta_k` by theta's
    /// step: moves the coupled variables and adds their change to `eta_k`.
    fn absorb(&mut self, k: usize, before: &[f64], eta_k: &mut [f64]);
    /// The coupled variables' penalty now.
    fn penalty(&self) -> f64;
}

/// Below this a row sum of the softmax cache has lost its precision.
const TINY_TOTAL: f64 = 1e-150;

/// Share of the penalty a zero coordinate's starting gradient must reach
/// to be swept.
const SCREEN: f64 = 0.5;
/// Rounds of (Newton rounds on the candidates, optimality check).
const MAX_KKT_ROUNDS: usize = 20;

/// Marks as candidates the coordinates whose gradient at `eta` exceeds
/// `share` of their penalty (share 1: the optimality conditions are
/// violated); returns how many were added.
fn admit(
    p: &Problem<'_>,
    pen: Penalty,
    eta: &DMatrix<f64>,
    share: f64,
    candidate: &mut [bool],
) -> usize {
    use rayon::prelude::*;
    // With every column in play (a table with more rows than columns, at
    // a small penalty) there is nothing to check: skip the softmax pass,
    // twice per fit.
    if candidate.iter().all(|&c| c) {
        return 0;
    }
    let n = p.x.nrows();
    let c_count = p.n_logits();
    let probs = probabilities(eta, p.n_classes());
    let mut resid = vec![0.0; n];
    let mut added = 0;
    for k in 0..c_count {
        let class = class_of(c_count, k);
        for (i, r) in resid.iter_mut().enumerate() {
            *r = p.targets[(i, class)] - probs[(i, class)];
        }
        // One pass over every column that is not yet a candidate: on wide
        // data (20k columns) this is most of a fit's time, and the columns
        // are independent, so they are split across the cores; the
        // residual's sum is shared by all of them.
        let rsum: f64 = resid.iter().sum();
        let resid = &resid;
        let entered: Vec<usize> = (0..candidate.len())
            .into_par_iter()
            .filter(|&j| {
                if candidate[j] {
                    return false;
                }
                let l1 = pen.l1 * p.penalty_factor.map_or(1.0, |f| f[j]);
                // A ridge or unpenalised coordinate is always in play.
                l1 == 0.0 || p.x.dot_given_sum(j, resid, rsum).abs() > share * l1 * (1.0 + 1e-9)
            })
            .collect();
        for j in entered {
            candidate[j] = true;
            added += 1;
        }
    }
    added
}

/// IRLS rounds over the candidate coordinates `coords` (plus shifts and
/// intercepts), until the largest weighted change is below `tol`.
#[allow(clippy::too_many_arguments)]
fn newton_rounds(
    p: &Problem<'_>,
    pen: Penalty,
    c: &mut Coefs,
    eta: &mut DMatrix<f64>,
    shifts: &mut Option<Shifts<'_>>,
    coords: &[usize],
    w: &mut [f64],
    r: &mut [f64],
    v: &mut [f64],
    active: &mut Vec<usize>,
    max_outer: usize,
    tol: f64,
) {
    let n = p.x.nrows();
    let c_count = p.n_logits();
    let softmax = p.n_classes() > 2;
    // Shifts need the per-sample residual the Gram form never forms.
    let gram = shifts.is_none() && use_gram(n, coords.len());
    let sample = gram.then(|| RowSample::of(&p.x)).flatten();
    // Without shifts a round is a proximal Newton step, damped when it
    // overshoots; the binary shifts' coordinate updates are exact.
    let damped = shifts.is_none();
    let mut value = damped.then(|| objective_at(p, eta, c, pen));
    for round in 0..max_outer {
        let before = value.map(|f| (f, c.clone()));
        let mut max_change: f64 = 0.0;
        // Softmax: each class's working response needs only its own
        // probabilities; keeping the row sums of the softmax up to date as
        // one class changes makes a round O(nK), where recomputing every
        // probability per class made it O(nK^2) (100 classes ran for
        // minutes). Exact again at every round.
        let mut rows = softmax.then(|| RowSoftmax::of(eta));
        for k in 0..c_count {
            let class = class_of(c_count, k);
            working_response(p, eta, rows.as_ref(), k, class, w, r);
            let eta_k = &mut eta.as_mut_slice()[k * n..(k + 1) * n];
            let change = if gram {
                // Coordinates enter in the first round after the penalty or
                // the candidates changed; later rounds are warm.
                let curvature = Curvature::of(sample.as_ref(), &p.x, w);
                sparse_gram_class_round(p, pen, c, k, coords, &curvature, r, eta_k, tol, round == 0)
            } else {
                let mut class = ClassRound { k, w, r, v, active };
                naive_class_round(p, pen, c, &mut class, coords, shifts, eta_k, tol)
            };
            max_change = max_change.max(change);
            if let Some(rows) = rows.as_mut() {
                rows.update(eta, k);
            }
        }
        if let Some((f0, c0)) = before {
            let f1 = rows.map(|rows| softmax_objective(p, eta, &rows.log_normalisers(), c, pen));
            match damp(p, pen, f0, f1, &c0, c, eta) {
                Some(f) => value = Some(f),
                None => break,
            }
        }
        if softmax && pen.l2 == 0.0 && pen.l1.is_finite() {
            let fell = center_classes(p, pen, c, eta);
            value = value.map(|f| f - fell);
        }
        if max_change < tol {
            break;
        }
    }
}

/// The softmax likelihood does not change when one vector is added to
/// every class's coefficients, so along that direction only the L1 penalty
/// has curvature, and the class-by-class Newton rounds crawl along it: at
/// 100k rows an EM M-step ran out of its 100 rounds with all intercepts
/// still drifting by 1e-3 a round. The minimum along it is closed-form
/// (Friedman, Hastie & Tibshirani 2010, section 4): each feature's
/// coefficients less their median over the classes (the nearest end to
/// zero of the median interval for an even count, to keep zeros). The
/// linear predictors all move by the same amount per row, which leaves the
/// probabilities as they were. Returns how much the penalty fell.
fn center_classes(p: &Problem<'_>, pen: Penalty, c: &mut Coefs, eta: &mut DMatrix<f64>) -> f64 {
    let k = c.beta.ncols();
    let n = eta.nrows();
    let mut moved = vec![0.0; n];
    let (mut fell, mut any) = (0.0, false);
    let mut row = vec![0.0; k];
    for j in 0..c.beta.nrows() {
        row.iter_mut()
            .enumerate()
            .for_each(|(kk, v)| *v = c.beta[(j, kk)]);
        row.sort_by(f64::total_cmp);
        let centre = 0.0f64.clamp(row[(k - 1) / 2], row[k / 2]);
        if centre == 0.0 {
            continue;
        }
        let f = p.penalty_factor.map_or(1.0, |pf| pf[j]);
        for kk in 0..k {
            let b = c.beta[(j, kk)];
            fell += f * pen.l1 * (b.abs() - (b - centre).abs());
            c.beta[(j, kk)] = b - centre;
        }
        p.x.axpy(j, centre, &mut moved);
        any = true;
    }
    if any {
        for mut col in eta.column_iter_mut() {
            col.iter_mut().zip(&moved).for_each(|(e, m)| *e -= m);
        }
    }
    fell
}

/// Newton's step from far away can overshoot and diverge: the
/// coordinate-wise softmax step of a cold start on digits at a small
/// penalty reached coefficients of 1e5 and an objective 1000 times the
/// null model's. Like R's `glm.fit`, a round that raises the objective is
/// halved back towards where it started (the step is a descent direction
/// of the convex objective, so a short enough step lowers it). Returns the
/// objective reached, or `None` with `c` and `eta` restored when no step
/// down to 2^-20 of it helps. `f1` is the objective at the full step when
/// the caller already has it.
fn damp(
    p: &Problem<'_>,
    pen: Penalty,
    f0: f64,
    f1: Option<f64>,
    c0: &Coefs,
    c: &mut Coefs,
    eta: &mut DMatrix<f64>,
) -> Option<f64> {
    let slack = 1e-10 * f0.abs().max(1.0);
    let f1 = f1.unwrap_or_else(|| objective_at(p, eta, c, pen));
    // Nothing to compare with where the start was not finite.
    if f1 <= f0 + slack || !f0.is_finite() {
        return Some(f1);
    }
    // Rare: the start's predictors are formed again here rather than
    // copied in every round.
    let eta0 = linear(p, c0);
    let (c1, eta1) = (c.clone(), eta.clone());
    let mut t = 0.5;
    for _ in 0..20 {
        let mix = |a: f64, b: f64| a + t * (b - a);
        for (x, (a, b)) in c.beta.iter_mut().zip(c0.beta.iter().zip(c1.beta.iter())) {
            *x = mix(*a, *b);
        }
        for (x, (a, b)) in c
            .intercept
            .iter_mut()
            .zip(c0.intercept.iter().zip(&c1.intercept))
        {
            *x = mix(*a, *b);
        }
        for (x, (a, b)) in eta.iter_mut().zip(eta0.iter().zip(eta1.iter())) {
            *x = mix(*a, *b);
        }
        let f = objective_at(p, eta, c, pen);
        if f <= f0 + slack {
            return Some(f);
        }
        t *= 0.5;
    }
    c.clone_from(c0);
    eta.copy_from(&eta0);
    None
}

/// The scratch of one logit's weighted least-squares subproblem.
struct ClassRound<'s> {
    k: usize,
    w: &'s [f64],
    r: &'s mut [f64],
    v: &'s mut [f64],
    active: &'s mut Vec<usize>,
}

/// Covariance updates (Friedman, Hastie & Tibshirani 2010, section 2.2):
/// with many more samples than candidate coordinates, one pass forming the
/// weighted Gram columns of the candidates makes every later sweep O(m^2)
/// instead of O(nm). A round needs tens of sweeps, while the Gram matrix
/// costs about m/2 sweeps' arithmetic in a blocked matrix product; glmnet
/// prefers this form below 500 features, and it needs m < n to be smaller.
fn use_gram(n: usize, m: usize) -> bool {
    m > 0 && m <= GRAM_MAX_COLS && 4 * m <= n
}

const GRAM_MAX_COLS: usize = 500;

/// Rows per block of the Gram product: blocks are formed and multiplied
/// on all cores, and a block this size keeps the scaled copy of the
/// design bounded whatever n is.
const GRAM_BLOCK_ROWS: usize = 8192;

/// Rows `rows` of `W^(1/2) [Z_coords | 1]` (the standardised columns and
/// the intercept's), one row block of the Gram products.
fn sqrt_weighted_block(
    x: &Design<'_>,
    coords: &[usize],
    w: &[f64],
    rows: std::ops::Range<usize>,
) -> DMatrix<f64> {
    let (len, m) = (rows.len(), coords.len());
    let mut a = DMatrix::zeros(len, m + 1);
    let sw: Vec<f64> = w[rows.clone()].iter().map(|w| w.sqrt()).collect();
    for (idx, &j) in coords.iter().enumerate() {
        let (mean, inv) = x.affine(j);
        let col = &x.col(j)[rows.clone()];
        let out = &mut a.as_mut_slice()[idx * len..(idx + 1) * len];
        for ((o, xv), s) in out.iter_mut().zip(col).zip(&sw) {
            *o = s * (xv - mean) * inv;
        }
    }
    a.as_mut_slice()[m * len..].copy_from_slice(&sw);
    a
}

/// `[Z_coords | 1]^T W [Z_coords | 1]` restricted to the columns `cols`
/// (indices into `coords`, `coords.len()` for the intercept), and one more
/// column, the loss gradient `[Z_coords | 1]^T r`: the (m + 1) x
/// (|cols| + 1) block, in row blocks in parallel. The gradient rides along in the blocked product instead of costing m
/// sequential dot products over the data.
fn weighted_gram_columns(
    x: &Design<'_>,
    coords: &[usize],
    w: &[f64],
    r: &[f64],
    cols: &[usize],
) -> DMatrix<f64> {
    let (n, m) = (x.nrows(), coords.len());
    let blocks: Vec<usize> = (0..n).step_by(GRAM_BLOCK_ROWS).collect();
    ordered_sum(&blocks, &DMatrix::zeros(m + 1, cols.len() + 1), |start| {
        let end = (start + GRAM_BLOCK_ROWS).min(n);
        let rows = end - start;
        let a = sqrt_weighted_block(x, coords, w, start..end);
        let mut b = DMatrix::zeros(rows, cols.len() + 1);
        for (pos, &idx) in cols.iter().enumerate() {
            b.column_mut(pos).copy_from(&a.column(idx));
        }
        // W^(1/2) [Z | 1] against W^(-1/2) r is the gradient (weights
        // are floored above zero).
        for ((o, r), s) in b
            .column_mut(cols.len())
            .iter_mut()
            .zip(&r[start..end])
            .zip(a.column(m).iter())
        {
            *o = r / s;
        }
        tr_product(&a, &b)
    })
}

/// Rows above which a Newton round forms its curvature on a subsample.
const HESSIAN_ROWS: usize = 32_768;

/// Every `stride`-th row of a tall design (a stride keeps the classes'
/// shares on a sorted table), on which the Newton rounds form their
/// weighted Gram matrices: sub-sampled Newton (Byrd, Chin, Neveitt &
/// Nocedal 2011, SIAM J. Optim. 21:977-995; Roosta-Khorasani & Mahoney
/// 2019, Math. Program. 174:293-326). The Gram is a sum over rows of
/// terms that vary smoothly with x, so 32k rows estimate it to about 1%,
/// while it cost n m^2 per class and round (30% of rLR's time at 200k
/// rows, 20 features, 5 classes); the gradient stays exact, O(n m), so the
/// fixed point, where the proximal step is zero, is the same, and a step
/// on the estimate is still a descent direction that the round's damping
/// checks on the exact objective.
struct RowSample {
    /// The sampled rows, raw; standardised as the design they came from.
    data: DMatrix<f64>,
    stride: usize,
}

impl RowSample {
    /// `None` where the table is small enough to use every row.
    fn of(x: &Design<'_>) -> Option<Self> {
        let n = x.nrows();
        if n <= 2 * HESSIAN_ROWS {
            return None;
        }
        let stride = n.div_ceil(HESSIAN_ROWS);
        let rows = n.div_ceil(stride);
        let data = DMatrix::from_fn(rows, x.ncols(), |i, j| x.col(j)[i * stride]);
        Some(Self { data, stride })
    }
}

/// Where a Newton round's Gram matrices come from: the design's rows
/// `x` (all of them, or a [`RowSample`]'s) with weights `w`, each sampled
/// row standing for the rows of its stride.
struct Curvature<'a> {
    x: Design<'a>,
    w: Cow<'a, [f64]>,
    /// Whether `x` is a sample: the gradient then needs a pass of its own.
    sampled: bool,
}

impl<'a> Curvature<'a> {
    fn of(sample: Option<&'a RowSample>, full: &Design<'a>, w: &'a [f64]) -> Self {
        let Some(s) = sample else {
            return Self {
                x: *full,
                w: Cow::Borrowed(w),
                sampled: false,
            };
        };
        let rows = s.data.nrows();
        let each = full.nrows() as f64 / rows as f64;
        Self {
            x: Design {
                data: s.data.as_slice(),
                n: rows,
                ..*full
            },
            w: w.iter().step_by(s.stride).map(|w| w * each).collect(),
            sampled: true,
        }
    }

    /// [`weighted_gram_columns`] of these rows, its last column the exact
    /// gradient `[Z_coords | 1]^T r` on every row of `full`.
    fn gram_columns(
        &self,
        full: &Design<'_>,
        coords: &[usize],
        r: &[f64],
        cols: &[usize],
    ) -> DMatrix<f64> {
        if !self.sampled {
            return weighted_gram_columns(&self.x, coords, &self.w, r, cols);
        }
        let zero = vec![0.0; self.x.nrows()];
        let mut block = weighted_gram_columns(&self.x, coords, &self.w, &zero, cols);
        let grad = gradient(full, coords, r);
        block.column_mut(cols.len()).copy_from_slice(&grad);
        block
    }
}

/// `[Z_coords | 1]^T r`, each column's product on its own task.
fn gradient(x: &Design<'_>, coords: &[usize], r: &[f64]) -> Vec<f64> {
    use rayon::prelude::*;
    let rsum: f64 = r.iter().sum();
    let mut g: Vec<f64> = coords
        .par_iter()
        .map(|&j| x.dot_given_sum(j, r, rsum))
        .collect();
    g.push(rsum);
    g
}

/// One logit's Newton round in covariance form: coordinate descent on the
/// quadratic model through its weighted Gram matrix (the intercept is
/// coordinate m), then one pass to move the linear predictor; returns the
/// largest weighted squared change of a sweep. Only the Gram columns a
/// sweep reads are formed: column j is read only when coordinate j moves,
/// and under an L1 penalty most coordinates of a class stay at zero
/// (theta kept 15-40% of its digits coefficients, 45-70% on 5-class
/// gauss; the Bayesian kappa search probes sparser fits still). The
/// columns of the coordinates non-zero at the start or violating their
/// optimality condition there (and the intercept's) are formed in one
/// blocked product, and a coordinate that enters later during the sweeps
/// gets its column then, in one pass over the data. This is glmnet's own
/// covariance scheme (Friedman, Hastie & Tibshirani 2010, section 2.2:
/// inner products are computed as features enter), and the sweeps are the
/// same as with the whole matrix.
#[allow(clippy::too_many_arguments)]
fn sparse_gram_class_round(
    p: &Problem<'_>,
    pen: Penalty,
    c: &mut Coefs,
    k: usize,
    coords: &[usize],
    curvature: &Curvature<'_>,
    r: &[f64],
    eta_k: &mut [f64],
    tol: f64,
    entering: bool,
) -> f64 {
    let m = coords.len();
    let (hx, w) = (&curvature.x, &curvature.w[..]);
    let pf = |j: usize| p.penalty_factor.map_or(1.0, |f| f[j]);
    // A zero coordinate whose gradient already exceeds its penalty moves
    // in the first sweep, so its column is needed at once: it joins the
    // blocked product rather than costing a pass over the data of its own.
    // Finding them costs m dot products, which pays when coordinates
    // enter (a fit at a new penalty) but not in warm rounds at a fixed one.
    let rsum: f64 = r.iter().sum();
    let start: Vec<usize> = (0..m)
        .filter(|&idx| {
            let j = coords[idx];
            c.beta[(j, k)] != 0.0
                || (entering && p.x.dot_given_sum(j, r, rsum).abs() > pen.l1 * pf(j))
        })
        .chain([m])
        .collect();
    let block = curvature.gram_columns(&p.x, coords, r, &start);
    // Column idx of the Gram matrix, once formed.
    let mut column: Vec<Option<Vec<f64>>> = vec![None; m + 1];
    for (pos, &idx) in start.iter().enumerate() {
        column[idx] = Some(block.column(pos).iter().copied().collect());
    }
    let mut scratch = vec![0.0; w.len()];
    let mut form = |idx: usize, column: &mut Vec<Option<Vec<f64>>>| {
        if column[idx].is_some() {
            return;
        }
        // u = W z_j; the column is [Z | 1]^T u.
        let j = coords[idx];
        scratch.iter_mut().for_each(|u| *u = 0.0);
        hx.axpy(j, 1.0, &mut scratch);
        scratch.iter_mut().zip(w).for_each(|(u, w)| *u *= w);
        let usum: f64 = scratch.iter().sum();
        let mut col: Vec<f64> = coords
            .iter()
            .map(|&l| hx.dot_given_sum(l, &scratch, usum))
            .collect();
        col.push(usum);
        column[idx] = Some(col);
    };
    let mut grad: Vec<f64> = block.column(start.len()).iter().copied().collect();
    let mut delta = vec![0.0; m + 1];
    let mut largest: f64 = 0.0;
    let land = |col: &[f64], idx: usize, d: f64, grad: &mut [f64], delta: &mut [f64]| {
        for (gl, gc) in grad.iter_mut().zip(col) {
            *gl -= gc * d;
        }
        delta[idx] += d;
        col[idx] * d * d
    };
    for _sweep in 0..1000 {
        let mut sweep_change: f64 = 0.0;
        for (idx, &j) in coords.iter().enumerate() {
            let old = c.beta[(j, k)];
            let l1 = pen.l1 * pf(j);
            if old == 0.0 && grad[idx].abs() <= l1 {
                continue;
            }
            form(idx, &mut column);
            let Some(col) = column[idx].as_deref() else {
                continue;
            };
            let vj = col[idx];
            if vj <= 0.0 {
                continue;
            }
            let new = soft_threshold(grad[idx] + vj * old, l1) / (vj + pen.l2 * pf(j));
            if new != old {
                c.beta[(j, k)] = new;
                sweep_change = sweep_change.max(land(col, idx, new - old, &mut grad, &mut delta));
            }
        }
        if let Some(col) = column[m].as_deref()
            && col[m] > 0.0
        {
            let d0 = grad[m] / col[m];
            if d0 != 0.0 {
                c.intercept[k] += d0;
                sweep_change = sweep_change.max(land(col, m, d0, &mut grad, &mut delta));
            }
        }
        largest = largest.max(sweep_change);
        if sweep_change < tol {
            break;
        }
    }
    for (idx, &j) in coords.iter().enumerate() {
        if delta[idx] != 0.0 {
            p.x.axpy(j, delta[idx], eta_k);
        }
    }
    eta_k.iter_mut().for_each(|e| *e += delta[m]);
    largest
}

/// One logit's Newton round sweeping the data: coordinate descent on the
/// working residual, full sweeps until the active set settles, then
/// active-set sweeps. Returns the largest weighted squared change.
#[allow(clippy::too_many_arguments)]
fn naive_class_round(
    p: &Problem<'_>,
    pen: Penalty,
    c: &mut Coefs,
    s: &mut ClassRound<'_>,
    coords: &[usize],
    shifts: &mut Option<Shifts<'_>>,
    eta_k: &mut [f64],
    tol: f64,
) -> f64 {
    let k = s.k;
    let pf = |j: usize| p.penalty_factor.map_or(1.0, |f| f[j]);
    s.v.iter_mut().for_each(|x| *x = f64::NAN);
    s.active.clear();
    s.active
        .extend(coords.iter().copied().filter(|&j| c.beta[(j, k)] != 0.0));
    // The trust region of a shift is around its value at the start of this
    // Newton round, not its last sweep: otherwise a flat quadratic model
    // walks it MAX_SHIFT_STEP further every sweep.
    let round_start: Vec<f64> = shifts.as_ref().map_or(Vec::new(), |sh| sh.values.to_vec());
    // Centred columns need sum(r) in every dot product; it is carried along
    // the steps instead of costing a pass per coordinate.
    let mut rsum: f64 = s.r.iter().sum();
    let mut max_change: f64 = 0.0;
    let mut full_sweep = true;
    for _sweep in 0..1000 {
        let mut sweep_change: f64 = 0.0;
        // A full sweep may grow the active set while it runs, so it walks
        // the candidates; an active sweep walks a copy of the active set.
        let active_now = if full_sweep {
            Vec::new()
        } else {
            s.active.clone()
        };
        let walk: &[usize] = if full_sweep { coords } else { &active_now };
        for &j in walk {
            let old = c.beta[(j, k)];
            let l1 = pen.l1 * pf(j);
            let g = p.x.dot_given_sum(j, s.r, rsum);
            if old == 0.0 && g.abs() <= l1 {
                continue;
            }
            if s.v[j].is_nan() {
                s.v[j] = p.x.weighted_sq(j, s.w);
            }
            let vj = s.v[j];
            let new = if vj <= 0.0 {
                0.0
            } else {
                soft_threshold(g + vj * old, l1) / (vj + pen.l2 * pf(j))
            };
            if new != old {
                let delta = new - old;
                rsum -= p.x.step(j, delta, s.w, s.r, eta_k);
                c.beta[(j, k)] = new;
                sweep_change = sweep_change.max(vj * delta * delta);
                if old == 0.0 && full_sweep {
                    s.active.push(j);
                }
            }
        }
        if let Some(sh) = shifts.as_mut() {
            let change = update_shifts(sh, &round_start, s.w, s.r, eta_k);
            sweep_change = sweep_change.max(change);
            rsum = s.r.iter().sum();
        }
        let change = update_intercept(&mut c.intercept[k], s.w, s.r, eta_k);
        sweep_change = sweep_change.max(change);
        if change > 0.0 {
            rsum = s.r.iter().sum();
        }
        max_change = max_change.max(sweep_change);
        if sweep_change < tol {
            if full_sweep {
                break;
            }
            // Converged on the active set: check every coordinate.
            full_sweep = true;
        } else {
            full_sweep = false;
        }
    }
    max_change
}

/// One coordinate pass over the shifts (binary only), each kept within
/// MAX_SHIFT_STEP of its value at the start of the Newton round; frozen
/// ones stay where they are. Returns the largest weighted squared change.
fn update_shifts(
    sh: &mut Shifts<'_>,
    round_start: &[f64],
    w: &[f64],
    r: &mut [f64],
    eta_k: &mut [f64],
) -> f64 {
    let mut largest: f64 = 0.0;
    let (s, lambda) = (&mut *sh.values, sh.lambda);
    for i in 0..s.len() {
        if sh.frozen.get(i).copied().unwrap_or(false) {
            continue;
        }
        let old = s[i];
        let new = (soft_threshold(r[i] + w[i] * old, lambda) / w[i]).clamp(
            round_start[i] - MAX_SHIFT_STEP,
            round_start[i] + MAX_SHIFT_STEP,
        );
        let delta = new - old;
        if delta != 0.0 {
            s[i] = old + delta;
            r[i] -= w[i] * delta;
            eta_k[i] += delta;
            largest = largest.max(w[i] * delta * delta);
        }
    }
    largest
}

/// The exact step of the (never penalised) intercept; returns the weighted
/// squared change.
fn update_intercept(intercept: &mut f64, w: &[f64], r: &mut [f64], eta_k: &mut [f64]) -> f64 {
    let wsum: f64 = w.iter().sum();
    let d0 = r.iter().sum::<f64>() / wsum;
    if d0 == 0.0 {
        return 0.0;
    }
    for i in 0..r.len() {
        r[i] -= w[i] * d0;
        eta_k[i] += d0;
    }
    *intercept += d0;
    wsum * d0 * d0
}

/// Floor of a working weight, so a confident point's step stays finite.
pub(crate) const MIN_CURVATURE: f64 = 1e-5;

/// The weights and residuals of the quadratic approximation for logit `k`
/// (class `class`): P(class | x_i) from the softmax's `rows`, from the
/// sigmoid for two classes (`rows` is `None`).
fn working_response(
    p: &Problem<'_>,
    eta: &DMatrix<f64>,
    rows: Option<&RowSoftmax>,
    k: usize,
    class: usize,
    w: &mut [f64],
    r: &mut [f64],
) {
    use rayon::prelude::*;
    // Rows are independent and the sigmoid per row is most of a binary
    // round's serial time: split across the cores.
    w.par_chunks_mut(ROW_CHUNK)
        .zip(r.par_chunks_mut(ROW_CHUNK))
        .enumerate()
        .for_each(|(b, (w, r))| {
            for (o, (w, r)) in w.iter_mut().zip(r.iter_mut()).enumerate() {
                let i = b * ROW_CHUNK + o;
                let pi = rows.map_or_else(|| sigmoid(eta[(i, 0)]), |rows| rows.prob(i, k));
                // Floor the curvature so confident points still move.
                *w = (pi * (1.0 - pi)).max(MIN_CURVATURE);
                *r = p.targets[(i, class)] - pi;
            }
        });
}

/// Rows per parallel task of the per-row passes of a round.
const ROW_CHUNK: usize = 4096;

/// The softmax of every row as exp(eta_ik - top_i), each row scaled by a
/// reference `top_i` so that no term exceeds one, and the row sums
/// (the Newton rounds' and `SoftmaxRounds`' cache). After one class's predictors
/// change, a row costs one exponential: the row normalisers kept as
/// logarithms cost two exponentials and two logarithms per row and class
/// (a fifth of rLR's time at 200k rows), and a difference of them had to
/// be summed again where the changed class held most of the mass.
struct RowSoftmax {
    /// Row-major, n x K.
    scaled: Vec<f64>,
    top: Vec<f64>,
    total: Vec<f64>,
    k: usize,
}

impl RowSoftmax {
    fn of(eta: &DMatrix<f64>) -> Self {
        let (n, k) = eta.shape();
        let mut rows = Self {
            scaled: vec![0.0; n * k],
            top: vec![0.0; n],
            total: vec![0.0; n],
            k,
        };
        rows.each_row(|i, scaled, top, total| form_row(eta, i, scaled, top, total));
        rows
    }

    /// `f(i, row i of scaled, top_i, total_i)` on every row, in row blocks
    /// on all cores.
    fn each_row(&mut self, f: impl Fn(usize, &mut [f64], &mut f64, &mut f64) + Sync) {
        use rayon::prelude::*;
        let k = self.k;
        self.scaled
            .par_chunks_mut(ROW_CHUNK * k)
            .zip(self.top.par_chunks_mut(ROW_CHUNK))
            .zip(self.total.par_chunks_mut(ROW_CHUNK))
            .enumerate()
            .for_each(|(b, ((scaled, top), total))| {
                for (o, (row, (top, total))) in scaled
                    .chunks_mut(k)
                    .zip(top.iter_mut().zip(total.iter_mut()))
                    .enumerate()
                {
                    f(b * ROW_CHUNK + o, row, top, total);
                }
            });
    }

    fn prob(&self, i: usize, k: usize) -> f64 {
        self.scaled[i * self.k + k] / self.total[i]
    }

    /// ln sum_k exp(eta_ik) of every row.
    fn log_normalisers(&self) -> Vec<f64> {
        self.top
            .iter()
            .zip(&self.total)
            .map(|(t, s)| t + s.ln())
            .collect()
    }

    /// The cache after column `k` of `eta` changed. A new row maximum
    /// becomes the row's reference (rescaling the row) so nothing
    /// overflows; the row sum is added up again from the cached terms
    /// rather than updated by a difference, which would cancel where the
    /// changed class held most of the mass. Should every term have
    /// underflowed, the row is formed again.
    fn update(&mut self, eta: &DMatrix<f64>, k: usize) {
        self.each_row(|i, row, top, total| {
            let d = eta[(i, k)] - *top;
            if d > 0.0 {
                let rescale = (-d).exp();
                row.iter_mut().for_each(|v| *v *= rescale);
                *top = eta[(i, k)];
                row[k] = 1.0;
            } else {
                row[k] = d.exp();
            }
            *total = row.iter().sum();
            if total.is_nan() || *total < TINY_TOTAL {
                form_row(eta, i, row, top, total);
            }
        });
    }
}

/// Row i of a [`RowSoftmax`] from scratch.
fn form_row(eta: &DMatrix<f64>, i: usize, row: &mut [f64], top: &mut f64, total: &mut f64) {
    *top = (0..row.len())
        .map(|c| eta[(i, c)])
        .fold(f64::NEG_INFINITY, f64::max);
    for (c, v) in row.iter_mut().enumerate() {
        *v = (eta[(i, c)] - *top).exp();
    }
    *total = row.iter().sum();
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The problem of `x` as it is, with targets `t`, no offset and every
    /// coefficient penalised alike.
    fn on_raw<'a>(x: &'a DMatrix<f64>, t: &'a DMatrix<f64>) -> Problem<'a> {
        Problem {
            x: Design::raw(x),
            targets: t,
            offset: None,
            penalty_factor: None,
        }
    }

    fn problem_data(n: usize, d: usize, k: usize, seed: u64) -> (DMatrix<f64>, DMatrix<f64>) {
        let mut rng = Rng::new(seed);
        let x = DMatrix::from_fn(n, d, |_, _| rng.normal());
        let mut t = DMatrix::zeros(n, k);
        for i in 0..n {
            let score = x[(i, 0)] - 0.5 * x[(i, 1)];
            let c = if k == 2 {
                usize::from(score + 0.5 * rng.normal() > 0.0)
            } else {
                ((score + 3.0 + 0.3 * rng.normal()).max(0.0) as usize).min(k - 1)
            };
            t[(i, c)] = 1.0;
        }
        (x, t)
    }

    /// A slow reference: proximal gradient with a small fixed step.
    fn reference(p: &Problem<'_>, pen: Penalty) -> Coefs {
        let (n, d) = (p.x.nrows(), p.x.ncols());
        let cc = p.n_logits();
        let mut c = Coefs::zeros(d, cc);
        let step = 1.0 / (n as f64 * d as f64);
        for _ in 0..100_000 {
            let probs = probabilities(&linear(p, &c), p.n_classes());
            for k in 0..cc {
                let class = if cc == 1 { 1 } else { k };
                let resid: Vec<f64> = (0..n)
                    .map(|i| p.targets[(i, class)] - probs[(i, class)])
                    .collect();
                c.intercept[k] += step * resid.iter().sum::<f64>();
                for j in 0..d {
                    let g: f64 = p.x.dot(j, &resid) - pen.l2 * c.beta[(j, k)];
                    c.beta[(j, k)] = soft_threshold(c.beta[(j, k)] + step * g, step * pen.l1);
                }
            }
        }
        c
    }

    #[test]
    fn reaches_the_objective_of_a_slow_reference_binary_and_multiclass() {
        for k in [2, 3] {
            let (x, t) = problem_data(60, 4, k, 3);
            let p = on_raw(&x, &t);
            let pen = Penalty { l1: 2.0, l2: 0.1 };
            let fast = fit(&p, pen, None, 200, 1e-12);
            let slow = reference(&p, pen);
            let (a, b) = (objective(&p, &fast, pen), objective(&p, &slow, pen));
            assert!(a <= b + 1e-4, "k={k}: CD {a} vs reference {b}");
            assert!((a - b).abs() < 1e-2, "k={k}: CD {a} vs reference {b}");
        }
    }

    /// `rounds` from zero coefficients until the proposed step is below
    /// `until` (asserted reached within `max` rounds).
    fn rounds_from_zero(
        rounds: &mut SoftmaxRounds<'_>,
        x: &Design<'_>,
        offset: &DMatrix<f64>,
        max: usize,
        until: f64,
    ) -> Coefs {
        let mut c = Coefs::zeros(x.ncols(), offset.ncols());
        for _ in 0..max {
            let lin = linear_on(x, &c, None);
            let step = rounds.round(&mut c, &lin, offset, 1e-12, None);
            if step.proposed < until {
                return c;
            }
        }
        panic!("no convergence in {max} rounds");
    }

    #[test]
    fn softmax_rounds_with_an_offset_reach_the_full_fit() {
        let (x, t) = problem_data(120, 4, 4, 11);
        let mut rng = Rng::new(12);
        let offset = DMatrix::from_fn(120, 4, |_, _| 0.5 * rng.normal());
        let p = Problem {
            offset: Some(&offset),
            ..on_raw(&x, &t)
        };
        let pen = Penalty { l1: 1.0, l2: 0.1 };
        let full = fit(&p, pen, None, 200, 1e-12);
        let mut rounds = SoftmaxRounds::new(p.x, &t, pen);
        // The class-by-class Newton rounds converge linearly (the
        // intercepts creep along the softmax's redundant direction).
        let c = rounds_from_zero(&mut rounds, &p.x, &offset, 5000, 1e-9);
        let (a, b) = (objective(&p, &c, pen), objective(&p, &full, pen));
        assert!(a <= b + 1e-9 * b, "rounds {a} vs fit {b}");
        assert!((a - b).abs() < 1e-6 * b, "rounds {a} vs fit {b}");
    }

    /// shift's rounds on a tall table weigh their curvature on a sample of
    /// the rows too; with the exact gradient they reach the full fit.
    #[test]
    fn softmax_rounds_on_a_tall_table_reach_the_full_fit() {
        let n = 2 * HESSIAN_ROWS + 1_000;
        let (x, t) = problem_data(n, 3, 3, 17);
        let offset = DMatrix::zeros(n, 3);
        let p = on_raw(&x, &t);
        let pen = Penalty { l1: 50.0, l2: 1.0 };
        let full = fit(&p, pen, None, 200, 1e-12);
        let mut rounds = SoftmaxRounds::new(p.x, &t, pen);
        assert!(rounds.sample.is_some());
        let c = rounds_from_zero(&mut rounds, &p.x, &offset, 500, 1e-7);
        let (a, b) = (objective(&p, &c, pen), objective(&p, &full, pen));
        assert!((a - b).abs() < 1e-7 * b, "rounds {a} vs fit {b}");
    }

    /// The softmax cache kept class by class matches the softmax formed
    /// again, through a class that takes over a row, one that gives up
    /// almost all of its mass, and one that falls out of range.
    #[test]
    fn the_row_softmax_kept_class_by_class_matches_a_fresh_one() {
        let mut eta =
            DMatrix::from_row_slice(3, 3, &[0.0, 1.0, -2.0, 5.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
        let mut rows = RowSoftmax::of(&eta);
        for (k, moves) in [
            (0, [3.0, -40.0, 0.5]),
            (2, [0.0, 2.0, -800.0]),
            (1, [-1.0, 700.0, 0.0]),
        ] {
            for (i, m) in moves.iter().enumerate() {
                eta[(i, k)] += m;
            }
            rows.update(&eta, k);
            let fresh = probabilities(&eta, 3);
            let lse = RowSoftmax::of(&eta).log_normalisers();
            for i in 0..3 {
                for c in 0..3 {
                    assert!((rows.prob(i, c) - fresh[(i, c)]).abs() < 1e-12, "{i},{c}");
                }
                assert!((rows.log_normalisers()[i] - lse[i]).abs() < 1e-9 * lse[i].abs().max(1.0));
            }
        }
    }

    /// A sample's Gram estimates the whole table's, scale included, and
    /// the gradient riding along is the exact one.
    #[test]
    fn a_sampled_gram_estimates_the_full_one_with_the_exact_gradient() {
        let n = 2 * HESSIAN_ROWS + 5_000;
        let (x, _) = problem_data(n, 3, 2, 22);
        let s = Standardizer::fit(&x);
        let design = Design::standardized(&x, &s);
        let w: Vec<f64> = (0..n)
            .map(|i| 0.05 + 0.2 * (i as f64 * 0.37).sin().abs())
            .collect();
        let r: Vec<f64> = (0..n).map(|i| (i as f64 * 0.11).cos()).collect();
        let sample = RowSample::of(&design).unwrap();
        let (coords, cols) = ([0, 1, 2], [0, 1, 2, 3]);
        let full = Curvature::of(None, &design, &w).gram_columns(&design, &coords, &r, &cols);
        let est =
            Curvature::of(Some(&sample), &design, &w).gram_columns(&design, &coords, &r, &cols);
        for a in 0..4 {
            for b in 0..4 {
                let scale = (full[(a, a)] * full[(b, b)]).sqrt();
                assert!((est[(a, b)] - full[(a, b)]).abs() < 0.03 * scale, "{a},{b}");
            }
            assert!(
                (est[(a, 4)] - full[(a, 4)]).abs() < 1e-9 * n as f64,
                "gradient {a}"
            );
        }
    }

    /// Above [`HESSIAN_ROWS`] rows the Newton rounds weigh their curvature
    /// on a sample of the rows; the gradient is exact, so the fit must
    /// still meet the optimality conditions on every row.
    #[test]
    fn a_sampled_curvature_reaches_the_optimum_of_a_tall_problem() {
        for k in [2, 4] {
            let n = 2 * HESSIAN_ROWS + 5_000;
            let (x, t) = problem_data(n, 4, k, 21);
            let s = Standardizer::fit(&x);
            let p = Problem {
                x: Design::standardized(&x, &s),
                targets: &t,
                offset: None,
                penalty_factor: None,
            };
            assert!(RowSample::of(&p.x).is_some());
            let pen = Penalty { l1: 200.0, l2: 0.0 };
            let c = fit(&p, pen, None, 200, 1e-12);
            let probs = probabilities(&linear(&p, &c), k);
            for l in 0..p.n_logits() {
                let class = class_of(p.n_logits(), l);
                let resid: Vec<f64> = (0..n).map(|i| t[(i, class)] - probs[(i, class)]).collect();
                // The fit's tolerance leaves violations up to 0.011 here,
                // the same with the curvature on every row.
                assert!(resid.iter().sum::<f64>().abs() < 5e-2, "k={k}: intercept");
                for j in 0..4 {
                    let (g, b) = (p.x.dot(j, &resid), c.beta[(j, l)]);
                    if b == 0.0 {
                        assert!(g.abs() <= pen.l1 + 5e-2, "k={k} j={j}: {g}");
                    } else {
                        assert!(
                            (g - pen.l1 * b.signum()).abs() < 5e-2,
                            "k={k} j={j}: {g} {b}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn virtual_standardisation_matches_a_standardised_copy() {
        let mut rng = Rng::new(9);
        let x = DMatrix::from_fn(30, 4, |_, j| {
            100.0 * j as f64 + (j + 1) as f64 * rng.normal()
        });
        let s = Standardizer::fit(&x);
        let z = s.apply(&x);
        let (virt, copy) = (Design::standardized(&x, &s), Design::raw(&z));
        let v: Vec<f64> = (0..30).map(|i| (i as f64).sin()).collect();
        for j in 0..4 {
            assert!((virt.dot(j, &v) - copy.dot(j, &v)).abs() < 1e-9);
            assert!((virt.weighted_sq(j, &v) - copy.weighted_sq(j, &v)).abs() < 1e-9);
            assert!((virt.value(3, j) - z[(3, j)]).abs() < 1e-12);
        }
        let mut a = vec![0.0; 30];
        let mut b = vec![0.0; 30];
        virt.axpy(2, 0.7, &mut a);
        copy.axpy(2, 0.7, &mut b);
        assert!(a.iter().zip(&b).all(|(a, b)| (a - b).abs() < 1e-9));
    }

    #[test]
    fn lambda_max_zeroes_every_penalised_coefficient() {
        let (x, t) = problem_data(80, 5, 2, 4);
        let p = on_raw(&x, &t);
        let lm = lambda_max(&p);
        let at = fit(
            &p,
            Penalty {
                l1: lm * 1.001,
                l2: 0.0,
            },
            None,
            100,
            1e-10,
        );
        assert_eq!(at.n_nonzero(), 0);
        let below = fit(
            &p,
            Penalty {
                l1: lm * 0.9,
                l2: 0.0,
            },
            None,
            100,
            1e-10,
        );
        assert!(below.n_nonzero() > 0);
    }

    #[test]
    fn unpenalised_features_are_always_in() {
        let (x, t) = problem_data(80, 3, 2, 5);
        let pf = [0.0, 1.0, 1.0];
        let p = Problem {
            penalty_factor: Some(&pf),
            ..on_raw(&x, &t)
        };
        let c = fit(&p, Penalty { l1: 1e6, l2: 0.0 }, None, 100, 1e-10);
        assert!(c.beta[(0, 0)] != 0.0);
        assert_eq!(c.beta[(1, 0)], 0.0);
    }
}
