//! Models of discrete symbols: the Combined Bayes Test with mislabelled
//! training data (`cbt`) and the Bayesian Data Reduction Algorithm that
//! chooses which features and levels it reads (`bdra`).

pub mod bdra;
pub mod cbt;
