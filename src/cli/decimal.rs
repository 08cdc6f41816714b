//! Six-decimal numbers for the ranking and predictions CSVs, written
//! without `format!`'s exact-decimal machinery: a million-row ranking is
//! eleven million of them, and they were most of the time spent writing it.

use std::io::Write;

/// Magnitudes below this many millionths take the integer path: the
/// product `|v| * 1e6` is then below 2^40, so its rounding error is at
/// most half an ulp, 2^-13, and away from a half it cannot change which
/// integer is nearest.
const INTEGER_PATH_LIMIT: f64 = (1u64 << 40) as f64;

/// How far from a half the scaled value must be for the integer path: an
/// ulp of a value below 2^40, so the exact product lies on the same side.
const HALF_MARGIN: f64 = 1.0 / (1u64 << 12) as f64;

/// Appends the bytes of `format!("{v:.6}")`, or nothing for NaN (a value
/// that does not apply). Values near a rounding tie, large ones and
/// infinities go through `format!` itself, so the bytes are always the
/// same as its.
pub fn push_fixed6(out: &mut Vec<u8>, v: f64) {
    if v.is_nan() {
        return;
    }
    let scaled = v.abs() * 1e6;
    let frac = scaled - scaled.floor();
    // NaN has returned above, so only infinity and large values are here.
    if scaled >= INTEGER_PATH_LIMIT || (frac - 0.5).abs() <= HALF_MARGIN {
        // Writing to a Vec cannot fail.
        let _ = write!(out, "{v:.6}");
        return;
    }
    let millionths = scaled.round() as u64;
    if v.is_sign_negative() {
        out.push(b'-');
    }
    push_digits(out, millionths / 1_000_000);
    out.push(b'.');
    let frac = millionths % 1_000_000;
    let start = out.len();
    out.extend_from_slice(b"000000");
    write_digits_backwards(&mut out[start..], frac);
}

/// [`push_fixed6`] as a string.
pub fn fixed6(v: f64) -> String {
    let mut out = Vec::with_capacity(16);
    push_fixed6(&mut out, v);
    // Only ASCII digits, '.', '-' and format!'s own text are pushed.
    String::from_utf8_lossy(&out).into_owned()
}

/// Appends the decimal digits of `n`.
fn push_digits(out: &mut Vec<u8>, n: u64) {
    let len = n.checked_ilog10().map_or(1, |l| l as usize + 1);
    let start = out.len();
    out.resize(start + len, b'0');
    write_digits_backwards(&mut out[start..], n);
}

/// Writes `n`'s digits right-aligned in `slot`, which holds enough of them
/// (and zeros, for the leading ones).
fn write_digits_backwards(slot: &mut [u8], mut n: u64) {
    for d in slot.iter_mut().rev() {
        *d = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn formatted(v: f64) -> String {
        if v.is_nan() {
            String::new()
        } else {
            format!("{v:.6}")
        }
    }

    #[test]
    fn edge_values_match_format() {
        let halves = [
            0.0000005,
            0.0000015,
            0.1234565,
            0.9999995,
            2.5e-7,
            1.0 - 5e-7,
        ];
        let edges = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1e-300,
            -1e-9,
            0.999_999_999,
            1e6,
            1.099e6,
            1.1e6,
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for v in halves.into_iter().chain(edges) {
            assert_eq!(fixed6(v), formatted(v), "{v:e}");
        }
    }

    proptest! {
        #[test]
        fn probabilities_match_format(v in 0.0f64..=1.0) {
            prop_assert_eq!(fixed6(v), formatted(v));
        }

        #[test]
        fn any_bits_match_format(bits in any::<u64>()) {
            let v = f64::from_bits(bits);
            prop_assert_eq!(fixed6(v), formatted(v));
        }

        #[test]
        fn values_near_a_tie_match_format(k in 0u64..2_000_000, ulps in -4i64..=4) {
            // k + 1/2 millionths, nudged by a few ulps either side.
            let tie = (k as f64 + 0.5) / 1e6;
            let v = f64::from_bits((tie.to_bits() as i64 + ulps) as u64);
            prop_assert_eq!(fixed6(v), formatted(v));
        }
    }
}
