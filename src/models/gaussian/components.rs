//! Gaussian class- or cluster-conditional densities with weighted estimation:
//! the shared engine of NDA, rNDA (eqs. 5-6 of Bootkrajang & Kaban 2011) and
//! the mixture models. Estimation takes soft weights (n x K), so a
//! hard-labelled fit and an EM M-step are the same code.

use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;

use crate::models::numerics::{ordered_sum, ordered_sums, tr_product};
use crate::models::standardize::Standardizer;
use crate::models::{CovarianceFamily, FitError, ModelOptions};

const LN_2PI: f64 = 1.837_877_066_409_345_5;
/// Rows per parallel block in the E-step: large enough for an efficient
/// matrix product, small enough to spread over cores.
const ROW_BLOCK: usize = 4096;
/// Rows per parallel block of the E-step: 2000 rows still spread over the
/// cores, and a block whitened for 20 components of 20 features stays
/// in cache (512 x 400 doubles).
const E_ROW_BLOCK: usize = 512;

/// The whitening factor of a component: Mahalanobis distance is
/// `||W (x - mu)||^2`.
#[derive(Clone, Debug)]
enum Whitening {
    /// `W = L^{-1}` where `Sigma = L L^T`.
    Full(DMatrix<f64>),
    /// `W = diag(1 / sd)`.
    Diag(DVector<f64>),
}

/// K Gaussian components sharing one covariance family.
#[derive(Clone, Debug)]
pub struct GaussianComponents {
    pub family: CovarianceFamily,
    pub means: Vec<DVector<f64>>,
    /// Shrinkage intensity actually used, per component (for reports).
    pub shrinkage: Vec<f64>,
    /// Effective weight (sum of responsibilities) of each component.
    pub weights: Vec<f64>,
    log_dets: Vec<f64>,
    whitening: Vec<Whitening>,
}

/// Oracle Approximating Shrinkage intensity (Chen, Wiesel, Eldar & Hero 2010,
/// eq. 23, in the form scikit-learn uses) for shrinking `cov` towards
/// `tr(cov)/p I` from `n` effectively independent samples. It goes to 1 as
/// p/n grows, which is what keeps p >= n_k fits well posed.
/// The covariance options of the class-conditional Gaussian models, checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CovarianceParams {
    pub family: CovarianceFamily,
    /// `None`: the size-aware default (OAS).
    pub shrinkage: Option<f64>,
}

impl CovarianceParams {
    pub fn checked(o: &ModelOptions) -> Result<Self, FitError> {
        Ok(Self {
            family: o.covariance,
            shrinkage: o.checked_shrinkage()?,
        })
    }

    /// A full or tied covariance of p features from n <= p samples is
    /// singular (all it holds is the shrinkage target) and costs p x p
    /// memory and O(p^3) per iteration: rnda on 3 x 5000 ran for minutes
    /// at 0.8 GB. Refuse with the ways out, as the mixtures do; diagonal
    /// and spherical covariances cost O(np) and stay available.
    /// `diagonal`: how to ask this model for a diagonal covariance.
    pub fn require_estimable(
        &self,
        model: &str,
        diagonal: &str,
        x: &DMatrix<f64>,
    ) -> Result<(), FitError> {
        let (n, p) = x.shape();
        if p >= n && matches!(self.family, CovarianceFamily::Full | CovarianceFamily::Tied) {
            return Err(FitError::NotApplicable(format!(
                "{model}: a {} covariance of {p} features cannot be estimated from {n} samples; \
                 use {diagonal} (or spherical), or rlr or shift for wide data",
                self.family.as_str()
            )));
        }
        Ok(())
    }
}

pub fn oas_shrinkage(cov: &DMatrix<f64>, n: f64) -> f64 {
    let p = cov.nrows() as f64;
    let mu = cov.trace() / p;
    let alpha = cov.iter().map(|v| v * v).sum::<f64>() / (p * p);
    let num = alpha + mu * mu;
    let den = (n + 1.0) * (alpha - mu * mu / p);
    if den <= 0.0 {
        1.0
    } else {
        (num / den).clamp(0.0, 1.0)
    }
}

/// A matrix read through a per-feature scaling, `z = (x - mean) / scale`,
/// one block of rows at a time: the Gaussian models fit on standardised
/// features, and a standardised copy of a million-row table is as large as
/// the table (160 MB at 1M x 20). Each value is computed exactly as
/// [`Standardizer::apply`] computes it, so a fit through the view equals a
/// fit on the copy.
#[derive(Clone, Copy, Debug)]
pub struct Scaled<'a> {
    pub x: &'a DMatrix<f64>,
    pub by: Option<&'a Standardizer>,
}

