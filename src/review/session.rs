//! The review session: decisions with undo/redo, the list the curator sees,
//! and the journal behind both. No terminal types: the TUI is a view over
//! this, and every key it handles ends in one of these methods.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::Path;

use nalgebra::DMatrix;

use super::ReviewError;
use super::decision::Decision;
use super::input_check::InputWatch;
use super::journal::{
    Change, Entry, Journal, Opened, Recorded, Recovery, SESSION_FORMAT_VERSION, Seen, record_key,
    session_key,
};
use super::time::now;
use super::view::{self, Filter, SortKey, ViewInputs};
use crate::dataset::Dataset;
use crate::models::{Fit, Guide, ModelOptions, SampleColumn};

mod browse;
mod class_keys;
mod comments;
mod pin;
pub use comments::{Comment, tidy};
pub use pin::Reranked;

/// Whether opening found an earlier session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResumeInfo {
    New,
    Resumed {
        decisions: usize,
    },
    /// The same path held different content before: a new session.
    InputChanged,
    /// Opened fresh on request; the earlier session, if any, was moved to
    /// this file (in the store's `forgotten/`).
    Fresh {
        set_aside: Option<std::path::PathBuf>,
    },
}

/// What accepting the model's suggestion did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepted {
    /// Relabelled to the suggestion.
    Relabelled,
    /// The model agrees with the given label: kept.
    Kept,
    /// No fit, or no score for the sample: nothing changed.
    Unscored,
}

/// Figures for the status bar.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counts {
    pub total: usize,
    pub shown: usize,
    /// Samples with p_mislabel at or above the threshold.
    pub flagged: usize,
    pub decided: usize,
    pub relabelled: usize,
    pub kept: usize,
    pub dropped: usize,
    /// Sum of p_mislabel over undecided samples: how many wrong labels the
    /// model expects among those not yet reviewed.
    pub expected_wrong: f64,
}

/// One undo step: every sample it changed, before and after, when it was
/// made, and when each sample's decision before it had been made (an undo
/// puts that time back with the decision).
#[derive(Clone, Debug, PartialEq)]
struct Step {
    changes: Vec<(usize, Option<Decision>, Option<Decision>)>,
    time: String,
    was_decided_at: Vec<Option<String>>,
}

#[derive(Debug)]
pub struct Session {
    dataset: Dataset,
    decisions: Vec<Option<Decision>>,
    /// When each sample's current decision was made (for the audit file).
    decided_at: Vec<Option<String>>,
    /// What the model said of each sample before it was first decided (for
    /// the audit file): a refit with the decisions pins a decided sample's
    /// posterior at its decision, so the fit at export no longer says what
    /// the curator was shown.
    seen: Vec<Option<Seen>>,
    undo: Vec<Step>,
    redo: Vec<Step>,
    fit: Option<Fit>,
    rank: Option<Vec<usize>>,
    model_name: Option<String>,
    model_choice: Option<(String, ModelOptions)>,
    filter: Filter,
    sort: SortKey,
    descending: bool,
    threshold: f64,
    /// The curator set `threshold` (now or in the journal); until then it
    /// is the fit's own cutoff ([`Fit::flag_cutoff`]).
    threshold_set: bool,
    view: Vec<usize>,
    cursor: usize,
    search: Option<String>,
    /// How many samples the search text is found in (all of them, not
    /// only the filtered list's), counted once per search.
    search_count: usize,
    journal: Option<Journal>,
    /// Whether the input file still holds the loaded bytes.
    input: InputWatch,
    /// What reading the journal found (damaged lines skipped, a backup).
    recovery: Recovery,
    /// The decisions as the last export wrote them (`None`: nothing was
    /// exported, so any decision is unexported).
    exported: Option<Vec<Option<Decision>>>,
    /// How many samples' decisions differ from `exported`, kept as each
    /// decision is set: an undo back to what was exported (or to no
    /// decision at all) leaves nothing to export.
    unexported: usize,
    /// The curator's comments, by sample (few: typed by hand).
    comments: BTreeMap<usize, Comment>,
    /// The comments as the last export wrote them.
    exported_comments: BTreeMap<usize, String>,
    next_group: u64,
    /// Counts changes to the decisions (a refit is due when it moved).
    version: u64,
    /// Samples whose rank the last refit moved by much (see `set_fit`).
    moved: Vec<usize>,
    /// The selected sample kept in place through a refit (see `pin`).
    pin: Option<pin::Pin>,
    /// The next fit taken in is a refit that keeps the selected sample.
    pin_next: bool,
    /// What the last refit changed.
    reranked: Option<Reranked>,
    /// Counts every fit taken in, so what is derived from one is kept.
    fit_generation: u64,
    /// The status bar's counts, drawn every frame and O(n) to count: kept
    /// until the decisions, the fit, the threshold or the view change.
    counts_cache: Cell<Option<(CountsKey, Counts)>>,
    /// The p_mislabel histogram of the current fit (its generation).
    histogram_cache: Cell<Option<(u64, [u64; 10])>>,
}

