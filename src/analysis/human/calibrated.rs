//! The model comparison in people's terms: each model's mean team total as the model
//! judges scored it on every exchange, corrected by how people and the judges differed on
//! the exchanges people judged (prediction-powered inference,
//! [`crate::analysis::stats::ppi`]). Valid whatever the judges' bias; the Ethics Bowl only.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::stats::ppi::{PpiMean, ppi_mean};
use crate::analysis::tables::Cell;

/// One model's human-calibrated mean total.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CalibratedMean {
    /// The model.
    pub model: String,
    /// The judges' mean of its team totals over every exchange it played (each exchange's
    /// judges averaged first, so n counts exchanges), with its interval, for comparison.
    pub judges: Cell,
    /// The mean total people would give it, with its interval; `labelled` counts the
    /// exchanges people judged, `unlabelled` the rest.
    pub people: PpiMean,
}

/// One team's total in one exchange: the model, the judges' mean, people's consensus if
/// they judged it.
#[derive(Debug, Clone, PartialEq)]
pub struct TeamTotal {
    /// The team's model.
    pub model: String,
    /// The mean of the judges' totals for the team.
    pub judges: f64,
    /// People's consensus total for it, when people judged the exchange.
    pub people: Option<f64>,
}

/// Each model's calibrated mean, for models with at least two exchanges people judged.
pub fn calibrated(totals: &[TeamTotal]) -> Vec<CalibratedMean> {
    // Per model: (people, judges) where people judged, and the judges' alone elsewhere.
    type Split = (Vec<(f64, f64)>, Vec<f64>);
    let mut by_model: BTreeMap<&str, Split> = BTreeMap::new();
    for t in totals {
        let slot = by_model.entry(&t.model).or_default();
        match t.people {
            Some(y) => slot.0.push((y, t.judges)),
            None => slot.1.push(t.judges),
        }
    }
    by_model
        .into_iter()
        .filter_map(|(model, (labelled, unlabelled))| {
            let people = ppi_mean(&labelled, &unlabelled)?;
            let all: Vec<f64> = labelled
                .iter()
                .map(|p| p.1)
                .chain(unlabelled.iter().copied())
                .collect();
            let judges = Cell::of(&all);
            Some(CalibratedMean {
                model: model.to_string(),
                judges,
                people,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::providers::simulated::truth::{JudgeBiases, criterion_score};

    /// A team's total by the known-truth simulator's rule: seven criteria, each
    /// `clamp(round(1 + 9·skill + biases + ε))`.
    fn total(skill: f64, biases: &JudgeBiases, team_a: bool, rng: &mut ChaCha8Rng) -> f64 {
        (0..7)
            .map(|_| f64::from(criterion_score(skill, biases, team_a, false, rng)))
            .sum()
    }

    /// On 300 simulated tournaments a model of skill 0.5 (true total `7 × (1 + 9·0.5)` =
    /// 38.5) is scored on 60 exchanges by a judge two points a criterion too lenient with a
    /// lean to Team A; unbiased people judge 20 of them. The prediction-powered interval
    /// covers the truth about 95% of the time; the judges' own mean never does.
    #[test]
    fn the_calibrated_interval_covers_the_truth() {
        let skill = 0.5;
        let truth = 7.0 * (1.0 + 9.0 * skill);
        let judge = JudgeBiases {
            leniency: 2.0,
            position_bias: 0.5,
            self_preference: 0.0,
            noise_sd: 1.5,
        };
        let person = JudgeBiases {
            noise_sd: 1.0,
            ..JudgeBiases::default()
        };
        let (mut covered, mut judges_near, runs) = (0, 0, 300);
        for seed in 0..runs {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let totals: Vec<TeamTotal> = (0..60)
                .map(|e| {
                    let team_a = e % 2 == 0;
                    // The exchange's own form: every rater of it sees the same debate.
                    let form = 0.05 * crate::providers::simulated::truth::standard_normal(&mut rng);
                    TeamTotal {
                        model: "m".into(),
                        judges: total(skill + form, &judge, team_a, &mut rng),
                        people: (e < 20).then(|| total(skill + form, &person, team_a, &mut rng)),
                    }
                })
                .collect();
            let c = &calibrated(&totals)[0];
            let (low, high) = (c.people.low.unwrap(), c.people.high.unwrap());
            covered += usize::from(low <= truth && truth <= high);
            judges_near += usize::from((c.judges.mean.unwrap() - truth).abs() < 2.0);
        }
        let coverage = covered as f64 / runs as f64;
        assert!((0.91..=0.99).contains(&coverage), "coverage {coverage}");
        assert_eq!(
            judges_near, 0,
            "the lenient judge's mean is off by 14 points"
        );
    }
}
