//! Stage 1 of auto, and the held-out check every model gets: each
//! candidate's out-of-fold predictive distribution of the *given* labels on
//! a bounded, seeded, stratified sample of rows.
//!
//! For a held-out row i of fold f, with P_f(true | x) the candidate's
//! classifier fitted on the other folds and T_f the flip table P(given |
//! true) that classifier implies on its own training rows
//! ([`profile_flip_table`]), the candidate predicts
//!
//!   P(given_i = j | x_i) = sum_k P_f(true = k | x_i) T_f(k, j).
//!
//! Every candidate's noise is read by the same recipe, whatever its model
//! calls it (a flip table, shifts, alpha), so the scores are comparable.
//! Rows and folds are dealt by a seeded key of each row's values
//! ([`crate::rng::row_keys`]), never by its place or by time: the same table
//! in any row order, on any machine and any number of threads, gives the same
//! table of scores.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

use nalgebra::DMatrix;

use super::candidates::Candidate;
use crate::app::inputs::FitInputs;
use crate::models::{Classifier, Control, FitError, ModelOptions, Progress};
use crate::rng::row_keys;

/// Folds of the cross-validation (K = 5, the usual choice: Hastie,
/// Tibshirani and Friedman, ESL §7.10): each fit sees four fifths of the
/// sample.
pub const FOLDS: usize = 5;

/// Rows the held-out fits are computed on at most (a stratified sample):
/// the standard error of a mean log score over 1000 rows is about 0.02
/// nats, below the gaps between candidates that change a ranking, and the
/// evaluation costs the same on a million rows as on a thousand.
pub const SAMPLE_ROWS: usize = 1000;

/// The rows held-out fits are made on, and their folds.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Indices into the table, ascending.
    pub rows: Vec<usize>,
    /// Per sampled row: its fold, or `None` for a row of a class too small
    /// to be held out (it is in every training set).
    pub folds: Vec<Option<usize>>,
    /// Per sampled row: its given label.
    pub given: Vec<usize>,
}

impl Sample {
    /// At most [`SAMPLE_ROWS`] rows, every class in its share (at least one
    /// row each), chosen and dealt into [`FOLDS`] folds by the rows' keys.
    pub fn draw(inputs: &FitInputs<'_>, labels: &[usize], seed: u64) -> Sample {
        let keys = content_keys(inputs, seed);
        let k = inputs.n_classes();
        let rows = stratified_sample(labels, k, SAMPLE_ROWS, &keys);
        let given: Vec<usize> = rows.iter().map(|&r| labels[r]).collect();
        let folds = stratified_folds(&rows, &given, k, &keys);
        Sample { rows, folds, given }
    }

    /// Positions (in the sample) of the rows held out by fold `f`, and of
    /// those trained on.
    fn split(&self, f: usize) -> (Vec<usize>, Vec<usize>) {
        (0..self.rows.len()).partition(|&j| self.folds[j] == Some(f))
    }

    /// Whether any row is held out.
    pub fn holds_out(&self) -> bool {
        self.folds.iter().any(Option::is_some)
    }
}

/// One candidate's held-out predictions on the sample.
#[derive(Clone, Debug, PartialEq)]
pub struct HeldOut {
    pub name: String,
    /// s x K: out-of-fold P(true = k | x) (rows never held out are NaN).
    pub p_true: DMatrix<f64>,
    /// s x K: out-of-fold P(given = j | x), as defined above.
    pub p_given: DMatrix<f64>,
}

impl HeldOut {
    /// log P(given_i | x_i) for each held-out row of the sample; `None` for
    /// a row never held out.
    pub fn log_scores(&self, sample: &Sample) -> Vec<Option<f64>> {
        (0..sample.rows.len())
            .map(|j| {
                sample.folds[j]?;
                Some(
                    self.p_given[(j, sample.given[j])]
                        .max(f64::MIN_POSITIVE)
                        .ln(),
                )
            })
            .collect()
    }
}