/// What the counts depend on besides the decisions' version.
type CountsKey = (u64, u64, u64, usize);

/// A move in the ranking the curator would not see without scrolling: a
/// screenful of rows, or a twentieth of the list when that is more.
fn big_move(n: usize) -> usize {
    (n / 20).max(20)
}

impl Session {
    /// Opens a session, resuming the journal of the same input in `store`.
    pub fn open(dataset: Dataset, store: Option<&Path>) -> Result<(Self, ResumeInfo), ReviewError> {
        let n = dataset.n_samples();
        let mut s = Session {
            decisions: vec![None; n],
            decided_at: vec![None; n],
            seen: vec![None; n],
            undo: Vec::new(),
            redo: Vec::new(),
            fit: None,
            rank: None,
            model_name: None,
            model_choice: None,
            filter: Filter::default(),
            sort: SortKey::PMislabel,
            descending: true,
            threshold: crate::app::auto::counts::MAJORITY,
            threshold_set: false,
            view: Vec::new(),
            cursor: 0,
            search: None,
            search_count: 0,
            journal: None,
            input: InputWatch::new(&dataset),
            recovery: Recovery::default(),
            exported: None,
            unexported: 0,
            comments: BTreeMap::new(),
            exported_comments: BTreeMap::new(),
            next_group: 1,
            version: 0,
            moved: Vec::new(),
            pin: None,
            pin_next: false,
            reranked: None,
            fit_generation: 0,
            counts_cache: Cell::new(None),
            histogram_cache: Cell::new(None),
            dataset,
        };
        let info = match store {
            Some(store) => s.open_journal(store)?,
            None => ResumeInfo::New,
        };
        s.refresh_view();
        Ok((s, info))
    }

    /// Opens a session with no decisions: the earlier session of the same
    /// input, if any, is set aside (moved, never deleted) first.
    pub fn open_fresh(
        dataset: Dataset,
        store: Option<&Path>,
    ) -> Result<(Self, ResumeInfo), ReviewError> {
        let set_aside = match store {
            Some(store) => super::sessions::set_aside(store, &session_key(&dataset))?,
            None => None,
        };
        let (s, _) = Session::open(dataset, store)?;
        Ok((s, ResumeInfo::Fresh { set_aside }))
    }

    /// Finds the journal of this input in `store`, replays it, and begins
    /// it (a header) when it holds no entry and this session may write.
    fn open_journal(&mut self, store: &Path) -> Result<ResumeInfo, ReviewError> {
        // Temporary files a killed write of the index or a backup left.
        crate::atomic_write::remove_stale_temps(store, crate::atomic_write::STALE_AFTER);
        let key = session_key(&self.dataset);
        let input = self.dataset.raw.path.clone();
        let previous = if input.exists() {
            record_key(store, &input, &key)?
        } else {
            None
        };
        let Opened {
            mut journal,
            entries,
            recovery,
        } = Journal::open(store, &key)?;
        self.recovery = recovery;
        let mut info = ResumeInfo::New;
        if entries.is_empty() {
            if journal.read_only_holder().is_none() {
                journal.append(&Entry::Header {
                    version: SESSION_FORMAT_VERSION,
                    file: input.display().to_string(),
                    key: key.clone(),
                    samples: self.dataset.n_samples(),
                    created: now(),
                })?;
            }
            if previous.is_some_and(|p| p != key) {
                info = ResumeInfo::InputChanged;
            }
        } else {
            self.replay(&entries);
            info = ResumeInfo::Resumed {
                decisions: self.decisions.iter().filter(|d| d.is_some()).count(),
            };
        }
        self.journal = Some(journal);
        Ok(info)
    }

    /// What the curator should be told about the journal on opening: lines
    /// skipped and where the copy went, that another relabel holds the
    /// session (this one is read-only), that no lock could be taken.
    pub fn journal_notices(&self) -> Vec<String> {
        let Some(j) = &self.journal else {
            return Vec::new();
        };
        // What the curator can do here comes first: a read-only screen.
        let mut notes: Vec<String> = j
            .read_only_holder()
            .map(|holder| format!(
                "read-only: {holder} has this session open for writing; decisions are refused here and an export is not recorded in the journal"
            ))
            .into_iter()
            .collect();
        notes.extend(self.recovery.describe(j.path()));
        notes.extend(j.lock_warning().map(str::to_string));
        notes
    }

