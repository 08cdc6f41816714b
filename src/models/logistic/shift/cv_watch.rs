//! Cross-validation running beside the full path, and the caller's say
//! over it.
//!
//! On a small table the folds' paths are most of a fit's work and finish
//! after the full path; the caller's progress callback lives on the
//! fitting thread, so while the folds finish that thread keeps asking it
//! whether to go on. Without this a stop waited for every fold: auto's
//! evidence could not stop a candidate whose cost was already known to be
//! past every budget (shift's 2000-row folds ran their 1.2 s to the end).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use crate::models::{Control, FitError, Progress};

/// How often the fitting thread asks again when it has no pool work to
/// run while it waits: often enough that a stop lands within one path
/// point of the folds, seldom enough to cost nothing.
const POLL: Duration = Duration::from_millis(10);

/// What the folds have done, and whether the caller wants them to stop.
#[derive(Default)]
pub(super) struct CvWatch {
    cancel: AtomicBool,
    finished: AtomicBool,
    points: AtomicUsize,
    /// Held-out share correct at the latest point, as f64 bits.
    accuracy: AtomicU64,
}

impl CvWatch {
    /// The folds' per-point callback: notes the point and says whether to
    /// go on.
    pub(super) fn note(&self, point: usize, accuracy: f64) -> Control {
        self.points.store(point, Ordering::Relaxed);
        self.accuracy.store(accuracy.to_bits(), Ordering::Relaxed);
        if self.cancel.load(Ordering::Relaxed) {
            Control::Stop
        } else {
            Control::Continue
        }
    }

    /// Marks the folds done (their result, whatever it is, is in).
    pub(super) fn finish(&self) {
        self.finished.store(true, Ordering::Release);
    }

    /// Tells the folds to stop at their next point.
    pub(super) fn stop(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Asks `progress` at least once, then until the folds finish, whether
    /// to go on; the second half of the gauge is the folds' points out of
    /// `steps`. On the thread pool (auto's evidence) the wait runs pending
    /// pool work, such as these very folds, instead of holding a worker.
    pub(super) fn wait(
        &self,
        steps: usize,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<(), FitError> {
        loop {
            // Read before the points, so the last report has them all.
            let finished = self.finished.load(Ordering::Acquire);
            let done = self.points.load(Ordering::Relaxed).min(steps);
            let asked = progress(Progress {
                stage: "cross-validation",
                iteration: done,
                max_iterations: steps,
                objective: f64::from_bits(self.accuracy.load(Ordering::Relaxed)),
                fraction: 0.5 + 0.5 * done as f64 / steps.max(1) as f64,
            });
            if asked == Control::Stop {
                self.stop();
                return Err(FitError::Cancelled);
            }
            if finished {
                return Ok(());
            }
            if rayon::yield_now() != Some(rayon::Yield::Executed) {
                std::thread::sleep(POLL);
            }
        }
    }
}
