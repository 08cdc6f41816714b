//! Grid to model input: missing values, string levels, classes.

use std::collections::HashSet;
use std::path::Path;

use nalgebra::DMatrix;

use super::cells::{CellAt, MAX_MAGNITUDE, RawColumn};
use super::decimal_comma;
use super::grid::{Grid, Labels, no_samples};
use super::log_scale::{self, LogRule, LogScale};
use super::read::err;
use super::shown::{as_arg, counted, name_list, name_list_of, shown};
use super::{
    CategoricalColumn, CategoricalPolicy, DataError, FeatureSource, LoadOptions, MissingPolicy,
};

/// What the grid becomes.
pub struct Built {
    pub x: DMatrix<f64>,
    pub feature_names: Vec<String>,
    pub classes: Vec<String>,
    pub labels: Vec<usize>,
    pub ids: Vec<String>,
    /// Index of every kept sample in the grid.
    pub kept: Vec<usize>,
    pub dropped: Vec<(usize, String)>,
    pub categorical: Vec<CategoricalColumn>,
    pub sources: Vec<FeatureSource>,
    pub id_name: Option<String>,
    /// Columns left out for holding one value in every kept sample.
    pub constant: Vec<String>,
    /// Columns left out for holding no value in any sample ("" unnamed).
    pub empty: Vec<String>,
    /// The ids are a string column's words, one per sample.
    pub ids_by_words: bool,
    /// A column guessed to hold ids (by its name) that repeats values: it
    /// is left out, neither ids nor a feature.
    pub repeated_id: Option<String>,
    pub log_scale: LogScale,
    /// What the build left out or chose that the curator should know.
    pub notes: Vec<String>,
}

fn hint_for(name: &str) -> String {
    format!(
        "use --ignore {} to leave the column out, or --categorical onehot to turn its levels into 0/1 columns (--model cbt reads the levels as they are)",
        as_arg(name)
    )
}

/// The first cell in file order that `pick` finds in any column, with the
/// column's name: bad input is reported at its earliest occurrence.
fn earliest<'a>(
    features: &'a [RawColumn],
    pick: impl Fn(&'a RawColumn) -> Option<&'a CellAt>,
) -> Option<(CellAt, String)> {
    features
        .iter()
        .filter_map(|c| pick(c).map(|a| (a.clone(), c.name.clone())))
        .min()
}

pub fn build(path: &Path, grid: Grid, opts: &LoadOptions) -> Result<Built, DataError> {
    check_labels(path, &grid, opts)?;
    let geo = grid.geo;
    let n = grid.labels.codes.len();
    let (ids, id_name, repeated_id) = choose_ids(path, grid.ids, grid.id_name, opts)?;
    let (features, values, empty) = without_empty(path, grid.features, grid.values, n)?;
    let mut notes = Vec::new();
    let (features, values) = without_calls(features, values, n, &mut notes);
    let (mut features, mut values, ids, id_name, ids_by_words) =
        if ids.is_none() && opts.id.is_none() && !opts.transpose {
            words_for_ids(features, values, n, ids, id_name)
        } else {
            (features, values, ids, id_name, false)
        };
    check_cells(path, &features, opts, geo)?;
    let log_scale = log_scale_of(&features, &values, n, opts);
    if log_scale.is_log2() {
        take_log2(path, &mut features, &mut values, n)?;
    } else {
        check_magnitudes(path, &features)?;
    }
    let unlabelled = unlabelled(&grid.labels, opts);
    let missing = handle_missing(path, &mut features, &mut values, &unlabelled, opts)?;
    let kept = missing.kept;
    check_levels(path, &features, &kept, opts)?;
    let (features, values, means, constant) =
        without_constant(path, features, values, n, &kept, missing.means)?;
    let (features, values, means) = most_variable(features, values, n, &kept, means, opts)
        .map(|(f, v, m, note)| {
            notes.push(note);
            (f, v, m)
        })
        .unwrap_or_else(|(f, v, m)| (f, v, m));
    let columns = feature_columns(features, values, n, &kept, &means);
    let (classes, labels) = classes_of(grid.labels, &kept);
    let ids = match ids {
        Some(ids) if kept.len() == n => ids,
        Some(ids) => kept.iter().map(|&i| ids[i].clone()).collect(),
        None => kept.iter().map(|i| i.to_string()).collect(),
    };
    Ok(Built {
        x: columns.x,
        feature_names: columns.feature_names,
        classes,
        labels,
        ids,
        kept,
        dropped: missing.dropped,
        categorical: columns.categorical,
        sources: columns.sources,
        id_name,
        constant,
        empty,
        repeated_id,
        ids_by_words,
        log_scale,
        notes,
    })
}

