//! The leaderboard: each model's mean team total (out of 70) over finished rounds, overall
//! and by role, with the number of judgments behind each figure (for a question-answer
//! debate, each debater's win rates). Updated as rounds finish.

use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Block, Borders, Row, Table};

use crate::domain::{Scores, Side, Team};
use crate::tui::app::App;
use crate::tui::theme::Theme;

#[derive(Default)]
struct Tally {
    presenting: Vec<f64>,
    responding: Vec<f64>,
}

fn mean(v: &[f64]) -> String {
    if v.is_empty() {
        "–".into()
    } else {
        format!(
            "{:.1} (n={})",
            v.iter().sum::<f64>() / v.len() as f64,
            v.len()
        )
    }
}

pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    if app.is_qa() {
        return render_qa(frame, area, app, theme);
    }
    if app.is_structured() {
        return render_structured(frame, area, app, theme);
    }
    let mut by_model: BTreeMap<&str, Tally> = BTreeMap::new();
    for r in app.rounds.iter().map(|r| &r.stored) {
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

/// For a question-answer debate: each debater's wins (the judge chose its answer) when it
/// held the correct answer and when it held the incorrect one.
fn render_qa(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let mut wins: BTreeMap<&str, [(usize, usize); 2]> = BTreeMap::new();
    for r in app.rounds.iter().map(|r| &r.stored) {
        let Some(setup) = r.qa() else {
            continue;
        };
        let Some(choice) = r
            .judgments
            .iter()
            .find_map(|j| j.choice().copied().filter(|_| j.is_usable()))
        else {
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

/// For a structured debate: each model's wins (a tie is half) and its mean side total as
/// Pro and as Con.
fn render_structured(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    #[derive(Default)]
    struct Record {
        wins: f64,
        n: usize,
        pro: Vec<f64>,
        con: Vec<f64>,
    }
    let mut by_model: BTreeMap<&str, Record> = BTreeMap::new();
    for r in app.rounds.iter().map(|r| &r.stored) {
        let Some(v) = r
            .judgments
            .iter()
            .filter(|j| j.is_usable())
            .find_map(|j| j.verdict())
        else {
            continue;
        };
        let winner = v.winner();
        for (side, model, total) in [
            (Side::Pro, &r.team_a_model, v.pro_total),
            (Side::Con, &r.team_b_model, v.con_total),
        ] {
            let rec = by_model.entry(model.as_str()).or_default();
            rec.n += 1;
            rec.wins += match winner {
                Some(w) if w == side => 1.0,
                None => 0.5,
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
