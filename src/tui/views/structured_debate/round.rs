//! A structured-debate round in the round view: each reply shown as what it says (arguments,
//! answers, closing) rather than as JSON, and the verdict tab: the decision briefing with the
//! argument trace colour-coded by standing.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Widget, Wrap};

use crate::domain::{PhaseType, Side, Standing, StructuredSetup, StructuredVerdict};
use crate::protocols::structured_debate::briefing::standing_label;
use crate::protocols::structured_debate::parse;
use crate::tui::mirror::{Entry, RoundState};
use crate::tui::theme::Theme;

/// The side of a reply (see [`Entry::team`]).
pub fn side_of(p: &Entry<'_>) -> Option<Side> {
    if !matches!(
        p.phase_type,
        PhaseType::Opening | PhaseType::CrossExamination | PhaseType::Closing
    ) {
        return None;
    }
    p.team().map(Side::of)
}

/// A finished reply as what it says; the raw text while it streams or when it is not the
/// JSON asked for.
pub fn reply_lines(p: &Entry<'_>, side: Side, theme: &Theme) -> Vec<Line<'static>> {
    let raw = || p.text.lines().map(|l| Line::raw(l.to_string())).collect();
    if !p.done {
        return raw();
    }
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let dim = Style::new().fg(theme.dim);
    let mut lines = Vec::new();
    if p.turn.is_some_and(|t| t.attempt > 0) {
        lines.push(Line::styled("(the reply to a correction prompt)", dim));
    }
    match p.phase_type {
        PhaseType::Opening => match parse::parse_opening(p.text, side) {
            Ok((arguments, warnings)) => {
                for a in arguments {
                    lines.push(Line::from(vec![
                        Span::styled(format!("{} ", a.id), bold),
                        Span::raw(a.claim),
                    ]));
                    lines.push(Line::raw(format!("   {}", a.reasoning)));
                    lines.push(Line::styled(
                        if a.evidence.is_empty() {
                            "   evidence: none given".to_string()
                        } else {
                            format!("   evidence: {}", a.evidence)
                        },
                        dim,
                    ));
                }
                for w in warnings {
                    lines.push(Line::styled(
                        format!("warning: {w}"),
                        Style::new().fg(theme.review),
                    ));
                }
            }
            Err(e) => {
                lines.push(Line::styled(
                    format!("not readable: {e}"),
                    Style::new().fg(theme.review),
                ));
                lines.extend(raw());
            }
        },
        PhaseType::CrossExamination => match parse::parse_cross(p.text, &[]) {
            Ok((responses, _)) => {
                for r in responses {
                    lines.push(Line::from(vec![
                        Span::styled(format!("→ {} ", r.target_arg_id), bold),
                        Span::styled(
                            format!("{:?}", r.response_type).to_lowercase(),
                            Style::new().fg(theme.accent),
                        ),
                        Span::raw(format!(": {}", r.reasoning)),
                    ]));
                    if !r.follow_up_question.is_empty() {
                        lines.push(Line::styled(format!("   ? {}", r.follow_up_question), dim));
                    }
                }
            }
            Err(e) => {
                lines.push(Line::styled(
                    format!("not readable: {e}"),
                    Style::new().fg(theme.review),
                ));
                lines.extend(raw());
            }
        },
        _ => match parse::parse_closing(p.text) {
            Ok((c, words)) => {
                for x in &c.concessions {
                    lines.push(Line::raw(format!("concedes: {x}")));
                }
                if !c.unrebutted_arguments.is_empty() {
                    lines.push(Line::raw(format!(
                        "not rebutted: {}",
                        c.unrebutted_arguments.join(", ")
                    )));
                }
                lines.push(Line::from(vec![
                    Span::styled("final position: ", bold),
                    Span::raw(c.final_position.clone()),
                ]));
                lines.push(Line::styled(
                    format!(
                        "{words} words{}",
                        if c.position_shifted {
                            "; position shifted"
                        } else {
                            ""
                        }
                    ),
                    dim,
                ));
            }
            Err(e) => {
                lines.push(Line::styled(
                    format!("not readable: {e}"),
                    Style::new().fg(theme.review),
                ));
                lines.extend(raw());
            }
        },
    }
    lines
}

fn standing_colour(s: Option<Standing>, theme: &Theme) -> Color {
    match s {
        Some(Standing::Upheld) => theme.complete,
        Some(Standing::PartiallyUpheld) => theme.review,
        Some(Standing::Refuted) => theme.incomplete,
        _ => theme.dim,
    }
}

/// The rows the verdict tab takes at `width`: the briefing's lines, and the trace table's
/// rows under its header and border.
pub fn verdict_height(
    round: &RoundState,
    setup: &StructuredSetup,
    width: u16,
    theme: &Theme,
) -> u16 {
    let (head, verdict) = head(round, setup, theme);
    let head = Paragraph::new(head)
        .wrap(Wrap { trim: false })
        .line_count(width)
        .min(200) as u16;
    if verdict.is_none() {
        return head;
    }
    let arguments: usize = Side::BOTH
        .iter()
        .map(|side| setup.side(*side).arguments.len())
        .sum();
    head + 2 + (arguments.min(1000) as u16) + 2
}

/// The briefing above the trace, and the verdict it is of (`None`: no readable verdict,
/// and the lines say why).
fn head<'a>(
    round: &'a RoundState,
    setup: &'a StructuredSetup,
    theme: &Theme,
) -> (Vec<Line<'static>>, Option<&'a StructuredVerdict>) {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let judgments = &round.stored.judgments;
    // The panel's verdict when a panel judged; else the first judge's.
    let judgment = round
        .panel()
        .and_then(|p| p.verdict.as_ref())
        .or_else(|| judgments.iter().find(|j| j.verdict().is_some()));
    let Some(verdict) = judgment.and_then(|j| j.verdict()) else {
        let mut lines = vec![Line::styled(setup.topic.proposition.clone(), bold)];
        lines.push(Line::styled(
            match judgments.first() {
                Some(j) => format!("the verdict is not readable: {}", j.problems.join("; ")),
                None => "No verdict yet.".into(),
            },
            Style::new().fg(theme.dim),
        ));
        return (lines, None);
    };
    let total = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.2}"));
    let winner = match verdict.winner() {
        Some(Side::Pro) => "Pro",
        Some(Side::Con) => "Con",
        None => "neither (evenly matched)",
    };
    let mut head = vec![
        Line::styled(setup.topic.proposition.clone(), bold),
        Line::from(vec![
            Span::styled(
                format!("Pro {} ", round.stored.team_a_model),
                Style::new().fg(theme.team_a),
            ),
            Span::raw(total(verdict.pro_total)),
            Span::styled(
                format!("   Con {} ", round.stored.team_b_model),
                Style::new().fg(theme.team_b),
            ),
            Span::raw(total(verdict.con_total)),
            Span::styled(
                format!(
                    "   stronger case: {winner} · judge {}{}",
                    judgment.map_or("", |j| j.judge_model.as_str()),
                    if judgment.is_some_and(|j| {
                        j.parse_status == crate::domain::ParseStatus::CorrectedByHand
                    }) {
                        " · ✎ corrected by hand"
                    } else {
                        ""
                    }
                ),
                Style::new().fg(theme.dim),
            ),
        ]),
        Line::from(vec![
            Span::styled("Key insight: ", bold),
            Span::raw(verdict.key_insight.clone()),
        ]),
        Line::from(vec![
            Span::styled("Recommendation: ", bold),
            Span::raw(verdict.recommendation.clone()),
        ]),
    ];
    if !verdict.unresolved_questions.is_empty() {
        head.push(Line::from(vec![
            Span::styled("Unresolved: ", bold),
            Span::raw(verdict.unresolved_questions.join(" · ")),
        ]));
    }
    for side in Side::BOTH {
        let r = setup.side(side);
        if !r.violations.is_empty() {
            head.push(Line::styled(
                format!(
                    "{} broke: {}",
                    side.as_str().to_uppercase(),
                    r.violations.join("; ")
                ),
                Style::new().fg(theme.review),
            ));
        }
    }
    (head, Some(verdict))
}

