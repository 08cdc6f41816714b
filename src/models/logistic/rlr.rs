//! Robust sparse logistic regression (Bootkrajang & Kaban 2013, RLogReg)
//! and its label-trusting baseline BLogReg (`lr`).
//!
//! The true label is latent; the given label follows a flip table
//! `gamma[(true, given)] = P(given | true)` (eq. 3), P(true | x) is a
//! logistic model (eq. 4; softmax for K > 2) with an L1 prior whose weight
//! follows the Bayesian rule lambda = N / sum |w| (eq. 7, Cawley & Talbot
//! 2006, N = number of non-zero weights). The solver is an EM: the E-step is
//! the posterior of the true label (eq. 10), the M-step a soft-target L1
//! logistic fit (`l1_logistic`), then eq. 7 for lambda and the fixed point
//! of eqs. 8-9 (expected flip counts) for gamma. Each step does not lower
//! the penalised likelihood of eq. 5 for the current lambda.

use std::sync::Arc;

use nalgebra::DMatrix;

use crate::models::logistic::bayes_lambda::{
    LAMBDA_RTOL, bayes_lambda, bayes_lambda_from_fit, lambda_floor,
};
use crate::models::logistic::classifier::{LogisticClassifier, selected_features};
use crate::models::logistic::l1_logistic::{self, Coefs, Design, Penalty, Problem};
use crate::models::numerics::relative_change;
use crate::models::numerics::{hold_diagonal, one_hot};
use crate::models::options::{GammaSpec, Iterations, invalid_option};
use crate::models::prologue::{Prologue, Scaling, class_name, step};
use crate::models::squarem::Squarem;
use crate::models::standardize::Standardizer;
use crate::models::{
    Classifier, Control, Fit, FitError, GammaTable, Guide, ModelOptions, ModelReport, Progress,
    RobustModel,
};

/// Diagonal of the starting flip table when none is given.
const INITIAL_KEEP: f64 = 0.9;
/// Times EM may restart from a moved fixed point of eq. 7.
const MAX_LAMBDA_ROUNDS: usize = 20;
/// EM's tolerance, relative to the final one, while lambda may still move:
/// two orders of magnitude above it, as a fixed point off by that much
/// moves the next lambda far less than its search tolerance
/// ([`LAMBDA_RTOL`]).
const LOOSE: f64 = 100.0;

#[derive(Clone, Debug)]
pub struct Rlr {
    /// false: BLogReg, labels trusted.
    robust: bool,
    /// The user's flip table (`gamma`); `None` starts from [`INITIAL_KEEP`].
    gamma: Option<GammaSpec>,
    fix_gamma: bool,
    /// Dirichlet pseudo-count of the flip-table update (`gamma_prior`).
    gamma_prior: f64,
    /// A fixed L1 penalty; `None` follows the Bayesian rule (eq. 7).
    lambda: Option<f64>,
    iterations: Iterations,
}

impl Rlr {
    /// RLogReg: reads `gamma`, `fix_gamma`, `gamma_prior`, `lambda`,
    /// `max_iter` and `tol`.
    pub fn robust(options: &ModelOptions) -> Result<Self, FitError> {
        if !(options.gamma_prior.is_finite() && options.gamma_prior >= 0.0) {
            return Err(invalid_option(
                "gamma_prior",
                "a number >= 0",
                options.gamma_prior,
            ));
        }
        Ok(Self {
            robust: true,
            gamma: options.gamma.as_deref().map(GammaSpec::parse).transpose()?,
            fix_gamma: options.fix_gamma,
            gamma_prior: options.gamma_prior,
            ..Self::baseline(options)?
        })
    }

    /// BLogReg: reads `lambda`, `max_iter` and `tol`.
    pub fn baseline(options: &ModelOptions) -> Result<Self, FitError> {
        Ok(Self {
            robust: false,
            gamma: None,
            fix_gamma: true,
            gamma_prior: 0.0,
            lambda: options.checked_lambda()?,
            iterations: options.checked_iterations()?,
        })
    }
}

impl Rlr {
    /// The flip table EM starts from: the user's, a mostly-diagonal one
    /// (every flip must start possible), or the identity for BLogReg.
    fn initial_gamma(&self, k: usize) -> Result<DMatrix<f64>, FitError> {
        Ok(match (&self.gamma, self.robust) {
            (Some(spec), true) => spec.table(k)?,
            (_, true) => DMatrix::from_fn(k, k, |t, g| {
                if t == g {
                    INITIAL_KEEP
                } else {
                    (1.0 - INITIAL_KEEP) / (k - 1) as f64
                }
            }),
            (_, false) => DMatrix::identity(k, k),
        })
    }
}

/// The E-step (eq. 10): P(true = j | x, given) ∝ P(given | j) P(j | x).
/// A row the curator decided has a known true class d: its posterior is
/// one-hot at d and its likelihood term is P(true = d | x). Returns the
/// posterior and the log-likelihood of the labels.
fn e_step(
    p_true: &DMatrix<f64>,
    gamma: &DMatrix<f64>,
    given: &[usize],
    guide: &Guide,
) -> (DMatrix<f64>, f64) {
    let k = gamma.nrows();
    let mut posterior = DMatrix::zeros(given.len(), k);
    let mut loglik = 0.0;
    for (i, &g) in given.iter().enumerate() {
        if let Some(d) = guide.trusted(i) {
            posterior[(i, d)] = 1.0;
            loglik += p_true[(i, d)].max(1e-300).ln();
            continue;
        }
        let s: f64 = (0..k).map(|j| gamma[(j, g)] * p_true[(i, j)]).sum();
        for j in 0..k {
            posterior[(i, j)] = if s > 0.0 {
                gamma[(j, g)] * p_true[(i, j)] / s
            } else {
                p_true[(i, j)]
            };
        }
        loglik += s.max(1e-300).ln();
    }
    (posterior, loglik)
}

/// Eqs. 8-9: expected flips out of each true class, with `prior`
/// pseudo-counts in every cell (a Dirichlet prior on each row). One pass
/// over the samples fills the whole K x K count table (a pass per cell
/// made it O(nK^2)). A decided row's one-hot posterior makes a relabel
/// an observed flip.
fn update_gamma(gamma: &mut DMatrix<f64>, posterior: &DMatrix<f64>, given: &[usize], prior: f64) {
    let k = gamma.nrows();
    let mut flowed = DMatrix::from_element(k, k, prior);
    for (i, &g) in given.iter().enumerate() {
        for j in 0..k {
            flowed[(j, g)] += posterior[(i, j)];
        }
    }
    for j in 0..k {
        let total: f64 = flowed.row(j).sum();
        if total > 1e-12 {
            // Identifiability (issue 10): a true class that keeps its own
            // label less often than another is the same likelihood as the
            // classes with swapped names. Pooling the diagonal with the
            // larger entries is the constrained maximum of the row.
            let mut row: Vec<f64> = (0..k).map(|g| flowed[(j, g)] / total).collect();
            hold_diagonal(&mut row, j);
            for (g, v) in row.into_iter().enumerate() {
                gamma[(j, g)] = v;
            }
        }
    }
}

