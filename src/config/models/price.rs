//! What a call costs: the `price` key, with the prompt-cache prices each provider publishes as
//! defaults, and the arithmetic from a call's tokens to its dollars and to what the cache
//! saved.
//!
//! Token counts come in one shape for every provider (see
//! [`crate::providers::Usage`]): the input count is the whole prompt, and the cache reads
//! and writes are parts of it. The uncached rest is billed at `input_per_mtok`, cache reads
//! at `cached_input_per_mtok`, cache writes at `cache_write_per_mtok`.

use serde::{Deserialize, Serialize};

use super::ProviderKind;

/// Prices in US dollars per million tokens, for running cost estimates.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Dollars per million input (prompt) tokens.
    pub input_per_mtok: f64,
    /// Dollars per million output (completion) tokens, reasoning included.
    pub output_per_mtok: f64,
    /// Dollars per million prompt tokens read from the provider's prompt cache; by default
    /// the provider's published share of `input_per_mtok` (see
    /// [`Price::default_cached_input_ratio`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_per_mtok: Option<f64>,
    /// Dollars per million prompt tokens written to the provider's prompt cache; by default
    /// the provider's published share of `input_per_mtok` (see
    /// [`Price::default_cache_write_ratio`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_per_mtok: Option<f64>,
}

/// What one call cost, and what the prompt cache saved on it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CallCost {
    /// Dollars, at the cache prices for the cached part of the prompt.
    pub cost_usd: f64,
    /// The cost had every prompt token been billed at the full input price, less
    /// `cost_usd`: what caching saved (negative for a call that only wrote to a cache whose
    /// writes cost more than input, as Anthropic's do).
    pub saved_usd: f64,
}

impl CallCost {
    /// The same cost and saving scaled by `factor` (the batch discount's share kept).
    pub fn scaled(self, factor: f64) -> Self {
        Self {
            cost_usd: self.cost_usd * factor,
            saved_usd: self.saved_usd * factor,
        }
    }
}

/// One call's tokens as the price reads them: `input` is the whole prompt, `cached` and
/// `written` the parts of it read from and written to the cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BilledTokens {
    /// Every prompt token.
    pub input: u64,
    /// Prompt tokens read from the cache.
    pub cached: u64,
    /// Prompt tokens written to the cache.
    pub written: u64,
    /// Answer tokens.
    pub output: u64,
}

impl Price {
    /// The share of the input price a cache read costs when `cached_input_per_mtok` is
    /// not set, as each provider published it: Anthropic 0.1; OpenAI 0.5 (its first cached
    /// models and the general rule; some newer ones charge 0.25 or 0.1); Gemini 0.25 (2.5
    /// models' implicit cache); xAI 0.25; Qwen (DashScope's implicit cache) 0.2; any other
    /// Chat Completions server, and the simulated provider, 0.5. Set the real price.
    pub fn default_cached_input_ratio(provider: ProviderKind) -> f64 {
        match provider {
            ProviderKind::Anthropic => 0.1,
            ProviderKind::Google | ProviderKind::Xai => 0.25,
            ProviderKind::Qwen => 0.2,
            ProviderKind::Openai | ProviderKind::OpenaiCompatible | ProviderKind::Simulated => 0.5,
        }
    }

    /// The share of the input price a cache write costs when `cache_write_per_mtok` is not
    /// set: Anthropic's 5-minute cache 1.25; the others charge nothing extra to write (and
    /// report no writes), 1.
    pub fn default_cache_write_ratio(provider: ProviderKind) -> f64 {
        match provider {
            ProviderKind::Anthropic => 1.25,
            _ => 1.0,
        }
    }

    /// Dollars per million cached prompt tokens for a model of `provider`.
    pub fn cached_input_price(&self, provider: ProviderKind) -> f64 {
        self.cached_input_per_mtok
            .unwrap_or(self.input_per_mtok * Self::default_cached_input_ratio(provider))
    }

    /// Dollars per million prompt tokens written to the cache for a model of `provider`.
    pub fn cache_write_price(&self, provider: ProviderKind) -> f64 {
        self.cache_write_per_mtok
            .unwrap_or(self.input_per_mtok * Self::default_cache_write_ratio(provider))
    }

