//! The one place the UI's state changes: `update(app, msg)` takes an engine event, a key or
//! a tick and returns what the driver must do (send the engine a command, quit). It does no
//! I/O, so every behaviour is a plain unit test. Engine events go to the mirror
//! ([`ingest`]); a key goes to what holds the keyboard (the editor, a prompt, an overlay)
//! or to the screen showing, looked up in its own key table, and what the screen asks for
//! is carried out here: a destination through [`nav::go`], effects, a notice, a log line.

#[cfg(test)]
mod tests;

use std::time::Instant;

use crossterm::event::{KeyEvent, KeyEventKind};

use crate::engine::{EngineCommand, EngineEvent};

use super::app::App;
use super::keys::{Action, CONFIRM, GLOBAL};
use super::mirror::{Echo, clean, ingest};
use super::msg::{Destination, Effect, Msg, Outcome};
use super::nav;
use super::screens::Id;
use super::screens::analysis::analysis_targets;
use super::screens::annotate::Session;
use super::shown::Shown;

/// Applies one message.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    // Streamed text, the most frequent message, only grows a call's text: it changes no
    // screen, no counter, and which rounds keep their text.
    if let Msg::Engine(event @ EngineEvent::TextDelta { .. }) = msg {
        ingest(&mut app.mirror, event);
        app.dirty = true;
        return Vec::new();
    }
    let mut effects = apply(app, msg);
    let showing = app.showing_round();
    effects.extend(app.mirror.show_whole(showing));
    effects
}

