//! `phases`: one row per call of every round, in the order the calls finished, with its
//! usage, cost, timing, attempts and how it ended.

use serde::Serialize;

use super::{Table, format_of};
use crate::export::seats::{self, side_name};
use crate::export::{Source, team_str};

/// The columns, in order.
pub const COLUMNS: &[&str] = &[
    "round_id",
    "protocol",
    "item_id",
    "repetition",
    "format",
    "seq",
    "phase",
    "model",
    "role",
    "side",
    "side_name",
    "judge",
    "deliberation_round",
    "argument_round",
    "correction",
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "cache_write_tokens",
    "usage_estimated",
    "cost_usd",
    "cache_saved_usd",
    "latency_ms",
    "attempts",
    "finish_reason",
    "truncated",
    "batched",
    "reused_from_cache",
    "temperature",
    "error",
    "finished_at",
];

/// One call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(Default))]
pub struct Row {
    /// The round's id.
    pub round_id: String,
    /// `ethics_bowl`, `qa_debate`, `structured_debate`.
    pub protocol: &'static str,
    /// The dilemma, question-answer item or topic.
    pub item_id: String,
    /// The repetition (1-based).
    pub repetition: u32,
    /// The question-answer arrangement; none for the other protocols.
    pub format: Option<&'static str>,
    /// The call's place in the round, 1 for the first to finish.
    pub seq: usize,
    /// The phase's name (`presentation`, `judgment`, `argument`, …).
    pub phase: &'static str,
    /// The model called.
    pub model: String,
    /// `debater`, `judge`, `panel_judge`.
    pub role: &'static str,
    /// A debater's side (`A`, `B`).
    pub side: Option<&'static str>,
    /// That side as the protocol names it.
    pub side_name: Option<&'static str>,
    /// The panel judge's persona.
    pub judge: Option<String>,
    /// The panel's round: 0 for the independent evaluation.
    pub deliberation_round: Option<u32>,
    /// A question-answer or structured debater's round of arguments.
    pub argument_round: Option<u32>,
    /// 0 for a first answer, 1 for the answer to a correction turn.
    pub correction: u32,
    /// Prompt tokens, when reported or estimated.
    pub input_tokens: Option<u64>,
    /// Answer tokens, when reported or estimated.
    pub output_tokens: Option<u64>,
    /// Of the prompt tokens, those the provider's prompt cache served.
    pub cached_input_tokens: Option<u64>,
    /// Of the prompt tokens, those written to the cache (Anthropic).
    pub cache_write_tokens: Option<u64>,
    /// Whether the token counts are estimates (the server reported none).
    pub usage_estimated: bool,
    /// Estimated cost in dollars, when the model has prices.
    pub cost_usd: Option<f64>,
    /// What the prompt cache saved against the full input price, in dollars.
    pub cache_saved_usd: Option<f64>,
    /// From the first request to the end of the answer, retries included.
    pub latency_ms: Option<u64>,
    /// Attempts made (1 when the first succeeded); none when not recorded (files of the
    /// predecessor).
    pub attempts: Option<usize>,
    /// Why the model stopped, as the provider spelled it.
    pub finish_reason: Option<String>,
    /// Whether the answer ended at the output-token limit.
    pub truncated: bool,
    /// Whether the call went through a provider's batch API.
    pub batched: bool,
    /// When the answer was stored, for an answer the response cache gave instead of a call
    /// (not a new sample; its tokens and cost are empty); none for a call this run made.
    pub reused_from_cache: Option<String>,
    /// The sampling temperature sent; none: the provider's default.
    pub temperature: Option<f64>,
    /// The error after the last attempt, for a panel call that failed.
    pub error: Option<String>,
    /// When it finished (RFC 3339, UTC).
    pub finished_at: String,
}

/// The table.
pub fn table(source: &Source) -> Table<Row> {
    let mut rows = Vec::new();
    for round in &source.rounds {
        let kind = round.kind();
        for (i, p) in round.phases.iter().enumerate() {
            let seat = seats::of_phase(p);
            rows.push(Row {
                round_id: round.id.clone(),
                protocol: kind.as_str(),
                item_id: round.dilemma_id.clone(),
                repetition: round.repetition,
                format: format_of(round),
                seq: i + 1,
                phase: p.phase_type.as_str(),
                model: p.model_id.clone(),
                role: seat.role,
                side: seat.side.map(team_str),
                side_name: seat.side.map(|t| side_name(kind, t)),
                judge: p.judge_id.clone(),
                deliberation_round: p.deliberation_round,
                argument_round: p.turn.map(|t| t.round),
                correction: p.correction.max(p.turn.map_or(0, |t| t.attempt)),
                input_tokens: p.input_tokens,
                output_tokens: p.output_tokens,
                cached_input_tokens: p.cached_input_tokens,
                cache_write_tokens: p.cache_write_tokens,
                usage_estimated: p.usage_estimated,
                cost_usd: p.cost_usd,
                cache_saved_usd: p.cache_saved_usd,
                latency_ms: p.latency_ms,
                attempts: (!p.attempts.is_empty()).then_some(p.attempts.len()),
                finish_reason: p.finish_reason.clone(),
                truncated: p.truncated,
                batched: p.batch_id.is_some(),
                reused_from_cache: p.reused_from_cache.as_ref().map(|r| r.stored_at.clone()),
                temperature: p.temperature,
                error: p.error.clone(),
                finished_at: p.timestamp.clone(),
            });
        }
    }
    Table {
        name: "phases",
        columns: COLUMNS,
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tidy::test_support::field_names;

    #[test]
    fn the_columns_are_the_rows_fields() {
        let row = Row::default();
        assert_eq!(field_names(&row), COLUMNS);
    }
}
