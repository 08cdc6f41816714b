//! What the detail pane shows about the selected sample, computed when the
//! selection changes (never while drawing): its features ranked by how far
//! they are from the feature's mean, and its nearest neighbours.

use nalgebra::DMatrix;

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
        // Euclidean distance on standardised features; a full scan is
        // n x p work once per selection, which stays well under a frame.
        let mut dist: Vec<(usize, f64)> = (0..ds.n_samples())
            .filter(|&i| i != sample)
            .map(|i| {
                let d2: f64 = (0..p).map(|j| (z(i, j) - z(sample, j)).powi(2)).sum();
                (i, d2.sqrt())
            })
            .collect();
        let k = NEIGHBOURS.min(dist.len());
        if k > 0 {
            dist.select_nth_unstable_by(k - 1, |a, b| a.1.total_cmp(&b.1));
            dist.truncate(k);
            dist.sort_by(|a, b| a.1.total_cmp(&b.1));
        }
        self.current = Some(Detail {
            sample,
            features,
            neighbours: dist,
        });
    }
}
