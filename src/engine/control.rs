//! What every round task shares: the stop signal, the pause switch, the budget and what
//! this run has spent, and the event sender.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::events::EngineEvent;
use super::store_guard::{StoreCheck, StoreGuard};

/// What this run's calls have cost, for the budget.
#[derive(Debug, Clone, Copy, Default)]
struct Spent {
    cost_usd: f64,
    calls: u64,
}

/// Shared control state of one run.
#[derive(Debug)]
pub(crate) struct Control {
    pub cancel: CancellationToken,
    paused: watch::Sender<bool>,
    budget_usd: Option<f64>,
    budget_hit: AtomicBool,
    spent: Mutex<Spent>,
    /// Models already named in a warning that their server reports no usage.
    unreported_usage: Mutex<HashSet<String>>,
    events: mpsc::UnboundedSender<EngineEvent>,
    /// Whether the store can take what new calls would bring.
    pub store: StoreGuard,
}

impl Control {
    pub fn new(
        budget_usd: Option<f64>,
        events: mpsc::UnboundedSender<EngineEvent>,
        store: StoreGuard,
    ) -> Self {
        Self {
            store,
            cancel: CancellationToken::new(),
            paused: watch::Sender::new(false),
            budget_usd,
            budget_hit: AtomicBool::new(false),
            spent: Mutex::new(Spent::default()),
            unreported_usage: Mutex::new(HashSet::new()),
            events,
        }
    }

    /// Sends an event; a consumer that has gone away is not an error for the engine.
    pub fn emit(&self, event: EngineEvent) {
        let _ = self.events.send(event);
    }

    pub fn set_paused(&self, paused: bool) {
        if self.paused.send_replace(paused) != paused {
            self.emit(if paused {
                EngineEvent::Paused
            } else {
                EngineEvent::Resumed
            });
        }
    }

    /// Waits until calls may start. False when the run is stopping (cancelled or over
    /// budget): the caller must not start its call.
    pub async fn may_start_call(&self) -> bool {
        let mut rx = self.paused.subscribe();
        tokio::select! {
            _ = self.cancel.cancelled() => return false,
            ok = rx.wait_for(|p| !*p) => if ok.is_err() { return false },
        }
        if self.cancel.is_cancelled() || self.budget_hit.load(Ordering::SeqCst) {
            return false;
        }
        match self.store.check() {
            StoreCheck::Fine => {}
            StoreCheck::Stopped => return false,
            StoreCheck::LowSpace(message) => {
                self.store_failed(&message);
                return false;
            }
        }
        if let Some(budget) = self.budget_usd {
            let spent = self.spent();
            // The next call is assumed to cost what calls have cost on average.
            let next = if spent.calls == 0 {
                0.0
            } else {
                spent.cost_usd / spent.calls as f64
            };
            if spent.cost_usd + next > budget {
                if !self.budget_hit.swap(true, Ordering::SeqCst) {
                    self.emit(EngineEvent::BudgetReached {
                        spent_usd: spent.cost_usd,
                        budget_usd: budget,
                    });
                }
                return false;
            }
        }
        true
    }

    /// Stops new calls because the store cannot take more (the first failed round write, or
    /// too little free space), announcing it once; calls under way go on, and are stored if
    /// space returns.
    pub fn store_failed(&self, message: &str) {
        if self.store.failed(message) {
            tracing::error!("{message}; no new calls start");
            self.emit(EngineEvent::StoreFailed {
                message: message.to_string(),
            });
        }
    }

    pub fn budget_reached(&self) -> bool {
        self.budget_hit.load(Ordering::SeqCst)
    }

    fn spent(&self) -> Spent {
        *self
            .spent
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Adds a finished call's cost to what this run has spent.
    pub fn record_call(&self, cost: Option<f64>) {
        let mut spent = self
            .spent
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        spent.cost_usd += cost.unwrap_or(0.0);
        spent.calls += 1;
    }

    /// Warns, once per model and run, that the model's server reported no usage, so its
    /// tokens (and the cost and budget from them) are estimates.
    pub fn note_estimated_usage(&self, model: &str) {
        let first = self
            .unreported_usage
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(model.to_string());
        if first {
            tracing::warn!(
                model,
                "the server reports no token usage; tokens are estimated"
            );
            self.emit(EngineEvent::Warning {
                message: format!(
                    "model \"{model}\": the server reports no token usage, so its tokens, cost and \
                     the budget are estimated from the text (marked \"estimated\")"
                ),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_store_failure_stops_new_calls_and_is_announced_once() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let dir = tempfile::tempdir().unwrap();
        let control = Control::new(None, tx, StoreGuard::new(dir.path(), 0));
        assert!(control.may_start_call().await);
        control.store_failed("cannot store round r1: r1.json: no space");
        control.store_failed("cannot store round r2: r2.json: no space");
        assert!(!control.may_start_call().await);
        let announced: Vec<_> = std::iter::from_fn(|| rx.try_recv().ok()).collect();
        assert!(
            matches!(&announced[..], [EngineEvent::StoreFailed { message }] if message.contains("r1.json")),
            "{announced:?}"
        );
    }

    #[tokio::test]
    async fn too_little_free_space_stops_new_calls() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let dir = tempfile::tempdir().unwrap();
        let control = Control::new(None, tx, StoreGuard::new(dir.path(), u64::MAX >> 21));
        assert!(!control.may_start_call().await);
        assert!(!control.may_start_call().await, "stays stopped");
        assert!(matches!(rx.try_recv(), Ok(EngineEvent::StoreFailed { .. })));
        assert!(rx.try_recv().is_err());
    }
}
