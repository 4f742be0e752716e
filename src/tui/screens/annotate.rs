//! The annotate screen: a person judges the rounds of a sample one after another with the
//! protocol's own rubric (the Ethics Bowl's fourteen scores typed in the review editor's
//! score grid, with a reason for any of them; a question-answer debate's answer and
//! confidence; a structured debate's standing of each argument and its winner), blind by
//! default. Ctrl-S asks the driver to store the judgment ([`Effect::SaveAnnotation`]); its
//! answer ([`Session::saved`]) moves on to the next round not yet judged. `[` and `]` go
//! to the round before or after in the sample, a judged one showing what was stored, to be
//! changed and saved again. Nothing is saved but by Ctrl-S: leaving or moving drops what is
//! typed for the round showing (asking first).
//!
//! Which rounds, in which order, and which this annotator judged already come from the
//! driver (`annotate` on the command line, or the name prompt `A` opens on the matrix).
//!
//! Time on task: each key charges the time since the screen's last event (a key, a save's
//! answer, the session's start), at most [`IDLE_CAP`], to the round that was showing, so a
//! round's time sums every visit; a save records it with the words the view drew
//! ([`Annotation::seconds_on_round`], [`Annotation::words_shown`]). The time comes from the
//! UI's clock as the last tick set it ([`Mirror::now`]), never read here.

use std::cell::Cell;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent};

use crate::annotations::pace::IDLE_CAP;
use crate::annotations::{
    ANNOTATION_SCHEMA_VERSION, Annotation, ArgumentStanding, CriterionNote, HumanJudgment,
    QaAnswer, Via, Winner,
};
use crate::domain::{Criterion, Label, ProtocolKind, Round, Scores, Standing, Team};
use crate::tui::keys::{Action, Binding, ch, ctrl, key};
use crate::tui::mirror::Mirror;
use crate::tui::msg::{AnnotateStart, Destination, Effect, Outcome};

use super::editor::ScoreFields;

/// The annotate screen's keys while choosing (scores, answer, winner).
pub const BINDINGS: &[Binding] = &[
    Binding {
        label: "digits / a b / u p r ? / p c t",
        help: "type a score (1–10) or the confidence; choose answer A or B (p d u for a label); an argument's standing (upheld, partly, refuted, uncertain); the winner (pro, con, tie)",
        footer: Some("type or choose"),
        keys: &[],
    },
    Binding {
        label: "arrows / Enter",
        help: "move between the fields",
        footer: None,
        keys: &[
            (key(KeyCode::Up), Action::Up),
            (key(KeyCode::Down), Action::Down),
            (key(KeyCode::Enter), Action::Down),
            (key(KeyCode::Left), Action::Left),
            (key(KeyCode::Right), Action::Right),
        ],
    },
    Binding {
        label: "Backspace",
        help: "erase a character",
        footer: None,
        keys: &[(key(KeyCode::Backspace), Action::Erase)],
    },
    Binding {
        label: "Tab",
        help: "write a reason (for the score or argument under the cursor, or for the judgment)",
        footer: Some("Tab reason"),
        keys: &[(key(KeyCode::Tab), Action::ScoreFields)],
    },
    Binding {
        label: "PgUp PgDn",
        help: "scroll the transcript",
        footer: Some("PgUp/PgDn scroll"),
        keys: &[
            (key(KeyCode::PageUp), Action::PageUp),
            (key(KeyCode::PageDown), Action::PageDown),
        ],
    },
    Binding {
        label: "Ctrl-S",
        help: "save the judgment and go to the next round",
        footer: Some("Ctrl-S save & next"),
        keys: &[(ctrl('s'), Action::Save)],
    },
    Binding {
        label: "[ ]",
        help: "the round before or after in the sample (a judged one shows what you stored, to change and save again)",
        footer: Some("[ ] other rounds"),
        keys: &[
            (ch('['), Action::PreviousRound),
            (ch(']'), Action::NextRound),
        ],
    },
    Binding {
        label: "q / Esc",
        help: "leave (what is typed for this round is not saved; asks first)",
        footer: Some("q leave"),
        keys: &[(ch('q'), Action::Leave), (key(KeyCode::Esc), Action::Leave)],
    },
];

/// The annotate screen's keys while writing a reason.
pub const WRITING: &[Binding] = &[
    Binding {
        label: "letters",
        help: "write the reason",
        footer: Some("type the reason"),
        keys: &[],
    },
    Binding {
        label: "Backspace",
        help: "erase a character",
        footer: None,
        keys: &[(key(KeyCode::Backspace), Action::Erase)],
    },
    Binding {
        label: "Tab / Esc",
        help: "back to the scores or choices",
        footer: Some("Tab/Esc back to the choices"),
        keys: &[
            (key(KeyCode::Tab), Action::ScoreFields),
            (key(KeyCode::Esc), Action::ScoreFields),
        ],
    },
    Binding {
        label: "Ctrl-S",
        help: "save the judgment and go to the next round",
        footer: Some("Ctrl-S save & next"),
        keys: &[(ctrl('s'), Action::Save)],
    },
];

/// The longest reason kept, in characters.
const MAX_REASON: usize = 2000;

/// One argument of a structured debate as the form holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgumentRow {
    /// Its id (`PRO-1`).
    pub id: String,
    /// Its claim, shown beside the standing.
    pub claim: String,
    /// The standing chosen.
    pub standing: Option<Standing>,
    /// The reason typed for it.
    pub reason: String,
}

/// The standings in the order their keys are listed, with their key and short name.
pub const STANDING_KEYS: [(char, Standing, &str); 4] = [
    ('u', Standing::Upheld, "upheld"),
    ('p', Standing::PartiallyUpheld, "partly"),
    ('r', Standing::Refuted, "refuted"),
    ('?', Standing::Uncertain, "uncertain"),
];

