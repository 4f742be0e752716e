//! One round's writer: it stores the round's snapshots and sends the round's events, all in
//! the order they were made. Each write is announced by [`EngineEvent::RoundStored`] with
//! the round as written, sent once the file is in place, and an event that follows a
//! snapshot is sent only after it; so consumers see causes before effects and nothing is
//! announced before it is stored, while the round runner goes on (the next phase may already
//! be calling). When writes fall behind, the newest snapshot is written (and announced) once,
//! since it holds every earlier one.

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::domain::Round;

use super::events::EngineEvent;
use super::round_runner::RoundContext;

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

/// The writer task of one round.
pub(crate) struct RoundWriter {
    events: RoundEvents,
    task: JoinHandle<()>,
    /// The last snapshot queued, from which a round whose task panicked is recorded.
    last: std::sync::Mutex<Option<Arc<Round>>>,
}

impl RoundWriter {
    pub fn start(ctx: Arc<RoundContext>) -> Self {
        let (tx, mut rx) = mpsc::unbounded_channel::<Item>();
        let task = tokio::spawn(async move {
            let mut batch = Vec::new();
            while rx.recv_many(&mut batch, 4096).await > 0 {
                let newest = batch.iter().rposition(|i| matches!(i, Item::Snapshot(_)));
                if let Some(at) = newest
                    && let Item::Snapshot(round) = &batch[at]
                    && let Err(e) = ctx.store.save_round_async(round).await
                {
                    // Without a record the run cannot go on honestly: stop it, and do
                    // not announce what was not stored.
                    tracing::error!(round = %round.id, error = %e, "cannot store the round; stopping the run");
                    ctx.control.cancel.cancel();
                    batch.truncate(at);
                }
                for (at, item) in batch.drain(..).enumerate() {
                    match item {
                        Item::Event(event) => ctx.control.emit(event),
                        Item::Snapshot(round) if Some(at) == newest => {
                            ctx.control.emit(EngineEvent::RoundStored { round });
                        }
                        Item::Snapshot(_) => {}
                    }
                }
            }
        });
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
