//! The Combined Bayes Test with mislabelled training data (Lynch & Willett
//! 1999), for K classes, with the BDRA of `bdra.rs` choosing the symbols.
//!
//! Model. A sample's symbol is its joint cell over the kept features (M
//! possible symbols). Each true class t has symbol probabilities p_t with a
//! uniform Dirichlet prior (eq. 2). A sample given label g truly belongs to
//! class t with probability A[g][t]: 1 - alpha_g for t = g, and alpha_g
//! spread evenly over the other classes — the paper's alpha_k, "a training
//! datum of class k belongs to the other class with probability alpha_k",
//! for K classes. So the given-g counts of a symbol are the true-g samples
//! kept plus other classes' samples flipped in (eq. 1).
//!
//! Test. Integrating p_t out, the predictive probability of symbol y under
//! H_t is E[(c_{t,y} + 1) / (n_t + M)], with c_{t,y} the number of training
//! samples of true class t at y — the ratio of eq. (4) under H_t to the
//! training data alone. Eq. (4) sums over every way the mislabelled samples
//! could be arranged, which is exponential in the counts; relabel replaces
//! that sum by its expected counts: n_t = sum_g N_g A[g][t] (the totals,
//! which concentrate), and at every symbol the self-consistent split
//! c_{t,y} = sum_g x_{g,y} r_{g,y}(t) with
//! r_{g,y}(t) ∝ A[g][t] (c_{t,y} + 1) / (n_t + M) — an EM fixed point per
//! symbol. With alpha = 0 it is exact: c = x and the predictive is the
//! paper's (x_{k,y} + 1) / (N_k + M).
//!
//! Because n_t depends on the data only through the label totals, the
//! split of a symbol depends only on that symbol's counts: leaving sample i
//! out changes one symbol, so the leave-one-out posterior
//! P(true = t | x_i, given_i, all other samples) ∝ A[g_i][t] f(x_i | X_{-i}, H_t)
//! is an exact refit without i, at the cost of one small fixed point per
//! (symbol, label) pair.
//!
//! alpha is given (`--opt alpha=...`) or chosen per class to maximise the
//! leave-one-out predictive likelihood sum_i ln sum_t A[g_i][t] f(x_i | X_{-i}, H_t)
//! by coordinate search (a grid, then golden section).

use std::collections::HashMap;
use std::sync::Arc;

use nalgebra::DMatrix;
use rayon::prelude::*;

use crate::models::discrete::bdra::{self, Cells, Coding, Move, Reduction};
use crate::models::numerics::log_add_exp;
use crate::models::options::invalid_option;
use crate::models::prologue::{Prologue, Scaling, class_name};
use crate::models::{
    Classifier, Control, Fit, FitError, GammaTable, Guide, ModelInput, ModelOptions, ModelReport,
    NamedMatrix, NamedSeries, Progress, RobustModel,
};
pub use split::{split_counts, split_counts_into, split_two};

/// Step of the coarse alpha grid before the golden-section refinement.
const GRID_STEP: f64 = 0.05;
/// Golden-section iterations: the bracket of 2 GRID_STEP shrinks to ~1e-4.
const GOLDEN_ITERATIONS: usize = 14;
/// Coordinate sweeps over the classes at most. Coupled alphas zig-zag one
/// at a time: on house votes with 30% pair noise the two classes' alphas
/// need 4 to 6 sweeps to move by less than [`ALPHA_TOL`], and a cap of 4
/// stopped half the draws while the objective still rose.
const MAX_SWEEPS: usize = 20;
/// Sweeps the progress bar expects (the usual case, not the cap).
const EXPECTED_SWEEPS: usize = 6;
/// A sweep that moves no alpha by more than this ends the search.
const ALPHA_TOL: f64 = 1e-3;

/// BDRA's greedy search is quadratic in the features (every step scores
/// every feature's moves on the current symbols); beyond this many it runs
/// for minutes (colon's 2000 genes never finished). Without BDRA the
/// sparse cells cope.
pub const MAX_FEATURES: usize = 128;

#[derive(Clone, Debug)]
pub struct Cbt {
    /// The `alpha` values as written (one for all classes or one per
    /// class); `None` estimates alpha.
    alpha: Option<Vec<f64>>,
    /// Quantile bins of a continuous feature.
    levels: usize,
    /// `None`: BDRA on when there are 2+ features.
    bdra: Option<bool>,
    /// Only scales the progress gauge: CBT's searches are bounded by
    /// their own constants.
    max_iter: usize,
}

impl Cbt {
    /// Reads `alpha`, `levels`, `bdra` and `max_iter`.
    pub fn new(options: &ModelOptions) -> Result<Self, FitError> {
        if options.levels < 2 {
            return Err(invalid_option(
                "levels",
                "at least 2 (bins per continuous feature)",
                options.levels,
            ));
        }
        Ok(Self {
            alpha: options
                .alpha
                .as_deref()
                .map(parse_alpha_values)
                .transpose()?,
            levels: options.levels,
            bdra: options.bdra,
            max_iter: options.checked_max_iter()?,
        })
    }
}

