//! "Cost, tokens and latency by model", for every protocol: each model's calls by role with
//! failures, retries, tokens, estimated cost (partial when some calls have no price) and
//! latency; `usage_by_model.csv`.

use super::{Link, Section, Table, Text, Value};
use crate::analysis::usage::{ModelUsage, seconds};

/// The section, when any call was made.
pub(super) fn section(usage: &[ModelUsage]) -> Option<Section> {
    if usage.is_empty() {
        return None;
    }
    let mut s = Section::new("Cost, tokens and latency by model");
    s.paragraph(
        Text::plain(
            "Calls answered and failed after their retries, attempts tried again, tokens (",
        )
        .code("~")
        .and(
            ": some estimated), the estimated cost, and the latency of an answered call \
                 (median and 90th percentile), by model and role.",
        ),
    );
    let mut t = Table::new(
        "Cost, tokens and latency",
        [
            "model",
            "role",
            "calls",
            "failed",
            "retries",
            "input tokens",
            "output tokens",
            "cost",
            "latency median",
            "p90",
        ],
    );
    let mut tidy = Vec::new();
    for u in usage {
        let mark = if u.estimated_calls > 0 { "~" } else { "" };
        let link = if u.role == "judge" {
            Link::judge(&u.model)
        } else {
            Link::player(&u.model)
        };
        t.row(
            vec![
                Value::text(&u.model),
                Value::text(u.role),
                Value::Count(u.calls),
                Value::Count(u.failures),
                Value::Count(u.retries),
                Value::text(format!("{mark}{}", u.input_tokens)),
                Value::text(format!("{mark}{}", u.output_tokens)),
                Value::text(u.cost_text()),
                Value::text(seconds(u.latency_median_ms)),
                Value::text(seconds(u.latency_p90_ms)),
            ],
            link,
        );
        let ms = |v: Option<u64>| v.map_or(Value::Empty, |v| Value::text(v.to_string()));
        tidy.push(vec![
            Value::text(&u.model),
            Value::text(u.role),
            Value::Count(u.calls),
            Value::Count(u.failures),
            Value::Count(u.retries),
            Value::text(u.input_tokens.to_string()),
            Value::text(u.output_tokens.to_string()),
            Value::Count(u.estimated_calls),
            Value::text(format!("{:.6}", u.cost_usd)),
            Value::Count(u.unpriced_calls),
            ms(u.latency_median_ms),
            ms(u.latency_p90_ms),
        ]);
    }
    s.table(t.with_tidy(
        "usage_by_model.csv",
        [
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
        tidy,
    ));
    Some(s)
}
