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

use super::cells::{CORRECTED, CUT};
use super::protocols::presentation;
use crate::domain::ParseStatus;
use crate::tui::app::App;
use crate::tui::mirror::RoundState;
use crate::tui::theme::Theme;

/// A cell's width when the columns do not all fit.
const CELL: u16 = 7;

/// The widest a column grows to show its heading whole.
const MAX_CELL: usize = 24;

/// `text` in at most `width` characters, `…` at the cut.
pub(super) fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut short: String = text.chars().take(width.saturating_sub(1)).collect();
    short.push('…');
    short
}

/// The widest a row label is drawn: the protocol's width, or more on a wide terminal, up
/// to half its width while every column keeps room for a cell, so a label is cut only when
/// the space is not there.
fn label_cap(protocol: u16, width: u16, columns: usize) -> u16 {
    let cells = u16::try_from(columns.saturating_mul(usize::from(CELL + 1))).unwrap_or(u16::MAX);
    let free = width.saturating_sub(3).saturating_sub(cells);
    protocol.max(free.min(width / 2))
}

/// Each column's width: `base`, then `spare` columns given one at a time, left to right and
/// round again, to the columns whose heading (`wanted`) is still cut.
fn grow(wanted: &[usize], base: usize, mut spare: usize) -> Vec<u16> {
    let mut widths = vec![base; wanted.len()];
    while spare > 0 {
        let before = spare;
        for (w, want) in widths.iter_mut().zip(wanted) {
            if spare > 0 && *w < *want {
                *w += 1;
                spare -= 1;
            }
        }
        if spare == before {
            break;
        }
    }
    widths
        .into_iter()
        .map(|w| u16::try_from(w).unwrap_or(u16::MAX))
        .collect()
}

/// A round's cell: text and colour, marked when an answer of the round was cut at the token
/// limit (whatever state it is in, so the mark stays from the cut phase onwards) and when a
/// person corrected one of its judgments by hand.
pub fn cell(round: &RoundState, app: &App, theme: &Theme) -> (String, ratatui::style::Color) {
    let (mut text, colour) = state_cell(round, app, theme);
    if round.usage.truncated > 0 {
        text.push(CUT);
    }
    if corrected_by_hand(round) {
        text.push(CORRECTED);
    }
    (text, colour)
}

/// A cell without a round: an adaptive design's round not chosen yet (`–`; `·` is a
/// queued round), or skipped once the design stopped (`skip`); empty otherwise.
fn not_chosen<'a>(app: &App, at: (usize, usize), theme: &Theme) -> Cell<'a> {
    match &app.mirror.design {
        Some(d) if d.not_chosen.contains(&at) => {
            Cell::from(if d.stopped.is_some() { "skip" } else { "–" })
                .style(Style::new().fg(theme.dim))
        }
        _ => Cell::from(""),
    }
}

