//! The model-free baselines the papers compare against: the nearest
//! neighbour classifier, Barandela & Gasca's (2000) depuration (the rNDA
//! paper's competitor) and the k-nearest-neighbour prefilter of Tibshirani &
//! Manning's Appendix B. Brute-force distances: the papers' tables have at
//! most a few thousand rows.

use nalgebra::DMatrix;

use crate::models::standardize::Standardizer;

/// Squared Euclidean distances between every row of `a` and every row of `b`.
fn distances(a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    DMatrix::from_fn(a.nrows(), b.nrows(), |i, j| {
        (a.row(i) - b.row(j)).norm_squared()
    })
}

/// The `k` nearest rows of `d`'s row `i` (by distance, then index), leaving
/// out `skip`.
fn nearest(d: &DMatrix<f64>, i: usize, k: usize, skip: Option<usize>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..d.ncols()).filter(|&j| Some(j) != skip).collect();
    order.sort_by(|&a, &b| d[(i, a)].total_cmp(&d[(i, b)]).then(a.cmp(&b)));
    order.truncate(k);
    order
}

/// Features standardised by the training rows' means and deviations (the
/// classes' units differ on wine by three orders of magnitude).
fn scaled(train: &DMatrix<f64>, test: &DMatrix<f64>) -> (DMatrix<f64>, DMatrix<f64>) {
    let s = Standardizer::fit(train);
    (s.apply(train), s.apply(test))
}

/// 1-NN predictions of `test` from the labelled `train` rows.
pub fn one_nn(train: &DMatrix<f64>, labels: &[usize], test: &DMatrix<f64>) -> Vec<usize> {
    if train.nrows() == 0 {
        return vec![0; test.nrows()];
    }
    let (tr, te) = scaled(train, test);
    let d = distances(&te, &tr);
    (0..te.nrows())
        .map(|i| labels[nearest(&d, i, 1, None)[0]])
        .collect()
}

/// Depuration (Barandela & Gasca 2000) with `k` neighbours and agreement
/// `k_agree` ((k + 1) / 2 <= k' <= k): every training row whose k nearest
/// others hold at least k' of one class takes that class; any other row is
/// removed. Decided on the given labels in one pass. Returns the kept rows
/// and their (possibly changed) labels.
pub fn depurate(
    train: &DMatrix<f64>,
    labels: &[usize],
    n_classes: usize,
    k: usize,
    k_agree: usize,
) -> (Vec<usize>, Vec<usize>) {
    let (tr, _) = scaled(train, &DMatrix::zeros(0, train.ncols()));
    let d = distances(&tr, &tr);
    let mut kept = Vec::new();
    let mut relabelled = Vec::new();
    for i in 0..tr.nrows() {
        let mut votes = vec![0usize; n_classes];
        for j in nearest(&d, i, k, Some(i)) {
            votes[labels[j]] += 1;
        }
        if let Some(c) = (0..n_classes).find(|&c| votes[c] >= k_agree) {
            kept.push(i);
            relabelled.push(c);
        }
    }
    (kept, relabelled)
}

/// The rNDA paper's depuration baseline: depurate with k = 3, k' = 2
/// (Barandela & Gasca's usual setting), then 1-NN on what is left.
pub fn depuration_predict(
    train: &DMatrix<f64>,
    labels: &[usize],
    n_classes: usize,
    test: &DMatrix<f64>,
) -> Vec<usize> {
    let (kept, relabelled) = depurate(train, labels, n_classes, 3, 2);
    one_nn(&train.select_rows(&kept), &relabelled, test)
}

/// Tibshirani & Manning's prefilter: a row is discarded when any of its
/// `k - 1` nearest other rows (its k nearest, itself included) has another
/// label; k = 1 keeps every row. Returns the kept rows.
pub fn knn_prefilter(train: &DMatrix<f64>, labels: &[usize], k: usize) -> Vec<usize> {
    if k <= 1 {
        return (0..train.nrows()).collect();
    }
    let d = distances(train, train);
    (0..train.nrows())
        .filter(|&i| {
            nearest(&d, i, k - 1, Some(i))
                .iter()
                .all(|&j| labels[j] == labels[i])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line() -> (DMatrix<f64>, Vec<usize>) {
        // Two groups on a line, one wrong label at 2.0.
        let x = DMatrix::from_column_slice(8, 1, &[0.0, 1.0, 2.0, 3.0, 10.0, 11.0, 12.0, 13.0]);
        (x, vec![0, 0, 1, 0, 1, 1, 1, 1])
    }

    #[test]
    fn one_nn_takes_the_nearest_label() {
        let (x, y) = line();
        let t = DMatrix::from_column_slice(3, 1, &[0.4, 11.6, 2.1]);
        assert_eq!(one_nn(&x, &y, &t), vec![0, 1, 1]);
    }

    #[test]
    fn depuration_relabels_a_row_its_neighbours_outvote() {
        let (x, y) = line();
        let (kept, labels) = depurate(&x, &y, 2, 3, 2);
        assert_eq!(kept, (0..8).collect::<Vec<_>>());
        assert_eq!(labels, vec![0, 0, 0, 0, 1, 1, 1, 1]);
        let t = DMatrix::from_column_slice(1, 1, &[2.1]);
        assert_eq!(depuration_predict(&x, &y, 2, &t), vec![0]);
    }

    #[test]
    fn depuration_removes_a_row_without_a_majority() {
        let x = DMatrix::from_column_slice(4, 1, &[0.0, 1.0, 2.0, 3.0]);
        let (kept, _) = depurate(&x, &[0, 1, 2, 0], 3, 3, 3);
        assert!(kept.is_empty());
    }

    #[test]
    fn the_prefilter_drops_rows_beside_another_label() {
        let (x, y) = line();
        assert_eq!(knn_prefilter(&x, &y, 1).len(), 8);
        // k = 2: the nearest other row must agree (ties go to the lower
        // row); 2.0 and 3.0 have each other.
        assert_eq!(knn_prefilter(&x, &y, 2), vec![0, 1, 4, 5, 6, 7]);
    }
}
