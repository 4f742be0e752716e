//! The report's figures on the screen, the fourth renderer of the figure model
//! (`analysis::figures`, which `report.md`, the CSVs and `report.html` are drawn from): a
//! list of the sections beside the one being read. A section's paragraphs wrap; its tables
//! keep their first column in place while the others scroll sideways, and their rows can
//! be selected (see `screens::analysis`), to open the rounds a row counts.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph, Wrap};
use unicode_width::UnicodeWidthChar;

use crate::analysis::figures::{self, Section, Table, Value};
use crate::tui::theme::Theme;

/// Where the reader is in the figures: the Analysis screen's section, selected row (or, in
/// a section without rows, first line shown) and columns scrolled past.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FigureCursor {
    /// The section shown.
    pub section: usize,
    /// The selected row.
    pub row: usize,
    /// Columns after the first scrolled past.
    pub column: usize,
}

/// The widest a column is drawn; longer cells end in `…`.
const MAX_COLUMN: usize = 36;

/// The narrowest a column's heading is cut to, to give a cut value room.
const MIN_HEADING: usize = 8;

/// Text cut to `width` columns of the terminal, `…` marking the cut.
fn fit(text: &str, width: usize) -> String {
    let text = crate::sanitize::sanitize(text);
    let total: usize = text.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return format!("{text}{}", " ".repeat(width - total));
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    format!("{out}…{}", " ".repeat(width.saturating_sub(used + 1)))
}

fn width(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// Each column's width: its widest cell, its heading when that is short, at most
/// [`MAX_COLUMN`]; then, while `room` has columns to spare, the cut columns grown (left
/// first) towards their whole cells and headings, so nothing is cut while space is free.
fn widths(t: &Table, room: usize) -> Vec<usize> {
    let natural: Vec<usize> = (0..t.columns.len())
        .map(|j| {
            let cells = t
                .rows
                .iter()
                .filter_map(|r| r.cells.get(j))
                .map(|v| width(&v.shown()))
                .max()
                .unwrap_or(0);
            cells.max(width(&t.columns[j])).max(1)
        })
        .collect();
    let mut w: Vec<usize> = (0..t.columns.len())
        .map(|j| {
            let cells = t
                .rows
                .iter()
                .filter_map(|r| r.cells.get(j))
                .map(|v| width(&v.shown()))
                .max()
                .unwrap_or(0);
            let head = width(&t.columns[j]).min(22);
            cells.max(head).clamp(1, MAX_COLUMN)
        })
        .collect();
    let used = w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1);
    let mut spare = room.saturating_sub(used);
    for (w, n) in w.iter_mut().zip(&natural) {
        let grow = n.saturating_sub(*w).min(spare);
        *w += grow;
        spare -= grow;
    }
    give_cells_the_headings_slack(&mut w, &cells(t), room);
    w
}

