//! The time budget of choosing a model by evidence.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::{BUDGET_FACTOR, CANDIDATES, CostRows, FOLDS, MIN_BUDGET};
use crate::app::combine;

/// The time budget of a whole choice. Each candidate's budget, in each
/// round of a race, is spent by the time its own folds run, summed over
/// its folds: on two cores the folds queue, and time spent waiting for a
/// core is no cost of the candidate's. Measured from its first fold's
/// start instead, the waits between its folds counted: on classes20_4k
/// rlr, shift and rmda shared the second round and each "ran past the
/// 10 s budget", rlr with its three folds at 5.7 s of running: its
/// evidence was thrown away in some runs and not in others, as the load
/// had it.
///
/// The clock also predicts what a fit on the whole table would cost:
/// every finished fold leaves its seconds per training row, and a fold
/// still running has already spent its elapsed time, so its candidate's
/// fit on all n rows is put at elapsed / trained rows times the rows the
/// fit is priced at ([`CostRows`]). Once that is past what the cheapest
/// candidate's fit would let any member take ([`combine::member_budget`]
/// at its most generous), the candidate is taken to be unaffordable and
/// its folds stop: on a 200k-row table rlr's second round spent a second
/// on 3000 rows to be left out as needing 79 s. It is the same prediction
/// [`combine::affordable`] judges members by; the report says it for what
/// it is (`evidence::cost::at_folds_pace`).
pub struct Clock {
    started: Instant,
    /// Nanoseconds from `started` to the first finished task (0: none yet).
    first_done: AtomicU64,
    /// Per entry of [`CANDIDATES`], this round: nanoseconds its folds have
    /// run, summed over them.
    busy: [AtomicU64; CANDIDATES.len()],
    /// Per entry of [`CANDIDATES`], this round: its finished folds, and
    /// their nanoseconds summed.
    finished: [AtomicUsize; CANDIDATES.len()],
    finished_nanos: [AtomicU64; CANDIDATES.len()],
    /// Per entry of [`CANDIDATES`], this round: set once its budget is
    /// known to be spent, so that its other folds stop or never start.
    spent: [AtomicBool; CANDIDATES.len()],
    /// Per entry of [`CANDIDATES`], this round: seconds per training row of
    /// its last finished fold, as f64 bits (0: none yet).
    rate: [AtomicU64; CANDIDATES.len()],
    /// Per entry of [`CANDIDATES`], this round: the predicted seconds of
    /// its fit on every row that stopped its folds, as f64 bits (0: not
    /// stopped).
    too_slow: [AtomicU64; CANDIDATES.len()],
    /// What each candidate's fit on every row costs in rows at its pace.
    cost: CostRows,
}

fn index(candidate: &str) -> Option<usize> {
    CANDIDATES.iter().position(|m| *m == candidate)
}

impl Clock {
    /// A clock for a table whose fits `cost` prices.
    pub fn start(cost: CostRows) -> Clock {
        Clock::started_at(Instant::now(), cost)
    }

