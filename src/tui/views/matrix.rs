//! The progress matrix: a row per pairing, a column per dilemma (and repetition), each cell
//! a round's state in colour and as a symbol, so it reads without colour too. For a
//! question-answer debate, a row per configuration and judge, a column per item, cells
//! showing whether the judge chose correctly, and the live accuracy panel below.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table};

use crate::domain::{ProtocolKind, RoundStatus};
use crate::tui::app::{App, RoundState};
use crate::tui::theme::Theme;

const CELL: u16 = 7;

/// A round's cell: text and colour.
pub fn cell(round: &RoundState, app: &App, theme: &Theme) -> (String, ratatui::style::Color) {
    if let Some(until) = round.retry_until.filter(|t| *t > app.now) {
        return (
            format!("⟳{}s", (until - app.now).as_secs_f64().ceil() as u64),
            theme.retrying,
        );
    }
    let mut running: Vec<char> = Vec::new();
    for p in &round.live {
        let letter = p.phase_type.letter();
        if !running.contains(&letter) {
            running.push(letter);
        }
    }
    if running.contains(&'D') {
        // A panel deliberating: which round.
        let n = round.panel().map_or(1, |p| p.deliberation_rounds().max(1));
        return (format!("▶D{n}"), theme.running);
    }
    if !running.is_empty() {
        return (format!("▶{}", String::from_iter(running)), theme.running);
    }
    let kind = round.stored.kind();
    if kind == ProtocolKind::QaDebate && round.status() != RoundStatus::Incomplete {
        let confidence = round
            .stored
            .judgments
            .iter()
            .find_map(|j| j.choice().and_then(|c| c.confidence))
            .map(|c| format!("{c:.0}"))
            .unwrap_or_default();
        return match (round.status(), round.qa_correct()) {
            (RoundStatus::NeedsReview, _) => ("?rev".into(), theme.review),
            (_, Some(true)) => (format!("✓{confidence}"), theme.complete),
            (_, Some(false)) => (format!("✗{confidence}"), theme.incomplete),
            (_, None) => (format!("○{confidence}"), theme.dim),
        };
    }
    let margin = round
        .margin()
        .map(|m| {
            if kind == ProtocolKind::StructuredDebate {
                format!("{m:+.1}")
            } else {
                format!("{m:+.0}")
            }
        })
        .unwrap_or_default();
    match round.status() {
        RoundStatus::Complete => (format!("✓{margin}"), theme.complete),
        RoundStatus::NeedsReview => ("?rev".into(), theme.review),
        RoundStatus::Incomplete if round.error().is_some() => ("✗err".into(), theme.incomplete),
        RoundStatus::Incomplete if !round.stored.phases.is_empty() => ("…".into(), theme.queued),
        RoundStatus::Incomplete => ("·".into(), theme.queued),
    }
}

pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let qa = app.is_qa();
    let structured = app.is_structured();
    let accuracy = if qa {
        app.qa_accuracy()
    } else {
        Default::default()
    };
    let panel_height = if qa {
        accuracy.len().max(1) as u16 + 2
    } else {
        0
    };
    let [table_area, accuracy_area, legend] = Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(panel_height),
        Constraint::Length(1),
    ])
    .areas(area);
    if qa {
        super::accuracy::render(frame, accuracy_area, &accuracy, theme);
    }
    let label_width = app
        .rows
        .iter()
        .map(|(a, b)| a.chars().count() + b.chars().count() + 4)
        .max()
        .unwrap_or(10)
        .clamp(10, if qa { 48 } else { 40 }) as u16;
    let visible = ((table_area.width.saturating_sub(label_width + 3)) / (CELL + 1)).max(1) as usize;
    let first = app
        .cursor
        .1
        .saturating_sub(visible / 2)
        .min(app.columns.len().saturating_sub(visible));
    let cols: Vec<usize> = (first..app.columns.len()).take(visible).collect();
    let multi_rep = app.columns.iter().any(|(_, r)| *r > 1);
    let header = Row::new(
        std::iter::once(Cell::from(if qa {
            "Configuration · judge"
        } else if structured {
            "Pro vs Con"
        } else {
            "Team A vs Team B"
        }))
        .chain(cols.iter().map(|c| {
            let (d, rep) = &app.columns[*c];
            // Item ids share their file's name: the position in the file tells them apart.
            let d = match d.rsplit_once('-') {
                Some((_, index)) if qa => format!("#{index}"),
                _ => d.clone(),
            };
            let short: String = d
                .chars()
                .take(if multi_rep { 4 } else { CELL as usize })
                .collect();
            Cell::from(if multi_rep {
                format!("{short}#{rep}")
            } else {
                short
            })
        })),
    )
    .style(Style::new().fg(theme.dim));
    let rows = app.rows.iter().enumerate().map(|(r, (a, b))| {
        let label = if qa {
            format!("{a} · {b}")
        } else if a == b {
            format!("{a} (self)")
        } else {
            format!("{a} vs {b}")
        };
        let cells = cols.iter().map(|c| {
            let Some(i) = app.cells.get(&(r, *c)) else {
                return Cell::from("");
            };
            let (text, colour) = cell(&app.rounds[*i], app, theme);
            let mut style = Style::new().fg(colour);
            if (r, *c) == app.cursor {
                style = style
                    .bg(theme.selected)
                    .add_modifier(Modifier::BOLD | Modifier::REVERSED);
            }
            Cell::from(text).style(style)
        });
        Row::new(std::iter::once(Cell::from(label)).chain(cells))
    });
    let widths: Vec<Constraint> = std::iter::once(Constraint::Length(label_width))
        .chain(cols.iter().map(|_| Constraint::Length(CELL)))
        .collect();
    let title = match app.selected() {
        Some(r) => format!(" Progress · {} ", r.id()),
        None => " Progress ".to_string(),
    };
    let table = Table::new(rows, widths).header(header).block(
        Block::new()
            .borders(Borders::ALL)
            .border_style(Style::new().fg(theme.border))
            .title(title),
    );
    frame.render_widget(table, table_area);
    let legend_line = if qa {
        Line::from(vec![
            Span::styled("· queued  ", Style::new().fg(theme.queued)),
            Span::styled("▶A arguing  ▶J judging  ", Style::new().fg(theme.running)),
            Span::styled("✓n correct (confidence)  ", Style::new().fg(theme.complete)),
            Span::styled("✗n wrong  ", Style::new().fg(theme.incomplete)),
            Span::styled("○ both answers wrong  ", Style::new().fg(theme.dim)),
            Span::styled("?rev review", Style::new().fg(theme.review)),
        ])
    } else {
        legend_line(theme, structured)
    };
    frame.render_widget(Paragraph::new(legend_line), legend);
}

fn legend_line(theme: &Theme, structured: bool) -> Line<'static> {
    let (running, done) = if structured {
        ("▶OXLJ running  ", "✓±n done (Pro−Con)  ")
    } else {
        ("▶PRBCJ running  ", "✓±n done (A−B)  ")
    };
    Line::from(vec![
        Span::styled("· queued  ", Style::new().fg(theme.queued)),
        Span::styled(running, Style::new().fg(theme.running)),
        Span::styled("▶Dn deliberating  ", Style::new().fg(theme.running)),
        Span::styled("⟳ retry wait  ", Style::new().fg(theme.retrying)),
        Span::styled(done, Style::new().fg(theme.complete)),
        Span::styled("?rev review  ", Style::new().fg(theme.review)),
        Span::styled("✗err incomplete", Style::new().fg(theme.incomplete)),
    ])
}
