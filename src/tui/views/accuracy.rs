//! The live accuracy panel of a question-answer debate: per format, the judges' accuracy so
//! far as a bar, with its Wilson 95% interval and n.

use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::analysis::qa::Proportion;
use crate::analysis::qa_share;
use crate::domain::QaFormat;
use crate::tui::theme::Theme;

const BAR: usize = 20;

pub fn render(
    frame: &mut Frame<'_>,
    area: Rect,
    accuracy: &BTreeMap<QaFormat, Proportion>,
    theme: &Theme,
) {
    let mut lines: Vec<Line<'_>> = accuracy
        .iter()
        .map(|(format, p)| {
            let filled = p.share.map_or(0, |s| (s * BAR as f64).round() as usize);
            Line::from(vec![
                Span::raw(format!("{:<12}", format.as_str())),
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
