//! The annotate screen: the round's setup and its debaters' phases on the left, the rubric
//! on the right (the review editor's score grid for the Ethics Bowl, the answer and
//! confidence, the winner), with the reason being written and what still keeps the
//! judgment from being saved. While blind, every model name and the round's id are
//! replaced by the protocol's neutral labels in everything drawn ([`Blinder`]), and nothing
//! of the model judges shows.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::annotations::{QaAnswer, Winner, pace};
use crate::domain::{Criterion, Label, ProtocolKind, Team};
use crate::tui::app::App;
use crate::tui::keymap::Keymap;
use crate::tui::mirror::RoundState;
use crate::tui::screens::annotate::{BINDINGS, Form, STANDING_KEYS, Session, WRITING, stamp};
use crate::tui::theme::Theme;

use super::keyed;

/// Replaces model names (and the round's id) with neutral labels in text drawn while
/// blind: longest names first, ASCII case ignored, and a name's last part after a `/`
/// (`openai/gpt-4o` → `gpt-4o`) too, since debaters name themselves in their text.
#[derive(Debug, Clone, Default)]
pub struct Blinder {
    /// (what is hidden, what shows instead), the longest first.
    pairs: Vec<(String, String)>,
}

impl Blinder {
    /// Nothing hidden (`--unblind`).
    pub fn none() -> Self {
        Self::default()
    }

    /// What hides `round`'s models and id, in its protocol's labels.
    pub fn of(round: &RoundState) -> Self {
        let stored = &round.stored;
        let (a, b) = labels(stored.kind());
        let mut pairs = vec![(stored.id.clone(), "this round".to_string())];
        let mut name = |model: &str, label: &str| {
            if model.is_empty() {
                return;
            }
            pairs.push((model.to_string(), label.to_string()));
            if let Some((_, last)) = model.rsplit_once('/')
                && last.len() >= 3
            {
                pairs.push((last.to_string(), label.to_string()));
            }
        };
        name(&stored.team_a_model, a);
        name(&stored.team_b_model, b);
        let judges = std::iter::once(stored.judge_model.as_str())
            .chain(stored.judge_models.iter().map(String::as_str))
            .chain(stored.judgments.iter().map(|j| j.judge_model.as_str()));
        for judge in judges {
            if judge != stored.team_a_model && judge != stored.team_b_model {
                name(judge, "a judge");
            }
        }
        pairs.sort_by(|x, y| y.0.len().cmp(&x.0.len()).then(x.0.cmp(&y.0)));
        pairs.dedup_by(|x, y| x.0.eq_ignore_ascii_case(&y.0));
        Self { pairs }
    }

    /// `text` with every hidden name replaced.
    pub fn apply(&self, text: &str) -> String {
        let mut text = text.to_string();
        for (from, to) in &self.pairs {
            text = replace_ignoring_case(&text, from, to);
        }
        text
    }

