//! The review queue: judgments the parser could not fully read, oldest first, with why; and
//! the editor, the judge's text beside a live preview of what the parser extracts from it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{
    Block, Borders, Cell, List, ListItem, ListState, Paragraph, Row, Table, Wrap,
};

use crate::domain::{Criterion, Judgment, ParseStatus, Reading};
use crate::engine::WaitingKind;
use crate::protocols::judging::parse_judgment;
use crate::tui::app::App;
use crate::tui::keymap::Keymap;
use crate::tui::screens::editor::{self, Editor, ReviewKind, ScoreFields};
use crate::tui::theme::Theme;

use super::keyed;

/// Draws the review queue.
pub fn render_queue(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(theme.border))
        .title(format!(
            " Review queue · {} waiting{} ",
            app.shown().review_len(),
            if app.filter.active.is_some() {
                " in the filtered rounds"
            } else {
                ""
            }
        ));
    if app.shown().review_len() == 0 {
        let empty = if app.filter.active.is_some() {
            "Nothing to review in the rounds the filter lets through (F clears it)."
        } else {
            "Every judgment is readable. Nothing to review."
        };
        frame.render_widget(
            Paragraph::new(empty)
                .style(Style::new().fg(theme.dim))
                .block(block),
            area,
        );
        return;
    }
    let items: Vec<ListItem<'_>> = app
        .shown()
        .review_items()
        .map(|item| {
            let status = match item.kind {
                WaitingKind::Judgment(ParseStatus::Failed) => "no scores read",
                WaitingKind::Judgment(_) => "some scores read",
                WaitingKind::Reply => "reply not readable",
            };
            let why = item.problems.first().map(String::as_str).unwrap_or("");
            let what = match item.kind {
                WaitingKind::Judgment(_) => "judge",
                WaitingKind::Reply => "reply",
            };
            ListItem::new(vec![
                Line::from(format!(
                    "{} · {what} {} · {status}",
                    item.round_id, item.judge
                )),
                Line::styled(format!("    {why}"), Style::new().fg(theme.dim)),
            ])
        })
        .collect();
    let mut state = ListState::default().with_selected(Some(app.screens.review.cursor));
    let list = List::new(items)
        .block(block)
        .highlight_style(Style::new().bg(theme.selected).add_modifier(Modifier::BOLD))
        .highlight_symbol("▶ ");
    frame.render_stateful_widget(list, area, &mut state);
}

