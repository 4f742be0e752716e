//! The Ethics Bowl's scores tab: each judge's fourteen scores (seven criteria, two teams)
//! beside their justifications, under the panel when one judged.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Widget, Wrap};

use crate::domain::{Criterion, Judgment, ParseStatus, Scores, Team};
use crate::tui::mirror::RoundState;
use crate::tui::theme::Theme;

fn fmt(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| {
        if v.fract() == 0.0 {
            format!("{v:.0}")
        } else {
            format!("{v}")
        }
    })
}

/// The columns of a judge's score table (criterion, Team A, Team B, borders).
const TABLE_WIDTH: u16 = 44;

/// The rows a judge's box needs at least: the table's seven criteria, header, total and
/// borders, and a spare line.
const MIN_BOX: u16 = 12;

/// The rows judgment `j` takes at `width`: its score table, or its justifications when they
/// are longer.
fn judgment_height(j: &Judgment, width: u16, theme: &Theme) -> u16 {
    let text = Paragraph::new(justification_lines(j, theme))
        .wrap(Wrap { trim: true })
        .line_count(width.saturating_sub(TABLE_WIDTH + 2).max(1));
    (text as u16).saturating_add(2).max(MIN_BOX)
}

/// The rows every judge's box takes at `width`.
pub fn height(round: &RoundState, width: u16, theme: &Theme) -> u16 {
    let judgments = &round.stored.judgments;
    if judgments.is_empty() {
        return 1;
    }
    judgments
        .iter()
        .map(|j| judgment_height(j, width, theme))
        .fold(0u16, u16::saturating_add)
}

/// Each judge's fourteen scores beside their justifications, one box under the other, each
/// as tall as it needs (the round view scrolls them).
pub fn render(buf: &mut Buffer, area: Rect, round: &RoundState, theme: &Theme) {
    let judgments = &round.stored.judgments;
    if judgments.is_empty() {
        Paragraph::new("No judgment yet.")
            .style(Style::new().fg(theme.dim))
            .render(area, buf);
        return;
    }
    let areas = Layout::vertical(
        judgments
            .iter()
            .map(|j| Constraint::Length(judgment_height(j, area.width, theme))),
    )
    .split(area);
    for (j, a) in judgments.iter().zip(areas.iter()) {
        render_judgment(buf, *a, j, theme);
    }
}

fn render_judgment(buf: &mut Buffer, area: Rect, j: &Judgment, theme: &Theme) {
    let [table_area, text_area] =
        Layout::horizontal([Constraint::Length(TABLE_WIDTH), Constraint::Min(10)]).areas(area);
    let rows = Criterion::ALL
        .iter()
        .map(|c| {
            Row::new([
                Cell::from(c.label()),
                Cell::from(fmt(j.scores(Team::A).and_then(|s| s.get(*c)))),
                Cell::from(fmt(j.scores(Team::B).and_then(|s| s.get(*c)))),
            ])
        })
        .chain(std::iter::once(
            Row::new([
                Cell::from("Total"),
                Cell::from(fmt(j.scores(Team::A).and_then(Scores::total))),
                Cell::from(fmt(j.scores(Team::B).and_then(Scores::total))),
            ])
            .style(Style::new().add_modifier(Modifier::BOLD)),
        ));
    let state = status_words(j.parse_status);
    let status = match &j.persona_id {
        Some(persona) => format!(" {persona} ({}) · {state} ", j.judge_model),
        None => format!(" {} · {state} ", j.judge_model),
    };
    let table = Table::new(
        rows,
        [
            Constraint::Length(26),
            Constraint::Length(7),
            Constraint::Length(7),
        ],
    )
    .header(Row::new(["criterion", "Team A", "Team B"]).style(Style::new().fg(theme.dim)))
    .block(
        Block::new()
            .borders(Borders::ALL)
            .border_style(Style::new().fg(theme.border))
            .title(status),
    );
    table.render(table_area, buf);
    Paragraph::new(justification_lines(j, theme))
        .wrap(Wrap { trim: true })
        .block(
            Block::new()
                .borders(Borders::ALL)
                .border_style(Style::new().fg(theme.border)),
        )
        .render(text_area, buf);
}

/// A judgment's parse status in words (a title reads "corrected by hand", not
/// "correctedbyhand").
pub fn status_words(status: ParseStatus) -> &'static str {
    match status {
        ParseStatus::Parsed => "parsed",
        ParseStatus::Partial => "partly read",
        ParseStatus::Failed => "not read",
        ParseStatus::CorrectedByHand => "✎ corrected by hand",
    }
}

/// The justifications beside a judge's scores: each heading only over text it has; scores
/// typed by hand over a judge's unreadable text say so instead of showing empty headings.
fn justification_lines<'a>(j: &'a Judgment, theme: &Theme) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    for (title, colour, text) in [
        ("Team A", theme.team_a, &j.team_a_justification),
        ("Team B", theme.team_b, &j.team_b_justification),
        ("Overall", theme.accent, &j.overall_analysis),
    ] {
        if text.trim().is_empty() {
            continue;
        }
        lines.push(Line::styled(
            title,
            Style::new().fg(colour).add_modifier(Modifier::BOLD),
        ));
        lines.extend(text.lines().map(Line::raw));
    }
    if lines.is_empty() {
        let why = if j.parse_status == ParseStatus::CorrectedByHand {
            "Scores typed by hand: the judge's text gave no justification that could be read \
             (its answer is in the transcript)."
        } else {
            "No justification read."
        };
        lines.push(Line::styled(why, Style::new().fg(theme.dim)));
    }
    for p in &j.problems {
        lines.push(Line::styled(
            format!("problem: {p}"),
            Style::new().fg(theme.review),
        ));
    }
    lines
}
