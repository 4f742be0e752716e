//! How many units a comparison needs to be found: the arithmetic behind `ethics-bowl plan`.
//!
//! A pilot measured a comparison (a difference between two models, a side effect, an
//! accuracy lift) on `n₀` independent units (exchanges, items) with standard error `SE₀`.
//! Held to the same design (the same mix of pairings, judges, formats and judgments per
//! unit, so the same design effect), the standard error shrinks with the square root of the
//! units: `SE(n) = SE₀·√(n₀/n)`. An estimate normal around a true difference `D`, tested
//! two-sided at α = 0.05, is found with power `Φ(D/SE − z₀.₉₇₅) + Φ(−D/SE − z₀.₉₇₅)`.
//! Setting the first term to 0.8 (the second, the far tail, is below 10⁻⁵ there) gives the
//! units needed,
//!
//! ```text
//! n = n₀ · (SE₀ · (z₀.₉₇₅ + z₀.₈) / D)²,   z₀.₉₇₅ = 1.959964, z₀.₈ = 0.841621,
//! ```
//!
//! the normal approximation's sample size: what statsmodels' `NormalIndPower` (with
//! `ratio = 0`, one sample) solves, up to the far tail it also counts. The power at a given
//! size counts both tails.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

/// z₀.₉₇₅: the two-sided 5% test's critical value.
pub const Z_975: f64 = 1.959_963_984_540_054;

/// z₀.₈: what a true difference must clear the critical value by, in standard errors, to be
/// found four times in five.
pub const Z_80: f64 = 0.841_621_233_572_914_3;

/// The power planned for.
pub const POWER: f64 = 0.8;

/// The two-sided significance level planned for.
pub const ALPHA: f64 = 0.05;

/// A question the arithmetic cannot answer.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum PowerError {
    /// The difference to detect is zero, negative or not a number.
    #[error("the difference to detect must be a positive number, not {0}")]
    Detect(f64),
    /// The pilot's standard error is zero, negative or not a number: no variance to plan
    /// from.
    #[error("the pilot's standard error must be a positive number, not {0}")]
    StandardError(f64),
    /// The pilot has no units.
    #[error("the pilot has no units to scale from")]
    NoUnits,
}

/// What a pilot says about one comparison's size.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Sizing {
    /// Units needed for 80% power, before rounding up.
    pub exact: f64,
    /// Units needed, rounded up (saturating for absurd sizes).
    pub units: u64,
    /// The power the pilot's own size has against the difference.
    pub power_now: f64,
}

impl Sizing {
    /// Whether the pilot's units already give 80% power.
    pub fn already_enough(&self, pilot_units: usize) -> bool {
        self.units <= pilot_units as u64
    }
}

/// Checks the inputs every function here shares.
fn checked(pilot_units: usize, pilot_se: f64, detect: f64) -> Result<(), PowerError> {
    if !(detect.is_finite() && detect > 0.0) {
        return Err(PowerError::Detect(detect));
    }
    if !(pilot_se.is_finite() && pilot_se > 0.0) {
        return Err(PowerError::StandardError(pilot_se));
    }
    if pilot_units == 0 {
        return Err(PowerError::NoUnits);
    }
    Ok(())
}

/// Units needed for 80% power against a true difference `detect`, from a pilot of
/// `pilot_units` units whose estimate had standard error `pilot_se` (both in the same units
/// as `detect`): `n₀·(SE₀·(z₀.₉₇₅ + z₀.₈)/D)²`.
pub fn units_needed(pilot_units: usize, pilot_se: f64, detect: f64) -> Result<f64, PowerError> {
    checked(pilot_units, pilot_se, detect)?;
    Ok(pilot_units as f64 * (pilot_se * (Z_975 + Z_80) / detect).powi(2))
}

/// The two-sided 5% test's power against a true difference `detect` at `units` units,
/// the standard error scaled from the pilot's as `1/√units`.
pub fn power_at(
    units: f64,
    pilot_units: usize,
    pilot_se: f64,
    detect: f64,
) -> Result<f64, PowerError> {
    checked(pilot_units, pilot_se, detect)?;
    if !(units.is_finite() && units > 0.0) {
        return Err(PowerError::NoUnits);
    }
    let se = pilot_se * (pilot_units as f64 / units).sqrt();
    let shift = detect / se;
    Ok(phi(shift - Z_975) + phi(-shift - Z_975))
}

/// The standard normal distribution function.
fn phi(x: f64) -> f64 {
    // Normal::new(0, 1) cannot fail (a positive, finite spread); the fallback is the
    // logistic approximation, never reached.
    Normal::new(0.0, 1.0).map_or_else(|_| 1.0 / (1.0 + (-1.702 * x).exp()), |n| n.cdf(x))
}

/// The units needed and the pilot's power, together.
pub fn sizing(pilot_units: usize, pilot_se: f64, detect: f64) -> Result<Sizing, PowerError> {
    let exact = units_needed(pilot_units, pilot_se, detect)?;
    // Round up; a float past u64's range saturates (and is then absurd anyway).
    let units = exact.ceil().max(1.0) as u64;
    Ok(Sizing {
        exact,
        units,
        power_now: power_at(pilot_units as f64, pilot_units, pilot_se, detect)?,
    })
}

/// The standard error a symmetric 95% normal interval stands for: its half-width / 1.96.
/// For a percentile bootstrap interval, which need not be symmetric, the same reading of
/// its width.
pub fn se_of_interval(low: f64, high: f64) -> f64 {
    (high - low) / (2.0 * Z_975)
}

