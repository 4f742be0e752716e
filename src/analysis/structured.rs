//! The structured debate's figures: per model, its win rate and mean side total as Pro and
//! as Con, the fallacies found in its arguments, how its arguments stood (upheld, partly,
//! refuted, uncertain), and how often it conceded in cross-examination; across the
//! tournament, the side advantage. Only usable judgments (parsed, or corrected by hand)
//! count. Each judgment's totals are read through its bands: evenly matched is a draw, a win
//! is ahead or clearly ahead; a win rate counts a draw as half a win (the usual convention),
//! and the draws are shown apart too. A judgment without both totals is no result.
//!
//! The unit of replication is the round (one debate's text): a round judged by several
//! judges or by a panel is one unit, and the arguments and answers of one round are not
//! independent. Every interval counts rounds: the win rate's and the side margin's are
//! cluster bootstraps over rounds, the totals' and the fallacy rate's cluster-robust means,
//! the shares' Wilson intervals at the effective sample size the rounds leave
//! ([`Proportion::clustered`]).

use std::collections::BTreeMap;

use serde::Serialize;

use super::qa::{Counted, ItemTally, Proportion};
use super::stats::statistic::Statistic;
use super::tables::Cell;
use crate::domain::{
    Band, Fallacy, ResponseType, Round, Side, Standing, StructuredSetup, StructuredVerdict,
    TotalBands,
};

/// One debating model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StructuredModel {
    /// The model.
    pub model: String,
    /// Judgments of its debates.
    pub judgments: usize,
    /// Rounds it debated that have a usable judgment: the unit its intervals count.
    pub rounds: usize,
    /// Judgments its side won (ahead or clearly ahead).
    pub wins: usize,
    /// Of those, the ones it won clearly (a significant difference).
    pub clear_wins: usize,
    /// Judgments that read evenly matched.
    pub draws: usize,
    /// Judgments its side lost.
    pub losses: usize,
    /// (wins + draws / 2) / (wins + draws + losses), with its 95% interval from resampling
    /// the rounds it debated (every judgment of a drawn round together); n counts rounds.
    pub win_rate: Statistic,
    /// Its side total when it argued Pro: the mean over judgments, its interval counting
    /// rounds.
    pub pro_total: Cell,
    /// Its side total when it argued Con.
    pub con_total: Cell,
    /// Fallacies judges found in its arguments, by type.
    pub fallacies: BTreeMap<Fallacy, usize>,
    /// Fallacies found per argument assessed (every type), its interval from resampling
    /// rounds; n counts rounds.
    pub fallacies_per_argument: Statistic,
    /// How its arguments stood, by standing.
    pub standings: BTreeMap<Standing, usize>,
    /// Each standing's share of its assessed arguments, clustered by round.
    pub standing_shares: BTreeMap<Standing, Proportion>,
    /// Arguments of its that judges assessed (each judge's assessment counts).
    pub assessed_arguments: usize,
    /// Its cross-examination answers that conceded in full or in part, clustered by round.
    pub concessions: Proportion,
}

/// Whether arguing Pro or Con helps, across the tournament.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideAdvantage {
    /// Usable judgments.
    pub judgments: usize,
    /// Pro won (ahead or clearly ahead).
    pub pro_wins: usize,
    /// Of those, clearly ahead.
    pub pro_clear_wins: usize,
    /// Con won.
    pub con_wins: usize,
    /// Of those, clearly ahead.
    pub con_clear_wins: usize,
    /// Evenly matched: draws (the gap under the even threshold).
    pub ties: usize,
    /// Pro's share of the decided judgments, its Wilson interval counting rounds.
    pub pro_share: Proportion,
    /// Mean Pro total minus mean Con total over the judgments, with its 95% interval from
    /// resampling rounds; n counts rounds.
    pub mean_margin: Statistic,
}

/// Everything the report says about structured-debate rounds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StructuredFigures {
    /// Rounds read.
    pub rounds: usize,
    /// The bands the rounds read their totals with (one entry unless the rounds differ).
    pub bands: Vec<TotalBands>,
    /// Judgments still waiting for review (not counted).
    pub awaiting_review: usize,
    /// Replies that needed the correction prompt.
    pub corrected_replies: usize,
    /// Replies kept as free text after it.
    pub fallback_replies: usize,
    /// Rule violations recorded (unanswered arguments, long closings, …).
    pub violations: usize,
    /// Each debating model, in name order.
    pub models: Vec<StructuredModel>,
    /// Pro against Con.
    pub side: SideAdvantage,
}