    /// Every price the file gives, by key, for the configuration check.
    pub(super) fn given(&self) -> Vec<(&'static str, f64)> {
        let mut given = vec![
            ("input_per_mtok", self.input_per_mtok),
            ("output_per_mtok", self.output_per_mtok),
        ];
        given.extend(
            self.cached_input_per_mtok
                .map(|p| ("cached_input_per_mtok", p)),
        );
        given.extend(
            self.cache_write_per_mtok
                .map(|p| ("cache_write_per_mtok", p)),
        );
        given
    }

    /// The cost of one call of a model of `provider`, and what the cache saved on it.
    /// Cache counts larger than the prompt (a server's error) are capped at it.
    pub fn cost(&self, provider: ProviderKind, tokens: BilledTokens) -> CallCost {
        let cached = tokens.cached.min(tokens.input);
        let written = tokens.written.min(tokens.input - cached);
        let uncached = tokens.input - cached - written;
        let output = tokens.output as f64 * self.output_per_mtok;
        let cost = uncached as f64 * self.input_per_mtok
            + cached as f64 * self.cached_input_price(provider)
            + written as f64 * self.cache_write_price(provider)
            + output;
        let full = tokens.input as f64 * self.input_per_mtok + output;
        CallCost {
            cost_usd: cost / 1_000_000.0,
            saved_usd: (full - cost) / 1_000_000.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn price() -> Price {
        Price {
            input_per_mtok: 3.0,
            output_per_mtok: 15.0,
            cached_input_per_mtok: None,
            cache_write_per_mtok: None,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn without_cache_counts_the_cost_is_input_and_output_and_nothing_is_saved() {
        let c = price().cost(
            ProviderKind::Openai,
            BilledTokens {
                input: 1_000_000,
                output: 100_000,
                ..BilledTokens::default()
            },
        );
        assert!(close(c.cost_usd, 3.0 + 1.5));
        assert!(close(c.saved_usd, 0.0));
    }

    #[test]
    fn cache_reads_and_writes_are_billed_at_each_providers_published_ratio() {
        // 1,000,000 prompt tokens: 600,000 read from the cache, 300,000 written, 100,000
        // neither; no output.
        let tokens = BilledTokens {
            input: 1_000_000,
            cached: 600_000,
            written: 300_000,
            output: 0,
        };
        // Anthropic: 0.1 × 3 for reads, 1.25 × 3 for writes.
        let a = price().cost(ProviderKind::Anthropic, tokens);
        assert!(close(a.cost_usd, 0.1 * 3.0 + 0.6 * 0.3 + 0.3 * 3.75));
        assert!(close(a.saved_usd, 3.0 - a.cost_usd));
        // OpenAI reports no writes; its reads at 0.5 × input.
        let o = price().cost(
            ProviderKind::Openai,
            BilledTokens {
                written: 0,
                ..tokens
            },
        );
        assert!(close(o.cost_usd, 0.4 * 3.0 + 0.6 * 1.5));
        assert!(close(o.saved_usd, 0.6 * 1.5));
        // Gemini: 0.25 × input.
        let g = price().cost(
            ProviderKind::Google,
            BilledTokens {
                written: 0,
                ..tokens
            },
        );
        assert!(close(g.saved_usd, 0.6 * 3.0 * 0.75));
    }

    #[test]
    fn set_cache_prices_replace_the_defaults() {
        let p = Price {
            cached_input_per_mtok: Some(0.3),
            cache_write_per_mtok: Some(6.0),
            ..price()
        };
        let c = p.cost(
            ProviderKind::Anthropic,
            BilledTokens {
                input: 2_000_000,
                cached: 1_000_000,
                written: 1_000_000,
                output: 0,
            },
        );
        assert!(close(c.cost_usd, 0.3 + 6.0));
        assert!(close(c.saved_usd, 6.0 - 6.3));
    }

    #[test]
    fn cache_counts_beyond_the_prompt_are_capped_and_a_batch_scales_both() {
        let c = price().cost(
            ProviderKind::Google,
            BilledTokens {
                input: 100,
                cached: 500,
                written: 7,
                output: 0,
            },
        );
        assert!(close(c.cost_usd, 100.0 * 0.75 / 1_000_000.0));
        let half = c.scaled(0.5);
        assert!(close(half.cost_usd, c.cost_usd / 2.0) && close(half.saved_usd, c.saved_usd / 2.0));
    }
}
