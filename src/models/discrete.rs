//! Models of discrete symbols: the Combined Bayes Test with mislabelled
//! training data (`cbt`) and the Bayesian Data Reduction Algorithm that
//! chooses which features and levels it reads (`bdra`).

pub mod bdra;
pub mod cbt;

/// A column is a set of symbols (codes, answers, counts) when its values are
/// integers with at most this many distinct ones. It is the one definition of
/// "discrete" in relabel: CBT reads such a column as levels rather than
/// quantile bins, and `auto` calls a table discrete when every column is.
/// 32 keeps scales, Likert items and small counts as symbols while a
/// measured quantity that happens to be rounded (hundreds of values) is not.
pub const MAX_DISCRETE_LEVELS: usize = 32;
