//! "Cost, tokens and latency by model", for every protocol: each model's calls by role with
//! failures, retries, tokens, estimated cost (partial when some calls have no price) and
//! latency, with the prompt tokens a provider's cache served and what that saved when any
//! call used a cache; `usage_by_model.csv` (the cache columns always).

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
    // The cache's columns, when a provider's cache served or stored any prompt.
    let cached = usage
        .iter()
        .any(|u| u.cached_input_tokens + u.cache_write_tokens > 0);
    if cached {
        s.paragraph(
            Text::plain("Of the input tokens, ")
                .emphasis("cached")
                .and(" were read from the provider's prompt cache (and ")
                .emphasis("written")
                .and(
                    " stored in it, billed at the cache-write price); the cost prices them at                      the model's cache prices, and ",
                )
                .emphasis("cache saved")
                .and(" is the cost at the full input price less that cost."),
        );
    }
    let mut columns = vec![
        "model",
        "role",
        "calls",
        "failed",
        "retries",
        "input tokens",
    ];
    if cached {
        columns.push("cached (written)");
    }
    columns.extend(["output tokens", "cost"]);
    if cached {
        columns.push("cache saved");
    }
    columns.extend(["latency median", "p90"]);
    let mut t = Table::new("Cost, tokens and latency", columns);
    let mut tidy = Vec::new();
    for u in usage {
        let mark = if u.estimated_calls > 0 { "~" } else { "" };
        let link = if u.role == "judge" {
            Link::judge(&u.model)
        } else {
            Link::player(&u.model)
        };
        let mut cells = vec![
            Value::text(&u.model),
            Value::text(u.role),
            Value::Count(u.calls),
            Value::Count(u.failures),
            Value::Count(u.retries),
            Value::text(format!("{mark}{}", u.input_tokens)),
        ];
        if cached {
            cells.push(Value::text(format!(
                "{} ({})",
                u.cached_input_tokens, u.cache_write_tokens
            )));
        }
        cells.extend([
            Value::text(format!("{mark}{}", u.output_tokens)),
            Value::text(u.cost_text()),
        ]);
        if cached {
            cells.push(Value::text(u.saved_text()));
        }
        cells.extend([
            Value::text(seconds(u.latency_median_ms)),
            Value::text(seconds(u.latency_p90_ms)),
        ]);
        t.row(cells, link);
        let ms = |v: Option<u64>| v.map_or(Value::Empty, |v| Value::text(v.to_string()));
        tidy.push(vec![
            Value::text(&u.model),
            Value::text(u.role),
            Value::Count(u.calls),
            Value::Count(u.failures),
            Value::Count(u.retries),
            Value::text(u.input_tokens.to_string()),
            Value::text(u.output_tokens.to_string()),
            Value::text(u.cached_input_tokens.to_string()),
            Value::text(u.cache_write_tokens.to_string()),
            Value::Count(u.estimated_calls),
            Value::text(format!("{:.6}", u.cost_usd)),
            Value::text(format!("{:.6}", u.cache_saved_usd)),
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
            "cached_input_tokens",
            "cache_write_tokens",
            "estimated_usage_calls",
            "cost_usd",
            "cache_saved_usd",
            "unpriced_calls",
            "latency_median_ms",
            "latency_p90_ms",
        ],
        tidy,
    ));
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::figures::Block;

    fn usage(cached: u64) -> ModelUsage {
        ModelUsage {
            model: "m".into(),
            role: "judge",
            calls: 2,
            failures: 0,
            retries: 0,
            input_tokens: 3000,
            output_tokens: 40,
            cached_input_tokens: cached,
            cache_write_tokens: cached / 4,
            estimated_calls: 0,
            cost_usd: 0.01,
            cache_saved_usd: if cached > 0 { 0.004 } else { 0.0 },
            unpriced_calls: 0,
            latency_median_ms: Some(100),
            latency_p90_ms: Some(200),
        }
    }

    fn table(u: ModelUsage) -> Table {
        let section = section(&[u]).unwrap();
        section
            .blocks
            .into_iter()
            .find_map(|b| match b {
                Block::Table(t) => Some(t),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn the_cache_columns_appear_when_a_provider_cached_and_the_csv_always_has_them() {
        let plain = table(usage(0));
        assert!(!plain.columns.iter().any(|c| c.contains("cache")));
        let cached = table(usage(2000));
        let cell = |name: &str| {
            let i = cached.columns.iter().position(|c| c == name).unwrap();
            cached.rows[0].cells[i].shown()
        };
        assert_eq!(cell("cached (written)"), "2000 (500)");
        assert_eq!(cell("cache saved"), "$0.0040");
        for t in [&plain, &cached] {
            let tidy = t.tidy.as_ref().unwrap();
            assert!(tidy.header.iter().any(|h| h == "cache_saved_usd"));
        }
    }
}
