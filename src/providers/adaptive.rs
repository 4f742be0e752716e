//! One model's concurrency window, steered by the provider's answers: it starts low, grows
//! while the reported quota has headroom (by one slot per success until its first cut, so
//! that it doubles every round trip, then by one slot per window's worth of successes), is
//! halved on a 429 or when a quota without a reset time runs low (a tenth or less left), and
//! never leaves 1..=`max_concurrency`. When the headers say the quota is spent until a reset
//! (the requests left, or the tokens left counted in calls at the recent answers' average
//! usage, less the other calls in flight, are used up), or a 429 names a wait, new calls wait
//! instead of meeting another 429: until the reset for a quota that comes back whole at its
//! reset (a fixed window), but only until one more call's worth is back for a quota that
//! refills as it goes (the token buckets of OpenAI and Anthropic, whose resets name the time
//! until the bucket is full). Which of the two a quota is, the first call sent that early
//! shows: an answer means it refills as it goes, a 429 that it does not. (Holding that call
//! until a report says the quota is spent was tried: a bucket paced well seldom says so, and
//! the kind stayed unknown, costing a tenth of the throughput.)
//!
//! A quota that comes back whole at its reset is spent by its count, not by the window: a
//! 429 from it holds calls until the reset its headers name (not the whole seconds a
//! `Retry-After` rounds up to) and does not cut the window, and learning that kind gives
//! back the largest window reached before, so each reset is met with a full burst. Once
//! nothing is in flight, the fewest calls any report of the period left is what is truly
//! left, so the calls the count set aside for answers already counted are sent too.
//!
//! With `adaptive_concurrency = false` the window stays at `max_concurrency` and nothing is
//! held back; the headers are still recorded, for the snapshot.
//!
//! [`Window`] is the arithmetic, with the clock passed in; [`ModelLimiter`] waits on it.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::rate_headers::{QuotaReport, RateReport};

/// The window an adaptive model starts with (or its cap, when lower).
const INITIAL_WINDOW: u32 = 2;
/// A quota with this share or less left counts as nearly spent.
const LOW_SHARE: f64 = 0.1;
/// The weight of the latest answer in the average tokens per call.
const USAGE_WEIGHT: f64 = 0.2;
/// The longest calls are held back at once: a quota that refills as it goes (OpenAI's
/// resets name the time until it is whole, up to minutes for tokens) has room sooner, and
/// a call sent early meets at worst a 429, which the retry policy handles.
const MAX_HOLD: Duration = Duration::from_secs(60);
/// How far a server's wait may pass the reset its headers name and still be that reset,
/// rounded up to whole seconds (as `Retry-After` is).
const ROUNDING: Duration = Duration::from_secs(1);

/// What the limiter knows of one model at a moment, for the engine and UI to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateSnapshot {
    /// Whether the window follows the provider (`adaptive_concurrency`).
    pub adaptive: bool,
    /// Calls allowed in flight now.
    pub window: u32,
    /// The ceiling (`max_concurrency`).
    pub max_concurrency: u32,
    /// Calls in flight now.
    pub in_flight: u32,
    /// Requests left in the quota, by the latest response that said.
    pub remaining_requests: Option<u64>,
    /// The request quota's size, by the latest response that said.
    pub limit_requests: Option<u64>,
    /// Tokens left in the quota (the tightest one), by the latest response that said.
    pub remaining_tokens: Option<u64>,
    /// The token quota's size, by the latest response that said.
    pub limit_tokens: Option<u64>,
    /// How long new calls are still held back for a quota reset or a 429's wait.
    pub held_for: Option<Duration>,
    /// Rate-limit (429) answers met so far.
    pub rate_limited: u64,
}

/// How an attempt ended, as far as the window cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// An answer, with the tokens it used (prompt and answer) when the server said.
    Success(Option<u64>),
    /// HTTP 429, with the wait the server named if any.
    RateLimited(Option<Duration>),
    /// Any other failure: says nothing about the quota.
    Other,
}

/// A started call's place in the window's history, given back to [`Window::settle`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ticket {
    /// The generation it started in: a call started before the latest cut cannot cut again.
    generation: u64,
    /// Released by a paced hold, before a spent quota's full reset: its outcome shows
    /// whether the quota refills as it goes.
    early: bool,
}

/// How a quota comes back after it is spent, as far as the answers have shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refill {
    /// Not known yet: one call at a time is sent early to find out.
    Unknown,
    /// Little by little (OpenAI's and Anthropic's token buckets): calls are paced at the
    /// rate it refills.
    Continuous,
    /// Whole at its reset (a fixed window): calls wait for the reset.
    AtReset,
}

/// One quota by one report, counted in calls.
#[derive(Debug, Clone, Copy)]
struct Reading {
    /// Calls the quota takes now, by the report.
    left: u64,
    /// Until it is whole again.
    reset: Duration,
    /// How long one call's worth takes to come back, if it refills little by little.
    per_call: Option<Duration>,
}

/// Why a call cannot start yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    /// The window is full: wait for a call to end.
    Slot,
    /// The quota is spent: wait until then (or for a call to end, which may bring news).
    Until(Instant),
}

