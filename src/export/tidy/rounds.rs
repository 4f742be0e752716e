//! `rounds`: one row per round: how it stands, what stopped it, its usage, and its verdict
//! (read from the round's first judge, or from the panel's aggregate when a panel judged).

use serde::Serialize;

use super::{Table, format_of, seat};
use crate::domain::Team;
use crate::export::Source;
use crate::export::raters::{Observation, verdict_of};

/// The columns, in order.
pub const COLUMNS: &[&str] = &[
    "round_id",
    "protocol",
    "item_id",
    "repetition",
    "format",
    "team_a_model",
    "team_b_model",
    "judges",
    "status",
    "error",
    "error_phase",
    "error_model",
    "calls",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "verdict_by",
    "verdict_parse_status",
    "team_a_total",
    "team_b_total",
    "verdict",
    "correct",
    "human_judgments",
    "started_at",
];

/// One round.
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
    /// Team A's model.
    pub team_a_model: Option<String>,
    /// Team B's model.
    pub team_b_model: Option<String>,
    /// Its judges, in order, separated by `;` (a panel's judges as `persona=model`).
    pub judges: String,
    /// `complete`, `needs_review`, `incomplete`.
    pub status: &'static str,
    /// What stopped it, for a round that failed.
    pub error: Option<String>,
    /// The phase that failed.
    pub error_phase: Option<&'static str>,
    /// The model that failed.
    pub error_model: Option<String>,
    /// Calls answered and stored.
    pub calls: usize,
    /// Prompt tokens over its calls (those that report them).
    pub input_tokens: u64,
    /// Answer tokens over its calls.
    pub output_tokens: u64,
    /// Estimated cost over its calls that have prices; none when none has.
    pub cost_usd: Option<f64>,
    /// Whose judgment the verdict is: the first judge, or `panel`.
    pub verdict_by: Option<String>,
    /// How that judgment was read.
    pub verdict_parse_status: Option<&'static str>,
    /// Team A's total (Ethics Bowl: of 70; structured: Pro's 1–10 total).
    pub team_a_total: Option<f64>,
    /// Team B's total.
    pub team_b_total: Option<f64>,
    /// `A`, `B` or `tie` (Ethics Bowl); `pro`, `con` or `tie` (structured); the side or
    /// label chosen (question-answer). Empty when the judgment was not read.
    pub verdict: Option<String>,
    /// Question-answer: 1 when the chosen answer is correct, 0 when not.
    pub correct: Option<f64>,
    /// People's judgments of the round.
    pub human_judgments: usize,
    /// When the round was created (RFC 3339, UTC).
    pub started_at: String,
}

/// The table.
pub fn table(source: &Source) -> Table<Row> {
    let rows = source
        .rounds
        .iter()
        .map(|round| {
            let verdict = verdict_of(round).filter(|r| r.usable);
            let find = |side: Option<Team>, criteria: &[&str]| -> Option<&Observation> {
                verdict.as_ref().and_then(|r| {
                    r.observations
                        .iter()
                        .find(|o| o.side == side && criteria.contains(&o.criterion))
                })
            };
            let judges = match &round.panel {
                Some(panel) => panel
                    .judges
                    .iter()
                    .map(|s| format!("{}={}", s.persona_id, s.model))
                    .collect::<Vec<_>>()
                    .join(";"),
                None => round.judge_models.join(";"),
            };
            let costs: Vec<f64> = round.phases.iter().filter_map(|p| p.cost_usd).collect();
            Row {
                round_id: round.id.clone(),
                protocol: round.kind().as_str(),
                item_id: round.dilemma_id.clone(),
                repetition: round.repetition,
                format: format_of(round),
                team_a_model: seat(&round.team_a_model),
                team_b_model: seat(&round.team_b_model),
                judges,
                status: round.status.as_str(),
                error: round.error.as_ref().map(|e| e.message.clone()),
                error_phase: round.error.as_ref().map(|e| e.phase_type.as_str()),
                error_model: round.error.as_ref().map(|e| e.model_id.clone()),
                calls: round.phases.iter().filter(|p| p.error.is_none()).count(),
                input_tokens: round.phases.iter().filter_map(|p| p.input_tokens).sum(),
                output_tokens: round.phases.iter().filter_map(|p| p.output_tokens).sum(),
                cost_usd: (!costs.is_empty()).then(|| costs.iter().sum()),
                verdict_by: verdict_of(round).map(|r| r.judge),
                verdict_parse_status: verdict_of(round).and_then(|r| r.parse_status),
                team_a_total: find(Some(Team::A), &["total"]).and_then(|o| o.score),
                team_b_total: find(Some(Team::B), &["total"]).and_then(|o| o.score),
                verdict: find(None, &["verdict", "choice", "label"]).and_then(|o| o.answer.clone()),
                correct: find(None, &["correct"]).and_then(|o| o.score),
                human_judgments: source.annotations_of(&round.id).count(),
                started_at: round.timestamp.clone(),
            }
        })
        .collect();
    Table {
        name: "rounds",
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
