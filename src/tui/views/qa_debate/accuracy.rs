//! The live accuracy panel of a question-answer debate: per format, the judges' accuracy so
//! far as a bar, with its 95% interval and n counting items (the several judgments of one
//! item are one unit, as in the report).

use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::analysis::qa::{ItemTally, Proportion};
use crate::analysis::qa_share;
use crate::domain::QaFormat;
use crate::tui::app::App;
use crate::tui::theme::Theme;

const BAR: usize = 20;

/// Judge accuracy per format over the judgments received so far (the panel's answer where
/// a panel judged), in the rounds the filter lets through.
pub fn so_far(app: &App) -> BTreeMap<QaFormat, Proportion> {
    let mut tallies: BTreeMap<QaFormat, ItemTally> = BTreeMap::new();
    for r in app.shown().rounds() {
        if let (Some(setup), Some(correct)) = (r.stored.qa(), r.qa_correct()) {
            tallies
                .entry(setup.format)
                .or_default()
                .add(&setup.item_id, correct);
        }
    }
    tallies
        .into_iter()
        .map(|(f, t)| (f, t.proportion()))
        .collect()
}

/// Draws the panel.
pub fn render(
    frame: &mut Frame<'_>,
    area: Rect,
    accuracy: &BTreeMap<QaFormat, Proportion>,
    theme: &Theme,
) {
    // Names padded to the longest and a space, so none runs into its bar.
    let name_width = accuracy
        .keys()
        .map(|f| f.as_str().chars().count() + 1)
        .max()
        .unwrap_or(0)
        .max(12);
    let mut lines: Vec<Line<'_>> = accuracy
        .iter()
        .map(|(format, p)| {
            let filled = p.share.map_or(0, |s| (s * BAR as f64).round() as usize);
            Line::from(vec![
                Span::raw(format!("{:<name_width$}", format.as_str())),
                Span::styled("█".repeat(filled), Style::new().fg(theme.complete)),
                Span::styled("░".repeat(BAR - filled), Style::new().fg(theme.dim)),
                Span::raw(format!("  {}", qa_share(p))),
            ])
        })
        .collect();
    if lines.is_empty() {
        lines.push(Line::styled(
            "No usable judgment yet.",
            Style::new().fg(theme.dim),
        ));
    }
    frame.render_widget(
        Paragraph::new(lines).block(
            Block::new()
                .borders(Borders::ALL)
                .border_style(Style::new().fg(theme.border))
                .title(" Judge accuracy so far (95% Wilson interval) "),
        ),
        area,
    );
}