/// The window's arithmetic and what the latest responses said.
#[derive(Debug, Clone)]
pub(crate) struct Window {
    adaptive: bool,
    cap: u32,
    size: u32,
    /// The largest the window has been: what a quota found to come back whole at its
    /// reset gets back, since the cuts made while that was unknown were the count's doing,
    /// not the window's.
    peak: u32,
    /// Successes counted toward the next slot.
    successes: u32,
    /// Until the first cut, the window grows by a slot per success, not per window of them.
    slow_start: bool,
    /// The tokens an answer uses, on average over recent answers that said: how a token
    /// quota's remainder is counted in calls.
    tokens_per_call: Option<f64>,
    /// Bumped by every cut; a call started before the latest cut cannot cut again.
    generation: u64,
    in_flight: u32,
    /// Calls that may still start before `hold_until`, by the latest report.
    budget: Option<u64>,
    hold_until: Option<Instant>,
    /// What the budget is at `hold_until`: this many calls (a paced hold), or the whole
    /// quota (none).
    paced_refill: Option<u64>,
    /// How the quota comes back.
    refill: Refill,
    /// The next call to start is released by a paced hold.
    early_next: bool,
    /// An early call is in flight while the refill is unknown: no other is sent early.
    probing: bool,
    /// How long one call's worth of the binding quota took to come back, by the latest
    /// report that said.
    per_call: Option<Duration>,
    /// The hold is a 429's wait, not to be shortened.
    held_by_429: bool,
    /// An early call has met a 429 after the quota seemed to refill as it goes: the next
    /// one settles that it does not.
    relearnt: bool,
    /// When the latest hold ended and the budget was refilled.
    refilled_at: Option<Instant>,
    /// The longest reset any report named: roughly the quota's period.
    longest_reset: Duration,
    /// When the binding quota is whole again, by the latest report of the current period:
    /// what a 429 from a quota that comes back whole at its reset waits for.
    reported_reset: Option<Instant>,
    /// The fewest calls a report of the current period left: once nothing is in flight,
    /// what is truly left of a quota that comes back only at its reset (the budget, less
    /// every call in flight at each report, may have counted some twice).
    least_left: Option<u64>,
    requests: Option<QuotaReport>,
    tokens: Option<QuotaReport>,
    rate_limited: u64,
}

impl Window {
    /// A window capped at `cap`, adaptive or fixed at the cap.
    pub(crate) fn new(cap: u32, adaptive: bool) -> Self {
        let cap = cap.max(1);
        Self {
            adaptive,
            cap,
            size: if adaptive {
                INITIAL_WINDOW.min(cap)
            } else {
                cap
            },
            peak: 0,
            successes: 0,
            slow_start: true,
            tokens_per_call: None,
            generation: 0,
            in_flight: 0,
            budget: None,
            hold_until: None,
            paced_refill: None,
            refill: Refill::Unknown,
            early_next: false,
            per_call: None,
            held_by_429: false,
            relearnt: false,
            probing: false,
            refilled_at: None,
            longest_reset: Duration::ZERO,
            reported_reset: None,
            least_left: None,
            requests: None,
            tokens: None,
            rate_limited: 0,
        }
    }

    /// Starts a call if the window and the quota allow, returning its ticket (to be given
    /// back to [`Window::settle`]).
    pub(crate) fn try_start(&mut self, now: Instant) -> Result<Ticket, Wait> {
        self.recount_when_idle();
        if let Some(until) = self.hold_until {
            if until > now && self.budget == Some(0) {
                return Err(Wait::Until(self.pace_spent_budget(now, until)));
            }
            if until <= now {
                self.hold_until = None;
                self.held_by_429 = false;
                self.budget = match self.paced_refill.take() {
                    // A paced hold frees the calls it waited for.
                    Some(calls) => {
                        self.early_next = true;
                        Some(calls)
                    }
                    // The quota is whole again: its size, less the calls in flight (which
                    // may reach the server after the reset), may start until a response
                    // says more.
                    None => {
                        self.refilled_at = Some(now);
                        self.least_left = None;
                        self.whole_quota_in_calls()
                            .map(|calls| calls.saturating_sub(u64::from(self.in_flight)))
                    }
                };
            }
        }
        // A budget spent with no reset known waits for an answer to say more, unless none
        // is coming.
        let spent = self.budget == Some(0) && self.in_flight > 0;
        if self.in_flight >= self.size || spent {
            return Err(Wait::Slot);
        }
        self.in_flight += 1;
        if let Some(budget) = &mut self.budget {
            *budget = budget.saturating_sub(1);
        }
        let early = std::mem::take(&mut self.early_next);
        self.probing |= early && self.refill == Refill::Unknown;
        Ok(Ticket {
            generation: self.generation,
            early,
        })
    }

