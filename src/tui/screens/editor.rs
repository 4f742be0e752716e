//! The review editor: a review item's text to fix (every key not bound is text), or, for an
//! Ethics Bowl judgment, its fourteen scores typed directly; it reads the text as the engine
//! will (the round's own protocol, see [`Editor::preview`]), saves once what is read is
//! complete, and asks before edits are lost.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui_textarea::TextArea;

use crate::domain::{Criterion, Judgment, ParseStatus, ProtocolKind, Round, Scores};
use crate::engine::{Correction, EngineCommand, WaitingKind};
use crate::protocols::judging::JudgeAnswer;
use crate::tui::keymap::Keymap;
use crate::tui::keys::{Action, Binding, ctrl, key};
use crate::tui::mirror::ReviewItem;
use crate::tui::msg::{Destination, Effect, Outcome};

/// The editor's keys, fixing the text.
pub const BINDINGS: &[Binding] = &[
    Binding {
        label: "letters, arrows",
        help: "edit the text",
        footer: Some("type to edit"),
        keys: &[],
    },
    Binding {
        label: "Tab",
        help: "type the fourteen scores instead of fixing the text",
        footer: Some("Tab type the 14 scores instead"),
        keys: &[(key(KeyCode::Tab), Action::ScoreFields)],
    },
    Binding {
        label: "Ctrl-S",
        help: "save (once everything is read)",
        footer: Some("Ctrl-S save"),
        keys: &[(ctrl('s'), Action::Save)],
    },
    Binding {
        label: "Esc",
        help: "leave the editor (twice to discard edits)",
        footer: Some("Esc leave (twice to discard edits)"),
        keys: &[(key(KeyCode::Esc), Action::Leave)],
    },
];

/// The editor's keys, typing the fourteen scores.
pub const FIELDS: &[Binding] = &[
    Binding {
        label: "digits, .",
        help: "type a score (1 to 10, halves allowed)",
        footer: Some("type each score"),
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
        help: "back to the text",
        footer: Some("Tab back to the text"),
        keys: &[(key(KeyCode::Tab), Action::ScoreFields)],
    },
    Binding {
        label: "Ctrl-S",
        help: "save (once every field holds a score)",
        footer: Some("Ctrl-S save"),
        keys: &[(ctrl('s'), Action::Save)],
    },
    Binding {
        label: "Esc",
        help: "leave the editor (twice to discard edits)",
        footer: Some("Esc leave"),
        keys: &[(key(KeyCode::Esc), Action::Leave)],
    },
];

/// What a review item is, for the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewKind {
    /// An Ethics Bowl judgment: fourteen scores (text or score fields).
    EthicsBowl,
    /// A question-answer judgment: an answer and a confidence (or a baseline's label).
    QaVerdict,
    /// A structured-debate judgment: the argument trace and the side totals, as JSON.
    StructuredVerdict,
    /// A debater's reply, which the engine checks itself when it stores it.
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
    /// The round as stored when the editor opened, which a judgment's text is read against
    /// (the preview and the check before saving); `None` when it was not in the mirror.
    pub round: Option<Arc<Round>>,
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

    /// The edited text read as the engine reads a correction: by the round's own protocol
    /// (the Ethics Bowl's rubric, a question-answer choice or label, a structured verdict),
    /// for the judge's model. `None` for a debater's reply, or a round not in the mirror.
    pub fn preview(&self) -> Option<Judgment> {
        if self.kind == ReviewKind::Other {
            return None;
        }
        let round = self.round.as_deref()?;
        let model = round
            .judgments
            .iter()
            .find(|j| j.judge_key() == self.judge)
            .map_or(self.judge.as_str(), |j| j.judge_model.as_str());
        let text = self.text();
        Some(crate::protocols::stored(round.kind()).judge(
            round,
            model,
            JudgeAnswer::free_text(&text),
        ))
    }
}

impl Editor {
    /// The editor on a review item of `round` (as stored; `None` when not in the mirror).
    pub fn open(item: &ReviewItem, round: Option<Arc<Round>>) -> Self {
        let kind = match (item.kind, round.as_deref().map(Round::kind)) {
            (WaitingKind::Reply, _) => ReviewKind::Other,
            (WaitingKind::Judgment(_), Some(ProtocolKind::QaDebate)) => ReviewKind::QaVerdict,
            (WaitingKind::Judgment(_), Some(ProtocolKind::StructuredDebate)) => {
                ReviewKind::StructuredVerdict
            }
            (WaitingKind::Judgment(_), Some(ProtocolKind::EthicsBowl) | None) => {
                ReviewKind::EthicsBowl
            }
        };
        Self {
            round,
            kind,
            round_id: item.round_id.clone(),
            judge: item.judge.clone(),
            textarea: TextArea::new(item.raw.lines().map(str::to_string).collect()),
            original: item.raw.clone(),
            confirm_discard: false,
            message: None,
            fields: None,
        }
    }

