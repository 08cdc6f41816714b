//! Whether a table's numbers are read on a log2 scale. Positive features,
//! most of them strongly right-skewed and more symmetric once logged, are
//! what raw intensities (microarrays), concentrations and counts look like.
//! Which scale the models fit better the shape cannot say: classes of
//! exponential values differ linearly on the raw scale, log-normal ones on
//! the log scale, and both look so (docs/RESULTS.md measures both). Where
//! there are more rows than features, held-out fits can tell: when auto
//! chooses the model, `app::scale` weighs the two scales by its evidence;
//! otherwise the curator is advised to try `--log2`. A wide table of such
//! values (at least as many features as rows) is what raw expression arrays
//! are, for which a log scale is the field's convention, and its rows are
//! too few for held-out fits to tell the scales apart (colon: 62 rows, the
//! two within noise); the command line reads it logged unless `--no-log2`.

/// How the scale is decided (`LoadOptions::log_rule`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogRule {
    /// As read; a note advises `--log2` when the values look raw. The
    /// library's default: a caller that writes its options gets them.
    #[default]
    Advise,
    /// On a log2 scale when the values look raw and the table is wide;
    /// advised otherwise, for `app::scale` to weigh (the command line's
    /// default).
    WhenRaw,
    /// As read, without a note (`--no-log2`; the papers' experiments,
    /// whose protocols standardise the raw values).
    Never,
}

/// The scale a dataset's numeric features were read on.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum LogScale {
    /// As read.
    #[default]
    AsRead,
    /// As read, though they look raw: a note advises `--log2`.
    Advised(RawShape),
    /// log2, as `--log2` asked.
    Asked,
    /// log2, because they look raw in a wide table.
    Chosen(RawShape),
    /// Chosen by held-out evidence on a narrow table that looks raw
    /// (`app::scale`): `log2` when it explained the given labels better.
    Weighed(Weighed),
}

/// Two scales weighed by the same held-out criterion auto ranks its
/// candidates by: the best candidate's mean log-likelihood of the given
/// labels per row, on each scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weighed {
    pub shape: RawShape,
    pub as_read: f64,
    pub logged: f64,
}

impl Weighed {
    pub fn log2(self) -> bool {
        self.logged > self.as_read
    }
}

impl LogScale {
    pub fn is_log2(self) -> bool {
        match self {
            LogScale::Asked | LogScale::Chosen(_) => true,
            LogScale::Weighed(w) => w.log2(),
            LogScale::AsRead | LogScale::Advised(_) => false,
        }
    }
}

impl super::Dataset {
    /// This table read on a log2 scale instead, its scale `scale`; `None`
    /// when a missing value was filled with its column's mean (a log of
    /// the mean is not the mean of the logs `--log2` would fill with).
    pub fn logged(&self, scale: LogScale) -> Option<super::Dataset> {
        let mut numeric = Vec::new();
        let mut column = 0;
        for source in &self.sources {
            match source {
                super::FeatureSource::Numeric { fill: Some(_), .. } => return None,
                super::FeatureSource::Numeric { fill: None, .. } => {
                    numeric.push(column);
                    column += 1;
                }
                super::FeatureSource::Categorical { levels, .. } => column += levels.len(),
            }
        }
        let mut logged = self.clone();
        for j in numeric {
            logged
                .x
                .column_mut(j)
                .iter_mut()
                .for_each(|v| *v = v.log2());
        }
        logged.log_scale = scale;
        Some(logged)
    }
}

/// Why values look like raw intensities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawShape {
    /// `skewed` of the `numeric` columns are strongly right-skewed and more
    /// symmetric logged, and that is at least half of them.
    Skewed { skewed: usize, numeric: usize },
    /// A wide table whose pooled values are (see [`pooled_raw`]).
    Pooled,
}

impl RawShape {
    pub fn describe(self) -> String {
        match self {
            RawShape::Skewed { skewed, numeric } => format!(
                "every feature is positive and {skewed} of {numeric} numeric columns are strongly right-skewed, as raw intensities, concentrations and counts are"
            ),
            RawShape::Pooled => "every feature is positive, and the values are strongly right-skewed and span over two orders of magnitude, as raw intensities do".to_string(),
        }
    }
}

/// Sample skewness above which a column counts as strongly right-skewed
/// (the usual reading: beyond 1 in size, a distribution is highly skewed).
const STRONG_SKEW: f64 = 1.0;

/// Rows of a column its skewness is estimated from at most, evenly
/// strided beyond: the standard error stays below sqrt(6 / 32768) = 0.014,
/// far inside the threshold's margin, and the test costs the same on a
/// million rows.
const SKEW_SAMPLE: usize = 1 << 16;

/// A wide table's pooled values read at most (8 MB), so that a positive
/// table of 10k x 20k is not copied whole; GDS507 (385k) is read whole.
const POOLED_SAMPLE: usize = 1 << 20;

/// The shape of `columns` (each the values of one numeric column over
/// `rows` rows, NaN where missing, every value positive: the caller knows
/// that from reading them) when they look like raw intensities: most
/// columns strongly right-skewed or, when there are at least as many
/// columns as rows, the pooled values so.
pub fn raw_shape(columns: &[&[f64]], rows: usize) -> Option<RawShape> {
    if columns.is_empty() {
        return None;
    }
    let skewed = columns
        .iter()
        .filter(|c| {
            let values = strided(c.len(), SKEW_SAMPLE)
                .map(|i| c[i])
                .filter(|v| !v.is_nan());
            let raw = skewness(values.clone());
            raw > STRONG_SKEW && skewness(values.map(f64::ln)).abs() < raw
        })
        .count();
    if 2 * skewed >= columns.len() {
        return Some(RawShape::Skewed {
            skewed,
            numeric: columns.len(),
        });
    }
    (columns.len() >= rows && pooled_raw(columns, rows)).then_some(RawShape::Pooled)
}

