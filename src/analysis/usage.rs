//! What each model's calls took, by role: calls answered and failed, retries, tokens, the
//! estimated cost (marked partial when some answered calls have no price), and latency (median
//! and 90th percentile). The report's usage section, its CSV and the UI's leaderboard read it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::domain::{Phase, Round};

/// One model in one role (`debater` or `judge`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelUsage {
    /// The model.
    pub model: String,
    /// `debater` (any team or side) or `judge` (single, panel, corrections).
    pub role: &'static str,
    /// Calls answered.
    pub calls: usize,
    /// Calls that failed after their retries.
    pub failures: usize,
    /// Attempts that failed and were tried again.
    pub retries: usize,
    /// Prompt tokens of the answered calls.
    pub input_tokens: u64,
    /// Answer tokens of the answered calls.
    pub output_tokens: u64,
    /// Of the prompt tokens, those a provider's prompt cache served (billed at the cached
    /// price).
    pub cached_input_tokens: u64,
    /// Of the prompt tokens, those written to a provider's prompt cache (Anthropic; billed
    /// at the cache-write price).
    pub cache_write_tokens: u64,
    /// Calls whose usage is estimated (the server reported none).
    pub estimated_calls: usize,
    /// Estimated cost in dollars of the answered calls that have a price.
    pub cost_usd: f64,
    /// What prompt caching saved on those calls, in dollars: their cost with every prompt
    /// token at the full input price, less `cost_usd`.
    pub cache_saved_usd: f64,
    /// Answered calls without a price: the cost is partial when this is not 0.
    pub unpriced_calls: usize,
    /// Median latency of an answered call, in milliseconds.
    pub latency_median_ms: Option<u64>,
    /// 90th percentile latency, in milliseconds.
    pub latency_p90_ms: Option<u64>,
}

impl ModelUsage {
    /// The estimated cost as people read it, marked partial (or missing) when answered calls
    /// have no price.
    pub fn cost_text(&self) -> String {
        match (self.unpriced_calls, self.calls) {
            (_, 0) => "–".to_string(),
            (n, calls) if n == calls => "no price".to_string(),
            (0, _) => format!("${:.4}", self.cost_usd),
            (n, _) => format!("${:.4} (partial: {n} unpriced)", self.cost_usd),
        }
    }

    /// What caching saved as people read it: `–` when no answered call has a price.
    pub fn saved_text(&self) -> String {
        if self.unpriced_calls == self.calls {
            "–".to_string()
        } else {
            format!("${:.4}", self.cache_saved_usd)
        }
    }
}

/// Milliseconds as seconds with one decimal, or `–`.
pub fn seconds(ms: Option<u64>) -> String {
    ms.map_or("–".to_string(), |ms| {
        format!("{:.1} s", ms as f64 / 1000.0)
    })
}

#[derive(Default)]
struct Tally {
    calls: usize,
    failures: usize,
    retries: usize,
    input: u64,
    output: u64,
    cached: u64,
    written: u64,
    estimated: usize,
    cost: f64,
    saved: f64,
    unpriced: usize,
    latencies: Vec<u64>,
}

impl Tally {
    fn add(&mut self, p: &Phase) {
        // An answer the response cache gave was not a call of this run: no tokens, cost or
        // latency of its own (its near-zero wait would flatter the percentiles).
        if p.reused_from_cache.is_some() {
            return;
        }
        self.retries += p.attempts.iter().filter(|a| a.error.is_some()).count();
        if p.error.is_some() {
            self.failures += 1;
            self.retries = self.retries.saturating_sub(1);
            return;
        }
        self.calls += 1;
        self.input += p.input_tokens.unwrap_or(0);
        self.output += p.output_tokens.unwrap_or(0);
        self.cached += p.cached_input_tokens.unwrap_or(0);
        self.written += p.cache_write_tokens.unwrap_or(0);
        self.saved += p.cache_saved_usd.unwrap_or(0.0);
        self.estimated += usize::from(p.usage_estimated);
        match p.cost_usd {
            Some(c) => self.cost += c,
            None => self.unpriced += 1,
        }
        if let Some(ms) = p.latency_ms {
            self.latencies.push(ms);
        }
    }
}

