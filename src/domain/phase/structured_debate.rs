//! The structured debate's phases.

use super::{DebatePhase, OwnPhase, PhaseNames, PhaseType};

/// The debating stages of a structured debate, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StructuredPhase {
    /// The opening statement (each side's arguments as JSON).
    Opening,
    /// The cross-examination (answers to every opposing argument).
    CrossExamination,
    /// The closing statement.
    Closing,
}

impl OwnPhase for StructuredPhase {
    const ALL: &'static [Self] = &[Self::Opening, Self::CrossExamination, Self::Closing];

    fn names(self) -> PhaseNames {
        let (name, title, letter) = match self {
            Self::Opening => ("opening", "Opening statement", 'O'),
            Self::CrossExamination => ("cross_examination", "Cross-examination", 'X'),
            Self::Closing => ("closing", "Closing statement", 'L'),
        };
        PhaseNames {
            name,
            title,
            letter,
        }
    }

    fn of(phase: DebatePhase) -> Option<Self> {
        match phase {
            DebatePhase::StructuredDebate(p) => Some(p),
            _ => None,
        }
    }
}

impl From<StructuredPhase> for DebatePhase {
    fn from(p: StructuredPhase) -> Self {
        Self::StructuredDebate(p)
    }
}

/// The shorthands of the structured debate's phases.
#[allow(non_upper_case_globals)]
impl PhaseType {
    /// A structured debate's opening statement.
    pub const Opening: Self = Self::Debate(DebatePhase::StructuredDebate(StructuredPhase::Opening));
    /// A structured debate's cross-examination.
    pub const CrossExamination: Self = Self::Debate(DebatePhase::StructuredDebate(
        StructuredPhase::CrossExamination,
    ));
    /// A structured debate's closing statement.
    pub const Closing: Self = Self::Debate(DebatePhase::StructuredDebate(StructuredPhase::Closing));
}
