//! Robust mixture discriminant analysis (Bouveyron & Girard 2009).
//!
//! Two steps (section 3): an unsupervised Gaussian mixture of the features,
//! labels ignored (eq. 1; its number of clusters chosen by BIC, section 3.3),
//! then the matrix `R` linking clusters to classes by maximum likelihood of
//! the given labels (eq. 8). The posterior of a class is eq. (7):
//! `P(C = c | x) = sum_j r_cj P(S = j | x)`, and
//! `p_mislabel = 1 - P(C = given | x)`.
//!
//! The paper's `R` is k x K (rows = classes, columns = clusters, each column
//! sums to one). This file stores and reports its transpose, K x k with
//! rows = clusters, which reads as "what each cluster says about classes";
//! the report spells the orientation out.
//!
//! No flip table (`gamma`) is reported: RMDA does not model how labels flip,
//! only how classes spread over clusters. Turning `R` into P(given | true)
//! would need an extra assumption (each cluster pure in one true class).
//!
//! Starts (issue 10): the mixture ignores the labels, so its likelihood may
//! prefer clusters no class can claim (on breast cancer, 30 outliers against
//! the rest). Besides the k-means++ restarts, one start splits the labelled
//! classes into the K clusters, and the fit keeps the best likelihood among
//! the *admissible* mixtures: every class is the majority label of at least
//! one cluster (so that class's clusters carry its label more often than any
//! other, the diagonal dominance rNDA's flip table keeps). A mixture that
//! leaves a class without a cluster can never call a sample of that class
//! correctly labelled.

use std::ops::RangeInclusive;
use std::sync::Arc;

use nalgebra::DMatrix;

use crate::models::gaussian::kmeans::kmeans_plus_plus;
use crate::models::gaussian::mixture::{
    BIC_SCAN, BicScan, Gauge, GaussianMixture, MixtureSettings, Partition, Starts,
    continue_mixture, fit_mixture_from, mixture_parameters, require_more_samples_than_features,
    select_by_bic,
};
use crate::models::gaussian::subsample;
use crate::models::numerics::{class_counts, relative_change};
use crate::models::options::invalid_option;
use crate::models::prologue::{Scaling, check_inputs, class_name, step};
use crate::models::standardize::Standardizer;
use crate::models::{
    Classifier, ColumnDisplay, Control, CovarianceFamily, Fit, FitError, Guide, ModelOptions,
    NamedMatrix, NamedSeries, Progress, RobustModel, SampleColumn, argmax, no_progress,
};
use crate::rng::row_keys;

/// Share of the progress gauge given to the mixture step (the R step is
/// much cheaper).
const MIXTURE_SHARE: f64 = 0.9;

#[derive(Clone, Debug)]
pub struct Rmda {
    settings: MixtureSettings,
    /// The mixture models step 1 chooses among by BIC; one when the
    /// options name it.
    models: Vec<MixtureModel>,
    clusters: ClusterRange,
}

impl Rmda {
    /// Reads the mixture settings, `covariance_rule`, `standardize`,
    /// `clusters`, `clusters_min` and `clusters_max`.
    pub fn new(options: &ModelOptions) -> Result<Self, FitError> {
        let named = MixtureModel {
            family: options.covariance,
            scaling: Scaling::from_standardize(options.standardize),
        };
        let defaults = ModelOptions::default();
        let left_at_default = options.covariance == defaults.covariance
            && options.standardize == defaults.standardize;
        let models = match options.covariance_rule.as_str() {
            "bic" if left_at_default => BIC_MODELS.to_vec(),
            "bic" | "fixed" => vec![named],
            other => {
                return Err(invalid_option(
                    "covariance_rule",
                    "\"bic\" (choose the covariance by BIC) or \"fixed\" (use covariance and \
                     standardize)",
                    other,
                ));
            }
        };
        Ok(Self {
            settings: MixtureSettings::checked(options)?,
            models,
            clusters: ClusterRange::checked(options)?,
        })
    }

    fn settings_for(&self, model: MixtureModel) -> MixtureSettings {
        MixtureSettings {
            family: model.family,
            ..self.settings.clone()
        }
    }
}

/// One mixture model of step 1: a covariance family in a scaling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MixtureModel {
    pub family: CovarianceFamily,
    pub scaling: Scaling,
}

impl MixtureModel {
    pub fn describe(self) -> String {
        let scale = match self.scaling {
            Scaling::PerFeature => "standardised",
            Scaling::AsGiven => "features as given",
        };
        format!("{}, {scale}", self.family)
    }

    /// Parameters the scaling adds to the model: a spherical covariance in
    /// standardised units is a diagonal one whose ratios are the features'
    /// variances, estimated from the data, so BIC counts those `p` scales.
    /// The other families absorb any per-feature scaling (the same density
    /// whatever the units), so their scales are no parameters.
    fn scale_parameters(self, p: usize) -> usize {
        match (self.family, self.scaling) {
            (CovarianceFamily::Spherical, Scaling::PerFeature) => p,
            _ => 0,
        }
    }

