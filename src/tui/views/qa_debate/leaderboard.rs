//! The question-answer debate's leaderboard: each debater's wins when it held the correct
//! answer and when it held the incorrect one.

use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Borders, Row, Table};

use crate::domain::Team;
use crate::tui::app::App;
use crate::tui::theme::Theme;

/// For a question-answer debate: each debater's wins (the judge chose its answer) when it
/// held the correct answer and when it held the incorrect one.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let mut wins: BTreeMap<&str, [(usize, usize); 2]> = BTreeMap::new();
    for round in app.shown().rounds() {
        let r = &round.stored;
        let Some(setup) = r.qa() else {
            continue;
        };
        // The panel's answer when a panel judged, as the matrix and Analysis count it.
        let Some(choice) = round.deciding_judgment().and_then(|j| j.choice().copied()) else {
            continue;
        };
        let sides: &[(Team, &String)] = match setup.format.debaters() {
            2 => &[(Team::A, &r.team_a_model), (Team::B, &r.team_b_model)],
            1 => &[(Team::A, &r.team_a_model)],
            _ => &[],
        };
        for (side, model) in sides {
            let Some(correct) = setup.assignment.correct_side else {
                continue;
            };
            let slot = &mut wins.entry(model.as_str()).or_default()[usize::from(correct != *side)];
            slot.0 += usize::from(choice.side == *side);
            slot.1 += 1;
        }
    }
    let share = |(w, n): (usize, usize)| {
        if n == 0 {
            "–".to_string()
        } else {
            format!("{:.0}% ({w} of {n})", w as f64 * 100.0 / n as f64)
        }
    };
    let rows = wins.iter().map(|(model, [correct, incorrect])| {
        Row::new([model.to_string(), share(*correct), share(*incorrect)])
    });
    let table = Table::new(
        rows,
        [
            Constraint::Length(24),
            Constraint::Length(22),
            Constraint::Length(22),
        ],
    )
    .header(
        Row::new(["debater", "wins when correct", "wins when incorrect"])
            .style(Style::new().fg(theme.dim).add_modifier(Modifier::BOLD)),
    )
    .block(
        Block::new()
            .borders(Borders::ALL)
            .border_style(Style::new().fg(theme.border))
            .title(" Debaters (usable judgments; the judge chose their answer) "),
    );
    frame.render_widget(table, area);
}
