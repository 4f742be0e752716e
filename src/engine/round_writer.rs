//! One round's writer: it stores the round's snapshots and sends the round's events, all in
//! the order they were made. Each write is announced by [`EngineEvent::RoundStored`] with
//! the round as written, sent once the file is in place, and an event that follows a
//! snapshot is sent only after it; so consumers see causes before effects and nothing is
//! announced before it is stored, while the round runner goes on (the next phase may already
//! be calling). When writes fall behind, the newest snapshot is written (and announced) once,
//! since it holds every earlier one. A write the disk refuses is tried again, and stops the
//! run's new calls meanwhile (see `engine::store_guard`).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::domain::Round;

use super::context::RoundContext;
use super::events::EngineEvent;

/// What the writer is given, in order.
enum Item {
    /// Store this snapshot, then announce it, before sending anything that follows it.
    Snapshot(Arc<Round>),
    /// Send this event.
    Event(EngineEvent),
}

/// A handle that sends events through a round's writer (given to the round's call tasks).
#[derive(Clone)]
pub(crate) struct RoundEvents(mpsc::UnboundedSender<Item>);

impl RoundEvents {
    /// Queues an event behind everything queued before it.
    pub fn emit(&self, event: EngineEvent) {
        // The writer lives until `finish`, which waits for every handle to go.
        let _ = self.0.send(Item::Event(event));
    }
}

/// How long a writer waits before trying again to store a snapshot the disk refused.
const RETRY_WRITE: Duration = Duration::from_secs(2);

/// The writer task's loop: stores the newest snapshot of each batch, then sends what was
/// queued with it. A snapshot the disk refuses stops the run's new calls (the first refusal
/// names the file) and is kept, with everything queued after it, to be tried again every
/// [`RETRY_WRITE`] and once more at the end, so answers in flight are stored if space
/// returns; one that never is counted as lost.
async fn write_and_announce(ctx: Arc<RoundContext>, mut rx: mpsc::UnboundedReceiver<Item>) {
    let mut held: Vec<Item> = Vec::new();
    let mut batch = Vec::new();
    // Answers on disk for this round, to count what a refused snapshot would lose.
    let mut stored_answers: Option<usize> = None;
    loop {
        let open = if held.is_empty() {
            rx.recv_many(&mut batch, 4096).await > 0
        } else {
            tokio::select! {
                n = rx.recv_many(&mut batch, 4096) => n > 0,
                () = tokio::time::sleep(RETRY_WRITE) => true,
            }
        };
        held.append(&mut batch);
        let newest = held.iter().rposition(|i| matches!(i, Item::Snapshot(_)));
        let Some(at) = newest else {
            send_events(&ctx, held.drain(..));
            if open {
                continue;
            }
            return;
        };
        let Item::Snapshot(round) = &held[at] else {
            return;
        };
        let round = Arc::clone(round);
        match ctx.store.save_round_async(&round).await {
            Ok(()) => {
                stored_answers = Some(round.phases.len());
                for (i, item) in held.drain(..).enumerate() {
                    match item {
                        Item::Event(event) => ctx.control.emit(event),
                        Item::Snapshot(round) if i == at => {
                            ctx.control.emit(EngineEvent::RoundStored { round });
                        }
                        Item::Snapshot(_) => {}
                    }
                }
            }
            Err(e) => {
                ctx.control
                    .store_failed(&format!("cannot store round {}: {e}", round.id));
                // What was queued before the refused snapshot goes out; it and what
                // follows it wait for the next try.
                let rest = held.split_off(at);
                send_events(&ctx, std::mem::replace(&mut held, rest));
                if !open {
                    let answers = round
                        .phases
                        .len()
                        .saturating_sub(stored_answers.unwrap_or(0));
                    tracing::error!(round = %round.id, answers, "the round's newest state was never stored");
                    ctx.control.store.lose(answers);
                    ctx.control.emit(EngineEvent::Warning {
                        message: format!(
                            "round {}: its newest state could not be stored ({answers} answer(s) lost)",
                            round.id
                        ),
                    });
                    // Events that are not announcements of the lost snapshot still go out
                    // (the round is over, whatever is on disk).
                    send_events(&ctx, held.drain(..));
                    return;
                }
            }
        }
        if !open {
            return;
        }
    }
}

/// Sends the events among `items`, in order; their snapshots are not announced.
fn send_events(ctx: &RoundContext, items: impl IntoIterator<Item = Item>) {
    for item in items {
        if let Item::Event(event) = item {
            ctx.control.emit(event);
        }
    }
}

/// The writer task of one round.
pub(crate) struct RoundWriter {
    events: RoundEvents,
    task: JoinHandle<()>,
    /// The last snapshot queued, from which a round whose task panicked is recorded.
    last: std::sync::Mutex<Option<Arc<Round>>>,
}

impl RoundWriter {
    pub fn start(ctx: Arc<RoundContext>) -> Self {
        let (tx, rx) = mpsc::unbounded_channel::<Item>();
        let task = tokio::spawn(write_and_announce(ctx, rx));
        Self {
            events: RoundEvents(tx),
            task,
            last: std::sync::Mutex::new(None),
        }
    }

    /// A handle for sending events in order with the snapshots.
    pub fn events(&self) -> RoundEvents {
        self.events.clone()
    }

    /// Queues a snapshot and the events that follow it.
    pub fn save(&self, round: &Round, events: Vec<EngineEvent>) {
        let snapshot = Arc::new(round.clone());
        if let Ok(mut last) = self.last.lock() {
            *last = Some(Arc::clone(&snapshot));
        }
        let _ = self.events.0.send(Item::Snapshot(snapshot));
        for event in events {
            self.events.emit(event);
        }
    }

    /// The last snapshot queued, if any.
    pub fn last_snapshot(&self) -> Option<Arc<Round>> {
        self.last.lock().ok().and_then(|last| last.clone())
    }

    /// Waits until everything queued is stored and sent. Every [`RoundEvents`] handle must
    /// have been dropped (the round's calls have ended).
    pub async fn finish(self) {
        drop(self.events);
        let _ = self.task.await;
    }
}
