//! What a curator should know about a table before reading its ranking:
//! rows the options left out or filled in, label texts that look like one
//! label written several ways, and classes too small to be learnt. The
//! review screen shows them on opening, `scan` says them on stderr and in
//! its report.

use std::collections::BTreeMap;

use nalgebra::DMatrix;

use crate::app::auto::evaluate::{HeldOut, Sample};
use crate::app::auto::skill;
use crate::models::Verdict;

use crate::dataset::{
    Dataset, FeatureSource, LogScale, SourceFormat, TextEncoding, UNLABELLED, counted, name_list,
    shown,
};

/// The notes on `ds`, most consequential first.
pub fn data_notes(ds: &Dataset) -> Vec<String> {
    let counts = ds.class_counts();
    let mut notes: Vec<String> = assumed_encoding(ds).into_iter().collect();
    notes.extend(title(ds));
    notes.extend(missing_labels(&ds.classes, &counts));
    notes.extend(label_variants(&ds.classes, &counts));
    notes.extend(too_small_a_design(ds, &counts));
    notes.extend(small_classes(&ds.classes, &counts));
    notes.extend(id_column(ds));
    notes.extend(left_out(ds));
    notes.extend(empty(ds));
    notes.extend(constant(ds));
    notes.extend(filled_in(ds));
    notes.extend(log_scale(ds));
    notes.extend(ds.reader_notes.iter().cloned());
    notes
}

/// A design too small for any ranking to mean something (2 vs 2, as small
/// GEO series are), said first, before anyone reads the ranking. The rule
/// is the pipeline's "no evidence" test (`auto::skill`), not a second
/// one: it is asked about a perfect held-out ranking of the given labels
/// on the same sample and folds a fit is judged on; when even that could
/// not be told from chance, no model's ranking of this table can be, and
/// every fit will say so too.
fn too_small_a_design(ds: &Dataset, counts: &[usize]) -> Option<String> {
    let k = ds.classes.len();
    if k < 2 || ds.labels.is_empty() {
        return None;
    }
    let inputs = crate::app::FitInputs::of_matrix(&ds.x, k);
    let seed = crate::models::ModelOptions::default().seed;
    let sample = Sample::draw(&inputs, &ds.labels, seed);
    let smallest = counts.iter().copied().filter(|&c| c > 0).min().unwrap_or(0);
    let verdict = if sample.holds_out() {
        skill::test(&perfect_ranking(&sample, k), &sample, smallest).verdict
    } else {
        Verdict::TooFewSamples
    };
    if verdict != Verdict::TooFewSamples {
        return None;
    }
    let sizes: Vec<String> = ds
        .classes
        .iter()
        .zip(counts)
        .map(|(name, &c)| format!("{} {c}", shown(name)))
        .collect();
    Some(format!(
        "this design is too small for any ranking to mean something ({}): even a perfect held-out ranking of the given labels could not be told from chance, so the data cannot tell which labels are wrong; check them against the study's records instead",
        and_list(&sizes)
    ))
}

/// Held-out predictions that rank every sample's given class above every
/// other sample (distinct scores, as a fitted model's are).
fn perfect_ranking(sample: &Sample, k: usize) -> HeldOut {
    let s = sample.rows.len();
    let p = DMatrix::from_fn(s, k, |j, c| {
        let step = (j + 1) as f64 / (2 * (s + 1)) as f64;
        if sample.given[j] == c {
            0.5 + step
        } else {
            step
        }
    });
    HeldOut {
        name: "a perfect ranking".into(),
        p_true: p.clone(),
        p_given: p,
    }
}

/// A file that is not UTF-8 is read as Windows-1252 (see
/// `dataset::encoding`): any bytes decode so, so it is an assumption, and
/// a file in another encoding would show wrong letters; said once.
fn assumed_encoding(ds: &Dataset) -> Option<String> {
    (ds.raw.encoding == TextEncoding::Windows1252).then(|| {
        "the file is not UTF-8: it is read as Windows-1252 (Excel's \"CSV\" on Western-European Windows), and the cleaned file is written in it too; if its letters look wrong, save it as UTF-8".to_string()
    })
}