    fn started_at(started: Instant, cost: CostRows) -> Clock {
        Clock {
            cost,
            started,
            first_done: AtomicU64::new(0),
            busy: std::array::from_fn(|_| AtomicU64::new(0)),
            finished: std::array::from_fn(|_| AtomicUsize::new(0)),
            finished_nanos: std::array::from_fn(|_| AtomicU64::new(0)),
            spent: std::array::from_fn(|_| AtomicBool::new(false)),
            rate: std::array::from_fn(|_| AtomicU64::new(0)),
            too_slow: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }

    /// A clock started `ago`, its first task done `first_done` after its
    /// start: for tests of the budget.
    #[cfg(test)]
    pub fn begun_ago(ago: Duration, first_done: Duration) -> Clock {
        let clock = Clock::started_at(Instant::now() - ago, CostRows::default());
        clock
            .first_done
            .store(first_done.as_nanos() as u64, Ordering::Relaxed);
        clock
    }

    /// Notes that a fold of `candidate` finished in `seconds` after training
    /// on `trained` rows.
    pub fn mark_done(&self, candidate: &str, seconds: f64, trained: usize) {
        let nanos = self.now();
        let _ = self
            .first_done
            .compare_exchange(0, nanos, Ordering::Relaxed, Ordering::Relaxed);
        if let Some(c) = index(candidate) {
            let rate = (seconds / trained.max(1) as f64).max(f64::MIN_POSITIVE);
            self.rate[c].store(rate.to_bits(), Ordering::Relaxed);
            let ran = Duration::from_secs_f64(seconds.max(0.0)).as_nanos();
            self.finished_nanos[c]
                .fetch_add(u64::try_from(ran).unwrap_or(u64::MAX), Ordering::Relaxed);
            self.finished[c].fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn over_budget(&self) -> bool {
        self.started.elapsed() > self.budget()
    }

    /// Nanoseconds since the clock started (at least 1, so 0 can mean
    /// "not yet").
    fn now(&self) -> u64 {
        self.started.elapsed().as_nanos().max(1) as u64
    }

    /// Starts a new round: every candidate's budget is whole again, and the
    /// costs are measured again (on more rows, where a fit's fixed overhead
    /// weighs less).
    pub fn new_round(&self) {
        for slot in self
            .busy
            .iter()
            .chain(&self.rate)
            .chain(&self.too_slow)
            .chain(&self.finished_nanos)
        {
            slot.store(0, Ordering::Relaxed);
        }
        for count in &self.finished {
            count.store(0, Ordering::Relaxed);
        }
        for flag in &self.spent {
            flag.store(false, Ordering::Relaxed);
        }
    }

    /// Notes that a fold of `candidate` has run `ran` more.
    pub fn spend(&self, candidate: &str, ran: Duration) {
        if let Some(c) = index(candidate) {
            let nanos = u64::try_from(ran.as_nanos()).unwrap_or(u64::MAX);
            self.busy[c].fetch_add(nanos, Ordering::Relaxed);
        }
    }

    /// Whether `candidate`'s folds have run for longer than its budget this
    /// round, summed over them, or cannot all run within it: [`FOLDS`] of
    /// them, the folds being of one size, each as long as the mean of those
    /// finished, or at least as long as a fold still `running` has run.
    /// On classes20_4k shift's first fold on 2000 rows took 5.5 s against a
    /// 10 s budget, and its other two then ran 6 s more to be stopped.
    pub fn candidate_over_budget(&self, candidate: &str, running: Option<Duration>) -> bool {
        let Some(c) = index(candidate) else {
            return false;
        };
        let budget = self.budget().as_secs_f64();
        let busy = Duration::from_nanos(self.busy[c].load(Ordering::Relaxed));
        let finished = self.finished[c].load(Ordering::Relaxed);
        let seconds =
            Duration::from_nanos(self.finished_nanos[c].load(Ordering::Relaxed)).as_secs_f64();
        let fold_at_least = running.map_or(0.0, |r| r.as_secs_f64());
        let over = self.spent[c].load(Ordering::Relaxed)
            || busy.as_secs_f64() > budget
            || fold_at_least * FOLDS as f64 > budget
            || (finished > 0 && seconds / finished as f64 * FOLDS as f64 > budget);
        if over {
            self.spent[c].store(true, Ordering::Relaxed);
        }
        over
    }

    /// Whether `candidate`'s fit on all `n` rows is now known to be beyond
    /// any member's budget, from a fold that has run for `elapsed` on
    /// `trained` rows (`None` for a fold that is not running: then only an
    /// earlier fold's verdict counts). The first fold to find it so stops
    /// the candidate's other folds too.
    pub fn unaffordable(
        &self,
        candidate: &str,
        running: Option<(Duration, usize)>,
        n: usize,
    ) -> bool {
        let Some(c) = index(candidate) else {
            return false;
        };
        if self.too_slow[c].load(Ordering::Relaxed) != 0 {
            return true;
        }
        let Some((elapsed, trained)) = running else {
            return false;
        };
        let Some(anchor) = self.cheapest_fit(n) else {
            return false;
        };
        let at_least = elapsed.as_secs_f64() / trained.max(1) as f64 * self.cost.rows(candidate, n);
        let budget = combine::member_budget(1.0, 1.0, anchor);
        if at_least <= budget {
            return false;
        }
        self.too_slow[c].store(at_least.to_bits(), Ordering::Relaxed);
        true
    }

    /// What stopped `candidate`'s folds this round: the predicted seconds
    /// of its fit on every row, when that was over every budget.
    pub fn too_slow(&self, candidate: &str) -> Option<f64> {
        let bits = self.too_slow[index(candidate)?].load(Ordering::Relaxed);
        (bits != 0).then(|| f64::from_bits(bits))
    }

    /// The least predicted seconds of any candidate's fit on all `n`
    /// rows, at the pace of its last finished fold this round.
    fn cheapest_fit(&self, n: usize) -> Option<f64> {
        CANDIDATES
            .iter()
            .zip(&self.rate)
            .map(|(m, r)| (m, r.load(Ordering::Relaxed)))
            .filter(|&(_, bits)| bits != 0)
            .map(|(m, bits)| f64::from_bits(bits) * self.cost.rows(m, n))
            .min_by(f64::total_cmp)
    }

    /// The accounts this clock prices fits by.
    pub fn cost(&self) -> &CostRows {
        &self.cost
    }

    /// Each candidate's time in a round: [`BUDGET_FACTOR`] times the first
    /// finished fold's, at least [`MIN_BUDGET`].
    pub fn budget(&self) -> Duration {
        let first = self.first_done.load(Ordering::Relaxed);
        if first == 0 {
            // Nothing has finished: nothing to scale by yet. The cheapest
            // fit finishing sets the budget; until then only a very long
            // wait counts (ten minimum budgets).
            MIN_BUDGET * 10
        } else {
            Duration::from_nanos(first)
                .mul_f64(BUDGET_FACTOR)
                .max(MIN_BUDGET)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_spends_its_budget_only_while_its_folds_run() {
        // A choice that began 30 s ago, its first fold done after 1 s: the
        // budget is max(20 x 1 s, 10 s) = 20 s and the choice as a whole is over.
        let clock = Clock::begun_ago(Duration::from_secs(30), Duration::from_secs(1));
        assert!(clock.over_budget());
        // A candidate that waited for a core all that time has spent nothing.
        assert!(!clock.candidate_over_budget("rmda", None));
        // Three folds of 8 s each, whenever they ran, are 24 s: over.
        clock.spend("rlr", Duration::from_secs(8));
        clock.spend("rlr", Duration::from_secs(8));
        assert!(!clock.candidate_over_budget("rlr", None));
        clock.spend("rlr", Duration::from_secs(8));
        assert!(clock.candidate_over_budget("rlr", None));
        assert!(!clock.candidate_over_budget("shift", None));
        // A new round gives every candidate its whole budget again.
        clock.new_round();
        assert!(!clock.candidate_over_budget("rlr", None));
        // One fold of 6 s: three such (18 s) fit the budget; a second of
        // 8 s puts the three at 21 s, past it, before they have run.
        clock.mark_done("shift", 6.0, 2000);
        assert!(!clock.candidate_over_budget("shift", None));
        clock.mark_done("shift", 8.0, 2000);
        assert!(clock.candidate_over_budget("shift", None));
        clock.new_round();
        assert!(!clock.candidate_over_budget("shift", None));
        // A fold still running at 7 s: the three will take 21 s at least.
        let running = |secs| Some(Duration::from_secs(secs));
        assert!(!clock.candidate_over_budget("shift", running(6)));
        assert!(clock.candidate_over_budget("shift", running(7)));
        // Its next fold does not start.
        assert!(clock.candidate_over_budget("shift", None));
    }

    /// rnda's fold took 0.01 s on 2000 rows: its fit on 200k rows about 1 s,
    /// so no member may take more than max(20 x 1 s, 10 s) = 20 s. An rlr
    /// fold that has run 0.3 s on 2000 rows will need at least 30 s there:
    /// it stops, and so do its other folds; one at 0.1 s (10 s) goes on.
    #[test]
    fn a_fold_stops_once_its_fit_on_every_row_is_past_every_budget() {
        let clock = Clock::start(CostRows::default());
        let n = 200_000;
        let running = |secs: f64| Some((Duration::from_secs_f64(secs), 2000));
        // No fold finished yet: no anchor, nothing is cut.
        assert!(!clock.unaffordable("rlr", running(100.0), n));
        clock.mark_done("rnda", 0.01, 2000);
        assert!(!clock.unaffordable("shift", running(0.1), n));
        assert!(!clock.unaffordable("rlr", None, n));
        assert!(clock.unaffordable("rlr", running(0.3), n));
        let predicted = clock.too_slow("rlr").unwrap();
        assert!((predicted - 30.0).abs() < 1e-9, "{predicted}");
        // Its other folds stop at once, whatever they have spent.
        assert!(clock.unaffordable("rlr", None, n));
        assert!(clock.unaffordable("rlr", running(0.0), n));
        assert_eq!(clock.too_slow("shift"), None);
        // A new round measures again.
        clock.new_round();
        assert!(!clock.unaffordable("rlr", None, n));
        assert_eq!(clock.too_slow("rlr"), None);
        // On a table of 2000 rows the same 0.3 s is nothing.
        clock.mark_done("rnda", 0.01, 2000);
        assert!(!clock.unaffordable("rlr", running(0.3), 3000));
    }

    /// The same folds priced by the models' accounts: shift's fit on
    /// 200k rows is worth 20k rows at its folds' pace (a subsample and a
    /// pass over every row), so its fold 0.3 s into 2000 rows puts it at
    /// 3 s and goes on, where rlr's, priced row for row (30 s), stops. The
    /// budget is the cheapest fit's, not the cheapest pace's: rmda's fold
    /// is ten times slower per row than rnda's, but its fit, 2000 rows'
    /// worth, takes 0.2 s to rnda's 1 s, and the budget falls from 20 s
    /// to the 10 s floor.
    #[test]
    fn a_fold_is_judged_by_its_models_account_of_the_whole_fit() {
        let n = 200_000;
        let running = |secs: f64| Some((Duration::from_secs_f64(secs), 2000));
        let accounts = || CostRows::given(&[("shift", 20_000.0), ("rmda", 2000.0)]);
        let clock = Clock::start(accounts());
        clock.mark_done("rnda", 0.01, 2000);
        assert!(!clock.unaffordable("shift", running(0.3), n));
        assert!(clock.unaffordable("rlr", running(0.3), n));
        let clock = Clock::start(accounts());
        clock.mark_done("rnda", 0.01, 2000);
        assert!(!clock.unaffordable("rlr", running(0.15), n));
        clock.mark_done("rmda", 0.2, 2000);
        assert!(clock.unaffordable("rlr", running(0.15), n));
        let predicted = clock.too_slow("rlr").unwrap();
        assert!((predicted - 15.0).abs() < 1e-9, "{predicted}");
    }
}
