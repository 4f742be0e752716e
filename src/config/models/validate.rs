//! Checking a models file's entries: no secrets written in the file, known providers, and
//! values that make sense (ranges, names usable in file names, room to answer after a
//! reasoning budget, URLs), each error naming the entry and the key.

use std::path::Path;

use super::types::{LimitsConfig, ModelConfig, ProviderKind, RetryConfig, SimulatedParams};
use crate::config::ConfigError;

/// Keys that would hold a secret in the file itself; refused outright.
const LITERAL_KEY_FIELDS: [&str; 5] = ["api_key", "apikey", "key", "token", "secret"];

/// Checks an entry as written, before it is deserialised: no key written in the file (and
/// none echoed in the message), and a known provider (listing the known ones).
pub(super) fn check_entry(
    table: &toml::Table,
    label: &str,
    path: &Path,
) -> Result<(), ConfigError> {
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

/// Checks a deserialised model's values.
pub(super) fn check_model(m: &ModelConfig, label: &str, path: &Path) -> Result<(), ConfigError> {
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
    if m.seed.is_some()
        && matches!(
            m.provider,
            ProviderKind::Anthropic | ProviderKind::Simulated
        )
    {
        let fix = if m.provider == ProviderKind::Simulated {
            "set the simulated model's own seed under [models.simulated] instead"
        } else {
            "remove seed: Anthropic's API takes no seed"
        };
        return bad(
            "seed",
            format!("is not sent to {} models", m.provider.as_str()),
            fix,
        );
    }
    if let Some(seed) = m.seed
        && m.provider == ProviderKind::Google
        && i32::try_from(seed).is_err()
    {
        return bad(
            "seed",
            format!("{seed} is larger than Gemini's seed (a 32-bit integer)"),
            "use a seed from 0 to 2147483647",
        );
    }
    if m.max_tokens == 0 {
        return bad(
            "max_tokens",
            "is 0".into(),
            "use a positive number of tokens",
        );
    }
    if !crate::config::seconds::in_range(m.timeout_s, true) {
        return bad(
            "timeout_s",
            format!(
                "{} is not a positive number of seconds up to a week (604800)",
                m.timeout_s
            ),
            "use e.g. timeout_s = 120",
        );
    }
    if !crate::config::seconds::in_range(m.max_call_s, true) {
        return bad(
            "max_call_s",
            format!(
                "{} is not a positive number of seconds up to a week (604800)",
                m.max_call_s
            ),
            "use e.g. max_call_s = 1800",
        );
    }
    if !(1024..=1024 * 1024 * 1024).contains(&m.max_response_bytes) {
        return bad(
            "max_response_bytes",
            format!(
                "{} is not from 1024 to 1073741824 bytes",
                m.max_response_bytes
            ),
            "use e.g. max_response_bytes = 1048576 (1 MiB)",
        );
    }
    if m.max_concurrency == 0 {
        return bad("max_concurrency", "is 0".into(), "use 1 or more");
    }
    if m.adaptive_concurrency == Some(true) && m.provider == ProviderKind::Simulated {
        return bad(
            "adaptive_concurrency",
            "a simulated model has no rate limits to adapt to".into(),
            "remove adaptive_concurrency, or set max_concurrency to the number wanted",
        );
    }
    if m.batch == Some(true) && !m.has_batch_api() {
        return bad(
            "batch",
            format!("provider {} has no batch API here", m.provider.as_str()),
            "use batch mode with openai, anthropic or google models only, or remove the key",
        );
    }
    if let Some(d) = m.batch_discount
        && !(d.is_finite() && (0.0..=1.0).contains(&d))
    {
        return bad(
            "batch_discount",
            format!("{d} is not a share between 0 and 1"),
            "use e.g. batch_discount = 0.5 (half price)",
        );
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
    if let Some(cap) = m.max_tokens_cap
        && cap < m.max_tokens
    {
        return bad(
            "max_tokens_cap",
            format!("{cap} is below max_tokens ({})", m.max_tokens),
            &format!(
                "use a cap of at least {} (the truncation retry doubles max_tokens up to it), \
                 or remove the key for 4 × max_tokens",
                m.max_tokens
            ),
        );
    }
    if let Some(flavour) = m.structured_output
        && flavour.is_chat_dialect()
        && matches!(m.provider, ProviderKind::Anthropic | ProviderKind::Google)
    {
        return bad(
            "structured_output",
            format!(
                "{} is a Chat Completions response_format dialect; {} takes only true or false",
                flavour.as_config(),
                m.provider
            ),
            "use structured_output = true (the provider's own feature) or false (the prompt \
             only)",
        );
    }
    if let Some(price) = m.price
        && let Some((key, value)) = price
            .given()
            .into_iter()
            .find(|(_, p)| !(p.is_finite() && *p >= 0.0))
    {
        return bad(
            "price",
            format!("{key} = {value}: prices must be finite and not negative"),
            "give dollars per million tokens, e.g. price = { input_per_mtok = 2.5, output_per_mtok = 10.0 }",
        );
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
        ("panic_rate", sim.panic_rate),
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
    let invalid = |key: &str, message: String, fix: &str| {
        Err(ConfigError::invalid(
            path,
            format!("{label}, key \"simulated.{key}\""),
            message,
            fix,
        ))
    };
    if let Some(skill) = sim.skill
        && !(0.0..=1.0).contains(&skill)
    {
        return invalid(
            "skill",
            format!("{skill} is outside 0 to 1"),
            "use a debater's true quality from 0 to 1, e.g. skill = 0.7",
        );
    }
    for (key, value) in [
        ("noise_sd", sim.noise_sd),
        ("performance_sd", sim.performance_sd),
    ] {
        if let Some(sd) = value
            && !(sd.is_finite() && sd >= 0.0)
        {
            return invalid(
                key,
                format!("{sd} is not a finite standard deviation of 0 or more"),
                &format!("use points per criterion, e.g. {key} = 1.0 (0 for none)"),
            );
        }
    }
    for (key, value) in [
        ("leniency", sim.leniency),
        ("position_bias", sim.position_bias),
        ("self_preference", sim.self_preference),
    ] {
        if let Some(v) = value
            && !v.is_finite()
        {
            return invalid(
                key,
                format!("{v} is not a finite number"),
                "use points per criterion, e.g. 0.5 (negative subtracts)",
            );
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

/// Checks the `[retry]` and `[limits]` sections.
pub(super) fn check_limits(
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
    if !crate::config::seconds::in_range(retry.connect_retry_s, false) {
        return Err(ConfigError::invalid(
            path,
            "[retry], key \"connect_retry_s\"",
            "must be a number of seconds from 0 to a week (604800)",
            "use e.g. 15 (0 stops at max_attempts like any other failure)",
        ));
    }
    if !crate::config::seconds::in_range(retry.max_retry_after_s, false) {
        return Err(ConfigError::invalid(
            path,
            "[retry], key \"max_retry_after_s\"",
            "must be a number of seconds from 0 to a week (604800)",
            "use e.g. 120",
        ));
    }
    if !crate::config::seconds::in_range(retry.max_rate_limit_wait_s, false) {
        return Err(ConfigError::invalid(
            path,
            "[retry], key \"max_rate_limit_wait_s\"",
            "must be a number of seconds from 0 to a week (604800)",
            "use e.g. 300 (0 counts every rate limit as an attempt)",
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

    #[test]
    fn env_var_names() {
        assert!(is_env_var_name("OPENAI_API_KEY"));
        assert!(is_env_var_name("my_key"));
        assert!(!is_env_var_name("sk-abc"));
        assert!(!is_env_var_name("AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"));
        assert!(!is_env_var_name("1ABC"));
    }
}