    /// Free parameters of a `k`-cluster mixture of this model in `d`
    /// features, as BIC counts them (the scales included).
    fn parameters(self, d: usize, k: usize) -> usize {
        mixture_parameters(self.family, d, k) + self.scale_parameters(d)
    }

    fn standardizer(self, x: &DMatrix<f64>) -> Standardizer {
        match self.scaling {
            Scaling::PerFeature => Standardizer::fit(x),
            Scaling::AsGiven => Standardizer::identity(x.ncols()),
        }
    }
}

/// The mixture models `covariance_rule = bic` (the default) chooses among,
/// with the number of clusters, by BIC: Bouveyron & Girard (section 3.3)
/// choose "the conditional density of each mixture component as well as
/// the number of sub-classes" by BIC or cross-validation, and prefer BIC
/// under label noise because cross-validation trusts the labels. The
/// family set is Celeux & Govaert's parsimonious models the paper uses
/// (spherical, diagonal, common) and the full covariance. Full, tied and
/// diagonal covariances fit the same density whatever each feature's unit,
/// so each is fitted once, standardised (the k-means++ starts and the
/// shrinkage target then treat features alike); a spherical covariance
/// does not, so it is fitted both on the features as given (the paper's
/// model on its simulations and digits) and standardised. BIC compares
/// them as densities of the features as given: a standardised model's
/// log-likelihood gains the Jacobian `-n sum_j log s_j`, and the
/// standardised spherical model counts its `p` scales as parameters. Full covariance
/// and standardised features alone (the default before) scored 87.5% /
/// 85.8% on the paper's section 4.2 / 4.4 data where the paper's spherical
/// model scores 96.8% / 93.8%: in 25 dimensions BIC's penalty on 325
/// parameters a cluster kept two clusters for four components.
pub const BIC_MODELS: [MixtureModel; 5] = [
    MixtureModel {
        family: CovarianceFamily::Spherical,
        scaling: Scaling::AsGiven,
    },
    MixtureModel {
        family: CovarianceFamily::Spherical,
        scaling: Scaling::PerFeature,
    },
    MixtureModel {
        family: CovarianceFamily::Diag,
        scaling: Scaling::PerFeature,
    },
    MixtureModel {
        family: CovarianceFamily::Tied,
        scaling: Scaling::PerFeature,
    },
    MixtureModel {
        family: CovarianceFamily::Full,
        scaling: Scaling::PerFeature,
    },
];

/// The numbers of clusters BIC may choose from, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClusterRange {
    fixed: Option<usize>,
    min: Option<usize>,
    max: Option<usize>,
}

impl ClusterRange {
    pub fn checked(o: &ModelOptions) -> Result<Self, FitError> {
        let at_least_one = |name, value| ModelOptions::checked_at_least(name, value, 1);
        let range = Self {
            fixed: at_least_one("clusters", o.clusters)?,
            min: at_least_one("clusters_min", o.clusters_min)?,
            max: at_least_one("clusters_max", o.clusters_max)?,
        };
        if let (Some(lo), Some(hi)) = (range.min, range.max)
            && lo > hi
        {
            return Err(FitError::InvalidOption(format!(
                "clusters_min ({lo}) is larger than clusters_max ({hi}); swap them"
            )));
        }
        Ok(range)
    }

    /// `clusters` when fixed, else `clusters_min..=clusters_max` with
    /// defaults K..=4K for K classes, capped at the number of samples.
    pub fn range(
        &self,
        n_classes: usize,
        n_samples: usize,
    ) -> Result<RangeInclusive<usize>, FitError> {
        if let Some(k) = self.fixed {
            return Ok(k..=k);
        }
        let lo = self.min.unwrap_or(n_classes);
        let hi = self.max.unwrap_or((4 * n_classes).max(lo));
        if lo > hi {
            return Err(FitError::InvalidOption(format!(
                "clusters_min ({lo}) is larger than clusters_max ({hi}); swap them"
            )));
        }
        if lo > n_samples {
            return Err(FitError::InvalidInput(format!(
                "cannot fit {lo} clusters to {n_samples} samples; lower clusters_min"
            )));
        }
        Ok(lo..=hi.min(n_samples))
    }

    /// The whole range when the user named its top (`clusters_max`), else
    /// up to where BIC has clearly passed its minimum.
    pub fn scan(&self) -> BicScan {
        if self.max.is_some() {
            BicScan::Every
        } else {
            BIC_SCAN
        }
    }
}

/// The result of maximising eq. (8) over R.
#[derive(Clone, Debug)]
pub struct REstimate {
    /// K x k: `r[(j, c)] = P(C = c | S = j)`, rows = clusters, sum to one.
    pub r: DMatrix<f64>,
    /// `sum_l log(R_{c_l} Psi(x_l))` per iteration (eq. 8 without the
    /// constant xi); never decreases.
    pub trace: Vec<f64>,
    pub converged: bool,
    pub iterations: usize,
}

/// Eq. (8) without xi: `sum_l log sum_j r_{j, c_l} Psi_j(x_l)`.
pub fn r_log_likelihood(psi: &DMatrix<f64>, given: &[usize], r: &DMatrix<f64>) -> f64 {
    given
        .iter()
        .enumerate()
        .map(|(l, &c)| {
            let s: f64 = (0..psi.ncols()).map(|j| r[(j, c)] * psi[(l, j)]).sum();
            s.max(f64::MIN_POSITIVE).ln()
        })
        .sum()
}

