//! The structured debate's presentation: Pro and Con replies read as what they say, the
//! verdict tab with its argument trace, the Pro−Con margin in the matrix, and the Analysis
//! tables of models, sides, standings, fallacies and rule violations.

mod leaderboard;
mod round;

use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::Line;

use super::presentation::Presentation;
use crate::domain::{Evaluation, PanelRecord, Side, Standing};
use crate::tui::app::App;
use crate::tui::mirror::{Entry, RoundState};
use crate::tui::theme::Theme;

/// The structured debate's screens.
pub struct StructuredDebate;

/// `U3 P1 R2 ?1`: how many arguments stood each way (standings with none left out).
fn standings<'a>(values: impl Iterator<Item = &'a str>) -> String {
    let mut counts: BTreeMap<usize, usize> = BTreeMap::new();
    for v in values {
        if let Some(i) = Standing::ALL.iter().position(|s| s.as_str() == v) {
            *counts.entry(i).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .map(|(i, n)| format!("{}{n}", ["U", "P", "R", "?"][i]))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Presentation for StructuredDebate {
    fn verdict_tab(&self) -> &'static str {
        "Verdict"
    }

    fn speaker(&self, phase: &Entry<'_>, theme: &Theme) -> Option<(&'static str, Color)> {
        match round::side_of(phase)? {
            Side::Pro => Some(("Pro", theme.team_a)),
            Side::Con => Some(("Con", theme.team_b)),
        }
    }

    fn phase_lines(
        &self,
        phase: &Entry<'_>,
        _round: &RoundState,
        theme: &Theme,
    ) -> Vec<Line<'static>> {
        match round::side_of(phase) {
            Some(side) => round::reply_lines(phase, side, theme),
            None => phase
                .text
                .lines()
                .map(|l| Line::raw(l.to_string()))
                .collect(),
        }
    }

    fn render_verdict(&self, buf: &mut Buffer, area: Rect, round: &RoundState, theme: &Theme) {
        let area = super::panel::render_above(buf, area, round, self, theme);
        if let Some(setup) = round.stored.structured() {
            round::render_verdict(buf, area, round, setup, theme);
        }
    }

    fn setup(&self, round: &RoundState) -> Vec<(&'static str, String)> {
        let Some(setup) = round.stored.structured() else {
            return Vec::new();
        };
        let topic = &setup.topic;
        std::iter::once(("Motion", topic.proposition.clone()))
            .chain(topic.context.clone().map(|c| ("Context", c)))
            .collect()
    }

    fn verdict_height(&self, round: &RoundState, width: u16, theme: &Theme) -> u16 {
        let verdict = round
            .stored
            .structured()
            .map_or(0, |setup| round::verdict_height(round, setup, width, theme));
        super::panel::height(round).saturating_add(verdict)
    }

    fn settled_cell(&self, round: &RoundState, theme: &Theme) -> (String, Color) {
        let margin = round
            .margin()
            .map(super::cells::margin_one_place)
            .unwrap_or_default();
        super::cells::status_cell(round, margin, theme)
    }

    fn matrix_heading(&self) -> &'static str {
        "Pro vs Con"
    }

    fn legend(&self, theme: &Theme) -> Line<'static> {
        super::cells::legend(theme, "▶OXLJ running  ", "✓±n done (Pro−Con)  ")
    }

    fn render_leaderboard(&self, frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
        leaderboard::render(frame, area, app, theme);
    }

    fn panel_cell(&self, e: &Evaluation) -> String {
        format!(
            "{} {} {}",
            e.verdict.as_deref().unwrap_or("?"),
            super::panel::confidence(e.confidence),
            standings(e.labels.values().map(String::as_str))
        )
    }

    fn panel_key(&self) -> Option<&'static str> {
        Some(" arguments: U upheld · P partly upheld · R refuted · ? uncertain ")
    }

    fn panel_aggregate(&self, panel: &PanelRecord) -> String {
        let Some(v) = panel.verdict.as_ref().and_then(|j| j.verdict()) else {
            return panel.aggregate.as_ref().map_or("–".into(), |a| {
                format!(
                    "{} {}",
                    a.verdict.as_deref().unwrap_or("?"),
                    standings(a.labels.values().map(String::as_str))
                )
            });
        };
        let total = |t: Option<f64>| t.map_or("–".into(), |t| format!("{t:.1}"));
        format!(
            "{} {}–{} {}",
            v.winner().map_or("tie", Side::as_str),
            total(v.pro_total),
            total(v.con_total),
            standings(
                v.assessments
                    .iter()
                    .filter_map(|a| a.standing)
                    .map(Standing::as_str)
            )
        )
    }
}
