//! The sample fields of a GEO file and the label and ids taken from them:
//! a field by name (a subset type, a characteristic key, any `!Sample_`
//! field), several joined (`--label 'strain+cell line'`), or one cut by a
//! regular expression (`--label title --label-pattern '^(.*)-rep'`), since
//! many series keep their groups only in the sample titles.

use std::collections::HashMap;
use std::path::Path;

use regex::Regex;

use super::super::read::err;
use super::super::shown::{as_arg, one_line, shown};
use super::super::{DataError, LoadOptions};

/// One sample field: its name, each sample's value (None where the field
/// says nothing of it), the 1-based line it came from, and its channel (2
/// for a two-colour array's second channel, else 1).
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub values: Vec<Option<String>>,
    pub line: usize,
    pub channel: u8,
    /// A characteristic or a GDS subset type: what GEO records as the
    /// samples' groups, listed before other fields.
    pub primary: bool,
}

/// The longest line a refusal may take, `relabel: ` and the path included.
pub const MAX_LINE: usize = 300;

/// Fields gathered sample by sample (a family file's sections) or line by
/// line (a series matrix), found again by name and channel.
pub struct FieldSet {
    fields: Vec<Field>,
    n: usize,
}

impl FieldSet {
    pub fn new(n: usize) -> FieldSet {
        FieldSet {
            fields: Vec::new(),
            n,
        }
    }

    /// Sample `i`'s value of field `name`; a second value of the same field
    /// (a key written on two lines) is joined to the first with "; ".
    pub fn set(&mut self, name: &str, channel: u8, line: usize, i: usize, value: &str) {
        self.set_in(name, (channel, false), line, i, value);
    }

    /// [`FieldSet::set`] of a characteristic or subset type.
    pub fn set_primary(&mut self, name: &str, channel: u8, line: usize, i: usize, value: &str) {
        self.set_in(name, (channel, true), line, i, value);
    }

    fn set_in(
        &mut self,
        name: &str,
        (channel, primary): (u8, bool),
        line: usize,
        i: usize,
        value: &str,
    ) {
        let at = match self
            .fields
            .iter()
            .position(|f| f.name == name && f.channel == channel)
        {
            Some(at) => at,
            None => {
                self.fields.push(Field {
                    name: name.to_string(),
                    values: vec![None; self.n],
                    line,
                    channel,
                    primary,
                });
                self.fields.len() - 1
            }
        };
        let slot = &mut self.fields[at].values[i];
        match slot {
            Some(v) => {
                v.push_str("; ");
                v.push_str(value);
            }
            None => *slot = Some(value.to_string()),
        }
    }

    /// `!Sample_<key>`'s value of sample `i`: a characteristic
    /// (`characteristics_ch1` = `tissue: tumor`) becomes the field of its
    /// key; any other key is a field of its own name.
    pub fn set_sample_key(&mut self, key: &str, line: usize, i: usize, value: &str) {
        let channel = channel_of(key);
        match (key.starts_with("characteristics_ch"), value.split_once(':')) {
            (true, Some((k, v))) if !k.trim().is_empty() => {
                self.set_primary(k.trim(), channel, line, i, v.trim());
            }
            _ => self.set(key, channel, line, i, value.trim()),
        }
    }

    /// The fields; a second-channel characteristic named like a first
    /// channel's is named `<key> (ch2)`, so the two are told apart.
    pub fn finish(self) -> Vec<Field> {
        let mut fields = self.fields;
        for i in 0..fields.len() {
            if fields[i].channel > 1
                && fields[..i]
                    .iter()
                    .any(|f| f.channel != fields[i].channel && f.name == fields[i].name)
            {
                fields[i].name = format!("{} (ch{})", fields[i].name, fields[i].channel);
            }
        }
        fields
    }
}

/// 2 for `label_ch2`, `characteristics_ch2`; else 1.
fn channel_of(key: &str) -> u8 {
    key.rsplit_once("_ch")
        .and_then(|(_, c)| c.parse::<u8>().ok())
        .unwrap_or(1)
}

/// A field that could hold labels, with its values and how many samples
/// have each (in order of first appearance), for a picker; `pattern` is
/// the `--label-pattern` that cuts it into these groups, if one does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelField {
    pub name: String,
    pub pattern: Option<String>,
    pub groups: Vec<(String, usize)>,
}

