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

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{KeyEvent, KeyEventKind};

use crate::domain::Round;
use crate::engine::{EngineCommand, EngineEvent};

use super::app::{App, Mode, Screen};
use super::keys::{self, Action, Table};

pub use analysis::{AnalysisTarget, analysis_targets};

/// Something the UI reacts to.
#[derive(Debug, Clone)]
pub enum Msg {
    /// From the engine.
    Engine(EngineEvent),
    /// From the keyboard.
    Key(KeyEvent),
    /// The clock moved (drives elapsed time and retry countdowns).
    Tick(Instant),
    /// A round read back from the store ([`Effect::LoadRound`]), or why it could not be.
    RoundLoaded {
        /// The round asked for.
        round_id: String,
        /// The whole round as stored (not yet sanitised), or the error.
        result: Result<Arc<Round>, String>,
    },
    /// The analysis of the stored rounds ([`Effect::Analyse`]), or why it failed.
    Analysed(Result<Box<crate::analysis::Analysis>, String>),
    /// The process was asked to stop (SIGINT, SIGTERM or SIGHUP): leave at once, stopping
    /// the run's new calls as a forced quit does.
    Stop,
    /// The store's answer to [`Effect::Search`] (or why the store could not be searched).
    SearchResults {
        /// The text searched for.
        query: String,
        /// The hits, in file order.
        hits: Result<Vec<crate::store::SearchHit>, String>,
    },
}

/// What the driver must do after an update.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send this to the engine.
    Command(EngineCommand),
    /// Put this text on the clipboard (OSC 52).
    Copy(String),
    /// Read this round whole from the store and answer with [`Msg::RoundLoaded`]: its
    /// text was dropped from memory (see [`super::round_text`]).
    LoadRound {
        /// The round's id.
        round_id: String,
    },
    /// Analyse the stored rounds off the UI's thread and answer with [`Msg::Analysed`].
    Analyse,
    /// Leave the UI.
    Quit,
    /// Search the stored rounds off the UI thread and answer with [`Msg::SearchResults`].
    Search {
        /// The text to find.
        query: String,
        /// Search the prompts too.
        prompts: bool,
    },
}

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
    let Some(action) = keys::action(keys::screen_table(app.screen), &key) else {
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
