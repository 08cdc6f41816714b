//! The symbols of BDRA's current reduction, from which every candidate
//! move is scored.
//!
//! A move only merges symbols that agree on every kept feature but one, so
//! its symbols are unions of the current ones: scoring it regroups the G
//! current symbols instead of every observed cell (with continuous
//! features nearly every sample is a cell of its own, and rebuilding keyed
//! maps of them for every move made BDRA's time grow faster than the data).
//! A symbol's identity under a move is its fingerprint, a sum of one hash
//! per (feature, code), with the moved feature's term swapped: no key is
//! built or allocated. Equal fingerprints are confirmed by comparing codes,
//! so a collision costs time, never a wrong merge. The moves of one feature
//! share that grouping: symbols that agree on every other feature are found
//! once (the feature's removal), and a merge of two of its levels only
//! joins pairs within them (`merges.rs`): nearly none while M dwarfs the
//! data, so its score is the current terms with a few replaced.
//!
//! The arithmetic is that of regrouping the cells: symbols stay in order of
//! first appearance among the cells (a union's first cell is its first
//! member's), counts are integers (so their sums are exact in any order),
//! and eq. (8) then adds the same terms in the same order. BDRA makes the
//! same choices, ties included, as [`Cells::group`] for every move.

use std::collections::HashMap;

use super::{Cells, Excess, Move, Reduction, Scoring};

mod merges;

use merges::Merges;

/// No symbol: a new symbol of one member's place among the joined ones, a
/// level absent from a group.
const END: u32 = u32::MAX;

/// An empty slot of [`SymbolTable::partition`]'s table (no new symbol has
/// id `END`).
const EMPTY: u64 = u64::MAX;
/// Symbols whose slots [`SymbolTable::partition`] reads together.
const BATCH: usize = 16;

/// splitmix64's finaliser: a bijection, so distinct keys stay distinct.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The fingerprint term of code `c` of feature `j`.
fn term(j: usize, c: u32) -> u64 {
    mix(((j as u64) << 32 | u64::from(c)).wrapping_add(0x9E37_79B9_7F4A_7C15))
}

/// The observed symbols of one reduction with their counts per class.
#[derive(Clone, Debug)]
pub struct SymbolTable {
    /// `codes[s * p + j]`: symbol s's merged level of feature j, 0 when j
    /// is removed. By row: a move reads one feature of every symbol in
    /// order, which strides well, but confirming that a symbol joins
    /// another compares all of two symbols' codes, the other one anywhere
    /// (by column that was a cache miss per feature, a fifth of BDRA's
    /// time on gauss_200k).
    codes: Vec<u32>,
    /// Features, the row length of `codes`.
    p: usize,
    prints: Vec<u64>,
    /// K per symbol.
    counts: Vec<f64>,
    /// Per class, over all symbols: no move changes them.
    totals: Vec<f64>,
    /// Per symbol, which of the distinct count vectors it has, and the
    /// first symbol with each: symbols with equal counts (single samples,
    /// nearly all of them while M dwarfs the data) have equal terms in
    /// eq. (8), so a move takes one per distinct vector.
    kind: Vec<u32>,
    kinds: Vec<u32>,
    k: usize,
    /// The bits of a fingerprint the grouping sees: all of them, except in
    /// tests that force collisions.
    mask: u64,
}

/// The new symbol of every current one under a move.
struct Partition {
    of_symbol: Vec<u32>,
    /// The first current symbol of every new one.
    first: Vec<u32>,
    /// The number of current symbols in every new one.
    size: Vec<u32>,
}

impl Partition {
    fn with_capacity(g: usize) -> Self {
        Self {
            of_symbol: Vec::with_capacity(g),
            first: Vec::new(),
            size: Vec::new(),
        }
    }

    /// Puts the next current symbol `s` into new symbol `id`, a fresh one
    /// when `id` is the number of new symbols so far.
    fn assign(&mut self, s: u32, id: u32) {
        if id as usize == self.first.len() {
            self.first.push(s);
            self.size.push(0);
        }
        self.size[id as usize] += 1;
        self.of_symbol.push(id);
    }
}

