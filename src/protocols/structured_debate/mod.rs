//! The structured debate: two models take opposite sides of a decision proposition (Team A
//! Pro, Team B Con) through opening statements, cross-examination and closing statements,
//! each side at once in each round; then judges trace every argument.
//!
//! A reply that is not the JSON asked for gets one more try, with a correction prompt that
//! quotes the parse error (attempt 1 of the same turn); if that fails too, the text is kept
//! as a fallback (one argument, or one challenge per opposing argument, or the final
//! position) and waits in the review queue. The round's record of what each side said is
//! rebuilt from the replies after every phase, so resume and corrections see one truth.

pub mod briefing;
mod panel;
pub mod parse;
pub mod prompts;
pub mod simulated;
mod spec;

pub use spec::Spec;

use std::collections::HashMap;

use crate::domain::ScheduledRound;
use crate::domain::{
    Judgment, OwnPhase, ParseStatus, Phase, PhaseType, ProtocolKind, Reading, ReplyFallback, Round,
    RoundRecord, ScoreWeights, Side, SideRecord, StructuredPhase, StructuredSetup, Topic,
    TotalBands, Turn,
};
use crate::providers::{ChatRequest, Role, Turn as ChatTurn};

use super::judging::{JudgeAnswer, Quoted};
use super::layered::Layered;
use super::{Asked, PhaseRef, Protocol, ProtocolError, ReviewRequest, Step, blank_round};

/// The debate's rules from the tournament's `[structured]` table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StructuredRules {
    /// Weights of the side totals.
    pub weights: ScoreWeights,
    /// How a gap between the side totals reads.
    pub bands: TotalBands,
    /// Words allowed in a closing statement.
    pub closing_word_limit: usize,
}

impl Default for StructuredRules {
    fn default() -> Self {
        Self {
            weights: ScoreWeights::default(),
            bands: TotalBands::default(),
            closing_word_limit: 200,
        }
    }
}

/// The protocol, with the topics its rounds debate.
#[derive(Debug, Clone, Default)]
pub struct StructuredDebate {
    topics: HashMap<String, Topic>,
    rules: StructuredRules,
}

impl StructuredDebate {
    /// The protocol over these topics.
    pub fn new(topics: impl IntoIterator<Item = Topic>, rules: StructuredRules) -> Self {
        Self {
            topics: topics.into_iter().map(|t| (t.id.clone(), t)).collect(),
            rules,
        }
    }
}

/// The three debating stages, in order.
const STAGES: &[StructuredPhase] = StructuredPhase::ALL;

fn stage_number(stage: StructuredPhase) -> u32 {
    match stage {
        StructuredPhase::Opening => 1,
        StructuredPhase::CrossExamination => 2,
        StructuredPhase::Closing => 3,
    }
}

fn turn(stage: StructuredPhase, side: Side, attempt: u32) -> Turn {
    Turn {
        side: side.team(),
        round: stage_number(stage),
        attempt,
    }
}

fn reply(round: &Round, stage: StructuredPhase, side: Side, attempt: u32) -> Option<&Phase> {
    let t = turn(stage, side, attempt);
    round
        .phases
        .iter()
        .find(|p| p.phase_type == PhaseType::from(stage) && p.turn == Some(t))
}

/// The review key of a reply (`pro.opening`).
pub fn reply_key(stage: StructuredPhase, side: Side) -> String {
    format!("{}.{}", side.as_str(), stage.names().name)
}

/// The stage and side a review key names.
pub fn parse_reply_key(key: &str) -> Option<(StructuredPhase, Side)> {
    let (side, stage) = key.split_once('.')?;
    let side = Side::BOTH.into_iter().find(|s| s.as_str() == side)?;
    let stage = *STAGES.iter().find(|s| s.names().name == stage)?;
    Some((stage, side))
}

/// Whether a reply reads as the JSON its stage asks for (the error says why not).
fn readable(stage: StructuredPhase, text: &str, side: Side) -> Result<(), String> {
    match stage {
        StructuredPhase::Opening => parse::parse_opening(text, side).map(|_| ()),
        StructuredPhase::CrossExamination => parse::parse_cross(text, &[]).map(|_| ()),
        StructuredPhase::Closing => parse::parse_closing(text).map(|_| ()),
    }
}

