//! The help overlay: every key of the current screen.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::app::{App, Screen};
use crate::tui::theme::Theme;

/// The keys of a screen, as (key, what it does).
pub fn keys(screen: Screen) -> &'static [(&'static str, &'static str)] {
    match screen {
        Screen::Matrix => &[
            ("← ↓ ↑ → / h j k l", "move the cursor"),
            ("Enter", "open the round under the cursor"),
            ("v", "review queue (judgments to fix)"),
            ("a", "analysis tables (as in the report)"),
            ("s", "leaderboard"),
            ("g", "log"),
            ("p", "pause / resume new calls"),
            ("r", "retry an incomplete round"),
            ("?", "this help"),
            ("q", "quit (asks first while calls are in flight)"),
        ],
        Screen::Round { .. } => &[
            ("Tab", "transcript / scores"),
            ("↑ ↓ / k j", "scroll a line"),
            ("PgUp PgDn", "scroll a page"),
            ("Home", "top (stops following)"),
            ("End / f", "follow the stream"),
            ("P", "show or hide prompts"),
            ("Esc", "back to the matrix"),
            ("q", "quit"),
        ],
        Screen::Review => &[
            ("↑ ↓ / k j", "choose a judgment"),
            (
                "Enter",
                "edit it: the judge's text beside what the parser reads",
            ),
            (
                "Tab",
                "in the editor: type the fourteen scores instead of fixing the text",
            ),
            (
                "Tab",
                "in the editor: type the fourteen scores instead of fixing the text",
            ),
            ("Ctrl-S", "save (once every score is read)"),
            (
                "Esc",
                "leave the editor (twice to discard edits) / back to the matrix",
            ),
        ],
        Screen::Analysis => &[
            ("Tab / ← →", "next or previous table"),
            ("↑ ↓", "choose a dilemma or a flagged test"),
            (
                "Enter",
                "open it (the matrix column, or the round's transcript)",
            ),
            ("Esc", "back to the matrix"),
        ],
        Screen::Leaderboard | Screen::Log => &[("Esc", "back to the matrix"), ("q", "quit")],
    }
}

pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let keys = keys(app.screen);
    let width = 60.min(area.width);
    let height = (keys.len() as u16 + 4).min(area.height);
    let popup = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    let mut lines: Vec<Line<'_>> = keys
        .iter()
        .map(|(k, what)| Line::raw(format!("{k:<20} {what}")))
        .collect();
    lines.push(Line::styled(
        "any key closes this",
        Style::new().fg(theme.dim),
    ));
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::new()
                .borders(Borders::ALL)
                .border_style(Style::new().fg(theme.accent))
                .title(" Keys ")
                .title_style(Style::new().add_modifier(Modifier::BOLD)),
        ),
        popup,
    );
}
