use nalgebra::DMatrix;

use super::*;
use crate::eval::metrics::auroc;
use crate::models::{build_model, no_progress};
use crate::rng::Rng;

/// A uniform Dirichlet draw (eq. 2): normalised unit exponentials.
pub(crate) fn dirichlet(m: usize, rng: &mut Rng) -> Vec<f64> {
    let e: Vec<f64> = (0..m).map(|_| -(1.0 - rng.uniform()).ln()).collect();
    let s: f64 = e.iter().sum();
    e.into_iter().map(|v| v / s).collect()
}

/// Data drawn from the CBT model: symbol probabilities per true class from
/// the uniform Dirichlet over 2^bits symbols, written as `bits` binary
/// features; a sample given label g is truly of class t with probability
/// A[g][t] (alpha_g off the diagonal).
struct Sim {
    x: DMatrix<f64>,
    given: Vec<usize>,
    mislabelled: Vec<bool>,
}

fn simulate(n: usize, bits: usize, alpha: &[f64], seed: u64) -> Sim {
    let k = alpha.len();
    let mut rng = Rng::new(seed);
    let m = 1 << bits;
    let p: Vec<Vec<f64>> = (0..k).map(|_| dirichlet(m, &mut rng)).collect();
    let a = flip_table(alpha);
    let mut x = DMatrix::zeros(n, bits);
    let mut given = Vec::with_capacity(n);
    let mut mislabelled = Vec::with_capacity(n);
    for i in 0..n {
        let g = rng.below(k);
        let t = rng.categorical(&a[g * k..(g + 1) * k]);
        let s = rng.categorical(&p[t]);
        for b in 0..bits {
            x[(i, b)] = ((s >> b) & 1) as f64;
        }
        given.push(g);
        mislabelled.push(t != g);
    }
    Sim {
        x,
        given,
        mislabelled,
    }
}

fn cbt(opts: &[(&str, &str)]) -> Box<dyn RobustModel> {
    let mut o = ModelOptions::default();
    for (k, v) in opts {
        o.set(k, v).unwrap();
    }
    build_model("cbt", &o).unwrap()
}

fn alpha_of(fit: &Fit) -> Vec<f64> {
    fit.extra.matrix("alpha").unwrap().values[0].clone()
}

/// Equal noise in both classes, drawn from the model: one alpha for both
/// (the classes' own do not pay BIC's price), near the truth on average, a
/// maximum of the LOO likelihood along the shared direction, and the
/// flipped samples ranked first.
#[test]
fn recovers_alpha_and_ranks_the_flipped_samples_first() {
    // Without anchor symbols alpha is only weakly identified (the LOO
    // likelihood is nearly flat below the true rate and falls above it), so
    // single draws scatter; the average over draws must sit near the truth.
    let truth = 0.2;
    let seeds = [1u64, 2, 3, 4];
    let mut mean = 0.0;
    for &seed in &seeds {
        let sim = simulate(3000, 4, &[truth, truth], seed);
        let fit = cbt(&[("bdra", "false")])
            .fit(&sim.x, &sim.given, 2, &mut no_progress())
            .unwrap();
        let alpha = alpha_of(&fit);
        assert_eq!(alpha[0], alpha[1], "seed {seed}");
        assert!((alpha[0] - truth).abs() < 0.15, "seed {seed}: {alpha:?}");
        mean += alpha[0] / seeds.len() as f64;
        let auc = auroc(&fit.p_mislabel, &sim.mislabelled).unwrap();
        assert!(auc > 0.75, "seed {seed}: AUROC {auc}");
        let symbols = Symbols::from_indices(
            &(0..sim.given.len())
                .map(|i| (0..4).map(|b| (sim.x[(i, b)] as usize) << b).sum())
                .collect::<Vec<usize>>(),
            &sim.given,
            2,
            16.0,
        );
        let best = leave_one_out(&symbols, &alpha).log_likelihood;
        for d in [-0.02, 0.02] {
            let moved = [(alpha[0] + d).max(0.0); 2];
            if moved[0] != alpha[0] {
                assert!(leave_one_out(&symbols, &moved).log_likelihood <= best);
            }
        }
    }
    assert!((mean - truth).abs() < 0.06, "mean {mean} vs {truth}");
}

