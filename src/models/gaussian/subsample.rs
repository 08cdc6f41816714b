//! A stratified subsample on which the Gaussian EM models take the steps
//! far from their optimum (issue 11), before continuing on every row.
//!
//! Far from the fixed point, an EM step on a random subsample of m rows
//! moves the parameters as the full step does, up to the sampling error of
//! the subsample, at m / n of its cost. The subsample's own fixed point is
//! the full-data maximum plus an error of variance `(1/m - 1/n) I^{-1}`
//! (I the per-row information), so started there the full-data EM begins
//! with a log-likelihood deficit of about `chi2_P (n/m - 1) / 2`, P the
//! number of free parameters: about `n / (2 ROWS_PER_PARAMETER)` with
//! `m = ROWS_PER_PARAMETER * P`. At the default tolerance (1e-7 of a
//! log-likelihood of some 26 nats a row at d = 20) that is a few EM steps
//! instead of the whole path. The full-data EM then runs to its usual
//! convergence test, so the answer is the full-data fixed point, not the
//! subsample's.

use nalgebra::DMatrix;

use crate::models::CovarianceFamily;
use crate::models::guide::Guide;
use crate::models::numerics::class_counts;

/// Rows per free parameter of a class (or cluster): at 50 the subsample's
/// estimate of each parameter has a standard error about 1/7 of its own
/// scale (1/sqrt(50)), small enough that the subsample finds the same basin
/// (the starts and the restarts are decided there) and leaves the
/// full-data EM a deficit of about n / 100 nats.
pub const ROWS_PER_PARAMETER: usize = 50;

/// Largest subsample, as a share of the rows, for which the detour pays.
/// The subsample's EM takes about as many iterations I as the full-data
/// EM would from the same start, each at `share` of the cost, and the
/// full-data EM then needs c more from the subsample's fixed point: the
/// detour costs `share * I + c` full iterations instead of I, so it pays
/// while `share < 1 - c / I`. Measured, c is about half of I (rNDA on
/// gauss_200k at a share of 0.29: 8 subsample iterations, then 4 on every
/// row instead of 8; the fit 0.53 s instead of 0.76 s, AUROC 0.9983 both,
/// p_mislabel within 0.003), so the detour is taken up to half the rows.
/// It changes no answer, only the path to it: the full-data EM runs to
/// its usual convergence test.
pub const MAX_SHARE: f64 = 0.5;

/// Fewest rows a table needs before it is subsampled at all, whatever its
/// parameter count: the share rule alone would subsample a few thousand
/// rows of spherical clusters in 3 dimensions, whose whole fit takes
/// milliseconds, so there is no time to save, only a result that moves
/// within the tolerance. At d = 20 a fit of 50k rows takes well under a
/// second.
pub const MIN_ROWS: usize = 50_000;

/// The rows of a stratified random subsample of `given` (sorted), or `None`
/// when the table is too small for one to pay (see [`MAX_SHARE`] and
/// [`MIN_ROWS`]).
///
/// Proportional allocation: every class keeps the same share of its rows,
/// so the label frequencies, and with them the flip table's margins, are
/// those of the table; the share is the one that gives the rarest class
/// `ROWS_PER_PARAMETER * params_per_class` rows. Each class's rows are
/// taken in the order of their seeded `keys` (one per row, e.g.
/// [`crate::rng::row_keys`] of its values), so a fit is repeatable and,
/// with keys from the values, a row is in the subsample or not wherever
/// it sits in the file.
pub fn stratified(
    given: &[usize],
    n_classes: usize,
    params_per_class: usize,
    rows_per_parameter: usize,
    keys: &[u64],
) -> Option<Vec<usize>> {
    let plan = Plan::gaussian(params_per_class, rows_per_parameter);
    stratified_above(given, n_classes, &plan, keys)
}

/// [`stratified`] by any [`Plan`]: tests force the subsample on a table
/// small enough to fit both ways, and shift takes a smaller share.
pub fn stratified_above(
    given: &[usize],
    n_classes: usize,
    plan: &Plan,
    keys: &[u64],
) -> Option<Vec<usize>> {
    let share = plan.share(given, n_classes)?;
    let mut by_class: Vec<Vec<usize>> = vec![Vec::new(); n_classes];
    for (i, &g) in given.iter().enumerate() {
        by_class[g].push(i);
    }
    Some(draw(by_class, share, keys))
}