fn parse_alpha_values(text: &str) -> Result<Vec<f64>, FitError> {
    text.split(',')
        .map(|s| {
            let v: f64 = s.trim().parse().map_err(|_| {
                FitError::InvalidOption(format!(
                    "alpha: \"{}\" is not a number; give one mislabelling probability per class, \
                     e.g. alpha=0.1,0.05, or one for all",
                    s.trim()
                ))
            })?;
            if (0.0..1.0).contains(&v) {
                Ok(v)
            } else {
                Err(FitError::InvalidOption(format!(
                    "alpha: {v} is not a probability in [0, 1)"
                )))
            }
        })
        .collect()
}

/// alpha per class from the option text: one value for every class or one
/// per class, each below (K - 1) / K (at that rate a label says nothing).
pub fn parse_alpha(text: &str, k: usize) -> Result<Vec<f64>, FitError> {
    alpha_per_class(&parse_alpha_values(text)?, k)
}

/// The `alpha` values for K classes (see [`parse_alpha`]).
fn alpha_per_class(values: &[f64], k: usize) -> Result<Vec<f64>, FitError> {
    let values = match values.len() {
        1 => vec![values[0]; k],
        n if n == k => values.to_vec(),
        n => {
            return Err(FitError::InvalidOption(format!(
                "alpha: {n} values for {k} classes; give one per class or one for all"
            )));
        }
    };
    let limit = max_alpha(k);
    if let Some(v) = values.iter().find(|v| **v >= limit) {
        return Err(FitError::InvalidOption(format!(
            "alpha: {v} is not below {limit:.3} = (K - 1) / K; at that rate a label carries no information"
        )));
    }
    Ok(values)
}

fn max_alpha(k: usize) -> f64 {
    (k - 1) as f64 / k as f64
}

/// `A[g][t] = P(true = t | given = g)`, row-major.
pub fn flip_table(alpha: &[f64]) -> Vec<f64> {
    group_table(alpha, alpha.len())
}

/// [`flip_table`] for `groups` label groups: the K given labels, then (when
/// `groups` = 2K) the K classes the curator decided, whose true class is
/// known: identity rows, so a decided sample counts for its class only.
pub fn group_table(alpha: &[f64], groups: usize) -> Vec<f64> {
    let k = alpha.len();
    let mut a = vec![0.0; groups * k];
    for d in k..groups {
        a[d * k + (d - k)] = 1.0;
    }
    for g in 0..k {
        for t in 0..k {
            a[g * k + t] = if t == g {
                1.0 - alpha[g]
            } else {
                alpha[g] / (k - 1) as f64
            };
        }
    }
    a
}

/// The symbols of the training data: counts per given label.
#[derive(Clone, Debug)]
pub struct Symbols {
    pub counts: Vec<Vec<f64>>,
    pub of_sample: Vec<usize>,
    /// N_g: samples per given label.
    pub given_totals: Vec<f64>,
    pub ln_m: f64,
}

impl Symbols {
    /// Symbols without BDRA or quantisation: `symbol[i]` is sample i's
    /// symbol index (for tests and the paper check).
    pub fn from_indices(symbol: &[usize], given: &[usize], k: usize, m: f64) -> Self {
        let n_sym = symbol.iter().copied().max().map_or(0, |s| s + 1);
        let mut counts = vec![vec![0.0; k]; n_sym];
        let mut given_totals = vec![0.0; k];
        for (&s, &g) in symbol.iter().zip(given) {
            counts[s][g] += 1.0;
            given_totals[g] += 1.0;
        }
        Self {
            counts,
            of_sample: symbol.to_vec(),
            given_totals,
            ln_m: m.ln(),
        }
    }
}

/// ln(n_t + M) with n_t = sum_g N_g A[g][t] - A[left_out][t].
fn ln_denominators(totals: &[f64], a: &[f64], ln_m: f64, left_out: Option<usize>) -> Vec<f64> {
    let groups = totals.len();
    let k = a.len() / groups;
    (0..k)
        .map(|t| {
            let mut n: f64 = (0..groups).map(|g| totals[g] * a[g * k + t]).sum();
            if let Some(g) = left_out {
                n = (n - a[g * k + t]).max(0.0);
            }
            log_add_exp(n.ln(), ln_m)
        })
        .collect()
}

fn relative_weights(ln_den: &[f64]) -> Vec<f64> {
    let lo = ln_den.iter().copied().fold(f64::INFINITY, f64::min);
    ln_den.iter().map(|l| (lo - l).exp()).collect()
}

