//! CBT fit time on 100k x 16 binary features, 2 classes, with BDRA and
//! alpha estimated (the defaults). Data: symbol probabilities of each class
//! from the uniform Dirichlet over the 2^16 joint cells (the paper's prior),
//! and 10% of the labels flipped, so the time covers every step: symbol
//! grouping, the BDRA search over feature removals (eq. 8) and the
//! leave-one-out alpha search.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra::DMatrix;
use relabel::models::{ModelOptions, RobustModel, discrete::cbt::Cbt, no_progress};
use relabel::rng::Rng;

const BITS: usize = 16;

fn data(n: usize) -> (DMatrix<f64>, Vec<usize>) {
    let mut rng = Rng::new(42);
    let m = 1usize << BITS;
    let p: Vec<Vec<f64>> = (0..2)
        .map(|_| {
            let e: Vec<f64> = (0..m).map(|_| -(1.0 - rng.uniform()).ln()).collect();
            let s: f64 = e.iter().sum();
            e.into_iter().map(|v| v / s).collect()
        })
        .collect();
    // Cumulative tables so that 100k draws over 65536 cells stay cheap.
    let cdf: Vec<Vec<f64>> = p
        .iter()
        .map(|q| {
            q.iter()
                .scan(0.0, |acc, v| {
                    *acc += v;
                    Some(*acc)
                })
                .collect()
        })
        .collect();
    let mut x = DMatrix::zeros(n, BITS);
    let mut given = Vec::with_capacity(n);
    for i in 0..n {
        let t = rng.below(2);
        let u = rng.uniform();
        let s = cdf[t].partition_point(|c| *c < u).min(m - 1);
        for b in 0..BITS {
            x[(i, b)] = ((s >> b) & 1) as f64;
        }
        given.push(if rng.uniform() < 0.1 { 1 - t } else { t });
    }
    (x, given)
}

fn cbt_binary(c: &mut Criterion) {
    let mut group = c.benchmark_group("cbt_binary_p16");
    group.sample_size(10);
    let n = 100_000usize;
    let (x, given) = data(n);
    let model = Cbt::new(&ModelOptions::default()).expect("valid options");
    group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
        b.iter(|| {
            model
                .fit(&x, &given, 2, &mut no_progress())
                .map(|f| f.extra.scalar("log10_M"))
        })
    });
    group.finish();
}

criterion_group!(benches, cbt_binary);
criterion_main!(benches);
