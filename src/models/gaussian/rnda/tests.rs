use nalgebra::{DMatrix, DVector};

use super::*;
use crate::eval::metrics::auroc;
use crate::eval::simulate::{Simulated, gaussian_with_flips, random_cov_factor};
use crate::models::gaussian::nda::Nda;
use crate::models::numerics::assert_never_falls;
use crate::models::{CovarianceFamily, no_progress};
use crate::rng::Rng;

/// 3 classes in 4 dimensions, moderately separated, with random covariances.
fn three_classes(n: usize, p_given_true: &DMatrix<f64>, seed: u64) -> Simulated {
    let mut rng = Rng::new(seed);
    let means = vec![
        DVector::from_vec(vec![0.0, 0.0, 0.0, 0.0]),
        DVector::from_vec(vec![4.0, 1.0, 0.0, -1.0]),
        DVector::from_vec(vec![1.0, 4.0, 2.0, 1.0]),
    ];
    let factors: Vec<DMatrix<f64>> = (0..3)
        .map(|_| random_cov_factor(4, 1.0, &mut rng))
        .collect();
    gaussian_with_flips(
        n,
        &means,
        &factors,
        &[0.3, 0.3, 0.4],
        p_given_true,
        seed + 1,
    )
}

fn thirty_percent_flips() -> DMatrix<f64> {
    DMatrix::from_row_slice(3, 3, &[0.7, 0.2, 0.1, 0.1, 0.7, 0.2, 0.2, 0.1, 0.7])
}

fn fit(model: &dyn RobustModel, sim: &Simulated) -> Fit {
    model
        .fit(&sim.x, &sim.given, 3, &mut no_progress())
        .unwrap()
}

#[test]
fn recovers_the_flip_table_of_the_generating_model() {
    let truth = thirty_percent_flips();
    let sim = three_classes(3000, &truth, 11);
    let f = fit(&Rnda::new(&ModelOptions::default()).unwrap(), &sim);
    assert!(
        f.converged,
        "EM did not converge in {} iterations",
        f.iterations
    );
    let g = &f.gamma.as_ref().unwrap().p_given_true;
    for t in 0..3 {
        for j in 0..3 {
            assert!(
                (g[(t, j)] - truth[(t, j)]).abs() < 0.05,
                "gamma[{t},{j}] = {:.3}, truth {:.3}\n{g}",
                g[(t, j)],
                truth[(t, j)]
            );
        }
    }
}

#[test]
fn detects_flips_better_than_plain_nda() {
    let sim = three_classes(3000, &thirty_percent_flips(), 11);
    let flipped = sim.flipped();
    let robust = fit(&Rnda::new(&ModelOptions::default()).unwrap(), &sim);
    let plain = fit(&Nda::new(&ModelOptions::default()).unwrap(), &sim);
    let a_robust = auroc(&robust.p_mislabel, &flipped).unwrap();
    let a_plain = auroc(&plain.p_mislabel, &flipped).unwrap();
    assert!(
        a_robust > a_plain,
        "rNDA AUROC {a_robust:.4} should beat NDA {a_plain:.4}"
    );
}

#[test]
fn without_noise_it_agrees_with_nda() {
    let sim = three_classes(3000, &DMatrix::identity(3, 3), 5);
    let robust = fit(&Rnda::new(&ModelOptions::default()).unwrap(), &sim);
    let plain = fit(&Nda::new(&ModelOptions::default()).unwrap(), &sim);
    let g = &robust.gamma.as_ref().unwrap().p_given_true;
    for c in 0..3 {
        assert!(g[(c, c)] > 0.97, "diagonal {c} = {:.4}\n{g}", g[(c, c)]);
    }
    // Their classifiers (eq. 8 for rNDA) agree on nearly every point...
    let pr = robust.classifier.as_ref().unwrap().predict_proba(&sim.x);
    let pp = plain.classifier.as_ref().unwrap().predict_proba(&sim.x);
    let agree = (0..3000)
        .filter(|&i| {
            crate::models::argmax(pr.row(i).iter().copied())
                == crate::models::argmax(pp.row(i).iter().copied())
        })
        .count();
    assert!(agree as f64 / 3000.0 > 0.995, "only {agree} of 3000 agree");
    // ...and so do their mislabel scores on average (rNDA trusts the given
    // label a little more, through a near-identity table).
    let mean_gap = robust
        .p_mislabel
        .iter()
        .zip(&plain.p_mislabel)
        .map(|(a, b)| (a - b).abs())
        .sum::<f64>()
        / 3000.0;
    assert!(mean_gap < 0.05, "mean p_mislabel gap {mean_gap:.4}");
}