/// [`stratified_above`] with the rows' keys made by `keys` only when `plan`
/// takes a subsample: keys from the values cost a pass over the table,
/// which a table the plan leaves whole (too few rows, or too many
/// parameters for a share that pays) should not pay.
pub fn stratified_by(
    given: &[usize],
    n_classes: usize,
    plan: &Plan,
    keys: impl FnOnce() -> Vec<u64>,
) -> Option<Vec<usize>> {
    plan.share(given, n_classes)?;
    stratified_above(given, n_classes, plan, &keys())
}

/// When and how much of a table [`stratified_above`] subsamples: one plan
/// for a model's draw and for counting the rows it takes ([`Plan::rows`]).
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    pub params_per_class: usize,
    pub rows_per_parameter: usize,
    pub min_rows: usize,
    pub max_share: f64,
}

impl Plan {
    /// The Gaussian models' plan ([`MIN_ROWS`], [`MAX_SHARE`]) for
    /// `params_per_class` at `rows_per_parameter`.
    pub fn gaussian(params_per_class: usize, rows_per_parameter: usize) -> Self {
        Plan {
            params_per_class,
            rows_per_parameter,
            min_rows: MIN_ROWS,
            max_share: MAX_SHARE,
        }
    }

    /// The share of every class's rows the subsample takes: the one that
    /// gives the rarest class its quota; `None` when the table is too
    /// small for a subsample to pay.
    pub fn share(&self, given: &[usize], n_classes: usize) -> Option<f64> {
        if given.len() < self.min_rows {
            return None;
        }
        let counts = class_counts(given, n_classes);
        let quota = (self.rows_per_parameter * self.params_per_class) as f64;
        let share = counts
            .iter()
            .filter(|&&c| c > 0)
            .map(|&c| quota / c as f64)
            .fold(0.0, f64::max);
        (share > 0.0 && share <= self.max_share).then_some(share)
    }

    /// How many rows the subsample of `given` holds ([`draw`]'s count),
    /// `None` when there is none.
    pub fn rows(&self, given: &[usize], n_classes: usize) -> Option<usize> {
        let share = self.share(given, n_classes)?;
        let counts = class_counts(given, n_classes);
        Some(counts.iter().map(|&c| taken(c, share)).sum())
    }
}

/// Rows a class of `count` gives a subsample of `share`: at least one.
fn taken(count: usize, share: f64) -> usize {
    ((count as f64 * share).ceil() as usize).min(count)
}

/// The stratified draw of [`stratified`]: `share` of each class's rows
/// (`by_class`), at least one of a class that has any, in table order.
/// The rows of the smallest keys: seeded keys are a uniform random order,
/// so these are a uniform sample without replacement (rows of one key,
/// which have the same values, in table order).
fn draw(by_class: Vec<Vec<usize>>, share: f64, keys: &[u64]) -> Vec<usize> {
    let mut rows = Vec::new();
    for mut class_rows in by_class {
        let take = taken(class_rows.len(), share);
        if take > 0 && take < class_rows.len() {
            class_rows.select_nth_unstable_by_key(take - 1, |&i| (keys[i], i));
        }
        rows.extend_from_slice(&class_rows[..take]);
    }
    // In table order: the gather then reads the columns front to back.
    rows.sort_unstable();
    rows
}

/// Free parameters of one of `k` Gaussians of `d` features: its mean and
/// its share of the covariance (a tied one is shared by all `k`).
pub fn gaussian_params(family: CovarianceFamily, d: usize, k: usize) -> usize {
    let full = d * (d + 1) / 2;
    d + match family {
        CovarianceFamily::Full => full,
        CovarianceFamily::Tied => full.div_ceil(k.max(1)),
        CovarianceFamily::Diag => d,
        CovarianceFamily::Spherical => 1,
    }
}

/// The subsample's rows of `x`, `given` and `guide` (decided rows keep
/// their decision; a warm start is never subsampled, see the callers).
pub struct Sub {
    pub x: DMatrix<f64>,
    pub given: Vec<usize>,
    pub guide: Guide,
}