/// Equal noise over sparse symbols (3 classes, M = 64, 600 samples, as
/// the home-ground table d0): the classes' own alphas do not pay BIC's
/// price, so no class's alpha is set apart from the others' and every
/// class's flipped labels rank above its clean ones.
#[test]
fn sparse_symbols_keep_one_alpha_for_every_class() {
    for seed in 1..=4u64 {
        let sim = simulate(600, 6, &[0.2, 0.2, 0.2], seed);
        let fit = cbt(&[("bdra", "false")])
            .fit(&sim.x, &sim.given, 3, &mut no_progress())
            .unwrap();
        let alpha = alpha_of(&fit);
        assert!(
            alpha.iter().all(|a| *a == alpha[0] && *a > 0.0),
            "seed {seed}: {alpha:?}"
        );
        for class in 0..3 {
            let rows: Vec<usize> = (0..600).filter(|&i| sim.given[i] == class).collect();
            let p: Vec<f64> = rows.iter().map(|&i| fit.p_mislabel[i]).collect();
            let flipped: Vec<bool> = rows.iter().map(|&i| sim.mislabelled[i]).collect();
            let auc = auroc(&p, &flipped).unwrap();
            assert!(
                auc > 0.6,
                "seed {seed}, class {class}: AUROC {auc}, {alpha:?}"
            );
        }
    }
}

/// Classes that each fill two of four cells (XOR of two binary features),
/// with 20% of the labels flipped either way: the likelihood cannot tell
/// how the noise splits between the classes, and the search from one
/// shared alpha keeps it even, so both classes' flipped labels rank first.
/// From zero, class by class, the first class took all of it.
#[test]
fn a_flat_split_of_the_noise_stays_shared_between_the_classes() {
    let n = 20_000;
    let mut rng = Rng::new(17);
    let mut x = DMatrix::zeros(n, 2);
    let (mut given, mut flipped) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        let (a, b) = (rng.below(2), rng.below(2));
        x[(i, 0)] = a as f64;
        x[(i, 1)] = b as f64;
        let flip = rng.uniform() < 0.2;
        given.push((a ^ b) ^ usize::from(flip));
        flipped.push(flip);
    }
    let fit = cbt(&[("bdra", "false")])
        .fit(&x, &given, 2, &mut no_progress())
        .unwrap();
    let alpha = alpha_of(&fit);
    assert!(alpha.iter().all(|a| (a - 0.2).abs() < 0.05), "{alpha:?}");
    for class in 0..2 {
        let (hits, of) = (0..n)
            .filter(|&i| flipped[i] && given[i] == class)
            .fold((0, 0), |(h, o), i| {
                (h + usize::from(fit.p_mislabel[i] >= 0.5), o + 1)
            });
        assert!(
            hits * 10 >= of * 9,
            "class {class}: {hits} of {of} flagged, {alpha:?}"
        );
    }
}

#[test]
fn clean_labels_give_small_alpha() {
    let sim = simulate(3000, 5, &[0.0, 0.0], 3);
    let fit = cbt(&[("bdra", "false")])
        .fit(&sim.x, &sim.given, 2, &mut no_progress())
        .unwrap();
    let alpha = alpha_of(&fit);
    assert!(alpha.iter().all(|a| *a < 0.05), "{alpha:?}");
}

#[test]
fn leave_one_out_equals_a_refit_without_the_sample() {
    // One feature with 4 levels, each present at least twice so that a refit
    // without any one sample still has all four (M stays 4).
    let xs = [0., 0., 1., 1., 1., 2., 2., 3., 3., 3., 0., 2.];
    let given = [0, 0, 0, 1, 0, 1, 1, 1, 1, 0, 1, 0];
    let x = DMatrix::from_column_slice(12, 1, &xs);
    let model = cbt(&[("alpha", "0.2,0.1"), ("bdra", "false")]);
    let fit = model.fit(&x, &given, 2, &mut no_progress()).unwrap();
    let a = flip_table(&[0.2, 0.1]);
    for i in 0..12 {
        let keep: Vec<usize> = (0..12).filter(|&j| j != i).collect();
        let xr = x.select_rows(keep.iter());
        let gr: Vec<usize> = keep.iter().map(|&j| given[j]).collect();
        let refit = model.fit(&xr, &gr, 2, &mut no_progress()).unwrap();
        // The refit's classifier gives pi_t f(x_i | X_{-i}, H_t); divide by
        // its prior pi_t = sum_g P(given = g) A[g][t], weigh by A[g_i][t].
        let proba = refit
            .classifier
            .unwrap()
            .predict_proba(&x.select_rows([i].iter()));
        let n0 = gr.iter().filter(|&&g| g == 0).count() as f64 / 11.0;
        let pi = [n0 * a[0] + (1.0 - n0) * a[2], n0 * a[1] + (1.0 - n0) * a[3]];
        let g = given[i];
        let w: Vec<f64> = (0..2)
            .map(|t| a[g * 2 + t] * proba[(0, t)] / pi[t])
            .collect();
        let expected = w[g] / (w[0] + w[1]);
        assert!(
            (fit.posterior[(i, g)] - expected).abs() < 1e-9,
            "sample {i}: {} vs {expected}",
            fit.posterior[(i, g)]
        );
    }
}