/// Values in order of first appearance with their counts.
fn groups<'a>(values: impl Iterator<Item = &'a str>) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for v in values {
        match at.get(v) {
            Some(&k) => out[k].1 += 1,
            None => {
                at.insert(v, out.len());
                out.push((v.to_string(), 1));
            }
        }
    }
    out
}

/// Every value of a field that has one for every sample.
fn complete(f: &Field) -> Option<Vec<&str>> {
    f.values.iter().map(|v| v.as_deref()).collect()
}

/// Fields whose values split the samples into groups (2 or more values,
/// some shared), each set of values once (a two-colour array's channels
/// often repeat one another); characteristics and subset types first.
fn grouping(fields: &[Field]) -> Vec<&Field> {
    let mut out: Vec<&Field> = Vec::new();
    let ordered = fields
        .iter()
        .filter(|f| f.primary)
        .chain(fields.iter().filter(|f| !f.primary));
    for f in ordered {
        let Some(values) = complete(f) else { continue };
        let distinct = groups(values.iter().copied()).len();
        if distinct < 2 || distinct == values.len() {
            continue;
        }
        if !out.iter().any(|o| o.values == f.values) {
            out.push(f);
        }
    }
    out
}

/// The fields a picker offers: those that group the samples, then the
/// title cut by the pattern [`suggest_pattern`] finds.
pub fn label_fields(fields: &[Field]) -> Vec<LabelField> {
    let mut out: Vec<LabelField> = grouping(fields)
        .into_iter()
        .filter_map(|f| {
            Some(LabelField {
                name: f.name.clone(),
                pattern: None,
                groups: groups(complete(f)?.into_iter()),
            })
        })
        .collect();
    out.extend(suggest_pattern(fields));
    out
}

/// The separators a title's replicate number follows, most specific first.
const SEPARATORS: [&str; 9] = [
    "-rep", "_rep", " rep", "-Rep", "_Rep", " Rep", "-", "_", " ",
];

/// When the sample titles hold groups that no field has (`AD-Veh-rep1`,
/// `AD-Veh-rep2`, ...), the pattern that cuts them out: `^(.*)SEP` for
/// the first separator after which every title differs only in its end,
/// leaving groups of at least two samples each.
fn suggest_pattern(fields: &[Field]) -> Option<LabelField> {
    let title = fields.iter().find(|f| f.name == "title")?;
    let values = complete(title)?;
    let n = values.len();
    let partitions: Vec<Vec<usize>> = grouping(fields)
        .iter()
        .filter_map(|f| complete(f).map(|v| partition(&v)))
        .collect();
    for sep in SEPARATORS {
        let pattern = format!("^(.*){}", regex::escape(sep));
        let Ok(re) = Regex::new(&pattern) else {
            continue;
        };
        let cut: Option<Vec<&str>> = values
            .iter()
            .map(|v| cut_by(&re, v).filter(|c| !c.is_empty()))
            .collect();
        let Some(cut) = cut else { continue };
        let g = groups(cut.iter().copied());
        if g.len() < 2 || g.len() == n || g.iter().any(|(_, c)| *c < 2) {
            continue;
        }
        if partitions.contains(&partition(&cut)) {
            return None;
        }
        return Some(LabelField {
            name: title.name.clone(),
            pattern: Some(format!("^(.*){sep}")),
            groups: g,
        });
    }
    None
}

/// Each value's group number, in order of first appearance: two fields
/// that group the samples alike have the same partition.
fn partition(values: &[&str]) -> Vec<usize> {
    let mut at: HashMap<&str, usize> = HashMap::new();
    values
        .iter()
        .map(|v| {
            let next = at.len();
            *at.entry(v).or_insert(next)
        })
        .collect()
}

/// The label `re` cuts from `value`: its first group when it has one,
/// else the whole match; `None` when it does not match.
fn cut_by<'a>(re: &Regex, value: &'a str) -> Option<&'a str> {
    let caps = re.captures(value)?;
    let m = if re.captures_len() > 1 {
        caps.get(1)?
    } else {
        caps.get(0)?
    };
    Some(m.as_str())
}

