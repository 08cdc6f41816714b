//! The scale of a narrow table whose values look like raw intensities,
//! chosen by evidence when auto chooses the model. The shape cannot say
//! which scale the models fit: classes of exponential values differ
//! linearly as read, log-normal ones once logged, and both look raw
//! (docs/RESULTS.md). With more rows than features the held-out fits can
//! tell, by the criterion auto ranks its candidates by: the best
//! candidate's cross-validated log-likelihood of the given labels, on each
//! scale. The higher one wins, as the higher candidate does. A wide table
//! is settled by the convention when it is read (`dataset::log_scale`),
//! and a model the curator names reads the table as it was read.

use crate::dataset::{Dataset, LogRule, LogScale, Weighed};
use crate::models::{AUTO, Control, ModelOptions};

use super::{FitInputs, FitPlan, evidence};

/// `ds` on the scale its evidence prefers, when `requested` is auto and
/// `ds` is a narrow table that looks raw under the command line's rule;
/// `ds` unchanged otherwise, and when either scale could not be scored
/// (the fit then says why). Costs two of auto's evidence rounds.
pub fn settle(ds: Dataset, requested: &str, options: &ModelOptions) -> Dataset {
    let LogScale::Advised(shape) = ds.log_scale else {
        return ds;
    };
    if requested != AUTO || ds.options.log_rule != LogRule::WhenRaw {
        return ds;
    }
    let Some(mut logged) = ds.logged(LogScale::Advised(shape)) else {
        return ds;
    };
    let (Some(as_read), Some(logged_score)) =
        (best_score(&ds, options), best_score(&logged, options))
    else {
        return ds;
    };
    let weighed = Weighed {
        shape,
        as_read,
        logged: logged_score,
    };
    if weighed.log2() {
        logged.log_scale = LogScale::Weighed(weighed);
        logged
    } else {
        Dataset {
            log_scale: LogScale::Weighed(weighed),
            ..ds
        }
    }
}

/// The best held-out log-likelihood of the given labels per row among
/// auto's candidates on `ds`; `None` when none could be scored.
fn best_score(ds: &Dataset, options: &ModelOptions) -> Option<f64> {
    let plan = FitPlan::for_table(ds, AUTO, options).ok()?;
    let inputs = FitInputs::of_table(ds, &plan, None);
    let found = evidence::select(&inputs, &ds.labels, options, &mut |_| Control::Continue).ok()?;
    found
        .selection
        .candidates
        .iter()
        .filter_map(|c| c.score)
        .filter(|s| s.is_finite())
        .reduce(f64::max)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::dataset::{LoadOptions, load_bytes};
    use std::path::Path;

    /// Two classes of exponential values, class y at four times the scale:
    /// the log-likelihood ratio is linear in the raw values, so a linear
    /// boundary fits them as read. Quantiles on a grid, the two columns in
    /// different orders, stand for draws.
    fn exponential_table() -> String {
        let m = 100;
        let quantile = |k: usize| -(1.0 - (k as f64 + 0.5) / m as f64).ln();
        let mut text = String::from("a,b,label\n");
        for (label, scale) in [("x", 1.0), ("y", 4.0)] {
            for k in 0..m {
                let other = (k * 37 + 11) % m;
                text.push_str(&format!(
                    "{},{},{label}\n",
                    scale * quantile(k),
                    scale * quantile(other)
                ));
            }
        }
        text
    }

    fn load(text: &str, log_rule: LogRule) -> Dataset {
        let options = LoadOptions {
            log_rule,
            ..LoadOptions::default()
        };
        load_bytes(Path::new("t.csv"), text.as_bytes().to_vec(), &options).unwrap()
    }

    #[test]
    fn a_narrow_raw_looking_table_is_read_on_the_scale_its_evidence_prefers() {
        let table = exponential_table();
        let ds = load(&table, LogRule::WhenRaw);
        assert!(
            matches!(ds.log_scale, LogScale::Advised(_)),
            "{:?}",
            ds.log_scale
        );
        let raw = ds.x.clone();
        let options = ModelOptions::default();
        let settled = settle(ds.clone(), AUTO, &options);
        let LogScale::Weighed(w) = settled.log_scale else {
            panic!("{:?}", settled.log_scale)
        };
        // Each side is the best candidate's score on that scale.
        let logged = ds.logged(LogScale::Advised(w.shape)).unwrap();
        assert_eq!(Some(w.as_read), best_score(&ds, &options));
        assert_eq!(Some(w.logged), best_score(&logged, &options));
        assert!(
            !w.log2() && w.as_read > w.logged,
            "exponential classes fit better as read: {w:?}"
        );
        assert_eq!(settled.x, raw);
        // A named model reads the table as it was read; so does --no-log2.
        assert_eq!(
            settle(ds, "shift", &options).log_scale,
            LogScale::Advised(w.shape)
        );
        let never = load(&table, LogRule::Never);
        assert_eq!(settle(never, AUTO, &options).log_scale, LogScale::AsRead);
    }

    #[test]
    fn the_logged_table_logs_its_numeric_columns_only() {
        let ds = load("a,b,label\n1,8,x\n2,4,y\n4,2,x\n8,1,y\n", LogRule::Advise);
        let logged = ds.logged(LogScale::Asked).unwrap();
        assert_eq!(logged.x[(3, 0)], 3.0);
        assert_eq!(logged.x[(0, 1)], 3.0);
        assert!(logged.log_scale.is_log2());
        assert_eq!(logged.labels, ds.labels);
        // A mean filled in: the log of the mean is not the mean of the logs.
        let filled = LoadOptions {
            missing: crate::dataset::MissingPolicy::Mean,
            ..LoadOptions::default()
        };
        let text = "a,b,label\n1,8,x\n2,NA,y\n4,2,x\n8,1,y\n";
        let ds = load_bytes(Path::new("t.csv"), text.as_bytes().to_vec(), &filled).unwrap();
        assert!(ds.logged(LogScale::Asked).is_none());
    }
}