    /// Lines with every span's text passed through [`Self::apply`].
    pub fn lines(&self, lines: Vec<Line<'static>>) -> Vec<Line<'static>> {
        if self.pairs.is_empty() {
            return lines;
        }
        lines
            .into_iter()
            .map(|line| {
                let spans: Vec<Span<'static>> = line
                    .spans
                    .into_iter()
                    .map(|s| Span::styled(self.apply(&s.content), s.style))
                    .collect();
                Line::from(spans).style(line.style)
            })
            .collect()
    }
}

/// `text` with every occurrence of `from` (ASCII case ignored) replaced by `to`.
fn replace_ignoring_case(text: &str, from: &str, to: &str) -> String {
    if from.is_empty() {
        return text.to_string();
    }
    // ASCII lowering keeps every byte where it was, so offsets in `lower` are offsets in
    // `text`, on the same character boundaries.
    let lower = text.to_ascii_lowercase();
    let needle = from.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (at, _) in lower.match_indices(&needle) {
        if at < last {
            continue;
        }
        out.push_str(&text[last..at]);
        out.push_str(to);
        last = at + needle.len();
    }
    out.push_str(&text[last..]);
    out
}

/// The protocol's neutral names for the two sides.
pub fn labels(kind: ProtocolKind) -> (&'static str, &'static str) {
    match kind {
        ProtocolKind::EthicsBowl => ("Team A", "Team B"),
        ProtocolKind::QaDebate => ("Debater A", "Debater B"),
        ProtocolKind::StructuredDebate => ("Pro", "Con"),
    }
}

/// The header while judging: who, where in the sample, the annotator's pace, blind or not
/// (never the round's id or a model's name while blind). The pace takes the longest of its
/// wordings ([`pace_wordings`]) that keeps the first line within `width`, and none when
/// even the shortest does not fit.
pub fn header(app: &App, theme: &Theme, width: u16) -> Paragraph<'static> {
    let Some(s) = &app.screens.annotate.session else {
        return Paragraph::new("Judging");
    };
    let n = s.round_ids.len();
    let place = match s.at {
        Some(i) => format!("round {} of {n}", i + 1),
        None => format!("all {n} rounds judged"),
    };
    let mut mode = if s.blind {
        "blind: model names and the judges' verdicts are hidden".to_string()
    } else {
        format!(
            "unblind (adjudication): {}",
            s.round_id().unwrap_or_default()
        )
    };
    if let Some(a) = s.stored_here() {
        mode.push_str(&format!(
            " · you judged this round ({}): Ctrl-S saves a change",
            stamp(&a.written_at)
        ));
    }
    let lead = format!("Judging as {} · ", s.annotator);
    let judged = format!(" · {} of {n} judged", s.judged());
    // The count the transcript recorded when it drew this round, or (before it has: the
    // round's first frame) counted here, so a frame does not build the transcript twice.
    let words = s.words_here().or_else(|| {
        s.round_id()
            .and_then(|id| app.mirror.round(id))
            .filter(|r| !r.text_dropped)
            .map(|r| words_shown(r, s.blind, theme))
    });
    let room = usize::from(width).saturating_sub(
        [&lead, &place, &judged]
            .iter()
            .map(|t| Line::raw(t.as_str()).width())
            .sum(),
    );
    let pace = pace_wordings(s, words)
        .into_iter()
        .find(|p| Line::raw(p.as_str()).width() <= room)
        .unwrap_or_default();
    Paragraph::new(vec![
        Line::from(vec![
            Span::styled(lead, Style::new().add_modifier(Modifier::BOLD)),
            Span::styled(
                place,
                Style::new().fg(theme.accent).add_modifier(Modifier::BOLD),
            ),
            Span::raw(judged),
            Span::raw(pace),
        ]),
        Line::styled(mode, Style::new().fg(theme.dim)),
    ])
    .wrap(Wrap { trim: true })
}

/// The annotator's pace for the header, longest wording first: once they have a judgment
/// stored with its time (in this folder, so it survives quitting), the median seconds a
/// round and that times the rounds left (`· 3 min a round · about 51 min left`); before,
/// the round showing's words read at [`pace::READING_WPM`], marked as an estimate
/// (`· ~4 min to read this round (estimate at 250 words a minute)`). Empty when neither is
/// known.
pub fn pace_wordings(session: &Session, words_here: Option<u64>) -> Vec<String> {
    let seconds: Vec<f64> = session
        .stored
        .iter()
        .flatten()
        .filter_map(|a| a.seconds_on_round)
        .collect();
    if let Some(median) = pace::median(&seconds) {
        let left = session.round_ids.len().saturating_sub(session.judged());
        if left == 0 {
            return vec![
                format!(" · {} a round", span(median)),
                format!(" · {}/round", span(median)),
            ];
        }
        let rest = span(median * left as f64);
        return vec![
            format!(" · {} a round · about {rest} left", span(median)),
            format!(" · {}/round · ~{rest} left", span(median)),
            format!(" · ~{rest} left"),
        ];
    }
    match (session.at, words_here) {
        (Some(_), Some(words)) => {
            let read = span(words as f64 / pace::READING_WPM * 60.0);
            vec![
                format!(
                    " · ~{read} to read this round (estimate at {} words a minute)",
                    pace::READING_WPM
                ),
                format!(" · ~{read} to read this round"),
                format!(" · ~{read} to read"),
            ]
        }
        _ => Vec::new(),
    }
}

