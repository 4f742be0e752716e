//! The comparison (`open DIR --compare OTHER`): a round's judgments in both runs side by
//! side, judge by judge (the first run left, the second right, each column titled with its
//! run's name: the reading in the protocol's terms, the judge's own text, and above both
//! what changed), or the summary `ethics-bowl compare` prints (agreement, correlation of the
//! margins, judges' leniency, ratings) over the list of flipped verdicts, which Enter (or the key bound to open) opens.
//! The runs are called by their folders' names (see [`run_names`]), never "A" and "B",
//! which name the teams. The matrix's compare cells and legend are here too.
//!
//! [`run_names`]: crate::tui::mirror::run_names

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph, Tabs, Wrap};

use crate::analysis::compare::{Comparison, PairedJudgment};
use crate::analysis::figures::{Style as Figure, Value};
use crate::domain::{Criterion, Judgment, ParseStatus, ProtocolKind, Reading, Round, Team};
use crate::tui::app::App;
use crate::tui::keys::Action;
use crate::tui::mirror::{Compared, JudgeRow, RoundState};
use crate::tui::screens::compare as compare_screen;
use crate::tui::theme::Theme;

use super::keyed;

/// The most characters of a run's name the header and the legend show.
const NAME_SHOWN: usize = 40;

/// `name` in at most `width` characters: whole when it fits, else its start and its end
/// with `…` between (the end of a folder's name tells runs apart as often as its start).
pub(crate) fn fit_name(name: &str, width: usize) -> String {
    let count = name.chars().count();
    if count <= width {
        return name.to_string();
    }
    if width <= 1 {
        return "…".chars().take(width).collect();
    }
    let keep = width - 1;
    let tail = keep / 2;
    let head: String = name.chars().take(keep - tail).collect();
    let end: String = name.chars().skip(count - tail).collect();
    format!("{head}…{end}")
}

/// The runs compared, for the header: `exp1/sample with exp2/sample`.
pub(crate) fn runs_compared(c: &Compared) -> String {
    format!(
        "{} with {}",
        fit_name(&c.name_a, NAME_SHOWN),
        fit_name(&c.name_b, NAME_SHOWN)
    )
}

/// The matrix legend's entry in compare mode: what a cell's two margins are and its marks.
pub(crate) fn matrix_legend(c: &Compared) -> String {
    format!(
        "  +7→-2⇄ margin in {} → in {} (whole points when narrow): ≡ same  Δ margin changed  ⇄ verdict flipped",
        fit_name(&c.name_a, NAME_SHOWN),
        fit_name(&c.name_b, NAME_SHOWN)
    )
}

/// A round's outcome in a matrix cell: its deciding judgment's margin (`+7`, `-2.5`, `=`;
/// in whole points when `whole`), or for a chosen answer whether it was correct and the
/// confidence (`✓70`, `✗55`).
fn outcome(round: &Round, whole: bool) -> Option<String> {
    let j = match round.panel.as_ref().and_then(|p| p.verdict.as_ref()) {
        Some(panel) => panel,
        None => round.judgments.iter().find(|j| j.is_usable())?,
    };
    if let Some(m) = j.margin() {
        let m = if whole {
            m.round()
        } else {
            (m * 10.0).round() / 10.0
        };
        return Some(super::ethics_bowl::margin_text(m));
    }
    let choice = j.choice()?;
    let correct = round
        .qa()
        .and_then(|s| crate::protocols::qa_debate::judge_correct(s, j));
    let mark = match correct {
        Some(true) => "✓",
        Some(false) => "✗",
        None => "",
    };
    let confidence = choice
        .confidence
        .map_or(String::new(), |c| format!("{c:.0}"));
    Some(format!("{mark}{confidence}"))
}

