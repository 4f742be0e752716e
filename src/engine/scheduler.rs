//! The one scheduler every run plays its rounds through (`run`, a resume, `rejudge`): rounds
//! start in order as room frees up, a person's commands are answered while they run (pause,
//! resume, cancel, cancel the open batches, retry a round, store a correction), a round's
//! extra files are written as it ends, and a round whose task ended abnormally frees its
//! place with a warning (a panic inside it is already kept as the round's error).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::domain::{Round, RoundStatus};

use super::batching::RunBatches;
use super::context::RoundContext;
use super::corrections::correction_events;
use super::events::{EngineCommand, EngineEvent};
use super::round_extras::save_round_extras;
use super::round_runner::run_round;

/// Plays `queue` with at most `limit` rounds at once, answering `commands` until they close;
/// `ended` sees each round as its task returns it. Returns what the person must hear after
/// the run (open batches the provider would not cancel).
pub(crate) async fn play(
    ctx: &Arc<RoundContext>,
    mut queue: VecDeque<Round>,
    limit: usize,
    batches: Option<&RunBatches>,
    commands: &mut mpsc::UnboundedReceiver<EngineCommand>,
    mut ended: impl FnMut(&Round),
) -> Vec<String> {
    let store = &ctx.store;
    let mut tasks: JoinSet<Round> = JoinSet::new();
    let mut running: HashSet<String> = HashSet::new();
    // Which round each task plays, so that one ending abnormally frees its place.
    let mut round_of_task: HashMap<tokio::task::Id, String> = HashMap::new();
    let mut commands_open = true;
    let mut notes = Vec::new();
    loop {
        while running.len() < limit && !ctx.control.cancel.is_cancelled() {
            let Some(round) = queue.pop_front() else {
                break;
            };
            running.insert(round.id.clone());
            let id = round.id.clone();
            round_of_task.insert(tasks.spawn(run_round(Arc::clone(ctx), round)).id(), id);
        }
        if tasks.is_empty() && (queue.is_empty() || ctx.control.cancel.is_cancelled()) {
            break;
        }
        tokio::select! {
            command = commands.recv(), if commands_open => match command {
                None => commands_open = false,
                Some(EngineCommand::Pause) => ctx.control.set_paused(true),
                Some(EngineCommand::Resume) => ctx.control.set_paused(false),
                Some(EngineCommand::Cancel) => {
                    ctx.control.cancel.cancel();
                    // Nothing is sent after "stopping": calls waiting for a batch are not
                    // put in one.
                    if let Some(b) = batches {
                        b.batching.stop_creating();
                    }
                }
                Some(EngineCommand::CancelBatches) => match batches {
                    Some(b) => {
                        for message in b.batching.cancel_open().await {
                            tracing::error!("{message}");
                            ctx.control.emit(EngineEvent::Warning { message: message.clone() });
                            notes.push(message);
                        }
                    }
                    None => ctx.control.emit(EngineEvent::CommandRefused { reason: "this run has no batches".into() }),
                },
                Some(EngineCommand::RetryRound(id)) => match store.load_round(&id) {
                    Ok(Some(round)) if round.status == RoundStatus::Incomplete && !running.contains(&id) && !queue.iter().any(|r| r.id == id) && !ctx.control.cancel.is_cancelled() => {
                        queue.push_front(round);
                        ctx.control.emit(EngineEvent::Queued { round_ids: vec![id] });
                    }
                    Ok(_) => ctx.control.emit(EngineEvent::CommandRefused { reason: format!("round {id} is not an incomplete round at rest") }),
                    Err(e) => ctx.control.emit(EngineEvent::CommandRefused { reason: e.to_string() }),
                },
                Some(EngineCommand::RetryIncomplete) if !ctx.control.cancel.is_cancelled() => match store.load_rounds(&crate::store::RoundFilter::default()) {
                    Ok((rounds, _)) => {
                        let waiting: Vec<Round> = rounds
                            .into_iter()
                            .filter(|r| r.status == RoundStatus::Incomplete && !running.contains(&r.id) && !queue.iter().any(|q| q.id == r.id))
                            .collect();
                        let round_ids: Vec<String> = waiting.iter().map(|r| r.id.clone()).collect();
                        queue.extend(waiting);
                        if !round_ids.is_empty() {
                            ctx.control.emit(EngineEvent::Queued { round_ids });
                        }
                    }
                    Err(e) => ctx.control.emit(EngineEvent::CommandRefused { reason: e.to_string() }),
                },
                Some(EngineCommand::RetryIncomplete) => ctx.control.emit(EngineEvent::CommandRefused { reason: "the run is stopping".into() }),
                Some(EngineCommand::ApplyCorrection { round_id, judge, correction }) => {
                    if running.contains(&round_id) {
                        ctx.control.emit(EngineEvent::CommandRefused { reason: format!("round {round_id} is still running") });
                    } else {
                        ctx.control.emit(correction_events(store, &round_id, &judge, &correction));
                    }
                }
            },
            Some(joined) = tasks.join_next_with_id() => match joined {
                Ok((task, round)) => {
                    round_of_task.remove(&task);
                    running.remove(&round.id);
                    save_round_extras(store, &round);
                    ended(&round);
                }
                // A round task records its own panics; this is one its record itself broke.
                Err(e) => {
                    if let Some(id) = round_of_task.remove(&e.id()) {
                        running.remove(&id);
                        let message = format!("internal error in round {id}: its task ended abnormally ({e}); please report it");
                        tracing::error!("{message}");
                        ctx.control.emit(EngineEvent::Warning { message });
                        ctx.control.emit(EngineEvent::RoundFinished { round_id: id });
                    }
                }
            },
        }
    }
    notes
}
