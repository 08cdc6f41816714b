//! rNDA fit time, full covariance, d = 20, K = 5 (issue target: n = 100k
//! under 1 s on the 2-core reference machine). Data are drawn from the rNDA
//! model with 20% flips, in two regimes: classes with their own covariances
//! (well separated: EM settles in ~5 iterations) and classes sharing one
//! covariance with close means (overlapping: plain EM took 22 iterations at
//! 100k, SQUAREM-accelerated EM 14), so both the per-iteration cost and the
//! iteration count are visible.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra::{DMatrix, DVector};
use relabel::eval::simulate::{gaussian_with_flips, random_cov_factor};
use relabel::models::{ModelOptions, RobustModel, gaussian::rnda::Rnda, no_progress};
use relabel::rng::Rng;

const D: usize = 20;
const K: usize = 5;

fn data(n: usize, overlapping: bool) -> (DMatrix<f64>, Vec<usize>) {
    let mut rng = Rng::new(42);
    let scale = if overlapping { 0.3 } else { 1.5 };
    let means: Vec<DVector<f64>> = (0..K)
        .map(|_| DVector::from_fn(D, |_, _| scale * rng.normal()))
        .collect();
    let shared = random_cov_factor(D, 1.0, &mut rng);
    let factors: Vec<DMatrix<f64>> = (0..K)
        .map(|_| {
            if overlapping {
                shared.clone()
            } else {
                random_cov_factor(D, 1.0, &mut rng)
            }
        })
        .collect();
    let flips = DMatrix::from_fn(K, K, |t, j| if t == j { 0.8 } else { 0.05 });
    let sim = gaussian_with_flips(n, &means, &factors, &[1.0 / K as f64; K], &flips, 7);
    (sim.x, sim.given)
}

fn rnda_full(c: &mut Criterion) {
    for (label, overlapping) in [("separated", false), ("overlapping", true)] {
        let mut group = c.benchmark_group(format!("rnda_full_d20_k5_{label}"));
        group.sample_size(10);
        for n in [1_000usize, 10_000, 100_000] {
            let (x, given) = data(n, overlapping);
            let model = Rnda::new(&ModelOptions::default()).expect("valid options");
            group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter(|| {
                    model
                        .fit(&x, &given, K, &mut no_progress())
                        .map(|f| f.iterations)
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, rnda_full);
criterion_main!(benches);
