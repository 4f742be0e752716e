//! The question-answer debate's presentation: debaters A and B with their quotes coloured by
//! verification, the verdict tab (answers, choice, confidence, quote records), a matrix row
//! per configuration and judge with whether the judge chose correctly, the live accuracy
//! panel, and the Analysis tables of judge accuracy, baselines, calibration and debaters.

mod accuracy;
mod leaderboard;
mod round;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use super::presentation::Presentation;
use crate::domain::{Evaluation, PanelRecord, RoundStatus, Team};
use crate::tui::app::App;
use crate::tui::mirror::{Entry, RoundState};
use crate::tui::theme::Theme;

/// The question-answer debate's screens.
pub struct QaDebate;

/// `chose A 80`: the answer a panel judge chose and how sure they were, on the 0–100 scale
/// the matrix and the judges' own answers use (a panel stores 0–1).
fn choice(verdict: Option<&str>, confidence: Option<f64>) -> String {
    format!(
        "chose {} {}",
        verdict.unwrap_or("?"),
        confidence.map_or(String::new(), |c| format!("{:.0}", c * 100.0))
    )
}

impl Presentation for QaDebate {
    fn verdict_tab(&self) -> &'static str {
        "Verdict"
    }

    fn speaker(&self, phase: &Entry<'_>, theme: &Theme) -> Option<(&'static str, Color)> {
        match round::side_of(phase)? {
            Team::A => Some(("Debater A", theme.team_a)),
            Team::B => Some(("Debater B", theme.team_b)),
        }
    }

    fn phase_lines(
        &self,
        phase: &Entry<'_>,
        round: &RoundState,
        theme: &Theme,
    ) -> Vec<Line<'static>> {
        match round.stored.qa() {
            Some(setup) if round::side_of(phase).is_some() => {
                round::argument_lines(phase, setup, theme)
            }
            _ => phase
                .text
                .lines()
                .map(|l| Line::raw(l.to_string()))
                .collect(),
        }
    }

    fn render_verdict(&self, buf: &mut Buffer, area: Rect, round: &RoundState, theme: &Theme) {
        let area = super::panel::render_above(buf, area, round, self, theme);
        if let Some(setup) = round.stored.qa() {
            round::render_outcome(buf, area, round, setup, theme);
        }
    }

    fn setup(&self, round: &RoundState) -> Vec<(&'static str, String)> {
        let Some(setup) = round.stored.qa() else {
            return Vec::new();
        };
        vec![
            ("Question", setup.question.clone()),
            ("Answer A", setup.answer(Team::A).answer().to_string()),
            ("Answer B", setup.answer(Team::B).answer().to_string()),
        ]
    }

    fn verdict_height(&self, round: &RoundState, width: u16, theme: &Theme) -> u16 {
        let outcome = round
            .stored
            .qa()
            .map_or(0, |setup| round::outcome_height(round, setup, width, theme));
        super::panel::height(round).saturating_add(outcome)
    }

    fn settled_cell(&self, round: &RoundState, theme: &Theme) -> (String, Color) {
        if round.status() == RoundStatus::Incomplete {
            return super::cells::status_cell(round, String::new(), theme);
        }
        let confidence = round
            .qa_choice()
            .and_then(|c| c.confidence)
            .map(|c| format!("{c:.0}"))
            .unwrap_or_default();
        match (round.status(), round.qa_correct()) {
            (RoundStatus::NeedsReview, _) => ("?rev".into(), theme.review),
            (_, Some(true)) => (format!("✓{confidence}"), theme.complete),
            (_, Some(false)) => (format!("✗{confidence}"), theme.incomplete),
            (_, None) => (format!("○{confidence}"), theme.dim),
        }
    }

    fn row_label(&self, (a, b): &(String, String)) -> String {
        format!("{a} · {b}")
    }

    fn column_label(&self, id: &str) -> String {
        // Item ids share their file's name: the position in the file tells them apart.
        match id.rsplit_once('-') {
            Some((_, index)) => format!("#{index}"),
            None => id.to_string(),
        }
    }

    fn matrix_heading(&self) -> &'static str {
        "Configuration · judge"
    }

    fn max_label_width(&self) -> u16 {
        48
    }

    fn matrix_panel_height(&self, app: &App) -> u16 {
        accuracy::so_far(app).len().max(1) as u16 + 2
    }

    fn render_matrix_panel(&self, frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
        accuracy::render(frame, area, &accuracy::so_far(app), theme);
    }

    fn legend(&self, theme: &Theme) -> Line<'static> {
        Line::from(vec![
            Span::styled("· queued  ", Style::new().fg(theme.queued)),
            Span::styled("▶A arguing  ▶J judging  ", Style::new().fg(theme.running)),
            Span::styled("✓n correct (confidence)  ", Style::new().fg(theme.complete)),
            Span::styled("✗n wrong  ", Style::new().fg(theme.incomplete)),
            Span::styled("○ both answers wrong  ", Style::new().fg(theme.dim)),
            Span::styled("… queued (part-way)  ", Style::new().fg(theme.queued)),
            Span::styled("?rev needs review", Style::new().fg(theme.review)),
            super::cells::cut_legend(theme),
        ])
    }

    fn render_leaderboard(&self, frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
        leaderboard::render(frame, area, app, theme);
    }

    fn panel_cell(&self, e: &Evaluation) -> String {
        choice(e.verdict.as_deref(), e.confidence)
    }

    fn panel_aggregate(&self, panel: &PanelRecord) -> String {
        match panel.verdict.as_ref().and_then(|j| j.choice()) {
            Some(c) => format!(
                "chose {:?} {}",
                c.side,
                c.confidence.map_or(String::new(), |v| format!("{v:.0}"))
            ),
            None => panel
                .aggregate
                .as_ref()
                .map_or("–".into(), |a| choice(a.verdict.as_deref(), a.confidence)),
        }
    }
}
