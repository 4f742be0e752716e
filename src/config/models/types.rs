//! The models file's types: which models exist, which provider serves each, the limits and
//! retry policy that wrap every call, with their defaults.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use super::price::Price;
pub use super::structured::StructuredOutput;

/// Which wire format and default endpoint a model uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderKind {
    /// OpenAI Chat Completions.
    Openai,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini `streamGenerateContent`.
    Google,
    /// xAI Grok, which speaks Chat Completions.
    Xai,
    /// Alibaba Qwen through DashScope's compatible mode (Chat Completions).
    Qwen,
    /// Any server speaking Chat Completions (Ollama, vLLM, OpenRouter, …); needs `base_url`.
    OpenaiCompatible,
    /// Offline deterministic models, so the tool runs with no network and no keys.
    Simulated,
}

impl ProviderKind {
    /// Every kind, in the order the documentation lists them.
    pub const ALL: [ProviderKind; 7] = [
        Self::Openai,
        Self::Anthropic,
        Self::Google,
        Self::Xai,
        Self::Qwen,
        Self::OpenaiCompatible,
        Self::Simulated,
    ];

    /// The name used in configuration files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::Anthropic => "anthropic",
            Self::Google => "google",
            Self::Xai => "xai",
            Self::Qwen => "qwen",
            Self::OpenaiCompatible => "openai-compatible",
            Self::Simulated => "simulated",
        }
    }

    /// The environment variable read for the key when `api_key_env` is not given.
    pub fn default_key_env(self) -> Option<&'static str> {
        match self {
            Self::Openai => Some("OPENAI_API_KEY"),
            Self::Anthropic => Some("ANTHROPIC_API_KEY"),
            Self::Google => Some("GEMINI_API_KEY"),
            Self::Xai => Some("XAI_API_KEY"),
            Self::Qwen => Some("DASHSCOPE_API_KEY"),
            Self::OpenaiCompatible | Self::Simulated => None,
        }
    }

    /// The endpoint prefix used when `base_url` is not given (the part before the
    /// format's own path, version segment included).
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            Self::Openai => Some("https://api.openai.com/v1"),
            Self::Anthropic => Some("https://api.anthropic.com/v1"),
            Self::Google => Some("https://generativelanguage.googleapis.com/v1beta"),
            Self::Xai => Some("https://api.x.ai/v1"),
            Self::Qwen => Some("https://dashscope-intl.aliyuncs.com/compatible-mode/v1"),
            Self::OpenaiCompatible | Self::Simulated => None,
        }
    }
}

impl std::fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How hard a reasoning model thinks before it answers; mapped onto each provider's own knob.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningEffort {
    /// The provider's smallest setting.
    Minimal,
    /// Little thinking.
    Low,
    /// The usual default of reasoning models.
    Medium,
    /// Much thinking; needs a large `max_tokens`.
    High,
}

impl ReasoningEffort {
    /// The name sent to providers that take a named effort.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Minimal => "minimal",
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }

    /// A thinking-token budget for providers that take a number instead of a name.
    pub fn budget_tokens(self) -> u32 {
        match self {
            Self::Minimal => 1024,
            Self::Low => 2048,
            Self::Medium => 8192,
            Self::High => 16384,
        }
    }
}

