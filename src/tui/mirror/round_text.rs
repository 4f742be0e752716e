//! Which rounds keep their model text in the UI's memory. Every round keeps its numbers and
//! verdicts (what the matrix, the leaderboard and the header show); only the rounds under
//! way, the round showing and the few shown or finished most recently keep their
//! transcripts. The others' text waits in the store, and the round showing is read back
//! ([`Effect::LoadRound`]) when it has none. So the UI's memory grows with the rounds in
//! flight, not with the rounds finished.

use std::collections::VecDeque;

use crate::tui::msg::Effect;

use super::round_state::RoundState;

/// Finished rounds whose text stays in memory, most recently shown or finished first.
pub const KEPT_WHOLE: usize = 64;

/// The rounds keeping their text, most recent first (indices into the mirror's rounds), the
/// round showing, and the read under way.
#[derive(Debug, Clone)]
pub struct TextKept {
    /// Indices of finished rounds that keep their text, most recent first.
    recent: VecDeque<usize>,
    /// How many finished rounds keep their text (rounds under way and the round showing
    /// always do).
    pub capacity: usize,
    /// The round a screen shows whole (see [`TextKept::show`]): it keeps its text
    /// whatever its place.
    showing: Option<usize>,
    /// The round whose text the driver is reading back.
    pub loading: Option<String>,
    /// The last round that could not be read back, and why (shown in its view; not asked
    /// for again until it is stored anew).
    pub failed: Option<(String, String)>,
}

impl Default for TextKept {
    fn default() -> Self {
        Self {
            recent: VecDeque::new(),
            capacity: KEPT_WHOLE,
            showing: None,
            loading: None,
            failed: None,
        }
    }
}

impl TextKept {
    /// Notes that round `i` was just finished, stored or shown whole, and drops the text of
    /// the finished rounds beyond the capacity, least recent first (a round under way or
    /// showing keeps its text whatever its place).
    pub(crate) fn touch(&mut self, rounds: &mut [RoundState], i: usize) {
        self.recent.retain(|&k| k != i);
        self.recent.push_front(i);
        let mut excess = self.recent.len().saturating_sub(self.capacity);
        let mut at = self.recent.len();
        while excess > 0 && at > 0 {
            at -= 1;
            let k = self.recent[at];
            let Some(round) = rounds.get_mut(k) else {
                self.recent.remove(at);
                excess -= 1;
                continue;
            };
            if Some(k) != self.showing && round.at_rest() {
                round.drop_text();
                self.recent.remove(at);
                excess -= 1;
            }
        }
    }

    /// Forgets every note but the round showing (a new schedule).
    pub(crate) fn reset(&mut self) {
        self.recent.clear();
        self.loading = None;
        self.failed = None;
    }

    /// Keeps round `showing` whole while a screen shows it, and asks for its text when it
    /// has none and no read is under way.
    pub(crate) fn show(&mut self, rounds: &[RoundState], showing: Option<usize>) -> Option<Effect> {
        self.showing = showing;
        let round = rounds.get(showing?)?;
        let failed = self.failed.as_ref().map(|(id, _)| id.as_str());
        if !round.text_dropped
            || self.loading.as_deref() == Some(round.id())
            || failed == Some(round.id())
        {
            return None;
        }
        let round_id = round.id().to_string();
        self.loading = Some(round_id.clone());
        Some(Effect::LoadRound { round_id })
    }
}
