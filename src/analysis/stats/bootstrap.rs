//! The cluster bootstrap: the independent unit (an exchange, an item) is resampled with
//! replacement, never the judgments inside it, so several judges of one exchange count once.
//! A percentile interval of each statistic the closure returns.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Fewer clusters than this and no interval is drawn: resampling a handful of exchanges
/// gives intervals far narrower than the truth (a percentile bootstrap needs enough clusters
/// for their spread to stand for the population's).
pub const MIN_CLUSTERS: usize = 10;

/// Resamples drawn for an interval.
pub const REPLICATES: usize = 1000;

/// The seed every interval of a report is drawn with, so a report is reproducible.
pub const SEED: u64 = 0x00e7_1c5b;

/// 95% percentile intervals of the statistics `statistic` computes, from `replicates`
/// resamples of `clusters` clusters (each resample is `clusters` cluster indices drawn with
/// replacement). `statistic` returns one value per statistic, in a fixed order, or none when
/// a resample cannot give them (a fit that leaves out a model or a judge): such a resample
/// is drawn again, up to four times `replicates` draws in all, which conditions the
/// bootstrap on every level being present. With fewer than [`MIN_CLUSTERS`] clusters, or when too few
/// resamples give the statistics, there is no interval; a statistic that is not a number in
/// some resample has none either.
pub fn cluster_intervals<F>(
    clusters: usize,
    replicates: usize,
    seed: u64,
    statistic: F,
) -> Option<Vec<Option<(f64, f64)>>>
where
    F: Fn(&[usize]) -> Option<Vec<f64>>,
{
    if clusters < MIN_CLUSTERS || replicates == 0 {
        return None;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut samples: Vec<Vec<f64>> = Vec::new();
    let mut kept = 0;
    let mut draw = vec![0; clusters];
    for _ in 0..replicates * 4 {
        if kept == replicates {
            break;
        }
        for slot in &mut draw {
            *slot = rng.random_range(0..clusters);
        }
        if let Some(values) = statistic(&draw) {
            if samples.is_empty() {
                samples = vec![Vec::with_capacity(replicates); values.len()];
            }
            for (s, v) in samples.iter_mut().zip(values) {
                s.push(v);
            }
            kept += 1;
        }
    }
    if kept < replicates || samples.is_empty() {
        return None;
    }
    Some(
        samples
            .into_iter()
            .map(|mut s| {
                if s.iter().any(|v| !v.is_finite()) {
                    return None;
                }
                s.sort_by(f64::total_cmp);
                Some((percentile(&s, 0.025), percentile(&s, 0.975)))
            })
            .collect(),
    )
}

/// The `q` quantile of sorted values, interpolated linearly between order statistics (the
/// definition numpy's and R's default type 7 use).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let at = (sorted.len() - 1) as f64 * q;
    let (lo, hi) = (at.floor() as usize, at.ceil() as usize);
    let frac = at - lo as f64;
    sorted[lo] + (sorted[hi.min(sorted.len() - 1)] - sorted[lo]) * frac
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_numpys() {
        // numpy.percentile([1, 2, 3, 4, 10], [2.5, 50, 97.5]) = [1.1, 3.0, 9.4]
        let v = [1.0, 2.0, 3.0, 4.0, 10.0];
        assert!((percentile(&v, 0.025) - 1.1).abs() < 1e-12);
        assert!((percentile(&v, 0.5) - 3.0).abs() < 1e-12);
        assert!((percentile(&v, 0.975) - 9.4).abs() < 1e-12);
    }

    #[test]
    fn clusters_not_observations_set_the_width() {
        // Ten clusters of three identical observations each: the interval of the mean is
        // the interval of ten values, not of thirty.
        let clusters: Vec<Vec<f64>> = (0..10).map(|i| vec![f64::from(i); 3]).collect();
        let mean_of = |draw: &[usize]| {
            let v: Vec<f64> = draw.iter().flat_map(|&c| clusters[c].clone()).collect();
            Some(vec![v.iter().sum::<f64>() / v.len() as f64])
        };
        let ci = cluster_intervals(10, REPLICATES, SEED, mean_of).unwrap()[0].unwrap();
        // The mean of 0..9 is 4.5, its standard error 0.908: a 95% interval about ±1.8.
        let half = (ci.1 - ci.0) / 2.0;
        assert!((1.4..2.2).contains(&half), "{ci:?}");
        assert!(ci.0 < 4.5 && 4.5 < ci.1);
        assert_eq!(
            cluster_intervals(MIN_CLUSTERS - 1, REPLICATES, SEED, mean_of),
            None
        );
        let never = |_: &[usize]| None;
        assert_eq!(cluster_intervals(10, 100, SEED, never), None);
    }
}
