//! The Ethics Bowl's scores tab: each judge's fourteen scores (seven criteria, two teams)
//! beside their justifications, under the panel when one judged.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Wrap};

use crate::domain::{Criterion, Judgment, Scores, Team};
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

/// Each judge's fourteen scores beside their justifications (under the panel, when one
/// judged).
pub fn render(frame: &mut Frame<'_>, area: Rect, round: &RoundState, theme: &Theme) {
    let judgments = &round.stored.judgments;
    if judgments.is_empty() {
        frame.render_widget(
            Paragraph::new("No judgment yet.").style(Style::new().fg(theme.dim)),
            area,
        );
        return;
    }
    let per = area.height / judgments.len().max(1) as u16;
    let areas =
        Layout::vertical(judgments.iter().map(|_| Constraint::Length(per.max(12)))).split(area);
    for (j, a) in judgments.iter().zip(areas.iter()) {
        render_judgment(frame, *a, j, theme);
    }
}

fn render_judgment(frame: &mut Frame<'_>, area: Rect, j: &Judgment, theme: &Theme) {
    let [table_area, text_area] =
        Layout::horizontal([Constraint::Length(44), Constraint::Min(10)]).areas(area);
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
    let status = match &j.persona_id {
        Some(persona) => format!(" {persona} ({}) · {:?} ", j.judge_model, j.parse_status),
        None => format!(" {} · {:?} ", j.judge_model, j.parse_status),
    }
    .to_lowercase();
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
    frame.render_widget(table, table_area);
    let mut lines = Vec::new();
    for (title, colour, text) in [
        ("Team A", theme.team_a, &j.team_a_justification),
        ("Team B", theme.team_b, &j.team_b_justification),
        ("Overall", theme.accent, &j.overall_analysis),
    ] {
        lines.push(Line::styled(
            title,
            Style::new().fg(colour).add_modifier(Modifier::BOLD),
        ));
        lines.extend(text.lines().map(Line::raw));
    }
    for p in &j.problems {
        lines.push(Line::styled(
            format!("problem: {p}"),
            Style::new().fg(theme.review),
        ));
    }
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(
            Block::new()
                .borders(Borders::ALL)
                .border_style(Style::new().fg(theme.border)),
        ),
        text_area,
    );
}
