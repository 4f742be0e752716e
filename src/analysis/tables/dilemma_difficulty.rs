//! Dilemma difficulty: how well models did on each dilemma, and how much it separates them.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Cell, model_of, usable};
use crate::analysis::stats::statistic::Statistic;
use crate::analysis::stats::{mean, std_dev};
use crate::domain::{Round, Scores, Team};

/// One dilemma: how well models did on it, and how much they differed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DilemmaDifficulty {
    /// The dilemma.
    pub dilemma_id: String,
    /// The mean team total over all models and roles.
    pub mean_total: Cell,
    /// The standard deviation of the per-model mean totals (how much it separates models),
    /// its interval resampling the dilemma's exchanges.
    pub spread: Statistic,
    /// Models with data on it.
    pub models: usize,
    /// Among the dilemmas that separate models most (the top third by spread).
    pub separates_models: bool,
}

/// Each judgment's (model, team total) of one exchange.
type Judged<'a> = Vec<(&'a str, f64)>;

/// Dilemmas ranked hardest (lowest mean total) first.
pub fn dilemma_difficulty(rounds: &[Round]) -> Vec<DilemmaDifficulty> {
    // Each team total with its exchange (the round): both teams and every judge of one
    // exchange are one unit of the interval.
    let mut totals: BTreeMap<&str, Vec<(usize, f64)>> = BTreeMap::new();
    // dilemma → exchange → (model, team total) of each judgment.
    let mut per_exchange: BTreeMap<&str, BTreeMap<usize, Judged>> = BTreeMap::new();
    for (exchange, r) in rounds.iter().enumerate() {
        for j in usable(r) {
            for team in [Team::A, Team::B] {
                if let Some(t) = j.scores(team).and_then(Scores::total) {
                    totals.entry(&r.dilemma_id).or_default().push((exchange, t));
                    per_exchange
                        .entry(&r.dilemma_id)
                        .or_default()
                        .entry(exchange)
                        .or_default()
                        .push((model_of(r, team), t));
                }
            }
        }
    }
    let mut out: Vec<DilemmaDifficulty> = totals
        .iter()
        .map(|(d, values)| {
            let exchanges: Vec<&Vec<(&str, f64)>> = per_exchange
                .get(d)
                .map(|e| e.values().collect())
                .unwrap_or_default();
            let models = model_means(exchanges.iter().copied()).len();
            // A resample that misses a model is drawn again: the spread is over the same
            // models as the estimate's.
            let spread = Statistic::bootstrap(exchanges.len(), |draw| {
                let means = model_means(draw.iter().map(|&e| exchanges[e]));
                (means.len() == models).then(|| std_dev(&means)).flatten()
            });
            DilemmaDifficulty {
                dilemma_id: d.to_string(),
                mean_total: Cell::clustered(values),
                spread,
                models,
                separates_models: false,
            }
        })
        .collect();
    let mut spreads: Vec<f64> = out.iter().filter_map(|d| d.spread.value).collect();
    spreads.sort_by(|a, b| b.total_cmp(a));
    if let Some(cut) = spreads
        .get(spreads.len().div_ceil(3).saturating_sub(1))
        .copied()
    {
        for d in &mut out {
            d.separates_models = d.spread.value.is_some_and(|s| s >= cut && s > 0.0);
        }
    }
    out.sort_by(|a, b| {
        a.mean_total
            .mean
            .unwrap_or(f64::MAX)
            .total_cmp(&b.mean_total.mean.unwrap_or(f64::MAX))
    });
    out
}

/// Each model's mean team total over these exchanges' judgments.
fn model_means<'a>(exchanges: impl Iterator<Item = &'a Vec<(&'a str, f64)>>) -> Vec<f64> {
    let mut by_model: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for (model, total) in exchanges.flatten() {
        by_model.entry(model).or_default().push(*total);
    }
    by_model.values().filter_map(|v| mean(v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tables::fixtures::{judgment, round};
    use crate::domain::Scores;

    #[test]
    fn dilemma_with_zero_spread_and_ranking() {
        let rounds = vec![
            round(
                "r1",
                "easy",
                "x",
                "y",
                vec![judgment("j", Scores::uniform(9.0), Scores::uniform(9.0))],
            ),
            round(
                "r2",
                "hard",
                "x",
                "y",
                vec![judgment("j", Scores::uniform(3.0), Scores::uniform(7.0))],
            ),
        ];
        let t = dilemma_difficulty(&rounds);
        assert_eq!(t[0].dilemma_id, "hard");
        assert_eq!(t[1].spread.value, Some(0.0));
        assert!(t[0].separates_models && !t[1].separates_models);
        assert_eq!(
            (t[0].spread.n, t[0].spread.low),
            (1, None),
            "one exchange: no interval"
        );
    }

    #[test]
    fn the_spread_has_an_interval_over_the_dilemmas_exchanges() {
        // Twelve exchanges of x against y; x scores 2 or 4 above y by turns: the spread
        // (sd of the two model means) is about 3·7/√2 and varies with the resample.
        let rounds: Vec<Round> = (0..12)
            .map(|i| {
                let lead = if i % 2 == 0 { 2.0 } else { 4.0 };
                round(
                    &format!("r{i}"),
                    "d",
                    "x",
                    "y",
                    vec![judgment(
                        "j",
                        Scores::uniform(5.0 + lead),
                        Scores::uniform(5.0),
                    )],
                )
            })
            .collect();
        let s = dilemma_difficulty(&rounds)[0].spread;
        let expected = 3.0 * 7.0 / 2f64.sqrt();
        assert!((s.value.unwrap() - expected).abs() < 1e-9, "{s:?}");
        assert_eq!(s.n, 12);
        let (l, h) = (s.low.unwrap(), s.high.unwrap());
        assert!(l < expected && expected < h && l >= 2.0 * 7.0 / 2f64.sqrt() - 1e-9);
    }
}

/// The range of mean totals the difficulty bars span: from a multiple of five below the
/// lowest mean to one above the highest (within 0–70), so that bars start at a floor shared
/// by every chart and screen rather than at 0, where 49.3 and 52.8 would look the same.
pub fn bar_range(rows: &[DilemmaDifficulty]) -> (f64, f64) {
    let means: Vec<f64> = rows.iter().filter_map(|d| d.mean_total.mean).collect();
    let (Some(lo), Some(hi)) = (
        means.iter().copied().reduce(f64::min),
        means.iter().copied().reduce(f64::max),
    ) else {
        return (0.0, 70.0);
    };
    let lo = ((lo / 5.0).floor() * 5.0 - 5.0).max(0.0);
    let hi = ((hi / 5.0).ceil() * 5.0).min(70.0).max(lo + 5.0);
    (lo, hi)
}

#[cfg(test)]
mod bar_range_tests {
    use super::*;

    fn row(mean: Option<f64>) -> DilemmaDifficulty {
        DilemmaDifficulty {
            dilemma_id: "d".into(),
            mean_total: Cell::without_interval(mean, 3, false),
            spread: Statistic::default(),
            models: 1,
            separates_models: false,
        }
    }

    #[test]
    fn bars_start_near_the_lowest_mean() {
        assert_eq!(bar_range(&[row(Some(49.3)), row(Some(52.8))]), (40.0, 55.0));
        assert_eq!(bar_range(&[row(Some(2.0)), row(Some(70.0))]), (0.0, 70.0));
        assert_eq!(bar_range(&[row(None)]), (0.0, 70.0));
        assert_eq!(bar_range(&[row(Some(50.0))]), (45.0, 50.0));
    }
}
