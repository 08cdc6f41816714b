//! k-means++ starts for the mixture EM.

use nalgebra::DMatrix;

use crate::rng::keyed_weighted_pick;

/// Lloyd iterations after the k-means++ seeding: enough to move the seeds
/// into the bulk of their clusters; EM does the rest.
const LLOYD_STEPS: usize = 10;
/// Squared Euclidean distance of every row of `z` to `center`, column by
/// column (the matrix is column-major; each column read as a slice, which
/// the compiler vectorises where nalgebra's strided iterator was a fifth
/// of rmda's time on a 200k-row table).
fn squared_distances(z: &DMatrix<f64>, center: &[f64]) -> Vec<f64> {
    let mut d = vec![0.0; z.nrows()];
    for (j, c) in center.iter().enumerate() {
        for (di, v) in d.iter_mut().zip(z.column(j).as_slice()) {
            let t = v - c;
            *di += t * t;
        }
    }
    d
}

/// k-means++ seeding (Arthur & Vassilvitskii 2007) followed by a few Lloyd
/// steps; returns the cluster of every row. Each seed is drawn from the
/// rows' `keys` (one per row; [`crate::rng::row_keys`] of its values) and
/// the `draw`, not by walking the rows in order, so with keys from the
/// values the same rows in another order get the same centres.
pub fn kmeans_plus_plus(z: &DMatrix<f64>, k: usize, keys: &[u64], draw: u64) -> Vec<usize> {
    let (n, p) = z.shape();
    let row = |i: usize| -> Vec<f64> { z.row(i).iter().copied().collect() };
    // The c-th seed's own draw of the rows.
    let pick = |weights: &[f64], c: usize| {
        let d = draw.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ c as u64;
        keyed_weighted_pick(weights, keys, d)
    };
    let uniform = vec![1.0; n];
    let first = pick(&uniform, 0).unwrap_or(0);
    let mut centers: Vec<Vec<f64>> = vec![row(first)];
    let mut nearest = squared_distances(z, &centers[0]);
    while centers.len() < k {
        // Every row on a centre already: any row, uniformly.
        let chosen = pick(&nearest, centers.len())
            .or_else(|| pick(&uniform, centers.len()))
            .unwrap_or(0);
        let c = row(chosen);
        for (m, d) in nearest.iter_mut().zip(squared_distances(z, &c)) {
            *m = m.min(d);
        }
        centers.push(c);
    }
    let mut assign = vec![0usize; n];
    for step in 0..=LLOYD_STEPS {
        let mut best = vec![f64::INFINITY; n];
        let mut changed = false;
        for (c, center) in centers.iter().enumerate() {
            for (i, d) in squared_distances(z, center).into_iter().enumerate() {
                if d < best[i] {
                    best[i] = d;
                    if assign[i] != c {
                        assign[i] = c;
                        changed = true;
                    }
                }
            }
        }
        if (step > 0 && !changed) || step == LLOYD_STEPS {
            break;
        }
        let mut sums = vec![vec![0.0; p]; k];
        let mut counts = vec![0usize; k];
        for &a in &assign {
            counts[a] += 1;
        }
        for (j, col) in z.column_iter().enumerate() {
            for (&a, v) in assign.iter().zip(col.as_slice()) {
                sums[a][j] += v;
            }
        }
        for c in 0..k {
            // An emptied centre keeps its place; EM will report it.
            if counts[c] > 0 {
                centers[c] = sums[c].iter().map(|s| s / counts[c] as f64).collect();
            }
        }
    }
    assign
}
