//! Krippendorff's alpha for nominal data (verdicts: Team A, Team B or a tie; an answer), in
//! parts a bootstrap can sum once per unit and add per resample, as
//! [`AlphaParts`](super::AlphaParts) does for interval data.

use std::collections::BTreeMap;

/// The sums nominal alpha is made of: the observed disagreement of the coincidence matrix
/// and each category's pairable values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NominalParts {
    /// Σ over units of the ordered pairs of different values, each unit's divided by its
    /// values less one: the off-diagonal sum of the coincidence matrix.
    disagreeing: f64,
    /// Pairable values per category: the coincidence matrix's margins.
    counts: BTreeMap<u32, f64>,
}

impl NominalParts {
    /// Adds one unit's values (left out when fewer than two).
    pub fn push(&mut self, unit: &[u32]) {
        if unit.len() < 2 {
            return;
        }
        let m = unit.len() as f64;
        let mut here: BTreeMap<u32, f64> = BTreeMap::new();
        for v in unit {
            *here.entry(*v).or_default() += 1.0;
        }
        // Ordered pairs of different values: m² minus the pairs within each category
        // (self-pairs included on both sides, so they cancel).
        let same: f64 = here.values().map(|c| c * c).sum();
        self.disagreeing += (m * m - same) / (m - 1.0);
        for (v, c) in here {
            *self.counts.entry(v).or_default() += c;
        }
    }

    /// Adds other parts `times` times (a unit drawn that often).
    pub fn add(&mut self, other: &NominalParts, times: f64) {
        self.disagreeing += times * other.disagreeing;
        for (v, c) in &other.counts {
            *self.counts.entry(*v).or_default() += times * c;
        }
    }

    /// Alpha; none under two pairable values or when every value is the same category
    /// (no disagreement is expected, so none can be measured against it).
    pub fn alpha(&self) -> Option<f64> {
        let n: f64 = self.counts.values().sum();
        if n < 2.0 {
            return None;
        }
        let same: f64 = self.counts.values().map(|c| c * c).sum();
        let expected = (n * n - same) / (n - 1.0);
        (expected > 1e-12).then(|| 1.0 - self.disagreeing / expected)
    }
}

/// Krippendorff's nominal alpha of these units (each the categories its raters chose).
pub fn krippendorff_nominal(units: &[Vec<u32>]) -> Option<f64> {
    let mut parts = NominalParts::default();
    for u in units {
        parts.push(u);
    }
    parts.alpha()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: four
    /// observers, twelve units, nominal data (missing values left out): alpha = 0.743.
    #[test]
    fn matches_krippendorffs_worked_example() {
        let units: Vec<Vec<u32>> = vec![
            vec![1, 1, 1],
            vec![2, 2, 3, 2],
            vec![3, 3, 3, 3],
            vec![3, 3, 3, 3],
            vec![2, 2, 2, 2],
            vec![1, 2, 3, 4],
            vec![4, 4, 4, 4],
            vec![1, 1, 2, 1],
            vec![2, 2, 2, 2],
            vec![5, 5, 5],
            vec![1, 1],
            vec![3],
        ];
        let alpha = krippendorff_nominal(&units).unwrap();
        assert!((alpha - 0.743).abs() < 5e-4, "{alpha}");
        assert_eq!(krippendorff_nominal(&[vec![1, 1], vec![1, 1]]), None);
    }
}