#[test]
fn with_alpha_zero_the_test_is_the_papers_count_ratio() {
    // alpha = 0: f(y | X, H_k) = (x_{k,y} + 1) / (N_k + M) exactly, so the
    // statistic of a sample is the ratio of the other class's smoothed count
    // to its own class's, without the sample.
    let symbols = Symbols::from_indices(&[0, 0, 1, 1, 1, 2], &[0, 1, 0, 1, 1, 0], 2, 5.0);
    let loo = leave_one_out(&symbols, &[0.0, 0.0]);
    // Sample 2: symbol 1, label 0; without it class 0 has 0 of 2 at symbol
    // 1, class 1 has 2 of 3.
    let expected = ((2.0f64 + 1.0) / (3.0 + 5.0) / ((0.0 + 1.0) / (2.0 + 5.0))).ln();
    assert!((loo.statistic[1][0] - expected).abs() < 1e-12);
    assert_eq!(loo.posterior[1][0], vec![1.0, 0.0]);
}

#[test]
fn sparse_symbols_handle_m_beyond_two_to_the_64() {
    let mut rng = Rng::new(2);
    let n = 300;
    let given: Vec<usize> = (0..n).map(|i| i % 2).collect();
    let x = DMatrix::from_fn(n, 120, |i, j| {
        if j == 0 {
            f64::from(u8::from((rng.uniform() < 0.9) == (given[i] == 1)))
        } else {
            rng.below(2) as f64
        }
    });
    let fit = cbt(&[("bdra", "false"), ("alpha", "0.1")])
        .fit(&x, &given, 2, &mut no_progress())
        .unwrap();
    let log10_m = fit.extra.scalar("log10_M").unwrap();
    assert!((log10_m - 120.0 * 2f64.log10()).abs() < 1e-9, "{log10_m}");
    assert!(log10_m > 64.0 * 2f64.log10());
    assert!(fit.extra.scalar("M").is_none());
    assert_eq!(fit.extra.scalar("observed_symbols"), Some(300.0));
    assert!(fit.p_mislabel.iter().all(|p| p.is_finite()));
    // With BDRA the noise features go and feature 0 stays.
    let fit = cbt(&[("alpha", "0.1")])
        .fit(&x, &given, 2, &mut no_progress())
        .unwrap();
    let kept = &fit
        .extra
        .lists
        .iter()
        .find(|(n, _)| n == "kept_features")
        .unwrap()
        .1;
    assert!(kept.iter().any(|f| f.starts_with("#0 ")), "{kept:?}");
    assert!(kept.len() < 10, "{kept:?}");
}

#[test]
fn bdra_in_the_fit_only_lowers_eq_8() {
    // Three informative bits and five coin flips.
    let mut sim = simulate(800, 3, &[0.1, 0.1], 8);
    let mut rng = Rng::new(80);
    sim.x = sim.x.resize_horizontally(8, 0.0);
    for i in 0..800 {
        for j in 3..8 {
            sim.x[(i, j)] = rng.below(2) as f64;
        }
    }
    let fit = cbt(&[])
        .fit(&sim.x, &sim.given, 2, &mut no_progress())
        .unwrap();
    let series = &fit.extra.series[0].points;
    assert!(series.len() >= 2, "BDRA made no step: {series:?}");
    for w in series.windows(2) {
        assert!(w[1].1 < w[0].1, "{series:?}");
    }
    assert_eq!(
        fit.extra.scalar("bdra_error_after"),
        Some(series.last().unwrap().1)
    );
    let removed = &fit
        .extra
        .lists
        .iter()
        .find(|(n, _)| n == "removed_features")
        .unwrap()
        .1;
    assert!(!removed.is_empty(), "{removed:?}");
}

