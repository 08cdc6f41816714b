//! Scoring the merges of two levels of one feature without regrouping.
//!
//! Current symbols are distinct, so within a group of the feature's removal
//! (symbols that agree on every other feature) each level occurs at most
//! once, and merging levels a and b joins exactly the groups' (a, b) pairs:
//! every other symbol stays as it is. A merge's eq. (8) is then the current
//! symbols' terms in order, with each pair's first member taking the pair's
//! term and its second dropped. Building and hashing a partition of all G
//! symbols per merge (six per four-level feature per step, G near the row
//! count while M dwarfs the data) was most of BDRA's time; this reads a
//! term per symbol. The terms and their order of summation are those of
//! [`SymbolTable::excess_of`] on the refined partition, so the scores are
//! bit for bit the same.

use super::{END, Partition, SymbolTable};
use crate::models::discrete::bdra::{Excess, Move, Scoring};

/// What the merges of feature j share: the removal's groups of more than
/// one symbol by level, and every symbol's term alone (all merges of a
/// feature leave the same M, so the same denominators).
pub(super) struct Merges<'t> {
    table: &'t SymbolTable,
    levels: usize,
    /// `members[q * levels + c]`: the symbol of level c in the q-th group
    /// of more than one symbol, `END` where none.
    members: Vec<u32>,
    ln_m: f64,
    alone: Vec<f64>,
}

impl<'t> Merges<'t> {
    pub(super) fn new(
        table: &'t SymbolTable,
        rest: &Partition,
        j: usize,
        ln_m: f64,
        how: &Scoring<'_>,
    ) -> Self {
        let col: Vec<u32> = (0..table.len() as u32).map(|s| table.code(s, j)).collect();
        let levels = col.iter().max().map_or(1, |&c| c as usize + 1);
        let mut slot = vec![END; rest.first.len()];
        let mut members = Vec::new();
        for (s, &r) in rest.of_symbol.iter().enumerate() {
            if rest.size[r as usize] < 2 {
                continue;
            }
            if slot[r as usize] == END {
                slot[r as usize] = (members.len() / levels) as u32;
                members.resize(members.len() + levels, END);
            }
            members[slot[r as usize] as usize * levels + col[s] as usize] = s as u32;
        }
        let excess = Excess::new(&table.totals, table.len(), ln_m, how);
        let k = table.k;
        let kind_terms: Vec<f64> = table
            .kinds
            .iter()
            .map(|&s| excess.term(&table.counts[s as usize * k..(s as usize + 1) * k]))
            .collect();
        let alone = table.kind.iter().map(|&i| kind_terms[i as usize]).collect();
        Self {
            table,
            levels,
            members,
            ln_m,
            alone,
        }
    }

    /// Whether these are the terms of a move that leaves `ln_m`.
    pub(super) fn fits(&self, ln_m: f64) -> bool {
        self.ln_m.to_bits() == ln_m.to_bits()
    }

    /// The symbols merge `m` joins, each pair (first, second) in order of
    /// appearance, and the second members, sorted.
    fn pairs(&self, m: Move) -> (Vec<(u32, u32)>, Vec<u32>) {
        let Move::Merge(_, a, b) = m else {
            return (Vec::new(), Vec::new());
        };
        let (a, b) = (a as usize, b as usize);
        let mut pairs: Vec<(u32, u32)> = self
            .members
            .chunks_exact(self.levels)
            .filter(|g| b < self.levels && g[a] != END && g[b] != END)
            .map(|g| (g[a].min(g[b]), g[a].max(g[b])))
            .collect();
        pairs.sort_unstable();
        let mut seconds: Vec<u32> = pairs.iter().map(|p| p.1).collect();
        seconds.sort_unstable();
        (pairs, seconds)
    }

    /// Eq. (8)'s excess after merge `m` of this feature.
    pub(super) fn score(&self, m: Move, how: &Scoring<'_>) -> f64 {
        let (pairs, seconds) = self.pairs(m);
        let t = self.table;
        let k = t.k;
        let excess = Excess::new(&t.totals, t.len() - pairs.len(), self.ln_m, how);
        let mut joined = vec![0.0; k];
        let (mut p, mut q) = (0, 0);
        let mut seen = 0.0;
        let mut from = 0;
        // The next symbol whose term is not its own: a pair's first member
        // or second, whichever comes first.
        while p < pairs.len() || q < seconds.len() {
            let first = pairs.get(p).map_or(END, |x| x.0);
            let second = seconds.get(q).copied().unwrap_or(END);
            let at = first.min(second) as usize;
            for v in &self.alone[from..at] {
                seen += v;
            }
            if first < second {
                let (s, r) = (pairs[p].0 as usize, pairs[p].1 as usize);
                joined.iter_mut().for_each(|v| *v = 0.0);
                for s in [s, r] {
                    for (v, c) in joined.iter_mut().zip(&t.counts[s * k..(s + 1) * k]) {
                        *v += c;
                    }
                }
                seen += excess.term(&joined);
                p += 1;
            } else {
                q += 1;
            }
            from = at + 1;
        }
        for v in &self.alone[from..] {
            seen += v;
        }
        excess.of_sum(seen)
    }
}
