//! Dilemma difficulty: how well models did on each dilemma, and how much it separates them.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Cell, model_of, usable};
use crate::analysis::stats::{mean, std_dev};
use crate::domain::{Round, Scores, Team};

/// One dilemma: how well models did on it, and how much they differed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DilemmaDifficulty {
    /// The dilemma.
    pub dilemma_id: String,
    /// The mean team total over all models and roles.
    pub mean_total: Cell,
    /// The standard deviation of the per-model mean totals (how much it separates models).
    pub spread: Option<f64>,
    /// Models with data on it.
    pub models: usize,
    /// Among the dilemmas that separate models most (the top third by spread).
    pub separates_models: bool,
}

/// Dilemmas ranked hardest (lowest mean total) first.
pub fn dilemma_difficulty(rounds: &[Round]) -> Vec<DilemmaDifficulty> {
    // Each team total with its exchange (the round): both teams and every judge of one
    // exchange are one unit of the interval.
    let mut totals: BTreeMap<&str, Vec<(usize, f64)>> = BTreeMap::new();
    let mut per_model: BTreeMap<&str, BTreeMap<&str, Vec<f64>>> = BTreeMap::new();
    for (exchange, r) in rounds.iter().enumerate() {
        for j in usable(r) {
            for team in [Team::A, Team::B] {
                if let Some(t) = j.scores(team).and_then(Scores::total) {
                    totals.entry(&r.dilemma_id).or_default().push((exchange, t));
                    per_model
                        .entry(&r.dilemma_id)
                        .or_default()
                        .entry(model_of(r, team))
                        .or_default()
                        .push(t);
                }
            }
        }
    }
    let mut out: Vec<DilemmaDifficulty> = totals
        .iter()
        .map(|(d, values)| {
            let means: Vec<f64> = per_model[d].values().filter_map(|v| mean(v)).collect();
            DilemmaDifficulty {
                dilemma_id: d.to_string(),
                mean_total: Cell::clustered(values),
                spread: std_dev(&means),
                models: means.len(),
                separates_models: false,
            }
        })
        .collect();
    let mut spreads: Vec<f64> = out.iter().filter_map(|d| d.spread).collect();
    spreads.sort_by(|a, b| b.total_cmp(a));
    if let Some(cut) = spreads
        .get(spreads.len().div_ceil(3).saturating_sub(1))
        .copied()
    {
        for d in &mut out {
            d.separates_models = d.spread.is_some_and(|s| s >= cut && s > 0.0);
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
        assert_eq!(t[1].spread, Some(0.0));
        assert!(t[0].separates_models && !t[1].separates_models);
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
            spread: None,
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
