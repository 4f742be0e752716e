//! The filter bar, above the matrix, the review queue and the leaderboard whenever a filter
//! is in force or being typed: the filter, how many rounds pass, and the keys to edit or
//! clear it; while typing, the prompt and either why the filter was refused or the keys a
//! filter word may have.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::app::App;
use crate::tui::filter::{KEYS, StatusWord};
use crate::tui::screens::Id;
use crate::tui::theme::Theme;

/// The bar's lines, when it shows on this screen.
fn lines(app: &App, theme: &Theme) -> Option<Vec<Line<'static>>> {
    if !matches!(
        app.showing(),
        Id::Matrix | Id::Review | Id::Editor | Id::Leaderboard
    ) {
        return None;
    }
    let label = Span::styled(
        "filter ",
        Style::new().fg(theme.accent).add_modifier(Modifier::BOLD),
    );
    if let Some(text) = &app.filter.prompt {
        let second = match &app.filter.message {
            Some(why) => Line::styled(why.clone(), Style::new().fg(theme.review)),
            None => Line::styled(
                format!(
                    "{KEYS}; status is one of {}; a value may be part of a name",
                    StatusWord::NAMES
                ),
                Style::new().fg(theme.dim),
            ),
        };
        return Some(vec![
            Line::from(vec![
                label,
                Span::raw(format!("› {text}")),
                Span::styled("█", Style::new().fg(theme.accent)),
            ]),
            second,
        ]);
    }
    let filter = app.filter.active.as_ref()?;
    let shown = app.shown().rounds().count();
    Some(vec![Line::from(vec![
        label,
        Span::styled(
            filter.text.clone(),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!(
                " · {shown} of {} rounds · f edit · F clear",
                app.mirror.rounds.len()
            ),
            Style::new().fg(theme.dim),
        ),
    ])])
}

/// Draws the bar at the top of `area` when it shows, and returns what is left below it.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) -> Rect {
    let Some(lines) = lines(app, theme) else {
        return area;
    };
    let bar = Paragraph::new(lines).wrap(Wrap { trim: true });
    let height = (bar.line_count(area.width) as u16).clamp(1, 3);
    let [top, rest] =
        Layout::vertical([Constraint::Length(height), Constraint::Min(0)]).areas(area);
    frame.render_widget(bar, top);
    rest
}