/// Knobs of a `simulated` model.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimulatedParams {
    /// Overall reasoning quality from 0 to 1; each model also gets its own per-criterion profile.
    pub quality: f64,
    /// Streaming speed; 0 streams as fast as possible.
    pub tokens_per_second: f64,
    /// Share of judgments answered in broken or free-form text (exercises the review queue).
    pub malformed_judgment_rate: f64,
    /// Share of calls that fail with a transient (retryable) error.
    pub failure_rate: f64,
    /// Share of calls that panic inside the tool: a bug on purpose, to see that a bug is
    /// recorded as its round's error (the round kept `incomplete`, retried on resume) and
    /// never crashes a run. Leave it at 0 for anything else.
    pub panic_rate: f64,
    /// As a panel judge in deliberation: the share of the gap to the other judges' mean
    /// score it closes each round (0 never moves, 1 adopts their mean).
    pub deliberation_pull: f64,
    /// As a question-answer debater: the share of quotes it garbles even when it believes
    /// its own answer (they fail verification).
    pub invented_quote_rate: f64,
    /// As a question-answer debater arguing against what it reads in the game: the share of
    /// arguments in which it invents a supporting quote rather than quoting weaker evidence.
    pub bluff_rate: f64,
    /// As a question-answer debater: the share of arguments that run over the word limit
    /// (and, in a structured debate, of closing statements).
    pub overlong_rate: f64,
    /// As a structured debater: the share of replies that are not the JSON asked for (each
    /// try: a reply to the correction prompt fails at the same rate).
    pub broken_json_rate: f64,
    /// As a structured debater: the share of cross-examinations that leave one opposing
    /// argument unanswered.
    pub skip_argument_rate: f64,
    /// Mixed into every seed, to draw a different but still reproducible run.
    pub seed: u64,
    /// As a debater: its true quality from 0 to 1. When both debaters of a round have one,
    /// a simulated judge scores (or, in a question-answer debate, decides) from the skills
    /// and its own biases below rather than from the text (see
    /// [`crate::providers::simulated::truth`]); unset, everything is as without these keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<f64>,
    /// As a judge of debaters with a `skill`: points it adds to every criterion of every
    /// team (0 when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leniency: Option<f64>,
    /// As a judge of debaters with a `skill`: points per criterion it adds to Team A (in a
    /// question-answer debate, a shift of the log-odds toward the debater read first); 0
    /// when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position_bias: Option<f64>,
    /// As a judge of debaters with a `skill`: points per criterion it adds to the team its
    /// own model plays (in a question-answer debate, a shift of the log-odds toward its own
    /// model's answer); 0 when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_preference: Option<f64>,
    /// As a judge of debaters with a `skill`: the standard deviation of the normal noise
    /// added to each criterion's score before rounding (0 when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_sd: Option<f64>,
    /// As a debater with a `skill`: the standard deviation, in points per criterion, of its
    /// form from one exchange to the next (that debate's text better or worse than its
    /// usual), shared by every judge of the exchange: what makes the judgments of one
    /// exchange depend on each other (0 when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub performance_sd: Option<f64>,
}

impl Default for SimulatedParams {
    fn default() -> Self {
        Self {
            quality: 0.6,
            tokens_per_second: 400.0,
            malformed_judgment_rate: 0.15,
            failure_rate: 0.0,
            panic_rate: 0.0,
            deliberation_pull: 0.5,
            invented_quote_rate: 0.1,
            bluff_rate: 0.6,
            overlong_rate: 0.1,
            broken_json_rate: 0.1,
            skip_argument_rate: 0.1,
            seed: 0,
            skill: None,
            leniency: None,
            position_bias: None,
            self_preference: None,
            noise_sd: None,
            performance_sd: None,
        }
    }
}

/// What to do with an answer that ended at the output-token limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnTruncation {
    /// Keep the cut answer (the phase is marked truncated).
    #[default]
    Keep,
    /// Ask once more with the limit doubled (up to `max_tokens_cap`), recording the cut
    /// attempt.
    Retry,
}

