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
//! so a collision costs time, never a wrong merge.
//!
//! The arithmetic is that of regrouping the cells: symbols stay in order of
//! first appearance among the cells (a union's first cell is its first
//! member's), counts are integers (so their sums are exact in any order),
//! and eq. (8) then adds the same terms in the same order. BDRA makes the
//! same choices, ties included, as [`Cells::group`] for every move.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::{BuildHasherDefault, Hasher};

use super::{Cells, LnCounts, Move, Reduction, excess_flat};

/// The end of a chain of symbols with equal fingerprints.
const END: u32 = u32::MAX;

/// Fingerprints are already uniform, so the map uses them as its hash.
#[derive(Default)]
struct PrintHasher(u64);

impl Hasher for PrintHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

type PrintMap = HashMap<u64, u32, BuildHasherDefault<PrintHasher>>;

/// The fingerprint term of code `c` of feature `j` (splitmix64's mixer).
fn term(j: usize, c: u32) -> u64 {
    let mut z = ((j as u64) << 32 | u64::from(c)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The observed symbols of one reduction with their counts per class.
#[derive(Clone, Debug)]
pub struct SymbolTable {
    /// `codes[j][s]`: symbol s's merged level of feature j, 0 when j is
    /// removed. By column, as a move reads one feature of every symbol.
    codes: Vec<Vec<u32>>,
    prints: Vec<u64>,
    /// K per symbol.
    counts: Vec<f64>,
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
}

impl SymbolTable {
    /// The symbols of `r`, in order of first appearance among the cells.
    pub fn of_cells(cells: &Cells, r: &Reduction) -> Self {
        Self::of_cells_masked(cells, r, u64::MAX)
    }

    pub(super) fn of_cells_masked(cells: &Cells, r: &Reduction, mask: u64) -> Self {
        let codes: Vec<Vec<u32>> = r
            .maps
            .iter()
            .enumerate()
            .map(|(j, map)| match map {
                Some(map) => cells.codes.iter().map(|c| map[c[j] as usize]).collect(),
                None => vec![0; cells.codes.len()],
            })
            .collect();
        let prints = (0..cells.codes.len())
            .map(|s| {
                codes
                    .iter()
                    .enumerate()
                    .map(|(j, col)| term(j, col[s]))
                    .fold(0, u64::wrapping_add)
            })
            .collect();
        let each_cell = Self {
            codes,
            prints,
            counts: cells.counts.concat(),
            k: cells.counts.first().map_or(1, Vec::len),
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

    /// [`super::excess_error`] of the symbols a move would leave, `ln_m`
    /// being that of the reduction after it.
    pub fn score(&self, m: Move, priors: &[f64], ln_m: f64, ln_scale: f64, ln1: &LnCounts) -> f64 {
        let part = self.partition(Some(m));
        excess_flat(&self.merged_counts(&part), priors, ln_m, ln_scale, ln1)
    }

    /// The symbols after a move (`None`: the same reduction, merging equal
    /// symbols).
    pub fn after(&self, m: Option<Move>) -> Self {
        let part = self.partition(m);
        let codes = self
            .codes
            .iter()
            .enumerate()
            .map(|(j, col)| {
                part.first
                    .iter()
                    .map(|&s| moved_code(m, j, col[s as usize]))
                    .collect()
            })
            .collect();
        Self {
            codes,
            prints: part.first.iter().map(|&s| self.moved_print(s, m)).collect(),
            counts: self.merged_counts(&part),
            k: self.k,
            mask: self.mask,
        }
    }

    fn moved_print(&self, s: u32, m: Option<Move>) -> u64 {
        let print = self.prints[s as usize];
        let Some(m) = m else { return print };
        let j = m.feature();
        let c = self.codes[j][s as usize];
        print
            .wrapping_sub(term(j, c))
            .wrapping_add(term(j, m.recode(c)))
    }

    /// Whether symbols `s` and `r` are one symbol after the move.
    fn same(&self, s: u32, r: u32, m: Option<Move>) -> bool {
        self.codes
            .iter()
            .enumerate()
            .all(|(j, col)| moved_code(m, j, col[s as usize]) == moved_code(m, j, col[r as usize]))
    }

    fn partition(&self, m: Option<Move>) -> Partition {
        let g = self.len();
        let mut heads = PrintMap::with_capacity_and_hasher(g, Default::default());
        // Per new symbol, the next one whose fingerprint is equal.
        let mut next: Vec<u32> = Vec::new();
        let mut part = Partition {
            of_symbol: Vec::with_capacity(g),
            first: Vec::new(),
        };
        for s in 0..g as u32 {
            let fresh = part.first.len() as u32;
            let id = match heads.entry(self.moved_print(s, m) & self.mask) {
                Entry::Vacant(e) => {
                    e.insert(fresh);
                    fresh
                }
                Entry::Occupied(e) => self.find_in_chain(*e.get(), s, m, &part.first, &mut next),
            };
            if id == fresh {
                part.first.push(s);
                next.push(END);
            }
            part.of_symbol.push(id);
        }
        part
    }

    /// The new symbol in the chain from `head` that `s` joins, or the next
    /// fresh id (linked at the chain's end) when none matches.
    fn find_in_chain(
        &self,
        head: u32,
        s: u32,
        m: Option<Move>,
        first: &[u32],
        next: &mut [u32],
    ) -> u32 {
        let mut h = head;
        loop {
            if self.same(s, first[h as usize], m) {
                return h;
            }
            if next[h as usize] == END {
                next[h as usize] = first.len() as u32;
                return first.len() as u32;
            }
            h = next[h as usize];
        }
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

fn moved_code(m: Option<Move>, j: usize, c: u32) -> u32 {
    match m {
        Some(m) if m.feature() == j => m.recode(c),
        _ => c,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::models::discrete::bdra::excess_error;
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
                for &m in &moves {
                    let next = r.apply(m);
                    let (_, counts, _) = cells.group(&next);
                    let fresh = excess_error(&counts, &priors, next.ln_m(), scale);
                    let fast = symbols.score(m, &priors, next.ln_m(), scale, &ln1);
                    prop_assert_eq!(fast.to_bits(), fresh.to_bits(), "{:?}", m);
                }
                let m = moves[rng.below(moves.len())];
                symbols = symbols.after(Some(m));
                r = r.apply(m);
            }
        }
    }
}
