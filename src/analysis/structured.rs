//! The structured debate's figures: per model, its win rate and mean side total as Pro and
//! as Con, the fallacies found in its arguments, how its arguments stood (upheld, partly,
//! refuted, uncertain), and how often it conceded in cross-examination; across the
//! tournament, the side advantage. Only usable judgments (parsed, or corrected by hand)
//! count. Each judgment's totals are read through its bands: evenly matched is a draw, and
//! a draw is not a win; a win is ahead or clearly ahead.

use std::collections::BTreeMap;

use serde::Serialize;

use super::qa::Proportion;
use super::stats::mean;
use crate::domain::{
    Band, Fallacy, ResponseType, Round, Side, Standing, StructuredSetup, StructuredVerdict,
    TotalBands,
};

/// A mean with the number of observations behind it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Mean {
    /// The mean, when there is at least one observation.
    pub mean: Option<f64>,
    /// Observations.
    pub n: usize,
}

impl Mean {
    fn of(values: &[f64]) -> Self {
        Self {
            mean: mean(values),
            n: values.len(),
        }
    }
}

/// One debating model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StructuredModel {
    /// The model.
    pub model: String,
    /// Judgments of its debates.
    pub judgments: usize,
    /// Judgments its side won (ahead or clearly ahead; a draw is not a win).
    pub wins: usize,
    /// Of those, the ones it won clearly (a significant difference).
    pub clear_wins: usize,
    /// Judgments that read evenly matched.
    pub draws: usize,
    /// wins / judgments.
    pub win_rate: Option<f64>,
    /// Its side total when it argued Pro.
    pub pro_total: Mean,
    /// Its side total when it argued Con.
    pub con_total: Mean,
    /// Fallacies judges found in its arguments, by type.
    pub fallacies: BTreeMap<Fallacy, usize>,
    /// How its arguments stood, by standing.
    pub standings: BTreeMap<Standing, usize>,
    /// Arguments of its that judges assessed.
    pub assessed_arguments: usize,
    /// Its cross-examination answers that conceded in full or in part.
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
    /// Pro's share of the decided judgments, with its Wilson interval.
    pub pro_share: Proportion,
    /// Mean Pro total minus mean Con total.
    pub mean_margin: Option<f64>,
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
    /// Each debating model.
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

/// The figures, when any round is a structured-debate round.
pub fn structured_figures(rounds: &[Round]) -> Option<StructuredFigures> {
    let ours: Vec<(&Round, &StructuredSetup)> = rounds
        .iter()
        .filter_map(|r| Some((r, r.structured()?)))
        .collect();
    if ours.is_empty() {
        return None;
    }
    let mut models: BTreeMap<&str, StructuredModel> = BTreeMap::new();
    let mut totals: BTreeMap<(&str, Side), Vec<f64>> = BTreeMap::new();
    let (mut pro_wins, mut con_wins, mut ties, mut judgments) = (0, 0, 0, 0);
    let (mut pro_clear_wins, mut con_clear_wins) = (0, 0);
    let mut bands: Vec<TotalBands> = Vec::new();
    let (mut pro_all, mut con_all) = (Vec::new(), Vec::new());
    let mut awaiting_review = 0;
    let (mut corrected_replies, mut fallback_replies, mut violations) = (0, 0, 0);
    for &(round, setup) in &ours {
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
            let m = model_of(round, side);
            let record = models.entry(m).or_insert_with(|| StructuredModel {
                model: m.to_string(),
                judgments: 0,
                wins: 0,
                clear_wins: 0,
                draws: 0,
                win_rate: None,
                pro_total: Mean::default(),
                con_total: Mean::default(),
                fallacies: BTreeMap::new(),
                standings: BTreeMap::new(),
                assessed_arguments: 0,
                concessions: Proportion::default(),
            });
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
            record.concessions = Proportion::new(
                record.concessions.hits + conceded,
                record.concessions.n + answers.len(),
            );
        }
        for v in verdicts(round) {
            judgments += 1;
            let margin = v.margin();
            let winner = margin.and_then(|m| m.winner());
            let clear = margin.is_some_and(|m| m.band == Band::ClearlyAhead);
            match winner {
                Some(Side::Pro) => {
                    pro_wins += 1;
                    pro_clear_wins += usize::from(clear);
                }
                Some(Side::Con) => {
                    con_wins += 1;
                    con_clear_wins += usize::from(clear);
                }
                None => ties += 1,
            }
            pro_all.extend(v.pro_total);
            con_all.extend(v.con_total);
            for side in Side::BOTH {
                let m = model_of(round, side);
                let total = match side {
                    Side::Pro => v.pro_total,
                    Side::Con => v.con_total,
                };
                totals.entry((m, side)).or_default().extend(total);
                let Some(record) = models.get_mut(m) else {
                    continue;
                };
                record.judgments += 1;
                match winner {
                    Some(w) if w == side => {
                        record.wins += 1;
                        record.clear_wins += usize::from(clear);
                    }
                    None => record.draws += 1,
                    _ => {}
                }
                for a in v
                    .assessments
                    .iter()
                    .filter(|a| a.arg_id.starts_with(side.prefix()))
                {
                    record.assessed_arguments += 1;
                    for f in &a.fallacies {
                        *record.fallacies.entry(*f).or_default() += 1;
                    }
                    if let Some(s) = a.standing {
                        *record.standings.entry(s).or_default() += 1;
                    }
                }
            }
        }
    }
    let models = models
        .into_values()
        .map(|mut m| {
            m.win_rate = (m.judgments > 0).then(|| m.wins as f64 / m.judgments as f64);
            let get = |side| {
                totals
                    .get(&(m.model.as_str(), side))
                    .map(|v| Mean::of(v))
                    .unwrap_or_default()
            };
            m.pro_total = get(Side::Pro);
            m.con_total = get(Side::Con);
            m
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
            pro_share: Proportion::new(pro_wins, pro_wins + con_wins),
            mean_margin: mean(&pro_all).zip(mean(&con_all)).map(|(p, c)| p - c),
        },
    })
}
