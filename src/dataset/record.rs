//! One sample's record as the file has it: every field with its column's
//! name (the review screen's record view), and its text (the search).

use super::read::{field_text, split_fields};
use super::{Dataset, SourceFormat};

impl Dataset {
    /// The record of `sample` as read (without its terminator), when the
    /// table has one record per sample: not with `transpose`, not once the
    /// bytes were dropped.
    pub fn record_bytes(&self, sample: usize) -> Option<&[u8]> {
        if self.options.transpose || self.raw.format == SourceFormat::Geo {
            return None;
        }
        let rec = self.raw.records.get(self.rows.get(sample)? + 1)?;
        self.raw.bytes.get(rec.content.clone())
    }

    /// Every field of `sample`'s record with its column's name, in file
    /// order; without a record (see `record_bytes`), the label and the
    /// features as read into the model.
    pub fn record_fields(&self, sample: usize) -> Vec<(String, String)> {
        let header = self
            .raw
            .records
            .first()
            .and_then(|h| self.raw.bytes.get(h.content.clone()));
        if let (Some(header), Some(record)) = (header, self.record_bytes(sample)) {
            let d = self.raw.delimiter;
            let (mut names, mut values) = (Vec::new(), Vec::new());
            split_fields(header, d, &mut names);
            split_fields(record, d, &mut values);
            return values
                .iter()
                .enumerate()
                .map(|(k, v)| {
                    let name = names.get(k).map_or_else(
                        || format!("(column {})", k + 1),
                        |r| field_text(&header[r.clone()]),
                    );
                    (name, field_text(&record[v.clone()]))
                })
                .collect();
        }
        let mut v = vec![(
            self.label_name.clone(),
            self.classes[self.labels[sample]].clone(),
        )];
        v.extend(
            self.feature_names
                .iter()
                .enumerate()
                .map(|(j, name)| (name.clone(), format!("{}", self.x[(sample, j)]))),
        );
        v
    }
}
