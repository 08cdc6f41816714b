use super::*;
use crate::rng::Rng;

/// `n` rows of two classes, x ~ N(-1, 1) and N(+1, 1) with equal shares,
/// their exact P(true | x), and given labels flipped by `table` (rows =
/// true class, entries P(given | true)).
fn drawn(n: usize, table: [[f64; 2]; 2], seed: u64) -> (Vec<Vec<f64>>, Vec<usize>) {
    drawn_apart(n, table, seed, 1.0)
}

/// [`drawn`] with the classes' means at -`mean` and +`mean`.
fn drawn_apart(
    n: usize,
    table: [[f64; 2]; 2],
    seed: u64,
    mean: f64,
) -> (Vec<Vec<f64>>, Vec<usize>) {
    let mut rng = Rng::new(seed);
    let mut p_true = Vec::with_capacity(n);
    let mut given = Vec::with_capacity(n);
    for _ in 0..n {
        let t = usize::from(rng.uniform() < 0.5);
        let x = rng.normal() + if t == 1 { mean } else { -mean };
        // log N(x | m, 1) - log N(x | -m, 1) = 2 m x.
        let p1 = 1.0 / (1.0 + (-2.0 * mean * x).exp());
        p_true.push(vec![1.0 - p1, p1]);
        given.push(if rng.uniform() < table[t][t] {
            t
        } else {
            1 - t
        });
    }
    (p_true, given)
}

/// Held-out log P(given | x) of `models` on `n` rows, each `ln p`: with p
/// 0.9 far above the class shares' 0.5 (skill), with 0.5 level with them.
fn scored(models: &[&str], n: usize, p: f64) -> Vec<LogLik> {
    models
        .iter()
        .map(|m| (m.to_string(), vec![Some(p.ln()); n]))
        .collect()
}

fn held_out(model: &str, p_true: Vec<Vec<f64>>, given: Vec<usize>) -> HeldOut {
    let n = given.len();
    HeldOut {
        given,
        keys: crate::rng::position_keys(n, 0),
        p_true: vec![(model.to_string(), p_true.into_iter().map(Some).collect())],
        p_given: Vec::new(),
    }
}

/// The confident joint is exact for a classifier that is sure where it is
/// right (Northcutt et al.'s condition): classes six standard deviations
/// apart here. Where they overlap it counts the classifier's own errors as
/// flips too (two deviations apart, 0.73 for the 0.8 drawn).
/// [`tables`] for `model` alone, its held-out fits skilled.
fn table_of(model: &str, p_true: Vec<Vec<f64>>, given: Vec<usize>) -> Vec<MemberFlips> {
    let skill = scored(&[model], given.len(), 0.9);
    let members = [(model.to_string(), 1.0)];
    tables(&held_out(model, p_true, given), &skill, &members, |_| true)
}

#[test]
fn the_held_out_table_recovers_the_flips_the_labels_were_drawn_with() {
    let truth = [[0.8, 0.2], [0.1, 0.9]];
    let (p, given) = drawn_apart(20_000, truth, 3, 3.0);
    let found = table_of("rlr", p, given);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].rows, 20_000);
    for (t, row) in truth.iter().enumerate() {
        for (g, want) in row.iter().enumerate() {
            let got = found[0].p_given_true[t][g];
            assert!(
                (got - want).abs() < 0.02,
                "P({g} | {t}) = {got}, drawn {want}"
            );
        }
    }
}

#[test]
fn only_members_that_learn_a_table_on_rows_they_held_out_get_one() {
    let (p, given) = drawn(2000, [[0.8, 0.2], [0.2, 0.8]], 4);
    let mut h = held_out("rlr", p, given);
    // A row no fold held out is not counted.
    h.p_true[0].1[0] = None;
    let members = [("rlr".to_string(), 0.6), ("shift".to_string(), 0.4)];
    let skill = scored(&["rlr", "shift"], 2000, 0.9);
    let found = tables(&h, &skill, &members, |m| m != "shift");
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].model.as_str(), found[0].rows), ("rlr", 1999));
    assert!(tables(&h, &skill, &members, |_| false).is_empty());
    // Held-out fits no better than the class shares count noise at random.
    let none = scored(&["rlr", "shift"], 2000, 0.5);
    assert!(tables(&h, &none, &members, |m| m != "shift").is_empty());
}