/// The smallest count of `per` that holds `units` (at least one): `⌈units / per⌉`; none
/// when `per` is not a positive number.
pub fn how_many(units: u64, per: f64) -> Option<u64> {
    (per.is_finite() && per > 0.0).then(|| ((units as f64 / per).ceil() as u64).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The z values, as scipy gives them: norm.ppf(0.975) = 1.959963984540054,
    /// norm.ppf(0.8) = 0.8416212335729143; (z₀.₉₇₅ + z₀.₈)² = 7.848879734349...
    #[test]
    fn the_critical_values_are_the_normal_quantiles() {
        let n = Normal::new(0.0, 1.0).unwrap();
        assert!((n.inverse_cdf(0.975) - Z_975).abs() < 1e-9);
        assert!((n.inverse_cdf(0.8) - Z_80).abs() < 1e-9);
        assert!(((Z_975 + Z_80).powi(2) - 7.848_879_734_349).abs() < 1e-9);
    }

    /// The closed form by hand: n₀·(SE₀·2.801585218112968/D)².
    /// 40·(1·2.801585/2)² = 40·1.962219934 = 78.48879734;
    /// 12·(0.08·2.801585/0.10)² = 12·5.023283030 = 60.27939636;
    /// 100·(0.5·2.801585/0.5)² = 784.8879734.
    /// statsmodels 0.15, `NormalIndPower().solve_power(effect_size=D/(SE₀·√n₀), alpha=0.05,
    /// power=0.8, ratio=0)`, which also counts the far tail, gives 78.4886050669,
    /// 60.2792487150, 784.8860506689: within 3·10⁻⁶ of the closed form, relatively.
    #[test]
    fn units_needed_match_the_closed_form_and_statsmodels() {
        let cases = [
            (40, 1.0, 2.0, 78.488_797_343_5, 78.488_605_066_9),
            (12, 0.08, 0.10, 60.279_396_359_8, 60.279_248_715_0),
            (100, 0.5, 0.5, 784.887_973_434_9, 784.886_050_668_9),
            (42, 1.0244, 3.0, 38.437_363_880_6, 38.437_268_853_7),
            (26, 2.3, 1.5, 479.793_297_183_3, 479.792_123_541_1),
        ];
        for (n0, se, d, closed, statsmodels) in cases {
            let n = units_needed(n0, se, d).unwrap();
            assert!((n - closed).abs() < 1e-6, "{n0} {se} {d}: {n} vs {closed}");
            assert!(
                ((n - statsmodels) / statsmodels).abs() < 3e-6,
                "{n} vs {statsmodels}"
            );
            let s = sizing(n0, se, d).unwrap();
            assert_eq!(s.units, closed.ceil() as u64);
        }
    }

    /// statsmodels' `NormalIndPower().power(effect_size=D/(SE₀·√n₀), nobs1=n₀, alpha=0.05,
    /// ratio=0)`: 0.5160052740, 0.2395269932, 0.8336230034, 0.0999711590.
    #[test]
    fn power_at_the_pilot_matches_statsmodels() {
        for (n0, se, d, want) in [
            (40, 1.0, 2.0, 0.516_005_274_0),
            (12, 0.08, 0.10, 0.239_526_993_2),
            (42, 1.0244, 3.0, 0.833_623_003_4),
            (26, 2.3, 1.5, 0.099_971_159_0),
        ] {
            let p = sizing(n0, se, d).unwrap().power_now;
            assert!((p - want).abs() < 1e-9, "{p} vs {want}");
        }
        // At the size the plan gives, the power is 80% (the far tail adds a hair).
        let n = units_needed(40, 1.0, 2.0).unwrap();
        let p = power_at(n, 40, 1.0, 2.0).unwrap();
        assert!((p - POWER).abs() < 1e-5, "{p}");
    }

    #[test]
    fn larger_differences_need_fewer_units_and_a_small_se_is_already_enough() {
        let small = sizing(40, 1.0, 1.0).unwrap();
        let large = sizing(40, 1.0, 4.0).unwrap();
        assert!(large.units < small.units);
        // Quadrupling D divides the units by sixteen.
        assert!((small.exact / large.exact - 16.0).abs() < 1e-9);
        // SE 0.5 at 40 units against D = 3: 40·(0.5·2.8016/3)² ≈ 8.7 units: already enough.
        let enough = sizing(40, 0.5, 3.0).unwrap();
        assert!(enough.already_enough(40), "{enough:?}");
        assert!(enough.power_now > 0.99);
        assert!(!small.already_enough(40));
    }

    #[test]
    fn no_variance_no_units_and_bad_differences_are_errors() {
        assert_eq!(
            units_needed(40, 0.0, 1.0),
            Err(PowerError::StandardError(0.0))
        );
        assert!(matches!(
            units_needed(40, f64::NAN, 1.0),
            Err(PowerError::StandardError(_))
        ));
        assert_eq!(units_needed(0, 1.0, 1.0), Err(PowerError::NoUnits));
        assert_eq!(units_needed(40, 1.0, -2.0), Err(PowerError::Detect(-2.0)));
        assert_eq!(units_needed(40, 1.0, 0.0), Err(PowerError::Detect(0.0)));
        assert!(matches!(
            units_needed(40, 1.0, f64::INFINITY),
            Err(PowerError::Detect(_))
        ));
        // An absurd size saturates rather than wrapping.
        assert_eq!(sizing(1, 1e200, 1e-200).unwrap().units, u64::MAX);
    }

    #[test]
    fn interval_widths_and_counts() {
        assert!(
            (se_of_interval(-1.959_963_984_540_054, 1.959_963_984_540_054) - 1.0).abs() < 1e-12
        );
        assert_eq!(how_many(100, 42.0), Some(3));
        assert_eq!(how_many(84, 42.0), Some(2));
        assert_eq!(how_many(1, 42.0), Some(1));
        assert_eq!(how_many(10, 0.0), None);
    }
}