fn verdicts(round: &Round) -> impl Iterator<Item = &StructuredVerdict> {
    round
        .judgments
        .iter()
        .filter(|j| j.is_usable())
        .filter_map(|j| j.verdict())
}

fn model_of(round: &Round, side: Side) -> &str {
    match side {
        Side::Pro => &round.team_a_model,
        Side::Con => &round.team_b_model,
    }
}

/// A rate pooled over rounds, each round's `(sum, count)`: the sum over the count, its
/// interval resampling rounds. A win rate is one (a round's win points over its judgments
/// with a result, a win 1 point and a draw a half), as is fallacies per argument assessed.
pub fn rate_over_rounds(rounds: &[(f64, usize)]) -> Statistic {
    Statistic::bootstrap(rounds.len(), |draw| {
        let (points, judgments) = draw
            .iter()
            .fold((0.0, 0), |(p, n), &i| (p + rounds[i].0, n + rounds[i].1));
        (judgments > 0).then(|| points / judgments as f64)
    })
}

/// Mean Pro total minus mean Con total over judgments, given each round's Pro and Con
/// totals: its interval resampling rounds.
pub fn mean_margin(rounds: &[(Vec<f64>, Vec<f64>)]) -> Statistic {
    Statistic::bootstrap(rounds.len(), |draw| {
        let (mut pro, mut con) = ((0.0, 0), (0.0, 0));
        for &i in draw {
            let (p, c) = &rounds[i];
            pro = (pro.0 + p.iter().sum::<f64>(), pro.1 + p.len());
            con = (con.0 + c.iter().sum::<f64>(), con.1 + c.len());
        }
        (pro.1 > 0 && con.1 > 0).then(|| pro.0 / pro.1 as f64 - con.0 / con.1 as f64)
    })
}

/// What one model's figures are gathered from, round by round.
#[derive(Default)]
struct Gathered {
    judgments: usize,
    wins: usize,
    clear_wins: usize,
    draws: usize,
    losses: usize,
    /// Per round index: win points and results.
    results: BTreeMap<usize, (f64, usize)>,
    /// Per side: `(round, total)`.
    totals: BTreeMap<Side, Vec<(usize, f64)>>,
    fallacies: BTreeMap<Fallacy, usize>,
    /// Per round index: fallacies found and arguments assessed.
    fallacy_counts: BTreeMap<usize, (f64, usize)>,
    standings: BTreeMap<Standing, usize>,
    /// Per standing: assessments by round, hits the ones with it.
    standing_tallies: BTreeMap<Standing, ItemTally>,
    assessed_arguments: usize,
    concessions: ItemTally,
}

