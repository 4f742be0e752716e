//! An estimate of any kind with its 95% interval and the independent units behind it: a
//! correlation, an agreement coefficient, a difference of two shares, a spread. The value
//! is the statistic on the data as they are; the interval is a cluster bootstrap over the
//! units (exchanges, items), so several judgments of one unit never count as several.

use serde::Serialize;

use super::bootstrap::{REPLICATES, SEED, cluster_intervals};

/// A statistic, its 95% interval and its units.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Statistic {
    /// The estimate; none when the data cannot give it (a correlation of a constant).
    pub value: Option<f64>,
    /// The 95% interval's low end; none under
    /// [`MIN_CLUSTERS`](super::bootstrap::MIN_CLUSTERS) units or when the resamples cannot
    /// give one.
    pub low: Option<f64>,
    /// Its high end.
    pub high: Option<f64>,
    /// The independent units behind it: the unit of replication.
    pub n: usize,
}

impl Statistic {
    /// The statistic `f` computes on `units` units, with its percentile interval: `f` takes
    /// the indices of the units drawn (`0..units` for the data as they are) and returns the
    /// statistic, or none when a draw cannot give it (such a draw is redrawn).
    pub fn bootstrap(units: usize, f: impl Fn(&[usize]) -> Option<f64>) -> Self {
        Self::bootstrap_many(units, 1, |draw| f(draw).map(|v| vec![v]))
            .pop()
            .unwrap_or_default()
    }

    /// Several statistics of the same units at once (`count` of them, in the order `f`
    /// returns them), their intervals drawn from the same resamples.
    pub fn bootstrap_many(
        units: usize,
        count: usize,
        f: impl Fn(&[usize]) -> Option<Vec<f64>>,
    ) -> Vec<Self> {
        let all: Vec<usize> = (0..units).collect();
        let values = f(&all).filter(|v| v.len() == count);
        let intervals = values
            .as_ref()
            .and_then(|_| cluster_intervals(units, REPLICATES, SEED, &f));
        (0..count)
            .map(|i| {
                let value = values.as_ref().map(|v| v[i]).filter(|v| v.is_finite());
                let interval = intervals
                    .as_ref()
                    .and_then(|iv| iv.get(i).copied().flatten())
                    .filter(|_| value.is_some());
                Self {
                    value,
                    low: interval.map(|i| i.0),
                    high: interval.map(|i| i.1),
                    n: units,
                }
            })
            .collect()
    }

    /// A value on `n` units with no interval drawn.
    pub fn without_interval(value: Option<f64>, n: usize) -> Self {
        Self {
            value,
            low: None,
            high: None,
            n,
        }
    }

    /// Whether the interval lies wholly on one side of `x`.
    pub fn excludes(&self, x: f64) -> bool {
        matches!((self.low, self.high), (Some(l), Some(h)) if l > x || h < x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::stats::bootstrap::MIN_CLUSTERS;

    #[test]
    fn the_value_is_the_datas_and_the_interval_counts_units() {
        let units: Vec<Vec<f64>> = (0..20).map(|i| vec![f64::from(i); 3]).collect();
        let mean = |draw: &[usize]| {
            let v: Vec<f64> = draw.iter().flat_map(|&u| units[u].clone()).collect();
            Some(v.iter().sum::<f64>() / v.len() as f64)
        };
        let s = Statistic::bootstrap(20, mean);
        assert_eq!(s.value, Some(9.5));
        assert_eq!(s.n, 20);
        let (l, h) = (s.low.unwrap(), s.high.unwrap());
        // The mean of 0..19 has standard error 5.92/√20 = 1.32: about ±2.6.
        assert!(
            l < 9.5 && 9.5 < h && (2.0..3.2).contains(&((h - l) / 2.0)),
            "{s:?}"
        );
        assert!(s.excludes(0.0) && !s.excludes(9.5));
        let few = Statistic::bootstrap(MIN_CLUSTERS - 1, mean);
        assert_eq!((few.low, few.high, few.n), (None, None, MIN_CLUSTERS - 1));
        assert!(few.value.is_some());
        let none = Statistic::bootstrap(20, |_| None);
        assert_eq!(none, Statistic::without_interval(None, 20));
    }
}