/// Evenly strided indices of `0..len`, between `cap / 2` and `cap` of them
/// (all of them when `len` is at most `cap`).
fn strided(len: usize, cap: usize) -> std::iter::StepBy<std::ops::Range<usize>> {
    (0..len).step_by(len.div_ceil(cap).max(1))
}

/// Sample skewness of `values` (the moment estimator); 0 for a constant.
fn skewness(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let (n, sum) = values
        .clone()
        .fold((0.0, 0.0), |(n, s), v| (n + 1.0, s + v));
    if n < 3.0 {
        return 0.0;
    }
    let mean = sum / n;
    let (m2, m3) = values.fold((0.0, 0.0), |(m2, m3), v| {
        let d = v - mean;
        (m2 + d * d, m3 + d * d * d)
    });
    let (m2, m3) = (m2 / n, m3 / n);
    if m2 <= 0.0 { 0.0 } else { m3 / m2.powf(1.5) }
}

/// Whether the pooled values of a wide table look like raw intensities:
/// strongly right-skewed, more symmetric logged, and spanning two orders
/// of magnitude between their 1st and 99th percentiles. A wide table's
/// columns are one kind of measurement (genes, pixels, a spectrum), so
/// its values can be pooled; each gene's handful of samples is too few
/// for its own skewness to say much (GDS507: 17 samples). Logged
/// intensities span a factor of a few (2^3 to 2^15 is 3 to 15 once
/// logged), so the span tells raw from logged.
fn pooled_raw(columns: &[&[f64]], rows: usize) -> bool {
    let mut pooled: Vec<f64> = strided(rows * columns.len(), POOLED_SAMPLE)
        .map(|k| columns[k / rows][k % rows])
        .filter(|v| !v.is_nan())
        .collect();
    let n = pooled.len();
    if n < 3 {
        return false;
    }
    let raw = skewness(pooled.iter().copied());
    if raw <= STRONG_SKEW || skewness(pooled.iter().map(|v| v.ln())).abs() >= raw {
        return false;
    }
    let mut at = |q: f64| {
        let k = ((n - 1) as f64 * q).round() as usize;
        *pooled.select_nth_unstable_by(k, f64::total_cmp).1
    };
    let (low, high) = (at(0.01), at(0.99));
    high >= 100.0 * low
}

/// Test tables: six samples of 12 "genes" on scales from 2^2 to 2^13, as raw
/// intensities are, and a narrow table of two log-normal-like columns
/// beside a symmetric one.
#[cfg(test)]
pub(crate) fn raw_tables() -> (String, String) {
    let genes = 12;
    let header: Vec<String> = (0..genes).map(|g| format!("g{g}")).collect();
    let mut wide = format!("{},label\n", header.join(","));
    for i in 0..6 {
        let values: Vec<String> = (0..genes)
            .map(|g| (2f64.powi(2 + g) * (1.0 + 0.1 * ((i * 7 + g) % 5) as f64)).to_string())
            .collect();
        wide.push_str(&format!(
            "{},{}\n",
            values.join(","),
            ["x", "y"][i as usize % 2]
        ));
    }
    let mut narrow = String::from("a,b,c,label\n");
    for i in 0..40 {
        let big = 2f64.powi(i % 10);
        narrow.push_str(&format!(
            "{big},{},{},{}\n",
            3.0 * big + 1.0,
            10 + i % 7,
            ["x", "y"][(i % 2) as usize]
        ));
    }
    (wide, narrow)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn skewness_reads_at_most_its_sample() {
        assert_eq!(
            strided(10, 16).collect::<Vec<_>>(),
            (0..10).collect::<Vec<_>>()
        );
        assert_eq!(strided(16, 16).count(), 16);
        for len in [17, 100, 10 * 16 + 3, 1000] {
            let picked: Vec<usize> = strided(len, 16).collect();
            assert!((8..=16).contains(&picked.len()), "{len}: {picked:?}");
            assert!(
                *picked.last().unwrap() >= len - len.div_ceil(16),
                "to the end of the range, {len}: {picked:?}"
            );
        }
    }

    #[test]
    fn skewness_is_the_moment_estimator() {
        assert_eq!(skewness([1.0, 2.0, 3.0].into_iter()), 0.0);
        assert_eq!(skewness([5.0, 5.0, 5.0].into_iter()), 0.0);
        // 0, 0, 3: mean 1, m2 = 2, m3 = 2, skew = 2 / 2^1.5.
        let s = skewness([0.0, 0.0, 3.0].into_iter());
        assert!((s - 2.0 / 2f64.powf(1.5)).abs() < 1e-12, "{s}");
    }

    #[test]
    fn missing_values_are_passed_over() {
        let skewed: Vec<f64> = (0..40).map(|i| 2f64.powi(i % 10)).collect();
        let mut gappy = skewed.clone();
        gappy[3] = f64::NAN;
        assert_eq!(
            raw_shape(&[&gappy, &skewed], 40),
            Some(RawShape::Skewed {
                skewed: 2,
                numeric: 2
            })
        );
        assert_eq!(raw_shape(&[], 40), None);
    }
}
