//! The UI's state: the tournament mirror, which only the engine's events and the store's
//! answers change, and what the screens show of it; `update` changes it and the views read
//! it.

use std::time::{Duration, Instant};

use ratatui_textarea::TextArea;

use super::keys::Table;
use super::mirror::{Mirror, Mode, ReviewItem, RoundState};
use super::msg::Effect;

/// Which screen is showing.
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
    /// The analysis tables.
    Analysis,
    /// Two results folders side by side (`open A --compare B`): the selected round's
    /// judgments in both, or the comparison's summary.
    Compare {
        /// The summary instead of the round.
        summary: bool,
    },
}

impl Screen {
    /// The table of the screen's own keys.
    pub fn table(self) -> Table {
        match self {
            Self::Matrix => Table::Matrix,
            Self::Round { .. } => Table::Round,
            Self::Review => Table::Review,
            Self::Analysis => Table::Analysis,
            Self::Leaderboard => Table::Leaderboard,
            Self::Log => Table::Plain,
            Self::Compare { .. } => Table::Compare,
        }
    }
}

/// The Analysis screen's state: the results and where the user is in them.
#[derive(Debug, Clone)]
pub struct AnalysisView {
    /// The latest analysis of the rounds so far.
    pub analysis: crate::analysis::Analysis,
    /// When it was computed.
    pub computed: Instant,
    /// Rounds have changed since.
    pub stale: bool,
    /// How long it took (from asking the driver to the answer; zero when computed here):
    /// the next pass waits a few times that, so a large tournament is not re-read back to
    /// back while its rounds finish.
    pub took: Duration,
    /// The tab showing.
    pub tab: usize,
    /// The selected line of the tab's list.
    pub selected: usize,
}

/// What a review item is, for the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewKind {
    /// An Ethics Bowl judgment: fourteen scores (text or score fields).
    EthicsBowl,
    /// A question-answer judgment: an answer and a confidence.
    QaVerdict,
    /// Anything the engine checks itself when it stores it (a structured-debate verdict or
    /// a debater's reply).
    Other,
}

/// A review item open in the editor.
#[derive(Debug, Clone)]
pub struct Editor {
    /// The round.
    pub round_id: String,
    /// The judge.
    pub judge: String,
    /// The text being fixed.
    pub textarea: TextArea<'static>,
    /// The text it started from, to tell whether there are edits to lose.
    pub original: String,
    /// Esc was pressed once with edits: a second Esc discards them.
    pub confirm_discard: bool,
    /// A message for the user (why a save was refused, …).
    pub message: Option<String>,
    /// The fourteen scores typed directly, when the editor is in that mode.
    pub fields: Option<ScoreFields>,
    /// What is being fixed, which decides the checks before saving and whether score
    /// fields exist.
    pub kind: ReviewKind,
}

/// The fourteen scores as typed: one text per criterion (rows, in the rubric's order) and
/// team (columns A, B).
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreFields {
    /// What is typed in each field.
    pub values: [[String; 2]; 7],
    /// The field being typed in (criterion, team).
    pub cursor: (usize, usize),
}

impl Editor {
    /// The text as edited.
    pub fn text(&self) -> String {
        self.textarea.lines().join("\n")
    }
}

/// The whole UI state.
#[derive(Debug, Clone)]
pub struct App {
    /// What the UI knows of the tournament.
    pub mirror: Mirror,
    /// The matrix cursor (row, column).
    pub cursor: (usize, usize),
    /// The screen showing.
    pub screen: Screen,
    /// The screen a round was opened from, where Esc returns (the matrix or Analysis).
    pub round_opened_from: Screen,
    /// The help overlay is open.
    pub help: bool,
    /// Lines scrolled from the top in the round view.
    pub scroll: usize,
    /// Stick to the end of the transcript as it grows.
    pub follow: bool,
    /// Show each phase's prompt in the transcript.
    pub show_prompts: bool,
    /// A one-off notice in the footer (what a key just did), until the next key.
    pub notice: Option<String>,
    /// `q` was pressed while calls are in flight: the next `q` or `y` quits.
    pub confirm_quit: bool,
    /// The selected review item (see [`App::review_items`]).
    pub review_cursor: usize,
    /// The review item being edited.
    pub editor: Option<Editor>,
    /// The Analysis screen, once opened.
    pub analysis: Option<AnalysisView>,
    /// When the driver was asked for the analysis it is computing from the store (see
    /// [`App::refresh_analysis`]).
    pub analysing: Option<Instant>,
    /// Something changed since the last frame.
    pub dirty: bool,
    /// The filter bar: which rounds the matrix, review queue and leaderboard show.
    pub filter: super::filter::FilterBar,
    /// Another results folder set beside this one (`open A --compare B`).
    pub compare: Option<super::compare::CompareState>,
    /// Search and jump-to-round.
    pub search: super::search::SearchState,
}