/// The true classes whose row of the flip table sits on the dominance
/// constraint (its own label no likelier than another): there the
/// M-step's pooling bound, and the report says so.
fn held_rows(gamma: &DMatrix<f64>) -> Vec<usize> {
    (0..gamma.nrows())
        .filter(|&j| {
            let own = gamma[(j, j)];
            (0..gamma.ncols()).any(|g| g != j && gamma[(j, g)] >= own * (1.0 - 1e-9))
        })
        .collect()
}

/// What the report says of the rows [`held_rows`] found.
fn held_note(rows: &[usize]) -> String {
    let names: Vec<String> = rows.iter().map(|&j| class_name(j)).collect();
    format!(
        "the flip table was held diagonally dominant for true class {}: without the constraint EM gives that \
         class another label at least as often as its own (the same data as swapped class names), \
         so its row is pooled and its p_mislabel says little",
        names.join(", ")
    )
}

/// The L1 penalty: fixed, or by the Bayesian rule (eq. 7), and the L1 fits
/// it took.
struct LambdaState {
    /// The table's lambda (of eq. 5 on all its rows).
    lambda: f64,
    lambda_max: f64,
    /// false: eq. 7 has no fixed point above the floor.
    found: bool,
    fits: usize,
    /// The next M-step searches eq. 7 instead of fitting at `lambda`.
    search: bool,
    /// Searches so far.
    rounds: usize,
    /// Where the first search starts instead of lambda_max.
    hint: Option<f64>,
    /// Eq. 7 held at EM's last fixed point: exact M-steps are solved to
    /// [`EXACT_TOL`]; before that, [`LOOSE`] times it, as EM's own test.
    settled: bool,
}

impl LambdaState {
    /// The M-step for w on the current soft targets: solved fully when
    /// `exact`, else one Newton round from the previous coefficients. The
    /// inexact step still raises eq. 5 (a generalised EM, Dempster, Laird
    /// & Rubin 1977) and EM's own slow progress makes a full solve per
    /// iteration wasted work; EM is only declared converged after an exact
    /// M-step leaves the objective where it was.
    fn m_step(&mut self, problem: &Problem<'_>, coefs: &Coefs, exact: bool) -> Coefs {
        if self.search {
            let start = if self.rounds > 0 {
                Some(self.lambda)
            } else {
                self.hint
            };
            let b = bayes_lambda(problem, self.lambda_max, start, coefs);
            (self.lambda, self.found) = (b.lambda, b.found);
            self.fits += b.fits;
            self.rounds += 1;
            self.search = false;
            b.coefs
        } else {
            self.fits += 1;
            let penalty = Penalty {
                l1: self.lambda,
                l2: 0.0,
            };
            let rounds = if exact { 100 } else { 1 };
            let tol = if self.settled {
                EXACT_TOL
            } else {
                EXACT_TOL * LOOSE
            };
            l1_logistic::fit(problem, penalty, Some(coefs), rounds, tol)
        }
    }

    /// At an EM fixed point: whether eq. 7 still holds at `lambda`; if
    /// not, lambda moves to the fixed point found here and EM goes on
    /// from its current parameters at the new lambda (searching again in
    /// the next M-step would repeat this search on nearly the same
    /// targets).
    fn still_holds(&mut self, problem: &Problem<'_>, coefs: &Coefs) -> bool {
        let b = bayes_lambda_from_fit(problem, self.lambda_max, self.lambda, coefs);
        self.fits += b.fits;
        let holds = (b.lambda / self.lambda - 1.0).abs() <= 2.0 * LAMBDA_RTOL;
        if !holds {
            (self.lambda, self.found) = (b.lambda, b.found);
            self.rounds += 1;
        }
        holds
    }
}

/// Tolerance of an exact M-step once lambda is final (per sample, as in
/// `l1_logistic::fit`). While eq. 7 may still move lambda, EM's fixed
/// point is only solved to [`LOOSE`] times its final tolerance, and the
/// exact M-steps there were most of the Newton rounds at 100k rows (36
/// and 43 rounds at 1e-9: the class-by-class rounds converge linearly).
const EXACT_TOL: f64 = 1e-9;

/// Rows above which the first search for eq. 7's lambda runs on a
/// subsample before the whole table.
const SEARCH_ROWS: usize = 16_384;

/// On a large table, eq. 7's fixed point and its coefficients on every
/// k-th row (a stride keeps the classes' shares on a sorted table). The
/// fixed point is 1 / mean|w|, which does not depend on the row count
/// once the weights are near their maximum-likelihood values, while the
/// path down to it from lambda_max (a sum over rows) is log(n) long: it is
/// walked here on a table of at most [`SEARCH_ROWS`] rows, and the search
/// on the whole table starts from its end, with its coefficients (same
/// standardisation) as the warm start. `None` on smaller tables.
fn subsample_hint(
    x: &DMatrix<f64>,
    standardizer: &Standardizer,
    targets: &DMatrix<f64>,
) -> Option<crate::models::logistic::bayes_lambda::BayesLambda> {
    let n = x.nrows();
    if n <= SEARCH_ROWS {
        return None;
    }
    let rows: Vec<usize> = (0..n).step_by(n.div_ceil(SEARCH_ROWS)).collect();
    let xs = x.select_rows(&rows);
    let ts = targets.select_rows(&rows);
    let p = Problem {
        x: Design::standardized(&xs, standardizer),
        targets: &ts,
        offset: None,
        penalty_factor: None,
    };
    let b = bayes_lambda(
        &p,
        l1_logistic::lambda_max(&p),
        None,
        &Coefs::zeros(x.ncols(), p.n_logits()),
    );
    b.found.then_some(b)
}

/// Lambda, the selected features and whether eq. 7 could be met.
fn report(e: &mut ModelReport, lam: &LambdaState, coefs: &Coefs, standardizer: &Standardizer) {
    e.scalars.push(("lambda".into(), lam.lambda));
    e.scalars
        .push(("n_selected".into(), coefs.n_nonzero() as f64));
    e.lists.push((
        "selected_features".into(),
        selected_features(coefs, standardizer),
    ));
    e.scalars.push(("lambda_max".into(), lam.lambda_max));
    e.scalars.push(("l1_fits".into(), lam.fits as f64));
    if !lam.found {
        e.notes.push(format!(
            "eq. 7 (lambda = N / sum|w|) has no fixed point above lambda = {:.3e}, so lambda \
             was held there: the weights would average over {:.0} per standard deviation of a \
             feature, i.e. the labelled classes are separated; pass --opt lambda=... to choose it",
            lambda_floor(lam.lambda_max),
            1.0 / lambda_floor(lam.lambda_max)
        ));
    }
}