/// The leave-one-out test of every (symbol, given label) pair that occurs.
#[derive(Clone, Debug)]
pub struct LeaveOneOut {
    /// `posterior[s][g]`: P(true = t | symbol s, given g, the other
    /// samples) for t = 0..K; empty where no sample has (s, g).
    pub posterior: Vec<Vec<Vec<f64>>>,
    /// `statistic[s][g]`: ln of the largest f(y | X_{-i}, H_t), t != g, over
    /// f(y | X_{-i}, H_g) — the CBT ratio of eq. (5), without alpha.
    pub statistic: Vec<Vec<f64>>,
    /// sum_i ln f(x_i | given_i, X_{-i}).
    pub log_likelihood: f64,
}

pub fn leave_one_out(symbols: &Symbols, alpha: &[f64]) -> LeaveOneOut {
    loo(symbols, alpha, true)
}

/// [`leave_one_out`]'s log-likelihood alone, all the alpha search reads
/// at each of its ~30 K trial alphas: without the posteriors and
/// statistics (K exps and a vector per (symbol, label) pair).
pub fn loo_log_likelihood(symbols: &Symbols, alpha: &[f64]) -> f64 {
    loo(symbols, alpha, false).log_likelihood
}

/// [`leave_one_out`], with empty posteriors and statistics unless `full`.
fn loo(symbols: &Symbols, alpha: &[f64], full: bool) -> LeaveOneOut {
    let k = alpha.len();
    let groups = symbols.given_totals.len();
    let a = group_table(alpha, groups);
    let ln_a: Vec<f64> = a.iter().map(|v| v.ln()).collect();
    let per_label: Vec<(Vec<f64>, Vec<f64>)> = (0..groups)
        .map(|g| {
            let ln_den = ln_denominators(&symbols.given_totals, &a, symbols.ln_m, Some(g));
            let w = relative_weights(&ln_den);
            (ln_den, w)
        })
        .collect();
    let rows: Vec<(Vec<Vec<f64>>, Vec<f64>, f64)> = symbols
        .counts
        .par_iter()
        .map(|x| {
            let mut post = vec![Vec::new(); if full { groups } else { 0 }];
            let mut stat = vec![f64::NAN; if full { groups } else { 0 }];
            let mut ll = 0.0;
            // Reused across the label groups: this runs for every symbol
            // at every trial alpha.
            let (mut rest, mut rest2) = (x.clone(), x.clone());
            let (mut c, mut d) = (vec![0.0; k], vec![0.0; k]);
            let (mut ln_f, mut ln_joint) = (vec![0.0; k], vec![0.0; k]);
            let mut finish = |g: usize, c: &[f64]| {
                let ln_den = &per_label[g].0;
                for t in 0..k {
                    ln_f[t] = (c[t] + 1.0).ln() - ln_den[t];
                    ln_joint[t] = ln_a[g * k + t] + ln_f[t];
                }
                let lse = crate::models::numerics::log_sum_exp(&ln_joint);
                ll += x[g] * lse;
                if !full {
                    return;
                }
                post[g] = ln_joint.iter().map(|v| (v - lse).exp()).collect();
                // A decided group's own class is its decision.
                let own = if g < k { g } else { g - k };
                let other = (0..k)
                    .filter(|&t| t != own)
                    .map(|t| ln_f[t])
                    .fold(f64::NEG_INFINITY, f64::max);
                stat[g] = other - ln_f[own];
            };
            // The labels' splits two at a time (see `split_two`), finished
            // in label order.
            let present: Vec<usize> = (0..groups).filter(|&g| x[g] >= 1.0).collect();
            for pair in present.chunks(2) {
                if let [g, h] = *pair {
                    rest[g] = x[g] - 1.0;
                    rest2[h] = x[h] - 1.0;
                    let w = [per_label[g].1.as_slice(), per_label[h].1.as_slice()];
                    split_two([&rest, &rest2], &a, w, [&mut c, &mut d]);
                    (rest[g], rest2[h]) = (x[g], x[h]);
                    finish(g, &c);
                    finish(h, &d);
                } else {
                    let g = pair[0];
                    rest[g] = x[g] - 1.0;
                    split_counts_into(&rest, &a, &per_label[g].1, &mut c);
                    rest[g] = x[g];
                    finish(g, &c);
                }
            }
            (post, stat, ll)
        })
        .collect();
    let mut out = LeaveOneOut {
        posterior: Vec::with_capacity(rows.len()),
        statistic: Vec::with_capacity(rows.len()),
        log_likelihood: 0.0,
    };
    // Summed in symbol order so the result does not depend on threads.
    for (p, s, ll) in rows {
        out.posterior.push(p);
        out.statistic.push(s);
        out.log_likelihood += ll;
    }
    out
}

