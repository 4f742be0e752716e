//! The UI's state: the tournament mirror, which only the engine's events and the store's
//! answers change; every screen's own state; the trail of screens opened (which one shows);
//! and what spans them (the filter bar, the footer's notice, quitting). `update` changes it
//! and the views read it.

use std::time::Instant;

use super::keymap::Keymap;
use super::mirror::{Mirror, Mode, RoundState};
use super::screens::filter_bar::FilterBar;
use super::screens::{Id, Screens, Trail};
use super::shown::Shown;

/// Which screen shows, with its tab: what a test or a caller asks of the screens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    /// The progress matrix.
    Matrix,
    /// One round: its transcript or its scores.
    Round {
        /// Scores instead of the transcript.
        scores: bool,
    },
    /// Average scores per model and role.
    Leaderboard,
    /// Warnings and errors.
    Log,
    /// Judgments the parser could not read, oldest first.
    Review,
    /// A review item open in the editor.
    Editor,
    /// The analysis tables.
    Analysis,
    /// Two results folders side by side (`open A --compare B`): the selected round's
    /// judgments in both, or the comparison's summary.
    Compare {
        /// The summary instead of the round.
        summary: bool,
    },
    /// A person judging rounds.
    Annotate,
}

/// The whole UI state.
#[derive(Debug, Clone)]
pub struct App {
    /// What the UI knows of the tournament.
    pub mirror: Mirror,
    /// Every screen's own state.
    pub screens: Screens,
    /// The screens opened on the way to the one showing.
    pub trail: Trail,
    /// The filter bar: which rounds the matrix, review queue and leaderboard show.
    pub filter: FilterBar,
    /// A one-off notice in the footer (what a key just did), until the next key.
    pub notice: Option<String>,
    /// `q` was pressed while calls are in flight: the next `q` or `y` quits.
    pub confirm_quit: bool,
    /// The UI was ended by Ctrl-C or a stop signal (exit 130), not by the user's `q`.
    pub forced_quit: bool,
    /// Something changed since the last frame.
    pub dirty: bool,
    /// The keys in force: the tables' defaults with the user's `keys.toml` over them.
    pub keys: Keymap,
}

impl App {
    /// An empty state, before the engine's first event.
    pub fn new(name: &str, mode: Mode, now: Instant) -> Self {
        Self {
            mirror: Mirror::new(name, mode, now),
            screens: Screens::default(),
            trail: Trail::default(),
            filter: FilterBar::default(),
            notice: None,
            confirm_quit: false,
            forced_quit: false,
            dirty: true,
            keys: Keymap::default(),
        }
    }

    /// The screen showing.
    pub fn showing(&self) -> Id {
        self.trail.top()
    }

    /// The screen showing, with its tab.
    pub fn screen(&self) -> Screen {
        match self.showing() {
            Id::Matrix => Screen::Matrix,
            Id::Round => Screen::Round {
                scores: self.screens.round.scores,
            },
            Id::Review => Screen::Review,
            Id::Editor => Screen::Editor,
            Id::Analysis => Screen::Analysis,
            Id::Leaderboard => Screen::Leaderboard,
            Id::Log => Screen::Log,
            Id::Compare => Screen::Compare {
                summary: self.screens.compare.summary,
            },
            Id::Annotate => Screen::Annotate,
        }
    }

    /// The mirror through the filter in force.
    pub fn shown(&self) -> Shown<'_> {
        Shown::new(&self.mirror, self.filter.active.as_ref())
    }

    /// The round under the matrix cursor.
    pub fn selected(&self) -> Option<&RoundState> {
        self.screens.matrix.selected(&self.mirror)
    }

    /// The round a screen shows whole, if one does: the round screen's, or the one whose
    /// judgments show side by side (`open --compare`).
    pub fn showing_round(&self) -> Option<usize> {
        let id = match self.showing() {
            Id::Round => self.screens.round.id.as_deref(),
            Id::Compare if !self.screens.compare.summary => self.screens.compare.round.as_deref(),
            // The round being judged is read whole from the store like the round screen's.
            Id::Annotate => self
                .screens
                .annotate
                .session
                .as_ref()
                .and_then(|s| s.round_id()),
            _ => None,
        }?;
        self.mirror.index.get(id).copied()
    }
}