impl RobustModel for Rlr {
    fn name(&self) -> &'static str {
        if self.robust { "rlr" } else { "lr" }
    }

    /// rLR: a decided row's true class is known, so its E-step posterior is
    /// one-hot at the decision (it still counts in the flip table and the
    /// classifier's M-step); a warm posterior replaces the given labels as
    /// EM's start. BLogReg trusts labels, so the decided labels are exact.
    fn fit_guided(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        if !self.robust {
            return guide.fallback(given, |labels| {
                self.em(x, labels, n_classes, &Guide::default(), progress)
            });
        }
        guide.check(given.len(), n_classes)?;
        let mut fit = self.em(x, given, n_classes, guide, progress)?;
        guide.pin_fit(&mut fit, given);
        Ok(fit)
    }
}

/// Where EM starts: the targets of its first M-step and the flip table.
struct Start {
    targets: DMatrix<f64>,
    gamma: DMatrix<f64>,
}

impl Rlr {
    /// The given labels (decided rows at their decision) and the initial
    /// flip table; or, from a warm posterior, that posterior as targets and
    /// the flip table it implies (eqs. 8-9), i.e. EM resumed where the
    /// previous fit's E-step left it.
    fn start(&self, guide: &Guide, given: &[usize], k: usize) -> Result<Start, FitError> {
        let mut gamma = self.initial_gamma(k)?;
        if let (true, Some(warm)) = (self.robust, guide.warm_posterior(given.len(), k)) {
            let mut targets = warm.clone();
            guide.pin(&mut targets);
            if !self.fix_gamma {
                update_gamma(&mut gamma, &targets, given, self.gamma_prior);
            }
            return Ok(Start { targets, gamma });
        }
        Ok(Start {
            targets: one_hot(&guide.decided_labels(given), k),
            gamma,
        })
    }

    fn em(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        k: usize,
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        let Prologue { standardizer, .. } = Prologue::new(x, given, k, false, Scaling::PerFeature)?;
        let table = Rows {
            x,
            standardizer: &standardizer,
            given,
            k,
            guide,
        };
        let out = self.run(table, progress)?;
        let fallback = match self.unidentified(&out, x.ncols()) {
            Some(why) => self
                .on_the_baselines_classifier(table, progress)?
                .map(|fixed| (fixed, why)),
            None => None,
        };
        let (out, note) = match fallback {
            Some((fixed, why)) => (fixed, Some(why.to_string())),
            None => (out, None),
        };
        let empty = out.params.coefs.n_nonzero() == 0;
        let Outcome {
            params,
            posterior,
            converged,
            lam,
            trace,
            iterations,
        } = out;
        let mut fit = Fit::from_posterior(posterior, given);
        if self.robust {
            let held = held_rows(&params.gamma);
            if !self.fix_gamma && !held.is_empty() {
                fit.extra.notes.push(held_note(&held));
            }
            fit.gamma = Some(GammaTable {
                p_given_true: params.gamma,
            });
        }
        fit.trace = trace;
        fit.converged = converged;
        fit.iterations = iterations;
        report(&mut fit.extra, &lam, &params.coefs, &standardizer);
        fit.extra.notes.extend(note);
        if self.fix_gamma && self.robust {
            fit.extra
                .notes
                .push("gamma fixed by the user (RLogReg-F)".into());
        }
        let classifier = LogisticClassifier {
            standardizer,
            coefs: params.coefs,
            n_classes: k,
        };
        // Ties in p_mislabel are broken by the classifier's own doubt of
        // the given label, its P(given | x) lowest first. Every row ties
        // where the flip table is the identity (the ML table on raw
        // colon): the ranking was row order there. An empty classifier
        // doubts every row alike and has no order to add; `auto` is told.
        fit.label_only = empty;
        if empty {
            fit.extra
                .notes
                .push(empty_note(self.robust && !self.fix_gamma));
        } else {
            let p_true = classifier.predict_proba(x);
            let doubt: Vec<f64> = given
                .iter()
                .enumerate()
                .map(|(i, &g)| -p_true[(i, g)])
                .collect();
            fit.suspicion_rank = Some(crate::models::rank_descending(&doubt));
        }
        fit.classifier = Some(Arc::new(classifier));
        Ok(fit)
    }

    /// One EM on `table` from the start's targets (the decided labels, or
    /// a warm posterior). A large table is fitted from there too, not from
    /// a subsample's fixed point: a subsample's weights are steeper (fewer
    /// rows to hold them), so eq. 7's lambda there was 0.46-0.90 of the
    /// table's on five large tables and 0.05 of it on a 60000 x 100 one,
    /// whose EM on every row then spent 325 iterations leaving that basin
    /// (47 s, against 8.6 s from the given labels; docs/RESULTS.md).
    fn run(
        &self,
        table: Rows<'_>,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Outcome, FitError> {
        let Rows { given, guide, .. } = table;
        let decided = table.decided();
        let base = table.problem(&decided);
        let lambda_max = l1_logistic::lambda_max(&base);
        let (lam, first) = self.cold_start(table, &base, lambda_max)?;
        let mut run = Em {
            rlr: self,
            base: &base,
            given,
            guide,
            fix_gamma: self.fix_gamma || !self.robust,
            lam,
            trace: Vec::new(),
            iteration: 0,
            progress,
        };
        let (params, posterior, converged) = if self.robust {
            run.accelerated(first)?
        } else {
            let (posterior, _) = run.evaluate(&first)?;
            (first, posterior, true)
        };
        Ok(Outcome {
            params,
            posterior,
            converged,
            lam: run.lam,
            trace: run.trace,
            iterations: run.iteration,
        })
    }

