use super::*;
use crate::app::pipeline::FitPlan;
use crate::models::no_progress;
use crate::rng::Rng;

#[test]
fn the_profile_flip_table_recovers_the_flips_of_known_classes() {
    // 400 rows whose true class is known (one-hot P(true | x)); class 0
    // is given label 1 a quarter of the time, class 1 is never flipped.
    let n = 400;
    let p_true = DMatrix::from_fn(n, 2, |i, k| if (i < 200) == (k == 0) { 1.0 } else { 0.0 });
    let given: Vec<usize> = (0..n)
        .map(|i| usize::from(i >= 200 || i % 4 == 0))
        .collect();
    let t = profile_flip_table(&p_true, &given);
    for row in t.row_iter() {
        assert!((row.sum() - 1.0).abs() < 1e-12);
    }
    // (150 + 1/2) / 201 and (50 + 1/2) / 201: the prior weighs one sample.
    assert!((t[(0, 0)] - 150.5 / 201.0).abs() < 1e-9, "{t}");
    assert!((t[(0, 1)] - 50.5 / 201.0).abs() < 1e-9);
    assert!(
        t[(1, 0)] > 0.0 && t[(1, 0)] < 0.01,
        "never seen, not impossible"
    );
    // Unsure class probabilities: the flips are still found, from the mix.
    let soft = DMatrix::from_fn(n, 2, |i, k| if (i < 200) == (k == 0) { 0.9 } else { 0.1 });
    let t = profile_flip_table(&soft, &given);
    assert!((t[(0, 1)] - 0.25).abs() < 0.06, "{t}");
    assert!(t[(1, 0)] < 0.06, "{t}");
}

/// Keys of rows whose values are their numbers (every row distinct).
fn numbered_keys(n: usize, seed: u64) -> Vec<u64> {
    let values: Vec<f64> = (0..n).map(|i| i as f64).collect();
    row_keys(&values, n, seed)
}

#[test]
fn folds_are_stratified_and_small_classes_are_always_trained_on() {
    let labels: Vec<usize> = (0..62).map(|i| if i < 60 { i % 2 } else { 2 }).collect();
    let rows: Vec<usize> = (0..labels.len()).collect();
    let keys = numbered_keys(62, 7);
    let folds = stratified_folds(&rows, &labels, 3, &keys);
    for class in 0..2 {
        for f in 0..FOLDS {
            let count = rows
                .iter()
                .filter(|&&r| labels[r] == class && folds[r] == Some(f))
                .count();
            assert_eq!(count, 10, "class {class} fold {f}");
        }
    }
    assert_eq!(folds[60], None);
    assert_eq!(folds[61], None);
    assert_eq!(folds, stratified_folds(&rows, &labels, 3, &keys), "seeded");
    let other = stratified_folds(&rows, &labels, 3, &numbered_keys(62, 8));
    assert_ne!(folds, other, "another seed, other folds");
}

/// A curator who sorts the table, or whose first row has the other label,
/// gets the same evidence: a row's fold and its place in the sample follow
/// its values, not its position or its class's number.
#[test]
fn a_rows_fold_and_sample_follow_its_values_not_its_place() {
    let n = 90;
    let labels: Vec<usize> = (0..n).map(|i| usize::from(i % 3 == 0)).collect();
    let values: Vec<f64> = (0..n).map(|i| (i * 37 % 101) as f64).collect();
    let keys = row_keys(&values, n, 4);
    // Reversed, and with the classes numbered the other way round.
    let moved: Vec<usize> = (0..n).rev().collect();
    let moved_labels: Vec<usize> = moved.iter().map(|&i| 1 - labels[i]).collect();
    let moved_values: Vec<f64> = moved.iter().map(|&i| values[i]).collect();
    let moved_keys = row_keys(&moved_values, n, 4);
    let all: Vec<usize> = (0..n).collect();
    let folds = stratified_folds(&all, &labels, 2, &keys);
    let moved_folds = stratified_folds(&all, &moved_labels, 2, &moved_keys);
    for (j, &i) in moved.iter().enumerate() {
        assert_eq!(moved_folds[j], folds[i], "row {i}");
    }
    let sample = stratified_sample(&labels, 2, 45, &keys);
    let mut moved_sample: Vec<usize> = stratified_sample(&moved_labels, 2, 45, &moved_keys)
        .into_iter()
        .map(|j| moved[j])
        .collect();
    moved_sample.sort_unstable();
    assert_eq!(moved_sample, sample);
}