/// What is being entered for the round showing, in its protocol's shape.
// One form exists at a time: the Ethics Bowl's grid inline costs less than a box's
// indirection at every use.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Form {
    /// The Ethics Bowl: fourteen scores in the review editor's grid, and a reason for any.
    EthicsBowl {
        /// The scores as typed (whole numbers 1–10).
        fields: ScoreFields,
        /// The reason typed for each score (criterion, team).
        notes: [[String; 2]; 7],
    },
    /// The question-answer debate: an answer and a confidence.
    QaDebate {
        /// The answer chosen.
        answer: Option<QaAnswer>,
        /// A three-way baseline: the answer is a label, not a side.
        labels: bool,
        /// The confidence as typed (0–100).
        confidence: String,
        /// The cursor is on the confidence (else on the answer).
        on_confidence: bool,
        /// The reason.
        justification: String,
    },
    /// The structured debate: each argument's standing, then who won.
    StructuredDebate {
        /// The round's arguments, Pro's then Con's.
        arguments: Vec<ArgumentRow>,
        /// The row under the cursor: an argument's index, or `arguments.len()` for the
        /// winner.
        row: usize,
        /// The winner chosen.
        winner: Option<Winner>,
        /// The judgment's reason.
        justification: String,
    },
}

impl Form {
    /// An empty form for a round of `kind` (`three_way`: a question-answer baseline); a
    /// structured debate's without arguments (see [`Self::blank`]).
    pub fn new(kind: ProtocolKind, three_way: bool) -> Self {
        match kind {
            ProtocolKind::EthicsBowl => Self::EthicsBowl {
                fields: ScoreFields {
                    values: Default::default(),
                    cursor: (0, 0),
                },
                notes: Default::default(),
            },
            ProtocolKind::QaDebate => Self::QaDebate {
                answer: None,
                labels: three_way,
                confidence: String::new(),
                on_confidence: false,
                justification: String::new(),
            },
            ProtocolKind::StructuredDebate => Self::StructuredDebate {
                arguments: Vec::new(),
                row: 0,
                winner: None,
                justification: String::new(),
            },
        }
    }

    /// An empty form for `round` (its protocol, a question-answer baseline's labels, a
    /// structured debate's arguments), or for a round of `kind` not in memory.
    pub fn blank(round: Option<&Round>, kind: ProtocolKind) -> Self {
        let Some(round) = round else {
            return Self::new(kind, false);
        };
        let three_way = round.qa().is_some_and(|qa| qa.format.is_three_way());
        let mut form = Self::new(round.kind(), three_way);
        if let (Self::StructuredDebate { arguments, .. }, Some(setup)) =
            (&mut form, round.structured())
        {
            *arguments = setup
                .pro
                .arguments
                .iter()
                .chain(&setup.con.arguments)
                .map(|a| ArgumentRow {
                    id: a.id.clone(),
                    claim: a.claim.clone(),
                    standing: None,
                    reason: String::new(),
                })
                .collect();
        }
        form
    }

    /// The form for `round` filled with a judgment stored earlier, to be changed; a
    /// judgment of another protocol leaves it empty.
    pub fn filled(round: Option<&Round>, kind: ProtocolKind, judgment: &HumanJudgment) -> Self {
        let mut form = Self::blank(round, kind);
        match (&mut form, judgment) {
            (
                Self::EthicsBowl { fields, notes },
                HumanJudgment::EthicsBowl {
                    team_a,
                    team_b,
                    justifications,
                },
            ) => {
                for (i, c) in Criterion::ALL.iter().enumerate() {
                    for (t, scores) in [team_a, team_b].into_iter().enumerate() {
                        fields.values[i][t] =
                            scores.get(*c).map(|v| format!("{v}")).unwrap_or_default();
                    }
                }
                for n in justifications {
                    let i = Criterion::ALL
                        .iter()
                        .position(|c| *c == n.criterion)
                        .unwrap_or(0);
                    notes[i][usize::from(n.team == Team::B)] = n.text.clone();
                }
            }
            (
                Self::QaDebate {
                    answer: a,
                    confidence: c,
                    justification: j,
                    ..
                },
                HumanJudgment::QaDebate {
                    answer,
                    confidence,
                    justification,
                },
            ) => {
                *a = Some(*answer);
                *c = format!("{}", confidence.round());
                *j = justification.clone().unwrap_or_default();
            }
            (
                Self::StructuredDebate {
                    arguments,
                    winner: w,
                    justification: j,
                    ..
                },
                HumanJudgment::StructuredDebate {
                    winner,
                    standings,
                    justification,
                },
            ) => {
                *w = Some(*winner);
                *j = justification.clone().unwrap_or_default();
                for s in standings {
                    if let Some(row) = arguments.iter_mut().find(|r| r.id == s.arg_id) {
                        row.standing = Some(s.standing);
                        row.reason = s.reason.clone().unwrap_or_default();
                    }
                }
            }
            _ => {}
        }
        form
    }

