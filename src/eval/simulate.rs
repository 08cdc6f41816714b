//! Data drawn from the models themselves, for parameter-recovery checks and
//! benchmarks.

use nalgebra::{DMatrix, DVector};

use crate::rng::Rng;

/// A labelled sample with known truth.
#[derive(Clone, Debug)]
pub struct Simulated {
    pub x: DMatrix<f64>,
    pub true_labels: Vec<usize>,
    pub given: Vec<usize>,
}

impl Simulated {
    pub fn flipped(&self) -> Vec<bool> {
        self.true_labels
            .iter()
            .zip(&self.given)
            .map(|(t, g)| t != g)
            .collect()
    }
}

/// The generative model of rNDA: true class ~ `priors`, x ~ N(mu_k, Sigma_k),
/// given label ~ row k of `p_given_true` (rows = true class).
/// `cov_factors[k]` is any L with Sigma_k = L L^T.
pub fn gaussian_with_flips(
    n: usize,
    means: &[DVector<f64>],
    cov_factors: &[DMatrix<f64>],
    priors: &[f64],
    p_given_true: &DMatrix<f64>,
    seed: u64,
) -> Simulated {
    let mut rng = Rng::new(seed);
    let d = means[0].len();
    let mut x = DMatrix::zeros(n, d);
    let mut true_labels = Vec::with_capacity(n);
    let mut given = Vec::with_capacity(n);
    let k = priors.len();
    for i in 0..n {
        let c = rng.categorical(priors);
        let z = DVector::from_fn(d, |_, _| rng.normal());
        let v = &means[c] + &cov_factors[c] * z;
        x.row_mut(i).copy_from(&v.transpose());
        let row: Vec<f64> = (0..k).map(|j| p_given_true[(c, j)]).collect();
        true_labels.push(c);
        given.push(rng.categorical(&row));
    }
    Simulated {
        x,
        true_labels,
        given,
    }
}

/// A random lower-triangular factor with a positive diagonal, scaled so the
/// covariance has entries of order `scale^2`.
pub fn random_cov_factor(d: usize, scale: f64, rng: &mut Rng) -> DMatrix<f64> {
    DMatrix::from_fn(d, d, |i, j| {
        if i == j {
            scale * rng.uniform_in(0.6, 1.2)
        } else if i > j {
            scale * 0.3 * rng.normal()
        } else {
            0.0
        }
    })
}

/// Draws `n` points from a mixture of spherical Gaussians: cluster `j` with
/// probability `weights[j]`, then `x ~ N(means[j], sds[j]^2 I)`. Returns the
/// points and the cluster of every point (the generative model of RMDA's
/// and MDA's simulations, Bouveyron & Girard 2009 section 4).
pub fn spherical_mixture(
    n: usize,
    means: &[DVector<f64>],
    sds: &[f64],
    weights: &[f64],
    rng: &mut Rng,
) -> (DMatrix<f64>, Vec<usize>) {
    let d = means.first().map_or(0, |m| m.len());
    let mut x = DMatrix::zeros(n, d);
    let mut clusters = Vec::with_capacity(n);
    for i in 0..n {
        let c = rng.categorical(weights);
        for j in 0..d {
            x[(i, j)] = means[c][j] + sds[c] * rng.normal();
        }
        clusters.push(c);
    }
    (x, clusters)
}
