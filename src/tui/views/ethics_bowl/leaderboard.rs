//! The Ethics Bowl's leaderboard: each model's mean team total (out of 70) over finished
//! rounds, overall and by role, with the number of judgments behind each figure.

use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Borders, Row, Table};

use crate::domain::{Scores, Team};
use crate::tui::app::App;
use crate::tui::theme::Theme;
use crate::tui::views::cells::mean;

#[derive(Default)]
struct Tally {
    presenting: Vec<f64>,
    responding: Vec<f64>,
}

/// Draws it.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let mut by_model: BTreeMap<&str, Tally> = BTreeMap::new();
    for r in app.shown().rounds().map(|r| &r.stored) {
        for j in r.judgments.iter().filter(|j| j.is_usable()) {
            if let (Some(a), Some(b)) = (
                j.scores(Team::A).and_then(Scores::total),
                j.scores(Team::B).and_then(Scores::total),
            ) {
                by_model
                    .entry(&r.team_a_model)
                    .or_default()
                    .presenting
                    .push(a);
                by_model
                    .entry(&r.team_b_model)
                    .or_default()
                    .responding
                    .push(b);
            }
        }
    }
    let mut rows: Vec<(f64, Row<'_>)> = by_model
        .into_iter()
        .map(|(model, t)| {
            let all: Vec<f64> = t.presenting.iter().chain(&t.responding).copied().collect();
            let key = if all.is_empty() {
                0.0
            } else {
                all.iter().sum::<f64>() / all.len() as f64
            };
            (
                key,
                Row::new([
                    model.to_string(),
                    mean(&all),
                    mean(&t.presenting),
                    mean(&t.responding),
                ]),
            )
        })
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    let table = Table::new(
        rows.into_iter().map(|(_, r)| r),
        [
            Constraint::Length(24),
            Constraint::Length(16),
            Constraint::Length(16),
            Constraint::Length(16),
        ],
    )
    .header(
        Row::new(["model", "mean /70", "presenting", "responding"])
            .style(Style::new().fg(theme.dim).add_modifier(Modifier::BOLD)),
    )
    .block(
        Block::new()
            .borders(Borders::ALL)
            .border_style(Style::new().fg(theme.border))
            .title(" Leaderboard (usable judgments) "),
    );
    frame.render_widget(table, area);
}