/// Maximises eq. (8) under `r_cj >= 0, sum_c r_cj = 1` by a minorise-
/// maximise (EM) step: with `q_lj = r_{j,c_l} Psi_j(x_l) / R_{c_l} Psi(x_l)`
/// (the posterior of the cluster of sample l given its label), Jensen's
/// inequality gives a lower bound whose maximiser under the column
/// constraints is `r_cj ∝ sum_{l in C_c} q_lj`, normalised over classes.
/// Each step raises eq. (8) or leaves it unchanged. The start is uniform,
/// so the first step gives each cluster its soft share of every class.
pub fn estimate_r(
    psi: &DMatrix<f64>,
    given: &[usize],
    n_classes: usize,
    max_iter: usize,
    tol: f64,
    gauge: Gauge,
    progress: &mut dyn FnMut(Progress) -> Control,
) -> Result<REstimate, FitError> {
    let (n, k_clusters) = psi.shape();
    debug_assert_eq!(n, given.len());
    let mut r = DMatrix::from_element(k_clusters, n_classes, 1.0 / n_classes as f64);
    let mut trace = Vec::new();
    let mut converged = false;
    let mut iteration = 0;
    loop {
        iteration += 1;
        let mut counts = DMatrix::<f64>::zeros(k_clusters, n_classes);
        let mut ll = 0.0;
        for (l, &c) in given.iter().enumerate() {
            let s: f64 = (0..k_clusters).map(|j| r[(j, c)] * psi[(l, j)]).sum();
            let s = s.max(f64::MIN_POSITIVE);
            ll += s.ln();
            for j in 0..k_clusters {
                counts[(j, c)] += r[(j, c)] * psi[(l, j)] / s;
            }
        }
        let previous = trace.last().copied();
        trace.push(ll);
        step(
            progress,
            Progress {
                stage: "R (eq. 8)",
                iteration,
                max_iterations: max_iter,
                objective: ll,
                fraction: gauge.start + gauge.span * (iteration as f64 / max_iter as f64).min(1.0),
            },
        )?;
        if previous.is_some_and(|prev| relative_change(prev, ll) < tol) {
            converged = true;
            break;
        }
        if iteration >= max_iter {
            break;
        }
        for j in 0..k_clusters {
            let total: f64 = counts.row(j).sum();
            for c in 0..n_classes {
                // A cluster nobody falls in says nothing about classes.
                r[(j, c)] = if total > 0.0 {
                    counts[(j, c)] / total
                } else {
                    1.0 / n_classes as f64
                };
            }
        }
    }
    Ok(REstimate {
        r,
        trace,
        converged,
        iterations: iteration,
    })
}

/// Eq. (7) for new rows: standardise, cluster posteriors, then `Psi R`.
#[derive(Clone, Debug)]
pub struct RmdaClassifier {
    pub standardizer: Standardizer,
    pub mixture: GaussianMixture,
    /// K x k, rows = clusters.
    pub r: DMatrix<f64>,
}

impl Classifier for RmdaClassifier {
    fn predict_proba(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        let (psi, _) = self.mixture.responsibilities(&self.standardizer.apply(x));
        psi * &self.r
    }
}

impl RobustModel for Rmda {
    fn name(&self) -> &'static str {
        "rmda"
    }

    /// The mixture never reads labels and R is a closed-form function of the
    /// labels and the mixture, so the fit on the decided labels with the
    /// decided rows pinned is exact here (a relabel given -> d counts as a
    /// label d in R); a warm posterior over classes says nothing about the
    /// clusters, so it is not used.
    fn fit_guided(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        guide: &Guide,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        guide.check(given.len(), n_classes)?;
        guide.fallback(given, |labels| {
            self.fit_labels(x, labels, n_classes, progress)
        })
    }
}

/// The given labels split into `k` clusters: each class gets clusters in
/// proportion to its size (at least one), split by k-means++ within the
/// class; `None` when there are fewer clusters than classes.
fn label_partition(
    z: &DMatrix<f64>,
    keys: &[u64],
    labels: &[usize],
    n_classes: usize,
    k: usize,
    seed: u64,
) -> Option<Partition> {
    if k < n_classes {
        return None;
    }
    let sizes = class_counts(labels, n_classes);
    let mut per_class = vec![1usize; n_classes];
    for _ in n_classes..k {
        // The next cluster to the class with the most rows per cluster.
        let c = argmax((0..n_classes).map(|c| sizes[c] as f64 / per_class[c] as f64));
        per_class[c] += 1;
    }
    let mut out = vec![0usize; labels.len()];
    let mut first = 0;
    for (c, &clusters) in per_class.iter().enumerate() {
        let rows: Vec<usize> = (0..labels.len()).filter(|&i| labels[i] == c).collect();
        let m = clusters.min(rows.len().max(1));
        let split = if m > 1 {
            let class_keys: Vec<u64> = rows.iter().map(|&i| keys[i]).collect();
            let draw = seed ^ 0x6c61_6265_6c73 ^ (c as u64).rotate_left(40);
            kmeans_plus_plus(&z.select_rows(&rows), m, &class_keys, draw)
        } else {
            vec![0; rows.len()]
        };
        for (&i, &j) in rows.iter().zip(&split) {
            out[i] = first + j;
        }
        first += clusters;
    }
    Some(out)
}

