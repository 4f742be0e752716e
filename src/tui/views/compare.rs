//! The comparison (`open A --compare B`): a round's judgments in both folders side by side,
//! judge by judge (A left, B right: the reading in the protocol's terms, the judge's own
//! text, and above both what changed), or the summary `ethics-bowl compare` prints
//! (agreement, flipped verdicts, correlation of the margins, judges' leniency, ratings).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Tabs, Wrap};

use crate::analysis::compare::Comparison;
use crate::domain::{Criterion, Judgment, ParseStatus, ProtocolKind, Reading, Round, Team};
use crate::tui::app::App;
use crate::tui::mirror::{Compared, JudgeRow};
use crate::tui::theme::Theme;

/// Draws the comparison: the selected round side by side, or the summary.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let screen = &app.screens.compare;
    let summary = screen.summary;
    let Some(compare) = &app.mirror.compare else {
        return;
    };
    let [tabs, body] = Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(area);
    frame.render_widget(
        Tabs::new([
            format!("This round: A {} | B {}", compare.label_a, compare.label_b),
            "Summary".to_string(),
        ])
        .select(usize::from(summary))
        .highlight_style(Style::new().fg(theme.accent).add_modifier(Modifier::BOLD)),
        tabs,
    );
    if summary {
        let lines = summary_lines(&compare.comparison, compare);
        frame.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .scroll((screen.scroll.min(u16::MAX as usize) as u16, 0))
                .block(bordered(" Comparison ", theme)),
            body,
        );
        return;
    }
    let round = screen.round.as_deref().and_then(|id| app.mirror.round(id));
    match round {
        // A's judges' texts wait in the store until the round is read back.
        Some(round) if round.text_dropped => {
            super::round::render_reading(frame, body, app, round, theme)
        }
        Some(round) => render_round(frame, body, &round.stored, compare, screen.scroll, theme),
        None => frame.render_widget(
            Paragraph::new("No round is selected: choose one on the matrix.")
                .block(bordered(" This round ", theme)),
            body,
        ),
    }
}

fn bordered<'a>(title: &'a str, theme: &Theme) -> Block<'a> {
    Block::new()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(theme.border))
        .title(title)
}

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("–".to_string(), |v| format!("{v:.digits$}"))
}

/// A margin or a change, signed: `+7.0`, `-10.5`.
fn signed(v: Option<f64>) -> String {
    v.map_or("–".to_string(), |v| format!("{v:+.1}"))
}

/// How a verdict (`A`, `B`, `draw`) reads in the protocol's terms.
fn side(kind: ProtocolKind, verdict: &str) -> &str {
    match (kind, verdict) {
        (ProtocolKind::EthicsBowl, "A") => "Team A",
        (ProtocolKind::EthicsBowl, "B") => "Team B",
        (ProtocolKind::StructuredDebate, "A") => "Pro",
        (ProtocolKind::StructuredDebate, "B") => "Con",
        (ProtocolKind::QaDebate, "A") => "debater A's answer",
        (ProtocolKind::QaDebate, "B") => "debater B's answer",
        (_, other) => other,
    }
}

/// The summary: what `ethics-bowl compare` prints, as lines.
fn summary_lines(c: &Comparison, state: &Compared) -> Vec<Line<'static>> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let (na, nb, both) = c.rounds;
    let pairs = c.pairs.len();
    let share = |k: usize| {
        if pairs == 0 {
            "–".to_string()
        } else {
            format!("{k} of {pairs} ({:.0}%)", 100.0 * k as f64 / pairs as f64)
        }
    };
    let mut lines = vec![
        Line::raw(format!("A: {}", state.label_a)),
        Line::raw(format!("B: {}", state.label_b)),
        Line::raw(format!(
            "{} rounds: {na} in A, {nb} in B, {both} in both; {pairs} judgments usable in both (same round, same judge)",
            c.protocol.as_str()
        )),
        Line::raw(""),
        Line::styled("Agreement between A and B", bold),
        Line::raw(format!(
            "  verdicts the same         {}",
            share(pairs - c.flipped)
        )),
        Line::raw(format!("  verdicts that flipped     {}", share(c.flipped))),
        Line::raw(format!(
            "  correlation of the margins (Pearson)  {}",
            num(c.margin_correlation, 3)
        )),
        Line::raw(format!(
            "  mean absolute change of the margin    {}",
            num(c.mean_abs_change, 2)
        )),
        Line::raw(""),
    ];
    let what = if c.protocol == ProtocolKind::QaDebate {
        "mean confidence"
    } else {
        "mean total given a team"
    };
    lines.push(Line::styled(format!("Judges ({what}): A | B"), bold));
    for j in &c.judges {
        lines.push(Line::raw(format!(
            "  {:<28} {} (n={}) | {} (n={})",
            j.judge,
            num(j.mean_a, 2),
            j.n_a,
            num(j.mean_b, 2),
            j.n_b
        )));
    }
    if !c.ratings.is_empty() {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "Ratings (Bradley–Terry, 95% intervals): A | B",
            bold,
        ));
        let show = |r: &Option<crate::analysis::ratings::Rating>| {
            r.as_ref().map_or("–".to_string(), |r| {
                format!(
                    "{:.0} [{:.0}, {:.0}] (n={})",
                    r.rating, r.low, r.high, r.matches
                )
            })
        };
        for r in &c.ratings {
            lines.push(Line::raw(format!(
                "  {:<28} {} | {}",
                r.model,
                show(&r.a),
                show(&r.b)
            )));
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("Judgments that changed verdict", bold));
    let flips: Vec<_> = c.pairs.iter().filter(|p| p.flipped()).collect();
    if flips.is_empty() {
        lines.push(Line::raw("  none"));
    }
    for p in flips {
        lines.push(Line::raw(format!(
            "  {} · {}: {} → {} (margin {} → {})",
            p.round_id,
            p.judge,
            side(c.protocol, p.verdict_a),
            side(c.protocol, p.verdict_b),
            signed(p.margin_a),
            signed(p.margin_b)
        )));
    }
    lines
}