/// The classes whose alpha is searched together: each class with enough
/// samples alone, and every smaller one in one shared group. The search
/// resolves alpha to `GRID_STEP`, which a class of fewer than 1 / GRID_STEP
/// samples cannot inform (one relabelled sample moves its rate by more than
/// a step): its own alpha would be noise, and K of them cost K searches
/// (100 classes of 2 samples each ran for minutes).
fn alpha_groups(given_totals: &[f64]) -> Vec<Vec<usize>> {
    let min_own = (1.0 / GRID_STEP).ceil();
    let (own, pooled): (Vec<usize>, Vec<usize>) = (0..given_totals.len())
        .filter(|&g| given_totals[g] > 0.0)
        .partition(|&g| given_totals[g] >= min_own);
    let mut groups: Vec<Vec<usize>> = own.into_iter().map(|g| vec![g]).collect();
    if !pooled.is_empty() {
        groups.push(pooled);
    }
    groups
}

/// Maximises the leave-one-out predictive likelihood over alpha, one class
/// (or group of small classes, see [`alpha_groups`]) at a time, from the
/// best single alpha for all classes: the paper's own reading (any equal
/// alphas give the same test), from which a class's alpha departs only
/// where the likelihood rises. Where it is flat across the classes' split
/// of the noise, a class-by-class search from zero let the first class
/// take all of it: on an XOR-shaped 60k-row table, cut into its four
/// pure cells, alpha came out (0.284, 0.0001) on a likelihood flat to 0.05
/// nats over the 60000 rows against (0.2, 0.2), the second class's flipped
/// labels were never flagged, and AUROC was 0.73; from the shared start it
/// is (0.22, 0.22) and 0.956. `tick` is
/// called once per evaluation and returns false to stop; returns the
/// alphas, the objective after each update and whether the last sweep moved
/// no alpha by more than `ALPHA_TOL`.
///
/// The classes' own alphas are then kept only when they raise the
/// likelihood past the shared one by BIC's price of their extra
/// parameters, (groups - 1)/2 ln n (Schwarz 1978). The model barely
/// identifies them: each class's symbol probabilities are free, so they can
/// absorb that class's flipped labels, and only the Dirichlet prior's pull
/// on sparse symbols tells a class's noise from its distribution (drawn from
/// this model with 20% one-way noise over 16 symbols, 10,000 rows estimate
/// every alpha at 0). On such a flat likelihood a class-by-class search
/// moved one class's alpha to 0 for 2 nats on 600 rows, and none of its
/// flipped labels could rank above another class's clean ones; with one
/// alpha the ranking is the paper's test whatever its value (RESULTS:
/// home ground d0, and six draws of five shapes either way).
pub fn estimate_alpha(
    symbols: &Symbols,
    k: usize,
    mut tick: impl FnMut(f64) -> bool,
) -> Option<(Vec<f64>, Vec<f64>, bool)> {
    let hi = max_alpha(k) - 0.01;
    let mut alpha = vec![0.0; k];
    let mut trace = Vec::new();
    let evaluate = |alpha: &[f64], tick: &mut dyn FnMut(f64) -> bool| -> Option<f64> {
        let ll = loo_log_likelihood(symbols, alpha);
        tick(ll).then_some(ll)
    };
    let groups = alpha_groups(&symbols.given_totals[..k]);
    let mut converged = false;
    // The shared alpha and its likelihood, after the first sweep.
    let mut shared_fit: Option<(Vec<f64>, f64)> = None;
    // The first sweep searches one alpha for every class together.
    let shared = [groups.concat()];
    for sweep in 0..MAX_SWEEPS {
        let mut moved: f64 = 0.0;
        let these = if sweep == 0 && groups.len() > 1 {
            &shared[..]
        } else {
            &groups[..]
        };
        for group in these {
            let g = group[0];
            let at = |v: f64, tick: &mut dyn FnMut(f64) -> bool| {
                let mut trial = alpha.clone();
                group.iter().for_each(|&c| trial[c] = v);
                evaluate(&trial, tick)
            };
            let steps = (hi / GRID_STEP).floor() as usize;
            let mut best = (f64::NEG_INFINITY, 0.0);
            for s in 0..=steps {
                let v = s as f64 * GRID_STEP;
                let ll = at(v, &mut tick)?;
                if ll > best.0 {
                    best = (ll, v);
                }
            }
            let (mut lo_b, mut hi_b) =
                ((best.1 - GRID_STEP).max(0.0), (best.1 + GRID_STEP).min(hi));
            let ratio = (5f64.sqrt() - 1.0) / 2.0;
            let mut x1 = hi_b - ratio * (hi_b - lo_b);
            let mut x2 = lo_b + ratio * (hi_b - lo_b);
            let mut f1 = at(x1, &mut tick)?;
            let mut f2 = at(x2, &mut tick)?;
            for _ in 0..GOLDEN_ITERATIONS {
                if f1 >= f2 {
                    hi_b = x2;
                    x2 = x1;
                    f2 = f1;
                    x1 = hi_b - ratio * (hi_b - lo_b);
                    f1 = at(x1, &mut tick)?;
                } else {
                    lo_b = x1;
                    x1 = x2;
                    f1 = f2;
                    x2 = lo_b + ratio * (hi_b - lo_b);
                    f2 = at(x2, &mut tick)?;
                }
            }
            for (ll, v) in [(f1, x1), (f2, x2)] {
                if ll > best.0 {
                    best = (ll, v);
                }
            }
            moved = moved.max((best.1 - alpha[g]).abs());
            group.iter().for_each(|&c| alpha[c] = best.1);
            trace.push(best.0);
        }
        if sweep == 0 {
            shared_fit = Some((alpha.clone(), trace.last().copied().unwrap_or(f64::NAN)));
        }
        if moved <= ALPHA_TOL {
            converged = true;
            break;
        }
    }
    if let Some((shared, ll)) = shared_fit {
        let own = trace.last().copied().unwrap_or(f64::NAN);
        if alpha != shared && own - ll <= bic_price(groups.len(), symbols, k) {
            alpha = shared;
            trace.push(ll);
        }
    }
    Some((alpha, trace, converged))
}

