//! The curator's comments on samples: a line of free text for the audit
//! trail ("asked the lab", "blurred scan"), on a decided sample or on one
//! left undecided for someone else. Journaled like a decision, first to
//! disk, but outside the undo history: a comment is changed by writing it
//! again, and `u` keeps meaning "take back my last decision".

use std::collections::BTreeMap;

use super::Session;
use crate::review::ReviewError;
use crate::review::journal::Entry;
use crate::review::time::now;

/// A comment and when it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Comment {
    pub text: String,
    pub time: String,
}

/// One line of text as the curator meant it: control characters (a pasted
/// line break, "\r\n" included, or a tab) become one space, and the ends
/// are trimmed, so a comment reads the same in the list, the audit file and
/// the HTML page.
pub fn tidy(text: &str) -> String {
    let mut line = String::with_capacity(text.len());
    for c in text.chars() {
        if !c.is_control() {
            line.push(c);
        } else if !line.ends_with(' ') {
            line.push(' ');
        }
    }
    line.trim().to_string()
}

impl Session {
    /// Sets `sample`'s comment (tidied; empty removes it), in the journal
    /// before in memory. Returns whether it changed. Refused in a read-only
    /// session, as decisions are.
    pub fn comment(&mut self, sample: usize, text: &str) -> Result<bool, ReviewError> {
        self.check(sample)?;
        self.writable()?;
        let text = tidy(text);
        if self.comment_of(sample).unwrap_or("") == text {
            return Ok(false);
        }
        let time = now();
        self.write(Entry::Comment {
            row: self.dataset.rows[sample],
            id: self.dataset.ids[sample].clone(),
            text: text.clone(),
            time: time.clone(),
        })?;
        self.set_comment(sample, text, time);
        if self.filter.commented {
            self.refresh_view();
        }
        Ok(true)
    }

    /// `sample`'s comment, if it has one.
    pub fn comment_of(&self, sample: usize) -> Option<&str> {
        self.comments.get(&sample).map(|c| c.text.as_str())
    }

    /// Every comment, by sample.
    pub fn comments(&self) -> &BTreeMap<usize, Comment> {
        &self.comments
    }

    /// When the audit says `sample` was seen to: its decision's time, or,
    /// undecided, its comment's. `None` for a sample the audit leaves out.
    pub fn audit_time(&self, sample: usize) -> Option<&str> {
        self.decided_at(sample)
            .or_else(|| self.comments.get(&sample).map(|c| c.time.as_str()))
    }

    /// Whether a comment differs from what the last export wrote.
    pub(super) fn comments_unexported(&self) -> bool {
        self.comments.len() != self.exported_comments.len()
            || self
                .comments
                .iter()
                .any(|(s, c)| self.exported_comments.get(s) != Some(&c.text))
    }

    /// Records the comments as an export wrote them.
    pub(super) fn comments_exported(&mut self) {
        self.exported_comments = self
            .comments
            .iter()
            .map(|(s, c)| (*s, c.text.clone()))
            .collect();
    }

    pub(super) fn set_comment(&mut self, sample: usize, text: String, time: String) {
        if text.is_empty() {
            self.comments.remove(&sample);
        } else {
            self.comments.insert(sample, Comment { text, time });
        }
    }
}
