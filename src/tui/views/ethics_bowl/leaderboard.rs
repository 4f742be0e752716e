//! The Ethics Bowl's leaderboard: each model's mean team total (out of 70) over finished
//! rounds, overall and by role, each with its 95% interval and n counting exchanges (the
//! judges of one debate count once), as the report's tables give them; a judge of its own
//! model's round is left out, as there.

use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Borders, Row, Table};

use crate::analysis::tables::Cell;
use crate::domain::{Scores, Team};
use crate::tui::app::App;
use crate::tui::theme::Theme;
use crate::tui::views::cells::interval;

/// A model's team totals, each with its exchange (the round it was given in).
#[derive(Default)]
struct Tally {
    presenting: Vec<(usize, f64)>,
    responding: Vec<(usize, f64)>,
}

/// Draws it.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let mut by_model: BTreeMap<&str, Tally> = BTreeMap::new();
    for (exchange, r) in app.shown().rounds().map(|r| &r.stored).enumerate() {
        for j in r
            .judgments
            .iter()
            .filter(|j| j.is_usable() && !r.judged_by_a_debater(j))
        {
            if let (Some(a), Some(b)) = (
                j.scores(Team::A).and_then(Scores::total),
                j.scores(Team::B).and_then(Scores::total),
            ) {
                by_model
                    .entry(&r.team_a_model)
                    .or_default()
                    .presenting
                    .push((exchange, a));
                by_model
                    .entry(&r.team_b_model)
                    .or_default()
                    .responding
                    .push((exchange, b));
            }
        }
    }
    let widths = super::super::leaderboard::columns(
        area,
        by_model.keys().map(|m| m.as_ref()),
        18,
        &[23, 23, 23],
    );
    let mut rows: Vec<(f64, Row<'_>)> = by_model
        .into_iter()
        .map(|(model, t)| {
            let all: Vec<(usize, f64)> =
                t.presenting.iter().chain(&t.responding).copied().collect();
            let key = Cell::clustered(&all).mean.unwrap_or(0.0);
            (
                key,
                Row::new([
                    model.to_string(),
                    interval(&all),
                    interval(&t.presenting),
                    interval(&t.responding),
                ]),
            )
        })
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    let table = Table::new(rows.into_iter().map(|(_, r)| r), widths)
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