/// A matrix cell `width` wide in compare mode: for a round at rest judged in both runs,
/// its outcome in the first run, an arrow and its outcome in the second (`+7→-2`), then the
/// marks `text` (the cell as it reads without the comparison) ends with (`✂`, `✎`);
/// otherwise `text`. Either way the comparison's mark (`≡`, `Δ`, `⇄`) follows, and stays
/// when the cell is narrow: the other marks go first, then the arrow between a correct
/// (`✓`) or wrong (`✗`) answer's confidences, then the margins' fractions.
pub(crate) fn matrix_cell(c: &Compared, round: &RoundState, text: String, width: usize) -> String {
    let Some(mark) = c.mark(round.id()) else {
        return text;
    };
    let at_rest = !round.is_running() && round.retry_until.is_none() && !round.queued;
    let b_round = c.b_round(round.id()).filter(|_| at_rest);
    let both = |whole: bool| {
        b_round
            .and_then(|b| outcome(b, whole))
            .zip(outcome(&round.stored, whole))
            .map(|(second, first)| (first, second))
    };
    let Some((first, second)) = both(false) else {
        return format!("{text}{}", mark.symbol());
    };
    let marks: String = text
        .chars()
        .filter(|ch| [super::cells::CUT, super::cells::CORRECTED].contains(ch))
        .collect();
    let symbol = mark.symbol();
    let mut tries = vec![
        format!("{first}→{second}{marks}{symbol}"),
        format!("{first}→{second}{symbol}"),
    ];
    if second.starts_with(['✓', '✗']) {
        tries.push(format!("{first}{second}{symbol}"));
    }
    if let Some((first, second)) = both(true) {
        tries.push(format!("{first}→{second}{symbol}"));
    }
    let fits = tries.iter().find(|t| t.chars().count() <= width);
    match fits {
        Some(cell) => cell.clone(),
        None => {
            let mut cell: String = tries
                .last()
                .map(|t| t.chars().take(width.saturating_sub(2)).collect())
                .unwrap_or_default();
            cell.push(symbol);
            cell
        }
    }
}

/// Draws the comparison: the selected round side by side, or the summary.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let screen = &app.screens.compare;
    let summary = screen.summary;
    let Some(compare) = &app.mirror.compare else {
        return;
    };
    let [tabs, body] = Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(area);
    // The tab's title leaves room for the other tab's.
    let name = usize::from(area.width.saturating_sub(70) / 2).max(8);
    frame.render_widget(
        Tabs::new([
            format!(
                "This round: {} left, {} right",
                fit_name(&compare.name_a, name),
                fit_name(&compare.name_b, name)
            ),
            "Summary and flipped verdicts".to_string(),
        ])
        .select(usize::from(summary))
        .highlight_style(Style::new().fg(theme.accent).add_modifier(Modifier::BOLD)),
        tabs,
    );
    if summary {
        let open = keyed::key_of(&app.keys, compare_screen::BINDINGS, Action::Open);
        let title = format!(
            " Verdicts that flipped · ↑↓ select · {} open ",
            open.as_deref().unwrap_or("Enter")
        );
        render_summary(
            frame,
            body,
            compare,
            (screen.flip, screen.scroll),
            &title,
            theme,
        );
        return;
    }
    let round = screen.round.as_deref().and_then(|id| app.mirror.round(id));
    match round {
        // The first run's judges' texts wait in the store until the round is read back.
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

/// The summary scrolled by `scroll`, over the list of flipped verdicts with `flip`
/// selected.
/// The summary over the list of flipped verdicts (`title`, which names the key that opens
/// one); `at` is the flip selected and the summary's scroll.
fn render_summary(
    frame: &mut Frame<'_>,
    area: Rect,
    compare: &Compared,
    at: (usize, usize),
    title: &str,
    theme: &Theme,
) {
    let (flip, scroll) = at;
    let flips = compare.flips();
    let list_height = (flips.len().max(1) as u16 + 2).clamp(3, (area.height / 2).max(3));
    let [top, bottom] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(list_height)]).areas(area);
    frame.render_widget(
        Paragraph::new(summary_lines(&compare.comparison, compare))
            .wrap(Wrap { trim: false })
            .scroll((scroll.min(u16::MAX as usize) as u16, 0))
            .block(bordered(" Comparison ", theme)),
        top,
    );
    let block = bordered(title, theme);
    if flips.is_empty() {
        frame.render_widget(
            Paragraph::new("none")
                .style(Style::new().fg(theme.dim))
                .block(block),
            bottom,
        );
        return;
    }
    let kind = compare.comparison.protocol;
    let items: Vec<ListItem<'static>> = flips
        .iter()
        .map(|p| ListItem::new(flip_line(p, kind)))
        .collect();
    let mut state = ListState::default().with_selected(Some(flip.min(flips.len() - 1)));
    frame.render_stateful_widget(
        List::new(items)
            .block(block)
            .highlight_symbol("▶ ")
            .highlight_style(Style::new().fg(theme.accent).add_modifier(Modifier::BOLD)),
        bottom,
        &mut state,
    );
}

