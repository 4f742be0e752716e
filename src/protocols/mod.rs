//! Debate formats: each says which calls a round makes, which phases each call waits for,
//! what it asks, and how a judge's answer is read. The engine drives a round through the
//! [`Protocol`] trait and asks everything else of a protocol through its [`ProtocolSpec`],
//! found by kind in the registry ([`spec`]); it knows nothing of any format's prompts.

pub mod ethics_bowl;
pub mod inputs;
pub mod judging;
pub mod layered;
pub mod lenient_json;
pub mod panel;
pub mod qa_debate;
pub mod quoting;
mod registry;
mod rotation;
pub mod schedule;
mod spec;
pub mod strategy;
pub mod structured_debate;

pub use registry::{extra_folders, simulated_behaviours, spec, specs, stored};
pub use spec::{ProtocolSpec, Rejudging, RoundExtra, match_outcome};

use crate::domain::{
    JudgeView, JudgingPhase, Judgment, OwnPhase, Phase, PhaseType, ProtocolKind, Round,
    RoundRecord, RoundStatus, ScheduledRound, Turn, now_rfc3339, speaker,
};
use crate::providers::{ChatRequest, RoundCast};
use judging::JudgeAnswer;

/// A panel judge's place in a call: who, and in which deliberation round.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Seat {
    /// The persona id.
    pub judge_id: String,
    /// 0 for the independent evaluation.
    pub deliberation_round: u32,
}

/// A phase a step waits for: of this type, and when a turn is given, of that turn only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhaseRef {
    /// The phase type.
    pub phase_type: PhaseType,
    /// The debater and round of arguments, for arguments.
    pub turn: Option<Turn>,
}

impl From<PhaseType> for PhaseRef {
    fn from(phase_type: PhaseType) -> Self {
        Self {
            phase_type,
            turn: None,
        }
    }
}

impl PhaseRef {
    /// Whether a stored phase is the one referred to.
    fn matches(&self, phase: &Phase) -> bool {
        phase.phase_type == self.phase_type && self.turn.is_none_or(|t| phase.turn == Some(t))
    }

    /// Whether the round holds the phase referred to.
    pub fn is_in(&self, round: &Round) -> bool {
        round.phases.iter().any(|p| self.matches(p))
    }
}

/// One call a round makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The phase it produces.
    pub phase_type: PhaseType,
    /// The model that answers.
    pub model: String,
    /// The phases whose text its prompt contains; it starts when they have finished.
    pub depends_on: Vec<PhaseRef>,
    /// The panel judge making the call, for panel calls (which may fail without stopping
    /// the round: the panel goes on without that judge).
    pub seat: Option<Seat>,
    /// The debater and round of arguments, for question-answer arguments.
    pub turn: Option<Turn>,
    /// 0 for a judge's first call; 1 for the correction turn after an answer that was not a
    /// complete judgment (see [`Phase::correction`]).
    pub correction: u32,
}

/// What a step of a protocol's own asks, as its [`Protocol::request`] builds it: a single
/// judge's judgment, or one of the protocol's debating phases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked<P> {
    /// A single judge's judgment (panel calls are the panel's to build).
    Judgment,
    /// One of the protocol's own phases.
    Debate(P),
}

impl Step {
    /// A debater's or single judge's call, waiting for the phases it quotes.
    pub fn new<P: Into<PhaseType> + Copy>(phase_type: P, model: &str, depends_on: &[P]) -> Self {
        Self {
            phase_type: phase_type.into(),
            model: model.to_string(),
            depends_on: depends_on
                .iter()
                .map(|p| PhaseRef::from((*p).into()))
                .collect(),
            seat: None,
            turn: None,
            correction: 0,
        }
    }

