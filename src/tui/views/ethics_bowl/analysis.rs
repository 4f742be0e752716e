//! The Ethics Bowl's Analysis tabs: the report's tables, updated as rounds finish. Dilemmas
//! and flagged consistency tests are lists to step into (Enter opens the matrix column or
//! the round).

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, List, ListItem, ListState, Paragraph, Row, Table, TableState,
};

use crate::analysis::tables::Cell;
use crate::domain::Criterion;
use crate::tui::mirror::{Mirror, RoundState};
use crate::tui::msg::AnalysisTarget;
use crate::tui::screens::analysis::AnalysisView;
use crate::tui::theme::Theme;

fn cell(c: &Cell) -> String {
    match c.mean {
        Some(m) if c.insufficient => format!("{m:.1}*"),
        Some(m) => format!("{m:.1}"),
        None => "–".into(),
    }
}

/// A criterion's column width in the Models table.
const CRITERION_WIDTH: u16 = 9;

/// A criterion's name as a column heading: one word a line, each cut to the column with `…`
/// (`Stakeholder recognition` → `Stakehol…` over `recognit…`), so no criterion reads as
/// another.
fn header_label(label: &str, width: u16) -> String {
    let width = usize::from(width);
    label
        .split(' ')
        .map(|word| {
            if word.chars().count() <= width {
                word.to_string()
            } else {
                let cut: String = word.chars().take(width - 1).collect();
                format!("{cut}…")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The Ethics Bowl's Analysis tabs.
pub const TABS: [&str; 5] = [
    "Models",
    "Ratings",
    "Dilemmas",
    "Judges",
    "Consistency flags",
];

/// Draws the current tab in `body`.
pub fn render(frame: &mut Frame<'_>, body: Rect, view: &AnalysisView, theme: &Theme) {
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(theme.border));
    let a = &view.analysis;
    match view.tab {
        0 => {
            let header = Row::new(
                ["model", "role"]
                    .into_iter()
                    .map(String::from)
                    .chain(
                        Criterion::ALL
                            .iter()
                            .map(|c| header_label(c.label(), CRITERION_WIDTH)),
                    )
                    .chain(["total".into()]),
            )
            .height(2)
            .style(Style::new().fg(theme.dim));
            let rows = a.model_comparison.iter().map(|m| {
                Row::new(
                    [m.model.clone(), m.role.to_string()]
                        .into_iter()
                        .chain(Criterion::ALL.iter().map(|c| cell(&m.criteria[c.key()])))
                        .chain([format!("{} (n={})", cell(&m.total), m.total.n)]),
                )
            });
            let widths: Vec<Constraint> = [Constraint::Length(22), Constraint::Length(11)]
                .into_iter()
                .chain(
                    Criterion::ALL
                        .iter()
                        .map(|_| Constraint::Length(CRITERION_WIDTH)),
                )
                .chain([Constraint::Length(14)])
                .collect();
            let mut state = TableState::default().with_selected(Some(view.selected));
            frame.render_stateful_widget(
                Table::new(rows, widths)
                    .header(header)
                    .row_highlight_style(
                        Style::new().bg(theme.selected).add_modifier(Modifier::BOLD),
                    )
                    .block(block.title(
                        " Mean per criterion, by role (* fewer than 3 judgments) · Enter: a round ",
                    )),
                body,
                &mut state,
            );
        }
        1 => render_ratings(frame, body, view, theme, block),
        2 => {
            let (lo, hi) = crate::analysis::tables::bar_range(&a.dilemma_difficulty);
            let items: Vec<ListItem<'_>> = a
                .dilemma_difficulty
                .iter()
                .map(|d| {
                    let mean = d.mean_total.mean.unwrap_or(lo);
                    let width = (((mean - lo).max(0.0) / (hi - lo)) * 40.0).round() as usize;
                    let colour = if d.separates_models {
                        theme.review
                    } else {
                        theme.accent
                    };
                    ListItem::new(Line::from(vec![
                        Span::raw(format!("{:<28} ", d.dilemma_id)),
                        Span::styled("█".repeat(width), Style::new().fg(colour)),
                        Span::raw(format!(
                            " {} (n={}){}",
                            cell(&d.mean_total),
                            d.mean_total.n,
                            d.spread.map(|s| format!(", sd {s:.1}")).unwrap_or_default()
                        )),
                    ]))
                })
                .collect();
            list(
                frame,
                body,
                items,
                view,
                theme,
                block.title(format!(
                    " Hardest first; bars from {lo:.0} to {hi:.0} of 70; red: separates models most · Enter: its column "
                )),
            );
        }
        3 => {
            let ag = &a.judge_agreement;
            if ag.shared_exchanges == 0 {
                let rep = &ag.across_repetitions;
                let text = if rep.configurations == 0 {
                    "No exchange was scored by two judges or more (judging = \"all\" is needed)."
                        .to_string()
                } else {
                    format!(
                        "No exchange was scored by two judges or more. Across repetitions: Krippendorff's alpha {} over {} configurations judged by different judges in different rounds (report.md has each pair and each judge's leniency).",
                        rep.alpha.map_or("–".into(), |v| format!("{v:.2}")),
                        rep.configurations
                    )
                };
                frame.render_widget(
                    Paragraph::new(text)
                        .wrap(ratatui::widgets::Wrap { trim: true })
                        .style(Style::new().fg(theme.dim))
                        .block(block),
                    body,
                );
            } else {
                // A judge × judge matrix of Pearson r, with each judge's offset.
                let judges = ag.judges();
                let r = |a: &str, b: &str| -> String {
                    if a == b {
                        return "1.00".into();
                    }
                    ag.pairs
                        .iter()
                        .find(|p| (p.a == a && p.b == b) || (p.a == b && p.b == a))
                        .and_then(|p| p.pearson)
                        .map_or("–".into(), |v| format!("{v:.2}"))
                };
                let header = Row::new(
                    std::iter::once(String::new())
                        .chain(judges.iter().map(|j| j.chars().take(10).collect()))
                        .chain(["offset (+ generous)".into()]),
                )
                .style(Style::new().fg(theme.dim));
                let rows = judges.iter().map(|a| {
                    let offset = ag.offsets.get(a).map(cell).unwrap_or_default();
                    Row::new(
                        std::iter::once(a.to_string())
                            .chain(judges.iter().map(|b| r(a, b)))
                            .chain([offset]),
                    )
                });
                let widths: Vec<Constraint> = std::iter::once(Constraint::Length(24))
                    .chain(judges.iter().map(|_| Constraint::Length(11)))
                    .chain([Constraint::Length(20)])
                    .collect();
                let title = format!(
                    " Pearson r between judges · Krippendorff's alpha {} · {} shared exchanges ",
                    ag.alpha.map_or("–".into(), |v| format!("{v:.2}")),
                    ag.shared_exchanges
                );
                let mut state = TableState::default().with_selected(Some(view.selected));
                frame.render_stateful_widget(
                    Table::new(rows, widths)
                        .header(header)
                        .row_highlight_style(
                            Style::new().bg(theme.selected).add_modifier(Modifier::BOLD),
                        )
                        .block(block.title(format!("{title}· Enter: a shared exchange "))),
                    body,
                    &mut state,
                );
            }
        }
        _ => {
            let items: Vec<ListItem<'_>> = a
                .consistency
                .iter()
                .filter(|c| c.flagged_unacknowledged)
                .map(|c| {
                    ListItem::new(format!(
                        "{} · {} ({:?}) · consistency {}",
                        c.round_id,
                        c.model,
                        c.team,
                        c.consistency_score
                            .map_or("–".into(), |s| format!("{s:.1}"))
                    ))
                })
                .collect();
            let flagged = items.len();
            let honest = a.consistency.iter().filter(|c| c.acknowledged).count();
            let low = a
                .consistency
                .iter()
                .filter(|c| c.flagged_inconsistent)
                .count();
            let title = format!(
                " {low} failed to maintain consistency · {flagged} of them unacknowledged (listed) · {honest} acknowledged · Enter: the transcript "
            );
            list(frame, body, items, view, theme, block.title(title));
        }
    }
}

fn list<'a>(
    frame: &mut Frame<'_>,
    area: Rect,
    items: Vec<ListItem<'a>>,
    view: &AnalysisView,
    theme: &Theme,
    block: Block<'a>,
) {
    let mut state =
        ListState::default().with_selected((!items.is_empty()).then_some(view.selected));
    let widget = List::new(items)
        .block(block)
        .highlight_style(Style::new().bg(theme.selected).add_modifier(Modifier::BOLD))
        .highlight_symbol("▶ ");
    frame.render_stateful_widget(widget, area, &mut state);
}

fn render_ratings(
    frame: &mut Frame<'_>,
    area: Rect,
    view: &AnalysisView,
    theme: &Theme,
    block: Block<'_>,
) {
    let ratings = &view.analysis.ratings.overall;
    let inner_width = area.width.saturating_sub(50) as f64;
    let lo = ratings.iter().map(|r| r.low).fold(f64::INFINITY, f64::min);
    let hi = ratings
        .iter()
        .map(|r| r.high)
        .fold(f64::NEG_INFINITY, f64::max);
    let x = |v: f64| (((v - lo) / (hi - lo).max(1.0)) * inner_width).round() as usize;
    let lines: Vec<Line<'_>> = ratings
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (a, b, c) = (x(r.low), x(r.rating), x(r.high));
            let bar = format!(
                "{}├{}●{}┤",
                " ".repeat(a),
                "─".repeat(b.saturating_sub(a + 1)),
                "─".repeat(c.saturating_sub(b + 1))
            );
            let marker = if i == view.selected { "▶ " } else { "  " };
            Line::from(vec![
                Span::raw(format!(
                    "{marker}{:<24} {:>5.0} [{:>4.0}–{:<4.0}] ",
                    r.entrant, r.rating, r.low, r.high
                )),
                Span::styled(bar, Style::new().fg(theme.accent)),
            ])
        })
        .collect();
    let title = format!(
        " Bradley–Terry (Elo scale), 95% intervals · {} matches, {} draws ",
        view.analysis.ratings.matches, view.analysis.ratings.draws
    );
    frame.render_widget(Paragraph::new(lines).block(block.title(title)), area);
}