/// Whether every class is the majority label of at least one cluster under
/// the R that maximises eq. (8) for this mixture.
fn every_class_owns_a_cluster(
    mixture: &GaussianMixture,
    z: &DMatrix<f64>,
    labels: &[usize],
    n_classes: usize,
    settings: &MixtureSettings,
) -> bool {
    let (psi, _) = mixture.responsibilities(z);
    let Ok(estimate) = estimate_r(
        &psi,
        labels,
        n_classes,
        settings.max_iter,
        settings.tol,
        Gauge::WHOLE,
        &mut no_progress(),
    ) else {
        return false;
    };
    let mut owned = vec![false; n_classes];
    for j in 0..estimate.r.nrows() {
        owned[argmax(estimate.r.row(j).iter().copied())] = true;
    }
    owned.into_iter().all(|o| o)
}

impl Rmda {
    fn fit_labels(
        &self,
        x: &DMatrix<f64>,
        given: &[usize],
        n_classes: usize,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Fit, FitError> {
        check_inputs(x, given, n_classes)?;
        let n = given.len();
        let range = self.clusters.range(n_classes, n)?;
        require_more_samples_than_features("rmda", x)?;
        // The rows' keys come from the raw values: the standardised ones
        // carry the rounding of sums taken in row order.
        let keys = row_keys(x.as_slice(), n, self.settings.seed);
        // Step 1 (section 3.1): the mixture, labels discarded.
        let chosen = self.mixture_step(x, &keys, given, n_classes, range, progress)?;
        let settings = self.settings_for(chosen.model);
        let z = chosen.standardizer.apply(x);
        let mixture = &chosen.mixture;
        // Step 2 (section 3.2): R by maximum likelihood of the labels, eq. (8).
        let (psi, mixture_ll) = mixture.responsibilities(&z);
        let estimate = estimate_r(
            &psi,
            given,
            n_classes,
            settings.max_iter,
            settings.tol,
            Gauge {
                start: MIXTURE_SHARE,
                span: 1.0 - MIXTURE_SHARE,
            },
            progress,
        )?;
        // Eq. (7).
        let posterior = &psi * &estimate.r;
        let mut fit = Fit::from_posterior(posterior, given);
        fit.converged = mixture.converged && estimate.converged;
        fit.iterations = estimate.iterations;
        fit.trace = estimate.trace.clone();
        fit.extra = report(&chosen, &psi, mixture_ll, &estimate, n_classes);
        if let Some(note) =
            admissible_note(&chosen.admissible_starts, mixture.n_clusters(), &settings)
        {
            fit.extra.notes.push(note);
        }
        fit.extra.notes.extend(chosen.note);
        fit.classifier = Some(Arc::new(RmdaClassifier {
            standardizer: chosen.standardizer,
            mixture: chosen.mixture,
            r: estimate.r,
        }));
        Ok(fit)
    }
}

/// Step 1's answer: the mixture, the model it is of, and how it was chosen.
struct Step1 {
    model: MixtureModel,
    standardizer: Standardizer,
    mixture: GaussianMixture,
    /// `sum_j log s_j` of the standardizer: a log-likelihood in its units
    /// is `n` times this above the same density's in the features' own.
    log_scale: f64,
    /// Parameters of the scaling BIC counts besides the mixture's
    /// ([`MixtureModel::scale_parameters`]).
    scale_parameters: usize,
    /// BIC per number of clusters fitted, in the units of the fit.
    bic: Vec<(usize, f64)>,
    /// The rows `bic` was computed on (the model's own subsample, or all).
    bic_rows: usize,
    /// Numbers of clusters every start of which degenerated.
    skipped: Vec<usize>,
    /// Per number of clusters, the starts that gave an admissible mixture.
    admissible_starts: Vec<(usize, usize)>,
    /// Every model compared, one line each (empty when only one was).
    compared: Vec<String>,
    /// How a subsample carried the choice, when it did.
    note: Option<String>,
}

impl Step1 {
    /// BIC of `bic` (fitted on `n` rows) as a density of the features as
    /// given, which every model of [`BIC_MODELS`] is compared in.
    fn own_scale(&self, bic: f64, n: usize) -> f64 {
        let n = n as f64;
        bic + 2.0 * n * self.log_scale + self.scale_parameters as f64 * n.ln()
    }