/// A candidate's evaluation: its held-out predictions, or why it has none
/// (the error in one line).
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Scored(HeldOut),
    Dropped { name: String, reason: String },
}

impl Outcome {
    pub fn name(&self) -> &str {
        match self {
            Outcome::Scored(h) => &h.name,
            Outcome::Dropped { name, .. } => name,
        }
    }
}

/// What the evaluate stage hands to decide: the sample and every
/// candidate's outcome, in the candidates' order.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreTable {
    pub sample: Sample,
    pub outcomes: Vec<Outcome>,
}

impl ScoreTable {
    pub fn scored(&self) -> impl Iterator<Item = &HeldOut> {
        self.outcomes.iter().filter_map(|o| match o {
            Outcome::Scored(h) => Some(h),
            Outcome::Dropped { .. } => None,
        })
    }

    pub fn held_out(&self, name: &str) -> Option<&HeldOut> {
        self.scored().find(|h| h.name == name)
    }
}

/// Every candidate's held-out predictions on `sample`: (candidate, fold)
/// fits share the machine's threads, each fit on one thread of its own, and
/// the results are put back in task order, so the table does not depend on
/// the number of threads or on which finished first. `progress` sees the
/// share of fits done; a stop cancels the rest.
pub fn evaluate(
    candidates: &[Candidate],
    inputs: &FitInputs<'_>,
    sample: &Sample,
    options: &ModelOptions,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<ScoreTable, FitError> {
    evaluate_keeping(candidates, inputs, sample, options, progress).map(|(table, _)| table)
}

/// A plain classifier's fold fits when the sample is the whole table: the
/// very out-of-fold step its fit on every row makes
/// ([`super::fit::fit_candidate`]), kept so that it is not made twice.
pub struct FoldFits {
    /// Per row: the label the fits were given.
    pub given: Vec<usize>,
    /// Per row: its fold (the sample's).
    pub folds: Vec<Option<usize>>,
    /// n x K: out-of-fold P(true | x) (rows never held out are NaN).
    pub oof: DMatrix<f64>,
    /// The five fold classifiers, in fold order.
    pub members: Vec<Arc<dyn Classifier>>,
}

/// [`evaluate`], also handing back each plain candidate's [`FoldFits`]
/// when the sample is every row and every fold holds rows out (`None`
/// otherwise, one entry per candidate).
pub fn evaluate_keeping(
    candidates: &[Candidate],
    inputs: &FitInputs<'_>,
    sample: &Sample,
    options: &ModelOptions,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<(ScoreTable, Vec<Option<FoldFits>>), FitError> {
    let tasks: Vec<(usize, usize)> = (0..candidates.len())
        .flat_map(|c| (0..FOLDS).map(move |f| (c, f)))
        .collect();
    // A sample of every row (a table of at most SAMPLE_ROWS rows) is read
    // in place: a copy of a wide matrix would double the memory of the fit.
    let selected;
    let whole = sample.rows.len() == inputs.n_samples();
    let sampled = if whole {
        inputs
    } else {
        selected = inputs.select(&sample.rows);
        &selected
    };
    let job = Job {
        candidates,
        runners: runners(inputs, sample.rows.len(), tasks.len()),
        inputs: sampled,
        sample,
        options,
        keep: whole,
        stop: AtomicBool::new(false),
    };
    let mut results = job.run(&tasks, progress)?;
    let k = inputs.n_classes();
    let s = sample.rows.len();
    let (outcomes, kept) = candidates
        .iter()
        .enumerate()
        .map(|(c, cand)| {
            let mut p_true = DMatrix::from_element(s, k, f64::NAN);
            let mut p_given = p_true.clone();
            let mut members = Vec::with_capacity(FOLDS);
            for f in 0..FOLDS {
                match std::mem::replace(&mut results[c * FOLDS + f], Ok(None)) {
                    Ok(Some(fold)) => {
                        for (i, &j) in fold.rows.iter().enumerate() {
                            p_true.set_row(j, &fold.p_true.row(i));
                            p_given.set_row(j, &fold.p_given.row(i));
                        }
                        members.extend(fold.classifier);
                    }
                    Ok(None) => {}
                    Err(e) => {
                        let reason = one_line(&e);
                        return (
                            Outcome::Dropped {
                                name: cand.name(),
                                reason,
                            },
                            None,
                        );
                    }
                }
            }
            let kept = (members.len() == FOLDS).then(|| FoldFits {
                given: sample.given.clone(),
                folds: sample.folds.clone(),
                oof: p_true.clone(),
                members,
            });
            let name = cand.name();
            (
                Outcome::Scored(HeldOut {
                    name,
                    p_true,
                    p_given,
                }),
                kept,
            )
        })
        .unzip();
    let table = ScoreTable {
        sample: sample.clone(),
        outcomes,
    };
    Ok((table, kept))
}

/// An error as one line of a note.
pub fn one_line(e: &FitError) -> String {
    e.to_string().lines().next().unwrap_or_default().to_string()
}

/// One fold's held-out predictions: sample positions and their rows.
struct Fold {
    rows: Vec<usize>,
    p_true: DMatrix<f64>,
    p_given: DMatrix<f64>,
    /// A plain classifier's, when the job keeps them.
    classifier: Option<Arc<dyn Classifier>>,
}

/// Copies of the training rows this small are nothing next to a machine's
/// memory: fits that make them run one per thread whatever the table.
const SMALL_COPIES: usize = 64 << 20;

/// How many fits run side by side: one per thread, while the copies of the
/// training rows they make (four fifths of the sample each) together take
/// no more memory than the table's matrix itself, or [`SMALL_COPIES`]. A
/// wide matrix whose sample is the whole table (54,675 probes x 200 arrays)
/// then fits one fold at a time, so that the fit stays within 3 times the
/// matrix (issue 49). The results do not depend on it: each fit runs on one
/// thread and they are put back in task order.
fn runners(inputs: &FitInputs<'_>, sampled: usize, tasks: usize) -> usize {
    let columns = inputs.features.ncols() + inputs.levels.as_ref().map_or(0, |l| l.ncols());
    let row_bytes = columns * std::mem::size_of::<f64>();
    let threads = rayon::current_num_threads();
    side_by_side(row_bytes, sampled, inputs.n_samples(), tasks, threads)
}

/// [`runners`] for rows of `row_bytes`, `sampled` of the table's `rows`.
fn side_by_side(
    row_bytes: usize,
    sampled: usize,
    rows: usize,
    tasks: usize,
    threads: usize,
) -> usize {
    let copy = row_bytes * sampled * (FOLDS - 1) / FOLDS;
    let budget = (row_bytes * rows).max(SMALL_COPIES);
    let by_memory = budget.checked_div(copy).unwrap_or(usize::MAX);
    threads.min(by_memory).clamp(1, tasks.max(1))
}

struct Job<'a> {
    candidates: &'a [Candidate],
    /// Fits run side by side ([`runners`]).
    runners: usize,
    /// The sample's rows of the table.
    inputs: &'a FitInputs<'a>,
    sample: &'a Sample,
    options: &'a ModelOptions,
    /// Keep plain classifiers' fold fits ([`FoldFits`]): the sample is
    /// every row.
    keep: bool,
    stop: AtomicBool,
}

type TaskOut = Result<Option<Fold>, FitError>;

impl Job<'_> {
    fn run(
        &self,
        tasks: &[(usize, usize)],
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Vec<TaskOut>, FitError> {
        let next = AtomicUsize::new(0);
        let (tx, rx) = mpsc::channel::<usize>();
        let runners = self.runners;
        let results = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..runners)
                .map(|_| {
                    let (tx, next) = (tx.clone(), &next);
                    scope.spawn(move || {
                        // One thread per fit: a fit's float sums then never
                        // depend on how many threads the machine has.
                        let own = rayon::ThreadPoolBuilder::new().num_threads(1).build().ok();
                        let mut done = Vec::new();
                        while let Some(&(c, f)) = tasks.get(next.fetch_add(1, Ordering::Relaxed)) {
                            let run = || self.fold(&self.candidates[c], f);
                            let out = own.as_ref().map_or_else(run, |p| p.install(run));
                            done.push((c * FOLDS + f, out));
                            let _ = tx.send(c);
                        }
                        done
                    })
                })
                .collect();
            drop(tx);
            for (finished, _) in rx.iter().enumerate() {
                let shown = Progress {
                    stage: "held-out fits",
                    iteration: finished + 1,
                    max_iterations: tasks.len(),
                    objective: f64::NAN,
                    fraction: (finished + 1) as f64 / tasks.len().max(1) as f64,
                };
                if progress(shown) == Control::Stop {
                    self.stop.store(true, Ordering::Relaxed);
                }
            }
            let mut all: Vec<(usize, TaskOut)> = Vec::with_capacity(tasks.len());
            for h in handles {
                all.extend(h.join().map_err(|_| {
                    FitError::Numerical("a candidate's held-out fit panicked".into())
                })?);
            }
            all.sort_by_key(|(t, _)| *t);
            Ok::<_, FitError>(all.into_iter().map(|(_, r)| r).collect::<Vec<_>>())
        })?;
        if self.stop.load(Ordering::Relaxed) {
            return Err(FitError::Cancelled);
        }
        Ok(results)
    }

    /// Candidate `cand` fitted without fold `f`, predicting fold `f`.
    fn fold(&self, cand: &Candidate, f: usize) -> TaskOut {
        if self.stop.load(Ordering::Relaxed) {
            return Err(FitError::Cancelled);
        }
        let (held, train) = self.sample.split(f);
        if held.is_empty() {
            return Ok(None);
        }
        let train_inputs = self.inputs.select(&train);
        let train_labels: Vec<usize> = train.iter().map(|&j| self.sample.given[j]).collect();
        let mut cb = |_: Progress| {
            if self.stop.load(Ordering::Relaxed) {
                Control::Stop
            } else {
                Control::Continue
            }
        };
        let k = self.inputs.n_classes();
        let fitted = cand.fit_classifier(&train_inputs, &train_labels, k, self.options, &mut cb)?;
        let flips = profile_flip_table(&fitted.predict(&train_inputs), &train_labels);
        // The training rows' copy goes before the held rows' is made.
        drop(train_inputs);
        let p_true = fitted.predict(&self.inputs.select(&held));
        let p_given = &p_true * &flips;
        if p_given.iter().any(|v| !v.is_finite()) {
            return Err(FitError::Numerical(
                "its held-out probabilities were not numbers".into(),
            ));
        }
        let keep = self.keep && matches!(cand, Candidate::Plain(_));
        Ok(Some(Fold {
            rows: held,
            p_true,
            p_given,
            classifier: keep.then(|| fitted.classifier()),
        }))
    }
}