/// The widest cell of each column (its heading aside).
fn cells(t: &Table) -> Vec<usize> {
    (0..t.columns.len())
        .map(|j| {
            t.rows
                .iter()
                .filter_map(|r| r.cells.get(j))
                .map(|v| width(&v.shown()))
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// Where a column still cuts its cells (a round id at [`MAX_COLUMN`]) and the columns
/// wider than their own cells only for their heading can make them whole, those give it
/// their slack, the most first, down to their cells (at least [`MIN_HEADING`] wide): the
/// values whole before the headings. A value that would stay cut takes nothing, nor one
/// whose column would end past `room` (cut there anyway, or scrolled to).
fn give_cells_the_headings_slack(w: &mut [usize], cells: &[usize], room: usize) {
    let slack = |w: &[usize], k: usize| w[k].saturating_sub(cells[k].max(MIN_HEADING));
    for j in 0..w.len() {
        let mut need = cells[j].saturating_sub(w[j]);
        let available: usize = (0..w.len()).filter(|k| *k != j).map(|k| slack(w, k)).sum();
        let end = w[..=j].iter().sum::<usize>() + 2 * j + need;
        if need == 0 || available < need || end > room {
            continue;
        }
        let mut givers: Vec<usize> = (0..w.len()).filter(|k| *k != j).collect();
        givers.sort_by_key(|k| std::cmp::Reverse(slack(w, *k)));
        for k in givers {
            let take = slack(w, k).min(need);
            w[k] -= take;
            w[j] += take;
            need -= take;
        }
    }
}

/// One line of a table: the first column, then the columns from `skip` on, two spaces
/// apart, cut at `room` columns of the terminal (a table line never wraps; `→` scrolls).
fn table_line<'a>(
    cells: &[(String, Style)],
    widths: &[usize],
    skip: usize,
    room: usize,
) -> Line<'a> {
    let mut spans = Vec::new();
    let mut used = 0;
    for (j, (text, style)) in cells.iter().enumerate() {
        if j > 0 && j <= skip {
            continue;
        }
        let gap = if spans.is_empty() { 0 } else { 2 };
        let w = widths.get(j).copied().unwrap_or(1);
        if used + gap >= room {
            break;
        }
        if gap > 0 {
            spans.push(Span::raw("  "));
        }
        let w = w.min(room - used - gap);
        spans.push(Span::styled(fit(text, w), *style));
        used += gap + w;
    }
    Line::from(spans)
}

/// The section's lines, and the line each selectable row is on.
fn lines<'a>(
    section: &Section,
    cursor: &FigureCursor,
    room: usize,
    theme: &Theme,
) -> (Vec<Line<'a>>, Vec<usize>) {
    let mut out: Vec<Line<'a>> = Vec::new();
    let mut rows = Vec::new();
    let dim = Style::new().fg(theme.dim);
    for block in &section.blocks {
        match block {
            figures::Block::Heading(t) => {
                out.push(Line::styled(
                    crate::sanitize::sanitize(t),
                    Style::new().add_modifier(Modifier::BOLD),
                ));
            }
            figures::Block::Paragraph(t) => {
                out.push(Line::raw(crate::sanitize::sanitize(&t.flat())));
            }
            figures::Block::List(items) => {
                out.extend(
                    items
                        .iter()
                        .map(|i| Line::raw(format!("• {}", crate::sanitize::sanitize(&i.flat())))),
                );
            }
            figures::Block::Table(t) if t.rows.is_empty() => continue,
            figures::Block::Table(t) => {
                let w = widths(t, room);
                let head: Vec<(String, Style)> = t
                    .columns
                    .iter()
                    .map(|h| (h.clone(), dim.add_modifier(Modifier::BOLD)))
                    .collect();
                out.push(table_line(&head, &w, cursor.column, room));
                for row in &t.rows {
                    let cells: Vec<(String, Style)> = row
                        .cells
                        .iter()
                        .map(|v| {
                            let style = if v.is_strong() {
                                Style::new().add_modifier(Modifier::BOLD)
                            } else if matches!(v, Value::Mean(c) if c.insufficient) {
                                dim
                            } else {
                                Style::new()
                            };
                            (v.shown(), style)
                        })
                        .collect();
                    let mut line = table_line(&cells, &w, cursor.column, room);
                    if rows.len() == cursor.row {
                        line = line
                            .style(Style::new().bg(theme.selected).add_modifier(Modifier::BOLD));
                    }
                    rows.push(out.len());
                    out.push(line);
                }
            }
            figures::Block::Chart(c) => {
                out.push(Line::styled(
                    format!("(chart: {} in the report folder)", c.file),
                    dim,
                ));
            }
        }
        out.push(Line::raw(""));
    }
    (out, rows)
}

