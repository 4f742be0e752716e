//! What stored rounds used, summed from their phases: the totals the terminal UI's header
//! and the headless runner's progress line show, with how many answers were cut at the token
//! limit and how many calls' usage is an estimate. Summed from the store rather than counted
//! from this run's calls, they cover every session of a resumed tournament.

use std::iter::Sum;
use std::ops::{AddAssign, SubAssign};

use crate::domain::Round;

/// Tokens, cost, calls and retries of stored phases.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct UsageTotals {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Answer tokens.
    pub output_tokens: u64,
    /// Of the prompt tokens, those read from a provider's prompt cache.
    pub cached_input_tokens: u64,
    /// Of the prompt tokens, those written to a provider's prompt cache.
    pub cache_write_tokens: u64,
    /// Estimated dollars (models with prices only).
    pub cost_usd: f64,
    /// What prompt caching saved, in dollars (models with prices only).
    pub cache_saved_usd: f64,
    /// Calls that answered.
    pub calls: u64,
    /// Failed attempts that were tried again (from each phase's attempts).
    pub retries: u64,
    /// Calls that failed after their retries: a panel judge's stored failed phase, or the
    /// error that stopped a round.
    pub failures: u64,
    /// Answered calls whose answer ended at the output-token limit (see
    /// [`Phase::truncated`](crate::domain::Phase::truncated)).
    pub truncated: u64,
    /// Answered calls whose server reported no usage, so their tokens (and the cost from
    /// them) are estimates.
    pub estimated: u64,
    /// Answers reused from the response cache: no call, not in `calls`, their tokens not in
    /// the tokens above nor their cost in `cost_usd`.
    pub reused: u64,
    /// The prompt and answer tokens the calls behind the reused answers used once (spent
    /// then, not now).
    pub reused_tokens: (u64, u64),
}

impl UsageTotals {
    /// What one round's stored phases used.
    pub fn of(round: &Round) -> Self {
        let mut t = Self::default();
        for p in &round.phases {
            t.input_tokens += p.input_tokens.unwrap_or(0);
            t.output_tokens += p.output_tokens.unwrap_or(0);
            t.cached_input_tokens += p.cached_input_tokens.unwrap_or(0);
            t.cache_write_tokens += p.cache_write_tokens.unwrap_or(0);
            t.cost_usd += p.cost_usd.unwrap_or(0.0);
            t.cache_saved_usd += p.cache_saved_usd.unwrap_or(0.0);
            t.calls += u64::from(p.error.is_none() && p.reused_from_cache.is_none());
            if let Some(r) = &p.reused_from_cache {
                t.reused += 1;
                t.reused_tokens.0 += r.input_tokens.unwrap_or(0);
                t.reused_tokens.1 += r.output_tokens.unwrap_or(0);
            }
            t.retries += p.attempts.len().saturating_sub(1) as u64;
            t.failures += u64::from(p.error.is_some());
            t.truncated += u64::from(p.error.is_none() && p.truncated);
            t.estimated += u64::from(p.error.is_none() && p.usage_estimated);
        }
        t.failures += u64::from(round.error.is_some());
        t
    }

    /// Whether any counted call's usage is estimated: the tokens and cost shown are then
    /// estimates in part and say so.
    pub fn is_estimated(&self) -> bool {
        self.estimated > 0
    }
}

impl AddAssign for UsageTotals {
    fn add_assign(&mut self, b: Self) {
        self.input_tokens += b.input_tokens;
        self.output_tokens += b.output_tokens;
        self.cached_input_tokens += b.cached_input_tokens;
        self.cache_write_tokens += b.cache_write_tokens;
        self.cost_usd += b.cost_usd;
        self.cache_saved_usd += b.cache_saved_usd;
        self.calls += b.calls;
        self.retries += b.retries;
        self.failures += b.failures;
        self.truncated += b.truncated;
        self.estimated += b.estimated;
        self.reused += b.reused;
        self.reused_tokens.0 += b.reused_tokens.0;
        self.reused_tokens.1 += b.reused_tokens.1;
    }
}