#[test]
fn a_large_table_is_sampled_per_class() {
    let labels: Vec<usize> = (0..10_000).map(|i| usize::from(i % 10 == 0)).collect();
    let keys = numbered_keys(10_000, 3);
    let rows = stratified_sample(&labels, 2, 1000, &keys);
    assert!((990..=1010).contains(&rows.len()), "{}", rows.len());
    let ones = rows.iter().filter(|&&r| labels[r] == 1).count();
    assert_eq!(ones, 100);
    assert!(rows.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(stratified_sample(&labels, 2, 20_000, &keys).len(), 10_000);
}

/// The whole choice on a table and on the same table in reverse order with
/// its classes numbered the other way round: every candidate whose fit
/// draws no rows by position scores the same, up to the fits' tolerances
/// (sums in another order); another split of the rows moves a score by
/// about its standard error, 0.02 here. rmda's k-means starts and shift's
/// own cross-validation still draw rows by position.
#[test]
fn the_evidence_does_not_depend_on_the_order_of_the_rows() {
    let mut rng = Rng::new(8);
    let n = 240;
    let truth: Vec<usize> = (0..n).map(|i| i % 2).collect();
    let x = DMatrix::from_fn(n, 3, |i, j| {
        rng.normal() + if j == 0 { 1.5 * truth[i] as f64 } else { 0.0 }
    });
    let given: Vec<usize> = truth
        .iter()
        .map(|&t| if rng.uniform() < 0.2 { 1 - t } else { t })
        .collect();
    let reversed = DMatrix::from_fn(n, 3, |i, j| x[(n - 1 - i, j)]);
    let reversed_given: Vec<usize> = (0..n).map(|i| 1 - given[n - 1 - i]).collect();
    let options = ModelOptions::default();
    let scores = |x: &DMatrix<f64>, given: &[usize]| {
        let inputs = FitInputs::of_matrix(x, 2);
        select(&inputs, given, &options, &mut no_progress())
            .unwrap()
            .selection
            .candidates
    };
    let (a, b) = (scores(&x, &given), scores(&reversed, &reversed_given));
    for m in ["rnda", "rlr", "cbt", "shift", "rmda"] {
        let score = |c: &[CandidateScore]| {
            c.iter()
                .find(|c| c.model == m)
                .and_then(|c| c.score)
                .unwrap()
        };
        assert!((score(&a) - score(&b)).abs() < 1e-4, "{m}: {a:?} {b:?}");
    }
}

/// Two classes around the same centre, one nine times as spread: no
/// linear boundary separates them, two Gaussians do. The evidence must
/// prefer the Gaussian model to the logistic ones, and say so.
#[test]
fn the_evidence_prefers_the_model_the_data_were_drawn_from() {
    let mut rng = Rng::new(5);
    let n = 300;
    let given: Vec<usize> = (0..n)
        .map(|i| {
            let truth = i % 2;
            if rng.uniform() < 0.1 {
                1 - truth
            } else {
                truth
            }
        })
        .collect();
    let x = DMatrix::from_fn(n, 2, |i, _| {
        let scale = if i % 2 == 0 { 1.0 } else { 3.0 };
        scale * rng.normal()
    });
    let inputs = FitInputs::of_matrix(&x, 2);
    let options = ModelOptions::default();
    let evidence = select(&inputs, &given, &options, &mut no_progress()).unwrap();
    // Every scored candidate's folds explained their own training rows at
    // least as well as the held-out ones, and a fitted model by some margin.
    assert_eq!(evidence.optimism.len(), evidence.log_lik.len());
    assert!(
        evidence
            .optimism
            .iter()
            .all(|(_, o)| o.is_finite() && *o >= 0.0)
            && evidence.optimism.iter().any(|(_, o)| *o > 1e-3),
        "{:?}",
        evidence.optimism
    );
    let sel = evidence.selection;
    let score = |m: &str| {
        sel.candidates
            .iter()
            .find(|c| c.model == m)
            .and_then(|c| c.score)
            .unwrap()
    };
    assert!(score("rnda") > score("rlr") + 0.05, "{sel:?}");
    assert!(score("rnda") > score("shift") + 0.05, "{sel:?}");
    assert!(matches!(sel.chosen.as_str(), "rnda" | "rmda"), "{sel:?}");
    assert_eq!(sel.candidates.len(), CANDIDATES.len());
    let text = describe(&sel);
    assert!(
        text.starts_with(&format!("auto chose {}", sel.chosen)),
        "{text}"
    );

    // The plan fits its choice on every row and reports the evidence.
    let plan = FitPlan::new("auto", &options).unwrap();
    let fit = plan.fit(&inputs, &given, &mut no_progress()).unwrap();
    assert!(matches!(plan.model_of(&fit), "rnda" | "rmda"), "{sel:?}");
    let reported = fit.extra.selection.as_ref().unwrap();
    let scores = |s: &Selection| s.candidates.iter().map(|c| c.score).collect::<Vec<_>>();
    assert_eq!(scores(reported), scores(&sel), "deterministic");
    assert!(fit.extra.notes[0].starts_with("auto "));
}

#[test]
fn a_table_too_small_to_hold_out_a_row_says_so() {
    // Two samples of each of three classes: no class can be split over
    // three folds, so no row is ever held out.
    let x = DMatrix::from_fn(6, 2, |i, j| (i * 7 + j * 3) as f64 % 5.0);
    let given: Vec<usize> = (0..6).map(|i| i % 3).collect();
    let inputs = FitInputs::of_matrix(&x, 3);
    let r = select(
        &inputs,
        &given,
        &ModelOptions::default(),
        &mut no_progress(),
    );
    let FitError::NotApplicable(message) = r.unwrap_err() else {
        panic!("not a refusal")
    };
    assert!(
        message.contains("at least 3 samples (the largest here has 2)")
            && message.contains("--model"),
        "{message}"
    );
}

#[test]
fn a_first_round_refusal_says_which_rows_it_was_judged_on() {
    let mut candidates = vec![
        scored("rlr", -0.5),
        left_out("rnda", "not applicable".into(), "rnda: too few rows".into()),
    ];
    judged_on_the_first_round(&mut candidates);
    assert_eq!(candidates[0].reason, None);
    assert_eq!(
        candidates[1].reason.as_deref(),
        Some("rnda: too few rows (on the first round's 600-row sample)")
    );
}

#[test]
fn a_stop_cancels_the_choice() {
    let x = DMatrix::from_fn(60, 2, |i, j| (i * 7 + j * 3) as f64 % 5.0);
    let given: Vec<usize> = (0..60).map(|i| i % 2).collect();
    let inputs = FitInputs::of_matrix(&x, 2);
    let mut stop = |_: Progress| Control::Stop;
    let r = select(&inputs, &given, &ModelOptions::default(), &mut stop);
    assert_eq!(r.unwrap_err(), FitError::Cancelled);
}

/// The models of `candidates`, in order.
fn names_of(candidates: &[CandidateScore]) -> Vec<&str> {
    candidates.iter().map(|c| c.model.as_str()).collect()
}

fn scored(model: &str, score: f64) -> CandidateScore {
    CandidateScore::scored(model, score)
}

/// A candidate far behind the best on the first round's rows is dropped
/// (and says why); one within noise of the best stays in the race.
#[test]
fn the_race_drops_only_the_clearly_worse() {
    let mut rng = Rng::new(9);
    let n = RACE_ROWS;
    let best: Vec<Option<f64>> = (0..n).map(|_| Some(-0.5 + 0.3 * rng.normal())).collect();
    let close: Vec<Option<f64>> = best
        .iter()
        .map(|b| b.map(|b| b - 0.002 + 0.05 * rng.normal()))
        .collect();
    let far: Vec<Option<f64>> = best
        .iter()
        .map(|b| b.map(|b| b - 0.1 + 0.05 * rng.normal()))
        .collect();
    let first = Evidence {
        held_out: HeldOut::default(),
        selection: Selection {
            chosen: "rnda".into(),
            criterion: String::new(),
            candidates: vec![
                scored("rnda", -0.5),
                scored("rlr", -0.502),
                scored("shift", -0.6),
                CandidateScore {
                    score: None,
                    status: "not applicable".into(),
                    ..scored("cbt", 0.0)
                },
            ],
            wrong_label_odds: None,
            held_out_flips: Vec::new(),
        },
        log_lik: vec![
            ("rnda".into(), best),
            ("rlr".into(), close),
            ("shift".into(), far),
        ],
        seconds_per_row: vec![
            ("rnda".into(), 1e-6),
            ("rlr".into(), 1e-5),
            ("shift".into(), 1e-4),
        ],
        cost: CostRows::default(),
        optimism: Vec::new(),
    };
    let (survivors, dropped, promised) = race(&first, 60_000, &[]);
    assert!(promised.is_empty());
    assert_eq!(survivors, ["rnda", "rlr"]);
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0].model, "shift");
    assert!(dropped[0].score.is_none());
    assert!(dropped[0].reason.as_ref().unwrap().contains("below rnda"));

    // Had only the best survived, its evidence alone is kept, and the
    // dropped and unscored candidates are still listed, scored ones first.
    let kept = keep_only(first, &["rnda"], dropped);
    assert_eq!(kept.log_lik.len(), 1);
    assert_eq!(kept.seconds_per_row.len(), 1);
    let models = names_of(&kept.selection.candidates);
    assert_eq!(models, ["rnda", "shift", "cbt"]);
}

