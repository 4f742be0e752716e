//! The one place the UI's state changes: `update(app, msg)` takes an engine event, a key or
//! a tick and returns what the driver must do (send the engine a command, quit). It does no
//! I/O, so every behaviour is a plain unit test. Engine events go to [`super::ingest`]; keys
//! are looked up in [`super::keys`] and handled by the showing screen's module.

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

use super::app::{App, Mode, Screen};
use super::keys::{self, Action, Table};
use super::msg::{Effect, Msg};

/// Applies one message.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    // Streamed text neither changes the screen nor drops a round's text: the most
    // frequent message skips the check.
    let delta = matches!(msg, Msg::Engine(EngineEvent::TextDelta { .. }));
    let mut effects = apply(app, msg);
    if !delta {
        effects.extend(super::round_text::follow_screen(app));
    }
    effects
}

fn apply(app: &mut App, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Engine(event) => {
            let stored = matches!(event, EngineEvent::RoundStored { .. });
            super::ingest::apply(app, event);
            if stored {
                app.refresh_compare();
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
                .and_then(super::ingest::clean);
            super::round_text::loaded(app, &round_id, result);
            app.dirty = true;
            Vec::new()
        }
        Msg::Analysed(result) => {
            match result {
                Ok(analysis) => app.take_analysis(*analysis),
                Err(e) => {
                    // Not asked again until another round is stored.
                    app.analysing = None;
                    app.log_line(format!(
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
    let before = (app.elapsed().as_secs(), app.retries_waiting().0);
    app.now = now;
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
    if before != (app.elapsed().as_secs(), app.retries_waiting().0) || app.retries_waiting().0 > 0 {
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
            Some(Action::CancelBatches) if !app.batches.is_empty() => vec![
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