/// Columns of Affymetrix detection calls (A/P/M) are left out, with a
/// note: they say whether a signal was detected, beside the signal, and
/// as 0/1 columns they would be tens of thousands of features of no
/// value; as strings they would stop the load.
fn without_calls(
    features: Vec<RawColumn>,
    mut values: Vec<f64>,
    n: usize,
    notes: &mut Vec<String>,
) -> (Vec<RawColumn>, Vec<f64>) {
    let calls: Vec<bool> = features
        .iter()
        .map(RawColumn::holds_detection_calls)
        .collect();
    if !calls.contains(&true) || calls.iter().all(|&c| c) {
        return (features, values);
    }
    let (kept, names) = leave_out(features, &mut values, n, &calls);
    notes.push(format!(
        "{} {} detection calls (A, P, M: absent, present, marginal), not measurements, so {} left out: {}",
        counted(names.len(), "column"),
        if names.len() == 1 { "holds" } else { "hold" },
        if names.len() == 1 { "it is" } else { "they are" },
        name_list(&names)
    ));
    (kept, values)
}

/// Columns, their values and fill means, and a note; or the same, unchanged.
type Filtered = (Vec<RawColumn>, Vec<f64>, Vec<Option<f64>>, String);
type Unfiltered = (Vec<RawColumn>, Vec<f64>, Vec<Option<f64>>);

/// `--top-variance N`: the N numeric columns of largest variance over the
/// kept samples (on the scale they are read on), the standard first filter
/// of an expression array: a probe that barely varies carries no class.
/// String columns stay. Ties keep the earlier column.
fn most_variable(
    features: Vec<RawColumn>,
    mut values: Vec<f64>,
    n: usize,
    kept: &[usize],
    means: Vec<Option<f64>>,
    opts: &LoadOptions,
) -> Result<Filtered, Unfiltered> {
    let Some(top) = opts.top_variance else {
        return Err((features, values, means));
    };
    let variance = |f: usize| {
        let column = &values[f * n..(f + 1) * n];
        let m = kept.len().max(1) as f64;
        let mean = kept.iter().map(|&i| column[i]).sum::<f64>() / m;
        kept.iter()
            .map(|&i| (column[i] - mean).powi(2))
            .sum::<f64>()
            / m
    };
    let mut numeric: Vec<(usize, f64)> = (0..features.len())
        .filter(|&f| !is_text(&features[f]))
        .map(|f| (f, variance(f)))
        .collect();
    let total = numeric.len();
    if top >= total {
        let note = format!("--top-variance {top} keeps every one of the {total} numeric features");
        return Ok((features, values, means, note));
    }
    numeric.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut out = vec![false; features.len()];
    for &(f, _) in &numeric[top..] {
        out[f] = true;
    }
    let means = means
        .into_iter()
        .zip(&out)
        .filter(|(_, o)| !**o)
        .map(|(m, _)| m)
        .collect();
    let (kept_features, _) = leave_out(features, &mut values, n, &out);
    let note = format!(
        "--top-variance {top}: the {top} most variable of {total} numeric features are read (variance over the samples, on the scale they are read on), the other {} left out",
        total - top
    );
    Ok((kept_features, values, means, note))
}

/// Features, values, ids, the id column's name, and whether the ids are
/// words of a feature column taken for them.
type WordIds = (
    Vec<RawColumn>,
    Vec<f64>,
    Option<Vec<String>>,
    Option<String>,
    bool,
);

/// In a table without an id column, the first string column in which
/// every sample has a word of its own (a patient or specimen name): it
/// cannot be a feature, since a level per sample is no category and the
/// load would stop on it, so it names the samples.
fn words_for_ids(
    features: Vec<RawColumn>,
    mut values: Vec<f64>,
    n: usize,
    ids: Option<Vec<String>>,
    id_name: Option<String>,
) -> WordIds {
    let own_words = |c: &RawColumn| {
        let Some(texts) = c.texts.as_ref().filter(|_| c.first_number.is_none()) else {
            return false;
        };
        let distinct = texts.iter().collect::<HashSet<_>>().len();
        n > FEW_LEVELS && distinct == n && c.first_missing.is_none()
    };
    let Some(f) = features.iter().position(own_words) else {
        return (features, values, ids, id_name, false);
    };
    let out: Vec<bool> = (0..features.len()).map(|i| i == f).collect();
    let words = features[f].texts.clone();
    let (kept, mut names) = leave_out(features, &mut values, n, &out);
    (kept, values, words, names.pop(), true)
}

