//! The mirror itself: what the UI knows of the tournament, and what is read off it (counts,
//! totals, the clock, the stored rounds).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::domain::{ProtocolKind, Round};
use crate::engine::{Progress, UsageTotals};
use crate::providers::{BatchView, RateSnapshot};
use crate::store::{FilterValues, TournamentStatus};
use crate::tui::msg::Effect;

use super::compare::Compared;
use super::round_state::RoundState;
use super::round_text::TextKept;
use super::standing::{Standing, standing};

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
    /// Seconds since the run started (or `open` opened the folder), when it was logged.
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
    /// Rounds finished before this run (done or waiting for review): with `to_run`, the
    /// schedule.
    pub finished: usize,
    /// Rounds this run runs (not finished before, half-finished ones included).
    pub to_run: usize,
}

/// What the UI knows of the tournament.
#[derive(Debug, Clone)]
pub struct Mirror {
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
    /// Warnings and errors, newest last.
    pub log: Vec<LogLine>,
    /// Round files in the folder that could not be read (or were set aside as unreadable by
    /// an earlier run): their rounds are missing from every screen, so the header says so.
    pub unreadable: usize,
    /// The run's warnings from planning (judge confounds and balance, the inputs' problems),
    /// sanitised, as `tournament.json` keeps them: the header shows them, since the UI
    /// covers the terminal they were printed on.
    pub warnings: Vec<String>,
    /// Each model's provider, from the tournament's record (the driver reads it as the UI
    /// starts), for the Analysis screen's same-provider check, as `report` makes it.
    pub provider_of: BTreeMap<String, String>,
    /// Each adaptive model's concurrency window and reported quota, as of its last call.
    pub rate_limits: BTreeMap<String, RateSnapshot>,
    /// The open batches (batch mode), as of `batches_at`.
    pub batches: Vec<BatchView>,
    /// When `batches` arrived, to age them by the UI's clock.
    pub batches_at: Instant,
    /// When the run started (its first event).
    pub started: Option<Instant>,
    /// When the run ended: the clock stops there.
    pub ended: Option<Instant>,
    /// The latest tick.
    pub now: Instant,
    /// The run's counters (rounds by state, what the stored phases used, calls under way,
    /// the schedule's shape, rounds finished this run, models without a price), folded
    /// from the events as the headless runner folds them.
    pub progress: Progress,
    /// New calls are on hold.
    pub paused: bool,
    /// How the run ended, once it has.
    pub finished: Option<TournamentStatus>,
    /// Which finished rounds keep their text in memory (see [`TextKept`]).
    pub text_kept: TextKept,
    /// Another results folder set beside this one (`open A --compare B`).
    pub compare: Option<Compared>,
    /// The engine is playing rounds: a live run until it finishes, or rounds retried
    /// after it (or in `open`) until they end. Pause, and stopping on quit, need it.
    pub engine_running: bool,
    /// People's judgments of these rounds (read when the folder is opened, again when the
    /// annotate screen stores one), for the Analysis screen's "Judges against people".
    pub people: crate::tui::msg::PeopleReadings,
    /// An adaptive design's cells of the full schedule without a round: not chosen yet
    /// while it runs, skipped once it stopped (see [`Design`]).
    pub design: Option<Design>,
}

/// What the matrix shows of an adaptive design (`pairings = "adaptive"`): the cells of the
/// full schedule it has not chosen, and whether it stopped choosing (then they are skipped).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Design {
    /// The (row, column) cells of rounds not chosen.
    pub not_chosen: std::collections::HashSet<(usize, usize)>,
    /// What stopped it (sanitised), once it stopped.
    pub stopped: Option<String>,
}