/// The parameter counts the race's expected lift is gated on: a class's
/// mean, full covariance and flip-table row for rnda (a cluster's for
/// rmda, one per class), weights, intercept and flip row for rlr, and no
/// fixed count for shift (a shift per row) or cbt (its cells).
#[test]
fn candidates_count_their_free_parameters_where_the_count_is_fixed() {
    let x = DMatrix::from_fn(50, 5, |i, j| ((i * 7 + j * 3) % 11) as f64);
    let inputs = FitInputs::of_matrix(&x, 2);
    let counts = free_parameters(&inputs, &ModelOptions::default());
    let count = |m: &str| counts.iter().find(|(c, _)| *c == m).unwrap().1;
    // d = 5, K = 2: 5 + 15 covariance and mean entries per class.
    assert_eq!(count("rnda"), Some(2 * (5 + 15 + 1)));
    assert_eq!(count("rmda"), Some(2 * (5 + 15 + 1)));
    assert_eq!(count("rlr"), Some(2 * (5 + 1 + 1)));
    assert_eq!(count("shift"), None);
    assert_eq!(count("cbt"), None);
}

/// A candidate behind on the first round's 400 training rows, whose own
/// training rows it explained much better than its held-out ones, is
/// judged by the score the second round's rows are expected to let it
/// reach: it stays in the race on a large table, and is dropped where the
/// second round's folds are hardly larger than the first's, or where its
/// parameters outnumber the first round's rows.
#[test]
fn the_race_judges_a_candidate_by_what_more_rows_are_expected_to_show() {
    // rnda's parameters, fewer than the first round's 400 training rows.
    const COUNTED: &[(&str, Option<usize>)] = &[("rnda", Some(400)), ("cbt", None)];
    assert!((expected_gain(0.1, 400, 2000) - 0.04).abs() < 1e-12);
    assert_eq!(expected_gain(0.1, 400, 400), 0.0);
    let mut rng = Rng::new(3);
    let best: Vec<Option<f64>> = (0..RACE_ROWS)
        .map(|_| Some(-0.5 + 0.3 * rng.normal()))
        .collect();
    let behind: Vec<Option<f64>> = best
        .iter()
        .map(|b| b.map(|b| b - 0.035 + 0.02 * rng.normal()))
        .collect();
    let first = |optimism: f64| Evidence {
        optimism: vec![("cbt".into(), 0.0), ("rnda".into(), optimism)],
        log_lik: vec![
            ("rnda".into(), behind.clone()),
            ("cbt".into(), best.clone()),
        ],
        ..Evidence::of_rows(vec![
            ("cbt", best.clone(), 1e-6),
            ("rnda", behind.clone(), 1e-6),
        ])
    };
    let lagging = |optimism: f64| {
        let mut ev = first(optimism);
        ev.selection.candidates = vec![scored("cbt", -0.5), scored("rnda", -0.535)];
        ev
    };
    let overfit = lagging(0.1);
    let (survivors, dropped, promised) = race(&overfit, 60_000, COUNTED);
    assert_eq!(survivors, ["rnda", "cbt"], "{dropped:?}");
    // Kept on that promise alone, it is dropped should the race end before
    // its second round, and says why.
    assert_eq!(names_of(&promised), ["rnda"]);
    let ended = unproven_dropped(lagging(0.1), &survivors, dropped, promised);
    assert_eq!(names_of(&ended.selection.candidates), ["cbt", "rnda"]);
    assert_eq!(ended.log_lik.len(), 1);
    let why = ended.selection.candidates[1].reason.as_deref().unwrap();
    assert!(why.contains("the race ended before it"), "{why}");
    // 1300 rows: the second round trains on 866, barely more than 400.
    let (survivors, dropped, _) = race(&overfit, 1300, COUNTED);
    assert_eq!(survivors, ["cbt"]);
    let reason = dropped[0].reason.as_deref().unwrap();
    assert!(
        reason.contains("expected on 1300") && reason.contains("below cbt"),
        "{reason}"
    );
    // Without optimism the same lag drops it on any table.
    let (survivors, ..) = race(&lagging(0.0), 60_000, COUNTED);
    assert_eq!(survivors, ["cbt"]);
    // Nor is a model lifted whose parameters outnumber the first round's
    // training rows, or whose count is not known.
    for counts in [&[("rnda", Some(401))][..], &[("rnda", None)]] {
        let (survivors, ..) = race(&overfit, 60_000, counts);
        assert_eq!(survivors, ["cbt"]);
    }
}

