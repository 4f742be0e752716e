//! Engine events into the mirror. Stored rounds (at the start, and after every write)
//! replace what the UI holds of them, sanitised here and nowhere else; the other events only
//! move the calls under way (streamed text, retries, failures) and the run's own state.
//! What a screen may want to know of an event comes back as an [`Echo`].

use std::sync::Arc;

use crate::domain::Round;
use crate::engine::{EngineEvent, ScheduledState};
use crate::sanitize::{sanitize, sanitized};

use super::model::Mirror;
use super::schedule::{add, lay_out, mark_design};

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

/// What an event meant beyond the mirror, for the screens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Echo {
    /// Nothing a screen follows.
    Nothing,
    /// A round was stored anew (its analysis is stale, its review items may be gone).
    Stored,
    /// The engine refused a command (a correction), saying why (sanitised).
    Refused(String),
    /// The store refused a write: said in the footer too (sanitised).
    StoreFailed(String),
}

/// Applies one engine event to the mirror; says what it meant for the screens.
pub(crate) fn ingest(mirror: &mut Mirror, event: EngineEvent) -> Echo {
    match event {
        // The most frequent event, first and alone: it changes no counter.
        EngineEvent::TextDelta {
            round_id,
            phase_type,
            model,
            text,
        } => {
            if let Some(&i) = mirror.index.get(&round_id) {
                let p = mirror.rounds[i].live_mut(phase_type, &model);
                let clean = p.filter.push(&text);
                p.text.push_str(&clean);
            }
            Echo::Nothing
        }
        event => {
            // The counters are the run's, folded as every consumer folds them.
            mirror.progress.apply(&event);
            apply(mirror, event)
        }
    }
}

