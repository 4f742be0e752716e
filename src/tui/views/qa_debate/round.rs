//! A question-answer round in the round view: arguments with their quotes coloured by
//! verification and the debaters' private thinking folded away, and the verdict tab (the
//! answers handed out, the judge's choice and confidence, the debaters' quote records).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

use crate::domain::{PhaseType, QaSetup, Team};
use crate::protocols::qa_debate::judge_correct;
use crate::protocols::qa_debate::quotes::{GameText, ShownArgument, show_argument};
use crate::tui::mirror::{Entry, RoundState};
use crate::tui::theme::Theme;

/// The debater of an argument (see [`Entry::team`]).
pub fn side_of(p: &Entry<'_>) -> Option<Team> {
    if p.phase_type != PhaseType::Argument {
        return None;
    }
    p.team()
}

fn shown(text: &str, setup: &QaSetup) -> ShownArgument {
    let game = GameText::new(&setup.facts, &setup.rules, &setup.preferences);
    show_argument(text, setup.word_limit as usize, &game)
}

/// One line of an argument with `<v_quote>` in the verified colour and `<u_quote>` in the
/// unverified one, each marked so it reads without colour too.
fn quote_spans(line: &str, theme: &Theme) -> Line<'static> {
    let mut spans = Vec::new();
    let mut rest = line;
    loop {
        let next = ["<v_quote>", "<u_quote>"]
            .iter()
            .filter_map(|t| rest.find(t).map(|i| (i, *t)))
            .min();
        let Some((i, tag)) = next else {
            spans.push(Span::raw(rest.to_string()));
            break;
        };
        spans.push(Span::raw(rest[..i].to_string()));
        let after = &rest[i + tag.len()..];
        let close = if tag == "<v_quote>" {
            "</v_quote>"
        } else {
            "</u_quote>"
        };
        let (quote, next_rest) = after
            .find(close)
            .map_or((after, ""), |j| (&after[..j], &after[j + close.len()..]));
        let (mark, colour) = if tag == "<v_quote>" {
            ("✓", theme.complete)
        } else {
            ("✗", theme.incomplete)
        };
        spans.push(Span::styled(
            format!("{mark}“{quote}”"),
            Style::new().fg(colour).add_modifier(Modifier::ITALIC),
        ));
        rest = next_rest;
    }
    Line::from(spans)
}