#[test]
fn three_classes_work() {
    let truth = [0.15, 0.15, 0.15];
    let sim = simulate(3000, 4, &truth, 21);
    let fit = cbt(&[("bdra", "false")])
        .fit(&sim.x, &sim.given, 3, &mut no_progress())
        .unwrap();
    for i in 0..sim.given.len() {
        assert!((fit.posterior.row(i).sum() - 1.0).abs() < 1e-9);
    }
    let alpha = alpha_of(&fit);
    assert!(alpha.iter().all(|a| (a - 0.15).abs() < 0.12), "{alpha:?}");
    let auc = auroc(&fit.p_mislabel, &sim.mislabelled).unwrap();
    assert!(auc > 0.75, "AUROC {auc}");
    let g = fit.gamma.as_ref().unwrap();
    for t in 0..3 {
        assert!((g.p_given_true.row(t).sum() - 1.0).abs() < 1e-9);
    }
    let p = fit.classifier.as_ref().unwrap().predict_proba(&sim.x);
    assert!((p.row(0).sum() - 1.0).abs() < 1e-9);
}

#[test]
fn continuous_features_are_quantised() {
    let mut rng = Rng::new(4);
    let given: Vec<usize> = (0..400).map(|i| i % 2).collect();
    let x = DMatrix::from_fn(400, 2, |i, _| 2.0 * given[i] as f64 + rng.normal());
    let fit = cbt(&[("levels", "5"), ("bdra", "false")])
        .fit(&x, &given, 2, &mut no_progress())
        .unwrap();
    assert_eq!(fit.extra.scalar("M"), Some(25.0));
    let agree = (0..400).filter(|&i| fit.suggested[i] == given[i]).count();
    assert!(agree > 300, "{agree}");
}

#[test]
fn options_are_checked_with_clear_messages() {
    let mut o = ModelOptions::default();
    o.set("alpha", "0.1,x").unwrap();
    let e = build_model("cbt", &o).err().unwrap().to_string();
    assert!(e.contains("not a number"), "{e}");
    o.set("alpha", "0.1").unwrap();
    assert_eq!(o.alpha.as_deref(), Some("0.1"));
    o.set("bdra", "false").unwrap();
    assert_eq!(o.bdra, Some(false));
    let mut o = ModelOptions::default();
    o.set("levels", "1").unwrap();
    let e = build_model("cbt", &o).err().unwrap().to_string();
    assert!(e.contains("levels must be at least 2"), "{e}");
    assert!(ModelOptions::default().set("bdra", "maybe").is_err());

    let x = DMatrix::from_column_slice(4, 1, &[0., 1., 0., 1.]);
    let given = [0, 1, 0, 1];
    for (text, needle) in [
        ("0.1,0.1,0.1", "3 values for 2 classes"),
        ("0.6", "not below 0.500"),
        ("1.5", "not a probability"),
    ] {
        let e = cbt(&[])
            .fit(&x, &given, 2, &mut no_progress())
            .map(|_| ())
            .and_then(|()| {
                let mut o = ModelOptions::default();
                o.set("alpha", text).unwrap();
                build_model("cbt", &o)?.fit(&x, &given, 2, &mut no_progress())
            })
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains(needle), "{text}: {e}");
    }
}

#[test]
fn stop_cancels_the_fit() {
    let sim = simulate(500, 4, &[0.1, 0.1], 1);
    for opts in [vec![], vec![("alpha", "0.1"), ("bdra", "false")]] {
        let mut calls = 0;
        let err = cbt(&opts)
            .fit(&sim.x, &sim.given, 2, &mut |_| {
                calls += 1;
                Control::Stop
            })
            .unwrap_err();
        assert_eq!(err, FitError::Cancelled);
        assert_eq!(calls, 1);
    }
}

#[test]
fn fits_are_deterministic() {
    let sim = simulate(800, 6, &[0.2, 0.1], 9);
    let a = cbt(&[])
        .fit(&sim.x, &sim.given, 2, &mut no_progress())
        .unwrap();
    let b = cbt(&[])
        .fit(&sim.x, &sim.given, 2, &mut no_progress())
        .unwrap();
    assert_eq!(a.p_mislabel, b.p_mislabel);
    assert_eq!(a.ranking(), b.ranking());
}