/// One configured model: the identifier used everywhere, and how to reach it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// The identifier used in tournaments, results and the UI.
    pub name: String,
    /// Which wire format and default endpoint.
    pub provider: ProviderKind,
    /// The provider's own model id.
    pub model: String,
    /// The NAME of the environment variable holding the key (never the key itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// Endpoint prefix override (gateways, proxies, regional endpoints, test servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Sampling temperature; the provider's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// A sampling seed, sent as the provider's `seed` (Chat Completions servers, Gemini), so
    /// that a server which honours it (llama.cpp, vLLM) answers the same prompt the same way
    /// every run; OpenAI and Gemini treat it as best effort. Anthropic has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Output-token cap for one answer, reasoning tokens included.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    /// Longest silence allowed between two pieces of a response, in seconds.
    #[serde(default = "default_timeout_s")]
    pub timeout_s: f64,
    /// The longest one attempt may take from sending the request to the answer's end, in
    /// seconds: ends a stream that never stops or trickles (`timeout_s` bounds silence only).
    #[serde(default = "default_max_call_s")]
    pub max_call_s: f64,
    /// The largest answer taken, in bytes of text (a non-streamed body may be 8 times this
    /// as JSON): ends a server that sends without end.
    #[serde(default = "default_max_response_bytes")]
    pub max_response_bytes: u64,
    /// Calls to this model in flight at once: the fixed number, or the ceiling of the
    /// adaptive window.
    #[serde(default = "default_max_concurrency")]
    pub max_concurrency: u32,
    /// Whether the number of calls in flight follows the provider's rate-limit answers
    /// (starting at 2, growing while calls succeed with quota to spare, halved on a 429 or
    /// a nearly spent quota, waiting out a spent quota's reset) up to `max_concurrency`.
    /// By default on for `openai`, `anthropic`, `google`, `xai` and `qwen`, off for
    /// `openai-compatible` and `simulated`, which run at `max_concurrency`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adaptive_concurrency: Option<bool>,
    /// Requests started per minute, when the provider limits it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests_per_minute: Option<u32>,
    /// Batch mode for this model: `true` sends its calls through the provider's batch API
    /// in every run, `false` keeps them streamed even when a tournament asks for batch
    /// mode; unset follows the tournament (`batch` there, or `--batch`). Only `openai`,
    /// `anthropic` and `google` have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<bool>,
    /// The share of the price a batched call saves (0 to 1); by default 0.5, the
    /// providers' published batch discount. Applied to the cost estimate and the budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_discount: Option<f64>,
    /// Reasoning effort, for providers and models that think before answering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Stream answers over SSE (default); false asks for one JSON body, for servers that
    /// cannot stream.
    #[serde(default = "default_true")]
    pub stream: bool,
    /// Whether and how a protocol's JSON schema goes on the wire: `true` (the provider's
    /// own feature), `false` (the prompt only), or a Chat Completions `response_format`
    /// dialect (`"json_schema"`, `"json_object_schema"`, `"json_object"`); by default on for
    /// `openai`, `anthropic`, `google` and `xai`, off for servers whose support varies
    /// (`openai-compatible`, `qwen`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<StructuredOutput>,
    /// What to do with an answer cut at the token limit: keep it (default), or ask once
    /// more with the limit doubled, up to `max_tokens_cap`.
    #[serde(default)]
    pub on_truncation: OnTruncation,
    /// The highest output-token limit a truncation retry may ask for; 4 × `max_tokens` when
    /// absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens_cap: Option<u32>,
    /// Prices for cost estimates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<Price>,
    /// Whether requests mark their stable prefix for the provider's prompt cache (Anthropic's
    /// `cache_control`; OpenAI and Gemini cache repeated prefixes by themselves and take no
    /// mark). On by default; `false` sends every prompt unmarked.
    #[serde(default = "default_true")]
    pub prompt_cache: bool,
    /// Parameters of a `simulated` model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulated: Option<SimulatedParams>,
}

fn default_max_tokens() -> u32 {
    2048
}
fn default_timeout_s() -> f64 {
    120.0
}
fn default_max_call_s() -> f64 {
    1800.0
}
fn default_max_response_bytes() -> u64 {
    1024 * 1024
}
fn default_max_concurrency() -> u32 {
    4
}
fn default_true() -> bool {
    true
}

impl ModelConfig {
    /// How requests with a schema carry it, the provider's default applied.
    pub fn structured_output_flavour(&self) -> StructuredOutput {
        self.structured_output.unwrap_or(match self.provider {
            ProviderKind::Openai
            | ProviderKind::Anthropic
            | ProviderKind::Google
            | ProviderKind::Xai => StructuredOutput::Native,
            _ => StructuredOutput::Off,
        })
    }

