//! Long wrapped text laid out into rows once a frame, and only the rows in view drawn: the
//! round screen's transcript, which grows to tens of kilobytes as a round streams.
//!
//! Why not `Paragraph` with `Wrap` alone: to scroll to the bottom it must be told how many
//! rows the text takes (`line_count`, one wrap of everything) and then wraps everything again
//! up to the scroll position to draw the last screenful, splitting every line into grapheme
//! clusters both times; on a long transcript that is most of a frame. Here a line made only of
//! characters that are each one cell and one grapheme (printable ASCII, Latin letters and the
//! common punctuation models write: curly quotes, dashes, ellipses) is wrapped by a port of
//! ratatui's word wrapper over its characters, with no segmentation, and its rows are kept as
//! character ranges; any other line is measured and drawn by `Paragraph` itself. The rows are
//! the same as `Paragraph::wrap(Wrap { trim: false })` draws (a property test below compares
//! the two buffers cell by cell).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

/// How one line is laid out: its rows as character ranges, or (a line with wider or combining
/// characters) only how many rows ratatui's wrapper gives it.
#[derive(Debug)]
enum Laid {
    /// Rows of a line whose characters are each one grapheme and one cell wide.
    Simple(Vec<(usize, usize)>),
    /// A line left to `Paragraph`: its height in rows.
    Other(usize),
}

impl Laid {
    fn height(&self) -> usize {
        match self {
            Laid::Simple(rows) => rows.len(),
            Laid::Other(height) => *height,
        }
    }
}

/// Lines wrapped at a width: how many rows each takes, so that the rows above a line, the
/// total and any screenful can be found without wrapping twice.
pub(super) struct Rows<'a> {
    lines: Vec<Line<'a>>,
    laid: Vec<Laid>,
    width: u16,
}

impl<'a> Rows<'a> {
    /// Lays `lines` out at `width` cells, word-wrapped with leading spaces kept (as
    /// `Wrap { trim: false }`).
    pub(super) fn new(lines: Vec<Line<'a>>, width: u16) -> Self {
        let laid = lines.iter().map(|l| lay(l, width)).collect();
        Self { lines, laid, width }
    }

    /// Rows all the lines take.
    pub(super) fn total(&self) -> usize {
        self.laid.iter().map(Laid::height).sum()
    }

    /// Rows the lines before line `index` take.
    pub(super) fn above(&self, index: usize) -> usize {
        self.laid.iter().take(index).map(Laid::height).sum()
    }

    /// Draws the rows from `scroll` on into `area` (whose width is the layout's).
    pub(super) fn render(&self, scroll: usize, area: Rect, buf: &mut Buffer) {
        let mut skip = scroll;
        let mut y = area.y;
        for (line, laid) in self.lines.iter().zip(&self.laid) {
            if y >= area.bottom() {
                break;
            }
            let height = laid.height();
            if skip >= height {
                skip -= height;
                continue;
            }
            let shown = (height - skip).min(usize::from(area.bottom() - y));
            match laid {
                Laid::Simple(rows) => {
                    for (k, &(start, end)) in rows[skip..skip + shown].iter().enumerate() {
                        draw_row(line, start, end, area.x, y + k as u16, buf);
                    }
                }
                Laid::Other(_) => {
                    let at = Rect::new(area.x, y, self.width.min(area.width), shown as u16);
                    Paragraph::new(line.clone())
                        .wrap(Wrap { trim: false })
                        .scroll((skip.min(usize::from(u16::MAX)) as u16, 0))
                        .render(at, buf);
                }
            }
            y += shown as u16;
            skip = 0;
        }
    }
}

/// Whether `c` is a whole grapheme on its own and one cell wide whatever follows it, and
/// ratatui's wrapper treats it as a word character (or, the space, as whitespace): the
/// characters the simple layout handles.
fn simple(c: char) -> bool {
    matches!(c,
        ' '..='~'
        // Latin-1 letters and signs (not the no-break space, which ratatui keeps inside
        // words, nor the soft hyphen, which is zero-width in some fonts), Latin Extended-A/B.
        | '\u{a1}'..='\u{ac}' | '\u{ae}'..='\u{24f}'
        // Dashes, quotes, bullets, the ellipsis (not the line and paragraph separators).
        | '\u{2010}'..='\u{2027}'
        // Per mille, primes, guillemets and the rest of general punctuation up to the
        // medium mathematical space (not ‼ and ⁉, which can take emoji presentation).
        | '\u{2030}'..='\u{203b}' | '\u{203d}'..='\u{2048}' | '\u{204a}'..='\u{205e}')
}