    /// Records a response's rate-limit headers (the call is still in flight).
    pub(crate) fn observe(&mut self, report: &RateReport, now: Instant) {
        if report.is_empty() {
            return;
        }
        self.requests = report.requests.or(self.requests);
        self.tokens = report.tokens.or(self.tokens);
        if !self.adaptive {
            return;
        }
        // Requests sent after this one may not be counted yet, so the others in flight are
        // taken off what is left.
        let others = u64::from(self.in_flight.saturating_sub(1));
        let requests = report.requests.and_then(|q| self.reading(q, Some(1.0)));
        let tokens = report
            .tokens
            .and_then(|q| self.reading(q, self.tokens_per_call));
        // The quota with fewer calls left binds, until its own reset.
        let binding = match (requests, tokens) {
            (Some(r), Some(t)) if t.left < r.left => Some(t),
            (Some(r), Some(t)) if t.left == r.left => Some(Reading {
                reset: r.reset.max(t.reset),
                per_call: r.per_call.zip(t.per_call).map(|(a, b)| a.max(b)),
                ..r
            }),
            (r, t) => r.or(t),
        };
        let Some(binding) = binding else {
            return;
        };
        let budget = binding.left.saturating_sub(others);
        let reset = binding.reset.min(MAX_HOLD);
        self.per_call = binding.per_call.or(self.per_call);
        self.longest_reset = self.longest_reset.max(reset);
        if budget == 0
            && let Some(pace) = self.pace(&binding, others)
        {
            self.hold_until = Some(now + pace.min(MAX_HOLD));
            self.reported_reset = Some(now + reset);
            self.least_left = Some(
                self.least_left
                    .map_or(binding.left, |l| l.min(binding.left)),
            );
            self.paced_refill = Some(1);
            self.held_by_429 = false;
            self.budget = Some(0);
            return;
        }
        let until = now + reset;
        // A response decided just before the quota's reset but read after it speaks of the
        // spent period; its reset lands about where the refill already happened.
        let stale = self
            .refilled_at
            .is_some_and(|refilled| until < refilled + self.longest_reset / 2);
        if stale {
            return;
        }
        // Answers overtake each other: within one period (the same reset, give or take a
        // tenth of the period), the smallest count is the latest, also while an early call
        // finds out how the quota comes back. A quota that refills as it goes has no periods:
        // its latest count stands.
        let same_period = (self.paced_refill.is_none() || self.refill == Refill::Unknown)
            && self.refill != Refill::Continuous
            && self.reported_reset.is_some_and(|known| {
                let gap = if known > until {
                    known - until
                } else {
                    until - known
                };
                gap <= self.longest_reset / 10
            });
        self.reported_reset = Some(until);
        self.least_left = match self.least_left {
            Some(least) if same_period => Some(least.min(binding.left)),
            _ => Some(binding.left),
        };
        self.budget = match self.budget {
            Some(known) if same_period => Some(known.min(budget)),
            _ => Some(budget),
        };
        self.hold_until = Some(until);
        self.paced_refill = None;
        self.held_by_429 = false;
    }

    /// With nothing in flight, a budget spent by the count gets back what the reports of
    /// the period say is truly left of a quota not known to refill as it goes.
    fn recount_when_idle(&mut self) {
        let recount = self.in_flight == 0
            && self.budget == Some(0)
            && self.refill != Refill::Continuous
            && self.paced_refill.is_none()
            && !self.held_by_429;
        if let Some(left) = self.least_left.filter(|left| recount && *left > 0) {
            self.budget = Some(left);
        }
    }

    /// A budget spent by the calls started since the latest report: with a quota that
    /// refills as it goes (or while that is being found out), the next call waits for one
    /// call's worth to come back, not for the whole reset.
    fn pace_spent_budget(&mut self, now: Instant, until: Instant) -> Instant {
        let paceable = self.paced_refill.is_none()
            && !self.held_by_429
            && !self.probing
            && self.refill != Refill::AtReset;
        match self.per_call.filter(|_| paceable) {
            Some(per_call) => {
                let paced = until.min(now + per_call);
                self.hold_until = Some(paced);
                self.paced_refill = Some(1);
                paced
            }
            None => until,
        }
    }

    /// One quota of a report in calls, each call costing `per_call` of it (unknown for
    /// tokens until an answer has reported its usage: then only a spent quota counts).
    fn reading(&self, q: QuotaReport, per_call: Option<f64>) -> Option<Reading> {
        let (remaining, reset) = (q.remaining?, q.reset?);
        let left = match per_call {
            Some(cost) => (remaining as f64 / cost).floor() as u64,
            None if remaining == 0 => 0,
            None => return None,
        };
        // A bucket refilling little by little takes `reset` to bring back what is missing.
        let per_call = per_call.zip(q.limit).and_then(|(cost, limit)| {
            let missing = limit.checked_sub(remaining).filter(|m| *m > 0)?;
            Some(reset.mul_f64((cost / missing as f64).min(1.0)))
        });
        Some(Reading {
            left,
            reset,
            per_call,
        })
    }

    /// How long to hold calls when the binding quota is spent, if it refills little by
    /// little: until what the calls in flight and one more need has come back. While that
    /// is not known, one call at a time is sent that early.
    fn pace(&self, binding: &Reading, others: u64) -> Option<Duration> {
        let per_call = binding.per_call?;
        let wanted = (others + 1).saturating_sub(binding.left);
        let wait = per_call.saturating_mul(u32::try_from(wanted).unwrap_or(u32::MAX));
        match self.refill {
            Refill::Continuous => Some(wait),
            // The early call that tells the two apart goes once a report has said the quota
            // is spent (not only the count, which may count a call twice), or nothing else
            // is in flight: an answer then means it refilled.
            Refill::Unknown if !self.probing => Some(wait),
            Refill::Unknown | Refill::AtReset => None,
        }
    }

