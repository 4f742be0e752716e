//! The one place the UI's state changes: `update(app, msg)` takes an engine event, a key or
//! a tick and returns what the driver must do (send the engine a command, quit). It does no
//! I/O, so every behaviour is a plain unit test.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::domain::RoundStatus;
use crate::engine::{EngineCommand, EngineEvent};
use crate::sanitize::sanitize;

use ratatui_textarea::TextArea;

use crate::domain::Judgment;

use super::app::{App, Editor, Mode, ReviewItem, ReviewKind, ScoreFields, Screen};

/// Something the UI reacts to.
#[derive(Debug, Clone)]
pub enum Msg {
    /// From the engine.
    Engine(EngineEvent),
    /// From the keyboard.
    Key(KeyEvent),
    /// The clock moved (drives elapsed time and retry countdowns).
    Tick(Instant),
}

/// What the driver must do after an update.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send this to the engine.
    Command(EngineCommand),
    /// Leave the UI.
    Quit,
}

/// Applies one message.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Engine(event) => {
            if matches!(
                event,
                EngineEvent::RoundFinished { .. } | EngineEvent::JudgmentRecorded { .. }
            ) && let Some(view) = &mut app.analysis
            {
                view.stale = true;
            }
            engine_event(app, event);
            app.dirty = true;
            Vec::new()
        }
        Msg::Key(key) if key.kind == KeyEventKind::Press => {
            app.dirty = true;
            key_press(app, key)
        }
        Msg::Key(_) => Vec::new(),
        Msg::Tick(now) => {
            let before = (app.elapsed().as_secs(), app.retries_waiting().0);
            app.now = now;
            // The Analysis screen follows the rounds, at most once a second.
            if app.screen == Screen::Analysis
                && app.analysis.as_ref().is_some_and(|v| {
                    v.stale
                        && now.saturating_duration_since(v.computed)
                            >= std::time::Duration::from_secs(1)
                })
            {
                app.refresh_analysis();
                app.dirty = true;
            }
            // Redraw when a visible clock changed: elapsed seconds or a retry countdown.
            if before != (app.elapsed().as_secs(), app.retries_waiting().0)
                || app.retries_waiting().0 > 0
            {
                app.dirty = true;
            }
            Vec::new()
        }
    }
}

fn engine_event(app: &mut App, event: EngineEvent) {
    if app.started.is_none() {
        app.started = Some(app.now);
    }
    let round = |app: &mut App, id: &str| app.index.get(id).copied();
    match event {
        EngineEvent::Started {
            tournament_id,
            rounds,
        } => {
            app.name = tournament_id;
            app.set_schedule(rounds);
        }
        EngineEvent::PhaseStarted {
            round_id,
            phase_type,
            model,
        } => {
            if let Some(i) = round(app, &round_id) {
                let r = &mut app.rounds[i];
                r.retry_until = None;
                let p = r.phase_mut(phase_type, &model);
                p.done = false;
            }
        }
        EngineEvent::TextDelta {
            round_id,
            phase_type,
            model,
            text,
        } => {
            if let Some(i) = round(app, &round_id) {
                let p = app.rounds[i].phase_mut(phase_type, &model);
                let clean = p.filter.push(&text);
                p.text.push_str(&clean);
            }
        }
        EngineEvent::RetryScheduled {
            round_id,
            phase_type,
            model,
            attempt,
            wait,
            error,
        } => {
            if let Some(i) = round(app, &round_id) {
                let now = app.now;
                let r = &mut app.rounds[i];
                r.retry_until = Some(now + wait);
                let p = r.phase_mut(phase_type, &model);
                // The failed attempt's text is void; the next attempt starts afresh.
                p.text.clear();
                p.filter = Default::default();
            }
            app.log_line(format!(
                "retry {round_id} {} ({model}) attempt {attempt}: {}; next in {:.1} s",
                phase_type.as_str(),
                sanitize(&error),
                wait.as_secs_f64()
            ));
        }
        EngineEvent::PhaseCompleted { round_id, phase } => {
            if let Some(i) = round(app, &round_id) {
                let p = app.rounds[i].phase_mut(phase.phase_type, &phase.speaker());
                p.text = match &phase.error {
                    Some(e) => sanitize(&format!("failed: {e}")),
                    None => sanitize(&phase.response),
                };
                p.prompt = Some(sanitize(&phase.prompt));
                p.latency_ms = phase.latency_ms;
                p.turn = phase.turn;
                p.done = true;
            }
        }
        EngineEvent::PhaseFailed {
            round_id,
            phase_type,
            model,
            error,
        } => {
            if let Some(i) = round(app, &round_id) {
                let r = &mut app.rounds[i];
                r.phases
                    .retain(|p| p.done || p.phase_type != phase_type || p.model != model);
                r.error = Some(sanitize(&error));
            }
            app.log_line(format!(
                "failed {round_id} {} ({model}): {}",
                phase_type.as_str(),
                sanitize(&error)
            ));
        }
        EngineEvent::JudgmentRecorded { round_id, judgment } => {
            track_review(app, &round_id, &judgment);
            if let Some(i) = round(app, &round_id) {
                let r = &mut app.rounds[i];
                match r
                    .judgments
                    .iter_mut()
                    .find(|j| j.judge_key() == judgment.judge_key())
                {
                    Some(slot) => *slot = *judgment,
                    None => r.judgments.push(*judgment),
                }
            }
        }
        EngineEvent::PanelUpdated { round_id, panel } => {
            if let Some(i) = round(app, &round_id) {
                app.rounds[i].panel = Some(*panel);
            }
        }
        EngineEvent::RoundFinished {
            round_id,
            status,
            error,
        } => {
            if let Some(i) = round(app, &round_id) {
                let r = &mut app.rounds[i];
                r.status = status;
                r.retry_until = None;
                r.phases.retain(|p| p.done);
                r.error = error.map(|e| sanitize(&e));
            }
        }
        EngineEvent::Usage(totals) => app.totals = totals,
        EngineEvent::Paused => app.paused = true,
        EngineEvent::Resumed => app.paused = false,
        EngineEvent::BudgetReached {
            spent_usd,
            budget_usd,
        } => {
            app.log_line(format!(
                "budget reached: ${spent_usd:.4} of ${budget_usd:.2}; no new calls"
            ));
        }
        EngineEvent::CommandRefused { reason } => {
            let reason = sanitize(&reason);
            if let Some(editor) = &mut app.editor {
                editor.message = Some(format!("not saved: {reason}"));
            }
            app.log_line(format!("refused: {reason}"));
        }
        EngineEvent::ReplyNeedsReview {
            round_id,
            key,
            raw,
            problems,
        } => queue_review(
            app,
            ReviewItem {
                round_id,
                judge: key,
                status: crate::domain::ParseStatus::Failed,
                problems: problems.iter().map(|p| sanitize(p)).collect(),
                raw: sanitize(&raw),
            },
        ),
        EngineEvent::ReplyReviewed { round_id, key } => clear_review(app, &round_id, &key),
        EngineEvent::Finished { status } => {
            app.finished = Some(status);
            app.log_line(format!("tournament {:?}", status).to_lowercase());
        }
    }
}