/// The flip table P(given | true) that best explains `given` when P(true |
/// x) is `p_true`: EM on the expected (true, given) counts, with a
/// Dirichlet prior of one sample per true class (1/K per cell) so that a
/// flip never seen is unlikely on held-out rows, not impossible. The
/// log-likelihood is concave in the table, so the start only sets the pace.
pub fn profile_flip_table(p_true: &DMatrix<f64>, given: &[usize]) -> DMatrix<f64> {
    const EM_ROUNDS: usize = 100;
    let k = p_true.ncols();
    let off = 0.2 / (k - 1).max(1) as f64;
    let mut flips = DMatrix::from_fn(k, k, |t, g| if t == g { 0.8 } else { off });
    for _ in 0..EM_ROUNDS {
        let mut counts = DMatrix::from_element(k, k, 1.0 / k as f64);
        for (i, &g) in given.iter().enumerate() {
            let joint: Vec<f64> = (0..k)
                .map(|t| p_true[(i, t)].max(0.0) * flips[(t, g)])
                .collect();
            let total: f64 = joint.iter().sum();
            if total > 0.0 {
                for t in 0..k {
                    counts[(t, g)] += joint[t] / total;
                }
            }
        }
        for mut row in counts.row_iter_mut() {
            let total = row.sum();
            row /= total;
        }
        flips = counts;
    }
    flips
}