    /// Ends a call with its ticket, growing or cutting the window by its outcome.
    pub(crate) fn settle(&mut self, ticket: Ticket, outcome: Outcome, now: Instant) {
        let generation = ticket.generation;
        self.in_flight = self.in_flight.saturating_sub(1);
        if let Outcome::RateLimited(_) = outcome {
            self.rate_limited += 1;
        }
        if !self.adaptive {
            return;
        }
        if ticket.early {
            // An early answer shows the quota refills as it goes; an early 429 shows it
            // does not (when that was being tested) or that the pace is to be learnt again,
            // but only once: an early answer may have found a fixed window not yet spent.
            self.refill = match (outcome, self.refill) {
                (Outcome::Success(_), Refill::Unknown) => {
                    // Calls held for the whole reset while this one was out go at the pace.
                    if let (Some(per_call), Some(until)) = (self.per_call, self.hold_until)
                        && self.paced_refill.is_none()
                        && self.budget == Some(0)
                    {
                        self.hold_until = Some(until.min(now + per_call));
                        self.paced_refill = Some(1);
                    }
                    Refill::Continuous
                }
                (Outcome::Success(_), refill) => refill,
                (Outcome::RateLimited(_), Refill::Unknown) if self.probing => {
                    self.size = self.size.max(self.peak);
                    Refill::AtReset
                }
                (Outcome::RateLimited(_), Refill::Continuous) if !self.relearnt => {
                    self.relearnt = true;
                    Refill::Unknown
                }
                (Outcome::RateLimited(_), Refill::Continuous) => Refill::AtReset,
                (_, refill) => refill,
            };
            self.probing = false;
        }
        match outcome {
            Outcome::RateLimited(wait) => {
                if let Some(reset) = self.quota_reset(wait, now) {
                    // A fixed window's count is spent: wait for its reset, which the
                    // headers name to the millisecond (a Retry-After rounds up to whole
                    // seconds), and keep the window, whose size is not what ran out.
                    self.hold_until = Some(reset);
                    self.budget = Some(0);
                    self.held_by_429 = false;
                    self.paced_refill = None;
                    return;
                }
                if let Some(wait) = wait {
                    let until = now + wait.min(MAX_HOLD);
                    self.hold_until = Some(self.hold_until.map_or(until, |h| h.max(until)));
                    self.budget = Some(0);
                    self.held_by_429 = true;
                    // After the wait, a quota that refills as it goes takes a call at a time.
                    self.paced_refill = (self.refill == Refill::Continuous).then_some(1);
                }
                self.cut(generation);
            }
            Outcome::Success(tokens) => {
                if let Some(tokens) = tokens.filter(|t| *t > 0) {
                    let tokens = tokens as f64;
                    self.tokens_per_call = Some(
                        self.tokens_per_call
                            .map_or(tokens, |avg| avg + (tokens - avg) * USAGE_WEIGHT),
                    );
                }
                if self.nearly_spent(false) {
                    self.cut(generation);
                } else if self.has_headroom() {
                    self.successes += 1;
                    if self.slow_start || self.successes >= self.size {
                        self.successes = 0;
                        self.size = (self.size + 1).min(self.cap);
                        self.peak = self.peak.max(self.size);
                    }
                }
            }
            Outcome::Other => {}
        }
    }

    /// The reset a 429 waits for when it is a quota signal: the quota comes back whole at
    /// its reset and the latest report named that reset, still ahead. A server's wait
    /// (`wait`) more than a second past it (beyond a Retry-After's rounding) is kept.
    fn quota_reset(&self, wait: Option<Duration>, now: Instant) -> Option<Instant> {
        if self.refill != Refill::AtReset {
            return None;
        }
        let reset = self.reported_reset.filter(|reset| *reset > now)?;
        let asked = wait.map(|wait| now + wait.min(MAX_HOLD));
        Some(match asked {
            Some(asked) if asked > reset + ROUNDING => asked,
            _ => reset,
        })
    }

    /// A token quota's remainder in calls, at the recent answers' average usage; with no
    /// usage known yet, only a spent quota (no calls) is counted.
    fn tokens_in_calls(&self, tokens: u64) -> Option<u64> {
        match self.tokens_per_call {
            Some(per_call) => Some((tokens as f64 / per_call).floor() as u64),
            None => (tokens == 0).then_some(0),
        }
    }

    /// The calls a whole quota allows: the request limit, or the token limit in calls when
    /// that is fewer.
    fn whole_quota_in_calls(&self) -> Option<u64> {
        let requests = self.requests.and_then(|q| q.limit);
        let tokens = self
            .tokens
            .and_then(|q| q.limit)
            .filter(|_| self.tokens_per_call.is_some())
            .and_then(|limit| self.tokens_in_calls(limit));
        match (requests, tokens) {
            (Some(r), Some(t)) => Some(r.min(t)),
            (r, t) => r.or(t),
        }
    }

    /// Halves the window, once per generation: the calls already in flight when it was cut
    /// were sent at the old pace and say nothing new.
    fn cut(&mut self, generation: u64) {
        if generation != self.generation {
            return;
        }
        self.generation += 1;
        self.successes = 0;
        self.slow_start = false;
        self.size = (self.size / 2).max(1);
    }