/// Feature columns without those in which no sample has a value (every
/// cell empty or a missing-value token), whose names are returned (an
/// unnamed one as ""). Such a column says nothing of any sample; without
/// this, the first of its cells stops the load as a missing value, and
/// `--missing drop` would drop every row. A delimiter at the end of each
/// line makes one, unnamed. A table with no other column is an error.
type WithNames = (Vec<RawColumn>, Vec<f64>, Vec<String>);
fn without_empty(
    path: &Path,
    features: Vec<RawColumn>,
    mut values: Vec<f64>,
    n: usize,
) -> Result<WithNames, DataError> {
    let empty: Vec<bool> = features
        .iter()
        .map(|c| c.first_number.is_none() && c.first_text.is_none() && c.first_infinite.is_none())
        .collect();
    if !empty.contains(&true) {
        return Ok((features, values, Vec::new()));
    }
    if empty.iter().all(|&e| e) {
        return Err(err(
            path,
            1,
            0,
            "no feature column holds a value in any sample".into(),
            "check --ignore, --label and --transpose, or fill in the measurements",
        ));
    }
    let (kept, names) = leave_out(features, &mut values, n, &empty);
    Ok((kept, values, names))
}

/// The columns not marked in `out`, their values moved together in
/// `values` (column-major, `n` rows each), and the names of the others.
fn leave_out(
    features: Vec<RawColumn>,
    values: &mut Vec<f64>,
    n: usize,
    out: &[bool],
) -> (Vec<RawColumn>, Vec<String>) {
    let mut names = Vec::new();
    let mut kept = Vec::new();
    for (f, col) in features.into_iter().enumerate() {
        if out[f] {
            names.push(col.name);
            continue;
        }
        let to = kept.len();
        if to != f && n > 0 {
            values.copy_within(f * n..(f + 1) * n, to * n);
        }
        kept.push(col);
    }
    values.truncate(kept.len() * n);
    (kept, names)
}

/// Feature columns without those that hold one value (or one level) in
/// every kept sample, whose names are returned. Such a column cannot tell
/// any class from another, and it harms the models that estimate a spread
/// per column: its variance is zero, so a Gaussian's covariance is
/// singular along it (rmda's mixtures collapsed on every start), and a
/// standardised column divides by zero. A table with no other column is
/// an error.
type Kept = (Vec<RawColumn>, Vec<f64>, Vec<Option<f64>>, Vec<String>);
fn without_constant(
    path: &Path,
    features: Vec<RawColumn>,
    mut values: Vec<f64>,
    n: usize,
    kept: &[usize],
    means: Vec<Option<f64>>,
) -> Result<Kept, DataError> {
    let constant: Vec<bool> = features
        .iter()
        .enumerate()
        .map(|(f, col)| match (&col.texts, is_text(col)) {
            (Some(texts), true) => {
                let mut seen = kept.iter().map(|&i| &texts[i]);
                seen.next().is_some_and(|first| seen.all(|t| t == first))
            }
            (None, true) => false,
            (_, false) => {
                let column = &values[f * n..(f + 1) * n];
                let mut seen = kept.iter().map(|&i| column[i]);
                seen.next().is_some_and(|first| seen.all(|v| v == first))
            }
        })
        .collect();
    if !constant.contains(&true) {
        return Ok((features, values, means, Vec::new()));
    }
    if constant.iter().all(|&c| c) {
        let names: Vec<String> = features.iter().map(|c| c.name.clone()).collect();
        return Err(err(
            path,
            1,
            0,
            format!(
                "every feature column holds one value in every sample ({}), so nothing tells the classes apart",
                name_list_of(&names, 4)
            ),
            "check --ignore, --label and --transpose, or add the columns that were measured",
        ));
    }
    let kept_means = means
        .into_iter()
        .zip(&constant)
        .filter(|(_, c)| !**c)
        .map(|(m, _)| m)
        .collect();
    let (kept_features, names) = leave_out(features, &mut values, n, &constant);
    Ok((kept_features, values, kept_means, names))
}