impl<'a> Scaled<'a> {
    /// The matrix as it is.
    pub fn plain(x: &'a DMatrix<f64>) -> Self {
        Self { x, by: None }
    }

    pub fn nrows(&self) -> usize {
        self.x.nrows()
    }

    pub fn ncols(&self) -> usize {
        self.x.ncols()
    }

    /// Rows `s..s + len` of column `j`, scaled, into `out`.
    fn column_into(&self, j: usize, s: usize, out: &mut [f64]) {
        let src = self.x.column(j);
        let src = &src.as_slice()[s..s + out.len()];
        match self.by {
            Some(by) => {
                // A product, not a quotient: a division per cell was 14%
                // of rnda's process on a 200k-row table (the divider, not
                // memory, bound the loop); the two differ by at most an ulp.
                let (m, inv) = (by.mean[j], 1.0 / by.scale[j]);
                for (o, v) in out.iter_mut().zip(src) {
                    *o = (*v - m) * inv;
                }
            }
            None => out.copy_from_slice(src),
        }
    }

    /// Rows `s..s + len`, scaled, as a matrix of their own.
    fn block(&self, s: usize, len: usize) -> DMatrix<f64> {
        let mut b = DMatrix::zeros(len, self.ncols());
        for j in 0..self.ncols() {
            self.column_into(j, s, b.column_mut(j).as_mut_slice());
        }
        b
    }

    /// `sum_i w_ik z_i` for every column k of `weights` (p x K): as the
    /// plain matrix's `tr_mul` per column, or, through a scaling, one
    /// product per block of rows on every core.
    fn weighted_sums(&self, weights: &DMatrix<f64>) -> DMatrix<f64> {
        let (n, p, k) = (self.nrows(), self.ncols(), weights.ncols());
        if self.by.is_none() {
            let mut out = DMatrix::zeros(p, k);
            for c in 0..k {
                out.set_column(c, &self.x.tr_mul(&weights.column(c)));
            }
            return out;
        }
        let starts: Vec<usize> = (0..n).step_by(ROW_BLOCK).collect();
        ordered_sum(&starts, &DMatrix::zeros(p, k), |s| {
            let len = ROW_BLOCK.min(n - s);
            tr_product(&self.block(s, len), &weights.rows(s, len).into_owned())
        })
    }
}

impl GaussianComponents {
    /// Weighted maximum-likelihood estimate of K components from
    /// `weights[(i, k)]` (responsibilities or 0/1 labels).
    ///
    /// `shrinkage`: `None` = OAS for full/tied, none for diag/spherical;
    /// `Some(s)` = `(1 - s) S + s tr(S)/p I` (for diag/spherical: the
    /// variances shrink towards their mean). A small floor relative to the
    /// average variance keeps every covariance positive definite.
    pub fn estimate(
        x: &DMatrix<f64>,
        weights: &DMatrix<f64>,
        family: CovarianceFamily,
        shrinkage: Option<f64>,
        names: &(dyn Fn(usize) -> String + Sync),
    ) -> Result<Self, FitError> {
        Self::estimate_scaled(Scaled::plain(x), weights, family, shrinkage, names)
    }

    /// [`GaussianComponents::estimate`] on a matrix read through a scaling.
    pub fn estimate_scaled(
        x: Scaled<'_>,
        weights: &DMatrix<f64>,
        family: CovarianceFamily,
        shrinkage: Option<f64>,
        names: &(dyn Fn(usize) -> String + Sync),
    ) -> Result<Self, FitError> {
        let k = weights.ncols();
        debug_assert_eq!(weights.nrows(), x.nrows());
        let totals: Vec<f64> = (0..k).map(|c| weights.column(c).sum()).collect();
        for (c, &t) in totals.iter().enumerate() {
            if t.is_nan() || t <= 1e-9 {
                return Err(FitError::Numerical(format!(
                    "{} has no samples left to estimate its mean and covariance; \
                     use fewer classes or components, or a model with a fixed noise table",
                    names(c)
                )));
            }
        }
        let sums = x.weighted_sums(weights);
        let means: Vec<DVector<f64>> = (0..k).map(|c| sums.column(c) / totals[c]).collect();

        let (shrink, log_dets, whitening) = match family {
            CovarianceFamily::Full | CovarianceFamily::Tied => {
                full_covariances(x, weights, &totals, &means, family, shrinkage, names)?
            }
            CovarianceFamily::Diag | CovarianceFamily::Spherical => {
                let mut sh = Vec::with_capacity(k);
                let mut ld = Vec::with_capacity(k);
                let mut wh = Vec::with_capacity(k);
                for c in 0..k {
                    let mut var = weighted_variances(x, &weights.column(c).into_owned(), &means[c]);
                    var /= totals[c];
                    let avg = var.mean();
                    let s = shrinkage.unwrap_or(0.0);
                    if family == CovarianceFamily::Spherical {
                        var.fill(avg);
                    } else if s > 0.0 {
                        var.apply(|v| *v = (1.0 - s) * *v + s * avg);
                    }
                    let floor = (1e-6 * avg).max(1e-10);
                    var.apply(|v| *v = v.max(floor));
                    ld.push(var.iter().map(|v| v.ln()).sum());
                    wh.push(Whitening::Diag(var.map(|v| 1.0 / v.sqrt())));
                    sh.push(s);
                }
                (sh, ld, wh)
            }
        };
        Ok(Self {
            family,
            means,
            shrinkage: shrink,
            weights: totals,
            log_dets,
            whitening,
        })
    }