/// Takes out what was added before: how a running total replaces a round's old state
/// with its new one.
impl SubAssign for UsageTotals {
    fn sub_assign(&mut self, b: Self) {
        self.input_tokens = self.input_tokens.saturating_sub(b.input_tokens);
        self.output_tokens = self.output_tokens.saturating_sub(b.output_tokens);
        self.cached_input_tokens = self
            .cached_input_tokens
            .saturating_sub(b.cached_input_tokens);
        self.cache_write_tokens = self.cache_write_tokens.saturating_sub(b.cache_write_tokens);
        self.cost_usd -= b.cost_usd;
        self.cache_saved_usd -= b.cache_saved_usd;
        self.calls = self.calls.saturating_sub(b.calls);
        self.retries = self.retries.saturating_sub(b.retries);
        self.failures = self.failures.saturating_sub(b.failures);
        self.truncated = self.truncated.saturating_sub(b.truncated);
        self.estimated = self.estimated.saturating_sub(b.estimated);
        self.reused = self.reused.saturating_sub(b.reused);
        self.reused_tokens.0 = self.reused_tokens.0.saturating_sub(b.reused_tokens.0);
        self.reused_tokens.1 = self.reused_tokens.1.saturating_sub(b.reused_tokens.1);
    }
}

impl Sum for UsageTotals {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::default(), |mut a, b| {
            a += b;
            a
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Attempt, Phase, PhaseType, ScheduledRound};

    #[test]
    fn phases_are_summed_with_retries_cut_answers_cache_counts_and_estimated_usage() {
        let s = ScheduledRound::example("r", "d");
        let mut round = crate::protocols::example_round(&s);
        let attempt = |number, error: Option<&str>| Attempt {
            number,
            latency_ms: 10,
            error: error.map(str::to_string),
            error_kind: None,
            wait_ms: None,
            discarded_chars: 0,
        };
        round.phases.push(Phase {
            input_tokens: Some(100),
            output_tokens: Some(20),
            cached_input_tokens: Some(60),
            cache_write_tokens: Some(10),
            cost_usd: Some(0.5),
            cache_saved_usd: Some(0.25),
            attempts: vec![attempt(1, Some("HTTP 503")), attempt(2, None)],
            ..Phase::new(PhaseType::Presentation, "a", "text")
        });
        round.phases.push(Phase {
            truncated: true,
            usage_estimated: true,
            output_tokens: Some(1),
            ..Phase::new(PhaseType::Response, "b", "cut")
        });
        round.phases.push(Phase {
            error: Some("down".into()),
            truncated: true,
            usage_estimated: true,
            attempts: vec![attempt(1, Some("down")), attempt(2, Some("down"))],
            ..Phase::new(PhaseType::PanelEvaluation, "j", "")
        });
        let t: UsageTotals = [UsageTotals::of(&round), UsageTotals::of(&round)]
            .into_iter()
            .sum();
        assert_eq!(
            (t.input_tokens, t.output_tokens, t.calls, t.retries),
            (200, 42, 4, 4)
        );
        assert!((t.cost_usd - 1.0).abs() < 1e-12);
        assert_eq!((t.cached_input_tokens, t.cache_write_tokens), (120, 20));
        assert!((t.cache_saved_usd - 0.5).abs() < 1e-12);
        // Only answered calls count as cut or estimated; the failed one does not.
        assert_eq!((t.truncated, t.estimated, t.failures), (2, 2, 2));
        assert!(t.is_estimated() && !UsageTotals::default().is_estimated());
        assert_eq!((t.reused, t.reused_tokens), (0, (0, 0)));
    }

    #[test]
    fn a_reused_answer_counts_apart_from_calls_tokens_and_cost() {
        let s = ScheduledRound::example("r", "d");
        let mut round = crate::protocols::example_round(&s);
        round.phases.clear();
        round.phases.push(Phase {
            input_tokens: Some(100),
            output_tokens: Some(20),
            cost_usd: Some(0.5),
            ..Phase::new(PhaseType::Presentation, "a", "called")
        });
        round.phases.push(Phase {
            cost_usd: Some(0.0),
            reused_from_cache: Some(crate::domain::Reused {
                stored_at: "2026-11-28T00:00:00Z".into(),
                input_tokens: Some(300),
                output_tokens: Some(40),
            }),
            ..Phase::new(PhaseType::Response, "b", "reused")
        });
        let t = UsageTotals::of(&round);
        assert_eq!((t.input_tokens, t.output_tokens, t.calls), (100, 20, 1));
        assert!((t.cost_usd - 0.5).abs() < 1e-12);
        assert_eq!((t.reused, t.reused_tokens), (1, (300, 40)));
        let mut less = t;
        less -= UsageTotals::of(&round);
        assert_eq!(less, UsageTotals::default());
    }
}