/// Keeps the review queue in step: an unusable judgment joins it (or is updated in place),
/// a usable one (parsed, or corrected by hand) leaves it and closes its editor.
fn track_review(app: &mut App, round_id: &str, judgment: &Judgment) {
    if judgment.is_usable() {
        clear_review(app, round_id, judgment.judge_key());
        return;
    }
    queue_review(
        app,
        ReviewItem {
            round_id: round_id.to_string(),
            judge: judgment.judge_key().to_string(),
            status: judgment.parse_status,
            problems: judgment.problems.iter().map(|p| sanitize(p)).collect(),
            raw: sanitize(&judgment.raw_response),
        },
    );
}

/// Takes a corrected item (a judgment or a reply, by its key) off the queue, closing its
/// editor.
fn clear_review(app: &mut App, round_id: &str, key: &str) {
    if let Some(at) = app
        .review
        .iter()
        .position(|r| r.round_id == round_id && r.judge == key)
    {
        app.review.remove(at);
        app.review_cursor = app.review_cursor.min(app.review.len().saturating_sub(1));
    }
    if app
        .editor
        .as_ref()
        .is_some_and(|e| e.round_id == round_id && e.judge == key)
    {
        app.editor = None;
        app.log_line(format!("corrected {round_id} ({key})"));
    }
}

/// Adds an item to the queue, or updates it in place.
fn queue_review(app: &mut App, item: ReviewItem) {
    let at = app
        .review
        .iter()
        .position(|r| r.round_id == item.round_id && r.judge == item.judge);
    match at {
        Some(at) => app.review[at] = item,
        None => app.review.push(item),
    }
}

fn key_press(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
        return quit(app, true);
    }
    // The editor takes every key (text may contain `q` and `?`).
    if app.editor.is_some() {
        return editor_key(app, key);
    }
    if app.help {
        app.help = false;
        return Vec::new();
    }
    if app.confirm_quit {
        app.confirm_quit = false;
        if matches!(key.code, KeyCode::Char('q' | 'y')) {
            return vec![Effect::Command(EngineCommand::Cancel), Effect::Quit];
        }
        return Vec::new();
    }
    match key.code {
        KeyCode::Char('?') => {
            app.help = true;
            return Vec::new();
        }
        KeyCode::Char('q') => return quit(app, false),
        _ => {}
    }
    match app.screen {
        Screen::Matrix => matrix_key(app, key),
        Screen::Round { scores } => round_key(app, key, scores),
        Screen::Review => review_key(app, key),
        Screen::Analysis => analysis_key(app, key),
        Screen::Leaderboard | Screen::Log => {
            if matches!(key.code, KeyCode::Esc | KeyCode::Backspace) {
                app.screen = Screen::Matrix;
            }
            Vec::new()
        }
    }
}

