//! How a run can fail as a whole: its record could not be kept.

use crate::store::StoreError;

use super::store_guard::Lost;

/// The engine could not keep its record.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A record the run needs at its start or end could not be read or written.
    #[error("the results store failed: {0}")]
    Store(#[from] StoreError),
    /// The store refused a round mid-run (a full disk), or the disk had less free space than
    /// `min_free_space_mb`: no call was started after that, the calls under way finished,
    /// and what could still not be stored is counted.
    #[error("{trouble}; no call was started after it; {}", lost_text(*lost))]
    StoreStopped {
        /// The first refusal (the file and the system's reason) or the free space found.
        trouble: String,
        /// What could not be stored in the end.
        lost: Lost,
    },
}

fn lost_text(lost: Lost) -> String {
    if lost.answers == 0 && lost.rounds == 0 {
        "every answer received was stored".to_string()
    } else {
        format!(
            "{} answer(s) received in {} round(s) could not be stored and are lost",
            lost.answers, lost.rounds
        )
    }
}