    /// What reading the journal found.
    pub fn journal_recovery(&self) -> &Recovery {
        &self.recovery
    }

    /// Who holds the session, when this one is read-only.
    pub fn read_only_holder(&self) -> Option<&str> {
        self.journal.as_ref().and_then(Journal::read_only_holder)
    }

    fn replay(&mut self, entries: &[Entry]) {
        let by_row: std::collections::HashMap<usize, usize> = self
            .dataset
            .rows
            .iter()
            .enumerate()
            .map(|(s, r)| (*r, s))
            .collect();
        for e in entries {
            match e {
                Entry::Step {
                    group,
                    time,
                    changes,
                } => {
                    let mut decoded = Vec::with_capacity(changes.len());
                    for c in changes {
                        let Some(&s) = by_row.get(&c.row) else {
                            continue;
                        };
                        self.note_seen(s, c.seen.clone());
                        decoded.push((s, self.decode(&c.before), self.decode(&c.after)));
                    }
                    let step = self.step(decoded, time.clone());
                    self.redo_step(&step);
                    self.undo.push(step);
                    self.redo.clear();
                    self.next_group = self.next_group.max(group.saturating_add(1));
                }
                Entry::Undo { .. } => {
                    if let Some(step) = self.undo.pop() {
                        self.undo_step(&step);
                        self.redo.push(step);
                    }
                }
                Entry::Redo { .. } => {
                    if let Some(step) = self.redo.pop() {
                        self.redo_step(&step);
                        self.undo.push(step);
                    }
                }
                Entry::Model { name, options, .. } => {
                    self.model_choice = Some((name.clone(), (**options).clone()));
                }
                Entry::Export { .. } => self.exported_now(),
                Entry::Threshold { value, .. } if value.is_finite() => {
                    self.threshold = value.clamp(0.0, 1.0);
                    self.threshold_set = true;
                }
                Entry::Threshold { .. } => {}
                Entry::Comment {
                    row, text, time, ..
                } => {
                    if let Some(&s) = by_row.get(row) {
                        self.set_comment(s, comments::tidy(text), time.clone());
                    }
                }
                Entry::Header { .. } => {}
            }
        }
    }

    /// Records the decisions as an export wrote them: nothing unexported.
    fn exported_now(&mut self) {
        self.exported = Some(self.decisions.clone());
        self.unexported = 0;
        self.comments_exported();
    }

    /// Sets `sample`'s decision, keeping count of the samples that differ
    /// from the last export.
    fn set_decision(&mut self, sample: usize, d: Option<Decision>) {
        let written = self.exported.as_ref().and_then(|e| e[sample]);
        let was = self.decisions[sample] != written;
        let is = d != written;
        self.unexported = self.unexported + usize::from(is) - usize::from(was);
        self.decisions[sample] = d;
    }

    fn encode(&self, d: &Option<Decision>) -> Option<Recorded> {
        d.map(|d| match d {
            Decision::Relabel(c) => Recorded::Relabel(self.dataset.classes[c].clone()),
            Decision::Keep => Recorded::Keep,
            Decision::Drop => Recorded::Drop,
        })
    }

    fn decode(&self, r: &Option<Recorded>) -> Option<Decision> {
        match r.as_ref()? {
            Recorded::Relabel(name) => self.dataset.class_index(name).map(Decision::Relabel),
            Recorded::Keep => Some(Decision::Keep),
            Recorded::Drop => Some(Decision::Drop),
        }
    }

    /// Appends to the journal, once the input is known to hold the bytes
    /// the journal is keyed on (or the curator chose to go on with them).
    fn write(&mut self, entry: Entry) -> Result<(), ReviewError> {
        let Some(j) = self.journal.as_mut() else {
            return Ok(());
        };
        if !self.input.keeps_loaded() && self.input.changed(&self.dataset) {
            return Err(ReviewError::InputChanged(self.dataset.raw.path.clone()));
        }
        j.append(&entry)
    }

    /// Whether the input file on disk no longer holds the loaded bytes.
    pub fn input_changed(&self) -> bool {
        self.input.changed(&self.dataset)
    }

    /// Goes on with the loaded version of a changed input: decisions are
    /// journalled again, and an export is written under a name of its own.
    pub fn keep_loaded_version(&mut self) {
        self.input.keep_loaded();
    }

    /// Whether the curator chose to go on with the loaded version.
    pub fn keeps_loaded_version(&self) -> bool {
        self.input.keeps_loaded()
    }

    /// Journals what is not a decision (the model chosen, an export): a
    /// read-only session keeps it in memory only, since refusing it would
    /// stop a read-only screen from fitting or exporting.
    fn note(&mut self, entry: Entry) -> Result<(), ReviewError> {
        if self.read_only_holder().is_some() {
            return Ok(());
        }
        self.write(entry)
    }

