//! Discrete symbols for the Combined Bayes Test, and the Bayesian Data
//! Reduction Algorithm (Lynch & Willett 1999, section 4, eq. 8 and its six
//! steps) that coarsens them.
//!
//! A sample's symbol is its joint cell over the kept features. The number of
//! possible cells M is the product of the features' level counts and can be
//! far beyond any integer type, so it is only ever held as `ln M`, and only
//! observed cells are stored (a map from a packed key to counts per class).
//!
//! BDRA removes features (step 2: merge the symbols that differ only in the
//! removed feature) and, for features with more than two levels, merges two
//! of their levels — the same kind of merge, one step finer, which is what
//! quantised continuous features need. Each step takes the change that
//! lowers eq. (8) the most and stops when none lowers it (steps 5-6).

use std::collections::HashMap;

use rayon::prelude::*;

use crate::models::numerics::log_add_exp;

use super::MAX_DISCRETE_LEVELS;

mod symbols;

pub use symbols::SymbolTable;

/// Every pair of levels is a merge candidate up to this many levels; above
/// it only adjacent pairs are, since their number grows quadratically.
const ALL_PAIRS_UP_TO: usize = 4;

/// How one input column becomes level codes 0..L-1.
#[derive(Clone, Debug, PartialEq)]
pub enum Coding {
    /// The column's own distinct values, ascending; a value not among them
    /// (in new rows) is a level the training data never had.
    Levels(Vec<f64>),
    /// Quantile bins: `v` falls in bin `#{edges e : v > e}`.
    Bins(Vec<f64>),
}

impl Coding {
    /// Levels for a discrete column, quantile bins for a continuous one.
    pub fn choose(column: &[f64], bins: usize) -> Self {
        let mut sorted: Vec<f64> = column.to_vec();
        sorted.sort_by(f64::total_cmp);
        let mut distinct = sorted.clone();
        distinct.dedup();
        let integer = distinct.iter().all(|v| v.fract() == 0.0);
        if distinct.len() <= bins || (integer && distinct.len() <= MAX_DISCRETE_LEVELS) {
            return Coding::Levels(distinct);
        }
        let n = sorted.len();
        let mut edges: Vec<f64> = (1..bins)
            .map(|b| sorted[((b * n) / bins).saturating_sub(1).min(n - 1)])
            .collect();
        edges.dedup();
        // An edge at the maximum would leave the top bin empty.
        if edges.last().is_some_and(|e| *e >= sorted[n - 1]) {
            edges.pop();
        }
        Coding::Bins(edges)
    }

    pub fn n_levels(&self) -> usize {
        match self {
            Coding::Levels(v) => v.len(),
            Coding::Bins(e) => e.len() + 1,
        }
    }

    /// The level of a value; `None` for a level never seen in training.
    pub fn code(&self, v: f64) -> Option<u32> {
        match self {
            Coding::Levels(values) => values
                .binary_search_by(|probe| probe.total_cmp(&v))
                .ok()
                .map(|i| i as u32),
            Coding::Bins(edges) => Some(edges.partition_point(|e| v > *e) as u32),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Coding::Levels(v) => format!("{} levels", v.len()),
            Coding::Bins(e) => format!("{} quantile bins", e.len() + 1),
        }
    }
}

/// Which features are kept and how their levels are merged.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduction {
    /// Per feature: the merged level of every original level, or `None`
    /// when the feature is removed.
    pub maps: Vec<Option<Vec<u32>>>,
    /// Per feature: the number of merged levels (0 when removed).
    pub levels: Vec<usize>,
}

/// One BDRA move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    Remove(usize),
    /// Merge merged levels `b` into `a` (a < b) of a feature.
    Merge(usize, u32, u32),
}

impl Move {
    pub fn feature(self) -> usize {
        match self {
            Move::Remove(j) | Move::Merge(j, ..) => j,
        }
    }

