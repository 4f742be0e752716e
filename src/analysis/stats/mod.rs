//! Small statistics the analyses need: means, standard deviations, Pearson and Spearman
//! correlation, Krippendorff's alpha for interval data. Written here because each is a few
//! lines and the crates that offer them bring far more than we use; each is checked against
//! values computed by scipy/krippendorff in the tests. `bootstrap` resamples clusters, and
//! `least_squares` fits a linear model, for the intervals and the judge effects.

pub mod bootstrap;
pub mod clustered;
pub mod least_squares;
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
    let pairable: Vec<&Vec<f64>> = units.iter().filter(|u| u.len() >= 2).collect();
    let all: Vec<f64> = pairable.iter().flat_map(|u| u.iter().copied()).collect();
    let n = all.len() as f64;
    if n < 2.0 {
        return None;
    }
    // The sum of squared differences over every ordered pair of values, in linear time:
    // Σᵢⱼ (xᵢ − xⱼ)² = 2m·Σ(xᵢ − x̄)² for m values (the intervals resample this thousands
    // of times, so the quadratic form would not do).
    let pair_sum = |v: &[f64]| {
        let m = v.len() as f64;
        let centre = v.iter().sum::<f64>() / m;
        2.0 * m * v.iter().map(|x| (x - centre).powi(2)).sum::<f64>()
    };
    let observed: f64 = pairable
        .iter()
        .map(|u| pair_sum(u) / (u.len() - 1) as f64)
        .sum::<f64>()
        / n;
    let expected = pair_sum(&all) / (n * (n - 1.0));
    (expected > 0.0).then(|| 1.0 - observed / expected)
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
}
