//! The structured debate's leaderboard: each model's win rate and mean side totals.

use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Borders, Row, Table};

use crate::domain::Side;
use crate::tui::app::App;
use crate::tui::theme::Theme;
use crate::tui::views::cells::mean;

/// For a structured debate: each model's win rate (a draw counts as half a win, as in the
/// report) and its mean side total as Pro and as Con.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    #[derive(Default)]
    struct Record {
        wins: f64,
        n: usize,
        pro: Vec<f64>,
        con: Vec<f64>,
    }
    let mut by_model: BTreeMap<&str, Record> = BTreeMap::new();
    for round in app.shown().rounds() {
        let r = &round.stored;
        // The panel's verdict when a panel judged, as the matrix and Analysis count it.
        let Some(v) = round.deciding_judgment().and_then(|j| j.verdict()) else {
            continue;
        };
        let (margin, winner) = (v.margin(), v.winner());
        for (side, model, total) in [
            (Side::Pro, &r.team_a_model, v.pro_total),
            (Side::Con, &r.team_b_model, v.con_total),
        ] {
            let rec = by_model.entry(model.as_str()).or_default();
            rec.n += 1;
            rec.wins += match (margin, winner) {
                (_, Some(w)) if w == side => 1.0,
                (Some(_), None) => 0.5,
                _ => 0.0,
            };
            let slot = if side == Side::Pro {
                &mut rec.pro
            } else {
                &mut rec.con
            };
            slot.extend(total);
        }
    }
    let mut rows: Vec<(f64, Row<'_>)> = by_model
        .into_iter()
        .map(|(model, r)| {
            let rate = r.wins / r.n.max(1) as f64;
            (
                rate,
                Row::new([
                    model.to_string(),
                    format!("{:.0}% ({} debates)", rate * 100.0, r.n),
                    mean(&r.pro),
                    mean(&r.con),
                ]),
            )
        })
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    let table = Table::new(
        rows.into_iter().map(|(_, r)| r),
        [
            Constraint::Length(24),
            Constraint::Length(20),
            Constraint::Length(16),
            Constraint::Length(16),
        ],
    )
    .header(
        Row::new(["model", "win rate", "total as Pro", "total as Con"])
            .style(Style::new().fg(theme.dim).add_modifier(Modifier::BOLD)),
    )
    .block(
        Block::new()
            .borders(Borders::ALL)
            .border_style(Style::new().fg(theme.border))
            .title(" Structured debate (usable verdicts; totals 1–10) "),
    );
    frame.render_widget(table, area);
}