    /// The merged level a level of the move's feature becomes (0 when the
    /// feature goes): `b` joins `a` and the levels above `b` close the gap.
    pub fn recode(self, c: u32) -> u32 {
        match self {
            Move::Remove(_) => 0,
            Move::Merge(_, a, b) => match c.cmp(&b) {
                std::cmp::Ordering::Equal => a,
                std::cmp::Ordering::Greater => c - 1,
                std::cmp::Ordering::Less => c,
            },
        }
    }
}

impl Reduction {
    /// Every feature kept with all its levels.
    pub fn full(n_levels: &[usize]) -> Self {
        Self {
            maps: n_levels
                .iter()
                .map(|&l| Some((0..l as u32).collect()))
                .collect(),
            levels: n_levels.to_vec(),
        }
    }

    pub fn kept(&self) -> impl Iterator<Item = usize> + '_ {
        self.maps
            .iter()
            .enumerate()
            .filter(|(_, m)| m.is_some())
            .map(|(j, _)| j)
    }

    /// `ln M`, M = product of the kept features' level counts.
    pub fn ln_m(&self) -> f64 {
        self.kept().map(|j| (self.levels[j] as f64).ln()).sum()
    }

    /// Bits of the packed key per kept feature.
    fn widths(&self) -> Vec<(usize, u32)> {
        self.kept()
            .map(|j| {
                let l = self.levels[j].max(2) as u64;
                (j, 64 - (l - 1).leading_zeros())
            })
            .collect()
    }

    /// The symbol of a sample with these original codes, packed into 64-bit
    /// words; `None` when a code is a level the reduction does not know.
    pub fn key(&self, codes: &[u32], out: &mut Vec<u64>) -> Option<()> {
        self.key_with(&self.widths(), codes, out)
    }

    fn key_with(&self, widths: &[(usize, u32)], codes: &[u32], out: &mut Vec<u64>) -> Option<()> {
        out.clear();
        let mut word = 0u64;
        let mut used = 0u32;
        for &(j, w) in widths {
            let map = self.maps[j].as_ref()?;
            let code = u64::from(*map.get(codes[j] as usize)?);
            if used + w > 64 {
                out.push(word);
                word = 0;
                used = 0;
            }
            word |= code << used;
            used += w;
        }
        out.push(word);
        Some(())
    }

    pub fn apply(&self, m: Move) -> Self {
        let mut next = self.clone();
        match m {
            Move::Remove(j) => {
                next.maps[j] = None;
                next.levels[j] = 0;
            }
            Move::Merge(j, ..) => {
                if let Some(map) = next.maps[j].as_mut() {
                    for c in map.iter_mut() {
                        *c = m.recode(*c);
                    }
                }
                next.levels[j] -= 1;
            }
        }
        next
    }

    /// The moves of one BDRA step: remove any kept feature but the last
    /// (M stays >= 2, step 6), or merge two levels of a feature with more
    /// than two.
    pub fn moves(&self) -> Vec<Move> {
        let kept: Vec<usize> = self.kept().collect();
        let mut out = Vec::new();
        for &j in &kept {
            if kept.len() > 1 {
                out.push(Move::Remove(j));
            }
            let l = self.levels[j] as u32;
            if l > 2 {
                if l as usize <= ALL_PAIRS_UP_TO {
                    for a in 0..l {
                        for b in a + 1..l {
                            out.push(Move::Merge(j, a, b));
                        }
                    }
                } else {
                    out.extend((0..l - 1).map(|a| Move::Merge(j, a, a + 1)));
                }
            }
        }
        out
    }
}

/// The distinct original code vectors of the samples with their counts
/// per given class: everything BDRA needs, usually far fewer than samples.
#[derive(Clone, Debug)]
pub struct Cells {
    pub codes: Vec<Vec<u32>>,
    pub counts: Vec<Vec<f64>>,
    /// The cell of every sample.
    pub of_sample: Vec<usize>,
}

