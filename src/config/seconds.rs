//! Durations given in seconds in a configuration file. Each such key is checked to lie from 0
//! to [`LONGEST_SECONDS`], and the conversion clamps as well, so that no value (`1e300`, `inf`,
//! NaN) can overflow a `Duration` or an `Instant` built from it.

use std::time::Duration;

/// The longest time any `*_s` key may name: a week (604,800 seconds), far above any sensible
/// timeout or wait, and far below what would overflow a clock.
pub const LONGEST_SECONDS: f64 = 604_800.0;

/// `secs` as a duration, clamped to 0 to [`LONGEST_SECONDS`] (NaN reads as 0).
pub fn seconds(secs: f64) -> Duration {
    Duration::from_secs_f64(if secs.is_nan() {
        0.0
    } else {
        secs.clamp(0.0, LONGEST_SECONDS)
    })
}

/// Whether `secs` is a usable number of seconds: finite, from 0 (or above it, when `positive`)
/// to [`LONGEST_SECONDS`].
pub(crate) fn in_range(secs: f64, positive: bool) -> bool {
    secs.is_finite() && (if positive { secs > 0.0 } else { secs >= 0.0 }) && secs <= LONGEST_SECONDS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_number_converts_without_panicking() {
        for x in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            -1.0,
            f64::MAX,
            f64::MIN_POSITIVE,
        ] {
            assert!(seconds(x) <= Duration::from_secs(604_800), "{x}");
        }
        assert_eq!(seconds(1.5), Duration::from_millis(1500));
        assert!(in_range(0.0, false) && !in_range(0.0, true));
        assert!(!in_range(1e300, false) && !in_range(f64::NAN, false) && in_range(604_800.0, true));
    }
}
