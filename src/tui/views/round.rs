//! One round: its transcript as a scrolling document (each phase with model, role, timing
//! and tokens, a warning when its answer was cut at the token limit, and under a judge's
//! answer what the judge saw: model names shown or hidden, temperature, prompt version; the running phase
//! growing as it streams), or its judges' score tables. A round stopped by an error says
//! why at the top, with every attempt of the call that failed.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Paragraph, Tabs, Wrap};

use super::call_notes;
use super::protocols::presentation;
use super::rows::Rows;
use crate::domain::{JudgeView, Judgment, ParseStatus, PhaseType};
use crate::tui::app::App;
use crate::tui::mirror::RoundState;
use crate::tui::theme::Theme;

fn role(phase: PhaseType, theme: &Theme) -> (&'static str, ratatui::style::Color) {
    match phase {
        PhaseType::Presentation | PhaseType::Rebuttal | PhaseType::ConsistencyTest => {
            ("Team A", theme.team_a)
        }
        PhaseType::Response | PhaseType::ConsistencyTestB => ("Team B", theme.team_b),
        PhaseType::Judgment => ("Judge", theme.accent),
        PhaseType::PanelEvaluation | PhaseType::Deliberation => ("Panel", theme.accent),
        PhaseType::Argument => ("Debater", theme.team_a),
        PhaseType::Opening | PhaseType::CrossExamination | PhaseType::Closing => {
            ("Debater", theme.team_a)
        }
    }
}

pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let screen = &app.screens.round;
    let scores = screen.scores;
    let Some(round) = screen.round(&app.mirror) else {
        return;
    };
    let stored = &round.stored;
    let shown = presentation(stored.kind());
    let judges = match round.panel() {
        Some(panel) => {
            let seats: Vec<String> = panel
                .judges
                .iter()
                .map(|s| format!("{} ({})", s.persona_id, s.model))
                .collect();
            format!("panel: {}", seats.join(", "))
        }
        None => format!("judge: {}", round.judges().join(", ")),
    };
    let heading = Paragraph::new(Line::from(vec![
        Span::styled(stored.id.clone(), Style::new().add_modifier(Modifier::BOLD)),
        Span::raw("  "),
        Span::styled(
            format!("A: {}", stored.team_a_model),
            Style::new().fg(theme.team_a),
        ),
        Span::raw("  "),
        Span::styled(
            format!("B: {}", stored.team_b_model),
            Style::new().fg(theme.team_b),
        ),
        Span::styled(
            format!(
                "  {judges}  status: {}",
                crate::tui::mirror::standing(round, app.mirror.now).label()
            ),
            Style::new().fg(theme.dim),
        ),
        Span::styled(
            if round.corrected_by_hand() {
                "  ✎ corrected by hand"
            } else {
                ""
            },
            Style::new().fg(theme.review),
        ),
    ]))
    .wrap(Wrap { trim: true });
    // Why an incomplete round stopped, and how each attempt of the failed call went, at the
    // top of either tab.
    let error = round.failure().map(|e| {
        let mut text = Text::from(format!("stopped: {}", e.message));
        text.extend(call_notes::lines(&e.attempts, theme.incomplete));
        // Not trimmed: the attempts are indented under the message.
        Paragraph::new(text)
            .wrap(Wrap { trim: false })
            .style(Style::new().fg(theme.incomplete))
    });
    let error_height = error.as_ref().map_or(0, |p| {
        (p.line_count(area.width) as u16).min((area.height / 3).max(3))
    });
    let [title, tabs, error_area, body] = Layout::vertical([
        Constraint::Length((heading.line_count(area.width) as u16).clamp(1, 3)),
        Constraint::Length(1),
        Constraint::Length(error_height),
        Constraint::Min(3),
    ])
    .areas(area);
    frame.render_widget(heading, title);
    if let Some(error) = error {
        frame.render_widget(error, error_area);
    }
    frame.render_widget(
        Tabs::new(["Transcript", shown.verdict_tab()])
            .select(usize::from(scores))
            .highlight_style(Style::new().fg(theme.accent).add_modifier(Modifier::BOLD)),
        tabs,
    );
    if round.text_dropped {
        render_reading(frame, body, app, round, theme);
    } else if scores {
        render_verdict(frame, body, app, round, theme);
    } else {
        render_transcript(frame, body, app, round, theme);
    }
}