    pub fn dataset(&self) -> &Dataset {
        &self.dataset
    }

    pub fn journal_path(&self) -> Option<&Path> {
        self.journal.as_ref().map(Journal::path)
    }

    // ----- model -----

    pub fn model_choice(&self) -> Option<(String, ModelOptions)> {
        self.model_choice.clone()
    }

    pub fn set_model_choice(
        &mut self,
        name: &str,
        options: &ModelOptions,
    ) -> Result<(), ReviewError> {
        self.note(Entry::Model {
            name: name.to_string(),
            options: Box::new(options.clone()),
            time: now(),
        })?;
        self.model_choice = Some((name.to_string(), options.clone()));
        Ok(())
    }

    /// Shows a model's scores for every sample.
    pub fn set_fit(&mut self, model: &str, fit: Fit) {
        let rank = view::rank_positions(&fit);
        self.moved = match &self.rank {
            Some(old) if old.len() == rank.len() => {
                let far = big_move(rank.len());
                (0..rank.len())
                    .filter(|&i| self.decisions[i].is_none() && old[i].abs_diff(rank[i]) >= far)
                    .collect()
            }
            _ => Vec::new(),
        };
        self.rank = Some(rank);
        let refit = self.pin_next;
        let was = self.threshold;
        if !self.threshold_set {
            self.threshold = fit.flag_cutoff();
        }
        let old = self.fit.replace(fit);
        self.reranked = match (&old, &self.fit) {
            (Some(old), Some(new)) if refit => Some(Reranked::of(
                old,
                new,
                |i| self.decisions[i].is_none(),
                (was, self.threshold),
            )),
            _ => None,
        };
        self.pin_to(old);
        self.fit_generation = self.fit_generation.wrapping_add(1);
        self.model_name = Some(model.to_string());
        // A column the new model does not report would sort nothing while
        // the title still claimed it.
        if !self.sort_keys().contains(&self.sort) {
            self.sort = SortKey::PMislabel;
            self.descending = true;
        }
        self.refresh_view();
    }

    /// Shows scores fitted on a subset of the samples (a refit without the
    /// dropped ones): the others get no score (NaN) and sort last.
    pub fn set_fit_subset(&mut self, model: &str, fit: Fit, samples: &[usize]) {
        let n = self.dataset.n_samples();
        let k = self.dataset.classes.len();
        let mut posterior = DMatrix::from_element(n, k, f64::NAN);
        let mut p_mislabel = vec![f64::NAN; n];
        let mut suggested = self.dataset.labels.clone();
        for (j, &s) in samples.iter().enumerate() {
            posterior.row_mut(s).copy_from(&fit.posterior.row(j));
            p_mislabel[s] = fit.p_mislabel[j];
            suggested[s] = fit.suggested[j];
        }
        let mut full = fit;
        full.posterior = posterior;
        full.p_mislabel = p_mislabel;
        full.suggested = suggested;
        full.shifts = full.shifts.map(|sh| {
            let mut m = DMatrix::from_element(n, sh.ncols(), f64::NAN);
            for (j, &s) in samples.iter().enumerate() {
                m.row_mut(s).copy_from(&sh.row(j));
            }
            m
        });
        for col in &mut full.extra.sample_columns {
            let mut v = vec![f64::NAN; n];
            for (j, &s) in samples.iter().enumerate() {
                v[s] = col.values[j];
            }
            col.values = v;
        }
        full.suspicion_rank = full.suspicion_rank.map(|r| {
            let mut v = vec![usize::MAX; n];
            for (j, &s) in samples.iter().enumerate() {
                v[s] = r[j];
            }
            v
        });
        self.set_fit(model, full);
    }

    pub fn fit(&self) -> Option<&Fit> {
        self.fit.as_ref()
    }

    pub fn model_name(&self) -> Option<&str> {
        self.model_name.as_deref()
    }

    /// Undecided samples whose rank the last fit moved by much (a
    /// screenful or a twentieth of the list): the screen marks them.
    pub fn moved(&self) -> &[usize] {
        &self.moved
    }

    /// Changes with every decision, undo and redo.
    pub fn decisions_version(&self) -> u64 {
        self.version
    }

    /// What a learning refit needs: the samples not dropped, their *given*
    /// labels, and the guide: each decided sample's true class (its given
    /// label when kept, the new one when relabelled) and the current
    /// posterior to start from.
    pub fn refit_inputs(&self) -> (Vec<usize>, Vec<usize>, Guide) {
        let mut samples = Vec::new();
        let mut labels = Vec::new();
        let mut trusted = Vec::new();
        for (i, d) in self.decisions.iter().enumerate() {
            let truth = match d {
                Some(Decision::Drop) => continue,
                Some(Decision::Relabel(c)) => Some(*c),
                Some(Decision::Keep) => Some(self.dataset.labels[i]),
                None => None,
            };
            samples.push(i);
            labels.push(self.dataset.labels[i]);
            trusted.push(truth);
        }
        let warm = self.fit.as_ref().and_then(|f| {
            let rows = f.posterior.select_rows(samples.iter());
            rows.iter().all(|v| v.is_finite()).then_some(rows)
        });
        (samples, labels, Guide { trusted, warm })
    }