impl Mirror {
    /// An empty mirror, before the engine's first event.
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
            log: Vec::new(),
            unreadable: 0,
            warnings: Vec::new(),
            provider_of: BTreeMap::new(),
            rate_limits: BTreeMap::new(),
            batches: Vec::new(),
            batches_at: now,
            started: None,
            ended: None,
            now,
            progress: Progress::default(),
            paused: false,
            finished: None,
            text_kept: TextKept::default(),
            compare: None,
            design: None,
            engine_running: mode == Mode::Live,
            people: crate::tui::msg::PeopleReadings::default(),
        }
    }

    /// Whether `R` has rounds to run again: one `r` could retry, or, with no engine
    /// playing, a round not begun.
    pub fn can_retry_any(&self) -> bool {
        self.rounds.iter().any(|r| {
            r.can_retry(self.engine_running)
                || (!self.engine_running
                    && !r.on_disk
                    && r.status() == crate::domain::RoundStatus::Incomplete)
        })
    }

    /// The round `id`.
    pub fn round(&self, id: &str) -> Option<&RoundState> {
        self.index.get(id).map(|i| &self.rounds[*i])
    }

    /// The matrix cell of round `i`, when it has one.
    pub fn cell_of(&self, i: usize) -> Option<(usize, usize)> {
        self.cells
            .iter()
            .find(|(_, idx)| **idx == i)
            .map(|(cell, _)| *cell)
    }

    /// Calls under way.
    pub fn in_flight(&self) -> usize {
        self.progress.under_way()
    }

    /// What every round's stored phases used (earlier sessions included).
    pub fn totals(&self) -> UsageTotals {
        self.progress.totals()
    }

    /// What the schedule held as the run started.
    pub fn resume(&self) -> Resume {
        let outset = self.progress.outset();
        Resume {
            stored: outset.stored,
            finished: outset.rounds.saturating_sub(outset.to_run),
            to_run: outset.to_run,
        }
    }

    /// Retries over the whole tournament: stored phases' failed attempts, and those of
    /// calls under way.
    pub fn retries(&self) -> u64 {
        self.progress.totals().retries + self.progress.retries_under_way()
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
            let i = match standing(r, self.now) {
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
    /// (the pace says nothing then) or once nothing is left.
    pub fn eta(&self) -> Option<Duration> {
        let running = self.finished.is_none() && !self.paused && self.progress.left() > 0;
        self.progress.eta(self.elapsed()).filter(|_| running)
    }

    /// The stored rounds, as the analysis (and `report`) reads them.
    pub fn stored_rounds(&self) -> Vec<Round> {
        self.rounds
            .iter()
            .filter(|r| r.on_disk)
            .map(|r| Round::clone(&r.stored))
            .collect()
    }

    /// The values the rounds hold for each filter key, to resolve and check typed values.
    pub fn filter_values(&self) -> FilterValues {
        FilterValues::of(self.rounds.iter().map(|r| r.stored.as_ref()))
    }

    /// Records round files that could not be read, one log line each (model text in an
    /// error message is sanitised), and counts them for the header.
    pub fn note_unreadable(&mut self, problems: &[String]) {
        for p in problems {
            self.log_line(format!("unreadable: {}", crate::sanitize::sanitize(p)));
        }
        self.unreadable += problems.len();
    }

    /// Records the run's warnings from planning, sanitised, one log line each, for the
    /// header.
    pub fn note_warnings(&mut self, warnings: &[String]) {
        for w in warnings {
            let w = crate::sanitize::sanitize(w);
            self.log_line(format!("warning: {w}"));
            self.warnings.push(w);
        }
    }

    /// Adds a line to the log, timed by the run's clock.
    /// People's judgments of these rounds as read when the folder is opened, and why they
    /// could not be (a line in the log each).
    pub fn set_people(&mut self, people: crate::tui::msg::PeopleReadings, problems: Vec<String>) {
        self.people = people;
        for line in problems {
            self.log_line(line);
        }
    }

    pub(crate) fn log_line(&mut self, text: String) {
        // Its own time since the start, not the run's elapsed time, which stops at its end
        // (a line after the run, or in `open`, would otherwise carry the end's time).
        let at_secs = self
            .started
            .map_or(0, |s| self.now.saturating_duration_since(s).as_secs());
        self.log.push(LogLine { at_secs, text });
    }

    /// Sets folder B (`label_b`, its rounds) beside the rounds open (folder `label_a`), as
    /// `open A --compare B` does; a round of B that cannot be shown is named in the log.
    pub fn set_compare(&mut self, label_a: &str, label_b: &str, b_rounds: Vec<Round>) {
        let mut problems = Vec::new();
        let compared = Compared::new(
            self.protocol,
            (label_a, &self.stored_rounds()),
            (label_b, b_rounds),
            &mut problems,
        );
        for p in problems {
            self.log_line(p);
        }
        self.compare = Some(compared);
    }

    /// Compares again once a round of A was stored anew (a correction from the review
    /// queue), so marks and summary follow it.
    pub(crate) fn refresh_compare(&mut self) {
        if self.compare.is_some() {
            let a = self.stored_rounds();
            if let Some(c) = &mut self.compare {
                c.refresh(&a);
            }
        }
    }

    /// Keeps round `showing` whole while a screen shows it, and asks the driver for its
    /// text when it has none.
    pub(crate) fn show_whole(&mut self, showing: Option<usize>) -> Option<Effect> {
        self.text_kept.show(&self.rounds, showing)
    }

    /// Takes a round read back from the store (already sanitised), or why it could not be
    /// read.
    pub(crate) fn loaded(&mut self, round_id: &str, result: Result<Arc<Round>, String>) {
        if self.text_kept.loading.as_deref() == Some(round_id) {
            self.text_kept.loading = None;
        }
        let Some(i) = self.index.get(round_id).copied() else {
            return;
        };
        let why = match result {
            Ok(round) if round.id == round_id => {
                if self.rounds[i].text_dropped {
                    self.rounds[i].store(round);
                }
                self.text_kept.touch(&mut self.rounds, i);
                return;
            }
            Ok(_) => "its file holds another round".to_string(),
            Err(e) => e,
        };
        let line = format!("round {round_id} could not be read back from the store: {why}");
        self.log_line(line);
        self.text_kept.failed = Some((round_id.to_string(), why));
    }
}
