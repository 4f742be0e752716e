//! The Ethics Bowl's phases.

use super::{DebatePhase, OwnPhase, PhaseNames, PhaseType};

/// The steps of an Ethics Bowl round before its judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EthicsBowlPhase {
    /// Team A analyses the dilemma.
    Presentation,
    /// Team B engages with the presentation.
    Response,
    /// Team A answers the response.
    Rebuttal,
    /// Team A faces the parallel case.
    ConsistencyTest,
    /// Team B faces the parallel case too (an option, on by default).
    ConsistencyTestB,
}

impl OwnPhase for EthicsBowlPhase {
    const ALL: &'static [Self] = &[
        Self::Presentation,
        Self::Response,
        Self::Rebuttal,
        Self::ConsistencyTest,
        Self::ConsistencyTestB,
    ];

    fn names(self) -> PhaseNames {
        let (name, title, letter) = match self {
            Self::Presentation => ("presentation", "Presentation", 'P'),
            Self::Response => ("response", "Response", 'R'),
            Self::Rebuttal => ("rebuttal", "Rebuttal", 'B'),
            Self::ConsistencyTest => ("consistency_test", "Consistency test (Team A)", 'C'),
            Self::ConsistencyTestB => ("consistency_test_b", "Consistency test (Team B)", 'C'),
        };
        PhaseNames {
            name,
            title,
            letter,
        }
    }

    fn of(phase: DebatePhase) -> Option<Self> {
        match phase {
            DebatePhase::EthicsBowl(p) => Some(p),
            _ => None,
        }
    }
}

impl From<EthicsBowlPhase> for DebatePhase {
    fn from(p: EthicsBowlPhase) -> Self {
        Self::EthicsBowl(p)
    }
}

/// The shorthands of the Ethics Bowl's phases.
#[allow(non_upper_case_globals)]
impl PhaseType {
    /// Team A analyses the dilemma.
    pub const Presentation: Self =
        Self::Debate(DebatePhase::EthicsBowl(EthicsBowlPhase::Presentation));
    /// Team B engages with the presentation.
    pub const Response: Self = Self::Debate(DebatePhase::EthicsBowl(EthicsBowlPhase::Response));
    /// Team A answers the response.
    pub const Rebuttal: Self = Self::Debate(DebatePhase::EthicsBowl(EthicsBowlPhase::Rebuttal));
    /// Team A faces the parallel case.
    pub const ConsistencyTest: Self =
        Self::Debate(DebatePhase::EthicsBowl(EthicsBowlPhase::ConsistencyTest));
    /// Team B faces the parallel case too.
    pub const ConsistencyTestB: Self =
        Self::Debate(DebatePhase::EthicsBowl(EthicsBowlPhase::ConsistencyTestB));
}