impl Cells {
    pub fn build(codes: &[Vec<u32>], given: &[usize], k: usize) -> Self {
        let mut index: HashMap<&[u32], usize> = HashMap::new();
        let mut cells = Cells {
            codes: Vec::new(),
            counts: Vec::new(),
            of_sample: Vec::with_capacity(codes.len()),
        };
        for (row, &g) in codes.iter().zip(given) {
            let c = *index.entry(row.as_slice()).or_insert_with(|| {
                cells.codes.push(row.clone());
                cells.counts.push(vec![0.0; k]);
                cells.codes.len() - 1
            });
            cells.counts[c][g] += 1.0;
            cells.of_sample.push(c);
        }
        cells
    }

    /// Counts per class of every symbol of a reduction, in order of first
    /// appearance, and the symbol of every cell.
    pub fn group(&self, r: &Reduction) -> (Vec<Vec<u64>>, Vec<Vec<f64>>, Vec<usize>) {
        let widths = r.widths();
        let mut index: HashMap<Vec<u64>, usize> = HashMap::with_capacity(self.codes.len());
        let mut keys = Vec::new();
        let mut counts: Vec<Vec<f64>> = Vec::new();
        let mut of_cell = Vec::with_capacity(self.codes.len());
        let mut key = Vec::new();
        for (codes, c) in self.codes.iter().zip(&self.counts) {
            // Training cells always have known levels.
            let _ = r.key_with(&widths, codes, &mut key);
            let s = match index.get(&key) {
                Some(&s) => s,
                None => {
                    index.insert(key.clone(), keys.len());
                    keys.push(key.clone());
                    counts.push(vec![0.0; c.len()]);
                    keys.len() - 1
                }
            };
            for (a, b) in counts[s].iter_mut().zip(c) {
                *a += b;
            }
            of_cell.push(s);
        }
        (keys, counts, of_cell)
    }

    /// Eq. (8) for a reduction.
    pub fn criterion(&self, r: &Reduction, priors: &[f64]) -> f64 {
        let (_, counts, _) = self.group(r);
        expected_error(&counts, priors, r.ln_m())
    }
}

/// Eq. (8) with one test observation, for K classes: the probability of
/// error of the rule "decide argmax_k P(H_k) f(y | x_k, H_k)", averaged over
/// y drawn from the same predictive densities,
/// `P(e|X) = 1 - sum_y max_k P(H_k) (x_{k,y} + 1) / (N_k + M)`.
pub fn expected_error(counts: &[Vec<f64>], priors: &[f64], ln_m: f64) -> f64 {
    expected_flat(&counts.concat(), priors, ln_m, &LnCounts::default())
}

/// [`expected_error`] of counts laid out K per symbol.
pub fn expected_flat(counts: &[f64], priors: &[f64], ln_m: f64, ln1: &LnCounts) -> f64 {
    let top = priors.iter().copied().fold(0.0, f64::max);
    (1.0 - top) + excess_flat(counts, priors, ln_m, 0.0, ln1)
}

/// `(P(e|X) - (1 - max_k P(H_k))) * exp(ln_scale)`: eq. (8) less the error
/// of always guessing the likeliest class, which no reduction changes.
///
/// When M is far larger than the data nearly all of the test mass falls on
/// symbols no training sample has and P(e|X) is 1 - max P(H_k) to the last
/// bit of an f64, yet BDRA must still see which merge helps. So the
/// constant is taken out analytically (the M - G unseen symbols share one
/// term, so the sum is O(G K) whatever M is), the rest is computed in log
/// space, and `ln_scale` (the current ln M of a BDRA step) keeps it in range.
pub fn excess_error(counts: &[Vec<f64>], priors: &[f64], ln_m: f64, ln_scale: f64) -> f64 {
    excess_flat(
        &counts.concat(),
        priors,
        ln_m,
        ln_scale,
        &LnCounts::default(),
    )
}

/// `ln(c + 1)` of the integer counts up to a bound, looked up: eq. (8)
/// takes K of them per symbol, and BDRA evaluates it for every move. The
/// table holds the very values `ln` returns, so results do not change.
#[derive(Clone, Debug, Default)]
pub struct LnCounts(Vec<f64>);

