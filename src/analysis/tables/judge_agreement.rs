//! Judge agreement: where several judges scored the same exchange, how far they agree
//! (pairwise correlations, Krippendorff's alpha) and how generous or harsh each is; and,
//! as the spec compares judges "in different rounds", the same over configurations
//! (dilemma, Team A, Team B) that one judge each scored in different repetitions.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Cell, usable};
use crate::analysis::stats::statistic::Statistic;
use crate::analysis::stats::{AlphaParts, Moments, mean, offset_from_others, ranked};
use crate::domain::{Criterion, Judgment, Round, Team};

/// Two judges compared on the exchanges (or configurations) both scored. Each figure's
/// interval resamples those exchanges (configurations), so the fourteen scores of one
/// exchange count as one unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgePair {
    /// The first judge.
    pub a: String,
    /// The second judge.
    pub b: String,
    /// Exchanges both scored (in [`RepeatedAgreement`]: configurations both scored).
    pub shared_exchanges: usize,
    /// Pearson's r over every (exchange, team, criterion) score.
    pub pearson: Statistic,
    /// Spearman's rho over the same.
    pub spearman: Statistic,
    /// Pearson's r over team totals.
    pub pearson_totals: Statistic,
    /// Per criterion: Pearson's r over (exchange, team) scores.
    pub per_criterion: BTreeMap<&'static str, Statistic>,
}

/// Agreement over all judges.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeAgreement {
    /// Exchanges scored by two judges or more.
    pub shared_exchanges: usize,
    /// Krippendorff's alpha (interval) over every (exchange, team, criterion) unit, its
    /// interval resampling exchanges.
    pub alpha: Statistic,
    /// Each pair of judges.
    pub pairs: Vec<JudgePair>,
    /// Each judge's mean score minus the other judges' mean on the same units (positive:
    /// generous), its interval and n counting exchanges.
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
    /// Krippendorff's alpha (interval) over every (configuration, team, criterion) unit,
    /// its interval resampling configurations.
    pub alpha: Statistic,
    /// Each pair of judges, over the configurations both scored.
    pub pairs: Vec<JudgePair>,
    /// Each judge's mean score minus the other judges' on the same configurations, n
    /// counting configurations.
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

/// The scored units of one exchange (or configuration), the unit of replication: each
/// (team, criterion) with the score each judge gave it.
type Scored = BTreeMap<(Team, Criterion), BTreeMap<String, f64>>;

/// One configuration's units: each (team, criterion) with every score each judge gave it
/// over the configuration's single-judge rounds.
type Repeated = BTreeMap<(Team, Criterion), BTreeMap<String, Vec<f64>>>;

/// How far judges agree where several scored the same exchange, and across repetitions.
pub fn judge_agreement(rounds: &[Round]) -> JudgeAgreement {
    // round → (team, criterion) → judge → score
    let mut exchanges: BTreeMap<String, Scored> = BTreeMap::new();
    // configuration → (team, criterion) → judge → the scores it gave in that
    // configuration's single-judge rounds.
    let mut repeated: BTreeMap<String, Repeated> = BTreeMap::new();
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
                        exchanges
                            .entry(r.id.clone())
                            .or_default()
                            .entry((team, c))
                            .or_default()
                            .insert(j.judge_key().to_string(), v);
                    } else {
                        repeated
                            .entry(configuration.clone())
                            .or_default()
                            .entry((team, c))
                            .or_default()
                            .entry(j.judge_key().to_string())
                            .or_default()
                            .push(v);
                    }
                }
            }
        }
    }
    // A configuration's unit counts once two judges or more scored it.
    let repeated: BTreeMap<String, Scored> = repeated
        .into_iter()
        .map(|(configuration, units)| {
            let units: Scored = units
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
            (configuration, units)
        })
        .filter(|(_, units)| !units.is_empty())
        .collect();
    let (alpha, pairs, offsets) = compare(&exchanges);
    let (r_alpha, r_pairs, r_offsets) = compare(&repeated);
    JudgeAgreement {
        shared_exchanges: exchanges.len(),
        alpha,
        pairs,
        offsets,
        across_repetitions: RepeatedAgreement {
            configurations: repeated.len(),
            alpha: r_alpha,
            pairs: r_pairs,
            offsets: r_offsets,
        },
    }
}

