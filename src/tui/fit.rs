//! The fit in flight: start one on the worker (`app::FitJob`), take in what
//! it sends, and put the result into the session.

use super::app::App;
use crate::app::{FitJob, WorkerMsg};
use crate::models::FitError;

impl App {
    /// Starts a fit of the current model on all samples (`refit`: on the
    /// samples not dropped, with relabels applied).
    pub fn start_fit(&mut self, refit: bool) {
        if let Some(job) = &self.job {
            job.cancel();
        }
        let ds = self.session.dataset();
        let (samples, labels) = if refit {
            self.session.refit_labels()
        } else {
            ((0..ds.n_samples()).collect(), ds.labels.clone())
        };
        match FitJob::on_table(ds, &self.model, &self.options, samples, labels) {
            Ok(job) => {
                let verb = if refit { "refitting" } else { "fitting" };
                let why = job.note.as_ref().map(|n| format!(" ({n})"));
                self.info(format!("{verb} {}{}", job.model, why.unwrap_or_default()));
                self.job = Some(job);
            }
            Err(e) => self.error(format!("cannot fit {}: {e}", self.model)),
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
                let status = format!(
                    "{} {} after {} iterations",
                    job.model,
                    if fit.converged {
                        "converged"
                    } else {
                        "did NOT converge"
                    },
                    fit.iterations
                );
                let notes = fit.extra.notes.join("; ");
                if job.samples.len() == n {
                    self.session.set_fit(&job.model, fit);
                } else {
                    self.session.set_fit_subset(&job.model, fit, &job.samples);
                }
                self.detail.invalidate();
                self.session.cursor_top();
                if notes.is_empty() {
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
