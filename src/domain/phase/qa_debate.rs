//! The question-answer debate's phases.

use super::{DebatePhase, OwnPhase, PhaseNames, PhaseType};

/// The steps of a question-answer round before its judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QaPhase {
    /// A debater's argument in one round (see [`crate::domain::Phase::turn`]).
    Argument,
}

impl OwnPhase for QaPhase {
    const ALL: &'static [Self] = &[Self::Argument];

    fn names(self) -> PhaseNames {
        match self {
            Self::Argument => PhaseNames {
                name: "argument",
                title: "Argument",
                letter: 'A',
            },
        }
    }

    fn of(phase: DebatePhase) -> Option<Self> {
        match phase {
            DebatePhase::QaDebate(p) => Some(p),
            _ => None,
        }
    }
}

impl From<QaPhase> for DebatePhase {
    fn from(p: QaPhase) -> Self {
        Self::QaDebate(p)
    }
}

/// The shorthand of the question-answer debate's phase.
#[allow(non_upper_case_globals)]
impl PhaseType {
    /// A question-answer debater's argument in one round.
    pub const Argument: Self = Self::Debate(DebatePhase::QaDebate(QaPhase::Argument));
}
