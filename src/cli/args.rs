//! Command-line arguments (clap derive). Data options and model options are
//! shared by every command and by the TUI entry point.

use std::path::PathBuf;

use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::dataset::{CategoricalPolicy, LoadOptions, LogRule, MissingPolicy};
use crate::eval::noise::NoiseKind;
use crate::models::ensemble::ENSEMBLE_MEMBERS;
use crate::models::{AUTO, CovarianceFamily, MODELS, ModelOptions};

use super::CliError;

#[derive(Debug, Parser)]
#[command(
    name = "relabel",
    version,
    about = "Find and fix wrong labels in a dataset, at the keyboard or headless.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Table to review in the terminal UI (without one: the embedded demo).
    pub file: Option<PathBuf>,
    /// Open the table fresh, with no decisions: its earlier session is set
    /// aside (moved to the sessions folder's forgotten/, never deleted).
    #[arg(long)]
    pub fresh: bool,
    #[command(flatten)]
    pub data: DataArgs,
    #[command(flatten)]
    pub model: ModelArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Fit a model and write every sample's mislabel probability, most suspect first.
    Scan(ScanArgs),
    /// Inject label noise into clean data and measure how well models find it.
    Eval(EvalArgs),
    /// Write the cleaned file and audit trail from a file's saved review session.
    Export(ExportArgs),
    /// Write a file's saved review session as one self-contained HTML page to share.
    Report(ReportArgs),
    /// List the saved review sessions, or forget the sessions of a file.
    Sessions(SessionsArgs),
    /// Print a shell completion script (e.g. `relabel completions bash > ~/.local/share/bash-completion/completions/relabel`).
    Completions(CompletionsArgs),
    /// Print the man page, generated from these same definitions (e.g. `relabel man > relabel.1`).
    Man,
}

#[derive(Debug, Args)]
pub struct SessionsArgs {
    #[command(subcommand)]
    pub action: Option<SessionsAction>,
}