fn quit(app: &mut App, force: bool) -> Vec<Effect> {
    let live = app.mode == Mode::Live && app.finished.is_none();
    if live && app.in_flight() > 0 && !force {
        app.confirm_quit = true;
        return Vec::new();
    }
    if live {
        vec![Effect::Command(EngineCommand::Cancel), Effect::Quit]
    } else {
        vec![Effect::Quit]
    }
}

fn matrix_key(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    let (rows, cols) = (app.rows.len(), app.columns.len());
    let (r, c) = app.cursor;
    match key.code {
        KeyCode::Up | KeyCode::Char('k') => app.cursor.0 = r.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => app.cursor.0 = (r + 1).min(rows.saturating_sub(1)),
        KeyCode::Left | KeyCode::Char('h') => app.cursor.1 = c.saturating_sub(1),
        KeyCode::Right | KeyCode::Char('l') => app.cursor.1 = (c + 1).min(cols.saturating_sub(1)),
        KeyCode::Enter if app.selected().is_some() => {
            app.screen = Screen::Round { scores: false };
            app.scroll = 0;
            app.follow = true;
        }
        KeyCode::Char('s') => app.screen = Screen::Leaderboard,
        KeyCode::Char('g') => app.screen = Screen::Log,
        KeyCode::Char('v') => app.screen = Screen::Review,
        KeyCode::Char('a') => {
            if app.analysis.as_ref().is_none_or(|v| v.stale) {
                app.refresh_analysis();
            }
            app.screen = Screen::Analysis;
        }
        KeyCode::Char('p') if app.mode == Mode::Live && app.finished.is_none() => {
            let command = if app.paused {
                EngineCommand::Resume
            } else {
                EngineCommand::Pause
            };
            return vec![Effect::Command(command)];
        }
        KeyCode::Char('r') if app.mode == Mode::Live => {
            if let Some(round) = app.selected()
                && round.status == RoundStatus::Incomplete
                && round.error.is_some()
            {
                return vec![Effect::Command(EngineCommand::RetryRound(
                    round.view.round_id.clone(),
                ))];
            }
        }
        _ => {}
    }
    Vec::new()
}

/// Where a line of the Analysis screen leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnalysisTarget {
    /// A round's transcript (or its scores, for judges).
    Round {
        /// The round.
        id: String,
        /// Open the scores rather than the transcript.
        scores: bool,
    },
    /// A dilemma's column of the matrix.
    Dilemma(String),
}

/// What each line of the current Analysis tab leads to, in the tab's order: the first round
/// behind a model's row or rating, a dilemma's column, a judge's first shared exchange, a
/// flagged consistency test's round.
pub fn analysis_targets(app: &App, view: &super::app::AnalysisView) -> Vec<AnalysisTarget> {
    let first_round = |pred: &dyn Fn(&super::app::RoundState) -> bool, scores: bool| {
        app.rounds
            .iter()
            .find(|r| pred(r) && !r.judgments.is_empty())
            .or_else(|| app.rounds.iter().find(|r| pred(r)))
            .map(|r| AnalysisTarget::Round {
                id: r.view.round_id.clone(),
                scores,
            })
    };
    let a = &view.analysis;
    match view.tab {
        0 => a
            .model_comparison
            .iter()
            .filter_map(|m| {
                let presenting = m.role == "presenting";
                first_round(
                    &|r| {
                        if presenting {
                            r.view.team_a == m.model
                        } else {
                            r.view.team_b == m.model
                        }
                    },
                    false,
                )
            })
            .collect(),
        1 => a
            .ratings
            .overall
            .iter()
            .filter_map(|e| {
                first_round(
                    &|r| r.view.team_a == e.entrant || r.view.team_b == e.entrant,
                    false,
                )
            })
            .collect(),
        2 => a
            .dilemma_difficulty
            .iter()
            .map(|d| AnalysisTarget::Dilemma(d.dilemma_id.clone()))
            .collect(),
        3 => a
            .judge_agreement
            .judges()
            .iter()
            .filter_map(|j| {
                first_round(
                    &|r| r.judgments.len() >= 2 && r.judgments.iter().any(|x| x.judge_model == *j),
                    true,
                )
            })
            .collect(),
        _ => a
            .consistency
            .iter()
            .filter(|c| c.flagged_unacknowledged)
            .map(|c| AnalysisTarget::Round {
                id: c.round_id.clone(),
                scores: false,
            })
            .collect(),
    }
}

