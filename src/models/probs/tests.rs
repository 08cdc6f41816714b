use nalgebra::DMatrix;

use super::*;
use crate::models::no_progress;
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
/// class ~ p_i, given label ~ gamma[true]; returns what a classifier of the
/// given labels would estimate, q_i = P(given | x_i) = p_i gamma.
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
    (&p * gamma, given)
}

fn fit(p: &DMatrix<f64>, given: &[usize], k: usize) -> Fit {
    Probs::new(&ModelOptions::default())
        .unwrap()
        .fit(p, given, k, &mut no_progress())
        .unwrap()
}

#[test]
fn recovers_a_known_flip_table_where_the_probabilities_separate_the_true_classes() {
    // Nearly one-hot P(true | x) (Dirichlet 0.05): confident learning's
    // condition, under which the confident joint counts the realised flips.
    let truth = DMatrix::from_row_slice(
        3,
        3,
        &[0.80, 0.15, 0.05, 0.10, 0.85, 0.05, 0.05, 0.15, 0.80],
    );
    let (q, given) = simulate(6000, &truth, 0.05, 7);
    let f = fit(&q, &given, 3);
    let gamma = &f.gamma.as_ref().unwrap().p_given_true;
    let gap = (gamma - &truth).amax();
    assert!(gap < 0.04, "off by {gap}:\n{gamma}{truth}");
    assert!(f.converged);
    for (i, &g) in given.iter().enumerate() {
        assert!((f.p_mislabel[i] - (1.0 - f.posterior[(i, g)])).abs() < 1e-12);
        assert!((f.posterior.row(i).sum() - 1.0).abs() < 1e-9);
    }
    assert!(f.extra.lists.is_empty(), "the constraint should not bind");
}