    /// The judgment entered, or every problem that keeps it from being one (the
    /// validation the preview shows, and the reason a save is refused).
    pub fn judgment(&self) -> Result<HumanJudgment, Vec<String>> {
        match self {
            Self::EthicsBowl { fields, notes } => {
                let mut problems = Vec::new();
                let mut team_a = Scores::default();
                let mut team_b = Scores::default();
                let mut justifications = Vec::new();
                for (i, c) in Criterion::ALL.iter().enumerate() {
                    for (t, (team, scores)) in [(Team::A, &mut team_a), (Team::B, &mut team_b)]
                        .into_iter()
                        .enumerate()
                    {
                        match score(&fields.values[i][t]) {
                            Some(v) => scores.set(*c, Some(v)),
                            None => problems.push(format!(
                                "{} for Team {} needs a whole score from 1 to 10",
                                c.label(),
                                if t == 0 { "A" } else { "B" }
                            )),
                        }
                        let note = notes[i][t].trim();
                        if !note.is_empty() {
                            justifications.push(CriterionNote {
                                team,
                                criterion: *c,
                                text: note.to_string(),
                            });
                        }
                    }
                }
                if problems.is_empty() {
                    Ok(HumanJudgment::EthicsBowl {
                        team_a,
                        team_b,
                        justifications,
                    })
                } else {
                    Err(problems)
                }
            }
            Self::QaDebate {
                answer,
                confidence,
                justification,
                labels,
                ..
            } => {
                let mut problems = Vec::new();
                if answer.is_none() {
                    problems.push(if *labels {
                        "choose the answer: p proved, d disproved, u unknown".to_string()
                    } else {
                        "choose the answer: a or b".to_string()
                    });
                }
                let conf = confidence.parse::<u8>().ok().filter(|c| *c <= 100);
                if conf.is_none() {
                    problems.push("type a confidence from 0 to 100".into());
                }
                match (answer, conf) {
                    (Some(answer), Some(conf)) => Ok(HumanJudgment::QaDebate {
                        answer: *answer,
                        confidence: f64::from(conf),
                        justification: reason(justification),
                    }),
                    _ => Err(problems),
                }
            }
            Self::StructuredDebate {
                arguments,
                winner,
                justification,
                ..
            } => {
                let mut problems = Vec::new();
                let open: Vec<&str> = arguments
                    .iter()
                    .filter(|a| a.standing.is_none())
                    .map(|a| a.id.as_str())
                    .collect();
                if !open.is_empty() {
                    problems.push(format!(
                        "give the standing of {} (u upheld, p partly, r refuted, ? uncertain)",
                        open.join(", ")
                    ));
                }
                if winner.is_none() {
                    problems.push("choose the winner: p pro, c con, t tie".into());
                }
                match winner {
                    Some(winner) if problems.is_empty() => Ok(HumanJudgment::StructuredDebate {
                        winner: *winner,
                        standings: arguments
                            .iter()
                            .filter_map(|a| {
                                Some(ArgumentStanding {
                                    arg_id: a.id.clone(),
                                    standing: a.standing?,
                                    reason: reason(&a.reason),
                                })
                            })
                            .collect(),
                        justification: reason(justification),
                    }),
                    _ => Err(problems),
                }
            }
        }
    }

    /// The reason being written: the score's under the cursor (Ethics Bowl), the
    /// argument's under the cursor (structured debate), or the judgment's.
    pub fn reason_mut(&mut self) -> &mut String {
        match self {
            Self::EthicsBowl { fields, notes } => {
                let (row, col) = fields.cursor;
                &mut notes[row.min(6)][col.min(1)]
            }
            Self::StructuredDebate {
                arguments,
                row,
                justification,
                ..
            } => match arguments.get_mut(*row) {
                Some(a) => &mut a.reason,
                None => justification,
            },
            Self::QaDebate { justification, .. } => justification,
        }
    }

    /// The reason shown beside the form (see [`Self::reason_mut`]).
    pub fn reason(&self) -> &str {
        match self {
            Self::EthicsBowl { fields, notes } => {
                let (row, col) = fields.cursor;
                &notes[row.min(6)][col.min(1)]
            }
            Self::StructuredDebate {
                arguments,
                row,
                justification,
                ..
            } => arguments
                .get(*row)
                .map_or(justification.as_str(), |a| a.reason.as_str()),
            Self::QaDebate { justification, .. } => justification,
        }
    }
}

/// A typed Ethics Bowl score: a whole number from 1 to 10.
fn score(text: &str) -> Option<f64> {
    text.trim()
        .parse::<u8>()
        .ok()
        .filter(|v| (1..=10).contains(v))
        .map(f64::from)
}

/// A reason as stored: none when only spaces were typed.
fn reason(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// What a leaving or moving key waits to be confirmed for, with something typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    /// Leave the screen.
    Leave,
    /// Go to the round at this index of the sample.
    Go(usize),
}

/// One person's session over the rounds of a sample.
#[derive(Debug, Clone)]
pub struct Session {
    /// Who judges.
    pub annotator: String,
    /// The rounds, in the order they are presented.
    pub round_ids: Vec<String>,
    /// For each round, whether this annotator judged it (stored).
    pub done: Vec<bool>,
    /// For each round, this annotator's judgment as stored (read at the start, and kept as
    /// each save is answered), shown again when they go back to it.
    pub stored: Vec<Option<Annotation>>,
    /// The round showing (an index into `round_ids`); none once every round is judged.
    pub at: Option<usize>,
    /// Model names, model judges' verdicts and the round's id are hidden.
    pub blind: bool,
    /// Started by `ethics-bowl annotate`: leaving quits (no matrix to go back to).
    pub standalone: bool,
    /// What is typed for the round showing.
    pub form: Form,
    /// The form as the round opened (empty, or the judgment stored): what is typed is
    /// unsaved when the form differs from it.
    pub opened: Form,
    /// Keys write the reason (else they type scores and choose).
    pub writing: bool,
    /// A key that drops what is typed, waiting for the next `q`, `y` or Esc (leave), or
    /// the same `[`/`]` or `y` (move).
    pub confirm: Option<Pending>,
    /// A save was asked and its answer has not come.
    pub saving: bool,
    /// A message for the annotator (why a save was refused, what was stored).
    pub message: Option<String>,
    /// Rows the transcript is scrolled down.
    pub scroll: u16,
    /// The last key was a score's digit that moved the cursor on by itself: an Enter now
    /// is the habit of the review editor's grid, and does not move it again.
    pub moved_on: bool,
    /// The transcript as last drawn: the rows it shows at once and the furthest it can be
    /// scrolled (set by the view), so PgDn turns a page and stops at the end.
    pub transcript: Cell<Option<(u16, u16)>>,
    /// The words of the transcript as last drawn, with the index of the round they are of
    /// (set by the view): what a save records as [`Annotation::words_shown`].
    pub words_drawn: Cell<Option<(usize, u64)>>,
    /// For each round, the seconds it was showing in this session and not yet stored with
    /// a judgment (see the module's comment).
    pub unsaved_seconds: Vec<f64>,
    /// When time was last charged to a round; none while the screen is not showing.
    pub clock: Option<Instant>,
    /// The seconds of `unsaved_seconds` the save waiting for its answer records.
    sending: f64,
}