/// There are samples, and every one has a label.
fn check_labels(path: &Path, grid: &Grid, opts: &LoadOptions) -> Result<(), DataError> {
    if grid.labels.codes.is_empty() {
        return Err(no_samples(path));
    }
    if let Some((line, column)) = grid.labels.first_empty
        && opts.missing != MissingPolicy::Drop
    {
        return Err(err(
            path,
            line,
            column,
            format!("the label in column {} is empty", shown(&grid.label_name)),
            "every sample needs a label: fill it in, remove the row, or use --missing drop to leave the unlabelled rows out",
        ));
    }
    label_holds_classes(path, grid, opts)?;
    Ok(())
}

/// A label column that cannot hold classes: beyond [`FEW_LEVELS`] levels,
/// more than one per two samples (the rule a string feature is held to,
/// [`check_levels`]: a label seen about once is no class), or numbers with
/// a fraction (a measurement). Picked by relabel itself (by its name, else
/// the last column), the pick is wrong, most often a table whose label is
/// not its last column; named with `--label`, the name is. Either way,
/// said before anything is fitted (a fit would flag nearly every sample),
/// with the columns to choose from.
fn label_holds_classes(path: &Path, grid: &Grid, opts: &LoadOptions) -> Result<(), DataError> {
    let levels = grid.labels.levels.len();
    let n = grid.labels.codes.len();
    let numbers: Option<Vec<f64>> = grid
        .labels
        .levels
        .iter()
        .map(|l| match super::cells::read_cell(l) {
            super::cells::Cell::Number(v) => Some(v),
            _ => None,
        })
        .collect();
    let fraction = numbers
        .as_ref()
        .and_then(|v| v.iter().position(|x| x.fract() != 0.0));
    let measured = levels > FEW_LEVELS && fraction.is_some();
    if !measured && (levels <= FEW_LEVELS || 2 * levels <= n) {
        return Ok(());
    }
    let named = super::grid::LABEL_NAMES
        .iter()
        .any(|l| grid.label_name.eq_ignore_ascii_case(l));
    let name = shown(&grid.label_name);
    let given = opts.label.is_some();
    let (what, line, column, option) = match (grid.geo, opts.transpose) {
        (true, _) => (format!("the sample field {name}"), 0, 0, "--label FIELD"),
        (false, false) => (
            format!("column {name}"),
            1,
            grid.label_field + 1,
            "--label COL",
        ),
        (false, true) => (
            format!("row {name}"),
            grid.label_field + 1,
            1,
            "--label ROW",
        ),
    };
    let how = match (given, named || opts.transpose) {
        (true, _) => format!("{what}, given as --label,"),
        (false, true) => format!("{what} was taken for the labels, but it"),
        (false, false) => format!(
            "{what}, the last (none is named label, class, target or y), was taken for the labels, but it"
        ),
    };
    let message = match fraction {
        Some(k) if measured => format!(
            "{how} holds measurements ({levels} different numbers among {n} samples, such as {}), not classes",
            shown(&grid.labels.levels[k])
        ),
        _ => {
            format!("{how} has {levels} different values among {n} samples, too many to be classes")
        }
    };
    let mut hint = label_hint(grid, option);
    // A numeric "label" in a wide table's last column is what a genes x
    // samples sheet read the other way round looks like.
    if !grid.geo && !opts.transpose && numbers.is_some() && grid.features.len() + 1 < n {
        hint.push_str(
            "; if the file is genes x samples (a row per gene, a column per sample), pass --transpose and --label ROW naming the row of labels",
        );
    }
    Err(err(path, line, column, message, &hint))
}

/// Which column to name instead: the columns of words, most likely.
fn label_hint(grid: &Grid, option: &str) -> String {
    if grid.geo {
        return "name a sample field that groups the samples with --label, or cut this one into groups with --label-pattern".into();
    }
    // Labels are most often words; a column of them is the likeliest pick.
    let words: Vec<String> = grid
        .features
        .iter()
        .filter(|c| c.first_text.is_some() && c.first_number.is_none())
        .map(|c| c.name.clone())
        .collect();
    let others: Vec<String> = grid.features.iter().map(|c| c.name.clone()).collect();
    match words.as_slice() {
        [] => format!(
            "name the label column with {option} (the others: {})",
            name_list(&others)
        ),
        [one] => format!(
            "name the label column with {option}: perhaps {}, the only other column of words",
            as_arg(one)
        ),
        _ => format!(
            "name the label column with {option}: perhaps one of the columns of words, {}",
            name_list(&words)
        ),
    }
}

/// The sample ids, the id column's name, and a guessed id column left out.
type ChosenIds = (Option<Vec<String>>, Option<String>, Option<String>);

