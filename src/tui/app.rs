//! The UI's state: a plain struct that `update` changes and the views read. It starts from
//! the store (every round of the schedule as stored, or as set up when it has no file yet)
//! and follows the engine's events; model text is sanitised once, as it enters.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use ratatui_textarea::TextArea;

use crate::domain::{ProtocolKind, QaFormat, Round};
use crate::engine::{ScheduledState, UsageTotals};
use crate::store::TournamentStatus;

use super::filter::Standing;
use super::keys::Table;
use super::msg::Effect;
pub use super::round_state::{Entry, LivePhase, ReviewItem, RoundState};

/// The protocol a schedule runs: the kind most of its rounds have (a tournament runs one;
/// an empty schedule shows as the Ethics Bowl's).
fn schedule_protocol(rounds: &[ScheduledState]) -> ProtocolKind {
    let mut counts: HashMap<ProtocolKind, usize> = HashMap::new();
    for s in rounds {
        *counts.entry(s.round.kind()).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by_key(|(kind, n)| (*n, *kind))
        .map_or(ProtocolKind::EthicsBowl, |(kind, _)| kind)
}

/// The matrix row a round belongs to: its pairing (Team A, Team B); for a question-answer
/// round, its configuration (format and debaters) and its judges.
fn row_key(round: &RoundState) -> (String, String) {
    let r = &round.stored;
    match r.kind() {
        ProtocolKind::EthicsBowl | ProtocolKind::StructuredDebate => {
            (r.team_a_model.clone(), r.team_b_model.clone())
        }
        ProtocolKind::QaDebate => {
            let who = match r.qa().map(|s| s.format) {
                Some(QaFormat::Debate) => {
                    format!("debate {} v {}", r.team_a_model, r.team_b_model)
                }
                Some(QaFormat::Consultancy) => format!("consult {}", r.team_a_model),
                Some(other) => other.as_str().to_string(),
                None => String::new(),
            };
            (who, round.judges().join(", "))
        }
    }
}

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

/// Live (an engine is running) or browsing stored results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Watching a run.
    Live,
    /// Reading a results folder.
    Browse,
}

/// A line of the log.
#[derive(Debug, Clone, PartialEq)]
pub struct LogLine {
    /// Seconds since the run started.
    pub at_secs: u64,
    /// What happened.
    pub text: String,
}

/// What the schedule held as the run started: how many rounds were read from the store and
/// how many this run runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resume {
    /// Rounds read from their files.
    pub stored: usize,
    /// Rounds this run runs (not finished before).
    pub to_run: usize,
}