/// A flipped verdict as the list reads it: `round · judge: Team A → Team B (margin +7.0 →
/// -3.0)`.
fn flip_line(p: &PairedJudgment, kind: ProtocolKind) -> String {
    format!(
        "{} · {}: {} → {} (margin {} → {})",
        p.round_id,
        p.judge,
        side(kind, p.verdict_a),
        side(kind, p.verdict_b),
        signed(p.margin_a),
        signed(p.margin_b)
    )
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
    crate::tui::mirror::verdict_in_terms(kind, verdict)
}

/// The summary: what `ethics-bowl compare` prints, as lines (the flipped verdicts are the
/// list below it).
fn summary_lines(c: &Comparison, state: &Compared) -> Vec<Line<'static>> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let (a, b) = (state.name_a.as_str(), state.name_b.as_str());
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
        Line::raw(format!("{a}: {}", state.folder_a)),
        Line::raw(format!("{b}: {}", state.folder_b)),
        Line::raw(format!(
            "{} rounds: {na} in {a}, {nb} in {b}, {both} in both; {pairs} judgments usable in both (same round, same judge)",
            c.protocol.as_str()
        )),
        Line::raw(""),
        Line::styled(format!("Agreement between {a} and {b}"), bold),
        Line::raw(format!(
            "  verdicts the same         {}",
            share(pairs - c.flipped)
        )),
        Line::raw(format!("  verdicts that flipped     {}", share(c.flipped))),
        Line::raw(format!(
            "  correlation of the margins (Pearson)  {}",
            Value::Statistic(c.margin_agreement.correlation, Figure::Decimals(3)).shown()
        )),
        Line::raw(format!(
            "  mean absolute change of the margin    {}",
            Value::Statistic(c.margin_agreement.mean_abs_change, Figure::Decimals(2)).shown()
        )),
        Line::raw(""),
    ];
    let what = if c.protocol == ProtocolKind::QaDebate {
        "mean confidence"
    } else {
        "mean total given a team"
    };
    lines.push(Line::styled(format!("Judges ({what}): {a} | {b}"), bold));
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
            format!("Ratings (Bradley–Terry, 95% intervals): {a} | {b}"),
            bold,
        ));
        let show = |r: &Option<crate::analysis::ratings::Rating>| {
            r.as_ref().map_or("–".to_string(), |r| r.shown())
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
    lines
}

