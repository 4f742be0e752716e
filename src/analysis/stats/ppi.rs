//! Prediction-powered inference for a mean (Angelopoulos et al. 2023; the power-tuned form
//! of PPI++, Angelopoulos, Duchi and Zrnic 2023): a model judge's scores on every exchange,
//! corrected by the difference between people and the judge on the exchanges people also
//! judged. The interval is valid whatever the judge's bias, and narrower than the people's
//! own mean's when the judge tracks them. Written here because it is a few lines; checked
//! against `ppi_py` (`tests/stats_reference/make_agreement.py`).

use serde::Serialize;

use super::bootstrap::MIN_CLUSTERS;

/// The two-sided 95% normal quantile.
const Z: f64 = 1.959_963_984_540_054;

/// A prediction-powered mean.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PpiMean {
    /// The estimate, in the people's terms.
    pub estimate: f64,
    /// Its 95% interval's low end; none under [`MIN_CLUSTERS`] labelled units.
    pub low: Option<f64>,
    /// Its high end.
    pub high: Option<f64>,
    /// Units people judged (the labelled ones).
    pub labelled: usize,
    /// Units only the judge scored.
    pub unlabelled: usize,
    /// How much the judge's scores are trusted, from 0 (the people's mean alone) to 1
    /// (plain PPI), chosen from the data to make the interval narrowest.
    pub lambda: f64,
}

/// The mean of what people would say, from `labelled` units `(person, judge)` and the
/// judge's scores on `unlabelled` units. None without two labelled units.
pub fn ppi_mean(labelled: &[(f64, f64)], unlabelled: &[f64]) -> Option<PpiMean> {
    let (n, big_n) = (labelled.len() as f64, unlabelled.len() as f64);
    if labelled.len() < 2 {
        return None;
    }
    let mean = |v: &mut dyn Iterator<Item = f64>| {
        let (s, c) = v.fold((0.0, 0.0), |(s, c), x| (s + x, c + 1.0));
        s / c
    };
    let (my, mf) = (
        mean(&mut labelled.iter().map(|p| p.0)),
        mean(&mut labelled.iter().map(|p| p.1)),
    );
    let cov = labelled
        .iter()
        .map(|(y, f)| (y - my) * (f - mf))
        .sum::<f64>()
        / n;
    // The judge's scores on every unit, labelled or not: their sample variance.
    let all: Vec<f64> = labelled
        .iter()
        .map(|p| p.1)
        .chain(unlabelled.iter().copied())
        .collect();
    let m_all = mean(&mut all.iter().copied());
    let var_f = all.iter().map(|f| (f - m_all).powi(2)).sum::<f64>() / (all.len() as f64 - 1.0);
    let lambda = if unlabelled.is_empty() || var_f <= 0.0 {
        0.0
    } else {
        (cov / ((1.0 + n / big_n) * var_f)).clamp(0.0, 1.0)
    };
    let imputed = if unlabelled.is_empty() {
        0.0
    } else {
        lambda * mean(&mut unlabelled.iter().copied())
    };
    let rectifier: Vec<f64> = labelled.iter().map(|(y, f)| y - lambda * f).collect();
    let m_rect = mean(&mut rectifier.iter().copied());
    let estimate = imputed + m_rect;
    let population_var =
        |v: &[f64], m: f64| v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64;
    let var_imputed = if unlabelled.is_empty() {
        0.0
    } else {
        let scaled: Vec<f64> = unlabelled.iter().map(|f| lambda * f).collect();
        population_var(&scaled, lambda * mean(&mut unlabelled.iter().copied())) / big_n
    };
    let se = (var_imputed + population_var(&rectifier, m_rect) / n).sqrt();
    let interval =
        (labelled.len() >= MIN_CLUSTERS).then_some((estimate - Z * se, estimate + Z * se));
    Some(PpiMean {
        estimate,
        low: interval.map(|i| i.0),
        high: interval.map(|i| i.1),
        labelled: labelled.len(),
        unlabelled: unlabelled.len(),
        lambda,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A judge that tracks people exactly, two points high: the estimate is the people's
    /// mean on every unit, not the judge's.
    #[test]
    fn a_biased_judge_is_corrected() {
        let truth: Vec<f64> = (0..40).map(|i| 40.0 + (i % 7) as f64).collect();
        let labelled: Vec<(f64, f64)> = truth[..12].iter().map(|y| (*y, y + 2.0)).collect();
        let unlabelled: Vec<f64> = truth[12..].iter().map(|y| y + 2.0).collect();
        let p = ppi_mean(&labelled, &unlabelled).unwrap();
        let people = truth.iter().sum::<f64>() / truth.len() as f64;
        assert!((p.estimate - people).abs() < 0.2, "{p:?} against {people}");
        assert!(p.lambda > 0.5, "the judge is trusted: {p:?}");
        assert!(p.low.unwrap() < people && people < p.high.unwrap());
        assert_eq!(ppi_mean(&labelled[..1], &unlabelled), None);
        assert!(ppi_mean(&labelled[..5], &unlabelled).unwrap().low.is_none());
    }
}