    /// Handles a key: every key not bound is text (or a score, in the fields).
    pub fn key(&mut self, key: KeyEvent, keymap: &Keymap) -> Outcome {
        let editor = self;
        let table = if editor.fields.is_some() {
            FIELDS
        } else {
            BINDINGS
        };
        let action = keymap.action(table, &key);
        let effects = match action {
            Some(Action::Leave) => {
                if editor.text() == editor.original || editor.confirm_discard {
                    return Outcome::go(Destination::Back);
                } else {
                    editor.confirm_discard = true;
                    let leave = keymap.first_key(table, Action::Leave).unwrap_or_default();
                    editor.message = Some(format!(
                        "unsaved edits: {leave} again to discard them, any other key to go on editing"
                    ));
                }
                Vec::new()
            }
            Some(Action::ScoreFields) => {
                toggle_fields(editor);
                Vec::new()
            }
            _ if editor.fields.is_some() => fields_key(editor, action, key),
            Some(Action::Save) => save_text(editor),
            _ => {
                editor.confirm_discard = false;
                editor.message = None;
                editor.textarea.input(key);
                Vec::new()
            }
        };
        Outcome {
            effects,
            ..Outcome::default()
        }
    }
}

/// Switches between fixing the text and typing the scores, starting from what the text
/// yields so far; only Ethics Bowl judgments have score fields.
fn toggle_fields(editor: &mut Editor) {
    if editor.kind != ReviewKind::EthicsBowl {
        editor.message = Some(match editor.kind {
            ReviewKind::QaVerdict => "a question-answer judgment has no score fields: write \"Answer: A\" (or B) and \"Confidence: 0-100\"".into(),
            ReviewKind::StructuredVerdict => "a structured-debate verdict has no score fields: fix its JSON (every argument assessed, pro_total and con_total)".into(),
            _ => "this item has no score fields: fix the JSON text".into(),
        });
        return;
    }
    editor.fields = match editor.fields {
        Some(_) => None,
        None => {
            let parsed = crate::protocols::judging::parse_judgment(&editor.text());
            let show = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
            let values = std::array::from_fn(|i| {
                let c = Criterion::ALL[i];
                [show(parsed.team_a.get(c)), show(parsed.team_b.get(c))]
            });
            Some(ScoreFields {
                values,
                cursor: (0, 0),
            })
        }
    };
    editor.message = None;
}

/// Saves the edited text when what it yields is complete; otherwise says what is missing.
fn save_text(editor: &mut Editor) -> Vec<Effect> {
    let text = editor.text();
    let problems = match editor.kind {
        ReviewKind::QaVerdict | ReviewKind::StructuredVerdict => match editor.preview() {
            Some(j) if j.parse_status != ParseStatus::Parsed && j.problems.is_empty() => {
                vec!["nothing read yet".into()]
            }
            Some(j) if j.parse_status != ParseStatus::Parsed => j.problems,
            Some(_) => Vec::new(),
            // Not in the mirror: the engine reads it and refuses it with a reason.
            None if editor.kind == ReviewKind::QaVerdict => {
                crate::protocols::qa_debate::verdict::read_verdict(&text).problems
            }
            None => Vec::new(),
        },
        ReviewKind::EthicsBowl => {
            let parsed = crate::protocols::judging::parse_judgment(&text);
            if parsed.status() == ParseStatus::Parsed {
                Vec::new()
            } else {
                parsed.problems
            }
        }
        // The engine reads it against the round and refuses it with a reason.
        ReviewKind::Other => Vec::new(),
    };
    if !problems.is_empty() {
        editor.message = Some(format!("not saved: {}", problems.join("; ")));
        return Vec::new();
    }
    editor.message = Some("saving…".into());
    vec![Effect::Command(EngineCommand::ApplyCorrection {
        round_id: editor.round_id.clone(),
        judge: editor.judge.clone(),
        correction: Box::new(Correction::Text(text)),
    })]
}

/// Keys in the fourteen score fields: arrows move, digits and `.` type, Backspace erases,
/// Ctrl-S saves when every field holds a score from 1 to 10.
fn fields_key(editor: &mut Editor, action: Option<Action>, key: KeyEvent) -> Vec<Effect> {
    let Some(fields) = &mut editor.fields else {
        return Vec::new();
    };
    let (row, col) = fields.cursor;
    match action {
        Some(Action::Up) => fields.cursor.0 = row.saturating_sub(1),
        Some(Action::Down) => fields.cursor.0 = (row + 1).min(Criterion::ALL.len() - 1),
        Some(Action::Left) => fields.cursor.1 = 0,
        Some(Action::Right) => fields.cursor.1 = 1,
        Some(Action::Erase) => {
            fields.values[row][col].pop();
        }
        Some(Action::Save) => {
            let mut team_a = Scores::default();
            let mut team_b = Scores::default();
            for (i, c) in Criterion::ALL.iter().enumerate() {
                for (t, scores) in [&mut team_a, &mut team_b].into_iter().enumerate() {
                    match fields.values[i][t].parse::<f64>() {
                        Ok(v) if (1.0..=10.0).contains(&v) => scores.set(*c, Some(v)),
                        _ => {
                            editor.message = Some(format!(
                                "not saved: {} for Team {} needs a score from 1 to 10",
                                c.label(),
                                if t == 0 { 'A' } else { 'B' }
                            ));
                            fields.cursor = (i, t);
                            return Vec::new();
                        }
                    }
                }
            }
            editor.message = Some("saving…".into());
            return vec![Effect::Command(EngineCommand::ApplyCorrection {
                round_id: editor.round_id.clone(),
                judge: editor.judge.clone(),
                correction: Box::new(Correction::Scores { team_a, team_b }),
            })];
        }
        _ => {
            if let crossterm::event::KeyCode::Char(ch) = key.code
                && (ch.is_ascii_digit() || ch == '.')
                && fields.values[row][col].len() < 4
            {
                fields.values[row][col].push(ch);
            }
        }
    }
    Vec::new()
}
