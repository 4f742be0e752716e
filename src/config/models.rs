//! The models file (`models.toml`): which models exist, which provider serves each, and the
//! limits and retry policy that wrap every call.
//!
//! Parsing goes in steps so that every error can name its entry and key: the file is read
//! as a TOML table and each `[[models]]` entry is looked over for what needs a message of its
//! own (a literal key, an unknown provider); then the whole file is deserialised, with type
//! errors named by key path and line; then each model is checked.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::ConfigError;

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

/// Prices in US dollars per million tokens, for running cost estimates.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Dollars per million input (prompt) tokens.
    pub input_per_mtok: f64,
    /// Dollars per million output (completion) tokens, reasoning included.
    pub output_per_mtok: f64,
}

impl Price {
    /// The cost of one call in dollars.
    pub fn cost(&self, input_tokens: u64, output_tokens: u64) -> f64 {
        (input_tokens as f64 * self.input_per_mtok + output_tokens as f64 * self.output_per_mtok)
            / 1_000_000.0
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
}

impl Default for SimulatedParams {
    fn default() -> Self {
        Self {
            quality: 0.6,
            tokens_per_second: 400.0,
            malformed_judgment_rate: 0.15,
            failure_rate: 0.0,
            deliberation_pull: 0.5,
            invented_quote_rate: 0.1,
            bluff_rate: 0.6,
            overlong_rate: 0.1,
            broken_json_rate: 0.1,
            skip_argument_rate: 0.1,
            seed: 0,
        }
    }
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
    /// Output-token cap for one answer, reasoning tokens included.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    /// Longest silence allowed between two pieces of a response, in seconds.
    #[serde(default = "default_timeout_s")]
    pub timeout_s: f64,
    /// Calls to this model in flight at once.
    #[serde(default = "default_max_concurrency")]
    pub max_concurrency: u32,
    /// Requests started per minute, when the provider limits it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests_per_minute: Option<u32>,
    /// Reasoning effort, for providers and models that think before answering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Stream answers over SSE (default); false asks for one JSON body, for servers that
    /// cannot stream.
    #[serde(default = "default_true")]
    pub stream: bool,
    /// Use the provider's structured-output feature when a protocol asks for JSON (OpenAI
    /// `response_format` with a JSON schema, Gemini `responseSchema`, Anthropic tool use);
    /// by default on for `openai`, `anthropic`, `google` and `xai`, off for servers whose
    /// support varies (`openai-compatible`, `qwen`), which get the schema in the prompt only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<bool>,
    /// Prices for cost estimates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<Price>,
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
fn default_max_concurrency() -> u32 {
    4
}
fn default_true() -> bool {
    true
}

impl ModelConfig {
    /// Whether requests with a schema use the provider's structured-output feature.
    pub fn uses_structured_output(&self) -> bool {
        self.structured_output.unwrap_or(matches!(
            self.provider,
            ProviderKind::Openai
                | ProviderKind::Anthropic
                | ProviderKind::Google
                | ProviderKind::Xai
        ))
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
        Duration::from_secs_f64(self.timeout_s)
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
}

impl Default for RetryConfig {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            initial_backoff_ms: 500,
            max_backoff_ms: 8_000,
            max_retry_after_s: 120.0,
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

const TOP_LEVEL_KEYS: [&str; 3] = ["models", "retry", "limits"];
/// What to do about a value of the wrong type or an unknown key.
const FIX: &str = "compare with sample-config/models.toml; the README lists every key";

/// The file's typed shape; unknown top-level keys are refused before it is read.
#[derive(Deserialize)]
struct FileShape {
    models: Vec<ModelConfig>,
    #[serde(default)]
    retry: RetryConfig,
    #[serde(default)]
    limits: LimitsConfig,
}
/// Keys that would hold a secret in the file itself; refused outright.
const LITERAL_KEY_FIELDS: [&str; 5] = ["api_key", "apikey", "key", "token", "secret"];

impl ModelsConfig {
    /// Reads and validates a models file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        Self::parse(&super::read_file(path)?, path)
    }