    /// The penalty's state and EM's first parameters from the start's
    /// targets: the classifier fitted to them, the flip table as given
    /// (eqs. 8-9 on one-hot labels would set it to the identity, a fixed
    /// point, when gamma_prior is 0). Without a flip table to learn, this
    /// one (exact) M-step is the fit.
    fn cold_start(
        &self,
        table: Rows<'_>,
        base: &Problem<'_>,
        lambda_max: f64,
    ) -> Result<(LambdaState, Params), FitError> {
        let Start { targets, gamma } = self.start(table.guide, table.given, base.n_classes())?;
        let hint = if self.lambda.is_none() {
            subsample_hint(table.x, table.standardizer, &targets)
        } else {
            None
        };
        let mut lam = LambdaState {
            lambda: self.lambda.unwrap_or(lambda_max),
            lambda_max,
            found: true,
            fits: hint.as_ref().map_or(0, |h| h.fits),
            search: self.lambda.is_none(),
            rounds: 0,
            hint: hint.as_ref().map(|h| h.lambda),
            settled: self.lambda.is_some(),
        };
        let problem = Problem {
            targets: &targets,
            ..*base
        };
        let warm = hint.map_or_else(
            || Coefs::zeros(table.x.ncols(), base.n_logits()),
            |h| h.coefs,
        );
        let coefs = lam.m_step(&problem, &warm, !self.robust);
        Ok((lam, Params { coefs, gamma }))
    }
}

/// What the report says when [`Rlr::unidentified`] held.
const FLAT_NOTE: &str = "robust EM with eq. 7's lambda kept no feature, so its flip table was not \
    identified by the data (a constant classifier explains the labels equally well with any table of \
    the same label shares); the classifier is BLogReg's (eq. 7 on the given labels) and the flip \
    table is fitted under it";

/// What the report says when the classifier kept no feature at all
/// (eq. 7's lambda, robust and BLogReg's alike, above every weight's
/// share: colon with 30% of its labels flipped ends so in half the draws).
fn empty_note(learns_gamma: bool) -> String {
    let table = if learns_gamma {
        "; its flip table is not identified either (any table with the same label shares fits equally), \
         so the expected count of wrong labels is the start's, not the data's"
    } else {
        ""
    };
    format!(
        "the classifier kept no feature: P(true | x) is the same for every sample, so every sample \
         with the same given label has the same p_mislabel and this fit cannot rank them{table}; \
         try shift, or fix a smaller L1 penalty with --opt lambda=..."
    )
}

const HELD_NOTE: &str = "robust EM with eq. 7's lambda ended with a row of its flip table on the \
    dominance constraint (it would give that true class another label at least as often as its own, \
    the same data as swapped class names), so its flip table was not identified by the data; the \
    classifier is BLogReg's (eq. 7 on the given labels) and the flip table is fitted under it";

impl Rlr {
    /// Why EM with the Bayesian lambda left its flip table unidentified,
    /// if it did: it ended at the empty classifier, or with a row held on
    /// the dominance constraint (EM's own optimum there is a class mostly
    /// relabelled, which the data cannot tell from swapped class names; an
    /// 80 x 300 Synth draw ended so, with one feature and AUROC 0.45).
    /// At the empty classifier P(true | x) is one constant, and P(given) =
    /// sum_j gamma[j, g] pi_j is all the likelihood sees: every (pi, gamma) with the same
    /// label shares fits equally, so the flip table, and every p_mislabel
    /// it implies, is the start's and the pseudo-counts', not the data's,
    /// and the ranking depends on the given label alone. With few rows and
    /// much noise eq. 7 has no other fixed point: on colon (62 rows, 2000
    /// genes) with a fifth of the labels flipped, the E-step's soft
    /// targets shrink every weight's share of the fit until N / sum|w|
    /// exceeds lambda at every lambda with a weight (the paper warns that
    /// its flip table needs more data than its classifier, section 2.5).
    /// A lambda the user fixed is theirs to keep.
    fn unidentified(&self, out: &Outcome, d: usize) -> Option<&'static str> {
        if !self.robust || self.fix_gamma || self.lambda.is_some() || d == 0 {
            return None;
        }
        if out.params.coefs.n_nonzero() == 0 {
            Some(FLAT_NOTE)
        } else if !held_rows(&out.params.gamma).is_empty() {
            Some(HELD_NOTE)
        } else {
            None
        }
    }

    /// The paper's own small-sample fallback (section 3.3.3: with too few
    /// rows for the flip table its EM goes to the identity and the weights
    /// to BLogReg's): BLogReg's classifier, eq. 7 on the given labels, and
    /// the flip table that best explains the given labels under it, by EM
    /// over the table alone (eqs. 8-9 with the classifier held). The table
    /// is identified there because P(true | x) varies with x. `None` when
    /// BLogReg keeps no feature either.
    fn on_the_baselines_classifier(
        &self,
        table: Rows<'_>,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Option<Outcome>, FitError> {
        let Rows {
            given, k, guide, ..
        } = table;
        let baseline = Rlr {
            robust: false,
            fix_gamma: true,
            ..self.clone()
        };
        let base = baseline.run(table, progress)?;
        if base.params.coefs.n_nonzero() == 0 {
            return Ok(None);
        }
        let decided = table.decided();
        let problem = table.problem(&decided);
        let coefs = base.params.coefs;
        let p_true = l1_logistic::probabilities(&l1_logistic::linear(&problem, &coefs), k);
        let penalty = base.lam.lambda * coefs.l1();
        let prior = self.gamma_prior;
        let mut gamma = self.initial_gamma(k)?;
        let mut trace = Vec::new();
        let mut converged = false;
        let max = self.iterations.max_iter;
        let (mut posterior, mut loglik) = e_step(&p_true, &gamma, given, guide);
        for iteration in 1..=max {
            trace.push(loglik - penalty);
            step(
                progress,
                Progress {
                    stage: "EM (flip table)",
                    iteration,
                    max_iterations: max,
                    objective: loglik - penalty,
                    fraction: (iteration as f64 / max as f64).min(1.0),
                },
            )?;
            update_gamma(&mut gamma, &posterior, given, prior);
            let before = loglik;
            (posterior, loglik) = e_step(&p_true, &gamma, given, guide);
            if relative_change(before, loglik) < self.iterations.tol.max(1e-12) {
                converged = true;
                break;
            }
        }
        trace.push(loglik - penalty);
        Ok(Some(Outcome {
            iterations: trace.len(),
            params: Params { coefs, gamma },
            posterior,
            converged,
            lam: base.lam,
            trace,
        }))
    }
}

/// The rows one EM runs on: features, their scaling, given labels,
/// classes and the curator's decisions.
#[derive(Clone, Copy)]
struct Rows<'a> {
    x: &'a DMatrix<f64>,
    standardizer: &'a Standardizer,
    given: &'a [usize],
    k: usize,
    guide: &'a Guide,
}

impl<'a> Rows<'a> {
    /// The labels as decided (given where undecided), one-hot.
    fn decided(&self) -> DMatrix<f64> {
        one_hot(&self.guide.decided_labels(self.given), self.k)
    }

