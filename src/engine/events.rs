//! What the engine tells its consumers (the headless runner, the terminal UI) and what they
//! may ask of it. Every event about stored data is sent after the data is on disk.

use std::time::Duration;

use crate::domain::{Judgment, PanelRecord, Phase, PhaseType, RoundStatus, Scores};
use crate::store::TournamentStatus;

/// A round as the consumers first see it.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundView {
    /// The round's id.
    pub round_id: String,
    /// The dilemma.
    pub dilemma_id: String,
    /// Which repetition.
    pub repetition: u32,
    /// Team A.
    pub team_a: String,
    /// Team B.
    pub team_b: String,
    /// Its judges.
    pub judges: Vec<String>,
    /// Where it stands on disk: `Complete` and `NeedsReview` rounds are not run again.
    pub status: RoundStatus,
    /// Whether the round already has all its phases (a resumed, finished round).
    pub finished: bool,
    /// The item and the answers handed out, for question-answer rounds.
    pub qa: Option<Box<crate::domain::QaSetup>>,
    /// The topic, for structured-debate rounds.
    pub structured: Option<Box<crate::domain::StructuredSetup>>,
}

/// Running totals of the calls made in this run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct UsageTotals {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Answer tokens.
    pub output_tokens: u64,
    /// Estimated dollars (models with prices only).
    pub cost_usd: f64,
    /// Calls finished.
    pub calls: u64,
}

/// Something the engine did.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineEvent {
    /// The run began: every round of the schedule, with what is already on disk.
    Started {
        /// The tournament's id.
        tournament_id: String,
        /// The schedule.
        rounds: Vec<RoundView>,
    },
    /// A call began.
    PhaseStarted {
        /// The round.
        round_id: String,
        /// The phase.
        phase_type: PhaseType,
        /// The model called.
        model: String,
    },
    /// Answer text arrived (coalesced: several provider deltas per event).
    TextDelta {
        /// The round.
        round_id: String,
        /// The phase.
        phase_type: PhaseType,
        /// The model.
        model: String,
        /// The new text (raw model text; sanitise before display).
        text: String,
    },
    /// An attempt failed; another follows after `wait`. Text streamed so far for this
    /// phase is void.
    RetryScheduled {
        /// The round.
        round_id: String,
        /// The phase.
        phase_type: PhaseType,
        /// The model.
        model: String,
        /// The failed attempt (1-based).
        attempt: u32,
        /// The wait before the next.
        wait: Duration,
        /// Why it failed.
        error: String,
    },
    /// A phase finished and is stored.
    PhaseCompleted {
        /// The round.
        round_id: String,
        /// The stored phase.
        phase: Box<Phase>,
    },
    /// A phase failed after its retries; the round is stored as incomplete.
    PhaseFailed {
        /// The round.
        round_id: String,
        /// The phase.
        phase_type: PhaseType,
        /// The model.
        model: String,
        /// The error.
        error: String,
    },
    /// A judgment was parsed (or corrected) and stored.
    JudgmentRecorded {
        /// The round.
        round_id: String,
        /// The judgment; check `parse_status` for review.
        judgment: Box<Judgment>,
    },
    /// A debater's reply could not be read and waits for a person (stored).
    ReplyNeedsReview {
        /// The round.
        round_id: String,
        /// Which reply (`pro.opening`).
        key: String,
        /// The reply as given (raw model text; sanitise before display).
        raw: String,
        /// Why it waits.
        problems: Vec<String>,
    },
    /// A person's correction of a reply was stored; it no longer waits.
    ReplyReviewed {
        /// The round.
        round_id: String,
        /// Which reply.
        key: String,
    },
    /// A judge panel's record changed (an evaluation arrived, a judge failed, a
    /// deliberation round began or ended), stored.
    PanelUpdated {
        /// The round.
        round_id: String,
        /// The panel's record as stored.
        panel: Box<PanelRecord>,
    },
    /// A round reached its final state for this run, stored.
    RoundFinished {
        /// The round.
        round_id: String,
        /// Its status.
        status: RoundStatus,
        /// What stopped it, when incomplete.
        error: Option<String>,
    },
    /// Totals after a call finished.
    Usage(UsageTotals),
    /// New calls are on hold.
    Paused,
    /// New calls may start again.
    Resumed,
    /// The budget stopped new calls.
    BudgetReached {
        /// Dollars spent.
        spent_usd: f64,
        /// The budget.
        budget_usd: f64,
    },
    /// Something a person should know that stops nothing (a damaged round file set aside).
    Warning {
        /// What happened, naming the file or round.
        message: String,
    },
    /// A command could not be carried out.
    CommandRefused {
        /// Why.
        reason: String,
    },
    /// The run ended; the manifest and summary are stored.
    Finished {
        /// How it ended.
        status: TournamentStatus,
    },
}

/// A person's correction of a judgment.
#[derive(Debug, Clone, PartialEq)]
pub enum Correction {
    /// Edited judge text, parsed again; it must yield all fourteen scores.
    Text(String),
    /// The fourteen scores typed directly.
    Scores {
        /// Team A's.
        team_a: Scores,
        /// Team B's.
        team_b: Scores,
    },
}

/// Something a consumer asks the engine to do.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineCommand {
    /// Start no new calls until resumed (calls under way finish).
    Pause,
    /// Start calls again.
    Resume,
    /// Stop: no new calls, calls under way abandoned, everything finished is on disk.
    Cancel,
    /// Run an incomplete round again from its last finished phase.
    RetryRound(String),
    /// Store a hand-corrected judgment.
    ApplyCorrection {
        /// The round.
        round_id: String,
        /// The judge whose judgment is corrected: its persona id for panel judges, else
        /// its model.
        judge: String,
        /// The correction.
        correction: Box<Correction>,
    },
}
