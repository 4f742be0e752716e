//! How a run's end becomes an exit code a script can rely on: 0 when every round is
//! complete or waits for review, 1 when rounds are left incomplete (each listed with what
//! stopped it, then the resume command), 130 when stopped by Ctrl-C or a signal; quitting the
//! UI with `q` is the user's choice and exits 0 with [`quit_line`].

use std::path::{Path, PathBuf};

use ethics_bowl::analysis::{Summary, Unfinished};
use ethics_bowl::sanitize::sanitize;
use ethics_bowl::store::TournamentStatus;

/// The run was stopped by the user (exit code 130).
#[derive(Debug, thiserror::Error)]
#[error("stopped; everything finished is stored. Resume with: ethics-bowl run --resume {}", .0.display())]
pub struct Interrupted(pub PathBuf);

/// The run ended with rounds not finished (exit code 1): calls failed after their retries,
/// or the budget stopped new calls.
#[derive(Debug, thiserror::Error)]
#[error("{left} of {rounds} rounds not finished. Resume with: ethics-bowl run --resume {}", .dir.display())]
pub struct RoundsLeft {
    /// Rounds incomplete or not started.
    pub left: usize,
    /// Rounds of the tournament.
    pub rounds: usize,
    /// The results folder.
    pub dir: PathBuf,
}

/// Says on stderr why rounds were left and turns the run's end into the command's result.
pub fn outcome(status: TournamentStatus, summary: &Summary, dir: &Path) -> anyhow::Result<()> {
    if status == TournamentStatus::Cancelled {
        return Err(Interrupted(dir.to_path_buf()).into());
    }
    let left = summary.incomplete + summary.not_started;
    if left == 0 {
        return Ok(());
    }
    if status == TournamentStatus::BudgetReached {
        eprintln!("stopped at the budget; raise budget_usd before resuming");
    }
    for line in failure_lines(&summary.unfinished) {
        tracing::warn!("{line}");
        eprintln!("{line}");
    }
    Err(RoundsLeft {
        left,
        rounds: summary.rounds,
        dir: dir.to_path_buf(),
    }
    .into())
}

/// What the user hears after quitting a run with `q`: what is stored and how to go on.
pub fn quit_line(summary: &Summary, dir: &Path) -> String {
    let stored = summary.complete + summary.needs_review;
    let left = summary.incomplete + summary.not_started;
    if left == 0 {
        return format!(
            "quit: all {} rounds are stored in {}",
            summary.rounds,
            dir.display()
        );
    }
    format!(
        "quit: {stored} of {} rounds done and stored in {}; {left} left. Resume with: ethics-bowl run --resume {}",
        summary.rounds,
        dir.display(),
        dir.display()
    )
}

/// A line per incomplete round: its id, and the model, phase and provider's message (with
/// its request id, which the message carries) of the call that stopped it.
pub fn failure_lines(unfinished: &[Unfinished]) -> Vec<String> {
    unfinished
        .iter()
        .map(|u| match &u.error {
            Some(e) => format!(
                "failed: {}: model {}, phase {}: {}",
                u.round_id,
                sanitize(&e.model_id),
                e.phase_type.as_str(),
                sanitize(&e.message)
            ),
            None => format!("unfinished: {}: stopped before its calls ended", u.round_id),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ethics_bowl::domain::{PhaseType, RoundError};

    fn summary(incomplete: usize, not_started: usize) -> Summary {
        Summary {
            rounds: 3,
            incomplete,
            not_started,
            unfinished: (0..incomplete)
                .map(|i| Unfinished {
                    round_id: format!("r{i}"),
                    error: Some(RoundError {
                        phase_type: PhaseType::Presentation,
                        model_id: "m".into(),
                        message: "HTTP 401: bad key [request id abc]".into(),
                        timestamp: "t".into(),
                        attempts: Vec::new(),
                    }),
                })
                .collect(),
            ..Summary::default()
        }
    }

    #[test]
    fn every_round_finished_is_success_and_anything_left_is_an_error() {
        let dir = Path::new("results/x");
        assert!(outcome(TournamentStatus::Finished, &summary(0, 0), dir).is_ok());
        let e = outcome(TournamentStatus::Finished, &summary(1, 1), dir).unwrap_err();
        let left = e.downcast_ref::<RoundsLeft>().expect("rounds left");
        assert_eq!((left.left, left.rounds), (2, 3));
        assert!(e.to_string().contains("ethics-bowl run --resume results/x"));
        let e = outcome(TournamentStatus::Cancelled, &summary(1, 0), dir).unwrap_err();
        assert!(e.is::<Interrupted>());
    }

    #[test]
    fn quitting_says_what_is_stored_and_how_to_resume() {
        let s = Summary {
            complete: 1,
            ..summary(1, 1)
        };
        assert_eq!(
            quit_line(&s, Path::new("results/x")),
            "quit: 1 of 3 rounds done and stored in results/x; 2 left. Resume with: ethics-bowl run --resume results/x"
        );
    }

    #[test]
    fn a_failure_line_names_the_model_phase_and_message() {
        let lines = failure_lines(&summary(1, 0).unfinished);
        assert_eq!(
            lines,
            ["failed: r0: model m, phase presentation: HTTP 401: bad key [request id abc]"]
        );
    }
}
