//! Measuring models: label-noise injection, detection metrics, simulated
//! data drawn from the models, and the papers' experiments.

pub mod cbt_papers;
pub mod detection;
pub mod logistic_papers;
pub mod metrics;
pub mod microarray_papers;
pub mod noise;
pub mod papers;
pub mod review_curve;
pub mod rmda_papers;
pub mod simulate;
