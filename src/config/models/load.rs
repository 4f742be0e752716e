//! Reading a models file in two steps, so that every error can name its entry: the file is
//! read as a TOML table, then each `[[models]]` entry is checked as written, deserialised on
//! its own and validated.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;

use super::types::{LimitsConfig, ModelConfig, ModelsConfig, RetryConfig};
use super::validate;
use crate::config::ConfigError;

const TOP_LEVEL_KEYS: [&str; 3] = ["models", "retry", "limits"];

impl ModelsConfig {
    /// Reads and validates a models file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        Self::parse(&crate::config::read_file(path)?, path)
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
        let retry = section::<RetryConfig>(&table, "retry", path)?;
        let limits = section::<LimitsConfig>(&table, "limits", path)?;
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
        let mut models = Vec::with_capacity(entries.len());
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (index, entry) in entries.iter().enumerate() {
            let model = parse_model(entry, index, path)?;
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
            models.push(model);
        }
        validate::check_limits(&retry, &limits, path)?;
        Ok(Self {
            path: path.to_path_buf(),
            models,
            retry,
            limits,
        })
    }
}

/// A `[retry]` or `[limits]` section, its defaults when absent.
fn section<T: for<'de> Deserialize<'de> + Default>(
    table: &toml::Table,
    key: &str,
    path: &Path,
) -> Result<T, ConfigError> {
    match table.get(key) {
        None => Ok(T::default()),
        Some(value) => value.clone().try_into().map_err(|e: toml::de::Error| {
            ConfigError::invalid(
                path,
                format!("[{key}]"),
                clean_serde_message(&e),
                format!("see the [{key}] section of sample-config/models.toml"),
            )
        }),
    }
}

/// How messages name an entry: by its name when it has one, always by its place.
fn entry_label(name: Option<&str>, index: usize) -> String {
    match name {
        Some(name) => format!("model \"{name}\" (entry {})", index + 1),
        None => format!("model entry {}", index + 1),
    }
}

/// One `[[models]]` entry: checked as written, deserialised, then validated.
fn parse_model(entry: &toml::Value, index: usize, path: &Path) -> Result<ModelConfig, ConfigError> {
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
    validate::check_entry(table, &label, path)?;
    let model: ModelConfig = entry.clone().try_into().map_err(|e: toml::de::Error| {
        let message = clean_serde_message(&e);
        let key = key_in_message(&message).map(|k| format!(", key \"{k}\""));
        ConfigError::invalid(
            path,
            format!("{label}{}", key.unwrap_or_default()),
            message,
            "compare with sample-config/models.toml; the README lists every key",
        )
    })?;
    validate::check_model(&model, &label, path)?;
    Ok(model)
}

/// serde's message without toml's trailing newline and source excerpt.
fn clean_serde_message(e: &toml::de::Error) -> String {
    e.message().trim().to_string()
}

/// The field a serde message is about: "unknown field `x`", "missing field `x`".
fn key_in_message(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    let key = &message[start..start + len];
    (message.contains("field") && !key.contains(' ')).then_some(key)
}