    pub fn n_components(&self) -> usize {
        self.means.len()
    }

    /// `log N(x_i | mu_k, Sigma_k)` for every row i and component k (n x K),
    /// computed in parallel blocks of rows. The blocks are smaller than the
    /// M-step's: the mixture E-step ran on one core below 4096 rows, and
    /// it is most of a mixture fit's time.
    pub fn log_densities(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        self.log_densities_scaled(Scaled::plain(x))
    }

    /// [`GaussianComponents::log_densities`] of a matrix read through a
    /// scaling.
    pub fn log_densities_scaled(&self, x: Scaled<'_>) -> DMatrix<f64> {
        let n = x.nrows();
        let k = self.n_components();
        let stacked = self.stacked_whitening();
        let starts: Vec<usize> = (0..n).step_by(E_ROW_BLOCK).collect();
        let blocks: Vec<DMatrix<f64>> = starts
            .par_iter()
            .map(|&s| {
                let len = E_ROW_BLOCK.min(n - s);
                self.block_log_densities(&x.block(s, len), stacked.as_ref())
            })
            .collect();
        let mut out = DMatrix::zeros(n, k);
        for (&s, b) in starts.iter().zip(blocks) {
            out.rows_mut(s, b.nrows()).copy_from(&b);
        }
        out
    }

    /// Every full whitening factor side by side, transposed (p x Kp), and
    /// the whitened means: one matrix product then whitens a block for all
    /// components, far faster than K products with p columns each.
    fn stacked_whitening(&self) -> Option<(DMatrix<f64>, Vec<DVector<f64>>)> {
        // Diagonal whitenings need no stack: deciding before allocating
        // keeps a diagonal fit at O(p) memory (54,675 features asked for a
        // p x Kp matrix of 47.8 GB).
        if !self
            .whitening
            .iter()
            .all(|w| matches!(w, Whitening::Full(_)))
        {
            return None;
        }
        let p = self.means.first().map_or(0, |m| m.len());
        let k = self.n_components();
        let mut stacked = DMatrix::zeros(p, k * p);
        let mut shifts = Vec::with_capacity(k);
        for (c, w) in self.whitening.iter().enumerate() {
            let Whitening::Full(w) = w else {
                return None;
            };
            stacked.columns_mut(c * p, p).copy_from(&w.transpose());
            shifts.push(w * &self.means[c]);
        }
        Some((stacked, shifts))
    }

    fn block_log_densities(
        &self,
        xb: &DMatrix<f64>,
        stacked: Option<&(DMatrix<f64>, Vec<DVector<f64>>)>,
    ) -> DMatrix<f64> {
        let (m, p) = xb.shape();
        let k = self.n_components();
        let whitened = stacked.map(|(w, _)| xb * w);
        let mut out = DMatrix::zeros(m, k);
        for c in 0..k {
            let mut acc = vec![0.0; m];
            match (&whitened, stacked, &self.whitening[c]) {
                (Some(z), Some((_, shifts)), _) => {
                    add_squared_norms(&mut acc, z, c * p, &shifts[c]);
                }
                (_, _, Whitening::Full(w)) => {
                    add_squared_norms(&mut acc, &(xb * w.transpose()), 0, &(w * &self.means[c]));
                }
                (_, _, Whitening::Diag(inv_sd)) => {
                    for j in 0..p {
                        let (mu, is) = (self.means[c][j], inv_sd[j]);
                        for (a, v) in acc.iter_mut().zip(xb.column(j).as_slice()) {
                            let d = (v - mu) * is;
                            *a += d * d;
                        }
                    }
                }
            }
            let constant = -0.5 * (p as f64 * LN_2PI + self.log_dets[c]);
            for (o, d) in out.column_mut(c).as_mut_slice().iter_mut().zip(acc) {
                *o = constant - 0.5 * d;
            }
        }
        out
    }

