use nalgebra::DVector;

use super::*;
use crate::eval::simulate::spherical_mixture;
use crate::models::no_progress;
use crate::models::numerics::assert_never_falls;
use crate::rng::Rng;

fn settings(family: CovarianceFamily, seed: u64) -> MixtureSettings {
    MixtureSettings {
        family,
        shrinkage: None,
        restarts: 3,
        max_iter: 300,
        tol: 1e-8,
        seed,
    }
}

/// Three well-separated clusters in two dimensions.
fn three_clusters(n: usize, seed: u64) -> (DMatrix<f64>, Vec<usize>, Vec<DVector<f64>>, Vec<f64>) {
    let means = vec![
        DVector::from_vec(vec![0.0, 0.0]),
        DVector::from_vec(vec![7.0, 0.0]),
        DVector::from_vec(vec![0.0, 7.0]),
    ];
    let weights = vec![0.5, 0.3, 0.2];
    let (x, c) = spherical_mixture(n, &means, &[1.0, 0.8, 1.2], &weights, &mut Rng::new(seed));
    (x, c, means, weights)
}

fn nearest(means: &[DVector<f64>], v: &DVector<f64>) -> usize {
    (0..means.len())
        .min_by(|&a, &b| (&means[a] - v).norm().total_cmp(&(&means[b] - v).norm()))
        .unwrap()
}

#[test]
fn em_recovers_means_and_weights_of_separated_clusters() {
    let (x, _, means, weights) = three_clusters(1500, 1);
    let m = fit_mixture(
        &x,
        3,
        &settings(CovarianceFamily::Spherical, 0),
        Gauge::WHOLE,
        &mut no_progress(),
    )
    .unwrap();
    assert!(m.converged, "{} iterations", m.iterations);
    let mut seen = [false; 3];
    for (j, mu) in m.components.means.iter().enumerate() {
        let t = nearest(&means, mu);
        seen[t] = true;
        assert!(
            (mu - &means[t]).norm() < 0.25,
            "mean {j}: {mu} vs {}",
            means[t]
        );
        let w = m.log_weights[j].exp();
        assert!(
            (w - weights[t]).abs() < 0.03,
            "weight {j}: {w} vs {}",
            weights[t]
        );
    }
    assert_eq!(seen, [true; 3], "each true cluster found once");
}

#[test]
fn em_log_likelihood_does_not_decrease_for_unshrunk_families() {
    // Without shrinkage the M-step is exact ML, so EM is monotone.
    let (x, _, _, _) = three_clusters(600, 4);
    for family in [CovarianceFamily::Diag, CovarianceFamily::Spherical] {
        let m = fit_mixture(
            &x,
            3,
            &settings(family, 2),
            Gauge::WHOLE,
            &mut no_progress(),
        )
        .unwrap();
        assert_never_falls(&m.trace, 1e-8, &family.to_string());
    }
}

#[test]
fn bic_picks_the_true_number_of_clusters() {
    let means: Vec<DVector<f64>> = [
        [0.0, 0.0, 0.0],
        [6.0, 0.0, 0.0],
        [0.0, 6.0, 0.0],
        [0.0, 0.0, 6.0],
    ]
    .iter()
    .map(|m| DVector::from_row_slice(m))
    .collect();
    let (x, _) = spherical_mixture(800, &means, &[1.0; 4], &[0.25; 4], &mut Rng::new(3));
    let choice = select_by_bic(
        &x,
        1..=7,
        BicScan::Every,
        &settings(CovarianceFamily::Spherical, 1),
        &Starts::default(),
        Gauge::WHOLE,
        &mut no_progress(),
    )
    .unwrap();
    assert_eq!(choice.best.n_clusters(), 4, "BIC: {:?}", choice.bic);
    assert_eq!(choice.bic.len() + choice.skipped.len(), 7);
    // The default scan stops two numbers past the minimum, with the same
    // choice and the same BIC for every number it fitted.
    let short = select_by_bic(
        &x,
        1..=7,
        BIC_SCAN,
        &settings(CovarianceFamily::Spherical, 1),
        &Starts::default(),
        Gauge::WHOLE,
        &mut no_progress(),
    )
    .unwrap();
    assert_eq!(short.best.n_clusters(), 4);
    assert_eq!(short.bic[..], choice.bic[..6], "{:?}", short.bic);
}