/// The value below which `share` of the sorted values fall (nearest rank).
fn percentile(sorted: &[u64], share: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((share * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    Some(sorted[rank - 1])
}

/// Every model's usage by role, models in name order, debater before judge. A call that
/// stopped a round (stored as the round's error, not as a phase) counts as its model's
/// failure with its retries.
pub fn usage_by_model<'a>(rounds: impl IntoIterator<Item = &'a Round>) -> Vec<ModelUsage> {
    let mut tallies: BTreeMap<(String, &'static str), Tally> = BTreeMap::new();
    let role = |judging: bool| if judging { "judge" } else { "debater" };
    for round in rounds {
        for p in &round.phases {
            let key = (p.model_id.clone(), role(p.phase_type.is_judging()));
            tallies.entry(key).or_default().add(p);
        }
        for e in round.error.iter().chain(&round.earlier_errors) {
            let t = tallies
                .entry((e.model_id.clone(), role(e.phase_type.is_judging())))
                .or_default();
            t.failures += 1;
            t.retries += e.attempts.len().saturating_sub(1);
        }
    }
    tallies
        .into_iter()
        .map(|((model, role), mut t)| {
            t.latencies.sort_unstable();
            ModelUsage {
                model,
                role,
                calls: t.calls,
                failures: t.failures,
                retries: t.retries,
                input_tokens: t.input,
                output_tokens: t.output,
                cached_input_tokens: t.cached,
                cache_write_tokens: t.written,
                estimated_calls: t.estimated,
                cost_usd: t.cost,
                cache_saved_usd: t.saved,
                unpriced_calls: t.unpriced,
                latency_median_ms: percentile(&t.latencies, 0.5),
                latency_p90_ms: percentile(&t.latencies, 0.9),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Attempt, PhaseType, RoundError, RoundRecord, ScheduledRound};

    fn phase(t: PhaseType, model: &str, ms: u64, cost: Option<f64>) -> Phase {
        Phase {
            latency_ms: Some(ms),
            input_tokens: Some(100),
            output_tokens: Some(10),
            cost_usd: cost,
            ..Phase::new(t, model, "x")
        }
    }

    fn attempt(error: Option<&str>) -> Attempt {
        Attempt {
            number: 1,
            latency_ms: 5,
            error: error.map(str::to_string),
            error_kind: None,
            wait_ms: None,
            discarded_chars: 0,
        }
    }

    #[test]
    fn calls_tokens_cost_latency_retries_and_failures_by_model_and_role() {
        let mut round = crate::protocols::blank_round(
            &ScheduledRound::example("r1", "d"),
            RoundRecord::EthicsBowl,
        );
        let mut retried = phase(PhaseType::Presentation, "a", 100, Some(0.01));
        retried.attempts = vec![attempt(Some("503")), attempt(None)];
        retried.cached_input_tokens = Some(80);
        retried.cache_write_tokens = Some(5);
        retried.cache_saved_usd = Some(0.004);
        round.phases = vec![
            retried,
            phase(PhaseType::Rebuttal, "a", 300, Some(0.02)),
            phase(PhaseType::Response, "b", 200, None),
            phase(PhaseType::Judgment, "a", 1000, Some(0.03)),
            // An answer the response cache gave: not a call, no latency of this run.
            Phase {
                latency_ms: Some(1),
                cost_usd: Some(0.0),
                reused_from_cache: Some(crate::domain::Reused {
                    stored_at: "2026-11-28T00:00:00Z".into(),
                    input_tokens: Some(100),
                    output_tokens: Some(10),
                }),
                ..Phase::new(PhaseType::Presentation, "a", "x")
            },
            Phase {
                error: Some("failed".into()),
                attempts: vec![attempt(Some("x")), attempt(Some("y"))],
                ..Phase::new(PhaseType::Judgment, "j", "")
            },
        ];
        round.error = Some(RoundError {
            phase_type: PhaseType::Response,
            model_id: "b".into(),
            message: "down".into(),
            timestamp: String::new(),
            attempts: vec![attempt(Some("1")), attempt(Some("2")), attempt(Some("3"))],
        });
        let usage = usage_by_model(&[round]);
        let find = |m: &str, r: &str| {
            usage
                .iter()
                .find(|u| u.model == m && u.role == r)
                .unwrap()
                .clone()
        };
        let a = find("a", "debater");
        assert_eq!(
            (a.calls, a.retries, a.failures, a.input_tokens),
            (2, 1, 0, 200)
        );
        assert!((a.cost_usd - 0.03).abs() < 1e-12);
        assert_eq!((a.cached_input_tokens, a.cache_write_tokens), (80, 5));
        assert!((a.cache_saved_usd - 0.004).abs() < 1e-12);
        assert_eq!(a.saved_text(), "$0.0040");
        assert_eq!(
            (a.latency_median_ms, a.latency_p90_ms),
            (Some(100), Some(300))
        );
        assert_eq!(find("a", "judge").calls, 1, "judging counted apart");
        let b = find("b", "debater");
        assert_eq!(
            (b.calls, b.unpriced_calls, b.failures, b.retries),
            (1, 1, 1, 2)
        );
        assert_eq!(
            b.saved_text(),
            "–",
            "no priced call, nothing to say it saved"
        );
        let j = find("j", "judge");
        assert_eq!((j.calls, j.failures, j.retries), (0, 1, 1));
    }
}