/// What changed between a judge's two judgments, in a sentence.
fn change(row: &JudgeRow<'_>, kind: ProtocolKind) -> String {
    let (Some(a), Some(b)) = (row.a, row.b) else {
        return if row.a.is_some() {
            "only in A".into()
        } else {
            "only in B".into()
        };
    };
    let confidence = match (a.choice(), b.choice()) {
        (Some(ca), Some(cb)) if ca.confidence != cb.confidence => format!(
            " · confidence {} → {}",
            num(ca.confidence, 0),
            num(cb.confidence, 0)
        ),
        _ => String::new(),
    };
    let Some(pair) = row.pair else {
        return match (a.is_usable(), b.is_usable()) {
            (true, true) => format!(
                "margin {} → {}{confidence}",
                signed(a.margin()),
                signed(b.margin())
            ),
            (false, true) => "not comparable: A's judgment is not usable".into(),
            (true, false) => "not comparable: B's judgment is not usable".into(),
            (false, false) => "not comparable: neither judgment is usable".into(),
        };
    };
    let margins = match (pair.margin_a, pair.margin_b) {
        (None, None) => String::new(),
        (ma, mb) => format!(" · margin {} → {}", signed(ma), signed(mb)),
    };
    if pair.flipped() {
        format!(
            "⇄ verdict flipped: {} → {}{margins}{confidence}",
            side(kind, pair.verdict_a),
            side(kind, pair.verdict_b)
        )
    } else if pair.change().is_some_and(|c| c.abs() > 1e-9) {
        format!(
            "Δ margin changed by {}: {} in both{margins}{confidence}",
            signed(pair.change()),
            side(kind, pair.verdict_a)
        )
    } else {
        format!(
            "≡ same: {}{margins}{confidence}",
            side(kind, pair.verdict_a)
        )
    }
}

/// One judgment's reading in the protocol's terms, then the judge's own text.
fn judgment_lines(j: Option<&Judgment>, round: &Round, theme: &Theme) -> Vec<Line<'static>> {
    let Some(j) = j else {
        return vec![Line::styled(
            "no judgment by this judge",
            Style::new().fg(theme.dim),
        )];
    };
    let mut lines = Vec::new();
    match j.parse_status {
        ParseStatus::Parsed => {}
        ParseStatus::CorrectedByHand => lines.push(Line::raw("corrected by hand")),
        ParseStatus::Partial | ParseStatus::Failed => lines.push(Line::styled(
            format!(
                "not usable (read {}): {}",
                if j.parse_status == ParseStatus::Partial {
                    "in part"
                } else {
                    "nothing"
                },
                j.problems.first().map_or("", String::as_str)
            ),
            Style::new().fg(theme.review),
        )),
    }
    match &j.reading {
        Reading::Rubric { team_a, team_b } => {
            lines.push(Line::raw(format!(
                "Team A {}/70 · Team B {}/70 · margin {}",
                num(team_a.total(), 1),
                num(team_b.total(), 1),
                signed(j.margin())
            )));
            for c in Criterion::ALL {
                lines.push(Line::raw(format!(
                    "  {:<24} {:>4} | {:>4}",
                    c.label(),
                    num(team_a.get(c), 1),
                    num(team_b.get(c), 1)
                )));
            }
        }
        Reading::Choice(choice) => lines.push(Line::raw(match choice {
            Some(c) => format!(
                "chose debater {}'s answer · confidence {}{}",
                if c.side == Team::A { "A" } else { "B" },
                num(c.confidence, 0),
                correctness(round, j)
            ),
            None => "no answer read".into(),
        })),
        Reading::Label(label) => lines.push(Line::raw(match label {
            Some(l) => format!("label {}{}", l.as_str(), correctness(round, j)),
            None => "no label read".into(),
        })),
        Reading::Verdict(verdict) => lines.push(Line::raw(match verdict.as_deref() {
            Some(v) => {
                let band = v.margin().map_or("no totals", |m| m.band.label());
                let winner = match v.winner() {
                    Some(crate::domain::Side::Pro) => "Pro",
                    Some(crate::domain::Side::Con) => "Con",
                    None => "draw",
                };
                format!(
                    "winner {winner} · {band} · Pro {} / Con {}",
                    num(v.pro_total, 2),
                    num(v.con_total, 2)
                )
            }
            None => "no verdict read".into(),
        })),
    }
    let (text, title) = match &j.corrected_text {
        Some(t) => (t.as_str(), "text as corrected:"),
        None => (j.raw_response.as_str(), "the judge's text:"),
    };
    if !text.trim().is_empty() {
        lines.push(Line::styled(title, Style::new().fg(theme.dim)));
        lines.extend(text.lines().map(|l| Line::raw(l.to_string())));
    }
    lines
}

