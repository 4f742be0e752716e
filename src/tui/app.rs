//! The UI's state: a plain struct that `update` changes and the views read. Model text is
//! sanitised once, as it enters; each transcript is held once, here.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use ratatui_textarea::TextArea;

use crate::domain::{Judgment, PanelRecord, ParseStatus, PhaseType, RoundStatus};
use crate::engine::{RoundView, UsageTotals};
use crate::sanitize::Sanitizer;
use crate::store::TournamentStatus;

/// One phase as the transcript shows it.
#[derive(Debug, Clone)]
pub struct PhaseView {
    /// Which phase.
    pub phase_type: PhaseType,
    /// The model answering.
    pub model: String,
    /// Its text so far (sanitised).
    pub text: String,
    /// The prompt it was given (sanitised), once finished.
    pub prompt: Option<String>,
    /// How long it took, once finished.
    pub latency_ms: Option<u64>,
    /// Whether it has finished.
    pub done: bool,
    /// The debater and round of arguments, for question-answer arguments (known once the
    /// phase has finished).
    pub turn: Option<crate::domain::Turn>,
    /// Filters the stream, which may split an escape sequence between two pieces.
    pub(crate) filter: Sanitizer,
}

impl PhaseView {
    /// The debater (A or B) of a debate turn: from its turn once finished, from its
    /// speaker label (see [`crate::domain::speaker`]) while it streams.
    pub fn team(&self) -> Option<crate::domain::Team> {
        use crate::domain::Team;
        self.turn.map(|t| t.side).or_else(|| {
            if self.model.contains("· debater A") {
                Some(Team::A)
            } else if self.model.contains("· debater B") {
                Some(Team::B)
            } else {
                None
            }
        })
    }
}

/// One round of the matrix.
#[derive(Debug, Clone)]
pub struct RoundState {
    /// The schedule's view of it.
    pub view: RoundView,
    /// Where it stands.
    pub status: RoundStatus,
    /// Phases, in the order they started.
    pub phases: Vec<PhaseView>,
    /// Judgments, one per judge.
    pub judgments: Vec<Judgment>,
    /// The judge panel's record, when a panel judges.
    pub panel: Option<PanelRecord>,
    /// When a retry is due, while one is waiting.
    pub retry_until: Option<Instant>,
    /// What stopped it.
    pub error: Option<String>,
}

impl RoundState {
    /// The phase running now, if any.
    pub fn running(&self) -> Option<&PhaseView> {
        self.phases.iter().rev().find(|p| !p.done)
    }

    /// Team A's total minus Team B's, from the panel's aggregate or the first usable
    /// judgment.
    pub fn margin(&self) -> Option<f64> {
        let aggregate = self
            .panel
            .as_ref()
            .and_then(PanelRecord::aggregate_judgment);
        let j = aggregate
            .as_ref()
            .or_else(|| self.judgments.iter().find(|j| j.is_usable()))?;
        j.margin()
    }

    /// Whether the judge chose the correct answer (question-answer rounds with a usable
    /// judgment and one correct answer).
    pub fn qa_correct(&self) -> Option<bool> {
        let setup = self.view.qa.as_deref()?;
        self.judgments
            .iter()
            .find_map(|j| crate::protocols::qa_debate::judge_correct(setup, j))
    }

    /// The phase view for this phase and model, created when missing.
    pub(crate) fn phase_mut(&mut self, phase_type: PhaseType, model: &str) -> &mut PhaseView {
        let at = match self
            .phases
            .iter()
            .position(|p| p.phase_type == phase_type && p.model == model)
        {
            Some(at) => at,
            None => {
                self.phases.push(PhaseView {
                    phase_type,
                    model: model.to_string(),
                    text: String::new(),
                    prompt: None,
                    latency_ms: None,
                    done: false,
                    turn: None,
                    filter: Sanitizer::new(),
                });
                self.phases.len() - 1
            }
        };
        &mut self.phases[at]
    }
}

