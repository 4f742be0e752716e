//! The spec's five analyses of Ethics Bowl rounds, one module each, as pure functions from
//! rounds to tables; what they share is here. One usable judgment (parsed, or corrected by
//! hand) is one observation; every figure carries its n (a [`Cell`]), and a figure resting
//! on fewer than [`MIN_N`] observations is marked as too thin to read.

mod consistency;
mod dilemma_difficulty;
#[cfg(test)]
pub(crate) mod fixtures;
mod framework_usage;
mod judge_agreement;
mod model_comparison;

use std::borrow::Cow;

use serde::Serialize;

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

/// A mean, its 95% interval and what it rests on: observations and the independent units
/// among them (exchanges: several judgments of one exchange are one unit).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cell {
    /// The mean, when there is any data.
    pub mean: Option<f64>,
    /// Observations behind it (judgments).
    pub n: usize,
    /// Whether its independent units are fewer than [`MIN_N`].
    pub insufficient: bool,
    /// Its independent units (exchanges; the observations themselves when each is its own).
    pub units: usize,
    /// The 95% interval's low end, counting units (see [`crate::analysis::stats::clustered`]);
    /// none under two units.
    pub low: Option<f64>,
    /// Its high end.
    pub high: Option<f64>,
}

impl Cell {
    /// The cell of these values, each an independent unit.
    pub fn of(values: &[f64]) -> Self {
        let units: Vec<(usize, f64)> = values.iter().copied().enumerate().collect();
        Self::clustered(&units)
    }

    /// The cell of `(unit, value)` observations: several values of one unit (the judges of
    /// one exchange) count once in the interval and in `units`.
    pub fn clustered(observations: &[(usize, f64)]) -> Self {
        let m = crate::analysis::stats::clustered::clustered_mean(observations);
        Self {
            mean: m.mean,
            n: m.n,
            insufficient: m.clusters < MIN_N,
            units: m.clusters,
            low: m.low,
            high: m.high,
        }
    }

    /// A mean known without its observations (a total pooled from others): no interval.
    pub fn without_interval(mean: Option<f64>, n: usize, insufficient: bool) -> Self {
        Self {
            mean,
            n,
            insufficient,
            units: n,
            low: None,
            high: None,
        }
    }
}

/// The rounds with every Ethics Bowl judgment whose judge is one of the round's debaters'
/// models left out, and how many were; the rounds themselves when there is none. Other
/// protocols' rounds are kept whole (a question-answer judge's choice is checked against
/// the truth, not against its own model's score).
pub fn without_self_judgments(rounds: &[Round]) -> (Cow<'_, [Round]>, usize) {
    let own = |r: &Round, j: &Judgment| {
        r.kind() == crate::domain::ProtocolKind::EthicsBowl && r.judged_by_a_debater(j)
    };
    let count = |r: &Round| r.judgments.iter().filter(|j| own(r, j)).count();
    let left_out: usize = rounds.iter().map(count).sum();
    if left_out == 0 {
        return (Cow::Borrowed(rounds), 0);
    }
    let kept = rounds
        .iter()
        .map(|r| {
            let mut r = r.clone();
            let judges = std::mem::take(&mut r.judgments);
            r.judgments = judges.into_iter().filter(|j| !own(&r, j)).collect();
            r
        })
        .collect();
    (Cow::Owned(kept), left_out)
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
