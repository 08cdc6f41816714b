//! Finding samples: the search over ids, labels, comments and the record's
//! fields (with how many samples match), the confusion pairs the filter
//! offers, and the list's order turned around.

use super::Session;
use crate::review::view::SortKey;

/// Whether `hay` holds `needle` (already lower case), ASCII letters
/// compared without case: the record's bytes are searched as they are,
/// with no copy per sample.
fn has_bytes(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty()
        || hay.windows(needle.len()).any(|w| {
            w.iter()
                .zip(needle)
                .all(|(a, b)| a.to_ascii_lowercase() == *b)
        })
}

impl Session {
    /// Whether `sample` has the search text in its id, its given or
    /// suggested label, its comment ("Rao" finds the samples left for Dr
    /// Rao) or any field of its record (a feature value as written).
    fn sample_matches(&self, sample: usize, q: &str) -> bool {
        let has = |text: &str| text.to_lowercase().contains(q);
        let ds = &self.dataset;
        has(&ds.ids[sample])
            || has(&ds.classes[ds.labels[sample]])
            || self
                .fit
                .as_ref()
                .is_some_and(|f| ds.classes.get(f.suggested[sample]).is_some_and(|c| has(c)))
            || self.comment_of(sample).is_some_and(has)
            || ds
                .record_bytes(sample)
                .is_some_and(|r| has_bytes(r, q.as_bytes()))
    }

    fn matches(&self, pos: usize) -> bool {
        let Some(q) = &self.search else { return false };
        self.sample_matches(self.view[pos], q)
    }

    /// Finds `query` (case-insensitive) from the cursor on, and counts the
    /// samples that hold it (`search_count`).
    pub fn search(&mut self, query: &str) -> bool {
        let q = query.trim().to_lowercase();
        if q.is_empty() {
            self.search = None;
            self.search_count = 0;
            return false;
        }
        self.search_count = (0..self.dataset.n_samples())
            .filter(|&i| self.sample_matches(i, &q))
            .count();
        self.search = Some(q);
        self.find_from(self.cursor, 1)
    }

    pub fn search_query(&self) -> Option<&str> {
        self.search.as_deref()
    }

    /// How many samples the last search found (in the whole table).
    pub fn search_count(&self) -> usize {
        self.search_count
    }

    /// How many of the filtered list's samples up to the cursor's match,
    /// with the cursor's: "match 3 of 17" when the cursor is on one.
    pub fn search_rank(&self) -> Option<(usize, usize)> {
        self.search.as_ref()?;
        if self.view.is_empty() || !self.matches(self.cursor) {
            return None;
        }
        let upto = (0..=self.cursor).filter(|&p| self.matches(p)).count();
        let shown = upto
            + (self.cursor + 1..self.view.len())
                .filter(|&p| self.matches(p))
                .count();
        Some((upto, shown))
    }

    fn find_from(&mut self, start: usize, step: isize) -> bool {
        let n = self.view.len();
        if n == 0 {
            return false;
        }
        for k in 0..n {
            let pos = (start as isize + step * k as isize).rem_euclid(n as isize) as usize;
            if self.matches(pos) {
                self.cursor = pos;
                self.release_pin();
                return true;
            }
        }
        false
    }

    /// The next match after the cursor, wrapping around.
    pub fn search_next(&mut self) -> bool {
        self.find_from(self.cursor + 1, 1)
    }

    /// The previous match before the cursor, wrapping around.
    pub fn search_prev(&mut self) -> bool {
        let n = self.view.len().max(1);
        self.find_from((self.cursor + n - 1) % n, -1)
    }

    /// Every (given, suggested) pair of different labels the fit suggests,
    /// with how many samples have it, most first (Cleanlab's confusion
    /// pairs): what the filter offers as "given A -> suggested B".
    pub fn confusion_pairs(&self) -> Vec<((usize, usize), usize)> {
        let Some(f) = &self.fit else {
            return Vec::new();
        };
        let k = self.dataset.classes.len();
        let mut counts = vec![0usize; k * k];
        for (&given, &suggested) in self.dataset.labels.iter().zip(&f.suggested) {
            if given != suggested && given < k && suggested < k {
                counts[given * k + suggested] += 1;
            }
        }
        let mut pairs: Vec<((usize, usize), usize)> = counts
            .into_iter()
            .enumerate()
            .filter(|(_, n)| *n > 0)
            .map(|(j, n)| ((j / k, j % k), n))
            .collect();
        pairs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        pairs
    }

    /// The same order turned around (most suspect last, ids Z to A).
    pub fn reverse_sort(&mut self) {
        self.set_sort(self.sort.clone(), !self.descending);
    }

    /// The name of the list's order as the screen heads it: the `gamma`
    /// column holds shifts for a model of shifts, and says so.
    pub fn sort_name(&self) -> String {
        match (&self.sort, &self.fit) {
            (SortKey::Gamma, Some(f)) if f.shifts.is_some() => "shift".into(),
            (key, _) => key.name(),
        }
    }
}