#[test]
fn the_reported_table_is_p_given_true_not_the_papers_p_true_given() {
    // Class 0 is 90% of the data and flips rarely; class 1 is small and
    // flips a lot. The two orientations then differ clearly.
    let truth = DMatrix::from_row_slice(2, 2, &[0.95, 0.05, 0.4, 0.6]);
    let mut rng = Rng::new(2);
    let means = vec![
        DVector::from_vec(vec![0.0, 0.0]),
        DVector::from_vec(vec![5.0, 5.0]),
    ];
    let factors: Vec<DMatrix<f64>> = (0..2)
        .map(|_| random_cov_factor(2, 1.0, &mut rng))
        .collect();
    let sim = gaussian_with_flips(4000, &means, &factors, &[0.7, 0.3], &truth, 3);
    let f = Rnda::new(&ModelOptions::default())
        .unwrap()
        .fit(&sim.x, &sim.given, 2, &mut no_progress())
        .unwrap();
    let g = &f.gamma.as_ref().unwrap().p_given_true;
    for t in 0..2 {
        assert!((g.row(t).sum() - 1.0).abs() < 1e-9);
        for j in 0..2 {
            assert!((g[(t, j)] - truth[(t, j)]).abs() < 0.04, "{g}");
        }
    }
    // The paper-orientation table in the report must be its Bayes inverse.
    let paper = f.extra.matrix("gamma (paper orientation)").unwrap();
    let paper = DMatrix::from_fn(2, 2, |j, k| paper.values[j][k]);
    let n1 = sim.given.iter().filter(|g| **g == 1).count() as f64 / 4000.0;
    let back = GammaTable::from_p_true_given(&paper, &[1.0 - n1, n1]);
    assert!((&back.p_given_true - g).abs().max() < 1e-12);
}

#[test]
fn conversion_between_orientations_round_trips() {
    let p_given_true =
        DMatrix::from_row_slice(3, 3, &[0.8, 0.1, 0.1, 0.2, 0.7, 0.1, 0.0, 0.3, 0.7]);
    let p_true = [0.5, 0.3, 0.2];
    let table = GammaTable {
        p_given_true: p_given_true.clone(),
    };
    let ptg = table.to_p_true_given(&p_true);
    let p_given: Vec<f64> = (0..3)
        .map(|j| (0..3).map(|t| p_given_true[(t, j)] * p_true[t]).sum())
        .collect();
    // Each row of P(true | given) is a distribution.
    for j in 0..3 {
        assert!((ptg.row(j).sum() - 1.0).abs() < 1e-12);
    }
    let back = GammaTable::from_p_true_given(&ptg, &p_given);
    assert!((back.p_given_true - p_given_true).abs().max() < 1e-12);
}

#[test]
fn every_covariance_family_stays_finite_with_more_features_than_class_samples() {
    // 40 samples, 30 features: each class has 20 < p, the whole table n > p.
    let mut rng = Rng::new(4);
    let x = DMatrix::from_fn(40, 30, |_, _| rng.normal());
    let given: Vec<usize> = (0..40).map(|i| i % 2).collect();
    for family in CovarianceFamily::ALL {
        let opts = ModelOptions {
            covariance: family,
            ..ModelOptions::default()
        };
        let f = Rnda::new(&opts)
            .unwrap()
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        assert!(f.p_mislabel.iter().all(|p| p.is_finite()), "{family}");
        assert!(f.trace.iter().all(|v| v.is_finite()), "{family}");
    }
}

#[test]
fn wide_tables_fit_diagonal_covariances_and_refuse_full_ones() {
    let mut rng = Rng::new(4);
    let x = DMatrix::from_fn(20, 30, |_, _| rng.normal());
    let given: Vec<usize> = (0..20).map(|i| i % 2).collect();
    for family in CovarianceFamily::ALL {
        let opts = ModelOptions {
            covariance: family,
            ..ModelOptions::default()
        };
        let r = Rnda::new(&opts)
            .unwrap()
            .fit(&x, &given, 2, &mut no_progress());
        match family {
            CovarianceFamily::Full | CovarianceFamily::Tied => match r {
                Err(FitError::NotApplicable(m)) => assert!(m.contains("--cov diag"), "{m}"),
                other => panic!("{family}: {other:?}"),
            },
            _ => assert!(r.unwrap().p_mislabel.iter().all(|p| p.is_finite())),
        }
    }
}

