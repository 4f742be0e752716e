//! The mean of observations that come in clusters (the several judgments of one exchange,
//! the two teams of one round), with a 95% interval that counts clusters, not observations:
//! the cluster-robust standard error of a mean (the sum over clusters of each cluster's
//! squared deviation from the mean, with the usual G/(G−1) correction) and Student's t with
//! G − 1 degrees of freedom. With one observation per cluster it is the ordinary t interval.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// A mean, its 95% interval and what it rests on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct ClusteredMean {
    /// The mean of every observation; none without any.
    pub mean: Option<f64>,
    /// The interval's ends; none with fewer than two clusters, or when the clusters do not
    /// vary at all around the mean (then the interval would be a point).
    pub low: Option<f64>,
    /// Upper end.
    pub high: Option<f64>,
    /// Observations (judgments).
    pub n: usize,
    /// Clusters (exchanges): the unit of replication.
    pub clusters: usize,
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom.
fn t975(df: usize) -> Option<f64> {
    let t = StudentsT::new(0.0, 1.0, df as f64).ok()?;
    Some(t.inverse_cdf(0.975)).filter(|q| q.is_finite())
}

/// The mean of `(cluster, value)` observations, clusters named by any id.
pub fn clustered_mean(observations: &[(usize, f64)]) -> ClusteredMean {
    let n = observations.len();
    if n == 0 {
        return ClusteredMean::default();
    }
    let mean = observations.iter().map(|o| o.1).sum::<f64>() / n as f64;
    let mut sums: std::collections::BTreeMap<usize, (f64, usize)> = Default::default();
    for &(c, v) in observations {
        let s = sums.entry(c).or_default();
        s.0 += v;
        s.1 += 1;
    }
    let g = sums.len();
    let spread: f64 = sums
        .values()
        .map(|&(s, k)| (s - k as f64 * mean).powi(2))
        .sum();
    let half = (g >= 2)
        .then(|| {
            let se = (g as f64 / (g as f64 - 1.0) * spread).sqrt() / n as f64;
            t975(g - 1).map(|t| t * se)
        })
        .flatten()
        .filter(|h| *h > 0.0 && h.is_finite());
    ClusteredMean {
        mean: Some(mean),
        low: half.map(|h| mean - h),
        high: half.map(|h| mean + h),
        n,
        clusters: g,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_observation_per_cluster_is_the_t_interval() {
        // scipy.stats.t.interval(0.95, 4, loc=3, scale=stdev([1..5])/sqrt(5)):
        // (1.036756838522439, 4.963243161477561)
        let obs: Vec<(usize, f64)> = (1..=5).map(|i| (i, i as f64)).collect();
        let m = clustered_mean(&obs);
        assert_eq!((m.n, m.clusters), (5, 5));
        assert!((m.low.unwrap() - 1.036756838522439).abs() < 1e-9, "{m:?}");
        assert!((m.high.unwrap() - 4.963243161477561).abs() < 1e-9, "{m:?}");
    }

    #[test]
    fn copies_inside_a_cluster_do_not_narrow_the_interval() {
        let once: Vec<(usize, f64)> = (1..=5).map(|i| (i, i as f64)).collect();
        let thrice: Vec<(usize, f64)> = once.iter().flat_map(|&o| [o, o, o]).collect();
        let (a, b) = (clustered_mean(&once), clustered_mean(&thrice));
        assert_eq!((b.n, b.clusters), (15, 5));
        assert!(
            (a.low.unwrap() - b.low.unwrap()).abs() < 1e-9,
            "{a:?} {b:?}"
        );
        assert!((a.high.unwrap() - b.high.unwrap()).abs() < 1e-9);
    }

    #[test]
    fn no_interval_from_one_cluster_or_none_at_all() {
        let m = clustered_mean(&[(0, 1.0), (0, 3.0)]);
        assert_eq!((m.mean, m.low, m.clusters), (Some(2.0), None, 1));
        assert_eq!(clustered_mean(&[]), ClusteredMean::default());
        assert_eq!(clustered_mean(&[(0, 2.0), (1, 2.0)]).low, None, "no spread");
    }
}
