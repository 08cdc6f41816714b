use nalgebra::DVector;

use super::*;
use crate::eval::simulate::spherical_mixture;
use crate::models::numerics::assert_never_falls;
use crate::models::{CovarianceFamily, build_model, no_progress};
use crate::rng::{Rng, row_keys};

/// Four spherical clusters on the axes of R^3; cluster j belongs to class
/// j % 2. Labels of class-0 points flip with probability `flip[0]`, of
/// class-1 points with `flip[1]`. Returns x, generating cluster, given label.
fn four_clusters(n: usize, flip: [f64; 2], seed: u64) -> (DMatrix<f64>, Vec<usize>, Vec<usize>) {
    let means: Vec<DVector<f64>> = [
        [0.0, 0.0, 0.0],
        [7.0, 0.0, 0.0],
        [0.0, 7.0, 0.0],
        [0.0, 0.0, 7.0],
    ]
    .iter()
    .map(|m| DVector::from_row_slice(m))
    .collect();
    let mut rng = Rng::new(seed);
    let (x, clusters) = spherical_mixture(n, &means, &[1.0; 4], &[0.3, 0.2, 0.25, 0.25], &mut rng);
    let given = clusters
        .iter()
        .map(|&s| {
            let c = s % 2;
            if rng.uniform() < flip[c] { 1 - c } else { c }
        })
        .collect();
    (x, clusters, given)
}

fn spherical(clusters: Option<usize>) -> ModelOptions {
    ModelOptions {
        covariance: CovarianceFamily::Spherical,
        clusters,
        ..ModelOptions::default()
    }
}

fn fit_with(opts: ModelOptions, x: &DMatrix<f64>, given: &[usize]) -> Fit {
    Rmda::new(&opts)
        .unwrap()
        .fit(x, given, 2, &mut no_progress())
        .unwrap()
}

fn r_matrix(f: &Fit) -> DMatrix<f64> {
    let m = f.extra.matrix("R").unwrap();
    DMatrix::from_fn(m.values.len(), m.values[0].len(), |i, j| m.values[i][j])
}

#[test]
fn r_recovers_the_class_mix_of_each_cluster() {
    let flip = [0.2, 0.1];
    let (x, clusters, given) = four_clusters(4000, flip, 1);
    let f = fit_with(spherical(Some(4)), &x, &given);
    assert!(f.converged, "{} iterations", f.iterations);
    let r = r_matrix(&f);
    let found = &f.extra.sample_column("cluster").unwrap().values;
    for j in 0..4 {
        // The generating cluster of the fitted one, by majority of members.
        let members: Vec<usize> = (0..4000).filter(|&i| found[i] as usize == j + 1).collect();
        let mut votes = [0usize; 4];
        for &i in &members {
            votes[clusters[i]] += 1;
        }
        let s = crate::models::argmax(votes.iter().map(|&v| v as f64));
        assert!(
            votes[s] as f64 > 0.99 * members.len() as f64,
            "cluster {j} impure"
        );
        let true_class = s % 2;
        let expected_same = 1.0 - flip[true_class];
        assert!(
            (r[(j, true_class)] - expected_same).abs() < 0.05,
            "R[{j},{true_class}] = {:.3}, truth {expected_same}\n{r}",
            r[(j, true_class)]
        );
        assert!((r.row(j).sum() - 1.0).abs() < 1e-12);
    }
    let m = f.extra.matrix("R").unwrap();
    assert!(
        m.orientation
            .starts_with("rows = clusters, columns = classes")
    );
    assert!(f.gamma.is_none());
}

#[test]
fn eq8_likelihood_never_decreases_over_r_iterations() {
    // On the model's own fit...
    let (x, _, given) = four_clusters(800, [0.3, 0.3], 2);
    let f = fit_with(spherical(Some(6)), &x, &given);
    assert!(f.trace.len() > 2);
    assert_never_falls(&f.trace, 1e-9, "rmda");
    // ...and on arbitrary cluster posteriors and labels.
    let mut rng = Rng::new(3);
    let psi = {
        let mut m = DMatrix::from_fn(300, 5, |_, _| rng.uniform().powi(3));
        for mut row in m.row_iter_mut() {
            let s = row.sum();
            row /= s;
        }
        m
    };
    let labels: Vec<usize> = (0..300).map(|_| rng.below(3)).collect();
    let est = estimate_r(
        &psi,
        &labels,
        3,
        400,
        1e-14,
        Gauge::WHOLE,
        &mut no_progress(),
    )
    .unwrap();
    assert_never_falls(&est.trace, 1e-9, "R");
    assert!(est.trace.last().unwrap() > &est.trace[0]);
    let ll = r_log_likelihood(&psi, &labels, &est.r);
    assert!(ll >= *est.trace.last().unwrap() - 1e-9 * ll.abs());
}

