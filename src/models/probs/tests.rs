use nalgebra::DMatrix;

use super::*;
use crate::models::{no_progress, rejects_option};
use crate::rng::Rng;

/// Gamma(shape, 1) by Marsaglia & Tsang (boosted below shape 1).
fn gamma_variate(rng: &mut Rng, shape: f64) -> f64 {
    if shape < 1.0 {
        let u: f64 = rng.uniform().max(1e-300);
        return gamma_variate(rng, shape + 1.0) * u.powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let z = rng.normal();
        let v = (1.0 + c * z).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = rng.uniform().max(1e-300);
        if u.ln() < 0.5 * z * z + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// n samples drawn from the model: p_i ~ Dirichlet(concentration), true
/// class ~ p_i, given label ~ gamma[true].
fn simulate(
    n: usize,
    gamma: &DMatrix<f64>,
    concentration: f64,
    seed: u64,
) -> (DMatrix<f64>, Vec<usize>) {
    let k = gamma.nrows();
    let mut rng = Rng::new(seed);
    let mut p = DMatrix::zeros(n, k);
    let mut given = Vec::with_capacity(n);
    for i in 0..n {
        let draws: Vec<f64> = (0..k)
            .map(|_| gamma_variate(&mut rng, concentration))
            .collect();
        let total: f64 = draws.iter().sum();
        for c in 0..k {
            p[(i, c)] = draws[c] / total;
        }
        let truth = rng.categorical(&draws);
        let row: Vec<f64> = gamma.row(truth).iter().copied().collect();
        given.push(rng.categorical(&row));
    }
    (p, given)
}

fn fit(p: &DMatrix<f64>, given: &[usize], k: usize) -> Fit {
    Probs::new(&ModelOptions::default())
        .unwrap()
        .fit(p, given, k, &mut no_progress())
        .unwrap()
}

#[test]
fn recovers_a_known_flip_table_from_dirichlet_probabilities() {
    let truth = DMatrix::from_row_slice(
        3,
        3,
        &[0.80, 0.15, 0.05, 0.10, 0.85, 0.05, 0.05, 0.15, 0.80],
    );
    let (p, given) = simulate(6000, &truth, 0.4, 7);
    let f = fit(&p, &given, 3);
    let gamma = &f.gamma.as_ref().unwrap().p_given_true;
    let gap = (gamma - &truth).amax();
    assert!(gap < 0.04, "off by {gap}:\n{gamma}{truth}");
    assert!(f.converged);
    assert!(
        f.trace.windows(2).all(|w| w[1] >= w[0] - 1e-9),
        "EM is monotone"
    );
    for (i, &g) in given.iter().enumerate() {
        assert!((f.p_mislabel[i] - (1.0 - f.posterior[(i, g)])).abs() < 1e-12);
        assert!((f.posterior.row(i).sum() - 1.0).abs() < 1e-9);
    }
    assert!(f.extra.lists.is_empty(), "the constraint should not bind");
}

#[test]
fn a_sample_whose_label_the_probabilities_contradict_is_suspect() {
    // Two classes, clean labels but for the last sample.
    let p = DMatrix::from_row_slice(
        6,
        2,
        &[
            0.9, 0.1, 0.8, 0.2, 0.95, 0.05, 0.1, 0.9, 0.2, 0.8, 0.97, 0.03,
        ],
    );
    let given = [0, 0, 0, 1, 1, 1];
    let f = fit(&p, &given, 2);
    let top = f.ranking()[0];
    assert_eq!(top, 5);
    assert_eq!(f.suggested[5], 0);
    assert!(
        f.p_mislabel[5] > 0.5 && f.p_mislabel[0] < 0.2,
        "{:?}",
        f.p_mislabel
    );
}

#[test]
fn pooling_makes_a_row_diagonally_dominant_and_keeps_its_sum() {
    let mut row = [0.2, 0.5, 0.3];
    assert!(make_dominant(&mut row, 0));
    assert_eq!(row, [0.35, 0.35, 0.3]);
    let mut row = [0.1, 0.45, 0.45];
    assert!(make_dominant(&mut row, 0));
    assert!(row.iter().all(|v| (v - 1.0 / 3.0).abs() < 1e-12), "{row:?}");
    let mut row = [0.6, 0.3, 0.1];
    assert!(!make_dominant(&mut row, 0));
}

#[test]
fn labels_that_disagree_with_the_probabilities_bind_the_constraint_and_say_so() {
    // Every label is the opposite of the confident prediction: a free table
    // would be anti-diagonal.
    let (p, given) = simulate(
        400,
        &DMatrix::from_row_slice(2, 2, &[0.1, 0.9, 0.9, 0.1]),
        0.3,
        3,
    );
    let f = fit(&p, &given, 2);
    let g = &f.gamma.as_ref().unwrap().p_given_true;
    for k in 0..2 {
        assert!(g[(k, k)] >= g[(k, 1 - k)] - 1e-12, "{g}");
    }
    assert_eq!(f.extra.lists[0].0, "held_dominant");
    assert!(
        f.extra.notes[0].contains("diagonally dominant"),
        "{:?}",
        f.extra.notes
    );
}

#[test]
fn a_matrix_that_is_not_probabilities_is_refused_with_what_to_do() {
    let model = Probs::new(&ModelOptions::default()).unwrap();
    let x = DMatrix::from_row_slice(2, 3, &[0.5, 0.5, 0.0, 0.5, 0.5, 0.0]);
    let e = model.fit(&x, &[0, 1], 2, &mut no_progress()).unwrap_err();
    assert!(e.to_string().contains("--probs"), "{e}");
    let x = DMatrix::from_row_slice(2, 2, &[3.0, 1.0, 0.5, 0.5]);
    let e = model.fit(&x, &[0, 1], 2, &mut no_progress()).unwrap_err();
    assert!(e.to_string().contains("row 0"), "{e}");
}

#[test]
fn a_stop_cancels_the_fit() {
    let (p, given) = simulate(50, &DMatrix::identity(2, 2), 0.5, 1);
    let model = Probs::new(&ModelOptions::default()).unwrap();
    let e = model
        .fit(&p, &given, 2, &mut |_| Control::Stop)
        .unwrap_err();
    assert_eq!(e, FitError::Cancelled);
}

rejects_option! {
    rejects_zero_iterations: Probs::new, "max_iter" = "0";
    rejects_a_negative_tolerance: Probs::new, "tol" = "-1";
}