impl SymbolTable {
    /// The symbols of `r`, in order of first appearance among the cells.
    pub fn of_cells(cells: &Cells, r: &Reduction) -> Self {
        Self::of_cells_masked(cells, r, u64::MAX)
    }

    fn of_cells_masked(cells: &Cells, r: &Reduction, mask: u64) -> Self {
        let p = r.maps.len();
        let codes: Vec<u32> = cells
            .codes
            .iter()
            .flat_map(|c| {
                r.maps.iter().enumerate().map(|(j, map)| match map {
                    Some(map) => map[c[j] as usize],
                    None => 0,
                })
            })
            .collect();
        let prints = (0..cells.codes.len())
            .map(|s| {
                codes[s * p..(s + 1) * p]
                    .iter()
                    .enumerate()
                    .map(|(j, &c)| term(j, c))
                    .fold(0, u64::wrapping_add)
            })
            .collect();
        let k = cells.counts.first().map_or(1, Vec::len);
        let mut totals = vec![0.0; k];
        for c in &cells.counts {
            totals.iter_mut().zip(c).for_each(|(t, v)| *t += v);
        }
        let each_cell = Self {
            codes,
            p,
            prints,
            counts: cells.counts.concat(),
            totals,
            kind: Vec::new(),
            kinds: Vec::new(),
            k,
            mask,
        };
        each_cell.after(None)
    }

    pub fn len(&self) -> usize {
        self.prints.len()
    }

    pub fn is_empty(&self) -> bool {
        self.prints.is_empty()
    }

    /// Counts per class, K per symbol.
    pub fn counts(&self) -> &[f64] {
        &self.counts
    }

    /// [`super::excess_error`] of the symbols each move would leave, all
    /// of them moves of one feature; `ln_m` is M after a move.
    pub fn score_feature(
        &self,
        moves: &[Move],
        ln_m: impl Fn(Move) -> f64,
        how: &Scoring<'_>,
    ) -> Vec<f64> {
        let Some(j) = moves.first().map(|m| m.feature()) else {
            return Vec::new();
        };
        let rest = self.partition(Some(Move::Remove(j)));
        let mut merges: Option<Merges<'_>> = None;
        moves
            .iter()
            .map(|&m| match m {
                Move::Remove(_) => {
                    let excess = Excess::new(&self.totals, rest.first.len(), ln_m(m), how);
                    self.excess_of(&rest, &excess)
                }
                Move::Merge(..) => {
                    let at = ln_m(m);
                    if !merges.as_ref().is_some_and(|s| s.fits(at)) {
                        merges = Some(Merges::new(self, &rest, j, at, how));
                    }
                    merges.as_ref().map_or(f64::NAN, |s| s.score(m, how))
                }
            })
            .collect()
    }

    /// The symbols after a move (`None`: the same reduction, merging equal
    /// symbols).
    pub fn after(&self, m: Option<Move>) -> Self {
        let part = self.partition(m);
        let mut codes = Vec::with_capacity(part.first.len() * self.p);
        for &s in &part.first {
            let at = codes.len();
            codes.extend_from_slice(self.row(s));
            if let Some(m) = m {
                let c = &mut codes[at + m.feature()];
                *c = m.recode(*c);
            }
        }
        let counts = self.merged_counts(&part);
        let (kind, kinds) = kinds(&counts, self.k);
        Self {
            codes,
            p: self.p,
            prints: part.first.iter().map(|&s| self.moved_print(s, m)).collect(),
            counts,
            totals: self.totals.clone(),
            kind,
            kinds,
            k: self.k,
            mask: self.mask,
        }
    }

    fn moved_print(&self, s: u32, m: Option<Move>) -> u64 {
        let print = self.prints[s as usize];
        let Some(m) = m else { return print };
        let j = m.feature();
        let c = self.code(s, j);
        print
            .wrapping_sub(term(j, c))
            .wrapping_add(term(j, m.recode(c)))
    }

    /// Whether symbols `s` and `r` are one symbol after the move.
    fn same(&self, s: u32, r: u32, m: Option<Move>) -> bool {
        let (a, b) = (self.row(s), self.row(r));
        let Some(m) = m else { return a == b };
        let j = m.feature();
        a[..j] == b[..j] && a[j + 1..] == b[j + 1..] && m.recode(a[j]) == m.recode(b[j])
    }

