//! The group shifts (K > 2) moving with theta inside its Newton round.
//!
//! The alternation of [`super::PathRun::solve`] takes a Newton round for
//! theta with the shifts held fixed, then solves the shifts exactly. For a
//! shifted sample that round sees the loss curvature q(1 - q) of its
//! logits, but once the shift re-adjusts, most of a change of the logits
//! is absorbed by it: the objective bends far less along theta than the
//! round assumes, its steps are too short, and the alternation crawls
//! (30-90 rounds a point before Anderson acceleration, ~10 after).
//!
//! Here each class's quadratic model also holds that class's component of
//! every shifted sample's shift, with the second-order model of its
//! penalty lambda ||s_i|| around the current shift (gradient c s_ik,
//! curvature c (1 - u_k^2), c = lambda / ||s_i||, u = s_i / ||s_i||).
//! Minimising the shift component out row by row leaves a weighted
//! least-squares problem of the usual form, with weight w a / (w + a) in
//! place of w (the two curvatures in series) and residual (a r + w g) /
//! (w + a): theta's step is the Newton step of the objective with the
//! shifts minimised out, to second order. Rows with a zero shift stay as
//! they were (the penalty has no curvature to model there; a row entering
//! is found by the exact shift update that follows). The fixed point is
//! unchanged: at exact shifts r = g, so the reduced residual is r and the
//! round is still at rest exactly where theta's optimality conditions
//! hold. Only the points along the path use it; the chosen point's polish
//! takes plain rounds (see `PathRun::solve_until`).

use nalgebra::DMatrix;

use crate::models::logistic::l1_logistic::{Coupled, MIN_CURVATURE};

/// The shifts of one round, moved along with theta class by class.
pub(super) struct CoupledShifts {
    shifts: DMatrix<f64>,
    lambda: f64,
    /// Per row, for the class in hand: the weight and residual before
    /// reduction, the penalty's curvature (NaN: row not coupled) and
    /// gradient.
    w: Vec<f64>,
    r: Vec<f64>,
    a: Vec<f64>,
    g: Vec<f64>,
}

impl CoupledShifts {
    pub(super) fn new(shifts: &DMatrix<f64>, lambda: f64) -> Self {
        let n = shifts.nrows();
        Self {
            shifts: shifts.clone(),
            lambda,
            w: vec![0.0; n],
            r: vec![0.0; n],
            a: vec![f64::NAN; n],
            g: vec![0.0; n],
        }
    }

    fn row_norm(&self, i: usize) -> f64 {
        self.shifts.row(i).iter().map(|v| v * v).sum::<f64>().sqrt()
    }
}

impl Coupled for CoupledShifts {
    fn reduce(&mut self, k: usize, w: &mut [f64], r: &mut [f64]) {
        for i in 0..w.len() {
            let ns = self.row_norm(i);
            if ns == 0.0 {
                self.a[i] = f64::NAN;
                continue;
            }
            let c = self.lambda / ns;
            let u = self.shifts[(i, k)] / ns;
            let (a, g) = (c * (1.0 - u * u), c * self.shifts[(i, k)]);
            let (w0, r0) = (w[i], r[i]);
            (self.w[i], self.r[i], self.a[i], self.g[i]) = (w0, r0, a, g);
            w[i] = (w0 * a / (w0 + a)).max(MIN_CURVATURE);
            r[i] = (r0 * a + w0 * g) / (w0 + a);
        }
    }

    fn absorb(&mut self, k: usize, before: &[f64], eta_k: &mut [f64]) {
        for (i, (e, b)) in eta_k.iter_mut().zip(before).enumerate() {
            let a = self.a[i];
            if a.is_nan() {
                continue;
            }
            // The shift component's minimiser given theta's move delta.
            let (w, delta) = (self.w[i], *e - b);
            let sigma = (self.r[i] - self.g[i] - w * delta) / (w + a);
            self.shifts[(i, k)] += sigma;
            *e += sigma;
        }
    }

    fn penalty(&self) -> f64 {
        self.lambda
            * (0..self.shifts.nrows())
                .map(|i| self.row_norm(i))
                .sum::<f64>()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// min over sigma of one row's class-k model with the exact penalty,
    /// -r (d + s) + w/2 (d + s)^2 + lambda ||shift + s e_k||, and its
    /// minimiser (ternary search: the model is convex in s).
    fn minimised(shift: &[f64], k: usize, lambda: f64, w: f64, r: f64, d: f64) -> (f64, f64) {
        let f = |s: f64| {
            let mut moved = shift.to_vec();
            moved[k] += s;
            let norm = moved.iter().map(|v| v * v).sum::<f64>().sqrt();
            -r * (d + s) + 0.5 * w * (d + s).powi(2) + lambda * norm
        };
        let (mut lo, mut hi) = (-5.0, 5.0);
        for _ in 0..300 {
            let (a, b) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
            if f(a) < f(b) { hi = b } else { lo = a }
        }
        let s = 0.5 * (lo + hi);
        (f(s), s)
    }

    /// The reduced weight and residual are the curvature and slope in
    /// theta's direction of the row's model with its shift minimised out
    /// (at an exact shift, r = c s_k), and `absorb` moves the shift to
    /// that minimiser, to second order.
    #[test]
    fn reduction_is_the_model_with_the_shift_minimised_out() {
        let (shift, lambda, k, w) = ([0.5, -0.2, 0.1], 0.3, 1, 0.2);
        let norm = shift.iter().map(|v| v * v).sum::<f64>().sqrt();
        let r = lambda * shift[k] / norm;
        let mut coupled = CoupledShifts::new(&DMatrix::from_row_slice(1, 3, &shift), lambda);
        let (mut wr, mut rr) = ([w], [r]);
        coupled.reduce(k, &mut wr, &mut rr);
        let h = 1e-3;
        let phi = |d: f64| minimised(&shift, k, lambda, w, r, d).0;
        let slope = (phi(h) - phi(-h)) / (2.0 * h);
        let curvature = (phi(h) - 2.0 * phi(0.0) + phi(-h)) / (h * h);
        assert!((slope + rr[0]).abs() < 1e-6, "{slope} vs {}", -rr[0]);
        assert!(
            (curvature - wr[0]).abs() < 1e-3 * w,
            "{curvature} vs {}",
            wr[0]
        );
        assert!(wr[0] < w, "a shift absorbs part of theta's move");
        let delta = 0.01;
        let mut eta = [delta];
        coupled.absorb(k, &[0.0], &mut eta);
        let sigma = eta[0] - delta;
        let best = minimised(&shift, k, lambda, w, r, delta).1;
        assert!((sigma - best).abs() < 1e-3 * delta, "{sigma} vs {best}");
        assert_eq!(coupled.shifts[(0, k)], shift[k] + sigma);
    }

    /// A row without a shift is left to theta alone.
    #[test]
    fn zero_shifts_are_not_coupled() {
        let mut coupled = CoupledShifts::new(&DMatrix::zeros(1, 3), 0.3);
        let (mut w, mut r) = ([0.2], [0.1]);
        coupled.reduce(0, &mut w, &mut r);
        assert_eq!((w[0], r[0]), (0.2, 0.1));
        let mut eta = [0.5];
        coupled.absorb(0, &[0.0], &mut eta);
        assert_eq!(eta[0], 0.5);
        assert_eq!(coupled.penalty(), 0.0);
    }
}
