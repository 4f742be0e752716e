//! Judge panels across a tournament: how often they converged, how many deliberation rounds
//! they needed, how much agreement rose, Krippendorff's alpha over the judges' scores before
//! and after, and which judges moved toward the others (a judge that always yields is as
//! telling as one that never does). These figures hold for every protocol, since they are
//! computed over the panel's evaluations; each protocol adds its own ([`qa`]: the accuracy of
//! the panel and of each judge; [`structured`]: how far judges agree on each argument's
//! standing). Each panel's own summary (rounds, agreement, improvement, why it stopped, each
//! round's disagreements, final verdicts) is listed beside them ([`PanelExchange`]).
//! [`panel_section`] gathers a protocol's figures for the report; `analysis::figures` draws
//! them.

pub mod qa;
pub mod structured;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::domain::{Evaluation, PanelRecord, PanelState, PanelSummary, ProtocolKind, Round};

use super::stats::statistic::Statistic;
use super::stats::{AlphaParts, mean};
use super::tables::Cell;

/// One panel judge across the tournament.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeMovement {
    /// The persona.
    pub persona_id: String,
    /// Its model.
    pub model: String,
    /// Panels it deliberated in (with an evaluation before and after).
    pub deliberations: usize,
    /// Per panel, the mean over dimensions of how much closer its final score is to the
    /// other judges' initial mean than its initial score was (points; negative: away).
    pub toward_others: Cell,
    /// Per panel, the mean absolute change of its scores (points).
    pub moved: Cell,
    /// Panels in which its verdict changed.
    pub verdict_changes: usize,
}

/// One exchange's panel summary, as stored on its round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PanelExchange {
    /// The round.
    pub round_id: String,
    /// Its panel's summary.
    pub summary: PanelSummary,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The panel figures of a tournament.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PanelFigures {
    /// Rounds whose panel finished.
    pub panels: usize,
    /// Panels that converged (final agreement at or above the threshold).
    pub converged: usize,
    /// Panels that hit the deliberation round limit.
    pub round_limit: usize,
    /// Panels that stopped below the threshold with nothing disputed.
    #[serde(skip_serializing_if = "is_zero")]
    pub nothing_disputed: usize,
    /// Panels that stopped with fewer evaluations than `min_evaluations_for_debate`.
    #[serde(skip_serializing_if = "is_zero")]
    pub too_few_judges: usize,
    /// Panels whose deliberation round ran past `deliberation_timeout_s`.
    #[serde(skip_serializing_if = "is_zero")]
    pub timed_out: usize,
    /// How many panels needed each number of deliberation rounds.
    pub rounds_needed: BTreeMap<u32, usize>,
    /// Agreement after the independent evaluations.
    pub initial_agreement: Cell,
    /// Agreement after the last round.
    pub final_agreement: Cell,
    /// Final minus initial, over panels that deliberated.
    pub agreement_rise: Cell,
    /// Krippendorff's alpha (interval) over (exchange, dimension) units, independent
    /// evaluations: comparable with the judge-agreement table's alpha.
    pub alpha_initial: Statistic,
    /// The same over the final evaluations.
    pub alpha_final: Statistic,
    /// Each judge.
    pub judges: Vec<JudgeMovement>,
    /// Each finished panel's stored summary (records written before summaries have none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exchanges: Vec<PanelExchange>,
}

/// Each judge's evaluation after round 0 and after the last round.
pub(super) fn first_and_last(
    panel: &PanelRecord,
    persona: &str,
) -> (Option<Evaluation>, Option<Evaluation>) {
    let in_round = |n: usize| {
        panel.rounds[..=n]
            .iter()
            .rev()
            .find_map(|r| r.evaluations.iter().find(|e| e.persona_id == persona))
            .and_then(|e| e.evaluation.clone())
    };
    if panel.rounds.is_empty() {
        return (None, None);
    }
    (in_round(0), in_round(panel.rounds.len() - 1))
}

/// Per judge: toward-the-others and moved figures per panel, and verdict changes.
type Movement = (Vec<f64>, Vec<f64>, usize);

/// Alpha over (exchange, dimension) units, its interval resampling exchanges (the
/// dimensions of one panel move together).
fn alpha(units: &BTreeMap<(String, String), Vec<f64>>) -> Statistic {
    let mut by_exchange: BTreeMap<&str, AlphaParts> = BTreeMap::new();
    for ((exchange, _), scores) in units {
        by_exchange.entry(exchange).or_default().push(scores);
    }
    let parts: Vec<AlphaParts> = by_exchange.into_values().collect();
    Statistic::bootstrap(parts.len(), |draw| {
        let mut total = AlphaParts::default();
        for &e in draw {
            total.add(&parts[e], 1.0);
        }
        total.alpha()
    })
}