/// A time as the header gives it: `40 s`, `3 min`, `1 h 5 min`.
fn span(seconds: f64) -> String {
    let seconds = seconds.max(0.0).round();
    if seconds < 60.0 {
        return format!("{seconds} s");
    }
    let minutes = (seconds / 60.0).round();
    if minutes < 60.0 {
        format!("{minutes} min")
    } else {
        format!("{} h {} min", (minutes / 60.0).floor(), minutes % 60.0)
    }
}

/// Draws the screen.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let Some(session) = &app.screens.annotate.session else {
        return;
    };
    let round = session.round_id().and_then(|id| app.mirror.round(id));
    let blinder = match round {
        Some(r) if session.blind => Blinder::of(r),
        _ => Blinder::none(),
    };
    let [main, message] = Layout::vertical([Constraint::Min(5), Constraint::Length(2)]).areas(area);
    let note = session
        .message
        .clone()
        .unwrap_or_else(|| hint(session, &app.keys));
    frame.render_widget(
        Paragraph::new(blinder.apply(&note))
            .wrap(Wrap { trim: true })
            .style(Style::new().fg(theme.dim)),
        message,
    );
    if session.at.is_none() {
        let next = if session.standalone {
            "{previous_round} goes back through the rounds to change a judgment; {leave} quits; `ethics-bowl report` measures the judges against people."
        } else {
            "{previous_round} goes back through the rounds to change a judgment; {leave} goes back; the Analysis screen ({analysis}) measures the judges against people."
        };
        let done = format!(
            "Every one of the {} rounds is judged, and stored in annotations/{}/. {}",
            session.round_ids.len(),
            session.annotator,
            keyed::fill(&app.keys, BINDINGS, next)
        );
        frame.render_widget(
            Paragraph::new(done).wrap(Wrap { trim: true }).block(
                Block::new()
                    .borders(Borders::ALL)
                    .border_style(Style::new().fg(theme.border))
                    .title(" Done "),
            ),
            main,
        );
        return;
    }
    let [left, right] =
        Layout::horizontal([Constraint::Min(30), Constraint::Length(46)]).areas(main);
    let lines = match (round, session.at) {
        (None, _) | (_, None) => vec![Line::raw("This round is not among the folder's rounds.")],
        (Some(r), _) if r.text_dropped => vec![Line::raw("reading the round from the store…")],
        (Some(r), Some(i)) => {
            let mut lines = blinder.lines(debate(r, theme));
            // What a save records as the words shown: the setup and the debaters' phases
            // as drawn, never the model judges' verdicts an unblind session adds.
            session.words_drawn.set(Some((i, words_of(&lines))));
            if !session.blind {
                lines.extend(blinder.lines(judges(r, theme)));
            }
            lines
        }
    };
    let transcript = Paragraph::new(lines).wrap(Wrap { trim: false });
    // How far the transcript can scroll, for PgDn to turn pages and stop at its end.
    let height = left.height.saturating_sub(2);
    let total = transcript.line_count(left.width.saturating_sub(2));
    let bottom = u16::try_from(total)
        .unwrap_or(u16::MAX)
        .saturating_sub(height);
    session.transcript.set(Some((height, bottom)));
    frame.render_widget(
        transcript.scroll((session.scroll.min(bottom), 0)).block(
            Block::new()
                .borders(Borders::ALL)
                .border_style(Style::new().fg(theme.border))
                .title(transcript_title(session.scroll.min(bottom), height, total)),
        ),
        left,
    );
    render_form(frame, right, (session, &app.keys), &blinder, theme);
}

/// The transcript's title: which of its rows show, so a person sees how much is left to
/// read.
fn transcript_title(scroll: u16, height: u16, total: usize) -> String {
    let first = usize::from(scroll) + 1;
    let last = (usize::from(scroll) + usize::from(height)).min(total);
    if total <= usize::from(height) {
        format!(" Transcript · all {total} rows ")
    } else {
        format!(" Transcript · rows {first}–{last} of {total} (PgUp/PgDn) ")
    }
}