/// BIC's price, in log-likelihood, of `groups` alphas against one:
/// (groups - 1)/2 ln n.
fn bic_price(groups: usize, symbols: &Symbols, k: usize) -> f64 {
    let n: f64 = symbols.given_totals[..k].iter().sum();
    groups.saturating_sub(1) as f64 / 2.0 * n.max(1.0).ln()
}

/// Recounts every symbol by label group (`group[i]` of sample i, out of
/// `groups`).
fn regroup(symbols: &mut Symbols, group: &[usize], groups: usize) {
    let mut counts = vec![vec![0.0; groups]; symbols.counts.len()];
    let mut totals = vec![0.0; groups];
    for (&s, &g) in symbols.of_sample.iter().zip(group) {
        counts[s][g] += 1.0;
        totals[g] += 1.0;
    }
    symbols.counts = counts;
    symbols.given_totals = totals;
}

/// Classifies new rows by the same coding, reduction and symbol table.
#[derive(Debug)]
pub struct CbtClassifier {
    codings: Vec<Coding>,
    reduction: Reduction,
    /// Expected true-class counts of every training symbol.
    table: HashMap<Vec<u64>, Vec<f64>>,
    ln_den: Vec<f64>,
    ln_prior: Vec<f64>,
}

impl Classifier for CbtClassifier {
    fn predict_proba(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        let k = self.ln_prior.len();
        let mut out = DMatrix::zeros(x.nrows(), k);
        let mut codes = vec![0u32; self.codings.len()];
        let mut key = Vec::new();
        let zeros = vec![0.0; k];
        for i in 0..x.nrows() {
            for (j, coding) in self.codings.iter().enumerate() {
                codes[j] = x
                    .get((i, j))
                    .and_then(|v| coding.code(*v))
                    .unwrap_or(u32::MAX);
            }
            let c = match self.reduction.key(&codes, &mut key) {
                Some(()) => self.table.get(&key).unwrap_or(&zeros),
                None => &zeros,
            };
            let lp: Vec<f64> = (0..k)
                .map(|t| self.ln_prior[t] + (c[t] + 1.0).ln() - self.ln_den[t])
                .collect();
            let lse = crate::models::numerics::log_sum_exp(&lp);
            for t in 0..k {
                out[(i, t)] = (lp[t] - lse).exp();
            }
        }
        out
    }
}

fn describe_move(m: Move) -> String {
    match m {
        Move::Remove(j) => format!("#{j} removed"),
        Move::Merge(j, a, b) => format!("#{j} levels {a}+{b} merged"),
    }
}

/// Reports a step of the fit; false means the curator stopped it.
type Report<'a> = dyn FnMut(&'static str, usize, f64, f64) -> bool + 'a;

/// The features as symbols: how each column is coded, and the joint cells
/// BDRA reduces.
struct Coded {
    codings: Vec<Coding>,
    n_levels: Vec<usize>,
    cells: Cells,
}

/// Codes every column (its own levels, or quantile bins) and counts the
/// joint cells per given label.
fn code_features(x: &DMatrix<f64>, given: &[usize], k: usize, levels: usize) -> Coded {
    let (n, p) = x.shape();
    let codings: Vec<Coding> = (0..p)
        .map(|j| {
            let col: Vec<f64> = x.column(j).iter().copied().collect();
            Coding::choose(&col, levels)
        })
        .collect();
    let codes: Vec<Vec<u32>> = (0..n)
        .map(|i| {
            codings
                .iter()
                .enumerate()
                .map(|(j, c)| c.code(x[(i, j)]).unwrap_or(0))
                .collect()
        })
        .collect();
    let n_levels: Vec<usize> = codings.iter().map(Coding::n_levels).collect();
    let cells = Cells::build(&codes, given, k);
    Coded {
        codings,
        n_levels,
        cells,
    }
}