/// What a side's reply in a stage settled to: the text to read (the first reply, the reply to
/// the correction, or a person's correction), or the free text that could not be read.
enum Settled<'a> {
    /// Not yet known (no reply, or a correction still to come).
    Pending,
    /// Readable text.
    Read(&'a str),
    /// Unreadable after the correction prompt.
    Fallback { raw: &'a str, error: String },
}

fn settle<'a>(round: &'a Round, stage: StructuredPhase, side: Side) -> Settled<'a> {
    let Some(first) = reply(round, stage, side, 0) else {
        return Settled::Pending;
    };
    if readable(stage, &first.response, side).is_ok() {
        return Settled::Read(&first.response);
    }
    let Some(second) = reply(round, stage, side, 1) else {
        return Settled::Pending;
    };
    let corrected = round
        .structured()
        .and_then(|s| s.fallbacks.iter().find(|f| f.key == reply_key(stage, side)))
        .and_then(|f| f.corrected_text.as_deref());
    match (corrected, readable(stage, &second.response, side)) {
        (Some(text), _) => Settled::Read(text),
        (None, Ok(())) => Settled::Read(&second.response),
        (None, Err(error)) => Settled::Fallback {
            raw: &second.response,
            error,
        },
    }
}

/// The reference a later stage waits for: the reply that settles this stage for this side.
fn settled_ref(round: &Round, stage: StructuredPhase, side: Side) -> PhaseRef {
    let first_failed =
        reply(round, stage, side, 0).is_some_and(|p| readable(stage, &p.response, side).is_err());
    PhaseRef {
        phase_type: stage.into(),
        turn: Some(turn(stage, side, u32::from(first_failed))),
    }
}

fn setup_of(round: &Round) -> Result<&StructuredSetup, ProtocolError> {
    round.structured().ok_or_else(|| {
        ProtocolError(format!(
            "round {}: no structured-debate setup in the round file",
            round.id
        ))
    })
}

fn argument_ids(setup: &StructuredSetup) -> Vec<String> {
    Side::BOTH
        .iter()
        .flat_map(|s| setup.side(*s).arguments.iter().map(|a| a.id.clone()))
        .collect()
}

fn model(round: &Round, side: Side) -> &str {
    match side {
        Side::Pro => &round.team_a_model,
        Side::Con => &round.team_b_model,
    }
}

impl StructuredDebate {
    /// The first request of a stage for a side.
    fn stage_request(setup: &StructuredSetup, stage: StructuredPhase, side: Side) -> ChatRequest {
        // The opening prompt is the same in every debate (the topic is in the system
        // prompt): shared whole. Later stages give their instructions first, then quote the
        // debate.
        let (prompt, name, schema) = match stage {
            StructuredPhase::Opening => (
                Layered::shared(prompts::opening_prompt(side)),
                "opening_statement",
                prompts::opening_schema(),
            ),
            StructuredPhase::CrossExamination => {
                let ids: Vec<String> = setup
                    .side(side.other())
                    .arguments
                    .iter()
                    .map(|a| a.id.clone())
                    .collect();
                (
                    prompts::cross_layers(setup.side(side), setup.side(side.other())),
                    "cross_examination",
                    prompts::cross_schema(&ids),
                )
            }
            StructuredPhase::Closing => (
                prompts::closing_layers(setup, side),
                "closing_statement",
                prompts::closing_schema(),
            ),
        };
        prompt
            .request(prompts::debater_system(&setup.topic, side))
            .with_schema(name, schema)
    }
}

impl Protocol for StructuredDebate {
    fn kind(&self) -> ProtocolKind {
        ProtocolKind::StructuredDebate
    }

    fn new_round(&self, s: &ScheduledRound) -> Result<Round, ProtocolError> {
        let topic = self.topics.get(&s.dilemma_id).ok_or_else(|| {
            ProtocolError(format!(
                "round {}: topic \"{}\" is not loaded",
                s.round_id, s.dilemma_id
            ))
        })?;
        Ok(blank_round(
            s,
            RoundRecord::StructuredDebate(Box::new(StructuredSetup {
                topic: topic.clone(),
                closing_word_limit: self.rules.closing_word_limit,
                weights: self.rules.weights,
                bands: self.rules.bands,
                pro: SideRecord::default(),
                con: SideRecord::default(),
                fallbacks: Vec::new(),
            })),
        ))
    }

    fn debate_steps(&self, round: &Round) -> Vec<Step> {
        let mut steps = Vec::new();
        let mut previous: Vec<PhaseRef> = Vec::new();
        for &stage in STAGES {
            let mut settled = Vec::new();
            for side in Side::BOTH {
                let m = model(round, side);
                steps.push(Step {
                    turn: Some(turn(stage, side, 0)),
                    depends_on: previous.clone(),
                    ..Step::new(stage, m, &[])
                });
                let r = settled_ref(round, stage, side);
                if r.turn.is_some_and(|t| t.attempt == 1) {
                    steps.push(Step {
                        turn: r.turn,
                        depends_on: vec![PhaseRef {
                            phase_type: stage.into(),
                            turn: Some(turn(stage, side, 0)),
                        }],
                        ..Step::new(stage, m, &[])
                    });
                }
                settled.push(r);
            }
            previous = settled;
        }
        steps
    }