/// Ids and the id column's name: an explicit id column must be unique; a
/// guessed one is dropped (neither id nor feature) when it is not, and its
/// name is returned third.
fn choose_ids(
    path: &Path,
    ids: Option<Vec<String>>,
    id_name: Option<String>,
    opts: &LoadOptions,
) -> Result<ChosenIds, DataError> {
    let Some(ids) = ids else {
        return Ok((None, id_name, None));
    };
    let unique = ids.iter().collect::<HashSet<_>>().len() == ids.len();
    if unique {
        Ok((Some(ids), id_name, None))
    } else if opts.id.is_some() {
        Err(err(
            path,
            1,
            0,
            format!(
                "the id column {} has repeated values",
                shown(opts.id.as_deref().unwrap_or(""))
            ),
            "choose a column with unique values, or leave out --id",
        ))
    } else {
        Ok((None, None, id_name))
    }
}

/// Cells no policy can use: infinite values are never data; text is data
/// only under onehot, and only in a column that has no numbers.
fn check_cells(
    path: &Path,
    features: &[RawColumn],
    opts: &LoadOptions,
    geo: bool,
) -> Result<(), DataError> {
    if let Some((at, _)) = earliest(features, |c| c.first_infinite.as_ref()) {
        return Err(err(
            path,
            at.line,
            at.column,
            format!("{} is not a finite number", shown(&at.text)),
            "replace it with a number, or mark it missing (NA)",
        ));
    }
    // A column of numbers with a stray word is a typo, not a set of levels:
    // turning it into levels would hide the mistake from the curator.
    if let Some((at, name)) = earliest(features, |c| {
        c.first_number.as_ref().and(c.first_text.as_ref())
    }) {
        return Err(err(
            path,
            at.line,
            at.column,
            format!(
                "cannot read {} as a number in column {}, whose other cells are numbers",
                shown(&at.text),
                shown(&name)
            ),
            &decimal_comma::hint(&at.text)
                .or_else(|| beyond_a_limit(&at.text))
                .unwrap_or_else(|| {
                    format!(
                        "fix the cell, mark it missing (NA), or use --ignore {} to leave the column out",
                        as_arg(&name)
                    )
                }),
        ));
    }
    if opts.categorical == CategoricalPolicy::Error
        && let Some((at, name)) = earliest(features, |c| c.first_text.as_ref())
    {
        // A GEO table's values are measurements: a probe of words is a
        // damaged file, not a categorical feature.
        if geo {
            return Err(err(
                path,
                at.line,
                at.column,
                format!(
                    "probe {} has no numbers ({})",
                    shown(&name),
                    shown(&at.text)
                ),
                &format!(
                    "the file is damaged (download it again), or --ignore {} leaves the probe out",
                    as_arg(&name)
                ),
            ));
        }
        return Err(err(
            path,
            at.line,
            at.column,
            format!(
                "cannot read {} as a number in column {}",
                shown(&at.text),
                shown(&name)
            ),
            &decimal_comma::hint(&at.text).unwrap_or_else(|| hint_for(&name)),
        ));
    }
    Ok(())
}

/// A cell like `<0.01` or `>2000`: a measurement beyond an instrument's
/// detection limit, written as the limit. Which number stands for it is
/// the curator's call (the limit, half of it, or missing), not a reader's.
fn beyond_a_limit(text: &str) -> Option<String> {
    let rest = text.trim().trim_start_matches(['<', '>', '≤', '≥']);
    (rest.len() < text.trim().len()
        && matches!(super::cells::read_cell(rest), super::cells::Cell::Number(_)))
    .then(|| {
        "it reads as a value beyond a detection limit: write the number that should stand for it (the limit, or half of it below), or mark it missing (NA)".to_string()
    })
}

/// The scale the options and the values decide (see [`LogRule`]). Tables
/// whose features are another classifier's probabilities (`--probs`) are
/// read as they are: those columns replace the file's.
fn log_scale_of(features: &[RawColumn], values: &[f64], n: usize, opts: &LoadOptions) -> LogScale {
    if opts.log2 {
        return LogScale::Asked;
    }
    if opts.log_rule == LogRule::Never || opts.probs.is_some() {
        return LogScale::AsRead;
    }
    let numeric: Vec<(&RawColumn, &[f64])> = features
        .iter()
        .zip(values.chunks(n.max(1)))
        .filter(|(c, _)| c.first_text.is_none())
        .collect();
    // A log needs every value positive.
    if numeric.iter().any(|(c, _)| c.first_nonpositive.is_some()) {
        return LogScale::AsRead;
    }
    let numeric: Vec<&[f64]> = numeric.into_iter().map(|(_, v)| v).collect();
    let wide = numeric.len() >= n;
    match (log_scale::raw_shape(&numeric, n), opts.log_rule) {
        (None, _) => LogScale::AsRead,
        (Some(shape), LogRule::WhenRaw) if wide => LogScale::Chosen(shape),
        (Some(shape), _) => LogScale::Advised(shape),
    }
}