/// Labels drawn from a table that is not diagonally dominant (true class 0
/// is given label 1 seven times in ten, as class 1 is): no naming of the
/// three clusters gives every class its own label most often, so every
/// start ends on the constraint and the fit says its flips are not the
/// data's. The same data under a dominant table are identified.
#[test]
fn a_fit_held_on_the_constraint_from_every_start_says_its_flips_are_unidentified() {
    let swapped = DMatrix::from_row_slice(3, 3, &[0.2, 0.7, 0.1, 0.05, 0.9, 0.05, 0.05, 0.05, 0.9]);
    let sim = three_classes(900, &swapped, 5);
    let f = fit(&Rnda::new(&ModelOptions::default()).unwrap(), &sim);
    assert!(f.flips_unidentified, "{:?}", f.extra.notes);
    assert!(
        f.extra
            .notes
            .iter()
            .any(|n| n.contains("held diagonally dominant")),
        "{:?}",
        f.extra.notes
    );
    let sim = three_classes(900, &thirty_percent_flips(), 5);
    let f = fit(&Rnda::new(&ModelOptions::default()).unwrap(), &sim);
    assert!(!f.flips_unidentified, "{:?}", f.extra.notes);
}

#[test]
fn fits_are_deterministic() {
    let sim = three_classes(600, &thirty_percent_flips(), 8);
    let a = fit(&Rnda::new(&ModelOptions::default()).unwrap(), &sim);
    let b = fit(&Rnda::new(&ModelOptions::default()).unwrap(), &sim);
    assert_eq!(a.p_mislabel, b.p_mislabel);
    assert_eq!(a.trace, b.trace);
}

#[test]
fn stopping_through_the_callback_cancels_within_one_iteration() {
    let sim = three_classes(600, &thirty_percent_flips(), 8);
    let mut calls = 0;
    let err = Rnda::new(&ModelOptions::default())
        .unwrap()
        .fit(&sim.x, &sim.given, 3, &mut |p: Progress| {
            calls += 1;
            if p.iteration >= 2 {
                Control::Stop
            } else {
                Control::Continue
            }
        })
        .unwrap_err();
    assert_eq!(err, FitError::Cancelled);
    assert_eq!(calls, 2);
}

#[test]
fn hitting_the_iteration_limit_is_reported_as_not_converged() {
    let sim = three_classes(600, &thirty_percent_flips(), 8);
    let opts = ModelOptions {
        max_iter: 2,
        ..ModelOptions::default()
    };
    let f = fit(&Rnda::new(&opts).unwrap(), &sim);
    assert!(!f.converged);
    assert_eq!(f.iterations, 2);
    assert_eq!(f.trace.len(), 2);
}

#[test]
fn the_log_likelihood_increases_without_shrinkage() {
    let sim = three_classes(1500, &thirty_percent_flips(), 21);
    let opts = ModelOptions {
        shrinkage: Some(0.0),
        ..ModelOptions::default()
    };
    let f = fit(&Rnda::new(&opts).unwrap(), &sim);
    assert_never_falls(&f.trace, 1e-6, "rnda");
}

#[test]
fn predicts_new_rows_with_the_marginal_prior_of_eq_8() {
    let sim = three_classes(3000, &thirty_percent_flips(), 11);
    let test = three_classes(1000, &DMatrix::identity(3, 3), 99);
    let f = fit(&Rnda::new(&ModelOptions::default()).unwrap(), &sim);
    let proba = f.classifier.as_ref().unwrap().predict_proba(&test.x);
    let predicted: Vec<usize> = (0..1000)
        .map(|i| crate::models::argmax(proba.row(i).iter().copied()))
        .collect();
    let acc = crate::eval::metrics::accuracy(&predicted, &test.true_labels);
    assert!(acc > 0.85, "test accuracy {acc}");
}

