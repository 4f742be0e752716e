//! The help overlay: every key of the current screen, then the keys that work everywhere,
//! read from the same tables the key handlers use, with the user's keys (see
//! `crate::tui::keymap`), in the rows' labels and in the keys their sentences name
//! (`super::keyed`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::tui::app::App;
use crate::tui::keys::{Binding, GLOBAL};
use crate::tui::screens::search;
use crate::tui::theme::Theme;

use super::keyed;

/// Draws the help over `area`: the keys of the screen showing (and of what it opens), then
/// those of every screen, and the search list's first while it is open.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let mut tables: Vec<(&[Binding], &str)> = app.screens.help(app.showing());
    tables.push((GLOBAL, ""));
    if app.screens.search.list.is_some() {
        tables.insert(0, (search::LIST, "in the list: "));
    }
    let mut lines: Vec<Line<'_>> = tables
        .into_iter()
        .flat_map(|(table, prefix)| {
            table.iter().map(move |b| {
                let label = app.keys.label(b);
                let help = keyed::fill(&app.keys, table, b.help);
                Line::raw(format!("{label:<20} {prefix}{help}"))
            })
        })
        .collect();
    lines.push(Line::styled(
        "any key closes this",
        Style::new().fg(theme.dim),
    ));
    let width = 84.min(area.width);
    // Long lines wrap inside the popup rather than being cut.
    let paragraph = Paragraph::new(lines).wrap(Wrap { trim: false }).block(
        Block::new()
            .borders(Borders::ALL)
            .border_style(Style::new().fg(theme.accent))
            .title(" Keys ")
            .title_style(Style::new().add_modifier(Modifier::BOLD)),
    );
    let height = (paragraph.line_count(width) as u16).min(area.height);
    let popup = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    frame.render_widget(Clear, popup);
    frame.render_widget(paragraph, popup);
}