    /// The means and covariances as one flat vector (each component's mean,
    /// then its covariance's lower triangle or variances), for SQUAREM,
    /// which extrapolates EM's map in this space. The covariance is the
    /// one the densities use (after shrinkage and ridge).
    pub fn to_flat(&self) -> Vec<f64> {
        let mut out = Vec::new();
        for (mean, w) in self.means.iter().zip(&self.whitening) {
            out.extend(mean.iter());
            match w {
                Whitening::Full(w) => {
                    let cov = covariance_of(w);
                    for j in 0..cov.ncols() {
                        out.extend(cov.column(j).iter().skip(j));
                    }
                }
                Whitening::Diag(inv_sd) => out.extend(inv_sd.iter().map(|v| 1.0 / (v * v))),
            }
        }
        out
    }

    /// These components moved to the parameters `flat` (laid out as by
    /// [`Self::to_flat`]), or `None` when a covariance is not positive
    /// definite: an extrapolated point outside the parameter space is
    /// rejected, not repaired, so no ridge is added here.
    pub fn with_flat(&self, flat: &[f64]) -> Option<Self> {
        let p = self.means.first().map_or(0, |m| m.len());
        let mut means = Vec::with_capacity(self.means.len());
        let mut log_dets = Vec::with_capacity(self.means.len());
        let mut whitening = Vec::with_capacity(self.means.len());
        let mut at = 0;
        for w in &self.whitening {
            means.push(DVector::from_column_slice(&flat[at..at + p]));
            at += p;
            let (ld, wh) = match w {
                Whitening::Full(_) => {
                    let mut cov = DMatrix::zeros(p, p);
                    for j in 0..p {
                        for i in j..p {
                            cov[(i, j)] = flat[at];
                            cov[(j, i)] = flat[at];
                            at += 1;
                        }
                    }
                    let l = cov.cholesky()?.l();
                    let log_det = 2.0 * l.diagonal().iter().map(|v| v.ln()).sum::<f64>();
                    (log_det, Whitening::Full(inverse_lower(&l)))
                }
                Whitening::Diag(_) => {
                    let var = DVector::from_column_slice(&flat[at..at + p]);
                    at += p;
                    if !var.iter().all(|v| v.is_finite() && *v > 0.0) {
                        return None;
                    }
                    let log_det = var.iter().map(|v| v.ln()).sum();
                    (log_det, Whitening::Diag(var.map(|v| 1.0 / v.sqrt())))
                }
            };
            if !ld.is_finite() {
                return None;
            }
            log_dets.push(ld);
            whitening.push(wh);
        }
        Some(Self {
            family: self.family,
            means,
            shrinkage: self.shrinkage.clone(),
            weights: self.weights.clone(),
            log_dets,
            whitening,
        })
    }

    /// The covariance of component `c` as a dense matrix (for reports).
    pub fn covariance(&self, c: usize) -> DMatrix<f64> {
        match &self.whitening[c] {
            Whitening::Full(w) => {
                let inv = w.tr_mul(w); // Sigma^{-1} = W^T W
                inv.try_inverse()
                    .unwrap_or_else(|| DMatrix::zeros(w.nrows(), w.ncols()))
            }
            Whitening::Diag(inv_sd) => DMatrix::from_diagonal(&inv_sd.map(|v| 1.0 / (v * v))),
        }
    }
}

/// Adds `||z_i - shift||^2` to `acc[i]`, `z_i` the row i of the columns
/// `first..first + shift.len()` of `z`: rows of `z` are `W x_i`, so this is
/// the Mahalanobis distance `||W (x_i - mu)||^2` with `shift = W mu`, shift
/// and square taken in one pass. Columns are read as slices, which the
/// compiler vectorises (nalgebra's strided iterator does not).
fn add_squared_norms(acc: &mut [f64], z: &DMatrix<f64>, first: usize, shift: &DVector<f64>) {
    for (j, sj) in shift.iter().enumerate() {
        for (a, v) in acc.iter_mut().zip(z.column(first + j).as_slice()) {
            let d = v - sj;
            *a += d * d;
        }
    }
}