/// A seeded key per row from its values alone ([`row_keys`]): the sample
/// and folds follow the rows' values, so the same table in another row
/// order gives every row the same fold.
pub fn content_keys(inputs: &FitInputs<'_>, seed: u64) -> Vec<u64> {
    let n = inputs.n_samples();
    let mut keys = row_keys(inputs.features.as_slice(), n, seed);
    if let Some(levels) = &inputs.levels {
        let more = row_keys(levels.as_slice(), n, seed);
        keys.iter_mut()
            .zip(more)
            .for_each(|(k, m)| *k ^= m.rotate_left(1));
    }
    keys
}

/// `members` in the order the keys deal them (ties, rows of equal values,
/// by place).
fn by_key(mut members: Vec<usize>, key: impl Fn(usize) -> u64) -> Vec<usize> {
    members.sort_by_key(|&m| (key(m), m));
    members
}

/// At most `max` rows, each class in its share (at least one row), chosen
/// by the rows' keys; every row when there are few enough.
fn stratified_sample(labels: &[usize], n_classes: usize, max: usize, keys: &[u64]) -> Vec<usize> {
    if labels.len() <= max {
        return (0..labels.len()).collect();
    }
    let share = max as f64 / labels.len() as f64;
    let mut out = Vec::with_capacity(max + n_classes);
    for class in 0..n_classes {
        let rows: Vec<usize> = (0..labels.len()).filter(|&i| labels[i] == class).collect();
        let take = ((rows.len() as f64 * share).round() as usize).clamp(1, rows.len().max(1));
        out.extend(by_key(rows, |r| keys[r]).into_iter().take(take));
    }
    out.sort_unstable();
    out
}

