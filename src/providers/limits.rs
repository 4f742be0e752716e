//! Concurrency caps (per model and overall) and an optional requests-per-minute limit.
//!
//! A call waits for its model's slot first and only then for an overall slot, so a slow or
//! saturated provider never holds overall slots that other providers could use. The model's
//! slots are its [`ModelLimiter`] window: fixed at `max_concurrency`, or adaptive.

use std::sync::Arc;

use governor::DefaultDirectRateLimiter;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::ProviderError;
use super::adaptive::{ModelLimiter, Outcome, Slot};
use super::retry::Gate;
use super::types::Completion;

/// The limits one model's calls pass through.
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    model: Arc<ModelLimiter>,
    overall: Arc<Semaphore>,
    per_minute: Option<Arc<DefaultDirectRateLimiter>>,
}

impl Limits {
    /// Limits for one model: its quota's window and requests-per-minute limit (shared with
    /// the names on the same quota, see `providers::quota`), and the overall semaphore
    /// shared with every model.
    pub(crate) fn new(
        model: Arc<ModelLimiter>,
        per_minute: Option<Arc<DefaultDirectRateLimiter>>,
        overall: Arc<Semaphore>,
    ) -> Self {
        Self {
            model,
            overall,
            per_minute,
        }
    }
}

/// Held while an attempt runs.
#[derive(Debug)]
pub(crate) struct Pass {
    model: Slot,
    /// The overall slot; `None` only if the semaphore were closed, which nothing does.
    _overall: Option<OwnedSemaphorePermit>,
}

impl Gate for Limits {
    type Pass = Pass;

    async fn enter(&self) -> Pass {
        let model = self.model.start().await;
        if let Some(limiter) = &self.per_minute {
            limiter.until_ready().await;
        }
        // The overall semaphore is owned by the registry and never closed.
        let overall = Arc::clone(&self.overall).acquire_owned().await.ok();
        Pass {
            model,
            _overall: overall,
        }
    }

    fn leave(&self, pass: Pass, result: &Result<Completion, ProviderError>) {
        let outcome = match result {
            Ok(c) => Outcome::Success(c.usage.map(|u| u.input_tokens + u.output_tokens)),
            Err(e) if e.is_rate_limit() => Outcome::RateLimited(e.retry_after),
            Err(_) => Outcome::Other,
        };
        self.model.settle(pass.model, outcome);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    fn fixed(cap: u32) -> Arc<ModelLimiter> {
        Arc::new(ModelLimiter::new(cap, false))
    }

    #[tokio::test]
    async fn model_and_overall_caps_hold() {
        let overall = Arc::new(Semaphore::new(3));
        let a = Limits::new(fixed(2), None, Arc::clone(&overall));
        let b = Limits::new(fixed(5), None, Arc::clone(&overall));
        let p1 = a.enter().await;
        let _p2 = a.enter().await;
        // a is at its cap of 2.
        assert!(a.enter().now_or_never().is_none());
        // b can still use the last overall slot, then the overall cap of 3 binds.
        let _p3 = b.enter().await;
        assert!(b.enter().now_or_never().is_none());
        drop(p1);
        let _p4 = b.enter().await;
    }

    #[tokio::test]
    async fn requests_per_minute_waits_once_the_burst_is_spent() {
        let one = governor::Quota::per_minute(std::num::NonZeroU32::new(1).unwrap());
        let per_minute = Some(Arc::new(governor::RateLimiter::direct(one)));
        let l = Limits::new(fixed(10), per_minute, Arc::new(Semaphore::new(10)));
        drop(l.enter().await);
        assert!(l.enter().now_or_never().is_none());
    }
}
