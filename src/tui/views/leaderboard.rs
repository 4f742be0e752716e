//! The leaderboard screen: what each protocol ranks its models by (see
//! [`Presentation::render_leaderboard`]), updated as rounds finish.
//!
//! [`Presentation::render_leaderboard`]: super::presentation::Presentation::render_leaderboard

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::widgets::{Block, Row, Table};

use super::protocols::presentation;
use crate::analysis::usage::{ModelUsage, seconds, usage_by_model};
use crate::sanitize::sanitize;
use crate::tui::app::App;
use crate::tui::theme::Theme;

/// Draws the leaderboard of the tournament's protocol, and under it what each model's calls
/// took (calls, failures, retries, tokens, cost, latency), by role.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let usage = usage_by_model(app.shown().rounds().map(|r| r.stored.as_ref()));
    let wanted = usage.len() as u16 + 3;
    let height = wanted.min(area.height / 2);
    let [board, calls] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(height)]).areas(area);
    presentation(app.mirror.protocol).render_leaderboard(frame, board, app, theme);
    if height > 3 {
        render_usage(frame, calls, &usage, theme);
    }
}

/// The table of each model's calls by role.
fn render_usage(frame: &mut Frame<'_>, area: Rect, usage: &[ModelUsage], theme: &Theme) {
    // When a provider's prompt cache served any prompt, the tokens say how much of the input
    // it served and the cost what that saved.
    let cached = usage
        .iter()
        .any(|u| u.cached_input_tokens + u.cache_write_tokens > 0);
    let cost_text = |u: &ModelUsage| {
        if cached && u.unpriced_calls < u.calls {
            format!("{} (saved {})", u.cost_text(), u.saved_text())
        } else {
            u.cost_text()
        }
    };
    let rows = usage.iter().map(|u| {
        let mark = if u.estimated_calls > 0 { "~" } else { "" };
        let tokens = if cached {
            format!(
                "{mark}{} ({} cached)/{mark}{}",
                u.input_tokens, u.cached_input_tokens, u.output_tokens
            )
        } else {
            format!("{mark}{}/{mark}{}", u.input_tokens, u.output_tokens)
        };
        Row::new(vec![
            sanitize(&u.model),
            u.role.to_string(),
            u.calls.to_string(),
            u.failures.to_string(),
            u.retries.to_string(),
            tokens,
            cost_text(u),
            seconds(u.latency_median_ms),
            seconds(u.latency_p90_ms),
        ])
    });
    // The cost as wide as its longest text ("$0.1845 (partial: 1 unpriced)").
    let cost = usage
        .iter()
        .map(|u| unicode_width::UnicodeWidthStr::width(cost_text(u).as_str()))
        .max()
        .unwrap_or(0)
        .max(4);
    let cost = u16::try_from(cost).unwrap_or(u16::MAX);
    let tokens_width = if cached { 30 } else { 18 };
    let widths = columns(
        area,
        usage.iter().map(|u| u.model.as_str()),
        16,
        &[8, 6, 7, 8, tokens_width, cost, 8, 8],
    );
    let header = Row::new(vec![
        "model",
        "role",
        "calls",
        "failed",
        "retries",
        if cached {
            "tokens in (cached)/out"
        } else {
            "tokens in/out"
        },
        "cost",
        "median",
        "p90",
    ])
    .style(Style::new().fg(theme.dim));
    let table = Table::new(rows, widths)
        .header(header)
        .block(Block::bordered().title(" Calls by model · cost, tokens, latency (median, p90) "));
    frame.render_widget(table, area);
}

/// A leaderboard's column widths inside `area` (borders and one space between columns
/// taken): the model column wide enough for the longest name (at least `at_least`), then
/// the `rest` as wide as asked, shrunk together only when they do not fit, so a model's name
/// is cut only when the terminal has no room for it.
pub(in crate::tui::views) fn columns<'a>(
    area: Rect,
    names: impl Iterator<Item = &'a str>,
    at_least: u16,
    rest: &[u16],
) -> Vec<Constraint> {
    let inner = usize::from(area.width.saturating_sub(2));
    let longest = names
        .map(unicode_width::UnicodeWidthStr::width)
        .max()
        .unwrap_or(0)
        .max(usize::from(at_least))
        .min(inner);
    let asked: usize = rest.iter().map(|w| usize::from(*w)).sum();
    let room = inner.saturating_sub(longest + rest.len());
    let widths = rest.iter().map(|w| {
        let w = usize::from(*w);
        if asked <= room {
            w
        } else {
            w * room / asked.max(1)
        }
    });
    std::iter::once(longest)
        .chain(widths)
        .map(|w| Constraint::Length(u16::try_from(w).unwrap_or(u16::MAX)))
        .collect()
}
