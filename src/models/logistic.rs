//! Logistic models: the weighted L1 logistic solver, the Bayesian choice of
//! its penalty, the classifier they produce, and the two label-noise models
//! built on them (rLR with a flip table, shift-LR with per-sample shifts).

pub mod bayes_lambda;
pub mod classifier;
pub mod l1_logistic;
pub mod ridge_logistic;
pub mod rlr;
pub mod shift;
pub mod theta_choice;
