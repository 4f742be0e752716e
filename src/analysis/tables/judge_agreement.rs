//! Judge agreement: where several judges scored the same exchange, how far they agree
//! (pairwise correlations, Krippendorff's alpha) and how generous or harsh each is; and,
//! as the spec compares judges "in different rounds", the same over configurations
//! (dilemma, Team A, Team B) that one judge each scored in different repetitions.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Cell, usable};
use crate::analysis::stats::{krippendorff_interval, mean, offset_from_others, pearson, spearman};
use crate::domain::{Criterion, Judgment, Round, Team};

/// Two judges compared on the exchanges (or configurations) both scored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgePair {
    /// The first judge.
    pub a: String,
    /// The second judge.
    pub b: String,
    /// Exchanges both scored (in [`RepeatedAgreement`]: configurations both scored).
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
    /// The same measures across repetitions: rounds scored by one judge each (as under
    /// `judging = "rotate"`) compared where one configuration was judged by different
    /// judges in different rounds.
    pub across_repetitions: RepeatedAgreement,
}

/// Judge agreement and leniency across rounds of the same configuration (dilemma, Team A,
/// Team B), each scored by one judge: a judge's score for a configuration is its mean over
/// the rounds it judged there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepeatedAgreement {
    /// Configurations scored by two judges or more, in different rounds: what the figures
    /// rest on.
    pub configurations: usize,
    /// Krippendorff's alpha (interval) over every (configuration, team, criterion) unit.
    pub alpha: Option<f64>,
    /// Each pair of judges, over the configurations both scored.
    pub pairs: Vec<JudgePair>,
    /// Each judge's mean score minus the other judges' on the same configurations.
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

/// A scored unit: an exchange (or configuration), a team and a criterion.
type Unit = (String, Team, Criterion);

/// How far judges agree where several scored the same exchange, and across repetitions.
pub fn judge_agreement(rounds: &[Round]) -> JudgeAgreement {
    // (round, team, criterion) → judge → score
    let mut units: BTreeMap<Unit, BTreeMap<String, f64>> = BTreeMap::new();
    // (configuration, team, criterion) → judge → the scores it gave in that configuration's
    // single-judge rounds.
    let mut repeated: BTreeMap<Unit, BTreeMap<String, Vec<f64>>> = BTreeMap::new();
    let mut shared = 0;
    for r in rounds {
        let judges: Vec<&Judgment> = usable(r).collect();
        let configuration = format!(
            "{}__{}__vs__{}",
            r.dilemma_id, r.team_a_model, r.team_b_model
        );
        for j in &judges {
            for team in [Team::A, Team::B] {
                for c in Criterion::ALL {
                    let Some(v) = j.scores(team).and_then(|s| s.get(c)) else {
                        continue;
                    };
                    if judges.len() >= 2 {
                        units
                            .entry((r.id.clone(), team, c))
                            .or_default()
                            .insert(j.judge_key().to_string(), v);
                    } else {
                        repeated
                            .entry((configuration.clone(), team, c))
                            .or_default()
                            .entry(j.judge_key().to_string())
                            .or_default()
                            .push(v);
                    }
                }
            }
        }
        if judges.len() >= 2 {
            shared += 1;
        }
    }
    let (alpha, pairs, offsets) = compare(&units);
    // A configuration counts once two judges or more scored it.
    let repeated: BTreeMap<Unit, BTreeMap<String, f64>> = repeated
        .into_iter()
        .filter(|(_, by_judge)| by_judge.len() >= 2)
        .map(|(unit, by_judge)| {
            let means = by_judge
                .into_iter()
                .filter_map(|(judge, v)| Some((judge, mean(&v)?)))
                .collect();
            (unit, means)
        })
        .collect();
    let configurations = {
        let mut ids: Vec<&String> = repeated.keys().map(|(id, _, _)| id).collect();
        ids.dedup();
        ids.len()
    };
    let (r_alpha, r_pairs, r_offsets) = compare(&repeated);
    JudgeAgreement {
        shared_exchanges: shared,
        alpha,
        pairs,
        offsets,
        across_repetitions: RepeatedAgreement {
            configurations,
            alpha: r_alpha,
            pairs: r_pairs,
            offsets: r_offsets,
        },
    }
}

/// Alpha, each pair's correlations and each judge's offset over units scored by several
/// judges.
fn compare(
    units: &BTreeMap<Unit, BTreeMap<String, f64>>,
) -> (Option<f64>, Vec<JudgePair>, BTreeMap<String, Cell>) {
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
            let both: Vec<(&Unit, f64, f64)> = units
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
    (alpha, pairs, offsets)
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

    #[test]
    fn across_repetitions_compares_single_judges_of_the_same_configuration() {
        let mut rounds = Vec::new();
        // Four configurations, each judged once by j1 and once by j2 (two points more
        // generous), and j1 judging d1 twice (its mean counts).
        for (i, (a, b)) in [(5.0, 6.0), (7.0, 4.0), (8.0, 8.0), (3.0, 6.0)]
            .iter()
            .enumerate()
        {
            let d = format!("d{i}");
            let mut sa = Scores::uniform(*a);
            sa.consistency = Some(a - 1.0);
            let mut up = Scores::uniform(a + 2.0);
            up.consistency = Some(a + 1.0);
            rounds.push(round(
                &format!("{d}_r1"),
                &d,
                "x",
                "y",
                vec![judgment("j1", sa, Scores::uniform(*b))],
            ));
            rounds.push(round(
                &format!("{d}_r2"),
                &d,
                "x",
                "y",
                vec![judgment("j2", up, Scores::uniform(b + 2.0))],
            ));
        }
        // The same dilemma with the teams swapped is another configuration, judged by one
        // judge only: it does not count.
        rounds.push(round(
            "d0_swapped",
            "d0",
            "y",
            "x",
            vec![judgment("j3", Scores::uniform(1.0), Scores::uniform(9.0))],
        ));
        let ag = judge_agreement(&rounds);
        assert_eq!(ag.shared_exchanges, 0, "no round had two judges");
        assert!(ag.pairs.is_empty());
        let rep = &ag.across_repetitions;
        assert_eq!(rep.configurations, 4);
        assert_eq!(rep.pairs.len(), 1);
        let p = &rep.pairs[0];
        assert_eq!(
            (p.a.as_str(), p.b.as_str(), p.shared_exchanges),
            ("j1", "j2", 4)
        );
        assert!((p.pearson.unwrap() - 1.0).abs() < 1e-9);
        assert!((rep.offsets["j2"].mean.unwrap() - 2.0).abs() < 1e-9);
        assert!((rep.offsets["j1"].mean.unwrap() + 2.0).abs() < 1e-9);
        assert!(!rep.offsets.contains_key("j3"));
        assert!(rep.alpha.unwrap() < 1.0, "a constant offset lowers alpha");

        // A third judge agreeing with j1 on d1 raises nothing else, and j1 judging d1
        // again, ten points apart, is averaged with its first score.
        let mut more = rounds.clone();
        more.push(round(
            "d1_r3",
            "d1",
            "x",
            "y",
            vec![judgment("j1", Scores::uniform(9.0), Scores::uniform(6.0))],
        ));
        let rep = judge_agreement(&more).across_repetitions;
        assert_eq!(rep.configurations, 4);
        assert!(
            (rep.offsets["j2"].mean.unwrap() - 2.0).abs() > 1e-3,
            "j1's second score on d1 moved its mean there"
        );
    }
}
