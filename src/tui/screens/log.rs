//! The log: retries, failures, refusals and budget stops, newest last. It keeps no state of
//! its own; Esc leaves it.

use crate::tui::keys::{Action, BACK, Binding};
use crate::tui::msg::{Destination, Outcome};

/// The log's keys.
pub const BINDINGS: &[Binding] = &[BACK];

/// The log (no state: it shows the mirror's log).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LogScreen;

impl LogScreen {
    /// Handles one of its keys.
    pub fn act(&mut self, action: Action) -> Outcome {
        match action {
            Action::Back => Outcome::go(Destination::Back),
            _ => Outcome::default(),
        }
    }
}