#[test]
fn bic_over_the_default_range_finds_the_four_clusters() {
    let (x, _, given) = four_clusters(1200, [0.1, 0.1], 4);
    let f = fit_with(spherical(None), &x, &given);
    assert_eq!(f.extra.scalar("clusters"), Some(4.0));
    let bic = f.extra.series.iter().find(|s| s.name == "BIC").unwrap();
    // Default range K..=4K for K = 2 classes, left two numbers past the
    // minimum.
    let xs: Vec<f64> = bic.points.iter().map(|p| p.0).collect();
    assert_eq!(xs, (2..=6).map(|k| k as f64).collect::<Vec<_>>());
    // A top the user names is scanned to the end, with the same choice.
    let named = ModelOptions {
        clusters_max: Some(8),
        ..spherical(None)
    };
    let f = fit_with(named, &x, &given);
    assert_eq!(f.extra.scalar("clusters"), Some(4.0));
    let bic = f.extra.series.iter().find(|s| s.name == "BIC").unwrap();
    let xs: Vec<f64> = bic.points.iter().map(|p| p.0).collect();
    assert_eq!(xs, (2..=8).map(|k| k as f64).collect::<Vec<_>>());
}

#[test]
fn posterior_is_eq7_and_the_classifier_agrees_on_training_rows() {
    let (x, _, given) = four_clusters(500, [0.2, 0.2], 5);
    let f = fit_with(spherical(Some(4)), &x, &given);
    let p = f.classifier.as_ref().unwrap().predict_proba(&x);
    assert!((&p - &f.posterior).abs().max() < 1e-12);
    for (i, &g) in given.iter().enumerate() {
        assert!((f.posterior.row(i).sum() - 1.0).abs() < 1e-9);
        assert!((f.p_mislabel[i] - (1.0 - f.posterior[(i, g)])).abs() < 1e-12);
    }
}

#[test]
fn flipped_labels_score_higher_than_kept_ones() {
    let (x, clusters, given) = four_clusters(1000, [0.25, 0.25], 6);
    let flipped: Vec<bool> = (0..1000).map(|i| given[i] != clusters[i] % 2).collect();
    let f = fit_with(spherical(None), &x, &given);
    let auc = crate::eval::metrics::auroc(&f.p_mislabel, &flipped).unwrap();
    assert!(auc > 0.95, "AUROC {auc}");
}

#[test]
fn stopping_cancels_within_one_iteration_in_either_step() {
    let (x, _, given) = four_clusters(400, [0.1, 0.1], 7);
    for stop_stage in ["mixture EM", "R (eq. 8)"] {
        let mut calls_after_stop = 0;
        let mut stopped = false;
        let mut progress = |p: Progress| {
            if stopped {
                calls_after_stop += 1;
            }
            if p.stage == stop_stage {
                stopped = true;
                Control::Stop
            } else {
                Control::Continue
            }
        };
        let e = Rmda::new(&spherical(Some(4)))
            .unwrap()
            .fit(&x, &given, 2, &mut progress)
            .unwrap_err();
        assert_eq!(e, FitError::Cancelled, "{stop_stage}");
        assert_eq!(calls_after_stop, 0, "{stop_stage}");
    }
}

#[test]
fn a_seed_reproduces_the_fit() {
    let (x, _, given) = four_clusters(400, [0.2, 0.1], 8);
    let opts = ModelOptions {
        seed: 42,
        ..spherical(None)
    };
    let a = fit_with(opts.clone(), &x, &given);
    let b = fit_with(opts, &x, &given);
    assert_eq!(a.posterior, b.posterior);
    assert_eq!(a.trace, b.trace);
    assert_eq!(a.extra, b.extra);
}

/// The k-means++ restarts and the split of the classes draw by each row's
/// values: the table reversed gives every row the same score (full
/// covariances over the default range of clusters).
#[test]
fn the_fit_does_not_depend_on_the_order_of_the_rows() {
    let (x, _, given) = four_clusters(400, [0.2, 0.1], 8);
    let n = x.nrows();
    let reversed = DMatrix::from_fn(n, x.ncols(), |i, j| x[(n - 1 - i, j)]);
    let given_rev: Vec<usize> = given.iter().rev().copied().collect();
    let opts = ModelOptions::default();
    let (a, b) = (
        fit_with(opts.clone(), &x, &given),
        fit_with(opts, &reversed, &given_rev),
    );
    let gap = (0..n)
        .map(|i| (a.p_mislabel[i] - b.p_mislabel[n - 1 - i]).abs())
        .fold(0.0, f64::max);
    // The same starts end within rounding (8e-16); starts drawn by place
    // ended 1.5e-6 apart, EM's tolerance away on this clear table.
    assert!(gap < 1e-9, "{gap}");
}

