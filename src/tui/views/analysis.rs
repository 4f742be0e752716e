//! The Analysis screen's frame: the protocol's tab names, its current table (see
//! [`Presentation::render_analysis`]) and a note of how many rounds it covers.
//!
//! [`Presentation::render_analysis`]: super::presentation::Presentation::render_analysis

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Paragraph, Tabs};

use super::protocols::presentation;
use crate::tui::app::App;
use crate::tui::theme::Theme;

/// Draws the screen.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let Some(view) = &app.screens.analysis.view else {
        return;
    };
    let shown = presentation(app.mirror.protocol);
    let [tabs, body, note] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(area);
    frame.render_widget(
        Tabs::new(shown.analysis_tabs().iter().copied())
            .select(view.tab)
            .highlight_style(Style::new().fg(theme.accent).add_modifier(Modifier::BOLD)),
        tabs,
    );
    shown.render_analysis(frame, body, &app.mirror, view, theme);
    let stale = if view.stale { " · updating" } else { "" };
    frame.render_widget(
        Paragraph::new(format!("{} rounds analysed{stale}", view.analysis.rounds))
            .style(Style::new().fg(theme.dim)),
        note,
    );
}

/// A tab's table content: its header and rows.
pub type Content = (Vec<String>, Vec<Vec<String>>);

/// A tab as the protocols produce it: content, column widths and title.
pub type Tab = (Content, Vec<u16>, String);

/// A table of the Analysis screen with its selected line highlighted; the table scrolls to
/// keep the selection in sight.
pub fn table(
    frame: &mut Frame<'_>,
    area: Rect,
    (header, rows): Content,
    widths: &[u16],
    title: String,
    selected: usize,
    theme: &Theme,
) {
    use ratatui::widgets::{Block, Borders, Row, Table, TableState};
    let mut state = TableState::default().with_selected((!rows.is_empty()).then_some(selected));
    let widget = Table::new(
        rows.into_iter().map(Row::new),
        widths.iter().map(|w| Constraint::Length(*w)),
    )
    .header(Row::new(header).style(Style::new().fg(theme.dim)))
    .row_highlight_style(Style::new().bg(theme.selected).add_modifier(Modifier::BOLD))
    .block(
        Block::new()
            .borders(Borders::ALL)
            .border_style(Style::new().fg(theme.border))
            .title(title),
    );
    frame.render_stateful_widget(widget, area, &mut state);
}