/// BDRA from the full coding (the first half of the gauge), or the full
/// coding as it is when BDRA is off. `None` when cancelled.
fn reduce_features(
    coded: &Coded,
    full: &Reduction,
    priors: &[f64],
    use_bdra: bool,
    report: &mut Report<'_>,
) -> Option<bdra::BdraResult> {
    if !use_bdra {
        let value = coded.cells.criterion(full, priors);
        return Some(bdra::BdraResult {
            reduction: full.clone(),
            criterion: vec![value],
            steps: Vec::new(),
            moves: Vec::new(),
        });
    }
    let p = coded.n_levels.len();
    let max_steps: usize = coded.n_levels.iter().map(|l| l.max(&1) - 1).sum::<usize>() + p;
    bdra::reduce(&coded.cells, full.clone(), priors, |step, value| {
        report(
            "BDRA",
            step,
            value,
            0.5 * step as f64 / max_steps.max(1) as f64,
        )
    })
}

/// alpha as given, or estimated (the second half of the gauge): returns
/// (alpha, trace, converged, estimated), `None` when cancelled.
fn choose_alpha(
    symbols: &Symbols,
    k: usize,
    fixed: Option<Vec<f64>>,
    report: &mut Report<'_>,
) -> Option<(Vec<f64>, Vec<f64>, bool, bool)> {
    if let Some(a) = fixed {
        let ll = leave_one_out(symbols, &a).log_likelihood;
        return Some((a, vec![ll], true, false));
    }
    let mut evals = 0usize;
    let budget = (EXPECTED_SWEEPS * k * (12 + GOLDEN_ITERATIONS)) as f64;
    let (a, t, c) = estimate_alpha(symbols, k, |ll| {
        evals += 1;
        report(
            "alpha",
            evals,
            ll,
            0.5 + 0.5 * (evals as f64 / budget).min(1.0),
        )
    })?;
    Some((a, t, c, true))
}

/// The leave-one-out posterior of every sample, with ties in p_mislabel
/// (all of them when alpha = 0) ordered by the CBT ratio of eq. (5): how
/// much better another class explains x_i. Also returns the LOO
/// log-likelihood.
fn loo_fit(
    symbols: &Symbols,
    alpha: &[f64],
    given: &[usize],
    group: &[usize],
    k: usize,
) -> (Fit, f64) {
    let n = given.len();
    let loo = leave_one_out(symbols, alpha);
    let mut posterior = DMatrix::zeros(n, k);
    let mut statistic = vec![0.0; n];
    for i in 0..n {
        let (s, g) = (symbols.of_sample[i], group[i]);
        for t in 0..k {
            posterior[(i, t)] = loo.posterior[s][g][t];
        }
        statistic[i] = loo.statistic[s][g];
    }
    let mut fit = Fit::from_posterior(posterior, given);
    fit.suspicion_rank = Some(crate::models::rank_descending(&statistic));
    (fit, loo.log_likelihood)
}

impl CbtClassifier {
    /// The full-data splits of every training symbol (`keys[s]` is the
    /// symbol of `symbols.counts[s]`).
    fn new(
        coded: &Coded,
        reduction: &Reduction,
        keys: Vec<Vec<u64>>,
        symbols: &Symbols,
        a: &[f64],
        priors: &[f64],
    ) -> Self {
        let ln_den = ln_denominators(&symbols.given_totals, a, symbols.ln_m, None);
        let k = ln_den.len();
        let w = relative_weights(&ln_den);
        let table: HashMap<Vec<u64>, Vec<f64>> = keys
            .into_iter()
            .zip(&symbols.counts)
            .map(|(key, x)| (key, split_counts(x, a, &w)))
            .collect();
        // `priors` per label group: the true-class prior mixes them all.
        let ln_prior: Vec<f64> = (0..k)
            .map(|t| {
                (0..priors.len())
                    .map(|g| priors[g] * a[g * k + t])
                    .sum::<f64>()
                    .ln()
            })
            .collect();
        Self {
            codings: coded.codings.clone(),
            reduction: reduction.clone(),
            table,
            ln_den,
            ln_prior,
        }
    }
}

/// The flip table in both orientations, alpha as the paper writes it.
fn report_alpha(e: &mut ModelReport, alpha: &[f64], a: &[f64]) {
    let k = alpha.len();
    let labels: Vec<String> = (0..k).map(class_name).collect();
    e.matrices.push(NamedMatrix {
        name: "alpha".into(),
        orientation:
            "alpha_k = P(true class != k | given label k), the paper's mislabelling probability"
                .into(),
        row_labels: vec!["alpha".into()],
        col_labels: labels.clone(),
        values: vec![alpha.to_vec()],
        display: Default::default(),
    });
    e.matrices.push(NamedMatrix {
        name: "P(true | given)".into(),
        orientation: "rows = given label, columns = true class, entry = P(true | given)".into(),
        row_labels: labels.clone(),
        col_labels: labels,
        values: (0..k).map(|g| a[g * k..(g + 1) * k].to_vec()).collect(),
        display: Default::default(),
    });
}

