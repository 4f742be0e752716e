//! Debate formats: each says which calls a round makes, which phases each call waits for,
//! what it asks, and how a judge's answer is read. The engine drives a round through the
//! [`Protocol`] trait and knows nothing of any format's prompts.

pub mod ethics_bowl;
pub mod judging;
pub mod panel;

use crate::domain::{Judgment, Phase, PhaseType, Round, speaker};
use crate::providers::ChatRequest;

/// A panel judge's place in a call: who, and in which deliberation round.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Seat {
    /// The persona id.
    pub judge_id: String,
    /// 0 for the independent evaluation.
    pub deliberation_round: u32,
}

/// One call a round makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The phase it produces.
    pub phase_type: PhaseType,
    /// The model that answers.
    pub model: String,
    /// The phases whose text its prompt contains; it starts when they have finished.
    pub depends_on: Vec<PhaseType>,
    /// The panel judge making the call, for panel calls (which may fail without stopping
    /// the round: the panel goes on without that judge).
    pub seat: Option<Seat>,
}

impl Step {
    /// A debater's or single judge's call.
    pub fn new(phase_type: PhaseType, model: &str, depends_on: &[PhaseType]) -> Self {
        Self {
            phase_type,
            model: model.to_string(),
            depends_on: depends_on.to_vec(),
            seat: None,
        }
    }

    /// Whether this stored phase is this step's answer.
    pub fn matches(&self, phase: &Phase) -> bool {
        phase.phase_type == self.phase_type
            && phase.model_id == self.model
            && phase.judge_id.as_deref() == self.seat.as_ref().map(|s| s.judge_id.as_str())
            && phase.deliberation_round == self.seat.as_ref().map(|s| s.deliberation_round)
    }

    /// Whether the round already holds this step's answer.
    pub fn is_done(&self, round: &Round) -> bool {
        round.phases.iter().any(|p| self.matches(p))
    }

    /// Whether every phase it needs has finished.
    pub fn is_ready(&self, round: &Round) -> bool {
        self.depends_on
            .iter()
            .all(|p| round.phase(*p, None).is_some())
    }

    /// Who makes the call, as people see it (see [`Phase::speaker`]).
    pub fn speaker(&self) -> String {
        speaker(
            &self.model,
            self.seat.as_ref().map(|s| s.judge_id.as_str()),
            self.seat.as_ref().map(|s| s.deliberation_round),
        )
    }
}

/// A protocol could not build a request (an input it needs is missing).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ProtocolError(pub String);

/// A debate format, as the engine sees it.
pub trait Protocol: Send + Sync {
    /// The name stored on every round (`ethics_bowl`).
    fn name(&self) -> &'static str;
    /// Every call of the round, with its dependencies.
    fn steps(&self, round: &Round) -> Vec<Step>;
    /// The request for one step, given the phases finished so far.
    fn request(&self, step: &Step, round: &Round) -> Result<ChatRequest, ProtocolError>;
    /// A judge's answer read into a judgment (raw text kept, status set).
    fn judge(&self, judge_model: &str, raw: &str) -> Judgment;
    /// What a judge panel scores, when this protocol can be judged by one.
    fn panel_rubric(&self) -> Option<panel::Rubric> {
        None
    }
    /// The exchange as panel judges read it (every phase they need must have run).
    fn panel_material(&self, round: &Round) -> Result<String, ProtocolError> {
        Err(ProtocolError(format!(
            "round {}: the {} protocol cannot be judged by a panel",
            round.id,
            self.name()
        )))
    }
}
