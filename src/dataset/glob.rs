//! `--ignore` patterns: a column (or probe) name, or a shell glob over
//! names (`AFFX-*`, `*_call`, `GSM18[0-4]?`), the way microarray filters are
//! written. Written here rather than taken from a crate: `*`, `?` and
//! bracket classes are all a name filter needs, in some forty lines.

/// One `--ignore` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    text: String,
    glob: bool,
}

impl Pattern {
    pub fn new(text: &str) -> Pattern {
        Pattern {
            text: text.to_string(),
            glob: text.contains(['*', '?', '[']),
        }
    }

    /// Whether the pattern has glob characters (else it is a plain name).
    pub fn is_glob(&self) -> bool {
        self.glob
    }

    /// The pattern as the user typed it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether `name` is this name, or matches this glob. A name that is
    /// the pattern's very text matches too, so a column named `a*b` can be
    /// left out by its name.
    pub fn matches(&self, name: &str) -> bool {
        name == self.text || (self.glob && glob_match(self.text.as_bytes(), name.as_bytes()))
    }
}

/// Every pattern of `--ignore`.
pub fn patterns(ignore: &[String]) -> Vec<Pattern> {
    ignore.iter().map(|t| Pattern::new(t)).collect()
}

/// Whether any of `patterns` matches `name`.
pub fn any_matches(patterns: &[Pattern], name: &str) -> bool {
    patterns.iter().any(|p| p.matches(name))
}

/// Shell-glob matching of bytes: `*` any run (also empty), `?` one byte,
/// `[abc]`, `[a-z]`, `[!a-z]` one byte of (or not of) a class. Iterative,
/// with one backtrack point for the last `*`: linear in practice, never
/// exponential.
fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
                continue;
            }
            Some(b'?') => {
                p += 1;
                n += 1;
                continue;
            }
            Some(b'[') => {
                if let Some((hit, next)) = class(pattern, p, name[n]) {
                    if hit {
                        p = next;
                        n += 1;
                        continue;
                    }
                } else if name[n] == b'[' {
                    // An unclosed bracket is a literal one.
                    p += 1;
                    n += 1;
                    continue;
                }
            }
            Some(&c) if c == name[n] => {
                p += 1;
                n += 1;
                continue;
            }
            _ => {}
        }
        match star {
            Some((sp, sn)) => {
                p = sp + 1;
                n = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// The class starting at `pattern[at] == '['`: whether `c` is in it and
/// where the pattern goes on; `None` when the bracket is never closed.
fn class(pattern: &[u8], at: usize, c: u8) -> Option<(bool, usize)> {
    let mut i = at + 1;
    let negated = matches!(pattern.get(i), Some(b'!' | b'^'));
    if negated {
        i += 1;
    }
    let mut hit = false;
    let mut first = true;
    loop {
        let &b = pattern.get(i)?;
        if b == b']' && !first {
            return Some((hit != negated, i + 1));
        }
        first = false;
        if pattern.get(i + 1) == Some(&b'-') && pattern.get(i + 2).is_some_and(|&e| e != b']') {
            hit |= (b..=pattern[i + 2]).contains(&c);
            i += 3;
        } else {
            hit |= b == c;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, n: &str) -> bool {
        Pattern::new(p).matches(n)
    }

    #[test]
    fn globs_match_as_a_shell_does() {
        assert!(m("AFFX-*", "AFFX-BioB-5_at"));
        assert!(!m("AFFX-*", "1007_s_at"));
        assert!(m("*_x_at", "1552256_x_at"));
        assert!(m("*", ""));
        assert!(m("a*b*c", "aXXbYYc"));
        assert!(!m("a*b*c", "aXXbYY"));
        assert!(m("GSM1?", "GSM12"));
        assert!(!m("GSM1?", "GSM1"));
        assert!(m("g[0-4]", "g3"));
        assert!(!m("g[0-4]", "g7"));
        assert!(m("g[!0-4]", "g7"));
        assert!(m("g[]x]", "g]"));
        assert!(m("a[b", "a[b"), "an unclosed bracket is literal");
        assert!(m("*a*a*a*a*b", &"a".repeat(40).replace("aa", "ab")));
        assert!(!m("*a*a*a*a*a*a*b", &"a".repeat(3000)));
    }

    #[test]
    fn a_plain_name_is_the_name_and_a_name_with_glob_characters_is_itself() {
        assert!(m("gene_1", "gene_1"));
        assert!(!m("gene_1", "gene_10"));
        assert!(m("x[1]", "x[1]"));
        assert!(m("x[1]", "x1"));
    }
}