/// A worksheet's rows above its header, skipped as a title.
fn title(ds: &Dataset) -> Option<String> {
    let first = ds.raw.title.first()?;
    Some(format!(
        "the sheet's rows above its header are taken for a title and skipped ({}{})",
        shown(first),
        if ds.raw.title.len() > 1 { ", ..." } else { "" }
    ))
}

/// Labels written as a missing value (`NA`, `?`, ...): every model takes
/// them for one more class, where the curator most likely meant "not
/// labelled". An empty label stops the load; these cannot, as `?` is a
/// legitimate class name in some tables.
fn missing_labels(classes: &[String], counts: &[usize]) -> Option<String> {
    let named: Vec<String> = classes
        .iter()
        .zip(counts)
        .filter(|(c, _)| crate::dataset::is_missing(c))
        .map(|(c, n)| format!("{} ({n})", shown(c)))
        .collect();
    (!named.is_empty()).then(|| {
        format!(
            "the label {} is written like a missing value, and is a class of its own here: if those samples are unlabelled, leave them out of the file",
            and_list(&named)
        )
    })
}

/// Labels that differ only in letter case or in blanks around them, or
/// that are one number written two ways (`1` and `1.0`, as a column of
/// numbers becomes once a missing value makes it floats): to a model they
/// are different classes (labels are kept exactly as written, so an export
/// changes only what the curator changed), to a reader almost always one
/// label typed several ways. The fit cannot say so (each variant is a class
/// of its own), so it is said here.
fn label_variants(classes: &[String], counts: &[usize]) -> Vec<String> {
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (k, class) in classes.iter().enumerate() {
        let t = class.trim();
        let key = match t.parse::<f64>() {
            Ok(v) if v.is_finite() => format!("number {v}"),
            _ => t.to_lowercase(),
        };
        groups.entry(key).or_default().push(k);
    }
    groups
        .into_values()
        .filter(|g| g.len() > 1)
        .map(|mut g| {
            g.sort_by_key(|&k| std::cmp::Reverse(counts[k]));
            let named: Vec<String> = g
                .iter()
                .map(|&k| format!("{} ({})", shown(&classes[k]), counts[k]))
                .collect();
            format!(
                "the labels {} differ only in how they are written (letter case, blanks around them, or one number written two ways), so they are {} classes here: relabel the variants to one label, or fix the file",
                and_list(&named),
                g.len()
            )
        })
        .collect()
}

/// A class of fewer samples than this is "tiny" ([`small_classes`]).
const FOLDS: usize = 3;

/// Classes of one or two samples. Every model estimates a class from its
/// own samples, so one or two samples are judged against a class made of
/// themselves and look unsuspicious to some models (rnda puts a lone
/// sample's class mean on the sample), while a class this small is often a
/// typo of another label. Said only beside a class of at least three: in a
/// table where every class is this small the table is small, and the fit
/// says what it can.
fn small_classes(classes: &[String], counts: &[usize]) -> Option<String> {
    // Where no class is larger, the table is small, not a class.
    if counts.iter().all(|&c| c < FOLDS) {
        return None;
    }
    let small: Vec<String> = classes
        .iter()
        .zip(counts)
        .filter(|&(_, &c)| (1..FOLDS).contains(&c))
        .map(|(name, &c)| format!("{} ({})", shown(name), counted(c, "sample")))
        .collect();
    if small.is_empty() {
        return None;
    }
    let (what, has, its) = if small.len() == 1 {
        ("class", "has", "its")
    } else {
        ("classes", "have", "their")
    };
    Some(format!(
        "{what} {} {has} fewer than {FOLDS} samples: too few for a model to learn a class from, so {its} samples' ranking says little; a class this small is often a mistyped label: check {its} samples by hand",
        and_list(&small)
    ))
}

