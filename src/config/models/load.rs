//! Reading a models file in steps so that every error can name its entry and key: the file is
//! read as a TOML table and each `[[models]]` entry is looked over for what needs a message of
//! its own (a literal key, an unknown provider); then the whole file is deserialised, with type
//! errors named by key path and line; then each model is checked.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;

use super::types::{LimitsConfig, ModelConfig, ModelsConfig, RetryConfig};
use super::validate;
use crate::config::ConfigError;

const TOP_LEVEL_KEYS: [&str; 3] = ["models", "retry", "limits"];
/// What to do about a value of the wrong type or an unknown key.
const FIX: &str = "compare with sample-config/models.toml; docs/configuration.md lists every key";

/// A `concurrency` key (as in `concurrency = "auto"`, which other tools use) is told how this
/// file says the same.
fn concurrency_hint(e: ConfigError) -> ConfigError {
    match e {
        ConfigError::Key {
            path,
            key,
            message,
            context,
            ..
        } if key.ends_with(".concurrency") => ConfigError::Key {
            path,
            key,
            message,
            context,
            fix: "concurrency that follows the provider's rate limits (\"auto\") is \
                  `adaptive_concurrency = true`, with `max_concurrency` as its ceiling; a fixed \
                  number is `max_concurrency = N` with `adaptive_concurrency = false`"
                .into(),
        },
        other => other,
    }
}

/// The file's typed shape; unknown top-level keys are refused before it is read.
#[derive(Deserialize)]
struct FileShape {
    models: Vec<ModelConfig>,
    #[serde(default)]
    retry: RetryConfig,
    #[serde(default)]
    limits: LimitsConfig,
}

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
        } = crate::config::typed::from_str(text, path, |key| entry_of(entries, key), FIX)
            .map_err(concurrency_hint)?;
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (index, model) in models.iter().enumerate() {
            validate::check_model(model, &entry_label(Some(&model.name), index), path)?;
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
        validate::check_limits(&retry, &limits, path)?;
        Ok(Self {
            path: path.to_path_buf(),
            models,
            retry,
            limits,
        })
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

/// How messages name an entry: by its name when it has one, always by its place.
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
    validate::check_entry(table, &entry_label(name, index), path)
}
