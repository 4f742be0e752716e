//! What the engine tells its consumers (the headless runner, the terminal UI) and what they
//! may ask of it. Stored data reaches them only as the stored round, sent after it is on
//! disk, so a consumer's state is the store's plus what is under way.

use std::sync::Arc;
use std::time::Duration;

use crate::domain::{PhaseType, Round, Scores};
use crate::store::TournamentStatus;

/// A round of the schedule as the run starts.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduledState {
    /// The round as it stands: as stored, or as set up when it has no file yet.
    pub round: Arc<Round>,
    /// Whether it was read from its file (a resumed run).
    pub stored: bool,
    /// Whether this run will run it (it has not finished).
    pub to_run: bool,
    /// Whether `round` is [`Round::without_text`]: a finished round of a resumed run comes
    /// without its model text (the store has it), so a schedule of many thousand rounds
    /// costs their numbers, not their transcripts.
    pub text_dropped: bool,
}

/// Something the engine did. What is stored arrives whole, as [`EngineEvent::RoundStored`]
/// after every write; the other events say what is under way (calls, streamed text, retries)
/// and are not stored.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineEvent {
    /// The run began: every round of the schedule as it stands, stored or new.
    Started {
        /// The tournament's id.
        tournament_id: String,
        /// The schedule.
        rounds: Vec<ScheduledState>,
    },
    /// A call began.
    PhaseStarted {
        /// The round.
        round_id: String,
        /// The phase.
        phase_type: PhaseType,
        /// Who is called (see [`crate::domain::speaker`]; the stored phase has the same).
        model: String,
    },
    /// The call just started waits in its provider's batch (batch mode): its answer comes
    /// whole when the batch ends.
    PhaseBatched {
        /// The round.
        round_id: String,
        /// The phase.
        phase_type: PhaseType,
        /// Who is called.
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
    /// A call failed after its retries (a panel goes on without that judge; otherwise the
    /// round stops, stored as incomplete).
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
    /// The round as it now is on disk: sent after every write of its file (a finished
    /// phase, a judgment, a panel's change, a correction), with everything stored so far.
    RoundStored {
        /// The round as written.
        round: Arc<Round>,
    },
    /// This run has stopped working on a round (finished, stopped by an error, or
    /// cancelled); its last [`EngineEvent::RoundStored`] holds its state.
    RoundFinished {
        /// The round.
        round_id: String,
    },
    /// Rounds accepted to run again (a retry, during a run or after it): each runs when
    /// its turn comes, and is announced by its calls and writes as any round is.
    Queued {
        /// The rounds, in the order they will start.
        round_ids: Vec<String>,
    },
    /// An adaptive design chose a wave, or stopped (`pairings = "adaptive"`; sent once
    /// `tournament.json` records it): the rounds the wave adds to the schedule, each to run
    /// (none for the first wave, which `Started` carries), and every round of the full
    /// schedule it has not chosen.
    Design {
        /// The waves chosen so far.
        wave: u32,
        /// The rounds this wave adds.
        rounds: Vec<ScheduledState>,
        /// The full schedule's rounds not chosen (yet, or at all once stopped).
        not_chosen: Vec<crate::domain::ScheduledRound>,
        /// What stopped the design, in words, once it stopped.
        stopped: Option<String>,
    },
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
    /// Where a quota's adaptive concurrency stands after one of its calls ended: its window,
    /// what its provider reported, and any hold (models with `adaptive_concurrency`).
    RateLimits {
        /// The configured names metered as this one quota, joined with `+` (`gpt+gpt-judge`),
        /// or one name (see `ModelClient::quota_label`).
        quota: String,
        /// Its limiter's state.
        snapshot: crate::providers::RateSnapshot,
    },
    /// The open batches changed (batch mode): every open batch as it now stands.
    Batches {
        /// The open batches, by model.
        open: Vec<crate::providers::BatchView>,
    },
    /// The store could not take a round (a full disk, the first write that failed) or the
    /// disk has less free space than `min_free_space_mb`: no new call starts; calls under
    /// way finish, and are stored if space returns.
    StoreFailed {
        /// The file and the system's reason, or the free space found.
        message: String,
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

/// Whether the call a [`EngineEvent::PhaseStarted`] announced (`phase_type`, `speaker`) is
/// among the round's stored phases: how a consumer knows a call under way has ended.
pub fn is_stored_call(round: &Round, phase_type: PhaseType, speaker: &str) -> bool {
    round
        .phases
        .iter()
        .any(|p| p.phase_type == phase_type && p.speaker() == speaker)
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
    /// Cancel the open batches at their providers (before a [`EngineCommand::Cancel`],
    /// when the person chose to; without it they stay open, and a resumed run collects
    /// them).
    CancelBatches,
    /// Run an incomplete round again from its last finished phase (during a run, after
    /// it, or over stored results).
    RetryRound(String),
    /// Run every incomplete round again that is not already running or queued.
    RetryIncomplete,
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
