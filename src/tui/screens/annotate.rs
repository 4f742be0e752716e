//! The annotate screen: a person judges the rounds of a sample one after another with the
//! protocol's own rubric (the Ethics Bowl's fourteen scores typed in the review editor's
//! score grid, with a reason for any of them; a question-answer debate's answer and
//! confidence; a structured debate's winner), blind by default. Ctrl-S asks the driver to
//! store the judgment ([`Effect::SaveAnnotation`]); its answer ([`AnnotateScreen::saved`])
//! moves on to the next round not yet judged. Nothing is saved but by Ctrl-S: leaving
//! drops what is typed for the round showing.
//!
//! Which rounds, in which order, and which this annotator judged already come from the
//! driver (`annotate` on the command line, or the name prompt `A` opens on the matrix).

use crossterm::event::{KeyCode, KeyEvent};

use crate::annotations::{
    ANNOTATION_SCHEMA_VERSION, Annotation, CriterionNote, HumanJudgment, QaAnswer, Via, Winner,
};
use crate::domain::{Criterion, Label, ProtocolKind, Scores, Team};
use crate::tui::keys::{Action, Binding, ch, ctrl, key};
use crate::tui::mirror::Mirror;
use crate::tui::msg::{AnnotateStart, Destination, Effect, Outcome};

use super::editor::ScoreFields;