fn analysis_key(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    let Some(view) = &app.analysis else {
        app.screen = Screen::Matrix;
        return Vec::new();
    };
    let targets = analysis_targets(app, view);
    let n = targets.len();
    let Some(view) = &mut app.analysis else {
        return Vec::new();
    };
    match key.code {
        KeyCode::Esc | KeyCode::Backspace => app.screen = Screen::Matrix,
        KeyCode::Tab | KeyCode::Right | KeyCode::Char('l') => {
            view.tab = (view.tab + 1) % super::app::ANALYSIS_TABS.len();
            view.selected = 0;
        }
        KeyCode::BackTab | KeyCode::Left | KeyCode::Char('h') => {
            view.tab =
                (view.tab + super::app::ANALYSIS_TABS.len() - 1) % super::app::ANALYSIS_TABS.len();
            view.selected = 0;
        }
        KeyCode::Up | KeyCode::Char('k') => view.selected = view.selected.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => {
            view.selected = (view.selected + 1).min(n.saturating_sub(1))
        }
        KeyCode::Enter => match targets.get(view.selected).cloned() {
            Some(AnalysisTarget::Dilemma(d)) => {
                if let Some(col) = app.columns.iter().position(|(c, _)| *c == d) {
                    app.cursor.1 = col;
                }
                app.screen = Screen::Matrix;
            }
            Some(AnalysisTarget::Round { id, scores }) => {
                if let Some(i) = app.index.get(&id).copied()
                    && let Some((&cell, _)) = app.cells.iter().find(|(_, idx)| **idx == i)
                {
                    app.cursor = cell;
                    app.screen = Screen::Round { scores };
                    app.scroll = 0;
                    app.follow = false;
                }
            }
            None => {}
        },
        _ => {}
    }
    Vec::new()
}

fn review_key(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    match key.code {
        KeyCode::Esc | KeyCode::Backspace => app.screen = Screen::Matrix,
        KeyCode::Up | KeyCode::Char('k') => app.review_cursor = app.review_cursor.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => {
            app.review_cursor = (app.review_cursor + 1).min(app.review.len().saturating_sub(1));
        }
        KeyCode::Enter => {
            if let Some(item) = app.review.get(app.review_cursor) {
                let kind = match app.index.get(&item.round_id).map(|i| &app.rounds[*i].view) {
                    Some(v) if v.qa.is_some() => ReviewKind::QaVerdict,
                    Some(v) if v.structured.is_some() => ReviewKind::Other,
                    _ => ReviewKind::EthicsBowl,
                };
                app.editor = Some(Editor {
                    kind,
                    round_id: item.round_id.clone(),
                    judge: item.judge.clone(),
                    textarea: TextArea::new(item.raw.lines().map(str::to_string).collect()),
                    original: item.raw.clone(),
                    confirm_discard: false,
                    message: None,
                    fields: None,
                });
            }
        }
        _ => {}
    }
    Vec::new()
}

fn editor_key(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    let Some(editor) = &mut app.editor else {
        return Vec::new();
    };
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if key.code == KeyCode::Tab && editor.kind != ReviewKind::EthicsBowl {
        editor.message = Some(match editor.kind {
            ReviewKind::QaVerdict => "a question-answer judgment has no score fields: write \"Answer: A\" (or B) and \"Confidence: 0-100\"".into(),
            _ => "this item has no score fields: fix the JSON text".into(),
        });
        return Vec::new();
    }
    if key.code == KeyCode::Tab {
        // Switch between fixing the text and typing the scores, starting from what the text
        // yields so far.
        editor.fields = match editor.fields {
            Some(_) => None,
            None => {
                let parsed = crate::protocols::judging::parse_judgment(&editor.text());
                let show = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
                let values = std::array::from_fn(|i| {
                    let c = crate::domain::Criterion::ALL[i];
                    [show(parsed.team_a.get(c)), show(parsed.team_b.get(c))]
                });
                Some(ScoreFields {
                    values,
                    cursor: (0, 0),
                })
            }
        };
        editor.message = None;
        return Vec::new();
    }
    if key.code != KeyCode::Esc
        && let Some(fields) = &mut editor.fields
    {
        return fields_key(
            fields,
            &mut editor.message,
            &editor.round_id,
            &editor.judge,
            key,
            ctrl,
        );
    }
    match key.code {
        KeyCode::Esc => {
            if editor.text() == editor.original || editor.confirm_discard {
                app.editor = None;
            } else {
                editor.confirm_discard = true;
                editor.message = Some(
                    "unsaved edits: Esc again to discard them, any other key to go on editing"
                        .into(),
                );
            }
            Vec::new()
        }
        KeyCode::Char('s') if ctrl => {
            let text = editor.text();
            let problems = match editor.kind {
                ReviewKind::QaVerdict => {
                    crate::protocols::qa_debate::verdict::read_verdict(&text).problems
                }
                ReviewKind::EthicsBowl => {
                    let parsed = crate::protocols::judging::parse_judgment(&text);
                    if parsed.status() == crate::domain::ParseStatus::Parsed {
                        Vec::new()
                    } else {
                        parsed.problems
                    }
                }
                // The engine reads it against the round and refuses it with a reason.
                ReviewKind::Other => Vec::new(),
            };
            if !problems.is_empty() {
                editor.message = Some(format!("not saved: {}", problems.join("; ")));
                return Vec::new();
            }
            editor.message = Some("saving…".into());
            vec![Effect::Command(EngineCommand::ApplyCorrection {
                round_id: editor.round_id.clone(),
                judge: editor.judge.clone(),
                correction: Box::new(crate::engine::Correction::Text(text)),
            })]
        }
        _ => {
            editor.confirm_discard = false;
            editor.message = None;
            editor.textarea.input(key);
            Vec::new()
        }
    }
}