impl LnCounts {
    pub fn up_to(n: usize) -> Self {
        Self((0..=n).map(|c| (c as f64 + 1.0).ln()).collect())
    }

    fn of(&self, c: f64) -> f64 {
        let i = c as usize;
        match self.0.get(i) {
            Some(&v) if i as f64 == c => v,
            _ => (c + 1.0).ln(),
        }
    }
}

/// [`excess_error`] of counts laid out K per symbol.
pub fn excess_flat(
    counts: &[f64],
    priors: &[f64],
    ln_m: f64,
    ln_scale: f64,
    ln1: &LnCounts,
) -> f64 {
    let k = priors.len();
    let mut totals = vec![0.0; k];
    for c in counts.chunks_exact(k) {
        for (t, v) in totals.iter_mut().zip(c) {
            *t += v;
        }
    }
    let how = Scoring {
        priors,
        ln_scale,
        ln1,
    };
    Excess::new(&totals, counts.len() / k, ln_m, &how).of(counts.chunks_exact(k))
}

/// What eq. (8) takes besides the counts and M.
pub struct Scoring<'a> {
    pub priors: &'a [f64],
    pub ln_scale: f64,
    pub ln1: &'a LnCounts,
}

/// [`excess_error`] for given class totals, number of observed symbols G
/// and M: everything but the sum over the observed symbols.
pub struct Excess<'a> {
    ln_den: Vec<f64>,
    ln_prior: Vec<f64>,
    unseen: f64,
    how: &'a Scoring<'a>,
}

impl<'a> Excess<'a> {
    pub fn new(totals: &[f64], g: usize, ln_m: f64, how: &'a Scoring<'a>) -> Self {
        let (priors, ln_scale) = (how.priors, how.ln_scale);
        let ln_den: Vec<f64> = totals.iter().map(|&n| log_add_exp(n.ln(), ln_m)).collect();
        let ln_prior: Vec<f64> = priors.iter().map(|p| p.ln()).collect();
        let top = priors.iter().copied().fold(0.0, f64::max);
        let g = g as f64;
        // Unseen symbols contribute max_k P(H_k) (M - G) / (N_k + M); with
        // (M - G) / (N_k + M) = 1 - (N_k + G) / (N_k + M) the part above the
        // constant is min_k [top - P(H_k) + P(H_k) (N_k + G) / (N_k + M)].
        let unseen = (0..priors.len())
            .map(|t| {
                (top - priors[t]) * ln_scale.exp()
                    + (ln_prior[t] + (totals[t] + g).ln() - ln_den[t] + ln_scale).exp()
            })
            .fold(f64::INFINITY, f64::min);
        Self {
            ln_den,
            ln_prior,
            unseen,
            how,
        }
    }

    /// The excess error of the observed symbols' counts, in order.
    pub fn of<'c>(&self, symbols: impl Iterator<Item = &'c [f64]>) -> f64 {
        self.of_terms(symbols.map(|c| self.term(c)))
    }

    /// The excess error from the terms of the observed symbols, in order.
    pub fn of_terms(&self, terms: impl Iterator<Item = f64>) -> f64 {
        let mut seen = 0.0;
        for t in terms {
            seen += t;
        }
        self.of_sum(seen)
    }

    /// The excess error from the sum of the observed symbols' terms.
    pub fn of_sum(&self, seen: f64) -> f64 {
        self.unseen - seen
    }

    /// An observed symbol's term, `max_k P(H_k) (x_k + 1) / (N_k + M)`
    /// on the common scale.
    pub fn term(&self, c: &[f64]) -> f64 {
        let best = (0..self.ln_den.len())
            .map(|t| self.ln_prior[t] + self.how.ln1.of(c[t]) - self.ln_den[t])
            .fold(f64::NEG_INFINITY, f64::max);
        (best + self.how.ln_scale).exp()
    }
}

/// What BDRA did.
#[derive(Clone, Debug)]
pub struct BdraResult {
    pub reduction: Reduction,
    /// Eq. (8) before any step and after each accepted step.
    pub criterion: Vec<f64>,
    /// Per accepted step, the excess error (see [`excess_error`]) before
    /// and after it, on that step's common scale: `after < before` always.
    pub steps: Vec<(f64, f64)>,
    pub moves: Vec<Move>,
}

