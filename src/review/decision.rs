//! What the curator decided about a sample.

use serde::{Deserialize, Serialize};

/// A decision on one sample; "undecided" is `None` where decisions are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    /// The sample's label becomes this class (index into the classes).
    Relabel(usize),
    /// The given label is right.
    Keep,
    /// Leave the sample out of the cleaned file.
    Drop,
}

impl Decision {
    /// A short word for tables and the audit file.
    pub fn describe(&self, classes: &[String]) -> String {
        match self {
            Decision::Relabel(c) => classes.get(*c).cloned().unwrap_or_default(),
            Decision::Keep => "keep".into(),
            Decision::Drop => "drop".into(),
        }
    }
}

/// Which decisions a filter lets through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecisionFilter {
    Undecided,
    Decided,
    Relabelled,
    Kept,
    Dropped,
}

impl DecisionFilter {
    pub const ALL: [DecisionFilter; 5] = [
        Self::Undecided,
        Self::Decided,
        Self::Relabelled,
        Self::Kept,
        Self::Dropped,
    ];

    pub fn admits(self, d: Option<Decision>) -> bool {
        match self {
            Self::Undecided => d.is_none(),
            Self::Decided => d.is_some(),
            Self::Relabelled => matches!(d, Some(Decision::Relabel(_))),
            Self::Kept => d == Some(Decision::Keep),
            Self::Dropped => d == Some(Decision::Drop),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Undecided => "undecided",
            Self::Decided => "decided",
            Self::Relabelled => "relabelled",
            Self::Kept => "kept",
            Self::Dropped => "dropped",
        }
    }
}