/// Keys in the fourteen score fields: arrows move, digits and `.` type, Backspace erases,
/// Ctrl-S saves when every field holds a score from 1 to 10.
fn fields_key(
    fields: &mut ScoreFields,
    message: &mut Option<String>,
    round_id: &str,
    judge: &str,
    key: KeyEvent,
    ctrl: bool,
) -> Vec<Effect> {
    let (row, col) = fields.cursor;
    match key.code {
        KeyCode::Up => fields.cursor.0 = row.saturating_sub(1),
        KeyCode::Down | KeyCode::Enter => fields.cursor.0 = (row + 1).min(6),
        KeyCode::Left => fields.cursor.1 = 0,
        KeyCode::Right => fields.cursor.1 = 1,
        KeyCode::Backspace => {
            fields.values[row][col].pop();
        }
        KeyCode::Char('s') if ctrl => {
            let mut team_a = crate::domain::Scores::default();
            let mut team_b = crate::domain::Scores::default();
            for (i, c) in crate::domain::Criterion::ALL.iter().enumerate() {
                for (t, scores) in [&mut team_a, &mut team_b].into_iter().enumerate() {
                    match fields.values[i][t].parse::<f64>() {
                        Ok(v) if (1.0..=10.0).contains(&v) => scores.set(*c, Some(v)),
                        _ => {
                            *message = Some(format!(
                                "not saved: {} for Team {} needs a score from 1 to 10",
                                c.label(),
                                if t == 0 { 'A' } else { 'B' }
                            ));
                            fields.cursor = (i, t);
                            return Vec::new();
                        }
                    }
                }
            }
            *message = Some("saving…".into());
            return vec![Effect::Command(EngineCommand::ApplyCorrection {
                round_id: round_id.to_string(),
                judge: judge.to_string(),
                correction: Box::new(crate::engine::Correction::Scores { team_a, team_b }),
            })];
        }
        KeyCode::Char(ch)
            if (ch.is_ascii_digit() || ch == '.') && fields.values[row][col].len() < 4 =>
        {
            fields.values[row][col].push(ch);
        }
        _ => {}
    }
    Vec::new()
}