/// Samples `--missing drop` left out: for a missing value, or for having
/// no label (counted apart: the curator may want to label those).
fn left_out(ds: &Dataset) -> Option<String> {
    let missing: Vec<&str> = ds
        .dropped
        .iter()
        .map(|(_, why)| why.as_str())
        .filter(|why| *why != UNLABELLED)
        .collect();
    let unlabelled = ds.dropped.len() - missing.len();
    let mut said = Vec::new();
    if let Some(first) = missing.first() {
        said.push(format!(
            "{} left out for missing values (the first: {first})",
            counted(missing.len(), "sample")
        ));
    }
    if unlabelled > 0 {
        said.push(format!(
            "{} left out for having no label",
            counted(unlabelled, "sample")
        ));
    }
    (!said.is_empty()).then(|| {
        format!(
            "{} by --missing drop; they are kept unchanged in the cleaned file{}",
            said.join(", and "),
            if unlabelled > 0 {
                " (scan with --predict naming the same file gives the model's label for each)"
            } else {
                ""
            }
        )
    })
}

/// An id column relabel took by its name beyond the plain ones (id,
/// sample, name), or an unnamed first column (a row index): it is not a
/// feature, which the curator may not expect; or such a column that
/// repeats values, left out entirely.
fn id_column(ds: &Dataset) -> Option<String> {
    const INDEX: &str =
        "the first column, which has no name (as pandas and R write a table's row index),";
    if let Some(name) = &ds.repeated_id {
        if name.is_empty() {
            return Some(format!(
                "{INDEX} repeats values, so it is left out (neither sample ids nor a feature): name it to read it as a feature"
            ));
        }
        return Some(format!(
            "column {} is named like an identifier but repeats values, so it is left out (neither sample ids nor a feature): rename it to read it as a feature",
            shown(name)
        ));
    }
    let name = ds.id_name.as_ref()?;
    if ds.ids_by_words {
        return Some(format!(
            "sample ids are taken from column {}: every sample has a word of its own there, too many to be categories, so it names the samples (--id names another column)",
            shown(name)
        ));
    }
    let plain = ["id", "sample", "name"]
        .iter()
        .any(|p| name.trim().eq_ignore_ascii_case(p));
    (ds.options.id.is_none() && !plain && !ds.layout.transpose).then(|| {
        if name.is_empty() {
            return format!(
                "sample ids are taken from {INDEX} so it is not a feature (--id names another column)"
            );
        }
        format!(
            "sample ids are taken from column {}, named like an identifier, so it is not a feature (--id names another column)",
            shown(name)
        )
    })
}

/// Columns left out for holding no value in any sample; an unnamed one
/// is most often a delimiter at the end of every line.
fn empty(ds: &Dataset) -> Option<String> {
    let named: Vec<String> = ds.empty.iter().filter(|n| !n.is_empty()).cloned().collect();
    let unnamed = ds.empty.len() - named.len();
    let mut said = Vec::new();
    match named.len() {
        0 => {}
        1 => said.push(format!(
            "column {} has no value in any sample",
            name_list(&named)
        )),
        _ => said.push(format!(
            "columns {} have no value in any sample",
            name_list(&named)
        )),
    }
    // In a sheet they are cells beside the table that hold a blank or
    // once held something; in a text file, delimiters ending every line.
    let why = match (ds.raw.format, unnamed) {
        (SourceFormat::Spreadsheet, _) => {
            "cells beside the table that are blank make the sheet that wide"
        }
        (_, 1) => "a delimiter at the end of every line makes one",
        _ => "delimiters at the end of every line make them",
    };
    match unnamed {
        0 => {}
        1 => said.push(format!(
            "a column without a name has no value in any sample ({why})"
        )),
        k => said.push(format!(
            "{k} columns without a name have no value in any sample ({why})"
        )),
    }
    (!said.is_empty()).then(|| {
        let it = if ds.empty.len() == 1 {
            "it is"
        } else {
            "they are"
        };
        format!("{}, so {it} left out", said.join(", and "))
    })
}