#[derive(Debug, Subcommand)]
pub enum SessionsAction {
    /// List every saved session: its file, how many entries, when last written (the default).
    List,
    /// Set aside every session of these files, so each opens fresh (the journals move to forgotten/, never deleted).
    Forget {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The input table that was reviewed (read with the same data options).
    pub data: PathBuf,
    /// Cleaned file (default: <stem>.cleaned.<ext> next to the input; for a
    /// spreadsheet <stem>.cleaned.csv, for a GEO file <stem>.labels.csv, a
    /// labels sheet: id, label, the label field as read).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace existing output files.
    #[arg(long)]
    pub force: bool,
    /// Keep dropped rows, marked in a relabel_action column.
    #[arg(long)]
    pub keep_dropped: bool,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The input table that was reviewed (read with the same data options).
    pub data: PathBuf,
    /// The page (default: <stem>.audit.html next to the input).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace an existing page.
    #[arg(long)]
    pub force: bool,
    /// No progress bar on stderr.
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct DataArgs {
    /// Label column (with --transpose: the label row). Default: a column named
    /// label/class/target/y, else the last column.
    #[arg(long, global = true)]
    pub label: Option<String>,
    /// Id column (in a GEO file, a sample field with a value of its own per
    /// sample). Default: a column named id/sample/name with unique values
    /// (in a GEO file, the GSM accessions).
    #[arg(long, global = true)]
    pub id: Option<String>,
    /// Field delimiter (one character, or "tab"). Default: sniffed.
    #[arg(long, global = true)]
    pub delimiter: Option<String>,
    /// Leave a column out (repeatable); a glob leaves out every column it
    /// matches (--ignore 'AFFX-*'). In a GEO file: probe ids or gene symbols.
    #[arg(long, global = true, value_name = "COL")]
    pub ignore: Vec<String>,
    /// Missing values (empty, NA, NaN, ?).
    #[arg(long, global = true, value_enum, default_value_t = MissingPolicy::Error)]
    pub missing: MissingPolicy,
    /// Non-numeric feature columns (onehot: one 0/1 column per level; cbt
    /// then reads the levels as they are). Default: onehot when the model
    /// reads levels (cbt, all, auto), else error.
    #[arg(long, global = true, value_enum)]
    pub categorical: Option<CategoricalPolicy>,
    /// The file is genes x samples: first column = feature names, header = sample ids.
    #[arg(long, global = true)]
    pub transpose: bool,
    /// Take log2 of every numeric feature (raw microarray intensities);
    /// exports still write the original values. Without it, values that
    /// look like raw intensities are read logged in a wide table (at least
    /// as many features as samples), and on the scale auto's held-out
    /// evidence prefers in a narrow one (see --no-log2).
    #[arg(long, global = true)]
    pub log2: bool,
    /// Read the values as they are even when they look like raw intensities
    /// (every feature positive, most strongly right-skewed), which are
    /// otherwise read logged in a wide table or weighed by auto's evidence.
    #[arg(long, global = true, conflicts_with = "log2")]
    pub no_log2: bool,
    /// Another classifier's out-of-fold class probabilities, one column per
    /// class (named like the classes, or p_<class>), matched to FILE by an id
    /// column or by order. They must come from a classifier trained on the
    /// given labels (as for cleanlab): probs reads them as P(given label |
    /// x), estimates the flip table by the confident joint and deconvolves
    /// it. FILE then needs only an id and a label column; the default model
    /// becomes probs.
    #[arg(long, global = true, value_name = "PROBS.csv")]
    pub probs: Option<PathBuf>,
    /// Worksheet of an .xlsx/.xls/.ods file, by name or 0-based index
    /// (default: the first).
    #[arg(long, global = true, value_name = "NAME|INDEX")]
    pub sheet: Option<String>,
    /// Let a quoted label or id span several lines (legal CSV; without it
    /// such a cell is refused, as it is almost always a stray quote).
    #[arg(long, global = true)]
    pub multiline_cells: bool,
    // GEO and microarray options (the geo engineer's block).
    /// GEO files: the label is the first group (else the whole match) of
    /// this regular expression in the --label field's value, e.g.
    /// --label title --label-pattern '^(.*)-rep' for titles like AD-Veh-rep1.
    /// (--label 'strain+cell line' joins several fields.)
    #[arg(long, global = true, value_name = "REGEX")]
    pub label_pattern: Option<String>,
    /// Gene symbols to show beside the probe ids: a GEO platform table
    /// (GPLnnn.annot.gz, a GPL SOFT file), a GDS of the same platform (its
    /// IDENTIFIER column) or a tab-separated ID/symbol table.
    /// The features stay the probes. A family SOFT file brings its own.
    #[arg(long, global = true, value_name = "FILE")]
    pub platform: Option<PathBuf>,
    /// Read only the N numeric features of largest variance over the
    /// samples (on the scale they are read on): the usual first filter of
    /// an expression array. Said in the notes.
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub top_variance: Option<u64>,
}

impl DataArgs {
    /// Load options when no model reads string levels.
    pub fn load_options(&self) -> Result<LoadOptions, CliError> {
        self.load_options_for(&[])
    }

    /// Load options for these models: without `--categorical`, string
    /// columns are let in when one of them reads levels (cbt), and are an
    /// error otherwise (a text cell in a numeric column is usually a typo).
    pub fn load_options_for(&self, models: &[&str]) -> Result<LoadOptions, CliError> {
        let delimiter = match self.delimiter.as_deref() {
            None => None,
            Some("tab" | "\\t" | "\t") => Some(b'\t'),
            Some(d) if d.len() == 1 => Some(d.as_bytes()[0]),
            Some(d) => {
                return Err(CliError::BadInput(format!(
                    "--delimiter must be one character or \"tab\", got \"{d}\""
                )));
            }
        };
        let categorical = self.categorical.unwrap_or_else(|| {
            if models.iter().any(|m| crate::app::reads_levels(m)) {
                CategoricalPolicy::Onehot
            } else {
                CategoricalPolicy::Error
            }
        });
        Ok(LoadOptions {
            label: self.label.clone(),
            id: self.id.clone(),
            delimiter,
            ignore: self.ignore.clone(),
            missing: self.missing,
            categorical,
            transpose: self.transpose,
            log2: self.log2,
            log_rule: if self.no_log2 {
                LogRule::Never
            } else {
                LogRule::WhenRaw
            },
            probs: self.probs.clone(),
            sheet: self.sheet.clone(),
            multiline_cells: self.multiline_cells,
            drop_raw: false,
            label_pattern: self.label_pattern.clone(),
            platform: self.platform.clone(),
            top_variance: self
                .top_variance
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        })
    }
}

#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Model, or auto (chosen by held-out evidence among the robust models)
    /// [default: auto; a resumed review keeps its last model unless given].
    #[arg(long, global = true, value_parser = model_names())]
    pub model: Option<String>,
    /// Covariance family of the Gaussian models.
    #[arg(long = "cov", global = true, value_enum)]
    pub covariance: Option<CovarianceFamily>,
    /// Covariance shrinkage in [0, 1] (default: chosen from the data, OAS).
    #[arg(long, global = true)]
    pub shrinkage: Option<f64>,
    /// Seed for every random choice (initialisation, restarts, noise).
    #[arg(long, global = true)]
    pub seed: Option<u64>,
    /// Maximum number of iterations.
    #[arg(long, global = true)]
    pub max_iter: Option<usize>,
    /// Relative change of the objective at which a fit has converged.
    #[arg(long, global = true)]
    pub tol: Option<f64>,
    /// rlr: flip table P(given | true), "0.9,0.1;0.05,0.95" (rows = true
    /// class), or one flip rate per class "0.1,0.2".
    #[arg(long, global = true)]
    pub gamma: Option<String>,
    /// rlr: keep --gamma fixed (RLogReg-F) instead of estimating it.
    #[arg(long, global = true)]
    pub fix_gamma: bool,
    /// shift: expected fraction of wrong labels; picks lambda on the path.
    #[arg(long, global = true)]
    pub noise_fraction: Option<f64>,
    /// shift: how to pick lambda on the path.
    #[arg(long, global = true, value_enum)]
    pub lambda_rule: Option<LambdaRule>,
    /// Any model option by name, e.g. --opt shrinkage=0.1 (repeatable).
    #[arg(long = "opt", global = true, value_name = "KEY=VALUE")]
    pub opts: Vec<String>,
}

impl ModelArgs {
    /// The model asked for, `auto` when none was named.
    pub fn name(&self) -> &str {
        self.model.as_deref().unwrap_or("auto")
    }
    pub fn model_options(&self) -> Result<ModelOptions, CliError> {
        let mut o = ModelOptions::default();
        if let Some(c) = self.covariance {
            o.covariance = c;
        }
        if self.shrinkage.is_some() {
            o.shrinkage = self.shrinkage;
        }
        if let Some(s) = self.seed {
            o.seed = s;
        }
        if let Some(m) = self.max_iter {
            o.max_iter = m;
        }
        if let Some(t) = self.tol {
            o.tol = t;
        }
        if self.gamma.is_some() {
            o.gamma = self.gamma.clone();
        }
        o.fix_gamma |= self.fix_gamma;
        if self.noise_fraction.is_some() {
            o.noise_fraction = self.noise_fraction;
        }
        if let Some(r) = self.lambda_rule {
            o.lambda_rule = r.as_str().to_string();
        }
        for kv in &self.opts {
            let (k, v) = kv.split_once('=').ok_or_else(|| {
                CliError::BadInput(format!("--opt takes KEY=VALUE, got \"{kv}\""))
            })?;
            o.set(k, v)?;
        }
        // rmda: a covariance or scaling the user typed is the one to fit,
        // even its default (the rule chooses only while both are untouched).
        let typed: Vec<String> = self.typed().into_iter().map(|(_, key)| key).collect();
        let has = |key: &str| typed.iter().any(|t| t == key);
        if (has("covariance") || has("standardize")) && !has("covariance_rule") {
            o.covariance_rule = "fixed".into();
        }
        o.check_with_every_model()?;
        Ok(o)
    }
}

impl ModelArgs {
    /// The model options the user typed, each with the flag that set it:
    /// the dedicated flags given (`Some`, or a switch turned on) and every
    /// `--opt` key. Defaults are never compared, so typing a default counts.
    pub fn typed(&self) -> Vec<(String, String)> {
        let given = [
            ("--cov", "covariance", self.covariance.is_some()),
            ("--shrinkage", "shrinkage", self.shrinkage.is_some()),
            ("--seed", "seed", self.seed.is_some()),
            ("--max-iter", "max_iter", self.max_iter.is_some()),
            ("--tol", "tol", self.tol.is_some()),
            ("--gamma", "gamma", self.gamma.is_some()),
            ("--fix-gamma", "fix_gamma", self.fix_gamma),
            (
                "--noise-fraction",
                "noise_fraction",
                self.noise_fraction.is_some(),
            ),
            ("--lambda-rule", "lambda_rule", self.lambda_rule.is_some()),
        ];
        let flags = given
            .into_iter()
            .filter(|(_, _, typed)| *typed)
            .map(|(flag, option, _)| (flag.to_string(), option.to_string()));
        let opts = self.opts.iter().map(|kv| {
            let key = kv.split_once('=').map_or(kv.as_str(), |(k, _)| k);
            let key = key.trim().replace('-', "_");
            (format!("--opt {key}"), key)
        });
        flags.chain(opts).collect()
    }

