//! `relabel scan`: fit one model and write the ranking (DESIGN §3).
//!
//! Nothing is written until everything has been computed: a run that fails
//! (bad test table, a model that cannot classify) leaves no report or
//! ranking behind, and each output replaces its file whole
//! ([`crate::atomic_write::write_atomic`]). No output may name an input.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use nalgebra::DMatrix;

use super::args::{DataArgs, ModelArgs, ScanArgs};
use super::output::{RunInfo, accuracy, report_text, write_predictions, write_ranking};
use super::progress::Bar;
use super::{CliError, load_to_score as load};
use crate::app::{FitInputs, FitPlan};
use crate::atomic_write::write_atomic;
use crate::dataset::Dataset;
use crate::models::Fit;

/// The test table's predictions, computed before anything is written.
struct Predictions {
    proba: DMatrix<f64>,
    ids: Vec<String>,
    labels: Option<Vec<String>>,
}

pub fn run(a: &ScanArgs, data: &DataArgs, model: &ModelArgs) -> Result<(), CliError> {
    // Options and output paths are checked before a large table is read.
    // Whether the model reads an option comes before what its value is.
    model.check_read_by(model.name())?;
    let options = model.model_options()?;
    check_outputs(a)?;
    let ds = load(&a.data, data, &[model.name()])?;
    let started = Instant::now();
    let plan = FitPlan::for_table(&ds, model.name(), &options)?;
    let inputs = FitInputs::of_table(&ds, &plan, None);
    let fit = {
        let bar = Bar::new(a.quiet, &format!("scan {}", plan.name));
        plan.fit(&inputs, &ds.labels, &mut bar.fit_callback(0.0, 1.0))?
    };
    let wall = started.elapsed();
    let name = plan.model_of(&fit).to_string();
    let info = RunInfo {
        model: name.clone(),
        options,
        wall_seconds: wall.as_secs_f64(),
        data_notes: if a.quiet && a.report.is_none() {
            Vec::new()
        } else {
            crate::app::data_notes(&ds)
        },
    };
    let predictions = match &a.predict {
        Some(test) if a.predictions.is_some() => {
            let classifier = fit.classifier.as_ref().ok_or_else(|| {
                CliError::BadInput(format!("model {name} cannot classify new rows"))
            })?;
            let table = ds.load_compatible(test)?;
            let proba = classifier.predict_proba(&plan.test_matrix(&ds, &table.x, &fit));
            Some(Predictions {
                proba,
                ids: table.ids,
                labels: table.labels,
            })
        }
        _ => None,
    };
    let report = match &a.report {
        Some(_) => Some(report_text(&ds, &fit, &info)?),
        None => None,
    };

    // Everything is computed: now write.
    if let (Some(path), Some(text)) = (&a.report, &report) {
        persist(path, |w| {
            w.write_all(text.as_bytes())
                .map_err(|e| CliError::Failed(e.into()))
        })?;
    }
    match &a.out {
        Some(path) => persist(path, |w| write_ranking(w, &ds, &fit))?,
        None => write_stdout(&ds, &fit)?,
    }
    if let (Some(path), Some(p)) = (&a.predictions, &predictions) {
        persist(path, |w| {
            write_predictions(w, &ds, &p.proba, &p.ids, p.labels.as_deref())
        })?;
    }
    if !a.quiet {
        let test = match (&a.predict, &predictions) {
            (Some(test), Some(p)) => p.labels.as_ref().map(|labels| {
                format!(
                    "test accuracy on {}: {:.2}% ({} rows)",
                    test.display(),
                    100.0 * accuracy(&ds, &p.proba, labels),
                    p.ids.len()
                )
            }),
            _ => None,
        };
        // After the fit, so that a table the fit refuses gets one line.
        for note in &info.data_notes {
            eprintln!("relabel scan: note: {note}");
        }
        eprintln!("{}", summary(a, &plan, &fit, test));
    }
    Ok(())
}

