//! relabel: find and fix wrong labels in a dataset.
//!
//! The library is organised by concern (DESIGN §1, docs/ARCHITECTURE.md):
//! `dataset` reads tables, `models` fits label-noise-aware models, `app` is
//! the one pipeline between them and the front ends, `review` keeps the
//! curator's decisions, `analysis` computes what the panes show besides the
//! model, `audit_page` lays a session out as one shareable HTML page, `eval`
//! measures; `cli` (headless) and `tui` (the review screen) are
//! the front ends, which never import each other.
#![forbid(unsafe_code)]

pub mod analysis;
pub mod app;
pub mod atomic_write;
pub mod audit_page;
pub mod cli;
pub mod dataset;
pub mod eval;
pub mod models;
pub mod review;
pub mod rng;
pub mod tui;
