//! The log's `results` and `stats`, from the report's analysis (never computed anew): each
//! protocol's headline figure with its interval and n, and token usage by model and role.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::log::{EvalMetric, EvalResults, EvalScore, ModelUsage};
use crate::analysis::Analysis;
use crate::analysis::qa::Proportion;
use crate::analysis::stats::statistic::Statistic;
use crate::analysis::tables::Cell;
use crate::domain::Round;
use crate::providers::Usage;

/// The headline figures of `analysis` over `rounds`.
pub fn results(analysis: &Analysis, rounds: &[Round], scored: usize) -> EvalResults {
    let mut scores = Vec::new();
    let mut not_computed = Vec::new();
    let unscored = rounds.len().saturating_sub(scored);
    let mut figure = |name: &str,
                      scorer: &str,
                      what: &str,
                      why: &str,
                      rows: Vec<(String, Option<EvalMetric>)>| {
        let mut metrics = BTreeMap::new();
        for (row, metric) in rows {
            match metric {
                Some(m) => {
                    metrics.insert(row, m);
                }
                None => not_computed.push(format!("{name}, {row}: {why}")),
            }
        }
        // A figure none of whose rows could be computed is left out (its rows are named
        // in `not_computed`): a score without metrics is nothing for the viewer to show.
        if metrics.is_empty() {
            return;
        }
        let mut metadata = Map::new();
        metadata.insert("description".into(), json!(what));
        scores.push(EvalScore {
            name: name.to_string(),
            scorer: scorer.to_string(),
            scored_samples: scored,
            unscored_samples: unscored,
            metrics,
            metadata,
        });
    };
    if !analysis.model_comparison.is_empty() {
        figure(
            "team_total",
            "ethics_bowl judges",
            "each model's mean team total (of 70) by role, over usable judgments by judges of \
             other models; n counts judgments, units exchanges, the interval counting exchanges",
            "no usable judgment by a judge of another model",
            analysis
                .model_comparison
                .iter()
                .map(|row| {
                    let name = format!("{} {}", row.model, row.role);
                    (name.clone(), cell(&name, &row.total))
                })
                .collect(),
        );
    }
    if let Some(qa) = &analysis.qa {
        figure(
            "judge_accuracy",
            "qa_debate judges",
            "the share of judgments choosing the correct answer, by format, with its Wilson \
             interval; n counts judgments, units items",
            "no usable judgment",
            qa.by_format
                .iter()
                .map(|(format, p)| {
                    let name = format.as_str().to_string();
                    (name.clone(), proportion(&name, p))
                })
                .collect(),
        );
    }
    if let Some(s) = &analysis.structured {
        let mut rows: Vec<(String, Option<EvalMetric>)> = s
            .models
            .iter()
            .map(|m| (m.model.clone(), statistic(&m.model, &m.win_rate, "rounds")))
            .collect();
        rows.push((
            "pro share of decided".into(),
            proportion("pro share of decided", &s.side.pro_share),
        ));
        figure(
            "win_rate",
            "structured_debate judges",
            "each model's win rate (a draw counts half), its interval from resampling the \
             rounds it debated (n counts rounds); and Pro's share of the decided judgments",
            "no usable judgment (for Pro's share: no judgment that was not a draw)",
            rows,
        );
    }
    // Rounds every phase of which ran (complete, or waiting for a person's review).
    let completed = rounds
        .iter()
        .filter(|r| r.status != crate::domain::RoundStatus::Incomplete)
        .count();
    let mut metadata = Map::new();
    if !not_computed.is_empty() {
        metadata.insert("not_computed".into(), json!(not_computed));
    }
    EvalResults {
        total_samples: rounds.len(),
        completed_samples: completed,
        scores,
        metadata,
    }
}

fn metric(name: &str, value: Option<f64>, interval: Map<String, Value>) -> Option<EvalMetric> {
    Some(EvalMetric {
        name: name.to_string(),
        value: value.filter(|v| v.is_finite())?,
        metadata: interval,
    })
}

fn cell(name: &str, c: &Cell) -> Option<EvalMetric> {
    let mut m = Map::new();
    m.insert("low".into(), json!(c.low));
    m.insert("high".into(), json!(c.high));
    m.insert("n".into(), json!(c.n));
    m.insert("units".into(), json!(c.units));
    m.insert("insufficient".into(), json!(c.insufficient));
    metric(name, c.mean, m)
}

fn proportion(name: &str, p: &Proportion) -> Option<EvalMetric> {
    let mut m = Map::new();
    m.insert("low".into(), json!(p.low));
    m.insert("high".into(), json!(p.high));
    m.insert("hits".into(), json!(p.hits));
    m.insert("n".into(), json!(p.n));
    m.insert("units".into(), json!(p.units));
    metric(name, p.share, m)
}

fn statistic(name: &str, s: &Statistic, units: &str) -> Option<EvalMetric> {
    let mut m = Map::new();
    m.insert("low".into(), json!(s.low));
    m.insert("high".into(), json!(s.high));
    m.insert("n".into(), json!(s.n));
    m.insert("n_counts".into(), json!(units));
    metric(name, s.value, m)
}

/// Tokens and cost by model and by role, from the report's usage table.
pub fn usage(analysis: &Analysis) -> (BTreeMap<String, ModelUsage>, BTreeMap<String, ModelUsage>) {
    let mut by_model: BTreeMap<String, ModelUsage> = BTreeMap::new();
    let mut by_role: BTreeMap<String, ModelUsage> = BTreeMap::new();
    for u in &analysis.usage_by_model {
        let cost = (u.unpriced_calls < u.calls).then_some(u.cost_usd);
        let tokens = Usage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cached_input_tokens: u.cached_input_tokens,
            cache_write_tokens: u.cache_write_tokens,
        };
        by_model
            .entry(u.model.clone())
            .or_default()
            .add(&tokens, cost);
        by_role
            .entry(u.role.to_string())
            .or_default()
            .add(&tokens, cost);
    }
    (by_model, by_role)
}