#[test]
fn probabilities_blurred_by_the_flips_are_read_as_p_given() {
    // Less confident P(true | x) (Dirichlet 0.3): the confident joint then
    // overcounts flips (rows of other classes reach a class's mean
    // self-confidence), but the table stays diagonal and the count is of
    // the flips' order, not the fraction of them the P(true | x) reading
    // gave.
    let truth = DMatrix::from_row_slice(2, 2, &[0.8, 0.2, 0.2, 0.8]);
    let (q, given, real) = simulate_with_truth(3000, &truth, 0.3, 2);
    let flips = given.iter().zip(&real).filter(|(g, t)| g != t).count() as f64;
    let f = fit(&q, &given, 2);
    let count: f64 = f.p_mislabel.iter().sum();
    assert!(
        count > 0.9 * flips && count < 1.6 * flips,
        "sum p {count:.1} for {flips} flips"
    );
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
fn labels_that_disagree_with_the_probabilities_bind_the_constraint_and_say_so() {
    // Every label is the opposite of the classifier's: a free table would
    // be anti-diagonal.
    let (q, given) = simulate(400, &DMatrix::identity(2, 2), 0.3, 3);
    let given: Vec<usize> = given.iter().map(|g| 1 - g).collect();
    let f = fit(&q, &given, 2);
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

/// `simulate` that also returns each sample's true class.
fn simulate_with_truth(
    n: usize,
    gamma: &DMatrix<f64>,
    concentration: f64,
    seed: u64,
) -> (DMatrix<f64>, Vec<usize>, Vec<usize>) {
    draw_dirichlet(n, gamma, &vec![concentration; gamma.nrows()], seed)
}

/// n samples with p_i ~ Dirichlet(`alphas`), true class ~ p_i, given label
/// ~ gamma[true]; returns q = p gamma, the given and the true labels.
fn draw_dirichlet(
    n: usize,
    gamma: &DMatrix<f64>,
    alphas: &[f64],
    seed: u64,
) -> (DMatrix<f64>, Vec<usize>, Vec<usize>) {
    let k = gamma.nrows();
    let mut rng = Rng::new(seed);
    let mut p = DMatrix::zeros(n, k);
    let (mut given, mut truth) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        let draws: Vec<f64> = alphas.iter().map(|&a| gamma_variate(&mut rng, a)).collect();
        let total: f64 = draws.iter().sum();
        for c in 0..k {
            p[(i, c)] = draws[c] / total;
        }
        let t = rng.categorical(&draws);
        let row: Vec<f64> = gamma.row(t).iter().copied().collect();
        given.push(rng.categorical(&row));
        truth.push(t);
    }
    (&p * gamma, given, truth)
}

fn guided(p: &DMatrix<f64>, given: &[usize], guide: &Guide) -> Fit {
    Probs::new(&ModelOptions::default())
        .unwrap()
        .fit_guided(p, given, p.ncols(), guide, &mut no_progress())
        .unwrap()
}

fn two_class_truth() -> DMatrix<f64> {
    DMatrix::from_row_slice(2, 2, &[0.7, 0.3, 0.2, 0.8])
}

#[test]
fn decided_rows_are_pinned_every_iteration() {
    let (p, given, truth) = simulate_with_truth(400, &two_class_truth(), 0.5, 3);
    let i = (0..400).find(|&i| given[i] != truth[i]).unwrap();
    let kept = (0..400).find(|&i| given[i] == truth[i]).unwrap();
    let mut trusted = vec![None; 400];
    trusted[i] = Some(truth[i]);
    trusted[kept] = Some(given[kept]);
    let f = guided(
        &p,
        &given,
        &Guide {
            trusted,
            warm: None,
        },
    );
    assert_eq!(f.posterior[(i, truth[i])], 1.0);
    assert_eq!(f.p_mislabel[i], 1.0);
    assert_eq!(f.posterior[(kept, given[kept])], 1.0);
    assert_eq!(f.p_mislabel[kept], 0.0);
}

#[test]
fn deciding_flipped_samples_moves_the_flip_table_towards_the_truth() {
    // Nearly flat probabilities (a Dirichlet of concentration 20): the labels
    // alone barely identify the table, so decisions have something to add.
    let truth_table = two_class_truth();
    let (p, given, truth) = simulate_with_truth(600, &truth_table, 20.0, 5);
    let mut realised = DMatrix::zeros(2, 2);
    for (&t, &g) in truth.iter().zip(&given) {
        realised[(t, g)] += 1.0;
    }
    for mut row in realised.row_iter_mut() {
        let s = row.sum();
        row /= s;
    }
    let error = |f: &Fit| {
        (&f.gamma.as_ref().unwrap().p_given_true - &realised)
            .abs()
            .sum()
    };
    let alone = guided(&p, &given, &Guide::default());
    // The curator reviews the 100 most suspect samples, as the review
    // screen orders them, and settles each at its true class (far more
    // flips among them than the quarter of a random draw). Chosen by what the fit saw, the decisions are missing at
    // random; deciding flips picked by their truth would bias any model.
    let mut trusted = vec![None; 600];
    for &i in alone.ranking().iter().take(100) {
        trusted[i] = Some(truth[i]);
    }
    let flips = (0..600)
        .filter(|&i| trusted[i].is_some() && given[i] != truth[i])
        .count();
    assert!(flips > 25, "{flips} of the decided samples are flips");
    let decided = guided(
        &p,
        &given,
        &Guide {
            trusted,
            warm: None,
        },
    );
    assert!(
        error(&decided) < error(&alone),
        "decided {:.4} vs alone {:.4}\n{}{}{realised}",
        error(&decided),
        error(&alone),
        decided.gamma.as_ref().unwrap().p_given_true,
        alone.gamma.as_ref().unwrap().p_given_true,
    );
}

#[test]
fn a_warm_posterior_leaves_the_closed_form_fit_as_it_is() {
    let (p, given, _) = simulate_with_truth(800, &two_class_truth(), 0.8, 9);
    let cold = guided(&p, &given, &Guide::default());
    let warm = guided(
        &p,
        &given,
        &Guide {
            trusted: Vec::new(),
            warm: Some(cold.posterior.clone()),
        },
    );
    assert!(cold.converged && warm.converged);
    assert_eq!(warm.p_mislabel, cold.p_mislabel);
}

#[test]
fn the_count_matches_the_flips_where_reading_the_input_as_p_true_would_miss_most() {
    // q = p gamma with 20% of each class flipped, P(true | x) nearly
    // one-hot: the sum of p_mislabel estimates the flips drawn. Reading q
    // as P(true | x) and putting the table on top (the earlier model)
    // counted a fraction of them.
    let truth_table = DMatrix::from_row_slice(
        3,
        3,
        &[0.80, 0.10, 0.10, 0.10, 0.80, 0.10, 0.10, 0.10, 0.80],
    );
    let (q, given, truth) = simulate_with_truth(3000, &truth_table, 0.05, 11);
    let flips = given.iter().zip(&truth).filter(|(g, t)| g != t).count() as f64;
    let f = fit(&q, &given, 3);
    let count: f64 = f.p_mislabel.iter().sum();
    assert!(
        (count - flips).abs() < 0.1 * flips,
        "sum p {count:.1} for {flips} flips"
    );
    // And the flips rank high: AUROC of p_mislabel against them.
    let (mut pairs, mut above) = (0.0, 0.0);
    for i in (0..3000).filter(|&i| given[i] != truth[i]) {
        for j in (0..3000).filter(|&j| given[j] == truth[j]) {
            pairs += 1.0;
            above += match f.p_mislabel[i].total_cmp(&f.p_mislabel[j]) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Less => 0.0,
            };
        }
    }
    assert!(above / pairs > 0.85, "AUROC {:.3}", above / pairs);
}

