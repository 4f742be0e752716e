//! Concurrency caps (per model and overall) and an optional requests-per-minute limit.
//!
//! A call waits for its model's slot first and only then for an overall slot, so a slow or
//! saturated provider never holds overall slots that other providers could use.

use std::num::NonZeroU32;
use std::sync::Arc;

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::retry::Gate;

/// The limits one model's calls pass through.
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    model: Arc<Semaphore>,
    overall: Arc<Semaphore>,
    per_minute: Option<Arc<DefaultDirectRateLimiter>>,
}

impl Limits {
    /// Limits for one model, sharing the overall semaphore with every other model.
    pub(crate) fn new(
        max_concurrency: u32,
        requests_per_minute: Option<u32>,
        overall: Arc<Semaphore>,
    ) -> Self {
        let per_minute = requests_per_minute
            .and_then(NonZeroU32::new)
            .map(|rpm| Arc::new(RateLimiter::direct(Quota::per_minute(rpm))));
        Self {
            model: Arc::new(Semaphore::new(max_concurrency.max(1) as usize)),
            overall,
            per_minute,
        }
    }
}

/// Held while an attempt runs.
#[derive(Debug)]
pub(crate) struct Pass {
    _model: OwnedSemaphorePermit,
    _overall: OwnedSemaphorePermit,
}

impl Gate for Limits {
    type Pass = Pass;

    async fn enter(&self) -> Pass {
        // These semaphores are owned here and never closed, so acquiring cannot fail.
        let model = Arc::clone(&self.model)
            .acquire_owned()
            .await
            .expect("model semaphore is never closed");
        if let Some(limiter) = &self.per_minute {
            limiter.until_ready().await;
        }
        let overall = Arc::clone(&self.overall)
            .acquire_owned()
            .await
            .expect("overall semaphore is never closed");
        Pass {
            _model: model,
            _overall: overall,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    #[tokio::test]
    async fn model_and_overall_caps_hold() {
        let overall = Arc::new(Semaphore::new(3));
        let a = Limits::new(2, None, Arc::clone(&overall));
        let b = Limits::new(5, None, Arc::clone(&overall));
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
        let l = Limits::new(10, Some(1), Arc::new(Semaphore::new(10)));
        drop(l.enter().await);
        assert!(l.enter().now_or_never().is_none());
    }
}