/// Columns left out for holding one value in every sample.
fn constant(ds: &Dataset) -> Option<String> {
    let (what, holds) = match ds.constant.len() {
        0 => return None,
        1 => ("column", "holds"),
        _ => ("columns", "hold"),
    };
    Some(format!(
        "{what} {} {holds} one value in every sample, so {} left out: nothing in {} tells the classes apart",
        name_list(&ds.constant),
        if ds.constant.len() == 1 {
            "it is"
        } else {
            "they are"
        },
        if ds.constant.len() == 1 { "it" } else { "them" },
    ))
}

/// Columns whose missing cells `--missing mean` filled in.
fn filled_in(ds: &Dataset) -> Option<String> {
    let filled: Vec<String> = ds
        .sources
        .iter()
        .filter_map(|s| match s {
            FeatureSource::Numeric {
                name,
                fill: Some(_),
            } => Some(name.clone()),
            _ => None,
        })
        .collect();
    (!filled.is_empty()).then(|| {
        format!(
            "missing values filled with the column's mean (--missing mean) in {}",
            name_list(&filled)
        )
    })
}

/// The scale the features were read on, when the values look like raw
/// intensities: chosen (the command line's default), or advised (a caller
/// that set its own options). Said either way: the curator knows whether
/// the numbers are on a log scale already, and `--no-log2` or `--log2`
/// settles it.
fn log_scale(ds: &Dataset) -> Option<String> {
    match ds.log_scale {
        LogScale::Chosen(shape) => Some(format!(
            "{}: in a table this wide they are read on a log2 scale, the convention for raw expression arrays (exports keep the original values); if they are logged already, pass --no-log2",
            shape.describe()
        )),
        LogScale::Advised(shape) => Some(format!(
            "{}: the models fit such values better on a log scale; if they are not logged already, try --log2",
            shape.describe()
        )),
        LogScale::Weighed(w) if w.log2() => Some(format!(
            "{}: held-out fits explained the given labels better with them on a log2 scale ({:.3} nats per row, {:.3} as read), so they are read logged (exports keep the original values); --no-log2 reads them as they are",
            w.shape.describe(),
            w.logged,
            w.as_read
        )),
        LogScale::Weighed(w) => Some(format!(
            "{}, but held-out fits explained the given labels better with them as read ({:.3} nats per row, {:.3} on a log2 scale), so they are read as they are; --log2 reads them logged",
            w.shape.describe(),
            w.as_read,
            w.logged
        )),
        LogScale::AsRead | LogScale::Asked => None,
    }
}

/// At most this many items are listed in a note; the rest are counted.
const LISTED: usize = 6;