/// Alpha, each pair's correlations and each judge's offset over the units of exchanges
/// (or configurations) scored by several judges, each interval resampling them.
fn compare(
    clusters: &BTreeMap<String, Scored>,
) -> (Statistic, Vec<JudgePair>, BTreeMap<String, Cell>) {
    let list: Vec<&Scored> = clusters.values().collect();
    // Each exchange's share of alpha, summed once; a resample adds them up.
    let parts: Vec<AlphaParts> = list
        .iter()
        .map(|units| {
            let mut p = AlphaParts::default();
            for u in units.values() {
                p.push(&u.values().copied().collect::<Vec<f64>>());
            }
            p
        })
        .collect();
    let alpha = Statistic::bootstrap(list.len(), |draw| {
        let mut total = AlphaParts::default();
        for &c in draw {
            total.add(&parts[c], 1.0);
        }
        total.alpha()
    });
    let names: Vec<String> = {
        let mut n: Vec<String> = list
            .iter()
            .flat_map(|c| c.values().flat_map(|u| u.keys().cloned()))
            .collect();
        n.sort();
        n.dedup();
        n
    };
    let mut pairs = Vec::new();
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            pairs.push(pair(&list, a, b));
        }
    }
    let offsets = names
        .iter()
        .map(|judge| {
            let diffs: Vec<(usize, f64)> = list
                .iter()
                .enumerate()
                .flat_map(|(c, units)| {
                    units
                        .values()
                        .filter_map(move |u| Some((c, offset_from_others(u, judge)?)))
                })
                .collect();
            (judge.clone(), Cell::clustered(&diffs))
        })
        .collect();
    (alpha, pairs, offsets)
}

