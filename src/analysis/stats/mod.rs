//! Small statistics the analyses need: means, standard deviations, Pearson and Spearman
//! correlation, Krippendorff's alpha for interval data. Written here because each is a few
//! lines and the crates that offer them bring far more than we use; each is checked against
//! values computed by scipy/krippendorff in the tests. `bootstrap` resamples clusters, and
//! `least_squares` fits a linear model, for the intervals and the judge effects.

pub mod bootstrap;
pub mod clustered;
pub mod least_squares;
pub mod nominal;
pub mod ppi;
pub mod statistic;

/// The mean, if there are values.
pub fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// How far one judge's score lies above the mean of the other judges' scores of the same
/// thing (`scores` by judge); none when the judge gave none or no other judge did.
pub fn offset_from_others(
    scores: &std::collections::BTreeMap<String, f64>,
    judge: &str,
) -> Option<f64> {
    let own = *scores.get(judge)?;
    let others: Vec<f64> = scores
        .iter()
        .filter(|(k, _)| k.as_str() != judge)
        .map(|(_, v)| *v)
        .collect();
    Some(own - mean(&others)?)
}

/// The sample standard deviation (n − 1), if there are two values or more.
pub fn std_dev(v: &[f64]) -> Option<f64> {
    let m = mean(v)?;
    (v.len() >= 2)
        .then(|| (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt())
}

/// Pearson's r of paired values; none when either side does not vary.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    let (mx, my) = (mean(x)?, mean(y)?);
    let cov: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    (vx > 0.0 && vy > 0.0).then(|| cov / (vx * vy).sqrt())
}

/// Ranks from 1, ties sharing their average rank.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|a, b| v[*a].total_cmp(&v[*b]));
    let mut out = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for k in &order[i..=j] {
            out[*k] = rank;
        }
        i = j + 1;
    }
    out
}

/// Spearman's rho: Pearson's r of the ranks.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() {
        return None;
    }
    pearson(&ranks(x), &ranks(y))
}

/// Krippendorff's alpha for interval data. Each unit holds the values its raters gave;
/// units with fewer than two values are not pairable and are left out. None when there is
/// no variation at all to compare against.
pub fn krippendorff_interval(units: &[Vec<f64>]) -> Option<f64> {
    let mut parts = AlphaParts::default();
    for u in units {
        parts.push(u);
    }
    parts.alpha()
}

/// The sums Krippendorff's interval alpha is made of, so that a bootstrap can sum each
/// exchange's parts once and add them per resample instead of going over every value again.
/// Values are taken about [`AlphaParts::CENTRE`] to keep the sums of squares small.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AlphaParts {
    /// Each pairable unit's sum of squared differences over its ordered pairs, divided by
    /// its values less one, summed.
    observed: f64,
    /// Pairable values.
    n: f64,
    /// Their sum, about the centre.
    sum: f64,
    /// Their sum of squares, about the centre.
    squares: f64,
}

impl AlphaParts {
    /// A fixed point near the middle of the scores, subtracted before summing.
    const CENTRE: f64 = 5.5;

    /// Adds one unit's values (left out when fewer than two).
    pub fn push(&mut self, unit: &[f64]) {
        if unit.len() < 2 {
            return;
        }
        // Σᵢⱼ (xᵢ − xⱼ)² over ordered pairs = 2m·Σ(xᵢ − x̄)² for m values.
        let m = unit.len() as f64;
        let centre = unit.iter().sum::<f64>() / m;
        let pairs = 2.0 * m * unit.iter().map(|x| (x - centre).powi(2)).sum::<f64>();
        self.observed += pairs / (m - 1.0);
        self.n += m;
        for x in unit {
            let d = x - Self::CENTRE;
            self.sum += d;
            self.squares += d * d;
        }
    }

    /// Adds another set of parts `times` times (an exchange drawn that often).
    pub fn add(&mut self, other: &AlphaParts, times: f64) {
        self.observed += times * other.observed;
        self.n += times * other.n;
        self.sum += times * other.sum;
        self.squares += times * other.squares;
    }

    /// Alpha from the parts; none under two values or without variation.
    pub fn alpha(&self) -> Option<f64> {
        let n = self.n;
        if n < 2.0 {
            return None;
        }
        let observed = self.observed / n;
        let expected = (2.0 * n * self.squares - 2.0 * self.sum * self.sum) / (n * (n - 1.0));
        (expected > 1e-12).then(|| 1.0 - observed / expected)
    }
}

/// The sums Pearson's r is made of, for the same reason as [`AlphaParts`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Moments {
    n: f64,
    x: f64,
    y: f64,
    xx: f64,
    yy: f64,
    xy: f64,
}

impl Moments {
    /// Adds a pair.
    pub fn push(&mut self, x: f64, y: f64) {
        self.n += 1.0;
        self.x += x;
        self.y += y;
        self.xx += x * x;
        self.yy += y * y;
        self.xy += x * y;
    }