    /// The classifier's problem on the standardised rows with `targets`
    /// ([`Rows::decided`]: what EM's M-steps replace the targets of).
    fn problem(&self, targets: &'a DMatrix<f64>) -> Problem<'a> {
        Problem {
            x: Design::standardized(self.x, self.standardizer),
            targets,
            offset: None,
            penalty_factor: None,
        }
    }
}

/// What one EM run ended with.
struct Outcome {
    params: Params,
    /// The E-step posterior at `params`.
    posterior: DMatrix<f64>,
    converged: bool,
    lam: LambdaState,
    trace: Vec<f64>,
    /// E-steps.
    iterations: usize,
}

/// EM's parameters between steps: the classifier and the flip table.
#[derive(Clone, Debug)]
struct Params {
    coefs: Coefs,
    gamma: DMatrix<f64>,
}

impl Params {
    /// One vector, for the extrapolation.
    fn flat(&self) -> Vec<f64> {
        let mut v = self.coefs.flat();
        v.extend_from_slice(self.gamma.as_slice());
        v
    }

    /// Parameters of this shape from a vector, or `None` when the vector
    /// leaves the parameter space: a flip-table cell that is positive here
    /// but not in the vector. Clipping such a cell at 0 instead made it an
    /// exact zero EM can never leave (with `gamma_prior=0` on colon every
    /// p_mislabel became exactly 0 and the ranking the row order). Rows
    /// stay sums of one, as affine combinations of such rows.
    fn reshaped(&self, v: &[f64]) -> Option<Params> {
        let c = self.coefs.intercept.len();
        let b = self.coefs.beta.len();
        let cells = &v[c + b..];
        let inside = cells
            .iter()
            .zip(self.gamma.iter())
            .all(|(new, now)| *new > 0.0 || (*now == 0.0 && *new == 0.0));
        if !inside {
            return None;
        }
        let coefs = self.coefs.with_flat(v);
        let mut gamma = self.gamma.clone();
        gamma.as_mut_slice().copy_from_slice(cells);
        for mut row in gamma.row_iter_mut() {
            let total = row.sum();
            row /= total;
        }
        Some(Params { coefs, gamma })
    }
}

/// One EM run: the problem, the penalty's state, the objective trace.
struct Em<'a, 'p> {
    rlr: &'a Rlr,
    base: &'a Problem<'a>,
    given: &'a [usize],
    guide: &'a Guide,
    fix_gamma: bool,
    lam: LambdaState,
    trace: Vec<f64>,
    /// E-steps so far (the iteration count and budget).
    iteration: usize,
    progress: &'p mut dyn FnMut(Progress) -> Control,
}

impl Em<'_, '_> {
    /// The E-step at `params` (eq. 10) and eq. 5 there, recorded in the trace.
    fn evaluate(&mut self, params: &Params) -> Result<(DMatrix<f64>, f64), FitError> {
        let k = params.gamma.nrows();
        let p_true = l1_logistic::probabilities(&l1_logistic::linear(self.base, &params.coefs), k);
        let (mut posterior, loglik) = e_step(&p_true, &params.gamma, self.given, self.guide);
        if !self.rlr.robust {
            posterior = p_true;
        }
        let objective =
            loglik + self.log_prior(&params.gamma) - self.lam.lambda * params.coefs.l1();
        self.iteration += 1;
        self.trace.push(objective);
        let max = self.rlr.iterations.max_iter;
        step(
            self.progress,
            Progress {
                stage: "EM",
                iteration: self.iteration,
                max_iterations: max,
                objective,
                fraction: (self.iteration as f64 / max as f64).min(1.0),
            },
        )?;
        Ok((posterior, objective))
    }

    /// The flip table's log Dirichlet prior (up to a constant): the M-step
    /// maximises the likelihood plus this, so EM's objective and its tests
    /// (convergence, SQUAREM's acceptance) must count it too. Left out, the
    /// monitored value could fall at every step while EM rose: on 20
    /// classes (380 cells of pseudo-counts) it fell by 1e-7 of itself per
    /// iteration and EM ran to its cap.
    fn log_prior(&self, gamma: &DMatrix<f64>) -> f64 {
        let prior = self.rlr.gamma_prior;
        if self.fix_gamma || prior == 0.0 {
            return 0.0;
        }
        prior
            * gamma
                .iter()
                .map(|v| v.max(f64::MIN_POSITIVE).ln())
                .sum::<f64>()
    }

    /// The M-step from the E-step's posterior: eqs. 8-9 for the flip table
    /// (unless fixed), the classifier on the posterior as soft targets.
    fn m_step(&mut self, params: Params, posterior: &DMatrix<f64>, exact: bool) -> Params {
        let Params { coefs, mut gamma } = params;
        if !self.fix_gamma {
            update_gamma(&mut gamma, posterior, self.given, self.rlr.gamma_prior);
        }
        let problem = Problem {
            targets: posterior,
            ..*self.base
        };
        let coefs = self.lam.m_step(&problem, &coefs, exact);
        Params { coefs, gamma }
    }