    /// Refuses options the user typed that `model` does not read, which
    /// would otherwise be silently ignored. `all` reads what its members
    /// read; `auto` accepts what any model it may choose reads.
    pub fn check_read_by(&self, model: &str) -> Result<(), CliError> {
        self.check_read_by_any(&[model], &[])
    }

    /// [`ModelArgs::check_read_by`] for a comparison of models (`eval
    /// --models`): an option is fine when one of them reads it, or when the
    /// command itself does (`command_reads`: eval draws its noise with
    /// `seed`).
    pub fn check_read_by_any(
        &self,
        models: &[&str],
        command_reads: &[&'static str],
    ) -> Result<(), CliError> {
        let mut reads: Vec<&str> = command_reads.to_vec();
        for m in models {
            for o in options_read_by(m) {
                if !reads.contains(&o) {
                    reads.push(o);
                }
            }
        }
        let known = ModelOptions::default();
        for (flag, option) in self.typed() {
            // An unknown --opt key is reported by `model_options`, with the known ones.
            if reads.contains(&option.as_str()) || known.get(&option).is_none() {
                continue;
            }
            let readers: Vec<&str> = MODELS
                .iter()
                .filter(|m| options_read_by(m.name).contains(&option.as_str()))
                .map(|m| m.name)
                .collect();
            let whose = match models {
                [m] if *m == AUTO => format!(
                    "any model auto may choose ({})",
                    auto_candidates().join(", ")
                ),
                [m] => format!("model {m}"),
                _ => format!("any of the models {}", models.join(", ")),
            };
            let choose = if readers.is_empty() {
                String::new()
            } else {
                format!(", or choose a model that reads it: {}", readers.join(", "))
            };
            return Err(CliError::BadInput(format!(
                "{flag} is not read by {whose}, which reads: {} — leave it out{choose}",
                reads.join(", ")
            )));
        }
        Ok(())
    }
}

/// The models `auto` chooses among (`app::auto::candidates`).
fn auto_candidates() -> Vec<String> {
    crate::app::auto::candidates::all()
        .iter()
        .map(|c| c.model().to_string())
        .collect()
}

/// The option names a model reads (`ModelInfo::options`); for `all` with
/// its members', for `auto` every candidate's, in registry order.
fn options_read_by(model: &str) -> Vec<&'static str> {
    let members: Vec<String> = match model {
        AUTO => auto_candidates(),
        "all" => std::iter::once("all")
            .chain(ENSEMBLE_MEMBERS.iter().copied())
            .map(String::from)
            .collect(),
        name => vec![name.to_string()],
    };
    let mut reads: Vec<&'static str> = Vec::new();
    for info in MODELS
        .iter()
        .filter(|m| members.iter().any(|n| n == m.name))
    {
        for option in info.options {
            if !reads.contains(option) {
                reads.push(option);
            }
        }
    }
    reads
}

#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Labelled table (CSV/TSV, optionally .gz).
    pub data: PathBuf,
    /// Write the ranked samples here instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Write a JSON report (model, gamma table, extras, trace) here.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Classify the rows of this table with the fitted model...
    #[arg(long, requires = "predictions")]
    pub predict: Option<PathBuf>,
    /// ...and write the predictions here.
    #[arg(long, requires = "predict")]
    pub predictions: Option<PathBuf>,
    /// No progress bar and no summary line on stderr (errors still go there).
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Clean labelled table (not needed with --paper).
    pub data: Option<PathBuf>,
    /// Run one of the papers' experiments instead and print relabel's
    /// figures beside the paper's (each NAME is listed under "possible
    /// values"; the ones marked DATA take the paper's table as DATA).
    #[arg(long, value_enum, value_name = "NAME")]
    pub paper: Option<Paper>,
    /// With --paper: run the experiment on a tiny setting (one draw, the
    /// smallest sizes) to check the command, not the paper.
    #[arg(long, requires = "paper")]
    pub smoke: bool,
    /// Models to compare, comma-separated.
    #[arg(long, default_value = "rnda,nda")]
    pub models: String,
    /// Noise kind: pair (class k -> k+1) or symmetric.
    #[arg(long, value_enum, default_value_t = NoiseKind::Pair)]
    pub noise: NoiseKind,
    /// Fraction of labels to flip.
    #[arg(long, default_value_t = 0.2)]
    pub rate: f64,
    /// Number of noise draws (seeds seed, seed+1, ...); figures are mean ±
    /// sd. Default 10; with --paper, the paper's own number of draws.
    #[arg(long)]
    pub repeats: Option<usize>,
    /// Clean test table for test accuracy of each model's classifier.
    #[arg(long)]
    pub test: Option<PathBuf>,
    /// Instead of measuring, write one noisy copy of DATA here (and
    /// OUT's stem + .truth.csv with row, true_label, flipped).
    #[arg(long, value_name = "OUT")]
    pub write_noisy: Option<PathBuf>,
    /// Instead of the detection table, simulate a curator who walks the list
    /// from the top and always decides correctly: inspections needed to find
    /// 50%, 90% and 100% of the flipped labels with a one-shot ranking and
    /// with a model that refits on the decisions.
    #[arg(long)]
    pub review_curve: bool,
    /// With --review-curve: decisions between refits (default: n/50, at
    /// least 5).
    #[arg(long, value_name = "K", requires = "review_curve")]
    pub every: Option<usize>,
    /// With --paper colon|breast|rlr-table6: how the table is transformed
    /// before the models read it: raw (as read), rows (each sample
    /// standardised), minmax (each gene to [-1, 1]), minmax-rows, log2,
    /// log2-rows. Default: the paper's own by its text and the author's
    /// copy of the table (colon: minmax-rows; breast: rows).
    #[arg(long, value_enum, value_name = "PREP", requires = "paper")]
    pub prep: Option<crate::eval::preprocess::Prep>,
    /// Instead, each seed model on its home-ground tables: DIR/MODEL/NAME.csv
    /// with NAME.truth.csv beside it (benches/tables/home_ground.py writes
    /// them; every MODEL of rnda, shift, rlr, rmda, cbt with a directory
    /// there), scored as `scan --model MODEL` ranks them.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["paper", "data"])]
    pub home_ground: Option<PathBuf>,
    /// No progress bar on stderr.
    #[arg(short, long)]
    pub quiet: bool,
}

