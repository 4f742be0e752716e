//! The one place the UI's state changes: `update(app, msg)` takes an engine event, a key or
//! a tick and returns what the driver must do (send the engine a command, quit). It does no
//! I/O, so every behaviour is a plain unit test. Engine events go to the mirror
//! ([`Mirror::ingest`](super::mirror::Mirror)); keys are looked up in [`super::keys`] and
//! handled by the showing screen's module.

mod analysis;
mod compare;
mod editor;
mod filter;
mod matrix;
mod review;
mod round;
mod search;
#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

use crossterm::event::{KeyEvent, KeyEventKind};

use crate::engine::{EngineCommand, EngineEvent};

use super::app::{App, Screen};
use super::keys::{self, Action, Table};
use super::mirror::{Echo, Mode};
use super::msg::{Effect, Msg};

/// Applies one message.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    // Streamed text neither changes the screen nor drops a round's text: the most
    // frequent message skips the check.
    let delta = matches!(msg, Msg::Engine(EngineEvent::TextDelta { .. }));
    let mut effects = apply(app, msg);
    if !delta {
        let showing = app.showing_round();
        effects.extend(app.mirror.show_whole(showing));
    }
    effects
}

fn apply(app: &mut App, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Engine(event) => {
            match super::mirror::ingest(&mut app.mirror, event) {
                Echo::Nothing => {}
                Echo::Stored => {
                    app.refresh_compare();
                    if let Some(view) = &mut app.analysis {
                        view.stale = true;
                    }
                    close_corrected(app);
                }
                Echo::Refused(reason) => {
                    if let Some(editor) = &mut app.editor {
                        editor.message = Some(format!("not saved: {reason}"));
                    }
                }
                Echo::StoreFailed(line) => app.notice = Some(line),
            }
            app.dirty = true;
            Vec::new()
        }
        Msg::Key(key) if key.kind == KeyEventKind::Press => {
            app.dirty = true;
            key_press(app, key)
        }
        Msg::Key(_) => Vec::new(),
        Msg::Tick(now) => tick(app, now).into_iter().collect(),
        Msg::RoundLoaded { round_id, result } => {
            let result = result
                .map_err(|e| crate::sanitize::sanitize(&e))
                .and_then(super::mirror::clean);
            app.mirror.loaded(&round_id, result);
            app.dirty = true;
            Vec::new()
        }
        Msg::Analysed(result) => {
            match result {
                Ok(analysis) => app.take_analysis(*analysis),
                Err(e) => {
                    // Not asked again until another round is stored.
                    app.analysing = None;
                    app.mirror.log_line(format!(
                        "the analysis could not read the store: {}",
                        crate::sanitize::sanitize(&e)
                    ));
                }
            }
            app.dirty = true;
            Vec::new()
        }
        Msg::Stop => quit(app, true),
        Msg::SearchResults { query, hits } => {
            search::results(app, &query, hits);
            app.dirty = true;
            Vec::new()
        }
    }
}

fn tick(app: &mut App, now: Instant) -> Option<Effect> {
    let before = (
        app.mirror.elapsed().as_secs(),
        app.mirror.retries_waiting().0,
    );
    app.mirror.now = now;
    // The Analysis screen follows the rounds, at most once a second (and a pass over the
    // store at most once every four times it took).
    let mut effect = None;
    if app.screen == Screen::Analysis
        && app.analysing.is_none()
        && app.analysis.as_ref().is_some_and(|v| {
            v.stale
                && now.saturating_duration_since(v.computed)
                    >= Duration::from_secs(1).max(v.took * 4)
        })
    {
        effect = app.refresh_analysis();
        app.dirty = true;
    }
    // Redraw when a visible clock changed: elapsed seconds or a retry countdown.
    if before
        != (
            app.mirror.elapsed().as_secs(),
            app.mirror.retries_waiting().0,
        )
        || app.mirror.retries_waiting().0 > 0
    {
        app.dirty = true;
    }
    effect
}

fn key_press(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    app.notice = None;
    let global = keys::action(Table::Global, &key);
    if global == Some(Action::ForceQuit) {
        return quit(app, true);
    }
    // The editor takes every other key (text may contain `q` and `?`).
    if app.editor.is_some() {
        return editor::key(app, key);
    }
    // The filter prompt takes every other key too (values may contain `q` and `?`).
    if app.filter.prompt.is_some() {
        return filter::key(app, key);
    }
    if app.help {
        app.help = false;
        return Vec::new();
    }
    if app.confirm_quit {
        app.confirm_quit = false;
        return match keys::action(Table::Confirm, &key) {
            Some(Action::Quit) => vec![Effect::Command(EngineCommand::Cancel), Effect::Quit],
            Some(Action::CancelBatches) if !app.mirror.batches.is_empty() => vec![
                Effect::Command(EngineCommand::CancelBatches),
                Effect::Command(EngineCommand::Cancel),
                Effect::Quit,
            ],
            _ => Vec::new(),
        };
    }
    if let Some(effects) = search::key(app, &key, global) {
        return effects;
    }
    match global {
        Some(Action::Help) => {
            app.help = true;
            return Vec::new();
        }
        Some(Action::Quit) => return quit(app, false),
        _ => {}
    }
    let Some(action) = keys::action(app.screen.table(), &key) else {
        return Vec::new();
    };
    // The filter bar's and the comparison's keys, on the screens whose tables bind them.
    match action {
        Action::Filter => return filter::open(app),
        Action::ClearFilter => return filter::clear(app),
        Action::Compare => return compare::open(app, false),
        Action::CompareSummary => return compare::open(app, true),
        _ => {}
    }
    match app.screen {
        Screen::Matrix => matrix::act(app, action),
        Screen::Round { scores } => {
            search::settle_scroll(app);
            round::act(app, action, scores)
        }
        Screen::Review => review::act(app, action),
        Screen::Analysis => analysis::act(app, action),
        Screen::Compare { summary } => compare::act(app, action, summary),
        Screen::Leaderboard | Screen::Log => {
            if action == Action::Back {
                app.screen = Screen::Matrix;
            }
            Vec::new()
        }
    }
}

fn quit(app: &mut App, force: bool) -> Vec<Effect> {
    let live = app.mirror.mode == Mode::Live && app.mirror.finished.is_none();
    if live && app.mirror.in_flight() > 0 && !force {
        app.confirm_quit = true;
        return Vec::new();
    }
    if live {
        vec![Effect::Command(EngineCommand::Cancel), Effect::Quit]
    } else {
        vec![Effect::Quit]
    }
}

/// Closes the editor once its item no longer waits (the correction is stored), and keeps the
/// queue's cursor on an item.
fn close_corrected(app: &mut App) {
    app.review_cursor = app.review_cursor.min(app.review_len().saturating_sub(1));
    let Some(editor) = &app.editor else { return };
    let waiting = app
        .review_items()
        .any(|r| r.round_id == editor.round_id && r.judge == editor.judge);
    if !waiting {
        let line = format!("corrected {} ({})", editor.round_id, editor.judge);
        app.editor = None;
        app.mirror.log_line(line);
    }
}