#[test]
fn every_covariance_family_runs() {
    let (x, _, given) = four_clusters(400, [0.1, 0.1], 9);
    for family in CovarianceFamily::ALL {
        let f = fit_with(
            ModelOptions {
                covariance: family,
                clusters: Some(4),
                ..ModelOptions::default()
            },
            &x,
            &given,
        );
        assert!(f.posterior.iter().all(|v| v.is_finite()), "{family}");
        assert_eq!(f.extra.scalar("clusters"), Some(4.0), "{family}");
    }
}

#[test]
fn min_clusters_above_max_clusters_is_rejected() {
    let opts = ModelOptions {
        clusters_min: Some(5),
        clusters_max: Some(3),
        ..ModelOptions::default()
    };
    let e = Rmda::new(&opts.clone()).unwrap_err().to_string();
    assert!(
        e.contains("clusters_min (5)") && e.contains("clusters_max (3)"),
        "{e}"
    );
    assert!(build_model("rmda", &opts).is_err());
    // A minimum above the default maximum 4K stretches the default instead.
    let only_min = ModelOptions {
        clusters_min: Some(9),
        ..ModelOptions::default()
    };
    assert_eq!(
        ClusterRange::checked(&only_min)
            .unwrap()
            .range(2, 100)
            .unwrap(),
        9..=9
    );
}

#[test]
fn zero_clusters_is_rejected() {
    for opts in [
        ModelOptions {
            clusters: Some(0),
            ..ModelOptions::default()
        },
        ModelOptions {
            clusters_min: Some(0),
            ..ModelOptions::default()
        },
        ModelOptions {
            clusters_max: Some(0),
            ..ModelOptions::default()
        },
    ] {
        let e = Rmda::new(&opts).unwrap_err();
        assert!(matches!(e, FitError::InvalidOption(_)), "{e}");
        assert!(e.to_string().contains("at least 1"), "{e}");
    }
}

#[test]
fn zero_restarts_is_rejected() {
    let opts = ModelOptions {
        restarts: 0,
        ..ModelOptions::default()
    };
    assert!(
        Rmda::new(&opts)
            .unwrap_err()
            .to_string()
            .contains("restarts")
    );
}

#[test]
fn more_clusters_than_samples_is_an_input_error() {
    let (x, _, given) = four_clusters(10, [0.0, 0.0], 10);
    let e = Rmda::new(&spherical(Some(11)))
        .unwrap()
        .fit(&x, &given, 2, &mut no_progress())
        .unwrap_err();
    assert!(e.to_string().contains("at most 10"), "{e}");
    let opts = ModelOptions {
        clusters_min: Some(11),
        ..ModelOptions::default()
    };
    let e = Rmda::new(&opts)
        .unwrap()
        .fit(&x, &given, 2, &mut no_progress())
        .unwrap_err();
    assert!(e.to_string().contains("lower clusters_min"), "{e}");
}

#[test]
fn without_standardising_the_clusters_live_in_the_given_units() {
    let (x, _, given) = four_clusters(600, [0.1, 0.1], 11);
    let opts = ModelOptions {
        standardize: false,
        ..spherical(Some(4))
    };
    let identity = crate::models::standardize::Standardizer::identity(x.ncols());
    assert_eq!(identity.apply(&x), x);
    let f = fit_with(opts, &x, &given);
    let c = f.classifier.as_ref().unwrap();
    let p = c.predict_proba(&DMatrix::from_row_slice(1, 3, &[7.0, 0.0, 0.0]));
    assert!(p[(0, 1)] > 0.8, "a point at cluster 2 (class 1): {p}");
}