#[test]
fn a_held_out_table_that_swaps_the_classes_is_not_identified() {
    // Held-out fits that rank against the labels (no skill, or worse) imply
    // a table whose classes keep less of their own labels than they give.
    let (p, given) = drawn(2000, [[0.9, 0.1], [0.1, 0.9]], 5);
    let swapped = p.into_iter().map(|r| vec![r[1], r[0]]).collect();
    let found = table_of("rnda", swapped, given);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn apply_puts_the_table_on_the_classifier_and_keeps_decisions() {
    let given = [0, 1, 0, 1];
    let p_true = DMatrix::from_row_slice(4, 2, &[0.9, 0.1, 0.6, 0.4, 0.2, 0.8, 0.5, 0.5]);
    let own = DMatrix::from_row_slice(2, 2, &[0.95, 0.05, 0.1, 0.9]);
    let mut fit = Fit::from_posterior(p_true.clone(), &given);
    fit.gamma = Some(GammaTable {
        p_given_true: own.clone(),
    });
    let flips = MemberFlips {
        model: "rlr".into(),
        p_given_true: vec![vec![0.7, 0.3], vec![0.2, 0.8]],
        rows: 4,
    };
    let guide = Guide {
        trusted: vec![None, None, None, Some(0)],
        warm: None,
    };
    let before = apply(&mut fit, &flips, &p_true, &given, &guide);
    assert_eq!(before, Some(mean_kept(&own)));
    // Row 1 (given 1): 0.6 * 0.3 against 0.4 * 0.8.
    let p_wrong = 0.6 * 0.3 / (0.6 * 0.3 + 0.4 * 0.8);
    assert!((fit.p_mislabel[1] - p_wrong).abs() < 1e-12);
    assert!((fit.posterior.row(1).sum() - 1.0).abs() < 1e-12);
    // Row 2 (given 0): 0.8 * 0.2 against 0.2 * 0.7; suggested class 1.
    assert_eq!(fit.suggested[2], 1);
    // Row 3 was decided: true class 0, so its given label 1 is wrong.
    assert_eq!(fit.p_mislabel[3], 1.0);
    assert_eq!(fit.suggested[3], 0);
    let g = &fit.gamma.as_ref().unwrap().p_given_true;
    assert_eq!(g[(0, 1)], 0.3);
    assert!(note("rlr", &flips, before).contains("0.75 of its labels"));
}

#[test]
fn with_two_classes_each_given_labels_order_is_kept() {
    let (p, given) = drawn(300, [[0.75, 0.25], [0.15, 0.85]], 6);
    let p_true = DMatrix::from_fn(p.len(), 2, |i, j| p[i][j]);
    let mut fit = Fit::from_posterior(p_true.clone(), &given);
    let before = fit.p_mislabel.clone();
    let flips = MemberFlips {
        model: "rnda".into(),
        p_given_true: vec![vec![0.6, 0.4], vec![0.05, 0.95]],
        rows: 300,
    };
    apply(&mut fit, &flips, &p_true, &given, &Guide::default());
    for label in 0..2 {
        let rows: Vec<usize> = (0..given.len()).filter(|&i| given[i] == label).collect();
        for &a in &rows {
            for &b in &rows {
                if before[a] < before[b] {
                    assert!(fit.p_mislabel[a] <= fit.p_mislabel[b], "rows {a} and {b}");
                }
            }
        }
    }
}

#[test]
fn rnda_s_table_in_the_papers_orientation_follows_the_new_posterior() {
    let given = [0, 1, 0, 1];
    let p_true = DMatrix::from_row_slice(4, 2, &[0.9, 0.1, 0.6, 0.4, 0.2, 0.8, 0.3, 0.7]);
    let mut fit = Fit::from_posterior(p_true.clone(), &given);
    fit.extra.matrices.push(crate::models::NamedMatrix {
        name: PAPER_TABLE.into(),
        orientation: String::new(),
        row_labels: Vec::new(),
        col_labels: Vec::new(),
        values: vec![vec![1.0, 0.0], vec![0.0, 1.0]],
        display: Default::default(),
    });
    let flips = MemberFlips {
        model: "rnda".into(),
        p_given_true: vec![vec![0.7, 0.3], vec![0.2, 0.8]],
        rows: 4,
    };
    apply(&mut fit, &flips, &p_true, &given, &Guide::default());
    let paper = &fit.extra.matrix(PAPER_TABLE).unwrap().values;
    for (g, row) in paper.iter().enumerate() {
        let rows: Vec<usize> = (0..4).filter(|&i| given[i] == g).collect();
        for (t, v) in row.iter().enumerate() {
            let flow = rows.iter().map(|&i| fit.posterior[(i, t)]).sum::<f64>();
            assert!((v - flow / rows.len() as f64).abs() < 1e-12, "P({t} | {g})");
        }
    }
}
