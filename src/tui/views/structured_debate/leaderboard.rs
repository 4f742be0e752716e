//! The structured debate's leaderboard: each model's win rate and mean side totals.

use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Borders, Row, Table};

use crate::analysis::tables::Cell;
use crate::domain::Side;
use crate::tui::app::App;
use crate::tui::theme::Theme;
use crate::tui::views::cells::interval;

/// A win rate (wins plus half the draws) with its interval: `63% [50–78%] n=16`.
fn percent(c: &Cell) -> String {
    let p = |v: f64| (v * 100.0).clamp(0.0, 100.0);
    match (c.mean, c.insufficient, c.low.zip(c.high)) {
        (None, _, _) => "–".into(),
        (Some(m), false, Some((l, h))) => {
            format!("{:.0}% [{:.0}–{:.0}%] n={}", p(m), p(l), p(h), c.units)
        }
        (Some(m), true, _) => format!("{:.0}% n={}, too few", p(m), c.units),
        (Some(m), false, None) => format!("{:.0}% n={}", p(m), c.units),
    }
}

/// For a structured debate: each model's win rate (a draw counts as half a win, as in the
/// report) and its mean side total as Pro and as Con, each with its 95% interval over rounds.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    #[derive(Default)]
    struct Record {
        /// Each debate's result (1 a win, ½ a draw, 0 a loss) with its round.
        results: Vec<(usize, f64)>,
        pro: Vec<(usize, f64)>,
        con: Vec<(usize, f64)>,
    }
    let mut by_model: BTreeMap<&str, Record> = BTreeMap::new();
    for (unit, round) in app.shown().rounds().enumerate() {
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
            let result = match (margin, winner) {
                (_, Some(w)) if w == side => 1.0,
                (Some(_), None) => 0.5,
                _ => 0.0,
            };
            rec.results.push((unit, result));
            let slot = if side == Side::Pro {
                &mut rec.pro
            } else {
                &mut rec.con
            };
            slot.extend(total.map(|t| (unit, t)));
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
        .map(|(model, r)| {
            // Drawn every frame: the closed-form interval of the mean result over rounds,
            // not the report's bootstrap.
            let rate = Cell::clustered(&r.results);
            (
                rate.mean.unwrap_or(0.0),
                Row::new([
                    model.to_string(),
                    percent(&rate),
                    interval(&r.pro),
                    interval(&r.con),
                ]),
            )
        })
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    let table = Table::new(rows.into_iter().map(|(_, r)| r), widths)
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
