//! `ethics-bowl models [--json]`: what is configured, and whether each key variable is set
//! (never the key).

use std::path::Path;

use ethics_bowl::config::{ModelConfig, Price};
use serde::Serialize;

use super::load_models;

/// `models --json`: the file read and its models.
#[derive(Serialize)]
struct ModelsJson<'a> {
    /// The models file read.
    file: String,
    models: Vec<ModelJson<'a>>,
}

/// One model as `models --json` shows it: the table's columns, its price and its limits.
#[derive(Serialize)]
struct ModelJson<'a> {
    name: &'a str,
    provider: &'static str,
    /// The provider's model id.
    model: &'a str,
    /// None for the offline `simulated` provider.
    base_url: Option<&'a str>,
    /// The variable's name, never its value; none when the provider needs no key.
    key_env: Option<&'a str>,
    /// Whether that variable is set (to something other than blanks); none without one.
    key_set: Option<bool>,
    price: Option<Price>,
    temperature: Option<f64>,
    limits: Limits,
}

/// A model's limits, defaults applied.
#[derive(Serialize)]
struct Limits {
    max_tokens: u32,
    max_concurrency: u32,
    adaptive_concurrency: bool,
    requests_per_minute: Option<u32>,
    timeout_s: f64,
    max_call_s: f64,
}

/// Whether the key variable `var` is set here.
fn key_set(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| !v.trim().is_empty())
}

impl<'a> ModelJson<'a> {
    fn of(m: &'a ModelConfig) -> Self {
        Self {
            name: &m.name,
            provider: m.provider.as_str(),
            model: &m.model,
            base_url: m.effective_base_url(),
            key_env: m.key_env(),
            key_set: m.key_env().map(key_set),
            price: m.price,
            temperature: m.temperature,
            limits: Limits {
                max_tokens: m.max_tokens,
                max_concurrency: m.max_concurrency,
                adaptive_concurrency: m.uses_adaptive_concurrency(),
                requests_per_minute: m.requests_per_minute,
                timeout_s: m.timeout_s,
                max_call_s: m.max_call_s,
            },
        }
    }
}

/// Prints one line per model, or with `json` one document.
pub fn run(config: Option<&Path>, json: bool) -> anyhow::Result<()> {
    let models = load_models(config)?;
    if json {
        return super::json::print_versioned(ModelsJson {
            file: models.path.display().to_string(),
            models: models.models.iter().map(ModelJson::of).collect(),
        });
    }
    println!("models from {}", models.path.display());
    let rows: Vec<[String; 5]> = models
        .models
        .iter()
        .map(|m| {
            let key = match m.key_env() {
                None => "no key needed".to_string(),
                Some(var) if key_set(var) => format!("{var} (set)"),
                Some(var) => format!("{var} (NOT SET)"),
            };
            [
                m.name.clone(),
                m.provider.to_string(),
                m.model.clone(),
                m.effective_base_url().unwrap_or("(offline)").to_string(),
                key,
            ]
        })
        .collect();
    let header = ["NAME", "PROVIDER", "MODEL", "BASE URL", "KEY"].map(String::from);
    let widths: Vec<usize> = (0..5)
        .map(|i| {
            rows.iter()
                .chain([&header])
                .map(|r| r[i].len())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        println!("{}", cells.join("  ").trim_end());
    }
    Ok(())
}
