//! Search on screen: the prompt in the footer, the list of hits (or of rounds a jump could
//! mean) as an overlay, and the matches highlighted in a transcript's lines.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, List, ListItem, ListState, Paragraph};

use crate::store::{HitPlace, find_ignore_case};
use crate::tui::app::App;
use crate::tui::keys::Action;
use crate::tui::screens::search::{self as search_screen, ListKind, PromptKind};
use crate::tui::theme::Theme;

use super::keyed;

/// The footer while the prompt is open: what is typed, after a cursor-like marker.
pub(super) fn prompt_line(app: &App) -> Option<String> {
    let prompt = app.screens.search.prompt.as_ref()?;
    let (lead, hint) = match prompt.kind {
        PromptKind::Search => ("/", "search"),
        PromptKind::Jump => (":", "jump to round id"),
    };
    let key = |action| keyed::key_of(&app.keys, search_screen::PROMPT, action).unwrap_or_default();
    Some(format!(
        "{lead}{}█   ({hint}: {} runs, {} cancels)",
        crate::sanitize::sanitize(&prompt.text),
        key(Action::Run),
        key(Action::Leave)
    ))
}

/// The list overlay, over most of the screen.
pub(super) fn render_list(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let search = &app.screens.search;
    let Some(list) = &search.list else { return };
    let width = area.width.saturating_sub(4).max(20).min(area.width);
    let height = area.height.saturating_sub(4).max(6).min(area.height);
    let popup = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    let dim = Style::new().fg(theme.dim);
    let (title, items): (String, Vec<ListItem<'_>>) = match &list.kind {
        ListKind::Hits => {
            let items = search
                .hits
                .iter()
                .map(|hit| {
                    let models = app
                        .mirror
                        .index
                        .get(&hit.round_id)
                        .map(|&i| {
                            let r = &app.mirror.rounds[i].stored;
                            format!("  {} vs {}", r.team_a_model, r.team_b_model)
                        })
                        .unwrap_or_default();
                    let times = if hit.count > 1 {
                        format!(" ×{}", hit.count)
                    } else {
                        String::new()
                    };
                    ListItem::new(vec![
                        Line::from(vec![
                            Span::styled(
                                hit.round_id.clone(),
                                Style::new().add_modifier(Modifier::BOLD),
                            ),
                            Span::styled(models, dim),
                            Span::styled(format!("  {}{times}", hit.place.describe()), dim),
                        ]),
                        Line::from(vec![
                            Span::raw(format!("  {}", hit.snippet.before)),
                            Span::styled(hit.snippet.matched.clone(), theme.search_match()),
                            Span::raw(hit.snippet.after.clone()),
                        ]),
                    ])
                })
                .collect();
            (format!(" Search {} ", search.summary()), items)
        }
        ListKind::Rounds(ids) => (
            format!(" {} rounds: choose one ", ids.len()),
            ids.iter()
                .map(|id| ListItem::new(Line::raw(id.clone())))
                .collect(),
        ),
    };
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(theme.accent))
        .title(title)
        .title_style(Style::new().add_modifier(Modifier::BOLD));
    frame.render_widget(Clear, popup);
    if items.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                keyed::fill(
                    &app.keys,
                    search_screen::LIST,
                    "Nothing found. {back} closes this; {search} searches again.",
                )
                .into_owned(),
                dim,
            ))
            .block(block),
            popup,
        );
        return;
    }
    let widget = List::new(items)
        .block(block)
        .highlight_style(Style::new().bg(theme.selected))
        .highlight_symbol("▶ ");
    let mut state = ListState::default().with_selected(Some(list.selected));
    frame.render_stateful_widget(widget, popup, &mut state);
}

/// `line` with every match of `query` in it styled as a match (a match split between two
/// spans is styled in both).
pub(super) fn highlight<'a>(line: Line<'a>, query: &str, style: Style) -> (Line<'a>, bool) {
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let found = find_ignore_case(&text, query);
    if found.is_empty() {
        return (line, false);
    }
    let mut spans = Vec::with_capacity(line.spans.len() + 2 * found.len());
    let mut offset = 0;
    for span in line.spans {
        let content = span.content.as_ref();
        let end = offset + content.len();
        // Cut points inside this span: match starts and ends.
        let mut cuts: Vec<usize> = found
            .iter()
            .flat_map(|r| [r.start, r.end])
            .filter(|&c| c > offset && c < end)
            .map(|c| c - offset)
            .collect();
        cuts.dedup();
        let mut from = 0;
        for cut in cuts.into_iter().chain([content.len()]) {
            if cut > from {
                let at = offset + from;
                let inside = found.iter().any(|r| r.start <= at && at < r.end);
                let piece = content[from..cut].to_string();
                let piece_style = if inside {
                    span.style.patch(style)
                } else {
                    span.style
                };
                spans.push(Span::styled(piece, piece_style));
            }
            from = cut;
        }
        offset = end;
    }
    (
        Line {
            spans,
            style: line.style,
            alignment: line.alignment,
        },
        true,
    )
}

/// Where the round view scrolls when opened at a search hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    /// A phase's answer (or prompt): its first match.
    Phase {
        /// The transcript entry.
        index: usize,
        /// The match is in the prompt.
        prompt: bool,
    },
    /// The top (the round's own fields, its error, a correction).
    Top,
}

/// The hit this round view was opened at, while it has not been scrolled since.
pub(super) fn target(app: &App, round: &crate::tui::mirror::RoundState) -> Option<Target> {
    if !app.screens.round.scroll_to_hit {
        return None;
    }
    let hit = app.screens.search.current_hit()?;
    if hit.round_id != round.id() {
        return None;
    }
    Some(match hit.place {
        HitPlace::Phase { index, prompt, .. } => Target::Phase { index, prompt },
        _ => Target::Top,
    })
}

/// Highlights the last search's matches in every line; returns the first line within
/// `hit_lines` that holds one.
pub(super) fn highlight_all(
    lines: &mut Vec<Line<'_>>,
    app: &App,
    theme: &Theme,
    hit_lines: Option<std::ops::Range<usize>>,
) -> Option<usize> {
    let query = app
        .screens
        .search
        .query
        .as_deref()
        .filter(|q| !q.is_empty())?;
    let style = theme.search_match();
    let mut first = None;
    for (i, line) in std::mem::take(lines).into_iter().enumerate() {
        let (line, matched) = highlight(line, query, style);
        if matched && first.is_none() && hit_lines.as_ref().is_some_and(|r| r.contains(&i)) {
            first = Some(i);
        }
        lines.push(line);
    }
    first
}
