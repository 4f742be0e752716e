//! The progress matrix: a row per pairing, a column per dilemma (and repetition), each cell
//! a round's state in colour and as a symbol, so it reads without colour too, with `✂` after
//! it when an answer of the round was cut at the token limit. What a row, a column heading
//! and a settled cell say is the protocol's (see [`Presentation`]).
//!
//! [`Presentation`]: super::presentation::Presentation

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Wrap};

use super::cells::CUT;
use super::protocols::presentation;
use crate::tui::app::App;
use crate::tui::mirror::RoundState;
use crate::tui::theme::Theme;

const CELL: u16 = 7;

/// A round's cell: text and colour, marked when an answer of the round was cut at the token
/// limit (whatever state it is in, so the mark stays from the cut phase onwards).
pub fn cell(round: &RoundState, app: &App, theme: &Theme) -> (String, ratatui::style::Color) {
    let (mut text, colour) = state_cell(round, app, theme);
    if round.usage.truncated > 0 {
        text.push(CUT);
    }
    (text, colour)
}

/// A round's cell by its state alone.
fn state_cell(round: &RoundState, app: &App, theme: &Theme) -> (String, ratatui::style::Color) {
    if let Some(until) = round.retry_until.filter(|t| *t > app.mirror.now) {
        return (
            format!("⟳{}s", (until - app.mirror.now).as_secs_f64().ceil() as u64),
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
        // Every call under way waits in a batch: the round waits on the provider.
        let mark = if round.live.iter().all(|p| p.batched) {
            '⧗'
        } else {
            '▶'
        };
        return (
            format!("{mark}{}", String::from_iter(running)),
            theme.running,
        );
    }
    presentation(round.stored.kind()).settled_cell(round, theme)
}

pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let shown = presentation(app.mirror.protocol);
    let panel_height = shown.matrix_panel_height(app);
    let mut legend = shown.legend(theme);
    // Batch mode's mark, only in a run that has batches.
    if !app.mirror.batches.is_empty()
        || app
            .mirror
            .rounds
            .iter()
            .any(|r| r.live.iter().any(|p| p.batched))
    {
        legend.spans.push(Span::styled(
            "  ⧗ waiting in a batch",
            Style::new().fg(theme.running),
        ));
    }
    // The comparison's marks, only when another folder is set beside this one.
    if app.mirror.compare.is_some() {
        legend.spans.push(Span::styled(
            "  vs B: ≡ same  Δ margin changed  ⇄ verdict flipped",
            Style::new().fg(theme.accent),
        ));
    }
    let legend_text = Paragraph::new(legend).wrap(Wrap { trim: true });
    let legend_height = (legend_text.line_count(area.width) as u16).clamp(1, 3);
    let [table_area, accuracy_area, legend] = Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(panel_height),
        Constraint::Length(legend_height),
    ])
    .areas(area);
    shown.render_matrix_panel(frame, accuracy_area, app, theme);
    // The filter hides rows and columns with no round that passes, and dims the cells
    // that do not pass in the rows and columns it keeps.
    let cursor = app.screens.matrix.cursor;
    let (shown_rows, shown_cols) = app.screens.matrix.shown_lines(app.shown());
    let label_width = shown_rows
        .iter()
        .map(|r| {
            let (a, b) = &app.mirror.rows[*r];
            a.chars().count() + b.chars().count() + 4
        })
        .max()
        .unwrap_or(10)
        .clamp(10, usize::from(shown.max_label_width())) as u16;
    let visible = ((table_area.width.saturating_sub(label_width + 3)) / (CELL + 1)).max(1) as usize;
    let at = shown_cols.iter().position(|c| *c == cursor.1).unwrap_or(0);
    let first = at
        .saturating_sub(visible / 2)
        .min(shown_cols.len().saturating_sub(visible));
    let cols: Vec<usize> = shown_cols
        .iter()
        .skip(first)
        .take(visible)
        .copied()
        .collect();
    let multi_rep = app.mirror.columns.iter().any(|(_, r)| *r > 1);
    let header = Row::new(std::iter::once(Cell::from(shown.matrix_heading())).chain(
        cols.iter().map(|c| {
            let (d, rep) = &app.mirror.columns[*c];
            let d = shown.column_label(d);
            let short: String = d
                .chars()
                .take(if multi_rep { 4 } else { CELL as usize })
                .collect();
            Cell::from(if multi_rep {
                format!("{short}#{rep}")
            } else {
                short
            })
        }),
    ))
    .style(Style::new().fg(theme.dim));
    let rows = shown_rows.iter().map(|&r| {
        let label = shown.row_label(&app.mirror.rows[r]);
        let cells = cols.iter().map(|c| {
            let Some(i) = app.mirror.cells.get(&(r, *c)) else {
                return Cell::from("");
            };
            let round = &app.mirror.rounds[*i];
            let (mut text, mut colour) = cell(round, app, theme);
            if let Some(mark) = app.mirror.compare.as_ref().and_then(|c| c.mark(round.id())) {
                text.push(mark.symbol());
            }
            if !app.shown().passes(round) {
                colour = theme.dim;
            }
            let mut style = Style::new().fg(colour);
            if (r, *c) == cursor {
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
            .title(title)
            .title_top(Line::from(more(first, cols.len(), shown_cols.len())).right_aligned()),
    );
    frame.render_widget(table, table_area);
    frame.render_widget(legend_text, legend);
}

/// Says which way columns are hidden: `← more`, `more →`, both, or nothing.
fn more(first: usize, shown: usize, total: usize) -> String {
    let left = if first > 0 { " ← more" } else { "" };
    let right = if first + shown < total {
        " more →"
    } else {
        ""
    };
    if left.is_empty() && right.is_empty() {
        String::new()
    } else {
        format!("{left}{right} ")
    }
}

#[cfg(test)]
mod tests {
    use super::more;

    #[test]
    fn hidden_columns_are_marked_on_the_side_they_are_hidden() {
        assert_eq!(more(0, 7, 7), "");
        assert_eq!(more(0, 5, 7), " more → ");
        assert_eq!(more(2, 5, 7), " ← more ");
        assert_eq!(more(1, 5, 7), " ← more more → ");
    }
}
