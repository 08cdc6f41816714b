//! What auto may choose: the robust models of the five papers, and what a
//! curator would otherwise run, a plain classifier's out-of-fold class
//! probabilities with the `probs` model's flip table on top (the recipe of
//! cleanlab, Northcutt, Jiang and Chuang 2021, done inside relabel).

use std::sync::Arc;

use nalgebra::DMatrix;

use crate::app::inputs::FitInputs;
use crate::models::{
    Classifier, Control, FitError, Guide, MODELS, ModelInput, ModelOptions, Progress, build_model,
};

/// One candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Candidate {
    /// A model of the registry fitted as it is (`rnda`, `shift`, ...).
    Robust(&'static str),
    /// A classifier that trusts its labels (`lr`, `nda`), whose
    /// out-of-fold probabilities on every row get `probs`' flip table.
    Plain(&'static str),
}

/// The robust models, in the order ties are broken.
pub const ROBUST: &[&str] = &["rnda", "rlr", "shift", "rmda", "cbt"];

/// The plain classifiers: L1 logistic regression and QDA (`nda`, full
/// covariances, where every class has room for one).
pub const PLAIN: &[&str] = &["lr", "nda"];

/// Every candidate, in the order ties are broken.
pub fn all() -> Vec<Candidate> {
    let robust = ROBUST.iter().map(|&m| Candidate::Robust(m));
    robust
        .chain(PLAIN.iter().map(|&m| Candidate::Plain(m)))
        .collect()
}

/// A fitted classifier and the matrix it reads.
pub struct Fitted {
    classifier: Arc<dyn Classifier>,
    input: ModelInput,
}

impl Fitted {
    /// The classifier (for new rows).
    pub fn classifier(&self) -> Arc<dyn Classifier> {
        self.classifier.clone()
    }

    /// P(true | x) for the rows of `inputs`.
    pub fn predict(&self, inputs: &FitInputs<'_>) -> DMatrix<f64> {
        let x = self.input.pick(&inputs.features, inputs.levels.as_ref());
        self.classifier.predict_proba(x)
    }
}

impl Candidate {
    /// The candidate a model's name means, for the held-out check of a
    /// named model; `None` for a name the registry does not know.
    pub fn named(name: &str) -> Option<Candidate> {
        MODELS
            .iter()
            .find(|m| m.name == name)
            .map(|m| Candidate::Robust(m.name))
    }

    /// The candidate a report names ("rnda", "lr+probs").
    pub fn parse(name: &str) -> Option<Candidate> {
        all().into_iter().find(|c| c.name() == name)
    }

    /// "rnda", or "lr+probs" for a classifier under `probs`' flip table.
    pub fn name(&self) -> String {
        match self {
            Candidate::Robust(m) => m.to_string(),
            Candidate::Plain(m) => format!("{m}+probs"),
        }
    }

    /// The model fitted: the robust model itself, or the plain classifier.
    pub fn model(&self) -> &'static str {
        match self {
            Candidate::Robust(m) | Candidate::Plain(m) => m,
        }
    }

    /// Fits the candidate's classifier on `inputs` with `labels`.
    pub fn fit_classifier(
        &self,
        inputs: &FitInputs<'_>,
        labels: &[usize],
        n_classes: usize,
        options: &ModelOptions,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fitted, FitError> {
        let model = build_model(self.model(), options)?;
        let fit = model.fit_inputs(
            &inputs.features,
            inputs.levels.as_ref(),
            labels,
            n_classes,
            &Guide::default(),
            progress,
        )?;
        let classifier = fit.classifier.ok_or_else(|| {
            FitError::NotApplicable(format!("{} cannot classify held-out rows", self.name()))
        })?;
        Ok(Fitted {
            classifier,
            input: model.input(),
        })
    }
}
