//! The application layer (DESIGN §1): what both front ends call, so that
//! `cli` and `tui` never import each other and "fit this table" is written
//! once.
//!
//! - [`pipeline`]: the one fit pipeline (resolve `auto` -> build the model ->
//!   give it the matrix it reads -> fit -> name classes and features).
//! - [`data_notes`]: what a curator should know about a table as read.
//! - [`auto`]: the default's choice (evaluate -> decide -> fit), the "no
//!   evidence" rule every model meets, and the count of wrong labels.
//! - [`job`]: the same pipeline on a worker thread, with progress and cancel.
//! - [`demo`]: the embedded demo table, and loading a file or the demo.

pub mod auto;
pub mod data_notes;
pub mod demo;
pub mod inputs;
pub mod job;
pub mod pipeline;

pub use data_notes::data_notes;
pub use demo::{DEMO_NAME, load_or_demo};
pub use inputs::FitInputs;
pub use job::{FitJob, WorkerMsg};
pub use pipeline::{FitPlan, reads_levels};