    /// Symbol s's codes, one per feature.
    fn row(&self, s: u32) -> &[u32] {
        let at = s as usize * self.p;
        &self.codes[at..at + self.p]
    }

    /// Symbol s's code of feature j.
    fn code(&self, s: u32, j: usize) -> u32 {
        self.codes[s as usize * self.p + j]
    }

    /// Groups the symbols by their fingerprint after the move, confirming
    /// each join by comparing codes. The table is open addressing whose
    /// slot holds a new symbol's id and its fingerprint's high half: one
    /// cache line per symbol where a map of (fingerprint, id) entries with
    /// chains took two or three (a partition per feature per BDRA step, G
    /// near the row count, was a third of BDRA's time). Symbols with equal
    /// fingerprints that differ sit further along the same probe run.
    fn partition(&self, m: Option<Move>) -> Partition {
        let g = self.len();
        let size = (2 * g).max(2).next_power_of_two();
        let mut slots = vec![EMPTY; size];
        let mut part = Partition::with_capacity(g);
        let mut keys = [0u64; BATCH];
        for from in (0..g).step_by(BATCH) {
            let batch = from..(from + BATCH).min(g);
            // The slots are cache misses that do not depend on each other:
            // read a batch's together so they overlap, then probe in order.
            let mut touched = 0;
            for (key, s) in keys.iter_mut().zip(batch.clone()) {
                *key = self.moved_print(s as u32, m) & self.mask;
                touched ^= slots[*key as usize & (size - 1)];
            }
            std::hint::black_box(touched);
            for (&key, s) in keys.iter().zip(batch) {
                let id = self.probe(&mut slots, key, s as u32, m, &part.first);
                part.assign(s as u32, id);
            }
        }
        part
    }

    /// The new symbol `s` joins, placed in `slots` when it is a fresh one
    /// (id `first.len()`).
    fn probe(&self, slots: &mut [u64], key: u64, s: u32, m: Option<Move>, first: &[u32]) -> u32 {
        let tag = key & !u64::from(u32::MAX);
        let mut at = key as usize & (slots.len() - 1);
        loop {
            let slot = slots[at];
            if slot == EMPTY {
                slots[at] = tag | first.len() as u64;
                return first.len() as u32;
            }
            let id = slot as u32;
            if slot & !u64::from(u32::MAX) == tag && self.same(s, first[id as usize], m) {
                return id;
            }
            at = (at + 1) & (slots.len() - 1);
        }
    }

    /// Eq. (8)'s excess over the new symbols of a partition, in order. A
    /// new symbol of one member has its term among the distinct ones; only
    /// the others are summed and evaluated.
    fn excess_of(&self, part: &Partition, excess: &Excess<'_>) -> f64 {
        let k = self.k;
        let (slot, merged) = self.merged_only(part);
        let kind_terms: Vec<f64> = self
            .kinds
            .iter()
            .map(|&s| excess.term(&self.counts[s as usize * k..(s as usize + 1) * k]))
            .collect();
        let terms = part.first.iter().zip(&slot).map(|(&s, &i)| {
            if i == END {
                kind_terms[self.kind[s as usize] as usize]
            } else {
                excess.term(&merged[i as usize * k..(i as usize + 1) * k])
            }
        });
        excess.of_terms(terms)
    }

    /// The counts of the new symbols of more than one member, and every new
    /// symbol's place among them (`END` for one member).
    fn merged_only(&self, part: &Partition) -> (Vec<u32>, Vec<f64>) {
        let k = self.k;
        let mut n = 0;
        let slot: Vec<u32> = part
            .size
            .iter()
            .map(|&size| {
                if size > 1 {
                    n += 1;
                    n - 1
                } else {
                    END
                }
            })
            .collect();
        let mut merged = vec![0.0; n as usize * k];
        for (s, &to) in part.of_symbol.iter().enumerate() {
            let i = slot[to as usize];
            if i != END {
                let (at, from) = (i as usize * k, s * k);
                for (a, b) in merged[at..at + k]
                    .iter_mut()
                    .zip(&self.counts[from..from + k])
                {
                    *a += b;
                }
            }
        }
        (slot, merged)
    }

