//! What a refit knows beyond the given labels: the curator's decisions and
//! the previous fit.
//!
//! The models are latent-label models, so a sample the curator has decided
//! has a *known* true class. A model uses that by pinning the sample's
//! posterior to the decision in its E-step (or its own equivalent: a shift
//! held at zero, a label that is simply correct for a label-trusting
//! baseline), so the decision informs the flip table and the classifier
//! that rank every other sample. A dropped sample is not here at all: the
//! pipeline leaves its row out.
//!
//! Decisions are evidence only as far as *which* samples get decided does
//! not depend on their hidden truth: a curator walking down the model's
//! ranking decides by features and given labels, which the likelihood
//! accounts for. Deciding, say, only the samples known to be flipped
//! would tell the flip table that decided samples are the flipped ones
//! (measured: rlr's ranking of the rest got slightly worse, and probs'
//! flip table far worse), so the tests and `eval --review-curve` decide
//! in ranking order.

use nalgebra::DMatrix;

use super::{Fit, FitError};

/// Decisions and a warm start for one fit; `Guide::default()` is "none".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Guide {
    /// Empty (nothing decided), or one entry per row: the true class the
    /// curator settled (the given label when kept, the new one when
    /// relabelled).
    pub trusted: Vec<Option<usize>>,
    /// The previous fit's posterior over true classes for the same rows, to
    /// start from instead of the given labels.
    pub warm: Option<DMatrix<f64>>,
}

impl Guide {
    /// Whether the guide changes nothing.
    pub fn is_empty(&self) -> bool {
        self.n_trusted() == 0 && self.warm.is_none()
    }

    /// The decided class of row `i`, if any.
    pub fn trusted(&self, i: usize) -> Option<usize> {
        self.trusted.get(i).copied().flatten()
    }

    pub fn n_trusted(&self) -> usize {
        self.trusted.iter().filter(|t| t.is_some()).count()
    }

    /// Checks lengths and class indices against the rows being fitted.
    pub fn check(&self, n: usize, n_classes: usize) -> Result<(), FitError> {
        if !self.trusted.is_empty() && self.trusted.len() != n {
            return Err(FitError::InvalidInput(format!(
                "{} decisions for {n} samples",
                self.trusted.len()
            )));
        }
        if let Some(k) = self.trusted.iter().flatten().find(|&&k| k >= n_classes) {
            return Err(FitError::InvalidInput(format!(
                "a decision names class #{k} of {n_classes}"
            )));
        }
        Ok(())
    }

    /// The warm posterior when it fits this problem (n x K, rows summing to
    /// one), else `None`: a stale warm start is ignored, never trusted.
    pub fn warm_posterior(&self, n: usize, n_classes: usize) -> Option<&DMatrix<f64>> {
        self.warm.as_ref().filter(|w| {
            w.nrows() == n
                && w.ncols() == n_classes
                && w.row_iter().all(|r| {
                    r.iter().all(|v| v.is_finite() && *v >= 0.0) && (r.sum() - 1.0).abs() < 1e-6
                })
        })
    }

    /// The labels with each decided row's decision in place of its given
    /// label: what a model that trusts labels should be fitted on.
    pub fn decided_labels(&self, given: &[usize]) -> Vec<usize> {
        given
            .iter()
            .enumerate()
            .map(|(i, &g)| self.trusted(i).unwrap_or(g))
            .collect()
    }

    /// Sets each decided row of a posterior to its decision (one-hot): the
    /// E-step of a latent-label model for a sample whose label is known.
    pub fn pin(&self, posterior: &mut DMatrix<f64>) {
        for (i, t) in self.trusted.iter().enumerate() {
            if let Some(k) = *t {
                posterior.row_mut(i).fill(0.0);
                posterior[(i, k)] = 1.0;
            }
        }
    }

    /// Pins the decided rows of a finished fit and recomputes its derived
    /// columns against the *given* labels (a relabelled sample's given label
    /// is wrong with probability one, a kept one's with zero).
    pub fn pin_fit(&self, fit: &mut Fit, given: &[usize]) {
        if self.n_trusted() == 0 {
            return;
        }
        self.pin(&mut fit.posterior);
        fit.derive_from_posterior(given);
    }

    /// The equivalent for a model without its own use of decisions: fit on
    /// the decided labels (for a label-trusting baseline this is exact), then
    /// pin the decided rows.
    pub fn fallback(
        &self,
        given: &[usize],
        fit: impl FnOnce(&[usize]) -> Result<Fit, FitError>,
    ) -> Result<Fit, FitError> {
        self.check(given.len(), usize::MAX)?;
        if self.n_trusted() == 0 {
            return fit(given);
        }
        let mut out = fit(&self.decided_labels(given))?;
        self.pin_fit(&mut out, given);
        Ok(out)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn guide(trusted: &[Option<usize>]) -> Guide {
        Guide {
            trusted: trusted.to_vec(),
            warm: None,
        }
    }

    #[test]
    fn decided_labels_replace_only_decided_rows() {
        let g = guide(&[None, Some(0), Some(2)]);
        assert_eq!(g.decided_labels(&[1, 1, 2]), vec![1, 0, 2]);
        assert_eq!(g.n_trusted(), 2);
        assert!(!g.is_empty());
        assert!(Guide::default().is_empty());
    }

    #[test]
    fn check_refuses_wrong_lengths_and_classes() {
        assert!(guide(&[None, Some(1)]).check(2, 2).is_ok());
        assert!(guide(&[None, Some(1)]).check(3, 2).is_err());
        assert!(guide(&[Some(2)]).check(1, 2).is_err());
        assert!(Guide::default().check(5, 2).is_ok());
    }

    #[test]
    fn fallback_fits_on_decisions_and_reports_against_given_labels() {
        let g = guide(&[Some(0), None, Some(1)]);
        let given = [1, 1, 1];
        let mut seen = Vec::new();
        let fit = g
            .fallback(&given, |labels| {
                seen = labels.to_vec();
                Ok(Fit::from_posterior(
                    DMatrix::from_row_slice(3, 2, &[0.3, 0.7, 0.4, 0.6, 0.2, 0.8]),
                    labels,
                ))
            })
            .unwrap();
        assert_eq!(seen, vec![0, 1, 1]);
        // Relabelled 1 -> 0: the given label is wrong for sure.
        assert_eq!(fit.p_mislabel[0], 1.0);
        assert_eq!(fit.suggested[0], 0);
        assert!((fit.p_mislabel[1] - 0.4).abs() < 1e-12);
        assert_eq!(fit.p_mislabel[2], 0.0);
    }

    #[test]
    fn a_warm_start_of_another_shape_is_ignored() {
        let mut g = Guide {
            trusted: Vec::new(),
            warm: Some(DMatrix::from_element(3, 2, 0.5)),
        };
        assert!(g.warm_posterior(3, 2).is_some());
        assert!(g.warm_posterior(4, 2).is_none());
        assert!(g.warm_posterior(3, 3).is_none());
        g.warm = Some(DMatrix::from_element(3, 2, 0.7));
        assert!(g.warm_posterior(3, 2).is_none());
    }
}