    /// What the step asks of protocol `P` (called `protocol` in errors): a panel's call, or
    /// another protocol's phase, is an error.
    pub fn asked<P: OwnPhase>(
        &self,
        round: &Round,
        protocol: &str,
    ) -> Result<Asked<P>, ProtocolError> {
        match self.phase_type {
            PhaseType::Judging(JudgingPhase::Judgment) => Ok(Asked::Judgment),
            PhaseType::Judging(JudgingPhase::PanelEvaluation | JudgingPhase::Deliberation) => {
                Err(ProtocolError(format!(
                    "round {}: panel calls are built by the panel",
                    round.id
                )))
            }
            PhaseType::Debate(_) => self.phase_type.own().map(Asked::Debate).ok_or_else(|| {
                ProtocolError(format!(
                    "round {}: {protocol} has no {} phase",
                    round.id,
                    self.phase_type.as_str()
                ))
            }),
        }
    }

    /// Whether this stored phase is this step's answer.
    pub fn matches(&self, phase: &Phase) -> bool {
        phase.phase_type == self.phase_type
            && phase.model_id == self.model
            && phase.judge_id.as_deref() == self.seat.as_ref().map(|s| s.judge_id.as_str())
            && phase.deliberation_round == self.seat.as_ref().map(|s| s.deliberation_round)
            && phase.turn == self.turn
            && phase.correction == self.correction
    }

    /// Whether the round already holds this step's answer.
    pub fn is_done(&self, round: &Round) -> bool {
        round.phases.iter().any(|p| self.matches(p))
    }

    /// Whether every phase it needs has finished.
    pub fn is_ready(&self, round: &Round) -> bool {
        self.depends_on.iter().all(|r| r.is_in(round))
    }

    /// Who makes the call, as people see it (see [`Phase::speaker`]).
    pub fn speaker(&self) -> String {
        let who = speaker(
            &self.model,
            self.seat.as_ref().map(|s| s.judge_id.as_str()),
            self.seat.as_ref().map(|s| s.deliberation_round),
            self.turn,
        );
        if self.correction > 0 {
            format!("{who} · correction")
        } else {
            who
        }
    }
}

/// A scheduled round before any call, with its protocol's record: what every protocol's
/// rounds start from.
pub fn blank_round(s: &ScheduledRound, record: RoundRecord) -> Round {
    Round {
        id: s.round_id.clone(),
        dilemma_id: s.dilemma_id.clone(),
        repetition: s.repetition,
        team_a_model: s.team_a.clone(),
        team_b_model: s.team_b.clone(),
        judge_model: s.judges.first().cloned().unwrap_or_default(),
        judge_models: s.judges.clone(),
        phases: Vec::new(),
        scores: None,
        judgments: Vec::new(),
        status: RoundStatus::Incomplete,
        error: None,
        earlier_errors: Vec::new(),
        panel: None,
        record,
        timestamp: now_rfc3339(),
    }
}

/// A scheduled round of the default protocol before any call: what unit tests of code that
/// reads any protocol's rounds start from.
#[cfg(test)]
pub(crate) fn example_round(s: &ScheduledRound) -> Round {
    blank_round(s, RoundRecord::EthicsBowl)
}

/// What a judge saw in the call stored as `phase`: whether the protocol showed it the model
/// names, the temperature the phase records as sent, and its prompt's version.
pub(crate) fn judge_view(
    protocol: &dyn Protocol,
    phase: &Phase,
    prompt_version: &'static str,
) -> JudgeView {
    JudgeView {
        judge_sees_model_names: protocol.judge_sees_model_names(),
        temperature: phase.temperature,
        prompt_version: prompt_version.to_string(),
        sides_swapped: false,
    }
}

/// A reply (not a judgment) that waits for a person: a debater's answer the protocol could
/// not read, kept as free text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewRequest {
    /// What names it in the review queue and in corrections (`pro.opening`).
    pub key: String,
    /// The reply as given.
    pub raw: String,
    /// Why it waits.
    pub problems: Vec<String>,
}

/// A protocol could not build a request (an input it needs is missing).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProtocolError(pub String);

