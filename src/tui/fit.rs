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
                // The status bar shows the fit in flight too: the message
                // line keeps an error, an export's news or the opening line.
                let keep = self.opening.is_some()
                    || self.message.as_ref().is_some_and(|m| m.error || m.lasting);
                if !keep {
                    self.info(format!("{verb} {}{}", job.model, why.unwrap_or_default()));
                }
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
            // The gauge in the status bar says a refit runs; the message
            // line keeps what the last key did (the refit's end says what
            // it changed, unless that was an error or an export's news).
            let said = self.message.clone();
            self.start_fit(true);
            if self.job.is_some() {
                self.message = said;
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
                if self.refitting {
                    // Re-ranked under the curator: the row they are reading
                    // keeps its place and values until they move.
                    self.session.keep_selected_through_next_fit();
                }
                if job.samples.len() == n {
                    self.session.set_fit(&model, fit);
                } else {
                    self.session.set_fit_subset(&model, fit, &job.samples);
                }
                self.detail.invalidate();
                if self.refitting {
                    // Show for a moment which rows moved far.
                    self.moved_until = Some(Instant::now() + SHOW_MOVES_FOR);
                } else {
                    self.session.cursor_top();
                }
                // An error or an export's news stays; the status bar and
                // the notes (`i`) show the new fit.
                let keep = self.message.as_ref().is_some_and(|m| m.error || m.lasting);
                if !keep {
                    let line = self.fit_line(&model);
                    self.info(line);
                }
                self.opening = None;
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

    /// The one plain line a fit ends with: what it found, or, after a
    /// learning refit, what it changed; the notes key tells how.
    fn fit_line(&self, model: &str) -> String {
        use crate::dataset::counted;
        let notes = self.keys.hint(super::keys::Action::Notes);
        let c = self.session.counts();
        if let Some(r) = self.session.reranked() {
            let mut changes = Vec::new();
            if r.rose > 0 {
                changes.push(format!(
                    "{} rose above the threshold",
                    counted(r.rose, "sample")
                ));
            }
            if r.fell > 0 {
                changes.push(format!("{} fell below", r.fell));
            }
            if r.new_suggestion > 0 {
                changes.push(counted(r.new_suggestion, "new suggestion"));
            }
            if changes.is_empty() {
                changes.push("nothing crossed the threshold".into());
            }
            // The row being read is left as it was (`Session::fit_of`).
            return format!("re-ranked: {}", changes.join(", "));
        }
        let who = match model.matches(" + ").count() {
            0 => model.to_string(),
            n => format!("auto's mix of {} models", n + 1),
        };
        let opening = self
            .opening
            .as_ref()
            .map_or(String::new(), |o| format!("{o}; "));
        let table = crate::app::data_notes(self.session.dataset()).len();
        let also = match table {
            0 => String::new(),
            n => format!(" (and {} on the table)", counted(n, "note")),
        };
        // Held-out fits without skill: nothing is flagged, and why.
        if let Some(why) = self.session.fit().and_then(|f| {
            f.extra
                .held_out_skill
                .as_ref()
                .and_then(|s| s.reason.clone())
        }) {
            return format!(
                "{opening}the data cannot tell which labels are wrong: {why}; {notes} for more"
            );
        }
        let interval = match &self
            .session
            .fit()
            .and_then(|f| f.extra.wrong_labels.clone())
        {
            Some(w) => format!(" ({}–{})", w.low, w.high),
            None => String::new(),
        };
        format!(
            "{opening}{who} found about {:.0}{interval} wrong labels; {notes} for how{also}",
            c.expected_wrong
        )
    }
}