/// A line's rows at `width`: the simple layout when every character allows it and the line
/// is left-aligned, else the height `Paragraph` measures.
fn lay(line: &Line<'_>, width: u16) -> Laid {
    let left = matches!(
        line.alignment,
        None | Some(ratatui::layout::Alignment::Left)
    );
    if left && width > 0 && line.spans.iter().all(|s| s.content.chars().all(simple)) {
        let spaces = line
            .spans
            .iter()
            .flat_map(|s| s.content.chars())
            .map(|c| c == ' ');
        Laid::Simple(wrap(spaces, usize::from(width)))
    } else {
        Laid::Other(
            Paragraph::new(line.clone())
                .wrap(Wrap { trim: false })
                .line_count(width),
        )
    }
}

/// Ratatui's `WordWrapper` (ratatui-widgets 0.3, `reflow.rs`, with `trim: false`) for
/// characters one cell wide each, given as whether each is whitespace: the rows as
/// `[start, end)` character ranges. Every row is contiguous: the whitespace the wrapper drops
/// at a break lies between rows. The names follow the original's so the two can be read side
/// by side.
fn wrap(spaces: impl Iterator<Item = bool>, max: usize) -> Vec<(usize, usize)> {
    let mut rows = Vec::new();
    // The pending line, as a range; its width is its length.
    let (mut line_start, mut line_end) = (0, 0);
    let mut line_empty = true;
    // The pending whitespace and word: whitespace always comes before the word.
    let (mut ws_start, mut ws_len) = (0, 0);
    let (mut word_start, mut word_len) = (0, 0);
    let mut non_whitespace_previous = false;
    for (i, is_whitespace) in spaces.enumerate() {
        let word_found = non_whitespace_previous && is_whitespace;
        let untrimmed_overflow = line_empty && word_len + ws_len + 1 > max;
        if word_found || untrimmed_overflow {
            // Whitespace then word join the line.
            for (start, len) in [(ws_start, ws_len), (word_start, word_len)] {
                if len > 0 {
                    if line_empty {
                        line_start = start;
                        line_empty = false;
                    }
                    line_end = start + len;
                }
            }
            ws_len = 0;
            word_len = 0;
        }
        let line_width = if line_empty { 0 } else { line_end - line_start };
        let line_full = line_width >= max;
        let pending_word_overflow = line_width + ws_len + word_len >= max;
        if line_full || pending_word_overflow {
            let mut remaining = max.saturating_sub(line_width);
            rows.push(if line_empty {
                (i, i)
            } else {
                (line_start, line_end)
            });
            line_empty = true;
            // Whitespace up to the end of the row is dropped.
            while ws_len > 0 && remaining >= 1 {
                ws_start += 1;
                ws_len -= 1;
                remaining -= 1;
            }
            if is_whitespace && ws_len == 0 {
                continue;
            }
        }
        if is_whitespace {
            if ws_len == 0 {
                ws_start = i;
            }
            ws_len += 1;
        } else {
            if word_len == 0 {
                word_start = i;
            }
            word_len += 1;
        }
        non_whitespace_previous = !is_whitespace;
    }
    for (start, len) in [(ws_start, ws_len), (word_start, word_len)] {
        if len > 0 {
            if line_empty {
                line_start = start;
                line_empty = false;
            }
            line_end = start + len;
        }
    }
    if !line_empty {
        rows.push((line_start, line_end));
    }
    if rows.is_empty() {
        rows.push((0, 0));
    }
    rows
}