#[test]
fn the_diagonal_is_pooled_with_the_entries_that_exceed_it() {
    let mut v = vec![0.2, 0.5, 0.3];
    assert!(hold_diagonal(&mut v, 0));
    // 0.5 > 0.2: pool to 0.35; 0.3 < 0.35 stays.
    assert!((v[0] - 0.35).abs() < 1e-15 && (v[1] - 0.35).abs() < 1e-15);
    assert_eq!(v[2], 0.3);
    assert!((v.iter().sum::<f64>() - 1.0).abs() < 1e-15);
    let mut v = vec![0.1, 0.45, 0.45];
    assert!(hold_diagonal(&mut v, 0));
    assert!(v.iter().all(|x| (x - 1.0 / 3.0).abs() < 1e-15), "{v:?}");
    let mut v = vec![0.6, 0.3, 0.1];
    assert!(!hold_diagonal(&mut v, 0));
    assert_eq!(v, [0.6, 0.3, 0.1]);
}

#[test]
fn an_unconstrained_m_step_is_eq_7() {
    // Joint over N, normalised by given label = average posterior per label.
    let posterior = DMatrix::from_row_slice(4, 2, &[0.9, 0.1, 0.8, 0.2, 0.3, 0.7, 0.1, 0.9]);
    let given = [0, 0, 1, 1];
    let (joint, bound) = update_joint(&posterior, &given);
    assert!(!bound);
    let gamma_row0 = joint.row(0) / joint.row(0).sum();
    assert!((gamma_row0[0] - 0.85).abs() < 1e-15);
    assert!((joint.sum() - 1.0).abs() < 1e-15);
}

fn guided(sim: &Simulated, guide: &Guide) -> Fit {
    Rnda::new(&ModelOptions::default())
        .unwrap()
        .fit_guided(&sim.x, &sim.given, 3, guide, &mut no_progress())
        .unwrap()
}

/// The flip table of the sample as drawn, P(given | true) by counting.
fn realised_table(sim: &Simulated) -> DMatrix<f64> {
    let mut t = DMatrix::zeros(3, 3);
    for (&truth, &g) in sim.true_labels.iter().zip(&sim.given) {
        t[(truth, g)] += 1.0;
    }
    for mut row in t.row_iter_mut() {
        let s = row.sum();
        row /= s;
    }
    t
}

#[test]
fn decided_rows_are_pinned_and_scored_against_their_given_label() {
    let sim = three_classes(600, &thirty_percent_flips(), 8);
    let flipped = sim.flipped();
    let mut trusted = vec![None; 600];
    // One relabel (an observed flip) and one keep.
    let relabelled = flipped.iter().position(|&f| f).unwrap();
    let kept = flipped.iter().position(|&f| !f).unwrap();
    trusted[relabelled] = Some(sim.true_labels[relabelled]);
    trusted[kept] = Some(sim.given[kept]);
    let f = guided(
        &sim,
        &Guide {
            trusted,
            warm: None,
        },
    );
    let row = |i: usize| f.posterior.row(i).iter().copied().collect::<Vec<_>>();
    assert_eq!(row(relabelled)[sim.true_labels[relabelled]], 1.0);
    assert_eq!(f.p_mislabel[relabelled], 1.0);
    assert_eq!(f.suggested[relabelled], sim.true_labels[relabelled]);
    assert_eq!(row(kept)[sim.given[kept]], 1.0);
    assert_eq!(f.p_mislabel[kept], 0.0);
}

#[test]
fn deciding_flipped_samples_moves_the_flip_table_towards_the_truth() {
    // Overlapping classes, so that the EM alone misses flips.
    let sim = three_classes(900, &thirty_percent_flips(), 31);
    let realised = realised_table(&sim);
    let error = |f: &Fit| {
        (&f.gamma.as_ref().unwrap().p_given_true - &realised)
            .abs()
            .sum()
    };
    let alone = guided(&sim, &Guide::default());
    let flipped = sim.flipped();
    // The curator corrects every other flipped sample.
    let trusted: Vec<Option<usize>> = (0..900)
        .map(|i| (flipped[i] && i % 2 == 0).then_some(sim.true_labels[i]))
        .collect();
    let decided = guided(
        &sim,
        &Guide {
            trusted,
            warm: None,
        },
    );
    assert!(
        error(&decided) < error(&alone),
        "decided {:.4} vs alone {:.4}",
        error(&decided),
        error(&alone)
    );
}

#[test]
fn a_warm_start_from_its_own_posterior_reaches_the_same_fit_sooner() {
    let sim = three_classes(900, &thirty_percent_flips(), 12);
    let cold = guided(&sim, &Guide::default());
    assert!(cold.converged);
    let warm = guided(
        &sim,
        &Guide {
            trusted: Vec::new(),
            warm: Some(cold.posterior.clone()),
        },
    );
    assert!(warm.converged);
    assert!(
        warm.iterations <= cold.iterations,
        "{} > {}",
        warm.iterations,
        cold.iterations
    );
    let gap = warm
        .p_mislabel
        .iter()
        .zip(&cold.p_mislabel)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(gap < 1e-3, "p_mislabel moved by {gap}");
}

