use super::*;
use nalgebra::DMatrix;

/// Odds rescaled by c move every logit by log c: the order is kept, the
/// mean reaches the rate asked for, and rows stay distributions.
#[test]
fn the_odds_factor_reaches_the_rate_and_keeps_the_order() {
    let given = vec![0, 1, 0, 1, 0, 0];
    let posterior = DMatrix::from_row_slice(
        6,
        3,
        &[
            0.99, 0.005, 0.005, //
            0.30, 0.60, 0.10, //
            0.40, 0.50, 0.10, //
            0.05, 0.90, 0.05, //
            0.97, 0.01, 0.02, //
            1.00, 0.00, 0.00, //
        ],
    );
    let mut fit = Fit::from_posterior(posterior, &given);
    let before = fit.p_mislabel.clone();
    let c = odds_for_rate(&fit.p_mislabel, 0.4);
    assert!(c > 1.0, "more noise than the fit says: {c}");
    rescale_odds(&mut fit, &given, c);
    let mean = fit.p_mislabel.iter().sum::<f64>() / 6.0;
    assert!((mean - 0.4).abs() < 1e-9, "{mean}");
    for i in 0..6 {
        assert!((fit.posterior.row(i).sum() - 1.0).abs() < 1e-12);
        for j in 0..6 {
            if before[i] < before[j] {
                assert!(fit.p_mislabel[i] < fit.p_mislabel[j]);
            }
        }
        let logit = |p: f64| (p / (1.0 - p)).ln();
        if before[i] > 0.0 {
            assert!((logit(fit.p_mislabel[i]) - logit(before[i]) - c.ln()).abs() < 1e-9);
        }
    }
    // A certain row stays certain; the suggestion follows the posterior.
    assert_eq!(fit.p_mislabel[5], 0.0);
    assert_eq!(fit.suggested[2], 1);
    // Out of reach (every p is 0): no change.
    assert_eq!(odds_for_rate(&[0.0, 0.0], 0.3), 1.0);
}

/// A fifth of the labels flipped: the confident joint counts the flips,
/// whether the held-out classifier is sure (0.95) or soft (0.7, as one
/// trained on noisy labels is); a flip table fitted to the soft one would
/// call most of the disagreement the classifier's own error.
#[test]
fn the_held_out_noise_counts_flips_not_softness() {
    let n = 1000;
    let truth: Vec<usize> = (0..n).map(|i| i % 2).collect();
    let given: Vec<usize> = truth
        .iter()
        .enumerate()
        .map(|(i, &t)| if i % 5 == 0 { 1 - t } else { t })
        .collect();
    for p in [0.95, 0.7] {
        let class = |t: usize| {
            Some(if t == 0 {
                vec![p, 1.0 - p]
            } else {
                vec![1.0 - p, p]
            })
        };
        let held_out = HeldOut {
            given: given.clone(),
            keys: Vec::new(),
            p_given: Vec::new(),
            p_true: vec![
                ("a".into(), truth.iter().map(|&t| class(t)).collect()),
                ("b".into(), truth.iter().map(|&t| class(t)).collect()),
            ],
        };
        let rate = held_out_noise(&held_out, &[("a".into(), 0.5), ("b".into(), 0.5)]).unwrap();
        assert!((rate - 0.2).abs() < 1e-9, "{p}: {rate}");
        // A member without held-out classes: no estimate.
        assert!(held_out_noise(&held_out, &[("c".into(), 1.0)]).is_none());
    }
}

/// Held-out fits with no skill (every row's P(true | x) the class shares,
/// its held-out likelihood that of the constant classifier): their
/// confident joint counts about half the labels wrong whatever the noise,
/// and before the skill test that count was applied (on colon, odds x15).
/// Now the fit keeps its own p_mislabel; with skilled held-out fits on the
/// same labels, it is calibrated as before.
#[test]
fn a_held_out_classifier_without_skill_does_not_calibrate() {
    let n = 200;
    let given: Vec<usize> = (0..n).map(|i| usize::from(i % 3 == 0)).collect();
    let share = |g: usize| given.iter().filter(|&&h| h == g).count() as f64 / n as f64;
    let fit = || {
        let posterior = DMatrix::from_fn(n, 2, |i, k| if k == given[i] { 0.9 } else { 0.1 });
        Fit::from_posterior(posterior, &given)
    };
    // The class shares, give or take what a fit on a sample moves them by.
    let flat = HeldOut {
        given: given.clone(),
        keys: Vec::new(),
        p_given: Vec::new(),
        p_true: vec![(
            "a".into(),
            (0..n)
                .map(|i| {
                    let p = share(0) + 0.01 * (i as f64).sin();
                    Some(vec![p, 1.0 - p])
                })
                .collect(),
        )],
    };
    let flat_ll = vec![(
        "a".to_string(),
        given.iter().map(|&g| Some(share(g).ln())).collect(),
    )];
    let members = [("a".to_string(), 1.0)];
    assert!(held_out_noise(&flat, &members).unwrap() > 0.3);
    let (gain, se) = held_out_skill(&flat_ll, &given, &members).unwrap();
    assert!(gain.abs() < 1e-12 && se < 1e-12, "{gain} {se}");
    let mut kept = fit();
    let c = calibrate(&mut kept, &flat_ll, &flat, &members, &given).unwrap();
    assert_eq!(c.odds, None);
    assert_eq!(kept.p_mislabel, fit().p_mislabel);
    assert!(
        c.note.contains("no better than the class shares"),
        "{}",
        c.note
    );

    // Skilled: every tenth label disagrees with a sure held-out classifier.
    let truth: Vec<usize> = given
        .iter()
        .enumerate()
        .map(|(i, &g)| if i % 10 == 0 { 1 - g } else { g })
        .collect();
    let sure = HeldOut {
        given: given.clone(),
        keys: Vec::new(),
        p_given: Vec::new(),
        p_true: vec![(
            "a".into(),
            truth
                .iter()
                .map(|&t| {
                    Some(if t == 0 {
                        vec![0.95, 0.05]
                    } else {
                        vec![0.05, 0.95]
                    })
                })
                .collect(),
        )],
    };
    let sure_ll = vec![(
        "a".to_string(),
        truth
            .iter()
            .zip(&given)
            .map(|(t, g)| Some(if t == g { 0.85f64.ln() } else { 0.15f64.ln() }))
            .collect(),
    )];
    let mut calibrated = fit();
    let c = calibrate(&mut calibrated, &sure_ll, &sure, &members, &given).unwrap();
    assert!(c.odds.is_some(), "{}", c.note);
    let mean = calibrated.p_mislabel.iter().sum::<f64>() / n as f64;
    assert!((mean - 0.1).abs() < 1e-6, "{mean}");
}
