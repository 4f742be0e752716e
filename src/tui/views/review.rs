//! The review queue: judgments the parser could not fully read, oldest first, with why; and
//! the editor, the judge's text beside a live preview of what the parser extracts from it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{
    Block, Borders, Cell, List, ListItem, ListState, Paragraph, Row, Table, Wrap,
};

use crate::domain::{Criterion, ParseStatus};
use crate::engine::WaitingKind;
use crate::protocols::judging::parse_judgment;
use crate::tui::app::App;
use crate::tui::screens::editor::{Editor, ScoreFields};
use crate::tui::theme::Theme;

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
pub fn render_editor(frame: &mut Frame<'_>, area: Rect, editor: &Editor, theme: &Theme) {
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
        let note = editor.message.clone().unwrap_or_else(|| "Type each score (1–10, halves allowed); arrows move; Ctrl-S saves; Tab goes back to the text.".into());
        frame.render_widget(
            Paragraph::new(note)
                .wrap(Wrap { trim: true })
                .style(Style::new().fg(theme.dim)),
            message,
        );
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
        ParseStatus::Parsed => " Preview · complete: Ctrl-S saves ",
        ParseStatus::Partial => " Preview · partial ",
        _ => " Preview · no scores yet ",
    };
    let [table_area, problems_area] =
        Layout::vertical([Constraint::Length(11), Constraint::Min(2)]).areas(preview_area);
    frame.render_widget(scores_table(rows, status, theme.border, theme), table_area);
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

fn render_fields(frame: &mut Frame<'_>, area: Rect, fields: &ScoreFields, theme: &Theme) {
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