/// The verdict (or scores) tab at the screen's scroll: drawn whole off screen when it is
/// taller than `area`, the rows from the scroll copied in, with `more ↑` / `more ↓` where
/// rows are hidden, so every score is reachable by keys at any height.
fn render_verdict(frame: &mut Frame<'_>, area: Rect, app: &App, round: &RoundState, theme: &Theme) {
    let shown = presentation(round.stored.kind());
    let screen = &app.screens.round;
    let needed = shown.verdict_height(round, area.width, theme);
    if needed <= area.height {
        screen.bottom.set(Some(0));
        shown.render_verdict(frame.buffer_mut(), area, round, theme);
        return;
    }
    let whole = Rect::new(0, 0, area.width, needed);
    let mut drawn = Buffer::empty(whole);
    shown.render_verdict(&mut drawn, whole, round, theme);
    let bottom = needed - area.height;
    screen.bottom.set(Some(usize::from(bottom)));
    let top = screen.scroll.min(usize::from(bottom)) as u16;
    let out = frame.buffer_mut();
    for y in 0..area.height {
        for x in 0..area.width {
            if let (Some(from), Some(to)) = (
                drawn.cell((x, top + y)),
                out.cell_mut((area.x + x, area.y + y)),
            ) {
                *to = from.clone();
            }
        }
    }
    let marker = |text: &'static str, y: u16, frame: &mut Frame<'_>| {
        let width = (text.chars().count() as u16).min(area.width);
        let at = Rect::new(area.right().saturating_sub(width + 1), y, width, 1);
        frame.render_widget(
            Paragraph::new(text).style(
                Style::new()
                    .fg(theme.accent)
                    .add_modifier(Modifier::BOLD | Modifier::REVERSED),
            ),
            at,
        );
    };
    if top > 0 {
        marker(" more ↑ ", area.y, frame);
    }
    if top < bottom {
        marker(" more ↓ PgDn ", area.bottom().saturating_sub(1), frame);
    }
}

/// A round whose text waits in the store: being read back, or why it could not be.
pub(super) fn render_reading(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    round: &RoundState,
    theme: &Theme,
) {
    let failed = app
        .mirror
        .text_kept
        .failed
        .as_ref()
        .filter(|(id, _)| id == round.id());
    let (text, colour) = match failed {
        Some((_, why)) => (
            format!("this round could not be read back from the store: {why}"),
            theme.incomplete,
        ),
        None => ("reading the round from the store…".to_string(), theme.dim),
    };
    frame.render_widget(
        Paragraph::new(text)
            .wrap(Wrap { trim: true })
            .style(Style::new().fg(colour)),
        area,
    );
}

