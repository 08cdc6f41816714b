//! Fits run on a worker thread: progress streams back through a channel,
//! a shared flag cancels, and a panic in the model becomes a message
//! instead of taking the session down.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::thread::JoinHandle;

use super::pipeline::{FitInputs, FitPlan};
use crate::dataset::Dataset;
use crate::models::{Control, Fit, FitError, Guide, ModelOptions, Progress};

/// What the worker reports.
#[derive(Debug)]
pub enum WorkerMsg {
    Progress(Progress),
    Done(Box<Result<Fit, FitError>>),
    Panicked(String),
}

/// A fit in flight.
#[derive(Debug)]
pub struct FitJob {
    /// The model that fits (`auto` resolved).
    pub model: String,
    /// Why `auto` chose it.
    pub note: Option<String>,
    /// The samples fitted (all of them, or those kept for a refit).
    pub samples: Vec<usize>,
    pub last: Option<Progress>,
    cancel: Arc<AtomicBool>,
    rx: Receiver<WorkerMsg>,
    handle: Option<JoinHandle<()>>,
}

impl FitJob {
    /// Starts the pipeline for `requested` (a model or `auto`) on rows
    /// `samples` of a table, with `labels` (one per sample) and the
    /// curator's decisions as evidence (`guide`, one entry per sample).
    pub fn on_table(
        ds: &Dataset,
        requested: &str,
        options: &ModelOptions,
        samples: Vec<usize>,
        labels: Vec<usize>,
        guide: Guide,
    ) -> Result<FitJob, FitError> {
        let plan = FitPlan::for_table(ds, requested, options)?;
        let inputs = FitInputs::of_table(ds, &plan, Some(&samples)).into_owned();
        Self::start(plan, inputs, samples, labels, guide)
    }

    /// Starts fitting `plan` on `inputs` (the rows `samples` of the table)
    /// on a worker thread.
    pub fn start(
        plan: FitPlan,
        inputs: FitInputs<'static>,
        samples: Vec<usize>,
        labels: Vec<usize>,
        guide: Guide,
    ) -> Result<FitJob, FitError> {
        let cancel = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let flag = Arc::clone(&cancel);
        let (model, note) = (plan.name.clone(), plan.note.clone());
        let handle = std::thread::Builder::new()
            .name(format!("fit-{model}"))
            .spawn(move || {
                let progress_tx = tx.clone();
                let result = catch_unwind(AssertUnwindSafe(|| {
                    let mut cb = |p: Progress| {
                        // A closed channel means nobody waits for this fit.
                        if progress_tx.send(WorkerMsg::Progress(p)).is_err()
                            || flag.load(Ordering::Relaxed)
                        {
                            Control::Stop
                        } else {
                            Control::Continue
                        }
                    };
                    plan.fit_guided(&inputs, &labels, &guide, &mut cb)
                }));
                let msg = match result {
                    Ok(r) => WorkerMsg::Done(Box::new(r)),
                    Err(p) => WorkerMsg::Panicked(
                        p.downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| p.downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "unknown panic".into()),
                    ),
                };
                let _ = tx.send(msg);
            })
            .map_err(|e| FitError::Numerical(format!("cannot start the fit thread: {e}")))?;
        Ok(FitJob {
            model,
            note,
            samples,
            last: None,
            cancel,
            rx,
            handle: Some(handle),
        })
    }

    /// Asks the fit to stop; it returns `Cancelled` within one iteration.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelling(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Drains pending messages without blocking; returns the final one if
    /// the fit has ended.
    pub fn poll(&mut self) -> Option<WorkerMsg> {
        loop {
            match self.rx.try_recv() {
                Ok(WorkerMsg::Progress(p)) => self.last = Some(p),
                Ok(done) => {
                    self.join();
                    return Some(done);
                }
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => {
                    self.join();
                    return Some(WorkerMsg::Panicked(
                        "the fit thread ended without a result".into(),
                    ));
                }
            }
        }
    }

    /// Blocks until the fit ends (tests and headless use).
    pub fn wait(&mut self) -> WorkerMsg {
        loop {
            match self.rx.recv() {
                Ok(WorkerMsg::Progress(p)) => self.last = Some(p),
                Ok(done) => {
                    self.join();
                    return done;
                }
                Err(_) => {
                    self.join();
                    return WorkerMsg::Panicked("the fit thread ended without a result".into());
                }
            }
        }
    }

    fn join(&mut self) {
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for FitJob {
    fn drop(&mut self) {
        // Nobody will read the result: let the worker stop early.
        self.cancel();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    use nalgebra::DMatrix;

    fn data() -> (DMatrix<f64>, Vec<usize>) {
        let labels: Vec<usize> = (0..200).map(|i| i % 2).collect();
        let mut rng = crate::rng::Rng::new(1);
        let x = DMatrix::from_fn(200, 2, |i, _| labels[i] as f64 * 0.5 + rng.normal());
        (x, labels)
    }

    fn start(model: &str, options: &ModelOptions, x: &DMatrix<f64>, labels: Vec<usize>) -> FitJob {
        let plan = FitPlan::new(model, options).unwrap();
        let inputs = FitInputs::of_matrix(x, 2).into_owned();
        FitJob::start(
            plan,
            inputs,
            (0..x.nrows()).collect(),
            labels,
            Guide::default(),
        )
        .unwrap()
    }

    #[test]
    fn a_fit_streams_progress_and_finishes() {
        let (x, labels) = data();
        let mut job = start("rnda", &ModelOptions::default(), &x, labels);
        match job.wait() {
            WorkerMsg::Done(r) => assert_eq!(r.unwrap().p_mislabel.len(), 200),
            other => panic!("{other:?}"),
        }
        assert!(job.last.is_some());
    }

    #[test]
    fn cancelling_ends_the_fit_with_cancelled() {
        let (x, labels) = data();
        let opts = ModelOptions {
            tol: 1e-300,
            max_iter: 1_000_000,
            ..ModelOptions::default()
        };
        let mut job = start("rnda", &opts, &x, labels);
        job.cancel();
        match job.wait() {
            WorkerMsg::Done(r) => assert_eq!(r.unwrap_err(), FitError::Cancelled),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_subset_refit_uses_only_its_rows() {
        let (x, labels) = data();
        let x = x.rows(0, 100).into_owned();
        let mut job = start("nda", &ModelOptions::default(), &x, labels[..100].to_vec());
        match job.wait() {
            WorkerMsg::Done(r) => assert_eq!(r.unwrap().p_mislabel.len(), 100),
            other => panic!("{other:?}"),
        }
    }
}
