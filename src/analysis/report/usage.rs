//! The report's "Cost, tokens and latency by model" section, for every protocol, and
//! `usage_by_model.csv`: each model's calls by role with failures, retries, tokens, estimated
//! cost (partial when some calls have no price) and latency.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::files::{Format, ReportError, write_csv};
use crate::analysis::usage::{ModelUsage, seconds};

/// Appends the section.
pub(super) fn markdown(s: &mut String, usage: &[ModelUsage]) {
    if usage.is_empty() {
        return;
    }
    let _ = writeln!(s, "## Cost, tokens and latency by model\n");
    let _ = writeln!(
        s,
        "Calls answered and failed after their retries, attempts tried again, tokens (`~`: some \
         estimated), the estimated cost, and the latency of an answered call (median and 90th \
         percentile), by model and role.\n"
    );
    let _ = writeln!(
        s,
        "| model | role | calls | failed | retries | input tokens | output tokens | cost | latency median | p90 |\n|---|---|---|---|---|---|---|---|---|---|"
    );
    for u in usage {
        let mark = if u.estimated_calls > 0 { "~" } else { "" };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {mark}{} | {mark}{} | {} | {} | {} |",
            crate::sanitize::sanitize(&u.model),
            u.role,
            u.calls,
            u.failures,
            u.retries,
            u.input_tokens,
            u.output_tokens,
            u.cost_text(),
            seconds(u.latency_median_ms),
            seconds(u.latency_p90_ms)
        );
    }
    let _ = writeln!(s);
}

/// `usage_by_model.csv`: one row per model and role.
pub(super) fn files(
    usage: &[ModelUsage],
    out: &Path,
    formats: &[Format],
) -> Result<Vec<PathBuf>, ReportError> {
    if !formats.contains(&Format::Csv) || usage.is_empty() {
        return Ok(Vec::new());
    }
    let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
    let rows = usage
        .iter()
        .map(|u| {
            vec![
                u.model.clone(),
                u.role.to_string(),
                u.calls.to_string(),
                u.failures.to_string(),
                u.retries.to_string(),
                u.input_tokens.to_string(),
                u.output_tokens.to_string(),
                u.estimated_calls.to_string(),
                format!("{:.6}", u.cost_usd),
                u.unpriced_calls.to_string(),
                opt(u.latency_median_ms),
                opt(u.latency_p90_ms),
            ]
        })
        .collect();
    Ok(vec![write_csv(
        out.join("usage_by_model.csv"),
        &[
            "model",
            "role",
            "calls",
            "failures",
            "retries",
            "input_tokens",
            "output_tokens",
            "estimated_usage_calls",
            "cost_usd",
            "unpriced_calls",
            "latency_median_ms",
            "latency_p90_ms",
        ],
        rows,
    )?])
}