impl Session {
    /// A session from what the driver found, on the first round not yet judged.
    pub fn new(start: AnnotateStart, mirror: &Mirror) -> Self {
        let at = crate::annotations::session::first_unjudged(&start.done);
        let mut stored = start.stored;
        stored.resize(start.round_ids.len(), None);
        let rounds = start.round_ids.len();
        let mut session = Self {
            annotator: start.annotator,
            round_ids: start.round_ids,
            done: start.done,
            stored,
            at,
            blind: start.blind,
            standalone: start.standalone,
            form: Form::new(ProtocolKind::EthicsBowl, false),
            opened: Form::new(ProtocolKind::EthicsBowl, false),
            writing: false,
            confirm: None,
            saving: false,
            message: None,
            scroll: 0,
            moved_on: false,
            transcript: Cell::new(None),
            words_drawn: Cell::new(None),
            unsaved_seconds: vec![0.0; rounds],
            clock: Some(mirror.now),
            sending: 0.0,
        };
        session.reset_form(mirror);
        session
    }

    /// The id of the round showing.
    pub fn round_id(&self) -> Option<&str> {
        self.at
            .and_then(|i| self.round_ids.get(i))
            .map(String::as_str)
    }

    /// How many rounds this annotator has judged.
    pub fn judged(&self) -> usize {
        self.done.iter().filter(|d| **d).count()
    }

    /// This annotator's stored judgment of the round showing, when they judged it.
    pub fn stored_here(&self) -> Option<&Annotation> {
        self.at
            .and_then(|i| self.stored.get(i))
            .and_then(Option::as_ref)
    }

    /// Whether something typed for the round showing is not saved.
    pub fn unsaved(&self) -> bool {
        self.form != self.opened
    }

    /// Charges the time since the last event, at most [`IDLE_CAP`], to the round showing
    /// (none once every round is judged), and restarts the clock at `now`.
    fn charge(&mut self, now: Instant) {
        if let (Some(i), Some(since)) = (self.at, self.clock)
            && let Some(seconds) = self.unsaved_seconds.get_mut(i)
        {
            *seconds += now
                .saturating_duration_since(since)
                .min(IDLE_CAP)
                .as_secs_f64();
        }
        self.clock = Some(now);
    }

    /// The time on round `i` a save records: what its stored judgment recorded plus this
    /// session's time on it since, in tenths of a second; none when its stored judgment
    /// recorded no time (a spreadsheet's, or an older file's: its first time is unknown).
    pub fn seconds_on(&self, i: usize) -> Option<f64> {
        let unsaved = self.unsaved_seconds.get(i).copied().unwrap_or(0.0);
        let before = match self.stored.get(i).and_then(Option::as_ref) {
            None => 0.0,
            Some(a) => a.seconds_on_round?,
        };
        Some(((before + unsaved) * 10.0).round() / 10.0)
    }

    /// The words the view drew for the round showing, once it has drawn them.
    pub fn words_here(&self) -> Option<u64> {
        self.words_drawn
            .get()
            .filter(|(i, _)| Some(*i) == self.at)
            .map(|(_, words)| words)
    }

    /// The form for the round showing: empty, or filled with the judgment stored.
    fn reset_form(&mut self, mirror: &Mirror) {
        let round = self
            .round_id()
            .and_then(|id| mirror.round(id))
            .map(|r| r.stored.as_ref());
        self.form = match self.stored_here() {
            Some(a) => Form::filled(round, a.judgment.kind(), &a.judgment),
            None => Form::blank(round, mirror.protocol),
        };
        self.opened = self.form.clone();
        self.writing = false;
        self.confirm = None;
        self.scroll = 0;
    }

    /// Handles a key (the screen takes every key but Ctrl-C).
    pub fn key(
        &mut self,
        key: KeyEvent,
        keymap: &crate::tui::keymap::Keymap,
        mirror: &Mirror,
    ) -> Outcome {
        self.charge(mirror.now);
        let table = if self.writing { WRITING } else { BINDINGS };
        let action = keymap.action(table, &key);
        if let Some(pending) = self.confirm.take() {
            self.message = None;
            let yes = key.code == KeyCode::Char('y');
            match pending {
                Pending::Leave if yes || matches!(action, Some(Action::Leave)) => {
                    return self.leave();
                }
                Pending::Go(i)
                    if yes || matches!(action, Some(Action::NextRound | Action::PreviousRound)) =>
                {
                    self.go(i, mirror);
                }
                _ => {}
            }
            return Outcome::default();
        }
        if self.at.is_none() {
            // Every round judged: a leaving key leaves, `[` goes back to the last round.
            return match action {
                Some(Action::Leave) => self.leave(),
                Some(Action::PreviousRound) if !self.round_ids.is_empty() => {
                    self.go(self.round_ids.len() - 1, mirror);
                    Outcome::default()
                }
                _ => Outcome::default(),
            };
        }
        match action {
            Some(Action::Leave) => {
                if self.unsaved() {
                    self.confirm = Some(Pending::Leave);
                    let key = |action| keymap.first_key(table, action).unwrap_or_default();
                    self.message = Some(format!(
                        "Leave? What is typed for this round is not saved (rounds saved with {} are kept): {} or y {}, any other key stays.",
                        key(Action::Save),
                        key(Action::Leave),
                        if self.standalone {
                            "quits"
                        } else {
                            "goes back"
                        }
                    ));
                    return Outcome::default();
                }
                return self.leave();
            }
            Some(Action::ScoreFields) => {
                self.writing = !self.writing;
                self.message = None;
            }
            Some(Action::PageUp) => self.scroll = self.scroll.saturating_sub(self.page()),
            Some(Action::PageDown) => {
                let next = self.scroll.saturating_add(self.page());
                self.scroll = match self.transcript.get() {
                    Some((_, bottom)) => next.min(bottom.max(self.scroll)),
                    None => next,
                };
            }
            Some(Action::Save) => return self.save(),
            Some(step @ (Action::NextRound | Action::PreviousRound)) => {
                self.step(step == Action::NextRound, mirror);
            }
            _ if self.writing => {
                let text = self.form.reason_mut();
                match (action, key.code) {
                    (Some(Action::Erase), _) => {
                        text.pop();
                    }
                    (_, KeyCode::Char(c))
                        if !c.is_control() && text.chars().count() < MAX_REASON =>
                    {
                        text.push(c);
                    }
                    (_, KeyCode::Enter) if text.chars().count() < MAX_REASON => text.push(' '),
                    _ => {}
                }
            }
            _ => self.choose(action, key),
        }
        Outcome::default()
    }