fn render_transcript(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    round: &RoundState,
    theme: &Theme,
) {
    let mut lines: Vec<Line<'_>> = Vec::new();
    let shown = presentation(round.stored.kind());
    let mut empty = true;
    let hit = super::search::target(app, round);
    // Where the open hit's text begins and ends in `lines`, once passed.
    let mut hit_lines: Option<std::ops::Range<usize>> = None;
    lines.extend(setup_lines(
        shown.setup(round),
        area.width,
        app.screens.round.show_prompts,
        theme,
    ));
    for (entry, p) in round.transcript().enumerate() {
        empty = false;
        let entry_start = lines.len();
        let (who, colour) = shown
            .speaker(&p, theme)
            .unwrap_or_else(|| role(p.phase_type, theme));
        let timing = match (p.done, p.latency_ms) {
            (true, Some(ms)) => format!("{:.1} s", ms as f64 / 1000.0),
            (true, None) => "done".into(),
            (false, _) if p.batched => "waiting in a batch…".into(),
            (false, _) => "streaming…".into(),
        };
        let batch = match (p.batch_id, p.reused) {
            (_, true) => " · reused from the response cache".to_string(),
            (Some(id), false) => format!(" · batch {id}"),
            (None, false) => String::new(),
        };
        lines.push(Line::from(vec![
            Span::styled(
                format!("━━ {} ", p.phase_type.title()),
                Style::new().fg(colour).add_modifier(Modifier::BOLD),
            ),
            Span::styled(
                format!(
                    "· {} ({who}) · {timing}{}{batch}",
                    p.speaker,
                    call_notes::tokens(p.tokens, p.usage_estimated)
                ),
                Style::new().fg(theme.dim),
            ),
        ]));
        if p.truncated {
            lines.push(call_notes::truncated(p.finish_reason, theme.review));
        }
        if let Some(j) = p.judgment {
            lines.push(Line::styled(
                format!(
                    "what the judge saw: {}",
                    JudgeView::describe(j.view.as_ref())
                ),
                Style::new().fg(theme.dim),
            ));
            if j.parse_status == ParseStatus::CorrectedByHand {
                lines.push(corrected_mark(j, theme));
                if let Some(text) = &j.corrected_text {
                    lines.push(Line::styled(
                        "the text as corrected:",
                        Style::new().fg(theme.review).add_modifier(Modifier::ITALIC),
                    ));
                    lines
                        .extend(text.lines().map(|l| {
                            Line::styled(format!("  {l}"), Style::new().fg(theme.review))
                        }));
                    lines.push(Line::styled(
                        "the judge's own answer:",
                        Style::new().fg(theme.dim).add_modifier(Modifier::ITALIC),
                    ));
                }
            }
        }
        if app.screens.round.show_prompts
            && let Some(prompt) = p.prompt
        {
            lines.push(Line::styled(
                "prompt:",
                Style::new().fg(theme.dim).add_modifier(Modifier::ITALIC),
            ));
            lines.extend(
                prompt
                    .lines()
                    .map(|l| Line::styled(l.to_string(), Style::new().fg(theme.dim))),
            );
            lines.push(Line::styled(
                "answer:",
                Style::new().fg(theme.dim).add_modifier(Modifier::ITALIC),
            ));
        }
        let answer_start = lines.len();
        if let Some(e) = p.error {
            lines.push(Line::styled(
                format!("failed: {e}"),
                Style::new().fg(theme.incomplete),
            ));
            lines.extend(call_notes::lines(p.attempts, theme.dim));
        } else {
            lines.extend(shown.phase_lines(&p, round, theme));
        }
        if let Some(super::search::Target::Phase { index, prompt }) = hit
            && index == entry
        {
            hit_lines = Some(if prompt { entry_start } else { answer_start }..lines.len());
        }
        lines.push(Line::raw(""));
    }
    let first_match = super::search::highlight_all(&mut lines, app, theme, hit_lines);
    if empty {
        lines.push(Line::styled(
            "No phase has started yet.",
            Style::new().fg(theme.dim),
        ));
    }
    let block = Block::new()
        .borders(Borders::TOP)
        .border_style(Style::new().fg(theme.border));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = Rows::new(lines, inner.width);
    // Scrolled to the bottom, the last row in view is the transcript's last (the blank row
    // after its last phase), so a streaming answer's newest line sits just above it.
    let bottom = rows.total().saturating_sub(usize::from(inner.height));
    app.screens.round.bottom.set(Some(bottom));
    let scroll = if hit.is_some() {
        // Opened at a search hit: a couple of rows above its first match.
        let above = first_match.map_or(0, |k| rows.above(k));
        let at = above.saturating_sub(2).min(bottom);
        app.screens.round.scrolled_to.set(Some(at));
        at
    } else if app.screens.round.follow {
        bottom
    } else {
        app.screens.round.scroll.min(bottom)
    };
    rows.render(scroll, inner, frame.buffer_mut());
}

/// The mark under a judgment a person corrected in the review editor: what stands is the
/// person's reading (their text, or scores typed over it), the judge's own answer below.
pub(super) fn corrected_mark(j: &Judgment, theme: &Theme) -> Line<'static> {
    let how = if j.corrected_text.is_some() {
        "its text fixed in the review editor (the reading stands on it)"
    } else {
        "its scores typed in the review editor; the judge's own answer follows"
    };
    Line::styled(
        format!("✎ corrected by hand: {how}"),
        Style::new().fg(theme.review).add_modifier(Modifier::BOLD),
    )
}

/// Rows each part of the round's setup is folded to at the top of the transcript.
const FOLD_ROWS: usize = 3;

/// What the round is about, at the top of its transcript: each part named, folded to a few
/// rows at `width` (whole, lines kept, when the prompts are shown).
fn setup_lines(
    parts: Vec<(&'static str, String)>,
    width: u16,
    whole: bool,
    theme: &Theme,
) -> Vec<Line<'static>> {
    if parts.is_empty() {
        return Vec::new();
    }
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut lines = Vec::new();
    let mut folded = false;
    for (name, text) in parts {
        let label = format!("{name}: ");
        if whole {
            let mut rows = text.lines();
            lines.push(Line::from(vec![
                Span::styled(label, bold),
                Span::raw(rows.next().unwrap_or("").to_string()),
            ]));
            lines.extend(rows.map(|l| Line::raw(l.to_string())));
            continue;
        }
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let room = (usize::from(width) * FOLD_ROWS)
            .saturating_sub(label.chars().count() + 2)
            .max(20);
        let shown = if flat.chars().count() > room {
            folded = true;
            let cut: String = flat.chars().take(room.saturating_sub(1)).collect();
            format!("{}…", cut.trim_end())
        } else {
            flat
        };
        lines.push(Line::from(vec![
            Span::styled(label, bold),
            Span::raw(shown),
        ]));
    }
    if folded {
        lines.push(Line::styled(
            "(folded: P shows it whole, with every prompt)",
            Style::new().fg(theme.dim).add_modifier(Modifier::ITALIC),
        ));
    }
    lines.push(Line::raw(""));
    lines
}