    /// Training data for a refit: the samples not dropped, with relabels
    /// applied.
    pub fn refit_labels(&self) -> (Vec<usize>, Vec<usize>) {
        let mut samples = Vec::new();
        let mut labels = Vec::new();
        for (i, d) in self.decisions.iter().enumerate() {
            match d {
                Some(Decision::Drop) => {}
                Some(Decision::Relabel(c)) => {
                    samples.push(i);
                    labels.push(*c);
                }
                _ => {
                    samples.push(i);
                    labels.push(self.dataset.labels[i]);
                }
            }
        }
        (samples, labels)
    }

    // ----- decisions -----

    pub fn decision(&self, sample: usize) -> Option<Decision> {
        self.decisions.get(sample).copied().flatten()
    }

    /// Refuses a decision (even one that would change nothing) in a
    /// read-only session, so its screen never says "accepted" for it.
    fn writable(&self) -> Result<(), ReviewError> {
        match self.read_only_holder() {
            Some(holder) => Err(ReviewError::ReadOnly {
                holder: holder.to_string(),
            }),
            None => Ok(()),
        }
    }

    /// Records one undo step: journal first, then memory.
    fn apply(&mut self, changes: Vec<(usize, Option<Decision>)>) -> Result<(), ReviewError> {
        self.writable()?;
        let changes: Vec<(usize, Option<Decision>, Option<Decision>)> = changes
            .into_iter()
            .map(|(s, after)| (s, self.decisions[s], after))
            .filter(|(_, before, after)| before != after)
            .collect();
        if changes.is_empty() {
            return Ok(());
        }
        let time = now();
        let group = self.next_group;
        let seen: Vec<Option<Seen>> = changes
            .iter()
            .map(|(s, _, after)| after.and(self.seen_now(*s)))
            .collect();
        let recorded = changes
            .iter()
            .zip(&seen)
            .map(|((s, before, after), seen)| Change {
                row: self.dataset.rows[*s],
                id: self.dataset.ids[*s].clone(),
                before: self.encode(before),
                after: self.encode(after),
                seen: seen.clone(),
            })
            .collect();
        self.write(Entry::Step {
            group,
            time: time.clone(),
            changes: recorded,
        })?;
        // A journal may carry any number here (it is data): saturate.
        self.next_group = self.next_group.saturating_add(1);
        for ((s, ..), seen) in changes.iter().zip(seen) {
            self.note_seen(*s, seen);
        }
        let step = self.step(changes, time);
        self.redo_step(&step);
        self.undo.push(step);
        self.redo.clear();
        self.refresh_after_decisions();
        Ok(())
    }

    /// A step of `changes` made at `time`, with the times of the decisions
    /// it replaces.
    fn step(
        &self,
        changes: Vec<(usize, Option<Decision>, Option<Decision>)>,
        time: String,
    ) -> Step {
        let was_decided_at = changes
            .iter()
            .map(|(s, ..)| self.decided_at[*s].clone())
            .collect();
        Step {
            changes,
            time,
            was_decided_at,
        }
    }

    /// Makes `step`'s decisions, at its time.
    fn redo_step(&mut self, step: &Step) {
        for (s, _, after) in &step.changes {
            self.set_decision(*s, *after);
            self.decided_at[*s] = after.map(|_| step.time.clone());
        }
    }

    /// Puts back the decisions `step` replaced, with their times.
    fn undo_step(&mut self, step: &Step) {
        for ((s, before, _), was) in step.changes.iter().zip(&step.was_decided_at) {
            self.set_decision(*s, *before);
            self.decided_at[*s] = was.clone();
        }
    }

    /// What the audit keeps for `sample` if it is decided now: what it
    /// already keeps (the first decision's view, whatever came after), or
    /// the current fit's p_mislabel and model. `None` without a score.
    fn seen_now(&self, sample: usize) -> Option<Seen> {
        if let Some(seen) = &self.seen[sample] {
            return Some(seen.clone());
        }
        let p = self.fit_of(sample)?.p_mislabel.get(sample).copied()?;
        Some(Seen {
            p_mislabel: p,
            model: self.model_of(sample)?.to_string(),
        })
        .filter(|s| s.p_mislabel.is_finite())
    }

