//! RMDA fit time on 100k x 20 with K = 10 clusters fixed (full covariances,
//! one k-means++ start, default tolerance), 3 classes. One start keeps a
//! criterion run of 10 samples within minutes; the default 4 restarts cost
//! about 4 times as much (each restart is a full EM). Data are
//! 10 Gaussian clusters with their own random covariances and means drawn
//! N(0, 2^2 I); cluster j belongs to class j % 3, and 15% of the labels are
//! redrawn uniformly, so the time covers both steps: the mixture EM
//! (dominant) and the R iterations of eq. 8.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra::{DMatrix, DVector};
use relabel::eval::simulate::random_cov_factor;
use relabel::models::{ModelOptions, RobustModel, gaussian::rmda::Rmda, no_progress};
use relabel::rng::Rng;

const D: usize = 20;
const CLUSTERS: usize = 10;
const CLASSES: usize = 3;

fn data(n: usize) -> (DMatrix<f64>, Vec<usize>) {
    let mut rng = Rng::new(42);
    let means: Vec<DVector<f64>> = (0..CLUSTERS)
        .map(|_| DVector::from_fn(D, |_, _| 2.0 * rng.normal()))
        .collect();
    let factors: Vec<DMatrix<f64>> = (0..CLUSTERS)
        .map(|_| random_cov_factor(D, 1.0, &mut rng))
        .collect();
    let mut x = DMatrix::zeros(n, D);
    let mut given = Vec::with_capacity(n);
    for i in 0..n {
        let s = rng.below(CLUSTERS);
        let v = &means[s] + &factors[s] * DVector::from_fn(D, |_, _| rng.normal());
        x.row_mut(i).copy_from(&v.transpose());
        given.push(if rng.uniform() < 0.15 {
            rng.below(CLASSES)
        } else {
            s % CLASSES
        });
    }
    (x, given)
}

fn rmda_fixed_clusters(c: &mut Criterion) {
    let mut group = c.benchmark_group("rmda_full_d20_k10");
    group.sample_size(10);
    let n = 100_000usize;
    let (x, given) = data(n);
    let model = Rmda::new(&ModelOptions {
        clusters: Some(CLUSTERS),
        restarts: 1,
        ..ModelOptions::default()
    })
    .expect("valid options");
    group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
        b.iter(|| {
            model
                .fit(&x, &given, CLASSES, &mut no_progress())
                .map(|f| f.extra.scalar("mixture_iterations"))
        })
    });
    group.finish();
}

criterion_group!(benches, rmda_fixed_clusters);
criterion_main!(benches);