/// Numeric columns become log2(value) (`--log2`, or values that look raw);
/// a value <= 0 is an error.
fn take_log2(
    path: &Path,
    features: &mut [RawColumn],
    values: &mut [f64],
    n: usize,
) -> Result<(), DataError> {
    if let Some((at, name)) = earliest(features, |c| {
        c.first_text
            .is_none()
            .then_some(c.first_nonpositive.as_ref())
            .flatten()
    }) {
        return Err(err(
            path,
            at.line,
            at.column,
            format!(
                "--log2 needs positive values, but column {} has {}",
                shown(&name),
                shown(&at.text)
            ),
            &format!(
                "drop --log2, or use --ignore {} to leave the column out (or shift the data to be positive before loading)",
                as_arg(&name)
            ),
        ));
    }
    for (col, values) in features.iter().zip(values.chunks_mut(n.max(1))) {
        if col.first_text.is_none() {
            // NaN (missing) stays NaN.
            values.iter_mut().for_each(|v| *v = v.log2());
        }
    }
    Ok(())
}

/// Numbers too large to square and sum (see [`MAX_MAGNITUDE`]) are refused,
/// naming the column (after `--log2`, which brings them down, they are fine).
fn check_magnitudes(path: &Path, features: &[RawColumn]) -> Result<(), DataError> {
    let Some((at, name)) = earliest(features, |c| {
        c.first_text
            .is_none()
            .then_some(c.first_huge.as_ref())
            .flatten()
    }) else {
        return Ok(());
    };
    Err(err(
        path,
        at.line,
        at.column,
        format!(
            "column {} has {}, too large to compute with: values up to {MAX_MAGNITUDE:e} in size are read, as their squares must add up without overflow",
            shown(&name),
            shown(&at.text)
        ),
        &format!(
            "rescale the column (divide it by a power of ten, or pass --log2 for positive intensities), or use --ignore {} to leave it out",
            as_arg(&name)
        ),
    ))
}

/// At most this many 0/1 columns come from one string column. Every level
/// is a feature: the Gaussian models estimate a covariance over all
/// features, quadratic in their number (100 levels alone are 5,050
/// parameters per class), and the logistic ones a weight per feature and
/// class; a column of thousands of levels made a fit run for minutes or
/// ask for gigabytes, for estimates that are noise.
pub const MAX_ONEHOT_LEVELS: usize = 100;

/// Up to this many levels a string column is a category however few rows
/// there are (a small table may well see each of a handful of levels once).
const FEW_LEVELS: usize = 20;

/// String columns that are not categories: more levels than
/// [`MAX_ONEHOT_LEVELS`], or (beyond [`FEW_LEVELS`]) more levels than half
/// the samples. A level seen once on average is a 0/1 column with a single
/// 1, from which no model learns anything: such a column names samples (an
/// identifier) or holds free text.
fn check_levels(
    path: &Path,
    features: &[RawColumn],
    kept: &[usize],
    opts: &LoadOptions,
) -> Result<(), DataError> {
    for col in features.iter().filter(|c| is_text(c)) {
        let Some(texts) = col.texts.as_ref() else {
            continue;
        };
        let levels = kept
            .iter()
            .map(|&i| texts[i].as_str())
            .collect::<HashSet<_>>()
            .len();
        let n = kept.len();
        if levels <= MAX_ONEHOT_LEVELS && (levels <= FEW_LEVELS || 2 * levels <= n) {
            continue;
        }
        let at = col.first_text.clone().unwrap_or_else(unreachable_at);
        let (line, column) = if opts.transpose {
            (at.line, 1)
        } else {
            (1, at.column)
        };
        return Err(err(
            path,
            line,
            column,
            format!(
                "column {} has {levels} different strings among {n} samples, too many to be categories (one 0/1 column each: at most {MAX_ONEHOT_LEVELS}, and at most one per two samples)",
                shown(&col.name)
            ),
            &decimal_comma::hint(&at.text).unwrap_or_else(|| {
                format!(
                    "it looks like an identifier or free text: use --id {0} if it names the samples, else --ignore {0} to leave it out",
                    as_arg(&col.name)
                )
            }),
        ));
    }
    Ok(())
}