    /// Adds other sums `times` times.
    pub fn add(&mut self, o: &Moments, times: f64) {
        self.n += times * o.n;
        self.x += times * o.x;
        self.y += times * o.y;
        self.xx += times * o.xx;
        self.yy += times * o.yy;
        self.xy += times * o.xy;
    }

    /// Pearson's r; none under two pairs or when either side does not vary.
    pub fn pearson(&self) -> Option<f64> {
        if self.n < 2.0 {
            return None;
        }
        let vx = self.xx - self.x * self.x / self.n;
        let vy = self.yy - self.y * self.y / self.n;
        let cov = self.xy - self.x * self.y / self.n;
        // Relative to the sums, a variance this small is rounding, not variation.
        let tiny = |v: f64, s: f64| v <= 1e-12 * s.max(1.0);
        if tiny(vx, self.xx) || tiny(vy, self.yy) {
            return None;
        }
        Some((cov / (vx * vy).sqrt()).clamp(-1.0, 1.0))
    }
}

impl Moments {
    /// Cohen's kappa with quadratic weights, for ratings on an integer scale: one minus the
    /// mean squared difference over the one expected by chance, which the moments give as
    /// `2·cov / (var x + var y + (mean x − mean y)²)` (population moments). Unlike Pearson's r
    /// it counts a rater who sits a fixed distance from the other as disagreeing. None
    /// under two pairs or when neither side varies nor differs.
    pub fn quadratic_kappa(&self) -> Option<f64> {
        if self.n < 2.0 {
            return None;
        }
        let (mx, my) = (self.x / self.n, self.y / self.n);
        let vx = self.xx / self.n - mx * mx;
        let vy = self.yy / self.n - my * my;
        let cov = self.xy / self.n - mx * my;
        let chance = vx + vy + (mx - my).powi(2);
        (chance > 1e-12 * (self.xx + self.yy).max(1.0) / self.n).then(|| 2.0 * cov / chance)
    }
}

/// Ranks from 1 of these values, ties sharing their average rank: what Spearman's rho
/// correlates.
pub fn ranked(v: &[f64]) -> Vec<f64> {
    ranks(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    #[test]
    fn basic_statistics() {
        assert!(close(mean(&[1.0, 2.0, 6.0]), 3.0));
        assert!(close(
            std_dev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]),
            2.138089935299395
        ));
        assert_eq!(std_dev(&[1.0]), None);
        assert!(close(pearson(&[1.0, 2.0, 3.0], &[3.0, 5.0, 7.0]), 1.0));
        assert_eq!(pearson(&[1.0, 1.0], &[2.0, 3.0]), None);
        assert_eq!(ranks(&[10.0, 20.0, 10.0, 30.0]), vec![1.5, 3.0, 1.5, 4.0]);
        assert!(close(
            spearman(&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 25.0, 100.0]),
            1.0
        ));
    }

    #[test]
    fn alpha_is_one_for_perfect_agreement_and_drops_with_disagreement() {
        assert!(close(
            krippendorff_interval(&[vec![7.0, 7.0], vec![9.0, 9.0], vec![4.0, 4.0]]),
            1.0
        ));
        let some =
            krippendorff_interval(&[vec![7.0, 8.0], vec![9.0, 9.0], vec![4.0, 5.0]]).unwrap();
        assert!(some < 1.0 && some > 0.8, "{some}");
        assert_eq!(krippendorff_interval(&[vec![5.0, 5.0], vec![5.0]]), None);
    }

    #[test]
    fn parts_added_are_the_whole() {
        let units = [
            vec![7.0, 8.0],
            vec![9.0, 9.0, 6.0],
            vec![4.0, 5.0],
            vec![3.0],
        ];
        let mut whole = AlphaParts::default();
        let mut twice = AlphaParts::default();
        for u in &units {
            let mut one = AlphaParts::default();
            one.push(u);
            whole.add(&one, 1.0);
            twice.add(&one, 2.0);
        }
        let direct = krippendorff_interval(&units).unwrap();
        assert!((whole.alpha().unwrap() - direct).abs() < 1e-12);
        let doubled: Vec<Vec<f64>> = units.iter().chain(&units).cloned().collect();
        assert!((twice.alpha().unwrap() - krippendorff_interval(&doubled).unwrap()).abs() < 1e-12);
        let (x, y) = ([1.0, 2.0, 4.0, 7.0], [2.0, 3.0, 3.5, 9.0]);
        let mut m = Moments::default();
        for (a, b) in x.iter().zip(&y) {
            m.push(*a, *b);
        }
        assert!((m.pearson().unwrap() - pearson(&x, &y).unwrap()).abs() < 1e-12);
        let mut flat = Moments::default();
        flat.push(1.0, 2.0);
        flat.push(1.0, 3.0);
        assert_eq!(flat.pearson(), None);
    }
}
