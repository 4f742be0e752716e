//! One round: its transcript as a scrolling document (each phase with model, role and
//! timing; the running phase growing as it streams), or its judges' score tables.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Tabs, Wrap};

use crate::domain::{
    Criterion, Judgment, PhaseType, ProtocolKind, RoundRecord, Scores, Side, Team,
};
use crate::tui::app::{App, RoundState};
use crate::tui::theme::Theme;

fn role(phase: PhaseType, theme: &Theme) -> (&'static str, ratatui::style::Color) {
    match phase {
        PhaseType::Presentation | PhaseType::Rebuttal | PhaseType::ConsistencyTest => {
            ("Team A", theme.team_a)
        }
        PhaseType::Response | PhaseType::ConsistencyTestB => ("Team B", theme.team_b),
        PhaseType::Judgment => ("Judge", theme.accent),
        PhaseType::PanelEvaluation | PhaseType::Deliberation => ("Panel", theme.accent),
        PhaseType::Argument => ("Debater", theme.team_a),
        PhaseType::Opening | PhaseType::CrossExamination | PhaseType::Closing => {
            ("Debater", theme.team_a)
        }
    }
}

fn phase_title(p: PhaseType) -> &'static str {
    match p {
        PhaseType::Presentation => "Presentation",
        PhaseType::Response => "Response",
        PhaseType::Rebuttal => "Rebuttal",
        PhaseType::ConsistencyTest => "Consistency test (Team A)",
        PhaseType::ConsistencyTestB => "Consistency test (Team B)",
        PhaseType::Judgment => "Judgment",
        PhaseType::PanelEvaluation => "Panel evaluation",
        PhaseType::Deliberation => "Deliberation",
        PhaseType::Argument => "Argument",
        PhaseType::Opening => "Opening statement",
        PhaseType::CrossExamination => "Cross-examination",
        PhaseType::Closing => "Closing statement",
    }
}

pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme, scores: bool) {
    let Some(round) = app.selected() else { return };
    let [title, tabs, body] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(3),
    ])
    .areas(area);
    let stored = &round.stored;
    let judges = match round.panel() {
        Some(panel) => {
            let seats: Vec<String> = panel
                .judges
                .iter()
                .map(|s| format!("{} ({})", s.persona_id, s.model))
                .collect();
            format!("panel: {}", seats.join(", "))
        }
        None => format!("judge: {}", round.judges().join(", ")),
    };
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(stored.id.clone(), Style::new().add_modifier(Modifier::BOLD)),
            Span::raw("  "),
            Span::styled(
                format!("A: {}", stored.team_a_model),
                Style::new().fg(theme.team_a),
            ),
            Span::raw("  "),
            Span::styled(
                format!("B: {}", stored.team_b_model),
                Style::new().fg(theme.team_b),
            ),
            Span::styled(
                format!("  {judges}  status: {}", round.status().as_str()),
                Style::new().fg(theme.dim),
            ),
        ])),
        title,
    );
    frame.render_widget(
        Tabs::new(match stored.kind() {
            ProtocolKind::QaDebate | ProtocolKind::StructuredDebate => ["Transcript", "Verdict"],
            ProtocolKind::EthicsBowl => ["Transcript", "Scores"],
        })
        .select(usize::from(scores))
        .highlight_style(Style::new().fg(theme.accent).add_modifier(Modifier::BOLD)),
        tabs,
    );
    if scores {
        render_scores(frame, body, round, theme);
    } else {
        render_transcript(frame, body, app, round, theme);
    }
}