/// What to do next, when nothing else is to be said, naming the keys in force.
fn hint(session: &Session, keys: &Keymap) -> String {
    if session.writing {
        return keyed::fill(
            keys,
            WRITING,
            "Write the reason; {score_fields} goes back to the choices; {save} saves and goes on.",
        )
        .into_owned();
    }
    let text = match &session.form {
        Form::EthicsBowl { .. } => {
            "Type each score (whole numbers 1–10); arrows or Enter move; {score_fields} writes a reason for the score under the cursor; {save} saves and goes on."
        }
        Form::QaDebate { labels: true, .. } => {
            "Choose p proved, d disproved or u unknown, type your confidence 0–100; {score_fields} writes a reason; {save} saves and goes on."
        }
        Form::QaDebate { .. } => {
            "Choose a or b (the answer you believe), type your confidence 0–100; {score_fields} writes a reason; {save} saves and goes on."
        }
        Form::StructuredDebate { arguments, row, .. } if *row < arguments.len() => {
            "Each argument's standing: u upheld, p partly upheld, r refuted, ? uncertain (the cursor moves on); {up}/{down} move; {score_fields} writes a reason for it; {save} saves and goes on."
        }
        Form::StructuredDebate { .. } => {
            "The winner: p pro, c con or t tie; {up} goes back to the arguments; {score_fields} writes a reason; {save} saves and goes on."
        }
    };
    keyed::fill(keys, BINDINGS, text).into_owned()
}

/// The words of drawn lines ([`pace::count_words`]).
fn words_of(lines: &[Line<'_>]) -> u64 {
    lines
        .iter()
        .map(|l| {
            let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
            pace::count_words(&text)
        })
        .sum()
}

/// The words of `round`'s transcript as the screen draws it (blind or not; the names a
/// blind screen shows in place of the models' are words too).
pub fn words_shown(round: &RoundState, blind: bool, theme: &Theme) -> u64 {
    let lines = debate(round, theme);
    if blind {
        words_of(&Blinder::of(round).lines(lines))
    } else {
        words_of(&lines)
    }
}

/// The setup and the debaters' phases (no judge's), each headed by its neutral label.
fn debate(round: &RoundState, theme: &Theme) -> Vec<Line<'static>> {
    let shown = super::presentation(round.stored.kind());
    let (a, b) = labels(round.stored.kind());
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut lines = Vec::new();
    for (name, text) in shown.setup(round) {
        let mut rows = text.lines();
        lines.push(Line::from(vec![
            Span::styled(format!("{name}: "), bold),
            Span::raw(rows.next().unwrap_or("").to_string()),
        ]));
        lines.extend(rows.map(|l| Line::raw(l.to_string())));
    }
    lines.push(Line::raw(""));
    let mut entries: Vec<_> = round
        .transcript()
        .filter(|e| e.done && !e.phase_type.is_judging())
        .collect();
    entries.sort_by_key(|e| shown.reading_rank(e.phase_type));
    for entry in entries {
        let (who, colour) = shown.speaker(&entry, theme).unwrap_or_else(|| {
            // A debate turn says its side; an Ethics Bowl phase is its model's, and
            // Team B's model speaks for Team B.
            let stored = &round.stored;
            let team = entry.team().or_else(|| {
                (entry.speaker == stored.team_b_model && stored.team_b_model != stored.team_a_model)
                    .then_some(Team::B)
            });
            match team {
                Some(Team::B) => (b, theme.accent),
                _ => (a, theme.accent),
            }
        });
        lines.push(Line::styled(
            format!("━━ {} · {who}", entry.phase_type.title()),
            Style::new().fg(colour).add_modifier(Modifier::BOLD),
        ));
        lines.extend(shown.phase_lines(&entry, round, theme));
        lines.push(Line::raw(""));
    }
    lines
}

/// The model judges' verdicts, shown after the debate while unblind.
fn judges(round: &RoundState, theme: &Theme) -> Vec<Line<'static>> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let mut lines = vec![Line::styled(
        "━━ The model judges (unblind)",
        Style::new().fg(theme.review).add_modifier(Modifier::BOLD),
    )];
    for j in &round.stored.judgments {
        lines.push(Line::styled(j.judge_model.clone(), bold));
        lines.extend(super::review::reading_lines(j, theme));
    }
    lines
}

fn block(title: String, theme: &Theme, focus: bool) -> Block<'static> {
    Block::new()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(if focus { theme.accent } else { theme.border }))
        .title(title)
}

