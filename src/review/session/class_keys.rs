//! Which class a digit key relabels a sample to. By default the digits
//! count down the sample's classes by posterior (1 the likeliest, 0 the
//! tenth), so two keystrokes reach any of the top ten. A table whose
//! classes are themselves digits (0/1, 1/2, grades 1-5, digits 0-9) turns
//! that into a trap: on class "1" with "2" the likelier, key 1 would
//! relabel to "2". There every digit key means the class of that name,
//! whatever the posterior order, and a class not named by a digit is
//! reached through the class picker.

use super::Session;

impl Session {
    /// Whether digit keys name classes (some class is a single digit)
    /// rather than count them by posterior.
    pub fn digit_keys_name_classes(&self) -> bool {
        self.dataset.classes.iter().any(|c| digit_of(c).is_some())
    }

    /// The class digit key `digit` (0-9) relabels `sample` to, if any.
    pub fn class_for_key(&self, sample: usize, digit: u8) -> Option<usize> {
        self.keyed_classes(sample)
            .into_iter()
            .find(|&(_, key)| key == Some(digit))
            .map(|(c, _)| c)
    }

    /// The sample's classes by posterior, each with the digit key that
    /// relabels to it, if one does (the detail pane's lines).
    pub fn keyed_classes(&self, sample: usize) -> Vec<(usize, Option<u8>)> {
        let by_name = self.digit_keys_name_classes();
        self.classes_by_posterior(sample)
            .into_iter()
            .enumerate()
            .map(|(rank, c)| {
                let key = if by_name {
                    digit_of(&self.dataset.classes[c])
                } else {
                    match rank {
                        0..=8 => u8::try_from(rank + 1).ok(),
                        9 => Some(0),
                        _ => None,
                    }
                };
                (c, key)
            })
            .collect()
    }
}

/// The digit a class name is, when it is exactly one ASCII digit.
fn digit_of(name: &str) -> Option<u8> {
    match name.as_bytes() {
        [b @ b'0'..=b'9'] => Some(b - b'0'),
        _ => None,
    }
}
