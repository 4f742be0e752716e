//! The review queue: what waits for a person in the rounds the filter shows, a cursor over
//! it, Enter to fix the item in the editor, and `o` to open its round.

use crossterm::event::KeyCode;

use crate::engine::WaitingKind;
use crate::tui::keys::{Action, BACK, Binding, CLEAR_FILTER, FILTER, UP_DOWN, ch, key};
use crate::tui::msg::{Destination, Opening, Outcome, RoundAt};
use crate::tui::shown::Shown;

/// The review queue's keys.
pub const BINDINGS: &[Binding] = &[
    Binding {
        label: "↑ ↓ / k j",
        help: "choose an item",
        footer: Some("↑↓ choose"),
        keys: UP_DOWN,
    },
    Binding {
        label: "Enter",
        help: "edit it: the model's text beside what is read from it",
        footer: Some("Enter edit"),
        keys: &[(key(KeyCode::Enter), Action::Open)],
    },
    Binding {
        label: "o",
        help: "open its round (a judgment on the round's verdict tab)",
        footer: None,
        keys: &[(ch('o'), Action::OpenRound)],
    },
    FILTER,
    CLEAR_FILTER,
    BACK,
];

/// The review queue's state: the selected item.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReviewScreen {
    /// The selected item, in the queue's order.
    pub cursor: usize,
}

impl ReviewScreen {
    /// Keeps the cursor on an item of a queue `len` long (it shrank).
    pub fn settle(&mut self, len: usize) {
        self.cursor = self.cursor.min(len.saturating_sub(1));
    }

    /// Handles one of the queue's keys; the queue is what waits in the rounds `shown`.
    pub fn act(&mut self, action: Action, shown: Shown<'_>) -> Outcome {
        match action {
            Action::Back => return Outcome::go(Destination::Back),
            Action::Up => self.cursor = self.cursor.saturating_sub(1),
            Action::Down => {
                self.cursor = (self.cursor + 1).min(shown.review_len().saturating_sub(1));
            }
            Action::Open => return Outcome::go(Destination::Editor),
            Action::OpenRound => {
                if let Some(item) = shown.review_items().nth(self.cursor) {
                    return Outcome::go(Destination::Round(RoundAt {
                        id: item.round_id.clone(),
                        scores: matches!(item.kind, WaitingKind::Judgment(_)),
                        opening: Opening::Top,
                    }));
                }
            }
            _ => {}
        }
        Outcome::default()
    }
}
