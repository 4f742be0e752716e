//! The leaderboard screen: what each protocol ranks its models by (see
//! [`Presentation::render_leaderboard`]), updated as rounds finish.
//!
//! [`Presentation::render_leaderboard`]: super::presentation::Presentation::render_leaderboard

use ratatui::Frame;
use ratatui::layout::Rect;

use super::presentation::presentation;
use crate::tui::app::App;
use crate::tui::theme::Theme;

/// Draws the leaderboard of the tournament's protocol.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    presentation(app.protocol).render_leaderboard(frame, area, app, theme);
}

/// A mean with its count, `52.3 (n=4)`, or `–` for none.
pub fn mean(v: &[f64]) -> String {
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
