//! Judge panels that deliberate when they disagree (after the in-group debate of MAJ-EVAL,
//! Chen et al. 2025), as a judging mode any protocol with a rubric can use.
//!
//! Each judge evaluates the exchange alone (round 0, concurrently). When the panel's
//! agreement is below the threshold, every judge still in the panel sees the others'
//! positions on what is disputed and answers again, until agreement reaches the threshold,
//! nothing is disputed, or the round limit is hit. The panel's record is a pure function of
//! the round's stored panel phases (and hand corrections), so a resumed round picks up
//! exactly where the last stored answer left it, and no answer on disk is asked for again.

mod agreement;
mod evaluation;
mod prompts;

use std::collections::HashMap;

pub use agreement::{aggregate, agreement, disagreements};
pub use evaluation::{dimension_scores, read_evaluation};
pub use prompts::{DeliberationContext, OtherJudge, context_text};

use crate::config::{PanelConfig, PanelJudgeConfig};
use crate::domain::{
    Evaluation, Judgment, PanelRecord, PanelRound, PanelSeat, PanelState, ParseStatus, Phase,
    PhaseType, Round, SeatOutcome, SeatResult,
};
use crate::providers::ChatRequest;

use super::{Protocol, ProtocolError, Seat, Step};

/// What a protocol's judges score: its dimensions, their scale and the verdicts.
#[derive(Debug, Clone, PartialEq)]
pub struct Rubric {
    /// Dimension keys, in order (`team_a.principle_articulation`, …).
    pub dimensions: Vec<String>,
    /// The lowest and highest score (the agreement is normalised by their distance).
    pub scale: (f64, f64),
    /// The verdicts a judge may give (`team_a`, `team_b`, `tie`).
    pub verdicts: Vec<String>,
    /// The criteria described for judges.
    pub criteria: String,
    /// The JSON fields holding the scores, as the answer format shows them.
    pub score_fields: String,
}

impl Rubric {
    /// The scale's range (9 for 1–10).
    pub fn scale_span(&self) -> f64 {
        (self.scale.1 - self.scale.0).max(f64::MIN_POSITIVE)
    }
}

/// What a panel judge reads: the exchange, and the rubric it scores.
#[derive(Debug, Clone)]
pub struct PanelBrief {
    /// The exchange as judges see it.
    pub material: String,
    /// The rubric.
    pub rubric: Rubric,
}

/// A panel, as the engine drives it.
#[derive(Debug, Clone)]
pub struct Panel {
    config: PanelConfig,
}

/// A judge's answer in one panel round, as stored.
struct Answer<'a> {
    phase: &'a Phase,
    corrected: Option<&'a Judgment>,
}

impl Panel {
    /// The panel of this configuration.
    pub fn new(config: PanelConfig) -> Self {
        Self { config }
    }

    /// The panel that produced a stored record, for settling it again after a hand
    /// correction (personas are not needed to settle, only to ask).
    pub fn of_record(record: &PanelRecord) -> Self {
        Self::new(PanelConfig {
            judges: record
                .judges
                .iter()
                .map(|s| PanelJudgeConfig {
                    persona_id: s.persona_id.clone(),
                    model: s.model.clone(),
                    persona: String::new(),
                    weight: s.weight,
                })
                .collect(),
            max_deliberation_rounds: record.max_deliberation_rounds,
            convergence_threshold: record.convergence_threshold,
            dimension_disagreement_threshold: record.dimension_disagreement_threshold,
        })
    }

    fn seats(&self) -> Vec<PanelSeat> {
        self.config
            .judges
            .iter()
            .map(|j| PanelSeat {
                persona_id: j.persona_id.clone(),
                model: j.model.clone(),
                weight: j.weight,
            })
            .collect()
    }

    fn step(&self, seat: &PanelSeat, round: u32, exchange: &[PhaseType]) -> Step {
        Step {
            phase_type: if round == 0 {
                PhaseType::PanelEvaluation
            } else {
                PhaseType::Deliberation
            },
            model: seat.model.clone(),
            depends_on: exchange.to_vec(),
            seat: Some(Seat {
                judge_id: seat.persona_id.clone(),
                deliberation_round: round,
            }),
        }
    }