#[test]
fn the_seed_chooses_the_perturbed_starts_and_reproduces_the_fit() {
    let sim = three_classes(600, &thirty_percent_flips(), 8);
    let with = |seed| {
        Rnda::new(&ModelOptions {
            seed,
            ..ModelOptions::default()
        })
        .unwrap()
        .fit(&sim.x, &sim.given, 3, &mut no_progress())
        .unwrap()
    };
    assert_eq!(with(7).p_mislabel, with(7).p_mislabel);
    // The given labels were admissible: no restart, nothing to report.
    assert!(with(7).extra.notes.is_empty(), "{:?}", with(7).extra.notes);
}

/// A perturbed start moves a quarter of the undecided rows to another
/// class, each by its own key: reversed, keys with the rows, the same rows
/// move to the same classes, and a decided row never moves.
#[test]
fn a_perturbed_start_moves_a_row_by_its_key_not_its_place() {
    let n = 4000;
    let labels: Vec<usize> = (0..n).map(|i| i % 3).collect();
    let keys = crate::rng::position_keys(n, 1);
    let guide = Guide {
        trusted: (0..n).map(|i| (i == 5).then_some(labels[i])).collect(),
        warm: None,
    };
    let start = perturbed(&labels, &guide, 3, &keys, 9);
    let rev_labels: Vec<usize> = labels.iter().rev().copied().collect();
    let rev_keys: Vec<u64> = keys.iter().rev().copied().collect();
    let rev = perturbed(&rev_labels, &Guide::default(), 3, &rev_keys, 9);
    let class = |m: &DMatrix<f64>, i: usize| crate::models::argmax(m.row(i).iter().copied());
    let moved: Vec<usize> = (0..n).filter(|&i| class(&start, i) != labels[i]).collect();
    assert!(moved.iter().all(|&i| i != 5));
    let share = moved.len() as f64 / n as f64;
    // PERTURBED_SHARE within four binomial standard errors.
    assert!(
        (share - 0.25).abs() < 4.0 * (0.25 * 0.75 / n as f64).sqrt(),
        "{share}"
    );
    for i in (0..n).filter(|&i| i != 5) {
        assert_eq!(class(&start, i), class(&rev, n - 1 - i), "row {i}");
    }
}

/// K = 4 classes in 5 dimensions sharing one covariance, means close
/// enough that the classes overlap, 25% of labels flipped: the regime in
/// which EM's rate is slow.
fn overlapping(n: usize, seed: u64) -> Simulated {
    let (d, k) = (5, 4);
    let mut rng = Rng::new(seed);
    let means: Vec<DVector<f64>> = (0..k)
        .map(|_| DVector::from_fn(d, |_, _| 0.8 * rng.normal()))
        .collect();
    let shared = random_cov_factor(d, 1.0, &mut rng);
    let flips = DMatrix::from_fn(k, k, |t, j| if t == j { 0.75 } else { 0.25 / 3.0 });
    gaussian_with_flips(n, &means, &vec![shared; k], &[0.25; 4], &flips, seed + 1)
}

/// One EM run from the given labels, without shrinkage (so the map is
/// exactly EM's and its log-likelihood cannot fall) and with a tolerance
/// tight enough that plain EM too ends at the fixed point.
fn em_run(sim: &Simulated, accelerate: bool) -> Run {
    let guide = Guide::default();
    let k = 4;
    let problem = Problem {
        z: Scaled::plain(&sim.x),
        given: &sim.given,
        guide: &guide,
        covariance: CovarianceParams {
            family: CovarianceFamily::Full,
            shrinkage: Some(0.0),
        },
        iterations: Iterations {
            max_iter: 2000,
            tol: 1e-12,
        },
        accelerate,
    };
    problem
        .run(&one_hot(&sim.given, k), Gauge::WHOLE, &mut no_progress())
        .unwrap()
}