/// `sum_i w_ic (x_i - mu_c)(x_i - mu_c)^T` for every component c (a column
/// of `weights`), as matrix products of centred, sqrt-weighted blocks of
/// rows (centring first keeps it accurate far from the origin; blocks keep
/// the copy in cache and spread over cores). Each block is scaled once for
/// all components: a scaling per component was a twelfth of rnda's time on
/// a million rows.
fn weighted_scatters(
    x: Scaled<'_>,
    weights: &DMatrix<f64>,
    means: &[DVector<f64>],
) -> Vec<DMatrix<f64>> {
    let (n, p) = (x.nrows(), x.ncols());
    let starts: Vec<usize> = (0..n).step_by(ROW_BLOCK).collect();
    let zero = vec![DMatrix::zeros(p, p); means.len()];
    ordered_sums(&starts, &zero, |s| {
        let len = ROW_BLOCK.min(n - s);
        let scaled = x.block(s, len);
        let mut block = DMatrix::zeros(len, p);
        means
            .iter()
            .enumerate()
            .map(|(c, mu)| {
                let w = weights.column(c);
                let sw: Vec<f64> = w.rows(s, len).iter().map(|v| v.max(0.0).sqrt()).collect();
                for j in 0..p {
                    let m = mu[j];
                    let from = scaled.column(j);
                    let mut to = block.column_mut(j);
                    let pairs = to.as_mut_slice().iter_mut().zip(from.as_slice());
                    for ((v, z), swv) in pairs.zip(&sw) {
                        *v = (*z - m) * swv;
                    }
                }
                // Through the blocked gemm kernel, reading the block's
                // transpose in place (a transposed copy cost as much as the
                // product at p = 20; `tr_mul` computes plain dot products).
                tr_product(&block, &block)
            })
            .collect()
    })
}

fn weighted_variances(x: Scaled<'_>, w: &DVector<f64>, mu: &DVector<f64>) -> DVector<f64> {
    let n = x.nrows();
    let mut buf = vec![0.0; n];
    DVector::from_iterator(
        x.ncols(),
        (0..x.ncols()).map(|j| {
            let m = mu[j];
            x.column_into(j, 0, &mut buf);
            buf.iter()
                .zip(w.as_slice())
                .map(|(v, wi)| wi * (v - m) * (v - m))
                .sum::<f64>()
        }),
    )
}

type Factored = (Vec<f64>, Vec<f64>, Vec<Whitening>);

/// The full (or tied) covariances of the components, each shrunk, floored
/// and factored within the directions in which the rows vary at all
/// ([`DataRange`]).
fn full_covariances(
    x: Scaled<'_>,
    weights: &DMatrix<f64>,
    totals: &[f64],
    means: &[DVector<f64>],
    family: CovarianceFamily,
    shrinkage: Option<f64>,
    names: &(dyn Fn(usize) -> String + Sync),
) -> Result<Factored, FitError> {
    let (p, k) = (x.ncols(), weights.ncols());
    let scatters = weighted_scatters(x, weights, means);
    let kish: Vec<f64> = (0..k)
        .map(|c| {
            let w = weights.column(c);
            totals[c] * totals[c] / w.norm_squared().max(1e-300)
        })
        .collect();
    let range = DataRange::of(&scatters, totals, means);
    if family == CovarianceFamily::Tied {
        let total: f64 = totals.iter().sum();
        let pooled = scatters
            .into_iter()
            .fold(DMatrix::zeros(p, p), |acc, s| acc + s)
            / total;
        let n_eff = kish.iter().sum::<f64>();
        let (s, ld, w) = range.factor(pooled, shrinkage, n_eff, &names(0))?;
        return Ok((vec![s; k], vec![ld; k], vec![w; k]));
    }
    let results: Vec<_> = scatters
        .into_par_iter()
        .enumerate()
        .map(|(c, s)| range.factor(s / totals[c], shrinkage, kish[c], &names(c)))
        .collect();
    let mut out: Factored = (
        Vec::with_capacity(k),
        Vec::with_capacity(k),
        Vec::with_capacity(k),
    );
    for r in results {
        let (s, l, w) = r?;
        out.0.push(s);
        out.1.push(l);
        out.2.push(w);
    }
    Ok(out)
}

/// Below this fraction of the largest variance, a direction of the rows'
/// total covariance counts as one in which no row varies (the same relative
/// scale as [`factor_full`]'s ridge).
const NULL_VARIANCE: f64 = 1e-9;

/// The directions in which the rows vary. Collinear features (the one-hot
/// levels of a categorical column sum to one) leave directions in which no
/// row varies; every component's covariance is singular there, and its
/// shrinkage alone (different per class) would set the variance, so the
/// log-determinants, the likelihood and the posterior: one class took every
/// row (issue 48, a 7032 x 19 table with 10 string columns). Those
/// directions say nothing about the class: each covariance is estimated in
/// the range and given unit variance across it, the same for every
/// component (no row or mean differs there, so only the log-determinant
/// sees it, and equally).
enum DataRange {
    /// The rows vary in every direction (the usual case: nothing changes).
    Whole,
    /// Orthonormal bases of the range (p x r) and of the null space (p x m).
    Split(DMatrix<f64>, DMatrix<f64>),
}