/// `"disease state" (RCC, normal)`: a field and its first few values,
/// each quoted when it holds a comma, so a list of them reads.
fn describe(field: &Field) -> String {
    let values: Vec<&str> = field.values.iter().flatten().map(String::as_str).collect();
    let g = groups(values.into_iter());
    let shown_values: Vec<String> = g
        .iter()
        .take(4)
        .map(|(v, _)| {
            let v = short(v);
            if v.contains([',', ';', '(', ')', '"']) {
                format!("\"{}\"", v.replace('"', "\\\""))
            } else {
                v
            }
        })
        .collect();
    let more = if g.len() > 4 { ", ..." } else { "" };
    format!("{} ({}{more})", shown(&field.name), shown_values.join(", "))
}

/// A value in a list of fields: on one line, at most 24 characters.
fn short(v: &str) -> String {
    let line = one_line(v);
    if line.chars().count() <= 24 {
        return line;
    }
    let mut cut: String = line.chars().take(23).collect();
    cut.push('…');
    cut
}

/// `e.g. --label title --label-pattern '^(.*)-rep' (4 groups)`.
fn pattern_hint(p: &LabelField) -> String {
    format!(
        "--label {} --label-pattern {} ({} groups)",
        as_arg(&p.name),
        as_arg(p.pattern.as_deref().unwrap_or_default()),
        p.groups.len()
    )
}

/// `items` joined by "; " in at most `budget` characters; those left out
/// are counted (the review screen's field picker lists every one).
fn fit_list(items: &[String], budget: usize) -> String {
    let tail = |left: usize| format!("and {left} more");
    let mut out = String::new();
    for (k, item) in items.iter().enumerate() {
        let sep = if out.is_empty() { "" } else { "; " };
        let after = items.len() - k - 1;
        let reserve = if after > 0 { 2 + tail(after).len() } else { 0 };
        if out.chars().count() + sep.len() + item.chars().count() + reserve > budget {
            return format!("{out}{sep}{}", tail(items.len() - k));
        }
        out.push_str(sep);
        out.push_str(item);
    }
    out
}

/// A refusal whose hint ends in a list of fields, cut to keep the whole
/// line within [`MAX_LINE`] characters.
fn with_fields(path: &Path, message: String, lead: &str, fields: &[Field]) -> DataError {
    let mut listed: Vec<&Field> = grouping(fields);
    if listed.is_empty() {
        listed = fields.iter().filter(|f| complete(f).is_some()).collect();
    }
    let items: Vec<String> = listed.into_iter().map(describe).collect();
    let fixed = "relabel: ".len()
        + path.display().to_string().chars().count()
        + ": ".len()
        + message.chars().count()
        + " — ".len()
        + lead.chars().count();
    let budget = MAX_LINE.saturating_sub(fixed);
    let hint = format!("{lead}{}", fit_list(&items, budget));
    err(path, 0, 0, message, &hint)
}

/// Finds a field by the name a curator types: as listed, in any case,
/// with or without `!Sample_`, and `source_name` for `source_name_ch1`.
fn find<'a>(fields: &'a [Field], wanted: &str) -> Option<&'a Field> {
    let w = wanted.trim();
    let w = w.strip_prefix('!').unwrap_or(w);
    let w = w.strip_prefix("Sample_").unwrap_or(w);
    let ch1 = format!("{w}_ch1");
    fields
        .iter()
        .find(|f| f.name == w)
        .or_else(|| fields.iter().find(|f| f.name.eq_ignore_ascii_case(w)))
        .or_else(|| fields.iter().find(|f| f.name.eq_ignore_ascii_case(&ch1)))
}

/// The fields `--label` names: one, or several joined with `+`.
fn named<'a>(
    path: &Path,
    shape: &str,
    fields: &'a [Field],
    name: &str,
) -> Result<Vec<&'a Field>, DataError> {
    if let Some(f) = find(fields, name) {
        return Ok(vec![f]);
    }
    let parts: Vec<&str> = name.split('+').collect();
    let found: Vec<Option<&Field>> = parts.iter().map(|p| find(fields, p)).collect();
    if parts.len() > 1 && found.iter().all(Option::is_some) {
        return Ok(found.into_iter().flatten().collect());
    }
    let missing = parts
        .iter()
        .zip(&found)
        .find(|(_, f)| f.is_none())
        .map_or(name, |(p, _)| p.trim());
    Err(with_fields(
        path,
        format!("{shape} has no sample field {}", shown(missing)),
        "the fields: ",
        fields,
    ))
}

