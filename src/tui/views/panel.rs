//! A judge panel above a round's scores or verdict, for every protocol: each judge's call
//! per deliberation round side by side (in the protocol's terms, see
//! [`Presentation::panel_cell`]), the agreement round by round, and the aggregate.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Borders, Cell, Row, Table, Widget};

use ratatui::layout::Layout;

use super::presentation::Presentation;
use crate::domain::{PanelRecord, PanelState, SeatOutcome};
use crate::tui::mirror::RoundState;
use crate::tui::theme::Theme;

/// A confidence (0–1) as shown beside a verdict; nothing when the judge gave none.
pub fn confidence(c: Option<f64>) -> String {
    c.map_or(String::new(), |c| format!("{c:.2}"))
}

fn title(panel: &PanelRecord) -> String {
    let rounds = panel.deliberation_rounds();
    let state = match panel.state {
        PanelState::Evaluating if rounds == 0 => "judges evaluating".to_string(),
        PanelState::Evaluating => format!("deliberating, round {rounds}"),
        PanelState::Converged if rounds == 0 => "agreed without deliberating".to_string(),
        PanelState::Converged => format!("converged after {rounds} deliberation round(s)"),
        PanelState::RoundLimit => format!("no convergence after {rounds} round(s)"),
        PanelState::NothingDisputed => "below the threshold, nothing disputed".to_string(),
        PanelState::TooFewJudges => "too few judges to deliberate".to_string(),
        PanelState::TimedOut => format!("deliberation round {rounds} timed out"),
    };
    let agreement = match (panel.initial_agreement, panel.final_agreement) {
        (Some(a), Some(b)) => format!(" · agreement {a:.2} → {b:.2}"),
        _ => String::new(),
    };
    format!(" Panel · {state}{agreement} ")
}

/// The rows the round's panel takes above its scores or verdict (none without a panel).
pub fn height(round: &RoundState) -> u16 {
    round
        .panel()
        .map_or(0, |panel| panel.judges.len() as u16 + 7)
}

/// Draws the round's panel (when one judged) at the top of `area`, returning the rest.
pub fn render_above(
    buf: &mut Buffer,
    area: Rect,
    round: &RoundState,
    shown: &dyn Presentation,
    theme: &Theme,
) -> Rect {
    let Some(panel) = round.panel() else {
        return area;
    };
    let height = height(round).min(area.height);
    let [panel_area, rest] =
        Layout::vertical([Constraint::Length(height), Constraint::Min(0)]).areas(area);
    render(buf, panel_area, panel, shown, theme);
    rest
}

/// Draws the panel table.
fn render(
    buf: &mut Buffer,
    area: Rect,
    panel: &PanelRecord,
    shown: &dyn Presentation,
    theme: &Theme,
) {
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
                                (format!("{} (kept)", shown.panel_cell(e)), theme.review)
                            }
                            (SeatOutcome::Unparsed, None) => ("unreadable".into(), theme.review),
                            (SeatOutcome::Partial, Some(e)) => (shown.panel_cell(e), theme.review),
                            (SeatOutcome::TimedOut, Some(e)) => {
                                (format!("{} (late, kept)", shown.panel_cell(e)), theme.dim)
                            }
                            (_, Some(e)) => (shown.panel_cell(e), theme.text),
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
                Cell::from(shown.panel_aggregate(panel)),
                Cell::from(format!("{} judge(s)", a.judges)),
            ])
            .style(Style::new().add_modifier(Modifier::BOLD)),
        );
    }
    let widths: Vec<Constraint> = std::iter::once(Constraint::Length(24))
        .chain(panel.rounds.iter().map(|_| Constraint::Length(20)))
        .chain(std::iter::once(Constraint::Length(12)))
        .collect();
    let mut block = Block::new()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(theme.border))
        .title(title(panel));
    if let Some(key) = shown.panel_key() {
        block = block.title_bottom(key);
    }
    let table = Table::new(rows, widths).header(header).block(block);
    table.render(area, buf);
}