    /// Rows PgUp and PgDn move: the transcript's height as last drawn less two rows kept in
    /// sight (20 before it is drawn).
    fn page(&self) -> u16 {
        self.transcript
            .get()
            .map_or(20, |(height, _)| height.saturating_sub(2).max(1))
    }

    /// `]` or `[`: the round after or before the one showing, in the sample's order (not
    /// wrapping); asks first when something typed is not saved.
    fn step(&mut self, forward: bool, mirror: &Mirror) {
        let Some(at) = self.at else { return };
        let to = if forward {
            (at + 1 < self.round_ids.len()).then_some(at + 1)
        } else {
            at.checked_sub(1)
        };
        let Some(to) = to else {
            self.message = Some(
                if forward {
                    "this is the sample's last round"
                } else {
                    "this is the sample's first round"
                }
                .into(),
            );
            return;
        };
        if self.unsaved() {
            self.confirm = Some(Pending::Go(to));
            self.message = Some(format!(
                "Go to round {}? What is typed for this round is not saved: {} or y goes, any other key stays.",
                to + 1,
                if forward { "]" } else { "[" }
            ));
            return;
        }
        self.go(to, mirror);
    }

    /// Shows the round at index `i` of the sample: its stored judgment, or an empty form.
    fn go(&mut self, i: usize, mirror: &Mirror) {
        self.at = Some(i);
        self.reset_form(mirror);
        self.message = Some(match self.stored_here() {
            Some(a) => format!(
                "you judged this round ({}); change it and Ctrl-S saves the change",
                stamp(&a.written_at)
            ),
            None => "not judged yet".into(),
        });
    }

    /// A key while choosing: move, type a score or the confidence, choose.
    fn choose(&mut self, action: Option<Action>, key: KeyEvent) {
        self.message = None;
        let moved_on = std::mem::take(&mut self.moved_on);
        let typed = match key.code {
            KeyCode::Char(c) => Some(c.to_ascii_lowercase()),
            _ => None,
        };
        match &mut self.form {
            Form::EthicsBowl { fields, .. } => {
                let (row, col) = fields.cursor;
                match action {
                    // Enter right after a score moved the cursor on: already moved.
                    Some(Action::Down) if moved_on && key.code == KeyCode::Enter => {}
                    Some(Action::Up) => fields.cursor.0 = row.saturating_sub(1),
                    Some(Action::Down) => {
                        // Down (and Enter) from the last row of Team A goes on to Team B.
                        if row + 1 < Criterion::ALL.len() {
                            fields.cursor.0 = row + 1;
                        } else if col == 0 {
                            fields.cursor = (0, 1);
                        }
                    }
                    Some(Action::Left) => fields.cursor.1 = 0,
                    Some(Action::Right) => fields.cursor.1 = 1,
                    Some(Action::Erase) => {
                        fields.values[row][col].pop();
                    }
                    _ => {
                        if let Some(d) = typed.filter(char::is_ascii_digit) {
                            self.moved_on = type_score(fields, d);
                        }
                    }
                }
            }
            Form::QaDebate {
                answer,
                labels,
                confidence,
                on_confidence,
                ..
            } => match (action, typed) {
                (Some(Action::Up), _) => *on_confidence = false,
                (Some(Action::Down), _) => *on_confidence = true,
                (Some(Action::Erase), _) => {
                    confidence.pop();
                }
                (_, Some(d)) if d.is_ascii_digit() => {
                    if confidence.len() < 3 {
                        confidence.push(d);
                    }
                    *on_confidence = true;
                }
                (_, Some(c)) => {
                    let chosen = if *labels {
                        match c {
                            'p' => Some(QaAnswer::Label(Label::Proved)),
                            'd' => Some(QaAnswer::Label(Label::Disproved)),
                            'u' => Some(QaAnswer::Label(Label::Unknown)),
                            _ => None,
                        }
                    } else {
                        match c {
                            'a' => Some(QaAnswer::Side(Team::A)),
                            'b' => Some(QaAnswer::Side(Team::B)),
                            _ => None,
                        }
                    };
                    if chosen.is_some() {
                        *answer = chosen;
                        *on_confidence = true;
                    }
                }
                _ => {}
            },
            Form::StructuredDebate {
                arguments,
                row,
                winner,
                ..
            } => {
                let last = arguments.len();
                match action {
                    Some(Action::Up) => *row = row.saturating_sub(1),
                    Some(Action::Down) => *row = (*row + 1).min(last),
                    Some(Action::Erase) => match arguments.get_mut(*row) {
                        Some(a) => a.standing = None,
                        None => *winner = None,
                    },
                    _ => match arguments.get_mut(*row) {
                        // An argument's standing, and on to the next row.
                        Some(a) => {
                            if let Some((_, standing, _)) =
                                STANDING_KEYS.iter().find(|(k, _, _)| Some(*k) == typed)
                            {
                                a.standing = Some(*standing);
                                *row = (*row + 1).min(last);
                            }
                        }
                        None => {
                            let chosen = match typed {
                                Some('p') => Some(Winner::Pro),
                                Some('c') => Some(Winner::Con),
                                Some('t') => Some(Winner::Tie),
                                _ => None,
                            };
                            if chosen.is_some() {
                                *winner = chosen;
                            }
                        }
                    },
                }
            }
        }
    }

