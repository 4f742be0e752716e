//! Position flips: how often a judge's verdict changes when the same exchange is shown to
//! it with its two sides exchanged (`rejudge --swap-sides`), and, where a verdict has a
//! margin, how many points the place alone is worth.
//!
//! An exchange counts for a judge when the judge (the same model, judging alone) has a
//! usable judgment of it as played and one read with the sides swapped, which is stored
//! mapped back to the sides as played. Its verdict is the side ahead: by team totals in the
//! Ethics Bowl (a draw when they differ by less than [`DRAW_MARGIN`]), the answer chosen in
//! the question-answer debate, the winner in the structured debate (a draw when the totals
//! are even). A flip is a verdict that differs between the two readings (a draw against a
//! win counts). The flip rate is a share of independent exchanges, with its Wilson interval.
//!
//! The position effect, for verdicts with a margin (Team A's total minus Team B's; Pro's
//! minus Con's), is the mean over exchanges of `(margin as played − margin swapped) / 2`:
//! the points the judge gives a side for the place it is shown in as played (Ethics Bowl:
//! for being labelled Team A; structured debate: for being read first), with a bootstrap
//! interval over exchanges. A judge that scores Team A `p` points higher on each of the seven
//! criteria has a position effect of `7p`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::qa::Proportion;
use crate::analysis::ratings::DRAW_MARGIN;
use crate::analysis::stats::statistic::Statistic;
use crate::domain::{Judgment, ProtocolKind, Reading, Round, Side, Team};

/// One judge's flips between exchanges as played and the same exchanges with the sides
/// swapped: what the report's "Position flips" section shows, and what the report card
/// reads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlipRate {
    /// The judging model.
    pub judge: String,
    /// The protocol of the exchanges.
    pub protocol: ProtocolKind,
    /// Exchanges judged both ways with a verdict each time (the unit of replication).
    pub exchanges: usize,
    /// The exchanges whose verdict flipped, as a share with its Wilson interval.
    pub flips: Proportion,
    /// The points the place as played is worth (see the module), with its bootstrap
    /// interval over exchanges; none for verdicts without a margin (a chosen answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position_effect: Option<Statistic>,
    /// The exchanges counted, for the rows' links.
    #[serde(skip)]
    pub round_ids: Vec<String>,
}

/// The side a verdict favours, or a draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Side(Team),
    Draw,
}

/// A judgment's verdict, when it has one.
fn verdict(j: &Judgment) -> Option<Verdict> {
    match &j.reading {
        Reading::Rubric { .. } => {
            let m = j.rubric_margin()?;
            Some(if m.abs() < DRAW_MARGIN {
                Verdict::Draw
            } else if m > 0.0 {
                Verdict::Side(Team::A)
            } else {
                Verdict::Side(Team::B)
            })
        }
        Reading::Choice(choice) => choice.map(|c| Verdict::Side(c.side)),
        Reading::Label(_) => None,
        Reading::Verdict(v) => {
            let margin = v.as_deref()?.margin()?;
            Some(match margin.winner() {
                Some(Side::Pro) => Verdict::Side(Team::A),
                Some(Side::Con) => Verdict::Side(Team::B),
                None => Verdict::Draw,
            })
        }
    }
}

/// Whether the judgment was read with the sides swapped.
fn swapped(j: &Judgment) -> bool {
    j.view.as_ref().is_some_and(|v| v.sides_swapped)
}

/// One exchange judged both ways by one judge.
struct Pair {
    round: String,
    flipped: bool,
    /// `(margin as played − margin swapped) / 2`, when both have a margin.
    half_difference: Option<f64>,
}