/// A debate format, as the engine sees it. How it is judged (single judges or a panel) is a
/// strategy apart (see [`strategy`]); the protocol says what its judges read and, through
/// [`panel::PanelJudged`], what a panel scores.
pub trait Protocol: panel::PanelJudged + Send + Sync + std::fmt::Debug {
    /// Which protocol this is (stored on every round).
    fn kind(&self) -> ProtocolKind;
    /// A scheduled round before any call, with what this protocol records about it.
    fn new_round(&self, scheduled: &ScheduledRound) -> Result<Round, ProtocolError>;
    /// Every debater's call of the round, with its dependencies (judges come from the
    /// judging strategy).
    fn debate_steps(&self, round: &Round) -> Vec<Step>;
    /// The phases a judge reads: every judging call waits for them.
    fn judged_after(&self, round: &Round) -> Vec<PhaseRef>;
    /// The request for one step (a debater's, or a single judge's), given the phases
    /// finished so far.
    fn request(&self, step: &Step, round: &Round) -> Result<ChatRequest, ProtocolError>;
    /// Who plays the round, for the simulated provider (see
    /// [`crate::providers::RoundCast`]): by default Team A against Team B, Team A read first,
    /// when the round has both.
    fn cast(&self, round: &Round) -> Option<RoundCast> {
        (!round.team_a_model.is_empty() && !round.team_b_model.is_empty()).then(|| RoundCast {
            round: round.id.clone(),
            ..RoundCast::teams(&round.team_a_model, &round.team_b_model)
        })
    }
    /// A judge's answer read into a judgment (raw text kept, status set): its own part only,
    /// judgments quoted from the round's debaters left out (see [`judging::own`]).
    fn judge(&self, round: &Round, judge_model: &str, answer: JudgeAnswer<'_>) -> Judgment;
    /// Whether its judges' prompts (single and panel) name the debaters' models: the Ethics
    /// Bowl's `judge_sees_model_names`; the other protocols' judges read only their sides'
    /// names (Debater A and B, Pro and Con).
    fn judge_sees_model_names(&self) -> bool {
        false
    }
    /// The version of its single judges' prompt template (see
    /// [`judging::prompt_version`]).
    fn judge_prompt_version(&self) -> &'static str;
    /// A single judge's request with the round's two sides exchanged in its prompt, and its
    /// cast (see [`Protocol::cast`]) exchanged alike, for `rejudge --swap-sides`: how often a
    /// verdict follows the place a side is shown in rather than what it said. Each protocol
    /// says what it exchanges (its page in `docs/`).
    fn swapped_judge_request(
        &self,
        step: &Step,
        round: &Round,
    ) -> Result<ChatRequest, ProtocolError>;
    /// A judgment read from a [`Protocol::swapped_judge_request`] prompt, mapped back to the
    /// sides as played (the scores given to the side shown as Team A become the scores of
    /// the team that was shown so), so a stored judgment always means the original sides.
    fn swapped_back(&self, judgment: Judgment) -> Judgment;
    /// Why the round's sides cannot be exchanged before a judge, when they cannot (a
    /// question-answer baseline has no two sides); `rejudge --swap-sides` skips it.
    fn cannot_swap(&self, _round: &Round) -> Option<String> {
        None
    }
    /// Updates what the protocol derives from the phases (quote counts, …) after a phase
    /// has been added, before the round is stored.
    fn after_phase(&self, _round: &mut Round) {}
    /// Debaters' replies that wait for a person (judgments are reviewed on their own).
    fn review_requests(&self, _round: &Round) -> Vec<ReviewRequest> {
        Vec::new()
    }
    /// Stores a person's corrected text for a reply in the review queue.
    fn correct_reply(&self, _round: &mut Round, key: &str, _text: &str) -> Result<(), String> {
        Err(format!(
            "the {} protocol has no reply \"{key}\" to correct",
            self.kind()
        ))
    }
}