impl DataRange {
    /// From the components' scatters and means: their total scatter, the
    /// rows' covariance about the overall mean. A Cholesky factor with every
    /// pivot above [`NULL_VARIANCE`] proves the range whole without the
    /// eigen-decomposition.
    fn of(scatters: &[DMatrix<f64>], totals: &[f64], means: &[DVector<f64>]) -> Self {
        let p = means.first().map_or(0, |m| m.len());
        let n: f64 = totals.iter().sum();
        let centre = means
            .iter()
            .zip(totals)
            .fold(DVector::zeros(p), |acc, (m, t)| acc + m * *t)
            / n;
        let mut total = scatters.iter().fold(DMatrix::zeros(p, p), |acc, s| acc + s);
        for (m, &t) in means.iter().zip(totals) {
            let d = m - &centre;
            total += &d * d.transpose() * t;
        }
        total /= n;
        let scale = total.diagonal().max().max(1e-300);
        let whole = total.clone().cholesky().is_some_and(|chol| {
            let pivots = chol.l().diagonal();
            pivots.iter().all(|v| v * v > NULL_VARIANCE * scale)
        });
        if whole {
            return Self::Whole;
        }
        let eigen = total.symmetric_eigen();
        let largest = eigen.eigenvalues.max().max(1e-300);
        let (kept, null): (Vec<usize>, Vec<usize>) =
            (0..p).partition(|&j| eigen.eigenvalues[j] > NULL_VARIANCE * largest);
        if null.is_empty() {
            return Self::Whole;
        }
        let basis = |cols: &[usize]| {
            DMatrix::from_fn(p, cols.len(), |i, j| eigen.eigenvectors[(i, cols[j])])
        };
        Self::Split(basis(&kept), basis(&null))
    }

    /// [`factor_full`] within the range; the whitening then maps the range
    /// through the factor and the null space through the identity.
    fn factor(
        &self,
        cov: DMatrix<f64>,
        shrinkage: Option<f64>,
        n_eff: f64,
        name: &str,
    ) -> Result<(f64, f64, Whitening), FitError> {
        let Self::Split(range, null) = self else {
            let (s, log_det, w) = factor_full(cov, shrinkage, n_eff, name)?;
            return Ok((s, log_det, Whitening::Full(w)));
        };
        let inner = range.tr_mul(&cov) * range;
        let (s, log_det, w) = factor_full(inner, shrinkage, n_eff, name)?;
        let (p, r) = range.shape();
        let mut whitening = DMatrix::zeros(p, p);
        whitening.rows_mut(0, r).copy_from(&(w * range.transpose()));
        whitening.rows_mut(r, p - r).copy_from(&null.transpose());
        Ok((s, log_det, Whitening::Full(whitening)))
    }
}

/// Sigma from its whitening factor W (Sigma^{-1} = W^T W): through the
/// triangular inverse when W is a Cholesky factor's inverse, as it is
/// unless [`DataRange`] split the features.
fn covariance_of(w: &DMatrix<f64>) -> DMatrix<f64> {
    if w.upper_triangle() == DMatrix::from_diagonal(&w.diagonal()) {
        let l = inverse_lower(w);
        return &l * l.transpose();
    }
    w.tr_mul(w)
        .try_inverse()
        .unwrap_or_else(|| DMatrix::zeros(w.nrows(), w.ncols()))
}

/// The inverse of a lower-triangular matrix (itself lower triangular).
fn inverse_lower(l: &DMatrix<f64>) -> DMatrix<f64> {
    let p = l.nrows();
    l.solve_lower_triangular(&DMatrix::identity(p, p))
        .unwrap_or_else(|| DMatrix::zeros(p, p))
}

/// Shrinks, floors and factors one full covariance. Returns the shrinkage
/// used, `log det Sigma` and the whitening factor `L^{-1}`.
fn factor_full(
    mut cov: DMatrix<f64>,
    shrinkage: Option<f64>,
    n_eff: f64,
    name: &str,
) -> Result<(f64, f64, DMatrix<f64>), FitError> {
    let p = cov.nrows();
    let avg = cov.trace() / p as f64;
    let s = shrinkage.unwrap_or_else(|| oas_shrinkage(&cov, n_eff));
    if s > 0.0 {
        cov *= 1.0 - s;
        for j in 0..p {
            cov[(j, j)] += s * avg;
        }
    }
    // A relative ridge: tiny against the data's scale, but enough to make a
    // covariance of constant or collinear features factorable.
    let mut ridge = (1e-9 * avg).max(1e-12);
    for _ in 0..12 {
        let mut c = cov.clone();
        for j in 0..p {
            c[(j, j)] += ridge;
        }
        if let Some(chol) = c.cholesky() {
            let l = chol.l();
            let log_det = 2.0 * l.diagonal().iter().map(|v| v.ln()).sum::<f64>();
            let inv = l
                .solve_lower_triangular(&DMatrix::identity(p, p))
                .ok_or_else(|| FitError::Numerical(format!("covariance of {name} is singular")))?;
            return Ok((s, log_det, inv));
        }
        ridge *= 100.0;
    }
    Err(FitError::Numerical(format!(
        "the covariance of {name} is not positive definite even after regularisation; \
         use --cov diag or --shrinkage 0.5"
    )))
}