/// The panel figures of these rounds (`None` when no round has a finished panel).
pub fn panel_figures(rounds: &[Round]) -> Option<PanelFigures> {
    let finished: Vec<(&Round, &PanelRecord)> = rounds
        .iter()
        .filter_map(|r| r.panel.as_ref().map(|p| (r, p)))
        .filter(|(_, p)| p.state != PanelState::Evaluating)
        .collect();
    if finished.is_empty() {
        return None;
    }
    let mut rounds_needed = BTreeMap::new();
    let (mut initial, mut last, mut rise) = (Vec::new(), Vec::new(), Vec::new());
    let mut units_initial: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    let mut units_final: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    let mut movement: BTreeMap<(String, String), Movement> = BTreeMap::new();
    for (round, panel) in &finished {
        *rounds_needed
            .entry(panel.deliberation_rounds())
            .or_default() += 1;
        if let (Some(a), Some(b)) = (panel.initial_agreement, panel.final_agreement) {
            initial.push(a);
            last.push(b);
            if panel.deliberation_rounds() > 0 {
                rise.push(b - a);
            }
        }
        let evaluations: Vec<(&str, &str, Option<Evaluation>, Option<Evaluation>)> = panel
            .judges
            .iter()
            .map(|s| {
                let (first, last) = first_and_last(panel, &s.persona_id);
                (s.persona_id.as_str(), s.model.as_str(), first, last)
            })
            .collect();
        for (_, _, first, last) in &evaluations {
            for (units, e) in [(&mut units_initial, first), (&mut units_final, last)] {
                if let Some(e) = e {
                    for (d, v) in &e.scores {
                        units
                            .entry((round.id.clone(), d.clone()))
                            .or_default()
                            .push(*v);
                    }
                }
            }
        }
        if panel.deliberation_rounds() == 0 {
            continue;
        }
        for (persona, model, first, last) in &evaluations {
            let (Some(first), Some(last)) = (first, last) else {
                continue;
            };
            let (mut toward, mut moved) = (Vec::new(), Vec::new());
            for (d, v0) in &first.scores {
                let others: Vec<f64> = evaluations
                    .iter()
                    .filter(|(p, ..)| p != persona)
                    .filter_map(|(_, _, f, _)| f.as_ref()?.scores.get(d).copied())
                    .collect();
                let (Some(target), Some(v1)) = (mean(&others), last.scores.get(d)) else {
                    continue;
                };
                toward.push((v0 - target).abs() - (v1 - target).abs());
                moved.push((v1 - v0).abs());
            }
            let slot = movement
                .entry((persona.to_string(), model.to_string()))
                .or_default();
            if let (Some(t), Some(m)) = (mean(&toward), mean(&moved)) {
                slot.0.push(t);
                slot.1.push(m);
            }
            if first.verdict != last.verdict {
                slot.2 += 1;
            }
        }
    }
    let stopped = |state: PanelState| finished.iter().filter(|(_, p)| p.state == state).count();
    Some(PanelFigures {
        panels: finished.len(),
        converged: finished.iter().filter(|(_, p)| p.converged).count(),
        round_limit: stopped(PanelState::RoundLimit),
        nothing_disputed: stopped(PanelState::NothingDisputed),
        too_few_judges: stopped(PanelState::TooFewJudges),
        timed_out: stopped(PanelState::TimedOut),
        exchanges: finished
            .iter()
            .filter_map(|(r, p)| {
                Some(PanelExchange {
                    round_id: r.id.clone(),
                    summary: p.summary.clone()?,
                })
            })
            .collect(),
        rounds_needed,
        initial_agreement: Cell::of(&initial),
        final_agreement: Cell::of(&last),
        agreement_rise: Cell::of(&rise),
        alpha_initial: alpha(&units_initial),
        alpha_final: alpha(&units_final),
        judges: movement
            .into_iter()
            .map(
                |((persona_id, model), (toward, moved, changes))| JudgeMovement {
                    persona_id,
                    model,
                    deliberations: toward.len(),
                    toward_others: Cell::of(&toward),
                    moved: Cell::of(&moved),
                    verdict_changes: changes,
                },
            )
            .collect(),
    })
}

/// What a protocol's panels add to the figures every panel has.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "protocol", rename_all = "snake_case")]
pub enum ProtocolPanelFigures {
    /// The Ethics Bowl's panels are described by the shared figures alone.
    EthicsBowl,
    /// The accuracy of the panel's answer and of each judge's, before and after deliberation.
    QaDebate(qa::QaPanelAccuracy),
    /// How far judges agree on each argument's standing, before and after deliberation.
    StructuredDebate(structured::StandingFigures),
}

/// A protocol's judge panels, as the report shows them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PanelSection {
    /// The protocol.
    pub protocol: ProtocolKind,
    /// Convergence, rounds needed, agreement rise, alpha before and after, movement.
    pub figures: PanelFigures,
    /// The protocol's own figures.
    pub own: ProtocolPanelFigures,
}

/// The panel section of a protocol's report, over its rounds among `rounds` (`None` when no
/// round of that protocol has a finished panel).
pub fn panel_section(rounds: &[Round], protocol: ProtocolKind) -> Option<PanelSection> {
    let ours: Vec<Round> = rounds
        .iter()
        .filter(|r| r.kind() == protocol)
        .cloned()
        .collect();
    let figures = panel_figures(&ours)?;
    let own = match protocol {
        ProtocolKind::EthicsBowl => ProtocolPanelFigures::EthicsBowl,
        ProtocolKind::QaDebate => ProtocolPanelFigures::QaDebate(qa::panel_accuracy(&ours)),
        ProtocolKind::StructuredDebate => {
            ProtocolPanelFigures::StructuredDebate(structured::standing_figures(&ours))
        }
    };
    Some(PanelSection {
        protocol,
        figures,
        own,
    })
}