    /// Parses and validates the text of a models file; `path` is used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let table: toml::Table =
            text.parse()
                .map_err(|e: toml::de::Error| ConfigError::Syntax {
                    path: path.to_path_buf(),
                    message: e.to_string().trim_end().to_string(),
                })?;
        for key in table.keys() {
            if !TOP_LEVEL_KEYS.contains(&key.as_str()) {
                return Err(ConfigError::invalid(
                    path,
                    format!("key \"{key}\""),
                    "unknown top-level key",
                    "use only [[models]], [retry] and [limits]",
                ));
            }
        }
        let entries = match table.get("models") {
            Some(toml::Value::Array(items)) => items.as_slice(),
            Some(_) => {
                return Err(ConfigError::invalid(
                    path,
                    "key \"models\"",
                    "must be a list of tables",
                    "write each model as a [[models]] table",
                ));
            }
            None => {
                return Err(ConfigError::invalid(
                    path,
                    "key \"models\"",
                    "no models are defined",
                    "add at least one [[models]] table (see sample-config/models.toml)",
                ));
            }
        };
        for (index, entry) in entries.iter().enumerate() {
            look_over_entry(entry, index, path)?;
        }
        let FileShape {
            models,
            retry,
            limits,
        } = super::typed::from_str(text, path, |key| entry_of(entries, key), FIX)?;
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (index, model) in models.iter().enumerate() {
            check_model(model, &entry_label(Some(&model.name), index), path)?;
            if let Some(first) = seen.insert(model.name.clone(), index) {
                return Err(ConfigError::invalid(
                    path,
                    entry_label(Some(&model.name), index),
                    format!(
                        "duplicate model name \"{}\" (also entry {})",
                        model.name,
                        first + 1
                    ),
                    "give every model a distinct name",
                ));
            }
        }
        check_limits(&retry, &limits, path)?;
        Ok(Self {
            path: path.to_path_buf(),
            models,
            retry,
            limits,
        })
    }

    /// The model with this name, if configured.
    pub fn get(&self, name: &str) -> Option<&ModelConfig> {
        self.models.iter().find(|m| m.name == name)
    }