fn apply(app: &mut App, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Engine(event) => {
            match ingest(&mut app.mirror, event) {
                Echo::Nothing => {}
                Echo::Stored => stored(app),
                Echo::Refused(reason) => {
                    if let Some(editor) = &mut app.screens.editor {
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
                .and_then(clean);
            app.mirror.loaded(&round_id, result);
            app.dirty = true;
            Vec::new()
        }
        Msg::Analysed(result) => {
            match result {
                Ok(analysis) => app.screens.analysis.take(*analysis, app.mirror.now),
                Err(e) => {
                    // Not asked again until another round is stored.
                    app.screens.analysis.analysing = None;
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
            if let Some(summary) = app.screens.search.results(&app.mirror, &query, hits) {
                app.notice = Some(summary);
            }
            app.dirty = true;
            Vec::new()
        }
        Msg::AnnotateReady(result) => {
            app.dirty = true;
            match result {
                Ok(start) if start.round_ids.is_empty() => {
                    app.notice = Some("no finished round to judge".into());
                }
                Ok(start) => {
                    let session = Session::new(start, &app.mirror);
                    app.screens.annotate.session = Some(session);
                    app.trail.show(Id::Annotate);
                }
                Err(e) => {
                    app.notice = Some(format!("cannot judge: {}", crate::sanitize::sanitize(&e)));
                }
            }
            Vec::new()
        }
        Msg::AnnotationSaved { round_id, result } => {
            app.dirty = true;
            let result = match result {
                Ok((stored, people)) => {
                    app.mirror.people = people;
                    app.screens.analysis.mark_stale();
                    Ok(*stored)
                }
                Err(e) => Err(crate::sanitize::sanitize(&e)),
            };
            if let Some(session) = &mut app.screens.annotate.session {
                session.saved(&round_id, result, &app.mirror);
            }
            Vec::new()
        }
    }
}

/// A round was stored anew: the analysis is stale, the review queue may be shorter, and the
/// editor closes once its item no longer waits (the correction is stored).
fn stored(app: &mut App) {
    app.screens.analysis.mark_stale();
    let shown = Shown::new(&app.mirror, app.filter.active.as_ref());
    app.screens.review.settle(shown.review_len());
    let Some(editor) = &app.screens.editor else {
        return;
    };
    let waiting = shown
        .review_items()
        .any(|r| r.round_id == editor.round_id && r.judge == editor.judge);
    if !waiting {
        let line = format!("corrected {} ({})", editor.round_id, editor.judge);
        nav::close_editor(app);
        app.mirror.log_line(line);
    }
}

fn tick(app: &mut App, now: Instant) -> Option<Effect> {
    let m = &app.mirror;
    let before = (m.elapsed().as_secs(), m.retries_waiting().0);
    app.mirror.now = now;
    // The Analysis screen follows the rounds, at most once a second (and a pass over the
    // store at most once every four times it took).
    let mut effect = None;
    if app.showing() == Id::Analysis && app.screens.analysis.due(now) {
        effect = app.screens.analysis.refresh(&app.mirror);
        app.dirty = true;
    }
    // Redraw when a visible clock changed: elapsed seconds or a retry countdown.
    let m = &app.mirror;
    let waiting = m.retries_waiting().0;
    if before != (m.elapsed().as_secs(), waiting) || waiting > 0 {
        app.dirty = true;
    }
    effect
}

fn key_press(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    app.notice = None;
    let global = app.keys.action(GLOBAL, &key);
    if global == Some(Action::ForceQuit) {
        return quit(app, true);
    }
    // The annotate screen takes every other key too (a reason may contain `q` and `?`).
    if app.showing() == Id::Annotate {
        let outcome = match &mut app.screens.annotate.session {
            Some(session) => session.key(key, &app.keys, &app.mirror),
            None => Outcome::go(Destination::Back),
        };
        return carry_out(app, outcome);
    }
    // So does the annotator's name prompt.
    if app.screens.annotate.prompt.is_some() {
        let outcome = app
            .screens
            .annotate
            .prompt_key(&key, &app.mirror, &app.keys);
        return carry_out(app, outcome);
    }
    // The editor takes every other key (text may contain `q` and `?`).
    if app.showing() == Id::Editor {
        let outcome = match &mut app.screens.editor {
            Some(editor) => editor.key(key, &app.keys),
            None => Outcome::go(Destination::Back),
        };
        return carry_out(app, outcome);
    }
    // The filter prompt takes every other key too (values may contain `q` and `?`).
    if app.filter.prompt.is_some() {
        let mirror = &app.mirror;
        if app.filter.key(&key, &app.keys, || mirror.filter_values()) {
            filtered(app, true);
        }
        return Vec::new();
    }
    if app.screens.help.open {
        app.screens.help.open = false;
        return Vec::new();
    }
    if app.confirm_quit {
        app.confirm_quit = false;
        return match app.keys.action(CONFIRM, &key) {
            Some(Action::Quit) => vec![Effect::Command(EngineCommand::Cancel), Effect::Quit],
            Some(Action::CancelBatches) if !app.mirror.batches.is_empty() => vec![
                Effect::Command(EngineCommand::CancelBatches),
                Effect::Command(EngineCommand::Cancel),
                Effect::Quit,
            ],
            _ => Vec::new(),
        };
    }
    let prompts = app.screens.round.show_prompts;
    if let Some(outcome) = app
        .screens
        .search
        .key(&app.mirror, &key, &app.keys, global, prompts)
    {
        return carry_out(app, outcome);
    }
    match global {
        Some(Action::Help) => {
            app.screens.help.open = true;
            return Vec::new();
        }
        Some(Action::Quit) => return quit(app, false),
        _ => {}
    }
    let showing = app.showing();
    let Some(action) = app.keys.action(app.screens.bindings(showing), &key) else {
        return Vec::new();
    };
    // The filter bar's and the comparison's keys, on the screens whose tables bind them.
    match action {
        Action::Filter => {
            app.filter.open();
            return Vec::new();
        }
        Action::ClearFilter => {
            let cleared = app.filter.clear();
            filtered(app, cleared);
            return Vec::new();
        }
        Action::Annotate => {
            app.screens.annotate.open_prompt();
            return Vec::new();
        }
        Action::Compare => return nav::go(app, Destination::Compare { summary: false }),
        Action::CompareSummary => return nav::go(app, Destination::Compare { summary: true }),
        _ => {}
    }
    let shown = Shown::new(&app.mirror, app.filter.active.as_ref());
    let screens = &mut app.screens;
    let outcome = match showing {
        Id::Matrix => screens.matrix.act(action, shown),
        Id::Round => screens.round.act(action, &app.mirror),
        Id::Review => screens.review.act(action, shown),
        Id::Analysis => {
            let targets = match &screens.analysis.view {
                Some(view) => analysis_targets(&app.mirror, view),
                None => Vec::new(),
            };
            screens.analysis.act(action, &targets)
        }
        Id::Leaderboard => screens.leaderboard.act(action),
        Id::Log => screens.log.act(action),
        Id::Compare => match &app.mirror.compare {
            Some(compared) => screens.compare.act(action, compared),
            None => Outcome::go(Destination::Back),
        },
        // Taken above.
        Id::Editor | Id::Annotate => Outcome::default(),
    };
    carry_out(app, outcome)
}

/// Carries out what a screen's key asked for.
fn carry_out(app: &mut App, outcome: Outcome) -> Vec<Effect> {
    let Outcome {
        go,
        mut effects,
        notice,
        log,
    } = outcome;
    if let Some(line) = log {
        app.mirror.log_line(line);
    }
    if notice.is_some() {
        app.notice = notice;
    }
    if let Some(to) = go {
        effects.extend(nav::go(app, to));
    }
    effects
}

/// After the filter changed (`changed`): the matrix cursor onto a round that passes, the
/// review cursor inside the shorter queue, and a notice of what shows.
fn filtered(app: &mut App, changed: bool) {
    let shown = Shown::new(&app.mirror, app.filter.active.as_ref());
    app.screens.matrix.settle(shown);
    app.screens.review.settle(shown.review_len());
    if !changed {
        return;
    }
    app.notice = Some(match &app.filter.active {
        Some(f) => format!(
            "filter {}: {} of {} rounds (F clears)",
            f.text,
            shown.rounds().count(),
            app.mirror.rounds.len()
        ),
        None => "filter cleared: every round shows".into(),
    });
}

fn quit(app: &mut App, force: bool) -> Vec<Effect> {
    app.forced_quit = force;
    // A live run, or rounds retried after it (or in `open`).
    let live = app.mirror.engine_running;
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