/// The label every sample gets, and what it was read from.
pub struct Chosen {
    pub labels: Vec<String>,
    /// Each sample's field value(s) before `--label-pattern` cut them.
    pub sources: Vec<String>,
    /// The label field's name, several joined with `+`.
    pub name: String,
    /// Where the (first) field is, for messages.
    pub line: usize,
}

/// The labels `--label` (and `--label-pattern`) take from the fields;
/// without `--label`, an error that lists the fields to choose from.
/// `shape` says what the file is: "the series matrix of GSE1 (18 samples
/// x 757 probes)".
pub fn choose_labels(
    path: &Path,
    shape: &str,
    fields: &[Field],
    samples: &[String],
    opts: &LoadOptions,
) -> Result<Chosen, DataError> {
    let Some(name) = &opts.label else {
        let lead = match suggest_pattern(fields) {
            Some(p) => format!("e.g. {}, or --label FIELD: ", pattern_hint(&p)),
            None => "pass --label FIELD: ".into(),
        };
        return Err(with_fields(
            path,
            format!("{shape}: which sample field holds the labels?"),
            &lead,
            fields,
        ));
    };
    let parts = named(path, shape, fields, name)?;
    let mut sources = Vec::with_capacity(samples.len());
    for (i, sample) in samples.iter().enumerate() {
        let mut joined: Vec<&str> = Vec::with_capacity(parts.len());
        for f in &parts {
            let Some(v) = f.values[i].as_deref() else {
                return Err(err(
                    path,
                    f.line,
                    0,
                    format!("sample {} has no {}", one_line(sample), shown(&f.name)),
                    "choose another field with --label, or add the sample to a subset of that type",
                ));
            };
            joined.push(v);
        }
        sources.push(joined.join(" + "));
    }
    let labels = match &opts.label_pattern {
        Some(pattern) => cut_labels(path, pattern, samples, &sources)?,
        None => sources.clone(),
    };
    let name = parts
        .iter()
        .map(|f| f.name.as_str())
        .collect::<Vec<_>>()
        .join("+");
    own_label_each(path, &name, &labels, fields, opts)?;
    Ok(Chosen {
        labels,
        sources,
        name,
        line: parts[0].line,
    })
}

/// `--label-pattern` applied to every sample's value.
fn cut_labels(
    path: &Path,
    pattern: &str,
    samples: &[String],
    sources: &[String],
) -> Result<Vec<String>, DataError> {
    let re = Regex::new(pattern).map_err(|e| {
        let first = e.to_string();
        let why = first.lines().last().unwrap_or_default().trim().to_string();
        err(
            path,
            0,
            0,
            format!("--label-pattern {} is not a regular expression: {why}", as_arg(pattern)),
            "write it as in R's sub() or Python's re, e.g. '^(.*)-rep' (the first group is the label)",
        )
    })?;
    samples
        .iter()
        .zip(sources)
        .map(|(sample, value)| match cut_by(&re, value) {
            Some(cut) if !cut.trim().is_empty() => Ok(cut.trim().to_string()),
            found => Err(err(
                path,
                0,
                0,
                format!(
                    "--label-pattern {} {} sample {}'s {}",
                    as_arg(pattern),
                    if found.is_some() {
                        "leaves nothing of"
                    } else {
                        "does not match"
                    },
                    one_line(sample),
                    shown(value)
                ),
                "change the pattern so that it matches every sample (its first group, or else the whole match, is the label)",
            )),
        })
        .collect()
}

