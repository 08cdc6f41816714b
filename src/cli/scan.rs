//! `relabel scan`: fit one model and write the ranking (DESIGN §3).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::Instant;

use anyhow::Context;

use super::args::{DataArgs, ModelArgs, ScanArgs};
use super::output::{RunInfo, write_predictions, write_ranking, write_report};
use super::{CliError, load};
use crate::app::{FitInputs, FitPlan};
use crate::models::no_progress;

pub fn run(a: &ScanArgs, data: &DataArgs, model: &ModelArgs) -> Result<(), CliError> {
    let ds = load(&a.data, data, &[model.name()])?;
    let options = model.model_options()?;
    let plan = FitPlan::for_table(&ds, model.name(), &options)?;
    let started = Instant::now();
    let inputs = FitInputs::of_table(&ds, &plan, None);
    let fit = plan.fit(&inputs, &ds.labels, &mut no_progress())?;
    let wall = started.elapsed();
    let name = plan.name.clone();
    let info = RunInfo {
        model: name.clone(),
        options,
        wall_seconds: wall.as_secs_f64(),
    };

    if let Some(path) = &a.report {
        write_report(path, &ds, &fit, &info)?;
    }
    match &a.out {
        Some(path) => {
            let file =
                File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
            let mut w = BufWriter::new(file);
            write_ranking(&mut w, &ds, &fit)?;
            w.flush()
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        None => {
            let stdout = std::io::stdout();
            let mut w = BufWriter::new(stdout.lock());
            // A reader that stops early (`| head`) is not an error.
            match write_ranking(&mut w, &ds, &fit).and_then(|()| {
                w.flush()
                    .map_err(|e| CliError::Failed(anyhow::Error::new(e)))
            }) {
                Err(CliError::Failed(e)) if is_broken_pipe(&e) => return Ok(()),
                other => other?,
            }
        }
    }
    if let (Some(test), Some(out)) = (&a.predict, &a.predictions) {
        let classifier = fit
            .classifier
            .as_ref()
            .ok_or_else(|| CliError::BadInput(format!("model {name} cannot classify new rows")))?;
        let table = ds.load_compatible(test)?;
        let proba = classifier.predict_proba(&plan.test_matrix(&ds, &table.x));
        let ids = table.ids;
        let accuracy = write_predictions(out, &ds, &proba, &ids, table.labels.as_deref())?;
        if let Some(acc) = accuracy {
            eprintln!(
                "test accuracy on {}: {:.2}% ({} rows)",
                test.display(),
                100.0 * acc,
                ids.len()
            );
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
