//! The Analysis screen's frame: the report's sections (see [`super::figures`]) and a note of
//! how many rounds they cover.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::widgets::Paragraph;

use super::figures::{FigureCursor, render as figures};
use crate::tui::app::App;
use crate::tui::theme::Theme;

/// Draws the screen.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let Some(view) = &app.screens.analysis.view else {
        return;
    };
    let [body, note] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let cursor = FigureCursor {
        section: view.tab,
        row: view.selected,
        column: view.column,
    };
    figures(frame, body, &view.sections, &cursor, theme);
    let stale = if view.stale { " · updating" } else { "" };
    frame.render_widget(
        Paragraph::new(format!("{} rounds analysed{stale}", view.analysis.rounds))
            .style(Style::new().fg(theme.dim)),
        note,
    );
}