impl App {
    /// An empty state, before the engine's first event.
    pub fn new(name: &str, mode: Mode, now: Instant) -> Self {
        Self {
            mirror: Mirror::new(name, mode, now),
            cursor: (0, 0),
            screen: Screen::Matrix,
            round_opened_from: Screen::Matrix,
            help: false,
            scroll: 0,
            follow: true,
            show_prompts: false,
            notice: None,
            confirm_quit: false,
            review_cursor: 0,
            editor: None,
            analysis: None,
            analysing: None,
            dirty: true,
            filter: Default::default(),
            compare: None,
            search: Default::default(),
        }
    }

    /// The round under the cursor.
    pub fn selected(&self) -> Option<&RoundState> {
        let m = &self.mirror;
        m.cells.get(&self.cursor).map(|i| &m.rounds[*i])
    }

    /// The round a screen shows whole, if one does: in the round view, or its two judgments
    /// side by side (`open --compare`).
    pub fn showing_round(&self) -> Option<usize> {
        match self.screen {
            Screen::Round { .. } | Screen::Compare { summary: false } => {
                self.mirror.cells.get(&self.cursor).copied()
            }
            _ => None,
        }
    }

    /// The review queue: what waits for a person in every stored round the filter lets
    /// through, in schedule order.
    pub fn review_items(&self) -> impl Iterator<Item = &ReviewItem> {
        self.shown_rounds().flat_map(|r| &r.review)
    }

    /// How many items of the queue wait for a person.
    pub fn review_len(&self) -> usize {
        self.shown_rounds().map(|r| r.review.len()).sum()
    }

    /// Recomputes the analysis: here from the rounds in memory when every one has its
    /// text, else by the driver from the store ([`Effect::Analyse`], answered by
    /// [`App::take_analysis`]), since rounds whose text waits in the store would leave out
    /// what the text-reading tables count.
    pub(crate) fn refresh_analysis(&mut self) -> Option<Effect> {
        if self.mirror.rounds.iter().any(|r| r.text_dropped) {
            if self.analysing.is_some() {
                return None;
            }
            self.analysing = Some(self.mirror.now);
            // Rounds stored from now on make the answer stale.
            if let Some(view) = &mut self.analysis {
                view.stale = false;
            }
            return Some(Effect::Analyse);
        }
        let m = &self.mirror;
        let analysis = crate::analysis::analyse(&m.stored_rounds(), &m.provider_of);
        self.take_analysis(analysis);
        if let Some(view) = &mut self.analysis {
            view.stale = false;
        }
        None
    }

    /// Shows a newly computed analysis (whether rounds stored meanwhile make it stale is
    /// left as it stands).
    pub(crate) fn take_analysis(&mut self, analysis: crate::analysis::Analysis) {
        let took = self.analysing.take().map_or(Duration::ZERO, |asked| {
            self.mirror.now.saturating_duration_since(asked)
        });
        match &mut self.analysis {
            Some(view) => {
                view.analysis = analysis;
                view.computed = self.mirror.now;
                view.took = took;
            }
            None => {
                self.analysis = Some(AnalysisView {
                    analysis,
                    computed: self.mirror.now,
                    stale: false,
                    took,
                    tab: 0,
                    selected: 0,
                });
            }
        }
    }
}
