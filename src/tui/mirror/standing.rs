//! Where a round stands as the UI shows it (the header's counts, the filter's `status=`):
//! its stored status, and whether a call of it is under way or waiting to retry.

use std::time::Instant;

use crate::domain::RoundStatus;

use super::round_state::RoundState;

/// Where a round stands as the UI shows it: the header's counts and the status filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Complete: every phase ran and every judgment is usable.
    Done,
    /// A call is under way or a retry is waiting.
    Running,
    /// Not begun, or stopped part-way with no error (it runs when its turn comes).
    Queued,
    /// Stopped by an error.
    Failed,
    /// A judgment or reply waits for a person.
    Review,
}

impl Standing {
    /// The word every view uses for it (the one vocabulary: the round header, the header's
    /// counts, the headless lines and the end summary say the same).
    pub fn label(self) -> &'static str {
        match self {
            Self::Done => "done",
            Self::Running => "running",
            Self::Queued => "queued",
            Self::Failed => "failed",
            Self::Review => "needs review",
        }
    }
}

/// Where `round` stands at `now`.
pub fn standing(round: &RoundState, now: Instant) -> Standing {
    match round.status() {
        RoundStatus::Complete => Standing::Done,
        RoundStatus::NeedsReview => Standing::Review,
        RoundStatus::Incomplete
            if round.is_running() || round.retry_until.is_some_and(|t| t > now) =>
        {
            Standing::Running
        }
        RoundStatus::Incomplete if round.queued => Standing::Queued,
        RoundStatus::Incomplete if round.error().is_some() => Standing::Failed,
        RoundStatus::Incomplete => Standing::Queued,
    }
}