/// The greedy BDRA: at each step try every move (in parallel), keep the one
/// with the least eq. (8) if it is lower than the current value. `step` is
/// told each accepted step and returns false to stop (cancellation).
pub fn reduce(
    cells: &Cells,
    start: Reduction,
    priors: &[f64],
    mut step: impl FnMut(usize, f64) -> bool,
) -> Option<BdraResult> {
    let ln1 = LnCounts::up_to(cells.of_sample.len());
    let solo = solo_excess(cells, &start, priors, &ln1);
    let mut current = start;
    let mut symbols = SymbolTable::of_cells(cells, &current);
    let mut criterion = vec![expected_flat(
        symbols.counts(),
        priors,
        current.ln_m(),
        &ln1,
    )];
    let mut steps = Vec::new();
    let mut moves = Vec::new();
    loop {
        let candidates = current.moves();
        if candidates.is_empty() {
            break;
        }
        let scale = current.ln_m();
        let value = excess_flat(symbols.counts(), priors, scale, scale, &ln1);
        let how = Scoring {
            priors,
            ln_scale: scale,
            ln1: &ln1,
        };
        // `moves` lists each feature's moves together; scoring them
        // together lets them share the grouping by the other features.
        let by_feature: Vec<&[Move]> = candidates
            .chunk_by(|a, b| a.feature() == b.feature())
            .collect();
        let scores: Vec<Vec<f64>> = by_feature
            .par_iter()
            .map(|moves| symbols.score_feature(moves, |m| current.apply(m).ln_m(), &how))
            .collect();
        let scored: Vec<(f64, Move)> = scores
            .concat()
            .into_iter()
            .zip(candidates.iter().copied())
            .collect();
        let Some((best, m)) = best_move(&scored, &solo) else {
            break;
        };
        if best >= value - 1e-12 * value.abs() {
            break;
        }
        symbols = symbols.after(Some(m));
        current = current.apply(m);
        criterion.push(expected_flat(
            symbols.counts(),
            priors,
            current.ln_m(),
            &ln1,
        ));
        steps.push((value, best));
        moves.push(m);
        if !step(moves.len(), best * (-scale).exp()) {
            return None;
        }
    }
    Some(BdraResult {
        reduction: current,
        criterion,
        steps,
        moves,
    })
}

/// Each feature's excess error when it is the only one kept.
fn solo_excess(cells: &Cells, start: &Reduction, priors: &[f64], ln1: &LnCounts) -> Vec<f64> {
    (0..start.maps.len())
        .map(|j| {
            let mut only = start.clone();
            for (i, m) in only.maps.iter_mut().enumerate() {
                if i != j {
                    *m = None;
                }
            }
            match &only.maps[j] {
                Some(map) => {
                    excess_flat(&solo_counts(cells, j, map), priors, only.ln_m(), 0.0, ln1)
                }
                None => f64::INFINITY,
            }
        })
        .collect()
}

/// The counts per class of feature j's merged levels, K per level in order
/// of first appearance among the cells: [`SymbolTable::of_cells`]'s counts
/// for a reduction that keeps j alone, read off an array by level instead
/// of grouping every cell by fingerprint (each join confirmed by comparing
/// all codes, p times over n cells).
fn solo_counts(cells: &Cells, j: usize, map: &[u32]) -> Vec<f64> {
    let k = cells.counts.first().map_or(1, Vec::len);
    let mut slot = vec![usize::MAX; map.iter().max().map_or(0, |&l| l as usize + 1)];
    let mut counts: Vec<f64> = Vec::new();
    for (codes, c) in cells.codes.iter().zip(&cells.counts) {
        let level = map[codes[j] as usize] as usize;
        if slot[level] == usize::MAX {
            slot[level] = counts.len();
            counts.resize(counts.len() + k, 0.0);
        }
        let at = slot[level];
        for (a, b) in counts[at..at + k].iter_mut().zip(c) {
            *a += b;
        }
    }
    counts
}