    /// Whether the latest report shows a quota with at most a tenth left; unless
    /// `with_reset`, only among quotas without a reset time. A quota that names its reset
    /// is guarded by holding calls once it is spent, so running low only stops growth: a
    /// cut there would shrink the window at every reset of a steadily used quota.
    fn nearly_spent(&self, with_reset: bool) -> bool {
        [self.requests, self.tokens].iter().flatten().any(|q| {
            if q.reset.is_some() && !with_reset {
                return false;
            }
            match (q.remaining, q.limit.filter(|l| *l > 0)) {
                (Some(left), Some(limit)) => (left as f64) <= limit as f64 * LOW_SHARE,
                (Some(left), None) => left == 0,
                _ => false,
            }
        })
    }

    /// Whether the latest report leaves room for a larger window: unknown quotas do.
    fn has_headroom(&self) -> bool {
        !self.nearly_spent(true)
            && self
                .requests
                .and_then(|q| q.remaining)
                .is_none_or(|left| left > 2 * u64::from(self.size))
    }

    /// What is known now.
    pub(crate) fn snapshot(&self, now: Instant) -> RateSnapshot {
        RateSnapshot {
            adaptive: self.adaptive,
            window: self.size,
            max_concurrency: self.cap,
            in_flight: self.in_flight,
            remaining_requests: self.requests.and_then(|q| q.remaining),
            limit_requests: self.requests.and_then(|q| q.limit),
            remaining_tokens: self.tokens.and_then(|q| q.remaining),
            limit_tokens: self.tokens.and_then(|q| q.limit),
            held_for: self
                .hold_until
                .filter(|until| *until > now && self.budget == Some(0))
                .map(|until| until - now),
            rate_limited: self.rate_limited,
        }
    }
}

/// One model's window, shared by its calls (which wait on it) and its HTTP target (which
/// reports the headers of every response to it).
#[derive(Debug)]
pub(crate) struct ModelLimiter {
    window: Mutex<Window>,
    changed: Notify,
}

/// A started call's place in the window; give it back with [`ModelLimiter::settle`].
/// Dropped without settling (a cancelled call), it frees its slot as an `Other` outcome.
#[derive(Debug)]
pub(crate) struct Slot {
    limiter: Arc<ModelLimiter>,
    ticket: Ticket,
    settled: bool,
}