/// What changed between a judge's two judgments, in a sentence (`names`: the runs').
fn change(row: &JudgeRow<'_>, kind: ProtocolKind, (na, nb): (&str, &str)) -> String {
    let (Some(a), Some(b)) = (row.a, row.b) else {
        return if row.a.is_some() {
            format!("only in {na}")
        } else {
            format!("only in {nb}")
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
            (false, true) => format!("not comparable: the judgment in {na} is not usable"),
            (true, false) => format!("not comparable: the judgment in {nb} is not usable"),
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

/// One judgment as the side-by-side view shows it, in parts that line up with the other
/// side's: a note (corrected by hand, not usable, no judgment; empty when none), the
/// reading's headline, the reading's rows (criteria), then the judge's own text.
struct Sections {
    /// What to know before reading the rest.
    note: Vec<Line<'static>>,
    /// The reading in the protocol's terms, in a line.
    headline: Vec<Line<'static>>,
    /// The reading's rows (the Ethics Bowl's criteria).
    rows: Vec<Line<'static>>,
    /// The judge's own text (as corrected, when it was), titled.
    text: Vec<Line<'static>>,
}

impl Sections {
    /// The parts in order.
    fn into_parts(self) -> [Vec<Line<'static>>; 4] {
        [self.note, self.headline, self.rows, self.text]
    }
}

/// One judgment's reading in the protocol's terms, then the judge's own text.
fn judgment_sections(j: Option<&Judgment>, round: &Round, theme: &Theme) -> Sections {
    let mut out = Sections {
        note: Vec::new(),
        headline: Vec::new(),
        rows: Vec::new(),
        text: Vec::new(),
    };
    let Some(j) = j else {
        out.note.push(Line::styled(
            "no judgment by this judge",
            Style::new().fg(theme.dim),
        ));
        return out;
    };
    match j.parse_status {
        ParseStatus::Parsed => {}
        ParseStatus::CorrectedByHand => out.note.push(Line::styled(
            "corrected by hand",
            Style::new().fg(theme.accent),
        )),
        ParseStatus::Partial | ParseStatus::Failed => out.note.push(Line::styled(
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
            out.headline.push(Line::raw(format!(
                "Team A {}/70 · Team B {}/70 · margin {}",
                num(team_a.total(), 1),
                num(team_b.total(), 1),
                signed(j.margin())
            )));
            for c in Criterion::ALL {
                out.rows.push(Line::raw(format!(
                    "  {:<24} {:>4} | {:>4}",
                    c.label(),
                    num(team_a.get(c), 1),
                    num(team_b.get(c), 1)
                )));
            }
        }
        Reading::Choice(choice) => out.headline.push(Line::raw(match choice {
            Some(c) => format!(
                "chose debater {}'s answer · confidence {}{}",
                if c.side == Team::A { "A" } else { "B" },
                num(c.confidence, 0),
                correctness(round, j)
            ),
            None => "no answer read".into(),
        })),
        Reading::Label(label) => out.headline.push(Line::raw(match label {
            Some(l) => format!("label {}{}", l.as_str(), correctness(round, j)),
            None => "no label read".into(),
        })),
        Reading::Verdict(verdict) => out.headline.push(Line::raw(match verdict.as_deref() {
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
        out.text
            .push(Line::styled(title, Style::new().fg(theme.dim)));
        out.text
            .extend(text.lines().map(|l| Line::raw(l.to_string())));
    }
    out
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

/// The round's judges, one block each: what changed across the width, the first run's
/// judgment left and the second's right under the columns' titles (the runs' names), the
/// blocks scrolled together. Each judgment's parts (note, headline, rows, text) take as
/// many lines on both sides, so the criteria line up whatever notes either side has.
fn render_round(
    frame: &mut Frame<'_>,
    area: Rect,
    round: &Round,
    compare: &Compared,
    scroll: usize,
    theme: &Theme,
) {
    let title = format!(" {} ", round.id);
    let block = bordered(&title, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = compare.judge_rows(round);
    let Some(b_round) = compare.b_round(&round.id) else {
        frame.render_widget(
            Paragraph::new(format!(
                "{} ({}) holds no round {}.",
                compare.name_b, compare.folder_b, round.id
            ))
            .style(Style::new().fg(theme.dim)),
            inner,
        );
        return;
    };
    let column = inner.width.saturating_sub(1) / 2;
    let kind = round.kind();
    let names = (compare.name_a.as_str(), compare.name_b.as_str());
    let titled = Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
    // The columns' titles, then each judge: a heading across the width, then both sides
    // part by part, each part as tall as the taller side wraps to (and a blank line).
    let mut strips: Vec<Strip> = vec![Strip {
        height: 1,
        parts: vec![
            Paragraph::new(Line::styled(fit_name(names.0, usize::from(column)), titled)),
            Paragraph::new(Line::styled(fit_name(names.1, usize::from(column)), titled)),
        ],
    }];
    for row in &rows {
        let heading = Paragraph::new(Line::styled(
            format!("{} — {}", row.judge, change(row, kind, names)),
            Style::new().fg(theme.accent).add_modifier(Modifier::BOLD),
        ))
        .wrap(Wrap { trim: true });
        strips.push(Strip {
            height: heading.line_count(inner.width) as u16,
            parts: vec![heading],
        });
        let left = judgment_sections(row.a, round, theme).into_parts();
        let right = judgment_sections(row.b, b_round, theme).into_parts();
        for (left, right) in left.into_iter().zip(right) {
            if left.is_empty() && right.is_empty() {
                continue;
            }
            let left = Paragraph::new(left).wrap(Wrap { trim: false });
            let right = Paragraph::new(right).wrap(Wrap { trim: false });
            strips.push(Strip {
                height: left.line_count(column).max(right.line_count(column)) as u16,
                parts: vec![left, right],
            });
        }
        strips.push(Strip {
            height: 1,
            parts: vec![Paragraph::new("")],
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

/// A band of a judge's block, scrolled as one: a heading across the width, or one part of
/// both runs' judgments side by side.
struct Strip {
    /// Lines it takes.
    height: u16,
    /// One paragraph across the width, or two side by side.
    parts: Vec<Paragraph<'static>>,
}

#[cfg(test)]
mod tests {
    use super::fit_name;

    #[test]
    fn a_long_name_is_cut_in_the_middle_only_when_space_is_short() {
        assert_eq!(fit_name("exp1/sample", 20), "exp1/sample");
        assert_eq!(fit_name("experiments/2026-11/sample", 11), "exper…ample");
        assert_eq!(
            fit_name("experiments/2026-11/sample", 11).chars().count(),
            11
        );
        assert_eq!(fit_name("abc", 1), "…");
        assert_eq!(fit_name("abc", 0), "");
    }
}
