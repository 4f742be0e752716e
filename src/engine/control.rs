//! What every round task shares: the stop signal, the pause switch, the budget and the
//! running totals, and the event sender.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::events::{EngineEvent, UsageTotals};

/// Shared control state of one run.
#[derive(Debug)]
pub(crate) struct Control {
    pub cancel: CancellationToken,
    paused: watch::Sender<bool>,
    budget_usd: Option<f64>,
    budget_hit: AtomicBool,
    totals: Mutex<UsageTotals>,
    events: mpsc::UnboundedSender<EngineEvent>,
}

impl Control {
    pub fn new(budget_usd: Option<f64>, events: mpsc::UnboundedSender<EngineEvent>) -> Self {
        Self {
            cancel: CancellationToken::new(),
            paused: watch::Sender::new(false),
            budget_usd,
            budget_hit: AtomicBool::new(false),
            totals: Mutex::new(UsageTotals::default()),
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
        if let Some(budget) = self.budget_usd {
            let totals = self.totals();
            // The next call is assumed to cost what calls have cost on average.
            let next = if totals.calls == 0 {
                0.0
            } else {
                totals.cost_usd / totals.calls as f64
            };
            if totals.cost_usd + next > budget {
                if !self.budget_hit.swap(true, Ordering::SeqCst) {
                    self.emit(EngineEvent::BudgetReached {
                        spent_usd: totals.cost_usd,
                        budget_usd: budget,
                    });
                }
                return false;
            }
        }
        true
    }

    pub fn budget_reached(&self) -> bool {
        self.budget_hit.load(Ordering::SeqCst)
    }

    pub fn totals(&self) -> UsageTotals {
        *self
            .totals
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Adds a finished call to the totals and announces them.
    pub fn record_call(&self, input: u64, output: u64, cost: Option<f64>) {
        let totals = {
            let mut t = self
                .totals
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            t.input_tokens += input;
            t.output_tokens += output;
            t.cost_usd += cost.unwrap_or(0.0);
            t.calls += 1;
            *t
        };
        self.emit(EngineEvent::Usage(totals));
    }
}