#[test]
fn rows_ruled_out_of_their_class_are_ordered_by_self_confidence() {
    let (q, given, _) = simulate_with_truth(600, &two_class_truth(), 0.3, 4);
    let f = fit(&q, &given, 2);
    let certain: Vec<usize> = f
        .ranking()
        .into_iter()
        .take_while(|&i| f.p_mislabel[i] == 1.0)
        .collect();
    assert!(certain.len() > 5, "{} rows at p = 1", certain.len());
    for w in certain.windows(2) {
        assert!(q[(w[0], given[w[0]])] <= q[(w[1], given[w[1]])]);
    }
}

/// n samples with classes of unequal size: p_i ~ Dirichlet(concentration *
/// K * shares), so P(true | x) is nearly one-hot for a small concentration
/// and class c holds about shares[c] of the rows; true class ~ p_i, given
/// label ~ gamma[true]; returns q = p gamma, the given and the true labels.
fn simulate_sized(
    n: usize,
    gamma: &DMatrix<f64>,
    shares: &[f64],
    concentration: f64,
    seed: u64,
) -> (DMatrix<f64>, Vec<usize>, Vec<usize>) {
    let k = gamma.nrows();
    let alphas: Vec<f64> = shares
        .iter()
        .map(|s| concentration * k as f64 * s)
        .collect();
    draw_dirichlet(n, gamma, &alphas, seed)
}

#[test]
fn small_classes_keep_the_drawn_flip_rate_and_the_count_its_flips() {
    // glass-like class sizes (76/70/29/17/13/9 of 214) and 20% of every
    // class flipped uniformly: the confident joint's columns of the small
    // classes hold a few dozen rows, and with its former fixed half-count
    // per cell their rows read 0.69-0.79 on the diagonal for a drawn 0.8
    // (off by up to 0.11); the pooled prior keeps every row within 0.04.
    let k = 6;
    let mut truth_table = DMatrix::from_element(k, k, 0.2 / (k - 1) as f64);
    truth_table.fill_diagonal(0.8);
    let shares: Vec<f64> = [76.0, 70.0, 29.0, 17.0, 13.0, 9.0]
        .iter()
        .map(|s| s / 214.0)
        .collect();
    for seed in 0..3 {
        let (q, given, truth) = simulate_sized(2000, &truth_table, &shares, 0.02, 20 + seed);
        let flips = given.iter().zip(&truth).filter(|(g, t)| g != t).count() as f64;
        let f = fit(&q, &given, k);
        let gamma = &f.gamma.as_ref().unwrap().p_given_true;
        let gap = (gamma - &truth_table).amax();
        assert!(gap < 0.04, "seed {seed}: off by {gap:.3}\n{gamma}");
        let count: f64 = f.p_mislabel.iter().sum();
        assert!(
            (count - flips).abs() < 0.1 * flips,
            "seed {seed}: sum p {count:.1} for {flips} flips"
        );
    }
}

#[test]
fn a_flip_table_that_differs_between_classes_is_not_pooled_away() {
    // Pair noise (each class to the next, 30%): far from the pooled
    // symmetric table, so the marginal likelihood chooses a weak prior and
    // the table keeps its structure.
    let k = 4;
    let mut truth_table = DMatrix::zeros(k, k);
    for c in 0..k {
        truth_table[(c, c)] = 0.7;
        truth_table[(c, (c + 1) % k)] = 0.3;
    }
    let (q, given, _) = simulate_sized(3000, &truth_table, &[0.25; 4], 0.02, 31);
    let f = fit(&q, &given, k);
    let gamma = &f.gamma.as_ref().unwrap().p_given_true;
    let gap = (gamma - &truth_table).amax();
    assert!(gap < 0.05, "off by {gap:.3}\n{gamma}");
}