/// The figures, when any round is a structured-debate round.
pub fn structured_figures(rounds: &[Round]) -> Option<StructuredFigures> {
    let ours: Vec<(&Round, &StructuredSetup)> = rounds
        .iter()
        .filter_map(|r| Some((r, r.structured()?)))
        .collect();
    if ours.is_empty() {
        return None;
    }
    let mut models: BTreeMap<&str, Gathered> = BTreeMap::new();
    let (mut pro_wins, mut con_wins, mut ties, mut judgments) = (0, 0, 0, 0);
    let (mut pro_clear_wins, mut con_clear_wins) = (0, 0);
    let mut pro_share = ItemTally::default();
    let mut side_totals: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    let mut bands: Vec<TotalBands> = Vec::new();
    let mut awaiting_review = 0;
    let (mut corrected_replies, mut fallback_replies, mut violations) = (0, 0, 0);
    for (index, &(round, setup)) in ours.iter().enumerate() {
        awaiting_review += round.judgments.iter().filter(|j| !j.is_usable()).count();
        corrected_replies += round
            .phases
            .iter()
            .filter(|p| p.turn.is_some_and(|t| t.attempt > 0))
            .count();
        fallback_replies += setup.fallbacks.len();
        if !bands.contains(&setup.bands) {
            bands.push(setup.bands);
        }
        violations += setup.pro.violations.len() + setup.con.violations.len();
        for side in Side::BOTH {
            let answers = &setup.side(side).cross_examination;
            let conceded = answers
                .iter()
                .filter(|a| {
                    matches!(
                        a.response_type,
                        ResponseType::Concede | ResponseType::Partial
                    )
                })
                .count();
            models
                .entry(model_of(round, side))
                .or_default()
                .concessions
                .add_trials(&round.id, conceded, answers.len());
        }
        let (mut pro_here, mut con_here) = (Vec::new(), Vec::new());
        for v in verdicts(round) {
            judgments += 1;
            let margin = v.margin();
            let winner = margin.and_then(|m| m.winner());
            let clear = margin.is_some_and(|m| m.band == Band::ClearlyAhead);
            match (margin, winner) {
                (_, Some(Side::Pro)) => {
                    pro_wins += 1;
                    pro_clear_wins += usize::from(clear);
                }
                (_, Some(Side::Con)) => {
                    con_wins += 1;
                    con_clear_wins += usize::from(clear);
                }
                (Some(_), None) => ties += 1,
                (None, None) => {}
            }
            if let Some(w) = winner {
                pro_share.add(&round.id, w == Side::Pro);
            }
            pro_here.extend(v.pro_total);
            con_here.extend(v.con_total);
            for side in Side::BOTH {
                let record = models.entry(model_of(round, side)).or_default();
                let total = match side {
                    Side::Pro => v.pro_total,
                    Side::Con => v.con_total,
                };
                if let Some(t) = total {
                    record.totals.entry(side).or_default().push((index, t));
                }
                record.judgments += 1;
                let points = match (margin, winner) {
                    (_, Some(w)) if w == side => {
                        record.wins += 1;
                        record.clear_wins += usize::from(clear);
                        Some(1.0)
                    }
                    (_, Some(_)) => {
                        record.losses += 1;
                        Some(0.0)
                    }
                    (Some(_), None) => {
                        record.draws += 1;
                        Some(0.5)
                    }
                    (None, None) => None,
                };
                if let Some(p) = points {
                    let slot = record.results.entry(index).or_default();
                    slot.0 += p;
                    slot.1 += 1;
                }
                for a in v
                    .assessments
                    .iter()
                    .filter(|a| a.arg_id.starts_with(side.prefix()))
                {
                    record.assessed_arguments += 1;
                    let slot = record.fallacy_counts.entry(index).or_default();
                    slot.0 += a.fallacies.len() as f64;
                    slot.1 += 1;
                    for f in &a.fallacies {
                        *record.fallacies.entry(*f).or_default() += 1;
                    }
                    if let Some(s) = a.standing {
                        *record.standings.entry(s).or_default() += 1;
                    }
                    for st in Standing::ALL {
                        record
                            .standing_tallies
                            .entry(st)
                            .or_default()
                            .add(&round.id, a.standing == Some(st));
                    }
                }
            }
        }
        if !pro_here.is_empty() || !con_here.is_empty() {
            side_totals.push((pro_here, con_here));
        }
    }
    let models = models
        .into_iter()
        .map(|(model, g)| {
            let results: Vec<(f64, usize)> = g.results.values().copied().collect();
            let total = |side| Cell::clustered(g.totals.get(&side).map_or(&[], Vec::as_slice));
            StructuredModel {
                model: model.to_string(),
                judgments: g.judgments,
                rounds: results.len(),
                wins: g.wins,
                clear_wins: g.clear_wins,
                draws: g.draws,
                losses: g.losses,
                win_rate: rate_over_rounds(&results),
                pro_total: total(Side::Pro),
                con_total: total(Side::Con),
                fallacies: g.fallacies,
                fallacies_per_argument: rate_over_rounds(
                    &g.fallacy_counts.values().copied().collect::<Vec<_>>(),
                ),
                standings: g.standings,
                standing_shares: g
                    .standing_tallies
                    .iter()
                    .map(|(st, t)| (*st, t.proportion().counting(Counted::AssessmentsOfRounds)))
                    .collect(),
                assessed_arguments: g.assessed_arguments,
                concessions: g
                    .concessions
                    .proportion()
                    .counting(Counted::AnswersOfRounds),
            }
        })
        .collect();
    Some(StructuredFigures {
        rounds: ours.len(),
        bands,
        awaiting_review,
        corrected_replies,
        fallback_replies,
        violations,
        models,
        side: SideAdvantage {
            judgments,
            pro_wins,
            pro_clear_wins,
            con_wins,
            con_clear_wins,
            ties,
            pro_share: pro_share.proportion().counting(Counted::JudgmentsOfRounds),
            mean_margin: mean_margin(&side_totals),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_count_as_half_a_win() {
        // Twelve rounds: six won, six drawn, none lost: 75%, above even.
        let rounds: Vec<(f64, usize)> = (0..12)
            .map(|i| if i % 2 == 0 { (1.0, 1) } else { (0.5, 1) })
            .collect();
        let w = rate_over_rounds(&rounds);
        assert_eq!((w.value, w.n), (Some(0.75), 12));
        assert!(w.low.unwrap() > 0.5 && w.high.unwrap() <= 1.0, "{w:?}");
        // Only draws: exactly even.
        assert_eq!(rate_over_rounds(&[(0.5, 1); 12]).value, Some(0.5));
    }

    #[test]
    fn judges_of_one_round_are_one_unit() {
        // Twelve rounds, each judged by three judges who agree: the interval of twelve
        // rounds, not of thirty-six judgments.
        let once: Vec<(f64, usize)> = (0..12).map(|i| (f64::from(i % 3 == 0), 1)).collect();
        let thrice: Vec<(f64, usize)> = once.iter().map(|&(p, _)| (3.0 * p, 3)).collect();
        let (a, b) = (rate_over_rounds(&once), rate_over_rounds(&thrice));
        assert_eq!((a.value, a.n), (b.value, b.n));
        assert_eq!((a.low, a.high), (b.low, b.high));
        // As 36 independent judgments the interval would be about √3 narrower.
        let flat: Vec<(f64, usize)> = thrice
            .iter()
            .flat_map(|&(p, _)| [(p / 3.0, 1); 3])
            .collect();
        let c = rate_over_rounds(&flat);
        let width = |s: &Statistic| s.high.unwrap() - s.low.unwrap();
        assert!(width(&a) > 1.4 * width(&c), "{a:?} {c:?}");
    }

    #[test]
    fn the_margin_is_the_difference_of_means_and_clusters_by_round() {
        let rounds: Vec<(Vec<f64>, Vec<f64>)> = (0..12)
            .map(|i| {
                (
                    vec![6.0 + f64::from(i % 4)],
                    vec![5.0, 5.0 + f64::from(i % 2)],
                )
            })
            .collect();
        let m = mean_margin(&rounds);
        // Pro's mean 7.5; Con's (18 × 5 + 6 × 6) / 24 = 5.25.
        assert!((m.value.unwrap() - (7.5 - 5.25)).abs() < 1e-12, "{m:?}");
        assert_eq!(m.n, 12);
        assert!(m.low.unwrap() < 2.25 && 2.25 < m.high.unwrap());
        assert_eq!(mean_margin(&rounds[..5]).low, None, "too few rounds");
    }

    #[test]
    fn arguments_of_one_round_widen_a_share_over_independent_ones() {
        // Ten rounds of four arguments each: all upheld in four rounds, none in six. As 40
        // independent arguments the interval is far narrower than the rounds allow.
        let mut t = ItemTally::default();
        for round in 0..10 {
            t.add_trials(&round.to_string(), if round < 4 { 4 } else { 0 }, 4);
        }
        let clustered = t.proportion().counting(Counted::AssessmentsOfRounds);
        let independent = Proportion::new(16, 40);
        assert_eq!((clustered.hits, clustered.n, clustered.units), (16, 40, 10));
        let width = |p: &Proportion| p.high.unwrap() - p.low.unwrap();
        assert!(
            width(&clustered) > 1.5 * width(&independent),
            "{clustered:?} {independent:?}"
        );
        assert_eq!(
            crate::analysis::show::share(&clustered),
            format!(
                "40% [{:.0}–{:.0}%] (n=40 assessments, 10 rounds)",
                clustered.low.unwrap() * 100.0,
                clustered.high.unwrap() * 100.0
            )
        );
    }
}