/// The verdict tab, drawn into `buf`: the briefing, and the trace table coloured by
/// standing.
pub fn render_verdict(
    buf: &mut Buffer,
    area: Rect,
    round: &RoundState,
    setup: &StructuredSetup,
    theme: &Theme,
) {
    let (head, verdict) = head(round, setup, theme);
    let head = Paragraph::new(head).wrap(Wrap { trim: false });
    let Some(verdict) = verdict else {
        head.render(area, buf);
        return;
    };
    let head_height = (head.line_count(area.width) as u16 + 2).min(area.height / 2);
    let [top, table_area] =
        Layout::vertical([Constraint::Length(head_height), Constraint::Min(3)]).areas(area);
    head.render(top, buf);
    let score = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v}"));
    let rows = Side::BOTH.iter().flat_map(|side| {
        setup.side(*side).arguments.iter().map(|argument| {
            let a = verdict.assessments.iter().find(|a| a.arg_id == argument.id);
            let standing = a.and_then(|a| a.standing);
            let fallacies: Vec<&str> = a
                .map(|a| a.fallacies.iter().map(|f| f.as_str()).collect())
                .unwrap_or_default();
            Row::new([
                Cell::from(argument.id.clone()),
                Cell::from(argument.claim.clone()),
                Cell::from(score(a.and_then(|a| a.logic))),
                Cell::from(score(a.and_then(|a| a.evidence))),
                Cell::from(score(a.and_then(|a| a.responsiveness))),
                Cell::from(score(a.and_then(|a| a.honesty))),
                Cell::from(fallacies.join(", ")),
                Cell::from(standing_label(standing)).style(
                    Style::new()
                        .fg(standing_colour(standing, theme))
                        .add_modifier(Modifier::BOLD),
                ),
            ])
        })
    });
    let table = Table::new(
        rows,
        [
            Constraint::Length(7),
            Constraint::Min(20),
            Constraint::Length(5),
            Constraint::Length(5),
            Constraint::Length(5),
            Constraint::Length(5),
            Constraint::Length(22),
            Constraint::Length(17),
        ],
    )
    .header(
        Row::new([
            "arg",
            "claim",
            "log",
            "evid",
            "resp",
            "hon",
            "fallacies",
            "standing",
        ])
        .style(Style::new().fg(theme.dim)),
    )
    .block(
        Block::new()
            .borders(Borders::TOP)
            .border_style(Style::new().fg(theme.border))
            .title(" Argument trace "),
    );
    table.render(table_area, buf);
}
