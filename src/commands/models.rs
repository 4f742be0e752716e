//! `ethics-bowl models`: what is configured, and whether each key variable is set (never
//! the key).

use std::path::Path;

use super::load_models;

/// Prints one line per model.
pub fn run(config: Option<&Path>) -> anyhow::Result<()> {
    let models = load_models(config)?;
    println!("models from {}", models.path.display());
    let rows: Vec<[String; 5]> = models
        .models
        .iter()
        .map(|m| {
            let key = match m.key_env() {
                None => "no key needed".to_string(),
                Some(var) if std::env::var(var).is_ok_and(|v| !v.trim().is_empty()) => {
                    format!("{var} (set)")
                }
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
