//! Judge agreement: where several judges scored the same exchange, how far they agree
//! (pairwise correlations, Krippendorff's alpha) and how generous or harsh each is.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Cell, usable};
use crate::analysis::stats::{krippendorff_interval, offset_from_others, pearson, spearman};
use crate::domain::{Criterion, Judgment, Round, Team};

/// Two judges compared on the exchanges both scored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgePair {
    /// The first judge.
    pub a: String,
    /// The second judge.
    pub b: String,
    /// Exchanges both scored.
    pub shared_exchanges: usize,
    /// Pearson's r over every (exchange, team, criterion) score.
    pub pearson: Option<f64>,
    /// Spearman's rho over the same.
    pub spearman: Option<f64>,
    /// Pearson's r over team totals.
    pub pearson_totals: Option<f64>,
    /// Per criterion: Pearson's r over (exchange, team) scores.
    pub per_criterion: BTreeMap<&'static str, Option<f64>>,
}

/// Agreement over all judges.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeAgreement {
    /// Exchanges scored by two judges or more.
    pub shared_exchanges: usize,
    /// Krippendorff's alpha (interval) over every (exchange, team, criterion) unit.
    pub alpha: Option<f64>,
    /// Each pair of judges.
    pub pairs: Vec<JudgePair>,
    /// Each judge's mean score minus the other judges' mean on the same units (positive:
    /// generous), with the units behind it.
    pub offsets: BTreeMap<String, Cell>,
}

impl JudgeAgreement {
    /// The judges compared, in name order.
    pub fn judges(&self) -> Vec<String> {
        let mut judges: Vec<String> = self
            .pairs
            .iter()
            .flat_map(|p| [p.a.clone(), p.b.clone()])
            .collect();
        judges.sort();
        judges.dedup();
        judges
    }
}

/// How far judges agree where several scored the same exchange.
pub fn judge_agreement(rounds: &[Round]) -> JudgeAgreement {
    // (round, team, criterion) → judge → score
    let mut units: BTreeMap<(String, Team, Criterion), BTreeMap<String, f64>> = BTreeMap::new();
    let mut shared = 0;
    for r in rounds {
        let judges: Vec<&Judgment> = usable(r).collect();
        if judges.len() < 2 {
            continue;
        }
        shared += 1;
        for j in judges {
            for team in [Team::A, Team::B] {
                for c in Criterion::ALL {
                    if let Some(v) = j.scores(team).and_then(|s| s.get(c)) {
                        units
                            .entry((r.id.clone(), team, c))
                            .or_default()
                            .insert(j.judge_key().to_string(), v);
                    }
                }
            }
        }
    }
    let alpha = krippendorff_interval(
        &units
            .values()
            .map(|u| u.values().copied().collect())
            .collect::<Vec<_>>(),
    );
    let names: Vec<String> = {
        let mut n: Vec<String> = units.values().flat_map(|u| u.keys().cloned()).collect();
        n.sort();
        n.dedup();
        n
    };
    let mut pairs = Vec::new();
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            let both: Vec<(&(String, Team, Criterion), f64, f64)> = units
                .iter()
                .filter_map(|(k, u)| Some((k, *u.get(a)?, *u.get(b)?)))
                .collect();
            let xs: Vec<f64> = both.iter().map(|t| t.1).collect();
            let ys: Vec<f64> = both.iter().map(|t| t.2).collect();
            let mut totals: BTreeMap<(&String, Team), (f64, f64)> = BTreeMap::new();
            for ((rid, team, _), x, y) in &both {
                let t = totals.entry((rid, *team)).or_default();
                t.0 += x;
                t.1 += y;
            }
            let (tx, ty): (Vec<f64>, Vec<f64>) = totals.values().copied().unzip();
            let per_criterion = Criterion::ALL
                .iter()
                .map(|c| {
                    let (cx, cy): (Vec<f64>, Vec<f64>) = both
                        .iter()
                        .filter(|t| t.0.2 == *c)
                        .map(|t| (t.1, t.2))
                        .unzip();
                    (c.key(), pearson(&cx, &cy))
                })
                .collect();
            let exchanges = {
                let mut ids: Vec<&String> = both.iter().map(|t| &t.0.0).collect();
                ids.dedup();
                ids.len()
            };
            pairs.push(JudgePair {
                a: a.clone(),
                b: b.clone(),
                shared_exchanges: exchanges,
                pearson: pearson(&xs, &ys),
                spearman: spearman(&xs, &ys),
                pearson_totals: pearson(&tx, &ty),
                per_criterion,
            });
        }
    }
    let offsets = names
        .iter()
        .map(|judge| {
            let diffs: Vec<f64> = units
                .values()
                .filter_map(|u| offset_from_others(u, judge))
                .collect();
            (judge.clone(), Cell::of(&diffs))
        })
        .collect();
    JudgeAgreement {
        shared_exchanges: shared,
        alpha,
        pairs,
        offsets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tables::fixtures::{judgment, round};
    use crate::domain::Scores;

    #[test]
    fn two_judges_in_perfect_agreement_and_one_shifted_by_two() {
        let mut rounds = Vec::new();
        for (i, (a, b)) in [(5.0, 6.0), (7.0, 4.0), (8.0, 8.0), (3.0, 6.0)]
            .iter()
            .enumerate()
        {
            let mut sa = Scores::uniform(*a);
            sa.consistency = Some(a - 1.0);
            let mut shifted_a = Scores::uniform(a + 2.0);
            shifted_a.consistency = Some(a + 1.0);
            rounds.push(round(
                &format!("r{i}"),
                "d",
                "x",
                "y",
                vec![
                    judgment("j1", sa, Scores::uniform(*b)),
                    judgment("j2", sa, Scores::uniform(*b)),
                    judgment("j3", shifted_a, Scores::uniform(b + 2.0)),
                ],
            ));
        }
        let ag = judge_agreement(&rounds);
        assert_eq!(ag.shared_exchanges, 4);
        let p12 = ag
            .pairs
            .iter()
            .find(|p| p.a == "j1" && p.b == "j2")
            .unwrap();
        assert!((p12.pearson.unwrap() - 1.0).abs() < 1e-9);
        let p13 = ag
            .pairs
            .iter()
            .find(|p| p.a == "j1" && p.b == "j3")
            .unwrap();
        assert!(
            (p13.pearson.unwrap() - 1.0).abs() < 1e-9,
            "a constant shift keeps correlation 1"
        );
        assert_eq!(p13.shared_exchanges, 4);
        // j3 is 2 above each of the others, so 2 above their mean; j1 is 1 below (0 and −2).
        assert!((ag.offsets["j3"].mean.unwrap() - 2.0).abs() < 1e-9);
        assert!((ag.offsets["j1"].mean.unwrap() + 1.0).abs() < 1e-9);
        let two: Vec<Round> = rounds
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.judgments.truncate(2);
                r
            })
            .collect();
        assert!(
            (judge_agreement(&two).alpha.unwrap() - 1.0).abs() < 1e-9,
            "two judges agreeing perfectly: alpha 1"
        );
    }
}