/// Each judge's flip rate over the exchanges it judged both ways: `original` holds the
/// judgments as played (those marked swapped are ignored there), `swapped` the judgments
/// read with the sides swapped (`rejudge --swap-sides`; others are ignored there). Rounds
/// are paired by id, judgments by judging model; panel judgments and unusable ones are left
/// out. Sorted by protocol, then judge; a judge with no exchange judged both ways has no row.
pub fn flip_rates(original: &[Round], swapped_rounds: &[Round]) -> Vec<FlipRate> {
    let played: BTreeMap<&str, &Round> = original.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut pairs: BTreeMap<(&str, String), (ProtocolKind, Vec<Pair>)> = BTreeMap::new();
    for round in swapped_rounds {
        let Some(before) = played.get(round.id.as_str()) else {
            continue;
        };
        for after in round
            .judgments
            .iter()
            .filter(|j| j.persona_id.is_none() && j.is_usable() && swapped(j))
        {
            let Some(first) = before.judgments.iter().find(|j| {
                j.persona_id.is_none()
                    && j.judge_model == after.judge_model
                    && j.is_usable()
                    && !swapped(j)
            }) else {
                continue;
            };
            let (Some(v1), Some(v2)) = (verdict(first), verdict(after)) else {
                continue;
            };
            let half_difference = match (first.margin(), after.margin()) {
                (Some(m1), Some(m2)) => Some((m1 - m2) / 2.0),
                _ => None,
            };
            pairs
                .entry((round.kind().as_str(), after.judge_model.clone()))
                .or_insert_with(|| (round.kind(), Vec::new()))
                .1
                .push(Pair {
                    round: round.id.clone(),
                    flipped: v1 != v2,
                    half_difference,
                });
        }
    }
    pairs
        .into_iter()
        .map(|((_, judge), (protocol, pairs))| rate(judge, protocol, &pairs))
        .collect()
}

/// One judge's row from its pairs.
fn rate(judge: String, protocol: ProtocolKind, pairs: &[Pair]) -> FlipRate {
    let n = pairs.len();
    let flips = pairs.iter().filter(|p| p.flipped).count();
    let differences: Vec<f64> = pairs.iter().filter_map(|p| p.half_difference).collect();
    // Every pair has a margin or none does (a protocol's verdicts are alike); a mix would
    // leave some exchanges out of the effect, so it is then not given.
    let position_effect = (!differences.is_empty() && differences.len() == n).then(|| {
        Statistic::bootstrap(n, |draw| {
            let sum: f64 = draw.iter().map(|&i| differences[i]).sum();
            Some(sum / draw.len() as f64)
        })
    });
    FlipRate {
        judge,
        protocol,
        exchanges: n,
        flips: Proportion::new(flips, n),
        position_effect,
        round_ids: pairs.iter().map(|p| p.round.clone()).collect(),
    }
}

/// The flip rates of a folder of swapped judgments (`rejudge --swap-sides` writes one, and
/// its `tournament.json` names the folder it judged as played): none when `store` is not
/// such a folder or the folder it names cannot be read (a warning is logged).
pub fn flips_of(store: &crate::store::Store, rounds: &[Round]) -> Vec<FlipRate> {
    let Some(source) = swap_source(store) else {
        return flips_beside(store, rounds);
    };
    let loaded = crate::store::Store::open(&source).and_then(|s| {
        s.load_rounds(&crate::store::RoundFilter::default())
            .map(|(rounds, _)| rounds)
    });
    match loaded {
        Ok(original) => flip_rates(&original, rounds),
        Err(e) => {
            tracing::warn!(
                folder = %source.display(),
                error = %e,
                "the folder judged as played could not be read: no position flips"
            );
            Vec::new()
        }
    }
}

/// The folder a folder of swapped judgments judged as played, from its record.
fn swap_source(store: &crate::store::Store) -> Option<std::path::PathBuf> {
    store
        .load_tournament()
        .ok()
        .flatten()
        .and_then(|t| t.rejudgings.into_iter().rev().find(|r| r.swap_sides))
        .map(|r| r.source)
}