/// What `--missing` made of the missing cells.
struct Missing {
    /// Samples left in, in grid order.
    kept: Vec<usize>,
    /// Samples left out, with the reason.
    dropped: Vec<(usize, String)>,
    /// Per feature column, the mean that filled its missing cells.
    means: Vec<Option<f64>>,
}

/// Under `--missing drop`, the samples whose label is empty or blank: left
/// out like those missing a value, since no model can learn from them or
/// say their label is wrong.
fn unlabelled(labels: &Labels, opts: &LoadOptions) -> Vec<bool> {
    let blank: Vec<bool> = labels.levels.iter().map(|l| l.trim().is_empty()).collect();
    labels
        .codes
        .iter()
        .map(|&c| opts.missing == MissingPolicy::Drop && blank[c])
        .collect()
}

/// Missing values in numeric columns (string columns keep them as a
/// level); samples marked `unlabelled` are left out first.
fn handle_missing(
    path: &Path,
    features: &mut [RawColumn],
    values: &mut [f64],
    unlabelled: &[bool],
    opts: &LoadOptions,
) -> Result<Missing, DataError> {
    let n = unlabelled.len();
    let mut drop = unlabelled.to_vec();
    let mut reasons: Vec<Option<String>> = unlabelled
        .iter()
        .map(|&u| u.then(|| super::UNLABELLED.to_string()))
        .collect();
    let mut means = vec![None; features.len()];
    for (f, (col, values)) in features
        .iter_mut()
        .zip(values.chunks_mut(n.max(1)))
        .enumerate()
    {
        if is_text(col) || col.first_missing.is_none() {
            continue;
        }
        match opts.missing {
            MissingPolicy::Error => {
                let at = col.first_missing.clone().unwrap_or_else(unreachable_at);
                return Err(err(
                    path,
                    at.line,
                    at.column,
                    format!("missing value in column {}", shown(&col.name)),
                    &format!(
                        "use --missing mean to fill in the column mean, --missing drop to leave such samples out, or --ignore {} to leave the column out",
                        as_arg(&col.name)
                    ),
                ));
            }
            MissingPolicy::Drop => {
                for (i, v) in values.iter().enumerate() {
                    if v.is_nan() && !drop[i] {
                        drop[i] = true;
                        reasons[i] = Some(format!("missing value in column {}", shown(&col.name)));
                    }
                }
            }
            MissingPolicy::Mean => means[f] = Some(fill_with_mean(path, col, values)?),
        }
    }
    let kept: Vec<usize> = (0..n).filter(|i| !drop[*i]).collect();
    let dropped: Vec<(usize, String)> = (0..n)
        .filter_map(|i| reasons[i].take().map(|r| (i, r)))
        .collect();
    if kept.is_empty() {
        return Err(err(
            path,
            0,
            0,
            "every sample has a missing value, so none is left".into(),
            &emptiest(features, values, n),
        ));
    }
    Ok(Missing {
        kept,
        dropped,
        means,
    })
}

/// What to do when `--missing drop` leaves no sample: fill the gaps in,
/// or leave out the columns with the most of them, named.
fn emptiest(features: &[RawColumn], values: &[f64], n: usize) -> String {
    let mut missing: Vec<(usize, &str)> = features
        .iter()
        .zip(values.chunks(n.max(1)))
        .filter(|(c, _)| !is_text(c))
        .map(|(c, v)| (v.iter().filter(|x| x.is_nan()).count(), c.name.as_str()))
        .filter(|(k, _)| *k > 0)
        .collect();
    missing.sort_by_key(|m| std::cmp::Reverse(m.0));
    let named: Vec<String> = missing
        .iter()
        .take(3)
        .map(|(k, c)| format!("--ignore {} ({k} missing)", as_arg(c)))
        .collect();
    let more = match missing.len().saturating_sub(3) {
        0 => String::new(),
        k => format!(" ({k} more columns have gaps)"),
    };
    format!(
        "use --missing mean to fill the gaps with each column's mean, or leave out the emptiest columns: {}{more}",
        named.join(" ")
    )
}

