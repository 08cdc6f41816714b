//! Measuring models: label-noise injection, detection metrics, simulated
//! data drawn from the models, and the papers' experiments.

pub mod bdra_papers;
pub mod cbt_papers;
pub mod detection;
pub mod home_ground;
pub mod knn;
pub mod logistic_papers;
pub mod metrics;
pub mod microarray_papers;
pub mod noise;
pub mod paper_table;
pub mod preprocess;
pub mod review_curve;
pub mod rmda_papers;
pub mod rnda_papers;
pub mod shift_papers;
pub mod simulate;