/// Draws the editor.
pub fn render_editor(
    frame: &mut Frame<'_>,
    area: Rect,
    (editor, keys): (&Editor, &Keymap),
    theme: &Theme,
) {
    let [main, message] = Layout::vertical([Constraint::Min(5), Constraint::Length(2)]).areas(area);
    let [text_area, preview_area] =
        Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(main);
    let mut textarea = editor.textarea.clone();
    // The judge's long lines wrap; the title names the round and judge (the keys are in the
    // footer).
    textarea.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
    textarea.set_block(
        Block::new()
            .borders(Borders::ALL)
            .border_style(Style::new().fg(theme.accent))
            .title(format!(" {} · {} ", editor.judge, editor.round_id)),
    );
    frame.render_widget(&textarea, text_area);

    if let Some(fields) = &editor.fields {
        render_fields(frame, preview_area, fields, theme);
        let note = editor.message.clone().unwrap_or_else(|| {
            keyed::fill(
                keys,
                editor::FIELDS,
                "Type each score (1–10, halves allowed); arrows move; {save} saves; {score_fields} goes back to the text.",
            )
            .into_owned()
        });
        frame.render_widget(
            Paragraph::new(note)
                .wrap(Wrap { trim: true })
                .style(Style::new().fg(theme.dim)),
            message,
        );
        return;
    }
    if editor.kind != ReviewKind::EthicsBowl {
        render_other_preview(frame, (preview_area, message), editor, keys, theme);
        return;
    }
    let parsed = parse_judgment(&editor.text());
    let show = |v: Option<f64>| v.map_or("missing".to_string(), |v| format!("{v}"));
    let total = |t: Option<f64>| t.map_or("–".to_string(), |v| format!("{v}"));
    let totals = Row::new([
        Cell::from("Total /70"),
        Cell::from(total(parsed.team_a.total())),
        Cell::from(total(parsed.team_b.total())),
    ])
    .style(Style::new().add_modifier(Modifier::BOLD));
    let rows: Vec<Row<'_>> = Criterion::ALL
        .iter()
        .map(|c| {
            let (a, b) = (parsed.team_a.get(*c), parsed.team_b.get(*c));
            let style = if a.is_none() || b.is_none() {
                Style::new().fg(theme.review)
            } else {
                Style::new()
            };
            Row::new([
                Cell::from(c.label()),
                Cell::from(show(a)),
                Cell::from(show(b)),
            ])
            .style(style)
        })
        .chain(std::iter::once(totals))
        .collect();
    let status = match parsed.status() {
        ParseStatus::Parsed => " Preview · complete: {save} saves ",
        ParseStatus::Partial => " Preview · partial ",
        _ => " Preview · no scores yet ",
    };
    let status = keyed::fill(keys, editor::BINDINGS, status);
    let [table_area, problems_area] =
        Layout::vertical([Constraint::Length(11), Constraint::Min(2)]).areas(preview_area);
    frame.render_widget(scores_table(rows, &status, theme.border, theme), table_area);
    let problems: Vec<Line<'_>> = parsed
        .problems
        .iter()
        .map(|p| Line::styled(p.clone(), Style::new().fg(theme.review)))
        .collect();
    frame.render_widget(
        Paragraph::new(problems).wrap(Wrap { trim: true }).block(
            Block::new()
                .borders(Borders::ALL)
                .border_style(Style::new().fg(theme.border))
                .title(" Problems "),
        ),
        problems_area,
    );
    let note = editor
        .message
        .clone()
        .unwrap_or_else(|| "Fix the text until every score is read (e.g. add \"Consistency: 7\" lines under Team A / Team B headings, or JSON).".into());
    frame.render_widget(
        Paragraph::new(note)
            .wrap(Wrap { trim: true })
            .style(Style::new().fg(theme.dim)),
        message,
    );
}

/// A team's typed scores added up, once all seven read as numbers ("–" until then).
fn typed_total(fields: &ScoreFields, team: usize) -> String {
    fields
        .values
        .iter()
        .map(|row| row[team].trim().parse::<f64>().ok())
        .sum::<Option<f64>>()
        .map_or("–".to_string(), |t| format!("{t}"))
}

pub(super) fn render_fields(
    frame: &mut Frame<'_>,
    area: Rect,
    fields: &ScoreFields,
    theme: &Theme,
) {
    let rows: Vec<Row<'_>> = Criterion::ALL
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let cell = |t: usize| {
                let text = format!("[{:>4}]", fields.values[i][t]);
                let style = if fields.cursor == (i, t) {
                    Style::new()
                        .bg(theme.selected)
                        .add_modifier(Modifier::BOLD | Modifier::REVERSED)
                } else {
                    Style::new()
                };
                Cell::from(text).style(style)
            };
            Row::new([Cell::from(c.label()), cell(0), cell(1)])
        })
        .chain(std::iter::once(
            Row::new([
                Cell::from("Total /70"),
                Cell::from(typed_total(fields, 0)),
                Cell::from(typed_total(fields, 1)),
            ])
            .style(Style::new().add_modifier(Modifier::BOLD)),
        ))
        .collect();
    frame.render_widget(
        scores_table(rows, " Scores, typed ", theme.accent, theme),
        area,
    );
}

/// The criterion × Team A / Team B table both panes of the editor show (what the parser
/// reads, or what is typed).
fn scores_table<'a>(
    rows: Vec<Row<'a>>,
    title: &'a str,
    border: ratatui::style::Color,
    theme: &Theme,
) -> Table<'a> {
    Table::new(
        rows,
        [
            Constraint::Length(24),
            Constraint::Length(8),
            Constraint::Length(8),
        ],
    )
    .header(Row::new(["criterion", "Team A", "Team B"]).style(Style::new().fg(theme.dim)))
    .block(
        Block::new()
            .borders(Borders::ALL)
            .border_style(Style::new().fg(border))
            .title(title),
    )
}