impl EvalArgs {
    /// Noise draws of a detection run: --repeats, else 10.
    pub fn draws(&self) -> usize {
        self.repeats.unwrap_or(10)
    }
}

/// The names `--model` takes: every model of the registry, and `auto`.
fn model_names() -> PossibleValuesParser {
    PossibleValuesParser::new(std::iter::once(AUTO).chain(MODELS.iter().map(|m| m.name)))
}

/// shift's rules for picking lambda on the path (`ModelOptions::lambda_rule`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LambdaRule {
    /// Training accuracy on wide tables or under an L2 theta, else cv.
    Auto,
    /// Held-out accuracy over cv_folds folds.
    Cv,
    /// The point where the expected fraction of labels is shifted (--noise-fraction).
    Noise,
    /// Training accuracy (Tibshirani & Manning's rule).
    Accuracy,
}

impl LambdaRule {
    fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Cv => "cv",
            Self::Noise => "noise",
            Self::Accuracy => "accuracy",
        }
    }
}

/// The papers' experiments `relabel eval --paper` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Paper {
    /// Tibshirani & Manning, Table 1 (all seven rows).
    #[value(name = "shift-table1")]
    ShiftTable1,
    /// Tibshirani & Manning, Appendix B Table 6 (baseline, kNN prefilter,
    /// flipping model, shift).
    #[value(name = "shift-table6")]
    ShiftTable6,
    /// Bootkrajang & Kaban (2013), Fig. 1 (Synth-500, Synth-100).
    RlrSynth,
    /// Both logistic papers' colon checks (Table 2 of each), DATA =
    /// sample_data/colon.csv; --prep names the preprocessing.
    Colon,
    /// Bootkrajang & Kaban (2013), Table 5, DATA =
    /// sample_data/breast_west.csv.gz.
    Breast,
    /// Colon's leave-one-out table under every preprocessing, DATA =
    /// sample_data/colon.csv.
    #[value(name = "colon-prep")]
    ColonPrep,
    /// Breast's leave-one-out table under every preprocessing, DATA =
    /// sample_data/breast_west.csv.gz.
    #[value(name = "breast-prep")]
    BreastPrep,
    /// Bootkrajang & Kaban (2013), Table 6: bootstrap detection on colon,
    /// DATA = sample_data/colon.csv.
    #[value(name = "rlr-table6")]
    RlrTable6,
    /// Bouveyron & Girard, section 4.2 (Fig. 2).
    #[value(name = "rmda-sim2")]
    RmdaSim2,
    /// Bouveyron & Girard, section 4.4 (Fig. 5).
    #[value(name = "rmda-sim3")]
    RmdaSim3,
    /// Bouveyron & Girard, section 4.3 (Fig. 4), DATA = the USPS 2 vs 4 table;
    /// 5 noise draws (standard errors printed), --repeats 25 for the paper's.
    RmdaUsps,
    /// rmda's defaults (covariance and clusters by BIC) against fixed
    /// covariances, the paper's among them, on sections 4.2 and 4.4.
    RmdaDefaults,
    /// Bootkrajang & Kaban (2011), Fig. 1: parameter estimates on Synth-1.
    #[value(name = "rnda-fig1")]
    RndaFig1,
    /// Bootkrajang & Kaban (2011), Fig. 2: Synth-2 and Synth-3.
    #[value(name = "rnda-fig2")]
    RndaFig2,
    /// Bootkrajang & Kaban (2011), Fig. 3, DATA = iris or wine (any
    /// labelled table).
    #[value(name = "rnda-fig3")]
    RndaFig3,
    /// Bootkrajang & Kaban (2011), Fig. 4: dimension and training size.
    #[value(name = "rnda-fig4")]
    RndaFig4,
    /// Lynch & Willett, Fig. 1: P(e) against M, one test observation.
    #[value(name = "cbt-fig1")]
    CbtFig1,
    /// Lynch & Willett, Fig. 2: one and two test observations.
    #[value(name = "cbt-fig2")]
    CbtFig2,
    /// Lynch & Willett, Figs. 3-4: P(e) and features removed against
    /// alpha, with and without BDRA, N = 25 and 100.
    #[value(name = "bdra-fig3")]
    BdraFig3,
}