/// What BDRA kept, removed and merged, and the symbol space before and
/// after.
fn report_reduction(
    e: &mut ModelReport,
    full: &Reduction,
    result: &bdra::BdraResult,
    symbols: &Symbols,
) {
    let reduction = &result.reduction;
    let log10_m = symbols.ln_m / std::f64::consts::LN_10;
    e.scalars.push(("log10_M".into(), log10_m));
    if log10_m < 15.0 {
        e.scalars.push(("M".into(), symbols.ln_m.exp().round()));
    }
    e.scalars.push((
        "log10_M_before_bdra".into(),
        full.ln_m() / std::f64::consts::LN_10,
    ));
    e.scalars
        .push(("observed_symbols".into(), symbols.counts.len() as f64));
    e.scalars
        .push(("kept_features".into(), reduction.kept().count() as f64));
    e.scalars
        .push(("bdra_error_before".into(), result.criterion[0]));
    e.scalars.push((
        "bdra_error_after".into(),
        *result.criterion.last().unwrap_or(&f64::NAN),
    ));
}

/// The feature lists and the BDRA criterion per step.
/// What the fit's notes say of its features, BDRA and alpha.
fn fit_notes(
    coded: &Coded,
    levels: usize,
    full: &Reduction,
    result: &bdra::BdraResult,
    use_bdra: bool,
    estimated: bool,
) -> Vec<String> {
    let p = coded.codings.len();
    let binned = coded
        .codings
        .iter()
        .filter(|c| matches!(c, Coding::Bins(_)))
        .count();
    vec![
        format!(
            "{p} features: {} used as levels, {binned} quantised into {levels} bins of equal \
             frequency (the `levels` option)",
            p - binned
        ),
        if use_bdra {
            format!(
                "BDRA: {} steps, kept {} of {p} features, M from 10^{:.2} to 10^{:.2}",
                result.moves.len(),
                result.reduction.kept().count(),
                full.ln_m() / std::f64::consts::LN_10,
                result.reduction.ln_m() / std::f64::consts::LN_10
            )
        } else {
            "BDRA off: every feature kept".into()
        },
        if estimated {
            "alpha estimated by the leave-one-out predictive likelihood: one for every class, or \
             each class its own where that raises the likelihood by more than BIC's price"
                .into()
        } else {
            "alpha fixed by the alpha option".into()
        },
    ]
}

/// What a curator must be told of the symbol table: how many of the M
/// symbols no training row fell in (a symbol met only at prediction has
/// the prior alone), and when the estimate put every alpha at zero, that
/// the zeros everywhere are the model's answer, not a silent failure.
fn symbol_notes(symbols: &Symbols, alpha: &[f64], estimated: bool) -> Vec<String> {
    let observed = symbols.counts.len();
    let log10_m = symbols.ln_m / std::f64::consts::LN_10;
    let mut notes = vec![if log10_m < 15.0 {
        let m = symbols.ln_m.exp().round() as u64;
        format!(
            "{observed} of the M = {m} symbols hold a training row, {} are empty",
            m.saturating_sub(observed as u64)
        )
    } else {
        format!(
            "{observed} of the M = 10^{log10_m:.1} symbols hold a training row, the rest are empty"
        )
    }];
    if estimated && alpha.iter().all(|a| *a == 0.0) {
        notes.push(
            "alpha estimated 0 for every class: the leave-one-out likelihood is highest with no \
             wrong labels, so cbt flags none (its symbols do not show a wrong label; try another \
             model, fewer features with --ignore, or a smaller `levels`)"
                .into(),
        );
    }
    notes
}

fn report_features(e: &mut ModelReport, coded: &Coded, result: &bdra::BdraResult) {
    let (reduction, codings) = (&result.reduction, &coded.codings);
    let p = codings.len();
    e.lists.push((
        "kept_features".into(),
        reduction
            .kept()
            .map(|j| {
                if reduction.levels[j] == coded.n_levels[j] {
                    format!("#{j} ({})", codings[j].describe())
                } else {
                    format!(
                        "#{j} ({} merged into {})",
                        codings[j].describe(),
                        reduction.levels[j]
                    )
                }
            })
            .collect(),
    ));
    e.lists.push((
        "removed_features".into(),
        (0..p)
            .filter(|&j| reduction.maps[j].is_none())
            .map(|j| format!("#{j}"))
            .collect(),
    ));
    e.lists.push((
        "bdra_steps".into(),
        result.moves.iter().map(|&m| describe_move(m)).collect(),
    ));
    e.series.push(NamedSeries {
        name: "BDRA expected error".into(),
        x_label: "step".into(),
        y_label: "P(e|X), eq. 8".into(),
        points: result
            .criterion
            .iter()
            .enumerate()
            .map(|(i, v)| (i as f64, *v))
            .collect(),
    });
}