/// `--missing mean` for one column: fills its missing cells with the mean
/// of the present ones and returns that mean.
fn fill_with_mean(path: &Path, col: &RawColumn, values: &mut [f64]) -> Result<f64, DataError> {
    let present: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    if present.is_empty() {
        let at = col.first_missing.clone().unwrap_or_else(unreachable_at);
        return Err(err(
            path,
            at.line,
            at.column,
            format!("column {} has no values at all", shown(&col.name)),
            &format!("use --ignore {}", as_arg(&col.name)),
        ));
    }
    let mean = present.iter().sum::<f64>() / present.len() as f64;
    values
        .iter_mut()
        .filter(|v| v.is_nan())
        .for_each(|v| *v = mean);
    Ok(mean)
}

/// The feature matrix and how each source column entered it.
struct Columns {
    x: DMatrix<f64>,
    feature_names: Vec<String>,
    categorical: Vec<CategoricalColumn>,
    sources: Vec<FeatureSource>,
}

/// Numbers as they are, string columns as one 0/1 column per level; only
/// the kept samples. `values` holds `n` rows per column; when every column
/// is numeric it becomes the matrix itself, its dropped rows squeezed out
/// in place, so a large table is never copied.
fn feature_columns(
    features: Vec<RawColumn>,
    mut values: Vec<f64>,
    n: usize,
    kept: &[usize],
    means: &[Option<f64>],
) -> Columns {
    let m = kept.len();
    // One name and one source per column at least (a string column gives
    // a name per level): sized once, not grown by doubling.
    let mut feature_names = Vec::with_capacity(features.len());
    let mut categorical = Vec::new();
    let mut sources = Vec::with_capacity(features.len());
    if !features.iter().any(is_text) {
        let p = features.len();
        if m < n {
            // Moving down only: row i' <= i of column j lands at or before
            // where it was, after everything still to be read.
            for j in 0..p {
                for (to, &i) in kept.iter().enumerate() {
                    values[j * m + to] = values[j * n + i];
                }
            }
            values.truncate(m * p);
        }
        for (f, col) in features.into_iter().enumerate() {
            feature_names.push(col.name.clone());
            sources.push(FeatureSource::Numeric {
                name: col.name,
                fill: means[f],
            });
        }
        return Columns {
            x: DMatrix::from_vec(m, p, values),
            feature_names,
            categorical,
            sources,
        };
    }
    let mut x: Vec<f64> = Vec::new();
    let mut p = 0;
    for (f, col) in features.into_iter().enumerate() {
        if is_text(&col) {
            let texts = col.texts.unwrap_or_default();
            let (levels, codes) = levels_of(kept.iter().map(|&i| texts[i].as_str()));
            for (l, level) in levels.iter().enumerate() {
                feature_names.push(format!("{}={level}", col.name));
                x.extend(codes.iter().map(|&c| if c == l { 1.0 } else { 0.0 }));
                p += 1;
            }
            sources.push(FeatureSource::Categorical {
                name: col.name.clone(),
                levels: levels.clone(),
            });
            categorical.push(CategoricalColumn {
                name: col.name,
                levels,
                codes,
            });
        } else {
            feature_names.push(col.name.clone());
            let column = &values[f * n..(f + 1) * n];
            x.extend(kept.iter().map(|&i| column[i]));
            p += 1;
            sources.push(FeatureSource::Numeric {
                name: col.name,
                fill: means[f],
            });
        }
    }
    drop(values);
    Columns {
        x: DMatrix::from_vec(m, p, x),
        feature_names,
        categorical,
        sources,
    }
}

/// Distinct texts in order of first appearance, and each text's index
/// among them.
fn levels_of<'a>(texts: impl Iterator<Item = &'a str>) -> (Vec<String>, Vec<usize>) {
    let mut levels: Vec<String> = Vec::new();
    let mut index: std::collections::HashMap<&'a str, usize> = std::collections::HashMap::new();
    let codes = texts
        .map(|t| {
            *index.entry(t).or_insert_with(|| {
                levels.push(t.to_string());
                levels.len() - 1
            })
        })
        .collect();
    (levels, codes)
}

/// Classes in order of first appearance among the kept samples, and each
/// kept sample's class index.
fn classes_of(labels: Labels, kept: &[usize]) -> (Vec<String>, Vec<usize>) {
    if kept.len() == labels.codes.len() {
        // Every sample kept: the labels' own order of first appearance.
        return (labels.levels, labels.codes);
    }
    levels_of(
        kept.iter()
            .map(|&i| labels.levels[labels.codes[i]].as_str()),
    )
}

fn is_text(c: &RawColumn) -> bool {
    c.first_text.is_some()
}

/// Only reached if a column claims a problem cell it did not record.
fn unreachable_at() -> CellAt {
    CellAt {
        line: 0,
        column: 0,
        text: String::new(),
    }
}