/// What a question-answer or structured-debate judgment's text reads as (the round's own
/// protocol reading it, as the engine will when it is saved), its problems and a hint in
/// that protocol's terms; a debater's reply is read by the engine when saved.
fn render_other_preview(
    frame: &mut Frame<'_>,
    (area, message): (Rect, Rect),
    editor: &Editor,
    keys: &Keymap,
    theme: &Theme,
) {
    let preview = editor.preview();
    let (title, mut lines) = match &preview {
        Some(j) => (preview_title(j), reading_lines(j, theme)),
        None => (
            " Preview ",
            vec![Line::styled(
                keyed::fill(
                    keys,
                    editor::BINDINGS,
                    "read by the engine when saved ({save}); it says why if it cannot",
                )
                .into_owned(),
                Style::new().fg(theme.dim),
            )],
        ),
    };
    let title = keyed::fill(keys, editor::BINDINGS, title);
    if let Some(j) = &preview {
        lines.push(Line::raw(""));
        lines.extend(
            j.problems
                .iter()
                .map(|p| Line::styled(p.clone(), Style::new().fg(theme.review))),
        );
    }
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(
            Block::new()
                .borders(Borders::ALL)
                .border_style(Style::new().fg(theme.border))
                .title(title),
        ),
        area,
    );
    let hint = match editor.kind {
        ReviewKind::QaVerdict => {
            "Write \"Answer: A\" (or B) and \"Confidence: 0-100\" lines, or {\"answer\": \"A\", \"confidence\": 70}; a three-way baseline answers proved, disproved or unknown."
        }
        ReviewKind::StructuredVerdict => {
            "Fix the JSON verdict until it is read: every argument assessed (logic, evidence, responsiveness, honesty, standing), pro_total and con_total."
        }
        _ => {
            "Fix the reply's JSON; the engine reads it when {save} saves and says why if it cannot."
        }
    };
    let note = editor
        .message
        .clone()
        .unwrap_or_else(|| keyed::fill(keys, editor::BINDINGS, hint).into_owned());
    frame.render_widget(
        Paragraph::new(note)
            .wrap(Wrap { trim: true })
            .style(Style::new().fg(theme.dim)),
        message,
    );
}

/// The preview's title: whether what is read is complete.
fn preview_title(j: &Judgment) -> &'static str {
    match j.parse_status {
        ParseStatus::Parsed => " Preview · complete: {save} saves ",
        _ if !j.reading.is_empty() => " Preview · partial ",
        _ => " Preview · nothing read yet ",
    }
}