/// Draws characters `[start, end)` of `line` (each one cell) at `(x, y)`, each in its span's
/// style over the line's, as `Paragraph` draws a wrapped row.
fn draw_row(line: &Line<'_>, start: usize, end: usize, x: u16, y: u16, buf: &mut Buffer) {
    let mut at = 0; // characters of the line passed
    let mut column = x;
    let mut one = [0u8; 4];
    for span in &line.spans {
        if at >= end {
            break;
        }
        let style = line.style.patch(span.style);
        for c in span.content.chars() {
            if at >= end {
                break;
            }
            if at >= start {
                if let Some(cell) = buf.cell_mut((column, y)) {
                    cell.set_symbol(c.encode_utf8(&mut one)).set_style(style);
                }
                column = column.saturating_add(1);
            }
            at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use ratatui::style::{Color, Style};
    use ratatui::text::Span;

    /// What `Paragraph` draws for `lines` at `area` from row `scroll`.
    fn by_paragraph(lines: &[Line<'static>], area: Rect, scroll: u16) -> Buffer {
        let mut buf = Buffer::empty(area);
        Paragraph::new(lines.to_vec())
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0))
            .render(area, &mut buf);
        buf
    }

    fn by_rows(lines: &[Line<'static>], area: Rect, scroll: u16) -> (Buffer, usize) {
        let mut buf = Buffer::empty(area);
        let rows = Rows::new(lines.to_vec(), area.width);
        rows.render(usize::from(scroll), area, &mut buf);
        (buf, rows.total())
    }

    fn count(lines: &[Line<'static>], width: u16) -> usize {
        Paragraph::new(lines.to_vec())
            .wrap(Wrap { trim: false })
            .line_count(width)
    }

    #[test]
    fn a_long_line_wraps_as_paragraph_wraps_it() {
        let lines = vec![
            Line::raw("Consistency matters: the team’s view — stated twice — held up…"),
            Line::raw(""),
            Line::raw("   indented text with  two  spaces and averyveryverylongwordthatbreaks"),
            Line::raw("日本語 is laid out by Paragraph itself"),
        ];
        for width in [1, 2, 5, 9, 17, 40] {
            let area = Rect::new(0, 0, width, 40);
            let (drawn, total) = by_rows(&lines, area, 0);
            assert_eq!(drawn, by_paragraph(&lines, area, 0), "width {width}");
            assert_eq!(total, count(&lines, width), "width {width}");
        }
    }

    #[test]
    fn rows_above_a_line_are_counted_without_it() {
        let lines = vec![Line::raw("one two three four"), Line::raw("five")];
        let rows = Rows::new(lines, 8);
        assert_eq!(rows.above(1), 3);
        assert_eq!(rows.total(), 4);
    }

    fn word() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z]{1,12}",
            "[ ]{1,4}",
            Just("—".to_string()),
            Just("’".to_string()),
            Just("…".to_string()),
            Just("é".to_string()),
            Just("日".to_string()),
            Just("e\u{301}".to_string()),
            Just("\u{a0}".to_string()),
        ]
    }

    fn line() -> impl Strategy<Value = Line<'static>> {
        prop::collection::vec((prop::collection::vec(word(), 0..12), any::<bool>()), 0..4).prop_map(
            |spans| {
                Line::from(
                    spans
                        .into_iter()
                        .map(|(words, red)| {
                            let style = if red {
                                Style::new().fg(Color::Red)
                            } else {
                                Style::new()
                            };
                            Span::styled(words.concat(), style)
                        })
                        .collect::<Vec<_>>(),
                )
            },
        )
    }

    proptest! {
        #[test]
        fn every_screenful_is_what_paragraph_draws(
            lines in prop::collection::vec(line(), 0..6),
            // From 3: at 2 columns ratatui's own wrapper can put a wide character past the
            // row's end and index outside the buffer ("a日a"); the screen is never that narrow
            // (`MIN_WIDTH`).
            width in 3u16..30,
            height in 1u16..12,
            scroll in 0u16..20,
        ) {
            let area = Rect::new(2, 1, width, height);
            let (drawn, total) = by_rows(&lines, area, scroll);
            prop_assert_eq!(drawn, by_paragraph(&lines, area, scroll));
            prop_assert_eq!(total, count(&lines, width));
        }
    }
}