#[test]
fn a_seed_reproduces_the_fit() {
    let (x, _, _, _) = three_clusters(500, 2);
    let fit = |seed| {
        fit_mixture(
            &x,
            3,
            &settings(CovarianceFamily::Full, seed),
            Gauge::WHOLE,
            &mut no_progress(),
        )
        .unwrap()
    };
    let (a, b) = (fit(9), fit(9));
    assert_eq!(a.log_likelihood, b.log_likelihood);
    assert_eq!(a.trace, b.trace);
    assert_eq!(a.components.means, b.components.means);
}

#[test]
fn every_covariance_family_fits_and_counts_its_parameters() {
    let (x, _, _, _) = three_clusters(400, 5);
    let mut counts = Vec::new();
    for family in CovarianceFamily::ALL {
        let m = fit_mixture(
            &x,
            3,
            &settings(family, 0),
            Gauge::WHOLE,
            &mut no_progress(),
        )
        .unwrap();
        assert!(
            m.log_likelihood.is_finite() && m.bic().is_finite(),
            "{family}"
        );
        let (psi, ll) = m.responsibilities(&x);
        assert!((ll - m.log_likelihood).abs() < 1e-6 * ll.abs(), "{family}");
        for i in 0..x.nrows() {
            assert!((psi.row(i).sum() - 1.0).abs() < 1e-9);
        }
        counts.push(m.n_parameters());
    }
    // p = 2, K = 3: full 2 + 6 + 9, tied 2 + 6 + 3, diag 2 + 6 + 6, spherical 2 + 6 + 3.
    assert_eq!(counts, vec![17, 11, 14, 11]);
}

#[test]
fn kmeans_plus_plus_usually_separates_clear_clusters() {
    // D^2 seeding can still put two seeds in one cluster (that is what the
    // restarts are for), but on clear clusters most seeds give the true
    // partition up to renaming (nearly pure clusters).
    let (x, truth, _, _) = three_clusters(300, 6);
    let keys = crate::rng::row_keys(x.as_slice(), 300, 0);
    let pure = (0..10)
        .filter(|&draw| {
            let assign = kmeans_plus_plus(&x, 3, &keys, draw);
            (0..3).all(|c| {
                let members: Vec<usize> = (0..300)
                    .filter(|&i| assign[i] == c)
                    .map(|i| truth[i])
                    .collect();
                let mut votes = [0usize; 3];
                for &t in &members {
                    votes[t] += 1;
                }
                // Nearly pure: a point in a tail may cross the midpoint.
                *votes.iter().max().unwrap() as f64 > 0.97 * members.len() as f64
            })
        })
        .count();
    assert!(pure >= 7, "only {pure} of 10 seeds found the clusters");
}

/// Seeds drawn by the rows' keys: the same rows in reverse order, keys
/// with them, fall into the same clusters.
#[test]
fn kmeans_plus_plus_does_not_depend_on_the_order_of_the_rows() {
    let (x, _, _, _) = three_clusters(300, 6);
    let n = x.nrows();
    let reversed = DMatrix::from_fn(n, x.ncols(), |i, j| x[(n - 1 - i, j)]);
    let keys = crate::rng::row_keys(x.as_slice(), n, 4);
    let keys_rev = crate::rng::row_keys(reversed.as_slice(), n, 4);
    for draw in 0..5 {
        let a = kmeans_plus_plus(&x, 3, &keys, draw);
        let b = kmeans_plus_plus(&reversed, 3, &keys_rev, draw);
        assert!((0..n).all(|i| a[i] == b[n - 1 - i]), "draw {draw}");
    }
}

