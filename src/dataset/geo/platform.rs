//! Gene symbols of a platform table: probe id -> symbol, from a GPL
//! annotation file (`GPLnnn.annot.gz`), a platform's SOFT file, a family
//! file's platform section, or a GDS's `IDENTIFIER` column. They are shown
//! beside probe ids; the matrix and the feature names stay the probes'.

use std::collections::HashMap;
use std::path::Path;

use super::super::DataError;
use super::super::read::err;
use super::super::shown::{name_list, shown};
use super::table::unquote;

/// Probe id -> gene symbol, and where they came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GeneSymbols {
    /// Where the symbols came from, for notes: "GPL97.annot.gz", "the
    /// platform section (GPL13112)", "the GDS's IDENTIFIER column".
    pub source: String,
    by_probe: HashMap<String, String>,
}

impl GeneSymbols {
    pub fn new(source: String, pairs: impl IntoIterator<Item = (String, String)>) -> GeneSymbols {
        let by_probe = pairs
            .into_iter()
            .filter_map(|(probe, symbol)| {
                let symbol = tidy(&symbol);
                (!symbol.is_empty()).then_some((probe, symbol))
            })
            .collect();
        GeneSymbols { source, by_probe }
    }

    /// The symbol of a probe, if the platform gives it one.
    pub fn get(&self, probe: &str) -> Option<&str> {
        self.by_probe.get(probe).map(String::as_str)
    }

    /// How many probes have a symbol.
    pub fn len(&self) -> usize {
        self.by_probe.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_probe.is_empty()
    }

    /// Some probe ids of the platform, for a message.
    pub fn some_probes(&self) -> Vec<String> {
        let mut probes: Vec<String> = self.by_probe.keys().cloned().collect();
        probes.sort();
        probes.truncate(3);
        probes
    }
}

/// `DDR1 /// MIR4640` (GEO's separator of several genes) as `DDR1/MIR4640`.
/// GEO's placeholders are no genes: `---` (none known) and `--Control` (a
/// control probe, in a GDS's IDENTIFIER column); no gene symbol begins
/// with a dash.
fn tidy(symbol: &str) -> String {
    symbol
        .split("///")
        .map(str::trim)
        .filter(|s| !s.is_empty() && !s.starts_with('-'))
        .collect::<Vec<_>>()
        .join("/")
}

/// Column names that hold gene symbols, compared without case, blanks,
/// `_` or `-`: annotation files' "Gene symbol", Affymetrix platforms'
/// "Gene Symbol", Agilent's "GENE_SYMBOL", Illumina's "Symbol" and
/// "ILMN_Gene", a GDS's "IDENTIFIER", older platforms' "Gene_Sym".
const SYMBOL_COLUMNS: [&str; 6] = [
    "genesymbol",
    "symbol",
    "genesym",
    "ilmngene",
    "identifier",
    "genesymbols",
];

fn squeezed(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The column of gene symbols of a platform table's header.
fn symbol_column(header: &[&str]) -> Option<usize> {
    SYMBOL_COLUMNS
        .iter()
        .find_map(|want| header.iter().position(|h| squeezed(h) == *want))
}

/// Symbols of a platform table (`lines`: its header, then a line per
/// probe, tab-separated, the probe id first); `None` without a symbol column.
pub fn from_table(source: String, lines: &[(usize, &str)]) -> Option<GeneSymbols> {
    let ((_, header), rows) = lines.split_first()?;
    let header: Vec<&str> = header.split('\t').map(unquote).collect();
    let column = symbol_column(&header).filter(|&c| c > 0)?;
    let pairs = rows.iter().filter_map(|(_, row)| {
        let cells: Vec<&str> = row.split('\t').collect();
        let symbol = unquote(cells.get(column)?);
        Some((unquote(cells[0]).to_string(), symbol.to_string()))
    });
    Some(GeneSymbols::new(source, pairs))
}

/// The lines strictly between `!platform_table_begin` and its end.
pub fn platform_table<'a>(lines: &'a [(usize, &'a str)]) -> Option<&'a [(usize, &'a str)]> {
    table_between(lines, "!platform_table_begin", "!platform_table_end")
}

fn table_between<'a>(
    lines: &'a [(usize, &'a str)],
    begin: &str,
    end: &str,
) -> Option<&'a [(usize, &'a str)]> {
    let start = lines
        .iter()
        .position(|(_, l)| l.trim().eq_ignore_ascii_case(begin))?;
    let stop = lines[start..]
        .iter()
        .position(|(_, l)| l.trim().eq_ignore_ascii_case(end))
        .map_or(lines.len(), |p| start + p);
    Some(&lines[start + 1..stop])
}

/// `--platform FILE`: a GPL annotation or SOFT file (its platform table),
/// a GDS of the platform (its IDENTIFIER column), or a tab-separated table whose first column is the probe id and one of
/// whose columns holds gene symbols.
pub fn from_file(path: &Path, lines: &[(usize, &str)]) -> Result<GeneSymbols, DataError> {
    let source = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    // A GDS of the same platform names its probes' genes too (its
    // IDENTIFIER column), and is often what a curator has at hand.
    let table = platform_table(lines)
        .or_else(|| table_between(lines, "!dataset_table_begin", "!dataset_table_end"))
        .unwrap_or(lines);
    let Some(((line, header), _)) = table.split_first() else {
        return Err(err(
            path,
            0,
            0,
            "the platform file has no table".into(),
            "pass GEO's GPLnnn.annot.gz or the platform's SOFT file (GPLnnn.soft) with --platform",
        ));
    };
    let columns: Vec<String> = header.split('\t').map(|h| unquote(h).to_string()).collect();
    match from_table(source, table) {
        Some(symbols) => Ok(symbols),
        None => Err(err(
            path,
            *line,
            0,
            format!(
                "the platform table has no gene symbol column (its columns: {})",
                name_list(&columns)
            ),
            &format!(
                "pass a platform table with a {} column, such as GEO's GPLnnn.annot.gz",
                shown("Gene symbol")
            ),
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn symbols_come_from_the_column_named_so() {
        let lines = [
            (1, "ID\tGene title\tGene symbol"),
            (2, "200000_s_at\tPRP8 factor\tPRPF8"),
            (3, "200001_at\tcalpain\tCAPNS1 /// MIR4640"),
            (4, "200002_at\tnothing\t"),
            (5, "AFFX-BioB-3_at\t\t--Control"),
            (6, "AFFX-CreX-5_at\t\t---"),
        ];
        let s = from_table("GPL97".into(), &lines).unwrap();
        assert_eq!(s.get("200000_s_at"), Some("PRPF8"));
        assert_eq!(s.get("200001_at"), Some("CAPNS1/MIR4640"));
        assert_eq!(s.get("200002_at"), None);
        assert_eq!(s.get("AFFX-BioB-3_at"), None, "a control probe is no gene");
        assert_eq!(s.get("AFFX-CreX-5_at"), None);
        assert_eq!(s.len(), 2);
        let none = [(1, "ID\tGB_ACC"), (2, "1\tU02079")];
        assert!(from_table("x".into(), &none).is_none());
    }
}