/// Before the second round, a survivor is dropped when its fit on every
/// row could never be afforded, or when its first-round lift over the
/// cheaper survivors is too small to earn its wait; each says why.
#[test]
fn the_second_round_scores_only_candidates_that_could_be_fitted() {
    let rows = RACE_ROWS;
    let flat = |v: f64| (0..rows).map(|_| Some(v)).collect::<Vec<_>>();
    let helps = (0..rows)
        .map(|i| Some(if i % 2 == 0 { -0.5 } else { -1.1 }))
        .collect::<Vec<_>>();
    let first = Evidence::of_rows(vec![
        ("rnda", flat(-0.9), 1e-5),
        ("rlr", helps, 1e-4),
        ("shift", flat(-0.9), 1e-4),
        ("rmda", flat(-0.9), 1.0),
    ]);
    let n = 200_000;
    let all = || vec!["rnda", "rlr", "shift", "rmda"];
    let (kept, too_slow) = affordable_survivors(&first, all(), n, None);
    assert_eq!(kept, vec!["rnda", "rlr", "shift"]);
    assert_eq!(too_slow.len(), 1);
    assert_eq!(too_slow[0].model, "rmda");
    assert!(too_slow[0].status.contains("too slow"));
    // Said as what it is, an extrapolation of the folds' pace (1 s per
    // training row), not as a bound on the fit's time.
    let why = too_slow[0].reason.as_deref().unwrap();
    assert!(
        why.starts_with(
            "its folds' time per training row, times the 200000 rows, is about 200000 s"
        ),
        "{why}"
    );
    assert!(!why.contains("or more"), "{why}");
    // rnda takes 2 s on every row, so 40 s is the budget. rlr (20 s)
    // lifts rnda's mixture on half the rows;
    // shift (20 s too) adds nothing to it.
    let (kept, futile) = worth_the_wait(&first, kept, n);
    assert_eq!(kept, vec!["rnda", "rlr"]);
    assert_eq!(futile.len(), 1);
    assert_eq!(futile[0].model, "shift");
    assert!(futile[0].reason.as_deref().unwrap().contains("rnda"));
    // On a small table every fit is quick and all stay.
    let (kept, futile) = worth_the_wait(&first, vec!["rnda", "rlr", "shift"], 2000);
    assert_eq!(kept.len(), 3);
    assert!(futile.is_empty());
    // rnda's fit on every row measured on the full evidence sample at
    // 0.3 s, not the 2 s its 600-row folds said: the budget is then the
    // 10 s floor, and rlr and shift (20 s) are past it.
    let (kept, too_slow) = affordable_survivors(&first, all(), n, Some(("rnda", 0.3)));
    assert_eq!(kept, vec!["rnda"]);
    let slow = names_of(&too_slow);
    assert_eq!(slow, ["rlr", "shift", "rmda"]);
    assert_eq!(cheapest_survivor(&first, &all(), n), Some("rnda"));
    // Priced by the models' own accounts, a fit of a subsample and a pass
    // over every row worth 20k rows: shift (2 s) is within the 10 s, and
    // rmda (20000 s) is not, said as priced.
    let mut first = first;
    first.cost = CostRows::given(&[("shift", 20_000.0), ("rmda", 20_000.0)]);
    let (kept, too_slow) = affordable_survivors(&first, all(), n, Some(("rnda", 0.3)));
    assert_eq!(kept, vec!["rnda", "shift"]);
    assert_eq!(names_of(&too_slow), ["rlr", "rmda"]);
    let why = too_slow[1].reason.as_deref().unwrap();
    assert!(
        why.starts_with(
            "its folds' time per training row, times the 20000 rows its fit on all 200000 is \
             priced at (a subsample's fit, then a pass over every row), is about 20000 s"
        ),
        "{why}"
    );
}

