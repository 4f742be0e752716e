//! The spec's data model as plain serde types: dilemmas, rounds, phases, judgments and ids,
//! the question-answer debate's items and records, and the structured debate's.
//! Field names are the spec's, so a round file reads as the spec describes it.

mod attempt;
mod dilemma;
mod ids;
mod judgment;
mod panel;
mod phase;
mod protocol;
mod qa;
mod round;
mod round_file;
mod schedule;
mod structured;

pub use attempt::{Attempt, ErrorKind};
pub use dilemma::Dilemma;
pub use ids::{IdError, check_file_id, now_rfc3339, slug};
pub use judgment::{
    Criterion, JudgeView, Judgment, ParseStatus, Reading, Scores, Team, margin_text,
};
pub use panel::{
    Aggregate, Agreement, DEFAULT_MIN_EVALUATIONS, Disagreement, DisagreementKind, Evaluation,
    FinalVerdict, Finding, PanelRecord, PanelRound, PanelSeat, PanelState, PanelSummary,
    RoundDisputes, SeatOutcome, SeatResult,
};
pub use phase::{
    DebatePhase, EthicsBowlPhase, JudgingPhase, OwnPhase, PhaseNames, PhaseType, QaPhase,
    StructuredPhase,
};
pub use protocol::{ProtocolKind, UnknownProtocol};
pub use qa::{
    Assignment, DebaterRecord, Label, QaChoice, QaFormat, QaItem, QaSetup, QuoteMatching,
    SampledItem, Turn, TurnOrder,
};
pub use round::{Phase, Reused, Round, RoundError, RoundRecord, RoundStatus, speaker};
pub use round_file::ROUND_SCHEMA_VERSION;
pub use schedule::ScheduledRound;
pub use structured::{
    ArgumentAssessment, Band, Closing, CrossResponse, DebateArgument, Fallacy, Margin,
    ReplyFallback, ResponseType, ScoreWeights, Side, SideRecord, Standing, StructuredSetup,
    StructuredVerdict, Topic, TotalBands,
};