impl ModelLimiter {
    /// A limiter capped at `max_concurrency`, adaptive or fixed.
    pub(crate) fn new(max_concurrency: u32, adaptive: bool) -> Self {
        Self {
            window: Mutex::new(Window::new(max_concurrency, adaptive)),
            changed: Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Window> {
        // A panic while holding this lock leaves plain numbers behind, still usable.
        self.window.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for room in the window and in the quota.
    pub(crate) async fn start(self: &Arc<Self>) -> Slot {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let wait = self.lock().try_start(Instant::now());
            match wait {
                Ok(ticket) => {
                    return Slot {
                        limiter: Arc::clone(self),
                        ticket,
                        settled: false,
                    };
                }
                Err(Wait::Slot) => changed.await,
                Err(Wait::Until(until)) => {
                    tokio::select! {
                        () = tokio::time::sleep_until(until) => {}
                        () = changed => {}
                    }
                }
            }
        }
    }

    /// Records a response's rate-limit headers.
    pub(crate) fn observe(&self, report: &RateReport) {
        if !report.is_empty() {
            self.lock().observe(report, Instant::now());
        }
    }

    /// Ends a call with its outcome.
    pub(crate) fn settle(&self, mut slot: Slot, outcome: Outcome) {
        slot.settled = true;
        self.finish(slot.ticket, outcome);
    }

    fn finish(&self, ticket: Ticket, outcome: Outcome) {
        self.lock().settle(ticket, outcome, Instant::now());
        self.changed.notify_waiters();
    }

    /// What is known now.
    pub(crate) fn snapshot(&self) -> RateSnapshot {
        self.lock().snapshot(Instant::now())
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if !self.settled {
            self.limiter.finish(self.ticket, Outcome::Other);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    fn report(limit: u64, remaining: u64, reset_ms: u64) -> RateReport {
        RateReport {
            requests: Some(QuotaReport {
                limit: Some(limit),
                remaining: Some(remaining),
                reset: Some(Duration::from_millis(reset_ms)),
            }),
            tokens: None,
        }
    }

    fn succeed(w: &mut Window, now: Instant) {
        let g = w.try_start(now).unwrap();
        w.settle(g, Outcome::Success(None), now);
    }

    #[test]
    fn starts_low_doubles_per_round_trip_until_a_cut_then_grows_by_one_per_window() {
        let now = Instant::now();
        let mut w = Window::new(32, true);
        assert_eq!(w.size, 2);
        for expected in [3, 4, 5, 6] {
            succeed(&mut w, now);
            assert_eq!(w.size, expected, "a slot per success before the first cut");
        }
        let g = w.try_start(now).unwrap();
        w.settle(g, Outcome::RateLimited(None), now);
        assert_eq!(w.size, 3);
        succeed(&mut w, now);
        succeed(&mut w, now);
        assert_eq!(w.size, 3, "after a cut, a slot per window of successes");
        succeed(&mut w, now);
        assert_eq!(w.size, 4);
        for _ in 0..1000 {
            succeed(&mut w, now);
        }
        assert_eq!(w.size, 32, "never above max_concurrency");
        assert_eq!(Window::new(1, true).size, 1, "a lower cap is the start");
    }

    #[test]
    fn the_window_bounds_calls_in_flight() {
        let now = Instant::now();
        let mut w = Window::new(8, true);
        let a = w.try_start(now).unwrap();
        w.try_start(now).unwrap();
        assert_eq!(w.try_start(now), Err(Wait::Slot));
        w.settle(a, Outcome::Other, now);
        assert!(w.try_start(now).is_ok());
    }

    #[test]
    fn a_429_halves_the_window_once_per_generation_never_below_one() {
        let now = Instant::now();
        let mut w = Window::new(16, true);
        w.size = 8;
        let starts: Vec<Ticket> = (0..8).map(|_| w.try_start(now).unwrap()).collect();
        for g in &starts {
            w.settle(*g, Outcome::RateLimited(None), now);
        }
        assert_eq!(w.size, 4, "one cut for a burst sent at the old pace");
        assert_eq!(w.rate_limited, 8);
        for _ in 0..5 {
            let g = w.try_start(now).unwrap();
            w.settle(g, Outcome::RateLimited(None), now);
        }
        assert_eq!(w.size, 1);
    }

    #[test]
    fn a_nearly_spent_quota_cuts_and_no_headroom_stops_growth() {
        let now = Instant::now();
        let mut w = Window::new(16, true);
        w.size = 8;
        let g = w.try_start(now).unwrap();
        let mut low = report(100, 9, 1000);
        w.observe(&low, now);
        w.settle(g, Outcome::Success(None), now);
        assert_eq!(w.size, 8, "a quota with a reset only stops growth");
        let g = w.try_start(now).unwrap();
        w.settle(g, Outcome::Success(None), now);
        assert_eq!((w.size, w.successes), (8, 0), "no growth");
        low.requests.as_mut().unwrap().reset = None;
        let g = w.try_start(now).unwrap();
        w.observe(&low, now);
        w.settle(g, Outcome::Success(None), now);
        assert_eq!(w.size, 4, "a quota without a reset is cut");
        // 6 left with a window of 4: no cut (above a tenth), no growth (below twice the window).
        let mut w = Window::new(100, true);
        w.size = 4;
        let mut six = report(50, 6, 1000);
        six.requests.as_mut().unwrap().reset = None;
        for _ in 0..10 {
            let g = w.try_start(now).unwrap();
            w.observe(&six, now);
            w.settle(g, Outcome::Success(None), now);
        }
        assert_eq!(w.size, 4);
    }

    #[test]
    fn a_spent_quota_holds_calls_until_its_reset() {
        let now = Instant::now();
        let mut w = Window::new(16, true);
        w.size = 8;
        w.refill = Refill::AtReset;
        let g = w.try_start(now).unwrap();
        // Two left, and the other call in flight will take one of them.
        let _other = w.try_start(now).unwrap();
        w.observe(&report(10, 2, 500), now);
        w.settle(g, Outcome::Success(None), now);
        assert!(w.try_start(now).is_ok());
        let until = now + Duration::from_millis(500);
        assert_eq!(w.try_start(now), Err(Wait::Until(until)));
        assert_eq!(
            w.snapshot(now).held_for,
            Some(Duration::from_millis(500)),
            "the snapshot shows the hold"
        );
        assert!(w.try_start(until).is_ok(), "whole again at the reset");
        assert_eq!(
            w.budget,
            Some(7),
            "the limit, less the two calls in flight and the one just started"
        );
        // A late answer from the spent period does not empty the refilled budget.
        w.observe(&report(10, 0, 20), until);
        assert!(w.try_start(until).is_ok());
        // The next period's answers do.
        let later = until + Duration::from_millis(100);
        w.observe(&report(10, 0, 400), later);
        w.settle(
            Ticket {
                generation: 0,
                early: false,
            },
            Outcome::Other,
            later,
        );
        w.settle(
            Ticket {
                generation: 0,
                early: false,
            },
            Outcome::Other,
            later,
        );
        assert_eq!(
            w.try_start(later),
            Err(Wait::Until(later + Duration::from_millis(400)))
        );
    }

    #[test]
    fn an_overtaken_answer_does_not_raise_the_budget() {
        let now = Instant::now();
        let mut w = Window::new(16, true);
        w.size = 8;
        let _a = w.try_start(now).unwrap();
        w.observe(&report(10, 1, 300), now);
        assert_eq!(w.budget, Some(1));
        let soon = now + Duration::from_millis(5);
        w.observe(&report(10, 4, 295), soon);
        assert_eq!(w.budget, Some(1), "the older, larger count is ignored");
        let next = now + Duration::from_millis(300);
        w.observe(&report(10, 6, 300), next);
        assert_eq!(w.budget, Some(6), "a new period's count replaces it");
    }

    #[test]
    fn a_spent_budget_without_a_reset_waits_for_an_answer() {
        let now = Instant::now();
        let mut w = Window::new(16, true);
        w.size = 8;
        let a = w.try_start(now).unwrap();
        w.budget = Some(0);
        assert_eq!(w.try_start(now), Err(Wait::Slot));
        w.settle(a, Outcome::Success(None), now);
        assert!(w.try_start(now).is_ok(), "with nothing in flight, one goes");
    }

    #[test]
    fn spent_tokens_hold_and_a_429_wait_holds_everyone() {
        let now = Instant::now();
        let mut w = Window::new(16, true);
        let g = w.try_start(now).unwrap();
        let tokens = RateReport {
            requests: None,
            tokens: Some(QuotaReport {
                limit: Some(1000),
                remaining: Some(0),
                reset: Some(Duration::from_secs(2)),
            }),
        };
        w.observe(&tokens, now);
        w.settle(g, Outcome::Success(None), now);
        assert_eq!(
            w.try_start(now),
            Err(Wait::Until(now + Duration::from_secs(2)))
        );
        let mut w = Window::new(16, true);
        let g = w.try_start(now).unwrap();
        w.settle(g, Outcome::RateLimited(Some(Duration::from_secs(3))), now);
        assert_eq!(
            w.try_start(now),
            Err(Wait::Until(now + Duration::from_secs(3)))
        );
        let mut w = Window::new(16, true);
        w.refill = Refill::AtReset;
        let g = w.try_start(now).unwrap();
        w.observe(&report(10, 0, 360_000), now);
        w.settle(g, Outcome::Success(None), now);
        assert_eq!(
            w.try_start(now),
            Err(Wait::Until(now + MAX_HOLD)),
            "a six-minute reset holds for a minute at most"
        );
    }

    #[test]
    fn an_unknown_refill_is_probed_by_one_early_call() {
        let ms = Duration::from_millis;
        let now = Instant::now();
        let spent = |refill_after_probe: Outcome| {
            let mut w = Window::new(16, true);
            w.size = 8;
            let a = w.try_start(now).unwrap();
            // None of 10 left, whole in a second: a call's worth in 100 ms if it refills as
            // it goes.
            w.observe(&report(10, 0, 1000), now);
            w.settle(a, Outcome::Success(None), now);
            assert_eq!(w.try_start(now), Err(Wait::Until(now + ms(100))));
            let probe = w.try_start(now + ms(100)).unwrap();
            assert!(probe.early && w.probing);
            assert_eq!(
                w.try_start(now + ms(100)),
                Err(Wait::Slot),
                "one probe at a time"
            );
            w.settle(probe, refill_after_probe, now + ms(150));
            w
        };
        let mut w = spent(Outcome::RateLimited(None));
        assert_eq!(
            w.refill,
            Refill::AtReset,
            "an early 429: whole at the reset only"
        );
        assert_eq!(w.try_start(now + ms(150)), Err(Wait::Until(now + ms(1000))));

        let mut w = spent(Outcome::Success(None));
        assert_eq!(
            w.refill,
            Refill::Continuous,
            "an early answer: it refills as it goes"
        );
        assert!(!w.probing);
        let g = w.try_start(now + ms(150)).unwrap();
        w.observe(&report(10, 0, 950), now + ms(150));
        w.settle(g, Outcome::Success(None), now + ms(150));
        assert_eq!(
            w.try_start(now + ms(150)),
            Err(Wait::Until(now + ms(245))),
            "paced at a call's worth (950 ms for 10), not held for the reset"
        );
    }

    #[test]
    fn a_quota_429_from_a_fixed_window_holds_until_its_reset_and_keeps_the_window() {
        let ms = Duration::from_millis;
        let now = Instant::now();
        let mut w = Window::new(16, true);
        w.size = 8;
        w.refill = Refill::AtReset;
        let g = w.try_start(now).unwrap();
        w.observe(&report(10, 0, 2300), now);
        w.settle(g, Outcome::RateLimited(Some(ms(3000))), now);
        assert_eq!(w.size, 8, "the count ran out, not the window");
        assert_eq!(
            w.try_start(now),
            Err(Wait::Until(now + ms(2300))),
            "the headers' reset, not the Retry-After rounded up to whole seconds"
        );
        let g = w.try_start(now + ms(2300)).unwrap();
        w.observe(&report(10, 0, 5700), now + ms(2300));
        w.settle(g, Outcome::RateLimited(Some(ms(10_000))), now + ms(2300));
        assert_eq!(
            w.try_start(now + ms(2300)),
            Err(Wait::Until(now + ms(12_300))),
            "a wait well past the reset is the server's word"
        );
        assert_eq!(w.size, 8);
    }

    #[test]
    fn learning_that_a_quota_comes_back_at_its_reset_restores_the_window() {
        let ms = Duration::from_millis;
        let now = Instant::now();
        let mut w = Window::new(16, true);
        for _ in 0..4 {
            succeed(&mut w, now);
        }
        let g = w.try_start(now).unwrap();
        w.settle(g, Outcome::RateLimited(None), now);
        assert_eq!((w.size, w.peak), (3, 6));
        let a = w.try_start(now).unwrap();
        w.observe(&report(10, 0, 1000), now);
        w.settle(a, Outcome::Success(None), now);
        let probe = w.try_start(now + ms(100)).unwrap();
        w.observe(&report(10, 0, 900), now + ms(100));
        w.settle(probe, Outcome::RateLimited(Some(ms(1000))), now + ms(100));
        assert_eq!(w.refill, Refill::AtReset);
        assert_eq!(w.size, 6, "the largest window so far");
        assert_eq!(w.try_start(now + ms(100)), Err(Wait::Until(now + ms(1000))));
    }

    #[test]
    fn an_idle_fixed_window_gets_back_what_the_reports_left() {
        let now = Instant::now();
        let until = now + Duration::from_millis(1000);
        let mut w = Window::new(16, true);
        w.size = 8;
        w.refill = Refill::AtReset;
        let calls: Vec<Ticket> = (0..4).map(|_| w.try_start(now).unwrap()).collect();
        // Three left, but the three others in flight may each take one.
        w.observe(&report(10, 3, 1000), now);
        assert_eq!(w.try_start(now), Err(Wait::Until(until)));
        for g in calls {
            w.settle(g, Outcome::Success(None), now);
        }
        // None of them reported: they were counted before the report.
        for _ in 0..3 {
            assert!(w.try_start(now).is_ok());
        }
        assert_eq!(w.try_start(now), Err(Wait::Until(until)));
    }

    #[test]
    fn a_quota_refilling_as_it_goes_is_paced_and_its_latest_count_stands() {
        let ms = Duration::from_millis;
        let now = Instant::now();
        let mut w = Window::new(16, true);
        w.size = 8;
        w.refill = Refill::Continuous;
        let a = w.try_start(now).unwrap();
        w.observe(&report(100, 3, 5820), now);
        assert_eq!(w.budget, Some(3));
        w.observe(&report(100, 5, 5700), now + ms(10));
        assert_eq!(
            w.budget,
            Some(5),
            "no periods: a higher count is news, not stale"
        );
        for _ in 0..5 {
            w.try_start(now + ms(10)).unwrap();
        }
        // Spent by the calls started, not by a report: one call's worth (5.7 s for the 95
        // missing: 60 ms) is waited for, not the reset.
        assert_eq!(w.try_start(now + ms(10)), Err(Wait::Until(now + ms(70))));
        assert!(w.try_start(now + ms(70)).is_ok());
        w.settle(a, Outcome::Success(None), now + ms(70));
        // A 429 in between: its wait holds, unshortened, and an early 429 means the pace is
        // to be learnt again.
        let early = Ticket {
            generation: w.generation,
            early: true,
        };
        w.in_flight += 1;
        w.settle(early, Outcome::RateLimited(Some(ms(1000))), now + ms(80));
        assert_eq!(w.refill, Refill::Unknown);
        assert_eq!(w.try_start(now + ms(80)), Err(Wait::Until(now + ms(1080))));
        // A second early 429 after it seemed to refill again: whole at the reset only.
        w.refill = Refill::Continuous;
        w.in_flight += 1;
        w.settle(early, Outcome::RateLimited(None), now + ms(1080));
        assert_eq!(w.refill, Refill::AtReset);
    }

    #[test]
    fn a_token_quota_is_counted_in_calls_at_the_average_usage() {
        let now = Instant::now();
        let mut w = Window::new(16, true);
        w.size = 8;
        for used in [400, 400, 900] {
            let g = w.try_start(now).unwrap();
            w.settle(g, Outcome::Success(Some(used)), now);
        }
        assert_eq!(w.tokens_per_call, Some(500.0), "the latest weighs a fifth");
        let tokens = |remaining| RateReport {
            requests: Some(QuotaReport {
                limit: Some(1000),
                remaining: Some(900),
                reset: Some(Duration::from_secs(1)),
            }),
            tokens: Some(QuotaReport {
                limit: Some(100_000),
                remaining: Some(remaining),
                reset: Some(Duration::from_secs(6)),
            }),
        };
        let _a = w.try_start(now).unwrap();
        let _b = w.try_start(now).unwrap();
        w.observe(&tokens(2_400), now);
        assert_eq!(
            w.budget,
            Some(3),
            "4 calls' worth of tokens, less the other in flight"
        );
        assert_eq!(
            w.whole_quota_in_calls(),
            Some(200),
            "100,000 tokens at 500 a call"
        );
    }

    #[test]
    fn a_fixed_window_only_records() {
        let now = Instant::now();
        let mut w = Window::new(3, false);
        assert_eq!(w.size, 3);
        let g = w.try_start(now).unwrap();
        w.observe(&report(10, 0, 60_000), now);
        w.settle(g, Outcome::RateLimited(Some(Duration::from_secs(5))), now);
        assert_eq!(w.size, 3);
        assert!(w.try_start(now).is_ok(), "nothing is held back");
        let s = w.snapshot(now);
        assert_eq!(
            (s.remaining_requests, s.limit_requests),
            (Some(0), Some(10))
        );
        assert_eq!(s.rate_limited, 1);
    }

    #[tokio::test(start_paused = true)]
    async fn calls_wait_for_the_reset_on_the_clock() {
        let limiter = Arc::new(ModelLimiter::new(4, true));
        limiter.lock().refill = Refill::AtReset;
        let first = limiter.start().await;
        limiter.observe(&report(5, 0, 1500));
        limiter.settle(first, Outcome::Success(None));
        let started = Instant::now();
        let slot = limiter.start().await;
        assert_eq!(started.elapsed(), Duration::from_millis(1500));
        assert_eq!(limiter.snapshot().in_flight, 1);
        drop(slot);
        assert_eq!(limiter.snapshot().in_flight, 0, "a dropped slot is freed");
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiting_call_starts_when_a_slot_frees() {
        let limiter = Arc::new(ModelLimiter::new(1, true));
        let first = limiter.start().await;
        let mut waiting = Box::pin(limiter.start());
        assert!(waiting.as_mut().now_or_never().is_none());
        limiter.settle(first, Outcome::Success(None));
        assert!(waiting.now_or_never().is_some());
    }
}
