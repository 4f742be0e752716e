//! The log: retries, failures, refusals and budget stops, newest last (and always in
//! sight: the lines that wrap are counted).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::tui::app::App;
use crate::tui::theme::Theme;

pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let height = area.height.saturating_sub(2) as usize;
    let lines: Vec<Line<'_>> = app
        .mirror
        .log
        .iter()
        .skip(app.mirror.log.len().saturating_sub(height))
        .map(|l| {
            Line::raw(format!(
                "[{:02}:{:02}] {}",
                l.at_secs / 60,
                l.at_secs % 60,
                l.text
            ))
        })
        .collect();
    let body = if lines.is_empty() {
        vec![Line::styled(
            "Nothing to report.",
            Style::new().fg(theme.dim),
        )]
    } else {
        lines
    };
    // Long lines wrap: scrolled so that the newest line is whole at the bottom.
    let paragraph = Paragraph::new(body).wrap(Wrap { trim: false });
    let rows = paragraph.line_count(area.width.saturating_sub(2));
    let skip = rows.saturating_sub(height).min(u16::MAX as usize) as u16;
    frame.render_widget(
        paragraph.scroll((skip, 0)).block(
            Block::new()
                .borders(Borders::ALL)
                .border_style(Style::new().fg(theme.border))
                .title(" Log "),
        ),
        area,
    );
}