    /// Both sides' closing statements, as they settled (after a correction, when one was
    /// needed).
    fn judged_after(&self, round: &Round) -> Vec<PhaseRef> {
        Side::BOTH
            .into_iter()
            .map(|side| settled_ref(round, StructuredPhase::Closing, side))
            .collect()
    }

    fn request(&self, step: &Step, round: &Round) -> Result<ChatRequest, ProtocolError> {
        let setup = setup_of(round)?;
        let stage = match step.asked::<StructuredPhase>(round, "the structured debate")? {
            Asked::Judgment => {
                return Ok(prompts::judge_layers_in(setup, Side::BOTH)
                    .request(prompts::judge_system())
                    .with_schema("debate_verdict", prompts::verdict_schema(setup))
                    .tagged(&round.id, "structured_judgment"));
            }
            Asked::Debate(stage) => stage,
        };
        let Some(t) = step.turn else {
            return Err(ProtocolError(format!(
                "round {}: a {} reply needs its turn",
                round.id,
                step.phase_type.as_str()
            )));
        };
        let side = Side::of(t.side);
        let tag = format!("structured_{}/{}", step.phase_type.as_str(), side.as_str());
        let mut request = Self::stage_request(setup, stage, side);
        if t.attempt > 0 {
            let first = reply(round, stage, side, 0).ok_or_else(|| {
                ProtocolError(format!("round {}: no first reply to correct", round.id))
            })?;
            let error = readable(stage, &first.response, side)
                .err()
                .unwrap_or_default();
            request.turns.push(ChatTurn {
                role: Role::Assistant,
                text: first.response.clone(),
            });
            request.turns.push(ChatTurn {
                role: Role::User,
                text: prompts::correction_prompt(&error),
            });
            return Ok(request.tagged(&round.id, format!("{tag}/correction")));
        }
        Ok(request.tagged(&round.id, tag))
    }

    /// Pro stays Pro (the motion defines the side): the judge reads Con's opening
    /// arguments, cross-examination, closing and broken rules before Pro's, and the argument
    /// ids in that order; the simulated judges' cast reads Con first.
    fn swapped_judge_request(
        &self,
        step: &Step,
        round: &Round,
    ) -> Result<ChatRequest, ProtocolError> {
        let setup = setup_of(round)?;
        step.asked::<StructuredPhase>(round, "the structured debate")?;
        let request = prompts::judge_layers_in(setup, [Side::Con, Side::Pro])
            .request(prompts::judge_system())
            .with_schema("debate_verdict", prompts::verdict_schema(setup))
            .tagged(&round.id, "structured_judgment");
        let cast = self.cast(round).map(|cast| crate::providers::RoundCast {
            read_first: crate::domain::Team::B,
            ..cast
        });
        Ok(request.with_cast(cast))
    }

    /// Nothing to map: the judge scored Pro and Con by name.
    fn swapped_back(&self, judgment: Judgment) -> Judgment {
        judgment
    }

