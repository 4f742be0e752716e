//! The time limit of a deliberation round (`deliberation_timeout_s`): the engine runs each
//! deliberation call under its round's deadline, and a call still running when it passes is
//! stored as a failed phase whose error says the time ran out, which the panel reads as
//! the end of deliberation (the late judge's previous evaluation stands), not as a judge
//! whose provider failed.

use std::time::Duration;

use crate::domain::ErrorKind;
use crate::providers::{CallFailure, ProviderError};

/// What a timed-out call's stored error says; the panel recognises a timeout by it.
const TIME_UP: &str = "the deliberation round ran past its time limit (deliberation_timeout_s)";

/// The failure a deliberation call that ran past its round's time limit is stored with.
pub fn time_up(model: &str, round: u32, limit: Duration) -> CallFailure {
    CallFailure {
        model: model.to_string(),
        error: ProviderError::new(
            ErrorKind::Timeout,
            format!(
                "{TIME_UP}: deliberation round {round} was allowed {} s; its evaluation \
                 before this round stands (raise deliberation_timeout_s in [panel] to give \
                 judges longer)",
                limit.as_secs_f64()
            ),
            false,
        ),
        attempts: Vec::new(),
    }
}

/// Whether a stored phase error is a deliberation round's time running out.
pub fn is_time_up(error: &str) -> bool {
    error.contains(TIME_UP)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timed_out_call_reads_as_one_and_a_provider_failure_does_not() {
        let stored = time_up("m", 2, Duration::from_secs(90)).to_string();
        assert!(is_time_up(&stored), "{stored}");
        assert!(
            stored.contains("round 2") && stored.contains("90 s"),
            "{stored}"
        );
        assert!(!is_time_up(
            "model \"m\": HTTP 503: overloaded (after 3 attempts)"
        ));
    }
}
