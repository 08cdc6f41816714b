//! The fit in flight: start one on the worker (`app::FitJob`), take in what
//! it sends, and put the result into the session.

use std::time::{Duration, Instant};

use super::app::App;
use crate::app::{FitInputs, FitJob, FitPlan, WorkerMsg};
use crate::models::{AUTO, FitError, Guide};

/// The pause after the last decision before the model learns from the
/// decisions: long enough that a run of quick keys makes one refit, short
/// enough that the list has re-ranked by the time the curator looks up.
pub const LEARN_AFTER: Duration = Duration::from_millis(1500);

/// How long rows that a refit moved far stay marked.
pub const SHOW_MOVES_FOR: Duration = Duration::from_secs(4);

impl App {
    /// Starts a fit of the current model on all samples (`refit`: on the
    /// samples not dropped, with the decisions as evidence and the current
    /// fit as the start; a refit keeps the model `auto` chose).
    pub fn start_fit(&mut self, refit: bool) {
        if let Some(job) = &self.job {
            job.cancel();
        }
        let ds = self.session.dataset();
        let (samples, labels, guide) = if refit {
            self.session.refit_inputs()
        } else {
            (
                (0..ds.n_samples()).collect(),
                ds.labels.clone(),
                Guide::default(),
            )
        };
        // A refit keeps what auto chose (one model or its mixture).
        let plan = FitPlan::for_table(ds, &self.model, &self.options).and_then(|plan| {
            match (self.model.as_str(), self.session.fit()) {
                (AUTO, Some(fit)) if refit => plan.settled(fit, &self.options),
                _ => Ok(plan),
            }
        });
        let model = plan.as_ref().map_or(self.model.clone(), |p| p.name.clone());
        // A first fit ignores decisions (a resumed session's): a learning
        // refit follows it when there are any.
        let decided = self.session.counts().decided > 0;
        self.fitted_version = match (refit, decided) {
            (false, true) => self.session.decisions_version().wrapping_sub(1),
            _ => self.session.decisions_version(),
        };
        let learned = guide.n_trusted();
        let job = plan.and_then(|plan| {
            let inputs = FitInputs::of_table(ds, &plan, Some(&samples)).into_owned();
            FitJob::start(plan, inputs, samples, labels, guide)
        });
        match job {
            Ok(job) => {
                let verb = match (refit, learned) {
                    (false, _) => "fitting".to_string(),
                    (true, 0) => "refitting".to_string(),
                    (true, n) => format!(
                        "learning from {}: refitting",
                        crate::dataset::counted(n, "decision")
                    ),
                };
                let why = job.note.as_ref().map(|n| format!(" ({n})"));
                self.info(format!("{verb} {}{}", job.model, why.unwrap_or_default()));
                self.fit_said = self.message.as_ref().map(|m| m.text.clone());
                self.refitting = refit;
                self.job = Some(job);
            }
            Err(e) => self.error(format!("cannot fit {model}: {e}")),
        }
    }

    /// Starts a learning refit once the decisions have changed and the
    /// curator has paused for [`LEARN_AFTER`]; call once per loop turn. A
    /// refit in flight is cancelled and restarted with the newer decisions.
    pub fn tick(&mut self, now: Instant) {
        let version = self.session.decisions_version();
        if version != self.seen_version {
            self.seen_version = version;
            self.changed_at = Some(now);
        }
        let settled = self
            .changed_at
            .is_some_and(|t| now.duration_since(t) >= LEARN_AFTER);
        let first_fit_running = self.job.is_some() && !self.refitting;
        if settled
            && version != self.fitted_version
            && self.session.fit().is_some()
            && !first_fit_running
        {
            self.changed_at = None;
            // The gauge in the status bar says a refit runs; an error or
            // an export's news stays in the message line, and the refit's
            // end leaves it too (something was said since it started).
            let lasting = self.message.clone().filter(|m| m.error || m.lasting);
            self.start_fit(true);
            if let Some(m) = lasting.filter(|_| self.job.is_some()) {
                self.message = Some(m);
            }
        }
    }

    /// Takes in what the worker sent; call once per loop turn.
    pub fn poll_worker(&mut self) {
        let Some(job) = self.job.as_mut() else { return };
        if let Some(msg) = job.poll() {
            self.finish_fit(msg);
        }
    }

    /// Waits for the running fit to end (tests).
    pub fn wait_for_fit(&mut self) {
        if let Some(job) = self.job.as_mut() {
            let msg = job.wait();
            self.finish_fit(msg);
        }
    }

    fn finish_fit(&mut self, msg: WorkerMsg) {
        let Some(job) = self.job.take() else { return };
        let msg = match msg {
            WorkerMsg::Done(r) => Ok(*r),
            other => Err(other),
        };
        match msg {
            Ok(Ok(fit)) => {
                let n = self.session.dataset().n_samples();
                let model = fit
                    .extra
                    .selection
                    .as_ref()
                    .map_or(job.model.clone(), crate::app::auto::combination);
                let status = format!("{model} {}", fit.convergence());
                let notes = fit.extra.notes.join("; ");
                if job.samples.len() == n {
                    self.session.set_fit(&model, fit);
                } else {
                    self.session.set_fit_subset(&model, fit, &job.samples);
                }
                self.detail.invalidate();
                if self.refitting {
                    // Re-ranked under the curator: stay on their sample and
                    // show for a moment which rows moved far.
                    self.moved_until = Some(Instant::now() + SHOW_MOVES_FOR);
                } else {
                    self.session.cursor_top();
                }
                let said_since = self.message.as_ref().map(|m| &m.text) != self.fit_said.as_ref();
                if self.refitting && said_since {
                    // Theirs stays; the status bar shows the new fit.
                } else if notes.is_empty() {
                    self.info(status);
                } else {
                    self.info(format!("{status}; {notes}"));
                }
            }
            Ok(Err(FitError::Cancelled)) => self.info("fit cancelled"),
            Ok(Err(e)) => self.error(format!("{} failed: {e}", job.model)),
            Err(WorkerMsg::Panicked(p)) => self.error(format!(
                "{} crashed ({p}); the session is intact",
                job.model
            )),
            Err(_) => self.job = Some(job),
        }
        self.refresh_detail();
    }

    pub fn fitting(&self) -> bool {
        self.job.is_some()
    }
}
