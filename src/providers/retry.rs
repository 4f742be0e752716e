//! Retries: which failures are tried again, how long to wait, and the record of every attempt.
//!
//! The waits come from `backon`'s exponential schedule with jitter, unless the server named
//! its own wait (Retry-After, `retry-after-ms`, Gemini's `retryDelay`), which is honoured up
//! to a cap. The loop itself is ours, because every attempt must be recorded on the phase
//! and announced to the engine before its wait begins, and the waits go through tokio's
//! clock so that tests run on a paused one.

use std::time::{Duration, Instant};

use backon::BackoffBuilder;

use super::ProviderError;
use super::types::{CallEvent, ChatRequest, Completion};
use crate::config::RetryConfig;
use crate::domain::{Attempt, ErrorKind};

/// When and how often to try again.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// First backoff wait.
    pub initial_backoff: Duration,
    /// Longest backoff wait.
    pub max_backoff: Duration,
    /// Longest server-requested wait that is honoured; a longer one makes the error final.
    pub max_retry_after: Duration,
    /// How long attempts that cannot connect at all go on being retried, counted from the
    /// first of them, past `max_attempts` if need be (a server restarting).
    pub connect_retry: Duration,
    /// How long one call may be held by rate limits whose server named a wait, counted
    /// from its first, before they use up attempts like any other failure.
    pub max_rate_limit_wait: Duration,
}

impl From<&RetryConfig> for RetryPolicy {
    fn from(c: &RetryConfig) -> Self {
        Self {
            max_attempts: c.max_attempts,
            initial_backoff: Duration::from_millis(c.initial_backoff_ms),
            max_backoff: Duration::from_millis(c.max_backoff_ms),
            max_retry_after: crate::config::seconds(c.max_retry_after_s),
            connect_retry: crate::config::seconds(c.connect_retry_s),
            max_rate_limit_wait: crate::config::seconds(c.max_rate_limit_wait_s),
        }
    }
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self::from(&RetryConfig::default())
    }
}

/// What happens after a failed attempt.
#[derive(Debug, Clone, PartialEq)]
enum Decision {
    /// Try again after the wait; the failure used up an attempt.
    Retry(Duration),
    /// Try again after the wait without using up an attempt: a rate limit whose server
    /// named its wait, within `max_rate_limit_wait`.
    Hold(Duration),
    /// Stop, with a reason to add to the error's message that also makes it final.
    GiveUp(Option<String>),
    /// Stop, saying how long rate limits held the call; the error stays as retryable as it
    /// was (a later run may well get an answer).
    RateLimitedOut(String),
}

impl RetryPolicy {
    /// The backoff waits, growing without end: `decide` says when to stop, and a server
    /// that cannot be reached may be retried past `max_attempts`.
    fn schedule(&self) -> impl Iterator<Item = Duration> + use<> {
        backon::ExponentialBuilder::default()
            .with_min_delay(self.initial_backoff)
            .with_max_delay(self.max_backoff)
            .with_factor(2.0)
            .with_jitter()
            .without_max_times()
            .build()
    }

    /// What follows a failed attempt that would be the `tries`-th to use up one of
    /// `max_attempts`; `unreachable_for` is how long attempts have been failing to connect
    /// at all, when this one did too; `held_for` how long the call has been held by rate
    /// limits whose server named a wait, when this failure is one.
    fn decide(
        &self,
        error: &ProviderError,
        tries: u32,
        unreachable_for: Option<Duration>,
        held_for: Option<Duration>,
        schedule: &mut impl Iterator<Item = Duration>,
    ) -> Decision {
        let backoff = schedule.next();
        let bridging = unreachable_for.is_some_and(|d| d < self.connect_retry);
        if !error.retryable {
            return Decision::GiveUp(None);
        }
        if let Some(held) = held_for
            && error.retry_after.is_none_or(|w| w <= self.max_retry_after)
        {
            // A named wait of zero is no pace at all: back off instead of asking at once.
            let hold = error
                .retry_after
                .filter(|w| !w.is_zero())
                .or(backoff)
                .unwrap_or(self.max_backoff);
            // Held only when the wait the server named ends within the allowance: a reset
            // a week off is no reason to hold a call for minutes.
            let named = error.named_rate_limit_wait().unwrap_or(hold).max(hold);
            if held.saturating_add(named) <= self.max_rate_limit_wait {
                return Decision::Hold(hold);
            }
        }
        if tries >= self.max_attempts && !bridging {
            if let Some(held) = held_for
                && !self.max_rate_limit_wait.is_zero()
            {
                return Decision::RateLimitedOut(format!(
                    "rate-limited for {:.0} s in all, past max_rate_limit_wait_s ({:.0} s)",
                    held.as_secs_f64(),
                    self.max_rate_limit_wait.as_secs_f64()
                ));
            }
            return Decision::GiveUp(unreachable_for.map(|d| {
                format!(
                    "still unreachable {:.0} s after the first failed connection \
                     (connect_retry_s = {:.0})",
                    d.as_secs_f64(),
                    self.connect_retry.as_secs_f64()
                )
            }));
        }
        match error.retry_after {
            Some(wait) if wait > self.max_retry_after => Decision::GiveUp(Some(format!(
                "the server asked to wait {:.0} s, longer than max_retry_after_s ({:.0} s); \
                 resume later",
                wait.as_secs_f64(),
                self.max_retry_after.as_secs_f64()
            ))),
            Some(wait) => Decision::Retry(wait),
            None => Decision::Retry(backoff.unwrap_or(self.max_backoff)),
        }
    }
}

