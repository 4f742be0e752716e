//! Who spoke in a phase, in which role and for which side: the same words in the Inspect
//! log's messages and in `phases.csv`.

use crate::domain::{Phase, PhaseType, ProtocolKind, Round, Team};

/// A speaker's part in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seat {
    /// `debater`, `judge` (a single judge) or `panel_judge`.
    pub role: &'static str,
    /// The side a debater spoke for; none for judges.
    pub side: Option<Team>,
}

/// The speaker of a stored phase: an exhaustive `match`, so a new protocol's phases are
/// listed here by the compiler.
pub fn of_phase(phase: &Phase) -> Seat {
    let debater = |side| Seat {
        role: "debater",
        side: Some(side),
    };
    match phase.phase_type {
        PhaseType::Presentation | PhaseType::Rebuttal | PhaseType::ConsistencyTest => {
            debater(Team::A)
        }
        PhaseType::Response | PhaseType::ConsistencyTestB => debater(Team::B),
        // The question-answer and structured debaters' turns say their side; a turn stored
        // without one is the round's only debater, in Team A's seat.
        PhaseType::Argument
        | PhaseType::Opening
        | PhaseType::CrossExamination
        | PhaseType::Closing => debater(phase.turn.map_or(Team::A, |t| t.side)),
        PhaseType::Judgment => Seat {
            role: "judge",
            side: None,
        },
        PhaseType::PanelEvaluation | PhaseType::Deliberation => Seat {
            role: "panel_judge",
            side: None,
        },
    }
}

/// A side as the protocol names it: `presenting`/`responding` (Ethics Bowl), `debater_a`/
/// `debater_b` (question-answer), `pro`/`con` (structured debate).
pub fn side_name(kind: ProtocolKind, team: Team) -> &'static str {
    match (kind, team) {
        (ProtocolKind::EthicsBowl, Team::A) => "presenting",
        (ProtocolKind::EthicsBowl, Team::B) => "responding",
        (ProtocolKind::QaDebate, Team::A) => "debater_a",
        (ProtocolKind::QaDebate, Team::B) => "debater_b",
        (ProtocolKind::StructuredDebate, Team::A) => "pro",
        (ProtocolKind::StructuredDebate, Team::B) => "con",
    }
}

/// The model on a side.
pub fn model_of(round: &Round, team: Team) -> &str {
    match team {
        Team::A => &round.team_a_model,
        Team::B => &round.team_b_model,
    }
}