    /// Asks the driver to store the judgment, once the form holds one.
    fn save(&mut self) -> Outcome {
        if self.saving {
            return Outcome::default();
        }
        let Some(round_id) = self.round_id().map(str::to_string) else {
            return Outcome::default();
        };
        match self.form.judgment() {
            Err(problems) => {
                self.message = Some(format!("not saved: {}", problems.join("; ")));
                Outcome::default()
            }
            Ok(judgment) => {
                self.saving = true;
                self.message = Some("saving…".into());
                let i = self.at.unwrap_or_default();
                self.sending = self.unsaved_seconds.get(i).copied().unwrap_or(0.0);
                Outcome::effect(Effect::SaveAnnotation(Box::new(Annotation {
                    schema_version: ANNOTATION_SCHEMA_VERSION,
                    annotator: self.annotator.clone(),
                    // Stamped by the driver as it writes the file (with when it was first
                    // written, when it replaces one).
                    written_at: String::new(),
                    first_written_at: None,
                    blind: self.blind,
                    via: Via::Tui,
                    round_id,
                    judgment,
                    seconds_on_round: self.seconds_on(i),
                    words_shown: self.words_here(),
                })))
            }
        }
    }

    /// The driver's answer to a save: the annotation as stored, on to the next round not
    /// yet judged (after this one, then from the start); or the reason it was not stored.
    pub fn saved(&mut self, round_id: &str, result: Result<Annotation, String>, mirror: &Mirror) {
        self.saving = false;
        // The time until the answer is the round's that was showing; what the save
        // recorded is stored now, and only the time since stays unsaved.
        self.charge(mirror.now);
        let sent = std::mem::take(&mut self.sending);
        let stored = match result {
            Ok(a) => a,
            Err(e) => {
                self.message = Some(format!("not saved: {e}"));
                return;
            }
        };
        let Some(i) = self.round_ids.iter().position(|id| id == round_id) else {
            return;
        };
        let changed = self.stored.get(i).is_some_and(Option::is_some);
        if let Some(seconds) = self.unsaved_seconds.get_mut(i) {
            *seconds = (*seconds - sent).max(0.0);
        }
        if let Some(done) = self.done.get_mut(i) {
            *done = true;
        }
        if let Some(slot) = self.stored.get_mut(i) {
            *slot = Some(stored);
        }
        if self.at != Some(i) {
            return;
        }
        let n = self.round_ids.len();
        self.at = (1..=n)
            .map(|k| (i + k) % n)
            .find(|j| !self.done.get(*j).copied().unwrap_or(true));
        self.message = Some(format!(
            "{}: {} of {} judged",
            if changed {
                format!("round {} changed", i + 1)
            } else {
                "saved".to_string()
            },
            self.judged(),
            self.round_ids.len()
        ));
        self.reset_form(mirror);
    }

    /// Leaves the screen; its time stops until it shows again.
    fn leave(&mut self) -> Outcome {
        self.clock = None;
        if self.standalone {
            Outcome::effect(Effect::Quit)
        } else {
            Outcome::go(Destination::Back)
        }
    }
}

/// A stored time as shown: `2026-11-28 02:51 UTC` from RFC 3339.
pub fn stamp(rfc3339: &str) -> String {
    match (rfc3339.get(..10), rfc3339.get(11..16)) {
        (Some(day), Some(time)) => format!("{day} {time} UTC"),
        _ => rfc3339.to_string(),
    }
}

/// A digit typed into the score under the cursor. A score is one digit or `10`, so the
/// cursor moves on by itself once the cell holds one: a round's fourteen scores need no key
/// but their digits. A `1` waits for a possible `0`; another digit after it leaves the `1`
/// and goes to the next cell. A digit typed over a whole score replaces it. Returns whether
/// the cursor moved on after the digit was placed.
fn type_score(fields: &mut ScoreFields, digit: char) -> bool {
    let (row, col) = fields.cursor;
    let advance = |fields: &mut ScoreFields| {
        if row + 1 < Criterion::ALL.len() {
            fields.cursor.0 = row + 1;
            true
        } else if col == 0 {
            fields.cursor = (0, 1);
            true
        } else {
            false
        }
    };
    let cell = &mut fields.values[row][col];
    if cell == "1" && digit == '0' {
        cell.push('0');
        return advance(fields);
    }
    if cell == "1" {
        return advance(fields) && type_score(fields, digit);
    }
    *cell = digit.to_string();
    digit != '1' && digit != '0' && advance(fields)
}

/// The annotate screen's state: the name prompt `A` opens on the matrix, and the session.
#[derive(Debug, Clone, Default)]
pub struct AnnotateScreen {
    /// The annotator's name being typed, while the prompt is open.
    pub prompt: Option<String>,
    /// The session, once the driver found its rounds.
    pub session: Option<Session>,
}