    /// The configured names, for "did you mean" lists.
    pub fn names(&self) -> Vec<&str> {
        self.models.iter().map(|m| m.name.as_str()).collect()
    }
}

/// The model a key path inside `models[i]` belongs to, for the error message.
fn entry_of(entries: &[toml::Value], key: &serde_path_to_error::Path) -> Option<String> {
    let mut segments = key.iter();
    match (segments.next(), segments.next()) {
        (
            Some(serde_path_to_error::Segment::Map { key }),
            Some(serde_path_to_error::Segment::Seq { index }),
        ) if key == "models" => {
            let name = entries.get(*index)?.get("name")?.as_str()?;
            Some(format!("model \"{name}\""))
        }
        _ => None,
    }
}

fn entry_label(name: Option<&str>, index: usize) -> String {
    match name {
        Some(name) => format!("model \"{name}\" (entry {})", index + 1),
        None => format!("model entry {}", index + 1),
    }
}

/// The checks made on an entry before it is deserialised, for mistakes that deserve their own
/// message: not a table, a literal key, a key in place of a variable name, an unknown provider.
fn look_over_entry(entry: &toml::Value, index: usize, path: &Path) -> Result<(), ConfigError> {
    let toml::Value::Table(table) = entry else {
        return Err(ConfigError::invalid(
            path,
            entry_label(None, index),
            "is not a table",
            "write each model as a [[models]] table",
        ));
    };
    let name = table.get("name").and_then(|v| v.as_str());
    let label = entry_label(name, index);
    for field in LITERAL_KEY_FIELDS {
        if table.contains_key(field) {
            return Err(ConfigError::invalid(
                path,
                format!("{label}, key \"{field}\""),
                "API keys are never written in configuration files (they end up in results, \
                 backups and commits)",
                "put the key in an environment variable and name that variable with \
                 api_key_env = \"MY_PROVIDER_KEY\"",
            ));
        }
    }
    if let Some(value) = table.get("api_key_env").and_then(|v| v.as_str())
        && !is_env_var_name(value)
    {
        return Err(ConfigError::invalid(
            path,
            format!("{label}, key \"api_key_env\""),
            "this is not an environment variable name; it looks like a key itself, so it is \
             not repeated here",
            "remove the key from the file, export it as a variable, and write that variable's \
             name, e.g. api_key_env = \"OPENAI_API_KEY\"",
        ));
    }
    if let Some(toml::Value::String(provider)) = table.get("provider")
        && !ProviderKind::ALL.iter().any(|k| k.as_str() == provider)
    {
        let known: Vec<_> = ProviderKind::ALL.iter().map(|k| k.as_str()).collect();
        return Err(ConfigError::invalid(
            path,
            format!("{label}, key \"provider\""),
            format!("unknown provider \"{provider}\""),
            format!("use one of: {}", known.join(", ")),
        ));
    }
    Ok(())
}

fn check_model(m: &ModelConfig, label: &str, path: &Path) -> Result<(), ConfigError> {
    let bad = |key: &str, message: String, fix: &str| -> Result<(), ConfigError> {
        Err(ConfigError::invalid(
            path,
            format!("{label}, key \"{key}\""),
            message,
            fix,
        ))
    };
    if m.name.is_empty()
        || !m
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        || m.name.starts_with('.')
    {
        return bad(
            "name",
            format!("\"{}\" is not a usable model name", m.name),
            "use letters, digits, '-', '_' and '.' only (names become parts of file names)",
        );
    }
    if m.model.trim().is_empty() {
        return bad("model", "is empty".into(), "give the provider's model id");
    }
    if let Some(t) = m.temperature
        && !(0.0..=2.0).contains(&t)
    {
        return bad(
            "temperature",
            format!("{t} is outside 0 to 2"),
            "use a temperature from 0 to 2",
        );
    }
    if m.max_tokens == 0 {
        return bad(
            "max_tokens",
            "is 0".into(),
            "use a positive number of tokens",
        );
    }
    if !(m.timeout_s.is_finite() && m.timeout_s > 0.0) {
        return bad(
            "timeout_s",
            format!("{} is not a positive number of seconds", m.timeout_s),
            "use e.g. timeout_s = 120",
        );
    }
    if m.max_concurrency == 0 {
        return bad("max_concurrency", "is 0".into(), "use 1 or more");
    }
    if m.requests_per_minute == Some(0) {
        return bad(
            "requests_per_minute",
            "is 0".into(),
            "use 1 or more, or remove the key for no limit",
        );
    }
    if let Some(effort) = m.reasoning_effort
        && matches!(m.provider, ProviderKind::Anthropic | ProviderKind::Google)
        && m.max_tokens < effort.budget_tokens() + 1024
    {
        return bad(
            "max_tokens",
            format!(
                "{} leaves no room to answer after a {} reasoning budget of {} tokens",
                m.max_tokens,
                effort.as_str(),
                effort.budget_tokens()
            ),
            &format!(
                "raise max_tokens to at least {} or lower reasoning_effort",
                effort.budget_tokens() + 1024
            ),
        );
    }
    if let Some(price) = m.price
        && (price.input_per_mtok < 0.0 || price.output_per_mtok < 0.0)
    {
        return bad("price", "prices cannot be negative".into(), "fix the price");
    }
    match (m.provider, &m.simulated) {
        (ProviderKind::Simulated, Some(sim)) => check_simulated(sim, label, path)?,
        (ProviderKind::Simulated, None) => {}
        (_, Some(_)) => {
            return bad(
                "simulated",
                format!("only simulated models take this table, not {}", m.provider),
                "remove the [models.simulated] table or set provider = \"simulated\"",
            );
        }
        (_, None) => {}
    }
    if m.provider == ProviderKind::OpenaiCompatible && m.base_url.is_none() {
        return bad(
            "base_url",
            "openai-compatible models need a base_url".into(),
            "set base_url, e.g. \"http://localhost:11434/v1\" for Ollama",
        );
    }
    if let Some(url) = &m.base_url {
        match reqwest::Url::parse(url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => {}
            _ => {
                return bad(
                    "base_url",
                    format!("\"{url}\" is not an http(s) URL"),
                    "use e.g. \"https://api.openai.com/v1\"",
                );
            }
        }
    }
    Ok(())
}

fn check_simulated(sim: &SimulatedParams, label: &str, path: &Path) -> Result<(), ConfigError> {
    let rates = [
        ("quality", sim.quality),
        ("malformed_judgment_rate", sim.malformed_judgment_rate),
        ("deliberation_pull", sim.deliberation_pull),
        ("failure_rate", sim.failure_rate),
        ("invented_quote_rate", sim.invented_quote_rate),
        ("bluff_rate", sim.bluff_rate),
        ("overlong_rate", sim.overlong_rate),
        ("broken_json_rate", sim.broken_json_rate),
        ("skip_argument_rate", sim.skip_argument_rate),
    ];
    for (key, value) in rates {
        if !(0.0..=1.0).contains(&value) {
            return Err(ConfigError::invalid(
                path,
                format!("{label}, key \"simulated.{key}\""),
                format!("{value} is outside 0 to 1"),
                "use a number from 0 to 1",
            ));
        }
    }
    if !(sim.tokens_per_second.is_finite() && sim.tokens_per_second >= 0.0) {
        return Err(ConfigError::invalid(
            path,
            format!("{label}, key \"simulated.tokens_per_second\""),
            "must be 0 (instant) or a positive rate",
            "use e.g. tokens_per_second = 400",
        ));
    }
    Ok(())
}

fn check_limits(
    retry: &RetryConfig,
    limits: &LimitsConfig,
    path: &Path,
) -> Result<(), ConfigError> {
    if retry.max_attempts == 0 {
        return Err(ConfigError::invalid(
            path,
            "[retry], key \"max_attempts\"",
            "is 0",
            "use 1 (no retries) or more",
        ));
    }
    if !(retry.max_retry_after_s.is_finite() && retry.max_retry_after_s >= 0.0) {
        return Err(ConfigError::invalid(
            path,
            "[retry], key \"max_retry_after_s\"",
            "must be a non-negative number of seconds",
            "use e.g. 120",
        ));
    }
    if limits.max_concurrency == 0 {
        return Err(ConfigError::invalid(
            path,
            "[limits], key \"max_concurrency\"",
            "is 0",
            "use 1 or more",
        ));
    }
    Ok(())
}

/// True for something shaped like an environment variable name and not like a key: keys are
/// long mixed-case strings, variable names are short or upper-case.
fn is_env_var_name(value: &str) -> bool {
    let mut chars = value.chars();
    let shaped = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    let upper = value
        .chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    shaped && (upper || value.len() < 30)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ModelsConfig, ConfigError> {
        ModelsConfig::parse(text, Path::new("models.toml"))
    }

    fn err(text: &str) -> String {
        match parse(text) {
            Ok(_) => panic!("expected an error for:\n{text}"),
            Err(e) => e.to_string(),
        }
    }

    const GOOD: &str = r#"
        [[models]]
        name = "gpt"
        provider = "openai"
        model = "gpt-5.2"
        api_key_env = "OPENAI_API_KEY"
        price = { input_per_mtok = 1.0, output_per_mtok = 10.0 }

        [[models]]
        name = "local"
        provider = "openai-compatible"
        model = "llama3"
        base_url = "http://localhost:11434/v1/"

        [[models]]
        name = "sim"
        provider = "simulated"
        model = "alpha"
        [models.simulated]
        quality = 0.9
    "#;

    #[test]
    fn parses_a_valid_file_with_defaults() {
        let c = parse(GOOD).unwrap();
        assert_eq!(c.models.len(), 3);
        assert_eq!(c.retry.max_attempts, 3);
        let gpt = c.get("gpt").unwrap();
        assert_eq!(gpt.max_tokens, 2048);
        assert!(gpt.stream);
        assert_eq!(gpt.key_env(), Some("OPENAI_API_KEY"));
        assert_eq!(gpt.effective_base_url(), Some("https://api.openai.com/v1"));
        let local = c.get("local").unwrap();
        assert_eq!(local.key_env(), None);
        assert_eq!(
            local.effective_base_url(),
            Some("http://localhost:11434/v1")
        );
        assert_eq!(
            c.get("sim").unwrap().simulated.as_ref().unwrap().quality,
            0.9
        );
    }

    #[test]
    fn unknown_key_names_model_and_key() {
        let e = err(r#"
            [[models]]
            name = "gpt"
            provider = "openai"
            model = "x"
            tempreature = 0.5
        "#);
        assert!(
            e.starts_with("models.toml, models[0].tempreature: unknown field"),
            "{e}"
        );
        assert!(e.contains("(line 6, model \"gpt\")"), "{e}");
        assert!(e.contains("fix:"), "{e}");
    }

    #[test]
    fn missing_field_is_named() {
        let e = err("[[models]]\nname = \"a\"\nprovider = \"openai\"\n");
        assert!(
            e.starts_with("models.toml, models[0].model: is missing") && e.contains("model \"a\""),
            "{e}"
        );
    }

    #[test]
    fn malformed_field_is_named_by_its_path() {
        let e = err(
            "[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel = \"m\"\nmax_tokens = \"lots\"\n",
        );
        assert!(e.contains("model \"a\""), "{e}");
        assert!(
            e.contains("models[0].max_tokens: expected a whole number"),
            "{e}"
        );
        let third = "[[models]]\nname = \"a\"\nprovider = \"simulated\"\nmodel = \"m\"\n\
                     [[models]]\nname = \"b\"\nprovider = \"simulated\"\nmodel = \"m\"\n\
                     [[models]]\nname = \"c\"\nprovider = \"openai\"\nmodel = \"m\"\ntemperature = \"warm\"\n";
        assert_eq!(
            err(third),
            "models.toml, models[2].temperature: expected a number, found a string (line 13, model \"c\")\n  \
             fix: compare with sample-config/models.toml; the README lists every key"
        );
        let e = err(
            "[retry]\nmax_attempts = true\n[[models]]\nname=\"a\"\nprovider=\"simulated\"\nmodel=\"m\"\n",
        );
        assert!(
            e.starts_with("models.toml, retry.max_attempts: expected a whole number from 0 to 4294967295, found true (line 2)"),
            "{e}"
        );
    }

    #[test]
    fn unknown_provider_lists_the_known_ones() {
        let e = err("[[models]]\nname = \"a\"\nprovider = \"openia\"\nmodel = \"m\"\n");
        assert!(e.contains("unknown provider \"openia\""), "{e}");
        assert!(e.contains("openai-compatible"), "{e}");
    }

    #[test]
    fn literal_key_is_refused_and_not_echoed() {
        let secret = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let e = err(&format!(
            "[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel = \"m\"\napi_key = \"{secret}\"\n"
        ));
        assert!(e.contains("never written in configuration files"), "{e}");
        assert!(!e.contains(secret), "{e}");
        let e = err(&format!(
            "[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel = \"m\"\napi_key_env = \"{secret}\"\n"
        ));
        assert!(e.contains("looks like a key"), "{e}");
        assert!(!e.contains(secret), "{e}");
        let google_like = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW";
        let e = err(&format!(
            "[[models]]\nname = \"a\"\nprovider = \"google\"\nmodel = \"m\"\napi_key_env = \"{google_like}\"\n"
        ));
        assert!(!e.contains(google_like), "{e}");
    }

    #[test]
    fn duplicate_names_are_refused() {
        let e = err(r#"
            [[models]]
            name = "a"
            provider = "simulated"
            model = "x"
            [[models]]
            name = "a"
            provider = "simulated"
            model = "y"
        "#);
        assert!(
            e.contains("duplicate model name \"a\" (also entry 1)"),
            "{e}"
        );
        assert!(e.contains("entry 2"), "{e}");
    }

    #[test]
    fn semantic_checks() {
        let base = "[[models]]\nname = \"a\"\nprovider = \"openai\"\nmodel = \"m\"\n";
        for (extra, needle) in [
            ("temperature = 3.0\n", "temperature"),
            ("max_tokens = 0\n", "max_tokens"),
            ("max_concurrency = 0\n", "max_concurrency"),
            ("timeout_s = -1.0\n", "timeout_s"),
            ("base_url = \"ftp://x\"\n", "base_url"),
            ("[models.simulated]\nquality = 0.5\n", "simulated"),
        ] {
            let e = err(&format!("{base}{extra}"));
            assert!(e.contains(&format!("key \"{needle}\"")), "{extra}: {e}");
        }
        let e = err(
            "[[models]]\nname = \"a\"\nprovider = \"anthropic\"\nmodel = \"m\"\nreasoning_effort = \"high\"\n",
        );
        assert!(
            e.contains("key \"max_tokens\"") && e.contains("reasoning budget"),
            "{e}"
        );
        let e = err("[[models]]\nname = \"a\"\nprovider = \"openai-compatible\"\nmodel = \"m\"\n");
        assert!(e.contains("need a base_url"), "{e}");
        let e = err("[[models]]\nname = \"../a\"\nprovider = \"simulated\"\nmodel = \"m\"\n");
        assert!(e.contains("not a usable model name"), "{e}");
    }

    #[test]
    fn top_level_and_sections() {
        assert!(err("[[model]]\nname = \"a\"\n").contains("unknown top-level key"));
        assert!(err("").contains("no models"));
        assert!(err("[retry]\nmax_attemps = 2\n[[models]]\nname=\"a\"\nprovider=\"simulated\"\nmodel=\"m\"\n").contains("retry.max_attemps"));
        assert!(err("not toml = = 1").contains("models.toml"));
    }

    #[test]
    fn env_var_names() {
        assert!(is_env_var_name("OPENAI_API_KEY"));
        assert!(is_env_var_name("my_key"));
        assert!(!is_env_var_name("sk-abc"));
        assert!(!is_env_var_name("AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"));
        assert!(!is_env_var_name("1ABC"));
    }
}
