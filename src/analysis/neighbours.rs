//! What the detail pane shows about the selected sample, computed when the
//! selection changes (never while drawing): its features ranked by how far
//! they are from the feature's mean, and its nearest neighbours.

use nalgebra::DMatrix;
use rayon::prelude::*;

use crate::dataset::Dataset;
use crate::models::standardize::Standardizer;

/// Neighbours listed in the detail pane.
const NEIGHBOURS: usize = 6;

#[derive(Clone, Debug, Default)]
pub struct Detail {
    pub sample: usize,
    /// (feature index, value, standardised deviation), largest |z| first.
    pub features: Vec<(usize, f64, f64)>,
    /// (sample, distance) of the nearest other samples.
    pub neighbours: Vec<(usize, f64)>,
}

#[derive(Clone, Debug)]
pub struct DetailCache {
    standardizer: Standardizer,
    pub current: Option<Detail>,
}

impl DetailCache {
    pub fn new(x: &DMatrix<f64>) -> DetailCache {
        DetailCache {
            standardizer: Standardizer::fit(x),
            current: None,
        }
    }

    pub fn invalidate(&mut self) {
        self.current = None;
    }

    pub fn select(&mut self, ds: &Dataset, sample: usize) {
        if self.current.as_ref().is_some_and(|d| d.sample == sample) {
            return;
        }
        let (mean, scale) = (&self.standardizer.mean, &self.standardizer.scale);
        let z = |i: usize, j: usize| (ds.x[(i, j)] - mean[j]) / scale[j];
        let p = ds.x.ncols();
        let mut features: Vec<(usize, f64, f64)> = (0..p)
            .map(|j| (j, ds.x[(sample, j)], z(sample, j)))
            .collect();
        features.sort_by(|a, b| b.2.abs().total_cmp(&a.2.abs()));
        let dist = nearest(
            &ds.x,
            self.standardizer.scale.as_slice(),
            sample,
            NEIGHBOURS,
        );
        self.current = Some(Detail {
            sample,
            features,
            neighbours: dist,
        });
    }
}

/// The `k` samples nearest to `sample` by Euclidean distance on
/// standardised features, nearest first. A full scan is n x p work on every
/// selection (on a key press), so it runs down the matrix's columns (the
/// memory order) in row blocks on every core, and keeps only the best k of
/// each block rather than every distance.
fn nearest(x: &DMatrix<f64>, scale: &[f64], sample: usize, k: usize) -> Vec<(usize, f64)> {
    const BLOCK: usize = 16_384;
    let (n, p) = x.shape();
    let weight: Vec<f64> = scale.iter().map(|s| 1.0 / (s * s)).collect();
    let blocks: Vec<Vec<(usize, f64)>> = (0..n.div_ceil(BLOCK))
        .into_par_iter()
        .map(|b| {
            let rows = b * BLOCK..((b + 1) * BLOCK).min(n);
            let mut d2 = vec![0.0; rows.len()];
            for j in 0..p {
                let col = &x.as_slice()[j * n + rows.start..j * n + rows.end];
                let (at, w) = (x[(sample, j)], weight[j]);
                for (d, v) in d2.iter_mut().zip(col) {
                    *d += (v - at) * (v - at) * w;
                }
            }
            let mut best: Vec<(usize, f64)> = Vec::with_capacity(k + 1);
            for (i, d) in rows.zip(d2) {
                if i != sample {
                    keep_best(&mut best, (i, d), k);
                }
            }
            best
        })
        .collect();
    let mut best = Vec::with_capacity(k + 1);
    for candidate in blocks.into_iter().flatten() {
        keep_best(&mut best, candidate, k);
    }
    best.into_iter().map(|(i, d2)| (i, d2.sqrt())).collect()
}

/// Inserts `c` into `best` (sorted by distance, at most `k` long) when it
/// is among the `k` nearest; ties keep the lower index first.
fn keep_best(best: &mut Vec<(usize, f64)>, c: (usize, f64), k: usize) {
    if k == 0 || (best.len() == k && best[k - 1].1 <= c.1) {
        return;
    }
    let at = best.partition_point(|b| b.1 <= c.1);
    best.insert(at, c);
    best.truncate(k);
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Against every pairwise distance sorted, over more rows than one
    /// block and with tied distances (integer features).
    #[test]
    fn the_nearest_are_those_of_a_full_sort() {
        let mut rng = Rng::new(3);
        let n = 40_000;
        let x = DMatrix::from_fn(n, 3, |_, j| (rng.below(5) as f64) * (j + 1) as f64);
        let scale = [1.0, 2.0, 0.5];
        for sample in [0, 17_000, n - 1] {
            let mut all: Vec<(usize, f64)> = (0..n)
                .filter(|&i| i != sample)
                .map(|i| {
                    let d2: f64 = (0..3)
                        .map(|j| ((x[(i, j)] - x[(sample, j)]) / scale[j]).powi(2))
                        .sum();
                    (i, d2.sqrt())
                })
                .collect();
            all.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
            let got = nearest(&x, &scale, sample, 6);
            assert_eq!(got.len(), 6);
            for (g, w) in got.iter().zip(&all) {
                assert_eq!(g.0, w.0, "{got:?} vs {:?}", &all[..6]);
                assert!((g.1 - w.1).abs() < 1e-12);
            }
        }
        assert!(nearest(&x, &scale, 0, 0).is_empty());
    }
}
