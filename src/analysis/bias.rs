//! Checks a reviewer of the results will ask for: position bias, self-preference (a judge
//! scoring its own model, or its provider's, higher than other judges do), length bias, and
//! each judge's score distribution with a ceiling warning.

use std::collections::BTreeMap;

use serde::Serialize;

use super::qa::{Counted, Proportion};
use super::stats::clustered::clustered_mean;
use super::stats::offset_from_others;
use super::tables::Cell;
use crate::domain::{Criterion, Round, Scores, Team};

/// A judge–criterion pair with at least this share of scores at 9–10 cannot separate models.
pub const CEILING_SHARE: f64 = 0.5;

/// A mean difference with a 95% interval that counts exchanges (the judges of one exchange
/// are one unit: [`crate::analysis::stats::clustered`]), its judgments and exchanges.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Difference {
    /// The mean difference.
    pub mean: Option<f64>,
    /// 95% interval, low end.
    pub low: Option<f64>,
    /// 95% interval, high end.
    pub high: Option<f64>,
    /// Observations (judgments).
    pub n: usize,
    /// Exchanges: the unit of replication.
    pub exchanges: usize,
}

impl Difference {
    fn of(observations: &[(usize, f64)]) -> Self {
        let m = clustered_mean(observations);
        Self {
            mean: m.mean,
            low: m.low,
            high: m.high,
            n: m.n,
            exchanges: m.clusters,
        }
    }
}

/// One judge's lean towards a model it is related to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SelfPreference {
    /// The judge.
    pub judge: String,
    /// `own model` or `same provider`.
    pub relation: &'static str,
    /// The judge's mean total for related teams minus the other judges' mean total for the
    /// same teams (positive: it favours its own).
    pub difference: Cell,
}

/// One judge and criterion: how its scores spread over 1–10.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Distribution {
    /// The judge.
    pub judge: String,
    /// The criterion (spec key).
    pub criterion: &'static str,
    /// Counts of scores 1 to 10 (half points rounded down).
    pub counts: [usize; 10],
    /// Share at 9–10, its interval clustered by round (a judgment scores both teams, and a
    /// round's judgments share its transcript).
    pub ceiling: Proportion,
    /// Most scores at 9–10: this rubric cannot separate models here.
    pub ceiling_warning: bool,
}

/// All the checks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BiasChecks {
    /// Team A total minus Team B total, over every usable judgment.
    pub position: Difference,
    /// Judges' lean towards their own model or provider (needs judges that play).
    pub self_preference: Vec<SelfPreference>,
    /// Score distributions per judge and criterion.
    pub distributions: Vec<Distribution>,
}