    /// The panel's record from the round's stored panel phases, and every panel call the
    /// round has made or must make next (`exchange`: the phases judges read).
    pub fn settle(
        &self,
        round: &Round,
        protocol: &dyn Protocol,
        exchange: &[PhaseType],
    ) -> Result<(PanelRecord, Vec<Step>), ProtocolError> {
        let rubric = protocol.panel_rubric().ok_or_else(|| {
            ProtocolError(format!(
                "the {} protocol cannot be judged by a panel",
                protocol.name()
            ))
        })?;
        let seats = self.seats();
        let mut answers: HashMap<(&str, u32), Answer<'_>> = HashMap::new();
        for p in &round.phases {
            if let (Some(judge), Some(r)) = (&p.judge_id, p.deliberation_round) {
                let corrected = round.judgments.iter().find(|j| {
                    j.persona_id.as_deref() == Some(judge.as_str())
                        && j.parse_status == ParseStatus::CorrectedByHand
                        && j.raw_response == p.response
                });
                answers.insert(
                    (judge.as_str(), r),
                    Answer {
                        phase: p,
                        corrected,
                    },
                );
            }
        }
        let mut current: HashMap<&str, Evaluation> = HashMap::new();
        let mut failed: Vec<&str> = Vec::new();
        let mut rounds: Vec<PanelRound> = Vec::new();
        let mut steps = Vec::new();
        let mut state = PanelState::Evaluating;
        for number in 0..=self.config.max_deliberation_rounds {
            let asked: Vec<&PanelSeat> = seats
                .iter()
                .filter(|s| !failed.contains(&s.persona_id.as_str()))
                .collect();
            let mut results = Vec::new();
            let mut pending = false;
            for seat in &asked {
                steps.push(self.step(seat, number, exchange));
                let Some(answer) = answers.get(&(seat.persona_id.as_str(), number)) else {
                    pending = true;
                    continue;
                };
                let id = seat.persona_id.as_str();
                if let Some(error) = &answer.phase.error {
                    failed.push(id);
                    current.remove(id);
                    results.push(SeatResult {
                        persona_id: id.to_string(),
                        outcome: SeatOutcome::Failed,
                        evaluation: None,
                        problems: vec![error.clone()],
                    });
                    continue;
                }
                let judgment = match answer.corrected {
                    Some(j) => j.clone(),
                    None => protocol.judge(&seat.model, &answer.phase.response),
                };
                let (evaluation, mut problems) =
                    read_evaluation(&answer.phase.response, &judgment, &rubric.verdicts);
                problems.splice(0..0, judgment.problems.iter().cloned());
                let outcome = match judgment.parse_status {
                    ParseStatus::Parsed => SeatOutcome::Evaluated,
                    ParseStatus::CorrectedByHand => SeatOutcome::CorrectedByHand,
                    ParseStatus::Partial => SeatOutcome::Partial,
                    ParseStatus::Failed => SeatOutcome::Unparsed,
                };
                if outcome != SeatOutcome::Unparsed {
                    current.insert(id, evaluation);
                }
                results.push(SeatResult {
                    persona_id: id.to_string(),
                    outcome,
                    evaluation: current.get(id).cloned(),
                    problems,
                });
            }
            let positions: Vec<(&str, &Evaluation)> = seats
                .iter()
                .filter_map(|s| {
                    current
                        .get(s.persona_id.as_str())
                        .map(|e| (s.persona_id.as_str(), e))
                })
                .collect();
            let agreement = agreement(&positions, &rubric);
            let disputes = disagreements(
                &positions,
                &rubric,
                self.config.dimension_disagreement_threshold,
            );
            rounds.push(PanelRound {
                number,
                evaluations: results,
                agreement,
                disagreements: if pending {
                    Vec::new()
                } else {
                    disputes.clone()
                },
            });
            if pending {
                break;
            }
            state = if positions.len() < 2 {
                PanelState::TooFewJudges
            } else if agreement.is_some_and(|a| a.overall >= self.config.convergence_threshold)
                || disputes.is_empty()
            {
                PanelState::Converged
            } else if number == self.config.max_deliberation_rounds {
                PanelState::RoundLimit
            } else {
                PanelState::Evaluating
            };
            if state != PanelState::Evaluating {
                break;
            }
        }
        let weighted: Vec<(&PanelSeat, &Evaluation)> = seats
            .iter()
            .filter_map(|s| current.get(s.persona_id.as_str()).map(|e| (s, e)))
            .collect();
        let record = PanelRecord {
            judges: seats.clone(),
            max_deliberation_rounds: self.config.max_deliberation_rounds,
            convergence_threshold: self.config.convergence_threshold,
            dimension_disagreement_threshold: self.config.dimension_disagreement_threshold,
            initial_agreement: rounds
                .first()
                .filter(|_| rounds.len() > 1 || state != PanelState::Evaluating)
                .and_then(|r| r.agreement)
                .map(|a| a.overall),
            final_agreement: (state != PanelState::Evaluating)
                .then(|| rounds.last().and_then(|r| r.agreement).map(|a| a.overall))
                .flatten(),
            converged: state == PanelState::Converged,
            aggregate: (state != PanelState::Evaluating)
                .then(|| aggregate(&weighted))
                .flatten(),
            state,
            rounds,
        };
        Ok((record, steps))
    }