fn render_transcript(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    round: &RoundState,
    theme: &Theme,
) {
    let mut lines: Vec<Line<'_>> = Vec::new();
    if let Some(e) = round.error() {
        lines.push(Line::styled(
            format!("stopped: {e}"),
            Style::new().fg(theme.incomplete),
        ));
        lines.push(Line::raw(""));
    }
    let qa = round.stored.qa();
    let mut empty = true;
    for p in round.transcript() {
        empty = false;
        let (who, colour) = match (
            super::qa_round::side_of(&p),
            super::structured_round::side_of(&p),
        ) {
            (Some(Team::A), _) => ("Debater A", theme.team_a),
            (Some(Team::B), _) => ("Debater B", theme.team_b),
            (_, Some(Side::Pro)) => ("Pro", theme.team_a),
            (_, Some(Side::Con)) => ("Con", theme.team_b),
            _ => role(p.phase_type, theme),
        };
        let timing = match (p.done, p.latency_ms) {
            (true, Some(ms)) => format!("{:.1} s", ms as f64 / 1000.0),
            (true, None) => "done".into(),
            (false, _) => "streaming…".into(),
        };
        lines.push(Line::from(vec![
            Span::styled(
                format!("━━ {} ", phase_title(p.phase_type)),
                Style::new().fg(colour).add_modifier(Modifier::BOLD),
            ),
            Span::styled(
                format!("· {} ({who}) · {timing}", p.speaker),
                Style::new().fg(theme.dim),
            ),
        ]));
        if app.show_prompts
            && let Some(prompt) = p.prompt
        {
            lines.push(Line::styled(
                "prompt:",
                Style::new().fg(theme.dim).add_modifier(Modifier::ITALIC),
            ));
            lines.extend(
                prompt
                    .lines()
                    .map(|l| Line::styled(l.to_string(), Style::new().fg(theme.dim))),
            );
            lines.push(Line::styled(
                "answer:",
                Style::new().fg(theme.dim).add_modifier(Modifier::ITALIC),
            ));
        }
        if let Some(e) = p.error {
            lines.push(Line::styled(
                format!("failed: {e}"),
                Style::new().fg(theme.incomplete),
            ));
        } else {
            match (qa, p.phase_type) {
                (Some(setup), PhaseType::Argument) => {
                    lines.extend(super::qa_round::argument_lines(&p, setup, theme));
                }
                _ if let Some(side) = super::structured_round::side_of(&p) => {
                    lines.extend(super::structured_round::reply_lines(&p, side, theme));
                }
                _ => lines.extend(p.text.lines().map(|l| Line::raw(l.to_string()))),
            }
        }
        lines.push(Line::raw(""));
    }
    if empty {
        lines.push(Line::styled(
            "No phase has started yet.",
            Style::new().fg(theme.dim),
        ));
    }
    let block = Block::new()
        .borders(Borders::TOP)
        .border_style(Style::new().fg(theme.border));
    let paragraph = Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(block);
    let inner_height = area.height.saturating_sub(1) as usize;
    let total = paragraph.line_count(area.width);
    let bottom = total.saturating_sub(inner_height);
    let scroll = if app.follow {
        bottom
    } else {
        app.scroll.min(bottom)
    };
    frame.render_widget(
        paragraph.scroll((scroll.min(u16::MAX as usize) as u16, 0)),
        area,
    );
}

fn fmt(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| {
        if v.fract() == 0.0 {
            format!("{v:.0}")
        } else {
            format!("{v}")
        }
    })
}

fn render_scores(frame: &mut Frame<'_>, area: Rect, round: &RoundState, theme: &Theme) {
    match &round.stored.record {
        RoundRecord::QaDebate(setup) => {
            super::qa_round::render_outcome(frame, area, round, setup, theme);
            return;
        }
        RoundRecord::StructuredDebate(setup) => {
            super::structured_round::render_verdict(frame, area, round, setup, theme);
            return;
        }
        RoundRecord::EthicsBowl => {}
    }
    if let Some(panel) = round.panel() {
        let height = (panel.judges.len() as u16 + 7).min(area.height);
        let [panel_area, rest] =
            Layout::vertical([Constraint::Length(height), Constraint::Min(0)]).areas(area);
        super::panel::render(frame, panel_area, panel, theme);
        render_judgments(frame, rest, round, theme);
        return;
    }
    render_judgments(frame, area, round, theme);
}

fn render_judgments(frame: &mut Frame<'_>, area: Rect, round: &RoundState, theme: &Theme) {
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
