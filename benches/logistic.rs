//! rlr and shift fit time on a colon-sized problem (62 x 2000, issue 4
//! target: under 100 ms). Data: Gaussian features, 3 relevant with weight
//! 10/3 (Bootkrajang & Kaban's Synth setting), 10% of labels flipped.

use criterion::{Criterion, criterion_group, criterion_main};
use nalgebra::DMatrix;
use relabel::models::{ModelOptions, RobustModel, no_progress, rlr::Rlr, shift::ShiftLr};
use relabel::rng::Rng;

fn data(n: usize, p: usize) -> (DMatrix<f64>, Vec<usize>) {
    let mut rng = Rng::new(7);
    let x = DMatrix::from_fn(n, p, |_, _| rng.normal());
    let y = (0..n)
        .map(|i| {
            let eta: f64 = (0..3).map(|j| 10.0 / 3.0 * x[(i, j)]).sum();
            let y = usize::from(eta > 0.0);
            if rng.uniform() < 0.1 { 1 - y } else { y }
        })
        .collect();
    (x, y)
}

fn colon_sized(c: &mut Criterion) {
    let (x, y) = data(62, 2000);
    let mut group = c.benchmark_group("logistic_62x2000");
    group.sample_size(10);
    group.bench_function("rlr", |b| {
        let m = Rlr::robust(ModelOptions::default());
        b.iter(|| m.fit(&x, &y, 2, &mut no_progress()).map(|f| f.iterations))
    });
    group.bench_function("shift_noise_fraction", |b| {
        let m = ShiftLr::new(ModelOptions {
            noise_fraction: Some(0.15),
            ..ModelOptions::default()
        });
        b.iter(|| m.fit(&x, &y, 2, &mut no_progress()).map(|f| f.iterations))
    });
    group.finish();
}

criterion_group!(benches, colon_sized);
criterion_main!(benches);