/// What each line of the current Analysis tab leads to, in the tab's order: the first round
/// behind a model's row or rating, a dilemma's column, a judge's first shared exchange, a
/// flagged consistency test's round.
pub fn targets(app: &Mirror, view: &AnalysisView) -> Vec<AnalysisTarget> {
    let first_round = |pred: &dyn Fn(&RoundState) -> bool, scores: bool| {
        app.rounds
            .iter()
            .find(|r| pred(r) && !r.stored.judgments.is_empty())
            .or_else(|| app.rounds.iter().find(|r| pred(r)))
            .map(|r| AnalysisTarget::Round {
                id: r.id().to_string(),
                scores,
            })
    };
    let a = &view.analysis;
    match view.tab {
        0 => a
            .model_comparison
            .iter()
            .filter_map(|m| {
                let presenting = m.role == "presenting";
                first_round(
                    &|r| {
                        if presenting {
                            r.stored.team_a_model == m.model
                        } else {
                            r.stored.team_b_model == m.model
                        }
                    },
                    false,
                )
            })
            .collect(),
        1 => a
            .ratings
            .overall
            .iter()
            .filter_map(|e| {
                first_round(
                    &|r| r.stored.team_a_model == e.entrant || r.stored.team_b_model == e.entrant,
                    false,
                )
            })
            .collect(),
        2 => a
            .dilemma_difficulty
            .iter()
            .map(|d| AnalysisTarget::Dilemma(d.dilemma_id.clone()))
            .collect(),
        3 => a
            .judge_agreement
            .judges()
            .iter()
            .filter_map(|j| {
                first_round(
                    &|r| {
                        r.stored.judgments.len() >= 2
                            && r.stored.judgments.iter().any(|x| x.judge_model == *j)
                    },
                    true,
                )
            })
            .collect(),
        _ => a
            .consistency
            .iter()
            .filter(|c| c.flagged_unacknowledged)
            .map(|c| AnalysisTarget::Round {
                id: c.round_id.clone(),
                scores: false,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::header_label;

    #[test]
    fn criterion_headings_keep_every_word() {
        assert_eq!(header_label("Consistency", 11), "Consistency");
        assert_eq!(
            header_label("Stakeholder recognition", 9),
            "Stakehol…\nrecognit…"
        );
        assert_eq!(
            header_label("Intellectual honesty", 9),
            "Intellec…\nhonesty"
        );
    }
}
