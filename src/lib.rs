//! relabel: find and fix wrong labels in a dataset.
//!
//! The library is organised by concern (DESIGN §1): `dataset` reads tables,
//! `models` fits label-noise-aware models, `eval` measures them, `cli` runs
//! them headless.
#![forbid(unsafe_code)]

pub mod atomic_write;
pub mod cli;
pub mod dataset;
pub mod eval;
pub mod models;
pub mod review;
pub mod rng;
pub mod tui;