/// The whole UI state.
#[derive(Debug, Clone)]
pub struct App {
    /// The tournament's id.
    pub name: String,
    /// Live or browsing.
    pub mode: Mode,
    /// The protocol the schedule runs: which presentation the tournament-wide screens
    /// (matrix, leaderboard, Analysis) use.
    pub protocol: ProtocolKind,
    /// Every round, in schedule order.
    pub rounds: Vec<RoundState>,
    /// Round id → index.
    pub index: HashMap<String, usize>,
    /// Matrix rows: (Team A, Team B).
    pub rows: Vec<(String, String)>,
    /// Matrix columns: (dilemma, repetition).
    pub columns: Vec<(String, u32)>,
    /// Where each (row, column) points in `rounds`.
    pub cells: HashMap<(usize, usize), usize>,
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
    /// Warnings and errors, newest last.
    pub log: Vec<LogLine>,
    /// Round files in the folder that could not be read (or were set aside as unreadable by
    /// an earlier run): their rounds are missing from every screen, so the header says so.
    pub unreadable: usize,
    /// Each model's provider, from the tournament's record (the driver reads it as the UI
    /// starts), for the Analysis screen's same-provider check, as `report` makes it.
    pub provider_of: std::collections::BTreeMap<String, String>,
    /// Each adaptive model's concurrency window and reported quota, as of its last call.
    pub rate_limits: std::collections::BTreeMap<String, crate::providers::RateSnapshot>,
    /// A one-off notice in the footer (what a key just did), until the next key.
    pub notice: Option<String>,
    /// The open batches (batch mode), as of `batches_at`.
    pub batches: Vec<crate::providers::BatchView>,
    /// When `batches` arrived, to age them by the UI's clock.
    pub batches_at: Instant,
    /// When the run started (its first event).
    pub started: Option<Instant>,
    /// When the run ended: the clock stops there.
    pub ended: Option<Instant>,
    /// The latest tick.
    pub now: Instant,
    /// What every round's stored phases used (earlier sessions included).
    pub totals: UsageTotals,
    /// The models whose answered calls have no cost (no price configured): the cost shown
    /// leaves them out, so the header says it is partial and names them.
    pub unpriced: std::collections::BTreeSet<String>,
    /// What the schedule held as the run started.
    pub resume: Resume,
    /// Rounds this run has finished working on (for the remaining time).
    pub finished_this_run: usize,
    /// New calls are on hold.
    pub paused: bool,
    /// How the run ended, once it has.
    pub finished: Option<TournamentStatus>,
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
    /// Which finished rounds keep their text in memory (see [`super::round_text`]).
    pub text_kept: super::round_text::TextKept,
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
            name: name.to_string(),
            mode,
            protocol: ProtocolKind::EthicsBowl,
            rounds: Vec::new(),
            index: HashMap::new(),
            rows: Vec::new(),
            columns: Vec::new(),
            cells: HashMap::new(),
            cursor: (0, 0),
            screen: Screen::Matrix,
            round_opened_from: Screen::Matrix,
            help: false,
            scroll: 0,
            follow: true,
            show_prompts: false,
            log: Vec::new(),
            unreadable: 0,
            provider_of: Default::default(),
            rate_limits: Default::default(),
            notice: None,
            batches: Vec::new(),
            batches_at: now,
            started: None,
            ended: None,
            now,
            totals: UsageTotals::default(),
            unpriced: Default::default(),
            resume: Resume::default(),
            finished_this_run: 0,
            paused: false,
            finished: None,
            confirm_quit: false,
            review_cursor: 0,
            editor: None,
            analysis: None,
            analysing: None,
            text_kept: Default::default(),
            dirty: true,
            filter: Default::default(),
            compare: None,
            search: Default::default(),
        }
    }

    /// Lays out the matrix from the schedule, each round as it stands (already sanitised).
    pub(crate) fn set_schedule(&mut self, rounds: Vec<ScheduledState>) {
        self.rounds.clear();
        self.index.clear();
        self.rows.clear();
        self.columns.clear();
        self.cells.clear();
        self.unpriced.clear();
        self.resume = Resume::default();
        for s in &rounds {
            self.resume.stored += usize::from(s.stored);
            self.resume.to_run += usize::from(s.to_run);
        }
        self.protocol = schedule_protocol(&rounds);
        super::round_text::reset(self);
        for s in rounds {
            let mut round = RoundState::new(s.round, s.stored);
            round.text_dropped = s.text_dropped;
            let row_key = row_key(&round);
            let col_key = (round.stored.dilemma_id.clone(), round.stored.repetition);
            let row = self
                .rows
                .iter()
                .position(|r| *r == row_key)
                .unwrap_or_else(|| {
                    self.rows.push(row_key);
                    self.rows.len() - 1
                });
            let col = self
                .columns
                .iter()
                .position(|c| *c == col_key)
                .unwrap_or_else(|| {
                    self.columns.push(col_key);
                    self.columns.len() - 1
                });
            self.index.insert(round.id().to_string(), self.rounds.len());
            self.cells.insert((row, col), self.rounds.len());
            self.unpriced.extend(round.unpriced.iter().cloned());
            let whole_at_rest = !round.text_dropped && round.at_rest();
            self.rounds.push(round);
            if whole_at_rest {
                super::round_text::touch(self, self.rounds.len() - 1);
            }
        }
        self.refresh_totals();
    }

    /// Sums the rounds' usage again (after a round was stored).
    pub(crate) fn refresh_totals(&mut self) {
        self.totals = self.rounds.iter().map(|r| r.usage).sum();
    }

    /// The round under the cursor.
    pub fn selected(&self) -> Option<&RoundState> {
        self.cells.get(&self.cursor).map(|i| &self.rounds[*i])
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

    /// Calls under way.
    pub fn in_flight(&self) -> usize {
        self.rounds.iter().map(|r| r.live.len()).sum()
    }

    /// Retries over the whole tournament: stored phases' failed attempts, and those of
    /// calls under way.
    pub fn retries(&self) -> u64 {
        let live: u64 = self
            .rounds
            .iter()
            .flat_map(|r| &r.live)
            .map(|p| u64::from(p.retries))
            .sum();
        self.totals.retries + live
    }

    /// Retries waiting, and the longest remaining wait.
    pub fn retries_waiting(&self) -> (usize, Duration) {
        let waits: Vec<Duration> = self
            .rounds
            .iter()
            .filter_map(|r| r.retry_until)
            .filter(|t| *t > self.now)
            .map(|t| t - self.now)
            .collect();
        (waits.len(), waits.iter().max().copied().unwrap_or_default())
    }

    /// Time since the run started, up to its end.
    pub fn elapsed(&self) -> Duration {
        let until = self.ended.unwrap_or(self.now);
        self.started
            .map_or(Duration::ZERO, |s| until.saturating_duration_since(s))
    }

    /// Counts of rounds by state: done, running, queued, incomplete, needing review.
    pub fn counts(&self) -> [usize; 5] {
        let mut c = [0; 5];
        for r in &self.rounds {
            let i = match super::filter::standing(r, self.now) {
                Standing::Done => 0,
                Standing::Running => 1,
                Standing::Queued => 2,
                Standing::Failed => 3,
                Standing::Review => 4,
            };
            c[i] += 1;
        }
        c
    }

    /// Remaining time, from the pace of the rounds this run has finished; none while paused
    /// (the pace says nothing then).
    pub fn eta(&self) -> Option<Duration> {
        let done = self.finished_this_run;
        let left = self.resume.to_run.saturating_sub(done);
        (self.finished.is_none() && !self.paused && done > 0 && left > 0)
            .then(|| self.elapsed().mul_f64(left as f64 / done as f64))
    }

    /// The stored rounds, as the analysis (and `report`) reads them.
    pub fn stored_rounds(&self) -> Vec<Round> {
        self.rounds
            .iter()
            .filter(|r| r.on_disk)
            .map(|r| Round::clone(&r.stored))
            .collect()
    }

    /// Recomputes the analysis: here from the rounds in memory when every one has its
    /// text, else by the driver from the store ([`Effect::Analyse`], answered by
    /// [`App::take_analysis`]), since rounds whose text waits in the store would leave out
    /// what the text-reading tables count.
    pub(crate) fn refresh_analysis(&mut self) -> Option<Effect> {
        if self.rounds.iter().any(|r| r.text_dropped) {
            if self.analysing.is_some() {
                return None;
            }
            self.analysing = Some(self.now);
            // Rounds stored from now on make the answer stale.
            if let Some(view) = &mut self.analysis {
                view.stale = false;
            }
            return Some(Effect::Analyse);
        }
        let analysis = crate::analysis::analyse(&self.stored_rounds(), &self.provider_of);
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
            self.now.saturating_duration_since(asked)
        });
        match &mut self.analysis {
            Some(view) => {
                view.analysis = analysis;
                view.computed = self.now;
                view.took = took;
            }
            None => {
                self.analysis = Some(AnalysisView {
                    analysis,
                    computed: self.now,
                    stale: false,
                    took,
                    tab: 0,
                    selected: 0,
                });
            }
        }
    }

    /// Records round files that could not be read, one log line each (model text in an
    /// error message is sanitised), and counts them for the header.
    pub fn note_unreadable(&mut self, problems: &[String]) {
        for p in problems {
            self.log_line(format!("unreadable: {}", crate::sanitize::sanitize(p)));
        }
        self.unreadable += problems.len();
    }

    pub(crate) fn log_line(&mut self, text: String) {
        let at_secs = self.elapsed().as_secs();
        self.log.push(LogLine { at_secs, text });
    }
}
