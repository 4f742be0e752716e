//! Engine events into the UI's state. Stored rounds (at the start, and after every write)
//! replace what the UI holds of them, sanitised here and nowhere else; the other events only
//! move the calls under way (streamed text, retries, failures) and the run's own state.

use std::sync::Arc;

use crate::domain::Round;
use crate::engine::{EngineEvent, ScheduledState};
use crate::sanitize::{sanitize, sanitized};

use super::app::App;

/// A stored round with every string a model could have written sanitised (the same round
/// when nothing needed it).
pub(crate) fn clean(round: Arc<Round>) -> Result<Arc<Round>, String> {
    match sanitized(&*round) {
        Ok(None) => Ok(round),
        Ok(Some(clean)) => Ok(Arc::new(clean)),
        Err(e) => Err(format!(
            "round {} cannot be shown: {e}",
            sanitize(&round.id)
        )),
    }
}

/// Applies one engine event.
pub(crate) fn apply(app: &mut App, event: EngineEvent) {
    let round = |app: &App, id: &str| app.index.get(id).copied();
    match event {
        EngineEvent::Started {
            tournament_id,
            rounds,
        } => {
            app.name = sanitize(&tournament_id);
            app.started = Some(app.now);
            let mut problems = Vec::new();
            let rounds = rounds
                .into_iter()
                .filter_map(|s| match clean(s.round) {
                    Ok(round) => Some(ScheduledState { round, ..s }),
                    Err(e) => {
                        problems.push(e);
                        None
                    }
                })
                .collect();
            app.set_schedule(rounds);
            for p in problems {
                app.log_line(p);
            }
        }
        EngineEvent::PhaseStarted {
            round_id,
            phase_type,
            model,
        } => {
            if let Some(i) = round(app, &round_id) {
                let r = &mut app.rounds[i];
                r.retry_until = None;
                r.live_mut(phase_type, &model);
            }
        }
        EngineEvent::PhaseBatched {
            round_id,
            phase_type,
            model,
        } => {
            if let Some(i) = round(app, &round_id) {
                app.rounds[i].live_mut(phase_type, &model).batched = true;
            }
        }
        EngineEvent::Batches { open } => {
            let said = |verb: &str, b: &crate::providers::BatchView| {
                format!(
                    "batch {verb}: {} ({}) {}: {} requests",
                    sanitize(&b.model),
                    b.provider,
                    sanitize(&b.remote),
                    b.requests
                )
            };
            let known = |list: &[crate::providers::BatchView], b: &crate::providers::BatchView| {
                list.iter().any(|o| o.remote == b.remote)
            };
            let mut lines: Vec<String> = open
                .iter()
                .filter(|b| !known(&app.batches, b))
                .map(|b| said("opened", b))
                .collect();
            lines.extend(
                app.batches
                    .iter()
                    .filter(|o| !known(&open, o))
                    .map(|o| said("closed", o)),
            );
            for line in lines {
                app.log_line(line);
            }
            app.batches = open;
            app.batches_at = app.now;
        }
        EngineEvent::TextDelta {
            round_id,
            phase_type,
            model,
            text,
        } => {
            if let Some(i) = round(app, &round_id) {
                let p = app.rounds[i].live_mut(phase_type, &model);
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
                let p = r.live_mut(phase_type, &model);
                // The failed attempt's text is void; the next attempt starts afresh.
                p.text.clear();
                p.filter = Default::default();
                p.retries += 1;
            }
            app.log_line(format!(
                "retry {} {} ({}) attempt {attempt}: {}; next in {:.1} s",
                sanitize(&round_id),
                phase_type.as_str(),
                sanitize(&model),
                sanitize(&error),
                wait.as_secs_f64()
            ));
        }
        EngineEvent::PhaseFailed {
            round_id,
            phase_type,
            model,
            error,
        } => {
            if let Some(i) = round(app, &round_id) {
                app.rounds[i].end_call(phase_type, &model);
            }
            app.log_line(format!(
                "failed {} {} ({}): {}",
                sanitize(&round_id),
                phase_type.as_str(),
                sanitize(&model),
                sanitize(&error)
            ));
        }
        EngineEvent::RoundStored { round: stored } => {
            let Some(i) = round(app, &stored.id) else {
                return;
            };
            match clean(stored) {
                Ok(stored) => {
                    let r = &mut app.rounds[i];
                    r.store(stored);
                    r.on_disk = true;
                    // A model without a price stays without one: the set only grows.
                    app.unpriced.extend(r.unpriced.iter().cloned());
                    let at_rest = r.at_rest();
                    if app
                        .text_kept
                        .failed
                        .as_ref()
                        .is_some_and(|(id, _)| *id == r.stored.id)
                    {
                        app.text_kept.failed = None;
                    }
                    if at_rest {
                        super::round_text::touch(app, i);
                    }
                    app.refresh_totals();
                    close_corrected(app);
                    if let Some(view) = &mut app.analysis {
                        view.stale = true;
                    }
                }
                Err(e) => app.log_line(e),
            }
        }
        EngineEvent::RoundFinished { round_id } => {
            if let Some(i) = round(app, &round_id) {
                let r = &mut app.rounds[i];
                r.retry_until = None;
                r.live.clear();
                app.finished_this_run += 1;
                super::round_text::touch(app, i);
            }
        }
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
        EngineEvent::Warning { message } => {
            app.log_line(format!("warning: {}", sanitize(&message)));
        }
        EngineEvent::StoreFailed { message } => {
            let line = format!(
                "cannot store: {}; no new calls (calls under way finish, and are stored if space returns)",
                sanitize(&message)
            );
            // In the footer too: the run is effectively over, and the log is a key away.
            app.notice = Some(line.clone());
            app.log_line(line);
        }
        EngineEvent::RateLimits { quota, snapshot } => {
            app.rate_limits.insert(quota, snapshot);
        }
        EngineEvent::CommandRefused { reason } => {
            let reason = sanitize(&reason);
            if let Some(editor) = &mut app.editor {
                editor.message = Some(format!("not saved: {reason}"));
            }
            app.log_line(format!("refused: {reason}"));
        }
        EngineEvent::Finished { status } => {
            app.finished = Some(status);
            app.ended = Some(app.now);
            app.log_line(format!("tournament {status:?}").to_lowercase());
        }
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
        app.log_line(line);
    }
}