impl RobustModel for Cbt {
    fn name(&self) -> &'static str {
        "cbt"
    }

    fn input(&self) -> ModelInput {
        ModelInput::Levels
    }

    /// Decided samples form K label groups of their own whose flip rows are
    /// the identity: at their symbol they count for their decided class
    /// only, in every split and every leave-one-out test, and alpha is
    /// estimated from the undecided samples' labels. BDRA still chooses
    /// the features from the given labels (it reads no flip table), and a
    /// warm start is not needed: the posterior is in closed form.
    fn fit_guided(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        guide.check(given.len(), n_classes)?;
        let prologue = Prologue::new(x, given, n_classes, false, Scaling::AsGiven)?;
        let counts = &prologue.counts;
        let k = n_classes;
        let fixed_alpha = match &self.alpha {
            Some(values) => Some(alpha_per_class(values, k)?),
            None => None,
        };
        let n = given.len();
        let p = x.ncols();
        let coded = code_features(x, given, k, self.levels);
        let priors: Vec<f64> = counts.iter().map(|&c| c as f64 / n as f64).collect();
        let full = Reduction::full(&coded.n_levels);
        let use_bdra = self.bdra.unwrap_or(p > 1);
        if use_bdra && p > MAX_FEATURES {
            return Err(FitError::NotApplicable(format!(
                "cbt: {p} features are too many for BDRA's greedy search (at most {MAX_FEATURES}); \
                 leave columns out with --ignore, turn BDRA off with --opt bdra=false, or use rlr \
                 or shift for wide data"
            )));
        }

        let mut report = |stage: &'static str, iteration: usize, objective: f64, fraction: f64| {
            let c = progress(Progress {
                stage,
                iteration,
                max_iterations: self.max_iter,
                objective,
                fraction,
            });
            c == Control::Continue
        };
        let result = reduce_features(&coded, &full, &priors, use_bdra, &mut report)
            .ok_or(FitError::Cancelled)?;
        let (keys, sym_counts, of_cell) = coded.cells.group(&result.reduction);
        let mut symbols = Symbols {
            of_sample: coded.cells.of_sample.iter().map(|&c| of_cell[c]).collect(),
            given_totals: counts.iter().map(|&c| c as f64).collect(),
            counts: sym_counts,
            ln_m: result.reduction.ln_m(),
        };
        let group: Vec<usize> = (0..n)
            .map(|i| guide.trusted(i).map_or(given[i], |d| k + d))
            .collect();
        if guide.n_trusted() > 0 {
            regroup(&mut symbols, &group, 2 * k);
        }
        let group_priors: Vec<f64> = symbols.given_totals.iter().map(|c| c / n as f64).collect();
        let (alpha, trace, converged, estimated) =
            choose_alpha(&symbols, k, fixed_alpha, &mut report).ok_or(FitError::Cancelled)?;
        let last = trace.last().copied().unwrap_or(f64::NAN);
        if !report("posterior", 1, last, 1.0) {
            return Err(FitError::Cancelled);
        }

        let (mut fit, loo_log_likelihood) = loo_fit(&symbols, &alpha, given, &group, k);
        guide.pin_fit(&mut fit, given);
        let a = flip_table(&alpha);
        let a_matrix = DMatrix::from_fn(k, k, |g, t| a[g * k + t]);
        fit.gamma = Some(GammaTable::from_p_true_given(&a_matrix, &priors));
        fit.trace = trace;
        fit.converged = converged;
        fit.iterations = fit.trace.len();
        fit.classifier = Some(Arc::new(CbtClassifier::new(
            &coded,
            &result.reduction,
            keys,
            &symbols,
            &group_table(&alpha, symbols.given_totals.len()),
            &group_priors,
        )));

        let e = &mut fit.extra;
        report_alpha(e, &alpha, &a);
        report_reduction(e, &full, &result, &symbols);
        e.scalars
            .push(("loo_log_likelihood".into(), loo_log_likelihood));
        report_features(e, &coded, &result);
        e.notes.extend(fit_notes(
            &coded,
            self.levels,
            &full,
            &result,
            use_bdra,
            estimated,
        ));
        e.notes.extend(symbol_notes(&symbols, &alpha, estimated));
        Ok(fit)
    }
}

mod split;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod option_tests {
    use super::*;

    crate::models::rejects_option! {
        alpha_not_a_number: Cbt::new, "alpha" = "x";
        alpha_not_a_probability: Cbt::new, "alpha" = "1.5";
        one_level: Cbt::new, "levels" = "1";
        zero_max_iter: Cbt::new, "max_iter" = "0";
    }
}