    /// Keeps `seen` for `sample` unless it already has one: only the view
    /// before the first decision is the model's own.
    fn note_seen(&mut self, sample: usize, seen: Option<Seen>) {
        if self.seen[sample].is_none() {
            self.seen[sample] = seen;
        }
    }

    /// What the model said of `sample` before it was first decided, if
    /// that was recorded.
    pub(crate) fn seen(&self, sample: usize) -> Option<&Seen> {
        self.seen.get(sample)?.as_ref()
    }

    fn check(&self, sample: usize) -> Result<(), ReviewError> {
        if sample < self.decisions.len() {
            Ok(())
        } else {
            Err(ReviewError::NoSuchSample(sample))
        }
    }

    pub fn relabel(&mut self, sample: usize, class: usize) -> Result<(), ReviewError> {
        self.check(sample)?;
        if class >= self.dataset.classes.len() {
            return Err(ReviewError::NoSuchClass(class));
        }
        // Relabelling to the given label is the same as keeping it.
        let d = if class == self.dataset.labels[sample] {
            Decision::Keep
        } else {
            Decision::Relabel(class)
        };
        self.apply(vec![(sample, Some(d))])
    }

    /// Marks the given label as right; pressing it again clears the mark.
    pub fn keep(&mut self, sample: usize) -> Result<(), ReviewError> {
        self.check(sample)?;
        let next = (self.decisions[sample] != Some(Decision::Keep)).then_some(Decision::Keep);
        self.apply(vec![(sample, next)])
    }

    /// Marks the sample to leave out; pressing it again clears the mark.
    pub fn drop_sample(&mut self, sample: usize) -> Result<(), ReviewError> {
        self.check(sample)?;
        let next = (self.decisions[sample] != Some(Decision::Drop)).then_some(Decision::Drop);
        self.apply(vec![(sample, next)])
    }

    pub fn clear(&mut self, sample: usize) -> Result<(), ReviewError> {
        self.check(sample)?;
        self.apply(vec![(sample, None)])
    }

    /// Goes with the model on `sample`: relabels it to the suggestion, or,
    /// when the model agrees with the given label, keeps that label (a
    /// curator walking the list with accept decides every row, not only
    /// the flagged ones; accepting a kept sample again leaves it kept).
    /// Nothing changes without a fit or a score.
    pub fn accept_suggestion(&mut self, sample: usize) -> Result<Accepted, ReviewError> {
        self.check(sample)?;
        // What the screen shows of the sample (see `fit_of`).
        let Some(fit) = self.fit_of(sample) else {
            return Ok(Accepted::Unscored);
        };
        let suggested = fit.suggested[sample];
        if fit.p_mislabel[sample].is_nan() {
            return Ok(Accepted::Unscored);
        }
        if suggested == self.dataset.labels[sample] {
            if self.decisions[sample] != Some(Decision::Keep) {
                self.apply(vec![(sample, Some(Decision::Keep))])?;
            }
            return Ok(Accepted::Kept);
        }
        self.apply(vec![(sample, Some(Decision::Relabel(suggested)))])?;
        Ok(Accepted::Relabelled)
    }

    /// The relabels [`Session::accept_all_above`] would make: every
    /// undecided sample at or above `threshold` whose suggestion (as the
    /// screen shows it) differs from its label.
    fn bulk_relabels(&self, threshold: f64) -> Vec<(usize, usize)> {
        (0..self.decisions.len())
            .filter(|&i| self.decisions[i].is_none())
            .filter_map(|i| {
                let fit = self.fit_of(i)?;
                (fit.p_mislabel[i] >= threshold && fit.suggested[i] != self.dataset.labels[i])
                    .then_some((i, fit.suggested[i]))
            })
            .collect()
    }

    /// What accepting every suggestion at or above `threshold` would do,
    /// by (given, suggested) class pair, most frequent first: the curator
    /// is asked before thousands of labels change in one key.
    pub fn accept_all_preview(&self, threshold: f64) -> Vec<((usize, usize), usize)> {
        let mut pairs: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        for (i, to) in self.bulk_relabels(threshold) {
            *pairs.entry((self.dataset.labels[i], to)).or_default() += 1;
        }
        let mut pairs: Vec<_> = pairs.into_iter().collect();
        pairs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        pairs
    }

    /// Accepts the suggestion of every undecided sample at or above
    /// `threshold` whose suggestion differs from its label: one undo step.
    pub fn accept_all_above(&mut self, threshold: f64) -> Result<usize, ReviewError> {
        let changes: Vec<(usize, Option<Decision>)> = self
            .bulk_relabels(threshold)
            .into_iter()
            .map(|(i, c)| (i, Some(Decision::Relabel(c))))
            .collect();
        let n = changes.len();
        self.apply(changes)?;
        Ok(n)
    }