impl Sub {
    pub fn gather(rows: &[usize], x: &DMatrix<f64>, given: &[usize], guide: &Guide) -> Self {
        let trusted = if guide.trusted.is_empty() {
            Vec::new()
        } else {
            rows.iter().map(|&i| guide.trusted[i]).collect()
        };
        Sub {
            x: x.select_rows(rows.iter()),
            given: rows.iter().map(|&i| given[i]).collect(),
            guide: Guide {
                trusted,
                warm: None,
            },
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn keeps_every_class_share_and_refuses_small_tables() {
        // 3 classes of 40k, 80k and 8k rows; 10 parameters a class at 50
        // rows each: the rarest class needs 500 rows, a share of 1/16.
        let given: Vec<usize> = (0..128_000)
            .map(|i| match i % 16 {
                0 => 2,
                1..=5 => 0,
                _ => 1,
            })
            .collect();
        let keys = crate::rng::position_keys(given.len(), 7);
        let rows = stratified(&given, 3, 10, 50, &keys).unwrap();
        let count = |c| rows.iter().filter(|&&i| given[i] == c).count();
        assert_eq!((count(0), count(1), count(2)), (2500, 5000, 500));
        // The plan counts the rows the draw takes, without drawing.
        let plan = Plan::gaussian(10, 50);
        assert_eq!(plan.rows(&given, 3), Some(rows.len()));
        assert!(rows.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(rows, stratified(&given, 3, 10, 50, &keys).unwrap());
        // 60k rows hold 3750 of the rarest class: 500 of them is a share
        // of 0.13 and 1500 (30 parameters) of 0.4, which pay; 2000 (40
        // parameters) is 0.53, which does not.
        assert!(stratified(&given[..60_000], 3, 10, 50, &keys).is_some());
        assert!(stratified(&given[..60_000], 3, 30, 50, &keys).is_some());
        assert!(stratified(&given[..60_000], 3, 40, 50, &keys).is_none());
        // 40k rows pass the share rule (200 of 2500) but are too few rows.
        assert!(stratified(&given[..40_000], 3, 10, 20, &keys).is_none());
    }

    /// The rows taken are those of the smallest keys in each class: the
    /// table reversed, keys with its rows, gives the same rows.
    #[test]
    fn a_row_is_taken_by_its_key_not_its_place() {
        let n = 60_000;
        let given: Vec<usize> = (0..n).map(|i| usize::from(i % 3 == 0)).collect();
        let keys = crate::rng::position_keys(n, 3);
        let rows = stratified(&given, 2, 10, 50, &keys).unwrap();
        let rev_given: Vec<usize> = given.iter().rev().copied().collect();
        let rev_keys: Vec<u64> = keys.iter().rev().copied().collect();
        let mut back: Vec<usize> = stratified(&rev_given, 2, 10, 50, &rev_keys)
            .unwrap()
            .iter()
            .map(|&i| n - 1 - i)
            .collect();
        back.sort_unstable();
        assert_eq!(rows, back);
        let largest_taken = |c: usize| {
            rows.iter()
                .filter(|&&i| given[i] == c)
                .map(|&i| keys[i])
                .max()
                .unwrap()
        };
        for c in 0..2 {
            let cut = largest_taken(c);
            let below = (0..n).filter(|&i| given[i] == c && keys[i] <= cut).count();
            assert_eq!(below, rows.iter().filter(|&&i| given[i] == c).count());
        }
    }

    #[test]
    fn a_gathered_subsample_keeps_each_rows_decision() {
        let x = DMatrix::from_fn(6, 2, |i, j| (10 * i + j) as f64);
        let given = vec![0, 1, 0, 1, 0, 1];
        let guide = Guide {
            trusted: vec![None, Some(0), None, None, Some(1), None],
            warm: None,
        };
        let sub = Sub::gather(&[1, 4, 5], &x, &given, &guide);
        assert_eq!(sub.x.column(0).as_slice(), &[10.0, 40.0, 50.0]);
        assert_eq!(sub.given, vec![1, 0, 1]);
        assert_eq!(sub.guide.trusted, vec![Some(0), Some(1), None]);
        let undecided = Sub::gather(&[1, 4], &x, &given, &Guide::default());
        assert!(undecided.guide.is_empty());
    }
}