    /// Whether some start of the chosen number of clusters was admissible.
    fn admissible(&self) -> bool {
        let k = self.mixture.n_clusters();
        self.admissible_starts
            .iter()
            .any(|&(kk, a)| kk == k && a > 0)
    }
}

/// Rows per free parameter of one cluster a class (the default range's
/// smallest mixture) in a model's subsample, which carries the model's BIC
/// scan (see [`subsample`]). Fewer than rNDA's: here the subsample
/// does nearly all the work (every start's small EM for every number of
/// clusters, 15 starts at 200k x 20) and the continuation on all rows is a
/// single EM, so the scan's cost is what the subsample must cut. At 20
/// rows a parameter a cluster's estimates have standard errors about a
/// fifth of their scale, enough to rank starts and cluster numbers whose
/// BIC differ by thousands (2578 between 5 and 6 clusters on gauss_200k).
const RMDA_ROWS_PER_PARAMETER: usize = 20;

/// Rows per free parameter of the largest mixture a model's subsample must
/// hold for its BIC scan to fit that mixture there. Sized for one cluster a
/// class at [`RMDA_ROWS_PER_PARAMETER`], a subsample holds about this many
/// at the default range's top (four clusters a class): 5 is the rate the
/// scan ran at before each model had its own subsample (the full
/// covariance's at 4K), made a bound. A parameter's standard error is then
/// under half its own scale (1/sqrt(5)); a subsample never fits more
/// clusters than it supports at this rate ([`Rmda::supported_range`]), so
/// a cheap model's small subsample never runs a scan its rows cannot back.
const SCAN_ROWS_PER_PARAMETER: usize = 5;

/// The table step 1 reads: the features, each row's key and the given
/// labels.
type Table<'a> = (&'a DMatrix<f64>, &'a [u64], &'a [usize]);

/// A model of step 1 and the rows it chooses its number of clusters on
/// (all when `None`).
type ModelRows<'a> = (MixtureModel, Option<&'a [usize]>);

/// The rows the models are compared on: the largest subsample, which holds
/// every other (each takes the rows of the smallest keys of every class,
/// by a share that grows with its parameters); all rows (`None`) when some
/// model has no subsample.
fn common_rows(subsamples: &[Option<Vec<usize>>]) -> Option<&[usize]> {
    if subsamples.iter().any(Option::is_none) {
        return None;
    }
    subsamples
        .iter()
        .flatten()
        .max_by_key(|r| r.len())
        .map(Vec::as_slice)
}

/// How subsamples carried step 1 (`None` when none did): the rows each
/// model chose its clusters on, the rows they were compared on, and the
/// continuation `to_all` (the rows compared on and the continued mixture)
/// on all `n` rows.
fn subsample_note(
    chosen: &Step1,
    fits: &[ModelRows<'_>],
    to_all: Option<(usize, &GaussianMixture)>,
    n: usize,
) -> Option<String> {
    let own = fits
        .iter()
        .find(|(m, _)| *m == chosen.model)
        .and_then(|(_, r)| *r)?;
    let k = chosen.mixture.n_clusters();
    let mut note = if fits.len() > 1 {
        let each: Vec<String> = fits
            .iter()
            .map(|(m, r)| format!("{} rows for {}", r.map_or(n, <[usize]>::len), m.describe()))
            .collect();
        let compared_on = to_all.map_or(n, |(rows, _)| rows);
        format!(
            "each mixture model's number of clusters (BIC) and starts were chosen on a \
             stratified subsample sized by its parameters ({}); the models were \
             compared by BIC on the same {compared_on} rows, each continued there by EM \
             (the BIC series is the chosen model's own {} rows)",
            each.join("; "),
            own.len()
        )
    } else {
        format!(
            "the number of clusters (BIC) and the starts were chosen on a stratified \
             subsample of {} rows, where the {k}-cluster EM ran {} iteration(s) (the BIC \
             series is the subsample's)",
            own.len(),
            chosen.mixture.iterations
        )
    };
    if let Some((_, m)) = to_all {
        note.push_str(&format!(
            "; the chosen mixture then ran {} iteration(s) on all {n} rows to convergence",
            m.iterations
        ));
    }
    Some(note)
}

/// Step 1's rows: the scaled features and each row's key (from its raw
/// values), which the subsample and the k-means++ starts draw by.
#[derive(Clone, Copy)]
struct Rows<'a> {
    z: &'a DMatrix<f64>,
    keys: &'a [u64],
}

impl Rmda {
    /// How much of a table of `d` columns and `n_classes` classes `model`
    /// chooses its number of clusters on (see [`subsample`]):
    /// [`RMDA_ROWS_PER_PARAMETER`] rows per parameter of the range's
    /// smallest mixture and [`SCAN_ROWS_PER_PARAMETER`] of its largest, so
    /// that every number of clusters the scan may fit is supported. Each
    /// model is sized by its own parameters: a spherical mixture in 20
    /// dimensions needs a tenth of a full one's rows.
    fn plan(
        model: MixtureModel,
        d: usize,
        n_classes: usize,
        range: &RangeInclusive<usize>,
    ) -> subsample::Plan {
        let rows = (RMDA_ROWS_PER_PARAMETER * model.parameters(d, *range.start()))
            .max(SCAN_ROWS_PER_PARAMETER * model.parameters(d, *range.end()));
        // The plan's quota is the rarest class's rows and every class keeps
        // the same share, so the subsample holds n_classes quotas or more.
        subsample::Plan::gaussian(rows.div_ceil(n_classes.max(1)), 1)
    }