/// ` (correct)` or ` (incorrect)` for a question-answer judgment, when it can be told.
fn correctness(round: &Round, j: &Judgment) -> &'static str {
    match round
        .qa()
        .and_then(|s| crate::protocols::qa_debate::judge_correct(s, j))
    {
        Some(true) => " (correct)",
        Some(false) => " (incorrect)",
        None => "",
    }
}

/// The round's judges, one block each: what changed across the width, A's judgment left
/// and B's right, the blocks scrolled together.
fn render_round(
    frame: &mut Frame<'_>,
    area: Rect,
    round: &Round,
    compare: &Compared,
    scroll: usize,
    theme: &Theme,
) {
    let title = format!(" {} · A left, B right ", round.id);
    let block = bordered(&title, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = compare.judge_rows(round);
    if compare.b_round(&round.id).is_none() {
        frame.render_widget(
            Paragraph::new(format!(
                "B ({}) holds no round {}.",
                compare.label_b, round.id
            ))
            .style(Style::new().fg(theme.dim)),
            inner,
        );
        return;
    }
    let column = inner.width.saturating_sub(1) / 2;
    let kind = round.kind();
    // Each judge: a heading across the width, then both sides, as tall as the taller side
    // wraps to (and a blank line).
    let mut strips: Vec<Strip> = Vec::new();
    for row in &rows {
        let heading = Paragraph::new(Line::styled(
            format!("{} — {}", row.judge, change(row, kind)),
            Style::new().fg(theme.accent).add_modifier(Modifier::BOLD),
        ))
        .wrap(Wrap { trim: true });
        let left = Paragraph::new(judgment_lines(row.a, round, theme)).wrap(Wrap { trim: false });
        let right = Paragraph::new(judgment_lines(
            row.b,
            compare.b_round(&round.id).unwrap_or(round),
            theme,
        ))
        .wrap(Wrap { trim: false });
        strips.push(Strip {
            height: heading.line_count(inner.width) as u16,
            parts: vec![heading],
        });
        strips.push(Strip {
            height: (left.line_count(column).max(right.line_count(column)) as u16)
                .saturating_add(1),
            parts: vec![left, right],
        });
    }
    let mut skip = scroll.min(u16::MAX as usize) as u16;
    let mut y = inner.y;
    let bottom = inner.y + inner.height;
    for strip in strips {
        if skip >= strip.height {
            skip -= strip.height;
            continue;
        }
        if y >= bottom {
            return;
        }
        let shown = (strip.height - skip).min(bottom - y);
        let area = Rect::new(inner.x, y, inner.width, shown);
        let areas: Vec<Rect> = if strip.parts.len() == 1 {
            vec![area]
        } else {
            let [left, _, right] = Layout::horizontal([
                Constraint::Length(column),
                Constraint::Length(1),
                Constraint::Length(column),
            ])
            .areas(area);
            vec![left, right]
        };
        for (part, at) in strip.parts.into_iter().zip(areas) {
            frame.render_widget(part.scroll((skip, 0)), at);
        }
        y += shown;
        skip = 0;
    }
}

/// A band of a judge's block, scrolled as one: a heading across the width, or A's and B's
/// sides.
struct Strip {
    /// Lines it takes.
    height: u16,
    /// One paragraph across the width, or two side by side.
    parts: Vec<Paragraph<'static>>,
}