/// The rubric, the reason being written and what keeps the judgment from being saved.
fn render_form(
    frame: &mut Frame<'_>,
    area: Rect,
    (session, keys): (&Session, &Keymap),
    blinder: &Blinder,
    theme: &Theme,
) {
    let entry_height = match session.form {
        Form::EthicsBowl { .. } => 11,
        Form::QaDebate { .. } => 5,
        Form::StructuredDebate { ref arguments, .. } => u16::try_from(arguments.len())
            .unwrap_or(u16::MAX)
            .saturating_add(5)
            .min(18),
    };
    let [entry, reason, problems] = Layout::vertical([
        Constraint::Length(entry_height),
        Constraint::Min(3),
        Constraint::Length(4),
    ])
    .areas(area);
    let choosing = !session.writing;
    match &session.form {
        Form::EthicsBowl { fields, .. } => {
            super::review::render_fields(frame, entry, fields, theme);
        }
        Form::QaDebate {
            answer,
            labels,
            confidence,
            on_confidence,
            ..
        } => {
            let options: Vec<(QaAnswer, &str)> = if *labels {
                Label::ALL
                    .iter()
                    .map(|l| (QaAnswer::Label(*l), l.as_str()))
                    .collect()
            } else {
                vec![
                    (QaAnswer::Side(Team::A), "a: answer A"),
                    (QaAnswer::Side(Team::B), "b: answer B"),
                ]
            };
            let mut spans = vec![Span::raw("Answer      ")];
            for (option, name) in options {
                spans.push(choice(name, *answer == Some(option), theme));
                spans.push(Span::raw(" "));
            }
            let cursor = |on: bool| if on && choosing { "▶ " } else { "  " };
            let lines = vec![
                Line::from(
                    std::iter::once(Span::raw(cursor(!on_confidence)))
                        .chain(spans)
                        .collect::<Vec<_>>(),
                ),
                Line::raw(format!(
                    "{}Confidence  [{:>3}] / 100",
                    cursor(*on_confidence),
                    confidence
                )),
            ];
            frame.render_widget(
                Paragraph::new(lines).block(block(" Your judgment ".into(), theme, choosing)),
                entry,
            );
        }
        Form::StructuredDebate {
            arguments,
            row,
            winner,
            ..
        } => {
            let cursor = |on: bool| if on && choosing { "▶ " } else { "  " };
            let keys: Vec<String> = STANDING_KEYS
                .iter()
                .map(|(k, _, name)| format!("{k} {name}"))
                .collect();
            let mut lines = vec![Line::styled(
                format!("  {}", keys.join("  ")),
                Style::new().fg(theme.dim),
            )];
            // The rows around the cursor, when there are more than fit.
            let room = usize::from(entry.height.saturating_sub(5)).max(1);
            let first = row
                .saturating_sub(room.saturating_sub(1))
                .min(arguments.len().saturating_sub(room));
            for (i, a) in arguments.iter().enumerate().skip(first).take(room) {
                let label = STANDING_KEYS
                    .iter()
                    .find(|(_, s, _)| Some(*s) == a.standing)
                    .map(|(_, _, name)| *name);
                lines.push(Line::from(vec![
                    Span::raw(cursor(i == *row)),
                    Span::styled(
                        format!("{:<6}", a.id),
                        Style::new().add_modifier(Modifier::BOLD),
                    ),
                    match label {
                        Some(label) => Span::styled(
                            format!("{label:<10}"),
                            Style::new().fg(theme.accent).add_modifier(Modifier::BOLD),
                        ),
                        None => Span::styled(format!("{:<10}", "—"), Style::new().fg(theme.dim)),
                    },
                    Span::raw(blinder.apply(&a.claim)),
                ]));
            }
            let mut spans = vec![
                Span::raw(cursor(*row >= arguments.len())),
                Span::raw("Winner  "),
            ];
            for (w, name) in [
                (Winner::Pro, "p: Pro"),
                (Winner::Con, "c: Con"),
                (Winner::Tie, "t: tie"),
            ] {
                spans.push(choice(name, *winner == Some(w), theme));
                spans.push(Span::raw(" "));
            }
            lines.push(Line::from(spans));
            frame.render_widget(
                Paragraph::new(lines).block(block(" Your judgment ".into(), theme, choosing)),
                entry,
            );
        }
    }
    let reason_title = match &session.form {
        Form::EthicsBowl { fields, .. } => {
            let (row, col) = fields.cursor;
            format!(
                " Reason for {}, {} ",
                Criterion::ALL[row.min(6)].label(),
                if col == 0 { "A" } else { "B" }
            )
        }
        Form::StructuredDebate { arguments, row, .. } => match arguments.get(*row) {
            Some(a) => format!(" Reason: {} (optional) ", a.id),
            None => " Reason for the winner (optional) ".into(),
        },
        Form::QaDebate { .. } => " Reason (optional) ".into(),
    };
    let mut text = session.form.reason().to_string();
    if session.writing {
        text.push('▏');
    }
    frame.render_widget(
        Paragraph::new(blinder.apply(&text))
            .wrap(Wrap { trim: false })
            .block(block(reason_title, theme, session.writing)),
        reason,
    );
    let (title, lines) = match session.form.judgment() {
        Ok(_) => (
            keyed::fill(keys, BINDINGS, " Complete: {save} saves ").into_owned(),
            vec![Line::styled(
                "every part of the rubric is filled in",
                Style::new().fg(theme.complete),
            )],
        ),
        Err(problems) => (
            format!(" Still to do ({}) ", problems.len()),
            problems
                .into_iter()
                .map(|p| Line::styled(p, Style::new().fg(theme.review)))
                .collect(),
        ),
    };
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: true })
            .block(block(title, theme, false)),
        problems,
    );
}