/// The name prompt's keys.
pub const PROMPT: &[Binding] = &[
    Binding {
        label: "Enter",
        help: "judge the sample (or every finished round) as this annotator",
        footer: Some("Enter start judging"),
        keys: &[(key(KeyCode::Enter), Action::Run)],
    },
    Binding {
        label: "Esc",
        help: "close the prompt",
        footer: Some("Esc cancel"),
        keys: &[(key(KeyCode::Esc), Action::Back)],
    },
];

impl AnnotateScreen {
    /// Opens the name prompt.
    pub fn open_prompt(&mut self) {
        self.prompt = Some(String::new());
    }

    /// A key in the name prompt: text, Ctrl-U/Ctrl-W, Enter to ask the driver for the
    /// session ([`Effect::StartAnnotating`]), Esc to close.
    pub fn prompt_key(
        &mut self,
        key: &KeyEvent,
        mirror: &Mirror,
        keymap: &crate::tui::keymap::Keymap,
    ) -> Outcome {
        let Some(name) = &mut self.prompt else {
            return Outcome::default();
        };
        if crate::tui::prompt::erase(name, key) {
            return Outcome::default();
        }
        match keymap.action(PROMPT, key) {
            Some(Action::Back) => self.prompt = None,
            Some(Action::Run) => {
                let annotator = name.trim().to_string();
                if let Err(e) = crate::annotations::check_annotator(&annotator) {
                    return Outcome::notice(crate::sanitize::sanitize(&e.to_string()));
                }
                self.prompt = None;
                let rounds = mirror
                    .rounds
                    .iter()
                    .filter(|r| r.on_disk)
                    .map(|r| crate::annotations::RoundInfo::of(&r.stored))
                    .collect();
                return Outcome::effect(Effect::StartAnnotating { annotator, rounds });
            }
            _ => {
                if key.code == KeyCode::Backspace {
                    name.pop();
                } else if let KeyCode::Char(c) = key.code
                    && !c.is_control()
                    && name.len() < 64
                {
                    name.push(c);
                }
            }
        }
        Outcome::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_protocol_form_is_checked_before_it_is_a_judgment() {
        let mut qa = Form::new(ProtocolKind::QaDebate, false);
        assert_eq!(qa.judgment().unwrap_err().len(), 2);
        if let Form::QaDebate {
            answer, confidence, ..
        } = &mut qa
        {
            *answer = Some(QaAnswer::Side(Team::B));
            *confidence = "101".into();
        }
        assert_eq!(qa.judgment().unwrap_err().len(), 1, "over 100");
        if let Form::QaDebate { confidence, .. } = &mut qa {
            *confidence = "80".into();
        }
        assert_eq!(
            qa.judgment().unwrap(),
            HumanJudgment::QaDebate {
                answer: QaAnswer::Side(Team::B),
                confidence: 80.0,
                justification: None,
            }
        );
        let mut structured = Form::new(ProtocolKind::StructuredDebate, false);
        assert!(structured.judgment().is_err());
        if let Form::StructuredDebate { winner, .. } = &mut structured {
            *winner = Some(Winner::Tie);
        }
        *structured.reason_mut() = "  even  ".into();
        assert_eq!(
            structured.judgment().unwrap(),
            HumanJudgment::StructuredDebate {
                winner: Winner::Tie,
                standings: Vec::new(),
                justification: Some("even".into()),
            }
        );
        assert_eq!(score("10"), Some(10.0));
        assert_eq!((score("0"), score("11"), score("")), (None, None, None));
    }

    #[test]
    fn keys_choose_the_answer_or_label_and_type_the_confidence() {
        let mirror = Mirror::new("t", crate::tui::Mode::Browse, std::time::Instant::now());
        let press = |s: &mut Session, c: char| {
            s.key(
                KeyEvent::new(KeyCode::Char(c), crossterm::event::KeyModifiers::NONE),
                &crate::tui::keymap::Keymap::default(),
                &mirror,
            )
        };
        let start = AnnotateStart {
            annotator: "ann".into(),
            round_ids: vec!["r".into()],
            done: vec![false],
            stored: Vec::new(),
            blind: true,
            standalone: true,
        };
        let mut s = Session::new(start, &mirror);
        s.form = Form::new(ProtocolKind::QaDebate, true);
        for c in ['a', 'u', '7', '5'] {
            press(&mut s, c);
        }
        assert!(matches!(
            s.form.judgment(),
            Ok(HumanJudgment::QaDebate {
                answer: QaAnswer::Label(Label::Unknown),
                confidence: 75.0,
                ..
            })
        ));
        s.form = Form::new(ProtocolKind::StructuredDebate, false);
        press(&mut s, 'c');
        assert!(matches!(
            s.form.judgment(),
            Ok(HumanJudgment::StructuredDebate {
                winner: Winner::Con,
                ..
            })
        ));
    }

    /// Each argument's standing is one key, and the cursor moves on to the next argument,
    /// then to the winner (where `p` is pro, not "partly"); every argument needs one.
    #[test]
    fn a_structured_judgment_takes_each_arguments_standing_then_the_winner() {
        let mirror = Mirror::new("t", crate::tui::Mode::Browse, std::time::Instant::now());
        let keymap = crate::tui::keymap::Keymap::default();
        let start = AnnotateStart {
            annotator: "ann".into(),
            round_ids: vec!["r".into()],
            done: vec![false],
            stored: Vec::new(),
            blind: true,
            standalone: true,
        };
        let mut s = Session::new(start, &mirror);
        let row = |id: &str| ArgumentRow {
            id: id.into(),
            claim: format!("claim {id}"),
            standing: None,
            reason: String::new(),
        };
        s.form = Form::StructuredDebate {
            arguments: vec![row("PRO-1"), row("PRO-2"), row("CON-1")],
            row: 0,
            winner: None,
            justification: String::new(),
        };
        s.opened = s.form.clone();
        let press = |s: &mut Session, code: KeyCode| {
            s.key(
                KeyEvent::new(code, crossterm::event::KeyModifiers::NONE),
                &keymap,
                &mirror,
            )
        };
        press(&mut s, KeyCode::Char('p'));
        press(&mut s, KeyCode::Char('u'));
        let problems = s.form.judgment().unwrap_err();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("CON-1"), "{problems:?}");
        press(&mut s, KeyCode::Tab);
        for c in "weak data".chars() {
            press(&mut s, KeyCode::Char(c));
        }
        press(&mut s, KeyCode::Tab);
        press(&mut s, KeyCode::Char('r'));
        press(&mut s, KeyCode::Char('p'));
        let Ok(HumanJudgment::StructuredDebate {
            winner, standings, ..
        }) = s.form.judgment()
        else {
            panic!("{:?}", s.form.judgment())
        };
        assert_eq!(winner, Winner::Pro);
        let got: Vec<(&str, Standing, Option<&str>)> = standings
            .iter()
            .map(|a| (a.arg_id.as_str(), a.standing, a.reason.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("PRO-1", Standing::PartiallyUpheld, None),
                ("PRO-2", Standing::Upheld, None),
                ("CON-1", Standing::Refuted, Some("weak data")),
            ]
        );
        // Up goes back to an argument; Backspace clears its standing.
        press(&mut s, KeyCode::Up);
        press(&mut s, KeyCode::Backspace);
        assert!(s.form.judgment().is_err());
    }

