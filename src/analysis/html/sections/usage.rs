//! Every protocol's usage: cost, tokens and latency by model and role, and the answers cut
//! at the token limit or with estimated usage.

use std::collections::BTreeMap;

use super::super::doc::{Doc, Table};
use super::model;
use crate::analysis::calls::CallCounts;
use crate::analysis::usage::{ModelUsage, seconds};

/// "Cost, tokens and latency by model".
pub(super) fn usage(doc: &mut Doc, usage: &[ModelUsage]) {
    if usage.is_empty() {
        return;
    }
    doc.h2("Cost, tokens and latency by model");
    doc.p(
        "Calls answered and failed after their retries, attempts tried again, tokens (~: some estimated), the \
         estimated cost (marked partial when some calls have no price), and the latency of an answered call \
         (median and 90th percentile), by model and role.",
    );
    let mut t = Table::new([
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
    ]);
    for u in usage {
        let mark = if u.estimated_calls > 0 { "~" } else { "" };
        let mut filter = vec![("model", u.model.clone())];
        if u.role == "judge" {
            filter = vec![("judge", u.model.clone())];
        }
        t.row(
            vec![
                u.model.clone(),
                u.role.to_string(),
                u.calls.to_string(),
                u.failures.to_string(),
                u.retries.to_string(),
                format!("{mark}{}", u.input_tokens),
                format!("{mark}{}", u.output_tokens),
                u.cost_text(),
                seconds(u.latency_median_ms),
                seconds(u.latency_p90_ms),
            ],
            Some(filter),
        );
    }
    doc.table(&t);
}

/// "Answers cut short and estimated usage", when there is something to say.
pub(super) fn calls(doc: &mut Doc, by_model: &BTreeMap<String, CallCounts>) {
    // As in report.md: only when some answer was cut or some usage estimated.
    if by_model
        .values()
        .all(|c| c.truncated_phases == 0 && c.estimated_usage_phases == 0)
    {
        return;
    }
    let all = CallCounts::total(by_model.values());
    doc.h2("Answers cut short and estimated usage");
    doc.p(&format!(
        "{} of {} answers ended at the output-token limit; {} answers have usage the server did not report \
         (their tokens and cost are estimates).",
        all.truncated_phases, all.calls, all.estimated_usage_phases
    ));
    let mut t = Table::new([
        "model",
        "answers",
        "cut at the token limit",
        "usage estimated",
    ]);
    for (m, c) in by_model {
        t.row(
            vec![
                m.clone(),
                c.calls.to_string(),
                c.truncated_phases.to_string(),
                c.estimated_usage_phases.to_string(),
            ],
            model(m),
        );
    }
    doc.table(&t);
}