/// A label that every sample has to itself names samples, not classes:
/// refused, with the pattern that would cut the titles into groups.
fn own_label_each(
    path: &Path,
    name: &str,
    labels: &[String],
    fields: &[Field],
    opts: &LoadOptions,
) -> Result<(), DataError> {
    let n = labels.len();
    if n < 2 || groups(labels.iter().map(String::as_str)).len() < n {
        return Ok(());
    }
    let message = format!(
        "every sample has a {} of its own ({n} values among {n} samples), so no class can be learnt",
        shown(name)
    );
    match suggest_pattern(fields).filter(|_| opts.label_pattern.is_none()) {
        Some(p) => Err(err(
            path,
            0,
            0,
            message,
            &format!("cut the labels from it, e.g. {}", pattern_hint(&p)),
        )),
        None => Err(with_fields(
            path,
            message,
            "choose a field that groups the samples: ",
            fields,
        )),
    }
}

/// The sample ids: GEO's accessions, or the field `--id` names (its
/// values must be unique).
pub fn choose_ids(
    path: &Path,
    fields: &[Field],
    samples: &[String],
    opts: &LoadOptions,
) -> Result<(Vec<String>, String), DataError> {
    let Some(name) = &opts.id else {
        return Ok((samples.to_vec(), "id".into()));
    };
    let Some(field) = find(fields, name) else {
        return Err(with_fields(
            path,
            format!(
                "there is no sample field {} to take the ids from",
                shown(name)
            ),
            "--id names a sample field with a value of its own for every sample (without --id, the GSM accessions are the ids); the fields: ",
            fields,
        ));
    };
    let values = complete(field).filter(|v| groups(v.iter().copied()).len() == v.len());
    match values {
        Some(v) => Ok((
            v.into_iter().map(str::to_string).collect(),
            field.name.clone(),
        )),
        None => Err(err(
            path,
            field.line,
            0,
            format!(
                "the sample field {} does not give every sample an id of its own",
                shown(&field.name)
            ),
            "choose a field with a unique value per sample (such as title), or leave out --id to use the GSM accessions",
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn field(name: &str, values: &[&str]) -> Field {
        Field {
            name: name.into(),
            values: values.iter().map(|v| Some(v.to_string())).collect(),
            line: 1,
            channel: 1,
            primary: false,
        }
    }

    #[test]
    fn titles_that_hold_the_groups_get_a_pattern() {
        let fields = [
            field(
                "title",
                &["AD-Veh-rep1", "AD-Veh-rep2", "WT-Veh-rep1", "WT-Veh-rep2"],
            ),
            field("strain", &["5xFAD", "5xFAD", "5xFAD", "5xFAD"]),
        ];
        let p = suggest_pattern(&fields).unwrap();
        assert_eq!(p.pattern.as_deref(), Some("^(.*)-rep"));
        assert_eq!(p.groups, [("AD-Veh".into(), 2), ("WT-Veh".into(), 2)]);
        // A field already grouping the samples alike: nothing to add.
        let alike = [
            fields[0].clone(),
            field("genotype", &["AD", "AD", "WT", "WT"]),
        ];
        assert!(suggest_pattern(&alike).is_none());
    }

    #[test]
    fn values_with_commas_are_quoted_and_channels_told_apart() {
        let f = field(
            "protocol",
            &["pre-induction", "2 wk induction, 6 h", "pre-induction"],
        );
        assert_eq!(
            describe(&f),
            "\"protocol\" (pre-induction, \"2 wk induction, 6 h\")"
        );
        let mut set = FieldSet::new(2);
        set.set_sample_key("characteristics_ch1", 1, 0, "Strain: 129Sv");
        set.set_sample_key("characteristics_ch2", 2, 0, "Strain: C57BL/6");
        set.set_sample_key("characteristics_ch1", 1, 1, "Strain: 129Sv");
        set.set_sample_key("characteristics_ch2", 2, 1, "Strain: C57BL/6");
        let names: Vec<String> = set.finish().into_iter().map(|f| f.name).collect();
        assert_eq!(names, ["Strain", "Strain (ch2)"]);
    }

    #[test]
    fn long_lists_are_cut_to_the_budget() {
        let items: Vec<String> = (0..10).map(|i| format!("\"field {i}\" (a, b)")).collect();
        let s = fit_list(&items, 60);
        assert!(s.chars().count() <= 60, "{s}");
        assert!(s.ends_with(" more"), "{s}");
        assert_eq!(
            fit_list(&items[..2], 200),
            "\"field 0\" (a, b); \"field 1\" (a, b)"
        );
    }
}