    fn judge_prompt_version(&self) -> &'static str {
        super::judging::prompt_version::STRUCTURED_DEBATE_JUDGE
    }

    fn judge(&self, round: &Round, judge_model: &str, answer: JudgeAnswer<'_>) -> Judgment {
        let own = parse::own_verdict(answer, &Quoted::of(round));
        let (verdict, problems, status) = match (round.structured(), own) {
            (Some(_), Err(reason)) => (None, vec![reason], ParseStatus::Failed),
            (Some(setup), Ok(own)) => {
                let ids = argument_ids(setup);
                let (verdict, mut problems) = parse::parse_verdict(&own.text, &ids);
                let status = match &verdict {
                    None => ParseStatus::Failed,
                    Some(v) => {
                        let complete = ids.iter().all(|id| {
                            v.assessments.iter().any(|a| {
                                &a.arg_id == id
                                    && setup.weights.score(a).is_some()
                                    && a.standing.is_some()
                            })
                        });
                        if complete {
                            ParseStatus::Parsed
                        } else if v.assessments.is_empty() {
                            ParseStatus::Failed
                        } else {
                            ParseStatus::Partial
                        }
                    }
                };
                own.explain(status == ParseStatus::Parsed, &mut problems);
                let verdict = verdict.map(|mut v| {
                    v.compute_totals(&setup.weights, &setup.bands);
                    Box::new(v)
                });
                (verdict, problems, status)
            }
            (None, _) => (
                None,
                vec!["the round has no structured-debate setup".into()],
                ParseStatus::Failed,
            ),
        };
        Judgment {
            judge_model: judge_model.to_string(),
            persona_id: None,
            reading: Reading::Verdict(verdict),
            team_a_justification: String::new(),
            team_b_justification: String::new(),
            overall_analysis: String::new(),
            parse_status: status,
            problems,
            raw_response: answer.text.to_string(),
            corrected_text: None,
            view: None,
        }
    }

    fn after_phase(&self, round: &mut Round) {
        let Some(mut setup) = round.structured().cloned() else {
            return;
        };
        let corrected: Vec<ReplyFallback> = setup
            .fallbacks
            .iter()
            .filter(|f| f.corrected_text.is_some())
            .cloned()
            .collect();
        setup.pro = SideRecord::default();
        setup.con = SideRecord::default();
        setup.fallbacks = Vec::new();
        for &stage in STAGES {
            for side in Side::BOTH {
                let opponent_ids: Vec<String> = setup
                    .side(side.other())
                    .arguments
                    .iter()
                    .map(|a| a.id.clone())
                    .collect();
                let settled = settle(round, stage, side);
                let (text, fallback) = match settled {
                    Settled::Pending => continue,
                    Settled::Read(text) => (text, None),
                    Settled::Fallback { raw, error } => (raw, Some(error)),
                };
                let key = reply_key(stage, side);
                if let Some(error) = &fallback {
                    setup.fallbacks.push(ReplyFallback {
                        key: key.clone(),
                        error: error.clone(),
                        raw: text.to_string(),
                        corrected_text: None,
                    });
                } else if let Some(c) = corrected.iter().find(|f| f.key == key) {
                    setup.fallbacks.push(c.clone());
                }
                let limit = setup.closing_word_limit;
                let record = setup.side_mut(side);
                match (stage, fallback.is_some()) {
                    (StructuredPhase::Opening, false) => {
                        if let Ok((arguments, warnings)) = parse::parse_opening(text, side) {
                            record.arguments = arguments;
                            record.warnings.extend(warnings);
                        }
                    }
                    (StructuredPhase::Opening, true) => {
                        record.arguments = parse::fallback_opening(text, side);
                        record
                            .warnings
                            .push("the opening was not JSON: kept as one argument".into());
                    }
                    (StructuredPhase::CrossExamination, false) => {
                        if let Ok((responses, violations)) = parse::parse_cross(text, &opponent_ids)
                        {
                            record.cross_examination = responses;
                            record.violations.extend(violations);
                        }
                    }
                    (StructuredPhase::CrossExamination, true) => {
                        record.cross_examination = parse::fallback_cross(text, &opponent_ids);
                        record.violations.push(
                            "the cross-examination was not JSON: kept as one challenge of every argument".into(),
                        );
                    }
                    (StructuredPhase::Closing, false) => {
                        if let Ok((closing, words)) = parse::parse_closing(text) {
                            record.closing = Some(closing);
                            record.closing_words = words;
                        }
                    }
                    (StructuredPhase::Closing, true) => {
                        let closing = parse::fallback_closing(text);
                        record.closing_words = parse::closing_words(&closing);
                        record.closing = Some(closing);
                    }
                }
                if stage == StructuredPhase::Closing && record.closing_words > limit {
                    record.violations.push(format!(
                        "the closing statement is {} words, over the limit of {limit}",
                        record.closing_words
                    ));
                }
            }
        }
        round.record = RoundRecord::StructuredDebate(Box::new(setup));
    }

    fn review_requests(&self, round: &Round) -> Vec<ReviewRequest> {
        round
            .structured()
            .into_iter()
            .flat_map(|s| &s.fallbacks)
            .filter(|f| f.corrected_text.is_none())
            .map(|f| ReviewRequest {
                key: f.key.clone(),
                raw: f.raw.clone(),
                problems: vec![format!(
                    "not the JSON asked for, even after a correction prompt: {}",
                    f.error
                )],
            })
            .collect()
    }

    fn correct_reply(&self, round: &mut Round, key: &str, text: &str) -> Result<(), String> {
        let (stage, side) =
            parse_reply_key(key).ok_or_else(|| format!("\"{key}\" names no reply"))?;
        let setup = round
            .structured_mut()
            .ok_or("the round has no structured-debate setup")?;
        let fallback = setup
            .fallbacks
            .iter_mut()
            .find(|f| f.key == key)
            .ok_or_else(|| format!("the {key} reply does not wait for review"))?;
        readable(stage, text, side)
            .map_err(|e| format!("the corrected text is still not readable: {e}"))?;
        fallback.corrected_text = Some(text.to_string());
        self.after_phase(round);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