    fn merged_counts(&self, part: &Partition) -> Vec<f64> {
        let k = self.k;
        let mut out = vec![0.0; part.first.len() * k];
        for (c, &to) in self.counts.chunks_exact(k).zip(&part.of_symbol) {
            let to = to as usize * k;
            for (a, b) in out[to..to + k].iter_mut().zip(c) {
                *a += b;
            }
        }
        out
    }
}

/// The distinct count vectors of K per symbol: each symbol's index among
/// them and the first symbol with each.
fn kinds(counts: &[f64], k: usize) -> (Vec<u32>, Vec<u32>) {
    let mut index: HashMap<Vec<u64>, u32> = HashMap::new();
    let mut first = Vec::new();
    let mut bits = Vec::with_capacity(k);
    let kind = counts
        .chunks_exact(k)
        .enumerate()
        .map(|(s, c)| {
            bits.clear();
            bits.extend(c.iter().map(|v| v.to_bits()));
            if let Some(&i) = index.get(bits.as_slice()) {
                return i;
            }
            first.push(s as u32);
            index.insert(bits.clone(), first.len() as u32 - 1);
            first.len() as u32 - 1
        })
        .collect();
    (kind, first)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::models::discrete::bdra::{LnCounts, excess_error};
    use crate::rng::Rng;

    /// Random codes of `n` samples over features of 1-5 levels, K = 3.
    fn random_cells(seed: u64, p: usize, n: usize) -> (Cells, Vec<usize>) {
        let mut rng = Rng::new(seed);
        let levels: Vec<usize> = (0..p).map(|_| 1 + rng.below(5)).collect();
        let codes: Vec<Vec<u32>> = (0..n)
            .map(|_| levels.iter().map(|&l| rng.below(l) as u32).collect())
            .collect();
        let given: Vec<usize> = (0..n).map(|_| rng.below(3)).collect();
        (Cells::build(&codes, &given, 3), levels)
    }

    proptest! {
        /// Along a random path of moves, the symbols kept move by move are
        /// the cells regrouped from scratch (same order, same counts), and
        /// every move's score is bit for bit the from-scratch one. Masks of
        /// 1 and 3 bits make most fingerprints collide.
        #[test]
        fn scores_on_symbols_are_those_of_regrouping_the_cells(
            seed in any::<u64>(),
            p in 1usize..6,
            n in 1usize..120,
            bits in prop::sample::select(vec![1u32, 3, 64]),
        ) {
            let (cells, levels) = random_cells(seed, p, n);
            let priors = [0.5, 0.3, 0.2];
            let mask = if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
            // A short table: large counts take the computed path.
            let ln1 = LnCounts::up_to(n / 4);
            let mut rng = Rng::new(seed ^ 1);
            let mut r = Reduction::full(&levels);
            let mut symbols = SymbolTable::of_cells_masked(&cells, &r, mask);
            loop {
                let (_, counts, _) = cells.group(&r);
                prop_assert_eq!(symbols.counts().to_vec(), counts.concat());
                let moves = r.moves();
                if moves.is_empty() {
                    break;
                }
                let scale = r.ln_m();
                let how = Scoring { priors: &priors, ln_scale: scale, ln1: &ln1 };
                for same_feature in moves.chunk_by(|a, b| a.feature() == b.feature()) {
                    let fast = symbols.score_feature(same_feature, |m| r.apply(m).ln_m(), &how);
                    for (&m, fast) in same_feature.iter().zip(fast) {
                        let next = r.apply(m);
                        let (_, counts, _) = cells.group(&next);
                        let fresh = excess_error(&counts, &priors, next.ln_m(), scale);
                        prop_assert_eq!(fast.to_bits(), fresh.to_bits(), "{:?}", m);
                    }
                }
                let m = moves[rng.below(moves.len())];
                symbols = symbols.after(Some(m));
                r = r.apply(m);
            }
        }
    }
}