/// An option, marked when chosen.
fn choice(name: &str, chosen: bool, theme: &Theme) -> Span<'static> {
    if chosen {
        Span::styled(
            format!("[{name}]"),
            Style::new()
                .fg(theme.accent)
                .add_modifier(Modifier::BOLD | Modifier::REVERSED),
        )
    } else {
        Span::raw(format!(" {name} "))
    }
}

#[cfg(test)]
mod tests {
    use super::replace_ignoring_case;

    /// The words shown are the setup's and the debaters' phases' as drawn (their headings
    /// too, a blind screen's labels in place of the names), never a judge's.
    #[test]
    fn the_words_shown_leave_the_judges_out() {
        use crate::domain::ScheduledRound;
        use crate::domain::{Phase, PhaseType, RoundRecord};
        let theme = crate::tui::theme::Theme::no_color();
        let s = ScheduledRound {
            team_a: "org/model-alpha".into(),
            team_b: "model-beta".into(),
            judges: vec!["judge".into()],
            ..ScheduledRound::example("r1", "d1")
        };
        let mut round = crate::protocols::blank_round(&s, RoundRecord::EthicsBowl);
        let words = |round: &crate::domain::Round, blind: bool| {
            let app =
                crate::tui::browse("t", std::slice::from_ref(round), std::time::Instant::now());
            super::words_shown(app.mirror.round("r1").unwrap(), blind, &theme)
        };
        let setup = words(&round, true);
        round.phases.push(Phase::new(
            PhaseType::Presentation,
            "org/model-alpha",
            "I, model-alpha, hold five words.",
        ));
        // "Presentation · Team A": three words; the name shows as "Team A" blind.
        assert_eq!(words(&round, true), setup + 3 + 6);
        assert_eq!(words(&round, false), setup + 3 + 5);
        round.phases.push(Phase::new(
            PhaseType::Judgment,
            "judge",
            "Team A wins on every one of the criteria.",
        ));
        assert_eq!(words(&round, true), setup + 3 + 6, "no judge's words");
    }

    #[test]
    fn names_are_replaced_whatever_their_case() {
        assert_eq!(
            replace_ignoring_case("I, Sim-Alpha, agree with sim-alpha.", "sim-alpha", "Team A"),
            "I, Team A, agree with Team A."
        );
        assert_eq!(
            replace_ignoring_case("é sim-ALPHA é", "sim-alpha", "X"),
            "é X é"
        );
        assert_eq!(replace_ignoring_case("none", "", "X"), "none");
    }
}