/// A fold for each sampled row, each class spread evenly over the folds in
/// the order of its rows' keys, starting at a fold of its own so that the
/// classes' remainders do not all fall in the first. A class with fewer
/// rows than folds is never held out.
pub fn stratified_folds(
    rows: &[usize],
    given: &[usize],
    n_classes: usize,
    keys: &[u64],
) -> Vec<Option<usize>> {
    let mut folds = vec![None; rows.len()];
    for class in 0..n_classes {
        let members: Vec<usize> = (0..rows.len()).filter(|&j| given[j] == class).collect();
        if members.len() < FOLDS {
            continue;
        }
        let members = by_key(members, |j| keys[rows[j]]);
        let offset = (keys[rows[members[0]]] % FOLDS as u64) as usize;
        for (pos, j) in members.into_iter().enumerate() {
            folds[j] = Some((pos + offset) % FOLDS);
        }
    }
    folds
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::models::no_progress;

    /// Issue 49: a wide matrix sampled whole fits one fold at a time; a
    /// small table, or a small sample of a large one, one per thread.
    #[test]
    fn fits_run_side_by_side_while_their_copies_fit_in_the_matrix() {
        let probes = 54_675 * 8;
        assert_eq!(side_by_side(probes, 200, 200, 5, 2), 1);
        assert_eq!(side_by_side(probes, 1000, 10_000, 5, 2), 2);
        assert_eq!(side_by_side(4 * 8, 150, 150, 35, 2), 2);
        assert_eq!(side_by_side(4 * 8, 150, 150, 35, 8), 8);
        assert_eq!(side_by_side(4 * 8, 150, 150, 1, 8), 1);
        assert_eq!(side_by_side(0, 150, 150, 5, 2), 2);
    }

    fn two_blobs(n: usize, flip_every: usize) -> (DMatrix<f64>, Vec<usize>) {
        let mut rng = crate::rng::Rng::new(3);
        let truth: Vec<usize> = (0..n).map(|i| i % 2).collect();
        let x = DMatrix::from_fn(n, 2, |i, _| 3.0 * truth[i] as f64 + rng.normal());
        let given = truth
            .iter()
            .enumerate()
            .map(|(i, &t)| if i % flip_every == 0 { 1 - t } else { t })
            .collect();
        (x, given)
    }

    #[test]
    fn the_sample_is_stratified_bounded_and_follows_the_values_not_the_order() {
        let (x, given) = two_blobs(3000, 7);
        let inputs = FitInputs::of_matrix(&x, 2);
        let s = Sample::draw(&inputs, &given, 0);
        assert_eq!(s.rows.len(), SAMPLE_ROWS);
        let ones = s.given.iter().filter(|&&g| g == 1).count();
        let share = given.iter().filter(|&&g| g == 1).count() as f64 / 3000.0;
        assert!((ones as f64 / SAMPLE_ROWS as f64 - share).abs() < 0.002);
        for f in 0..FOLDS {
            let held = s.folds.iter().filter(|&&g| g == Some(f)).count();
            assert!(held.abs_diff(SAMPLE_ROWS / FOLDS) <= 2, "{held}");
        }
        // The table reversed: the same rows (by value) in the same folds.
        let rev: Vec<usize> = (0..3000).rev().collect();
        let xr = x.select_rows(rev.iter());
        let gr: Vec<usize> = rev.iter().map(|&i| given[i]).collect();
        let r = Sample::draw(&FitInputs::of_matrix(&xr, 2), &gr, 0);
        let mut a: Vec<(usize, Option<usize>)> =
            s.rows.iter().zip(&s.folds).map(|(&i, &f)| (i, f)).collect();
        let mut b: Vec<(usize, Option<usize>)> = r
            .rows
            .iter()
            .zip(&r.folds)
            .map(|(&i, &f)| (2999 - i, f))
            .collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
    }

    #[test]
    fn held_out_predictions_cover_every_held_row_and_a_failure_is_named() {
        let (x, given) = two_blobs(200, 10);
        let inputs = FitInputs::of_matrix(&x, 2);
        let sample = Sample::draw(&inputs, &given, 0);
        let cands = [
            Candidate::Robust("rnda"),
            Candidate::Robust("no such model"),
        ];
        let table = evaluate(
            &cands,
            &inputs,
            &sample,
            &ModelOptions::default(),
            &mut no_progress(),
        )
        .unwrap();
        let h = table.held_out("rnda").unwrap();
        let scores = h.log_scores(&sample);
        assert!(scores.iter().all(|s| s.is_some_and(|v| v < 0.0)));
        // The clean rows are predicted well, the flipped ones badly.
        let mean = |flipped: bool| {
            let v: Vec<f64> = (0..200)
                .filter(|&j| sample.rows[j].is_multiple_of(10) == flipped)
                .map(|j| scores[j].unwrap())
                .collect();
            v.iter().sum::<f64>() / v.len() as f64
        };
        assert!(mean(false) > -0.3 && mean(true) < -1.0);
        assert!(
            matches!(&table.outcomes[1], Outcome::Dropped { name, reason }
            if name == "no such model" && reason.starts_with("unknown model"))
        );
    }

    #[test]
    fn the_profiled_flip_table_recovers_a_known_table() {
        // P(true) certain; 20% of class 0 given 1, 10% of class 1 given 0.
        let n = 1000;
        let p = DMatrix::from_fn(n, 2, |i, k| if (i % 2) == k { 1.0 } else { 0.0 });
        let given: Vec<usize> = (0..n)
            .map(|i| {
                let t = i % 2;
                let flip = if t == 0 { i % 10 < 2 } else { i % 20 < 2 };
                if flip { 1 - t } else { t }
            })
            .collect();
        let t = profile_flip_table(&p, &given);
        assert!((t[(0, 1)] - 0.2).abs() < 0.01, "{t}");
        assert!((t[(1, 0)] - 0.1).abs() < 0.01, "{t}");
    }
}