/// Whether a person corrected one of the round's judgments (a judge's, a score's or the
/// panel's verdict) by hand: kept by the judgment's status, so it shows on rounds read
/// without their text too.
fn corrected_by_hand(round: &RoundState) -> bool {
    let r = &round.stored;
    r.judgments
        .iter()
        .chain(&r.scores)
        .chain(r.panel.as_ref().and_then(|p| p.verdict.as_ref()))
        .any(|j| j.parse_status == ParseStatus::CorrectedByHand)
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
    // An adaptive design's marks, only while it leaves rounds of the full schedule out.
    if let Some(d) = app
        .mirror
        .design
        .as_ref()
        .filter(|d| !d.not_chosen.is_empty())
    {
        legend.spans.push(Span::styled(
            if d.stopped.is_some() {
                "  skip not chosen by the adaptive design"
            } else {
                "  – not chosen yet by the adaptive design"
            },
            Style::new().fg(theme.dim),
        ));
    }
    // The hand-correction mark, only when a round has one.
    if app.mirror.rounds.iter().any(corrected_by_hand) {
        legend.spans.push(super::cells::corrected_legend(theme));
    }
    // The comparison's marks, only when another folder is set beside this one.
    if let Some(c) = &app.mirror.compare {
        legend.spans.push(Span::styled(
            super::compare::matrix_legend(c),
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
        // The corner heading whole when the labels are shorter.
        .max(shown.matrix_heading().chars().count())
        .clamp(
            10,
            usize::from(label_cap(
                shown.max_label_width(),
                table_area.width,
                shown_cols.len(),
            )),
        ) as u16;
    let multi_rep = app.mirror.columns.iter().any(|(_, r)| *r > 1);
    let heading = |c: usize| {
        let (d, rep) = &app.mirror.columns[c];
        let d = shown.column_label(d);
        if multi_rep { format!("{d}#{rep}") } else { d }
    };
    // Columns widen to show their headings whole when every column fits with room to spare.
    let room = table_area.width.saturating_sub(label_width + 3);
    let cell_width = if shown_cols.len() * usize::from(CELL + 1) <= usize::from(room) {
        let longest = shown_cols
            .iter()
            .map(|c| heading(*c).chars().count())
            .max()
            .unwrap_or(0);
        let fits = usize::from(room) / shown_cols.len().max(1) - 1;
        longest.min(fits).min(MAX_CELL).max(usize::from(CELL)) as u16
    } else {
        CELL
    };
    let visible = (room / (cell_width + 1)).max(1) as usize;
    let first = window(&shown_cols, cursor.1, visible);
    let cols: Vec<usize> = shown_cols
        .iter()
        .skip(first)
        .take(visible)
        .copied()
        .collect();
    // The room the columns leave goes to the headings still cut, a column at a time, so a
    // heading is cut only when the space is not there.
    let wanted: Vec<usize> = cols.iter().map(|c| heading(*c).chars().count()).collect();
    let col_widths = grow(
        &wanted,
        usize::from(cell_width),
        usize::from(room).saturating_sub(cols.len() * usize::from(cell_width + 1)),
    );
    // Rows scroll as columns do: the borders and the heading take three lines.
    let visible_rows = usize::from(table_area.height.saturating_sub(3)).max(1);
    let first_row = window(&shown_rows, cursor.0, visible_rows);
    let row_count = shown_rows.len();
    let header = Row::new(std::iter::once(Cell::from(shown.matrix_heading())).chain(
        cols.iter().zip(&col_widths).map(|(c, width)| {
            let (d, rep) = &app.mirror.columns[*c];
            let d = shown.column_label(d);
            let width = usize::from(*width);
            Cell::from(if multi_rep && heading(*c).chars().count() > width {
                let short: String = d.chars().take(width.saturating_sub(3)).collect();
                format!("{short}#{rep}")
            } else {
                cut(&heading(*c), width)
            })
        }),
    ))
    .style(Style::new().fg(theme.dim));
    let rows = shown_rows
        .iter()
        .skip(first_row)
        .take(visible_rows)
        .map(|&r| {
            let label = cut(
                &shown.row_label(&app.mirror.rows[r]),
                usize::from(label_width),
            );
            let cells = cols.iter().map(|c| {
                let Some(i) = app.mirror.cells.get(&(r, *c)) else {
                    return not_chosen(app, (r, *c), theme);
                };
                let round = &app.mirror.rounds[*i];
                let (mut text, mut colour) = cell(round, app, theme);
                if let Some(c) = &app.mirror.compare {
                    text = super::compare::matrix_cell(c, round, text, usize::from(cell_width));
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
        .chain(col_widths.iter().map(|w| Constraint::Length(*w)))
        .collect();
    let more_columns = more(first, cols.len(), shown_cols.len());
    // The title shares the top border with the columns' marker, a space between them.
    let room = usize::from(table_area.width.saturating_sub(2))
        .saturating_sub(more_columns.chars().count() + usize::from(!more_columns.is_empty()));
    let selected = app.screens.matrix.selected_shown(app.shown());
    let title = progress_title(selected.map(|r| r.id()), room);
    // With nothing to show, no heading either (the message below says why).
    let table = Table::new(rows, widths);
    let table = if shown_rows.is_empty() {
        table
    } else {
        table.header(header)
    };
    let table = table.block(
        Block::new()
            .borders(Borders::ALL)
            .border_style(Style::new().fg(theme.border))
            .title(title)
            .title_top(Line::from(more_columns).right_aligned())
            .title_bottom(
                Line::from(more_rows(
                    first_row,
                    visible_rows.min(row_count - first_row.min(row_count)),
                    row_count,
                ))
                .right_aligned(),
            ),
    );
    frame.render_widget(table, table_area);
    if shown_rows.is_empty() && app.shown().filter.is_some() {
        // Nothing passes: said in place of the cells, with the way back.
        let inner = table_area.inner(ratatui::layout::Margin::new(1, 1));
        frame.render_widget(
            Paragraph::new("no round matches the filter · f edit · F clear")
                .style(Style::new().fg(theme.dim))
                .wrap(Wrap { trim: true }),
            inner,
        );
    }
    frame.render_widget(legend_text, legend);
}

/// The first of `lines` to show so that `at` (or the first line, when `at` is not among
/// them) is in a window of `visible`: centred where it can be, never past the end.
fn window(lines: &[usize], at: usize, visible: usize) -> usize {
    let pos = lines.iter().position(|l| *l == at).unwrap_or(0);
    pos.saturating_sub(visible / 2)
        .min(lines.len().saturating_sub(visible))
}

/// Says which way rows are hidden: `↑ more`, `more ↓`, both, or nothing.
fn more_rows(first: usize, shown: usize, total: usize) -> String {
    let up = if first > 0 { " ↑ more" } else { "" };
    let down = if first + shown < total {
        " more ↓"
    } else {
        ""
    };
    if up.is_empty() && down.is_empty() {
        String::new()
    } else {
        format!("{up}{down} ")
    }
}

/// The matrix's border title in at most `width` columns: "Progress" and the selected
/// round's id, shortened by [`shorten_id`] to fit.
fn progress_title(id: Option<&str>, width: usize) -> String {
    const LEAD: &str = " Progress · ";
    let Some(id) = id else {
        return " Progress ".to_string();
    };
    // The lead, the id and a space after it.
    let room = width.saturating_sub(LEAD.chars().count() + 1);
    if room < 8 {
        return " Progress ".to_string();
    }
    format!("{LEAD}{} ", shorten_id(id, room))
}

/// The shortest a part of a round id is cut to, `…` aside.
const PART_KEPT: usize = 3;

/// A round id in at most `width` characters: whole when it fits; else each of its parts
/// (dilemma or item, the models, the repetition: `__` between them) cut at its end with `…`,
/// the longest first, so every part still shows its start; else its start and end.
fn shorten_id(id: &str, width: usize) -> String {
    let total = id.chars().count();
    if total <= width {
        return id.to_string();
    }
    let parts: Vec<&str> = id.split("__").collect();
    let mut kept: Vec<usize> = parts.iter().map(|p| p.chars().count()).collect();
    let shown = |kept: &[usize]| -> usize {
        let cut: usize = parts
            .iter()
            .zip(kept)
            .map(|(p, k)| k + usize::from(*k < p.chars().count()))
            .sum();
        cut + 2 * parts.len().saturating_sub(1)
    };
    while shown(&kept) > width {
        let longest = (0..parts.len())
            .filter(|&i| kept[i] > PART_KEPT)
            .max_by_key(|&i| (kept[i] + usize::from(kept[i] < parts[i].chars().count()), i));
        match longest {
            Some(i) => kept[i] -= 1,
            None => return super::compare::fit_name(id, width),
        }
    }
    parts
        .iter()
        .zip(&kept)
        .map(|(p, &k)| {
            let mut s: String = p.chars().take(k).collect();
            if k < p.chars().count() {
                s.push('…');
            }
            s
        })
        .collect::<Vec<_>>()
        .join("__")
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
    use super::{more, more_rows, progress_title, shorten_id, window};

    #[test]
    fn a_long_round_id_keeps_every_part_and_fits() {
        let id = "sympathetic_saboteur__claude-sonnet-4-5-20250929__vs__gpt-5-mini-2025-08-07__r1";
        assert_eq!(shorten_id(id, 100), id);
        let short = shorten_id(id, 50);
        assert_eq!(short.chars().count(), 50, "{short}");
        // The longest parts are cut first, to the same length.
        assert_eq!(short, "sympathetic_…__claude-sonne…__vs__gpt-5-mini-…__r1");
        // Narrower than every part's start: the id's start and end.
        let tiny = shorten_id(id, 12);
        assert_eq!(tiny.chars().count(), 12, "{tiny}");
        assert!(tiny.starts_with("symp") && tiny.ends_with("_r1"), "{tiny}");
        // 80 columns, the borders and the columns' marker taken off: it fits.
        let title = progress_title(Some(id), 78 - " more →".chars().count() - 1);
        assert!(title.chars().count() <= 70, "{title}");
        assert!(title.starts_with(" Progress · sympathetic_") && title.ends_with("__r1 "));
        assert_eq!(progress_title(None, 70), " Progress ");
        assert_eq!(progress_title(Some(id), 15), " Progress ");
    }

    #[test]
    fn the_window_keeps_the_cursor_in_view() {
        let lines: Vec<usize> = (0..24).collect();
        for at in 0..24 {
            let first = window(&lines, at, 10);
            assert!(first <= at && at < first + 10, "{at}: {first}");
            assert!(first + 10 <= 24);
        }
        assert_eq!(window(&lines, 0, 30), 0);
        assert_eq!(more_rows(0, 10, 10), "");
        assert_eq!(more_rows(0, 10, 24), " more ↓ ");
        assert_eq!(more_rows(14, 10, 24), " ↑ more ");
        assert_eq!(more_rows(5, 10, 24), " ↑ more more ↓ ");
    }

    #[test]
    fn hidden_columns_are_marked_on_the_side_they_are_hidden() {
        assert_eq!(more(0, 7, 7), "");
        assert_eq!(more(0, 5, 7), " more → ");
        assert_eq!(more(2, 5, 7), " ← more ");
        assert_eq!(more(1, 5, 7), " ← more more → ");
    }
}