    /// Digits alone fill the grid: the cursor moves on after each whole score, `1` waits
    /// for a `0`, and Team A's last row goes on to Team B's first.
    #[test]
    fn scores_need_only_their_digits() {
        let mut fields = ScoreFields {
            values: Default::default(),
            cursor: (0, 0),
        };
        for d in "7110156234".chars() {
            type_score(&mut fields, d);
        }
        let column =
            |t: usize| -> Vec<String> { fields.values.iter().map(|r| r[t].clone()).collect() };
        assert_eq!(column(0), ["7", "1", "10", "1", "5", "6", "2"]);
        assert_eq!(column(1)[..2], ["3".to_string(), "4".to_string()]);
        assert_eq!(fields.cursor, (2, 1));
        // A digit over a whole score replaces it.
        fields.cursor = (0, 0);
        assert!(type_score(&mut fields, '9'));
        assert_eq!((fields.values[0][0].as_str(), fields.cursor), ("9", (1, 0)));
    }

    /// `[` goes back to a judged round and shows what was stored; a change asks before
    /// moving away unsaved, and its save answer records the round as changed.
    #[test]
    fn a_judged_round_is_shown_again_to_be_changed() {
        let mirror = Mirror::new("t", crate::tui::Mode::Browse, std::time::Instant::now());
        let keymap = crate::tui::keymap::Keymap::default();
        let judged = Annotation {
            schema_version: ANNOTATION_SCHEMA_VERSION,
            annotator: "ann".into(),
            written_at: "2026-11-28T01:02:03Z".into(),
            first_written_at: None,
            blind: true,
            via: Via::Tui,
            round_id: "r1".into(),
            judgment: HumanJudgment::QaDebate {
                answer: QaAnswer::Side(Team::A),
                confidence: 60.0,
                justification: Some("the quote".into()),
            },
            seconds_on_round: None,
            words_shown: None,
        };
        let start = AnnotateStart {
            annotator: "ann".into(),
            round_ids: vec!["r1".into(), "r2".into()],
            done: vec![true, false],
            stored: vec![Some(judged.clone()), None],
            blind: true,
            standalone: true,
        };
        let mut s = Session::new(start, &mirror);
        let press = |s: &mut Session, code: KeyCode| {
            s.key(
                KeyEvent::new(code, crossterm::event::KeyModifiers::NONE),
                &keymap,
                &mirror,
            )
        };
        assert_eq!(s.at, Some(1));
        press(&mut s, KeyCode::Char(']'));
        assert!(s.message.as_deref().unwrap().contains("last round"));
        press(&mut s, KeyCode::Char('['));
        assert_eq!(s.at, Some(0));
        assert_eq!(
            s.form.judgment().unwrap(),
            judged.judgment,
            "what was stored shows"
        );
        assert!(
            s.message
                .as_deref()
                .unwrap()
                .contains("2026-11-28 01:02 UTC")
        );
        assert!(!s.unsaved());
        press(&mut s, KeyCode::Char('b'));
        assert!(s.unsaved());
        press(&mut s, KeyCode::Char(']'));
        assert_eq!(
            (s.at, s.confirm),
            (Some(0), Some(Pending::Go(1))),
            "asks first"
        );
        press(&mut s, KeyCode::Char('x'));
        assert_eq!((s.at, s.confirm), (Some(0), None), "any other key stays");
        let outcome = s.key(
            KeyEvent::new(KeyCode::Char('s'), crossterm::event::KeyModifiers::CONTROL),
            &keymap,
            &mirror,
        );
        let Some(Effect::SaveAnnotation(changed)) = outcome.effects.first() else {
            panic!("{outcome:?}")
        };
        assert!(matches!(
            changed.judgment,
            HumanJudgment::QaDebate {
                answer: QaAnswer::Side(Team::B),
                ..
            }
        ));
        let stored = Annotation {
            written_at: "2026-11-28T01:10:00Z".into(),
            first_written_at: Some(judged.written_at.clone()),
            ..(**changed).clone()
        };
        s.saved("r1", Ok(stored.clone()), &mirror);
        assert_eq!(s.at, Some(1), "on to the round not yet judged");
        assert!(s.message.as_deref().unwrap().starts_with("round 1 changed"));
        assert_eq!(s.stored[0], Some(stored));
        assert_eq!(s.judged(), 1);
    }
}
