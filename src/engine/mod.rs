//! The engine owns a tournament: it schedules rounds, drives each round's protocol, calls
//! providers, stores every finished step, and only then emits an event. It takes commands
//! from a channel and knows nothing of any user interface.

mod batching;
mod caught;
mod context;
mod control;
mod corrections;
mod error;
mod events;
mod prepare;
mod progress;
mod rejudge;
mod retry;
mod review;
mod round_extras;
mod round_runner;
mod round_writer;
mod scheduler;
mod store_guard;
mod summary_file;
mod tally;
mod tournament;
mod waves;

pub use crate::protocols::schedule::{Schedule, round_id};
pub use caught::panic_is_caught;
pub use corrections::{apply_correction, apply_reply_correction};
pub use error::EngineError;
pub use events::{Correction, EngineCommand, EngineEvent, ScheduledState, is_stored_call};
pub use prepare::{PrepareError, Prepared, prepare, prepare_resume};
pub use progress::{Change, FinishedRound, Outset, Progress, RoundCounts, Standings};
pub use rejudge::{
    JudgingConfig, RejudgePlan, RejudgeReport, Sides, prepare_rejudge, prepare_rejudge_sides,
    rejudge, swapped_folder,
};
pub use review::{Waiting, WaitingKind, waiting};
pub use store_guard::Lost;
pub use summary_file::refresh_summary;
pub use tally::UsageTotals;
pub use tournament::{RunReport, run, serve_corrections};
