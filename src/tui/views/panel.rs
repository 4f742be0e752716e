//! A judge panel in the round's score view: each judge's totals, verdict and confidence per
//! deliberation round side by side, the agreement round by round, and the aggregate.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Borders, Cell, Row, Table};

use crate::domain::{Criterion, Evaluation, PanelRecord, PanelState, SeatOutcome};
use crate::protocols::panel::show_score;
use crate::tui::theme::Theme;

/// A side's total from dimension scores (`team_a.…`), when every one of them is there.
fn total(scores: &std::collections::BTreeMap<String, f64>, side: &str) -> Option<f64> {
    let values: Vec<f64> = scores
        .iter()
        .filter(|(k, _)| k.starts_with(side))
        .map(|(_, v)| *v)
        .collect();
    (values.len() == Criterion::ALL.len()).then(|| values.iter().sum())
}

fn verdict_mark(verdict: Option<&str>) -> &'static str {
    match verdict {
        Some("team_a") => "A",
        Some("team_b") => "B",
        Some("tie") => "=",
        _ => "?",
    }
}

fn number(v: Option<f64>) -> String {
    v.map_or("–".into(), show_score)
}

/// One evaluation in a cell: `52–47 A 0.80`.
fn summary(e: &Evaluation) -> String {
    format!(
        "{}–{} {} {}",
        number(total(&e.scores, "team_a")),
        number(total(&e.scores, "team_b")),
        verdict_mark(e.verdict.as_deref()),
        e.confidence.map_or(String::new(), |c| format!("{c:.2}"))
    )
}

fn title(panel: &PanelRecord) -> String {
    let rounds = panel.deliberation_rounds();
    let state = match panel.state {
        PanelState::Evaluating if rounds == 0 => "judges evaluating".to_string(),
        PanelState::Evaluating => format!("deliberating, round {rounds}"),
        PanelState::Converged if rounds == 0 => "agreed without deliberating".to_string(),
        PanelState::Converged => format!("converged after {rounds} deliberation round(s)"),
        PanelState::RoundLimit => format!("no convergence after {rounds} round(s)"),
        PanelState::TooFewJudges => "too few judges to deliberate".to_string(),
    };
    let agreement = match (panel.initial_agreement, panel.final_agreement) {
        (Some(a), Some(b)) => format!(" · agreement {a:.2} → {b:.2}"),
        _ => String::new(),
    };
    format!(" Panel · {state}{agreement} ")
}

/// Draws the panel table.
pub fn render(frame: &mut Frame<'_>, area: Rect, panel: &PanelRecord, theme: &Theme) {
    let header = Row::new(std::iter::once(Cell::from("judge (weight)")).chain(
        panel.rounds.iter().map(|r| {
            Cell::from(if r.number == 0 {
                "independent".to_string()
            } else {
                format!("deliberation {}", r.number)
            })
        }),
    ))
    .style(Style::new().fg(theme.dim));
    let mut rows: Vec<Row<'_>> = panel
        .judges
        .iter()
        .map(|seat| {
            let cells = panel.rounds.iter().map(|r| {
                match r
                    .evaluations
                    .iter()
                    .find(|e| e.persona_id == seat.persona_id)
                {
                    None => Cell::from(""),
                    Some(result) => {
                        let (text, colour) = match (result.outcome, &result.evaluation) {
                            (SeatOutcome::Failed, _) => ("failed".to_string(), theme.incomplete),
                            (SeatOutcome::Unparsed, Some(e)) => {
                                (format!("{} (kept)", summary(e)), theme.review)
                            }
                            (SeatOutcome::Unparsed, None) => ("unreadable".into(), theme.review),
                            (SeatOutcome::Partial, Some(e)) => (summary(e), theme.review),
                            (_, Some(e)) => (summary(e), theme.text),
                            (_, None) => ("–".into(), theme.dim),
                        };
                        Cell::from(text).style(Style::new().fg(colour))
                    }
                }
            });
            Row::new(
                std::iter::once(Cell::from(format!("{} ({})", seat.persona_id, seat.weight)))
                    .chain(cells),
            )
        })
        .collect();
    rows.push(
        Row::new(
            std::iter::once(Cell::from("agreement")).chain(panel.rounds.iter().map(|r| {
                Cell::from(r.agreement.map_or("–".into(), |a| {
                    format!("{:.2} ({} disputed)", a.overall, r.disagreements.len())
                }))
            })),
        )
        .style(Style::new().fg(theme.accent)),
    );
    if let Some(a) = &panel.aggregate {
        rows.push(
            Row::new([
                Cell::from("aggregate"),
                Cell::from(format!(
                    "{}–{} {} {}",
                    number(total(&a.scores, "team_a")),
                    number(total(&a.scores, "team_b")),
                    verdict_mark(a.verdict.as_deref()),
                    a.confidence.map_or(String::new(), |c| format!("{c:.2}"))
                )),
                Cell::from(format!("{} judge(s)", a.judges)),
            ])
            .style(Style::new().add_modifier(Modifier::BOLD)),
        );
    }
    let widths: Vec<Constraint> = std::iter::once(Constraint::Length(24))
        .chain(panel.rounds.iter().map(|_| Constraint::Length(20)))
        .chain(std::iter::once(Constraint::Length(12)))
        .collect();
    let table = Table::new(rows, widths).header(header).block(
        Block::new()
            .borders(Borders::ALL)
            .border_style(Style::new().fg(theme.border))
            .title(title(panel)),
    );
    frame.render_widget(table, area);
}