/// The anchor's evidence and the others', scored apart on the same rows,
/// read as one: candidates best first, per-row evidence in candidate
/// order, the best scorer chosen.
#[test]
fn evidence_scored_apart_merges_as_if_scored_together() {
    let rows = |v: f64| (0..4).map(|_| Some(v)).collect::<Vec<_>>();
    let with_scores = |mut e: Evidence, s: &[(&str, Option<f64>)]| {
        e.selection.candidates = s
            .iter()
            .map(|(m, v)| match v {
                Some(v) => scored(m, *v),
                None => left_out(m, "too slow".into(), "why".into()),
            })
            .collect();
        e
    };
    let mut anchor = with_scores(
        Evidence::of_rows(vec![("rnda", rows(-0.9), 1e-5)]),
        &[("rnda", Some(-0.9))],
    );
    anchor.cost = CostRows::given(&[("rlr", 50_000.0)]);
    let rest = with_scores(
        Evidence::of_rows(vec![("rlr", rows(-0.8), 1e-4), ("cbt", rows(-1.2), 1e-4)]),
        &[("rlr", Some(-0.8)), ("cbt", Some(-1.2)), ("shift", None)],
    );
    let m = merged(anchor, rest);
    assert_eq!(m.selection.chosen, "rlr");
    let order = names_of(&m.selection.candidates);
    assert_eq!(order, ["rlr", "rnda", "cbt", "shift"]);
    let names = |v: Vec<&str>| v.into_iter().map(String::from).collect::<Vec<_>>();
    let log_lik: Vec<String> = m.log_lik.iter().map(|(c, _)| c.clone()).collect();
    assert_eq!(log_lik, names(vec!["rnda", "rlr", "cbt"]));
    let rates: Vec<String> = m.seconds_per_row.iter().map(|(c, _)| c.clone()).collect();
    assert_eq!(rates, log_lik);
    assert_eq!(m.predicted_seconds("rnda", 100_000), Some(1.0));
    // The table's accounts carry over.
    assert_eq!(m.predicted_seconds("rlr", 100_000), Some(5.0));
}

