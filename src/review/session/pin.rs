//! A refit never changes the row the curator is reading (issue 50): when
//! the fit that learned from their decisions arrives, the selected sample
//! keeps its place in the list and the scores it was shown (the fit before)
//! until the cursor moves; a decision on it applies what was on screen.
//! What the refit changed elsewhere is counted for the screen to say.

use super::Session;
use crate::models::Fit;

/// The selected sample through a refit, with the fit it was shown from.
#[derive(Debug)]
pub(super) struct Pin {
    pub(super) sample: usize,
    fit: Fit,
    model: Option<String>,
    /// Where the sample belongs in the view the new fit gives (`None`:
    /// its scores filter it out), so that moving on puts it there without
    /// sorting a million rows again.
    natural: Option<usize>,
    /// Where it is shown instead (the cursor's place before the refit).
    shown_at: usize,
}

/// What a refit changed among the undecided samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reranked {
    /// Now at or above the threshold, below it before (each fit at the
    /// threshold it was shown with: the fit's own cutoff follows the fit
    /// until the curator sets one).
    pub rose: usize,
    /// Below the threshold now, at or above it before.
    pub fell: usize,
    /// Whose suggested label is another one now.
    pub new_suggestion: usize,
}

impl Reranked {
    pub fn of(
        old: &Fit,
        new: &Fit,
        undecided: impl Fn(usize) -> bool,
        (cut_before, cut_now): (f64, f64),
    ) -> Reranked {
        let mut r = Reranked::default();
        let n = old.p_mislabel.len().min(new.p_mislabel.len());
        for i in (0..n).filter(|&i| undecided(i)) {
            let (was, is) = (
                old.p_mislabel[i] >= cut_before,
                new.p_mislabel[i] >= cut_now,
            );
            r.rose += usize::from(is && !was);
            r.fell += usize::from(was && !is);
            r.new_suggestion +=
                usize::from(old.suggested[i] != new.suggested[i] && new.p_mislabel[i].is_finite());
        }
        r
    }
}

impl Session {
    /// The next fit taken in keeps the selected sample where it is, with
    /// the scores it shows now (see [`Session::fit_of`]).
    pub fn keep_selected_through_next_fit(&mut self) {
        self.pin_next = true;
    }

    /// Pins the selected sample to `old`, the fit it was shown from, when
    /// [`Session::keep_selected_through_next_fit`] asked for it.
    pub(super) fn pin_to(&mut self, old: Option<Fit>) {
        let asked = std::mem::take(&mut self.pin_next);
        let keep = match (&self.pin, old) {
            // Pinned already: it keeps the scores it was first shown.
            (Some(_), _) => return,
            (None, Some(fit)) if asked => fit,
            _ => return,
        };
        if let Some(sample) = self.selected() {
            self.pin = Some(Pin {
                sample,
                fit: keep,
                model: self.model_name.clone(),
                natural: None,
                shown_at: self.cursor,
            });
        }
    }

    /// The fit whose scores `sample` shows: the one before a refit for the
    /// pinned sample, else the current one.
    pub fn fit_of(&self, sample: usize) -> Option<&Fit> {
        match &self.pin {
            Some(p) if p.sample == sample => Some(&p.fit),
            _ => self.fit.as_ref(),
        }
    }

    /// The model that made what `sample` shows.
    pub(super) fn model_of(&self, sample: usize) -> Option<&str> {
        match &self.pin {
            Some(p) if p.sample == sample => p.model.as_deref(),
            _ => self.model_name.as_deref(),
        }
    }

    /// The sample kept in place through the last refit, until the cursor moves.
    pub fn pinned(&self) -> Option<usize> {
        self.pin.as_ref().map(|p| p.sample)
    }

    /// What the last fit taken in changed, when it was a refit.
    pub fn reranked(&self) -> Option<Reranked> {
        self.reranked
    }

    /// Puts the pinned sample back at the cursor's place in a view just
    /// computed (it is shown even if the new scores would filter it out).
    pub(super) fn place_pinned(&mut self) {
        let Some(sample) = self.pinned() else { return };
        let natural = self.view.iter().position(|&s| s == sample);
        if let Some(at) = natural {
            self.view.remove(at);
        }
        let at = self.cursor.min(self.view.len());
        self.view.insert(at, sample);
        self.cursor = at;
        if let Some(pin) = self.pin.as_mut() {
            pin.natural = natural;
            pin.shown_at = at;
        }
    }

    /// The cursor moved: the pinned sample, if any, takes its place in the
    /// new ranking, and the cursor stays on the sample it moved to. The
    /// view is the new ranking but for that one sample, so it is moved,
    /// not sorted again (a key press on a million rows stays cheap).
    pub(super) fn release_pin(&mut self) {
        let Some(pin) = self.pin.take() else { return };
        let Some(target) = self.selected() else {
            return;
        };
        self.view
            .remove(pin.shown_at.min(self.view.len().saturating_sub(1)));
        if let Some(at) = pin.natural {
            self.view.insert(at.min(self.view.len()), pin.sample);
        }
        match self.view.iter().position(|&s| s == target) {
            Some(pos) => self.cursor = pos,
            None => self.cursor = self.cursor.min(self.view.len().saturating_sub(1)),
        }
    }
}