/// Runs the checks. `provider_of` names each model's provider, where known.
pub fn bias_checks(rounds: &[Round], provider_of: &BTreeMap<String, String>) -> BiasChecks {
    let mut margins = Vec::new();
    // (round, team) → judge → total, for comparing judges on the same team.
    let mut by_team: Vec<(String, BTreeMap<String, f64>)> = Vec::new();
    let mut dist: BTreeMap<(String, Criterion), [usize; 10]> = BTreeMap::new();
    // (judge, criterion) → round → (scores at 9–10, scores), for the ceiling's interval.
    let mut top: BTreeMap<(String, Criterion), BTreeMap<usize, (usize, usize)>> = BTreeMap::new();
    for (exchange, r) in rounds.iter().enumerate() {
        let usable: Vec<_> = r.judgments.iter().filter(|j| j.is_usable()).collect();
        for team in [Team::A, Team::B] {
            let model = if team == Team::A {
                &r.team_a_model
            } else {
                &r.team_b_model
            };
            let mut judges = BTreeMap::new();
            for j in &usable {
                if let Some(t) = j.scores(team).and_then(Scores::total) {
                    judges.insert(j.judge_model.clone(), t);
                }
                for c in Criterion::ALL {
                    if let Some(v) = j.scores(team).and_then(|s| s.get(c)) {
                        let bucket = (v.floor() as usize).clamp(1, 10) - 1;
                        dist.entry((j.judge_model.clone(), c)).or_insert([0; 10])[bucket] += 1;
                        let slot = top
                            .entry((j.judge_model.clone(), c))
                            .or_default()
                            .entry(exchange)
                            .or_default();
                        slot.0 += usize::from(bucket >= 8);
                        slot.1 += 1;
                    }
                }
            }
            by_team.push((model.clone(), judges));
        }
        // The position effect leaves out a judge's scoring of its own model's round, as the
        // main tables do.
        for j in usable.iter().filter(|j| !r.judged_by_a_debater(j)) {
            if let (Some(a), Some(b)) = (
                j.scores(Team::A).and_then(Scores::total),
                j.scores(Team::B).and_then(Scores::total),
            ) {
                margins.push((exchange, a - b));
            }
        }
    }
    let judges: Vec<String> = {
        let mut v: Vec<String> = dist.keys().map(|(j, _)| j.clone()).collect();
        v.dedup();
        v
    };
    let mut self_preference = Vec::new();
    for judge in &judges {
        for (relation, related) in [
            (
                "own model",
                Box::new(|m: &str| m == judge) as Box<dyn Fn(&str) -> bool>,
            ),
            (
                "same provider",
                Box::new(|m: &str| {
                    m != judge
                        && provider_of
                            .get(m)
                            .is_some_and(|p| Some(p) == provider_of.get(judge))
                }),
            ),
        ] {
            // Two teams per round, in order: the round is the exchange.
            let diffs: Vec<(usize, f64)> = by_team
                .iter()
                .enumerate()
                .filter(|(_, (model, _))| related(model))
                .filter_map(|(i, (_, scores))| Some((i / 2, offset_from_others(scores, judge)?)))
                .collect();
            if !diffs.is_empty() {
                self_preference.push(SelfPreference {
                    judge: judge.clone(),
                    relation,
                    difference: Cell::clustered(&diffs),
                });
            }
        }
    }
    let distributions = dist
        .into_iter()
        .map(|((judge, c), counts)| {
            let rounds: Vec<(usize, usize)> = top
                .remove(&(judge.clone(), c))
                .map(|by_round| by_round.into_values().collect())
                .unwrap_or_default();
            let ceiling = Proportion::clustered(&rounds).counting(Counted::ScoresOfRounds);
            Distribution {
                judge,
                criterion: c.key(),
                counts,
                ceiling_warning: ceiling.share.is_some_and(|s| s >= CEILING_SHARE),
                ceiling,
            }
        })
        .collect();
    BiasChecks {
        position: Difference::of(&margins),
        self_preference,
        distributions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tables::fixtures::{judgment, round};

    /// The ceiling share counts scores but its interval counts rounds: twelve rounds where
    /// one judge gives every score of a round 9 or every score 5 read 75% at 9–10 over 24
    /// scores of 12 rounds, and the interval is as wide as 12 independent trials' (a little
    /// wider: the cluster variance's small-sample factor), not as narrow as 24's.
    #[test]
    fn the_ceiling_share_has_an_interval_that_counts_rounds() {
        let rounds: Vec<Round> = (0..12)
            .map(|i| {
                let s = Scores::uniform(if i % 4 == 0 { 5.0 } else { 9.0 });
                round(&format!("r{i}"), "d", "m1", "m2", vec![judgment("j", s, s)])
            })
            .collect();
        let checks = bias_checks(&rounds, &BTreeMap::new());
        let d = &checks.distributions[0];
        assert_eq!((d.ceiling.hits, d.ceiling.n, d.ceiling.units), (18, 24, 12));
        assert!(d.ceiling_warning);
        let (low, high) = (d.ceiling.low.unwrap(), d.ceiling.high.unwrap());
        let width = |p: &Proportion| p.high.unwrap() - p.low.unwrap();
        let (twelve, twenty_four) = (Proportion::new(9, 12), Proportion::new(18, 24));
        assert!(
            high - low >= width(&twelve) && high - low < 1.1 * width(&twelve),
            "{low}–{high} against 12 trials' {twelve:?}"
        );
        assert!(high - low > 1.3 * width(&twenty_four));
        assert_eq!(
            crate::analysis::show::share(&d.ceiling),
            "75% [46–91%] (n=24 scores, 12 rounds)"
        );
    }
}