/// One pair of judges over the exchanges both scored: Pearson's and Spearman's over every
/// score, Pearson's over team totals and over each criterion, all resampling those
/// exchanges together.
fn pair(clusters: &[&Scored], a: &str, b: &str) -> JudgePair {
    // Each shared exchange's (team, criterion, a's score, b's score).
    let shared: Vec<Vec<(Team, Criterion, f64, f64)>> = clusters
        .iter()
        .map(|units| {
            units
                .iter()
                .filter_map(|((team, c), u)| Some((*team, *c, *u.get(a)?, *u.get(b)?)))
                .collect::<Vec<_>>()
        })
        .filter(|v| !v.is_empty())
        .collect();
    // Spearman's rho is Pearson's r of the ranks. Its interval keeps the ranks of all the
    // shared scores in every resample rather than ranking each resample anew (a sort per
    // resample and pair would dominate the analysis): an approximation of the re-ranked
    // bootstrap, close when many scores are shared; the value itself is Spearman's exactly.
    let (rank_x, rank_y) = {
        let flat: Vec<&(Team, Criterion, f64, f64)> = shared.iter().flatten().collect();
        let xs: Vec<f64> = flat.iter().map(|t| t.2).collect();
        let ys: Vec<f64> = flat.iter().map(|t| t.3).collect();
        (ranked(&xs), ranked(&ys))
    };
    // Each exchange's sums, once: over every score, the ranks, the team totals and each
    // criterion, in that order.
    let count = 3 + Criterion::ALL.len();
    let mut at = 0;
    let sums: Vec<Vec<Moments>> = shared
        .iter()
        .map(|rows| {
            let mut m = vec![Moments::default(); count];
            let mut totals = [(0.0, 0.0, false); 2];
            for (team, c, x, y) in rows {
                m[0].push(*x, *y);
                m[1].push(rank_x[at], rank_y[at]);
                at += 1;
                let t = &mut totals[usize::from(*team == Team::B)];
                *t = (t.0 + x, t.1 + y, true);
                if let Some(i) = Criterion::ALL.iter().position(|k| k == c) {
                    m[3 + i].push(*x, *y);
                }
            }
            for (x, y, present) in totals {
                if present {
                    m[2].push(x, y);
                }
            }
            m
        })
        .collect();
    // The statistics of a draw; one the draw cannot give is NaN (it then has no interval,
    // the others keep theirs).
    let statistics = |draw: &[usize]| {
        let mut total = vec![Moments::default(); count];
        for &c in draw {
            for (t, m) in total.iter_mut().zip(&sums[c]) {
                t.add(m, 1.0);
            }
        }
        Some(
            total
                .iter()
                .map(|m| m.pearson().unwrap_or(f64::NAN))
                .collect(),
        )
    };
    let mut stats = Statistic::bootstrap_many(shared.len(), count, statistics).into_iter();
    let mut next = || stats.next().unwrap_or_default();
    let (pearson, spearman, pearson_totals) = (next(), next(), next());
    let per_criterion = Criterion::ALL.iter().map(|c| (c.key(), next())).collect();
    JudgePair {
        a: a.to_string(),
        b: b.to_string(),
        shared_exchanges: shared.len(),
        pearson,
        spearman,
        pearson_totals,
        per_criterion,
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
        assert!((p12.pearson.value.unwrap() - 1.0).abs() < 1e-9);
        let p13 = ag
            .pairs
            .iter()
            .find(|p| p.a == "j1" && p.b == "j3")
            .unwrap();
        assert!(
            (p13.pearson.value.unwrap() - 1.0).abs() < 1e-9,
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
            (judge_agreement(&two).alpha.value.unwrap() - 1.0).abs() < 1e-9,
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
        assert!((p.pearson.value.unwrap() - 1.0).abs() < 1e-9);
        assert!((rep.offsets["j2"].mean.unwrap() - 2.0).abs() < 1e-9);
        assert!((rep.offsets["j1"].mean.unwrap() + 2.0).abs() < 1e-9);
        assert!(!rep.offsets.contains_key("j3"));
        assert!(
            rep.alpha.value.unwrap() < 1.0,
            "a constant offset lowers alpha"
        );

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

    #[test]
    fn a_correlations_interval_is_fishers_when_exchanges_are_independent() {
        // 60 exchanges, two judges; the second judge's team totals follow the first's with
        // noise, and the two teams of an exchange are unrelated, so the 120 totals are
        // independent pairs and Fisher's z interval, tanh(atanh r ± 1.96/√(n − 3)), is
        // the reference the exchange bootstrap should approach (scores drawn normal, as
        // Fisher's interval assumes).
        let mut state: u64 = 7;
        let mut uniform = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        };
        let mut normal = || {
            let (u, v) = (uniform(), uniform());
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        let mut rounds = Vec::new();
        for i in 0..60 {
            let (a, b) = (5.5 + 2.0 * normal(), 5.5 + 2.0 * normal());
            let (a2, b2) = (a + 1.5 * normal(), b + 1.5 * normal());
            rounds.push(round(
                &format!("r{i}"),
                "d",
                "x",
                "y",
                vec![
                    judgment("j1", Scores::uniform(a), Scores::uniform(b)),
                    judgment("j2", Scores::uniform(a2), Scores::uniform(b2)),
                ],
            ));
        }
        let ag = judge_agreement(&rounds);
        let p = &ag.pairs[0];
        assert_eq!((p.shared_exchanges, p.pearson_totals.n), (60, 60));
        let r = p.pearson_totals.value.unwrap();
        let z = r.atanh();
        let half = 1.96 / (120.0f64 - 3.0).sqrt();
        let (fl, fh) = ((z - half).tanh(), (z + half).tanh());
        let (bl, bh) = (
            p.pearson_totals.low.unwrap(),
            p.pearson_totals.high.unwrap(),
        );
        let ratio = (bh - bl) / (fh - fl);
        assert!(
            (0.75..1.3).contains(&ratio),
            "bootstrap [{bl}, {bh}] vs Fisher [{fl}, {fh}]"
        );
        assert!((bl - fl).abs() < 0.05 && (bh - fh).abs() < 0.05);
        // Every criterion of a team is the same score: the fourteen scores of an exchange
        // are two values, and the interval over every score is as wide as the totals'.
        let all = &p.pearson;
        assert!(((all.high.unwrap() - all.low.unwrap()) / (bh - bl) - 1.0).abs() < 0.1);
        assert_eq!(ag.alpha.n, 60);
        assert!(ag.alpha.low.unwrap() < ag.alpha.value.unwrap());
        assert_eq!(ag.offsets["j1"].units, 60);
        assert_eq!(ag.offsets["j1"].n, 60 * 14);
    }
}