    /// Whether requests with a schema put that schema on the wire (JSON mode does not).
    pub fn uses_structured_output(&self) -> bool {
        self.structured_output_flavour().sends_schema()
    }

    /// Whether the concurrency window adapts, the provider's default applied.
    pub fn uses_adaptive_concurrency(&self) -> bool {
        self.adaptive_concurrency.unwrap_or(matches!(
            self.provider,
            ProviderKind::Openai
                | ProviderKind::Anthropic
                | ProviderKind::Google
                | ProviderKind::Xai
                | ProviderKind::Qwen
        ))
    }

    /// The batch discount in force (see `batch_discount`).
    pub fn effective_batch_discount(&self) -> f64 {
        self.batch_discount.unwrap_or(0.5)
    }

    /// Whether this model's provider has a batch API here.
    pub fn has_batch_api(&self) -> bool {
        matches!(
            self.provider,
            ProviderKind::Openai | ProviderKind::Anthropic | ProviderKind::Google
        )
    }

    /// The highest output-token limit a truncation retry may ask for.
    pub fn effective_max_tokens_cap(&self) -> u32 {
        self.max_tokens_cap
            .unwrap_or(self.max_tokens.saturating_mul(4))
    }

    /// The environment variable this model's key is read from, if it needs one.
    pub fn key_env(&self) -> Option<&str> {
        self.api_key_env
            .as_deref()
            .or(self.provider.default_key_env())
    }

    /// The endpoint prefix in use, without a trailing slash.
    pub fn effective_base_url(&self) -> Option<&str> {
        self.base_url
            .as_deref()
            .or(self.provider.default_base_url())
            .map(|u| u.trim_end_matches('/'))
    }

    /// The read timeout as a duration.
    pub fn read_timeout(&self) -> Duration {
        crate::config::seconds(self.timeout_s)
    }
}

/// Retry policy for every call (section `[retry]`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RetryConfig {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// First backoff wait, doubled on each retry.
    pub initial_backoff_ms: u64,
    /// Longest backoff wait.
    pub max_backoff_ms: u64,
    /// Longest wait a server may ask for (Retry-After, Gemini's retry delay); a longer
    /// request makes the error final, since waiting is better done by resuming later.
    pub max_retry_after_s: f64,
    /// While attempts fail to connect at all (a server restarting), keep retrying with
    /// backoff until this many seconds have passed since the first such failure, even past
    /// `max_attempts`.
    pub connect_retry_s: f64,
    /// A rate limit (429) whose server names a wait (Retry-After, or reset headers saying
    /// the quota is spent) holds the call for that wait without using up an attempt, until
    /// the call has been held this many seconds since its first such 429; later ones count
    /// as attempts like any other failure.
    pub max_rate_limit_wait_s: f64,
}

impl Default for RetryConfig {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            initial_backoff_ms: 500,
            max_backoff_ms: 8_000,
            max_retry_after_s: 120.0,
            connect_retry_s: 15.0,
            max_rate_limit_wait_s: 300.0,
        }
    }
}

/// Limits across all models (section `[limits]`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    /// Calls in flight at once, over every model.
    pub max_concurrency: u32,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        Self {
            max_concurrency: 32,
        }
    }
}

/// The whole models file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelsConfig {
    /// Where it was read from (for error messages).
    #[serde(skip)]
    pub path: PathBuf,
    /// The models, in file order.
    pub models: Vec<ModelConfig>,
    /// Retry policy.
    pub retry: RetryConfig,
    /// Overall limits.
    pub limits: LimitsConfig,
}

impl ModelsConfig {
    /// The model with this name, if configured.
    pub fn get(&self, name: &str) -> Option<&ModelConfig> {
        self.models.iter().find(|m| m.name == name)
    }

    /// The configured names, for "did you mean" lists.
    pub fn names(&self) -> Vec<&str> {
        self.models.iter().map(|m| m.name.as_str()).collect()
    }
}