/// The one line scan ends with: which model and why, what it found, and
/// where it went. The figures are those of the ranking: the expected
/// number of wrong labels is the sum of p_mislabel (each sample's label is
/// wrong with that probability), and as many rows are flagged, the most
/// likely wrong first: p_mislabel at or above the fit's cutoff
/// ([`Fit::flag_cutoff`]; 0.5 where the sum is no count).
fn summary(a: &ScanArgs, plan: &FitPlan, fit: &Fit, test: Option<String>) -> String {
    let model = match (&fit.extra.selection, &plan.note) {
        (Some(sel), _) => format!(
            "{} (chosen by auto: {})",
            sel.chosen,
            crate::app::auto::scores(sel)
        ),
        (None, Some(note)) => format!("{} ({note})", plan.name),
        (None, None) => plan.name.clone(),
    };
    let mut outputs = vec![match &a.out {
        Some(path) => format!("ranking written to {}", path.display()),
        None => "ranking written to stdout".to_string(),
    }];
    if let Some(path) = &a.report {
        outputs.push(format!("report to {}", path.display()));
    }
    if let Some(path) = &a.predictions {
        outputs.push(format!("predictions to {}", path.display()));
    }
    outputs.extend(test);
    let c = crate::app::auto::counts::count(&fit.p_mislabel);
    let flagged = match fit.flagged() {
        0 => "0 flagged".to_string(),
        n => format!("{n} flagged (p_mislabel >= {:.3})", fit.flag_cutoff()),
    };
    // Said on the line a script's log keeps: otherwise the figures read as
    // a ranking, and within each label the list is file order.
    let found = match (&fit.extra.held_out_skill, fit.uncounted()) {
        (Some(s), Some(why)) if s.reason.is_some() => {
            format!("the data cannot tell which labels are wrong: {why}; nothing flagged")
        }
        _ if fit.label_only => format!(
            "{flagged}, about {:.1} wrong labels expected (ranked by the given label alone: the classifier kept no feature; see the report's notes)",
            c.expected
        ),
        _ if fit.flips_unidentified => format!(
            "{flagged}, about {:.1} wrong labels expected (not a count: the flip table ended on the diagonal-dominance constraint; see the report's notes)",
            c.expected
        ),
        _ => format!(
            "{flagged}, about {:.1} wrong labels expected ({}-{}, {:.0}% interval)",
            c.expected,
            c.low,
            c.high,
            100.0 * c.level
        ),
    };
    format!(
        "relabel scan: {model}, {} samples, {found}; {}",
        fit.p_mislabel.len(),
        outputs.join(", ")
    )
}

/// Replaces `path` whole with what `write` produces (scan's outputs are
/// replaced when they exist, as they always were). What is not a regular
/// file (`/dev/null`, `/dev/stdout`, a pipe) cannot be replaced by a rename
/// and is written in place.
fn persist(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<(), CliError>,
) -> Result<(), CliError> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| {
                CliError::Failed(
                    anyhow::Error::new(e).context(format!("cannot write {}", path.display())),
                )
            })?;
        let mut w = BufWriter::new(file);
        write(&mut w)?;
        return w.flush().map_err(|e| CliError::Failed(e.into()));
    }
    let mut failed = None;
    let result = write_atomic(path, true, |w| {
        write(w).map_err(|e| {
            let io = std::io::Error::other(e.to_string());
            failed = Some(e);
            io
        })
    });
    match (result, failed) {
        (Ok(()), _) => Ok(()),
        (Err(_), Some(e)) => Err(e),
        (Err(e), None) => Err(CliError::Failed(
            anyhow::Error::new(e).context(format!("cannot write {}", path.display())),
        )),
    }
}

/// The ranking on stdout; a reader that stops early (`| head`) is not an error.
fn write_stdout(ds: &Dataset, fit: &Fit) -> Result<(), CliError> {
    let stdout = std::io::stdout();
    let mut w = BufWriter::new(stdout.lock());
    match write_ranking(&mut w, ds, fit).and_then(|()| {
        w.flush()
            .map_err(|e| CliError::Failed(anyhow::Error::new(e)))
    }) {
        Err(CliError::Failed(e)) if is_broken_pipe(&e) => Ok(()),
        other => other,
    }
}

/// One file, however it is named: the same canonical path, or (on Unix)
/// the same device and inode (a hard link).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) if x == y => return true,
        (Ok(_), Ok(_)) => {}
        _ => return false,
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    false
}

/// Where a path that may not exist yet would be: its directory made
/// canonical, joined with its name.
fn would_be(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match (std::fs::canonicalize(dir), path.file_name()) {
        (Ok(d), Some(name)) => d.join(name),
        _ => path.to_path_buf(),
    }
}

/// No output may overwrite an input (the table, or the `--predict` test
/// table), and no two outputs may be one regular file. A path that does not exist
/// yet cannot be an input.
fn check_outputs(a: &ScanArgs) -> Result<(), CliError> {
    let inputs: Vec<(&str, &Path)> = std::iter::once(("the input table", a.data.as_path()))
        .chain(a.predict.as_deref().map(|p| ("the --predict table", p)))
        .collect();
    let outputs: Vec<(&str, &Path)> = [
        ("--out", a.out.as_deref()),
        ("--report", a.report.as_deref()),
        ("--predictions", a.predictions.as_deref()),
    ]
    .into_iter()
    .filter_map(|(flag, p)| p.map(|p| (flag, p)))
    .collect();
    for (o, &(flag, out)) in outputs.iter().enumerate() {
        if let Some((what, _)) = inputs.iter().find(|(_, input)| same_file(out, input)) {
            return Err(CliError::BadInput(format!(
                "{flag} {} is {what}: scan never overwrites its input — choose another file for {flag}",
                out.display()
            )));
        }
        // A device (`/dev/null`) may take several outputs.
        let device = std::fs::metadata(out).is_ok_and(|m| !m.is_file());
        if let Some((other, _)) = outputs[..o]
            .iter()
            .find(|(_, earlier)| !device && would_be(earlier) == would_be(out))
        {
            return Err(CliError::BadInput(format!(
                "{other} and {flag} both name {}: one would overwrite the other — give each its own file",
                out.display()
            )));
        }
    }
    Ok(())
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.to_string().contains("Broken pipe")
    })
}