fn round_key(app: &mut App, key: KeyEvent, scores: bool) -> Vec<Effect> {
    const PAGE: usize = 20;
    match key.code {
        KeyCode::Esc | KeyCode::Backspace => app.screen = Screen::Matrix,
        KeyCode::Tab => {
            app.screen = Screen::Round { scores: !scores };
            app.scroll = 0;
        }
        KeyCode::Up | KeyCode::Char('k') => {
            app.scroll = app.scroll.saturating_sub(1);
            app.follow = false;
        }
        KeyCode::Down | KeyCode::Char('j') => app.scroll += 1,
        KeyCode::PageUp => {
            app.scroll = app.scroll.saturating_sub(PAGE);
            app.follow = false;
        }
        KeyCode::PageDown => app.scroll += PAGE,
        KeyCode::Home => {
            app.scroll = 0;
            app.follow = false;
        }
        KeyCode::End | KeyCode::Char('f') => app.follow = true,
        KeyCode::Char('P') => app.show_prompts = !app.show_prompts,
        _ => {}
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Phase, PhaseType};
    use crate::engine::RoundView;
    use crossterm::event::KeyEventState;
    use std::time::Duration;

    fn view(id: &str, a: &str, b: &str, d: &str) -> RoundView {
        RoundView {
            round_id: id.into(),
            dilemma_id: d.into(),
            repetition: 1,
            team_a: a.into(),
            team_b: b.into(),
            judges: vec!["j".into()],
            status: RoundStatus::Incomplete,
            finished: false,
            qa: None,
            structured: None,
        }
    }

    fn app() -> App {
        let mut app = App::new("t", Mode::Live, Instant::now());
        let rounds = vec![
            view("r1", "a", "b", "d1"),
            view("r2", "a", "b", "d2"),
            view("r3", "b", "a", "d1"),
            view("r4", "b", "a", "d2"),
        ];
        update(
            &mut app,
            Msg::Engine(EngineEvent::Started {
                tournament_id: "t".into(),
                rounds,
            }),
        );
        app
    }

    fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
        update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
    }

    fn started(app: &mut App, round: &str, phase_type: PhaseType) {
        update(
            app,
            Msg::Engine(EngineEvent::PhaseStarted {
                round_id: round.into(),
                phase_type,
                model: "a".into(),
            }),
        );
    }

    fn delta(app: &mut App, round: &str, text: &str) {
        update(
            app,
            Msg::Engine(EngineEvent::TextDelta {
                round_id: round.into(),
                phase_type: PhaseType::Presentation,
                model: "a".into(),
                text: text.into(),
            }),
        );
    }

    #[test]
    fn the_schedule_becomes_a_matrix() {
        let app = app();
        assert_eq!(
            app.rows,
            vec![
                ("a".to_string(), "b".to_string()),
                ("b".to_string(), "a".to_string())
            ]
        );
        assert_eq!(app.columns.len(), 2);
        assert_eq!(app.cells[&(1, 1)], 3);
    }

    #[test]
    fn the_cursor_moves_and_stops_at_the_edges() {
        let mut app = app();
        key(&mut app, KeyCode::Right);
        key(&mut app, KeyCode::Char('l'));
        key(&mut app, KeyCode::Char('j'));
        key(&mut app, KeyCode::Down);
        assert_eq!(app.cursor, (1, 1));
        key(&mut app, KeyCode::Up);
        key(&mut app, KeyCode::Char('h'));
        key(&mut app, KeyCode::Left);
        assert_eq!(app.cursor, (0, 0));
        let release = KeyEvent {
            code: KeyCode::Down,
            modifiers: KeyModifiers::NONE,
            kind: KeyEventKind::Release,
            state: KeyEventState::NONE,
        };
        update(&mut app, Msg::Key(release));
        assert_eq!(app.cursor, (0, 0), "key releases are ignored");
    }

    #[test]
    fn enter_opens_the_round_and_scrolling_up_stops_following() {
        let mut app = app();
        key(&mut app, KeyCode::Enter);
        assert_eq!(app.screen, Screen::Round { scores: false });
        assert!(app.follow);
        key(&mut app, KeyCode::PageDown);
        assert!(app.follow, "scrolling down keeps following");
        key(&mut app, KeyCode::Up);
        assert!(!app.follow);
        key(&mut app, KeyCode::End);
        assert!(app.follow);
        key(&mut app, KeyCode::Tab);
        assert_eq!(app.screen, Screen::Round { scores: true });
        key(&mut app, KeyCode::Esc);
        assert_eq!(app.screen, Screen::Matrix);
    }

    #[test]
    fn streamed_text_is_sanitised_even_when_a_sequence_is_split() {
        let mut app = app();
        started(&mut app, "r1", PhaseType::Presentation);
        delta(&mut app, "r1", "safe \u{1b}]0;pw");
        delta(&mut app, "r1", "ned\u{7}\u{1b}[2Jtext");
        let p = &app.rounds[0].phases[0];
        assert_eq!(p.text, "safe text");
        assert!(!p.done);
        assert_eq!(app.in_flight(), 1);
    }

    #[test]
    fn a_retry_voids_the_streamed_text_and_shows_its_wait() {
        let mut app = app();
        started(&mut app, "r1", PhaseType::Presentation);
        delta(&mut app, "r1", "half an answer");
        update(
            &mut app,
            Msg::Engine(EngineEvent::RetryScheduled {
                round_id: "r1".into(),
                phase_type: PhaseType::Presentation,
                model: "a".into(),
                attempt: 1,
                wait: Duration::from_secs(5),
                error: "HTTP 503".into(),
            }),
        );
        assert_eq!(app.rounds[0].phases[0].text, "");
        assert_eq!(app.retries_waiting().0, 1);
        assert!(app.log.last().unwrap().text.contains("HTTP 503"));
        let later = app.now + Duration::from_secs(6);
        update(&mut app, Msg::Tick(later));
        assert_eq!(app.retries_waiting().0, 0);
    }

    #[test]
    fn a_completed_phase_replaces_the_stream_with_the_stored_text() {
        let mut app = app();
        started(&mut app, "r1", PhaseType::Presentation);
        delta(&mut app, "r1", "partial");
        let phase = Phase {
            prompt: "the prompt".into(),
            latency_ms: Some(1200),
            ..Phase::new(PhaseType::Presentation, "a", "the whole \u{1b}[31manswer")
        };
        update(
            &mut app,
            Msg::Engine(EngineEvent::PhaseCompleted {
                round_id: "r1".into(),
                phase: Box::new(phase),
            }),
        );
        let p = &app.rounds[0].phases[0];
        assert_eq!(
            (p.text.as_str(), p.done, p.latency_ms),
            ("the whole answer", true, Some(1200))
        );
        assert_eq!(app.in_flight(), 0);
    }

    #[test]
    fn pause_retry_and_quit_produce_the_right_commands() {
        let mut app = app();
        assert_eq!(
            key(&mut app, KeyCode::Char('p')),
            vec![Effect::Command(EngineCommand::Pause)]
        );
        update(&mut app, Msg::Engine(EngineEvent::Paused));
        assert_eq!(
            key(&mut app, KeyCode::Char('p')),
            vec![Effect::Command(EngineCommand::Resume)]
        );
        update(
            &mut app,
            Msg::Engine(EngineEvent::RoundFinished {
                round_id: "r1".into(),
                status: RoundStatus::Incomplete,
                error: Some("HTTP 500".into()),
            }),
        );
        assert_eq!(
            key(&mut app, KeyCode::Char('r')),
            vec![Effect::Command(EngineCommand::RetryRound("r1".into()))]
        );
        started(&mut app, "r2", PhaseType::Presentation);
        assert!(
            key(&mut app, KeyCode::Char('q')).is_empty(),
            "asks first while calls are in flight"
        );
        assert!(app.confirm_quit);
        assert!(
            key(&mut app, KeyCode::Char('x')).is_empty(),
            "any other key stays"
        );
        key(&mut app, KeyCode::Char('q'));
        assert_eq!(
            key(&mut app, KeyCode::Char('q')),
            vec![Effect::Command(EngineCommand::Cancel), Effect::Quit]
        );
    }

    fn judgment(status: crate::domain::ParseStatus) -> Box<Judgment> {
        Box::new(Judgment {
            judge_model: "j".into(),
            persona_id: None,
            reading: crate::domain::Reading::Rubric {
                team_a: Default::default(),
                team_b: Default::default(),
            },
            team_a_justification: String::new(),
            team_b_justification: String::new(),
            overall_analysis: String::new(),
            parse_status: status,
            problems: vec!["Team A missing: consistency".into()],
            raw_response: "Team A did well.".into(),
            corrected_text: None,
        })
    }

    #[test]
    fn the_review_queue_fills_edits_saves_and_empties() {
        use crate::domain::ParseStatus;
        let mut app = app();
        update(
            &mut app,
            Msg::Engine(EngineEvent::JudgmentRecorded {
                round_id: "r1".into(),
                judgment: judgment(ParseStatus::Failed),
            }),
        );
        update(
            &mut app,
            Msg::Engine(EngineEvent::JudgmentRecorded {
                round_id: "r2".into(),
                judgment: judgment(ParseStatus::Partial),
            }),
        );
        assert_eq!(
            app.review
                .iter()
                .map(|r| r.round_id.as_str())
                .collect::<Vec<_>>(),
            ["r1", "r2"],
            "oldest first"
        );
        key(&mut app, KeyCode::Char('v'));
        key(&mut app, KeyCode::Enter);
        assert!(app.editor.is_some());
        // Saving text that still lacks scores is refused in place.
        let ctrl_s = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL);
        assert!(update(&mut app, Msg::Key(ctrl_s)).is_empty());
        assert!(
            app.editor
                .as_ref()
                .unwrap()
                .message
                .as_deref()
                .unwrap()
                .starts_with("not saved")
        );
        // Esc with edits asks first; q is text in the editor, not quit.
        key(&mut app, KeyCode::Char('q'));
        assert!(app.editor.as_ref().unwrap().text().contains('q'));
        key(&mut app, KeyCode::Esc);
        assert!(app.editor.as_ref().unwrap().confirm_discard);
        key(&mut app, KeyCode::Char('x'));
        assert!(app.editor.is_some() && !app.editor.as_ref().unwrap().confirm_discard);
        // Replace the text with a complete judgment and save.
        let editor = app.editor.as_mut().unwrap();
        let lines: Vec<String> = crate::domain::Criterion::ALL
            .iter()
            .map(|c| format!("\"{}\": 6", c.key()))
            .collect();
        let json = format!(
            "{{\"team_a_scores\": {{{0}}}, \"team_b_scores\": {{{0}}}}}",
            lines.join(", ")
        );
        editor.textarea = TextArea::new(vec![json.clone()]);
        let effects = update(&mut app, Msg::Key(ctrl_s));
        assert_eq!(
            effects,
            vec![Effect::Command(EngineCommand::ApplyCorrection {
                round_id: "r1".into(),
                judge: "j".into(),
                correction: Box::new(crate::engine::Correction::Text(json))
            })]
        );
        // The engine stores it and says so: the item leaves the queue and the editor closes.
        update(
            &mut app,
            Msg::Engine(EngineEvent::JudgmentRecorded {
                round_id: "r1".into(),
                judgment: judgment(ParseStatus::CorrectedByHand),
            }),
        );
        assert_eq!(app.review.len(), 1);
        assert!(app.editor.is_none());
        key(&mut app, KeyCode::Enter);
        key(&mut app, KeyCode::Esc);
        assert!(app.editor.is_none(), "no edits: one Esc leaves");
    }

    #[test]
    fn the_fourteen_fields_can_be_typed_directly() {
        use crate::domain::ParseStatus;
        let mut app = app();
        update(
            &mut app,
            Msg::Engine(EngineEvent::JudgmentRecorded {
                round_id: "r1".into(),
                judgment: judgment(ParseStatus::Failed),
            }),
        );
        key(&mut app, KeyCode::Char('v'));
        key(&mut app, KeyCode::Enter);
        key(&mut app, KeyCode::Tab);
        assert!(app.editor.as_ref().unwrap().fields.is_some());
        for _ in 0..7 {
            key(&mut app, KeyCode::Char('8'));
            key(&mut app, KeyCode::Right);
            key(&mut app, KeyCode::Char('9'));
            key(&mut app, KeyCode::Left);
            key(&mut app, KeyCode::Down);
        }
        let fields = app.editor.as_ref().unwrap().fields.clone().unwrap();
        assert_eq!(fields.values[6], ["8".to_string(), "9".to_string()]);
        let ctrl_s = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL);
        let effects = update(&mut app, Msg::Key(ctrl_s));
        let Some(Effect::Command(EngineCommand::ApplyCorrection { correction, .. })) =
            effects.first()
        else {
            panic!("{effects:?}")
        };
        let crate::engine::Correction::Scores { team_a, team_b } = correction.as_ref() else {
            panic!("scores")
        };
        assert_eq!((team_a.total(), team_b.total()), (Some(56.0), Some(63.0)));
        // An empty or out-of-range field is refused and the cursor goes to it.
        app.editor.as_mut().unwrap().fields.as_mut().unwrap().values[2][1] = "11".into();
        assert!(update(&mut app, Msg::Key(ctrl_s)).is_empty());
        assert_eq!(
            app.editor.as_ref().unwrap().fields.as_ref().unwrap().cursor,
            (2, 1)
        );
    }

    #[test]
    fn help_opens_and_any_key_closes_it() {
        let mut app = app();
        key(&mut app, KeyCode::Char('?'));
        assert!(app.help);
        key(&mut app, KeyCode::Down);
        assert!(!app.help);
        assert_eq!(app.cursor, (0, 0), "the closing key does nothing else");
    }

    #[test]
    fn an_unreadable_reply_joins_the_queue_and_a_stored_correction_clears_it() {
        let mut app = app();
        update(
            &mut app,
            Msg::Engine(EngineEvent::ReplyNeedsReview {
                round_id: "r2".into(),
                key: "pro.opening".into(),
                raw: "prose \u{1b}[31mred".into(),
                problems: vec!["not the JSON asked for".into()],
            }),
        );
        assert_eq!(app.review.len(), 1);
        assert_eq!(app.review[0].raw, "prose red", "model text is sanitised");
        key(&mut app, KeyCode::Char('v'));
        key(&mut app, KeyCode::Enter);
        // Not a question-answer or structured round here, but the key is what is sent back.
        let editor = app.editor.as_mut().unwrap();
        editor.kind = ReviewKind::Other;
        editor.textarea = TextArea::new(vec!["{\"arguments\": []}".into()]);
        let effects = update(
            &mut app,
            Msg::Key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL)),
        );
        assert_eq!(
            effects,
            vec![Effect::Command(EngineCommand::ApplyCorrection {
                round_id: "r2".into(),
                judge: "pro.opening".into(),
                correction: Box::new(crate::engine::Correction::Text(
                    "{\"arguments\": []}".into()
                ))
            })],
            "the engine, which knows the round, checks it"
        );
        update(
            &mut app,
            Msg::Engine(EngineEvent::ReplyReviewed {
                round_id: "r2".into(),
                key: "pro.opening".into(),
            }),
        );
        assert!(app.review.is_empty() && app.editor.is_none());
    }
}