/// Classifies new rows with fitted components and class log-priors:
/// `P(k | x) ∝ prior_k N(x | mu_k, Sigma_k)` on standardised features.
#[derive(Clone, Debug)]
pub struct GaussianClassifier {
    pub standardizer: crate::models::standardize::Standardizer,
    pub components: GaussianComponents,
    pub log_prior: Vec<f64>,
}

impl GaussianClassifier {
    /// Reports each class's covariance shrinkage and becomes the fit's
    /// classifier: how every class-conditional Gaussian model ends its fit.
    pub fn attach_to(self, fit: &mut crate::models::Fit) {
        for (c, s) in self.components.shrinkage.iter().enumerate() {
            fit.extra.scalars.push((format!("shrinkage[{c}]"), *s));
        }
        fit.classifier = Some(std::sync::Arc::new(self));
    }
}

impl crate::models::Classifier for GaussianClassifier {
    fn predict_proba(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        let z = self.standardizer.apply(x);
        let mut lw = self.components.log_densities(&z);
        for (c, lp) in self.log_prior.iter().enumerate() {
            lw.column_mut(c).apply(|v| *v += lp);
        }
        crate::models::numerics::normalise_log_rows(&mut lw);
        lw
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn names(c: usize) -> String {
        format!("class {c}")
    }

    #[test]
    fn full_density_matches_the_closed_form_in_two_dimensions() {
        // Hard weights: rows 0..4 belong to component 0.
        let x = DMatrix::from_row_slice(4, 2, &[1.0, 2.0, 2.0, 1.0, 3.0, 5.0, 0.0, 0.0]);
        let w = DMatrix::from_element(4, 1, 1.0);
        let g = GaussianComponents::estimate(&x, &w, CovarianceFamily::Full, Some(0.0), &names)
            .unwrap();
        let mu = x.row_mean();
        let xc = DMatrix::from_fn(4, 2, |i, j| x[(i, j)] - mu[j]);
        let cov = xc.tr_mul(&xc) / 4.0;
        let inv = cov.clone().try_inverse().unwrap();
        let d = nalgebra::DVector::from_vec(vec![1.0 - mu[0], 2.0 - mu[1]]);
        let maha = (d.transpose() * &inv * &d)[(0, 0)];
        let expected = -0.5 * (2.0 * LN_2PI + cov.determinant().ln() + maha);
        let got = g.log_densities(&x)[(0, 0)];
        assert!((got - expected).abs() < 1e-6, "{got} vs {expected}");
    }

    #[test]
    fn more_features_than_samples_still_factors() {
        let x = DMatrix::from_fn(5, 40, |i, j| ((i * 7 + j * 3) % 11) as f64);
        let w = DMatrix::from_element(5, 1, 1.0);
        for family in CovarianceFamily::ALL {
            let g = GaussianComponents::estimate(&x, &w, family, None, &names).unwrap();
            assert!(
                g.log_densities(&x).iter().all(|v| v.is_finite()),
                "{family}"
            );
        }
    }

    /// Two classes of 3 features (different spreads), and the same rows
    /// with a fourth feature that is the sum of the three.
    fn with_a_redundant_column() -> (DMatrix<f64>, DMatrix<f64>, DMatrix<f64>) {
        let mut rng = crate::rng::Rng::new(3);
        let n = 400;
        let x = DMatrix::from_fn(n, 3, |i, j| {
            let spread = if i < n / 2 { 1.0 } else { 2.5 };
            spread * rng.normal() + (i >= n / 2) as usize as f64 * (j as f64 - 1.0)
        });
        let mut wide = DMatrix::zeros(n, 4);
        wide.columns_mut(0, 3).copy_from(&x);
        for i in 0..n {
            wide[(i, 3)] = x.row(i).sum();
        }
        let w = DMatrix::from_fn(n, 2, |i, c| ((i >= n / 2) as usize == c) as usize as f64);
        (x, wide, w)
    }

    #[test]
    fn a_redundant_feature_leaves_the_class_densities_as_they_were() {
        // Issue 48: collinear features (one-hot levels summing to one) made
        // every covariance singular along their sum, where each class's own
        // ridge or shrinkage alone set the log-determinant: the classes'
        // densities then differed by that, not by the data. Unshrunk, the
        // Gaussian fit is affine invariant, so the redundant column must not
        // move the difference between the classes' log-densities.
        let (x, wide, w) = with_a_redundant_column();
        for family in [CovarianceFamily::Full, CovarianceFamily::Tied] {
            let narrow = GaussianComponents::estimate(&x, &w, family, Some(0.0), &names).unwrap();
            let full = GaussianComponents::estimate(&wide, &w, family, Some(0.0), &names).unwrap();
            let (a, b) = (narrow.log_densities(&x), full.log_densities(&wide));
            for i in 0..x.nrows() {
                let gap = (a[(i, 1)] - a[(i, 0)]) - (b[(i, 1)] - b[(i, 0)]);
                assert!(gap.abs() < 1e-6, "{family} row {i}: off by {gap}");
            }
            // The flat round trip (SQUAREM's) keeps the split covariance.
            let back = full.with_flat(&full.to_flat()).unwrap();
            let c = back.log_densities(&wide);
            assert!((&c - &b).amax() < 1e-6, "{family}");
        }
    }

    #[test]
    fn constant_features_do_not_break_any_family() {
        let x = DMatrix::from_element(6, 3, 2.5);
        let w = DMatrix::from_element(6, 1, 1.0);
        for family in CovarianceFamily::ALL {
            let g = GaussianComponents::estimate(&x, &w, family, Some(0.0), &names).unwrap();
            assert!(
                g.log_densities(&x).iter().all(|v| v.is_finite()),
                "{family}"
            );
        }
    }

    #[test]
    fn an_empty_component_is_an_error_that_names_it() {
        let x = DMatrix::from_element(3, 2, 1.0);
        let w = DMatrix::from_row_slice(3, 2, &[1.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
        let err =
            GaussianComponents::estimate(&x, &w, CovarianceFamily::Full, None, &names).unwrap_err();
        assert!(err.to_string().contains("class 1"), "{err}");
    }

    /// Reading a matrix through its scaling, block by block, fits what the
    /// standardised copy fits: means, covariances and densities, for every
    /// family, over more rows than one block.
    #[test]
    fn a_fit_through_the_scaling_equals_a_fit_on_the_standardised_copy() {
        let mut rng = crate::rng::Rng::new(5);
        let n = ROW_BLOCK + 777;
        let x = DMatrix::from_fn(n, 3, |i, j| {
            100.0 * j as f64 + (1.0 + j as f64) * rng.normal() + (i % 2) as f64
        });
        let weights = DMatrix::from_fn(n, 2, |i, k| if i % 2 == k { 0.9 } else { 0.1 });
        let by = Standardizer::fit(&x);
        let z = by.apply(&x);
        let scaled = Scaled {
            x: &x,
            by: Some(&by),
        };
        for family in [
            CovarianceFamily::Full,
            CovarianceFamily::Tied,
            CovarianceFamily::Diag,
            CovarianceFamily::Spherical,
        ] {
            let copy = GaussianComponents::estimate(&z, &weights, family, None, &names).unwrap();
            let view = GaussianComponents::estimate_scaled(scaled, &weights, family, None, &names)
                .unwrap();
            for c in 0..2 {
                assert!(
                    (&copy.means[c] - &view.means[c]).amax() < 1e-12,
                    "{family:?}"
                );
                assert!((copy.covariance(c) - view.covariance(c)).amax() < 1e-12);
            }
            let d = copy.log_densities(&z) - view.log_densities_scaled(scaled);
            assert!(d.amax() < 1e-9, "{family:?}: {}", d.amax());
        }
    }

    #[test]
    fn flat_parameters_round_trip_and_reject_an_indefinite_covariance() {
        let x = DMatrix::from_fn(40, 3, |i, j| {
            ((i * 7 + j * 5) % 13) as f64 + (i * j) as f64 * 0.1
        });
        let w = DMatrix::from_fn(
            40,
            2,
            |i, c| if (i % 2 == 0) == (c == 0) { 0.8 } else { 0.2 },
        );
        for family in CovarianceFamily::ALL {
            let g = GaussianComponents::estimate(&x, &w, family, None, &names).unwrap();
            let flat = g.to_flat();
            let back = g.with_flat(&flat).unwrap();
            let (a, b) = (g.log_densities(&x), back.log_densities(&x));
            assert!((a - b).amax() < 1e-8, "{family}");
            // The first variance of the first component made negative.
            let mut bad = flat.clone();
            bad[3] = -1.0;
            assert!(g.with_flat(&bad).is_none(), "{family}");
        }
    }

    #[test]
    fn oas_goes_to_one_when_samples_are_few() {
        let cov = DMatrix::from_diagonal(&DVector::from_vec(vec![1.0, 2.0, 3.0]));
        assert!(oas_shrinkage(&cov, 1e6) < 0.01);
        assert!(oas_shrinkage(&cov, 1.0) > 0.2);
    }
}