/// The least score and its move.
///
/// Step 5 breaks ties arbitrarily. They are the rule, not the exception,
/// when M dwarfs the data (no two samples share a symbol until enough
/// features are gone), so among tied moves the removal of the feature that
/// is least useful on its own goes first, then the earliest move.
fn best_move(scored: &[(f64, Move)], solo: &[f64]) -> Option<(f64, Move)> {
    let best = scored.iter().map(|s| s.0).min_by(f64::total_cmp)?;
    let tol = 1e-12 * best.abs();
    let m = scored
        .iter()
        .filter(|s| s.0 <= best + tol)
        .map(|s| s.1)
        .fold(None, |acc: Option<Move>, m| match (acc, m) {
            (None, _) => Some(m),
            (Some(Move::Remove(a)), Move::Remove(b)) if solo[b] > solo[a] => Some(m),
            (Some(Move::Merge(..)), Move::Remove(_)) => Some(m),
            (acc, _) => acc,
        })?;
    Some((best, m))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn continuous_columns_get_quantile_bins_and_discrete_ones_keep_levels() {
        let x: Vec<f64> = (0..100).map(|i| i as f64 * 0.37).collect();
        let c = Coding::choose(&x, 4);
        assert_eq!(c.n_levels(), 4);
        let mut counts = [0; 4];
        for v in &x {
            counts[c.code(*v).unwrap() as usize] += 1;
        }
        assert_eq!(counts, [25, 25, 25, 25]);
        let codes = Coding::choose(&[0.0, 2.0, 1.0, 7.0, 2.0, 5.0, 6.0], 4);
        assert_eq!(codes, Coding::Levels(vec![0.0, 1.0, 2.0, 5.0, 6.0, 7.0]));
        assert_eq!(codes.code(3.0), None);
        assert_eq!(codes.code(5.0), Some(3));
    }

    #[test]
    fn keys_pack_many_features_beyond_64_bits() {
        let r = Reduction::full(&vec![3; 100]);
        assert!(r.ln_m() / 10f64.ln() > 47.0);
        let a: Vec<u32> = (0..100).map(|j| (j % 3) as u32).collect();
        let mut b = a.clone();
        b[99] = 2;
        let (mut ka, mut kb) = (Vec::new(), Vec::new());
        r.key(&a, &mut ka).unwrap();
        r.key(&b, &mut kb).unwrap();
        assert_eq!(ka.len(), 4);
        assert_ne!(ka, kb);
    }

    #[test]
    fn the_criterion_of_one_unseen_heavy_configuration_is_finite() {
        // M = 3^1000 does not fit in an f64; the criterion must still be a
        // probability.
        let e = expected_error(
            &[vec![3.0, 0.0], vec![0.0, 2.0]],
            &[0.6, 0.4],
            1000.0 * 3f64.ln(),
        );
        assert!((0.0..=1.0).contains(&e), "{e}");
        // With M = 1 every sample shares the one symbol: error is the
        // smaller prior (here both priors are 1/2 and counts equal).
        let e = expected_error(&[vec![5.0, 5.0]], &[0.5, 0.5], 0.0);
        assert!((e - 0.5).abs() < 1e-12, "{e}");
    }

    #[test]
    fn criterion_matches_a_dense_sum_over_all_symbols() {
        let counts = vec![vec![3.0, 1.0], vec![0.0, 4.0], vec![2.0, 2.0]];
        let priors = [0.45, 0.55];
        let m = 7usize;
        let n = [5.0, 7.0];
        let mut dense = 0.0;
        for y in 0..m {
            let c = counts.get(y).cloned().unwrap_or(vec![0.0, 0.0]);
            dense += (0..2)
                .map(|k| priors[k] * (c[k] + 1.0) / (n[k] + m as f64))
                .fold(0.0, f64::max);
        }
        let e = expected_error(&counts, &priors, (m as f64).ln());
        assert!((e - (1.0 - dense)).abs() < 1e-12);
    }

    #[test]
    fn bdra_never_raises_its_criterion_and_drops_noise_features() {
        let mut rng = Rng::new(5);
        let n = 400;
        let given: Vec<usize> = (0..n).map(|i| i % 2).collect();
        // Feature 0 carries the class, features 1..6 are coin flips.
        let codes: Vec<Vec<u32>> = given
            .iter()
            .map(|&g| {
                let mut row = vec![u32::from((rng.uniform() < 0.85) == (g == 1))];
                row.extend((0..6).map(|_| rng.below(2) as u32));
                row
            })
            .collect();
        let cells = Cells::build(&codes, &given, 2);
        let start = Reduction::full(&[2; 7]);
        let result = reduce(&cells, start, &[0.5, 0.5], |_, _| true).unwrap();
        for w in result.criterion.windows(2) {
            assert!(w[1] < w[0], "{:?}", result.criterion);
        }
        assert!(result.steps.iter().all(|(before, after)| after < before));
        assert!(result.reduction.maps[0].is_some());
        assert!(
            result.reduction.kept().count() <= 2,
            "{:?}",
            result.reduction
        );
        let last = *result.criterion.last().unwrap();
        assert!((cells.criterion(&result.reduction, &[0.5, 0.5]) - last).abs() < 1e-15);
    }

    #[test]
    fn bdra_climbs_off_the_plateau_of_a_huge_m() {
        // 150 binary features and 200 samples: every sample has its own
        // symbol, P(e|X) is 1/2 to every printed digit, yet the steps still
        // lower the excess and find the one informative feature.
        let mut rng = Rng::new(9);
        let given: Vec<usize> = (0..200).map(|i| i % 2).collect();
        let codes: Vec<Vec<u32>> = given
            .iter()
            .map(|&g| {
                let mut row: Vec<u32> = (0..150).map(|_| rng.below(2) as u32).collect();
                row[7] = u32::from((rng.uniform() < 0.9) == (g == 1));
                row
            })
            .collect();
        let cells = Cells::build(&codes, &given, 2);
        let result = reduce(&cells, Reduction::full(&[2; 150]), &[0.5, 0.5], |_, _| true).unwrap();
        assert!(result.steps.len() > 100);
        assert!(result.steps.iter().all(|(before, after)| after < before));
        for w in result.criterion.windows(2) {
            assert!(w[1] <= w[0]);
        }
        let kept: Vec<usize> = result.reduction.kept().collect();
        assert!(kept.contains(&7), "{kept:?}");
        assert!(kept.len() <= 3, "{kept:?}");
    }

    #[test]
    fn solo_counts_are_those_of_the_symbol_table_of_one_feature() {
        let mut rng = Rng::new(3);
        let levels = [1, 2, 3, 5, 4];
        let given: Vec<usize> = (0..300).map(|_| rng.below(3)).collect();
        let codes: Vec<Vec<u32>> = (0..300)
            .map(|_| levels.iter().map(|&l| rng.below(l) as u32).collect())
            .collect();
        let cells = Cells::build(&codes, &given, 3);
        let merged = Reduction::full(&levels).apply(Move::Merge(3, 1, 3));
        for r in [Reduction::full(&levels), merged] {
            for j in 0..levels.len() {
                let mut only = r.clone();
                for (i, m) in only.maps.iter_mut().enumerate() {
                    if i != j {
                        *m = None;
                    }
                }
                let map = only.maps[j].clone().unwrap();
                let table = SymbolTable::of_cells(&cells, &only);
                assert_eq!(solo_counts(&cells, j, &map), table.counts(), "feature {j}");
            }
        }
    }

    #[test]
    fn merging_levels_renumbers_the_rest() {
        let r = Reduction::full(&[4]).apply(Move::Merge(0, 1, 3));
        assert_eq!(r.maps[0].as_deref(), Some(&[0, 1, 2, 1][..]));
        assert_eq!(r.levels[0], 3);
    }
}