    pub fn undo(&mut self) -> Result<bool, ReviewError> {
        self.writable()?;
        if self.undo.is_empty() {
            return Ok(false);
        }
        self.write(Entry::Undo { time: now() })?;
        if let Some(step) = self.undo.pop() {
            self.undo_step(&step);
            self.redo.push(step);
        }
        self.refresh_after_decisions();
        Ok(true)
    }

    pub fn redo(&mut self) -> Result<bool, ReviewError> {
        self.writable()?;
        if self.redo.is_empty() {
            return Ok(false);
        }
        self.write(Entry::Redo { time: now() })?;
        if let Some(step) = self.redo.pop() {
            self.redo_step(&step);
            self.undo.push(step);
        }
        self.refresh_after_decisions();
        Ok(true)
    }

    /// The first sample the next undo would change (to show it).
    pub fn undo_target(&self) -> Option<usize> {
        self.undo
            .last()
            .and_then(|s| s.changes.first())
            .map(|c| c.0)
    }

    /// The first sample the next redo would change.
    pub fn redo_target(&self) -> Option<usize> {
        self.redo
            .last()
            .and_then(|s| s.changes.first())
            .map(|c| c.0)
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Classes by the sample's posterior, highest first.
    pub fn classes_by_posterior(&self, sample: usize) -> Vec<usize> {
        let k = self.dataset.classes.len();
        let mut order: Vec<usize> = (0..k).collect();
        if let Some(fit) = self.fit_of(sample)
            && sample < fit.posterior.nrows()
        {
            let p = |c: usize| {
                let v = fit.posterior[(sample, c)];
                if v.is_nan() { f64::NEG_INFINITY } else { v }
            };
            order.sort_by(|a, b| p(*b).total_cmp(&p(*a)).then(a.cmp(b)));
        }
        order
    }

    // ----- view -----

    /// Decisions move samples only when the list is filtered by decision;
    /// skipping the re-sort otherwise keeps a key press cheap on large data.
    fn refresh_after_decisions(&mut self) {
        self.version = self.version.wrapping_add(1);
        if self.filter.decision.is_some() {
            self.refresh_view();
        }
    }

    fn refresh_view(&mut self) {
        let selected = self.selected();
        let comments = &self.comments;
        self.view = view::compute(&ViewInputs {
            dataset: &self.dataset,
            fit: self.fit.as_ref(),
            rank: self.rank.as_deref(),
            decisions: &self.decisions,
            has_comment: &|i| comments.contains_key(&i),
            filter: &self.filter,
            sort: &self.sort,
            descending: self.descending,
        });
        if self.pin.is_some() {
            self.place_pinned();
            return;
        }
        // Stay on the same sample when it is still shown.
        match selected.and_then(|s| self.view.iter().position(|&v| v == s)) {
            Some(pos) => self.cursor = pos,
            None => self.cursor = self.cursor.min(self.view.len().saturating_sub(1)),
        }
    }

    pub fn view(&self) -> &[usize] {
        &self.view
    }

    pub fn filter(&self) -> &Filter {
        &self.filter
    }

    pub fn set_filter(&mut self, f: Filter) {
        self.filter = f;
        self.pin = None;
        self.refresh_view();
    }

    pub fn sort_key(&self) -> &SortKey {
        &self.sort
    }

    pub fn sort_descending(&self) -> bool {
        self.descending
    }

    pub fn set_sort(&mut self, key: SortKey, descending: bool) {
        self.sort = key;
        self.descending = descending;
        self.pin = None;
        self.refresh_view();
    }

    /// The orders the list offers, in the order the sort key steps through
    /// them: p_mislabel, then the model columns that ask to come first
    /// (`ColumnDisplay::sort_first`, so what the curator most likely wants
    /// next is one key press away), gamma when the fit has one, the other
    /// sortable model columns in report order, the given and the
    /// suggested label, id, row.
    pub fn sort_keys(&self) -> Vec<SortKey> {
        let mut keys = vec![SortKey::PMislabel];
        if let Some(f) = &self.fit {
            let sortable = || f.extra.sample_columns.iter().filter(|c| c.display.sortable);
            let key = |c: &SampleColumn| SortKey::Column(c.name.clone());
            keys.extend(sortable().filter(|c| c.display.sort_first).map(key));
            if f.has_sample_gamma() {
                keys.push(SortKey::Gamma);
            }
            keys.extend(sortable().filter(|c| !c.display.sort_first).map(key));
        } else {
            keys.push(SortKey::Gamma);
        }
        keys.push(SortKey::Given);
        keys.push(SortKey::Suggested);
        keys.push(SortKey::Id);
        keys.push(SortKey::Row);
        keys
    }

    /// The next order of `sort_keys`, wrapping around.
    pub fn cycle_sort(&mut self) {
        self.step_sort(1);
    }

    /// The previous order of `sort_keys`, wrapping around.
    pub fn cycle_sort_back(&mut self) {
        self.step_sort(-1);
    }

    fn step_sort(&mut self, step: isize) {
        let keys = self.sort_keys();
        let n = keys.len() as isize;
        let next = match keys.iter().position(|k| *k == self.sort) {
            Some(pos) => keys[(pos as isize + step).rem_euclid(n) as usize].clone(),
            None => SortKey::PMislabel,
        };
        let desc = next.default_descending();
        self.set_sort(next, desc);
    }

    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// Sets the flag threshold and journals it, so the session opens
    /// with it again.
    pub fn set_threshold(&mut self, t: f64) -> Result<(), ReviewError> {
        let t = t.clamp(0.0, 1.0);
        self.note(Entry::Threshold {
            value: t,
            time: now(),
        })?;
        self.threshold = t;
        self.threshold_set = true;
        Ok(())
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn selected(&self) -> Option<usize> {
        self.view.get(self.cursor).copied()
    }

    pub fn move_cursor(&mut self, delta: isize) {
        if self.view.is_empty() {
            self.cursor = 0;
            return;
        }
        let last = self.view.len() as isize - 1;
        self.cursor = (self.cursor as isize + delta).clamp(0, last) as usize;
        self.release_pin();
    }

    pub fn cursor_to(&mut self, pos: usize) {
        self.cursor = pos.min(self.view.len().saturating_sub(1));
        self.release_pin();
    }

    pub fn cursor_top(&mut self) {
        self.cursor = 0;
        self.release_pin();
    }

    pub fn cursor_bottom(&mut self) {
        self.cursor = self.view.len().saturating_sub(1);
        self.release_pin();
    }

    pub fn select_sample(&mut self, sample: usize) -> bool {
        match self.view.iter().position(|&s| s == sample) {
            Some(pos) => {
                self.cursor = pos;
                self.release_pin();
                true
            }
            None => false,
        }
    }

    pub fn counts(&self) -> Counts {
        let key = (
            self.version,
            self.fit_generation,
            self.threshold.to_bits(),
            self.view.len(),
        );
        match self.counts_cache.get() {
            Some((k, c)) if k == key => c,
            _ => {
                let c = self.count();
                self.counts_cache.set(Some((key, c)));
                c
            }
        }
    }

    /// Changes whenever a fit is taken in: a key for what is derived from it.
    pub fn fit_generation(&self) -> u64 {
        self.fit_generation
    }

    /// p_mislabel of the current fit in ten bins of width 0.1 (NaN left out).
    pub fn p_mislabel_histogram(&self) -> [u64; 10] {
        if let Some((g, bins)) = self.histogram_cache.get()
            && g == self.fit_generation
        {
            return bins;
        }
        let mut bins = [0u64; 10];
        if let Some(f) = &self.fit {
            for p in f.p_mislabel.iter().filter(|p| p.is_finite()) {
                bins[((p * 10.0) as usize).min(9)] += 1;
            }
        }
        self.histogram_cache.set(Some((self.fit_generation, bins)));
        bins
    }

    fn count(&self) -> Counts {
        let mut c = Counts {
            total: self.decisions.len(),
            shown: self.view.len(),
            ..Counts::default()
        };
        if let Some(f) = &self.fit {
            c.flagged = f
                .p_mislabel
                .iter()
                .filter(|p| **p >= self.threshold)
                .count();
            c.expected_wrong = f
                .p_mislabel
                .iter()
                .zip(&self.decisions)
                .filter(|(p, d)| d.is_none() && p.is_finite())
                .map(|(p, _)| *p)
                .sum();
        }
        for d in self.decisions.iter().flatten() {
            c.decided += 1;
            match d {
                Decision::Relabel(_) => c.relabelled += 1,
                Decision::Keep => c.kept += 1,
                Decision::Drop => c.dropped += 1,
            }
        }
        c
    }

    /// Whether a decision or a comment differs from what the last export
    /// wrote.
    pub fn has_unexported(&self) -> bool {
        self.unexported > 0 || self.comments_unexported()
    }

    pub(crate) fn decisions(&self) -> &[Option<Decision>] {
        &self.decisions
    }

    pub(crate) fn decided_at(&self, sample: usize) -> Option<&str> {
        self.decided_at[sample].as_deref()
    }

    pub(crate) fn mark_exported(&mut self, cleaned: &Path) -> Result<(), ReviewError> {
        self.note(Entry::Export {
            cleaned: cleaned.display().to_string(),
            time: now(),
        })?;
        self.exported_now();
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