#[test]
fn a_large_table_chooses_the_clusters_on_a_subsample_and_ends_at_the_full_fit() {
    let (x, _, given) = four_clusters(60_000, [0.2, 0.1], 3);
    let model = Rmda::new(&ModelOptions {
        standardize: false,
        ..spherical(None)
    })
    .unwrap();
    let range = model.clusters.range(2, x.nrows()).unwrap();
    let keys = row_keys(x.as_slice(), x.nrows(), 0);
    let chosen = model
        .mixture_step(&x, &keys, &given, 2, range.clone(), &mut no_progress())
        .unwrap();
    let (sub, note) = (chosen.mixture, chosen.note);
    let z = chosen.standardizer.apply(&x);
    let settings = model.settings_for(chosen.model);
    let (whole, ..) = model
        .choose_mixture(
            Rows { z: &z, keys: &keys },
            &given,
            2,
            range,
            (&settings, Gauge::WHOLE),
            &mut no_progress(),
        )
        .unwrap();
    assert!(note.is_some(), "60k rows of 5 parameters a cluster");
    assert_eq!((sub.n_clusters(), whole.n_clusters()), (4, 4));
    assert!(sub.converged && whole.converged);
    let (ls, lw) = (sub.log_likelihood, whole.log_likelihood);
    // Both stop where a plain step gains less than tol (1e-7) relative.
    assert!(
        (ls - lw).abs() <= 1e-6 * lw.abs(),
        "subsample {ls}, whole {lw}"
    );
    assert_eq!(sub.n_samples, 60_000);
    // The whole fit's kept start ran its small EM on every row too.
    assert!(sub.iterations <= whole.iterations);
}

/// The default rule compares the five mixture models by BIC on the
/// features' own scale; on spherical clusters in features of very
/// different units, the spherical model on the features as given loses
/// (it needs one variance for every unit), and a covariance the user names
/// is fitted alone.
#[test]
fn the_default_chooses_the_covariance_by_bic_in_the_features_own_units() {
    let (mut x, _, given) = four_clusters(800, [0.1, 0.1], 12);
    x.column_mut(2).scale_mut(1000.0);
    let f = fit_with(ModelOptions::default(), &x, &given);
    let compared = f
        .extra
        .lists
        .iter()
        .find(|(name, _)| name.starts_with("mixture models compared"))
        .map(|(_, l)| l.clone())
        .unwrap();
    assert_eq!(compared.len(), BIC_MODELS.len(), "{compared:?}");
    let bic_of = |prefix: &str| -> f64 {
        let line = compared.iter().find(|l| l.starts_with(prefix)).unwrap();
        word_after(line, "BIC ").parse().unwrap()
    };
    // One variance for axes a thousand times apart fits far worse than
    // the same family on standardised features, in the features' units.
    assert!(bic_of("spherical, features as given") > bic_of("spherical, standardised"));
    assert_eq!(f.extra.scalar("clusters"), Some(4.0));
    assert!(
        f.extra
            .notes
            .iter()
            .any(|n| n.contains("chosen by BIC over 5"))
    );
    // Named: one model, no comparison.
    let named = fit_with(
        ModelOptions {
            covariance: CovarianceFamily::Tied,
            clusters: Some(4),
            ..ModelOptions::default()
        },
        &x,
        &given,
    );
    assert!(
        !named
            .extra
            .lists
            .iter()
            .any(|(n, _)| n.starts_with("mixture models"))
    );
    let fixed = ModelOptions {
        covariance_rule: "fixed".into(),
        ..ModelOptions::default()
    };
    assert_eq!(Rmda::new(&fixed).unwrap().models.len(), 1);
    let bad = ModelOptions {
        covariance_rule: "cv".into(),
        ..ModelOptions::default()
    };
    let e = Rmda::new(&bad).unwrap_err().to_string();
    assert!(e.contains("covariance_rule"), "{e}");
}

/// Parameter recovery: data drawn from RMDA's own model (spherical
/// clusters, each cluster's labels drawn from its column of R) gives back
/// the clusters' number, their family and R within sampling error.
#[test]
fn the_default_recovers_the_model_it_was_drawn_from() {
    let (x, clusters, given) = four_clusters(3000, [0.2, 0.1], 13);
    let f = fit_with(ModelOptions::default(), &x, &given);
    assert_eq!(f.extra.scalar("clusters"), Some(4.0));
    assert!(
        f.extra.notes.iter().any(|n| n.contains("(spherical")),
        "{:?}",
        f.extra.notes
    );
    let r = r_matrix(&f);
    let hard: Vec<usize> = f
        .extra
        .sample_columns
        .iter()
        .find(|c| c.name == "cluster")
        .unwrap()
        .values
        .iter()
        .map(|&v| v as usize - 1)
        .collect();
    for j in 0..4 {
        // The generating cluster most of fitted cluster j's rows come from.
        let mut votes = [0usize; 4];
        for (h, c) in hard.iter().zip(&clusters) {
            if *h == j {
                votes[*c] += 1;
            }
        }
        let source = argmax(votes.iter().map(|&v| v as f64));
        let class = source % 2;
        // P(class | cluster) is 1 - flip of its class: 0.8 / 0.9.
        let want = 1.0 - [0.2, 0.1][class];
        assert!((r[(j, class)] - want).abs() < 0.05, "cluster {j}: {r}");
    }
}