/// An argument as the judge saw it (once finished), thinking folded away.
pub fn argument_lines(p: &Entry<'_>, setup: &QaSetup, theme: &Theme) -> Vec<Line<'static>> {
    let folded = |words: usize, more: &str| {
        Line::styled(
            format!("▸ thinking{more} ({words} words, hidden from the judge and the opponent)"),
            Style::new().fg(theme.dim).add_modifier(Modifier::ITALIC),
        )
    };
    if !p.done {
        // While it streams: the open thinking block stays folded.
        return match p.text.split_once("<thinking>") {
            Some((_, rest)) if !rest.contains("</thinking>") => {
                vec![folded(rest.split_whitespace().count(), "…")]
            }
            _ => {
                let visible = p
                    .text
                    .split_once("</thinking>")
                    .map_or(p.text, |(_, after)| after);
                visible.lines().map(|l| Line::raw(l.to_string())).collect()
            }
        };
    }
    let s = shown(p.text, setup);
    let mut lines = Vec::new();
    if !s.thinking.is_empty() {
        lines.push(folded(s.thinking.split_whitespace().count(), ""));
    }
    lines.extend(s.text.lines().map(|l| quote_spans(l, theme)));
    if s.cut {
        lines.push(Line::styled(
            format!(
                "cut at the word limit: {} words, limit {}",
                s.words, setup.word_limit
            ),
            Style::new().fg(theme.review),
        ));
    }
    lines
}

/// The verdict tab, drawn into `buf`.
pub fn render_outcome(
    buf: &mut Buffer,
    area: Rect,
    round: &RoundState,
    setup: &QaSetup,
    theme: &Theme,
) {
    outcome(round, setup, theme).render(area, buf);
}

/// The rows the verdict tab takes at `width`.
pub fn outcome_height(round: &RoundState, setup: &QaSetup, width: u16, theme: &Theme) -> u16 {
    outcome(round, setup, theme)
        .line_count(width)
        .min(u16::MAX as usize) as u16
}

/// The verdict tab's text: the item, the question, both answers, the quotes, each judge's
/// choice and answer.
fn outcome<'a>(round: &'a RoundState, setup: &'a QaSetup, theme: &Theme) -> Paragraph<'a> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut lines = vec![
        Line::from(vec![
            Span::styled("Item ", bold),
            Span::raw(format!(
                "{} ({}), {}{}",
                setup.item_id,
                setup.level,
                setup.format.as_str(),
                setup
                    .relation
                    .as_deref()
                    .map(|r| format!(", debaters {r}"))
                    .unwrap_or_default()
            )),
        ]),
        Line::from(vec![
            Span::styled("Question ", bold),
            Span::raw(setup.question.clone()),
        ]),
        Line::raw(""),
    ];
    for (side, colour, model) in [
        (Team::A, theme.team_a, &round.stored.team_a_model),
        (Team::B, theme.team_b, &round.stored.team_b_model),
    ] {
        let correct = setup.assignment.correct_side == Some(side);
        let who = if model.is_empty() {
            String::new()
        } else {
            format!(" ({model})")
        };
        lines.push(Line::from(vec![
            Span::styled(format!("Answer {side:?}{who}: "), Style::new().fg(colour)),
            Span::raw(setup.answer(side).answer()),
            Span::styled(
                if correct { "  ← correct" } else { "" },
                Style::new().fg(theme.complete),
            ),
        ]));
    }
    lines.push(Line::raw(""));
    for (side, colour, record) in [
        (Team::A, theme.team_a, &setup.debater_a),
        (Team::B, theme.team_b, &setup.debater_b),
    ] {
        let (verified, unverified, cuts) = (
            record.verified_quotes,
            record.unverified_quotes,
            record.word_limit_violations,
        );
        if verified + unverified + cuts > 0 {
            lines.push(Line::styled(
                format!(
                    "Debater {side:?}: {verified} quotes verified, {unverified} not found in the game, {cuts} arguments cut at the word limit"
                ),
                Style::new().fg(colour),
            ));
        }
    }
    lines.push(Line::raw(""));
    let judgments = &round.stored.judgments;
    if judgments.is_empty() {
        lines.push(Line::styled("No judgment yet.", Style::new().fg(theme.dim)));
    }
    for j in judgments {
        // Each judge's own choice is right or wrong (a panel's judges may differ).
        let verdict = match (j.choice(), judge_correct(setup, j)) {
            (Some(c), correct) if j.is_usable() => {
                let (word, colour) = match correct {
                    Some(true) => ("correct", theme.complete),
                    Some(false) => ("wrong", theme.incomplete),
                    None => ("both answers were wrong", theme.dim),
                };
                Span::styled(
                    format!(
                        "chose {:?} with confidence {}: {word}",
                        c.side,
                        c.confidence.map_or("–".into(), |v| format!("{v:.0}"))
                    ),
                    Style::new().fg(colour).add_modifier(Modifier::BOLD),
                )
            }
            // A three-way baseline labels the goal instead of choosing a side.
            (None, Some(correct)) => Span::styled(
                format!(
                    "labelled the goal {}: {}",
                    j.label().map_or("–", |l| l.as_str()),
                    if correct { "correct" } else { "wrong" }
                ),
                Style::new()
                    .fg(if correct {
                        theme.complete
                    } else {
                        theme.incomplete
                    })
                    .add_modifier(Modifier::BOLD),
            ),
            _ => Span::styled(
                format!("not readable: {}", j.problems.join("; ")),
                Style::new().fg(theme.review),
            ),
        };
        let corrected = if j.parse_status == crate::domain::ParseStatus::CorrectedByHand {
            "  ✎ corrected by hand"
        } else {
            ""
        };
        lines.push(Line::from(vec![
            Span::styled(format!("Judge {}: ", j.judge_model), bold),
            verdict,
            Span::styled(corrected, Style::new().fg(theme.review)),
        ]));
        lines.extend(
            j.raw_response
                .lines()
                .map(|l| Line::styled(l.to_string(), Style::new().fg(theme.dim))),
        );
    }
    Paragraph::new(lines).wrap(Wrap { trim: false }).block(
        Block::new()
            .borders(Borders::TOP)
            .border_style(Style::new().fg(theme.border)),
    )
}