/// Something that can make one attempt at a request.
pub(crate) trait Attempter {
    /// Makes one attempt, passing answer text to `on_delta` as it arrives.
    fn attempt(
        &self,
        req: &ChatRequest,
        attempt: u32,
        on_delta: &mut (dyn FnMut(&str) + Send),
    ) -> impl Future<Output = Result<Completion, ProviderError>> + Send;
}

/// Something that must be held while an attempt runs (concurrency and rate limits); it is
/// released during the waits between attempts.
pub(crate) trait Gate {
    /// Held for the attempt's duration.
    type Pass: Send;
    /// Waits for room.
    fn enter(&self) -> impl Future<Output = Self::Pass> + Send;
    /// Gives the pass back once the attempt has ended, with how it ended (an adaptive
    /// window grows on answers and shrinks on rate limits).
    fn leave(&self, pass: Self::Pass, result: &Result<Completion, ProviderError>) {
        let _ = result;
        drop(pass);
    }
}

/// Runs attempts until one succeeds, a failure is final, or the attempts run out (or, for
/// attempts that cannot connect, `connect_retry` has passed). Attempts are numbered from
/// `first_number` (a call that asks again after a truncated answer goes on counting); a
/// rate limit whose server named its wait is waited out without using one up, while the
/// call's time so held stays within `max_rate_limit_wait`.
pub(crate) async fn run<A: Attempter + Sync, G: Gate + Sync>(
    policy: &RetryPolicy,
    attempter: &A,
    gate: &G,
    req: &ChatRequest,
    first_number: u32,
    observer: &mut (dyn FnMut(CallEvent<'_>) + Send),
) -> Result<(Completion, Vec<Attempt>), (ProviderError, Vec<Attempt>)> {
    let mut schedule = policy.schedule();
    let mut attempts = Vec::new();
    let mut unreachable_since: Option<tokio::time::Instant> = None;
    let mut rate_limited_since: Option<tokio::time::Instant> = None;
    let mut used = 0u32;
    let mut number = first_number;
    loop {
        let pass = gate.enter().await;
        let started = Instant::now();
        let mut streamed = 0usize;
        let result = attempter
            .attempt(req, number, &mut |text: &str| {
                streamed += text.len();
                observer(CallEvent::Delta(text));
            })
            .await;
        gate.leave(pass, &result);
        let latency_ms = started.elapsed().as_millis() as u64;
        let mut error = match result {
            Ok(completion) => {
                attempts.push(Attempt {
                    number,
                    latency_ms,
                    error: None,
                    error_kind: None,
                    wait_ms: None,
                    discarded_chars: 0,
                });
                return Ok((completion, attempts));
            }
            Err(error) => error,
        };
        let unreachable_for = if error.kind == ErrorKind::Unreachable {
            Some(
                unreachable_since
                    .get_or_insert_with(tokio::time::Instant::now)
                    .elapsed(),
            )
        } else {
            unreachable_since = None;
            None
        };
        let held_for = error.named_rate_limit_wait().map(|_| {
            rate_limited_since
                .get_or_insert_with(tokio::time::Instant::now)
                .elapsed()
        });
        let decision = policy.decide(&error, used + 1, unreachable_for, held_for, &mut schedule);
        let wait = match &decision {
            Decision::Retry(wait) => {
                used += 1;
                Some(*wait)
            }
            Decision::Hold(wait) => Some(*wait),
            Decision::GiveUp(_) | Decision::RateLimitedOut(_) => None,
        };
        attempts.push(Attempt {
            number,
            latency_ms,
            error: Some(error.to_string()),
            error_kind: Some(error.kind),
            wait_ms: wait.map(|w| w.as_millis() as u64),
            discarded_chars: streamed,
        });
        match decision {
            Decision::Retry(wait) | Decision::Hold(wait) => {
                tracing::debug!(attempt = number, wait_ms = wait.as_millis() as u64, %error, "retrying");
                observer(CallEvent::RetryScheduled {
                    attempt: number,
                    wait,
                    error: &error,
                    discarded_chars: streamed,
                });
                tokio::time::sleep(wait).await;
            }
            Decision::GiveUp(reason) => {
                if let Some(reason) = reason {
                    error.message = format!("{}; {reason}", error.message);
                    error.retryable = false;
                }
                return Err((error, attempts));
            }
            Decision::RateLimitedOut(reason) => {
                error.message = format!("{}; {reason}", error.message);
                return Err((error, attempts));
            }
        }
        number = number.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::types::FinishReason;
    use std::sync::Mutex;

    /// Answers from a script, one entry per attempt.
    struct Scripted(Mutex<Vec<Result<&'static str, ProviderError>>>);

    impl Attempter for Scripted {
        async fn attempt(
            &self,
            _req: &ChatRequest,
            _attempt: u32,
            on_delta: &mut (dyn FnMut(&str) + Send),
        ) -> Result<Completion, ProviderError> {
            let next = self.0.lock().unwrap().remove(0);
            on_delta("partial ");
            next.map(|text| Completion {
                text: text.to_string(),
                usage: None,
                usage_estimated: false,
                finish_reason: FinishReason::Stop,
                provider_finish_reason: "stop".into(),
                request_id: None,
                batch_id: None,
            })
        }
    }

    struct Open;
    impl Gate for Open {
        type Pass = ();
        async fn enter(&self) {}
    }

    fn http(status: u16, retry_after: Option<Duration>) -> ProviderError {
        let mut e = ProviderError::from_http(status, &Default::default(), "");
        e.retry_after = retry_after;
        e
    }

    async fn run_script(
        policy: &RetryPolicy,
        script: Vec<Result<&'static str, ProviderError>>,
    ) -> (Result<String, ProviderError>, Vec<Attempt>, Vec<String>) {
        let mut events = Vec::new();
        let result = run(
            policy,
            &Scripted(Mutex::new(script)),
            &Open,
            &ChatRequest::new("s", "u"),
            1,
            &mut |e| {
                events.push(match e {
                    CallEvent::Delta(t) => format!("delta {t}"),
                    CallEvent::RetryScheduled {
                        attempt,
                        wait,
                        discarded_chars,
                        ..
                    } => {
                        format!(
                            "retry {attempt} after {}ms dropping {discarded_chars}",
                            wait.as_millis()
                        )
                    }
                })
            },
        )
        .await;
        match result {
            Ok((c, attempts)) => (Ok(c.text), attempts, events),
            Err((e, attempts)) => (Err(e), attempts, events),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_is_honoured_on_the_paused_clock() {
        let start = tokio::time::Instant::now();
        let (result, attempts, events) = run_script(
            &RetryPolicy::default(),
            vec![Err(http(429, Some(Duration::from_secs(7)))), Ok("fine")],
        )
        .await;
        assert_eq!(result.unwrap(), "fine");
        assert_eq!(start.elapsed(), Duration::from_secs(7));
        assert_eq!(attempts.len(), 2);
        assert_eq!(attempts[0].wait_ms, Some(7000));
        assert_eq!(attempts[0].discarded_chars, 8);
        assert!(attempts[0].error.as_deref().unwrap().contains("HTTP 429"));
        assert_eq!(events[1], "retry 1 after 7000ms dropping 8");
    }

    #[tokio::test(start_paused = true)]
    async fn backoff_grows_with_jitter_and_stops_at_max_attempts() {
        let policy = RetryPolicy {
            max_attempts: 3,
            ..RetryPolicy::default()
        };
        let (result, attempts, _) = run_script(
            &policy,
            vec![
                Err(http(503, None)),
                Err(http(500, None)),
                Err(http(529, None)),
            ],
        )
        .await;
        assert_eq!(result.unwrap_err().status, Some(529));
        assert_eq!(attempts.len(), 3);
        let first = attempts[0].wait_ms.unwrap();
        let second = attempts[1].wait_ms.unwrap();
        assert!((500..1000).contains(&first), "{first}");
        assert!((1000..2000).contains(&second), "{second}");
        assert_eq!(attempts[2].wait_ms, None);
    }

    #[tokio::test(start_paused = true)]
    async fn final_errors_are_not_retried() {
        for status in [400, 401, 403, 404] {
            let (result, attempts, _) = run_script(
                &RetryPolicy::default(),
                vec![Err(http(status, None)), Ok("x")],
            )
            .await;
            assert_eq!(result.unwrap_err().status, Some(status));
            assert_eq!(attempts.len(), 1);
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_wait_over_the_cap_gives_up_and_says_why() {
        let (result, attempts, _) = run_script(
            &RetryPolicy::default(),
            vec![Err(http(429, Some(Duration::from_secs(600)))), Ok("x")],
        )
        .await;
        let e = result.unwrap_err();
        assert!(e.message.contains("longer than max_retry_after_s"), "{e}");
        assert!(!e.retryable);
        assert_eq!(attempts.len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn rate_limits_that_name_their_wait_use_up_no_attempt() {
        let policy = RetryPolicy {
            max_attempts: 2,
            ..RetryPolicy::default()
        };
        let mut script = vec![Err(http(429, Some(Duration::from_secs(2)))); 6];
        script.push(Ok("fine"));
        let start = tokio::time::Instant::now();
        let (result, attempts, _) = run_script(&policy, script).await;
        assert_eq!(
            result.unwrap(),
            "fine",
            "six 429s with a wait, two attempts"
        );
        assert_eq!(attempts.len(), 7);
        assert_eq!(start.elapsed(), Duration::from_secs(12));
        // Without a named wait, a 429 is an attempt like any other failure.
        let script = vec![Err(http(429, None)), Err(http(429, None)), Ok("x")];
        let (result, attempts, _) = run_script(&policy, script).await;
        assert_eq!(result.unwrap_err().status, Some(429));
        assert_eq!(attempts.len(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_spent_quota_named_by_its_reset_headers_holds_with_backoff() {
        let policy = RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        };
        let mut spent = http(429, None);
        spent.quota_reset = Some(Duration::from_secs(90));
        let (result, attempts, _) =
            run_script(&policy, vec![Err(spent.clone()), Err(spent), Ok("x")]).await;
        assert_eq!(result.unwrap(), "x");
        let first = attempts[0].wait_ms.unwrap();
        assert!(
            (500..1000).contains(&first),
            "the backoff, not the reset: {first}"
        );
        // A reset past max_rate_limit_wait holds nothing: the attempt counts.
        let mut far = http(429, None);
        far.quota_reset = Some(Duration::from_secs(3600));
        let (result, _, _) = run_script(&policy, vec![Err(far), Ok("x")]).await;
        assert_eq!(result.unwrap_err().status, Some(429));
        // Another failure's reset headers name no wait for this rule.
        let mut other = http(503, None);
        other.quota_reset = Some(Duration::from_secs(1));
        let (result, _, _) = run_script(&policy, vec![Err(other), Ok("x")]).await;
        assert_eq!(result.unwrap_err().status, Some(503));
    }

    #[tokio::test(start_paused = true)]
    async fn holds_end_at_max_rate_limit_wait_and_then_attempts_count() {
        let policy = RetryPolicy {
            max_attempts: 2,
            max_rate_limit_wait: Duration::from_secs(10),
            ..RetryPolicy::default()
        };
        let script = vec![Err(http(429, Some(Duration::from_secs(4)))); 10];
        let start = tokio::time::Instant::now();
        let (result, attempts, _) = run_script(&policy, script).await;
        let e = result.unwrap_err();
        // Held 4 + 4 s; the third wait would pass 10 s, so it is an attempt (the first of
        // two), and the fourth failure ends the call.
        assert_eq!(attempts.len(), 4);
        assert_eq!(start.elapsed(), Duration::from_secs(12));
        assert!(
            e.message.contains("past max_rate_limit_wait_s (10 s)"),
            "{e}"
        );
        assert!(e.retryable, "a later run may get an answer");
        // With no allowance, every rate limit is an attempt.
        let policy = RetryPolicy {
            max_attempts: 2,
            max_rate_limit_wait: Duration::ZERO,
            ..RetryPolicy::default()
        };
        let script = vec![Err(http(429, Some(Duration::from_secs(1)))); 5];
        let (_, attempts, _) = run_script(&policy, script).await;
        assert_eq!(attempts.len(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_zero_named_wait_backs_off_instead_of_asking_at_once() {
        let mut script = vec![Err(http(429, Some(Duration::ZERO))); 3];
        script.push(Ok("x"));
        let (result, attempts, _) = run_script(&RetryPolicy::default(), script).await;
        assert_eq!(result.unwrap(), "x");
        assert!(attempts[..3].iter().all(|a| a.wait_ms.unwrap() >= 500));
    }

    fn refused() -> Result<&'static str, ProviderError> {
        Err(ProviderError::new(
            ErrorKind::Unreachable,
            "connection refused",
            true,
        ))
    }

    #[tokio::test(start_paused = true)]
    async fn an_unreachable_server_is_retried_past_max_attempts_within_the_window() {
        let policy = RetryPolicy {
            max_attempts: 2,
            ..RetryPolicy::default()
        };
        let mut script = vec![refused(); 4];
        script.push(Ok("back"));
        let start = tokio::time::Instant::now();
        let (result, attempts, _) = run_script(&policy, script).await;
        assert_eq!(result.unwrap(), "back");
        assert_eq!(attempts.len(), 5, "four refusals bridged, then the answer");
        assert!(start.elapsed() < policy.connect_retry);
        assert!(
            attempts[..4]
                .iter()
                .all(|a| a.error_kind == Some(ErrorKind::Unreachable) && a.wait_ms.is_some())
        );
    }

    #[tokio::test(start_paused = true)]
    async fn an_unreachable_server_is_given_up_once_the_window_has_passed() {
        let policy = RetryPolicy {
            max_attempts: 2,
            ..RetryPolicy::default()
        };
        let start = tokio::time::Instant::now();
        let (result, attempts, _) = run_script(&policy, vec![refused(); 40]).await;
        let e = result.unwrap_err();
        assert_eq!(e.kind, ErrorKind::Unreachable);
        assert!(e.message.contains("connect_retry_s = 15"), "{e}");
        let waited = start.elapsed();
        assert!(waited >= policy.connect_retry, "{waited:?}");
        assert!(
            waited < policy.connect_retry + 2 * policy.max_backoff,
            "{waited:?}"
        );
        assert!(
            attempts.len() > 2 && attempts.len() < 40,
            "{}",
            attempts.len()
        );
        assert_eq!(attempts.last().unwrap().wait_ms, None);
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_window_or_after_an_http_error_max_attempts_rules() {
        let policy = RetryPolicy {
            max_attempts: 2,
            connect_retry: Duration::ZERO,
            ..RetryPolicy::default()
        };
        let (result, attempts, _) = run_script(&policy, vec![refused(); 5]).await;
        assert_eq!(result.unwrap_err().kind, ErrorKind::Unreachable);
        assert_eq!(attempts.len(), 2);
        // Connection failures bridge; an HTTP error in between ends the bridge.
        let policy = RetryPolicy {
            max_attempts: 2,
            ..RetryPolicy::default()
        };
        let script = vec![refused(), Err(http(503, None)), refused(), Ok("x")];
        let (result, attempts, _) = run_script(&policy, script).await;
        assert_eq!(result.unwrap_err().status, Some(503));
        assert_eq!(attempts.len(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn attempts_are_numbered_from_the_first_number_given() {
        let mut numbers = Vec::new();
        let result = run(
            &RetryPolicy::default(),
            &Scripted(Mutex::new(vec![Err(http(503, None)), Ok("x")])),
            &Open,
            &ChatRequest::new("s", "u"),
            4,
            &mut |e| {
                if let CallEvent::RetryScheduled { attempt, .. } = e {
                    numbers.push(attempt);
                }
            },
        )
        .await;
        let (_, attempts) = result.unwrap();
        assert_eq!(numbers, [4]);
        assert_eq!(
            attempts.iter().map(|a| a.number).collect::<Vec<_>>(),
            [4, 5]
        );
    }
}
