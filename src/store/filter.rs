//! Which rounds to load: by model (in any role or a given one), dilemma, judge, status.

use crate::domain::{Round, RoundStatus};

/// A model's role in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Team A.
    Presenting,
    /// Team B.
    Responding,
}

/// A filter over rounds; empty fields match everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoundFilter {
    /// A model that played.
    pub model: Option<String>,
    /// The role the model played (with `model`).
    pub role: Option<Role>,
    /// The dilemma.
    pub dilemma: Option<String>,
    /// A judge of the round.
    pub judge: Option<String>,
    /// The round's status.
    pub status: Option<RoundStatus>,
}

impl RoundFilter {
    /// Whether a round passes.
    pub fn matches(&self, r: &Round) -> bool {
        let model_ok = match (&self.model, self.role) {
            (None, _) => true,
            (Some(m), None) => r.team_a_model == *m || r.team_b_model == *m,
            (Some(m), Some(Role::Presenting)) => r.team_a_model == *m,
            (Some(m), Some(Role::Responding)) => r.team_b_model == *m,
        };
        let judge_ok = self.judge.as_ref().is_none_or(|j| {
            r.judge_model == *j
                || r.judge_models.contains(j)
                || r.judgments.iter().any(|x| x.judge_model == *j)
        });
        model_ok
            && judge_ok
            && self.dilemma.as_ref().is_none_or(|d| r.dilemma_id == *d)
            && self.status.is_none_or(|s| r.status == s)
    }
}
