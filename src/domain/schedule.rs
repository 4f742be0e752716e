//! One round of a tournament's schedule, as planned before any call: what the engine, the
//! protocols and the manifest share.

use serde::{Deserialize, Serialize};

/// One round of the schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduledRound {
    /// The round's id (its file name).
    pub round_id: String,
    /// The dilemma.
    pub dilemma_id: String,
    /// Which repetition (1-based).
    pub repetition: u32,
    /// Team A.
    pub team_a: String,
    /// Team B.
    pub team_b: String,
    /// Its judges.
    pub judges: Vec<String>,
    /// The question-answer format (debate, consultancy or a baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<super::QaFormat>,
    /// How the debaters compare with the judge (question-answer rounds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relation: Option<String>,
}

#[cfg(test)]
impl ScheduledRound {
    /// A round of `a` against `b` on `dilemma_id`, judged by `j`: what unit tests start from.
    pub(crate) fn example(round_id: &str, dilemma_id: &str) -> Self {
        Self {
            round_id: round_id.into(),
            dilemma_id: dilemma_id.into(),
            repetition: 1,
            team_a: "a".into(),
            team_b: "b".into(),
            judges: vec!["j".into()],
            format: None,
            relation: None,
        }
    }
}