/// A dear survivor whose deciding fold adds nothing to the anchor leaves
/// the second round with its reason, even if its other folds finished;
/// a cheap one is never judged.
#[test]
fn a_dear_survivor_that_cannot_earn_its_wait_stops_after_its_deciding_fold() {
    let n = 10_000;
    // The first round: rnda cheap (0.1 s on every row), shift and rlr
    // dear (20 s).
    let first = Evidence::of_rows(vec![
        ("rnda", vec![Some(-0.9); 6], 1e-5),
        ("rlr", vec![Some(-0.9); 6], 2e-3),
        ("shift", vec![Some(-0.9); 6], 2e-3),
        ("cbt", vec![Some(-0.9); 6], 1e-6),
    ]);
    let cheap = combine::cheap_start(&["rnda", "rlr", "shift", "cbt"], &first, n);
    assert_eq!(cheap, ["rnda", "cbt"]);
    let anchor_ll: Vec<Option<f64>> = (0..30)
        .map(|i| Some(if i % 2 == 0 { -0.4 } else { -1.4 }))
        .collect();
    let anchor = Evidence::of_rows(vec![("rnda", anchor_ll.clone(), 1e-5)]);
    let rest = ["rlr", "shift", "cbt"];
    let curtail = judged_against("rnda", &anchor, &rest, &cheap).unwrap();
    let deciding: Vec<usize> = (0..10).collect();
    // shift: the anchor's scores less a hair; rlr: far better where the
    // anchor is poor; cbt: poor, but cheap.
    let like = |d: f64| -> Vec<f64> {
        deciding
            .iter()
            .map(|&r| anchor_ll[r].unwrap() + d)
            .collect()
    };
    let rlr: Vec<f64> = deciding
        .iter()
        .map(|&r| if r % 2 == 0 { -0.5 } else { -0.2 })
        .collect();
    curtail.judge("shift", 0, &deciding, &like(-0.01));
    curtail.judge("rlr", 0, &deciding, &rlr);
    curtail.judge("cbt", 0, &deciding, &like(-1.0));
    assert!(curtail.stops("shift"));
    assert!(!curtail.stops("rlr") && !curtail.stops("cbt"));
    // shift's other folds had finished: it is dropped all the same.
    let scored_rest = Evidence::of_rows(vec![
        ("rlr", vec![Some(-0.5); 30], 2e-3),
        ("shift", vec![Some(-0.91); 30], 2e-3),
        ("cbt", vec![Some(-1.9); 30], 1e-6),
    ]);
    let (kept, short) = without_shortfalls(Some(scored_rest), Some(curtail), &first, n);
    let kept = kept.unwrap();
    let names: Vec<&str> = kept.log_lik.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(names, ["rlr", "cbt"]);
    assert!(kept.held_out.p_true.iter().all(|(m, _)| m != "shift"));
    assert_eq!(names_of(&short), ["shift"]);
    assert!(short[0].status.contains("not worth the wait"));
    let why = short[0].reason.as_deref().unwrap();
    assert!(
        why.contains("on 10 of the 30 evidence rows") && why.contains("rnda"),
        "{why}"
    );
}