/// Each model's subsample holds what its scan may fit: 20 rows a parameter
/// of one cluster a class and 5 of the range's top, whatever the family,
/// so a cheap family's subsample is small and a full one's large.
#[test]
fn each_models_subsample_supports_its_whole_range() {
    let (d, n_classes) = (20, 5);
    let given: Vec<usize> = (0..200_000).map(|i| i % n_classes).collect();
    let range = 5..=20;
    let mut sizes = Vec::new();
    for model in BIC_MODELS {
        let plan = Rmda::plan(model, d, n_classes, &range);
        let rows = plan.rows(&given, n_classes).unwrap();
        assert!(
            rows >= RMDA_ROWS_PER_PARAMETER * model.parameters(d, 5),
            "{model:?}"
        );
        assert!(
            rows >= SCAN_ROWS_PER_PARAMETER * model.parameters(d, 20),
            "{model:?}"
        );
        assert_eq!(Rmda::supported_range(model, d, rows, range.clone()), range);
        sizes.push(rows);
    }
    // Spherical (as given) needs about a tenth of the full covariance's
    // rows (22 parameters a cluster for 231).
    assert!(sizes[4] >= 9 * sizes[0], "{sizes:?}");
    // Fewer rows than the top needs cap the range where 5 rows a parameter
    // end, and never below its start.
    let full = BIC_MODELS[4];
    let capped = Rmda::supported_range(full, d, 5 * full.parameters(d, 9) + 1, range.clone());
    assert_eq!(capped, 5..=9);
    assert_eq!(Rmda::supported_range(full, d, 10, range), 5..=5);
}

/// The default on a table large enough to subsample: each model chooses
/// its clusters on its own subsample, at most as many as those rows
/// support; the models are compared on the largest subsample, which holds
/// every other; and the model the data were drawn from wins with its
/// number of clusters.
#[test]
fn on_a_large_table_each_model_chooses_its_clusters_on_its_own_subsample() {
    let (x, _, given) = four_clusters(60_000, [0.2, 0.1], 21);
    let model = Rmda::new(&ModelOptions::default()).unwrap();
    let range = model.clusters.range(2, x.nrows()).unwrap();
    let keys = row_keys(x.as_slice(), x.nrows(), 0);
    let d = x.ncols();
    let subsamples: Vec<Vec<usize>> = BIC_MODELS
        .iter()
        .map(|&m| {
            let plan = Rmda::plan(m, d, 2, &range);
            subsample::stratified_above(&given, 2, &plan, &keys).unwrap()
        })
        .collect();
    let common = subsamples.iter().max_by_key(|r| r.len()).unwrap();
    for rows in &subsamples {
        assert!(rows.iter().all(|i| common.binary_search(i).is_ok()));
    }
    assert!(common.len() < x.nrows() / 10, "{}", common.len());
    let chosen = model
        .mixture_step(&x, &keys, &given, 2, range.clone(), &mut no_progress())
        .unwrap();
    assert_eq!(
        chosen.compared.len(),
        BIC_MODELS.len(),
        "{:?}",
        chosen.compared
    );
    for ((m, rows), line) in BIC_MODELS.iter().zip(&subsamples).zip(&chosen.compared) {
        assert!(line.starts_with(&m.describe()), "{line}");
        let k: usize = word_after(line, ": ").parse().unwrap();
        let supported = Rmda::supported_range(*m, d, rows.len(), range.clone());
        assert!(
            supported.contains(&k),
            "{line}: {} rows support {supported:?}",
            rows.len()
        );
    }
    assert_eq!(chosen.model.family, CovarianceFamily::Spherical);
    assert_eq!(chosen.mixture.n_clusters(), 4);
    assert_eq!(chosen.mixture.n_samples, x.nrows());
    let note = chosen.note.unwrap();
    assert!(
        note.contains(&format!(
            "compared by BIC on the same {} rows",
            common.len()
        )),
        "{note}"
    );
}

/// The word that follows the first `marker` in a report line.
fn word_after<'a>(line: &'a str, marker: &str) -> &'a str {
    let rest = line.split(marker).nth(1).unwrap();
    rest.split(' ').next().unwrap()
}
