//! Debate formats: each says which calls a round makes, which phases each call waits for,
//! what it asks, and how a judge's answer is read. The engine drives a round through the
//! [`Protocol`] trait and knows nothing of any format's prompts.

pub mod ethics_bowl;
pub mod judging;

use crate::domain::{Judgment, PhaseType, Round};
use crate::providers::ChatRequest;

/// One call a round makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The phase it produces.
    pub phase_type: PhaseType,
    /// The model that answers.
    pub model: String,
    /// The phases whose text its prompt contains; it starts when they have finished.
    pub depends_on: Vec<PhaseType>,
}

impl Step {
    /// Whether the round already holds this step's answer.
    pub fn is_done(&self, round: &Round) -> bool {
        round.phase(self.phase_type, Some(&self.model)).is_some()
    }

    /// Whether every phase it needs has finished.
    pub fn is_ready(&self, round: &Round) -> bool {
        self.depends_on
            .iter()
            .all(|p| round.phase(*p, None).is_some())
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
}