/// What a judgment's reading holds, one line a field ("missing" where nothing was read).
pub(super) fn reading_lines(j: &Judgment, theme: &Theme) -> Vec<Line<'static>> {
    let missing = || "missing".to_string();
    let field = |name: &str, value: Option<String>| {
        let style = if value.is_some() {
            Style::new()
        } else {
            Style::new().fg(theme.review)
        };
        Line::styled(
            format!("{name:<12}{}", value.unwrap_or_else(missing)),
            style,
        )
    };
    match &j.reading {
        Reading::Choice(choice) => vec![
            field("Answer", choice.map(|c| format!("{:?}", c.side))),
            field(
                "Confidence",
                choice.and_then(|c| c.confidence).map(|v| format!("{v:.0}")),
            ),
        ],
        Reading::Label(label) => vec![field("Label", label.map(|l| l.as_str().to_string()))],
        Reading::Verdict(verdict) => {
            let total = |v: Option<f64>| v.map(|v| format!("{v:.2}"));
            match verdict {
                Some(v) => vec![
                    field("Pro total", total(v.pro_total)),
                    field("Con total", total(v.con_total)),
                    field(
                        "Assessed",
                        Some(format!("{} argument(s)", v.assessments.len())),
                    ),
                ],
                None => vec![field("Verdict", None)],
            }
        }
        Reading::Rubric { team_a, team_b } => vec![
            field("Team A", team_a.total().map(|t| format!("{t} /70"))),
            field("Team B", team_b.total().map(|t| format!("{t} /70"))),
        ],
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::render_editor;
    use crate::domain::{
        Assignment, Judgment, Label, ParseStatus, QaFormat, QaSetup, Reading, Round, RoundRecord,
        ScheduledRound, Team,
    };
    use crate::engine::{Correction, EngineCommand, WaitingKind};
    use crate::tui::mirror::ReviewItem;
    use crate::tui::msg::Effect;
    use crate::tui::screens::editor::{Editor, ReviewKind};
    use crate::tui::theme::Theme;

    /// A question-answer round whose judge's answer could not be read.
    fn qa_round() -> Round {
        let s = ScheduledRound {
            format: Some(QaFormat::Debate),
            ..ScheduledRound::example("q1", "t-0")
        };
        let mut round = crate::protocols::blank_round(
            &s,
            RoundRecord::QaDebate(Box::new(QaSetup {
                item_id: "t-0".into(),
                level: "T".into(),
                format: QaFormat::Debate,
                question: "Does the cat attack the dog?".into(),
                facts: String::new(),
                rules: String::new(),
                preferences: String::new(),
                label: Label::Proved,
                assignment: Assignment {
                    answer_a: Label::Proved,
                    answer_b: Label::Disproved,
                    correct_side: Some(Team::A),
                    first: Team::A,
                },
                debate_rounds: 1,
                word_limit: 50,
                turn_order: Default::default(),
                quote_matching: Default::default(),
                relation: None,
                debater_a: Default::default(),
                debater_b: Default::default(),
            })),
        );
        round.put_judgment(Judgment {
            parse_status: ParseStatus::Failed,
            problems: vec!["no answer".into()],
            raw_response: "I side with the first debater.".into(),
            ..Judgment::new("j", Reading::Choice(None))
        });
        round
    }

    fn open(round: Round) -> Editor {
        let item = ReviewItem {
            round_id: round.id.clone(),
            judge: "j".into(),
            kind: WaitingKind::Judgment(ParseStatus::Failed),
            problems: vec!["no answer".into()],
            raw: "I side with the first debater.".into(),
        };
        Editor::open(&item, Some(Arc::new(round)))
    }

    fn type_text(editor: &mut Editor, text: &str) {
        for c in text.chars() {
            let code = if c == '\n' {
                KeyCode::Enter
            } else {
                KeyCode::Char(c)
            };
            editor.key(
                KeyEvent::new(code, KeyModifiers::NONE),
                &crate::tui::keymap::Keymap::default(),
            );
        }
    }

    fn screen(editor: &Editor) -> String {
        let mut terminal = Terminal::new(TestBackend::new(120, 24)).unwrap_or_else(|e| match e {});
        let theme = Theme::no_color();
        let keys = crate::tui::keymap::Keymap::default();
        let drawn = terminal.draw(|f| render_editor(f, f.area(), (editor, &keys), &theme));
        assert!(drawn.is_ok());
        let buffer = terminal.backend().buffer();
        (0..buffer.area.height)
            .map(|y| {
                (0..buffer.area.width)
                    .filter_map(|x| buffer.cell((x, y)).map(|c| c.symbol().to_string()))
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_editor_wraps_a_long_line_between_words() {
        let mut editor = open(qa_round());
        let words = "deliberately considered counterexample stakeholders throughout";
        type_text(&mut editor, &format!("{words} {words} {words} "));
        let drawn = screen(&editor);
        // Every word of the typed line shows whole in the editor's box: none is split
        // across two rows.
        let text_rows: Vec<&str> = drawn
            .lines()
            .filter_map(|r| r.split('│').nth(1))
            .filter(|r| !r.trim().is_empty())
            .collect();
        assert!(text_rows.len() >= 4, "the line wraps: {drawn}");
        for row in text_rows {
            for cut in row
                .split(|c: char| !c.is_alphabetic())
                .filter(|w| w.len() > 2)
            {
                assert!(
                    words.split(' ').any(|w| w == cut)
                        || "I side with the first debater".contains(cut),
                    "{cut:?} is part of a word cut at the row's edge: {drawn}"
                );
            }
        }
    }

    #[test]
    fn a_question_answer_judgment_previews_its_own_form_not_the_ethics_bowl_rubric() {
        let mut editor = open(qa_round());
        assert_eq!(editor.kind, ReviewKind::QaVerdict);
        let before = screen(&editor);
        assert!(before.contains("nothing read yet"), "{before}");
        assert!(!before.contains("Principle articulation"), "{before}");
        assert!(!before.contains("Team A / Team B"), "{before}");
        assert!(
            before.contains("\"Answer: A\""),
            "the hint is the protocol's: {before}"
        );
        editor
            .textarea
            .move_cursor(ratatui_textarea::CursorMove::Bottom);
        editor
            .textarea
            .move_cursor(ratatui_textarea::CursorMove::End);
        type_text(&mut editor, "\nAnswer: A\nConfidence: 70");
        let after = screen(&editor);
        assert!(after.contains("complete: Ctrl-S saves"), "{after}");
        assert!(after.contains("Answer      A"), "{after}");
        assert!(after.contains("Confidence  70"), "{after}");
        let saved = editor.key(
            KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL),
            &crate::tui::keymap::Keymap::default(),
        );
        assert!(matches!(
            &saved.effects[..],
            [Effect::Command(EngineCommand::ApplyCorrection { correction, .. })]
                if matches!(**correction, Correction::Text(_))
        ));
    }

    #[test]
    fn a_structured_verdict_previews_its_own_form_and_is_checked_before_saving() {
        let s = ScheduledRound::example("s1", "t");
        let mut round = crate::protocols::blank_round(
            &s,
            RoundRecord::StructuredDebate(Box::new(crate::domain::StructuredSetup {
                topic: crate::domain::Topic {
                    id: "t".into(),
                    proposition: "p".into(),
                    context: None,
                },
                closing_word_limit: 200,
                weights: Default::default(),
                bands: Default::default(),
                pro: Default::default(),
                con: Default::default(),
                fallbacks: Vec::new(),
            })),
        );
        round.put_judgment(Judgment {
            parse_status: ParseStatus::Failed,
            raw_response: "Both sides made fair points.".into(),
            ..Judgment::new("j", Reading::Verdict(None))
        });
        let mut editor = open(round);
        assert_eq!(editor.kind, ReviewKind::StructuredVerdict);
        let shown = screen(&editor);
        assert!(shown.contains("Verdict     missing"), "{shown}");
        assert!(shown.contains("pro_total and con_total"), "{shown}");
        assert!(!shown.contains("Principle articulation"), "{shown}");
        let saved = editor.key(
            KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL),
            &crate::tui::keymap::Keymap::default(),
        );
        assert!(saved.effects.is_empty(), "unreadable text is not sent");
        assert!(
            editor
                .message
                .as_deref()
                .is_some_and(|m| m.starts_with("not saved")),
            "{:?}",
            editor.message
        );
    }

    #[test]
    fn an_incomplete_question_answer_correction_is_refused_in_place_with_its_problem() {
        let mut editor = open(qa_round());
        editor
            .textarea
            .move_cursor(ratatui_textarea::CursorMove::Bottom);
        editor
            .textarea
            .move_cursor(ratatui_textarea::CursorMove::End);
        type_text(&mut editor, "\nAnswer: A");
        let saved = editor.key(
            KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL),
            &crate::tui::keymap::Keymap::default(),
        );
        assert!(saved.effects.is_empty());
        let message = editor.message.clone().unwrap_or_default();
        assert!(message.contains("confidence"), "{message}");
        let shown = screen(&editor);
        assert!(shown.contains("partial"), "{shown}");
    }
}