/// The annotate screen's keys while choosing (scores, answer, winner).
pub const BINDINGS: &[Binding] = &[
    Binding {
        label: "digits / a b / p c t",
        help: "type a score (1–10) or the confidence; choose answer A or B (p d u for a label); choose pro, con or tie",
        footer: Some("type or choose"),
        keys: &[],
    },
    Binding {
        label: "arrows / Enter",
        help: "move between the fields",
        footer: Some("arrows move"),
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
        help: "write a reason (for the score under the cursor, or for the judgment)",
        footer: Some("Tab write a reason"),
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
    /// The structured debate: who won.
    StructuredDebate {
        /// The winner chosen.
        winner: Option<Winner>,
        /// The reason.
        justification: String,
    },
}

impl Form {
    /// An empty form for a round of `kind` (`three_way`: a question-answer baseline).
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
                winner: None,
                justification: String::new(),
            },
        }
    }

    /// Whether anything is typed or chosen.
    pub fn touched(&self) -> bool {
        *self
            != match self {
                Self::EthicsBowl { .. } => Self::new(ProtocolKind::EthicsBowl, false),
                Self::QaDebate { labels, .. } => Self::new(ProtocolKind::QaDebate, *labels),
                Self::StructuredDebate { .. } => Self::new(ProtocolKind::StructuredDebate, false),
            }
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
                winner,
                justification,
            } => match winner {
                Some(winner) => Ok(HumanJudgment::StructuredDebate {
                    winner: *winner,
                    justification: reason(justification),
                }),
                None => Err(vec!["choose the winner: p pro, c con, t tie".into()]),
            },
        }
    }

    /// The reason being written: the score's under the cursor (Ethics Bowl), or the
    /// judgment's.
    pub fn reason_mut(&mut self) -> &mut String {
        match self {
            Self::EthicsBowl { fields, notes } => {
                let (row, col) = fields.cursor;
                &mut notes[row.min(6)][col.min(1)]
            }
            Self::QaDebate { justification, .. } | Self::StructuredDebate { justification, .. } => {
                justification
            }
        }
    }

    /// The reason shown beside the form (see [`Self::reason_mut`]).
    pub fn reason(&self) -> &str {
        match self {
            Self::EthicsBowl { fields, notes } => {
                let (row, col) = fields.cursor;
                &notes[row.min(6)][col.min(1)]
            }
            Self::QaDebate { justification, .. } | Self::StructuredDebate { justification, .. } => {
                justification
            }
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

/// One person's session over the rounds of a sample.
#[derive(Debug, Clone)]
pub struct Session {
    /// Who judges.
    pub annotator: String,
    /// The rounds, in the order they are presented.
    pub round_ids: Vec<String>,
    /// For each round, whether this annotator judged it (stored).
    pub done: Vec<bool>,
    /// The round showing (an index into `round_ids`); none once every round is judged.
    pub at: Option<usize>,
    /// Model names, model judges' verdicts and the round's id are hidden.
    pub blind: bool,
    /// Started by `ethics-bowl annotate`: leaving quits (no matrix to go back to).
    pub standalone: bool,
    /// What is typed for the round showing.
    pub form: Form,
    /// Keys write the reason (else they type scores and choose).
    pub writing: bool,
    /// Leaving was asked with something typed: the next `q`, `y` or Esc leaves.
    pub confirm_leave: bool,
    /// A save was asked and its answer has not come.
    pub saving: bool,
    /// A message for the annotator (why a save was refused, what was stored).
    pub message: Option<String>,
    /// Rows the transcript is scrolled down.
    pub scroll: u16,
}

impl Session {
    /// A session from what the driver found, on the first round not yet judged.
    pub fn new(start: AnnotateStart, mirror: &Mirror) -> Self {
        let at = crate::annotations::session::first_unjudged(&start.done);
        let mut session = Self {
            annotator: start.annotator,
            round_ids: start.round_ids,
            done: start.done,
            at,
            blind: start.blind,
            standalone: start.standalone,
            form: Form::new(ProtocolKind::EthicsBowl, false),
            writing: false,
            confirm_leave: false,
            saving: false,
            message: None,
            scroll: 0,
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

    /// An empty form for the round showing, in its protocol's shape.
    fn reset_form(&mut self, mirror: &Mirror) {
        let round = self.round_id().and_then(|id| mirror.round(id));
        let kind = round.map_or(mirror.protocol, |r| r.stored.kind());
        let three_way =
            round.is_some_and(|r| r.stored.qa().is_some_and(|qa| qa.format.is_three_way()));
        self.form = Form::new(kind, three_way);
        self.writing = false;
        self.confirm_leave = false;
        self.scroll = 0;
    }

    /// Handles a key (the screen takes every key but Ctrl-C).
    pub fn key(&mut self, key: KeyEvent, keymap: &crate::tui::keymap::Keymap) -> Outcome {
        let table = if self.writing { WRITING } else { BINDINGS };
        let action = keymap.action(table, &key);
        if self.confirm_leave {
            self.confirm_leave = false;
            self.message = None;
            if matches!(action, Some(Action::Leave)) || key.code == KeyCode::Char('y') {
                return self.leave();
            }
            return Outcome::default();
        }
        if self.at.is_none() {
            // Every round judged: any leaving key leaves.
            return match action {
                Some(Action::Leave) => self.leave(),
                _ => Outcome::default(),
            };
        }
        match action {
            Some(Action::Leave) => {
                if self.form.touched() {
                    self.confirm_leave = true;
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
            Some(Action::PageUp) => self.scroll = self.scroll.saturating_sub(10),
            Some(Action::PageDown) => self.scroll = self.scroll.saturating_add(10),
            Some(Action::Save) => return self.save(),
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

    /// A key while choosing: move, type a score or the confidence, choose.
    fn choose(&mut self, action: Option<Action>, key: KeyEvent) {
        self.message = None;
        let typed = match key.code {
            KeyCode::Char(c) => Some(c.to_ascii_lowercase()),
            _ => None,
        };
        match &mut self.form {
            Form::EthicsBowl { fields, .. } => {
                let (row, col) = fields.cursor;
                match action {
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
                        if let Some(d) = typed.filter(char::is_ascii_digit)
                            && fields.values[row][col].len() < 2
                        {
                            fields.values[row][col].push(d);
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
            Form::StructuredDebate { winner, .. } => {
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
                Outcome::effect(Effect::SaveAnnotation(Box::new(Annotation {
                    schema_version: ANNOTATION_SCHEMA_VERSION,
                    annotator: self.annotator.clone(),
                    // Stamped by the driver as it writes the file.
                    written_at: String::new(),
                    blind: self.blind,
                    via: Via::Tui,
                    round_id,
                    judgment,
                })))
            }
        }
    }

    /// The driver's answer to a save of `round_id`: on to the next round not yet judged
    /// (after this one, then from the start), or the reason it was not stored.
    pub fn saved(&mut self, round_id: &str, result: Result<(), String>, mirror: &Mirror) {
        self.saving = false;
        if let Err(e) = result {
            self.message = Some(format!("not saved: {e}"));
            return;
        }
        let Some(i) = self.round_ids.iter().position(|id| id == round_id) else {
            return;
        };
        if let Some(done) = self.done.get_mut(i) {
            *done = true;
        }
        if self.at != Some(i) {
            return;
        }
        let n = self.round_ids.len();
        self.at = (1..=n)
            .map(|k| (i + k) % n)
            .find(|j| !self.done.get(*j).copied().unwrap_or(true));
        self.message = Some(format!(
            "saved: {} of {} judged",
            self.judged(),
            self.round_ids.len()
        ));
        self.reset_form(mirror);
    }

    fn leave(&self) -> Outcome {
        if self.standalone {
            Outcome::effect(Effect::Quit)
        } else {
            Outcome::go(Destination::Back)
        }
    }
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
        assert!(!structured.touched() && structured.judgment().is_err());
        if let Form::StructuredDebate { winner, .. } = &mut structured {
            *winner = Some(Winner::Tie);
        }
        *structured.reason_mut() = "  even  ".into();
        assert_eq!(
            structured.judgment().unwrap(),
            HumanJudgment::StructuredDebate {
                winner: Winner::Tie,
                justification: Some("even".into()),
            }
        );
        assert_eq!(score("10"), Some(10.0));
        assert_eq!((score("0"), score("11"), score("")), (None, None, None));
    }

    #[test]
    fn keys_choose_the_answer_or_label_and_type_the_confidence() {
        let press = |s: &mut Session, c: char| {
            s.key(
                KeyEvent::new(KeyCode::Char(c), crossterm::event::KeyModifiers::NONE),
                &crate::tui::keymap::Keymap::default(),
            )
        };
        let mirror = Mirror::new("t", crate::tui::Mode::Browse, std::time::Instant::now());
        let start = AnnotateStart {
            annotator: "ann".into(),
            round_ids: vec!["r".into()],
            done: vec![false],
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
}