/// A candidate whose folds were stopped by the time budget on the full
/// evidence sample is said to be over the budget, with the budget, not
/// "not scored"; one that never ran is not scored.
#[test]
fn an_unscored_candidate_says_it_ran_out_of_time() {
    use std::time::Duration;
    let clock = Clock::begun_ago(Duration::from_secs(60), Duration::from_secs(1));
    clock.spend("rlr", Duration::from_secs(21));
    let mut entries = Vec::new();
    say_why_unscored(&mut entries, &["rlr"], &clock, 4000);
    assert_eq!(entries[0].status, "over the time budget");
    let why = entries[0].reason.as_deref().unwrap();
    assert!(why.contains("would run, past the 20 s budget"), "{why}");
    let mut entries = Vec::new();
    say_why_unscored(&mut entries, &["shift"], &clock, 4000);
    assert_eq!(entries[0].status, "not scored");
}

/// The first round's deciding folds on 20k rows: rnda the cheapest (0.4 s
/// on every row) and cbt cheap too (0.5 s), rlr and shift dear (1.5 s and
/// 8.5 s). Against rnda and cbt, shift adds nothing on its deciding fold
/// and runs no other; rlr explains the rows rnda cannot and goes on; cbt,
/// poor but cheap, is never judged; a fold that failed or scored nothing
/// finite anchors nothing.
#[test]
fn the_first_round_stops_a_dear_candidate_after_its_deciding_fold() {
    let n = 20_000;
    let candidates = ["rnda", "rlr", "shift", "cbt", "rmda"];
    let rows: Vec<usize> = (0..10).collect();
    let rnda: Vec<f64> = rows
        .iter()
        .map(|r| if r % 2 == 0 { -0.4 } else { -1.4 })
        .collect();
    let fold = |scores, seconds| deciding_fold(&rows, scores, seconds);
    let results: Vec<TaskResult> = vec![
        (0, fold(rnda.clone(), 0.008)),
        (
            1,
            fold(
                rows.iter()
                    .map(|r| if r % 2 == 0 { -0.5 } else { -0.2 })
                    .collect(),
                0.03,
            ),
        ),
        (2, fold(rnda.iter().map(|s| s - 0.01).collect(), 0.17)),
        (3, fold(rnda.iter().map(|s| s - 1.0).collect(), 0.01)),
        // Faster than any, but it scored a label at probability zero.
        (4, fold(vec![f64::NEG_INFINITY; 10], 0.001)),
    ];
    let mut anchor = first_anchor(&candidates, &results, 30, &CostRows::default(), n).unwrap();
    // cbt is cheap too, so it is in the stack, with next to no weight.
    assert_eq!(anchor.name, "rnda + cbt");
    for (stacked, own) in anchor.ll.iter().zip(&rnda) {
        assert!((stacked.unwrap() - own).abs() < 1e-3, "{stacked:?} {own}");
    }
    assert_eq!(anchor.dear, ["rlr", "shift"]);
    assert_eq!(anchor.ll.iter().flatten().count(), 10);
    let curtail = first_round_curtail(&candidates, &results, &anchor, n).unwrap();
    assert!(curtail.stops("shift"));
    assert!(!curtail.stops("rlr") && !curtail.stops("cbt"));
    let short = curtail.shortfalls();
    assert_eq!(short.len(), 1);
    // Judged as if the 3000 rows that will decide continued its trend.
    assert_eq!(
        (short[0].model.as_str(), short[0].rows, short[0].of),
        ("shift", 10, 3000)
    );
    // Nothing dear: nothing to curtail.
    anchor.dear.clear();
    assert!(first_round_curtail(&candidates, &results, &anchor, n).is_none());
}