/// Applies an engine event other than streamed text.
fn apply(mirror: &mut Mirror, event: EngineEvent) -> Echo {
    let round = |mirror: &Mirror, id: &str| mirror.index.get(id).copied();
    match event {
        EngineEvent::Started {
            tournament_id,
            rounds,
        } => {
            mirror.name = sanitize(&tournament_id);
            mirror.started = Some(mirror.now);
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
            lay_out(mirror, rounds);
            for p in problems {
                mirror.log_line(p);
            }
        }
        EngineEvent::Design {
            wave,
            rounds,
            not_chosen,
            stopped,
        } => {
            let mut problems = Vec::new();
            let added = rounds.len();
            let rounds: Vec<ScheduledState> = rounds
                .into_iter()
                .filter_map(|s| match clean(s.round) {
                    Ok(round) => Some(ScheduledState { round, ..s }),
                    Err(e) => {
                        problems.push(e);
                        None
                    }
                })
                .collect();
            let ids: Vec<String> = rounds.iter().map(|s| s.round.id.clone()).collect();
            add(mirror, rounds);
            for id in &ids {
                if let Some(i) = round(mirror, id) {
                    mirror.rounds[i].queued = true;
                }
            }
            let stopped = stopped.map(|s| sanitize(&s));
            mirror.log_line(match &stopped {
                Some(why) => format!("adaptive design stopped after {wave} waves: {why}"),
                None => format!(
                    "adaptive design, wave {wave}: {added} rounds added, {} not chosen yet",
                    not_chosen.len()
                ),
            });
            mark_design(mirror, &not_chosen, stopped);
            for p in problems {
                mirror.log_line(p);
            }
        }
        EngineEvent::PhaseStarted {
            round_id,
            phase_type,
            model,
        } => {
            if let Some(i) = round(mirror, &round_id) {
                let r = &mut mirror.rounds[i];
                r.retry_until = None;
                r.queued = false;
                r.live_mut(phase_type, &model);
            }
        }
        EngineEvent::PhaseBatched {
            round_id,
            phase_type,
            model,
        } => {
            if let Some(i) = round(mirror, &round_id) {
                mirror.rounds[i].live_mut(phase_type, &model).batched = true;
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
                .filter(|b| !known(&mirror.batches, b))
                .map(|b| said("opened", b))
                .collect();
            lines.extend(
                mirror
                    .batches
                    .iter()
                    .filter(|o| !known(&open, o))
                    .map(|o| said("closed", o)),
            );
            for line in lines {
                mirror.log_line(line);
            }
            mirror.batches = open;
            mirror.batches_at = mirror.now;
        }
        // Taken by `ingest`.
        EngineEvent::TextDelta { .. } => {}
        EngineEvent::RetryScheduled {
            round_id,
            phase_type,
            model,
            attempt,
            wait,
            error,
        } => {
            if let Some(i) = round(mirror, &round_id) {
                let now = mirror.now;
                let r = &mut mirror.rounds[i];
                r.retry_until = Some(now + wait);
                let p = r.live_mut(phase_type, &model);
                // The failed attempt's text is void; the next attempt starts afresh.
                p.text.clear();
                p.filter = Default::default();
                p.retries += 1;
            }
            mirror.log_line(format!(
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
            if let Some(i) = round(mirror, &round_id) {
                mirror.rounds[i].end_call(phase_type, &model);
            }
            mirror.log_line(format!(
                "failed {} {} ({}): {}",
                sanitize(&round_id),
                phase_type.as_str(),
                sanitize(&model),
                sanitize(&error)
            ));
        }
        EngineEvent::RoundStored { round: stored } => {
            let Some(i) = round(mirror, &stored.id) else {
                return Echo::Nothing;
            };
            match clean(stored) {
                Ok(stored) => {
                    let r = &mut mirror.rounds[i];
                    r.store(stored);
                    r.on_disk = true;
                    let at_rest = r.at_rest();
                    if mirror
                        .text_kept
                        .failed
                        .as_ref()
                        .is_some_and(|(id, _)| *id == r.stored.id)
                    {
                        mirror.text_kept.failed = None;
                    }
                    if at_rest {
                        mirror.text_kept.touch(&mut mirror.rounds, i);
                    }
                    mirror.refresh_compare();
                    return Echo::Stored;
                }
                Err(e) => mirror.log_line(e),
            }
        }
        EngineEvent::RoundFinished { round_id } => {
            if let Some(i) = round(mirror, &round_id) {
                let r = &mut mirror.rounds[i];
                r.retry_until = None;
                r.queued = false;
                r.live.clear();
                mirror.text_kept.touch(&mut mirror.rounds, i);
            }
        }
        EngineEvent::Queued { round_ids } => {
            for id in &round_ids {
                if let Some(i) = round(mirror, id) {
                    mirror.rounds[i].queued = true;
                }
            }
            mirror.engine_running = true;
            mirror.finished = None;
            mirror.ended = None;
            let n = round_ids.len();
            mirror.log_line(match round_ids.as_slice() {
                [one] => format!("queued to run again: {}", sanitize(one)),
                _ => format!("queued to run again: {n} rounds"),
            });
        }
        EngineEvent::Paused => mirror.paused = true,
        EngineEvent::Resumed => mirror.paused = false,
        EngineEvent::BudgetReached {
            spent_usd,
            budget_usd,
        } => {
            mirror.log_line(format!(
                "budget reached: ${spent_usd:.4} of ${budget_usd:.2}; no new calls"
            ));
        }
        EngineEvent::Warning { message } => {
            mirror.log_line(format!("warning: {}", sanitize(&message)));
        }
        EngineEvent::StoreFailed { message } => {
            let line = format!(
                "cannot store: {}; no new calls (calls under way finish, and are stored if space returns)",
                sanitize(&message)
            );
            // In the footer too: the run is effectively over, and the log is a key away.
            mirror.log_line(line.clone());
            return Echo::StoreFailed(line);
        }
        EngineEvent::RateLimits { quota, snapshot } => {
            mirror.rate_limits.insert(quota, snapshot);
        }
        EngineEvent::CommandRefused { reason } => {
            let reason = sanitize(&reason);
            mirror.log_line(format!("refused: {reason}"));
            return Echo::Refused(reason);
        }
        EngineEvent::Finished { status } => {
            mirror.finished = Some(status);
            mirror.engine_running = false;
            mirror.paused = false;
            for r in &mut mirror.rounds {
                r.queued = false;
            }
            mirror.ended = Some(mirror.now);
            mirror.log_line(format!("tournament {status:?}").to_lowercase());
        }
    }
    Echo::Nothing
}
