//! Gaussian models: class-conditional normal densities (NDA, LDA, rNDA)
//! and Gaussian mixtures (MDA, RMDA), all on one estimation engine
//! (`components`) so that every covariance family and the shrinkage guard
//! behave the same everywhere.

pub mod components;
pub mod kmeans;
pub mod lda;
pub mod mda;
pub mod mixture;
pub mod nda;
pub mod rmda;
pub mod rnda;
pub mod subsample;
