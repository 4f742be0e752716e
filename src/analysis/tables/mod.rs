//! The spec's five analyses of Ethics Bowl rounds, one module each, as pure functions from
//! rounds to tables; what they share is here. One usable judgment (parsed, or corrected by
//! hand) is one observation; every figure carries its n (a [`Cell`]), and a figure resting
//! on fewer than [`MIN_N`] observations is marked as too thin to read.

mod consistency;
mod dilemma_difficulty;
#[cfg(test)]
mod fixtures;
mod framework_usage;
mod judge_agreement;
mod model_comparison;

use serde::Serialize;

use super::stats::mean;
use crate::domain::{Judgment, Round, Team};

pub use consistency::{
    ACKNOWLEDGEMENTS, ConsistencyByModel, ConsistencyRow, LOW_CONSISTENCY, consistency,
    consistency_by_model, unread_note,
};
pub use dilemma_difficulty::{DilemmaDifficulty, bar_range, dilemma_difficulty};
pub use framework_usage::{FRAMEWORKS, FrameworkUsage, framework_usage};
pub use judge_agreement::{JudgeAgreement, JudgePair, RepeatedAgreement, judge_agreement};
pub use model_comparison::{ModelRole, model_comparison};

/// Fewer observations than this and a figure is reported as insufficient.
pub const MIN_N: usize = 3;

/// A mean and the number of observations behind it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cell {
    /// The mean, when there is any data.
    pub mean: Option<f64>,
    /// Observations behind it.
    pub n: usize,
    /// Whether `n` is below [`MIN_N`].
    pub insufficient: bool,
}

impl Cell {
    /// The cell of these values.
    pub fn of(values: &[f64]) -> Self {
        Self {
            mean: mean(values),
            n: values.len(),
            insufficient: values.len() < MIN_N,
        }
    }
}

/// The judgments of a round that count: usable, with both teams' totals.
pub(super) fn usable(round: &Round) -> impl Iterator<Item = &Judgment> {
    round
        .judgments
        .iter()
        .filter(|j| j.is_usable() && j.rubric_margin().is_some())
}

/// The model playing a team in a round.
pub(super) fn model_of(round: &Round, team: Team) -> &str {
    match team {
        Team::A => &round.team_a_model,
        Team::B => &round.team_b_model,
    }
}