/// A round's matrix row: its pairing, or for question-answer rounds its configuration and
/// judge.
fn row_key(view: &RoundView) -> (String, String) {
    match view.qa.as_deref() {
        Some(setup) => {
            let who = match setup.format {
                crate::domain::QaFormat::Debate => {
                    format!("debate {} v {}", view.team_a, view.team_b)
                }
                crate::domain::QaFormat::Consultancy => format!("consult {}", view.team_a),
                other => other.as_str().to_string(),
            };
            (who, view.judges.join(", "))
        }
        None => (view.team_a.clone(), view.team_b.clone()),
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
}

/// The Analysis screen's tabs.
pub const ANALYSIS_TABS: [&str; 5] = [
    "Models",
    "Ratings",
    "Dilemmas",
    "Judges",
    "Consistency flags",
];

/// The Analysis screen's state: the results and where the user is in them.
#[derive(Debug, Clone)]
pub struct AnalysisView {
    /// The latest analysis of the rounds so far.
    pub analysis: crate::analysis::Analysis,
    /// When it was computed.
    pub computed: Instant,
    /// Rounds have changed since.
    pub stale: bool,
    /// The tab showing.
    pub tab: usize,
    /// The selected line of the tab's list.
    pub selected: usize,
}

/// A judgment waiting for a person.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewItem {
    /// The round.
    pub round_id: String,
    /// The judge.
    pub judge: String,
    /// How the parser read it.
    pub status: ParseStatus,
    /// What it could not read.
    pub problems: Vec<String>,
    /// The judge's own text (sanitised).
    pub raw: String,
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

/// The whole UI state.
#[derive(Debug, Clone)]
pub struct App {
    /// The tournament's id.
    pub name: String,
    /// Live or browsing.
    pub mode: Mode,
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
    /// When the run started (first event).
    pub started: Option<Instant>,
    /// The latest tick.
    pub now: Instant,
    /// Totals from the engine.
    pub totals: UsageTotals,
    /// New calls are on hold.
    pub paused: bool,
    /// How the run ended, once it has.
    pub finished: Option<TournamentStatus>,
    /// `q` was pressed while calls are in flight: the next `q` or `y` quits.
    pub confirm_quit: bool,
    /// Judgments waiting for a person, oldest first.
    pub review: Vec<ReviewItem>,
    /// The selected review item.
    pub review_cursor: usize,
    /// The review item being edited.
    pub editor: Option<Editor>,
    /// The Analysis screen, once opened.
    pub analysis: Option<AnalysisView>,
    /// Something changed since the last frame.
    pub dirty: bool,
}

impl App {
    /// An empty state, before the engine's first event.
    pub fn new(name: &str, mode: Mode, now: Instant) -> Self {
        Self {
            name: name.to_string(),
            mode,
            rounds: Vec::new(),
            index: HashMap::new(),
            rows: Vec::new(),
            columns: Vec::new(),
            cells: HashMap::new(),
            cursor: (0, 0),
            screen: Screen::Matrix,
            help: false,
            scroll: 0,
            follow: true,
            show_prompts: false,
            log: Vec::new(),
            started: None,
            now,
            totals: UsageTotals::default(),
            paused: false,
            finished: None,
            confirm_quit: false,
            review: Vec::new(),
            review_cursor: 0,
            editor: None,
            analysis: None,
            dirty: true,
        }
    }

    /// Lays out the matrix from the schedule.
    pub fn set_schedule(&mut self, rounds: Vec<RoundView>) {
        self.rounds.clear();
        self.index.clear();
        self.rows.clear();
        self.columns.clear();
        self.cells.clear();
        for view in rounds {
            let row_key = row_key(&view);
            let col_key = (view.dilemma_id.clone(), view.repetition);
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
            self.index.insert(view.round_id.clone(), self.rounds.len());
            self.cells.insert((row, col), self.rounds.len());
            self.rounds.push(RoundState {
                status: view.status,
                view,
                phases: Vec::new(),
                judgments: Vec::new(),
                panel: None,
                retry_until: None,
                error: None,
            });
        }
    }

    /// Whether the tournament is a structured debate (Team A argues Pro).
    pub fn is_structured(&self) -> bool {
        self.rounds
            .first()
            .is_some_and(|r| r.view.structured.is_some())
    }

    /// Whether the tournament is a question-answer debate (rows are configurations).
    pub fn is_qa(&self) -> bool {
        self.rounds.first().is_some_and(|r| r.view.qa.is_some())
    }

    /// Judge accuracy per format over the judgments received so far.
    pub fn qa_accuracy(
        &self,
    ) -> std::collections::BTreeMap<crate::domain::QaFormat, crate::analysis::qa::Proportion> {
        let mut hits: std::collections::BTreeMap<crate::domain::QaFormat, (usize, usize)> =
            Default::default();
        for r in &self.rounds {
            if let (Some(setup), Some(correct)) = (&r.view.qa, r.qa_correct()) {
                let slot = hits.entry(setup.format).or_default();
                slot.0 += usize::from(correct);
                slot.1 += 1;
            }
        }
        hits.into_iter()
            .map(|(f, (h, n))| (f, crate::analysis::qa::Proportion::new(h, n)))
            .collect()
    }

    /// The round under the cursor.
    pub fn selected(&self) -> Option<&RoundState> {
        self.cells.get(&self.cursor).map(|i| &self.rounds[*i])
    }

    /// Calls under way.
    pub fn in_flight(&self) -> usize {
        self.rounds
            .iter()
            .flat_map(|r| &r.phases)
            .filter(|p| !p.done)
            .count()
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

    /// Time since the run started.
    pub fn elapsed(&self) -> Duration {
        self.started
            .map_or(Duration::ZERO, |s| self.now.saturating_duration_since(s))
    }

    /// Counts of rounds by state: done, running, queued, incomplete, needing review.
    pub fn counts(&self) -> [usize; 5] {
        let mut c = [0; 5];
        for r in &self.rounds {
            let i = match r.status {
                RoundStatus::Complete => 0,
                RoundStatus::NeedsReview => 4,
                RoundStatus::Incomplete
                    if r.running().is_some() || r.retry_until.is_some_and(|t| t > self.now) =>
                {
                    1
                }
                RoundStatus::Incomplete if r.error.is_some() => 3,
                RoundStatus::Incomplete => 2,
            };
            c[i] += 1;
        }
        c
    }

    /// Remaining time, from the pace of finished rounds so far.
    pub fn eta(&self) -> Option<Duration> {
        let [done, _, _, stopped, review] = self.counts();
        let finished = done + review + stopped;
        let left = self.rounds.len().saturating_sub(finished);
        (finished > 0 && left > 0).then(|| self.elapsed().mul_f64(left as f64 / finished as f64))
    }

    /// The rounds as the store would hold them, for the analysis (phases and judgments as
    /// received; finished phases only).
    pub fn rounds_for_analysis(&self) -> Vec<crate::domain::Round> {
        self.rounds
            .iter()
            .map(|r| crate::domain::Round {
                id: r.view.round_id.clone(),
                dilemma_id: r.view.dilemma_id.clone(),
                repetition: r.view.repetition,
                team_a_model: r.view.team_a.clone(),
                team_b_model: r.view.team_b.clone(),
                judge_model: r.view.judges.first().cloned().unwrap_or_default(),
                judge_models: r.view.judges.clone(),
                phases: r
                    .phases
                    .iter()
                    .filter(|p| p.done)
                    .map(|p| crate::domain::Phase {
                        latency_ms: p.latency_ms,
                        turn: p.turn,
                        ..crate::domain::Phase::new(p.phase_type, &p.model, &p.text)
                    })
                    .collect(),
                scores: r.judgments.first().cloned(),
                judgments: r.judgments.clone(),
                status: r.status,
                error: None,
                panel: r.panel.clone(),
                record: match (&r.view.qa, &r.view.structured) {
                    (Some(qa), _) => crate::domain::RoundRecord::QaDebate(qa.clone()),
                    (None, Some(s)) => crate::domain::RoundRecord::StructuredDebate(s.clone()),
                    (None, None) => crate::domain::RoundRecord::EthicsBowl,
                },
                timestamp: String::new(),
            })
            .map(|mut round| {
                crate::protocols::stored(round.kind()).after_phase(&mut round);
                round
            })
            .collect()
    }

    /// Recomputes the analysis now.
    pub(crate) fn refresh_analysis(&mut self) {
        let analysis = crate::analysis::analyse(&self.rounds_for_analysis(), &Default::default());
        match &mut self.analysis {
            Some(view) => {
                view.analysis = analysis;
                view.computed = self.now;
                view.stale = false;
            }
            None => {
                self.analysis = Some(AnalysisView {
                    analysis,
                    computed: self.now,
                    stale: false,
                    tab: 0,
                    selected: 0,
                });
            }
        }
    }

    pub(crate) fn log_line(&mut self, text: String) {
        let at_secs = self.elapsed().as_secs();
        self.log.push(LogLine { at_secs, text });
    }
}