#[test]
fn squarem_reaches_plain_em_fixed_point_in_fewer_iterations() {
    for seed in [3, 4] {
        let sim = overlapping(4000, seed);
        let plain = em_run(&sim, false);
        let fast = em_run(&sim, true);
        assert!(plain.converged && fast.converged);
        let (lp, lf) = (*plain.trace.last().unwrap(), *fast.trace.last().unwrap());
        assert!(
            (lf - lp).abs() <= 1e-6 * lp.abs(),
            "plain {lp} vs squarem {lf}"
        );
        let gap = plain
            .posterior
            .iter()
            .zip(fast.posterior.iter())
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(gap < 1e-3, "posteriors differ by {gap}");
        assert!(
            2 * fast.iterations <= plain.iterations,
            "squarem {} iterations, plain {}",
            fast.iterations,
            plain.iterations
        );
    }
}

#[test]
fn the_accelerated_log_likelihood_trace_never_falls() {
    // On these tables some extrapolated points lower the log-likelihood:
    // accepting them would show here.
    for seed in 0..3 {
        let run = em_run(&overlapping(1000, seed), true);
        assert_never_falls(&run.trace, 1e-12, &format!("seed {seed}"));
    }
}

#[test]
fn an_extrapolated_table_outside_the_model_is_refused_and_a_swapped_one_pooled() {
    let sim = overlapping(500, 6);
    let run = em_run(&sim, true);
    let params = Params {
        components: run.components,
        joint: run.joint,
        held: false,
    };
    let mut flat = params.to_flat();
    let back = params.with_flat(&flat).unwrap();
    assert!((back.joint.clone() - &params.joint).abs().max() < 1e-15 && !back.held);
    // A negative entry is no probability.
    flat[1] = -1e-3;
    assert!(params.with_flat(&flat).is_none());
    // True class 0 given label 1 more often than its own: pooled, total kept.
    let mut flat = params.to_flat();
    flat.swap(0, 1);
    let pooled = params.with_flat(&flat).unwrap();
    assert!(pooled.held);
    assert!((pooled.joint[(0, 0)] - pooled.joint[(1, 0)]).abs() < 1e-15);
    assert!((pooled.joint.sum() - 1.0).abs() < 1e-12);
}

/// The fit of `sim` with default options through [`Rnda::fit_starts`]
/// (a subsample first when the table is large enough) and through the
/// starts on every row alone.
fn with_and_without_subsample(sim: &Simulated) -> ((Run, Option<String>), Run) {
    let guide = Guide::default();
    let model = Rnda::new(&ModelOptions::default()).unwrap();
    let problem = Problem {
        z: Scaled::plain(&sim.x),
        given: &sim.given,
        guide: &guide,
        covariance: model.covariance,
        iterations: model.iterations,
        accelerate: true,
    };
    let p_given = [0.25; 4];
    let (run, _, _, note) = model
        .fit_starts(&problem, &p_given, &mut no_progress())
        .unwrap();
    let mut starts = Starts::new(&problem, 4, &p_given, model.seed);
    let (whole, _, _) = best_run(&problem, &mut starts, Gauge::WHOLE, &mut no_progress()).unwrap();
    ((run, note), whole)
}

#[test]
fn a_large_table_reaches_the_full_fit_from_a_subsample_in_fewer_full_iterations() {
    let sim = overlapping(60_000, 9);
    let ((run, note), whole) = with_and_without_subsample(&sim);
    assert!(note.is_some(), "60k rows of 4 x 23 parameters: subsampled");
    assert!(run.converged && whole.converged);
    let (ls, lw) = (*run.trace.last().unwrap(), *whole.trace.last().unwrap());
    // Both stop where a plain step gains less than tol (1e-7) relative.
    assert!(
        (ls - lw).abs() <= 1e-6 * lw.abs(),
        "subsample {ls}, whole {lw}"
    );
    assert!(
        run.iterations < whole.iterations,
        "{} full-data iterations after the subsample, {} without",
        run.iterations,
        whole.iterations
    );
    let flipped = sim.flipped();
    let score = |r: &Run| -> Vec<f64> {
        (0..sim.given.len())
            .map(|i| 1.0 - r.posterior[(i, sim.given[i])])
            .collect()
    };
    let (a_sub, a_whole) = (
        auroc(&score(&run), &flipped).unwrap(),
        auroc(&score(&whole), &flipped).unwrap(),
    );
    assert!((a_sub - a_whole).abs() < 1e-3, "AUROC {a_sub} vs {a_whole}");
}

#[test]
fn a_small_table_is_fitted_on_every_row() {
    let sim = overlapping(4000, 9);
    let ((run, note), whole) = with_and_without_subsample(&sim);
    assert!(note.is_none());
    assert_eq!(run.trace, whole.trace);
}