/// "a", "a and b", "a, b and c"; beyond [`LISTED`] items, "a, b, ... and
/// 7 more".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        _ if items.len() > LISTED => format!(
            "{} and {} more",
            items[..LISTED].join(", "),
            items.len() - LISTED
        ),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::dataset::{LoadOptions, MissingPolicy, load_bytes};
    use std::path::Path;

    #[test]
    fn strongly_right_skewed_positive_columns_suggest_a_log_scale() {
        // Two columns of log-normal-like intensities (a few large values),
        // one symmetric: two of three are skewed.
        let (_, table) = crate::dataset::log_scale::raw_tables();
        let notes = notes_of(&table, &LoadOptions::default());
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("every feature is positive and 2 of 3 numeric columns")
                && notes[0].ends_with("try --log2"),
            "{}",
            notes[0]
        );
        // Already logged: nothing to say.
        let logged = LoadOptions {
            log2: true,
            ..LoadOptions::default()
        };
        assert!(notes_of(&table, &logged).is_empty());
        // The command line's rule on a narrow table: advised, not done.
        let when_raw = LoadOptions {
            log_rule: crate::dataset::LogRule::WhenRaw,
            ..LoadOptions::default()
        };
        assert_eq!(notes_of(&table, &when_raw), notes);
        // --no-log2: as read, and nothing to say.
        let never = LoadOptions {
            log_rule: crate::dataset::LogRule::Never,
            ..LoadOptions::default()
        };
        assert!(notes_of(&table, &never).is_empty());
        // A zero: --log2 could not read the table, so it is not offered.
        let zero = table.replacen("\n1,", "\n0,", 1);
        assert!(notes_of(&zero, &LoadOptions::default()).is_empty());
        // One skewed column of three is not "most of them".
        let mostly_symmetric: String = table
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                format!("{},{},{},{}\n", f[0], f[2], f[2], f[3])
            })
            .collect();
        let mostly_symmetric = mostly_symmetric.replace("a,c,c,label", "a,b,c,label");
        assert!(notes_of(&mostly_symmetric, &LoadOptions::default()).is_empty());
    }

    #[test]
    fn a_wide_table_of_raw_intensities_is_told_from_a_logged_one() {
        // Six samples of 12 "genes" on scales from 2^2 to 2^13, as raw
        // intensities are: within a gene, little skew; pooled, a lot.
        let genes = 12;
        let header: Vec<String> = (0..genes).map(|g| format!("g{g}")).collect();
        let mut raw = format!("{},label\n", header.join(","));
        let mut logged = raw.clone();
        for i in 0..6 {
            let values: Vec<f64> = (0..genes)
                .map(|g| 2f64.powi(2 + g) * (1.0 + 0.1 * ((i * 7 + g) % 5) as f64))
                .collect();
            let label = if i % 2 == 0 { "x" } else { "y" };
            let row = |f: &dyn Fn(f64) -> f64| {
                values
                    .iter()
                    .map(|v| f(*v).to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            };
            raw.push_str(&format!("{},{label}\n", row(&|v| v)));
            logged.push_str(&format!("{},{label}\n", row(&f64::log2)));
        }
        let notes = notes_of(&raw, &LoadOptions::default());
        assert!(
            notes
                .iter()
                .any(|n| n.contains("span over two orders of magnitude")),
            "{notes:?}"
        );
        let notes = notes_of(&logged, &LoadOptions::default());
        assert!(!notes.iter().any(|n| n.contains("--log2")), "{notes:?}");
        // The command line's rule reads the raw one logged, and says so
        // with the way back; --no-log2 reads it as it is, without a word.
        let rule = |log_rule| LoadOptions {
            log_rule,
            ..LoadOptions::default()
        };
        let notes = notes_of(&raw, &rule(crate::dataset::LogRule::WhenRaw));
        assert!(
            notes
                .iter()
                .any(|n| n.contains("span over two orders of magnitude")
                    && n.contains("read on a log2 scale")
                    && n.ends_with("pass --no-log2")),
            "{notes:?}"
        );
        let notes = notes_of(&raw, &rule(crate::dataset::LogRule::Never));
        assert!(!notes.iter().any(|n| n.contains("log")), "{notes:?}");
    }

    /// The notes on a small table, but for the one that it is too small
    /// (tested on its own below).
    fn notes_of(text: &str, opts: &LoadOptions) -> Vec<String> {
        all_notes_of(text, opts)
            .into_iter()
            .filter(|n| !n.starts_with(TOO_SMALL))
            .collect()
    }

    fn all_notes_of(text: &str, opts: &LoadOptions) -> Vec<String> {
        let ds = load_bytes(Path::new("t.csv"), text.as_bytes().to_vec(), opts).unwrap();
        data_notes(&ds)
    }

    const TOO_SMALL: &str = "this design is too small for any ranking to mean something";

    #[test]
    fn one_label_written_several_ways_is_named_with_its_counts() {
        let table = "a,label\n1,x\n2,x\n3,x \n4,X\n5,y\n6,y\n7,y\n8,x\n";
        let notes = notes_of(table, &LoadOptions::default());
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].starts_with("the labels \"x\" (3), \"x \" (1) and \"X\" (1) differ only")
                && notes[0].contains("3 classes here"),
            "{}",
            notes[0]
        );
        // The two variants of one sample each are also too small to learn.
        assert!(
            notes[1]
                .starts_with("classes \"x \" (1 sample) and \"X\" (1 sample) have fewer than 3")
        );
    }

    #[test]
    fn columns_of_one_value_or_none_are_said_left_out() {
        for (table, said) in [
            (
                "a,k,label\n1,5,x\n2,5,x\n3,5,x\n4,5,y\n5,5,y\n6,5,y\n",
                "column k holds one value in every sample, so it is left out: nothing in it tells the classes apart",
            ),
            (
                "a,notes,b,label,\n1,,2,x,\n2,,3,x,\n3,,1,x,\n4,,1,y,\n5,,2,y,\n6,,3,y,\n",
                "column notes has no value in any sample, and a column without a name has no value in any sample (a delimiter at the end of every line makes one), so they are left out",
            ),
        ] {
            assert_eq!(notes_of(table, &LoadOptions::default()), [said]);
        }
    }

    #[test]
    fn a_column_named_like_an_id_or_unnamed_first_holds_the_ids_or_is_left_out() {
        // The unnamed one as pandas' to_csv writes a frame sorted by
        // class: as a feature, the index would predict the labels.
        for (head, first_id, said) in [
            (
                "patient_id",
                "1001",
                "sample ids are taken from column \"patient_id\", named like an identifier, so it is not a feature (--id names another column)",
            ),
            (
                "",
                "1001",
                "sample ids are taken from the first column, which has no name (as pandas and R write a table's row index), so it is not a feature (--id names another column)",
            ),
        ] {
            let table = format!(
                "{head},a,label\n1001,1,x\n1002,2,x\n1003,3,x\n1004,4,y\n1005,5,y\n1006,6,y\n"
            );
            let ds = load_bytes(
                Path::new("t.csv"),
                table.into_bytes(),
                &LoadOptions::default(),
            )
            .unwrap();
            assert_eq!(ds.feature_names, ["a"]);
            assert_eq!(ds.ids[0], first_id);
            let notes: Vec<String> = data_notes(&ds)
                .into_iter()
                .filter(|n| !n.starts_with(TOO_SMALL))
                .collect();
            assert_eq!(notes, [said]);
        }
        let mut words = String::from("patient,a,label\n");
        for i in 0..24 {
            words.push_str(&format!("P{i},{i},{}\n", ["x", "y"][i % 2]));
        }
        assert_eq!(
            notes_of(&words, &LoadOptions::default()),
            [
                "sample ids are taken from column \"patient\": every sample has a word of its own there, too many to be categories, so it names the samples (--id names another column)"
            ]
        );
        let repeated = ",a,label\n0,1,x\n0,2,x\n1,3,x\n1,4,y\n2,5,y\n2,6,y\n";
        let notes = notes_of(repeated, &LoadOptions::default());
        assert!(
            notes[0].starts_with("the first column, which has no name (as pandas and R write a table's row index), repeats values, so it is left out"),
            "{notes:?}"
        );
        let table = "batch_id,a,label\n1,1,x\n1,2,x\n2,3,x\n2,4,y\n3,5,y\n3,6,y\n";
        let notes = notes_of(table, &LoadOptions::default());
        assert!(
            notes[0].starts_with("column \"batch_id\" is named like an identifier but repeats"),
            "{notes:?}"
        );
        // Measurements whose names end in the letters "id" stay features.
        let table = "LIPID,acid,label\n1,1,x\n2,3,x\n3,2,x\n4,5,y\n5,4,y\n6,6,y\n";
        assert!(notes_of(table, &LoadOptions::default()).is_empty());
    }

    #[test]
    fn labels_written_like_missing_values_are_said() {
        let table = "a,label\n1,x\n2,x\n3,x\n4,NA\n5,NA\n6,NA\n7,y\n8,y\n9,y\n";
        let notes = notes_of(table, &LoadOptions::default());
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("the label \"NA\" (3) is written like a missing value"),
            "{notes:?}"
        );
    }

    #[test]
    fn long_lists_are_cut() {
        let items: Vec<String> = (0..9).map(|i| i.to_string()).collect();
        assert_eq!(and_list(&items[..3]), "0, 1 and 2");
        assert_eq!(and_list(&items), "0, 1, 2, 3, 4, 5 and 3 more");
    }

    #[test]
    fn one_number_written_two_ways_is_one_label_typed_twice() {
        let table = "a,label\n1,1\n2,1\n3,1.0\n4,0\n5,0\n6,0\n7,1\n";
        let notes = notes_of(table, &LoadOptions::default());
        assert!(
            notes[0].starts_with("the labels \"1\" (3) and \"1.0\" (1) differ only"),
            "{notes:?}"
        );
    }

    #[test]
    fn a_clean_table_has_no_notes() {
        let table: String = std::iter::once("a,label\n".to_string())
            .chain((0..40).map(|i| format!("{i},{}\n", ["x", "y"][i % 2])))
            .collect();
        assert!(all_notes_of(&table, &LoadOptions::default()).is_empty());
    }

    /// The design note agrees with the fit's own verdict: said exactly when
    /// the pipeline's no-evidence test finds too few samples per class.
    #[test]
    fn a_design_too_small_for_any_ranking_is_said_first_as_the_fit_will_say() {
        use crate::app::FitPlan;
        use crate::models::{ModelOptions, no_progress};
        for per_class in [2, 4, 5, 8] {
            let table: String = std::iter::once("a,b,label\n".to_string())
                .chain((0..2 * per_class).map(|i| {
                    let g = i % 2;
                    format!("{},{},{}\n", g * 10 + i, (i * 7) % 5, ["x", "y"][g])
                }))
                .collect();
            let notes = all_notes_of(&table, &LoadOptions::default());
            let said = notes.first().is_some_and(|n| n.starts_with(TOO_SMALL));
            let ds = load_bytes(
                Path::new("t.csv"),
                table.into_bytes(),
                &LoadOptions::default(),
            )
            .unwrap();
            let plan = FitPlan::for_table(&ds, "lr", &ModelOptions::default()).unwrap();
            let inputs = crate::app::FitInputs::of_table(&ds, &plan, None);
            let fit = plan.fit(&inputs, &ds.labels, &mut no_progress()).unwrap();
            let skill = fit.extra.held_out_skill.as_ref().unwrap();
            assert_eq!(
                said,
                skill.verdict == Verdict::TooFewSamples,
                "{per_class} per class: {notes:?} {skill:?}"
            );
            if per_class == 2 {
                assert!(
                    said && notes[0].contains("(\"x\" 2 and \"y\" 2)"),
                    "{notes:?}"
                );
            }
        }
    }

    #[test]
    fn rows_left_out_and_columns_filled_are_said() {
        let table = "a,b,label\n1,NA,x\n2,1,x\n3,2,x\n4,3,x\nNA,3,y\n5,4,y\n6,5,y\n7,6,y\n";
        let drop = LoadOptions {
            missing: MissingPolicy::Drop,
            ..LoadOptions::default()
        };
        let notes = notes_of(table, &drop);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("2 samples left out for missing values"),
            "{}",
            notes[0]
        );
        assert!(notes[0].contains("column \"b\""), "{}", notes[0]);
        // Rows without a label are counted apart.
        let unlabelled = format!("{table}8,7, \n9,8,\n");
        let notes = notes_of(&unlabelled, &drop);
        assert!(
            notes[0].contains(", and 2 samples left out for having no label by --missing drop")
                && notes[0].contains("--predict naming the same file"),
            "{}",
            notes[0]
        );
        let mean = LoadOptions {
            missing: MissingPolicy::Mean,
            ..LoadOptions::default()
        };
        let notes = notes_of(table, &mean);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].ends_with("in a, b"), "{}", notes[0]);
    }
}