    /// `range` up to the most clusters of `model` that `rows` rows support
    /// at [`SCAN_ROWS_PER_PARAMETER`], never below its start (which the
    /// plan sizes the subsample for).
    fn supported_range(
        model: MixtureModel,
        d: usize,
        rows: usize,
        range: RangeInclusive<usize>,
    ) -> RangeInclusive<usize> {
        let lo = *range.start();
        let top = range
            .take_while(|&k| SCAN_ROWS_PER_PARAMETER * model.parameters(d, k) <= rows)
            .last()
            .unwrap_or(lo);
        lo..=top.max(lo)
    }

    /// Step 1 on every row, or on a large table (see [`subsample`]) on
    /// stratified subsamples: each model's number of clusters (BIC) and
    /// starts on its own subsample, the models compared by BIC on the
    /// largest of them, the chosen mixture then continued on every row to
    /// the usual convergence test; with a note saying so. Should the
    /// continuation lose a cluster, the chosen model's step 1 runs on
    /// every row.
    fn mixture_step(
        &self,
        x: &DMatrix<f64>,
        keys: &[u64],
        given: &[usize],
        n_classes: usize,
        range: RangeInclusive<usize>,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Step1, FitError> {
        let whole = Gauge {
            start: 0.0,
            span: MIXTURE_SHARE,
        };
        let d = x.ncols();
        let subsamples: Vec<Option<Vec<usize>>> = self
            .models
            .iter()
            .map(|&m| {
                let plan = Self::plan(m, d, n_classes, &range);
                subsample::stratified_above(given, n_classes, &plan, keys)
            })
            .collect();
        let fits: Vec<ModelRows<'_>> = self
            .models
            .iter()
            .zip(&subsamples)
            .map(|(&m, rows)| (m, rows.as_deref()))
            .collect();
        let table = (x, keys, given);
        let common = common_rows(&subsamples);
        if subsamples.iter().all(Option::is_none) {
            return self.choose_model(table, (&fits, None), n_classes, range, whole, progress);
        }
        let chosen = self.choose_model(
            table,
            (&fits, common),
            n_classes,
            range.clone(),
            whole.part(0, 2),
            progress,
        )?;
        let Some(common) = common else {
            // Compared on every row already.
            let note = subsample_note(&chosen, &fits, None, x.nrows());
            return Ok(Step1 { note, ..chosen });
        };
        let settings = self.settings_for(chosen.model);
        let z = chosen.standardizer.apply(x);
        match continue_mixture(
            &z,
            chosen.mixture.clone(),
            &settings,
            whole.part(1, 2),
            progress,
        ) {
            Ok(m) => {
                let note = subsample_note(&chosen, &fits, Some((common.len(), &m)), x.nrows());
                return Ok(Step1 {
                    mixture: m,
                    note,
                    ..chosen
                });
            }
            Err(FitError::Numerical(_)) => {}
            Err(e) => return Err(e),
        }
        let mut again = self.choose_model(
            table,
            (&[(chosen.model, None)], None),
            n_classes,
            range,
            whole,
            progress,
        )?;
        again.compared = chosen.compared;
        Ok(again)
    }

    /// Each of `fits` (a model and the rows it chooses its number of
    /// clusters on, all when `None`), compared by BIC on the rows `common`
    /// (all when `None`; every model's rows are among them): the
    /// admissible one of least BIC on the features' own scale, else the
    /// one of least BIC. A model that cannot be fitted is skipped while
    /// another can.
    fn choose_model(
        &self,
        table: Table<'_>,
        (fits, common): (&[ModelRows<'_>], Option<&[usize]>),
        n_classes: usize,
        range: RangeInclusive<usize>,
        gauge: Gauge,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Step1, FitError> {
        let mut best: Option<(Step1, f64)> = None;
        let mut compared = Vec::new();
        let mut last_error = None;
        for (i, &(model, rows)) in fits.iter().enumerate() {
            let part = gauge.part(i, fits.len());
            let fitted = self.fit_model(
                table,
                (model, rows, common),
                n_classes,
                range.clone(),
                part,
                progress,
            );
            let step = match fitted {
                Ok(s) => s,
                Err(e @ (FitError::Numerical(_) | FitError::InvalidInput(_))) if fits.len() > 1 => {
                    compared.push(format!("{}: not fitted ({e})", model.describe()));
                    last_error = Some(e);
                    continue;
                }
                Err(e) => return Err(e),
            };
            let own = step.own_scale(step.mixture.bic(), step.mixture.n_samples);
            let ok = step.admissible();
            compared.push(format!(
                "{}: {} clusters, BIC {own:.1}{}",
                model.describe(),
                step.mixture.n_clusters(),
                if ok {
                    ""
                } else {
                    " (some class owns no cluster)"
                }
            ));
            let better = best.as_ref().is_none_or(|(b, b_own)| {
                let b_ok = b.admissible();
                (ok && !b_ok) || (ok == b_ok && own < *b_own)
            });
            if better {
                best = Some((step, own));
            }
        }
        let Some((mut best, _)) = best else {
            return Err(last_error.unwrap_or_else(|| {
                FitError::Numerical("no mixture model could be fitted".into())
            }));
        };
        if fits.len() > 1 {
            best.compared = compared;
        }
        Ok(best)
    }

    /// One model of step 1: its number of clusters by BIC on its rows (all
    /// when `None`, else at most as many as they support), then, when the
    /// models are compared on other rows (`common`, which hold its own),
    /// its mixture continued there by EM, so that every model's BIC is the
    /// maximised likelihood of the same rows with its own penalty.
    fn fit_model(
        &self,
        (x, keys, given): Table<'_>,
        (model, rows, common): (MixtureModel, Option<&[usize]>, Option<&[usize]>),
        n_classes: usize,
        range: RangeInclusive<usize>,
        gauge: Gauge,
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<Step1, FitError> {
        let standardizer = model.standardizer(x);
        let z = standardizer.apply(x);
        let settings = self.settings_for(model);
        let moves = rows != common;
        let (fit_gauge, move_gauge) = if moves {
            (gauge.part(0, 2), gauge.part(1, 2))
        } else {
            (gauge, gauge)
        };
        let (mixture, bic, skipped, admissible_starts) = match rows {
            Some(r) => {
                let z_r = z.select_rows(r.iter());
                let keys_r: Vec<u64> = r.iter().map(|&i| keys[i]).collect();
                let given_r: Vec<usize> = r.iter().map(|&i| given[i]).collect();
                let range = Self::supported_range(model, x.ncols(), r.len(), range);
                let rows = Rows {
                    z: &z_r,
                    keys: &keys_r,
                };
                let setup = (&settings, fit_gauge);
                self.choose_mixture(rows, &given_r, n_classes, range, setup, progress)?
            }
            None => {
                let rows = Rows { z: &z, keys };
                let setup = (&settings, fit_gauge);
                self.choose_mixture(rows, given, n_classes, range, setup, progress)?
            }
        };
        let bic_rows = mixture.n_samples;
        let mixture = if moves {
            let z_common = common.map_or_else(|| z.clone(), |c| z.select_rows(c.iter()));
            let rows = z_common.nrows();
            continue_mixture(&z_common, mixture, &settings, move_gauge, progress).map_err(|e| {
                match e {
                    FitError::Numerical(_) => FitError::Numerical(format!(
                        "a cluster was lost on the {rows} rows the models are compared on"
                    )),
                    e => e,
                }
            })?
        } else {
            mixture
        };
        Ok(Step1 {
            model,
            log_scale: standardizer.scale.iter().map(|s| s.ln()).sum(),
            scale_parameters: model.scale_parameters(x.ncols()),
            standardizer,
            mixture,
            bic,
            bic_rows,
            skipped,
            admissible_starts,
            compared: Vec::new(),
            note: None,
        })
    }

    /// Step 1 on the rows `z` for one model: the mixture of the lowest BIC
    /// over `range`, each number of clusters from the k-means++ starts and
    /// the split of the labelled classes.
    fn choose_mixture(
        &self,
        rows: Rows<'_>,
        given: &[usize],
        n_classes: usize,
        range: RangeInclusive<usize>,
        (settings, gauge): (&MixtureSettings, Gauge),
        progress: &mut dyn FnMut(Progress) -> Control,
    ) -> Result<MixtureChoice, FitError> {
        let Rows { z, keys } = rows;
        let partition = |k: usize| label_partition(z, keys, given, n_classes, k, settings.seed);
        let admissible =
            |m: &GaussianMixture| every_class_owns_a_cluster(m, z, given, n_classes, settings);
        let starts = Starts {
            extra: Some(&partition),
            admissible: Some(&admissible),
            keys: Some(keys),
        };
        if range.start() == range.end() {
            let k = *range.start();
            let (m, a) = fit_mixture_from(z, k, settings, &starts, gauge, progress)?;
            let b = vec![(m.n_clusters(), m.bic())];
            return Ok((m, b, Vec::new(), vec![(k, a)]));
        }
        let scan = self.clusters.scan();
        let choice = select_by_bic(z, range, scan, settings, &starts, gauge, progress)?;
        Ok((
            choice.best,
            choice.bic,
            choice.skipped,
            choice.admissible_starts,
        ))
    }
}

/// One model's mixture, the BIC of every number of clusters fitted, the
/// numbers skipped and the admissible starts of each.
type MixtureChoice = (
    GaussianMixture,
    Vec<(usize, f64)>,
    Vec<usize>,
    Vec<(usize, usize)>,
);

/// How many starts gave a mixture in which every class owns a cluster, when
/// some did not (every start admissible is the usual case, not news).
fn admissible_note(
    admissible_starts: &[(usize, usize)],
    chosen: usize,
    settings: &MixtureSettings,
) -> Option<String> {
    let of_chosen = admissible_starts
        .iter()
        .find(|(k, _)| *k == chosen)
        .map_or(0, |(_, a)| *a);
    // The k-means++ restarts and the labelled classes, when they split.
    if of_chosen > settings.restarts {
        return None;
    }
    let mut note = format!(
        "{of_chosen} of the starts of the {chosen}-cluster mixture (the labelled classes and \
         {} k-means++) left every class the majority label of a cluster",
        settings.restarts
    );
    if of_chosen == 0 {
        note.push_str(
            "; none did, so the best likelihood was kept: some class owns no cluster and every \
             sample labelled with it looks mislabelled",
        );
    }
    Some(note)
}

/// How step 1's model was chosen, when BIC compared several.
fn push_model_choice(extra: &mut crate::models::ModelReport, chosen: &Step1) {
    if !chosen.compared.is_empty() {
        extra.notes.push(format!(
            "the clusters' covariance ({}) and their number were chosen by BIC over {} mixture \
             models (Bouveyron & Girard section 3.3; covariance_rule=fixed uses covariance and \
             standardize as set)",
            chosen.model.describe(),
            chosen.compared.len()
        ));
        extra.lists.push((
            "mixture models compared (BIC, lower is better)".into(),
            chosen.compared.clone(),
        ));
    }
}

fn report(
    chosen: &Step1,
    psi: &DMatrix<f64>,
    mixture_ll: f64,
    estimate: &REstimate,
    n_classes: usize,
) -> crate::models::ModelReport {
    let mixture = &chosen.mixture;
    let (bic, skipped) = (&chosen.bic, &chosen.skipped);
    let k = mixture.n_clusters();
    let cluster_labels: Vec<String> = (1..=k).map(|j| format!("cluster {j}")).collect();
    let mut extra = crate::models::ModelReport::default();
    extra.matrices.push(NamedMatrix {
        name: "R".into(),
        orientation: "rows = clusters, columns = classes (given labels), entry = \
                      P(class | cluster); each row sums to one (the transpose of the \
                      paper's k x K matrix R of eq. 8)"
            .into(),
        row_labels: cluster_labels.clone(),
        col_labels: (0..n_classes).map(class_name).collect(),
        values: (0..k)
            .map(|j| estimate.r.row(j).iter().copied().collect())
            .collect(),
        display: Default::default(),
    });
    extra.series.push(NamedSeries {
        name: "BIC".into(),
        x_label: "number of clusters".into(),
        y_label: "BIC = -2 log L + parameters x log n, L the density of the features as \
                  given (lower is better)"
            .into(),
        points: bic
            .iter()
            .map(|&(kk, b)| (kk as f64, chosen.own_scale(b, chosen.bic_rows)))
            .collect(),
    });
    extra.series.push(NamedSeries {
        name: "mixture log-likelihood".into(),
        x_label: "EM iteration".into(),
        y_label: "log-likelihood of the features (eq. 1)".into(),
        points: mixture
            .trace
            .iter()
            .enumerate()
            .map(|(i, v)| ((i + 1) as f64, *v))
            .collect(),
    });
    let hard: Vec<usize> = (0..psi.nrows())
        .map(|i| argmax(psi.row(i).iter().copied()))
        .collect();
    let mut hard_counts = vec![0usize; k];
    for &h in &hard {
        hard_counts[h] += 1;
    }
    extra.scalars.push(("clusters".into(), k as f64));
    extra.scalars.push((
        "bic".into(),
        chosen.own_scale(mixture.bic(), mixture.n_samples),
    ));
    extra
        .scalars
        .push(("mixture_log_likelihood".into(), mixture_ll));
    extra.scalars.push((
        "log_likelihood".into(),
        estimate.trace.last().copied().unwrap_or(f64::NAN),
    ));
    extra
        .scalars
        .push(("mixture_iterations".into(), mixture.iterations as f64));
    extra.scalars.push((
        "mixture_converged".into(),
        f64::from(u8::from(mixture.converged)),
    ));
    extra
        .scalars
        .push(("restarts_failed".into(), mixture.restarts_failed as f64));
    for (j, w) in mixture.components.weights.iter().enumerate() {
        extra.scalars.push((format!("cluster_size[{}]", j + 1), *w));
    }
    extra.lists.push((
        "cluster sizes (most likely cluster)".into(),
        cluster_labels
            .iter()
            .zip(&hard_counts)
            .map(|(l, c)| format!("{l}: {c}"))
            .collect(),
    ));
    extra.sample_columns.push(
        SampleColumn::new("cluster", hard.iter().map(|&h| (h + 1) as f64).collect()).with_display(
            ColumnDisplay {
                label: Some("clu.".into()),
                decimals: 0,
                width: 3,
                ..ColumnDisplay::default()
            },
        ),
    );
    push_model_choice(&mut extra, chosen);
    if !skipped.is_empty() {
        extra.notes.push(format!(
            "BIC skipped {skipped:?} clusters: every start lost or collapsed a cluster"
        ));
    }
    extra.notes.push(
        "RMDA estimates P(class | cluster), not how labels flip, so no flip table (gamma) \
         is reported; p_mislabel = 1 - P(C = given | x) by eq. (7)"
            .into(),
    );
    extra
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod option_tests {
    use super::*;

    crate::models::rejects_option! {
        zero_clusters: Rmda::new, "clusters" = "0";
        zero_clusters_min: Rmda::new, "clusters_min" = "0";
        zero_clusters_max: Rmda::new, "clusters_max" = "0";
        zero_restarts: Rmda::new, "restarts" = "0";
        shrinkage_above_1: Rmda::new, "shrinkage" = "2";
        zero_max_iter: Rmda::new, "max_iter" = "0";
        zero_tol: Rmda::new, "tol" = "0";
    }
}