/// Draws the list of sections and the section under the cursor.
pub fn render(
    frame: &mut Frame<'_>,
    area: Rect,
    sections: &[Section],
    cursor: &FigureCursor,
    theme: &Theme,
) {
    let border = Style::new().fg(theme.border);
    if sections.is_empty() {
        frame.render_widget(
            Paragraph::new("No figures yet: they appear as rounds finish.")
                .style(Style::new().fg(theme.dim))
                .block(Block::new().borders(Borders::ALL).border_style(border)),
            area,
        );
        return;
    }
    // As wide as the longest title (with the marker and the borders), up to a third of the
    // screen; a title cut there ends in `…`.
    let titles: Vec<String> = sections
        .iter()
        .map(|s| crate::sanitize::sanitize(&s.title))
        .collect();
    let longest = titles.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    let list_width = u16::try_from(longest + 4)
        .unwrap_or(u16::MAX)
        .clamp(16, (area.width / 3).max(16));
    let [list, body] =
        Layout::horizontal([Constraint::Length(list_width), Constraint::Min(10)]).areas(area);
    let room = usize::from(list_width.saturating_sub(4));
    let items: Vec<ListItem<'_>> = titles
        .iter()
        .map(|t| ListItem::new(super::matrix::cut(t, room)))
        .collect();
    let mut state = ListState::default().with_selected(Some(cursor.section));
    frame.render_stateful_widget(
        List::new(items)
            .highlight_style(Style::new().fg(theme.accent).add_modifier(Modifier::BOLD))
            .highlight_symbol("▸ ")
            .block(
                Block::new()
                    .borders(Borders::ALL)
                    .border_style(border)
                    .title(" Sections "),
            ),
        list,
        &mut state,
    );
    let Some(section) = sections.get(cursor.section) else {
        return;
    };
    let inner_width = body.width.saturating_sub(2);
    let (text, rows) = lines(section, cursor, usize::from(inner_width), theme);
    let inner_height = usize::from(body.height.saturating_sub(2));
    // Keep the selected row in sight: the wrapped height of what comes before it.
    let scroll = match rows.get(cursor.row) {
        Some(&line) => {
            let before = Paragraph::new(text[..line].to_vec())
                .wrap(Wrap { trim: false })
                .line_count(inner_width);
            (before + 2).saturating_sub(inner_height)
        }
        None if rows.is_empty() => cursor.row,
        None => 0,
    };
    let more = if cursor.column > 0 {
        " · ← more"
    } else {
        ""
    };
    frame.render_widget(
        Paragraph::new(text)
            .wrap(Wrap { trim: false })
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
            .block(
                Block::new()
                    .borders(Borders::ALL)
                    .border_style(border)
                    .title(format!(
                        " {}{more} ",
                        crate::sanitize::sanitize(&section.title)
                    )),
            ),
        body,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::figures::{Link, Text};

    fn section() -> Section {
        let mut s = Section::new("Models");
        s.paragraph(Text::plain("Means per model."));
        let mut t = Table::new("models", ["model", "score", "note"]);
        t.row(
            vec![
                Value::text("alpha"),
                Value::number(Some(7.5), 2),
                Value::Quote("a very long note \u{1b}[31m that goes on".into()),
            ],
            Link::model("alpha"),
        );
        t.row(
            vec![Value::text("beta"), Value::number(None, 2), Value::Empty],
            None,
        );
        s.table(t);
        s
    }

    #[test]
    fn rows_are_selectable_with_their_links_and_cells_are_cut_and_sanitised() {
        let s = section();
        assert_eq!(
            s.links(),
            vec![Link::model("alpha").as_ref(), None],
            "one entry per row"
        );
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("ab", 4), "ab  ");
        let (lines, rows) = lines(&s, &FigureCursor::default(), 200, &Theme::no_color());
        assert_eq!(rows, vec![3, 4]);
        let row: String = lines[3].spans.iter().map(|s| s.content.as_ref()).collect();
        assert!(row.starts_with("alpha  7.50   a very long note"), "{row}");
        assert!(!row.contains('\u{1b}'), "{row:?}");
    }

    #[test]
    fn the_first_column_stays_while_the_others_scroll() {
        let s = section();
        let cursor = FigureCursor {
            column: 1,
            ..FigureCursor::default()
        };
        let (lines, _) = lines(&s, &cursor, 200, &Theme::no_color());
        let row: String = lines[3].spans.iter().map(|s| s.content.as_ref()).collect();
        assert!(row.starts_with("alpha  a very long"), "{row}");
    }

    /// Every table of every protocol's report, with rows, is drawn on the screen: its
    /// heading line and each row (the stored fixtures, one per protocol and a panel).
    #[test]
    fn every_table_of_every_protocol_is_on_the_screen() {
        for name in ["ethics_bowl", "panel", "qa_debate", "structured_debate"] {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/stored-v0")
                .join(name);
            let rounds = crate::store::Store::open(&dir)
                .unwrap()
                .load_rounds(&crate::store::RoundFilter::default())
                .unwrap()
                .0;
            let a = crate::analysis::analyse(&rounds, &std::collections::BTreeMap::new());
            let sections = figures::sections(&a);
            assert!(!sections.is_empty(), "{name}");
            for section in &sections {
                let (text, rows) =
                    lines(section, &FigureCursor::default(), 400, &Theme::no_color());
                let shown: Vec<String> = text
                    .iter()
                    .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
                    .collect();
                let tables: Vec<&Table> = section.tables().filter(|t| !t.rows.is_empty()).collect();
                assert_eq!(
                    rows.len(),
                    tables.iter().map(|t| t.rows.len()).sum::<usize>(),
                    "{name}"
                );
                for t in tables {
                    let first = fit(&t.columns[0], widths(t, 400)[0]);
                    assert!(
                        shown.iter().any(|l| l.starts_with(first.trim_end())),
                        "{name}: {} missing:\n{}",
                        t.name,
                        shown.join("\n")
                    );
                }
            }
        }
    }

    #[test]
    fn a_round_id_is_whole_when_a_heading_can_give_it_room() {
        let mut t = Table::new(
            "consistency",
            [
                "round (transcript: rounds/<id>.json)",
                "model",
                "consistency score",
            ],
        );
        t.row(
            vec![
                Value::text("borrowed_voice__gemini__vs__claude__r1"),
                Value::text("claude"),
                Value::number(Some(5.0), 3),
            ],
            Link::model("claude"),
        );
        // No room to spare: the heading of the scores gives the id its two columns.
        let w = widths(&t, 63);
        assert_eq!(w, vec![38, 6, 15]);
        assert_eq!(w[1], 6, "a column as wide as its cells keeps them");
    }
}