#[test]
fn impossible_cluster_numbers_are_errors() {
    let (x, _, _, _) = three_clusters(20, 7);
    let s = settings(CovarianceFamily::Spherical, 0);
    let e = fit_mixture(&x, 0, &s, Gauge::WHOLE, &mut no_progress()).unwrap_err();
    assert!(matches!(e, FitError::InvalidOption(_)), "{e}");
    let e = fit_mixture(&x, 21, &s, Gauge::WHOLE, &mut no_progress()).unwrap_err();
    assert!(e.to_string().contains("at most 20"), "{e}");
    #[allow(clippy::reversed_empty_ranges)]
    let e = select_by_bic(
        &x,
        4..=2,
        BIC_SCAN,
        &s,
        &Starts::default(),
        Gauge::WHOLE,
        &mut no_progress(),
    )
    .unwrap_err();
    assert!(matches!(e, FitError::InvalidOption(_)), "{e}");
}

#[test]
fn stopping_cancels_within_one_iteration() {
    let (x, _, _, _) = three_clusters(300, 8);
    let mut calls = 0;
    let mut stop = |_: Progress| {
        calls += 1;
        Control::Stop
    };
    let e = fit_mixture(
        &x,
        3,
        &settings(CovarianceFamily::Full, 0),
        Gauge::WHOLE,
        &mut stop,
    )
    .unwrap_err();
    assert_eq!(e, FitError::Cancelled);
    assert_eq!(calls, 1);
}

/// Plain or SQUAREM-accelerated EM from one k-means++ start to a tight
/// tolerance: (final log-likelihood, iterations).
fn em_from_kmeans(x: &DMatrix<f64>, k: usize, accelerate: bool) -> (f64, usize) {
    let settings = MixtureSettings {
        shrinkage: Some(0.0),
        max_iter: 5000,
        tol: 1e-12,
        ..settings(CovarianceFamily::Full, 5)
    };
    let assign = kmeans_plus_plus(x, k, &position_keys(x.nrows(), 11), 11);
    let run = EmRun {
        z: x,
        k,
        settings: &settings,
        gauge: Gauge::WHOLE,
        accelerate,
    };
    let mut history = History::default();
    let mut progress = no_progress();
    let state = run
        .start(&assign, &mut history, &mut progress)
        .ok()
        .unwrap();
    let state = run
        .advance(state, settings.max_iter, &mut history, &mut progress)
        .ok()
        .unwrap();
    assert!(state.mixture.converged, "accelerate {accelerate}");
    assert_never_falls(&history.trace, 1e-9, &format!("accelerate {accelerate}"));
    (state.mixture.log_likelihood, history.iteration)
}

#[test]
fn squarem_reaches_plain_em_fixed_point_in_fewer_iterations() {
    // Overlapping clusters: the missing information is large and plain EM
    // crawls, which is what the acceleration is for.
    let means = vec![
        DVector::from_vec(vec![0.0, 0.0, 0.0]),
        DVector::from_vec(vec![1.5, 0.0, 0.0]),
        DVector::from_vec(vec![0.0, 1.5, 0.5]),
    ];
    let (x, _) = spherical_mixture(
        900,
        &means,
        &[1.0, 0.8, 1.2],
        &[0.5, 0.3, 0.2],
        &mut Rng::new(3),
    );
    let (plain_ll, plain_iter) = em_from_kmeans(&x, 3, false);
    let (fast_ll, fast_iter) = em_from_kmeans(&x, 3, true);
    assert!(
        (plain_ll - fast_ll).abs() < 1e-6 * plain_ll.abs(),
        "plain {plain_ll} vs squarem {fast_ll}"
    );
    assert!(
        fast_iter * 4 < plain_iter,
        "squarem {fast_iter} iterations, plain {plain_iter}"
    );
}

#[test]
fn the_kept_start_reports_its_whole_trace_burst_included() {
    let (x, _, _, _) = three_clusters(600, 9);
    let s = settings(CovarianceFamily::Full, 4);
    let m = fit_mixture(&x, 3, &s, Gauge::WHOLE, &mut no_progress()).unwrap();
    assert!(m.converged);
    assert_eq!(m.trace.len(), m.iterations);
    assert_eq!(m.trace.last().copied(), Some(m.log_likelihood));
}