/// Digits' first round, in small: the cheapest candidate (rnda) ranks
/// poorly, a cheap one (rlr) well, and a dear one (rmda) scores just below
/// rlr on every row. rmda is far better than rnda alone, but adds nothing
/// to rnda and rlr stacked, which is what it must lift to be fitted: it
/// stops after its deciding fold. A dear candidate that explains rows
/// neither cheap one can goes on.
#[test]
fn a_dear_candidate_is_judged_against_every_cheap_one_stacked() {
    let n = 1797;
    let candidates = ["rnda", "rlr", "shift", "rmda"];
    let rows: Vec<usize> = (0..40).collect();
    let fold = |scores, seconds| deciding_fold(&rows, scores, seconds);
    let rlr: Vec<f64> = rows
        .iter()
        .map(|r| if r % 4 == 0 { -2.0 } else { -0.3 })
        .collect();
    let results: Vec<TaskResult> = vec![
        (0, fold(vec![-1.5; 40], 0.08)),
        (1, fold(rlr.clone(), 0.1)),
        // Good where rlr is poor: the mixture gains on a quarter of the rows.
        (
            2,
            fold(
                rows.iter()
                    .map(|r| if r % 4 == 0 { -0.2 } else { -0.6 })
                    .collect(),
                0.45,
            ),
        ),
        (3, fold(rlr.iter().map(|s| s - 0.01).collect(), 0.4)),
    ];
    let anchor = first_anchor(&candidates, &results, 40, &CostRows::default(), n).unwrap();
    assert_eq!(anchor.name, "rnda + rlr");
    assert_eq!(anchor.dear, ["shift", "rmda"]);
    let curtail = first_round_curtail(&candidates, &results, &anchor, n).unwrap();
    assert!(curtail.stops("rmda"));
    assert!(!curtail.stops("shift"));
    // Against rnda alone, as the first round judged before, rmda went on.
    let rnda = results_ll(&results[0]);
    let alone = Curtail::new("rnda", &rnda, vec!["rmda"]).deciding_for(n);
    alone.judge("rmda", DECIDING_FOLD, &rows, &rlr);
    assert!(!alone.stops("rmda"));
}

/// A first-round fold of 400 training rows that held out `rows`.
fn deciding_fold(rows: &[usize], scores: Vec<f64>, seconds: f64) -> Result<FoldOut, FitError> {
    Ok(FoldOut {
        rows: rows.to_vec(),
        p_true: vec![vec![0.5, 0.5]; scores.len()],
        p_given: vec![vec![0.5, 0.5]; scores.len()],
        scores,
        seconds,
        trained_on: 400,
        train_score: 0.0,
    })
}

/// A deciding fold's scores as per-row log-likelihoods over its rows.
fn results_ll(result: &TaskResult) -> Vec<Option<f64>> {
    let fold = result.1.as_ref().unwrap();
    let mut ll = vec![None; fold.rows.len()];
    for (&r, &s) in fold.rows.iter().zip(&fold.scores) {
        ll[r] = Some(s);
    }
    ll
}

/// A mixture's members in the order its fit took them: heaviest first,
/// ties in candidate order, whatever order the scores list them in. A
/// refit built in score order lent the mixture a 0.05 member's report.
#[test]
fn a_mixtures_members_are_taken_heaviest_first() {
    let weighed = |model: &str, score: f64, weight: Option<f64>| CandidateScore {
        weight,
        ..scored(model, score)
    };
    let selection = Selection {
        chosen: "rnda".into(),
        criterion: String::new(),
        candidates: vec![
            weighed("shift", -0.468, Some(0.05)),
            weighed("cbt", -0.470, Some(0.3)),
            weighed("rnda", -0.471, Some(0.3)),
            weighed("rlr", -0.480, None),
            weighed("rmda", -0.6, Some(0.35)),
        ],
        wrong_label_odds: None,
        held_out_flips: Vec::new(),
    };
    let names: Vec<&str> = members_of(&selection).iter().map(|m| m.0).collect();
    assert_eq!(names, ["rmda", "rnda", "cbt", "shift"]);
    assert_eq!(
        combination(&selection),
        "rmda 0.35 + rnda 0.30 + cbt 0.30 + shift 0.05"
    );
}