    /// The request for one panel call, given the round's stored phases.
    pub fn request(
        &self,
        step: &Step,
        round: &Round,
        protocol: &dyn Protocol,
        exchange: &[PhaseType],
    ) -> Result<ChatRequest, ProtocolError> {
        let seat = step
            .seat
            .as_ref()
            .ok_or_else(|| ProtocolError("not a panel call".into()))?;
        let judge = self
            .config
            .judges
            .iter()
            .find(|j| j.persona_id == seat.judge_id)
            .ok_or_else(|| ProtocolError(format!("no panel judge \"{}\"", seat.judge_id)))?;
        let brief = PanelBrief {
            material: protocol.panel_material(round)?,
            rubric: protocol.panel_rubric().ok_or_else(|| {
                ProtocolError(format!("the {} protocol has no rubric", protocol.name()))
            })?,
        };
        let user = if seat.deliberation_round == 0 {
            prompts::evaluation_prompt(&brief)
        } else {
            let (record, _) = self.settle(round, protocol, exchange)?;
            let previous = record
                .rounds
                .iter()
                .find(|r| r.number + 1 == seat.deliberation_round)
                .ok_or_else(|| {
                    ProtocolError(format!(
                        "round {}: deliberation {} before its previous round",
                        round.id, seat.deliberation_round
                    ))
                })?;
            let agreement = previous.agreement.ok_or_else(|| {
                ProtocolError(format!(
                    "round {}: no evaluations to deliberate on",
                    round.id
                ))
            })?;
            let in_force = |id: &str| {
                record.rounds[..=previous.number as usize]
                    .iter()
                    .rev()
                    .find_map(|r| r.evaluations.iter().find(|e| e.persona_id == id))
                    .and_then(|e| e.evaluation.as_ref())
            };
            let others = self
                .config
                .judges
                .iter()
                .filter(|j| j.persona_id != seat.judge_id)
                .filter_map(|j| {
                    Some(OtherJudge {
                        persona_id: &j.persona_id,
                        evaluation: in_force(&j.persona_id)?,
                    })
                })
                .collect();
            prompts::deliberation_prompt(
                &brief,
                &DeliberationContext {
                    round: seat.deliberation_round,
                    agreement,
                    threshold: self.config.convergence_threshold,
                    disagreements: &previous.disagreements,
                    own: in_force(&seat.judge_id),
                    others,
                },
            )
        };
        Ok(ChatRequest::new(
            prompts::system_prompt(judge, self.config.judges.len()),
            user,
        )
        .tagged(
            &round.id,
            format!("{}/{}", step.phase_type.as_str(), seat.judge_id),
        ))
    }

    /// Brings the round's panel record and judgments up to date with its stored phases:
    /// each judge's latest answer becomes its judgment (so unreadable ones reach the review
    /// queue), and `scores` holds the weighted aggregate. Returns the judgments that changed.
    pub fn apply(
        &self,
        round: &mut Round,
        protocol: &dyn Protocol,
        exchange: &[PhaseType],
    ) -> Result<Vec<Judgment>, ProtocolError> {
        let (record, _) = self.settle(round, protocol, exchange)?;
        let mut changed = Vec::new();
        for seat in &record.judges {
            let latest = round
                .phases
                .iter()
                .filter(|p| p.judge_id.as_deref() == Some(seat.persona_id.as_str()))
                .filter(|p| p.error.is_none())
                .max_by_key(|p| p.deliberation_round);
            let Some(phase) = latest else { continue };
            let existing = round
                .judgments
                .iter()
                .find(|j| j.persona_id.as_deref() == Some(seat.persona_id.as_str()));
            if existing.is_some_and(|j| j.raw_response == phase.response) {
                continue;
            }
            let mut judgment = protocol.judge(&seat.model, &phase.response);
            judgment.persona_id = Some(seat.persona_id.clone());
            changed.push(judgment);
        }
        round.panel = Some(record);
        for j in &changed {
            round.put_judgment(j.clone());
        }
        if changed.is_empty() {
            // The aggregate may have moved even when no judgment did.
            round.scores = round
                .panel
                .as_ref()
                .and_then(PanelRecord::aggregate_judgment);
            if let Some(s) = &round.scores {
                round.judge_model = s.judge_model.clone();
            }
        }
        Ok(changed)
    }
}
