//! The logistic family's speed targets (issue 4): a full colon fit under
//! 100 ms and leave-one-out over its 62 samples under 2 s, on the real
//! `sample_data/colon.csv`; and fits on 1000 x 10000 synthetic features.
//! The 10k x 20k scale run (1.6 GB of features) is opt-in:
//! `RELABEL_BENCH_LARGE=1 cargo bench --bench logistic -- 10000x20000`.
//! Issue 11's many-class case is `sample_data/digits.csv` (1797 x 64, 10
//! classes): `cargo bench --bench logistic -- digits` (lr and rlr).
//! Synthetic data: Gaussian features, 3 relevant with weight 10/3
//! (Bootkrajang & Kaban's Synth setting), 30% of class 1 labelled 0.

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use nalgebra::DMatrix;
use relabel::dataset::{LoadOptions, load};
use relabel::eval::logistic_papers::synth_data;
use relabel::models::{
    ModelOptions, RobustModel, logistic::rlr::Rlr, logistic::shift::ShiftLr, no_progress,
};
use relabel::rng::Rng;

fn models() -> Vec<(&'static str, Box<dyn RobustModel>)> {
    vec![
        (
            "lr",
            Box::new(Rlr::baseline(&ModelOptions::default()).expect("valid options")),
        ),
        (
            "rlr",
            Box::new(Rlr::robust(&ModelOptions::default()).expect("valid options")),
        ),
        // The L1 theta and lambda by cross-validation that these figures
        // were first measured with (the paper's colon setting); the
        // default on a wide table is "shift_default".
        (
            "shift_cv",
            Box::new(ShiftLr::new(&l1_shift()).expect("valid options")),
        ),
        (
            "shift_noise_fraction",
            Box::new(
                ShiftLr::new(&ModelOptions {
                    noise_fraction: Some(0.15),
                    ..l1_shift()
                })
                .expect("valid options"),
            ),
        ),
        (
            "shift_default",
            Box::new(ShiftLr::new(&ModelOptions::default()).expect("valid options")),
        ),
    ]
}

fn l1_shift() -> ModelOptions {
    ModelOptions {
        theta_penalty: "l1".into(),
        lambda_rule: "cv".into(),
        ..ModelOptions::default()
    }
}

fn colon(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_data/colon.csv");
    let ds = load(&path, &LoadOptions::default()).expect("sample_data/colon.csv loads");
    let (x, y) = (&ds.x, &ds.labels);
    let mut group = c.benchmark_group("colon_62x2000");
    group.sample_size(10);
    for (name, m) in models() {
        group.bench_function(name, |b| {
            b.iter(|| m.fit(x, y, 2, &mut no_progress()).map(|f| f.iterations))
        });
    }
    for (name, m) in models().into_iter().take(2) {
        group.bench_function(format!("{name}_leave_one_out"), |b| {
            b.iter(|| {
                (0..y.len())
                    .map(|held| {
                        let rows: Vec<usize> = (0..y.len()).filter(|&i| i != held).collect();
                        let xs = x.select_rows(rows.iter());
                        let ys: Vec<usize> = rows.iter().map(|&i| y[i]).collect();
                        m.fit(&xs, &ys, 2, &mut no_progress())
                            .map(|f| f.iterations)
                            .unwrap_or(0)
                    })
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

/// The digits table: 10 classes, so the softmax solver and the Bayesian
/// lambda search inside EM. shift-LR is left out until its 10-class group
/// shifts fit in seconds (issue 11 is still open for it): ten samples of a
/// minutes-long fit would stall the whole bench run.
fn digits(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample_data/digits.csv");
    let ds = load(&path, &LoadOptions::default()).expect("sample_data/digits.csv loads");
    let (x, y) = (&ds.x, &ds.labels);
    let k = y.iter().max().map_or(0, |m| m + 1);
    let mut group = c.benchmark_group("digits_1797x64");
    group.sample_size(10);
    for (name, m) in models().into_iter().take(2) {
        group.bench_function(name, |b| {
            b.iter(|| m.fit(x, y, k, &mut no_progress()).map(|f| f.iterations))
        });
    }
    group.finish();
}

fn synthetic(n: usize, d: usize) -> (DMatrix<f64>, Vec<usize>) {
    let (x, _, given) = synth_data(n, d, 0.3, &mut Rng::new(7));
    (x, given)
}

fn wide(c: &mut Criterion) {
    let (x, y) = synthetic(1000, 10_000);
    let mut group = c.benchmark_group("synth_1000x10000");
    group.sample_size(10);
    // 1000 rows are beyond the row-space solver: the default is shift_cv.
    for (name, m) in models().into_iter().filter(|(n, _)| *n != "shift_default") {
        group.bench_function(name, |b| {
            b.iter(|| m.fit(&x, &y, 2, &mut no_progress()).map(|f| f.iterations))
        });
    }
    group.finish();
}

fn large(c: &mut Criterion) {
    if std::env::var_os("RELABEL_BENCH_LARGE").is_none() {
        return;
    }
    let (x, y) = synthetic(10_000, 20_000);
    let mut group = c.benchmark_group("synth_10000x20000");
    group.sample_size(10);
    for (name, m) in models()
        .into_iter()
        .filter(|(n, _)| !matches!(*n, "shift_cv" | "shift_default"))
    {
        group.bench_function(name, |b| {
            b.iter(|| m.fit(&x, &y, 2, &mut no_progress()).map(|f| f.iterations))
        });
    }
    group.finish();
}

criterion_group!(benches, colon, digits, wide, large);
criterion_main!(benches);