#[test]
fn small_classes_share_one_alpha_and_large_ones_get_their_own() {
    // 1 / GRID_STEP = 20 samples resolve a class's own alpha.
    assert_eq!(
        alpha_groups(&[30.0, 5.0, 0.0, 19.0, 20.0]),
        vec![vec![0], vec![4], vec![1, 3]]
    );
    assert_eq!(alpha_groups(&[2.0, 2.0, 2.0]), vec![vec![0, 1, 2]]);
    assert_eq!(alpha_groups(&[25.0, 40.0]), vec![vec![0], vec![1]]);
}

/// Decisions are evidence: a decided sample is pinned, and at its symbol it
/// counts for its decided class only, which moves the samples sharing that
/// symbol and label the same way.
#[test]
fn decisions_count_for_their_class_at_their_symbol() {
    let sim = simulate(400, 4, &[0.2, 0.1], 11);
    let model = cbt(&[("bdra", "false"), ("alpha", "0.2,0.1")]);
    let before = model
        .fit(&sim.x, &sim.given, 2, &mut no_progress())
        .unwrap();
    let ranking = before.ranking();
    let first = ranking[0];
    assert!(sim.mislabelled[first], "the top suspect is a flip");
    let truth = 1 - sim.given[first];
    let mut trusted = vec![None; 400];
    trusted[first] = Some(truth);
    let kept = *ranking
        .iter()
        .rev()
        .find(|&&i| !sim.mislabelled[i])
        .unwrap();
    trusted[kept] = Some(sim.given[kept]);
    let guide = Guide {
        trusted: trusted.clone(),
        warm: None,
    };
    let after = model
        .fit_guided(&sim.x, &sim.given, 2, &guide, &mut no_progress())
        .unwrap();
    assert_eq!(after.p_mislabel[first], 1.0);
    assert_eq!(after.suggested[first], truth);
    assert_eq!(after.p_mislabel[kept], 0.0);
    // Undecided samples at the same symbol with the same given label: the
    // decided flip is one more sample of their suspected class there.
    let symbol = |i: usize| sim.x.row(i).iter().map(|v| *v as usize).collect::<Vec<_>>();
    let twins: Vec<usize> = (0..400)
        .filter(|&i| i != first && symbol(i) == symbol(first) && sim.given[i] == sim.given[first])
        .collect();
    assert!(!twins.is_empty());
    for &i in &twins {
        assert!(after.p_mislabel[i] > before.p_mislabel[i], "sample {i}");
    }
}

#[test]
fn the_alpha_search_likelihood_is_leave_one_outs_bit_for_bit() {
    let mut rng = Rng::new(11);
    let symbol: Vec<usize> = (0..400).map(|_| rng.below(30)).collect();
    let given: Vec<usize> = (0..400).map(|_| rng.below(3)).collect();
    let mut symbols = Symbols::from_indices(&symbol, &given, 3, 64.0);
    for alpha in [[0.0, 0.0, 0.0], [0.1, 0.3, 0.05], [0.6, 0.2, 0.4]] {
        let full = leave_one_out(&symbols, &alpha).log_likelihood;
        assert_eq!(
            loo_log_likelihood(&symbols, &alpha).to_bits(),
            full.to_bits()
        );
    }
    // With decided groups too.
    let group: Vec<usize> = given
        .iter()
        .enumerate()
        .map(|(i, &g)| if i % 7 == 0 { 3 + (g + 1) % 3 } else { g })
        .collect();
    regroup(&mut symbols, &group, 6);
    let alpha = [0.2, 0.1, 0.3];
    let full = leave_one_out(&symbols, &alpha).log_likelihood;
    assert_eq!(
        loo_log_likelihood(&symbols, &alpha).to_bits(),
        full.to_bits()
    );
}

/// The symbol table's emptiness is always told, and an alpha of zero
/// everywhere is named as the model's answer, not left as silent zeros.
#[test]
fn notes_count_the_empty_symbols_and_name_an_alpha_of_zero() {
    let symbols = Symbols::from_indices(&[0, 1, 1, 2], &[0, 1, 1, 0], 2, 8.0);
    let notes = symbol_notes(&symbols, &[0.0, 0.0], true);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].starts_with("3 of the M = 8 symbols"), "{notes:?}");
    assert!(notes[0].contains("5 are empty"), "{notes:?}");
    assert!(notes[1].contains("alpha estimated 0"), "{notes:?}");
    // A fixed alpha of zero is the curator's, and says nothing more.
    assert_eq!(symbol_notes(&symbols, &[0.0, 0.0], false).len(), 1);
    assert_eq!(symbol_notes(&symbols, &[0.1, 0.0], true).len(), 1);
}
