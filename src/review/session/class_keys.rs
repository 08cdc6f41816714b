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
        if self.digit_keys_name_classes() {
            return self
                .dataset
                .classes
                .iter()
                .position(|c| digit_of(c) == Some(digit));
        }
        let rank = if digit == 0 {
            9
        } else {
            usize::from(digit) - 1
        };
        self.classes_by_posterior(sample).get(rank).copied()
    }

    /// The digit key that relabels `sample` to `class`, if one does.
    pub fn key_for_class(&self, sample: usize, class: usize) -> Option<u8> {
        if self.digit_keys_name_classes() {
            return digit_of(&self.dataset.classes[class]);
        }
        let rank = self
            .classes_by_posterior(sample)
            .iter()
            .position(|&c| c == class)?;
        match rank {
            0..=8 => u8::try_from(rank + 1).ok(),
            9 => Some(0),
            _ => None,
        }
    }
}

/// The digit a class name is, when it is exactly one ASCII digit.
fn digit_of(name: &str) -> Option<u8> {
    match name.as_bytes() {
        [b @ b'0'..=b'9'] => Some(b - b'0'),
        _ => None,
    }
}
