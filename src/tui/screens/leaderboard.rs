//! The leaderboard: each model's standing over the rounds the filter shows, and what its
//! calls took. It keeps no state of its own; its keys are the filter's and Esc.

use crate::tui::keys::{Action, BACK, Binding, CLEAR_FILTER, FILTER};
use crate::tui::msg::{Destination, Outcome};

/// The leaderboard's keys.
pub const BINDINGS: &[Binding] = &[FILTER, CLEAR_FILTER, BACK];

/// The leaderboard (no state: it shows the mirror through the filter).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LeaderboardScreen;

impl LeaderboardScreen {
    /// Handles one of its keys.
    pub fn act(&mut self, action: Action) -> Outcome {
        match action {
            Action::Back => Outcome::go(Destination::Back),
            _ => Outcome::default(),
        }
    }
}