    /// EM at a fixed lambda, accelerated by SQUAREM: two plain steps, then
    /// the extrapolated point if it does not lower eq. 5 below the first
    /// step's value, else the second step. Convergence is judged on a
    /// plain step, as without acceleration: settled on inexact M-steps,
    /// confirmed by an exact one. Re-choosing lambda in every EM step
    /// cycles (the bracket lands on a slightly different lambda and N
    /// jumps), so eq. 7 is re-checked at the converged point; a moved
    /// fixed point restarts EM from there. Returns the last parameters,
    /// their E-step posterior and whether EM converged.
    fn accelerated(
        &mut self,
        mut params: Params,
    ) -> Result<(Params, DMatrix<f64>, bool), FitError> {
        let opts = self.rlr.iterations;
        let tol = opts.tol.max(1e-9);
        let mut squarem = Squarem::default();
        let mut known = None;
        let mut exact = false;
        // Until eq. 7 holds, EM's fixed point only tells lambda where to
        // go next; it is solved to the final tolerance once lambda stays.
        let mut lambda_final = self.rlr.lambda.is_some();
        loop {
            let (p0, l0) = match known.take() {
                Some(e) => e,
                None => self.evaluate(&params)?,
            };
            if self.iteration >= opts.max_iter {
                return Ok((params, p0, false));
            }
            let t1 = self.m_step(params.clone(), &p0, exact);
            let (p1, l1) = self.evaluate(&t1)?;
            let phase_tol = if lambda_final { tol } else { tol * LOOSE };
            if relative_change(l0, l1) < phase_tol {
                let mut l1 = l1;
                if exact {
                    let before = self.lam.lambda;
                    let holds = self.rlr.lambda.is_some()
                        || self.lam.rounds >= MAX_LAMBDA_ROUNDS
                        || self.lam.still_holds(
                            &Problem {
                                targets: &p0,
                                ..*self.base
                            },
                            &t1.coefs,
                        );
                    if holds && lambda_final {
                        return Ok((t1, p1, true));
                    }
                    if !holds {
                        squarem = Squarem::default();
                        // Eq. 5 at the new lambda, for the next comparison.
                        l1 += (before - self.lam.lambda) * t1.coefs.l1();
                    }
                    lambda_final = holds;
                    self.lam.settled = holds;
                }
                // Settled on inexact M-steps: confirm with an exact one;
                // or lambda moved: EM again from here at the new lambda.
                exact = !exact;
                (params, known) = (t1, Some((p1, l1)));
                continue;
            }
            exact = false;
            if self.iteration >= opts.max_iter {
                return Ok((t1, p1, false));
            }
            let t2 = self.m_step(t1.clone(), &p1, false);
            let flat = [params.flat(), t1.flat(), t2.flat()];
            params = match squarem.extrapolate(&flat[0], &flat[1], &flat[2]) {
                Some((v, a)) if a > 1.0 => match t2.reshaped(&v) {
                    Some(jumped) => {
                        let (px, lx) = self.evaluate(&jumped)?;
                        if lx.is_finite() && lx >= l1 {
                            known = Some((px, lx));
                            jumped
                        } else {
                            // Not a point of the EM path: out of the trace.
                            self.trace.pop();
                            squarem.rejected(a);
                            t2
                        }
                    }
                    None => {
                        squarem.rejected(a);
                        t2
                    }
                },
                _ => t2,
            };
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::eval::metrics::auroc;
    use crate::models::no_progress;
    use crate::rng::Rng;

    /// A posterior whose expected flows give true class 1 its own label
    /// less often than class 0's (on colon, with 2000 genes and 62 rows,
    /// EM went there and kept no gene): the M-step pools that row at the
    /// constraint, leaves the dominant row as it is, and says which row.
    #[test]
    fn the_flip_table_stays_diagonally_dominant() {
        let posterior = DMatrix::from_row_slice(4, 2, &[1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]);
        let given = [0, 0, 0, 1];
        let mut gamma = DMatrix::identity(2, 2);
        update_gamma(&mut gamma, &posterior, &given, 0.0);
        // Row 1 would be (2/3, 1/3): pooled to (1/2, 1/2); row 0 stays (1, 0).
        assert!((gamma[(1, 0)] - 0.5).abs() < 1e-12 && (gamma[(1, 1)] - 0.5).abs() < 1e-12);
        assert_eq!((gamma[(0, 0)], gamma[(0, 1)]), (1.0, 0.0));
        assert_eq!(held_rows(&gamma), vec![1]);
        assert!(held_note(&[1]).contains("class #1"));
        let free = DMatrix::from_row_slice(2, 2, &[0.9, 0.1, 0.3, 0.7]);
        assert!(held_rows(&free).is_empty());
    }

    /// Data drawn from the model: 3 relevant of `d` Gaussian features,
    /// w = 10/3 each (Bootkrajang & Kaban's Synth setting), true labels
    /// by the logistic model, then flips by `gamma`.
    fn synth(
        n: usize,
        d: usize,
        gamma: &DMatrix<f64>,
        seed: u64,
    ) -> (DMatrix<f64>, Vec<usize>, Vec<usize>) {
        let mut rng = Rng::new(seed);
        let x = DMatrix::from_fn(n, d, |_, _| rng.normal());
        let mut truth = Vec::new();
        let mut given = Vec::new();
        for i in 0..n {
            let eta: f64 = (0..3).map(|j| 10.0 / 3.0 * x[(i, j)]).sum();
            let t = usize::from(rng.uniform() < crate::models::numerics::sigmoid(eta));
            let g = usize::from(rng.uniform() < gamma[(t, 1)]);
            truth.push(t);
            given.push(g);
        }
        (x, truth, given)
    }

    #[test]
    fn recovers_a_one_sided_flip_table_and_the_relevant_features() {
        // 30% of class 0 labelled 1, class 1 clean.
        let truth_gamma = DMatrix::from_row_slice(2, 2, &[0.7, 0.3, 0.0, 1.0]);
        let (x, truth, given) = synth(1000, 20, &truth_gamma, 1);
        let f = Rlr::robust(&ModelOptions::default())
            .unwrap()
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        let g = &f.gamma.as_ref().unwrap().p_given_true;
        assert!((g[(0, 1)] - 0.3).abs() < 0.06, "{g}");
        assert!(g[(1, 0)] < 0.06, "{g}");
        let selected = &f.extra.lists[0].1;
        for j in 0..3 {
            assert!(
                selected.iter().any(|s| s.starts_with(&format!("#{j} "))),
                "{selected:?}"
            );
        }
        let flipped: Vec<bool> = truth.iter().zip(&given).map(|(t, g)| t != g).collect();
        let robust = auroc(&f.p_mislabel, &flipped).unwrap();
        let plain = Rlr::baseline(&ModelOptions::default())
            .unwrap()
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        let baseline = auroc(&plain.p_mislabel, &flipped).unwrap();
        assert!(robust > baseline, "rlr {robust:.3} vs lr {baseline:.3}");
        assert!(robust > 0.9, "{robust}");
    }

    /// EM maximises the likelihood plus the flip table's Dirichlet prior,
    /// so that sum must never fall along its trace (at a fixed lambda, as
    /// eq. 7 moving lambda changes the objective). Monitoring the
    /// likelihood alone, it fell at every step near the end on many classes
    /// and EM ran to its cap.
    #[test]
    fn em_never_lowers_the_objective_it_maximises() {
        let (n, d, k) = (900, 6, 6);
        let mut rng = Rng::new(5);
        let truth: Vec<usize> = (0..n).map(|i| i % k).collect();
        let x = DMatrix::from_fn(n, d, |i, j| {
            rng.normal() + if j == truth[i] % d { 2.0 } else { 0.0 }
        });
        let given: Vec<usize> = truth
            .iter()
            .map(|&t| {
                if rng.uniform() < 0.25 {
                    (t + 1 + rng.below(k - 1)) % k
                } else {
                    t
                }
            })
            .collect();
        let options = ModelOptions {
            lambda: Some(2.0),
            ..ModelOptions::default()
        };
        let f = Rlr::robust(&options)
            .unwrap()
            .fit(&x, &given, k, &mut no_progress())
            .unwrap();
        assert!(f.converged, "{} iterations", f.iterations);
        for (i, w) in f.trace.windows(2).enumerate() {
            assert!(
                w[1] >= w[0] - 1e-9 * w[0].abs(),
                "step {i}: {} -> {}",
                w[0],
                w[1]
            );
        }
    }

    /// The paper's maximum-likelihood flip table (no pseudo-counts) starts
    /// from the initial table, not from the given labels' counts, which
    /// are the identity: a fixed point EM could never leave.
    #[test]
    fn the_maximum_likelihood_flip_table_starts_from_the_initial_one() {
        let truth_gamma = DMatrix::from_row_slice(2, 2, &[0.7, 0.3, 0.0, 1.0]);
        let (x, _, given) = synth(1000, 20, &truth_gamma, 1);
        let options = ModelOptions {
            gamma_prior: 0.0,
            ..ModelOptions::default()
        };
        let f = Rlr::robust(&options)
            .unwrap()
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        let g = &f.gamma.as_ref().unwrap().p_given_true;
        assert!((g[(0, 1)] - 0.3).abs() < 0.06, "{g}");
    }

    /// The paper's Synth setting on 80 rows and 300 features with 15% of
    /// the labels flipped both ways: robust EM with eq. 7's lambda kept no
    /// feature there (every p_mislabel then depended on the given label
    /// alone, AUROC about 0.5), or (seed 7) one feature with a flip-table
    /// row held on the dominance constraint (AUROC 0.45), while BLogReg on
    /// the same labels keeps some. The fit is now BLogReg's classifier with
    /// the flip table fitted under it, and says so.
    #[test]
    fn an_unidentified_flip_table_falls_back_to_blogregs() {
        let g = DMatrix::from_row_slice(2, 2, &[0.85, 0.15, 0.15, 0.85]);
        for seed in [2, 7] {
            let (x, truth, given) = synth(80, 300, &g, seed);
            let f = Rlr::robust(&ModelOptions::default())
                .unwrap()
                .fit(&x, &given, 2, &mut no_progress())
                .unwrap();
            assert!(
                f.extra.notes.iter().any(|n| n.contains("not identified")),
                "seed {seed}: {:?}",
                f.extra.notes
            );
            assert!(f.extra.scalar("n_selected").unwrap() > 0.0);
            let gamma = &f.gamma.as_ref().unwrap().p_given_true;
            assert!(gamma[(0, 0)] > 0.5 && gamma[(1, 1)] > 0.5, "{gamma}");
            let flipped: Vec<bool> = truth.iter().zip(&given).map(|(t, g)| t != g).collect();
            let a = auroc(&f.p_mislabel, &flipped).unwrap();
            assert!(a > 0.7, "seed {seed}: AUROC {a}");
            assert!(f.converged);
        }
    }

    /// Labels that no feature predicts: eq. 7 keeps no feature, robust
    /// or BLogReg's, so the fit can tell no two samples of a label apart.
    /// It must say so and add no order of its own (row order is none),
    /// so that `auto` can see it ranks nothing.
    #[test]
    fn an_empty_classifier_says_it_cannot_rank() {
        let mut rng = Rng::new(5);
        let x = DMatrix::from_fn(40, 200, |_, _| rng.normal());
        let given: Vec<usize> = (0..40).map(|_| usize::from(rng.uniform() < 0.5)).collect();
        let f = Rlr::robust(&ModelOptions::default())
            .unwrap()
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        assert_eq!(f.extra.scalar("n_selected"), Some(0.0));
        assert!(f.suspicion_rank.is_none());
        assert!(f.label_only);
        assert!(
            f.extra
                .notes
                .iter()
                .any(|n| n.starts_with("the classifier kept no feature")
                    && n.contains("not identified")),
            "{:?}",
            f.extra.notes
        );
    }

    #[test]
    fn an_identity_flip_table_ranks_by_the_classifiers_doubt_not_row_order() {
        // A flip table held at the identity calls every label right, so
        // every p_mislabel is 0: the order must still say which labels
        // the classifier doubts.
        let (x, truth, given) = synth(
            400,
            5,
            &DMatrix::from_row_slice(2, 2, &[0.8, 0.2, 0.2, 0.8]),
            3,
        );
        let f = Rlr::robust(&ModelOptions {
            gamma: Some("1,0;0,1".into()),
            fix_gamma: true,
            ..ModelOptions::default()
        })
        .unwrap()
        .fit(&x, &given, 2, &mut no_progress())
        .unwrap();
        assert!(f.p_mislabel.iter().all(|p| *p == 0.0));
        let order = f.ranking();
        let mut place = vec![0.0; order.len()];
        for (r, &i) in order.iter().enumerate() {
            place[i] = -(r as f64);
        }
        let flipped: Vec<bool> = truth.iter().zip(&given).map(|(t, g)| t != g).collect();
        let a = auroc(&place, &flipped).unwrap();
        assert!(a > 0.8, "{a}");
    }

    #[test]
    fn a_fixed_gamma_stays_fixed_and_three_classes_work() {
        let opts = ModelOptions {
            gamma: Some("0.8,0.1,0.1;0.1,0.8,0.1;0.1,0.1,0.8".into()),
            fix_gamma: true,
            ..ModelOptions::default()
        };
        let mut rng = Rng::new(2);
        let given: Vec<usize> = (0..300).map(|i| i % 3).collect();
        let x = DMatrix::from_fn(
            300,
            4,
            |i, j| if j == given[i] { 3.0 } else { 0.0 } + rng.normal(),
        );
        let f = Rlr::robust(&opts)
            .unwrap()
            .fit(&x, &given, 3, &mut no_progress())
            .unwrap();
        assert_eq!(f.gamma.unwrap().p_given_true[(0, 0)], 0.8);
        assert!(f.p_mislabel.iter().all(|p| p.is_finite()));
        let proba = f.classifier.unwrap().predict_proba(&x);
        assert!((proba.row(0).sum() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_bayesian_lambda_satisfies_its_rule_at_convergence() {
        let g = DMatrix::from_row_slice(2, 2, &[0.9, 0.1, 0.1, 0.9]);
        let (x, _, given) = synth(400, 10, &g, 3);
        let f = Rlr::baseline(&ModelOptions::default())
            .unwrap()
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        assert!(f.converged);
        let lambda = f.extra.scalar("lambda").unwrap();
        assert!(lambda > 0.0 && lambda.is_finite());
    }

    #[test]
    fn cancel_and_determinism() {
        let g = DMatrix::from_row_slice(2, 2, &[0.8, 0.2, 0.2, 0.8]);
        let (x, _, given) = synth(200, 5, &g, 4);
        let err = Rlr::robust(&ModelOptions::default())
            .unwrap()
            .fit(&x, &given, 2, &mut |_| Control::Stop)
            .unwrap_err();
        assert_eq!(err, FitError::Cancelled);
        let a = Rlr::robust(&ModelOptions::default())
            .unwrap()
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        let b = Rlr::robust(&ModelOptions::default())
            .unwrap()
            .fit(&x, &given, 2, &mut no_progress())
            .unwrap();
        assert_eq!(a.p_mislabel, b.p_mislabel);
    }

    /// Data from the model with a two-sided flip table, a cold fit, and a
    /// guide deciding its `decided` most suspect samples correctly, as a
    /// curator would: relabelling the flipped ones, keeping the rest. Which
    /// rows are decided depends on the features and given labels only (not
    /// on the truth), the condition under which decisions are evidence the
    /// likelihood may use as it is.
    struct Guided {
        x: DMatrix<f64>,
        truth: Vec<usize>,
        given: Vec<usize>,
        cold: Fit,
        guide: Guide,
    }

    fn guided(decided: usize) -> Guided {
        let g = DMatrix::from_row_slice(2, 2, &[0.7, 0.3, 0.15, 0.85]);
        let (x, truth, given) = synth(500, 5, &g, 11);
        let model = Rlr::robust(&ModelOptions::default()).unwrap();
        let cold = model.fit(&x, &given, 2, &mut no_progress()).unwrap();
        let mut trusted = vec![None; given.len()];
        cold.ranking()
            .into_iter()
            .take(decided)
            .for_each(|i| trusted[i] = Some(truth[i]));
        assert!(
            trusted
                .iter()
                .enumerate()
                .any(|(i, t)| t.is_some_and(|t| t != given[i]))
                || decided == 0
        );
        let guide = Guide {
            trusted,
            warm: None,
        };
        Guided {
            x,
            truth,
            given,
            cold,
            guide,
        }
    }

    /// |estimated - realised| summed over the off-diagonal of the flip
    /// table, the realised one counted from the draw itself.
    fn flip_table_error(f: &Fit, truth: &[usize], given: &[usize]) -> f64 {
        let est = &f.gamma.as_ref().unwrap().p_given_true;
        let mut err = 0.0;
        for t in 0..2 {
            let of_t: Vec<usize> = (0..truth.len()).filter(|&i| truth[i] == t).collect();
            let flipped = of_t.iter().filter(|&&i| given[i] != t).count();
            err += (est[(t, 1 - t)] - flipped as f64 / of_t.len() as f64).abs();
        }
        err
    }

    #[test]
    fn decided_flips_are_pinned_sharpen_the_flip_table_and_keep_the_ranking() {
        let s = guided(40);
        let model = Rlr::robust(&ModelOptions::default()).unwrap();
        let f = model
            .fit_guided(&s.x, &s.given, 2, &s.guide, &mut no_progress())
            .unwrap();
        for (i, t) in s.guide.trusted.iter().enumerate() {
            if let Some(t) = *t {
                assert_eq!(f.posterior[(i, t)], 1.0, "row {i}");
                let wrong = f64::from(u8::from(t != s.given[i]));
                assert_eq!(f.p_mislabel[i], wrong, "row {i}");
                assert_eq!(f.suggested[i], t);
            }
        }
        let open: Vec<usize> = (0..s.given.len())
            .filter(|&i| s.guide.trusted(i).is_none())
            .collect();
        let flipped: Vec<bool> = open.iter().map(|&i| s.truth[i] != s.given[i]).collect();
        let score = |fit: &Fit| {
            let p: Vec<f64> = open.iter().map(|&i| fit.p_mislabel[i]).collect();
            auroc(&p, &flipped).unwrap()
        };
        let (before, after) = (score(&s.cold), score(&f));
        assert!(after >= before - 0.005, "AUROC {before:.4} -> {after:.4}");
        let (e0, e1) = (
            flip_table_error(&s.cold, &s.truth, &s.given),
            flip_table_error(&f, &s.truth, &s.given),
        );
        assert!(e1 < e0, "flip-table error {e0:.4} -> {e1:.4}");
    }

    #[test]
    fn a_warm_start_from_a_fit_reaches_it_again_in_fewer_iterations() {
        let s = guided(0);
        let model = Rlr::robust(&ModelOptions::default()).unwrap();
        let guide = Guide {
            trusted: Vec::new(),
            warm: Some(s.cold.posterior.clone()),
        };
        let warm = model
            .fit_guided(&s.x, &s.given, 2, &guide, &mut no_progress())
            .unwrap();
        let gap = warm
            .p_mislabel
            .iter()
            .zip(&s.cold.p_mislabel)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(gap < 0.01, "p_mislabel moved by {gap}");
        assert!(warm.converged);
        assert!(
            warm.iterations <= s.cold.iterations,
            "{} > {}",
            warm.iterations,
            s.cold.iterations
        );
    }

    #[test]
    fn the_baseline_fits_on_decisions() {
        let s = guided(10);
        let f = Rlr::baseline(&ModelOptions::default())
            .unwrap()
            .fit_guided(&s.x, &s.given, 2, &s.guide, &mut no_progress())
            .unwrap();
        let i = s.guide.trusted.iter().position(Option::is_some).unwrap();
        assert_eq!(f.p_mislabel[i], 1.0);
    }

    #[test]
    fn a_gamma_for_another_number_of_classes_fails_at_fit_time() {
        let opts = ModelOptions {
            gamma: Some("0.1,0.2,0.3".into()),
            ..ModelOptions::default()
        };
        let x = DMatrix::from_element(4, 1, 1.0);
        let e = Rlr::robust(&opts)
            .unwrap()
            .fit(&x, &[0, 1, 0, 1], 2, &mut no_progress())
            .unwrap_err();
        assert!(e.to_string().contains("3 flip rates for 2 classes"), "{e}");
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod option_tests {
    use super::*;

    crate::models::rejects_option! {
        gamma_row_not_summing_to_1: Rlr::robust, "gamma" = "0.9,0.2;0.1,0.9";
        gamma_not_a_number: Rlr::robust, "gamma" = "0.9,x";
        gamma_not_a_probability: Rlr::robust, "gamma" = "1.5,0";
        negative_gamma_prior: Rlr::robust, "gamma_prior" = "-1";
        negative_lambda: Rlr::robust, "lambda" = "-1";
        zero_max_iter: Rlr::robust, "max_iter" = "0";
        zero_tol: Rlr::robust, "tol" = "0";
    }

    crate::models::rejects_option! {
        baseline_negative_lambda: Rlr::baseline, "lambda" = "-1";
        baseline_zero_max_iter: Rlr::baseline, "max_iter" = "0";
    }

    #[test]
    fn the_baseline_ignores_the_flip_table_options() {
        let o = ModelOptions {
            gamma: Some("not a table".into()),
            gamma_prior: -1.0,
            ..ModelOptions::default()
        };
        assert!(Rlr::baseline(&o).is_ok());
    }
}
