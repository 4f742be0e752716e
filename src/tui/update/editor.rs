//! Keys in the review editor: fix the model's text (every key not bound is text), or type
//! the fourteen scores directly; save once what is read is complete; leave, asking before
//! edits are lost.

use crossterm::event::KeyEvent;

use crate::domain::{Criterion, ParseStatus, Scores};
use crate::engine::{Correction, EngineCommand};
use crate::tui::app::{App, Editor, ReviewKind, ScoreFields};
use crate::tui::keys::{self, Action, Table};

use crate::tui::msg::Effect;

pub(super) fn key(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    let Some(editor) = &mut app.editor else {
        return Vec::new();
    };
    let table = if editor.fields.is_some() {
        Table::Fields
    } else {
        Table::Editor
    };
    let action = keys::action(table, &key);
    match action {
        Some(Action::Leave) => {
            if editor.text() == editor.original || editor.confirm_discard {
                app.editor = None;
            } else {
                editor.confirm_discard = true;
                editor.message = Some(
                    "unsaved edits: Esc again to discard them, any other key to go on editing"
                        .into(),
                );
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
    }
}

/// Switches between fixing the text and typing the scores, starting from what the text
/// yields so far; only Ethics Bowl judgments have score fields.
fn toggle_fields(editor: &mut Editor) {
    if editor.kind != ReviewKind::EthicsBowl {
        editor.message = Some(match editor.kind {
            ReviewKind::QaVerdict => "a question-answer judgment has no score fields: write \"Answer: A\" (or B) and \"Confidence: 0-100\"".into(),
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
        ReviewKind::QaVerdict => crate::protocols::qa_debate::verdict::read_verdict(&text).problems,
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