/// The flip rates of a folder judged as played, from the swapped folder `rejudge
/// --swap-sides` wrote beside it by default ([`crate::store::swapped_folder`]), when that
/// folder says it judged this one: so the played folder's report cards carry them too.
fn flips_beside(store: &crate::store::Store, rounds: &[Round]) -> Vec<FlipRate> {
    let beside = crate::store::swapped_folder(store.dir());
    if !beside.join("tournament.json").is_file() {
        return Vec::new();
    }
    let Ok(swapped) = crate::store::Store::open(&beside) else {
        return Vec::new();
    };
    let same = |a: &std::path::Path, b: &std::path::Path| match (a.canonicalize(), b.canonicalize())
    {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !swap_source(&swapped).is_some_and(|s| same(&s, store.dir())) {
        return Vec::new();
    }
    match swapped.load_rounds(&crate::store::RoundFilter::default()) {
        Ok((swapped_rounds, _)) => flip_rates(rounds, &swapped_rounds),
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tables::fixtures::{judgment, round};
    use crate::domain::{JudgeView, Scores};

    fn sheet(judge: &str, a: f64, b: f64, sides_swapped: bool) -> Judgment {
        Judgment {
            view: Some(JudgeView {
                judge_sees_model_names: false,
                temperature: None,
                prompt_version: "ethics_bowl-judge-1".into(),
                sides_swapped,
            }),
            ..judgment(judge, Scores::uniform(a), Scores::uniform(b))
        }
    }

    #[test]
    fn flips_and_the_position_effect_are_counted_per_judge_over_exchanges() {
        // Judge j gives Team A one point more per criterion (7 in total) wherever it is shown
        // as Team A: a true 8-vs-7 exchange reads 8+1 vs 7 as played, 8 vs 7+1 swapped.
        let played = vec![
            round("r1", "d", "x", "y", vec![sheet("j", 9.0, 7.0, false)]),
            round("r2", "d", "x", "y", vec![sheet("j", 8.0, 8.0, false)]),
            round("r3", "d", "x", "y", vec![sheet("j", 6.0, 8.0, false)]),
        ];
        let swapped = vec![
            round("r1", "d", "x", "y", vec![sheet("j", 8.0, 8.0, true)]),
            round("r2", "d", "x", "y", vec![sheet("j", 7.0, 9.0, true)]),
            round("r3", "d", "x", "y", vec![sheet("j", 5.0, 9.0, true)]),
        ];
        let rates = flip_rates(&played, &swapped);
        assert_eq!(rates.len(), 1);
        let r = &rates[0];
        assert_eq!(
            (r.judge.as_str(), r.protocol),
            ("j", ProtocolKind::EthicsBowl)
        );
        assert_eq!(r.exchanges, 3);
        // r1: A wins by 14, then a draw; r2: a draw, then B by 14; r3: B both times.
        assert_eq!((r.flips.hits, r.flips.n), (2, 3));
        let effect = r.position_effect.unwrap();
        assert_eq!(effect.value, Some(7.0));
        assert_eq!(effect.n, 3);
        assert_eq!(r.round_ids, vec!["r1", "r2", "r3"]);
    }

    #[test]
    fn only_the_same_judge_alone_both_ways_and_usable_counts() {
        let mut unread = sheet("j", 9.0, 7.0, true);
        unread.parse_status = crate::domain::ParseStatus::Partial;
        let played = vec![
            round("r1", "d", "x", "y", vec![sheet("j", 9.0, 7.0, false)]),
            round("r2", "d", "x", "y", vec![sheet("j", 9.0, 7.0, false)]),
            // A swapped judgment among the originals is not an original.
            round("r3", "d", "x", "y", vec![sheet("j", 9.0, 7.0, true)]),
        ];
        let swapped = vec![
            round("r1", "d", "x", "y", vec![sheet("k", 7.0, 9.0, true)]),
            round("r2", "d", "x", "y", vec![unread]),
            round("r3", "d", "x", "y", vec![sheet("j", 7.0, 9.0, true)]),
            // Judged as played in the swapped folder: not a swapped judgment.
            round("r4", "d", "x", "y", vec![sheet("j", 7.0, 9.0, false)]),
        ];
        assert!(flip_rates(&played, &swapped).is_empty());
    }

    #[test]
    fn a_chosen_answer_flips_without_a_position_effect() {
        let choice = |side, sides_swapped| Judgment {
            view: Some(JudgeView {
                judge_sees_model_names: false,
                temperature: None,
                prompt_version: "qa_debate-judge-1".into(),
                sides_swapped,
            }),
            ..Judgment::new(
                "j",
                Reading::Choice(Some(crate::domain::QaChoice {
                    side,
                    confidence: Some(80.0),
                })),
            )
        };
        let played = vec![
            round("q1", "i", "x", "y", vec![choice(Team::A, false)]),
            round("q2", "i", "x", "y", vec![choice(Team::A, false)]),
        ];
        let swapped = vec![
            round("q1", "i", "x", "y", vec![choice(Team::B, true)]),
            round("q2", "i", "x", "y", vec![choice(Team::A, true)]),
        ];
        let rates = flip_rates(&played, &swapped);
        assert_eq!((rates[0].flips.hits, rates[0].flips.n), (1, 2));
        assert_eq!(rates[0].position_effect, None);
    }
}
